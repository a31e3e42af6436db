#!/usr/bin/env bash
# tests/bench/ingest.sh [BUILD_DIR] - the ingest benchmark (issues 2 and 28).
# Prints, for one `gen_actlog.py --layers 2000` log (~30 MB), in one run:
#   - the machine's own limits on that file (best of 3 each): `cat`,
#     `gzip -1`, `sha256sum` and the parser alone (bench_actparse), the
#     stages an upload runs beside each other;
#   - HTTP ingest throughput including the durable SQLite commit (curl
#     multipart upload -> 201), each of 3 uploads, their best and median,
#     and how many of them the insert stage took (server/ingest/stage.c);
#   - the daemon's peak RSS;
#   - stored bytes per run: database growth (after a WAL checkpoint) plus the
#     raw file on disk, against the log's size;
# and for a ~300 MB log (--layers 20000) the daemon's RSS growth while ingesting it.
# Targets on this machine: HTTP ingest >= 120 MB/s (best of 3), RSS growth
# < 64 MB, stored bytes per run <= 1.0x the log.  Needs sqlite3 (the checkpoint).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../build}
BUILD=$(cd "$BUILD" && pwd)
TOOLS=$HERE/../tools
W=$(mktemp -d /tmp/parity-bench.XXXXXX)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$W"' EXIT

python3 "$TOOLS/gen_actlog.py" --layers 2000 --out-a "$W/a.log" --out-b "$W/b.log" >/dev/null
rm -f "$W/b.log"
SIZE=$(stat -c %s "$W/a.log")
cat "$W/a.log" >/dev/null # page cache
mbs() { python3 -c "import sys; print(f'{$SIZE / 1e6 / float(sys.argv[1]):.1f}')" "$1"; }
# best3 CMD...: the best wall time (s) of 3 runs of CMD (output discarded)
best3() {
	local best= t0 t1 t
	for _ in 1 2 3; do
		t0=$(date +%s.%N)
		"$@" >/dev/null
		t1=$(date +%s.%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }')
		if [ -z "$best" ] || awk -v t="$t" -v b="$best" 'BEGIN { exit !(t < b) }'; then best=$t; fi
	done
	echo "$best"
}
echo "== the machine's limits on the same $((SIZE / 1000000)) MB log (best of 3)"
echo "  load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  cat:          $(mbs "$(best3 cat "$W/a.log")") MB/s"
echo "  gzip -1:      $(mbs "$(best3 gzip -1 -c "$W/a.log")") MB/s"
echo "  sha256sum:    $(mbs "$(best3 sha256sum "$W/a.log")") MB/s"
parse=$("$BUILD/tests/bench/bench_actparse" "$W/a.log" 3 | sed -n 's/^MBps=//p')
echo "  parse only:   $parse MB/s (bench_actparse)"

rss_kb() { awk '/^VmRSS/ {print $2}' /proc/$1/status; }
hwm_kb() { awk '/^VmHWM/ {print $2}' /proc/$1/status; }

"$BUILD/parity" serve --listen 127.0.0.1:0 --data "$W/data" --port-file "$W/port" >/dev/null 2>"$W/err" &
PID=$!
for _ in $(seq 1 100); do [ -s "$W/port" ] && break; sleep 0.05; done
URL="http://127.0.0.1:$(cat "$W/port")/runs"

echo "== HTTP ingest (~$((SIZE / 1000000)) MB activation log, 3 uploads)"
db_bytes() { # the database file after a checkpoint (the WAL folded in)
	sqlite3 "$W/data/parity.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	stat -c %s "$W/data/parity.db"
}
db_before=$(db_bytes)
rates=
for i in 1 2 3; do
	t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -F "log=@$W/a.log" -F "name=bench$i" "$URL")
	code=${t% *}
	secs=${t#* }
	[ "$code" = 201 ] || { echo "upload failed: $code"; cat "$W/err"; exit 1; }
	echo "  upload $i: ${secs}s  $(mbs "$secs") MB/s"
	rates="$rates $(mbs "$secs")"
done
python3 -c "import statistics,sys; r=list(map(float, sys.argv[1:]))
print(f'  HTTP ingest: best {max(r):.1f} MB/s (target >= 120), median {statistics.median(r):.1f} MB/s')" $rates
metric() { curl -s "${URL%/runs}/metrics" | awk -v k="$1" '$1 == k {print $2}'; }
echo "  uploads whose entries went in while they streamed: $(metric parity_ingest_staged_total) of 3" \
	"(the stage gave way: $(metric parity_ingest_stage_fallbacks_total))"
echo "  daemon peak RSS after 30 MB uploads: $(($(hwm_kb $PID) / 1024)) MB"
# stored bytes per run: its rows (database growth over the 3 runs / 3) and
# its raw file (the 3 uploads share one: same bytes)
db_per_run=$((($(db_bytes) - db_before) / 3))
raw=$(find "$W/data/raw" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
python3 -c "
size, db, raw = $SIZE, $db_per_run, $raw
print(f'  stored per run: database {db} B ({db / size:.3f}x) + raw file {raw} B ({raw / size:.3f}x)'
      f' = {(db + raw) / size:.3f}x the log\'s {size} B (target <= 1.0x)')"

echo "== RSS growth on a ~300 MB log"
python3 "$TOOLS/gen_actlog.py" --layers 20000 --out-a "$W/big.log" --out-b "$W/big_b.log" >/dev/null
rm -f "$W/big_b.log"
BIG=$(stat -c %s "$W/big.log")
# restart so the high-water mark starts from an idle daemon
kill -TERM $PID; wait $PID || true
"$BUILD/parity" serve --listen 127.0.0.1:0 --data "$W/data" --port-file "$W/port2" >/dev/null 2>>"$W/err" &
PID=$!
for _ in $(seq 1 100); do [ -s "$W/port2" ] && break; sleep 0.05; done
URL="http://127.0.0.1:$(cat "$W/port2")/runs"
before=$(rss_kb $PID)
t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' --data-binary "@$W/big.log" "$URL?name=big")
after=$(hwm_kb $PID)
echo "  $((BIG / 1000000)) MB upload: status ${t% *}, ${t#* }s, $(python3 -c "print(f'{$BIG/1e6/${t#* }:.1f}')") MB/s"
echo "  RSS before ${before} kB, peak during ${after} kB: growth $(((after - before) / 1024)) MB (target < 64)"
echo "  raw files on disk now: $(find "$W/data/raw" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}') B"
kill -TERM $PID; wait $PID || true
PID=
