#!/usr/bin/env bash
# match.sh - benchmark of `parity compare` on two large activation logs:
# gen_actlog.py --layers 2000 --scenario eager-traced (~86k ops each, ~30 MB
# each).  Prints the matcher's own stage timings (--timing), the wall time
# of the whole `parity compare --format json -o FILE` and its peak RSS
# (/usr/bin/time -v when present, else polling /proc/PID/status VmHWM).
# Targets: whole compare < 1.0 s and < 200 MB; exit 1 when missed.
# Usage: tests/bench/match.sh [path/to/parity]   (or PARITY_BIN=...)
# Env: LAYERS (default 2000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-${PARITY_BIN:-}}
TOOLS=$here/../tools
LAYERS=${LAYERS:-2000}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
	echo "usage: $0 path/to/parity (or set PARITY_BIN)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
	--out-a "$tmp/a.log" --out-b "$tmp/b.log"
na=$(grep -c '^\[' "$tmp/a.log")
nb=$(grep -c '^\[' "$tmp/b.log")
echo "inputs: A $na ops ($(stat -c %s "$tmp/a.log") bytes), B $nb ops ($(stat -c %s "$tmp/b.log") bytes)"
# warm the page cache so the numbers are about parity, not the disk
cat "$tmp/a.log" "$tmp/b.log" >/dev/null

set +e
if [ -x /usr/bin/time ]; then
	/usr/bin/time -v "$BIN" compare "$tmp/a.log" "$tmp/b.log" --format json \
		-o "$tmp/out.json" --timing 2>"$tmp/err"
	rc=$?
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/err" |
		awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.3f", s }')
	rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/err")
else
	start=$(date +%s.%N)
	"$BIN" compare "$tmp/a.log" "$tmp/b.log" --format json -o "$tmp/out.json" \
		--timing 2>"$tmp/err" &
	pid=$!
	rss_kb=0
	while kill -0 "$pid" 2>/dev/null; do
		v=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$v" ] && [ "$v" -gt "$rss_kb" ] && rss_kb=$v
		sleep 0.01
	done
	wait "$pid"
	rc=$?
	wall=$(echo "$(date +%s.%N) - $start" | bc)
fi
set -e
grep '^timing:' "$tmp/err" || true
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
	echo "parity compare failed (exit $rc):" >&2
	cat "$tmp/err" >&2
	exit 1
fi
rows=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['rows']))" "$tmp/out.json")
echo "output: $(stat -c %s "$tmp/out.json") bytes, $rows rows, exit $rc"
echo "whole compare: wall ${wall} s, peak RSS $((rss_kb / 1024)) MB (targets: < 1.0 s, < 200 MB)"
ok=$(awk -v w="$wall" -v r="$rss_kb" 'BEGIN { print (w < 1.0 && r < 200 * 1024) ? 1 : 0 }')
if [ "$ok" -eq 1 ]; then
	echo "OK"
else
	echo "TARGET MISSED"
	exit 1
fi
