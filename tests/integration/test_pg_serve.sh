#!/usr/bin/env bash
# test_pg_serve.sh - `parity serve --db postgresql://...` (issue 17, in
# progress) against the server of PARITY_TEST_DB: the daemon applies the
# PostgreSQL migrations (two daemons started at once: each version once)
# and then stops with a clear error, exit 1, serving nothing; PARITY_DB
# does the same; a non-URL --db is a usage error (exit 2); an unreachable
# server is an error that names it, without the password.
# Without PARITY_TEST_DB the test fails (PARITY_ALLOW_SKIP=1 skips it).
source "$(dirname "$0")/lib.sh"
need psql
case "${PARITY_TEST_DB:-}" in
postgresql://* | postgres://*) ;;
*) skip_or_fail "PARITY_TEST_DB is not a postgresql:// URL (tests/pg/cluster.sh start gives one)" ;;
esac

# a fresh database next to the test server's: same URL, other name
DBNAME=parity_it_serve_$$
URL=$(python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
	"$PARITY_TEST_DB" "$DBNAME")
psql -X -q "$PARITY_TEST_DB" -c "DROP DATABASE IF EXISTS $DBNAME" -c "CREATE DATABASE $DBNAME" 2>/dev/null
trap 'psql -X -q "$PARITY_TEST_DB" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" 2>/dev/null; cleanup' EXIT
q() { psql -X -A -t -q "$URL" -c "$1"; }

# two daemons at once on the fresh database
"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$WORK/d1" --db "$URL" >"$WORK/o1" 2>"$WORK/e1" &
P1=$!
"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$WORK/d2" --db "$URL" >"$WORK/o2" 2>"$WORK/e2" &
P2=$!
rc1=0 rc2=0
wait $P1 || rc1=$?
wait $P2 || rc2=$?
eq "first daemon exit status" "$rc1" 1
eq "second daemon exit status" "$rc2" 1
for e in "$WORK/e1" "$WORK/e2"; do
	check "says what is missing ($e)" \
		grep -q "PostgreSQL store: not yet implemented beyond migrations (issue 17)" "$e"
done
check "nothing listened (no PORT= line)" test ! -s "$WORK/o1" -a ! -s "$WORK/o2"
check "no SQLite data dir was made" test ! -e "$WORK/d1" -a ! -e "$WORK/d2"
# the migration files (versions need not be contiguous while a branch
# holds a later number than main)
NMIG=$(ls "$PARITY_SRC"/migrations/postgresql/*.sql | wc -l)
VMAX=$(ls "$PARITY_SRC"/migrations/postgresql/*.sql | sed 's|.*/0*\([0-9]*\)_.*|\1|' | sort -n | tail -n 1)
eq "versions recorded" "$(q 'SELECT count(*) FROM schema_migrations')" "$NMIG"
eq "each version once" "$(q 'SELECT count(DISTINCT version) FROM schema_migrations')" "$NMIG"
eq "the newest version" "$(q 'SELECT max(version) FROM schema_migrations')" "$VMAX"
applied=$(cat "$WORK/e1" "$WORK/e2" | sed -n 's/.*(\([0-9]*\) migrations applied now).*/\1/p' |
	awk '{ n += $1; k++ } END { print (k == 2 ? n : "lines: " k) }')
eq "the two daemons applied $NMIG between them" "$applied" "$NMIG"
eq "the schema has the last table" "$(q "SELECT to_regclass('train_result_warnings') IS NOT NULL")" t

# PARITY_DB: same path, nothing left to apply
rc=0
PARITY_DB=$URL "$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$WORK/d3" 2>"$WORK/e3" || rc=$?
eq "PARITY_DB exit status" "$rc" 1
check "PARITY_DB: at version $VMAX, none applied" grep -q "version $VMAX (0 migrations applied now)" "$WORK/e3"

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
