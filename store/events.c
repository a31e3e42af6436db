/* events.c - the engine-neutral services of store.h that only a shared
 * database gives work to: wake-ups across daemons and the heartbeat of
 * their leases (PostgreSQL: store/pg/notify.c, jobs.c, deliveries.c), and
 * which kind of target a name is and what it asks of the daemon.  On SQLite one daemon owns the
 * file: nothing to hear, nothing to renew. */
#include <stdio.h>
#include <time.h>

#include "store_int.h"

int store_is_url(const char *target)
{
	return store_is_pg_url(target);
}

int store_target_has(const char *target, enum store_trait trait)
{
	int pg = store_is_pg_url(target);
	switch (trait) {
	case STORE_TRAIT_SHARED: return pg;
	case STORE_TRAIT_LOCAL_FILE: return !pg;
	}
	return 0;
}

int store_listen(struct store *st, unsigned mask)
{
	if (st->backend != STORE_BACKEND_PG)
		return 0;
	return store_pg_error(st, store_pg_listen(st->pg, mask));
}

struct wait_fn {
	void (*fn)(void *ctx, enum store_event ev, const char *payload);
	void *ctx;
};

static void on_pg_event(void *ctx, enum store_pg_event ev, const char *payload)
{
	struct wait_fn *w = ctx;
	if (w->fn)
		w->fn(w->ctx, (enum store_event)ev, payload);
}

int store_wait(struct store *st, int timeout_ms,
               void (*fn)(void *ctx, enum store_event ev, const char *payload), void *ctx)
{
	if (st->backend != STORE_BACKEND_PG) {
		struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
		while (timeout_ms > 0 && nanosleep(&ts, &ts) < 0)
			;
		return 0;
	}
	struct wait_fn w = {fn, ctx};
	return store_pg_error(st, store_pg_wait(st->pg, timeout_ms, on_pg_event, &w));
}

int store_leases_renew(struct store *st, int64_t job_lease_ms, int64_t hook_lease_ms, int *n_jobs,
                       int *n_hooks)
{
	if (n_jobs)
		*n_jobs = 0;
	if (n_hooks)
		*n_hooks = 0;
	if (st->backend != STORE_BACKEND_PG)
		return 0;
	int rc = store_pg_jobs_heartbeat_all(st->pg, st->owner, job_lease_ms, n_jobs);
	if (rc == 0)
		rc = store_pg_deliveries_heartbeat_all(st->pg, st->owner, hook_lease_ms, n_hooks);
	return store_pg_error(st, rc);
}
