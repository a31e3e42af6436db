/* handle.c - which backend a struct store is on, and its PostgreSQL
 * connection for the store_pg_* calls (the raw-log store and the bulk
 * entries run them in the same transaction as the verbs of store.h). */
#include <stdio.h>

#include "store_int.h"

int store_is_pg(const struct store *st)
{
	return st && st->backend == STORE_BACKEND_PG;
}

struct store_pg *store_pg_of(struct store *st)
{
	return store_is_pg(st) ? st->pg : NULL;
}

int store_pg_error(struct store *st, int rc)
{
	if (rc < 0 && store_is_pg(st))
		snprintf(st->errmsg, sizeof st->errmsg, "%s", store_pg_errmsg(st->pg));
	return rc;
}
