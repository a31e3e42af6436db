#!/usr/bin/env bash
# test_view_memory.sh - issue 23 F3: a training comparison's page and its
# report.html render from bounded windows (an envelope per metric, the
# table's page), so one view of a 20k-step x 16-metric comparison grows
# the daemon by < 100 MB (its peak RSS, VmHWM, reset through clear_refs
# before each request, against its RSS before it; before the fix: ~450 MB).
# The page still shows the right table page, jump and pager; the offline
# report (`parity compare a b -o x.html`) still works.
source "$(dirname "$0")/lib.sh"
need python3 curl

STEPS=20000
python3 - "$WORK" "$STEPS" <<'PY'
import sys
work, steps = sys.argv[1], int(sys.argv[2])
for side in "ab":
    with open("%s/%s.log" % (work, side), "w") as f:
        for s in range(1, steps + 1):
            vals = "  ".join("m%d: %.5f" % (k, 1.0 / (s + k) + (0.001 * k if side == "b" and s > 15000 else 0))
                             for k in range(14))
            f.write("[titan] 2026-11-29 10:00:01,234 - root - INFO - step: %d  loss: %.5f  grad_norm: %.4f  %s\n"
                    % (s, 10.0 / s, 1.0 + s * 1e-4, vals))
PY
METRICS=$(python3 -c 'print(",".join(["loss", "grad_norm"] + ["m%d" % k for k in range(14)]))')
JMETRICS=$(python3 -c 'import json; print(json.dumps(["loss", "grad_norm"] + ["m%d" % k for k in range(14)]))')

start_daemon || exit 1
http POST /runs -F "log=@$WORK/a.log" >/dev/null
A=$(json id)
http POST /runs -F "log=@$WORK/b.log" >/dev/null
B=$(json id)
eq "comparison accepted" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B,\"metrics\":$JMETRICS}")" 202
ID=$(json id)
http GET "/comparisons/$ID?wait=120" >/dev/null
eq "comparison done: fail from step 15001" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"], d["result"]["verdict"], d["result"]["metrics"]["m1"]["first_over"])' "$WORK/body")" "done fail 15001"

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$DAEMON_PID/status"; }
# grow PATH: the daemon's peak RSS during GET PATH over its RSS before, in MB
grow() {
	local before after
	echo 5 >"/proc/$DAEMON_PID/clear_refs" || return 1
	before=$(kb VmRSS)
	http GET "$1" >/dev/null
	after=$(kb VmHWM)
	echo $(((after - before) / 1024))
}
for path in "/ui/comparisons/$ID" "/comparisons/$ID/report.html"; do
	mb=$(grow "$path")
	check "GET $path grows the daemon by ${mb} MB (< 100)" test "${mb:-999}" -lt 100
	eq "GET $path: 200" "$(http GET "$path")" 200
	check "$path: 32 charts" test "$(grep -o '<svg class="chart-svg"' "$WORK/body" | wc -l)" = 32
	check "$path: first offending step marked" grep -q '<line class="vmark first" data-x="15001"' "$WORK/body"
done
# the report's table: its first rows, said so
check "report.html: the table is cut, said so" grep -q 'The table shows the first 5000 of 20000 steps' "$WORK/body"
# the page: one table page, the pager and the jump
http GET "/ui/comparisons/$ID?step=15050" >/dev/null
eq "jump: one page of rows" "$(grep -o '<tr id="s' "$WORK/body" | wc -l)" 100
check "jump: the row is the hit" grep -q '<span id="hit"></span>15050</th>' "$WORK/body"
check "jump: the page range" grep -q 'steps 15001-15100 (rows 15001-15100 of 20000)' "$WORK/body"
check "jump: prev page" grep -q 'steps 14901-15000</a>' "$WORK/body"
check "jump: last page" grep -q 'href="?from=19901" id="page-last"' "$WORK/body"
http GET "/ui/comparisons/$ID?over=1" >/dev/null
check "over only: counts" grep -q '(5000 of 20000)' "$WORK/body"
check "over only: first over row" grep -q '<tr id="s15001" class="over-row">' "$WORK/body"

# the offline report still works
"$PARITY_BIN" compare "$WORK/a.log" "$WORK/b.log" --metrics "$METRICS" -o "$WORK/x.html" >/dev/null 2>&1
eq "compare -o x.html: exit 1 (fail)" "$?" 1
check "x.html: 32 charts" test "$(grep -o '<svg class="chart-svg"' "$WORK/x.html" | wc -l)" = 32
check "x.html: first offending step marked" grep -q 'first over: step 15001' "$WORK/x.html"
finish
