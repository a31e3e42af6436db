#!/usr/bin/env bash
# Issue 7 operations: X-Request-Id on every response (echoing a sane
# incoming one), one JSON access-log line per request, SIGHUP reopens the
# log file, GET /metrics in Prometheus format, the concurrent-ingest cap
# (503 + Retry-After), a slow body cut off at the request deadline with
# nothing stored, and a clean SIGTERM that leaves the WAL checkpointed.
source "$(dirname "$0")/lib.sh"
LOG=$WORK/parity.log
start_daemon --log-file "$LOG" --max-ingests 1 --ingest-wait 0 --request-timeout 2 || exit 1
PORT=$(cat "$WORK/port")

# --- request ids and the access log ------------------------------------------
curl -s -D "$WORK/h" -o /dev/null -H 'X-Request-Id: ci-run.42' "$BASE/healthz"
check "incoming request id echoed" grep -qi '^X-Request-Id: ci-run.42' "$WORK/h"
curl -s -D "$WORK/h" -o /dev/null -H 'X-Request-Id: bad id<script>' "$BASE/runs"
check "unsafe request id replaced" grep -qiE '^X-Request-Id: [0-9a-f]{16}' "$WORK/h"
curl -s -D "$WORK/h" -o /dev/null "$BASE/nope"
check "request id on errors too" grep -qiE '^X-Request-Id: [0-9a-f]{16}' "$WORK/h"
check "access log written" wait_for grep -q '"path":"/nope"' "$LOG"
check "access log line for the healthz request" python3 - "$LOG" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]
hit = [l for l in lines if l.get('request_id') == 'ci-run.42']
assert hit, lines
l = hit[0]
assert l['method'] == 'GET' and l['path'] == '/healthz' and l['status'] == 200, l
assert 'duration_ms' in l and 'bytes_in' in l and 'bytes_out' in l and 'time' in l, l
nf = [l for l in lines if l.get('path') == '/nope']
assert nf and nf[0]['status'] == 404 and nf[0]['route'] is None, nf
PY

# --- SIGHUP reopens the log file -------------------------------------------------
mv "$LOG" "$LOG.1"
kill -HUP "$DAEMON_PID"
check "log file reopened after SIGHUP" wait_for test -e "$LOG"
curl -s -o /dev/null -H 'X-Request-Id: after-hup' "$BASE/healthz"
check "new log file after SIGHUP" wait_for grep -q '"after-hup"' "$LOG"
check "old file not written after SIGHUP" bash -c "! grep -q after-hup '$LOG.1'"

# --- metrics --------------------------------------------------------------------------
curl -s -F "log=@$F/match/p4_a.log" "$BASE/runs" >/dev/null
curl -s -F "log=@$F/match/p4_b.log" "$BASE/runs" >/dev/null
http POST /comparisons --json '{"baseline":1,"candidate":2}' >/dev/null
http GET '/comparisons/1?wait=30' >/dev/null
eq "metrics" "$(http GET /metrics)" 200
M=$WORK/body
check "requests by route and status" grep -q 'parity_http_requests_total{method="POST",route="/runs",status="201"} 2' "$M"
check "duration histogram" grep -q 'parity_http_request_duration_seconds_bucket{le="+Inf"}' "$M"
check "entries ingested" grep -q '^parity_ingested_entries_total 12$' "$M"
check "comparisons by status" grep -q 'parity_comparisons{status="done"} 1' "$M"
check "comparisons by verdict" grep -q 'parity_comparison_verdicts{verdict="fail"} 1' "$M"
check "queue depth" grep -q '^parity_queue_depth ' "$M"
check "job histogram" grep -q '^parity_job_duration_seconds_count 1$' "$M"
check "db size" grep -qE '^parity_db_size_bytes [1-9]' "$M"
check "raw bytes" grep -qE '^parity_raw_bytes [1-9]' "$M"
check "webhook deliveries family" grep -q '^# TYPE parity_webhook_deliveries gauge' "$M"

# --- ingest cap and the slow-body deadline ----------------------------------------------
# client 1 holds the only ingest slot by trickling its body (and is cut off
# at the 2 s request deadline); client 2 meanwhile gets 503 + Retry-After
# at once (--ingest-wait 0; test_ingest_fair covers the wait)
python3 - "$PORT" >"$WORK/slow.out" 2>&1 <<'PY' &
import socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.sendall(b'POST /runs?name=slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n')
s.sendall(b'Total captured activations: 1\n')
t0 = time.time()
try:
    while time.time() - t0 < 6:
        s.sendall(b'#')
        time.sleep(0.2)
    print('not cut off')
except OSError:
    print('cut off after %.1f s' % (time.time() - t0))
PY
SLOW=$!
in_progress() { curl -s "$BASE/metrics" | grep -q '^parity_uploads_in_progress 1$'; }
check "slow upload holds the slot" wait_for in_progress
st=$(curl -s -D "$WORK/h" -o "$WORK/body" -w '%{http_code}' --data-binary "@$F/match/p4_a.log" "$BASE/runs?name=second")
eq "second upload while the slot is taken" "$st" 503
eq "busy code" "$(json error.code)" busy
check "Retry-After header" grep -qi '^Retry-After: [0-9]' "$WORK/h"
wait "$SLOW"
check "slow body cut off at the request deadline" grep -q 'cut off after [2-5]' "$WORK/slow.out"
check "slow upload's temp file removed" wait_for no_temp_files
eq "nothing stored from the slow upload" "$(db_sql "select count(*) from runs where name in ('slow','second')")" 0
eq "no temp files left" "$(find "$DATA/tmp" -type f | wc -l)" 0
eq "slot free again" "$(http POST '/runs?name=third' --data-binary "@$F/match/p4_a.log")" 201
check "busy refusal counted" grep -q '^parity_uploads_refused_busy_total 1$' <(curl -s "$BASE/metrics")

# --- clean stop ---------------------------------------------------------------------------
stop_daemon
# (SQLite's WAL; PostgreSQL has no file of ours to check)
[ "$PARITY_BACKEND" = sqlite ] && eq "WAL checkpointed at shutdown" "$(stat -c %s "$DATA/parity.db-wal" 2>/dev/null || echo 0)" 0
check "stop logged" grep -q 'stopped' "$LOG"
finish
