#!/usr/bin/env bash
# Issue 7 retention: `parity backup` makes a consistent copy while the
# daemon runs; `parity gc` deletes old finished comparisons and unused old
# runs (never queued/running ones or runs a kept comparison uses), their
# rows and unreferenced raw files, and --dry-run deletes nothing.
source "$(dirname "$0")/lib.sh"
start_daemon || exit 1
upload() { curl -s -F "log=@$1" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
A=$(upload "$F/match/p1_a.log")
B=$(upload "$F/match/p1_b.log")
OLD=$(upload "$F/match/p2_a.log")
http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B}" >/dev/null
C=$(json id)
http GET "/comparisons/$C?wait=60" >/dev/null
eq "comparison done" "$(json status)" done

# --- backup while the daemon runs ---------------------------------------------
eq "backup exit" "$("$PARITY_BIN" backup "$WORK/copy.db" --data "$DATA" >/dev/null; echo $?)" 0
eq "backup integrity" "$(sqlite3 "$WORK/copy.db" 'pragma integrity_check')" ok
eq "backup has the runs" "$(sqlite3 "$WORK/copy.db" 'select count(*) from runs')" 3
eq "backup has the rows" "$(sqlite3 "$WORK/copy.db" "select count(*) from comparison_rows where comparison_id=$C")" \
	"$(sqlite3 "$DATA/parity.db" "select count(*) from comparison_rows where comparison_id=$C")"
eq "backup of a missing data dir fails" "$("$PARITY_BIN" backup "$WORK/x.db" --data "$WORK/none" 2>/dev/null; echo $?)" 2

# --- gc ------------------------------------------------------------------------------
# age everything but keep a queued comparison that uses run B... (a queued job keeps its runs)
sqlite3 "$DATA/parity.db" "update runs set created_at='2020-01-01T00:00:00Z'; update comparisons set created_at='2020-01-01T00:00:00Z'"
raw_before=$(find "$DATA/raw" -type f | wc -l)
out=$("$PARITY_BIN" gc --older-than 30 --dry-run --data "$DATA")
check "dry run reports" grep -q "would delete 1 comparison(s) and 3 run(s)" <<<"$out"
eq "dry run deleted nothing" "$(sqlite3 "$DATA/parity.db" 'select count(*) from runs')" 3
eq "dry run kept raw files" "$(find "$DATA/raw" -type f | wc -l)" "$raw_before"
eq "nothing is that old for --older-than 10000" "$("$PARITY_BIN" gc --older-than 10000 --data "$DATA" | grep -c 'deleted 0 comparison(s) and 0 run(s)')" 1
out=$("$PARITY_BIN" gc --older-than 30 --data "$DATA")
check "gc reports" grep -q "deleted 1 comparison(s) and 3 run(s)" <<<"$out"
eq "runs gone" "$(sqlite3 "$DATA/parity.db" 'select count(*) from runs')" 0
eq "rows gone" "$(sqlite3 "$DATA/parity.db" 'select count(*) from comparison_rows')" 0
eq "entries gone" "$(sqlite3 "$DATA/parity.db" 'select count(*) from entries')" 0
eq "raw files gone" "$(find "$DATA/raw" -type f | wc -l)" 0
check "raw files deleted, not quarantined (the database vouches for them)" test ! -e "$DATA/quarantine"
eq "daemon still answers" "$(http GET /runs)" 200
eq "run list empty" "$(json runs)" "[]"
# a queued comparison keeps its old runs (daemon stopped: no worker claims it)
A=$(upload "$F/train/q1_a.log")
B=$(upload "$F/train/q1_b.log")
stop_daemon
sqlite3 "$DATA/parity.db" "insert into comparisons(kind, baseline_id, candidate_id, status, created_at) values ('training', $A, $B, 'queued', '2020-01-01T00:00:00Z')" 2>/dev/null ||
	sqlite3 "$DATA/parity.db" "insert into comparisons(name, kind, baseline_id, candidate_id, status, created_at) values ('', 'training', $A, $B, 'queued', '2020-01-01T00:00:00Z')"
sqlite3 "$DATA/parity.db" "update runs set created_at='2020-01-01T00:00:00Z'"
out=$("$PARITY_BIN" gc --older-than 30 --data "$DATA")
check "queued comparison and its runs kept" grep -q "deleted 0 comparison(s) and 0 run(s)" <<<"$out"
finish
