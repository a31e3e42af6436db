#!/usr/bin/env bash
# test_pg_cluster.sh - tests/pg/cluster.sh, the throwaway PostgreSQL the
# test command starts: `start DIR` prints a working postgresql:// URL
# (loopback only, socket inside DIR, collation C, a random password),
# `url` prints it again, `start` refuses a non-empty DIR, `stop` refuses a
# directory it did not make, and `stop` ends the server and removes DIR
# (twice is fine).
source "$(dirname "$0")/lib.sh"
need psql python3
CL="$PARITY_SRC/tests/pg/cluster.sh"
D=$(mktemp -d /tmp/parity-pgc.XXXXXX)
trap 'bash "$CL" stop "$D" >/dev/null 2>&1; cleanup' EXIT

URL=$(bash "$CL" start "$D")
check "start prints a postgresql:// URL with a random password on loopback" \
	bash -c "[[ '$URL' =~ ^postgresql://parity:[0-9a-f]{32}@127\.0\.0\.1:[0-9]+/parity$ ]]"
eq "url prints the same URL" "$(bash "$CL" url "$D")" "$URL"
q() { psql -X -A -t -q "$URL" -c "$1"; }
eq "connects as parity" "$(q 'SELECT current_user')" parity
eq "superuser (tests create databases)" "$(q "SELECT rolsuper FROM pg_roles WHERE rolname = current_user")" t
eq "loopback only" "$(q 'SHOW listen_addresses')" 127.0.0.1
eq "unix socket inside the dir" "$(q 'SHOW unix_socket_directories')" "$D/sock"
eq "bytewise collation" "$(q "SELECT datcollate FROM pg_database WHERE datname = 'parity'")" C
eq "UTF8" "$(q 'SHOW server_encoding')" UTF8
PW=${URL#postgresql://parity:}
PW=${PW%%@*}
BAD=${URL/$PW/0000}
check "a wrong password is refused" bash -c "! psql -X -q '$BAD' -c 'SELECT 1' >/dev/null 2>&1"
eq "url file is private" "$(stat -c %a "$D/url")" 600

rc=0
bash "$CL" start "$D" >/dev/null 2>"$WORK/err" || rc=$?
eq "start into a non-empty dir fails" "$rc" 1
check "and says why" grep -q "not empty" "$WORK/err"
eq "the first cluster still answers" "$(q 'SELECT 1')" 1

mkdir "$WORK/other"
touch "$WORK/other/keep"
rc=0
bash "$CL" stop "$WORK/other" 2>"$WORK/err" || rc=$?
eq "stop refuses a dir it did not make" "$rc" 1
check "and leaves it alone" test -f "$WORK/other/keep"

check "stop succeeds" bash "$CL" stop "$D"
check "stop removed the dir" test ! -e "$D"
check "the server is gone" bash -c "! psql -X -q '$URL' -c 'SELECT 1' >/dev/null 2>&1"
check "stop again is fine" bash "$CL" stop "$D"
finish
