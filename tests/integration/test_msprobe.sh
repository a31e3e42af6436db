#!/usr/bin/env bash
# test_msprobe.sh - issue 27 item 3: Ascend msprobe dumps as activation runs
# (matcher/spec/msprobe.md), through the CLI and the daemon.
#   CLI: the real PyTorch and MindSpore dumps of msprobe's own tests
#   against themselves pass bitwise with their op counts; our step0/step1
#   trees (tests/tools/gen_msprobe.py) compare as two runs of two ranks:
#   step0 vs itself passes, step0 vs step1 fails naming the embedding as
#   the first differing op; locations come from stack.json; a root folder
#   of step folders and a broken dump exit 2 naming the step / the JSON
#   line or the op.
#   Daemon: a dump uploads (201, kind activation, source msprobe, its op
#   count) with stack and construct parts (locations stored); two dumps
#   are two ranks; broken dumps, stacks and construct files are 400 with
#   nothing stored; self-comparison passes bitwise, step 0 vs step 1
#   fails naming the first differing op; run page, comparison page,
#   rows.csv and report.pdf answer; `parity submit` takes a step folder.
source "$(dirname "$0")/lib.sh"
need curl python3
DATA=$WORK/data
M=$F/msprobe
T=$M/tree
cd "$WORK" || exit 1

# --- CLI -------------------------------------------------------------------
for fw in pytorch mindspore; do
	cli 0 "$fw.json" -- compare "$M/$fw/dump.json" "$M/$fw/dump.json" --policy bitwise --format json
	eq "$fw dump vs itself" "$(json verdict "$fw.json")" pass
done
eq "pytorch: 12 ops" "$(json summary.rows pytorch.json)" 12
eq "mindspore: 13 ops" "$(json summary.rows mindspore.json)" 13
eq "pytorch: location from stack.json" "$(json rows.0.a.location pytorch.json)" \
	/path_to_net/PanGu/pangu/training/utils.py:176
cli 0 same.txt -- compare "$T/step0" "$T/step0" --policy bitwise
check "step0 vs itself: two ranks" grep -q "pass (policy bitwise, 2 ranks)" same.txt
cli 1 steps.txt -- compare "$T/step0" "$T/step1" --policy bitwise
check "step0 vs step1 names the first differing op" grep -q \
	"first forward divergence: row 2  Functional.embedding.forward/op_0_embedding" steps.txt
cli 1 steps.json -- compare "$T/step0/rank0/dump.json" "$T/step1/rank0/dump.json" --format json
eq "step0 vs step1: first differing op" "$(json reasons.0.details.first.a_key steps.json)" \
	Functional.embedding.forward/op_0_embedding
eq "step0 vs step1: the ops before it match" "$(json summary.match steps.json)" 2
cli 2 root.txt -- compare "$T" "$T"
check "a folder of step folders: name one" grep -q "holds msprobe step folders: name one" root.txt.err
printf '{"task": "statistics",\n "data": {\n  "Torch.add.0.forward": {"output": [,]}}}\n' >bad.json
cli 2 bad.txt -- compare bad.json "$M/pytorch/dump.json"
check "broken JSON: jansson's line and column" grep -q "bad.json: line 3: dump.json is not valid JSON: line 3, column 38" bad.txt.err
printf '{"task": "statistics", "data": {\n"Torch.add.0.forward": {"output": [{"shape": 7}]}}}\n' >badop.json
cli 2 badop.txt -- compare badop.json "$M/pytorch/dump.json"
check "a broken record names the op" grep -q 'op "Torch.add.0.forward": tensor "shape" is not a list' badop.txt.err

# --- daemon ----------------------------------------------------------------
start_daemon || exit 1
db() { db_sql "$1"; }
st=$(http POST /runs -F "log=@$M/pytorch/dump.json" -F "stack=@$M/pytorch/stack.json" \
	-F "construct=@$M/pytorch/construct.json" -F name=pt)
eq "dump upload" "$st" 201
RP=$(json id)
eq "dump: activation run" "$(json kind)" activation
eq "dump: op count" "$(json logs.0.entries)" 12
http GET "/runs/$RP" >/dev/null
eq "run JSON: source" "$(json logs.0.source)" msprobe
eq "stored source" "$(db "select source from logs where run_id=$RP")" msprobe
eq "stored location" "$(db "select e.location from entries e join logs l on l.id=e.log_id where l.run_id=$RP and e.key='Tensor.__or__.forward/op_0___or__'")" \
	/path_to_package/third_party/MindSpeed/mindspeed/core/tensor_parallel/layers.py:19
eq "run page" "$(http GET "/ui/runs/$RP")" 200
check "run page shows the source format" grep -q "Rank 0: Ascend msprobe dump (dump.json)" "$WORK/body"
# raw body, MindSpore
st=$(http POST '/runs?name=ms' --data-binary "@$M/mindspore/dump.json")
eq "raw dump upload" "$st" 201
eq "mindspore: op count" "$(json logs.0.entries)" 13
# two dumps = two ranks (by order), each with its stack
up_step() { # STEP NAME -> run id
	http POST /runs -F "log=@$T/$1/rank0/dump.json" -F "log=@$T/$1/rank1/dump.json" \
		-F "stack=@$T/$1/rank0/stack.json" -F "stack=@$T/$1/rank1/stack.json" -F "name=$2" >/dev/null
	json id
}
R0=$(up_step step0 s0)
R1=$(up_step step1 s1)
http GET "/runs/$R1" >/dev/null
eq "step run: two ranks" "$(json logs.1.rank)" 1
eq "step run: rank 1 ops" "$(json logs.1.entries)" 33
eq "rank 1 locations from its own stack" "$(db "select e.location from entries e join logs l on l.id=e.log_id where l.run_id=$R1 and l.rank=1 and e.ord=0")" \
	/workspace/llm/model.py:88

# broken files: 400 naming the line / op / part, nothing stored
n_runs=$(db "select count(*) from runs")
eq "broken dump is 400" "$(http POST /runs -F "log=@bad.json")" 400
check "broken dump: line and column" grep -q 'line 3, column 38' "$WORK/body"
eq "broken op is 400" "$(http POST /runs -F "log=@badop.json")" 400
check "broken op: named" grep -q 'Torch.add.0.forward' "$WORK/body"
printf '{"x": 5}' >badstack.json
eq "broken stack is 400" "$(http POST /runs -F "log=@$M/pytorch/dump.json" -F "stack=@badstack.json")" 400
check "broken stack: the part and key" grep -q 'stack part 1: stack.json: \\"x\\"' "$WORK/body"
printf '[1,' >badcons.json
eq "broken construct is 400" "$(http POST /runs -F "log=@$M/pytorch/dump.json" -F "construct=@badcons.json")" 400
check "broken construct: jansson's line" grep -q 'construct part 1: construct.json is not valid JSON: line 1' "$WORK/body"
eq "two stacks for one dump is 400" "$(http POST /runs -F "log=@$M/pytorch/dump.json" -F "stack=@$M/pytorch/stack.json" -F "stack=@$M/pytorch/stack.json")" 400
printf '{"task": "statistics", "data": {}}' >empty.json
eq "an empty dump is 400" "$(http POST /runs -F "log=@empty.json")" 400
eq "nothing stored" "$(db "select count(*) from runs")" "$n_runs"
check "no temp files left" no_temp_files

# comparisons, pages, CSV, PDF
compare() { # baseline candidate -> verdict (body: the comparison)
	local st id
	st=$(http POST /comparisons --json "{\"baseline\":$1,\"candidate\":$2,\"policy\":\"bitwise\"}")
	[ "$st" = 202 ] || { echo "status $st"; return; }
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	json verdict
}
eq "service: dump vs itself bitwise" "$(compare "$RP" "$RP")" pass
eq "service: step0 vs itself bitwise" "$(compare "$R0" "$R0")" pass
eq "service: step0 vs step1 bitwise" "$(compare "$R0" "$R1")" fail
C=$(json id)
check "service: the first differing op named" grep -q 'first forward divergence: row 2 Functional.embedding.forward/op_0_embedding' "$WORK/body"
eq "comparison page" "$(http GET "/ui/comparisons/$C")" 200
check "comparison page names the op" grep -q 'Functional.embedding.forward/op_0_embedding' "$WORK/body"
eq "rows.csv" "$(http GET "/comparisons/$C/rows.csv")" 200
check "rows.csv holds the ops" grep -q 'Functional.embedding.forward/op_0_embedding' "$WORK/body"
http GET "/comparisons/$C/rows?limit=5" >/dev/null
eq "rows: the location of the op" "$(json rows.2.a.location)" /workspace/llm/modules/sparse.py:190
eq "report.pdf" "$(http GET "/comparisons/$C/report.pdf")" 200
check "report.pdf is a PDF" bash -c "head -c 5 '$WORK/body' | grep -q '%PDF-'"

# parity submit: step folders
"$PARITY_BIN" submit --server "$BASE" --baseline "$T/step0" --candidate "$T/step1" --name steps \
	>submit.out 2>submit.err
eq "submit step0 vs step1: fail" "$?" 1
check "submit: both ranks uploaded" grep -q "uploaded candidate: run [0-9]* (2 logs)" submit.err
SC=$(sed -n 's/^parity: FAIL: comparison \([0-9]*\).*/\1/p' submit.out)
http GET "/comparisons/$SC" >/dev/null
http GET "/runs/$(json candidate)" >/dev/null
eq "submitted run: source msprobe" "$(json logs.1.source)" msprobe
eq "submitted run: locations sent" "$(db "select count(*) from entries e join logs l on l.id=e.log_id where l.run_id=$(json id) and e.location is not null")" 66
"$PARITY_BIN" submit --server "$BASE" --baseline "$T/step0" --candidate "$T/step0" >/dev/null 2>&1
eq "submit step0 vs itself: pass" "$?" 0

stop_daemon
finish
