#!/usr/bin/env bash
# tests/bench/pg_replay.sh [BUILD_DIR] - the job replay's memory and time on
# SQLite and PostgreSQL (issue 17: store_actlog_load streams the entries,
# store_q_stream).  Generates the ~30 MB `gen_actlog.py --layers 2000` log,
# stores its entries on each backend, then loads them back in a fresh
# process (bench_pg_replay load) and prints the time and the RSS growth of
# the load: on PostgreSQL it should be close to SQLite's (the in-memory log
# itself), not that plus the whole result set.
# PostgreSQL: the server of PARITY_TEST_DB (a database parity_replay is
# created there and dropped), or else a throwaway cluster (tests/pg/cluster.sh).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../build}
BUILD=$(cd "$BUILD" && pwd)
BIN=$BUILD/tests/bench/bench_pg_replay
source "$HERE/pglib.sh"
pg_bench_init parity_replay /tmp/parity-pgreplay.XXXXXX
python3 "$HERE/../tools/gen_actlog.py" --layers 2000 --out-a "$W/a.log" --out-b "$W/b.log" >/dev/null
echo "log: $(stat -c %s "$W/a.log") bytes"
for target in "$W/lite.db" "$URL"; do
	name=SQLite
	case $target in postgresql://*) name=PostgreSQL ;; esac
	id=$("$BIN" store "$target" "$W/a.log" | awk '/^log_id/ {print $2}')
	echo "$name: $("$BIN" load "$target" "$id")"
done
