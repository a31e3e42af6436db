/* workers.c - comparison workers and the long-poll waker (see workers.h). */
#include "workers.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srv.h"
#include "store.h"

#define IDLE_RECHECK_MS 5000

int64_t srv_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* cond_timedwait on a CLOCK_MONOTONIC condition variable */
static void wait_ms(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(cv, mu, &ts);
}

static void *worker_main(void *arg)
{
	struct srv *s = arg;
	for (;;) {
		pthread_mutex_lock(&s->jobs_mu);
		int stop = s->stopping;
		pthread_mutex_unlock(&s->jobs_mu);
		if (stop)
			break;
		struct store *db = srv_db_acquire(s);
		int64_t id = 0;
		int rc = db ? store_comparison_claim(db, &id) : STORE_ERROR;
		if (rc == STORE_OK) {
			srv_job_run(s, db, id);
			srv_db_release(s, db);
			pthread_mutex_lock(&s->jobs_mu);
			s->jobs_generation++;
			pthread_cond_broadcast(&s->done_cv);
			pthread_mutex_unlock(&s->jobs_mu);
			continue;
		}
		if (rc != STORE_NOT_FOUND && db)
			srv_log("worker: cannot claim a job: %s", store_errmsg(db));
		srv_db_release(s, db);
		pthread_mutex_lock(&s->jobs_mu);
		if (!s->stopping)
			wait_ms(&s->jobs_cv, &s->jobs_mu, IDLE_RECHECK_MS);
		pthread_mutex_unlock(&s->jobs_mu);
	}
	return NULL;
}

/* Resume waiters whose deadline passed, or all when `all` (a comparison
 * finished: each handler re-checks its own).  Caller holds jobs_mu. */
static void resume_waiters(struct srv *s, int all)
{
	int64_t now = srv_now_ms();
	size_t keep = 0;
	for (size_t i = 0; i < s->n_waiters; i++) {
		struct srv_req *r = s->waiters[i];
		if (all || now >= r->wait_deadline_ms || s->stopping) {
			r->suspended = 0;
			MHD_resume_connection(r->conn);
		} else {
			s->waiters[keep++] = r;
		}
	}
	s->n_waiters = keep;
}

static void *waker_main(void *arg)
{
	struct srv *s = arg;
	pthread_mutex_lock(&s->jobs_mu);
	uint64_t seen = s->jobs_generation;
	while (!s->stopping) {
		int64_t next = srv_now_ms() + 1000;
		for (size_t i = 0; i < s->n_waiters; i++)
			if (s->waiters[i]->wait_deadline_ms < next)
				next = s->waiters[i]->wait_deadline_ms;
		int64_t ms = next - srv_now_ms();
		if (ms > 0)
			wait_ms(&s->done_cv, &s->jobs_mu, ms);
		int finished = s->jobs_generation != seen;
		seen = s->jobs_generation;
		resume_waiters(s, finished);
	}
	resume_waiters(s, 1);
	pthread_mutex_unlock(&s->jobs_mu);
	return NULL;
}

int srv_wait_suspend(struct srv *s, struct srv_req *r)
{
	int rc = -1;
	pthread_mutex_lock(&s->jobs_mu);
	if (s->stopping)
		goto done;
	if (s->n_waiters == s->cap_waiters) {
		size_t cap = s->cap_waiters ? s->cap_waiters * 2 : 16;
		struct srv_req **w = realloc(s->waiters, cap * sizeof *w);
		if (!w)
			goto done;
		s->waiters = w;
		s->cap_waiters = cap;
	}
	s->waiters[s->n_waiters++] = r;
	r->suspended = 1;
	MHD_suspend_connection(r->conn);
	pthread_cond_broadcast(&s->done_cv); /* recompute the waker's deadline */
	rc = 0;
done:
	pthread_mutex_unlock(&s->jobs_mu);
	return rc;
}

void srv_jobs_notify(struct srv *s)
{
	pthread_mutex_lock(&s->jobs_mu);
	pthread_cond_signal(&s->jobs_cv);
	pthread_mutex_unlock(&s->jobs_mu);
}

int srv_workers_start(struct srv *s)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&s->jobs_cv);
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_init(&s->jobs_cv, &ca);
	pthread_cond_init(&s->done_cv, &ca);
	pthread_condattr_destroy(&ca);

	struct store *db = srv_db_acquire(s);
	if (!db)
		return -1;
	int n = 0;
	store_comparisons_requeue_running(db, &n);
	if (n > 0)
		srv_log("resuming %d comparison(s) interrupted by a restart", n);
	srv_db_release(s, db);

	s->worker_threads = calloc(s->cfg.workers, sizeof *s->worker_threads);
	if (!s->worker_threads)
		return -1;
	for (unsigned i = 0; i < s->cfg.workers; i++) {
		if (pthread_create(&s->worker_threads[i], NULL, worker_main, s) != 0)
			break;
		s->n_workers++;
	}
	if (pthread_create(&s->waker_thread, NULL, waker_main, s) == 0)
		s->waker_started = 1;
	return s->n_workers ? 0 : -1;
}

void srv_workers_stop(struct srv *s)
{
	pthread_mutex_lock(&s->jobs_mu);
	s->stopping = 1;
	pthread_cond_broadcast(&s->jobs_cv);
	pthread_cond_broadcast(&s->done_cv);
	pthread_mutex_unlock(&s->jobs_mu);
	for (size_t i = 0; i < s->n_workers; i++)
		pthread_join(s->worker_threads[i], NULL);
	if (s->waker_started)
		pthread_join(s->waker_thread, NULL);
	s->waker_started = 0;
	free(s->worker_threads);
	s->worker_threads = NULL;
	s->n_workers = 0;
	free(s->waiters);
	s->waiters = NULL;
	s->n_waiters = s->cap_waiters = 0;
}
