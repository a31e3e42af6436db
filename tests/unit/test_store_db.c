/* test_store_db.c - opening the store: migrations apply in order and are
 * recorded, a restart is a no-op, a database newer than the binary is
 * refused, several threads opening one new file at once all succeed, and
 * transactions (rollback leaves nothing, commit keeps). */
#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/parity-store-db-______";

static int count_rows(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

static int exec_raw(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	int rc = sqlite3_open(path, &db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
}

struct opener {
	const char *path;
	int rc;
};

static void *open_thread(void *p)
{
	struct opener *o = p;
	struct store *st = NULL;
	char err[256];
	o->rc = store_open(o->path, &st, err, sizeof err);
	if (o->rc != 0)
		fprintf(stderr, "thread open: %s\n", err);
	store_close(st);
	return NULL;
}

int main(void)
{
	char path[512], err[512];
	struct store *st = NULL;
	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);

	/* fresh open applies every migration */
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	CHECK(st != NULL);
	int version = store_schema_version(st);
	CHECK(version >= 2);
	store_close(st);
	st = NULL;
	CHECK_INT(count_rows(path, "SELECT max(version) FROM schema_migrations"), version);
	CHECK_INT(count_rows(path, "SELECT min(version) FROM schema_migrations"), 1);
	CHECK_INT(count_rows(path, "PRAGMA page_size"), 16384);
	CHECK_INT(count_rows(path,
	                     "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"),
	          1);

	/* restart: no-op (still the same rows, same version) */
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	CHECK_INT(store_schema_version(st), version);
	store_close(st);
	st = NULL;
	CHECK_INT(count_rows(path, "SELECT max(version) FROM schema_migrations"), version);

	/* transactions: rollback leaves nothing, commit keeps */
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	int64_t run_id = 0, log_id = 0;
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_create(st, "tx", "activation", NULL, &run_id), 0);
	CHECK_INT(store_log_create(st, run_id, 0, "a.log", 10, "ab", &log_id), 0);
	CHECK_INT(store_tx_rollback(st), 0);
	CHECK_INT(store_run_exists(st, run_id), 0);
	CHECK_INT(store_tx_rollback(st), 0); /* nothing open: fine */
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_create(st, "tx", "activation", NULL, &run_id), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_run_exists(st, run_id), 1);
	CHECK_INT(store_run_create(st, "bad", "other", NULL, &run_id), STORE_INVALID);
	store_close(st);
	st = NULL;
	CHECK_INT(count_rows(path, "SELECT count(*) FROM runs"), 1);

	/* a database newer than this binary is refused with a clear message */
	CHECK_INT(exec_raw(path, "PRAGMA user_version=999"), SQLITE_OK);
	err[0] = 0;
	CHECK_INT(store_open(path, &st, err, sizeof err), STORE_TOO_NEW);
	CHECK(st == NULL);
	CHECK(strstr(err, "newer") != NULL);
	CHECK(strstr(err, "999") != NULL);
	printf("refused: %s\n", err);

	/* several threads opening one new file at once */
	char path2[512];
	snprintf(path2, sizeof path2, "%s/race.db", dir);
	enum { NT = 6 };
	pthread_t th[NT];
	struct opener op[NT];
	for (int i = 0; i < NT; i++) {
		op[i].path = path2;
		op[i].rc = -100;
		pthread_create(&th[i], NULL, open_thread, &op[i]);
	}
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(op[i].rc, 0);
	}
	CHECK_INT(count_rows(path2, "SELECT max(version) FROM schema_migrations"), version);

	/* unopenable path */
	CHECK(store_open("/nonexistent-dir/x/y.db", &st, err, sizeof err) < 0);
	CHECK(st == NULL);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup failed\n");
	return check_report();
}
