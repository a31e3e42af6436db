/* dbpool.c - SQLite connections for the daemon's threads.  A connection
 * is never shared: a thread takes one for a request or a job and returns
 * it.  Idle connections are kept (up to a bound) so statements stay
 * prepared. */
#include <stdlib.h>

#include "srv.h"
#include "store.h"

#define POOL_KEEP 32

struct store *srv_db_acquire(struct srv *s)
{
	struct srv_dbpool *pool = &s->db;
	struct store *db = NULL;
	pthread_mutex_lock(&pool->mu);
	if (pool->n_free)
		db = pool->free_conns[--pool->n_free];
	pthread_mutex_unlock(&pool->mu);
	if (db)
		return db;
	char err[512];
	if (store_open(pool->path, &db, err, sizeof err) < 0) {
		srv_log("cannot open database %s: %s", pool->path, err);
		return NULL;
	}
	return db;
}

void srv_db_release(struct srv *s, struct store *db)
{
	struct srv_dbpool *pool = &s->db;
	if (!db)
		return;
	pthread_mutex_lock(&pool->mu);
	if (pool->n_free < POOL_KEEP) {
		if (pool->n_free == pool->cap_free) {
			size_t cap = pool->cap_free ? pool->cap_free * 2 : 8;
			struct store **p = realloc(pool->free_conns, cap * sizeof *p);
			if (p) {
				pool->free_conns = p;
				pool->cap_free = cap;
			}
		}
		if (pool->n_free < pool->cap_free) {
			pool->free_conns[pool->n_free++] = db;
			db = NULL;
		}
	}
	pthread_mutex_unlock(&pool->mu);
	if (db)
		store_close(db);
}

void srv_db_pool_destroy(struct srv_dbpool *pool)
{
	for (size_t i = 0; i < pool->n_free; i++)
		store_close(pool->free_conns[i]);
	free(pool->free_conns);
	pool->free_conns = NULL;
	pool->n_free = pool->cap_free = 0;
}
