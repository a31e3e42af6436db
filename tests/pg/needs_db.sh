#!/bin/sh
# needs_db.sh COMMAND [ARG...] - run a test that needs PostgreSQL: ctest
# wraps every such test in this (tests/CMakeLists.txt: unit.test_pg_*, the
# unit tests that include pgtest.h, unit.pg.*, integration.pg.* and the
# integration tests that use PARITY_TEST_DB or set PARITY_BACKEND=pg).
#   PARITY_TEST_DB set:        run the test (it checks the URL itself);
#   unset, CI is not "true":   SKIP, exit 77 (ctest's SKIP_RETURN_CODE:
#                              "Skipped" in its summary), so that
#                              `ctest -R NAME` is safe on a machine without
#                              a cluster;
#   unset, CI=true:            FAIL, exit 1: CI runs every PostgreSQL test.
# deploy/dev.sh test starts a throwaway cluster and exports PARITY_TEST_DB;
# for a focused run: export PARITY_TEST_DB=$(tests/pg/cluster.sh start DIR | tail -1)
if [ -n "${PARITY_TEST_DB:-}" ]; then
	exec "$@"
fi
if [ "${CI:-}" = true ]; then
	echo "FAIL: PARITY_TEST_DB not set, and CI=true: CI runs every PostgreSQL test (deploy/dev.sh test starts a cluster)" >&2
	exit 1
fi
echo "SKIP: PARITY_TEST_DB not set: skipped; deploy/dev.sh test starts a cluster (or export PARITY_TEST_DB=\$(tests/pg/cluster.sh start DIR | tail -1))"
exit 77
