#!/usr/bin/env bash
# test_train_nvinspect.sh - issue 27 item 4: NVIDIA DL Framework Inspect
# statistics logs (nvdlfw_inspect_globalrank-N.log) as training runs.
#   CLI: the real excerpt from Transformer Engine's docs and our 128-series
#   file each pass bitwise against themselves comparing every series; the
#   pair that differs in one series at one iteration fails naming both; a
#   broken file exits 2 naming its line.
#   Daemon: multipart and raw uploads are training runs with source
#   nvdlfw_inspect and the right iteration count, the rank from the
#   globalrank-N file name, two files two ranks; a broken file is a 400
#   naming the line and nothing is stored; self-comparison bitwise passes;
#   the one-value pair fails naming the series and the iteration; the page
#   groups series by layer and tensor and charts only the failing series;
#   steps.csv holds every series, report.pdf renders; parity submit.
# Test data: tests/data/nvinspect (tests/data/README.md).
source "$(dirname "$0")/lib.sh"
need curl python3 sqlite3
cd "$WORK" || exit 1

TE=$F/nvinspect/te_getting_started_globalrank-0.log
GA=$F/nvinspect/gpt_fp8_globalrank-0.log
GB=$F/nvinspect/gpt_fp8_one_diff_globalrank-0.log
DIFF=model.module.decoder.layers.1.mlp.linear_fc1_gradient_std
mkdir -p r1
cp "$GA" r1/nvdlfw_inspect_globalrank-1.log
{
	head -n 5 "$GA"
	printf '2025-06-12 14:03:00,100 - INFO - model.x_weight_max \t iteration=000005 \t value=oops\n'
} >broken_globalrank-0.log

# pyj FILE EXPR: evaluate a Python expression over the JSON document d
pyj() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --- CLI -------------------------------------------------------------------
cli 0 te.json -- check "$TE" "$TE" --policy bitwise --format json
eq "TE docs excerpt vs itself" "$(json verdict te.json)" pass
eq "TE docs excerpt: 3 iterations" "$(json steps.common te.json)" 3
eq "TE docs excerpt: 5 series compared" "$(pyj te.json 'len(d["metrics"])')" 5
eq "TE docs excerpt: l1_norm on every iteration" \
	"$(pyj te.json 'd["metrics"]["transformer_layer.self_attention.layernorm_qkv_activation_l1_norm"]["compared"]')" 3
eq "the compared set is every common series" "$(json policy.all_common te.json)" true
cli 0 self.json -- check "$GA" "$GA" --policy bitwise --format json
eq "128 series vs itself" "$(json verdict self.json)" pass
eq "128 series compared" "$(pyj self.json 'len(d["metrics"])')" 128
eq "10 iterations" "$(json steps.common self.json)" 10
cli 1 diff.json -- check "$GA" "$GB" --policy bitwise --format json
eq "one value differs: fail" "$(json verdict diff.json)" fail
eq "one reason" "$(pyj diff.json 'len(d["reasons"])')" 1
eq "the reason names the series" "$(json reasons.0.metric diff.json)" "$DIFF"
eq "the reason names the iteration" "$(json reasons.0.step diff.json)" 30
eq "the first difference: series" "$(json first_difference.metric diff.json)" "$DIFF"
eq "the first difference: iteration" "$(json first_difference.step diff.json)" 30
eq "the exact decimal difference" "$(json reasons.0.max_abs_exact diff.json)" 0.0003
cli 0 diffp.json -- check "$GA" "$GB" --policy premerge --threshold "$DIFF=0.001" --format json
eq "a named threshold for one series" "$(json verdict diffp.json)" pass
cli 1 difft.txt -- check "$GA" "$GB" --policy bitwise
check "text: the first difference" grep -q "first difference: $DIFF at iteration 30" difft.txt
cli 1 diff.csv -- check "$GA" "$GB" --policy bitwise --format csv
eq "CSV: every series" "$(head -n 1 diff.csv | tr ',' '\n' | grep -c '_abs$')" 128
cli 2 broken.txt -- check "$GA" broken_globalrank-0.log
check "a broken file names its line" grep -q "line 6" broken.txt.err
cli 0 loss.json -- check "$GA" "$GA" --metrics "$DIFF" --format json
eq "--metrics names the compared set" "$(pyj loss.json 'list(d["metrics"])')" "['$DIFF']"

# --- daemon ----------------------------------------------------------------
start_daemon || exit 1
db() { db_sql "$1"; }
st=$(http POST /runs -F "log=@$GA;filename=nvdlfw_inspect_globalrank-0.log" -F name=stats-a)
eq "statistics log upload" "$st" 201
RA=$(json id)
eq "training run" "$(json kind)" training
eq "source" "$(json logs.0.source)" nvdlfw_inspect
eq "iterations" "$(json logs.0.steps)" 10
eq "rank from globalrank-0" "$(json logs.0.rank)" 0
st=$(http POST '/runs?name=stats-b' --data-binary @"$GB")
eq "raw statistics log upload" "$st" 201
RB=$(json id)
eq "raw: source" "$(json logs.0.source)" nvdlfw_inspect
st=$(http POST /runs -F "log=@$TE;filename=nvdlfw_inspect_globalrank-0.log" -F "log=@$TE;filename=nvdlfw_inspect_globalrank-3.log")
eq "two statistics logs = two ranks" "$st" 201
eq "rank from globalrank-3" "$(json logs.1.rank)" 3
eq "stored source" "$(db "select source from logs where run_id=$RA")" nvdlfw_inspect
eq "stored values: every series of every iteration" \
	"$(db "select count(*) from step_metrics m join steps s on s.id=m.step_id join logs l on l.id=s.log_id where l.run_id=$RA")" 1280
eq "stored text kept" \
	"$(db "select m.text from step_metrics m join steps s on s.id=m.step_id join logs l on l.id=s.log_id where l.run_id=$RB and s.step=30 and m.name='$DIFF'")" 0.6994
http GET "/runs/$RA" >/dev/null
eq "run JSON: precision" "$(json logs.0.precision)" printed
eq "run page" "$(http GET "/ui/runs/$RA")" 200
check "run page shows the source" grep -q "DL Framework Inspect statistics log" "$WORK/body"

runs_before=$(db "select count(*) from runs")
logs_before=$(db "select count(*) from logs")
eq "broken file upload" "$(http POST /runs -F "log=@broken_globalrank-0.log")" 400
eq "broken file: code" "$(json error.code)" not_nvinspect_log
eq "broken file: line" "$(json error.line)" 6
eq "broken raw upload" "$(http POST /runs --data-binary @broken_globalrank-0.log)" 400
eq "nothing stored: runs" "$(db "select count(*) from runs")" "$runs_before"
eq "nothing stored: logs" "$(db "select count(*) from logs")" "$logs_before"
check "no temp files left" wait_for no_temp_files

cmp_id() { # baseline candidate policy -> comparison id (done)
	local st id
	st=$(http POST /comparisons --json "{\"baseline\":$1,\"candidate\":$2,\"policy\":\"$3\"}")
	[ "$st" = 202 ] || { echo "status $st"; return; }
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	echo "$id"
}
CS=$(cmp_id "$RA" "$RA" bitwise)
eq "service: self-comparison bitwise" "$(json verdict)" pass
eq "service: every series compared" "$(pyj "$WORK/body" 'len(d["result"]["metrics"])')" 128
CD=$(cmp_id "$RA" "$RB" bitwise)
eq "service: one value differs" "$(json verdict)" fail
eq "service: the series" "$(json result.reasons.0.metric)" "$DIFF"
eq "service: the iteration" "$(json result.reasons.0.step)" 30
eq "comparison page" "$(http GET "/ui/comparisons/$CD")" 200
cp "$WORK/body" page.html
check "page: the first difference stated" grep -q "First difference: <code>$DIFF</code> at iteration 30" page.html
check "page: grouped by layer and tensor" grep -q '<table class="series-groups"' page.html
eq "page: one group row per layer and tensor" "$(grep -o '<tr class="group' page.html | wc -l)" 24
check "page: the failing group" grep -q "model.module.decoder.layers.1.mlp.linear_fc1</td><td>gradient</td>" page.html
eq "page: one chart (the failing series)" "$(grep -c '<h3>' page.html)" 1
check "page: says so" grep -q "charts only for the failing series" page.html
eq "steps.csv" "$(http GET "/comparisons/$CD/steps.csv")" 200
eq "steps.csv: every series" "$(head -n 1 "$WORK/body" | tr ',' '\n' | grep -c "_abs$")" 128
eq "report.pdf" "$(http GET "/comparisons/$CD/report.pdf")" 200
check "report.pdf is a PDF" grep -q '^%PDF' "$WORK/body"
eq "report.html" "$(http GET "/comparisons/$CD/report.html")" 200
# a series with '%' in its name differs: its chart is linked URL-encoded
UF='model.module.decoder.layers.0.self_attention.linear_qkv_gradient_fp8_delayed_scaling_underflows%'
sed '912s/value=0.4029/value=0.4030/' "$GA" >uf_globalrank-0.log
eq "underflows% variant upload" "$(http POST /runs -F "log=@uf_globalrank-0.log")" 201
RU=$(json id)
CU=$(cmp_id "$RA" "$RU" bitwise)
eq "underflows%: fail" "$(json verdict)" fail
eq "underflows%: the series" "$(json result.first_difference.metric)" "$UF"
eq "underflows%: the iteration" "$(json result.first_difference.step)" 40
eq "underflows% page" "$(http GET "/ui/comparisons/$CU")" 200
check "underflows% page: the chart link is URL-encoded" grep -q 'charts/model.module.decoder.layers.0.self_attention.linear_qkv_gradient_fp8_delayed_scaling_underflows%25.png' "$WORK/body"
eq "underflows% chart PNG" "$(http GET "/comparisons/$CU/charts/model.module.decoder.layers.0.self_attention.linear_qkv_gradient_fp8_delayed_scaling_underflows%25.png")" 200
check "underflows% chart is a PNG" grep -q 'PNG' "$WORK/body"

# --- submit ----------------------------------------------------------------
cli 0 sub1.txt -- submit --server "$BASE" --baseline "$GA" --candidate "$GA" --policy bitwise
cli 1 sub2.txt -- submit --server "$BASE" --baseline "$GA" --candidate "$GB" --policy bitwise
check "submit names the series" grep -q "$DIFF" sub2.txt
# a statistics folder: its nvdlfw_inspect_globalrank-N.log files are the ranks
mkdir -p sa/nvdlfw_inspect_statistics_logs
cp "$GA" sa/nvdlfw_inspect_statistics_logs/nvdlfw_inspect_globalrank-0.log
cp "$GA" sa/nvdlfw_inspect_statistics_logs/nvdlfw_inspect_globalrank-1.log
cli 0 sub4.txt -- submit --server "$BASE" --baseline sa/nvdlfw_inspect_statistics_logs \
	--candidate sa/nvdlfw_inspect_statistics_logs --policy bitwise --json
eq "folder: verdict" "$(json verdict sub4.txt)" pass
http GET "/runs/$(json baseline sub4.txt)" >/dev/null
eq "folder: two ranks" "$(json logs.1.rank)" 1
eq "folder: source" "$(json logs.1.source)" nvdlfw_inspect
# a broken file: the server refuses the upload (submit's exit 3) naming the line
cli 3 sub3.txt -- submit --server "$BASE" --baseline "$GA" --candidate broken_globalrank-0.log
check "submit: a broken file names its line" grep -q "HTTP 400.*line 6" sub3.txt.err
stop_daemon
finish
