#!/usr/bin/env bash
# tests/bench/pg_scale.sh [BUILD_DIR] - issue 17's load test: the
# throughput of concurrent comparisons with 1 daemon versus 2 daemons on
# the same PostgreSQL database, and HTTP ingest of the ~30 MB log on
# PostgreSQL versus SQLite.
#   - scale: N comparisons (default 8) of one gen_actlog.py pair
#     (--layers LAYERS, default 600, eager-traced) are created at once,
#     spread over the daemons, and long-polled until all are done;
#     throughput = N / wall time.  Run with --workers W per daemon
#     (WORKERS, default "1 2": each value is one pair of runs).  The 2
#     daemons share the database only (their own --data for temp files),
#     as behind a load balancer.
#   - ingest: 3 uploads of the `--layers 2000` log (~30 MB) through HTTP
#     (curl -> 201, the commit included) to a daemon on PostgreSQL and to
#     one on SQLite; MB/s per upload and the medians (issue target on
#     PostgreSQL: >= 30 MB/s).
# The bench starts (and removes) a throwaway cluster of its own with
# tests/pg/cluster.sh: the numbers are not mixed with other tests' load
# on a shared server.  On a 2-core machine the scale ratio is bounded by
# the cores (the comparisons are CPU-bound, and PostgreSQL and curl share
# them): 2 daemons with --workers 1 can at best double 1 daemon with
# --workers 1; with --workers 2 one daemon already uses both cores.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../build}
BUILD=$(cd "$BUILD" && pwd)
N=${N:-8}
LAYERS=${LAYERS:-600}
WORKERS=${WORKERS:-1 2}
W=$(mktemp -d /tmp/parity-pgscale.XXXXXX)
chmod 755 "$W" # as root the cluster in $W/pg belongs to the postgres user
PIDS=()
stop_daemons() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	PIDS=()
}
cleanup() {
	stop_daemons
	"$HERE/../pg/cluster.sh" stop "$W/pg" >/dev/null 2>&1 || true
	rm -rf "$W"
}
trap cleanup EXIT

BASE=$("$HERE/../pg/cluster.sh" start "$W/pg")
DBN=0
fresh_db() { # fresh_db: DB_URL = the URL of a new empty database
	DBN=$((DBN + 1))
	psql -X -q "$BASE" -c "CREATE DATABASE scale_$DBN" >/dev/null
	DB_URL=$(python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$BASE" "scale_$DBN")
}
# serve NAME ARGS...: a daemon with its data dir $W/NAME; sets SERVED to
# its base URL (not in $(...): the parent must know the pid)
serve() {
	local name=$1
	shift
	"$BUILD/parity" serve --listen 127.0.0.1:0 --data "$W/$name" --port-file "$W/$name.port" "$@" \
		>/dev/null 2>"$W/$name.err" &
	PIDS+=($!)
	for _ in $(seq 1 200); do [ -s "$W/$name.port" ] && break; sleep 0.05; done
	[ -s "$W/$name.port" ] || { echo "daemon $name did not start:" >&2; cat "$W/$name.err" >&2; exit 1; }
	SERVED="http://127.0.0.1:$(cat "$W/$name.port")"
}
upload() { # upload BASE FILE NAME -> run id
	curl -sf -F "log=@$2" -F "name=$3" "$1/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
median() { python3 -c 'import statistics,sys; print(f"{statistics.median(map(float, sys.argv[1:])):.1f}")' "$@"; }

# N comparisons at once, the i-th through daemon i mod (number of bases),
# each long-polled on the daemon it was created on; prints "seconds"
run_batch() { # run_batch A B BASE...
	python3 - "$N" "$@" <<'PY'
import json, sys, threading, time, urllib.request
n, a, b, bases = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def post(base):
    req = urllib.request.Request(base + "/comparisons", method="POST",
                                 data=json.dumps({"baseline": a, "candidate": b}).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req, timeout=60))["id"]
def wait(base, cid, out, i):
    while True:
        d = json.load(urllib.request.urlopen("%s/comparisons/%d?wait=60" % (base, cid), timeout=120))
        if d["status"] in ("done", "failed"):
            out[i] = d["status"]
            return
t0 = time.monotonic()
ids = [(bases[i % len(bases)], post(bases[i % len(bases)])) for i in range(n)]
out = [None] * n
th = [threading.Thread(target=wait, args=(base, cid, out, i)) for i, (base, cid) in enumerate(ids)]
for t in th: t.start()
for t in th: t.join()
secs = time.monotonic() - t0
if out.count("done") != n:
    sys.exit("not all done: %r" % out)
print("%.2f" % secs)
PY
}

python3 "$HERE/../tools/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
	--out-a "$W/a.log" --out-b "$W/b.log" >/dev/null
echo "== $N concurrent comparisons (gen_actlog --layers $LAYERS, $(($(stat -c %s "$W/a.log") / 1000000)) MB logs), 1 vs 2 daemons on one PostgreSQL"
for w in $WORKERS; do
	fresh_db
	url=$DB_URL
	serve one1 --db "$url" --workers "$w"
	b1=$SERVED
	A=$(upload "$b1" "$W/a.log" a)
	B=$(upload "$b1" "$W/b.log" b)
	run_batch "$A" "$B" "$b1" >/dev/null # warm-up: caches, prepared statements
	s1=$(run_batch "$A" "$B" "$b1")
	stop_daemons
	fresh_db
	url=$DB_URL
	serve two1 --db "$url" --workers "$w"
	b1=$SERVED
	serve two2 --db "$url" --workers "$w"
	b2=$SERVED
	A=$(upload "$b1" "$W/a.log" a)
	B=$(upload "$b2" "$W/b.log" b)
	run_batch "$A" "$B" "$b1" "$b2" >/dev/null
	s2=$(run_batch "$A" "$B" "$b1" "$b2")
	stop_daemons
	python3 -c "
n, s1, s2, w = $N, $s1, $s2, $w
print(f'  --workers {w}: 1 daemon {s1:.2f} s ({n / s1:.2f}/s), 2 daemons {s2:.2f} s ({n / s2:.2f}/s): ratio {s1 / s2:.2f}x')"
done
echo "  (bounded by the $(nproc) cores: a ratio near 2 needs 2 x workers <= cores; PostgreSQL and the clients share the cores too)"

echo "== HTTP ingest of the ~30 MB log (gen_actlog --layers 2000), 3 uploads each"
python3 "$HERE/../tools/gen_actlog.py" --layers 2000 --out-a "$W/big.log" --out-b "$W/big_b.log" >/dev/null
SIZE=$(stat -c %s "$W/big.log")
ingest() { # ingest LABEL SERVE-ARGS...: sets MEDIAN (MB/s)
	local label=$1 base rates= t code secs mbs i
	shift
	serve "ing_$label" "$@"
	base=$SERVED
	for i in 1 2 3; do
		t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -F "log=@$W/big.log" -F "name=ing$i" "$base/runs")
		code=${t% *}
		secs=${t#* }
		[ "$code" = 201 ] || { echo "upload failed: $code" >&2; cat "$W/ing_$label.err" >&2; exit 1; }
		mbs=$(python3 -c "print(f'{$SIZE/1e6/$secs:.1f}')")
		echo "  $label upload $i: ${secs}s  ${mbs} MB/s"
		rates="$rates $mbs"
	done
	stop_daemons
	MEDIAN=$(median $rates)
}
fresh_db
ingest postgresql --db "$DB_URL"
pg=$MEDIAN
ingest sqlite
lite=$MEDIAN
echo "  median: PostgreSQL $pg MB/s (target >= 30), SQLite $lite MB/s: ratio $(python3 -c "print(f'{$pg/$lite:.2f}')")x"
echo "  (load average: $(cut -d' ' -f1-3 /proc/loadavg); 2 cores shared: compare ratios, not absolutes)"
