#!/usr/bin/env bash
# Issue 7 crash safety: kill -9 of the daemon in the middle of a ~200 MB
# upload, once while the body streams in and once while it is being stored
# (after the last byte arrived), then restart: no partial run is visible,
# PRAGMA integrity_check is ok, no temp or orphaned raw file remains, and
# the same upload then succeeds.  A raw file left by a crash between its
# rename and the commit is moved out of raw/ at start-up: into the
# quarantine, since the database never recorded it (issue 11).  (kill -9 during a comparison
# is in test_comparisons.sh.)
source "$(dirname "$0")/lib.sh"
python3 "$G/gen_actlog.py" --layers 13000 --out-a "$WORK/big.log" --out-b "$WORK/other.log" >/dev/null
rm -f "$WORK/other.log"
SIZE=$(stat -c %s "$WORK/big.log")
check "log is ~200 MB" test "$SIZE" -gt 150000000

after_crash() { # label
	local label=$1
	start_daemon || return 1
	eq "$label: no run visible" "$(http GET /runs)" 200
	eq "$label: run list empty" "$(json runs)" "[]"
	eq "$label: no rows" "$(sqlite3 "$DATA/parity.db" 'select (select count(*) from runs)+(select count(*) from logs)+(select count(*) from entries)')" 0
	eq "$label: integrity" "$(sqlite3 "$DATA/parity.db" 'pragma integrity_check')" ok
	eq "$label: no temp file" "$(find "$DATA/tmp" -type f | wc -l)" 0
	eq "$label: no raw file" "$(find "$DATA/raw" -type f | wc -l)" 0
}

# 1. kill while the body streams in (rate-limited so it takes a few seconds)
start_daemon || exit 1
curl -s -o /dev/null --limit-rate 40M --data-binary "@$WORK/big.log" "$BASE/runs?name=big" &
CURL=$!
# (the body's temp files together: the compressed copy and the parser's
# records; the plain copy goes once the kind is known)
tmp_bytes() { find "$DATA/tmp" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }
for _ in $(seq 1 200); do
	[ "$(tmp_bytes)" -gt 20000000 ] && break
	sleep 0.05
done
check "upload was in progress" test "$(find "$DATA/tmp" -type f | wc -l)" -gt 0
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
wait "$CURL" 2>/dev/null
after_crash "killed mid-body"

# 2. kill after the last byte arrived, while the rows are being stored
curl -s -o /dev/null --data-binary "@$WORK/big.log" "$BASE/runs?name=big" &
CURL=$!
# The insert transaction runs only after the last byte arrived, and it has
# begun once the WAL grows (the page cache spills into it long before the
# multi-second insert commits); its temp files are still there then.
wal_grown() { [ "$(stat -c %s "$DATA/parity.db-wal" 2>/dev/null || echo 0)" -gt 4000000 ]; }
check "body received and rows being stored before the kill" wait_for wal_grown
check "the upload's temp files still there at the kill" test "$(find "$DATA/tmp" -type f | wc -l)" -gt 0
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
wait "$CURL" 2>/dev/null
after_crash "killed while storing"

# 3. the same upload now succeeds, and survives a kill -9 right after its 201
st=$(http POST "/runs?name=big" --data-binary "@$WORK/big.log")
eq "upload after the crashes" "$st" 201
N=$(json logs.0.entries)
kill -9 "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
# a raw file left by a crash between rename and commit
mkdir -p "$DATA/raw/ab"
echo orphan >"$DATA/raw/ab/$(printf 'ab%062d' 0)"
start_daemon || exit 1
eq "acknowledged run survives kill -9" "$(http GET /runs/1)" 200
eq "its entries survive" "$(json logs.0.entries)" "$N"
eq "orphaned raw file swept at start-up" "$(find "$DATA/raw" -type f | wc -l)" 1
check "orphaned raw file quarantined" test -f "$DATA/quarantine/ab/$(printf 'ab%062d' 0)"
eq "integrity after all" "$(sqlite3 "$DATA/parity.db" 'pragma integrity_check')" ok
stop_daemon
finish
