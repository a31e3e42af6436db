#!/usr/bin/env bash
# Crash safety on PostgreSQL (issue 17; the SQLite twin is test_crash.sh):
# kill -9 of a daemon on --db in the middle of a ~200 MB upload, once while
# the body streams in and once while its transaction stores the rows and
# the raw log (COPY running on the server), then restart: no run, log,
# entry, raw blob or chunk is visible, no temp file is left in the data
# dir, and the same upload then succeeds; a run acknowledged with 201
# survives a kill -9 right after it, byte-exact (GET /runs/{id}/logs/0).
PARITY_BACKEND=pg
source "$(dirname "$0")/lib.sh"
need psql
python3 "$G/gen_actlog.py" --layers 13000 --out-a "$WORK/big.log" --out-b "$WORK/other.log" >/dev/null
rm -f "$WORK/other.log"
SIZE=$(stat -c %s "$WORK/big.log")
check "log is ~200 MB" test "$SIZE" -gt 150000000

stored() { db_sql 'select (select count(*) from runs)+(select count(*) from logs)+(select count(*) from entries)+(select count(*) from raw_blobs)+(select count(*) from raw_chunks)'; }
after_crash() { # label
	local label=$1
	start_daemon || return 1
	eq "$label: no run visible" "$(http GET /runs)" 200
	eq "$label: run list empty" "$(json runs)" "[]"
	eq "$label: no rows, no blob" "$(stored)" 0
	eq "$label: no temp file" "$(find "$DATA/tmp" -type f | wc -l)" 0
}
kill_daemon() {
	kill -9 "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
}

# 1. kill while the body streams in (rate-limited so it takes a few seconds)
start_daemon || exit 1
curl -s -o /dev/null --limit-rate 40M --data-binary "@$WORK/big.log" "$BASE/runs?name=big" &
CURL=$!
tmp_bytes() { find "$DATA/tmp" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
for _ in $(seq 1 200); do
	[ "$(tmp_bytes)" -gt 20000000 ] && break
	sleep 0.05
done
check "upload was in progress" test "$(find "$DATA/tmp" -type f | wc -l)" -gt 0
kill_daemon
wait "$CURL" 2>/dev/null
after_crash "killed mid-body"

# 2. kill while the upload's transaction stores the rows: its COPY is
# running on the server (pg_stat_activity)
curl -s -o /dev/null --data-binary "@$WORK/big.log" "$BASE/runs?name=big" &
CURL=$!
copying() { [ "$(db_sql "select count(*) from pg_stat_activity where datname = current_database() and state = 'active' and query like 'COPY entries%'")" -gt 0 ]; }
check "the upload's COPY was running at the kill" wait_for copying
kill_daemon
wait "$CURL" 2>/dev/null
# the server ends the dead client's session and rolls its transaction back
gone() { [ "$(db_sql "select count(*) from pg_stat_activity where datname = current_database() and query like 'COPY entries%'")" = 0 ]; }
check "the killed daemon's session ended" wait_for gone
after_crash "killed while storing"

# 3. the same upload now succeeds, and survives a kill -9 right after its 201
st=$(http POST "/runs?name=big" --data-binary "@$WORK/big.log")
eq "upload after the crashes" "$st" 201
N=$(json logs.0.entries)
RUN=$(json id) # (not 1: the rolled-back uploads used sequence values)
kill_daemon
start_daemon || exit 1
eq "acknowledged run survives kill -9" "$(http GET "/runs/$RUN")" 200
eq "its entries survive" "$(json logs.0.entries)" "$N"
eq "one raw blob" "$(db_sql 'select count(*) from raw_blobs')" 1
curl -s -o "$WORK/back.log" "$BASE/runs/$RUN/logs/0"
eq "raw log byte-exact" "$(sha256sum <"$WORK/back.log")" "$(sha256sum <"$WORK/big.log")"
stop_daemon
finish
