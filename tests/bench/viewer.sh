#!/usr/bin/env bash
# viewer.sh - benchmark of the activation comparison page on a large pair:
# gen_actlog.py --layers 2000 --scenario eager-traced (~86k rows).  Starts a
# throw-away daemon, uploads both logs, computes the comparison, then asks
# for the first page of /ui/comparisons/{id} several times and prints its
# size and server time: the Server-Timing header the handler adds (time
# spent building the page) and curl's time_starttransfer on loopback.  Also
# times the unfiltered next page, a filtered page (status=diff, regex) and
# the profile SVG (a separate request the page embeds).
# Targets: first page < 2 MB and < 100 ms server time; exit 1 when missed.
# Usage: tests/bench/viewer.sh [path/to/parity]   (or PARITY_BIN=...)
# Env: LAYERS (default 2000), RUNS (default 5).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
bench_init "${1:-}"
LAYERS=${LAYERS:-2000}
RUNS=${RUNS:-5}

python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
	--out-a "$tmp/a.log" --out-b "$tmp/b.log"
bench_serve
ra=$(curl -sf -F log=@"$tmp/a.log" -F name=eager "$base/runs" | idof)
rb=$(curl -sf -F log=@"$tmp/b.log" -F name=traced "$base/runs" | idof)
t0=$(date +%s.%N)
cid=$(curl -sf --json "{\"baseline\":$ra,\"candidate\":$rb}" "$base/comparisons" | idof)
status=$(curl -sf "$base/comparisons/$cid?wait=600" |
	python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["result"]["summary"]["rows"] if d.get("result") else "")')
echo "comparison $cid: $status rows, computed in $(echo "$(date +%s.%N) - $t0" | bc) s"

# measure URL -> prints "bytes server_ms starttransfer_ms" (best of RUNS)
measure() {
	local url=$1 best_srv=999999 best_tt=999999 size=0
	for _ in $(seq 1 "$RUNS"); do
		out=$(curl -s -D "$tmp/h" -o "$tmp/body" -w '%{size_download} %{time_starttransfer}' "$base$url")
		size=${out% *}
		tt=$(echo "${out#* } * 1000" | bc -l)
		srv=$(grep -i '^server-timing:' "$tmp/h" | sed 's/.*dur=\([0-9.]*\).*/\1/' | tr -d '\r')
		best_srv=$(echo "if ($srv < $best_srv) $srv else $best_srv" | bc -l)
		best_tt=$(echo "if ($tt < $best_tt) $tt else $best_tt" | bc -l)
	done
	printf '%s %.2f %.2f\n' "$size" "$best_srv" "$best_tt"
}

fail=0
read -r size srv tt < <(measure "/ui/comparisons/$cid")
printf 'first page:        %8d bytes (%.2f MB), server %.2f ms, starttransfer %.2f ms\n' \
	"$size" "$(echo "$size / 1048576" | bc -l)" "$srv" "$tt"
[ "$size" -lt 2097152 ] || { echo "MISS: first page >= 2 MB"; fail=1; }
[ "$(echo "$srv < 100" | bc -l)" = 1 ] || { echo "MISS: server time >= 100 ms"; fail=1; }
for u in "/ui/comparisons/$cid?from=40000" "/ui/comparisons/$cid?status=diff,a_only,b_only" \
	"/ui/comparisons/$cid?q=layers%5C.1999%5C.&status=diff" "/ui/comparisons/$cid/profile.svg"; do
	read -r size srv tt < <(measure "$u")
	printf '%-60s %8d bytes, server %.2f ms, starttransfer %.2f ms\n' "$u" "$size" "$srv" "$tt"
done
exit $fail
