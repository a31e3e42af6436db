#!/usr/bin/env bash
# parse.sh - parse-only throughput of the activation-log parser against the
# `wc -l` yardstick.
#
# Usage: tests/bench/parse.sh BENCH_ACTPARSE_BINARY [LAYERS]
# Generates one `gen_actlog.py --layers LAYERS` log (default 2000, ~30 MB)
# into a temp dir, warms the page cache, then takes the best of 3 timed
# runs of `wc -l` and of bench_actparse (1 MiB read(2) chunks, counting
# callbacks) and prints both throughputs and their ratio.  Builds nothing.
set -euo pipefail

bin=${1:?usage: parse.sh BENCH_ACTPARSE_BINARY [LAYERS]}
layers=${2:-2000}
here=$(cd "$(dirname "$0")" && pwd)
TOOLS=$here/../tools
[ -x "$bin" ] || { echo "parse.sh: $bin is not executable" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$TOOLS/gen_actlog.py" --layers "$layers" --scenario identical \
	--out-a "$tmp/a.log" --out-b "$tmp/b.log"
rm -f "$tmp/b.log"
log=$tmp/a.log
bytes=$(stat -c %s "$log")
cat "$log" >/dev/null # page cache

best_wc=
for _ in 1 2 3; do
	t0=$(date +%s.%N)
	wc -l <"$log" >/dev/null
	t1=$(date +%s.%N)
	t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
	if [ -z "$best_wc" ] || awk -v t="$t" -v b="$best_wc" 'BEGIN { exit !(t < b) }'; then
		best_wc=$t
	fi
done
wc_mbps=$(awk -v n="$bytes" -v t="$best_wc" 'BEGIN { printf "%.1f", (t > 0 ? n / 1e6 / t : 0) }')

out=$("$bin" "$log" 3)
echo "$out" | sed 's/^/  /'
parse_mbps=$(echo "$out" | sed -n 's/^MBps=//p')

awk -v n="$bytes" -v w="$wc_mbps" -v p="$parse_mbps" 'BEGIN {
	printf "log size:       %.1f MB\n", n / 1e6
	printf "wc -l:          %.1f MB/s\n", w
	printf "bench_actparse: %.1f MB/s\n", p
	printf "ratio parse/wc: %.2f\n", (w > 0 ? p / w : 0)
}'
