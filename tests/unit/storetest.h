/* storetest.h - the store unit tests on either backend.  A test_store_*.c
 * that includes this header is registered twice by tests/CMakeLists.txt:
 * unit.test_store_x (SQLite: a file in a temp dir) and unit.pg.test_store_x
 * (PARITY_STORE_BACKEND=pg: a fresh PostgreSQL database on the server of
 * PARITY_TEST_DB, dropped at the end; without PARITY_TEST_DB ctest skips
 * it outside CI and fails it in CI, see pgtest.h).  The same checks run
 * on both: behaviour is the contract of store.h, not of one engine.
 * Usage:
 *   char target[512];
 *   CHECK_INT(storetest_target("runs", target, sizeof target), 0);
 *   CHECK_INT(store_open(target, &st, err, sizeof err), 0);   (as often as needed)
 *   ...
 *   storetest_cleanup("runs");   (after every handle is closed)
 * Header-only: each test is one translation unit. */
#ifndef PARITY_TEST_STORETEST_H
#define PARITY_TEST_STORETEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgtest.h"
#include "store.h"

static char storetest_dir[256];

/* 1 when this run is the PostgreSQL variant (unit.pg.test_store_*). */
static inline int storetest_is_pg(void)
{
	const char *b = getenv("PARITY_STORE_BACKEND");
	return b && strcmp(b, "pg") == 0;
}

/* The store_open target of this test's fresh, empty database into out
 * (tag: a short [a-z0-9_] name unique to the test): a postgresql:// URL,
 * or a SQLite file path in a new temp dir.  0, or -1 (printed). */
static inline int storetest_target(const char *tag, char *out, size_t cap)
{
	if (storetest_is_pg())
		return pgtest_fresh_db(pgtest_base_url(), tag, out, cap);
	if (!storetest_dir[0]) {
		snprintf(storetest_dir, sizeof storetest_dir, "/tmp/parity_%s_XXXXXX", tag);
		if (!mkdtemp(storetest_dir)) {
			perror("mkdtemp");
			storetest_dir[0] = 0;
			return -1;
		}
	}
	int n = snprintf(out, cap, "%s/parity.db", storetest_dir);
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Remove what storetest_target made for tag (every handle closed). */
static inline void storetest_cleanup(const char *tag)
{
	if (storetest_is_pg()) {
		pgtest_drop_db(pgtest_base_url(), tag);
		return;
	}
	if (!storetest_dir[0])
		return;
	char cmd[320];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", storetest_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "storetest: cleanup of %s failed\n", storetest_dir);
	storetest_dir[0] = 0;
}

#endif
