#!/usr/bin/env bash
# test_compare_cli.sh - `parity compare` on activation logs, end to end
# through the real binary: fixture rows in JSON, exit codes (0 pass, 1 fail,
# 2 error), policies, -o, --timing, and the error paths (missing file,
# binary data, mixed kinds, bad options).  Needs PARITY_BIN.
set -u
BIN=${PARITY_BIN:?}
TESTS=${PARITY_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
FX=$TESTS/data/match
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
passes=0

ok() { passes=$((passes + 1)); }
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }
# expect_rc WANT DESCRIPTION -- command...
expect_rc() {
	local want=$1 what=$2
	shift 3
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, want $want"; cat "$TMP/err" >&2; fi
}

# 1. fixtures: rows and excluded ops equal the expected JSON, exit 1 (fail)
for p in p1 p2 p3 p4; do
	ov=()
	[ -f "$FX/${p}_overrides.csv" ] && ov=(--overrides "$FX/${p}_overrides.csv")
	expect_rc 1 "$p json" -- "$BIN" compare "$FX/${p}_a.log" "$FX/${p}_b.log" "${ov[@]}" --format json
	if python3 - "$TMP/out" "$FX/$p.expected.json" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
rows = [[r["a_key"], r["b_key"], r["status"], r["method"]] for r in got["rows"]]
assert rows == want["rows"], "rows differ"
assert got["excluded_ops"] == want["excluded_ops"], "excluded ops differ"
assert got["kind"] == "activation" and got["verdict"] == "fail"
assert got["policy"] == {"name": "bitwise"}
assert set(got["first_divergence"]) == {"forward", "backward"}
for r in got["rows"]:
    assert r["phase"] in ("forward", "backward")
    assert (r["a"] is None) == (r["a_key"] is None)
PY
	then ok; else bad "$p rows"; fi
done
# p4: override used, its warnings and unused lists present
python3 - "$TMP/out" <<'PY' && ok || bad "p4 overrides block"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["overrides"]["used"] == 1 and d["overrides"]["unused"] == [] and d["overrides"]["warnings"] == []
PY

# 2. identical logs pass (exit 0), text summary by default
expect_rc 0 "identical" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_a.log"
grep -q "activation comparison: pass" "$TMP/out" && ok || bad "text summary says pass"

# 3. -o writes the chosen format; names are carried
expect_rc 1 "-o json" -- "$BIN" compare "$FX/p2_a.log" "$FX/p2_b.log" --format json -o "$TMP/r.json" --name1 base --name2 cand
python3 -c "
import json,sys; d=json.load(open('$TMP/r.json')); assert d['names']=={'a':'base','b':'cand'}
assert d['summary']['a_only']==1 and d['summary']['b_only']==1
assert [r['code'] for r in d['reasons']]==['a_only_rows','b_only_rows']" && ok || bad "-o file content"
# with -o the verdict summary goes to stdout (issue 15 item 9)
grep -q "^activation comparison: fail (policy bitwise)" "$TMP/out" && ok || bad "-o prints the verdict summary"
grep -q "rows: 95  match 93, diff 0, a_only 1, b_only 1" "$TMP/out" && ok || bad "-o summary counts"

# 4. tolerance policy: float32 noise in p3 is forgiven at 1e-6, not at 1e-8
expect_rc 0 "p3 tolerance" -- "$BIN" compare "$FX/p3_a.log" "$FX/p3_b.log" --max-hash-distance 1e-6 --format json
python3 -c "
import json; d=json.load(open('$TMP/out')); assert d['policy']=={'name':'tolerance','max_hash_distance':1e-6,'allow_only_ops':[]}, d['policy']
assert d['summary']['tolerated']==20" && ok || bad "p3 policy json"
expect_rc 1 "p3 tight tolerance" -- "$BIN" compare "$FX/p3_a.log" "$FX/p3_b.log" --max-hash-distance=1e-8
# p2: the only-ops are allowed by name
expect_rc 1 "p2 only-ops not listed" -- "$BIN" compare "$FX/p2_a.log" "$FX/p2_b.log" --policy tolerance
allow=()
for k in $(python3 -c "
import json,re; d=json.load(open('$FX/p2.expected.json'))
for r in d['rows']:
    if r[2] in ('a_only','b_only'):
        key=r[0] or r[1]; print(re.sub(r'/op_[0-9]+_','/',key).rsplit('/',1)[-1])"); do
	allow+=(--allow-only-op "$k")
done
expect_rc 0 "p2 only-ops listed" -- "$BIN" compare "$FX/p2_a.log" "$FX/p2_b.log" "${allow[@]}"

# 5. --timing prints the stages to stderr
expect_rc 1 "timing" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --timing
grep -q "^timing: .*match .* s" "$TMP/err" && ok || bad "timing line"
grep -Eq "^memory: .* peak RSS [0-9.]+ MB after the parse, [0-9.]+ MB after the match, [1-9][0-9.]* MB at the end" "$TMP/err" &&
	ok || bad "timing: peak RSS of each stage"
PARITY_TIMING=1 "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" >/dev/null 2>"$TMP/err"
grep -q "^timing:" "$TMP/err" && ok || bad "PARITY_TIMING"

# 6. errors: exit 2 with a message
expect_rc 2 "missing file" -- "$BIN" compare "$FX/p1_a.log" "$TMP/nope.log"
grep -q "cannot open" "$TMP/err" && ok || bad "missing file message"
printf 'Total captured activations: 1\n====\n\n[a/op_0_mm]\n  Output hash: 1\x00\x01\n' >"$TMP/nul.log"
expect_rc 2 "NUL bytes" -- "$BIN" compare "$FX/p1_a.log" "$TMP/nul.log"
[ -s "$TMP/err" ] && ok || bad "NUL message"
head -c 4096 /dev/urandom >"$TMP/rand.bin"
expect_rc 2 "binary" -- "$BIN" compare "$TMP/rand.bin" "$FX/p1_a.log"
expect_rc 2 "mixed kinds" -- "$BIN" compare "$FX/p1_a.log" "$TESTS/data/train/q1_a.log"
grep -q "training log" "$TMP/err" && ok || bad "mixed kinds message"
expect_rc 2 "one file" -- "$BIN" compare "$FX/p1_a.log"
expect_rc 2 "unknown option" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --frobnicate
expect_rc 2 "bitwise + tolerance" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --policy bitwise --max-hash-distance 1e-6
expect_rc 2 "bad distance" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --max-hash-distance nan
expect_rc 2 "bad format" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --format xml
expect_rc 2 "missing overrides" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --overrides "$TMP/none.csv"
expect_rc 2 "unwritable -o" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" -o "$TMP/no/such/dir/x.json"
expect_rc 0 "help" -- "$BIN" compare --help
# a write error while the rows stream out (the JSON rows go through a
# writer thread, CSV through stdio): exit 2, named
if [ -w /dev/full ]; then
	for f in json csv; do
		expect_rc 2 "write error ($f)" -- "$BIN" compare "$FX/p1_a.log" "$FX/p1_b.log" --format "$f" -o /dev/full
		grep -q "cannot write the result to /dev/full" "$TMP/err" && ok || bad "write error ($f) message"
	done
fi

# 7. an override file with a bad line: warning reported, comparison runs
printf '# c\nno comma here\nfeed_forward/op_7_mul, layers.2.feed_forward/op_3_mul\nghost, phantom\n' >"$TMP/ov.csv"
expect_rc 1 "override warnings" -- "$BIN" compare "$FX/p4_a.log" "$FX/p4_b.log" --overrides "$TMP/ov.csv" --format json
python3 -c "
import json; d=json.load(open('$TMP/out'))['overrides']
assert d['used']==1 and d['warnings'][0]['line']==2 and d['unused'][0]['reason']=='a_key_not_found', d" && ok || bad "override warnings json"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
