#!/usr/bin/env bash
# noise.sh - a candidate against a baseline set offline (issue 26,
# matcher/spec/noise.md): `parity compare M1 ... M5 CAND` on six STEPS-step
# training logs (default 100,000 steps each, gen_trainlog.py with six seeds),
# best and median of RUNS wall times, peak RSS, and `cat` of the same six
# files in the same run (the machine's floor for reading them).
# Target (spec): under 0.5 s for 5 members x 100,000 steps; exit 1 when the
# best run misses it.
# Usage: tests/bench/noise.sh path/to/parity   (or PARITY_BIN=...)
# Env: STEPS (default 100000), RUNS (default 5).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
STEPS=${STEPS:-100000}
RUNS=${RUNS:-5}

logs=()
for i in 1 2 3 4 5 6; do
	python3 "$TOOLS/gen_trainlog.py" --steps "$STEPS" --seed "$i" --scenario identical \
		--no-color --out-a "$tmp/m$i.log" --out-b "$tmp/unused.log"
	logs+=("$tmp/m$i.log")
done
echo "six logs of $STEPS steps, $(du -ch "${logs[@]}" | tail -1 | cut -f1) in all"

times=() rss=0
for r in $(seq 1 "$RUNS"); do
	/usr/bin/time -q -f '%e %M' -o "$tmp/time" "$BIN" compare "${logs[@]}" >/dev/null || [ $? -le 1 ]
	read -r t m <"$tmp/time"
	times+=("$t")
	[ "$m" -gt "$rss" ] && rss=$m
done
cat_s=$( { /usr/bin/time -f '%e' cat "${logs[@]}" >/dev/null; } 2>&1 )
read -r best med < <(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR]=$1} END {print v[1], v[int((NR+1)/2)]}')
printf 'parity compare (5 members + candidate): best %.2f s, median %.2f s, peak RSS %d MB; cat %.2f s\n' \
	"$best" "$med" $((rss / 1024)) "$cat_s"
if [ "$STEPS" -eq 100000 ] && awk -v b="$best" 'BEGIN {exit !(b >= 0.5)}'; then
	echo "  over the 0.5 s target" >&2
	exit 1
fi
