# tests/bench/pglib.sh - the PostgreSQL set-up the store benchmarks share
# (sourced by pg_ingest.sh and pg_replay.sh).
# pg_bench_init NAME TMPL: W = a new temp dir (mktemp TMPL), removed on
# exit; BASE = the server of PARITY_TEST_DB, or else a throwaway cluster
# started in $W/pg (tests/pg/cluster.sh, stopped on exit); URL = a fresh
# database NAME (UTF8, C locale) on it, dropped on exit.
pg_bench_init() {
	local name=$1 here
	here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	PG_BENCH_DB=$name
	PG_BENCH_CLUSTER_SH=$here/../pg/cluster.sh
	W=$(mktemp -d "$2")
	CLUSTER=
	trap pg_bench_cleanup EXIT
	BASE=${PARITY_TEST_DB:-}
	if [ -z "$BASE" ]; then
		CLUSTER=$W/pg
		BASE=$("$PG_BENCH_CLUSTER_SH" start "$CLUSTER" | tail -1)
	fi
	PGOPTIONS='-c client_min_messages=warning' psql -q "$BASE" \
		-c "DROP DATABASE IF EXISTS $name" \
		-c "CREATE DATABASE $name TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null
	# the same URL with the database replaced (postgresql://auth/db?params)
	URL=$(python3 -c '
import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$BASE" "$name")
}
pg_bench_cleanup() {
	if [ -n "$CLUSTER" ]; then
		"$PG_BENCH_CLUSTER_SH" stop "$CLUSTER" >/dev/null 2>&1
	elif [ -n "${BASE:-}" ]; then
		psql -q "$BASE" -c "DROP DATABASE IF EXISTS $PG_BENCH_DB" >/dev/null 2>&1
	fi
	rm -rf "$W"
}
