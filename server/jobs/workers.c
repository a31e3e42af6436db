/* workers.c - comparison workers and the long-poll waker (see jobs.h). */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "http.h"
#include "jobs.h"
#include "views.h"

#define IDLE_RECHECK_MS 5000
/* A worker that found every database connection in use retries after: */
#define NO_DB_RETRY_MS 100
/* The waker waits this long for a connection, and retries this soon when
 * it could not read. */
#define WAKER_DB_WAIT_MS 2000
#define WAKER_RETRY_MS   200

/* cond_timedwait on a CLOCK_MONOTONIC condition variable */
static void wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t ms)
{
	struct timespec ts = srv_deadline_in_ms(ms);
	pthread_cond_timedwait(cv, mu, &ts);
}

static void *worker_main(void *arg)
{
	struct srv *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->jobs->mu);
		int stop = s->jobs->stopping;
		pthread_mutex_unlock(&s->jobs->mu);
		if (stop)
			break;
		struct store *db = srv_db_acquire(s);
		int64_t id = 0;
		int rc = db ? store_comparison_claim(db, &id) : STORE_ERROR;
		if (rc == STORE_OK) {
			srv_job_run(s, db, id);
			srv_db_release(s, db);
			pthread_mutex_lock(&s->jobs->mu);
			s->jobs->generation++;
			pthread_cond_broadcast(&s->jobs->done_cv);
			pthread_mutex_unlock(&s->jobs->mu);
			continue;
		}
		if (rc != STORE_NOT_FOUND && db)
			srv_log("worker: cannot claim a job: %s", store_errmsg(db));
		srv_db_release(s, db);
		pthread_mutex_lock(&s->jobs->mu);
		if (!s->jobs->stopping)
			wait_ms(&s->jobs->jobs_cv, &s->jobs->mu,
			        db ? IDLE_RECHECK_MS : NO_DB_RETRY_MS);
		pthread_mutex_unlock(&s->jobs->mu);
	}
	return NULL;
}

/* Resume one waiter (caller holds jobs_mu and takes it off the list),
 * handing it sr (a reference of its own) when not NULL. */
static void resume_one(struct srv_req *r, struct srv_shared_reply *sr)
{
	if (sr) {
		atomic_fetch_add(&sr->refs, 1);
		r->wait_reply = sr;
	}
	r->suspended = 0;
	MHD_resume_connection(r->conn);
}

struct id_reply {
	int64_t id;
	struct srv_shared_reply *sr;
};

static int cmp_id_reply(const void *a, const void *b)
{
	int64_t x = ((const struct id_reply *)a)->id, y = ((const struct id_reply *)b)->id;
	return x < y ? -1 : x > y;
}

/* One pass over the waiters (caller holds jobs_mu; it is dropped while
 * the database is read).  Waiters due now (deadline passed, stopping) and,
 * when `all`, every waiter are checked: each comparison they wait for is
 * read ONCE, with one pooled connection, and that document is handed to
 * every waiter of it that can be answered (its comparison finished or is
 * gone, or its deadline passed).  The others stay suspended and hold
 * nothing.  Returns -1 when the database could not be read (the caller
 * retries soon; due waiters were resumed to read it themselves). */
static int wake_waiters(struct srv *s, int all)
{
	int64_t now = srv_now_ms();
	struct id_reply *ids = NULL;
	size_t n_ids = 0;
	int rc = 0;
	if (s->jobs->n_waiters == 0)
		return 0;
	ids = malloc(s->jobs->n_waiters * sizeof *ids);
	if (ids) {
		for (size_t i = 0; i < s->jobs->n_waiters; i++) {
			struct srv_req *r = s->jobs->waiters[i];
			if (all || s->jobs->stopping || now >= r->wait_deadline_ms)
				ids[n_ids++] = (struct id_reply){r->id, NULL};
		}
		qsort(ids, n_ids, sizeof *ids, cmp_id_reply);
		size_t u = 0;
		for (size_t i = 0; i < n_ids; i++)
			if (!u || ids[u - 1].id != ids[i].id)
				ids[u++] = ids[i];
		n_ids = u;
	} else {
		rc = -1;
	}
	if (n_ids) {
		pthread_mutex_unlock(&s->jobs->mu);
		struct store *db = srv_db_acquire_wait(s, WAKER_DB_WAIT_MS, NULL);
		for (size_t i = 0; db && i < n_ids; i++)
			ids[i].sr = srv_comparison_reply(s, db, ids[i].id);
		srv_db_release(s, db);
		pthread_mutex_lock(&s->jobs->mu);
		if (!db)
			rc = -1;
	}
	now = srv_now_ms();
	size_t keep = 0;
	for (size_t i = 0; i < s->jobs->n_waiters; i++) {
		struct srv_req *r = s->jobs->waiters[i];
		struct id_reply key = {r->id, NULL}, *hit = NULL;
		if (n_ids)
			hit = bsearch(&key, ids, n_ids, sizeof *ids, cmp_id_reply);
		struct srv_shared_reply *sr = hit ? hit->sr : NULL;
		int due = s->jobs->stopping || now >= r->wait_deadline_ms;
		if (due || (sr && (sr->final || sr->status != 200)))
			resume_one(r, sr); /* without sr, the handler reads itself */
		else
			s->jobs->waiters[keep++] = r;
	}
	s->jobs->n_waiters = keep;
	atomic_store(&s->metrics.longpolls_waiting, (uint_fast64_t)keep);
	for (size_t i = 0; i < n_ids; i++) {
		if (!ids[i].sr)
			rc = -1;
		srv_shared_reply_unref(ids[i].sr);
	}
	free(ids);
	return rc;
}

static void *waker_main(void *arg)
{
	struct srv *s = arg;
	pthread_mutex_lock(&s->jobs->mu);
	uint64_t seen = s->jobs->generation;
	int retry = 0;
	int64_t last_all = srv_now_ms();
	while (!s->jobs->stopping) {
		int64_t next = srv_now_ms() + (retry ? WAKER_RETRY_MS : 1000);
		for (size_t i = 0; i < s->jobs->n_waiters; i++)
			if (s->jobs->waiters[i]->wait_deadline_ms < next)
				next = s->jobs->waiters[i]->wait_deadline_ms;
		int64_t ms = next - srv_now_ms();
		if (ms > 0 && seen == s->jobs->generation && !s->jobs->waiters_recheck)
			wait_ms(&s->jobs->done_cv, &s->jobs->mu, ms);
		int all = retry || s->jobs->generation != seen || s->jobs->waiters_recheck;
		/* a shared database (PostgreSQL): another daemon's finish arrives
		 * as an event, which a broken LISTEN connection loses: re-read on
		 * a floor */
		if (store_target_has(s->db.path, STORE_TRAIT_SHARED) &&
		    srv_now_ms() - last_all >= SRV_PG_RECHECK_MS)
			all = 1;
		if (all)
			last_all = srv_now_ms();
		seen = s->jobs->generation;
		s->jobs->waiters_recheck = 0;
		retry = wake_waiters(s, all) < 0;
	}
	/* stopping: answer every waiter (one read per comparison) */
	if (wake_waiters(s, 1) < 0) {
		for (size_t i = 0; i < s->jobs->n_waiters; i++)
			resume_one(s->jobs->waiters[i], NULL);
		s->jobs->n_waiters = 0;
	}
	pthread_mutex_unlock(&s->jobs->mu);
	return NULL;
}

uint64_t srv_jobs_generation(struct srv *s)
{
	pthread_mutex_lock(&s->jobs->mu);
	uint64_t g = s->jobs->generation;
	pthread_mutex_unlock(&s->jobs->mu);
	return g;
}

int srv_wait_suspend(struct srv *s, struct srv_req *r)
{
	int rc = -1;
	pthread_mutex_lock(&s->jobs->mu);
	if (s->jobs->stopping)
		goto done;
	if (s->jobs->n_waiters == s->jobs->cap_waiters) {
		size_t cap = s->jobs->cap_waiters ? s->jobs->cap_waiters * 2 : 16;
		struct srv_req **w = realloc(s->jobs->waiters, cap * sizeof *w);
		if (!w)
			goto done;
		s->jobs->waiters = w;
		s->jobs->cap_waiters = cap;
	}
	s->jobs->waiters[s->jobs->n_waiters++] = r;
	atomic_store(&s->metrics.longpolls_waiting, (uint_fast64_t)s->jobs->n_waiters);
	r->suspended = 1;
	MHD_suspend_connection(r->conn);
	/* a comparison finished between this request's read and now: the
	 * waker's pass for it may have run before we were listed */
	if (s->jobs->generation != r->wait_generation)
		s->jobs->waiters_recheck = 1;
	pthread_cond_broadcast(&s->jobs->done_cv); /* recompute the waker's deadline */
	rc = 0;
done:
	pthread_mutex_unlock(&s->jobs->mu);
	return rc;
}

void srv_jobs_notify(struct srv *s)
{
	pthread_mutex_lock(&s->jobs->mu);
	pthread_cond_signal(&s->jobs->jobs_cv);
	pthread_mutex_unlock(&s->jobs->mu);
}

int srv_workers_start(struct srv *s)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&s->jobs->jobs_cv);
	pthread_cond_destroy(&s->jobs->done_cv);
	pthread_cond_init(&s->jobs->jobs_cv, &ca);
	pthread_cond_init(&s->jobs->done_cv, &ca);
	pthread_condattr_destroy(&ca);

	struct store *db = srv_db_acquire(s);
	if (!db)
		return -1;
	int n = 0;
	/* a shared database (PostgreSQL): other daemons' running jobs are
	 * live; a dead daemon's leases expire and its jobs are claimed again
	 * (pgwake.c) */
	if (!store_target_has(s->db.path, STORE_TRAIT_SHARED))
		store_comparisons_requeue_running(db, &n);
	if (n > 0)
		srv_log("resuming %d comparison(s) interrupted by a restart", n);
	srv_db_release(s, db);

	s->jobs->worker_threads = calloc(s->cfg.workers, sizeof *s->jobs->worker_threads);
	if (!s->jobs->worker_threads)
		return -1;
	for (unsigned i = 0; i < s->cfg.workers; i++) {
		if (pthread_create(&s->jobs->worker_threads[i], NULL, worker_main, s) != 0)
			break;
		s->jobs->n_workers++;
	}
	if (pthread_create(&s->jobs->waker_thread, NULL, waker_main, s) == 0)
		s->jobs->waker_started = 1;
	return s->jobs->n_workers ? 0 : -1;
}

void srv_workers_stop(struct srv *s)
{
	pthread_mutex_lock(&s->jobs->mu);
	s->jobs->stopping = 1;
	pthread_cond_broadcast(&s->jobs->jobs_cv);
	pthread_cond_broadcast(&s->jobs->done_cv);
	pthread_mutex_unlock(&s->jobs->mu);
	for (size_t i = 0; i < s->jobs->n_workers; i++)
		pthread_join(s->jobs->worker_threads[i], NULL);
	if (s->jobs->waker_started)
		pthread_join(s->jobs->waker_thread, NULL);
	s->jobs->waker_started = 0;
	free(s->jobs->worker_threads);
	s->jobs->worker_threads = NULL;
	s->jobs->n_workers = 0;
	free(s->jobs->waiters);
	s->jobs->waiters = NULL;
	s->jobs->n_waiters = s->jobs->cap_waiters = 0;
}
