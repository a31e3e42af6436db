#!/usr/bin/env bash
# test_noise_service.sh - issue 26 in the service: POST /comparisons with a
# baseline_set (five repeats of one run) under the noise policy, the lanes
# within_noise (another repeat), identical (a member's copy) and regression
# (a run that drifts from step 120, outside_noise_band naming loss and the
# step); GET /comparisons/{id} gives baseline_set, lane and the noise
# result, steps and steps.csv the band's columns; the list shows the lane;
# the errors at the door: a set of one (baseline_set_too_small), baseline
# with baseline_set, another policy with a set, noise without a set, an
# unknown member, an activation member (kind_mismatch).  Runs on both
# backends (integration.pg.test_noise_service).
source "$(dirname "$0")/lib.sh"
need python3 pdftotext
SINK="$(dirname "$0")/smtp_sink.py"
SINK_PID=
trap '[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null; cleanup' EXIT
MAIL=$WORK/mail
mkdir -p "$MAIL"
SINK_PORT=$(python3 "$SINK" --free-port)
python3 "$SINK" --dir "$MAIL" --port "$SINK_PORT" --port-file "$WORK/sink.port" &
SINK_PID=$!
wait_for test -s "$WORK/sink.port" || bad "sink did not start"
GEN="$PARITY_TESTS/tools/gen_trainlog.py"
cd "$WORK" || exit 1

# five repeats + a sixth (the passing candidate), as test_noise_cli.sh
for i in 1 2 3 4 5 6; do
	python3 "$GEN" --steps 200 --seed 7 --scenario noise --no-color \
		--out-a base.log --out-b "m$i.log" >/dev/null
	python3 - "$i" "m$i.log" <<'PY'
import random, re, sys
i, path = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(i)
out = []
for ln in open(path):
    m = re.search(r"loss:\s*([0-9.]+)", ln)
    if m and "step:" in ln:
        v = float(m.group(1)) + rnd.gauss(0, 2e-4)
        ln = ln[:m.start(1)] + "%.5f" % v + ln[m.end(1):]
    out.append(ln)
open(path, "w").writelines(out)
PY
done
python3 - m6.log drift.log <<'PY'
import re, sys
out = []
for ln in open(sys.argv[1]):
    m = re.search(r"step:\s*(\d+)\s+loss:\s*([0-9.]+)", ln)
    if m and int(m.group(1)) >= 120:
        v = float(m.group(2)) + 2e-3
        ln = ln[:m.start(2)] + "%.5f" % v + ln[m.end(2):]
    out.append(ln)
open(sys.argv[2], "w").writelines(out)
PY

start_daemon --smtp-url "smtp://127.0.0.1:$SINK_PORT" --mail-from parity@ci.example \
	--public-url http://parity.example --webhook-retry-base-ms 300 || exit 1
upload() { # upload FILE NAME -> run id
	curl -s -F "log=@$1" -F "name=$2" "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
for i in 1 2 3 4 5 6; do
	declare "M$i=$(upload "m$i.log" "m$i")"
done
DRIFT=$(upload drift.log drift)
COPY=$(upload m3.log copy-of-m3)
ACT=$(upload_run "$F/match/p4_a.log" act)
SET="[$M1,$M2,$M3,$M4,$M5]"

compare() { # compare CANDIDATE -> comparison id (done)
	http POST /comparisons --json "{\"baseline_set\":$SET,\"candidate\":$1}" >/dev/null
	local id
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	echo "$id"
}

# --- within noise -----------------------------------------------------------------------
eq "post with a set" "$(http POST /comparisons --json "{\"baseline_set\":$SET,\"candidate\":$M6}")" 202
C1=$(json id)
eq "receipt names the set" "$(json baseline_set.4)" "$M5"
eq "baseline is the first member" "$(json baseline)" "$M1"
eq "done" "$(http GET "/comparisons/$C1?wait=60")" 200
eq "status" "$(json status)" done
eq "verdict pass" "$(json verdict)" pass
eq "lane within_noise" "$(json lane)" within_noise
eq "result lane" "$(json result.lane)" within_noise
eq "result members" "$(json result.members)" 5
eq "policy is noise" "$(json policy.name)" noise
eq "baseline_set kept" "$(json baseline_set.2)" "$M3"
check "result has the loss metric" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); m=d["result"]["metrics"]["loss"]
assert m["compared"] >= 190, m' "$WORK/body"

# --- identical: a member's copy ------------------------------------------------------------
C2=$(compare "$COPY")
http GET "/comparisons/$C2" >/dev/null
eq "copy: lane identical" "$(json lane)" identical
eq "copy: verdict pass" "$(json verdict)" pass
eq "copy: identical to member 3" "$(json result.identical_to)" 3

# --- regression --------------------------------------------------------------------------------
C3=$(compare "$DRIFT")
http GET "/comparisons/$C3" >/dev/null
eq "drift: verdict fail" "$(json verdict)" fail
eq "drift: lane regression" "$(json lane)" regression
eq "drift: reason" "$(json result.reasons.0.code)" outside_noise_band
eq "drift: names loss" "$(json result.reasons.0.metric)" loss
check "drift: names a step from 120 on" python3 -c '
import json,sys; r=json.load(open(sys.argv[1]))["result"]["reasons"][0]
assert r["step"] >= 120, r' "$WORK/body"

# --- two-run training comparisons: lane null -----------------------------------------------------
eq "two runs" "$(http POST /comparisons --json "{\"baseline\":$M1,\"candidate\":$M2}")" 202
eq "two runs: lane null" "$(json lane)" null
eq "two runs: no baseline_set" "$(json baseline_set)" null

# --- the list shows the lane ---------------------------------------------------------------------
eq "list" "$(http GET '/comparisons?limit=10')" 200
check "list has the lanes" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))["comparisons"]
lanes={c["id"]:c.get("lane") for c in d}
assert lanes[int(sys.argv[2])]=="within_noise" and lanes[int(sys.argv[3])]=="regression", lanes' \
	"$WORK/body" "$C1" "$C3"

# --- steps and steps.csv -------------------------------------------------------------------------
eq "steps.csv" "$(http GET "/comparisons/$C3/steps.csv")" 200
check "csv header has the band columns" bash -c 'head -1 "$1" | grep -q "loss_mean" && head -1 "$1" | grep -q "loss_outside"' _ "$WORK/body"
eq "steps json" "$(http GET "/comparisons/$C3/steps?limit=5")" 200

# --- errors at the door ---------------------------------------------------------------------------
eq "set of one" "$(http POST /comparisons --json "{\"baseline_set\":[$M1],\"candidate\":$M6}")" 400
eq "set of one code" "$(json error.code)" baseline_set_too_small
eq "set and baseline" "$(http POST /comparisons --json "{\"baseline_set\":$SET,\"baseline\":$M1,\"candidate\":$M6}")" 400
eq "set and premerge" "$(http POST /comparisons --json "{\"baseline_set\":$SET,\"candidate\":$M6,\"policy\":\"premerge\"}")" 400
eq "set and premerge code" "$(json error.code)" bad_policy
eq "noise without a set" "$(http POST /comparisons --json "{\"baseline\":$M1,\"candidate\":$M6,\"policy\":\"noise\"}")" 400
eq "unknown member" "$(http POST /comparisons --json "{\"baseline_set\":[$M1,999999],\"candidate\":$M6}")" 400
eq "unknown member code" "$(json error.code)" unknown_run
eq "activation member" "$(http POST /comparisons --json "{\"baseline_set\":[$M1,$ACT],\"candidate\":$M6}")" 400
eq "activation member code" "$(json error.code)" kind_mismatch
eq "member twice" "$(http POST /comparisons --json "{\"baseline_set\":[$M1,$M1],\"candidate\":$M6}")" 400
eq "set not an array" "$(http POST /comparisons --json "{\"baseline_set\":$M1,\"candidate\":$M6}")" 400
eq "a member is not deletable" "$(http DELETE "/runs/$M4")" 409

# --- the pages and documents of a noise comparison answer --------------------------------------
eq "comparison page" "$(http GET "/ui/comparisons/$C3")" 200
check "page: the lane" grep -q 'data-lane="regression"' "$WORK/body"
check "page: members by name and number" grep -q "m2 (run $M2)" "$WORK/body"
check "page: the candidate by name" grep -q "drift (run $DRIFT)" "$WORK/body"
check "page: a band chart per metric" grep -q 'class="band"' "$WORK/body"
eq "page: five member lines in the first chart" \
	"$(python3 -c 'import re,sys; t=open(sys.argv[1]).read(); f=t.split("</svg>")[0]; print(len(re.findall(r"<path class=\"member\"", f)))' "$WORK/body")" 5
check "page: outside steps marked" grep -q '<circle class="out' "$WORK/body"
eq "report.html" "$(http GET "/comparisons/$C3/report.html")" 200
check "report: self-contained, the lane" bash -c 'grep -q "data-lane=\"regression\"" "$1" && ! grep -q "/assets/" "$1"' _ "$WORK/body"
eq "report.pdf" "$(http GET "/comparisons/$C3/report.pdf")" 200
cp "$WORK/body" "$WORK/noise.pdf"
check "report.pdf: a PDF naming the lane and the metric" bash -c 'pdftotext "$1" - | grep -qi "regression" && pdftotext "$1" - | grep -q "loss"' _ "$WORK/noise.pdf"
eq "loss.png" "$(http GET "/comparisons/$C3/charts/loss.png")" 200
check "loss.png: a PNG" bash -c 'head -c 8 "$1" | od -An -c | grep -q "P   N   G"' _ "$WORK/body"
eq "loss-diff.png" "$(http GET "/comparisons/$C3/charts/loss-diff.png")" 200
eq "unknown metric chart" "$(http GET "/comparisons/$C3/charts/nope.png")" 404
eq "within page" "$(http GET "/ui/comparisons/$C1")" 200
check "within page: the lane" grep -q 'data-lane="within_noise"' "$WORK/body"

# --- PUT /baselines with runs, its history ---------------------------------------------------------
eq "put a set" "$(http PUT /baselines/main/set --json "{\"runs\":$SET,\"note\":\"five repeats\"}")" 200
eq "set: runs" "$(json runs)" "[$M1, $M2, $M3, $M4, $M5]"
eq "set: run is the newest" "$(json run)" "$M5"
eq "set: history runs" "$(json history.0.runs)" "[$M1, $M2, $M3, $M4, $M5]"
eq "set of one by run stays a single run" "$(http PUT /baselines/main/one --json "{\"run\":$M1}")" 200
eq "single: no runs" "$(json runs)" null
eq "runs and run" "$(http PUT /baselines/x --json "{\"runs\":$SET,\"run\":$M1}")" 400
eq "runs with an activation run" "$(http PUT /baselines/x --json "{\"runs\":[$M1,$ACT]}")" 400
eq "runs with an activation run: code" "$(json error.code)" kind_mismatch
eq "runs twice" "$(http PUT /baselines/x --json "{\"runs\":[$M1,$M1]}")" 400

# --- baseline_name whose entry is a set ------------------------------------------------------------
eq "by name" "$(http POST /comparisons --json "{\"baseline_name\":\"main/set\",\"candidate\":$M6}")" 202
C4=$(json id)
eq "by name: the set" "$(json baseline_set)" "[$M1, $M2, $M3, $M4, $M5]"
http GET "/comparisons/$C4?wait=60" >/dev/null
eq "by name: lane" "$(json lane)" within_noise

# another policy against a set's name: two runs, the newest member as the baseline
eq "by name, premerge" "$(http POST /comparisons --json "{\"baseline_name\":\"main/set\",\"candidate\":$M6,\"policy\":\"premerge\"}")" 202
eq "by name, premerge: the newest" "$(json baseline)" "$M5"
eq "by name, premerge: no set" "$(json baseline_set)" null
eq "by name, premerge: policy" "$(json policy.name)" premerge

# --- parity submit --baseline-name against a set, --promote-on-pass ----------------------------------
"$PARITY_BIN" submit --server "$BASE" --baseline-name main/set --promote-on-pass \
	--candidate m6.log --junit "$WORK/junit.xml" --markdown "$WORK/sum.md" >"$WORK/sub.out" 2>"$WORK/sub.err"
eq "submit exit" "$?" 0
check "submit names the lane" grep -q '^parity: PASS (within noise): comparison .* policy noise' "$WORK/sub.out"
check "junit has the lane" grep -q '<property name="lane" value="within_noise"/>' "$WORK/junit.xml"
check "markdown has the lane" grep -q 'pass (within noise)' "$WORK/sum.md"
check "promoted" grep -q 'promoted run' "$WORK/sub.err"
eq "after promotion" "$(http GET /baselines/main/set)" 200
check "the set stays 5, oldest out, candidate in" python3 -c '
import json,sys; d=json.load(open(sys.argv[1])); r=d["runs"]; m=[int(x) for x in sys.argv[2:6]]
assert len(r)==5 and r[:4]==m and r[4]==d["run"] and d["run"] not in m, r
h=d["history"][-1]; assert h["runs"]==r and h["comparison"] is not None, h' \
	"$WORK/body" "$M2" "$M3" "$M4" "$M5"
eq "history entries" "$(json changes)" 2
# C4 passed against the old set too: its promotion is refused now
eq "stale set promotion" "$(http PUT /baselines/main/set --json "{\"run\":$M6,\"comparison\":$C4}")" 409
check "stale: says the set changed" grep -q 'no longer the set comparison' "$WORK/body"
eq "baseline page" "$(http GET /ui/baselines/main/set)" 200
check "baseline page: the current set" grep -q 'the newest of the set <span class="muted">set of 5:</span>' "$WORK/body"
check "baseline page: the lane of a comparison" grep -q '<span class="lane">within noise</span>' "$WORK/body"
"$PARITY_BIN" submit --server "$BASE" --baseline-name main/set --candidate drift.log >"$WORK/sub2.out" 2>&1
eq "submit regression exit" "$?" 1
check "submit names the regression" grep -q '^parity: FAIL (regression)' "$WORK/sub2.out"

# --- a premerge suite of two configs, sets of five each ---------------------------------------------
eq "email hook" "$(http POST /webhooks --json '{"format":"email","to":["team@example.com"],"events":["suite.completed"]}')" 201
eq "second set" "$(http PUT /baselines/main/set2 --json "{\"runs\":$SET}")" 200
n_mails() { find "$MAIL" -name 'msg-*.eml' | wc -l; }
mails_at_least() { [ "$(n_mails)" -ge "$1" ]; }
before=$(n_mails)
"$PARITY_BIN" submit --server "$BASE" --baseline-name main/set2 --suite pr-9 --config fsdp \
	--suite-size 2 --candidate m6.log >"$WORK/s1.out" 2>&1
eq "suite fsdp passes" "$?" 0
"$PARITY_BIN" submit --server "$BASE" --baseline-name main/set --suite pr-9 --config tp \
	--suite-size 2 --candidate drift.log >"$WORK/s2.out" 2>&1
eq "suite tp fails" "$?" 1
eq "suite json" "$(http GET /suites/pr-9)" 200
eq "suite verdict" "$(json verdict)" fail
eq "suite worst lane" "$(json lane)" regression
check "suite lanes per config" python3 -c '
import json,sys; d=json.load(open(sys.argv[1]))
l={c["config"]:c["comparison"]["lane"] for c in d["configs"]}
assert l=={"fsdp":"within_noise","tp":"regression"}, l' "$WORK/body"
eq "suite page" "$(http GET /ui/suites/pr-9)" 200
check "suite page: lane column" grep -q '<th>Lane</th>' "$WORK/body"
check "suite page: within noise" grep -q '<td class="lane">within noise' "$WORK/body"
check "suite page: regression" grep -q '<td class="lane">regression' "$WORK/body"
check "suite page: worst lane" grep -q 'id="suite-lane">Worst lane: <strong>regression' "$WORK/body"
eq "suite pdf" "$(http GET /suites/pr-9/report.pdf)" 200
cp "$WORK/body" "$WORK/suite.pdf"
pdftotext -layout "$WORK/suite.pdf" "$WORK/suite.txt"
check "suite pdf: within noise" grep -q 'pass (within noise)' "$WORK/suite.txt"
check "suite pdf: regression" grep -q 'fail (regression)' "$WORK/suite.txt"
check "suite pdf: worst lane" grep -q 'worst lane regression' "$WORK/suite.txt"
wait_for mails_at_least $((before + 1)) || bad "no suite email"
MSG=$(ls -t "$MAIL"/msg-*.eml | head -n 1)
python3 - "$MSG" >"$WORK/mail.out" 2>&1 <<'PY'
import email, sys
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
html = m.get_body(("html",)).get_content()
ok = "Worst lane: <b>regression</b>" in html
ok &= "pass (within noise)" in html and "fail (regression)" in html
ok &= "PASS (within noise)" in html and "FAIL (regression)" in html
print("checked", "ok" if ok else "bad")
PY
check "suite email names the lanes: $(cat "$WORK/mail.out")" grep -qx 'checked ok' "$WORK/mail.out"

finish
