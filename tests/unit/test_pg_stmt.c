/* test_pg_stmt.c - the statement layer (store/stmt.h) on PostgreSQL: the
 * checks of stmtcheck.h (test_store_stmt.c runs them on SQLite) on a
 * fresh database of the PARITY_TEST_DB server, plus what only
 * PostgreSQL has: a lost connection is an error, not a crash. */
#include "pgtest.h"
#include "stmtcheck.h"

int main(void)
{
	const char *base = pgtest_base_url();
	char url[512], err[512];
	if (pgtest_fresh_db(base, "stmt", url, sizeof url) < 0)
		return 1;
	struct store *st = NULL;
	CHECK(store_open_pg_conn(url, &st, err, sizeof err) == 0);
	if (st) {
		CHECK(st->backend == STORE_BACKEND_PG);
		stmtcheck_run(st);
		/* what the layer wrote is what another connection sees */
		CHECK(pgtest_num(url, "SELECT count(*) FROM stmt_t WHERE d = 'Infinity'") == 1);
		CHECK(pgtest_num(url, "SELECT i FROM stmt_t WHERE s = 'v1'") == INT64_MIN);
		/* the server ends the connection: a step fails with a message */
		pgtest_drop_db(base, "stmt");
		struct store_q *q = store_prep(st, "SELECT 1");
		int rc = q ? store_q_step(q) : STORE_ERROR;
		store_q_done(q);
		CHECK(rc == STORE_ERROR);
		CHECK(store_errmsg(st)[0] != 0);
	}
	store_close(st);
	pgtest_drop_db(base, "stmt");
	return check_report();
}
