#!/usr/bin/env bash
# test_submit_ci.sh - issue 25 items 4 and 8, `parity submit` for CI:
#   checks before uploading: an unknown --baseline-name or --baseline-run,
#   logs of two kinds, a binary file, a policy that does not suit the kind,
#   a bad --meta-file end the command non-zero with a clear message and
#   store no run (counted through the API before and after); a comparison
#   the server refuses (a policy checked only there) deletes the runs the
#   command uploaded (also when the server refuses the candidate's log);
#   --junit FILE: JUnit XML that python's xml.etree parses, one testcase per
#   metric (training) or rank (activation), a failure naming the failing
#   metric with its reason, the comparison URL as a property, an error
#   testcase when there is no verdict, everything escaped;
#   --markdown FILE / -: the summary table (verdict, runs, link, one row per
#   metric or rank, failing ones marked);
#   progress lines without a terminal on a slow upload (--limit-rate).
source "$(dirname "$0")/lib.sh"
need curl python3
DATA=$WORK/data
start_daemon || exit 1
S=(--server "$BASE")
cd "$WORK" || exit 1

n_runs() { curl -s "$BASE/runs?limit=100" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["runs"]))'; }

# submit_refused WHAT WANT_RC PATTERN ARGS...: exit status WANT_RC, PATTERN on
# stderr, and no run stored by it
submit_refused() {
	local what=$1 want=$2 pat=$3 before rc=0
	shift 3
	before=$(n_runs)
	"$PARITY_BIN" submit "${S[@]}" "$@" >"$WORK/r.out" 2>"$WORK/r.err" || rc=$?
	eq "$what: exit status" "$rc" "$want"
	check "$what: says why ($pat)" grep -q -- "$pat" "$WORK/r.err"
	eq "$what: no run stored" "$(n_runs)" "$before"
}

# --- checks before uploading -----------------------------------------------------------
python3 "$G/gen_actlog.py" --layers 2 --ranks 2 --scenario identical --out-a ia --out-b ib >/dev/null
python3 "$G/gen_actlog.py" --layers 150 --scenario identical --out-a big_a.log --out-b big_b.log >/dev/null
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10' >chart.png
echo '[1]' >notobj.json
eq "no runs at the start" "$(n_runs)" 0
submit_refused "unknown baseline name" 3 "no baseline of that name" \
	--baseline-name no/such --candidate "$F/train/q1_b.log"
submit_refused "unknown baseline run" 3 "no such run" \
	--baseline-run 4242 --candidate "$F/train/q1_b.log"
submit_refused "two kinds" 2 "is an activation log but .* is a training log" \
	--baseline "$F/match/p1_a.log" --candidate "$F/train/q1_b.log"
submit_refused "a PNG" 2 "chart.png is not a log" \
	--baseline "$F/match/p1_a.log" --candidate chart.png
submit_refused "training policy for activation runs" 2 "does not suit activation runs" \
	--baseline "$F/match/p1_a.log" --candidate "$F/match/p1_b.log" --policy premerge
submit_refused "unknown training policy" 2 "does not suit training runs" \
	--baseline "$F/train/q1_a.log" --candidate "$F/train/q1_b.log" --policy bogus
submit_refused "meta file not an object" 2 "must hold a JSON object" \
	--baseline "$F/train/q1_a.log" --candidate "$F/train/q1_b.log" --meta-file notobj.json
# the server's own check (an activation policy object): the runs go again
submit_refused "policy refused by the server" 3 "max_hash_distance" \
	--baseline "$F/match/p1_a.log" --candidate "$F/match/p1_b.log" --policy '{"max_hash_distance": 5}'
check "the uploaded runs are deleted again" grep -q "deleted run [0-9]* again" "$WORK/r.err"
# a candidate the server refuses (0 ops: item 4's door): the baseline goes again
printf 'Total captured activations: 0\n' >rank_0.log
submit_refused "candidate refused by the server" 3 "rank_0.log holds no activation op" \
	--baseline "$F/match/p1_a.log" --candidate rank_0.log
check "the uploaded baseline is deleted again" grep -q "deleted run [0-9]* again" "$WORK/r.err"
# a baseline name of the other kind
R=$(upload_run "$F/train/q1_a.log" golden)
eq "baseline set" "$(http PUT /baselines/main/train --json "{\"run\":$R}")" 200
submit_refused "baseline of the other kind" 3 "baseline main/train is a training run" \
	--baseline-name main/train --candidate "$F/match/p1_b.log"

# --- --junit / --markdown: training, fail ----------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/train/q2_a.log" --candidate "$F/train/q2_b.log" \
	--name 'pr <9> & "x"' --junit t.xml --markdown t.md >/dev/null 2>&1
eq "training fail: exit status" "$?" 1
python3 - t.xml "$BASE" <<'EOF' >junit.out 2>&1
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
suite = root.find("testsuite")
assert 'pr <9> & "x"' in suite.get("name"), suite.get("name")
props = {p.get("name"): p.get("value") for p in suite.find("properties")}
assert props["comparison_url"].startswith(sys.argv[2] + "/ui/comparisons/"), props
assert props["verdict"] == "fail" and props["kind"] == "training", props
cases = {c.get("name"): c for c in suite.findall("testcase")}
assert set(cases) == {"loss", "grad_norm"}, list(cases)
f = cases["loss"].find("failure")
assert f is not None and "loss differs beyond the threshold" in f.get("message"), f
assert suite.get("failures") == "2" and suite.get("tests") == "2", suite.attrib
print("ok")
EOF
check "training JUnit: parses, one testcase per metric, the failing metric named ($(tail -1 junit.out))" grep -qx ok junit.out
check "training Markdown: verdict" grep -q '^| verdict | \*\*fail\*\* |$' t.md
check "training Markdown: the failing metric marked" grep -q '^| loss | .*FAIL.* | loss differs beyond the threshold' t.md
check "training Markdown: the link" grep -q "^| page | \[$BASE/ui/comparisons/[0-9]*\]($BASE/ui/comparisons/[0-9]*) |$" t.md
check "training Markdown: the runs" grep -q '^| runs | baseline [0-9]* (q2\\_a.log) → candidate [0-9]* (q2\\_b.log) |$' t.md
check "training Markdown: the name escaped" grep -q 'pr &lt;9&gt; &amp; "x"' t.md

# --- activation, two ranks, pass; --markdown - --------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline ia --candidate ib --junit a.xml --markdown - >a.out 2>/dev/null
eq "activation pass: exit status" "$?" 0
python3 - a.xml <<'EOF' >junit.out 2>&1
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
names = [c.get("name") for c in suite.findall("testcase")]
assert names == ["rank 0", "rank 1"], names
assert all(len(c) == 0 for c in suite.findall("testcase")), "a passing rank has a child"
print("ok")
EOF
check "activation JUnit: one passing testcase per rank ($(tail -1 junit.out))" grep -qx ok junit.out
check "Markdown on stdout: a row per rank" grep -q '^| rank 1 | .* pass | ' a.out
check "Markdown on stdout: after the verdict line" grep -q '^parity: PASS' a.out

# --- activation fail ----------------------------------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" \
	--junit f.xml --markdown f.md >/dev/null 2>&1
eq "activation fail: exit status" "$?" 1
python3 -c 'import sys, xml.etree.ElementTree as ET
c = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase")
assert c.get("name") == "rank 0" and "paired ops differ" in c.find("failure").get("message")
print("ok")' f.xml >junit.out 2>&1
check "activation JUnit: the failing rank with its reason ($(tail -1 junit.out))" grep -qx ok junit.out
check "activation Markdown: the failing rank marked" grep -q '^| rank 0 | .*FAIL.* | .*paired ops differ' f.md

# --- no verdict: the files are written all the same -----------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline-name no/such --candidate "$F/train/q1_b.log" \
	--junit e.xml --markdown e.md >/dev/null 2>&1
eq "error: exit status" "$?" 3
python3 -c 'import sys, xml.etree.ElementTree as ET
c = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase")
assert "no baseline of that name" in c.find("error").get("message")
print("ok")' e.xml >junit.out 2>&1
check "error JUnit: an error testcase with the reason ($(tail -1 junit.out))" grep -qx ok junit.out
check "error Markdown" grep -q 'parity: ERROR' e.md
check "error Markdown: the reason" grep -q 'no baseline of that name' e.md

# --- progress lines without a terminal ------------------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline big_a.log --candidate big_b.log --limit-rate 200K \
	>/dev/null 2>p.err
eq "slow upload: exit status" "$?" 0
check "a progress line without a terminal ($(grep -c uploading p.err) lines)" \
	grep -Eq '^uploading baseline big_a.log: [0-9]+ MB of 2 MB, [0-9]+ MB/s$' p.err
check "no terminal escapes off a terminal" bash -c '! grep -q $'"'"'\033'"'"' "$1"' _ p.err
"$PARITY_BIN" submit --help >help.txt
check "submit --help documents --junit" grep -q -- '--junit FILE' help.txt
check "submit --help documents --markdown" grep -q -- '--markdown FILE' help.txt

stop_daemon
finish
