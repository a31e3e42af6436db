#!/usr/bin/env bash
# test_compare_ranks.sh - `parity compare runA/ runB/` on rank directories
# and `--format csv`, through the real binary (no daemon).
# Four ranks, a different gen_actlog.py scenario each (identical, diverge,
# missing, eager-traced), so every rank has its own counts and first
# divergence.  Checked: the verdict summary on stdout with -o and the exit
# status; the JSON (a document per rank, each equal to comparing that
# rank's two files alone, overall summary = the sums); the -o report (a
# section per rank holding that rank's counts, first-divergence jumps and
# rows, and no other rank's); the CSV (one line per row of every rank,
# its columns, statuses and distances equal to the JSON, formula text
# neutralised); errors: a rank on one side only, a directory against a
# file, a directory without rank files.  Needs PARITY_BIN and python3.
source "$(dirname "$0")/lib.sh"
need python3

A=$WORK/runA
B=$WORK/runB
mkdir -p "$A" "$B"
scen=(identical diverge missing eager-traced)
for r in 0 1 2 3; do
	python3 "$G/gen_actlog.py" --layers 3 --seed $((7 + r)) --scenario "${scen[$r]}" \
		--out-a "$A/rank_${r}_activations.log" --out-b "$B/rank_${r}_activations.log"
done
echo "not a rank file" >"$A/notes.txt"

# 1. -o diff.html: the report, the verdict summary on stdout, exit 1 (fail)
"$PARITY_BIN" compare "$A" "$B" -o "$WORK/diff.html" >"$WORK/out" 2>"$WORK/err"
eq "-o exit status (fail)" "$?" 1
check "summary headline names 4 ranks" grep -q "^activation comparison: fail (policy bitwise, 4 ranks)" "$WORK/out"
check "rank 0 passes" grep -q "^rank 0: pass" "$WORK/out"
for r in 1 2 3; do check "rank $r fails" grep -q "^rank $r: fail" "$WORK/out"; done

# 2. JSON: one document per rank, each the same as comparing its files alone
"$PARITY_BIN" compare "$A" "$B" --format json >"$WORK/all.json" 2>"$WORK/err"
eq "json exit status" "$?" 1
for r in 0 1 2 3; do
	"$PARITY_BIN" compare "$A/rank_${r}_activations.log" "$B/rank_${r}_activations.log" \
		--format json >"$WORK/r$r.json" 2>/dev/null
done
check "json: every rank equals its single-pair comparison; sums on top" python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
d = json.load(open(w + "/all.json"))
assert d["kind"] == "activation" and d["verdict"] == "fail", d["verdict"]
assert [r["rank"] for r in d["ranks"]] == [0, 1, 2, 3]
tot = {"rows": 0, "match": 0, "diff": 0, "a_only": 0, "b_only": 0}
for r in range(4):
    one = json.load(open("%s/r%d.json" % (w, r)))
    got = d["ranks"][r]
    assert got["rows"] == one["rows"], "rank %d rows" % r
    for k in ("summary", "first_divergence", "verdict", "excluded_ops"):
        assert got[k] == one[k], "rank %d %s" % (r, k)
    for k in tot:
        tot[k] += one["summary"][k]
    # every reason of the rank is on top, tagged with the rank
    mine = [x for x in d["reasons"] if x.get("rank") == r]
    assert [x["code"] for x in mine] == [x["code"] for x in one["reasons"]], r
for k, v in tot.items():
    assert d["summary"][k] == v, k
assert d["ranks"][0]["verdict"] == "pass" and d["ranks"][0]["summary"]["diff"] == 0
assert d["ranks"][2]["summary"]["a_only"] + d["ranks"][2]["summary"]["b_only"] > 0
PY

# 3. the report: a section per rank with that rank's counts, jumps and rows
check "html: each section holds its rank's counts, first divergence and rows" python3 - "$WORK" <<'PY'
import json, re, sys
w = sys.argv[1]
html = open(w + "/diff.html").read()
d = json.load(open(w + "/all.json"))
starts = [html.index('<section class="rank-report" id="k%d-rank"' % r) for r in range(4)]
assert starts == sorted(starts), "sections in rank order"
for r in range(4):
    sec = html[starts[r]:starts[r + 1] if r < 3 else len(html)]
    one = d["ranks"][r]
    s = one["summary"]
    m = re.search(r'<h3>Rank %d</h3><table class="kv">.*?<th>all</th>'
                  r'<td class="c-match">(\d+)</td><td class="c-diff">(\d+)</td>'
                  r'<td class="c-a_only">(\d+)</td><td class="c-b_only">(\d+)</td>' % r, sec)
    assert m, "rank %d counts table" % r
    assert [int(x) for x in m.groups()] == [s["match"], s["diff"], s["a_only"], s["b_only"]], r
    for ph, tag in (("forward", "fwd"), ("backward", "bwd")):
        fd = one["first_divergence"][ph]
        jump = re.search(r'<a class="jump" id="k%d-jump-%s" href="#k%d-r(\d+)">' % (r, tag, r), sec)
        if fd is None:
            assert not jump, "rank %d has no %s divergence" % (r, ph)
        else:
            assert jump and int(jump.group(1)) == fd["row"], "rank %d %s jump" % (r, ph)
    blocks = re.findall(r'<script type="application/json" class="vrows" data-prefix="k(\d+)-">(.*?)</script>', sec, re.S)
    assert blocks and all(int(k) == r for k, _ in blocks), "rank %d rows are its own" % r
    rows = [x for _, b in blocks for x in json.loads(b)]
    assert len(rows) == s["rows"], "rank %d: %d rows, want %d" % (r, len(rows), s["rows"])
    want = [x["status"] for x in one["rows"]]
    for x in rows:
        assert want[x[0]] == x[1], "rank %d row %s status" % (r, x[0])
    for ph, tag in (("forward", "fwd"), ("backward", "bwd")):
        fd = one["first_divergence"][ph]
        if fd is not None:
            assert any(x[0] == fd["row"] for x in rows), "rank %d first divergence row" % r
PY

# 4. CSV: every row of every rank, same values as the JSON
"$PARITY_BIN" compare "$A" "$B" --format csv -o "$WORK/rows.csv" >"$WORK/out" 2>"$WORK/err"
eq "csv exit status" "$?" 1
check "csv -o prints the summary" grep -q "^activation comparison: fail" "$WORK/out"
check "csv lines match the JSON rows" python3 - "$WORK" <<'PY'
import csv, json, sys
w = sys.argv[1]
d = json.load(open(w + "/all.json"))
rows = list(csv.DictReader(open(w + "/rows.csv", newline="")))
head = open(w + "/rows.csv").readline().strip().split(",")
assert head[:11] == ["rank", "idx", "a_key", "b_key", "status", "method", "phase", "origin",
                     "shape_differs", "output_hash_distance", "input_hash_distance"], head
assert head[11:] == [n + "_diff" for n in ("Shape", "L1 norm", "L2 norm", "Min", "Max", "Mean")]
want = [(rk["rank"], i, r) for rk in d["ranks"] for i, r in enumerate(rk["rows"])]
assert len(rows) == len(want), (len(rows), len(want))
num = lambda v: None if v == "" else float(v)
for c, (rank, i, r) in zip(rows, want):
    assert int(c["rank"]) == rank and int(c["idx"]) == i
    assert c["a_key"] == (r["a_key"] or "") and c["b_key"] == (r["b_key"] or "")
    assert c["status"] == r["status"] and c["method"] == (r["method"] or "")
    assert c["phase"] == r["phase"] and c["origin"] == str(int(r["origin"]))
    for k in ("output_hash_distance", "input_hash_distance"):
        assert num(c[k]) == r[k], (k, c[k], r[k])
    for n in ("Shape", "L1 norm", "L2 norm", "Min", "Max", "Mean"):
        assert num(c[n + "_diff"]) == r["stat_diffs"].get(n), (n, c, r["stat_diffs"])
PY
# to stdout without -o; formula-like and comma keys are made safe
printf 'Total captured activations: 1\n====\n\n[=HYPERLINK("x"),evil/op_0_mm]\n  Output hash: 1.0\n' >"$WORK/f_a.log"
printf 'Total captured activations: 1\n====\n\n[=HYPERLINK("x"),evil/op_0_mm]\n  Output hash: 2.0\n' >"$WORK/f_b.log"
"$PARITY_BIN" compare "$WORK/f_a.log" "$WORK/f_b.log" --format csv >"$WORK/f.csv" 2>"$WORK/err"
eq "csv single pair exit status" "$?" 1
eq "csv line count (header + 1 row)" "$(wc -l <"$WORK/f.csv")" 2
check "csv neutralises and quotes a formula key" grep -q "^0,0,\"'=HYPERLINK(\"\"x\"\"),evil/op_0_mm\",\"'=HYPERLINK" "$WORK/f.csv"
check "csv single pair: distance 0.5" grep -q ",diff,exact,forward,1,0,0.5,," "$WORK/f.csv"

# 5. identical directories pass
"$PARITY_BIN" compare "$A" "$A" >"$WORK/out" 2>&1
eq "identical dirs exit status" "$?" 0
check "identical dirs summary" grep -q "^activation comparison: pass (policy bitwise, 4 ranks)" "$WORK/out"

# 6. errors: exit 2 with the reason
mkdir -p "$WORK/runC" "$WORK/empty"
cp "$A"/rank_0_activations.log "$A"/rank_1_activations.log "$WORK/runC/"
cp "$A"/rank_2_activations.log "$WORK/runC/rank_5_activations.log"
"$PARITY_BIN" compare "$A" "$WORK/runC" -o "$WORK/x.html" >"$WORK/out" 2>"$WORK/err"
eq "lone ranks exit status" "$?" 2
check "rank 2 named" grep -q "rank 2 is in $A only" "$WORK/err"
check "rank 3 named" grep -q "rank 3 is in $A only" "$WORK/err"
check "rank 5 named" grep -q "rank 5 is in $WORK/runC only" "$WORK/err"
"$PARITY_BIN" compare "$A" "$A/rank_0_activations.log" >"$WORK/out" 2>"$WORK/err"
eq "dir vs file exit status" "$?" 2
check "dir vs file message" grep -q "is a directory and" "$WORK/err"
"$PARITY_BIN" compare "$WORK/empty" "$A" >"$WORK/out" 2>"$WORK/err"
eq "empty dir exit status" "$?" 2
check "empty dir message" grep -q "holds no rank_N_activations.log" "$WORK/err"
"$PARITY_BIN" compare --help >"$WORK/out" 2>&1
check "help shows directories" grep -q "parity compare runA/ runB/" "$WORK/out"
check "help shows csv" grep -q "text|json|csv" "$WORK/out"
check "no stale HTML message" bash -c "! grep -rq 'not available yet' '$PARITY_SRC/server'"

finish
