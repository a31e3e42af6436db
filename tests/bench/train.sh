#!/usr/bin/env bash
# train.sh - wall time and peak RSS of `parity compare --format json` on two
# generated 200k-step training logs (~44 MB each).  Targets: < 1.0 s and
# < 64 MB.  Usage: tests/bench/train.sh [path/to/parity]
# (or PARITY_BIN=...).  Logs are cached in $PARITY_BENCH_DIR (default
# /tmp/parity-bench-train) because generating them takes a few seconds.
# Exit 0 when both targets are met, 1 otherwise.
set -eu
BIN=${1:-${PARITY_BIN:-build/parity}}
HERE=$(cd "$(dirname "$0")" && pwd)
TOOLS=$HERE/../tools
DIR=${PARITY_BENCH_DIR:-/tmp/parity-bench-train}
STEPS=${STEPS:-200000}
mkdir -p "$DIR"
A="$DIR/base_$STEPS.log"
B="$DIR/cand_$STEPS.log"
if [ ! -s "$A" ] || [ ! -s "$B" ]; then
	echo "generating two $STEPS-step logs in $DIR ..."
	python3 "$TOOLS/gen_trainlog.py" --steps "$STEPS" --scenario regress \
		--at $((STEPS * 3 / 4)) --val-every 1000 --out-a "$A" --out-b "$B"
fi
python3 - "$BIN" "$A" "$B" <<'PY'
import os, resource, subprocess, sys, time
bin_, a, b = sys.argv[1:4]
size = (os.path.getsize(a) + os.path.getsize(b)) / 1e6
runs = []
for _ in range(3):
    t0 = time.perf_counter()
    p = subprocess.run([bin_, "compare", a, b, "--format", "json"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    runs.append(time.perf_counter() - t0)
    if p.returncode not in (0, 1):
        print("parity failed:", p.returncode, p.stderr.decode()[:500])
        sys.exit(2)
rss_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
wall = min(runs)
print(f"input: {size:.1f} MB (2 logs); wall: {wall:.3f} s (best of 3, "
      f"{size / wall:.0f} MB/s); peak RSS: {rss_mb:.1f} MB")
ok = wall < 1.0 and rss_mb < 64
print("targets (< 1.0 s, < 64 MB):", "met" if ok else "NOT met")
sys.exit(0 if ok else 1)
PY
