/* test_store_rawclock.c - what the raw-file rule (server/ingest/blobs.c) needs
 * from the store: the raw-file clock (born at creation, no upload yet,
 * raised and never lowered; migration 004 on a database that already held
 * runs), opening an existing database without ever creating one, telling
 * that the file at the path is no longer the open one, and the lock-only
 * writability check (never waits, a held lock counts as writable). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "undo_008.h"
#include "store.h"

static char dir[] = "/tmp/parity-store-rawclock-______";

static int exec_raw(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* comparison_rows and comparison_steps as migration 002 made them (what
 * 005 converts). */
/* Undo migration 006 (its columns come back when it runs again). */
#define UNDO_006                                                                                   \
	UNDO_008 "ALTER TABLE logs DROP COLUMN source; ALTER TABLE step_metrics DROP COLUMN prec;"
/* Undo migrations 010, 009 and 007 (tables only). */
#define UNDO_007                                                                                   \
	CHECK_DROP_010 CHECK_DROP_009                                                              \
	        "DROP TABLE act_results; DROP TABLE act_result_policy_ops; DROP TABLE "            \
	        "act_result_ranks; "                                                               \
	        "DROP TABLE act_result_reasons; DROP TABLE act_result_excluded; "                  \
	        "DROP TABLE act_result_unused; DROP TABLE act_result_warnings;"

#define V2_ROWS                                                                                    \
	"DROP TABLE comparison_rows; CREATE TABLE comparison_rows (comparison_id INTEGER NOT "     \
	"NULL REFERENCES comparisons(id) ON DELETE CASCADE, rank INTEGER NOT NULL, idx INTEGER "   \
	"NOT NULL, status TEXT NOT NULL, method TEXT, phase TEXT NOT NULL, origin INTEGER NOT "    \
	"NULL, a_key TEXT, b_key TEXT, max_distance REAL, row TEXT NOT NULL, PRIMARY KEY "         \
	"(comparison_id, rank, idx)) WITHOUT ROWID; DROP TABLE comparison_step_cells; DROP "       \
	"TABLE comparison_steps; CREATE TABLE comparison_steps (comparison_id INTEGER NOT NULL "   \
	"REFERENCES comparisons(id) ON DELETE CASCADE, rank INTEGER NOT NULL, step INTEGER NOT "   \
	"NULL, row TEXT NOT NULL, PRIMARY KEY (comparison_id, rank, step)) WITHOUT ROWID;"

int main(void)
{
	char path[512], other[512], err[512];
	struct store *st = NULL, *st2 = NULL;
	int64_t born = -5, stored = -5;
	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	snprintf(other, sizeof other, "%s/other.db", dir);

	/* store_open_existing never creates a database */
	CHECK(store_open_existing(path, &st, err, sizeof err) < 0);
	CHECK(st == NULL);
	CHECK(access(path, F_OK) != 0);

	/* a new database: born now, no upload recorded */
	int64_t before = now_ms();
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	int64_t after = now_ms();
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK(born >= before - 5 && born <= after + 5);
	CHECK_INT(stored, -1);
	/* raised, never lowered */
	CHECK_INT(store_raw_clock_stored(st, 5000), 0);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK_INT(stored, 5000);
	CHECK_INT(store_raw_clock_stored(st, 4000), 0);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK_INT(stored, 5000);
	CHECK_INT(store_raw_clock_stored(st, 6000), 0);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK_INT(stored, 6000);
	/* and transactional: a rolled-back upload does not raise it */
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_raw_clock_stored(st, 9000), 0);
	CHECK_INT(store_tx_rollback(st), 0);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK_INT(stored, 6000);

	/* an existing database opens */
	CHECK_INT(store_open_existing(path, &st2, err, sizeof err), 0);

	/* writable: free lock, held by another connection (no wait), own tx */
	CHECK_INT(store_check_writable(st), 0);
	CHECK_INT(store_tx_begin(st2), 0);
	time_t t0 = time(NULL);
	CHECK_INT(store_check_writable(st), 0);
	CHECK(time(NULL) - t0 <= 1);
	CHECK_INT(store_check_writable(st2), 0);
	CHECK_INT(store_tx_rollback(st2), 0);
	store_close(st2);
	st2 = NULL;

	/* the file at the path: still the open one, replaced, deleted */
	CHECK_INT(store_file_replaced(st), 0);
	CHECK_INT(exec_raw(other, "CREATE TABLE t(x)"), SQLITE_OK);
	CHECK_INT(store_open_existing(other, &st2, err, sizeof err), 0);
	CHECK_INT(store_file_replaced(st2), 0);
	CHECK_INT(rename(path, other), 0); /* other's path now names st's file */
	CHECK_INT(store_file_replaced(st2), 1);
	CHECK_INT(store_file_replaced(st), 1); /* st's path is gone */
	store_close(st2);
	st2 = NULL;
	CHECK_INT(rename(other, path), 0);
	CHECK_INT(store_file_replaced(st), 0);
	store_close(st);
	st = NULL;

	/* migration 004 on a database that held runs: born unknown (0), the
	 * newest run's second stands in for the last upload (back to version
	 * 3: 005's typed rows table goes back to 002's shape too) */
	CHECK_INT(exec_raw(path, "DROP TABLE raw_clock; DELETE FROM schema_migrations WHERE "
	                         "version >= 4; PRAGMA user_version=3;" UNDO_007 UNDO_006 "" V2_ROWS
	                         "INSERT INTO runs(name, kind, created_at) VALUES "
	                         "('a', 'training', '2020-01-01T00:00:00Z'), "
	                         "('b', 'training', '2020-01-01T00:00:07Z')"),
	          SQLITE_OK);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK_INT(born, 0);
	CHECK_INT(stored, 1577836807999LL);
	store_close(st);
	st = NULL;
	/* ... and on one without runs: born now, no upload */
	CHECK_INT(exec_raw(path, "DROP TABLE raw_clock; DELETE FROM schema_migrations WHERE "
	                         "version >= 4; PRAGMA user_version=3;" UNDO_007 UNDO_006
	                         " DELETE FROM runs;" V2_ROWS),
	          SQLITE_OK);
	before = now_ms();
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK(born >= before - 5 && born <= now_ms() + 5);
	CHECK_INT(stored, -1);
	/* a database that lost the record reads as "no upload" */
	CHECK_INT(exec_raw(path, "DELETE FROM raw_clock"), SQLITE_OK);
	CHECK_INT(store_raw_clock(st, &born, &stored), 0);
	CHECK_INT(born, 0);
	CHECK_INT(stored, -1);
	store_close(st);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup failed\n");
	return check_report();
}
