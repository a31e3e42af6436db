#!/usr/bin/env bash
# vs_reference.sh - the offline targets (issue 12, then issue 28): `parity
# compare A B -o diff.html` against a Python reference on the same files,
# side by side in one run.  The reference is tests/bench/ref/compare_numerics_ref.py: OUR
# stdlib-only reimplementation of the matching contract (four passes, HTML
# table report), standing in for TorchTitan's compare_numerics.py, which is
# not available here (test_compare_ref.sh checks it pairs rows exactly like
# the C matcher).  Pairs: gen_actlog.py --layers $LAYERS --scenario
# eager-traced (the target) and --scenario ulp (for information).
# Each tool runs $RUNS times alternately under /usr/bin/time -v; the
# median wall time and the largest peak RSS of each are compared (the
# median CPU time, user + system, is printed too: on a shared machine it
# says what the wall times cannot).  parity parses A and B and renders the
# report on two threads, so its wall time can be below its CPU time.
# Also printed: the peak RSS of `parity --version`, the process's floor
# (the binary and the libraries it links: libc, sqlite, pcre2, jansson,
# protobuf-c, zlib; curl, libpq, libcrypto, libmicrohttpd and cairo/pango
# are opened only when used, store/dynlib.h), which every parity command
# pays before reading a byte.
# Targets (eager-traced pair; issue 28's): parity >= 50x faster and >= 20x
# leaner (peak RSS) than the reference; exit 1 when missed, 2 on a usage or
# tool error.  Issue 12's 20x / 5x are printed too.
# Usage: tests/bench/vs_reference.sh BUILD_DIR   (or the parity binary)
# Env: LAYERS (default 2000), RUNS (default 3).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
bench_bin "${1:-}"
REF=$here/ref/compare_numerics_ref.py
TOOLS=$here/../tools
LAYERS=${LAYERS:-2000}
RUNS=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

measure() { bench_time "$@"; }
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

fail=0
: >"$tmp/floor"
measure "$tmp/floor" "$BIN" --version
floor=$(cut -d' ' -f2 "$tmp/floor")
echo "parity's floor (\`parity --version\`): $(awk -v k="$floor" 'BEGIN {printf "%.0f MB", k / 1024}') peak RSS"
for sc in eager-traced ulp; do
	python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario "$sc" \
		--out-a "$tmp/a.log" --out-b "$tmp/b.log"
	: >"$tmp/c" && : >"$tmp/py"
	for _ in $(seq 1 "$RUNS"); do
		measure "$tmp/c" "$BIN" compare "$tmp/a.log" "$tmp/b.log" -o "$tmp/c.html"
		measure "$tmp/py" python3 "$REF" "$tmp/a.log" "$tmp/b.log" -o "$tmp/py.html"
	done
	cw=$(cut -d' ' -f1 "$tmp/c" | median)
	pw=$(cut -d' ' -f1 "$tmp/py" | median)
	cr=$(cut -d' ' -f2 "$tmp/c" | sort -n | tail -1)
	pr=$(cut -d' ' -f2 "$tmp/py" | sort -n | tail -1)
	cc=$(cut -d' ' -f3 "$tmp/c" | median)
	pc=$(cut -d' ' -f3 "$tmp/py" | median)
	read -r speed lean < <(awk -v cw="$cw" -v pw="$pw" -v cr="$cr" -v pr="$pr" \
		'BEGIN {printf "%.1f %.1f\n", pw / (cw > 0 ? cw : 0.01), pr / cr}')
	mb() { awk -v k="$1" 'BEGIN {printf "%.0f MB", k / 1024}'; }
	echo "$sc pair ($(($(stat -c %s "$tmp/a.log") / 1000000)) + $(($(stat -c %s "$tmp/b.log") / 1000000)) MB, median of $RUNS):"
	echo "  parity compare -o diff.html  ${cw} s wall (${cc} s CPU)  $(mb "$cr") peak RSS  ($(($(stat -c %s "$tmp/c.html") / 1000000)) MB report)"
	echo "  reference (Python)           ${pw} s wall (${pc} s CPU)  $(mb "$pr") peak RSS  ($(($(stat -c %s "$tmp/py.html") / 1000000)) MB report)"
	echo "  parity is ${speed}x faster (wall) and ${lean}x leaner (targets: 50x, 20x; issue 12's 20x, 5x);" \
		"CPU time ratio $(awk -v a="$pc" -v b="$cc" 'BEGIN {printf "%.1f", a / (b > 0 ? b : 0.01)}')x"
	if [ "$sc" = eager-traced ]; then
		awk -v s="$speed" -v l="$lean" 'BEGIN {exit !(s >= 20 && l >= 5)}' ||
			echo "  issue 12's 20x / 5x MISSED"
		awk -v s="$speed" -v l="$lean" 'BEGIN {exit !(s >= 50 && l >= 20)}' || {
			echo "  TARGET MISSED on the eager-traced pair (50x faster, 20x leaner)"
			fail=1
		}
	fi
done
exit $fail
