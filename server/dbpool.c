/* dbpool.c - SQLite connections for the daemon's threads.  A connection
 * is never shared: a thread takes one for a request or a job and returns
 * it.  Idle connections are kept (up to a bound) so statements stay
 * prepared.  Every acquire first checks (one stat()) that <data>/parity.db
 * is still the file opened at start-up: after the database files were
 * deleted or replaced, a commit would land in a file nobody will read
 * again, so no connection is handed out until the daemon restarts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "srv.h"
#include "store.h"

#define POOL_KEEP 32

int srv_db_pool_pin(struct srv_dbpool *pool, struct store *db)
{
	struct stat st;
	/* the path names the file db has open, so its identity is db's */
	if (store_file_replaced(db) || stat(pool->path, &st) < 0)
		return -1;
	pool->dev = st.st_dev;
	pool->ino = st.st_ino;
	pool->pinned = 1;
	return 0;
}

int srv_db_pool_check(struct srv_dbpool *pool, const char **code, char *why, size_t cap)
{
	struct stat st;
	const char *c = NULL;
	if (!pool->pinned)
		return 0;
	if (stat(pool->path, &st) < 0) {
		c = "database_missing";
		snprintf(why, cap,
		         "the database file %s is gone (%s): the daemon stores nothing more; "
		         "restart it (after restoring the database from a backup)",
		         pool->path, strerror(errno));
	} else if (st.st_dev != pool->dev || st.st_ino != pool->ino) {
		c = "database_replaced";
		snprintf(why, cap,
		         "the database file %s is not the one the daemon opened (it was replaced): "
		         "the daemon stores nothing more; restart it",
		         pool->path);
	}
	if (!c)
		return 0;
	if (code)
		*code = c;
	return -1;
}

/* The pinned file is gone or replaced: log it once. */
static int pool_lost(struct srv_dbpool *pool)
{
	char why[4600];
	if (srv_db_pool_check(pool, NULL, why, sizeof why) == 0)
		return 0;
	pthread_mutex_lock(&pool->mu);
	int first = !pool->lost_logged;
	pool->lost_logged = 1;
	pthread_mutex_unlock(&pool->mu);
	if (first)
		srv_log("%s", why);
	return 1;
}

struct store *srv_db_acquire(struct srv *s)
{
	struct srv_dbpool *pool = &s->db;
	struct store *db = NULL;
	if (pool_lost(pool))
		return NULL;
	pthread_mutex_lock(&pool->mu);
	if (pool->n_free)
		db = pool->free_conns[--pool->n_free];
	pthread_mutex_unlock(&pool->mu);
	if (db)
		return db;
	char err[512];
	/* never create it here (serve.c did at start-up): a file deleted
	 * since must not come back empty */
	if (store_open_existing(pool->path, &db, err, sizeof err) < 0) {
		srv_log("cannot open database %s: %s", pool->path, err);
		return NULL;
	}
	/* the file opened is the path's, and the path's is the pinned one */
	if (store_file_replaced(db) || pool_lost(pool)) {
		store_close(db);
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
