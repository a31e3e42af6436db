/* tx.c - transactions on a PostgreSQL connection: BEGIN / COMMIT /
 * ROLLBACK (READ COMMITTED, the server's default; what a read-then-write
 * must lock is in store/BACKENDS.md section 1). */
#include "pg_int.h"

int store_pg_tx_begin(struct store_pg *pg)
{
	return pg_exec(pg, "BEGIN", "starting a transaction");
}

int store_pg_tx_commit(struct store_pg *pg)
{
	return pg_exec(pg, "COMMIT", "committing");
}

int store_pg_tx_rollback(struct store_pg *pg)
{
	return pg_exec(pg, "ROLLBACK", "rolling back");
}
