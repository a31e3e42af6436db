#!/usr/bin/env bash
# tests/bench/pg_ingest.sh [BUILD_DIR] - ingest through PostgreSQL versus
# SQLite (issue 17; target: PostgreSQL ingest >= 30 MB/s).
# Generates the ~30 MB `gen_actlog.py --layers 2000` log that
# tests/bench/ingest.sh uses, then runs bench_pg_ingest: per round the log
# is parsed and its entries stored in one transaction, on SQLite with
# store_entry_add and on PostgreSQL with COPY (store/pg/load.c), and the
# raw log is written as a PostgreSQL blob (store/pg/blobs.c).  Prints
# MB/s per round, the medians and the PostgreSQL/SQLite ratio.
# PostgreSQL: the server of PARITY_TEST_DB (a database parity_bench is
# created there and dropped), or else a throwaway cluster started (and
# stopped) with tests/pg/cluster.sh.  ROUNDS (default 3) from the env.
# Extra: PG_BENCH_WITH_FK=1 puts back the entries -> logs foreign key that
# migrations/postgresql/011 replaced, to measure its cost (store/DESIGN.md,
# "the entries foreign key dropped").
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../build}
BUILD=$(cd "$BUILD" && pwd)
source "$HERE/pglib.sh"
pg_bench_init parity_bench /tmp/parity-pgbench.XXXXXX
python3 "$HERE/../tools/gen_actlog.py" --layers 2000 --out-a "$W/a.log" --out-b "$W/b.log" >/dev/null
mkdir -p "$W/lite"
echo "== entry ingest, SQLite vs PostgreSQL (store only: no HTTP, no sha256)"
gzip -1 -n -c "$W/a.log" >"$W/a.log.gz"
"$BUILD/tests/bench/bench_pg_ingest" "$W/a.log" "$URL" "$W/lite" "${ROUNDS:-3}" "$W/a.log.gz"
echo "  (load average: $(cut -d' ' -f1-3 /proc/loadavg); 2 cores shared: compare ratios, not absolutes)"
