/* pgwake.c - PostgreSQL only (store/BACKENDS.md sections 4 and 5): the
 * two threads that let several daemons share one database.
 *
 * LISTEN thread: a connection of its own LISTENs on parity_done,
 * parity_queued and parity_delivery.  A finished comparison (any daemon's)
 * bumps jobs_generation and broadcasts done_cv, so the long-poll waker
 * re-reads what its waiters wait for; a queued one broadcasts jobs_cv
 * (idle workers try a claim); a queued delivery wakes the webhook
 * senders.  Notifications sent while the connection is down are lost, so
 * after every (re)connect all three are woken once, and the waiters and
 * workers keep their own floors (SRV_PG_RECHECK_MS, the workers' idle
 * re-check): a wake-up can be late, never lost for good.
 *
 * Heartbeat thread: every third of the shorter lease it renews, in one
 * statement each, every job lease and every delivery claim this daemon's
 * owner name holds.  A daemon that dies or stalls stops renewing, and the
 * others take its work over once the leases expire. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store.h"
#include "delivery.h"
#include "http.h"
#include "jobs.h"

/* How long one wait for notifications lasts: the bound on noticing a stop. */
#define LISTEN_SLICE_MS 250
/* Pause before connecting again after the connection broke. */
#define RECONNECT_MS 1000

/* Sleep up to ms on the pgwake condition; returns the stop flag *flag. */
static int pause_ms(struct srv_pgwake *w, const int *flag, int64_t ms)
{
	pthread_mutex_lock(&w->mu);
	if (!*flag) {
		struct timespec until = srv_deadline_in_ms(ms);
		pthread_cond_timedwait(&w->cv, &w->mu, &until);
	}
	int stop = *flag;
	pthread_mutex_unlock(&w->mu);
	return stop;
}

static int stopping(struct srv_pgwake *w, const int *flag)
{
	pthread_mutex_lock(&w->mu);
	int stop = *flag;
	pthread_mutex_unlock(&w->mu);
	return stop;
}

static void wake_done(struct srv *s)
{
	pthread_mutex_lock(&s->jobs->mu);
	s->jobs->generation++;
	pthread_cond_broadcast(&s->jobs->done_cv);
	pthread_mutex_unlock(&s->jobs->mu);
}

static void wake_queued(struct srv *s)
{
	pthread_mutex_lock(&s->jobs->mu);
	pthread_cond_broadcast(&s->jobs->jobs_cv);
	pthread_mutex_unlock(&s->jobs->mu);
}

static void on_event(void *ctx, enum store_event ev, const char *payload)
{
	struct srv *s = ctx;
	(void)payload;
	switch (ev) {
	case STORE_EV_DONE: wake_done(s); break;
	case STORE_EV_QUEUED: wake_queued(s); break;
	case STORE_EV_DELIVERY: srv_webhooks_notify(s); break;
	default: break;
	}
}

static void *listen_main(void *arg)
{
	struct srv *s = arg;
	struct srv_pgwake *w = s->pgwake;
	struct store *pg = NULL;
	int down = 0; /* the connection is lost and that was logged */
	while (!stopping(w, &w->stop_listen)) {
		if (!pg) {
			char err[512];
			unsigned all = (1u << STORE_N_EVENTS) - 1;
			if (store_open_existing(s->db.path, &pg, err, sizeof err) < 0 ||
			    store_listen(pg, all) < 0) {
				if (!down)
					srv_log("wake-ups: cannot listen (%s); polling until it "
					        "can",
					        pg ? store_errmsg(pg) : err);
				down = 1;
				store_close(pg);
				pg = NULL;
				pause_ms(w, &w->stop_listen, RECONNECT_MS);
				continue;
			}
			if (down)
				srv_log("wake-ups: listening again");
			down = 0;
			/* whatever was sent while nobody listened: re-check everything */
			wake_done(s);
			wake_queued(s);
			srv_webhooks_notify(s);
		}
		if (store_wait(pg, LISTEN_SLICE_MS, on_event, s) < 0) {
			srv_log("wake-ups: reconnecting after: %s", store_errmsg(pg));
			down = 1;
			store_close(pg);
			pg = NULL;
		}
	}
	store_close(pg);
	return NULL;
}

static void *beat_main(void *arg)
{
	struct srv *s = arg;
	struct srv_pgwake *w = s->pgwake;
	const char *owner = s->db.owner;
	int64_t job_lease = s->db.lease_ms, hook_lease = w->hook_lease_ms;
	int64_t every = (job_lease < hook_lease ? job_lease : hook_lease) / 3;
	struct store *pg = NULL;
	int failing = 0;
	while (!pause_ms(w, &w->stop_beat, every)) {
		char err[512];
		int n_jobs = 0, n_hooks = 0;
		int rc = pg ? 0 : store_open_existing(s->db.path, &pg, err, sizeof err);
		if (rc == 0)
			store_set_job_owner(pg, owner, job_lease);
		if (rc == 0)
			rc = store_leases_renew(pg, job_lease, hook_lease, &n_jobs, &n_hooks);
		if (rc < 0) {
			/* a lease that runs out now is taken over by another daemon;
			 * this one's finish then fails its owner check, writing nothing */
			if (!failing)
				srv_log("heartbeat: cannot renew this daemon's leases: %s",
				        pg ? store_errmsg(pg) : err);
			failing = 1;
			store_close(pg);
			pg = NULL;
			continue;
		}
		if (failing)
			srv_log("heartbeat: renewing leases again");
		failing = 0;
	}
	store_close(pg);
	return NULL;
}

int srv_pgwake_start(struct srv *s)
{
	struct srv_pgwake *w = s->pgwake;
	pthread_condattr_t ca;
	if (!w->ready) {
		if (pthread_mutex_init(&w->mu, NULL) != 0)
			return -1;
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		int rc = pthread_cond_init(&w->cv, &ca);
		pthread_condattr_destroy(&ca);
		if (rc != 0) {
			pthread_mutex_destroy(&w->mu);
			return -1;
		}
		w->ready = 1;
	}
	w->stop_listen = w->stop_beat = 0;
	if (pthread_create(&w->beat_thread, NULL, beat_main, s) != 0) {
		srv_log("cannot start the heartbeat thread");
		return -1;
	}
	w->beat_started = 1;
	if (pthread_create(&w->listen_thread, NULL, listen_main, s) != 0) {
		srv_log("cannot start the wake-up thread");
		return -1;
	}
	w->listen_started = 1;
	return 0;
}

static void stop_one(struct srv_pgwake *w, int *flag, pthread_t t, int *started)
{
	if (!*started)
		return;
	pthread_mutex_lock(&w->mu);
	*flag = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(t, NULL);
	*started = 0;
}

void srv_pgwake_stop_listen(struct srv *s)
{
	struct srv_pgwake *w = s->pgwake;
	stop_one(w, &w->stop_listen, w->listen_thread, &w->listen_started);
}

void srv_pgwake_stop(struct srv *s)
{
	struct srv_pgwake *w = s->pgwake;
	if (!w->ready)
		return;
	srv_pgwake_stop_listen(s);
	stop_one(w, &w->stop_beat, w->beat_thread, &w->beat_started);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	w->ready = 0;
}
