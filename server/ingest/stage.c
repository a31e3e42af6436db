/* stage.c - the insert stage of an upload: its entries go into SQLite
 * while the body still streams in (see ingest.h), and the inserter, the
 * store callbacks that every ingest path shares.
 *
 * Why: on a 30 MB activation log the insert (~140 ms) used to start only
 * when the last byte had arrived, after receive + parse (~130 ms, with
 * gzip on a thread of its own beside them); run beside them on the second
 * core, the upload takes little more than the longer of the two.
 *
 * The catch is SQLite's single writer: the stage holds the write lock
 * while the client sends.  So it only ever holds it while that costs
 * nobody anything, and otherwise lets go (rolls back: the commit then
 * replays the spool as it always did, and nothing was stored):
 *   - it takes the lock only if it is free at that moment (no waiting);
 *   - it gives way as soon as a pooled connection starts waiting for the
 *     lock (srv_db_write_waits moved), within one chunk of records;
 *   - it gives up when the spool has not grown for STALL_MS while the
 *     body is not complete (a slow or stalled client), and after
 *     HOLD_MAX_MS in all (writers outside the pool, such as the CLI, wait
 *     up to the store's busy timeout of 5 s).
 * Nothing it does is visible before the commit's transaction commits: the
 * run and its logs are created with placeholders (name "", rank -1 - i,
 * digest "") that the commit replaces (store_run_set_fields,
 * store_log_set_identity), so a crash, a refused upload or a give-way
 * leaves nothing behind.  Activation logs only: a training log's steps
 * store the log's rank (store_step_add), unknown before the body ends;
 * and no msprobe dump: its stack part, which places its entries
 * (srv_msprobe_locate), may arrive after it.
 *
 * Threads: one worker per upload, started by upload.c at the first spool
 * flush of a large enough log; srv_stage_log and srv_stage_spooled come
 * from the request's thread; the worker owns its connection until
 * srv_stage_finish hands it (with the transaction open) to the commit. */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest.h"
#include "store.h"

/* A stall gives the lock up only for writers outside the pool (pooled
 * ones take it at once): long enough that a busy machine, which
 * deschedules the request's thread for tens of milliseconds, does not
 * throw the inserted records away. */
#define STALL_MS    500
#define HOLD_MAX_MS 3000
#define TICK_MS     5
/* records replayed between two checks of the lock's waiters (~3 ms) */
#define STEP_BYTES (1u << 20)
/* records replayed between two starts of the WAL's writeback */
#define WRITEBACK_BYTES (4u << 20)

/* ---- the inserter -------------------------------------------------------- */

void srv_inserter_init(struct srv_inserter *in, struct store *db, int64_t log_id)
{
	memset(in, 0, sizeof *in);
	in->db = db;
	in->log_id = log_id;
}

int srv_inserter_end(struct srv_inserter *in, int fail)
{
	struct store_entries *b = in->bulk;
	struct store_steps *steps = in->steps;
	in->bulk = NULL;
	in->steps = NULL;
	int rc = b ? store_entries_end(b, fail, NULL) : 0;
	int rc2 = store_steps_end(steps, fail || rc < 0);
	return fail ? 0 : rc < 0 ? rc : rc2;
}

static int ins_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct srv_inserter *in = ctx;
	if ((in->rc = srv_inserter_end(in, 0)) < 0)
		return in->rc;
	return (in->rc = store_log_set_header(in->db, in->log_id, h->total, h->excluded));
}

static int ins_entry(void *ctx, const struct matcher_entry *e)
{
	struct srv_inserter *in = ctx;
	struct matcher_entry located;
	if (in->stack && srv_msprobe_locate(in->stack, e, &located))
		e = &located;
	if (!in->bulk)
		in->rc = store_entries_begin(in->db, in->log_id, &in->bulk);
	if (in->bulk)
		in->rc = store_entries_add(in->bulk, e);
	return in->rc;
}

static int ins_step(void *ctx, const struct matcher_step_record *rec)
{
	struct srv_inserter *in = ctx;
	if (!in->steps && (in->rc = store_steps_begin(in->db, in->log_id, &in->steps)) < 0)
		return in->rc;
	return (in->rc = store_steps_add(in->steps, rec));
}

static int ins_warning(void *ctx, const struct matcher_warning *w)
{
	struct srv_inserter *in = ctx;
	if ((in->rc = srv_inserter_end(in, 0)) < 0)
		return in->rc;
	return (in->rc = store_warning_add(in->db, in->log_id, w));
}

struct matcher_actlog_callbacks srv_inserter_act(struct srv_inserter *in)
{
	struct matcher_actlog_callbacks cb = {in, ins_header, ins_entry, ins_warning};
	return cb;
}

struct matcher_trainlog_callbacks srv_inserter_train(struct srv_inserter *in)
{
	struct matcher_trainlog_callbacks cb = {in, ins_step, ins_warning};
	return cb;
}

/* ---- the stage ----------------------------------------------------------- */

struct stage_log {
	char *path; /* its spool; NULL: not for the stage (the commit inserts it) */
	char *filename;
	uint64_t bytes; /* of the spool, readable */
	int final;      /* the spool is complete */
};

enum { RUNNING, DONE, GAVE_UP };

struct srv_stage {
	struct srv *srv;
	pthread_t thread;
	int joined;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* logs, bytes, body_done or abort changed */
	/* mu: */
	struct stage_log *logs;
	size_t n_logs, cap_logs;
	int body_done, abort;
	/* the worker's until joined, then the caller's: */
	int state;
	struct store *db; /* the connection, with the transaction open */
	int64_t run_id;
	int64_t *log_ids; /* of logs [0, n_done) */
	size_t n_done;
	uint64_t waits0; /* srv_db_write_waits when the lock was taken */
	int64_t t0_ms;
	/* the database's WAL file (-1: none): the pages the transaction
	 * spills there are sent to the disk while the body streams
	 * (sync_file_range, which does not wait), so the commit's fsync has
	 * only the last ones left to write (~20 ms less on a 30 MB log) */
	int wal_fd;
	uint64_t unsynced; /* spool bytes replayed since the last writeback */
};

/* Start writing back what the WAL holds (no wait, best effort). */
static void wal_writeback(struct srv_stage *g)
{
	if (g->wal_fd >= 0)
		sync_file_range(g->wal_fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	g->unsynced = 0;
}

/* Must the stage let go of the lock now? */
static int must_yield(struct srv_stage *g)
{
	return srv_db_write_waits(&g->srv->db) != g->waits0 ||
	       srv_now_ms() - g->t0_ms > HOLD_MAX_MS;
}

/* Wait (mu held) one tick for a change; 0, or -1 when the stage must stop
 * (abort, a waiting writer, or a stall: no change for STALL_MS while the
 * body is incomplete).  *since_ms: when the wait for this change began. */
static int wait_tick(struct srv_stage *g, int64_t since_ms)
{
	if (g->abort || must_yield(g))
		return -1;
	if (!g->body_done && srv_now_ms() - since_ms > STALL_MS)
		return -1;
	struct timespec until = srv_deadline_in_ms(TICK_MS);
	pthread_cond_timedwait(&g->cv, &g->mu, &until);
	return g->abort ? -1 : 0;
}

/* Insert log i (its spool, as it grows) under a placeholder log row.
 * 0, or -1: give up (a store error, or wait_tick said stop). */
static int insert_log(struct srv_stage *g, size_t i, const char *path, const char *filename)
{
	int64_t log_id;
	if (store_log_create(g->db, g->run_id, -1 - (int)i, filename, 0, "", &log_id) < 0)
		return -1;
	struct srv_spool_reader *rd = srv_spool_reader_open(path);
	if (!rd)
		return -1;
	struct srv_inserter in;
	srv_inserter_init(&in, g->db, log_id);
	struct matcher_actlog_callbacks cb = srv_inserter_act(&in);
	uint64_t done = 0;
	int rc = -1;
	for (;;) {
		pthread_mutex_lock(&g->mu);
		int64_t since = srv_now_ms();
		while (g->logs[i].bytes == done && !g->logs[i].final)
			if (wait_tick(g, since) < 0) {
				pthread_mutex_unlock(&g->mu);
				goto done;
			}
		uint64_t avail = g->logs[i].bytes;
		int final = g->logs[i].final;
		pthread_mutex_unlock(&g->mu);
		while (done < avail) {
			uint64_t step = avail - done > STEP_BYTES ? done + STEP_BYTES : avail;
			if (srv_spool_reader_run(rd, step, &cb, NULL) < 0 || must_yield(g))
				goto done;
			g->unsynced += step - done;
			done = step;
			if (g->unsynced >= WRITEBACK_BYTES)
				wal_writeback(g);
		}
		if (final)
			break;
	}
	if (!srv_spool_reader_done(rd) || srv_inserter_end(&in, 0) < 0)
		goto done;
	g->log_ids[i] = log_id;
	g->n_done = i + 1;
	rc = 0;
done:
	srv_inserter_end(&in, 1);
	srv_spool_reader_free(rd);
	return rc;
}

static void *stage_main(void *arg)
{
	struct srv_stage *g = arg;
	int ok = 0;
	pthread_setname_np(pthread_self(), "ingest-stage"); /* top -H, perf */
	g->db = srv_db_acquire_wait(g->srv, 0, NULL);
	if (!g->db)
		goto done;
	if (store_tx_try_begin_bulk(g->db) < 0) {
		srv_db_release(g->srv, g->db);
		g->db = NULL;
		goto done;
	}
	g->waits0 = srv_db_write_waits(&g->srv->db);
	g->t0_ms = srv_now_ms();
	char wal[sizeof g->srv->db.path + 8];
	snprintf(wal, sizeof wal, "%s-wal", g->srv->db.path);
	g->wal_fd = open(wal, O_RDONLY | O_CLOEXEC);
	atomic_fetch_add(&g->srv->metrics.ingest_stage_holding, 1);
	if (store_run_create(g->db, "", "activation", NULL, &g->run_id) < 0)
		goto done;
	for (size_t i = 0;; i++) {
		pthread_mutex_lock(&g->mu);
		int64_t since = srv_now_ms();
		while (i >= g->n_logs && !g->body_done)
			if (wait_tick(g, since) < 0) {
				pthread_mutex_unlock(&g->mu);
				goto done;
			}
		if (i >= g->n_logs || !g->logs[i].path) {
			/* every log the stage can take is in */
			pthread_mutex_unlock(&g->mu);
			break;
		}
		const char *path = g->logs[i].path, *filename = g->logs[i].filename;
		pthread_mutex_unlock(&g->mu);
		/* (path and filename never change once set) */
		if (insert_log(g, i, path, filename) < 0)
			goto done;
	}
	wal_writeback(g);
	ok = 1;
done:
	if (!ok && g->db) {
		store_tx_rollback(g->db);
		srv_db_release(g->srv, g->db);
		g->db = NULL;
		atomic_fetch_sub(&g->srv->metrics.ingest_stage_holding, 1);
	}
	if (g->wal_fd >= 0)
		close(g->wal_fd);
	g->wal_fd = -1;
	g->state = ok ? DONE : GAVE_UP;
	return NULL;
}

static void stage_destroy(struct srv_stage *g)
{
	for (size_t i = 0; i < g->n_logs; i++) {
		free(g->logs[i].path);
		free(g->logs[i].filename);
	}
	free(g->logs);
	free(g->log_ids);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g);
}

struct srv_stage *srv_stage_start(struct srv *s, size_t max_logs)
{
	struct srv_stage *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->srv = s;
	g->wal_fd = -1;
	g->log_ids = calloc(max_logs ? max_logs : 1, sizeof *g->log_ids);
	g->cap_logs = max_logs;
	g->logs = calloc(max_logs ? max_logs : 1, sizeof *g->logs);
	pthread_mutex_init(&g->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* srv_deadline_in_ms */
	pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (!g->log_ids || !g->logs || pthread_create(&g->thread, NULL, stage_main, g) != 0) {
		stage_destroy(g);
		return NULL;
	}
	return g;
}

void srv_stage_log(struct srv_stage *g, size_t i, const char *spool_path, const char *filename)
{
	pthread_mutex_lock(&g->mu);
	if (i == g->n_logs && i < g->cap_logs) {
		struct stage_log *l = &g->logs[i];
		l->path = spool_path ? strdup(spool_path) : NULL;
		l->filename = filename && filename[0] ? strdup(filename) : NULL;
		/* no copy (OOM): the stage stops at this log */
		if (spool_path && !l->path) {
			free(l->filename);
			l->filename = NULL;
		}
		g->n_logs++;
		pthread_cond_signal(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
}

void srv_stage_spooled(struct srv_stage *g, size_t i, uint64_t bytes, int final)
{
	pthread_mutex_lock(&g->mu);
	if (i < g->n_logs) {
		g->logs[i].bytes = bytes;
		g->logs[i].final |= final;
		pthread_cond_signal(&g->cv);
	}
	pthread_mutex_unlock(&g->mu);
}

/* Stop the worker (abort: as soon as it can) and join it. */
static void stage_join(struct srv_stage *g, int abort)
{
	if (g->joined)
		return;
	pthread_mutex_lock(&g->mu);
	g->body_done = 1;
	g->abort |= abort;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	g->joined = 1;
}

int srv_stage_finish(struct srv_stage *g, struct store **db, int64_t *run_id,
                     const int64_t **log_ids, size_t *n_logs)
{
	stage_join(g, 0);
	if (g->state != DONE || !g->db)
		return -1;
	*db = g->db;
	g->db = NULL;
	atomic_fetch_sub(&g->srv->metrics.ingest_stage_holding, 1); /* the commit's now */
	*run_id = g->run_id;
	*log_ids = g->log_ids;
	*n_logs = g->n_done;
	return 0;
}

void srv_stage_free(struct srv_stage *g)
{
	if (!g)
		return;
	stage_join(g, 1);
	if (g->db) { /* never handed over: nothing of it stays */
		store_tx_rollback(g->db);
		srv_db_release(g->srv, g->db);
		atomic_fetch_sub(&g->srv->metrics.ingest_stage_holding, 1);
	}
	stage_destroy(g);
}
