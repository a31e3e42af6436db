#!/usr/bin/env bash
# Issue 11: the start-up sweep and `parity gc` never delete a raw file the
# database might need.  An unreferenced raw file is deleted only when the
# database vouches for it (its mtime lies between the database's creation
# and its last upload); otherwise it is moved to <data>/quarantine/<aa>/
# and logged.  Covered: database files deleted (a new empty database),
# the documented restore (backup + files moved back), an older backup
# restored (newer files quarantined, the backup's own kept), gc next to a
# running daemon, and orphans the database vouches for (deleted).  Raw
# files are stored compressed (<sha256>.gz) and keep that name in the
# quarantine.
source "$(dirname "$0")/lib.sh"
need sqlite3 sha256sum cmp gzip
sha() { sha256sum <"$1" | cut -d' ' -f1; }
raw_of() { echo "$DATA/raw/${1:0:2}/$1.gz"; }
quarantined() { echo "$DATA/quarantine/${1:0:2}/$1.gz"; }
# holds GZFILE LOG: GZFILE is LOG gzip-compressed
holds() { [ -f "$1" ] && gzip -dc "$1" | cmp -s - "$2"; }
# no_form SHA: the digest has no raw file in either form
no_form() { [ ! -e "$DATA/raw/${1:0:2}/$1" ] && [ ! -e "$DATA/raw/${1:0:2}/$1.gz" ]; }
LA=$F/match/p1_a.log
LB=$F/train/q1_a.log
SA=$(sha "$LA")
SB=$(sha "$LB")
same_log() { # RUN FILE: the run's raw log is FILE byte for byte
	[ "$(http GET "/runs/$1/logs/0")" = 200 ] && cmp -s "$WORK/body" "$2"
}

start_daemon || exit 1
eq "upload A" "$(http POST /runs -F "log=@$LA")" 201
A=$(json id)
"$PARITY_BIN" backup "$WORK/after_a.db" --data "$DATA" >/dev/null
eq "upload B" "$(http POST /runs -F "log=@$LB")" 201
B=$(json id)
"$PARITY_BIN" backup "$WORK/after_b.db" --data "$DATA" >/dev/null
stop_daemon

# --- 1. database files deleted: a new, empty database quarantines everything --------
rm -f "$DATA"/parity.db "$DATA"/parity.db-wal "$DATA"/parity.db-shm
start_daemon || exit 1
eq "new database: no runs" "$(http GET /runs)" 200
eq "new database: run list empty" "$(json runs)" "[]"
eq "new database: no raw file left in raw/" "$(find "$DATA/raw" -type f | wc -l)" 0
check "new database: A quarantined byte for byte" holds "$(quarantined "$SA")" "$LA"
check "new database: B quarantined byte for byte" holds "$(quarantined "$SB")" "$LB"
check "new database: each quarantined file logged" grep -q "quarantined raw file $SA" "$WORK/daemon.err"
check "new database: the summary says where" grep -q "quarantined 2 raw file(s).*$DATA/quarantine" "$WORK/daemon.err"
stop_daemon

# --- 2. the documented restore: the right database back, then the files ------------
cp "$WORK/after_b.db" "$DATA/parity.db"
rm -f "$DATA"/parity.db-wal "$DATA"/parity.db-shm
cp -a "$DATA/quarantine/." "$DATA/raw/" && rm -r "$DATA/quarantine"
start_daemon || exit 1
check "restored: run A has its raw log" same_log "$A" "$LA"
check "restored: run B has its raw log" same_log "$B" "$LB"
check "restored: nothing quarantined" test ! -e "$DATA/quarantine"
stop_daemon

# --- 3. an older backup restored: its own files kept, newer ones quarantined -------
cp "$WORK/after_a.db" "$DATA/parity.db"
rm -f "$DATA"/parity.db-wal "$DATA"/parity.db-shm
start_daemon || exit 1
check "older backup: run A has its raw log" same_log "$A" "$LA"
eq "older backup: run B unknown" "$(http GET "/runs/$B")" 404
check "older backup: B's newer file quarantined" holds "$(quarantined "$SB")" "$LB"
check "older backup: B's file not in raw/" no_form "$SB"
check "older backup: the reason is logged" grep -q "quarantined raw file $SB.*newer than the last upload" "$WORK/daemon.err"

# --- 4. gc next to the running daemon quarantines what the database cannot vouch for
mkdir -p "$DATA/raw/${SB:0:2}"
cp "$(quarantined "$SB")" "$(raw_of "$SB")" && rm "$(quarantined "$SB")"
out=$("$PARITY_BIN" gc --data "$DATA" 2>"$WORK/gc.err")
check "gc: reports the quarantined file" grep -q "quarantined 1 raw file(s)" <<<"$out"
check "gc: logs it" grep -q "quarantined raw file $SB" "$WORK/gc.err"
check "gc: B's file quarantined, not deleted" holds "$(quarantined "$SB")" "$LB"
check "gc: A kept" same_log "$A" "$LA"
out=$("$PARITY_BIN" gc --dry-run --data "$DATA")
check "gc --dry-run: nothing left to do" grep -q "would delete 0 comparison(s) and 0 run(s).*; 0 raw file(s)" <<<"$out"

# --- 5. orphans the database vouches for are deleted ------------------------------------
# a run removed without its file (as a crash between a delete's commit and
# its file release leaves it)
eq "upload B again" "$(http POST /runs -F "log=@$LB")" 201
B2=$(json id)
check "B2 has its raw log" same_log "$B2" "$LB"
check "B2's raw file is stored compressed" holds "$(raw_of "$SB")" "$LB"
stored=$(stat -c %s "$(raw_of "$SB")")
sqlite3 "$DATA/parity.db" "PRAGMA foreign_keys=ON; DELETE FROM runs WHERE id=$B2"
out=$("$PARITY_BIN" gc --data "$DATA")
check "gc: the orphan is deleted (its bytes on disk)" grep -q "; 1 raw file(s), $stored bytes freed" <<<"$out"
check "gc: the orphan is gone from raw/" no_form "$SB"
eq "DELETE /runs/A" "$(http DELETE "/runs/$A")" 200
check "DELETE: A's file deleted" no_form "$SA"
check "DELETE: A's file not quarantined" test ! -e "$(quarantined "$SA")"
stop_daemon
finish
