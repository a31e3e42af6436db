#!/usr/bin/env bash
# test_pg_serve.sh - `parity serve --db postgresql://...` (issue 17) against
# the server of PARITY_TEST_DB: two daemons started at once on a fresh
# database apply the PostgreSQL migrations between them (each version
# once) and both serve (/healthz 200, one's run visible on the other);
# PARITY_DB does the same with nothing left to apply; SIGTERM exits 0; a
# non-URL --db is a usage error (exit 2); an unreachable server is an
# error that names it, without the password.  (The integration suite as a
# whole runs on PostgreSQL as integration.pg.*; lib.sh.)
# Without PARITY_TEST_DB the test fails (PARITY_ALLOW_SKIP=1 skips it).
PARITY_BACKEND=pg
source "$(dirname "$0")/lib.sh"
URL=$PARITY_DB # lib.sh: a fresh database, dropped at exit
q() { psql -X -A -t -q "$URL" -c "$1"; }

# two daemons at once on the fresh database
for i in 1 2; do
	"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$WORK/d$i" --db "$URL" \
		--port-file "$WORK/port$i" >"$WORK/o$i" 2>"$WORK/e$i" &
	DAEMON_PIDS+=($!)
done
P1=${DAEMON_PIDS[0]} P2=${DAEMON_PIDS[1]}
both_up() { [ -s "$WORK/port1" ] && [ -s "$WORK/port2" ]; }
check "both daemons listen" wait_for both_up
for i in 1 2; do
	BASE="http://127.0.0.1:$(cat "$WORK/port$i" 2>/dev/null)"
	eq "daemon $i: /healthz" "$(http GET /healthz)" 200
done
check "no SQLite database was made" test ! -e "$WORK/d1/parity.db" -a ! -e "$WORK/d2/parity.db"
BASE="http://127.0.0.1:$(cat "$WORK/port1" 2>/dev/null)"
eq "upload through daemon 1" "$(http POST '/runs?name=one' --data-binary "@$F/match/p4_a.log")" 201
RUN=$(json id)
BASE="http://127.0.0.1:$(cat "$WORK/port2" 2>/dev/null)"
eq "the run through daemon 2" "$(http GET "/runs/$RUN")" 200
eq "its name" "$(json name)" one
for p in $P1 $P2; do
	kill -TERM "$p"
	rc=0
	wait "$p" || rc=$?
	eq "exit status after SIGTERM (pid $p)" "$rc" 0
done
# the migration files (versions need not be contiguous while a branch
# holds a later number than main)
NMIG=$(ls "$PARITY_SRC"/migrations/postgresql/*.sql | wc -l)
VMAX=$(ls "$PARITY_SRC"/migrations/postgresql/*.sql | sed 's|.*/0*\([0-9]*\)_.*|\1|' | sort -n | tail -n 1)
eq "versions recorded" "$(q 'SELECT count(*) FROM schema_migrations')" "$NMIG"
eq "each version once" "$(q 'SELECT count(DISTINCT version) FROM schema_migrations')" "$NMIG"
eq "the newest version" "$(q 'SELECT max(version) FROM schema_migrations')" "$VMAX"
eq "the schema has the last table" "$(q "SELECT to_regclass('train_result_warnings') IS NOT NULL")" t
check "both daemons log the schema version" grep -q "PostgreSQL schema at version $VMAX" "$WORK/e1" "$WORK/e2"

# PARITY_DB (exported by lib.sh): same database, at the same version
"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$WORK/d3" --port-file "$WORK/port3" >/dev/null 2>"$WORK/e3" &
P3=$!
DAEMON_PIDS+=($P3)
check "PARITY_DB: the daemon listens" wait_for test -s "$WORK/port3"
check "PARITY_DB: at version $VMAX" grep -q "PostgreSQL schema at version $VMAX" "$WORK/e3"
eq "PARITY_DB: still each version once" "$(q 'SELECT count(*) FROM schema_migrations')" "$NMIG"
kill -TERM "$P3"
rc=0
wait "$P3" || rc=$?
eq "PARITY_DB: exit status after SIGTERM" "$rc" 0

# usage errors and an unreachable server
rc=0
"$PARITY_BIN" serve --db "$WORK/parity.db" 2>"$WORK/e4" || rc=$?
eq "--db with a path: usage error" "$rc" 2
check "--db with a path: explains" grep -q "takes a postgresql:// URL" "$WORK/e4"
rc=0
"$PARITY_BIN" serve --db "postgresql://parity:s3cret-pw@127.0.0.1:1/none" 2>"$WORK/e5" || rc=$?
eq "unreachable server: exit status" "$rc" 1
check "unreachable server: named" grep -q "connecting to PostgreSQL: .*127.0.0.1.*port 1" "$WORK/e5"
check "unreachable server: no password in the message" bash -c "! grep -q s3cret-pw '$WORK/e5'"
eq "unreachable server: one line" "$(wc -l <"$WORK/e5")" 1
finish
