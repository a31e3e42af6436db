#!/usr/bin/env bash
# Disk full during an upload: the data directory sits on a small tmpfs; an
# upload that does not fit gets 507 with a JSON error, leaves no run, no
# rows, no temp or raw file, and the daemon keeps working (a small upload
# afterwards succeeds).  Needs root to mount the tmpfs; where mounting is
# not permitted the test fails (skip_or_fail in lib.sh).
source "$(dirname "$0")/lib.sh"
MNT=$WORK/small
mkdir -p "$MNT"
mount -t tmpfs -o size=3M tmpfs "$MNT" 2>/dev/null || skip_or_fail "cannot mount a tmpfs (run as root)"
trap '[ -n "$DAEMON_PID" ] && kill -TERM "$DAEMON_PID" 2>/dev/null && wait "$DAEMON_PID"; umount "$MNT" 2>/dev/null; rm -rf "$WORK"' EXIT
# 1. the raw upload itself does not fit (~4.5 MB on a 3 MB disk)
python3 "$G/gen_actlog.py" --layers 300 --out-a "$WORK/big.log" --out-b "$WORK/b.log" >/dev/null
# 2. the raw upload fits but its rows do not (~1.4 MB log, ~2.5 MB of rows)
python3 "$G/gen_actlog.py" --layers 90 --out-a "$WORK/mid.log" --out-b "$WORK/b.log" >/dev/null
DATA=$MNT/data start_daemon || exit 1
DATA=$MNT/data
st=$(http POST /runs --data-binary "@$WORK/big.log")
eq "upload larger than the disk" "$st" 507
eq "storage error code" "$(json error.code)" storage
eq "no run" "$(sqlite3 "$DATA/parity.db" 'select count(*) from runs')" 0
eq "no entries" "$(sqlite3 "$DATA/parity.db" 'select count(*) from entries')" 0
eq "no temp file" "$(find "$DATA/tmp" -type f | wc -l)" 0
eq "no raw file" "$(find "$DATA/raw" -type f | wc -l)" 0
eq "daemon still healthy" "$(http GET /healthz)" 200
st=$(http POST /runs --data-binary "@$WORK/mid.log")
eq "rows larger than the disk" "$st" 507
eq "no run after a full database" "$(sqlite3 "$DATA/parity.db" 'select count(*) from runs')" 0
eq "no raw file after a full database" "$(find "$DATA/raw" -type f | wc -l)" 0
eq "no temp file after a full database" "$(find "$DATA/tmp" -type f | wc -l)" 0
eq "a small upload fits" "$(http POST /runs -F "log=@$F/match/p4_a.log")" 201
stop_daemon
finish
