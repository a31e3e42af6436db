#!/usr/bin/env bash
# compare_builds.sh OLD_PARITY NEW_PARITY - the daemon's everyday figures of
# two builds measured in one run, alternating, so the machine's load falls
# on both alike.  For each build, ROUNDS times (default 3):
#   ingest  HTTP upload of a ~30 MB activation log (gen_actlog.py --layers
#           2000), MB/s from curl's upload time to the 201;
#   job     the comparison of that log with its eager-traced twin (~86k
#           ops): seconds from POST /comparisons to done (long-poll);
#   page    the first page of /ui/comparisons/{id}: seconds (curl total);
#   report  GET /comparisons/{id}/report.html: seconds for the whole body;
#   train   a 20k-step training pair: comparison job seconds, then
#           report.pdf seconds.
# Prints the median per figure and build and the ratio new/old (for MB/s
# higher is better, for seconds lower).  No target: it reports.
# Usage: tests/bench/compare_builds.sh build-old/parity build/parity
# Env: ROUNDS (default 3), LAYERS (default 2000), STEPS (default 20000).
set -euo pipefail
OLD=${1:?usage: $0 OLD_PARITY NEW_PARITY}
NEW=${2:?usage: $0 OLD_PARITY NEW_PARITY}
ROUNDS=${ROUNDS:-3}
LAYERS=${LAYERS:-2000}
STEPS=${STEPS:-20000}
TOOLS=$(cd "$(dirname "$0")/../tools" && pwd)
W=$(mktemp -d /tmp/parity-cmpbuilds.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$W"' EXIT

python3 "$TOOLS/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
	--out-a "$W/a.log" --out-b "$W/b.log" >/dev/null
python3 - "$STEPS" "$W" <<'EOF'
import math, sys
n, w = int(sys.argv[1]), sys.argv[2]
for name, eps in (("ta", 0.0), ("tb", 1e-7)):
    with open("%s/%s.log" % (w, name), "w") as f:
        for s in range(1, n + 1):
            loss = 10.0 * math.exp(-s / 5000.0) + 0.01 * math.sin(s) + eps * (s > n // 2)
            f.write("step: %d  loss: %.6f  grad_norm: %.4f\n" % (s, loss, 1.0 + 0.1 * math.cos(s)))
EOF

# start BIN: a daemon on a fresh data dir; sets PID and BASE
start() {
	rm -rf "$W/data" "$W/port"
	"$1" serve --listen 127.0.0.1:0 --data "$W/data" --port-file "$W/port" >/dev/null 2>"$W/daemon.err" &
	PID=$!
	for _ in $(seq 1 200); do [ -s "$W/port" ] && break; sleep 0.05; done
	BASE="http://127.0.0.1:$(cat "$W/port")"
}
stop() { kill -TERM "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; PID=; }
idof() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
upload() { curl -s -F "log=@$1" -F "name=$2" "$BASE/runs"; }
secs() { curl -s -o /dev/null -w '%{time_total}' "$@"; }
# compare A B: POST then long-poll; prints "id seconds"
compare() {
	local t0 id
	t0=$(date +%s.%N)
	id=$(curl -s --json "{\"baseline\":$1,\"candidate\":$2}" "$BASE/comparisons" | idof)
	curl -s -o /dev/null "$BASE/comparisons/$id?wait=600"
	echo "$id $(python3 -c "import time; print(f'{time.time() - $t0:.3f}')")"
}

declare -A fig
record() { fig[$1,$2]="${fig[$1,$2]:-} $3"; } # build figure value

round() { # label BIN
	local b=$1 bin=$2 a b2 c t
	start "$bin"
	local size
	size=$(stat -c %s "$W/a.log")
	t=$(curl -s -o "$W/up.json" -w '%{time_total}' -F "log=@$W/a.log" -F name=a "$BASE/runs")
	a=$(idof <"$W/up.json")
	record "$b" ingest_MBps "$(python3 -c "print(f'{$size / 1e6 / $t:.1f}')")"
	b2=$(upload "$W/b.log" b | idof)
	read -r c t < <(compare "$a" "$b2")
	record "$b" job_s "$t"
	secs "$BASE/ui/comparisons/$c" >/dev/null # warm
	record "$b" page_s "$(secs "$BASE/ui/comparisons/$c")"
	record "$b" report_s "$(secs "$BASE/comparisons/$c/report.html")"
	a=$(upload "$W/ta.log" ta | idof)
	b2=$(upload "$W/tb.log" tb | idof)
	read -r c t < <(compare "$a" "$b2")
	record "$b" train_job_s "$t"
	record "$b" train_pdf_s "$(secs "$BASE/comparisons/$c/report.pdf")"
	stop
}

for r in $(seq 1 "$ROUNDS"); do
	round old "$OLD"
	round new "$NEW"
	echo "round $r of $ROUNDS done" >&2
done

echo "figure          old (median)   new (median)   new/old   (load now: $(cut -d' ' -f1 /proc/loadavg))"
for f in ingest_MBps job_s page_s report_s train_job_s train_pdf_s; do
	python3 - "$f" "${fig[old,$f]}" "${fig[new,$f]}" <<'EOF'
import statistics, sys
f, o, n = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
mo, mn = statistics.median(o), statistics.median(n)
better = "higher is better" if f.endswith("MBps") else "lower is better"
print(f"{f:<15} {mo:>12.3f}   {mn:>12.3f}   {mn / mo:>7.2f}   ({better})")
EOF
done
