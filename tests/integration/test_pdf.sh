#!/usr/bin/env bash
# PNG charts and PDF reports (issue 16) against a real daemon:
#   report.pdf of a training comparison: pdftotext finds the verdict, both
#   meta commits, the env versions, max |diff| of loss and grad_norm and
#   the first offending step in the statistics table, and the Chinese run
#   name (pango + Noto CJK); charts/{metric}.png and {metric}-diff.png are
#   valid PNGs (signature, IHDR size, decoded with zlib: not blank, the
#   series colours present); validation/loss with its '/' as %2F or as is;
#   JSON 404 for an unknown metric, a chart of an activation comparison
#   and a missing comparison, 409 while not done; ETag -> 304; the
#   activation report lists its non-matching rows; the suite report has
#   every config, failing ones first, a failing training config's steps
#   from 20 rows before its first offending step (issue 25); `parity
#   compare -o report.pdf` writes the same offline.
source "$(dirname "$0")/lib.sh"
need pdftotext python3 sqlite3 curl

start_daemon
T=$WORK/t
mkdir -p "$T"
python3 "$G/gen_trainlog.py" --steps 300 --scenario regress --at 120 --val-every 50 \
	--out-a "$T/a.log" --out-b "$T/b.log" >/dev/null

upload() { # upload FILE NAME META -> run id
	curl -s -F "log=@$1" -F "name=$2" -F "meta=$3" "$BASE/runs" | python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])'
}
R1=$(upload "$T/a.log" "训练运行" '{"commit":"aaaa1111","env":{"torch":"2.3.1","cann":"8.0.RC1"}}')
R2=$(upload "$T/b.log" "candidate-run" '{"commit":"bbbb2222","env":{"torch":"2.4.0","cann":"8.0.RC1"}}')
eq "comparison queued" "$(http POST '/comparisons?wait=30' -H 'Content-Type: application/json' \
	-d "{\"baseline\":$R1,\"candidate\":$R2,\"metrics\":[\"loss\",\"grad_norm\",\"validation/loss\"],\"suite\":\"pr-7\",\"config\":\"fsdp\"}")" 202
C=$(json id)
wait_for bash -c "curl -s $BASE/comparisons/$C | grep -q '\"status\":\"done\"'"
curl -s "$BASE/comparisons/$C" >"$WORK/cmp.json"
eq "training verdict" "$(json verdict "$WORK/cmp.json")" fail
LOSS_MAX=$(json result.metrics.loss.max_abs_exact "$WORK/cmp.json")
GN_MAX=$(json result.metrics.grad_norm.max_abs_exact "$WORK/cmp.json")
FIRST=$(json result.metrics.loss.first_over "$WORK/cmp.json")
eq "first offending step" "$FIRST" 120

# --- report.pdf ---------------------------------------------------------------------------------
eq "report.pdf" "$(http GET "/comparisons/$C/report.pdf")" 200
cp "$WORK/body" "$T/r.pdf"
check "PDF signature" bash -c 'head -c 5 "$1" | grep -q "%PDF-"' _ "$T/r.pdf"
check "content type" bash -c "curl -sI $BASE/comparisons/$C/report.pdf | grep -qi '^content-type: application/pdf'"
pdftotext -layout "$T/r.pdf" "$T/r.txt"
check "verdict in text" grep -q "Verdict: fail" "$T/r.txt"
check "baseline commit" grep -q "aaaa1111" "$T/r.txt"
check "candidate commit" grep -q "bbbb2222" "$T/r.txt"
check "env.torch key" grep -q "env.torch" "$T/r.txt"
check "torch versions on one row" grep -Eq "env\.torch +2\.3\.1 +2\.4\.0" "$T/r.txt"
check "loss stats row: max |diff| and first offending step" \
	grep -Eq "^ *loss +fail +$LOSS_MAX +[0-9]+ +1e-05 +$FIRST " "$T/r.txt"
check "grad_norm stats row" grep -Eq "^ *grad_norm +fail +$GN_MAX +[0-9]+ +1e-05 +$FIRST " "$T/r.txt"
check "Chinese run name" grep -q "训练运行" "$T/r.txt"
check "chart titles are text" grep -q "loss: |candidate - baseline| per step" "$T/r.txt"
check "first over marked in the chart" grep -q "first over: step $FIRST" "$T/r.txt"
check "per-step table" grep -Eq "^ *120 +[0-9.]+ +[0-9.]+ +0\.000" "$T/r.txt"
check "suite labels" grep -q "Suite pr-7, config fsdp" "$T/r.txt"

# --- PNG charts ----------------------------------------------------------------------------------
cat >"$T/png.py" <<'EOF'
# png.py FILE W H R,G,B...: a valid PNG of W x H (IHDR), 8-bit RGB(A),
# decoded with zlib (filters undone); prints the count of non-white
# pixels and, per colour given, the pixels within 40 of it.
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "signature"
pos, idat, ihdr = 8, b"", None
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    assert zlib.crc32(kind + body) == struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0], "crc"
    if kind == b"IHDR": ihdr = struct.unpack(">IIBBBBB", body)
    if kind == b"IDAT": idat += body
    pos += 12 + n
w, h, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
assert (w, h) == (int(sys.argv[2]), int(sys.argv[3])), "size %dx%d" % (w, h)
assert depth == 8 and ctype in (2, 6), "format"
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line); prev = line
px = [tuple(r[x * bpp:x * bpp + 3]) for r in rows for x in range(w)]
out = [sum(1 for p in px if p != (255, 255, 255))]
for spec in sys.argv[4:]:
    want = tuple(int(v) for v in spec.split(","))
    out.append(sum(1 for p in px if all(abs(p[k] - want[k]) <= 40 for k in range(3))))
print(" ".join(map(str, out)))
EOF
eq "loss.png" "$(http GET "/comparisons/$C/charts/loss.png")" 200
cp "$WORK/body" "$T/loss.png"
read -r NONWHITE BLUE ORANGE < <(python3 "$T/png.py" "$T/loss.png" 900 320 41,99,199 232,115,23)
check "overlay not blank ($NONWHITE)" test "${NONWHITE:-0}" -gt 5000
check "baseline series drawn ($BLUE)" test "${BLUE:-0}" -gt 200
check "candidate series drawn ($ORANGE)" test "${ORANGE:-0}" -gt 200
eq "loss-diff.png" "$(http GET "/comparisons/$C/charts/loss-diff.png?width=600&height=240")" 200
cp "$WORK/body" "$T/lossd.png"
read -r NONWHITE RED MARK < <(python3 "$T/png.py" "$T/lossd.png" 600 240 204,26,26 242,140,0)
check "diff chart not blank" test "${NONWHITE:-0}" -gt 3000
check "threshold line drawn ($RED)" test "${RED:-0}" -gt 100
check "first offending step marked ($MARK)" test "${MARK:-0}" -gt 100
eq "diff=1 is the same chart" "$(http GET "/comparisons/$C/charts/loss.png?diff=1&width=600&height=240")" 200
check "diff=1 bytes equal" cmp -s "$WORK/body" "$T/lossd.png"
eq "validation/loss as %2F" "$(http GET "/comparisons/$C/charts/validation%2Floss.png")" 200
cp "$WORK/body" "$T/val.png"
read -r NONWHITE BLUE < <(python3 "$T/png.py" "$T/val.png" 900 320 41,99,199)
check "validation chart drawn ($BLUE)" test "${BLUE:-0}" -gt 100
eq "validation/loss with a slash" "$(http GET "/comparisons/$C/charts/validation/loss-diff.png")" 200
eq "unknown metric" "$(http GET "/comparisons/$C/charts/nope.png")" 404
eq "unknown metric code" "$(json error.code)" unknown_metric
check "message lists the metrics" grep -q "validation/loss" "$WORK/body"
eq "not a png name" "$(http GET "/comparisons/$C/charts/loss.svg")" 404
eq "missing comparison" "$(http GET "/comparisons/9999/charts/loss.png")" 404
eq "missing comparison code" "$(json error.code)" not_found
eq "missing comparison pdf" "$(http GET "/comparisons/9999/report.pdf")" 404
eq "bad width" "$(http GET "/comparisons/$C/charts/loss.png?width=5")" 400
eq "width over 2000" "$(http GET "/comparisons/$C/charts/loss.png?width=2001")" 400
eq "height over 2000" "$(http GET "/comparisons/$C/charts/loss.png?height=2001")" 400

# ETag: a client holding the bytes gets 304
ETAG=$(curl -sI "$BASE/comparisons/$C/charts/loss.png" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
check "ETag given" test -n "$ETAG"
eq "If-None-Match" "$(http GET "/comparisons/$C/charts/loss.png" -H "If-None-Match: $ETAG")" 304
# a PDF is dated by the comparison's finish: the same bytes every time
PETAG=$(curl -sI "$BASE/comparisons/$C/report.pdf" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
eq "PDF If-None-Match" "$(http GET "/comparisons/$C/report.pdf" -H "If-None-Match: $PETAG")" 304
# four at once (each HTTP thread has its own pango font map)
PIDS=()
for i in 1 2 3 4; do
	curl -s -o "$T/c$i.pdf" -w '%{http_code}\n' "$BASE/comparisons/$C/report.pdf" >"$T/c$i.code" &
	PIDS+=($!)
done
wait "${PIDS[@]}"
eq "concurrent reports" "$(cat "$T"/c?.code | sort -u | tr -d '\n')" 200
check "concurrent reports identical" bash -c 'cmp -s "$1/c1.pdf" "$1/c4.pdf" && cmp -s "$1/c2.pdf" "$1/r.pdf"' _ "$T"

# a run name that is not UTF-8 is drawn with U+FFFD, without a pango warning
R3=$(upload "$T/b.log" $'bad\xffname' '{}')
eq "comparison with a non-UTF-8 name" "$(http POST '/comparisons?wait=30' -H 'Content-Type: application/json' -d "{\"baseline\":$R1,\"candidate\":$R3}")" 202
C3=$(json id)
wait_for bash -c "curl -s $BASE/comparisons/$C3 | grep -q '\"status\":\"done\"'"
eq "its report" "$(http GET "/comparisons/$C3/report.pdf")" 200
pdftotext "$WORK/body" "$T/bad.txt"
check "replacement character" grep -q "bad�name" "$T/bad.txt"
check "no pango warning" bash -c '! grep -qi "invalid utf-8\|pango-warning\|critical" "$1"' _ "$WORK/daemon.err"

# not done: 409 (the job's status set back by hand; no worker claims a running one)
db_sql "UPDATE comparisons SET status='running' WHERE id=$C"
eq "409 while running (pdf)" "$(http GET "/comparisons/$C/report.pdf")" 409
eq "409 code" "$(json error.code)" not_ready
eq "409 while running (png)" "$(http GET "/comparisons/$C/charts/loss.png")" 409
db_sql "UPDATE comparisons SET status='done' WHERE id=$C"

# --- activation ----------------------------------------------------------------------------------
python3 "$G/gen_actlog.py" --layers 3 --scenario diverge --out-a "$T/aa.log" --out-b "$T/ab.log" >/dev/null
A1=$(upload "$T/aa.log" eager '{"commit":"cccc3333"}')
A2=$(upload "$T/ab.log" traced '{"commit":"dddd4444"}')
eq "activation comparison" "$(http POST /comparisons -H 'Content-Type: application/json' \
	-d "{\"baseline\":$A1,\"candidate\":$A2,\"suite\":\"pr-7\",\"config\":\"tp\"}")" 202
AC=$(json id)
wait_for bash -c "curl -s $BASE/comparisons/$AC | grep -q '\"status\":\"done\"'"
eq "activation chart is 404" "$(http GET "/comparisons/$AC/charts/loss.png")" 404
eq "activation chart code" "$(json error.code)" not_training
eq "activation report.pdf" "$(http GET "/comparisons/$AC/report.pdf")" 200
pdftotext -layout "$WORK/body" "$T/act.txt"
check "activation verdict" grep -q "Verdict: fail" "$T/act.txt"
check "activation counts" grep -q "Counts" "$T/act.txt"
check "divergence profile" grep -q "Divergence profile" "$T/act.txt"
check "non-matching rows listed" grep -Eq "forward +diff +FSDPLlama3Model" "$T/act.txt"
check "meta commits" grep -q "dddd4444" "$T/act.txt"

# --- suite ---------------------------------------------------------------------------------------
# a passing config whose name sorts first: the report still lists it last
R3=$(upload "$T/a.log" "same-again" '{"commit":"eeee5555"}')
eq "passing config" "$(http POST '/comparisons?wait=30' -H 'Content-Type: application/json' \
	-d "{\"baseline\":$R1,\"candidate\":$R3,\"suite\":\"pr-7\",\"config\":\"clean\"}")" 202
PC=$(json id)
wait_for bash -c "curl -s $BASE/comparisons/$PC | grep -q '\"status\":\"done\"'"
eq "suite report.pdf" "$(http GET /suites/pr-7/report.pdf)" 200
pdftotext -layout "$WORK/body" "$T/suite.txt"
check "suite title" grep -q "Suite pr-7" "$T/suite.txt"
check "config fsdp section" grep -q "Config fsdp" "$T/suite.txt"
check "config tp section" grep -q "Config tp" "$T/suite.txt"
check "both comparisons" bash -c 'grep -q "Training comparison #'"$C"'" "$1" && grep -q "Activation comparison #'"$AC"'" "$1"' _ "$T/suite.txt"
check "suite has the Chinese name" grep -q "训练运行" "$T/suite.txt"
# issue 25: failing configs first (table and sections), and a failing
# config's steps around its first offending step (120), not steps 1-100
line_of() { grep -n -m1 -- "$1" "$T/suite.txt" | cut -d: -f1; }
check "failing configs first in the table" bash -c '[ "$1" -lt "$3" ] && [ "$2" -lt "$3" ]' _ \
	"$(grep -n -m1 -E "^ *fsdp +#" "$T/suite.txt" | cut -d: -f1)" \
	"$(grep -n -m1 -E "^ *tp +#" "$T/suite.txt" | cut -d: -f1)" \
	"$(grep -n -m1 -E "^ *clean +#" "$T/suite.txt" | cut -d: -f1)"
check "the table gives a failing config's reason" grep -Eq "^ *fsdp +#$C +training +done +fail +[a-z]" "$T/suite.txt"
check "failing config sections first" bash -c '[ "$1" -lt "$3" ] && [ "$2" -lt "$3" ]' _ \
	"$(line_of "Config fsdp")" "$(line_of "Config tp")" "$(line_of "Config clean")"
check "suite section: the steps around the first offending step" \
	grep -q "Steps 100 to 199 of 300: the rows around the first offending step (120); 99 earlier steps not listed." "$T/suite.txt"
check "suite section lists the first offending step" grep -Eq "^ *120 +[0-9.]+ +[0-9.]+ +0\.000" "$T/suite.txt"
check "suite section does not list step 1" bash -c '! grep -Eq "^ *1 +[0-9.]+ +[0-9.]+ +0\.000" "$1"' _ "$T/suite.txt"
check "suite sections list 100 steps" grep -q "101 more steps in the CSV" "$T/suite.txt"
eq "unknown suite" "$(http GET /suites/nope/report.pdf)" 404
eq "bad suite name" "$(http GET /suites/.x/report.pdf)" 404

# --- offline: parity compare -o report.pdf --------------------------------------------------------
"$PARITY_BIN" compare "$T/a.log" "$T/b.log" -o "$T/cli.pdf" >/dev/null 2>&1
eq "compare exit status (fail)" "$?" 1
pdftotext -layout "$T/cli.pdf" "$T/cli.txt"
check "CLI verdict" grep -q "Verdict: fail" "$T/cli.txt"
check "CLI loss stats" grep -Eq "^ *loss +fail +$LOSS_MAX +[0-9]+ +1e-05 +$FIRST " "$T/cli.txt"
# a failure past the table's 1,000 rows: the table starts 200 rows before it
python3 "$G/gen_trainlog.py" --steps 2000 --scenario regress --at 1500 \
	--out-a "$T/la.log" --out-b "$T/lb.log" >/dev/null
"$PARITY_BIN" compare "$T/la.log" "$T/lb.log" -o "$T/clil.pdf" >/dev/null 2>&1
pdftotext -layout "$T/clil.pdf" "$T/clil.txt"
check "CLI step table starts before the first offending step" \
	grep -q "Steps 1300 to 2000 of 2000: the rows around the first offending step (1500); 1299 earlier" "$T/clil.txt"
check "CLI step table holds the first offending step" grep -Eq "^ *1500 +[0-9]" "$T/clil.txt"
check "CLI step table leaves out step 1" bash -c '! grep -Eq "^ *1 +[0-9]+\.[0-9]+ +[0-9]" "$1"' _ "$T/clil.txt"
"$PARITY_BIN" compare "$T/aa.log" "$T/ab.log" -o "$T/clia.pdf" >/dev/null 2>&1
eq "activation compare exit status" "$?" 1
pdftotext -layout "$T/clia.pdf" "$T/clia.txt"
check "CLI activation rows" grep -Eq "forward +diff +FSDPLlama3Model" "$T/clia.txt"

stop_daemon
finish
