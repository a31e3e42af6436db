#!/usr/bin/env bash
# test_compare_ref.sh - the Python reference of the benchmark
# (tests/bench/ref/compare_numerics_ref.py, our stdlib-only reimplementation
# of matcher/spec/matching.md) pairs rows exactly like the C matcher:
# same rows in the same order with the same keys, status, method, phase
# and origin, on every fixture of tests/data/match (also equal to the
# fixtures' expected rows) and on generated pairs of every gen_actlog.py
# scenario.  Without this agreement the vs_reference.sh figures would
# compare two different computations.  Needs PARITY_BIN and python3.
source "$(dirname "$0")/lib.sh"
need python3
REF=$PARITY_TESTS/bench/ref/compare_numerics_ref.py

# agree NAME A B [overrides]: both tools' rows equal ($WORK/NAME.*)
agree() {
	local name=$1 a=$2 b=$3 ov=()
	[ -n "${4:-}" ] && ov=(--overrides "$4")
	"$PARITY_BIN" compare "$a" "$b" "${ov[@]}" --format json >"$WORK/$name.c.json" 2>"$WORK/$name.err"
	local crc=$?
	python3 "$REF" "$a" "$b" "${ov[@]}" --json "$WORK/$name.py.json" -o "$WORK/$name.html" \
		>"$WORK/$name.py.out" 2>>"$WORK/$name.err"
	local prc=$?
	eq "$name: exit status (C vs reference)" "$prc" "$crc"
	check "$name: same rows, statuses, methods, phases, origins" python3 - "$WORK/$name.c.json" "$WORK/$name.py.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
p = json.load(open(sys.argv[2]))
crow = [[r["a_key"], r["b_key"], r["status"], r["method"], r["phase"], r["origin"]] for r in c["rows"]]
prow = p["rows"]
if crow != prow:
    for i, (x, y) in enumerate(zip(crow, prow)):
        if x != y:
            print("row %d: C %s, reference %s" % (i, x, y), file=sys.stderr)
            break
    print("C %d rows, reference %d" % (len(crow), len(prow)), file=sys.stderr)
    sys.exit(1)
s = c["summary"]
for k in ("match", "diff", "a_only", "b_only"):
    assert s[k] == p["summary"][k], k
for ph in ("forward", "backward"):
    fd = c["first_divergence"][ph]
    want = fd["row"] if fd else None
    assert want == p["summary"]["first_divergence"][ph], ph
PY
	# the reference's report has one table row per result row
	local n
	n=$(grep -c '^<tr class=' "$WORK/$name.html")
	eq "$name: one HTML row per result row" "$n" "$(json_file "$WORK/$name.c.json" 'len(d["rows"])')"
}

json_file() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

for p in p1 p2 p3 p4; do
	ov=
	[ -f "$F/match/${p}_overrides.csv" ] && ov=$F/match/${p}_overrides.csv
	agree "$p" "$F/match/${p}_a.log" "$F/match/${p}_b.log" "$ov"
	check "$p: reference rows equal the fixture's expected rows" python3 - "$WORK/$p.py.json" "$F/match/$p.expected.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
w = json.load(open(sys.argv[2]))
assert [r[:4] for r in p["rows"]] == w["rows"]
PY
done

for sc in identical ulp diverge eager-traced missing dtype; do
	python3 "$G/gen_actlog.py" --layers 3 --scenario "$sc" --out-a "$WORK/$sc.a.log" --out-b "$WORK/$sc.b.log"
	agree "gen-$sc" "$WORK/$sc.a.log" "$WORK/$sc.b.log"
done
python3 "$G/gen_actlog.py" --layers 2 --legacy --scenario ulp --out-a "$WORK/legacy.a.log" --out-b "$WORK/legacy.b.log"
agree "gen-legacy" "$WORK/legacy.a.log" "$WORK/legacy.b.log"

# a test that cannot fail is a defect: a reference that pairs differently
# (the fuzzy pass left out) must be caught by the same comparison
sed 's/    run_pass("fuzzy"/    pass  # run_pass("fuzzy"/' "$REF" >"$WORK/broken_ref.py"
REF=$WORK/broken_ref.py
agree_out=$( (agree "broken" "$F/match/p1_a.log" "$F/match/p1_b.log") 2>&1)
case $agree_out in *"FAIL: broken: same rows"*) ok ;; *) bad "a reference without the fuzzy pass was not caught" ;; esac

finish
