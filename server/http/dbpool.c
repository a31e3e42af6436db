/* dbpool.c - database connections for the daemon's threads (SQLite, or
 * PostgreSQL when the path is a postgresql:// URL: then nothing is pinned,
 * there is no checkpointer, and each connection carries the daemon's
 * owner name for job and delivery claims).  A connection
 * is never shared: a thread takes one for a request or a job and returns
 * it.  The number of open connections (lent out + idle) is bounded by
 * --max-db-connections; a thread that finds them all lent out waits a
 * little for one to come back, then gives up (a request answers 503 with
 * Retry-After).  Idle connections are kept up to a smaller bound so
 * statements stay prepared without holding file descriptors for a burst
 * that is over.  Every acquire first checks (one stat()) that
 * <data>/parity.db is still the file opened at start-up: after the
 * database files were deleted or replaced, a commit would land in a file
 * nobody will read again, so no connection is handed out until the daemon
 * restarts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "http.h"

/* Idle connections kept at most (never more than the pool's bound). */
#define POOL_KEEP_IDLE 16

int srv_db_pool_init(struct srv_dbpool *pool, const char *path, size_t max_open)
{
	pthread_condattr_t ca;
	snprintf(pool->path, sizeof pool->path, "%s", path);
	pool->max_open = max_open;
	pool->max_idle = max_open && max_open < POOL_KEEP_IDLE ? max_open : POOL_KEEP_IDLE;
	atomic_init(&pool->write_waits, 0);
	if (pthread_mutex_init(&pool->mu, NULL) != 0)
		return -1;
	if (pthread_condattr_init(&ca) != 0)
		return -1;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int rc = pthread_cond_init(&pool->returned, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0)
		return -1;
	pool->ready = 1;
	return 0;
}

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

/* store_on_busy's hook of every pooled connection. */
static void write_wait(void *ctx)
{
	struct srv_dbpool *pool = ctx;
	atomic_fetch_add(&pool->write_waits, 1);
}

uint64_t srv_db_write_waits(struct srv_dbpool *pool)
{
	return atomic_load(&pool->write_waits);
}

/* ---- the checkpointer ------------------------------------------------------ */

/* A commit left the WAL due (called inside that commit: only signals). */
static void ckpt_signal(void *ctx)
{
	struct srv_dbpool *pool = ctx;
	pthread_mutex_lock(&pool->mu);
	if (pool->ckpt_running && !pool->ckpt_stop) {
		pool->ckpt_due = 1;
		pthread_cond_signal(&pool->ckpt_wake);
	}
	pthread_mutex_unlock(&pool->mu);
}

/* PASSIVE checkpoints (they never wait for a lock, so writers are never
 * held up) on a connection of its own, not counted in the pool. */
static void *ckpt_main(void *arg)
{
	struct srv_dbpool *pool = arg;
	struct store *db = NULL;
	pthread_mutex_lock(&pool->mu);
	for (;;) {
		while (!pool->ckpt_due && !pool->ckpt_stop)
			pthread_cond_wait(&pool->ckpt_wake, &pool->mu);
		if (pool->ckpt_stop)
			break;
		pool->ckpt_due = 0;
		pthread_mutex_unlock(&pool->mu);
		char err[512];
		if (!db && store_open_existing(pool->path, &db, err, sizeof err) < 0) {
			srv_log("checkpointer: cannot open %s: %s", pool->path, err);
			db = NULL;
		}
		if (db && store_checkpoint_passive(db) < 0)
			srv_log("checkpointer: %s", store_errmsg(db));
		pthread_mutex_lock(&pool->mu);
	}
	pthread_mutex_unlock(&pool->mu);
	store_close(db);
	return NULL;
}

int srv_db_ckpt_start(struct srv_dbpool *pool)
{
	if (!pool->ckpt_cond_live) {
		if (pthread_cond_init(&pool->ckpt_wake, NULL) != 0)
			return -1;
		pool->ckpt_cond_live = 1;
	}
	pool->ckpt_due = pool->ckpt_stop = 0;
	if (pthread_create(&pool->ckpt_thread, NULL, ckpt_main, pool) != 0)
		return -1;
	pthread_mutex_lock(&pool->mu);
	pool->ckpt_running = 1;
	pthread_mutex_unlock(&pool->mu);
	return 0;
}

void srv_db_ckpt_stop(struct srv_dbpool *pool)
{
	if (!pool->ckpt_running)
		return;
	pthread_mutex_lock(&pool->mu);
	pool->ckpt_stop = 1;
	pthread_cond_signal(&pool->ckpt_wake);
	pthread_mutex_unlock(&pool->mu);
	pthread_join(pool->ckpt_thread, NULL);
	/* connections still deferring signal nobody now (ckpt_stop): their WAL
	 * is folded in by the shutdown's checkpoint, or by the store's
	 * backstop; the condition goes with the pool (srv_db_pool_destroy) */
	pthread_mutex_lock(&pool->mu);
	pool->ckpt_running = 0;
	pthread_mutex_unlock(&pool->mu);
}

struct store *srv_db_acquire_wait(struct srv *s, int64_t wait_ms, int *busy)
{
	struct srv_dbpool *pool = &s->db;
	struct store *db = NULL;
	int open_new = 0;
	struct timespec until = srv_deadline_in_ms(wait_ms > 0 ? wait_ms : 0);
	if (busy)
		*busy = 0;
	if (pool_lost(pool))
		return NULL;
	pthread_mutex_lock(&pool->mu);
	for (;;) {
		if (pool->n_free) {
			db = pool->free_conns[--pool->n_free];
			break;
		}
		if (!pool->max_open || pool->n_open < pool->max_open) {
			pool->n_open++; /* reserve the slot; open outside the lock */
			open_new = 1;
			break;
		}
		if (wait_ms <= 0 ||
		    pthread_cond_timedwait(&pool->returned, &pool->mu, &until) == ETIMEDOUT) {
			/* one last look: a release may have raced the timeout */
			if (pool->n_free) {
				db = pool->free_conns[--pool->n_free];
				break;
			}
			if (pool->n_open < pool->max_open) {
				pool->n_open++;
				open_new = 1;
				break;
			}
			pool->n_refused++;
			pthread_mutex_unlock(&pool->mu);
			if (busy)
				*busy = 1;
			return NULL;
		}
	}
	pthread_mutex_unlock(&pool->mu);
	if (!open_new)
		return db;
	char err[512];
	/* never create it here (serve.c did at start-up): a file deleted
	 * since must not come back empty */
	if (store_open_existing(pool->path, &db, err, sizeof err) < 0) {
		char shown[sizeof pool->path];
		srv_url_redact(pool->path, shown, sizeof shown);
		srv_log("cannot open database %s: %s", shown, err);
		db = NULL;
	} else if (store_file_replaced(db) || pool_lost(pool)) {
		/* the file opened must be the path's, and the path's the pinned one */
		store_close(db);
		db = NULL;
	} else if (pool->owner[0]) {
		store_set_job_owner(db, pool->owner, pool->lease_ms);
	} else {
		store_on_busy(db, write_wait, pool);
		if (pool->ckpt_running)
			store_defer_checkpoints(db, ckpt_signal, pool);
	}
	if (!db) {
		pthread_mutex_lock(&pool->mu);
		pool->n_open--;
		pthread_cond_signal(&pool->returned);
		pthread_mutex_unlock(&pool->mu);
	}
	return db;
}

void srv_db_pool_owner(struct srv_dbpool *pool, int64_t lease_ms)
{
	char host[64] = "";
	uint32_t r = 0;
	if (gethostname(host, sizeof host - 1) < 0 || !host[0])
		snprintf(host, sizeof host, "host");
	if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
		r = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
	snprintf(pool->owner, sizeof pool->owner, "%s:%ld:%08x", host, (long)getpid(), r);
	pool->lease_ms = lease_ms;
}

struct store *srv_db_acquire(struct srv *s)
{
	return srv_db_acquire_wait(s, SRV_DB_WAIT_MS, NULL);
}

void srv_db_release(struct srv *s, struct store *db)
{
	struct srv_dbpool *pool = &s->db;
	if (!db)
		return;
	pthread_mutex_lock(&pool->mu);
	if (pool->n_free < pool->max_idle) {
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
	if (db && pool->n_open)
		pool->n_open--; /* closed below: its slot is free again */
	pthread_cond_signal(&pool->returned);
	pthread_mutex_unlock(&pool->mu);
	if (db)
		store_close(db);
}

void srv_db_pool_stats(struct srv_dbpool *pool, size_t *open, size_t *idle, uint64_t *refused)
{
	pthread_mutex_lock(&pool->mu);
	if (open)
		*open = pool->n_open;
	if (idle)
		*idle = pool->n_free;
	if (refused)
		*refused = pool->n_refused;
	pthread_mutex_unlock(&pool->mu);
}

void srv_db_pool_destroy(struct srv_dbpool *pool)
{
	srv_db_ckpt_stop(pool);
	if (pool->ckpt_cond_live) {
		pthread_cond_destroy(&pool->ckpt_wake);
		pool->ckpt_cond_live = 0;
	}
	for (size_t i = 0; i < pool->n_free; i++)
		store_close(pool->free_conns[i]);
	free(pool->free_conns);
	pool->free_conns = NULL;
	pool->n_free = pool->cap_free = 0;
	pool->n_open = 0;
	if (pool->ready) {
		pthread_cond_destroy(&pool->returned);
		pthread_mutex_destroy(&pool->mu);
		pool->ready = 0;
	}
}
