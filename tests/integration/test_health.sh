#!/usr/bin/env bash
# Issue 11: /healthz tells whether the daemon can still keep what it
# acknowledges.  503 with a JSON error when the data directory turns
# read-only (a read-only bind mount over it: chmod does not stop root) and
# recovers when it is writable again; 503 when the database files are
# deleted or replaced under the running daemon, which then stores nothing
# more (no 201 that a restart would lose).  Start-up on a read-only data
# directory fails with a clear message and a non-zero exit status.
source "$(dirname "$0")/lib.sh"
need mount umount sqlite3
DATA=$WORK/data
RO_MOUNTED=0
ro_on() { mount --bind "$DATA" "$DATA" && RO_MOUNTED=1 && mount -o remount,bind,ro "$DATA"; }
ro_off() { umount "$DATA" && RO_MOUNTED=0; }
trap '[ "$RO_MOUNTED" = 1 ] && umount "$DATA"; cleanup' EXIT

start_daemon || exit 1
eq "healthy at start" "$(http GET /healthz)" 200
eq "status ok" "$(json status)" ok
eq "an upload works" "$(http POST /runs -F "log=@$F/match/p1_a.log")" 201

# --- read-only data directory under the running daemon ---------------------------
ro_on || skip_or_fail "cannot make a read-only bind mount (run as root)"
check "the mount is read-only, even for root" bash -c "! touch '$DATA/x' 2>/dev/null"
eq "read-only data dir: 503" "$(http GET /healthz)" 503
eq "read-only data dir: code" "$(json error.code)" storage_unwritable
check "read-only data dir: the message names the problem" grep -q "Read-only file system" "$WORK/body"
st=$(http POST /runs -F "log=@$F/match/p2_a.log")
check "read-only data dir: an upload is not acknowledged ($st)" test "$st" != 201
ro_off
eq "writable again: healthy" "$(http GET /healthz)" 200
eq "writable again: uploads work" "$(http POST /runs -F "log=@$F/match/p2_a.log")" 201
stop_daemon

# --- issue 23 F15: under --private-reads /healthz is open but names no path ------------
TOKEN=$("$PARITY_BIN" token create --name ops --data "$DATA")
start_daemon --private-reads || exit 1
eq "private: healthy, anonymous" "$(http GET /healthz)" 200
ro_on
eq "private: read-only data dir: 503" "$(http GET /healthz)" 503
eq "private: the code is given" "$(json error.code)" storage_unwritable
check "private: no path without a token" bash -c "! grep -qF '$WORK' '$WORK/body'"
check "private: no system error without a token" bash -c "! grep -q 'Read-only' '$WORK/body'"
eq "private: with a token: 503" "$(http GET /healthz -H "Authorization: Bearer $TOKEN")" 503
check "private: with a token the message names the problem" grep -q "Read-only file system" "$WORK/body"
ro_off
stop_daemon

# --- start-up on a read-only data directory ---------------------------------------
ro_on
rc=0
"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$DATA" >"$WORK/ro.out" 2>"$WORK/ro.err" || rc=$?
check "start-up on a read-only data dir exits non-zero ($rc)" test "$rc" -ne 0
check "start-up says why" grep -q "data directory $DATA is not writable.*Read-only file system" "$WORK/ro.err"
check "start-up did not listen" bash -c "! grep -q PORT= '$WORK/ro.out'"
ro_off

# --- database files deleted under the running daemon ----------------------------
start_daemon || exit 1
eq "healthy before" "$(http GET /healthz)" 200
rm -f "$DATA"/parity.db "$DATA"/parity.db-wal "$DATA"/parity.db-shm
eq "deleted database: 503" "$(http GET /healthz)" 503
eq "deleted database: code" "$(json error.code)" database_missing
eq "deleted database: reads refused" "$(http GET /runs)" 503
eq "deleted database: uploads refused, not acknowledged" "$(http POST /runs -F "log=@$F/match/p3_a.log")" 503
check "deleted database: nothing recreated it" test ! -e "$DATA/parity.db"
check "deleted database: logged" grep -q "parity.db is gone" "$WORK/daemon.err"
stop_daemon

# --- database file replaced under the running daemon -------------------------------
start_daemon || exit 1
eq "healthy on a new database" "$(http GET /healthz)" 200
cp "$DATA/parity.db" "$WORK/copy.db"
mv "$WORK/copy.db" "$DATA/parity.db"
eq "replaced database: 503" "$(http GET /healthz)" 503
eq "replaced database: code" "$(json error.code)" database_replaced
eq "replaced database: uploads refused" "$(http POST /runs -F "log=@$F/match/p3_a.log")" 503
stop_daemon
finish
