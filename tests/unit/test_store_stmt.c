/* test_store_stmt.c - the statement layer (store/stmt.h) on SQLite, and
 * its ?-to-$n translation (stmtcheck.h; test_pg_stmt.c runs the same
 * checks on PostgreSQL). */
#include <stdlib.h>
#include <unistd.h>

#include "stmtcheck.h"

static char dir[] = "/tmp/parity-store-stmt-XXXXXX";

int main(void)
{
	char path[512], err[512];
	struct store *st = NULL;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK(store_open(path, &st, err, sizeof err) == 0);
	stmtcheck_translation();
	if (st) {
		CHECK(st->backend == STORE_BACKEND_SQLITE);
		stmtcheck_run(st);
		stmtcheck_stream(st);
	}
	store_close(st);
	const char *suffix[] = {"", "-wal", "-shm"};
	for (int k = 0; k < 3; k++) {
		char f[600];
		snprintf(f, sizeof f, "%s%s", path, suffix[k]);
		unlink(f);
	}
	rmdir(dir);
	return check_report();
}
