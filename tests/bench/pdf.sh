#!/usr/bin/env bash
# pdf.sh - time of the PNG charts and the PDF report of a training
# comparison (issue 16).  A throw-away daemon compares two generated
# STEPS-step logs (gen_trainlog.py --scenario regress, default 10000
# steps), then GET /comparisons/{id}/charts/loss.png, loss-diff.png and
# report.pdf RUNS times each (after one warm-up request each: the first
# render on a thread loads the fonts); prints min and median wall time
# (curl's time_total) and the sizes, plus `parity check -o report.pdf`.
# Target: median < 300 ms each for 10k steps; exit 1 when missed.
# Usage: tests/bench/pdf.sh path/to/parity   (or PARITY_BIN=...)
# Env: STEPS (default 10000), RUNS (default 7).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
STEPS=${STEPS:-10000}
RUNS=${RUNS:-7}

python3 "$TOOLS/gen_trainlog.py" --steps "$STEPS" --scenario regress --at $((STEPS / 3)) \
	--no-color --out-a "$tmp/a.log" --out-b "$tmp/b.log"
bench_serve
ra=$(curl -sf -F log=@"$tmp/a.log" -F name=a "$base/runs" | idof)
rb=$(curl -sf -F log=@"$tmp/b.log" -F name=b "$base/runs" | idof)
cid=$(curl -sf --json "{\"baseline\":$ra,\"candidate\":$rb}" "$base/comparisons" | idof)
curl -sf "$base/comparisons/$cid?wait=600" >/dev/null

fail=0
measure() { # $1 = label, $2 = URL path
	local i times=()
	for i in 0 1 2 3; do curl -sf -o /dev/null "$base$2"; done # warm every HTTP thread
	for i in $(seq 1 "$RUNS"); do
		times+=("$(curl -sf -o "$tmp/out" -w '%{time_total}' "$base$2")")
	done
	read -r min med < <(printf '%s\n' "${times[@]}" | sort -g |
		awk '{v[NR]=$1} END {printf "%.0f %.0f\n", v[1]*1000, v[int((NR+1)/2)]*1000}')
	printf '%-14s min %4d ms  median %4d ms  %8d bytes\n' "$1" "$min" "$med" "$(stat -c %s "$tmp/out")"
	if [ "$STEPS" -le 10000 ] && [ "$med" -ge 300 ]; then
		echo "  over the 300 ms target" >&2
		fail=1
	fi
}
echo "training comparison of $STEPS steps ($RUNS runs each, load $(cut -d' ' -f1 /proc/loadavg)):"
measure "loss.png" "/comparisons/$cid/charts/loss.png"
measure "loss-diff.png" "/comparisons/$cid/charts/loss-diff.png"
measure "report.pdf" "/comparisons/$cid/report.pdf"
t0=$(date +%s.%N)
"$BIN" check "$tmp/a.log" "$tmp/b.log" -o "$tmp/cli.pdf" >/dev/null || true
t1=$(date +%s.%N)
printf '%-14s %4.0f ms (parse both logs, check, write %d bytes)\n' "check -o pdf" \
	"$(echo "($t1 - $t0) * 1000" | bc -l)" "$(stat -c %s "$tmp/cli.pdf")"
exit $fail
