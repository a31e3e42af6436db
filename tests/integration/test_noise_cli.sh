#!/usr/bin/env bash
# test_noise_cli.sh - issue 26: `parity compare M1 ... MK CAND`, a training
# candidate against a baseline set under the noise policy (matcher/spec/
# noise.md), offline.  More than two runs pick the noise policy; the lanes
# identical (a member's copy), within_noise (another repeat) and regression
# (a run that drifts from step 120) with exit 0, 0, 1; the text, JSON and
# CSV outputs; the errors: a set of one, a member with NaN, a bad alpha,
# noise flags without the noise policy, another policy with more than two
# runs, an unreadable member named by its number; -o x.html (the
# self-contained report with the band charts) and -o x.pdf, exit codes as
# for text.
source "$(dirname "$0")/lib.sh"
need python3
cd "$WORK" || exit 1
GEN="$PARITY_TESTS/tools/gen_trainlog.py"

# five repeats of one run: same curve, run-to-run noise below 1e-6 (the
# generator's "noise" candidate of seed 1 against its own baseline)
for i in 1 2 3 4 5 6; do
	python3 "$GEN" --steps 200 --seed 7 --scenario noise --no-color \
		--out-a base.log --out-b "m$i.log" >/dev/null
	# each repeat gets its own noise: perturb the generator's candidate a little
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
# a regression: m6 drifting by 2e-3 from step 120 on
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
# a member with NaN at step 50
sed -E 's/^(.*step: *50 .*loss: *)[0-9.]+/\1nan/' m2.log >m2nan.log
grep -q 'step: *50 .*loss: *nan' m2nan.log || bad "the NaN member has its NaN"

run() { # run WANT_RC OUT args...
	local want=$1 out=$2
	shift 2
	"$PARITY_BIN" compare "$@" >"$out" 2>"$out.err"
	local rc=$?
	[ "$rc" -eq "$want" ] || bad "parity compare $* exited $rc, want $want: $(head -c 400 "$out.err")"
}

run 0 within.txt m1.log m2.log m3.log m4.log m5.log m6.log
check "within: text names the lane" grep -q 'PASS (within_noise)' within.txt
check "within: policy noise, 5 members" grep -q 'policy noise, rank 0, 5 members, 200 compared steps' within.txt
check "within: the candidate line" grep -q 'candidate: m6.log' within.txt

run 0 ident.txt m1.log m2.log m3.log m4.log m5.log m3.log
check "identical: lane" grep -q 'PASS (identical)' ident.txt
check "identical: names the member" grep -q 'member 3:  m3.log   (the candidate equals it)' ident.txt

run 1 drift.txt m1.log m2.log m3.log m4.log m5.log drift.log
check "regression: lane" grep -q 'FAIL (regression)' drift.txt
check "regression: reason names loss and step 120" grep -q 'outside_noise_band: loss .*step 120' drift.txt

run 1 drift.json m1.log m2.log m3.log m4.log m5.log drift.log --format json
eq "json: verdict" "$(json verdict drift.json)" fail
eq "json: lane" "$(json lane drift.json)" regression
eq "json: members" "$(json members drift.json)" 5
eq "json: policy" "$(json policy.name drift.json)" noise
eq "json: alpha_step" "$(json policy.alpha_step drift.json)" 0.001
eq "json: reason" "$(json reasons.0.code drift.json)" outside_noise_band
eq "json: reason step" "$(json reasons.0.step drift.json)" 120
eq "json: loss regression" "$(json metrics.loss.regression drift.json)" true
eq "json: compared steps" "$(json steps.compared drift.json)" 200
run 0 ident.json m1.log m2.log m3.log m4.log m5.log m3.log --format json
eq "json: identical_to (1-based)" "$(json identical_to ident.json)" 3

run 1 drift.csv m1.log m2.log m3.log m4.log m5.log drift.log --format csv
eq "csv: header" "$(head -1 drift.csv | cut -d, -f1-8)" \
	"step,loss_candidate,loss_mean,loss_sd,loss_h,loss_z,loss_outside,loss_change_outside"
eq "csv: one line per compared step" "$(($(wc -l <drift.csv) - 1))" 200
n_out=$(awk -F, 'NR > 1 && $7 == 1' drift.csv | wc -l)
check "csv: more than the allowed 3 steps outside ($n_out)" [ "$n_out" -gt 3 ]
eq "csv: none outside before step 120" "$(awk -F, 'NR > 1 && $1 < 120 && $7 == 1' drift.csv | wc -l)" 0

# --alpha-step widens or narrows the band; it is stored with the policy
run 0 a.json m1.log m2.log m3.log m4.log m5.log m6.log --alpha-step 0.0001 --format json
eq "alpha_step given" "$(json policy.alpha_step a.json)" 0.0001
# two runs with --policy noise: a set of one
run 2 one.txt m1.log m6.log --policy noise
check "set of one: baseline_set_too_small" grep -q 'baseline_set_too_small' one.txt
run 2 nan.txt m1.log m2nan.log m3.log m6.log
check "member NaN: baseline_nonfinite names member 2 and step 50" \
	grep -q 'baseline_nonfinite: loss: member 2 of the baseline set is NaN or Inf at step 50' nan.txt
run 2 bad.txt m1.log m2.log m6.log --alpha-step 1
check "alpha 1 refused" grep -q 'alpha_step must be' bad.txt.err
run 2 flag.txt m1.log m6.log --alpha-run 0.05
check "noise flag without noise" grep -q -- '--alpha-run applies to the noise policy only' flag.txt.err
run 2 pol.txt m1.log m2.log m6.log --policy premerge
check "premerge with three runs" grep -q 'more than two runs make a baseline set' pol.txt.err
run 2 io.txt m1.log m2.log nosuch.log m6.log
check "unreadable member named" grep -q 'baseline set member 3 log nosuch.log refused (io)' io.txt.err
run 2 io.json m1.log m2.log nosuch.log m6.log --format json
eq "unreadable member, json verdict" "$(json verdict io.json)" error
# -o report.html: self-contained, offline, the lane, band charts and markers
run 1 drift-o.txt m1.log m2.log m3.log m4.log m5.log drift.log -o drift.html
check "-o html: nothing on stdout" [ ! -s drift-o.txt ]
check "-o html: written" [ -s drift.html ]
check "-o html: the lane" grep -q 'data-lane="regression"' drift.html
check "-o html: the members" grep -q '<li class="member">m5.log</li>' drift.html
check "-o html: the band" grep -q '<path class="band"' drift.html
eq "-o html: member lines (2 metrics x 2 views x 5)" "$(grep -o '<path class="member"' drift.html | wc -l)" 20
check "-o html: outside markers" grep -q '<circle class="out" ' drift.html
check "-o html: offline (no external references)" bash -c '! grep -Eq "(src|href)=\"(https?:)?//|/assets/" drift.html'
check "-o html: inline CSS" grep -q 'svg.noise-svg .band' drift.html
run 0 ident-o.txt m1.log m2.log m3.log m4.log m5.log m3.log -o ident.html
check "-o html identical: the lane" grep -q 'data-lane="identical"' ident.html
run 0 within-o.txt m1.log m2.log m3.log m4.log m5.log m6.log -o within.html
check "-o html within: the lane" grep -q 'data-lane="within_noise"' within.html
# -o report.pdf
run 1 drift-p.txt m1.log m2.log m3.log m4.log m5.log drift.log -o drift.pdf
check "-o pdf: a PDF" bash -c 'head -c 4 drift.pdf | grep -q %PDF'
if command -v pdftotext >/dev/null; then
	pdftotext drift.pdf drift.pdf.txt
	check "-o pdf: the lane" grep -q 'Regression' drift.pdf.txt
	check "-o pdf: the reason" grep -q 'outside_noise_band' drift.pdf.txt
	check "-o pdf: the members" grep -q 'member 5: m5.log' drift.pdf.txt
	check "-o pdf: the metric table" grep -q 'grad_norm' drift.pdf.txt
fi
# an error stays exit 2 with -o, and writes no report
run 2 one-o.txt m1.log m6.log --policy noise -o one.html
run 2 io-o.txt m1.log m2.log nosuch.log m6.log -o io.html
check "-o html: no report for an unreadable member" [ ! -e io.html ]
finish
