#!/usr/bin/env bash
# big.sh - issue 28's large-run figures in one run, side by side with the
# machine's own limits on the same files (and, when asked, the reference
# and an older parity binary):
#  1. offline: `parity compare A B --format json -o out.json` on a
#     gen_actlog.py --scenario eager-traced pair of ~1M ops per side
#     (--layers 23300, two ~350 MB logs): wall, CPU and peak RSS, the
#     stage timings and memory figures of --timing.  Limits on the same
#     two files: `cat` (read), `cat >file` (read + write, the output's
#     size), `gzip -1`, `sha256sum`.
#  2. daemon: one activation comparison job of ~430k ops per side
#     (--layers 10000) through a throw-away `parity serve`: the job's time
#     and the daemon's peak RSS around it (VmHWM, reset through
#     /proc/PID/clear_refs after the uploads when the kernel allows it).
# Targets: compare < 5 s and < 512 MB; job peak RSS < 300 MB.  Exit 1 when
# one is missed, 2 on a usage or tool error.  Takes a few minutes and
# ~2 GB of $TMPDIR (removed on exit); not part of ctest.
# Usage: tests/bench/big.sh BUILD_DIR   (or the parity binary)
# Env: LAYERS (default 23300; 0 skips the offline part), JOB_LAYERS (default 10000; 0 skips the
#      daemon part), OLD_BIN (an older parity to run beside, optional),
#      REF=1 (also run tests/bench/ref/compare_numerics_ref.py -o x.html on
#      the big pair: several minutes and GBs of memory).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
bench_bin "${1:-}"
TOOLS=$here/../tools
REF_PY=$here/ref/compare_numerics_ref.py
LAYERS=${LAYERS:-23300}
JOB_LAYERS=${JOB_LAYERS:-10000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/parity-big.XXXXXX")
pid=
cleanup() {
	if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# measure LABEL CMD...: one run (bench_time); prints a line and sets W
# (wall s), R (peak RSS MB), C (CPU s)
measure() {
	local label=$1
	shift
	: >"$tmp/one"
	bench_time "$tmp/one" "$@"
	read -r W R C < <(awk '{printf "%.2f %.0f %.2f\n", $1, $2 / 1024, $3}' "$tmp/one")
	printf '  %-44s %7.2f s wall %7.2f s CPU %6d MB peak RSS' "$label" "$W" "$C" "$R"
	[ -n "${MBYTES:-}" ] && awk -v m="$MBYTES" -v w="$W" 'BEGIN {printf "  %6.0f MB/s", m / (w > 0 ? w : 0.01)}'
	echo
}

fail=0
if [ "$LAYERS" -gt 0 ]; then
	echo "== 1. offline compare, ~1M ops per side (--layers $LAYERS) =="
	python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
		--out-a "$tmp/a.log" --out-b "$tmp/b.log"
	sa=$(stat -c %s "$tmp/a.log")
	sb=$(stat -c %s "$tmp/b.log")
	echo "inputs: A $(grep -c '^\[' "$tmp/a.log") ops ($((sa / 1000000)) MB)," \
		"B $(grep -c '^\[' "$tmp/b.log") ops ($((sb / 1000000)) MB)"
	cat "$tmp/a.log" "$tmp/b.log" >/dev/null # page cache warm: figures about CPU, not the disk
	MBYTES=$(((sa + sb) / 1000000))
	echo "machine limits on the same two files ($MBYTES MB):"
	measure "cat A B >/dev/null" sh -c 'cat "$0" "$1" >/dev/null' "$tmp/a.log" "$tmp/b.log"
	measure "gzip -1 -c A B >/dev/null" sh -c 'gzip -1 -c "$0" "$1" >/dev/null' "$tmp/a.log" "$tmp/b.log"
	measure "sha256sum A B" sha256sum "$tmp/a.log" "$tmp/b.log"
	echo "parity:"
	measure "parity compare A B --format json -o out.json" \
		"$BIN" compare "$tmp/a.log" "$tmp/b.log" --format json -o "$tmp/out.json" --timing
	cw=$W cr=$R
	grep -E '^(timing|memory):' "$tmp/err" | sed 's/^/    /'
	out_mb=$(($(stat -c %s "$tmp/out.json") / 1000000))
	MBYTES=$out_mb measure "limit: cat out.json >copy ($out_mb MB written)" \
		sh -c 'cat "$0" >"$1"' "$tmp/out.json" "$tmp/copy.json"
	rm -f "$tmp/copy.json"
	if [ -n "${OLD_BIN:-}" ]; then
		measure "OLD_BIN compare A B --format json -o old.json" \
			"$OLD_BIN" compare "$tmp/a.log" "$tmp/b.log" --format json -o "$tmp/old.json"
		if cmp -s "$tmp/out.json" "$tmp/old.json"; then echo "    output byte-identical"; else
			echo "    OUTPUT DIFFERS from OLD_BIN's"
			fail=1
		fi
		rm -f "$tmp/old.json"
	fi
	rm -f "$tmp/out.json"
	measure "parity compare A B -o diff.html" "$BIN" compare "$tmp/a.log" "$tmp/b.log" -o "$tmp/c.html"
	rm -f "$tmp/c.html"
	if [ "${REF:-0}" = 1 ]; then
		measure "reference (Python) -o diff.html" python3 "$REF_PY" "$tmp/a.log" "$tmp/b.log" \
			-o "$tmp/py.html"
		rm -f "$tmp/py.html"
	fi
	echo "  targets: compare --format json < 5 s and < 512 MB: ${cw} s, ${cr} MB"
	awk -v w="$cw" -v r="$cr" 'BEGIN {exit !(w < 5 && r < 512)}' || {
		echo "  TARGET MISSED (offline)"
		fail=1
	}
	rm -f "$tmp/a.log" "$tmp/b.log"
fi

if [ "$JOB_LAYERS" -gt 0 ]; then
	echo "== 2. daemon: one activation comparison job (--layers $JOB_LAYERS) =="
	python3 "$TOOLS/gen_actlog.py" --layers "$JOB_LAYERS" --scenario eager-traced \
		--out-a "$tmp/a.log" --out-b "$tmp/b.log"
	echo "inputs: A $(grep -c '^\[' "$tmp/a.log") ops, B $(grep -c '^\[' "$tmp/b.log") ops"
	"$BIN" serve --listen 127.0.0.1:0 --data "$tmp/data" --port-file "$tmp/port" 2>"$tmp/daemon.err" &
	pid=$!
	for _ in $(seq 1 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
	base="http://127.0.0.1:$(cat "$tmp/port")"
	idof() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
	kb() { awk -v k="$1" '$1 == k":" {print $2}' "/proc/$pid/status"; }
	# a job runs when a comparison is created: upload both runs first
	# (one run alone starts no job), then reset the peak
	ra=$(curl -sf -F log=@"$tmp/a.log" -F name=a "$base/runs" | idof)
	rb=$(curl -sf -F log=@"$tmp/b.log" -F name=b "$base/runs" | idof)
	sleep 1
	reset=no
	echo 5 >"/proc/$pid/clear_refs" 2>/dev/null && reset=yes
	before=$(kb VmRSS)
	# CPU seconds of the daemon (utime + stime): says what wall time cannot
	# on a shared machine
	cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f", ($14 + $15) / hz}' "/proc/$pid/stat"; }
	c0=$(cpu)
	t0=$(date +%s.%N)
	cid=$(curl -sf --json "{\"baseline\":$ra,\"candidate\":$rb}" "$base/comparisons" | idof)
	curl -sf "$base/comparisons/$cid?wait=600" >/dev/null
	t1=$(date +%s.%N)
	hwm=$(kb VmHWM)
	c1=$(cpu)
	echo "  job: $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}') s wall," \
		"$(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.2f", b - a}') s daemon CPU;" \
		"daemon RSS before $((before / 1024)) MB, peak $((hwm / 1024)) MB" \
		"(peak reset before the job: $reset)"
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
	echo "  target: job peak RSS < 300 MB"
	[ "$((hwm / 1024))" -lt 300 ] || {
		echo "  TARGET MISSED (daemon job)"
		fail=1
	}
fi
exit $fail
