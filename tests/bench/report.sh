#!/usr/bin/env bash
# report.sh - memory benchmark of the self-contained report.
# Served: a throw-away daemon computes gen_actlog.py --layers 2000
# --scenario ulp (~86k rows, every row a diff), then one and then four
# concurrent GET /comparisons/{id}/report.html; the daemon's RSS growth is
# VmHWM (peak) after the requests minus VmRSS before them (the peak is
# reset between the two phases through /proc/PID/clear_refs when the
# kernel allows it, else the four-request figure includes the first).
# Offline: `parity compare A B -o diff.html` on the eager-traced pair,
# wall time and peak RSS from /usr/bin/time -v.
# Targets: one request <= 64 MB, four <= 160 MB; exit 1 when missed.
# Usage: tests/bench/report.sh path/to/parity   (or PARITY_BIN=...)
# Env: LAYERS (default 2000).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
LAYERS=${LAYERS:-2000}

kb() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }

python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario ulp \
	--out-a "$tmp/a.log" --out-b "$tmp/b.log"
bench_serve
ra=$(curl -sf -F log=@"$tmp/a.log" -F name=a "$base/runs" | idof)
rb=$(curl -sf -F log=@"$tmp/b.log" -F name=b "$base/runs" | idof)
cid=$(curl -sf --json "{\"baseline\":$ra,\"candidate\":$rb}" "$base/comparisons" | idof)
curl -sf "$base/comparisons/$cid?wait=600" >/dev/null
# warm-up: page cache, SQLite caches, one small page
curl -sf -o /dev/null "$base/ui/comparisons/$cid"
sleep 0.5

fail=0
reset_hwm() { echo 5 >"/proc/$pid/clear_refs" 2>/dev/null || true; }
phase() { # $1 = concurrent requests, $2 = limit MB
	reset_hwm
	local before t0 t1 i size
	before=$(kb "$pid" VmRSS)
	t0=$(date +%s.%N)
	for i in $(seq 1 "$1"); do
		curl -sf -o "$tmp/r$i.html" "$base/comparisons/$cid/report.html" &
	done
	wait $(jobs -p | grep -v "^$pid\$") 2>/dev/null || true
	t1=$(date +%s.%N)
	size=$(stat -c %s "$tmp/r1.html")
	local hwm growth
	hwm=$(kb "$pid" VmHWM)
	growth=$(( (hwm - before) / 1024 ))
	printf '%d request(s): %d bytes each, %.2f s, RSS %d MB before, peak %d MB, growth %d MB (limit %d)\n' \
		"$1" "$size" "$(echo "$t1 - $t0" | bc -l)" $((before / 1024)) $((hwm / 1024)) "$growth" "$2"
	[ "$growth" -le "$2" ] || { echo "MISS: growth over $2 MB"; fail=1; }
}
phase 1 64
phase 4 160

python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
	--out-a "$tmp/ea.log" --out-b "$tmp/eb.log"
/usr/bin/time -v "$BIN" compare "$tmp/ea.log" "$tmp/eb.log" -o "$tmp/diff.html" \
	2>"$tmp/time.txt" >/dev/null || true
printf 'offline -o diff.html: %d bytes, %s s wall, peak RSS %d MB\n' \
	"$(stat -c %s "$tmp/diff.html")" \
	"$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$tmp/time.txt")" \
	$(( $(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt") / 1024 ))
exit $fail
