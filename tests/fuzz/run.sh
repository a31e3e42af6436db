#!/usr/bin/env bash
# run.sh - build the libFuzzer targets in build-fuzz and run each one for
# SECONDS (default 60), FUZZ_PARALLEL targets at a time (default: the
# number of cores), printing the executions per target.  For CI and for
# long local runs.
#
# Usage: tests/fuzz/run.sh [SECONDS] [TARGET...]
#   TARGET: actlog trainlog overrides match routes upload tfevents lossfile nvinspect megatron mllog msprobe (default: all)
# Environment:
#   BUILD_DIR   build directory (default <src>/build-fuzz)
#   CC          compiler (default clang-14)
#   FUZZ_PARALLEL  targets run at once (default nproc)
#   FUZZ_ARGS   extra libFuzzer flags (e.g. "-jobs=1 -rss_limit_mb=1024")
#
# New interesting inputs go to BUILD_DIR/tests/fuzz/work/<target>, never to
# the committed corpus (copy good ones into tests/fuzz/corpus/<target>/ by
# hand, keeping it small).  A crash, leak, UB report or timeout leaves its
# reproducer as BUILD_DIR/tests/fuzz/work/<target>-crash-* (or -leak-,
# -timeout-, -oom-); save it under tests/fuzz/regressions/<target>/ so the
# ctest replay keeps failing until the code is fixed.
# Exit status: 0 when every target ran clean, 1 when any found something,
# 2 on a build failure.
set -u

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(actlog trainlog overrides match routes upload tfevents lossfile nvinspect megatron mllog msprobe)

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$src/build-fuzz}
export CC=${CC:-clang-14}

case $seconds in
	'' | *[!0-9]*) echo "run.sh: SECONDS must be a whole number" >&2; exit 2 ;;
esac

if ! cmake -S "$src" -B "$build" -DFUZZ=ON -DSANITIZE=OFF >"$build.cmake.log" 2>&1; then
	cat "$build.cmake.log" >&2
	exit 2
fi
rm -f "$build.cmake.log"
build_targets=()
for t in "${targets[@]}"; do
	build_targets+=("fuzz_$t")
done
if ! cmake --build "$build" -j2 --target "${build_targets[@]}"; then
	echo "run.sh: build failed" >&2
	exit 2
fi

# One target: fuzz it, then write its summary line to $work.result and its
# failure details to $work.fail.  Targets run FUZZ_PARALLEL at a time
# (default: the number of cores), each on its own core.
run_one() {
	local t=$1 work=$build/tests/fuzz/work/$1 log=$build/tests/fuzz/work/$1.log rc execs cov
	mkdir -p "$work"
	rm -f "$work.result" "$work.fail"
	# shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
	"$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=25 \
		-print_final_stats=1 -artifact_prefix="$work-" ${FUZZ_ARGS:-} \
		"$work" "$src/tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	if [ $rc -ne 0 ]; then
		{
			echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} executions; log: $log"
			grep -m 1 -A 30 -E '^==[0-9]+==|check failed|runtime error' "$log"
			ls "$work"-* 2>/dev/null
		} >"$work.fail"
		printf '%-10s %12s executions  %-10s FAILED\n' "$t" "${execs:-?}" "$cov" >"$work.result"
	else
		printf '%-10s %12s executions  %-10s ok\n' "$t" "${execs:-?}" "$cov" >"$work.result"
	fi
}

parallel=${FUZZ_PARALLEL:-$(nproc 2>/dev/null || echo 1)}
running=0
for t in "${targets[@]}"; do
	echo "== fuzz_$t for ${seconds}s"
	run_one "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$parallel" ]; then
		wait -n
		running=$((running - 1))
	fi
done
wait

status=0
summary=""
for t in "${targets[@]}"; do
	work=$build/tests/fuzz/work/$t
	if [ -s "$work.fail" ]; then
		status=1
		cat "$work.fail" >&2
	fi
	[ -f "$work.result" ] || { status=1; echo "fuzz_$t: no result" >&2; }
	summary+=$(cat "$work.result" 2>/dev/null)$'\n'
done
echo "== summary (${seconds}s each)"
printf '%s' "$summary"
exit $status
