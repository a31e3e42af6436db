#!/usr/bin/env bash
# test_train_sources.sh - issue 14: TensorBoard event files and golden loss
# files as training runs, through the CLI and the daemon.
#   CLI: an event file against itself passes bitwise; one float32 ulp at
#   step 17 fails bitwise naming step 17 and passes premerge; a golden
#   file and the event file with the same values pass bitwise; two golden
#   files that differ fail naming the first step; a corrupted CRC exits 2
#   naming the byte offset.
#   Daemon: event and loss files upload (multipart, raw; two files = two
#   ranks), are stored as training runs with their source and precision,
#   compare like stdout runs; a corrupted CRC is a 400 naming the offset
#   and nothing is stored.
# Event files come from tests/tools/gen_tfevents (PARITY_GEN_TFEVENTS).
source "$(dirname "$0")/lib.sh"
need curl python3 sqlite3
GEN=${PARITY_GEN_TFEVENTS:?PARITY_GEN_TFEVENTS not set}
cd "$WORK" || exit 1

"$GEN" a.tfevents --steps 60 --golden a.txt
"$GEN" b.tfevents --steps 60 --ulp 17 --golden b.txt
"$GEN" d.tfevents --steps 60 --enc content
OFF=$("$GEN" c.tfevents --steps 60 --flip-crc 7)
"$GEN" t.tfevents --steps 60 --truncate 9
printf '1 2.0\n2 oops\n' >badloss.txt

# --- CLI -------------------------------------------------------------------
cli 0 self.json -- check a.tfevents a.tfevents --policy bitwise --format json
eq "event file vs itself" "$(json verdict self.json)" pass
eq "no resolution note for float32" "$(json resolution.loss self.json)" null
cli 1 ulp.json -- check a.tfevents b.tfevents --policy bitwise --format json
eq "one ulp fails bitwise" "$(json verdict ulp.json)" fail
eq "one ulp: the step" "$(json reasons.0.step ulp.json)" 17
eq "one ulp: the size" "$(json metrics.loss.max_abs_exact ulp.json)" "$(python3 -c 'import struct
f=lambda s: struct.unpack("f",struct.pack("f",10/(1+s*0.37)+0.001*(s%7)))[0]
a=f(17); b=struct.unpack("f",struct.pack("I",struct.unpack("I",struct.pack("f",a))[0]+1))[0]
print(repr(b-a))')"
cli 0 ulp2.json -- check a.tfevents b.tfevents --policy premerge --format json
eq "one ulp passes premerge" "$(json verdict ulp2.json)" pass
cli 0 enc.json -- check a.tfevents d.tfevents --policy bitwise --format json
eq "simple_value vs tensor_content" "$(json verdict enc.json)" pass
cli 0 gold.json -- check a.txt a.tfevents --policy bitwise --format json
eq "golden file vs event file" "$(json verdict gold.json)" pass
check "golden vs event: compared at float32" grep -q "compared at float32 precision" gold.json
cli 1 gold2.json -- check a.txt b.txt --policy bitwise --format json
eq "two golden files differ" "$(json verdict gold2.json)" fail
eq "two golden files: first step" "$(json reasons.0.step gold2.json)" 17
cli 2 crc.txt -- check a.tfevents c.tfevents
check "bad CRC names the offset" grep -q "bad_crc.*byte offset $OFF" crc.txt.err
cli 0 trunc.json -- check a.tfevents t.tfevents --policy bitwise --allow-warnings --format json
eq "truncated tail: the intact steps compare" "$(json verdict trunc.json)" pass
# TorchTitan's multi-metric golden files (real files: tests/data/README.md)
TR=$F/train/torchtitan_llama3_real_pg_a10g.txt
TF=$F/train/torchtitan_llama3_fake_pg_a10g.txt
cli 0 tt.json -- check "$TR" "$TR" --policy bitwise --format json
eq "multi-metric golden vs itself" "$(json verdict tt.json)" pass
eq "multi-metric golden: 10 steps" "$(json steps.common tt.json)" 10
eq "multi-metric golden: grad_norm compared" "$(json metrics.grad_norm.compared tt.json)" 10
cli 1 tt2.json -- check "$TR" "$TF" --policy bitwise --format json
eq "real_pg vs fake_pg fails" "$(json verdict tt2.json)" fail
eq "real_pg vs fake_pg: first step" "$(json reasons.0.step tt2.json)" 1
eq "real_pg vs fake_pg: loss first over" "$(json metrics.loss.first_over tt2.json)" 1
# parity export writes the multi-metric form; it reads back bitwise equal
cli 0 ttx.txt -- export "$TR" --format losses --metric loss,grad_norm
check "export: the column line" grep -qx '# step loss grad_norm' ttx.txt
check "export: values kept as written" grep -qx '1 8.023969650268555 1.5995219945907593' ttx.txt
cli 0 ttx.json -- check "$TR" ttx.txt --policy bitwise --format json
eq "export round trip bitwise" "$(json verdict ttx.json)" pass
# a failed export removes its partial file, but never a device: writing to
# /dev/full fails, and /dev/full must still be there (it was unlinked when
# run as root)
cli 2 full.txt -- export "$TR" --format losses --metric loss,grad_norm -o /dev/full
check "a failed export leaves /dev/full a device" test -c /dev/full
python3 "$G/gen_trainlog.py" --steps 30 --out-a so.log --out-b so_b.log >/dev/null
cli 0 sox.txt -- export so.log --format losses --metric loss,grad_norm
cli 0 sox.json -- check so.log sox.txt --policy bitwise --format json
eq "stdout log exported in columns compares bitwise" "$(json verdict sox.json)" pass
cli 2 soerr.txt -- export so.log --format losses --metric loss,nosuch
check "export: a missing metric is named" grep -q "no nosuch values" soerr.txt.err
printf '# step loss grad_norm\n1 8.0 1.5\n2 7.0\n' >badcols.txt
cli 2 badcols.out -- check "$TR" badcols.txt
check "a short row names its line" grep -q "line 3 has 1 value(s)" badcols.out.err

# --- daemon ----------------------------------------------------------------
start_daemon || exit 1
st=$(http POST /runs -F "log=@a.tfevents;filename=events.out.tfevents.1700000000.host" -F name=tb)
eq "event file upload" "$st" 201
RA=$(json id)
eq "event file: training run" "$(json kind)" training
eq "event file: steps" "$(json logs.0.steps)" 60
st=$(http POST '/runs?name=tb-raw' --data-binary @b.tfevents)
eq "raw event file upload" "$st" 201
RB=$(json id)
st=$(http POST /runs -F "log=@a.txt;filename=losses.txt" -F name=golden)
eq "golden file upload" "$st" 201
RG=$(json id)
st=$(http POST /runs -F "log=@a.tfevents;filename=rank_0.tfevents" -F "log=@d.tfevents;filename=rank_1.tfevents")
eq "two event files = two ranks" "$st" 201
eq "second rank" "$(json logs.1.rank)" 1
http GET "/runs/$RA" >/dev/null
eq "run JSON: source" "$(json logs.0.source)" tfevents
eq "run JSON: precision" "$(json logs.0.precision)" float32
http GET "/runs/$RG" >/dev/null
eq "golden run JSON: precision" "$(json logs.0.precision)" decimal
eq "run page" "$(http GET "/ui/runs/$RA")" 200
check "run page shows the source and precision" grep -q "Rank 0: TensorBoard event file, values float32" "$WORK/body"
db() { db_sql "$1"; }
eq "stored source" "$(db "select source from logs where run_id=$RA")" tfevents
eq "stored golden source" "$(db "select source from logs where run_id=$RG")" lossfile
eq "stored precision float32" "$(db "select distinct m.prec from step_metrics m join steps s on s.id=m.step_id join logs l on l.id=s.log_id where l.run_id=$RA")" 2
eq "stored golden text kept" "$(db "select m.text from step_metrics m join steps s on s.id=m.step_id join logs l on l.id=s.log_id where l.run_id=$RG and s.step=1")" "$(sed -n 2p a.txt | cut -d' ' -f2)"

eq "service: event vs itself bitwise" "$(cmp_verdict "$RA" "$RA" bitwise)" pass
eq "service: one ulp bitwise" "$(cmp_verdict "$RA" "$RB" bitwise)" fail
eq "service: one ulp bitwise step" "$(json result.reasons.0.step)" 17
eq "service: one ulp premerge" "$(cmp_verdict "$RA" "$RB" premerge)" pass
eq "service: golden vs event bitwise" "$(cmp_verdict "$RG" "$RA" bitwise)" pass
# the noise policy needs a baseline set: two runs are refused, nothing queued
n_cmp=$(db "select count(*) from comparisons")
eq "service: noise on two runs is 400" "$(http POST /comparisons --json "{\"baseline\":$RA,\"candidate\":$RB,\"policy\":\"noise\"}")" 400
check "service: noise refusal names the baseline set" grep -q 'baseline set of repeats' "$WORK/body"
eq "service: noise refusal stores nothing" "$(db "select count(*) from comparisons")" "$n_cmp"

# --- export ----------------------------------------------------------------
eq "losses.txt" "$(http GET "/runs/$RA/losses.txt")" 200
check "losses.txt: the golden values" diff <(grep -v '^#' "$WORK/body") <(grep -v '^#' a.txt)
check "losses.txt names the source" grep -q "source tfevents" "$WORK/body"
eq "losses.txt of the golden run" "$(http GET "/runs/$RG/losses.txt")" 200
check "golden run exports its own text" diff <(grep -v '^#' "$WORK/body") <(grep -v '^#' a.txt)
eq "losses.txt grad_norm" "$(http GET "/runs/$RA/losses.txt?metric=grad_norm")" 200
check "grad_norm file names its metric" grep -q "^# metric: grad_norm" "$WORK/body"
eq "losses.txt rank 1" "$(http GET "/runs/$RA/losses.txt?rank=1")" 404
eq "losses.txt bad metric" "$(http GET "/runs/$RA/losses.txt?metric=%3Cb%3E")" 400
eq "losses.txt missing run" "$(http GET "/runs/9999/losses.txt")" 404
cli 0 exp.txt -- export "$RB" --format losses --server "$BASE"
check "parity export RUN_ID = losses.txt" diff <(grep -v '^#' exp.txt) <(grep -v '^#' b.txt)
cli 0 expf.txt -- export a.tfevents --format losses
check "parity export FILE" diff <(grep -v '^#' expf.txt) <(grep -v '^#' a.txt)
cli 2 expc.txt -- export c.tfevents --format losses
check "export of a bad CRC names the offset" grep -q "byte offset $OFF" expc.txt.err
# the exported file round-trips: golden (exported) vs the event file, bitwise
cli 0 rt.json -- check exp.txt b.tfevents --policy bitwise --format json
eq "exported golden file vs its event file" "$(json verdict rt.json)" pass

# --- submit --baseline-file ---------------------------------------------------
cli 0 sub1.txt -- submit --server "$BASE" --baseline-file a.txt --candidate a.tfevents --policy bitwise
cli 1 sub2.txt -- submit --server "$BASE" --baseline-file a.txt --candidate b.tfevents --policy bitwise
check "submit --baseline-file names the step" grep -q "17" sub2.txt
# a TensorBoard folder: rank_N subfolders with their event files
mkdir -p tb/rank_0 tb/rank_1 tb2
cp a.tfevents tb/rank_0/events.out.tfevents.1700000000.host.1.0
cp d.tfevents tb/rank_1/events.out.tfevents.1700000000.host.2.0
cp a.tfevents tb2/events.out.tfevents.1700000000.host.1.0
cp b.tfevents tb2/events.out.tfevents.1700000001.host.2.0
cli 0 sub4.txt -- submit --server "$BASE" --baseline tb --candidate tb --policy bitwise --json
eq "folder: verdict" "$(json verdict sub4.txt)" pass
http GET "/runs/$(json baseline sub4.txt)" >/dev/null
eq "folder: two ranks uploaded" "$(json logs.1.rank)" 1
st=$(http POST /runs -F "log=@tb2/events.out.tfevents.1700000000.host.1.0" -F "log=@tb2/events.out.tfevents.1700000001.host.2.0")
eq "unnamed event files rank by order" "$st" 201
eq "unnamed event files: rank 1" "$(json logs.1.rank)" 1
cli 2 sub3.txt -- submit --server "$BASE" --baseline-file badloss.txt --candidate a.tfevents
check "a bad golden file names its line" grep -q "line 2" sub3.txt.err

eq "multi-metric golden upload" "$(http POST /runs -F "log=@$TR;filename=llama3.txt")" 201
eq "multi-metric golden: source" "$(json logs.0.source)" lossfile
eq "multi-metric golden: steps" "$(json logs.0.steps)" 10
eq "golden header keys are run meta" "$(json meta.config)" llama3_debugmodel_fsdp2_tp2_cp2
eq "golden header: parallelism" "$(json meta.parallelism)" "FSDP=2, TP=2, CP=2"
eq "golden header with a request meta" "$(http POST /runs -F "log=@$TR" -F 'meta={"ngpu":"16","commit":"abc"}')" 201
eq "the request's meta wins" "$(json meta.ngpu)" 16
eq "the request's meta kept" "$(json meta.commit)" abc
eq "and the header's other keys added" "$(json meta.config)" llama3_debugmodel_fsdp2_tp2_cp2

runs_before=$(db "select count(*) from runs")
logs_before=$(db "select count(*) from logs")
st=$(http POST /runs -F "log=@c.tfevents")
eq "bad CRC upload" "$st" 400
eq "bad CRC code" "$(json error.code)" bad_crc
check "bad CRC message names the offset" grep -q "byte offset $OFF" "$WORK/body"
eq "bad CRC raw upload" "$(http POST /runs --data-binary @c.tfevents)" 400
eq "bad loss file" "$(http POST /runs -F "log=@badloss.txt")" 400
eq "bad loss file line" "$(json error.line)" 2
eq "short row upload" "$(http POST /runs -F "log=@badcols.txt")" 400
eq "short row: the line" "$(json error.line)" 3
eq "nothing stored: runs" "$(db "select count(*) from runs")" "$runs_before"
eq "nothing stored: logs" "$(db "select count(*) from logs")" "$logs_before"
check "no temp files left" wait_for no_temp_files
stop_daemon
finish
