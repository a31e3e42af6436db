#!/usr/bin/env bash
# test_train_cli.sh - `parity compare` / `parity check` on training logs:
# every gen_trainlog.py scenario (verdict, reason codes, first offending
# step, checked against an independent Python reading of the logs), the
# four fixtures, the options (--policy, --threshold, --min-steps,
# --allow-warnings, --rank, --format text|json|csv) and refused inputs.
# Needs PARITY_BIN and python3.
set -u
BIN=${PARITY_BIN:?PARITY_BIN not set}
TESTS=${PARITY_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
GEN="$TESTS/tools/gen_trainlog.py"
FX="$TESTS/data/train"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0

ok() { passes=$((passes + 1)); }
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }

# run EXPECTED_RC OUTFILE -- parity args...
run() {
	local want=$1 out=$2
	shift 3
	"$BIN" "$@" >"$out" 2>"$out.err"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "parity $* -> exit $rc, want $want"; cat "$out.err" >&2; fi
}

# assert JSONFILE PYTHON-EXPR (d = the document; names in the message)
assert() {
	local f=$1 expr=$2
	if python3 - "$f" "$expr" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def codes(d):
    out = []
    for r in d["reasons"]:
        if r["code"] not in out:
            out.append(r["code"])
    return out
def reason(d, code):
    return [r for r in d["reasons"] if r["code"] == code]
m = d.get("metrics", {})
ok = eval(sys.argv[2])
if not ok:
    print("assertion failed:", sys.argv[2], file=sys.stderr)
    print(json.dumps({k: d.get(k) for k in ("verdict", "reasons", "steps")}, indent=1)[:3000], file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
	then ok; else bad "$f: $expr"; fi
}

# Independent oracle: first step at which the printed loss / grad_norm of
# the two logs differ by more than thr (decimal arithmetic), per metric.
oracle() {
	python3 - "$1" "$2" "$3" <<'EOF'
import re, sys
from decimal import Decimal, InvalidOperation
esc = re.compile(r"(\x1b|\u241b)\[[0-?]*[ -/]*[@-~]")
def read(p):
    out = {}
    for line in open(p, encoding="utf-8", errors="replace"):
        line = esc.sub("", line)
        m = re.search(r"(?<![A-Za-z_])(validate\s+)?step:\s*([\d,]+)\s+loss:\s*(\S+)\s+grad_norm:\s*(\S+)", line)
        if m and not m.group(1):
            out[int(m.group(2).replace(",", ""))] = (m.group(3), m.group(4))
    return out
a, b, thr = read(sys.argv[1]), read(sys.argv[2]), Decimal(sys.argv[3])
res = []
for k, name in enumerate(("loss", "grad_norm")):
    first = None
    for s in sorted(set(a) & set(b)):
        x, y = a[s][k], b[s][k]
        try:
            dx, dy = Decimal(x), Decimal(y)
            over = (dx.is_nan() != dy.is_nan()) or (not dx.is_nan() and abs(dy - dx) > thr)
        except InvalidOperation:
            over = True
        if over:
            first = s
            break
    res.append("None" if first is None else str(first))
print(" ".join(res))
EOF
}

gen() { # scenario at extra-args...
	local s=$1 at=$2
	shift 2
	python3 "$GEN" --steps 100 --at "$at" --val-every 20 --scenario "$s" "$@" \
		--out-a "$TMP/$s.a.log" --out-b "$TMP/$s.b.log" || bad "generator $s"
}

# ---- scenarios -------------------------------------------------------------
gen identical 40
run 0 "$TMP/identical.json" -- compare "$TMP/identical.a.log" "$TMP/identical.b.log" --format json
assert "$TMP/identical.json" 'd["verdict"] == "pass" and d["reasons"] == [] and m["loss"]["first_over"] is None and m["loss"]["max_abs_exact"] == "0" and d["steps"]["common"] == 100'

gen noise 40
read -r o_loss o_gn < <(oracle "$TMP/noise.a.log" "$TMP/noise.b.log" 0.00001)
run 1 "$TMP/noise.json" -- compare "$TMP/noise.a.log" "$TMP/noise.b.log" --format json
assert "$TMP/noise.json" "d['verdict'] == 'fail' and codes(d) == ['threshold_exceeded'] and m['loss']['pass'] and m['loss']['first_over'] is None and m['loss']['max_abs'] <= 1e-5"
assert "$TMP/noise.json" "m['loss']['first_over'] == $o_loss and m['grad_norm']['first_over'] == $o_gn and reason(d, 'threshold_exceeded')[0]['metric'] == 'grad_norm' and reason(d, 'threshold_exceeded')[0]['step'] == $o_gn"
# the note explains that grad_norm's 4 decimals cannot show 1e-5
assert "$TMP/noise.json" "any('grad_norm' in n for n in d['notes']) and d['resolution']['grad_norm'] == 1e-4 and d['resolution']['loss'] == 1e-5"
run 0 "$TMP/noise2.json" -- compare "$TMP/noise.a.log" "$TMP/noise.b.log" --threshold grad_norm=1e-4 --format json
assert "$TMP/noise2.json" "d['verdict'] == 'pass' and d['policy']['name'] == 'custom' and d['notes'] == []"

gen regress 40
read -r o_loss o_gn < <(oracle "$TMP/regress.a.log" "$TMP/regress.b.log" 0.00001)
run 1 "$TMP/regress.json" -- compare "$TMP/regress.a.log" "$TMP/regress.b.log" --format json
assert "$TMP/regress.json" "d['verdict'] == 'fail' and codes(d) == ['threshold_exceeded'] and m['loss']['first_over'] == 40 and m['grad_norm']['first_over'] == 40 and $o_loss == 40 and $o_gn == 40"
assert "$TMP/regress.json" "m['grad_norm']['max_abs_exact'] == '0.0010' and m['loss']['over'] == 61 and [r['step'] for r in reason(d, 'threshold_exceeded')] == [40, 40]"
# a loose custom threshold passes it
run 0 "$TMP/regress2.json" -- check "$TMP/regress.a.log" "$TMP/regress.b.log" --threshold loss=0.01 --threshold grad_norm=0.01 --format json
assert "$TMP/regress2.json" "d['verdict'] == 'pass'"

gen nan 40
run 1 "$TMP/nan.json" -- compare "$TMP/nan.a.log" "$TMP/nan.b.log" --format json
assert "$TMP/nan.json" "d['verdict'] == 'fail' and codes(d) == ['threshold_exceeded', 'nan_inf_mismatch'] and m['loss']['first_over'] == 40 and m['grad_norm']['first_over'] == 40"
assert "$TMP/nan.json" "m['loss']['max_abs'] == 'NaN' and m['loss']['max_abs_exact'] == 'NaN' and m['loss']['nan'] == [0, 61] and reason(d, 'nan_inf_mismatch')[0]['step'] == 40"

gen crash 40
run 2 "$TMP/crash.json" -- compare "$TMP/crash.a.log" "$TMP/crash.b.log" --format json
assert "$TMP/crash.json" "d['verdict'] == 'error' and codes(d) == ['warnings', 'step_sets_differ'] and reason(d, 'step_sets_differ')[0]['step'] == 40 and d['steps']['only_baseline'][0] == 40 and d['steps']['only_baseline_count'] == 61"
assert "$TMP/crash.json" "[w['code'] for w in d['warnings']['candidate']] == ['error_line'] and 'RuntimeError' in d['warnings']['candidate'][0]['excerpt'] and 'Traceback' in d['warnings']['candidate'][0]['excerpt'] and reason(d, 'warnings')[0]['side'] == 'candidate'"

gen duplicate 40
run 2 "$TMP/duplicate.json" -- compare "$TMP/duplicate.a.log" "$TMP/duplicate.b.log" --format json
assert "$TMP/duplicate.json" "d['verdict'] == 'error' and codes(d) == ['warnings'] and [w['code'] for w in d['warnings']['candidate']] == ['duplicate_step'] and 'step 40 ' in d['warnings']['candidate'][0]['message'] and d['steps']['common'] == 100"
# the later value wins: with warnings allowed the runs agree
run 0 "$TMP/duplicate2.json" -- compare "$TMP/duplicate.a.log" "$TMP/duplicate.b.log" --allow-warnings --format json
assert "$TMP/duplicate2.json" "d['verdict'] == 'pass' and d['policy']['allow_warnings'] is True and len(d['warnings']['candidate']) == 1"

gen malformed 40
run 2 "$TMP/malformed.json" -- compare "$TMP/malformed.a.log" "$TMP/malformed.b.log" --format json
assert "$TMP/malformed.json" "d['verdict'] == 'error' and codes(d) == ['warnings', 'step_sets_differ'] and d['steps']['only_baseline'] == [40] and reason(d, 'step_sets_differ')[0]['step'] == 40 and [w['code'] for w in d['warnings']['candidate']] == ['truncated_line']"
gen malformed 40 --no-color --no-rank-prefix
mv "$TMP/malformed.b.log" "$TMP/malformed_nc.b.log"
run 2 "$TMP/malformed_nc.json" -- check "$TMP/malformed.a.log" "$TMP/malformed_nc.b.log" --format json
assert "$TMP/malformed_nc.json" "d['verdict'] == 'error' and d['steps']['only_baseline'] == [40] and [w['code'] for w in d['warnings']['candidate']] == ['truncated_line']"

gen gap 40
run 2 "$TMP/gap.json" -- compare "$TMP/gap.a.log" "$TMP/gap.b.log" --format json
assert "$TMP/gap.json" "d['verdict'] == 'error' and codes(d) == ['step_sets_differ'] and d['steps']['only_baseline'] == [40, 41, 42] and d['steps']['only_candidate'] == [] and reason(d, 'step_sets_differ')[0]['step'] == 40"

# ---- fixtures ---------------------------------------------------------------
for q in q1 q2 q3 q4; do
	want=$(python3 -c "import json;print({'pass':0,'fail':1,'error':2}[json.load(open('$FX/$q.expected.json'))['verdict']])")
	run "$want" "$TMP/$q.json" -- compare "$FX/${q}_a.log" "$FX/${q}_b.log" --format json
	assert "$TMP/$q.json" "(lambda e: d['verdict'] == e['verdict'] and codes(d) == e['reason_codes'] and all(m[k]['first_over'] == e['first_over'][k] and m[k]['max_abs_exact'] == e['max_abs'][k] for k in ('loss', 'grad_norm')))(json.load(open('$FX/$q.expected.json')))"
done

# ---- formats and options -------------------------------------------------------
run 1 "$TMP/q2.txt" -- check "$FX/q2_a.log" "$FX/q2_b.log"
if grep -q "FAIL" "$TMP/q2.txt" && grep -q "threshold_exceeded" "$TMP/q2.txt" && grep -q "0.00228" "$TMP/q2.txt"; then ok; else bad "text summary"; fi
run 1 "$TMP/q2.csv" -- check "$FX/q2_a.log" "$FX/q2_b.log" --format csv
if [ "$(head -1 "$TMP/q2.csv")" = "step,loss_a,loss_b,loss_abs,loss_rel,loss_over,grad_norm_a,grad_norm_b,grad_norm_abs,grad_norm_rel,grad_norm_over" ] &&
	[ "$(wc -l <"$TMP/q2.csv")" -eq 101 ] && grep -q "^33,.*,1,.*,1$" "$TMP/q2.csv"; then ok; else bad "csv table"; head -3 "$TMP/q2.csv" >&2; fi
run 1 "$TMP/q1b.json" -- check "$TMP/regress.a.log" "$TMP/regress.b.log" --policy bitwise --format=json
assert "$TMP/q1b.json" "d['policy']['name'] == 'bitwise' and d['policy']['thresholds']['loss']['abs'] == 0"
run 2 "$TMP/minsteps.json" -- check "$FX/q1_a.log" "$FX/q1_b.log" --min-steps 1000 --format json
assert "$TMP/minsteps.json" "codes(d) == ['too_few_steps'] and d['policy']['min_steps'] == 1000"
run 2 "$TMP/rank.json" -- check "$FX/q1_a.log" "$FX/q1_b.log" --rank 3 --format json
assert "$TMP/rank.json" "'rank_missing' in codes(d) and d['rank'] == 3"
run 0 "$TMP/vl.json" -- check "$FX/q1_a.log" "$FX/q1_b.log" --threshold validation/loss=1e-4 --threshold memory_gib=0.01,rel=0.001 --format json
assert "$TMP/vl.json" "m['validation/loss']['pass'] and m['validation/loss']['compared'] == 5 and m['memory_gib']['compared'] == 100 and m['memory_gib']['threshold']['rel'] == 0.001 and d['resolution']['validation/loss'] == 1e-4"
run 1 "$TMP/vl2.json" -- check "$FX/q1_a.log" "$FX/q1_b.log" --threshold memory_gib=0 --threshold tps=0 --format json
assert "$TMP/vl2.json" "codes(d) == ['threshold_exceeded'] and [r['metric'] for r in reason(d, 'threshold_exceeded')] == ['memory_gib', 'tps'] and m['tps']['first_over'] == 1 and m['memory_gib']['max_abs_exact'] == '0.01'"
run 2 "$TMP/usage.txt" -- check "$FX/q1_a.log"
run 2 "$TMP/usage2.txt" -- check "$FX/q1_a.log" "$FX/q1_b.log" --format xml
run 2 "$TMP/usage3.txt" -- check "$FX/q1_a.log" "$FX/q1_b.log" --threshold loss
run 2 "$TMP/usage4.txt" -- check "$FX/q1_a.log" "$FX/q1_b.log" --policy fuzzy
run 0 "$TMP/help.txt" -- check --help
run 2 "$TMP/missing.txt" -- check "$TMP/nope.log" "$FX/q1_b.log"

# ---- refused inputs ---------------------------------------------------------
printf 'step: 1  loss: 1.0\nabc\000def\n' >"$TMP/bin.log"
run 2 "$TMP/bin.json" -- check "$FX/q1_a.log" "$TMP/bin.log" --format json
assert "$TMP/bin.json" "d['verdict'] == 'error' and d['reasons'][0]['code'] == 'binary_data' and d['reasons'][0]['line'] == 2 and d['reasons'][0]['side'] == 'candidate'"
printf 'hello\nworld\n' >"$TMP/chatter.log"
run 2 "$TMP/chatter.json" -- check "$TMP/chatter.log" "$FX/q1_b.log" --format json
assert "$TMP/chatter.json" "d['reasons'][0]['code'] == 'not_training_log' and d['reasons'][0]['side'] == 'baseline'"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
