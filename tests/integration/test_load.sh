#!/usr/bin/env bash
# Issue 7 load test, bounded: for LOAD_SECONDS (default 20) on loopback,
# 32 connections read HTML pages, 32 more query rows/runs/comparisons
# (wrk), while two curl loops upload logs.  Asserts, from the daemon's own
# /metrics: no 500 or other 5xx, and "503 busy" (the documented back-pressure)
# for at most 1 in BUSY_PER_MILLE_MAX thousand requests; a bounded daemon
# RSS; prints the p50/p99 latency of the page reads.  Without wrk the test
# fails (lib.sh need).
source "$(dirname "$0")/lib.sh"
SECS=${LOAD_SECONDS:-20}
# Why a ratio and not zero: a request that finds no free database connection
# within 300 ms is answered 503 busy with Retry-After (deploy/README.md, "Database
# connections"): that is the designed answer to overload, not a fault.  On
# a loaded 2-core machine (load 6: builds and a second suite beside this
# one) one 503 among ~12k requests failed a zero bound although the daemon
# behaved as documented.  A real fault still fails: any 5xx other than 503
# (a 500 is a bug), and a pool that leaks or a reader that holds its
# connection far too long answers busy to a large share of requests, far
# above 5 per mille (measured here: 0 on an idle machine, 1 per 12k at load 6).
BUSY_PER_MILLE_MAX=${BUSY_PER_MILLE_MAX:-5}
need wrk
python3 "$G/gen_actlog.py" --layers 200 --scenario diverge --out-a "$WORK/a.log" --out-b "$WORK/b.log" >/dev/null
python3 "$G/gen_actlog.py" --layers 4 --scenario ulp --out-a "$WORK/s.log" --out-b "$WORK/s2.log" >/dev/null
start_daemon || exit 1
curl -s -F "log=@$WORK/a.log" "$BASE/runs" >/dev/null
curl -s -F "log=@$WORK/b.log" "$BASE/runs" >/dev/null
http POST /comparisons --json '{"baseline":1,"candidate":2}' >/dev/null
eq "comparison ready" "$(http GET '/comparisons/1?wait=60'; json status)" "200done"

cat >"$WORK/pages.lua" <<'LUA'
local paths = {"/", "/ui/comparisons/1", "/ui/comparisons/1?status=diff&origin=true", "/ui/runs/1"}
local i = 0
request = function()
	i = i + 1
	return wrk.format("GET", paths[(i % #paths) + 1])
end
LUA
cat >"$WORK/api.lua" <<'LUA'
local paths = {"/comparisons/1/rows?limit=100&status=diff", "/comparisons/1/rows?q=attention&limit=50",
               "/runs?limit=20", "/comparisons/1", "/runs/1/ops?limit=100", "/metrics"}
local i = 0
request = function()
	i = i + 1
	return wrk.format("GET", paths[(i % #paths) + 1])
end
LUA

rss_max=0
sample_rss() {
	while kill -0 "$DAEMON_PID" 2>/dev/null; do
		awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status" 2>/dev/null
		sleep 0.5
	done >"$WORK/rss"
}
sample_rss &
SAMPLER=$!
upload_loop() {
	local end=$((SECONDS + SECS)) n=0
	while [ $SECONDS -lt $end ]; do
		curl -s -o /dev/null -w '%{http_code}\n' -F "log=@$WORK/s.log" "$BASE/runs" >>"$WORK/uploads"
		n=$((n + 1))
	done
}
upload_loop &
U1=$!
upload_loop &
U2=$!
wrk -t1 -c32 -d"${SECS}s" --latency -s "$WORK/pages.lua" "$BASE" >"$WORK/wrk_pages" 2>&1 &
W1=$!
wrk -t1 -c32 -d"${SECS}s" --latency -s "$WORK/api.lua" "$BASE" >"$WORK/wrk_api" 2>&1
wait "$W1" "$U1" "$U2"
curl -s "$BASE/metrics" >"$WORK/metrics"
stop_daemon
kill "$SAMPLER" 2>/dev/null
wait "$SAMPLER" 2>/dev/null

p50=$(awk '/Latency Distribution/ {f=1} f && $1=="50%" {print $2}' "$WORK/wrk_pages")
p99=$(awk '/Latency Distribution/ {f=1} f && $1=="99%" {print $2}' "$WORK/wrk_pages")
reqs=$(awk '/requests in/ {print $1}' "$WORK/wrk_pages")
areqs=$(awk '/requests in/ {print $1}' "$WORK/wrk_api")
rss=$(sort -n "$WORK/rss" | tail -1)
echo "load: ${SECS}s, 64 connections + 2 upload loops"
echo "  page reads: $reqs requests, p50 $p50, p99 $p99"
echo "  API reads:  $areqs requests, $(awk '/Latency Distribution/ {f=1} f && $1=="50%" {print "p50 "$2} f && $1=="99%" {print "p99 "$2}' "$WORK/wrk_api" | tr '\n' ' ')"
echo "  uploads:    $(grep -c 201 "$WORK/uploads") stored, $(grep -vc 201 "$WORK/uploads") refused"
echo "  daemon peak RSS: $((rss / 1024)) MB"
count_requests() { # STATUS-REGEX: requests answered with a matching status
	grep -E "^parity_http_requests_total\\{.*status=\"$1\"\\}" "$WORK/metrics" | awk '{s+=$2} END {print s+0}'
}
total=$(count_requests '[0-9]+')
busy=$(count_requests 503)
other5xx=$(count_requests '5(0[0-24-9]|[1-9][0-9])')
echo "  answers:    $total in all, $busy 503 busy, $other5xx other 5xx"
eq "no 5xx other than 503 busy" "$other5xx" 0
check "503 busy at most $BUSY_PER_MILLE_MAX per mille ($busy of $total)" \
	test $((busy * 1000)) -le $((total * BUSY_PER_MILLE_MAX))
if [ "$other5xx" != 0 ] || [ $((busy * 1000)) -gt $((total * BUSY_PER_MILLE_MAX)) ]; then
	grep -v "^{" "$WORK/daemon.err" | sort | uniq -c | sort -rn | head >&2
	grep -E '"status":5[0-9][0-9]' "$WORK/daemon.err" | head -3 >&2
	grep -E '^parity_http_requests_total\{.*status="5[0-9][0-9]"\}' "$WORK/metrics" >&2
fi
check "requests were counted" test "$total" -gt 200
check "pages were served" test "${reqs:-0}" -gt 100
check "API was served" test "${areqs:-0}" -gt 100
check "uploads were stored" test "$(grep -c 201 "$WORK/uploads")" -gt 5
# ASan keeps freed memory in quarantine: the bound holds for normal builds
if [ "${PARITY_SANITIZED:-0}" != 1 ]; then
	check "daemon RSS bounded (< 400 MB)" test "${rss:-0}" -lt 409600
fi
check "page reads p99 printed" test -n "$p99"
finish
