#!/usr/bin/env bash
# The activation rows as a workspace (issue 15): the key regex is
# case-insensitive by default everywhere (case=sensitive / icase=0 turn it
# off, icase=1 still accepted, contradictions are 400); "N of M rows" on
# the page and matched/total on /rows?count=1; every input hash links to
# its producer row (303 to ?row=N#rN, N's key is the producer's) and a
# propagated diff walks back to its origin with the chain listed; ?row=N
# opens the page holding row N with rows of context above it; rows.csv
# streams the CLI's CSV byte for byte, keeps the /rows filters, and
# refuses a hostile regex with the same 400 as /rows.
source "$(dirname "$0")/lib.sh"
need curl python3 cmp
start_daemon || exit 1

# keys with "Layers" (capital L), producers included
python3 "$G/gen_actlog.py" --layers 16 --scenario diverge --out-a "$WORK/a0.log" --out-b "$WORK/b0.log"
sed 's/\.layers\./.Layers./g' "$WORK/a0.log" >"$WORK/a.log"
sed 's/\.layers\./.Layers./g' "$WORK/b0.log" >"$WORK/b.log"
upload() { curl -s -F "log=@$1" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
A=$(upload "$WORK/a.log")
B=$(upload "$WORK/b.log")
eq "create comparison" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B}")" 202
C=$(json id)
http GET "/comparisons/$C?wait=120" >/dev/null
eq "comparison done" "$(json status)" done

# rows GET-ARGS...: GET /rows with --data-urlencode args, prints the status
rows() {
	local a=() x
	for x in "$@"; do a+=(--data-urlencode "$x"); done
	curl -s -G -o "$WORK/body" -w '%{http_code}' "${a[@]}" "$BASE/comparisons/$C/rows"
}
# expected count of keys (a or b) matching PATTERN with python re (flags)
expect() {
	"$PARITY_BIN" compare "$WORK/a.log" "$WORK/b.log" --format csv | python3 -c '
import csv, re, sys
rx = re.compile(sys.argv[1], re.I if sys.argv[2] == "i" else 0)
print(sum(1 for r in csv.DictReader(sys.stdin) if rx.search(r["a_key"]) or rx.search(r["b_key"])))' "$1" "$2"
}

# --- 1. case-insensitive by default, one toggle -------------------------
WANT_I=$(expect 'layers\.1\d' i)
WANT_S=$(expect 'layers\.1\d' s)
check "the fixture has Layers.1x keys ($WANT_I) and no lowercase ones ($WANT_S)" [ "$WANT_I" -gt 0 -a "$WANT_S" = 0 ]
eq "default: 200" "$(rows 'q=layers\.1\d' count=1 limit=1000)" 200
eq "default is case-insensitive: layers\\.1\\d finds Layers.1x" "$(json matched)" "$WANT_I"
eq "page holds them" "$(json rows | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" "$WANT_I"
TOTAL=$(json total)
eq "total is the rank's rows" "$TOTAL" "$(($("$PARITY_BIN" compare "$WORK/a.log" "$WORK/b.log" --format csv | wc -l) - 1))"
eq "not partial" "$(json matched_partial)" false
rows 'q=layers\.1\d' count=1 case=sensitive >/dev/null
eq "case=sensitive: none" "$(json matched)" 0
rows 'q=layers\.1\d' count=1 icase=0 >/dev/null
eq "icase=0: none" "$(json matched)" 0
rows 'q=layers\.1\d' count=1 icase=1 >/dev/null
eq "icase=1 still accepted" "$(json matched)" "$WANT_I"
rows 'q=layers\.1\d' count=1 case=insensitive >/dev/null
eq "case=insensitive" "$(json matched)" "$WANT_I"
eq "case=bogus: 400" "$(rows q=x case=bogus) $(json error.code)" "400 bad_parameter"
eq "case and icase disagreeing: 400" "$(rows q=x case=sensitive icase=1) $(json error.code)" "400 bad_parameter"
eq "no count unless asked" "$(rows 'q=layers\.1\d' >/dev/null; json matched)" null
# the same on /runs/{id}/ops (one flavour everywhere)
curl -s -G -o "$WORK/body" --data-urlencode 'q=layers\.1\d' --data-urlencode limit=1000 "$BASE/runs/$A/ops"
check "ops: insensitive by default" [ "$(json ops | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" -gt 0 ]
# the page: the rows, "N of M rows", the match-case box, the CSV link
curl -s -G -o "$WORK/page" --data-urlencode 'q=layers\.1\d' --data-urlencode limit=1000 "$BASE/ui/comparisons/$C"
check "page lists Layers.1x rows" grep -q 'Layers\.1[0-9]' "$WORK/page"
check "page: N of M rows" grep -q "id=\"row-count\">$WANT_I of $TOTAL rows" "$WORK/page"
check "page: match case box, unticked" grep -q 'name="case" value="sensitive"> match case' "$WORK/page"
check "page: CSV link with the filters" grep -q "id=\"rows-csv\" href=\"/comparisons/$C/rows.csv?rank=0&amp;q=layers%5C.1%5Cd\"" "$WORK/page"
curl -s -G -o "$WORK/page" --data-urlencode 'q=layers\.1\d' --data-urlencode case=sensitive "$BASE/ui/comparisons/$C"
check "page case=sensitive: 0 of M, box ticked" grep -q 'id="row-count">0 of' "$WORK/page"
check "page case=sensitive: box ticked" grep -q 'name="case" value="sensitive" checked' "$WORK/page"
check "page case=sensitive: CSV link keeps it" grep -q 'rows.csv?rank=0&amp;q=layers%5C.1%5Cd&amp;case=sensitive"' "$WORK/page"
curl -s -o "$WORK/page" "$BASE/ui/comparisons/$C?status=diff"
N_DIFF=$(rows status=diff count=1 >/dev/null; json matched)
check "page status=diff: $N_DIFF of M rows" grep -q "id=\"row-count\">$N_DIFF of" "$WORK/page"
curl -s -o "$WORK/page" "$BASE/ui/comparisons/$C?status=diff,a_only&phase=backward"
N_BD=$(rows status=diff,a_only phase=backward count=1 >/dev/null; json matched)
check "page status=diff,a_only&phase=backward: $N_BD of M rows" grep -q "id=\"row-count\">$N_BD of $TOTAL rows" "$WORK/page"
curl -s -o "$WORK/page" "$BASE/ui/comparisons/$C?origin=1&status=diff"
check "page origins: 1 of M rows" grep -q "id=\"row-count\">1 of $TOTAL rows" "$WORK/page"
# no position asked for: the page opens at the first divergence, says
# how many rows it hides and links to the start; ?from= still wins
FD=$(curl -s "$BASE/comparisons/$C" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["first_divergence"]["forward"]["row"])')
curl -s -o "$WORK/page" "$BASE/ui/comparisons/$C"
check "default page holds the first divergence (row $FD)" grep -q "id=\"r$FD\"" "$WORK/page"
check "default page: hidden rows counted" grep -q "id=\"landed\">Opened at the first divergence (row $FD): rows 0&ndash;$((FD - 6)) above this page are hidden ($((FD - 5)) rows)" "$WORK/page"
check "default page: link to the start" grep -q "href=\"/ui/comparisons/$C?rank=0&amp;from=0#rows\" id=\"landed-start\"" "$WORK/page"
curl -s -o "$WORK/page" "$BASE/ui/comparisons/$C?rank=0&from=0"
check "?from=0: row 0, nothing hidden" bash -c "grep -q 'id=\"r0\"' '$WORK/page' && ! grep -q 'id=\"landed\"' '$WORK/page'"

# --- 2. cause chain --------------------------------------------------------
# a propagated forward diff row with producers, high in the table
rows status=diff phase=forward limit=1000 >/dev/null
read -r ROW KEY HASH < <(json rows | python3 -c '
import json, sys
rs = [r for r in json.load(sys.stdin) if not r.get("origin") and r["a"].get("input_producers")]
r = rs[-1]
print(r["idx"], r["a"]["input_producers"].split(";")[0], r["a"]["input_hashes"].split(",")[0].strip())')
check "a propagated diff row past the first page ($ROW)" [ "$ROW" -gt 205 ]
curl -s -o "$WORK/page" "$BASE/ui/comparisons/$C?rank=0&row=$ROW"
check "?row=N shows row N" grep -q "id=\"r$ROW\"" "$WORK/page"
for k in 1 2 3; do
	check "?row=N shows row N-$k above it" grep -q "id=\"r$((ROW - k))\"" "$WORK/page"
done
check "the first page does not hold row N" bash -c "! curl -s '$BASE/ui/comparisons/$C?rank=0&from=0' | grep -q 'id=\"r$ROW\"'"
check "row N's input hashes are producer links (out of the tab order)" grep -q "class=\"ih\" tabindex=\"-1\" href=\"/ui/comparisons/$C/producer?rank=0&amp;side=a&amp;row=$ROW&amp;key=" "$WORK/page"
check "row N has a walk-back link" grep -q "href=\"/ui/comparisons/$C/origin?rank=0&amp;row=$ROW\"" "$WORK/page"
# producer: 303 to the producer's page
LOC=$(curl -s -o /dev/null -w '%{redirect_url}' -G --data-urlencode rank=0 --data-urlencode side=a \
	--data-urlencode "row=$ROW" --data-urlencode "key=$KEY" --data-urlencode "hash=$HASH" \
	"$BASE/ui/comparisons/$C/producer")
P=$(echo "$LOC" | sed -n 's/.*[?&]row=\([0-9]*\).*#r\([0-9]*\)$/\1/p')
check "producer: 303 to ?row=P#rP ($LOC)" [ -n "$P" ]
check "producer is above the row" [ "${P:-0}" -lt "$ROW" ]
rows limit=1 "cursor=w0.$((P - 1))" >/dev/null
eq "producer row's A key is the input's producer" "$(json rows.0.a_key)" "$KEY"
curl -s -o "$WORK/page" "$LOC"
check "the producer's page holds it" grep -q "id=\"r$P\"" "$WORK/page"
# by hash alone (no key): the row whose A output hash holds it
LOC2=$(curl -s -o /dev/null -w '%{redirect_url}' -G --data-urlencode rank=0 --data-urlencode side=a \
	--data-urlencode "row=$ROW" --data-urlencode "hash=$HASH" "$BASE/ui/comparisons/$C/producer")
eq "producer by hash alone" "$(echo "$LOC2" | sed 's/.*#r//')" "$P"
eq "unknown producer: 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/ui/comparisons/$C/producer?rank=0&side=a&hash=1&key=nope")" 404
eq "bad side: 400" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/ui/comparisons/$C/producer?rank=0&side=c&hash=1")" 400
# walk back to the origin
LOC=$(curl -s -o /dev/null -w '%{redirect_url}' "$BASE/ui/comparisons/$C/origin?rank=0&row=$ROW")
O=$(echo "$LOC" | sed 's/.*#r//')
CHAIN=$(echo "$LOC" | sed -n 's/.*[?&]chain=\([0-9,]*\).*/\1/p')
check "walk: the chain starts at the row ($CHAIN)" [ "${CHAIN%%,*}" = "$ROW" ]
check "walk: the chain ends at the landing row" [ "${CHAIN##*,}" = "$O" ]
check "walk: several steps" [ "$(echo "$CHAIN" | tr ',' '\n' | wc -l)" -gt 2 ]
rows limit=1 "cursor=w0.$((O - 1))" >/dev/null
eq "walk lands on an origin" "$(json rows.0.origin) $(json rows.0.status)" "true diff"
curl -s -o "$WORK/page" "$LOC"
check "landing page lists the chain, with op keys" grep -q "id=\"chain\">Cause chain: <ol><li><a href=\"/ui/comparisons/$C?rank=0&amp;row=$ROW#r$ROW\">row $ROW</a> <code>[^<]*/op_[^<]*</code></li>" "$WORK/page"
check "the chain prints no entity as text" bash -c "! grep -q '&amp;larr;' '$WORK/page'"
# from the optimizer step (inputs without producers in the log) and from
# the largest distance: the chain still ends at an origin
OPT=$(rows limit=1000 >/dev/null; json rows | python3 -c '
import json, sys
print([r["idx"] for r in json.load(sys.stdin) if "fused_adamw" in (r["a_key"] or "") and r["status"] == "diff"][0])')
MAXR=$(curl -s "$BASE/comparisons/$C" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["summary"]["max_hash_row"])')
for R in "$OPT" "$MAXR"; do
	LOC=$(curl -s -o /dev/null -w '%{redirect_url}' "$BASE/ui/comparisons/$C/origin?rank=0&row=$R")
	E=$(echo "$LOC" | sed 's/.*#r//')
	rows limit=1 "cursor=w0.$((E - 1))" >/dev/null
	eq "walk from row $R ends at an origin ($LOC)" "$(json rows.0.origin) $(json rows.0.status)" "true diff"
done
check "landing page holds the origin" grep -q "id=\"r$O\"" "$WORK/page"
eq "walk from a missing row: 404" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/ui/comparisons/$C/origin?rank=0&row=999999")" 404
eq "walk without row: 400" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/ui/comparisons/$C/origin?rank=0")" 400

# --- 3. rows.csv -----------------------------------------------------------
"$PARITY_BIN" compare "$WORK/a.log" "$WORK/b.log" --format csv >"$WORK/cli.csv"
eq "rows.csv: 200" "$(curl -s -D "$WORK/hdr" -o "$WORK/api.csv" -w '%{http_code}' "$BASE/comparisons/$C/rows.csv")" 200
check "rows.csv: the CLI's CSV byte for byte" cmp "$WORK/api.csv" "$WORK/cli.csv"
check "rows.csv: attachment" grep -qi '^Content-Disposition: attachment; filename="comparison_[0-9]*_rows.csv"' "$WORK/hdr"
check "rows.csv: text/csv" grep -qi '^Content-Type: text/csv' "$WORK/hdr"
check "rows.csv: streamed (chunked)" grep -qi '^Transfer-Encoding: chunked' "$WORK/hdr"
curl -s -G -o "$WORK/f.csv" --data-urlencode status=diff --data-urlencode 'q=layers\.1\d' "$BASE/comparisons/$C/rows.csv"
python3 - "$WORK/f.csv" "$WORK/cli.csv" <<'PY' && ok || bad "filtered rows.csv holds exactly the matching rows"
import csv, re, sys
got = list(csv.DictReader(open(sys.argv[1])))
rx = re.compile(r"layers\.1\d", re.I)
want = [r for r in csv.DictReader(open(sys.argv[2]))
        if r["status"] == "diff" and (rx.search(r["a_key"]) or rx.search(r["b_key"]))]
sys.exit(0 if got and got == want else 1)
PY
curl -s -G -o "$WORK/f.csv" --data-urlencode 'q=layers\.1\d' --data-urlencode case=sensitive "$BASE/comparisons/$C/rows.csv"
eq "rows.csv case=sensitive: header only" "$(wc -l <"$WORK/f.csv")" 1
code=$(curl -s -G -o "$WORK/body" -w '%{http_code}' --data-urlencode 'q=(.*)(.*)(.*)(.*)(.*)\5\4\3\2\1x' "$BASE/comparisons/$C/rows.csv")
eq "rows.csv hostile regex: 400 as for /rows" "$code $(json error.code)" "400 regex_too_costly"
code=$(curl -s -G -o "$WORK/body" -w '%{http_code}' --data-urlencode 'q=(' "$BASE/comparisons/$C/rows.csv")
eq "rows.csv invalid regex: 400" "$code $(json error.code)" "400 bad_regex"
eq "rows.csv bad status: 400" "$(curl -s -o "$WORK/body" -w '%{http_code}' "$BASE/comparisons/$C/rows.csv?status=nope")" 400
eq "rows.csv unknown comparison: 404" "$(curl -s -o "$WORK/body" -w '%{http_code}' "$BASE/comparisons/99999/rows.csv")" 404
finish
