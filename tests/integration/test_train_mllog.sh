#!/usr/bin/env bash
# test_train_mllog.sh - issue 27 item 5: MLPerf MLLOG result files as
# training runs, through the CLI and the daemon, on two real DeepCAM
# results (tests/data/mllog/, tests/data/README.md).
#   CLI: each against itself passes bitwise over 9 epochs; Clemson against
#   Dell fails at epoch 1, on the loss (its largest difference's digits) and
#   on eval_accuracy alone; a broken `:::MLLOG` line exits 2 naming its
#   line and column.
#   Daemon: multipart, raw and two files (two ranks) upload as training runs
#   with source mllog, decimal precision, 9 steps,
#   the submission and config keys as run meta (the request's meta wins);
#   run page, comparisons (self bitwise pass, cross fail at epoch 1), their
#   page, steps.csv and report.pdf; parity submit (a broken file refused by
#   the server: exit 3 naming the line); a broken line is a 400 naming the
#   line and column, a file without values a 400, nothing stored.
source "$(dirname "$0")/lib.sh"
need curl python3 sqlite3
cd "$WORK" || exit 1
C=$F/mllog/deepcam_clemson_result_1.txt
D=$F/mllog/deepcam_dell_result_0.txt
# a copy of Dell's file with line 50 (epoch 1's eval_accuracy) cut short
sed '50s/, "metadata".*$/, "metadata": {"epoch_num": 1/' "$D" >broken.txt
printf 'chatter\n:::MLLOG {"event_type": "POINT_IN_TIME", "key": "seed", "value": 7}\n' >novalues.txt
# the largest |diff| of the loss, with Python's decimal arithmetic on the
# digits as written (epoch 6: 0.0025930614210665225)
MAXDIFF=$(python3 -c 'import json,sys
from decimal import Decimal
def loss(f):
    r = {}
    for l in open(f):
        if ":::MLLOG " in l:
            e = json.loads(l.split(":::MLLOG ", 1)[1], parse_float=Decimal)
            if e["key"] == "train_loss":
                r[e["metadata"]["epoch_num"]] = e["value"]
    return r
a, b = loss(sys.argv[1]), loss(sys.argv[2])
print(max(abs(b[k] - a[k]) for k in a))' "$C" "$D")

# --- CLI -------------------------------------------------------------------
cli 0 self.json -- check "$C" "$C" --policy bitwise --format json
eq "Clemson vs itself" "$(json verdict self.json)" pass
eq "Clemson: 9 common epochs" "$(json steps.common self.json)" 9
cli 0 self2.json -- compare "$D" "$D" --policy bitwise --format json
eq "Dell vs itself" "$(json verdict self2.json)" pass
cli 1 cross.json -- check "$C" "$D" --policy bitwise --format json
eq "Clemson vs Dell fails" "$(json verdict cross.json)" fail
eq "Clemson vs Dell: first step" "$(json reasons.0.step cross.json)" 1
eq "Clemson vs Dell: loss first over" "$(json metrics.loss.first_over cross.json)" 1
eq "Clemson vs Dell: epochs compared" "$(json metrics.loss.compared cross.json)" 9
eq "Clemson vs Dell: the largest difference's epoch" "$(json metrics.loss.max_abs_step cross.json)" 6
# its decimal text, every digit (train_num.h: exact from the values'
# shortest texts, which are the texts written)
eq "Clemson vs Dell: max |diff| digits" "$(json metrics.loss.max_abs_exact cross.json)" "$MAXDIFF"
cli 0 cross.csv -- check "$C" "$D" --policy premerge --threshold loss=1 --format csv
check "epoch 1's values as written" grep -q "^1,0.017406122758984566,0.01869264431297779," cross.csv
cli 1 val.json -- check "$C" "$D" --policy bitwise --metrics eval_accuracy --format json
eq "eval_accuracy: first step" "$(json metrics.eval_accuracy.first_over val.json)" 1
eq "eval_accuracy: epochs compared" "$(json metrics.eval_accuracy.compared val.json)" 9
# a result with eval_accuracy alone (most do): --metrics names it
O=$F/mllog/openfold_clemson_result_1.txt
cli 0 of.json -- check "$O" "$O" --policy bitwise --metrics eval_accuracy --format json
eq "eval-only result vs itself" "$(json verdict of.json)" pass
eq "eval-only result: 15 evaluations" "$(json metrics.eval_accuracy.compared of.json)" 15
cli 2 of2.json -- check "$O" "$O" --format json
eq "eval-only result: no loss for the default metrics" "$(json reasons.0.code of2.json)" metric_missing
cli 2 broken.out -- check "$C" broken.txt
check "a broken line names line and column" grep -q "line 50, column 164: the MLLOG JSON is broken" broken.out.err

# --- daemon ----------------------------------------------------------------
start_daemon || exit 1
db() { db_sql "$1"; }
st=$(http POST /runs -F "log=@$C;filename=result_1.txt" -F name=clemson)
eq "MLLOG upload" "$st" 201
RC=$(json id)
eq "MLLOG: training run" "$(json kind)" training
eq "MLLOG: source" "$(json logs.0.source)" mllog
eq "MLLOG: steps" "$(json logs.0.steps)" 9
eq "MLLOG: submission_benchmark is meta" "$(json meta.submission_benchmark)" deepcam
eq "MLLOG: submission_platform is meta" "$(json meta.submission_platform)" 18xSUBMISSION_PLATFORM_PLACEHOLDER
eq "MLLOG: global_batch_size is meta" "$(json meta.global_batch_size)" 144
eq "MLLOG: an array config value" "$(json meta.opt_betas)" "[0.9, 0.999]"
eq "MLLOG: run_stop status" "$(json meta.run_stop_status)" success
st=$(http POST '/runs?name=dell' --data-binary @"$D")
eq "raw MLLOG upload" "$st" 201
RD=$(json id)
eq "raw MLLOG: source" "$(json logs.0.source)" mllog
eq "raw MLLOG: submission_org" "$(json meta.submission_org)" Dell
eq "two MLLOG files = two ranks" "$(http POST /runs -F "log=@$C;filename=rank_0.txt" -F "log=@$D;filename=rank_1.txt")" 201
eq "second rank" "$(json logs.1.rank)" 1
eq "the first file's meta wins" "$(json meta.submission_org)" SUBMISSION_ORG_PLACEHOLDER
eq "with a request meta" "$(http POST /runs -F "log=@$D" -F 'meta={"submission_org":"mine"}')" 201
eq "the request's meta wins" "$(json meta.submission_org)" mine
eq "and the file's other keys added" "$(json meta.submission_benchmark)" deepcam
http GET "/runs/$RC" >/dev/null
eq "run JSON: source" "$(json logs.0.source)" mllog
eq "run JSON: precision" "$(json logs.0.precision)" decimal
eq "run JSON: no validation series" "$(json logs.0.validation_steps)" 0
eq "run page" "$(http GET "/ui/runs/$RC")" 200
check "run page shows the source" grep -q "Rank 0: MLPerf MLLOG file, values decimal" "$WORK/body"
check "run page shows the meta" grep -q "SUBMISSION_ORG_PLACEHOLDER" "$WORK/body"
eq "stored source" "$(db "select source from logs where run_id=$RC")" mllog
eq "stored text of epoch 1's loss" "$(db "select m.text from step_metrics m join steps s on s.id=m.step_id join logs l on l.id=s.log_id where l.run_id=$RC and s.step=1 and s.validation=0 and m.name='loss'")" 0.017406122758984566

eq "service: Clemson vs itself bitwise" "$(cmp_verdict "$RC" "$RC" bitwise)" pass
eq "service: Dell vs itself bitwise" "$(cmp_verdict "$RD" "$RD" bitwise)" pass
eq "service: Clemson vs Dell bitwise" "$(cmp_verdict "$RC" "$RD" bitwise)" fail
eq "service: first step" "$(json result.reasons.0.step)" 1
CMP=$(json id)
eq "comparison page" "$(http GET "/ui/comparisons/$CMP")" 200
eq "steps.csv" "$(http GET "/comparisons/$CMP/steps.csv")" 200
eq "steps.csv rows" "$(wc -l <"$WORK/body")" 10
check "steps.csv: epoch 1's values as written" grep -q "^1,0.017406122758984566,0.01869264431297779," "$WORK/body"
eq "report.pdf" "$(http GET "/comparisons/$CMP/report.pdf")" 200
check "report.pdf is a PDF" grep -q "^%PDF" "$WORK/body"

# --- submit ----------------------------------------------------------------
cli 0 sub1.txt -- submit --server "$BASE" --baseline "$C" --candidate "$C" --policy bitwise
cli 1 sub2.txt -- submit --server "$BASE" --baseline-run "$RC" --candidate "$D" --policy bitwise --json
eq "submit: verdict" "$(json verdict sub2.txt)" fail
http GET "/runs/$(json candidate sub2.txt)" >/dev/null
eq "submit: the candidate's source" "$(json logs.0.source)" mllog
# the server refuses the upload (exit 3, server/CLI.md) and says why
cli 3 sub3.txt -- submit --server "$BASE" --baseline broken.txt --candidate "$C"
check "submit: a broken line is named" grep -q "HTTP 400): broken.txt: line 50: line 50, column 164: the MLLOG JSON is broken" sub3.txt.err

# --- refusals: nothing stored ------------------------------------------------
runs_before=$(db "select count(*) from runs")
logs_before=$(db "select count(*) from logs")
eq "broken MLLOG upload" "$(http POST /runs -F "log=@broken.txt")" 400
eq "broken: code" "$(json error.code)" bad_json
eq "broken: line" "$(json error.line)" 50
check "broken: the column" grep -q "column 164" "$WORK/body"
eq "broken raw upload" "$(http POST /runs --data-binary @broken.txt)" 400
eq "no values upload" "$(http POST /runs -F "log=@novalues.txt")" 400
eq "no values: code" "$(json error.code)" no_values
eq "nothing stored: runs" "$(db "select count(*) from runs")" "$runs_before"
eq "nothing stored: logs" "$(db "select count(*) from logs")" "$logs_before"
check "no temp files left" wait_for no_temp_files
stop_daemon
finish
