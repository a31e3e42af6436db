/* store_engine.h - part of store.h, which includes it (include store.h,
 * never this file alone): engine-neutral services: target kinds and
 * traits, bulk entries, wake-ups and leases across daemons
 * (store/events.c, store/entries.c). */
#ifndef PARITY_STORE_ENGINE_H
#define PARITY_STORE_ENGINE_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- engine-neutral services (store/entries.c, store/events.c) -----------
 * What the daemon needs of the storage engine beyond rows: which kind of
 * target it was given, bulk entry ingest, wake-ups and leases across
 * daemons.  Each verb works on either engine; where an engine has nothing
 * to do (SQLite: one daemon owns the file) it says so and returns 0. */

/* 1 when target names a database server by URL ("postgresql://" or
 * "postgres://": --db, PARITY_DB), else 0 (a SQLite data directory or
 * file). */
int store_is_url(const char *target);

/* What a database target asks of the daemon around it, by its kind: the
 * server asks these instead of testing which engine it runs on. */
enum store_trait {
	/* several daemons may share it (PostgreSQL): job and delivery claims
	 * carry the daemon's owner name and a lease (store_set_job_owner,
	 * store_leases_renew), other daemons' events arrive through
	 * store_listen (and can be lost: re-check on a floor), and nothing is
	 * requeued or released wholesale at start-up (a dead daemon's leases
	 * expire instead) */
	STORE_TRAIT_SHARED,
	/* one file on this machine, with its -wal and -shm (SQLite): the
	 * daemon pins its identity (store_file_replaced), checkpoints its WAL
	 * from a thread of its own, sizes it from the files, and raw logs are
	 * files that store_rawlog_put_file renames into place (so a temp file
	 * must be durable before the put) */
	STORE_TRAIT_LOCAL_FILE
};
/* 1 when target (a store_open target) has trait, else 0. */
int store_target_has(const char *target, enum store_trait trait);

/* Bulk entry ingest: the entries of one activation log, the rows
 * store_entry_add writes, in the caller's transaction.  PostgreSQL: one
 * COPY (store/pg/load.c; the log row is locked FOR KEY SHARE until the
 * transaction ends); SQLite: the prepared insert per entry.  While a bulk
 * is open, run no other statement on st: end it first (a log's header or
 * warning rows then open a new one).  On any error the caller ends it as
 * failed and rolls back. */
struct store_entries;
/* Start for log_id: 0 and *out, STORE_NOT_FOUND when the log does not
 * exist (PostgreSQL), or a STORE_* code (store_errmsg). */
int store_entries_begin(struct store *st, int64_t log_id, struct store_entries **out);
/* One entry (STORE_INVALID without a key). */
int store_entries_add(struct store_entries *b, const struct matcher_entry *e);
/* End and free b (always); *n_rows (may be NULL) = rows stored.  fail !=
 * 0: the abort path (PostgreSQL: the COPY ends as failed, nothing
 * stored).  A constraint failure may be reported only here
 * (STORE_DUPLICATE for a repeated ord; STORE_INVALID for text that is not
 * UTF-8). */
int store_entries_end(struct store_entries *b, int fail, int64_t *n_rows);

/* Wake-ups across daemons sharing one database (PostgreSQL:
 * LISTEN/NOTIFY, store/pg/notify.c).  The store sends them itself when a
 * comparison is queued or finished and when a delivery is queued, at the
 * commit of the transaction that did it. */
enum store_event {
	STORE_EV_DONE = 0, /* a comparison finished */
	STORE_EV_QUEUED,   /* a comparison was queued */
	STORE_EV_DELIVERY, /* a webhook delivery was queued */
	STORE_N_EVENTS
};
/* Listen for the events whose bit (1u << ev) is in mask on st, a
 * connection of its own (store_open_existing) that runs nothing else
 * afterwards but store_wait.  SQLite: 0, there is nobody to hear. */
int store_listen(struct store *st, unsigned mask);
/* Wait up to timeout_ms (0: only collect what already arrived) for events
 * on a listening st; fn (may be NULL) is called for each with its event
 * and payload.  The number of events (> 0), 0 on timeout, or STORE_ERROR
 * when the connection broke (store_errmsg: open a new one, listen again
 * and treat it as a wake-up of every kind: events sent meanwhile are
 * lost).  SQLite: sleeps timeout_ms and returns 0. */
int store_wait(struct store *st, int timeout_ms,
               void (*fn)(void *ctx, enum store_event ev, const char *payload), void *ctx);
/* The heartbeat of a daemon sharing the database: extend every job lease
 * and every delivery claim held by st's owner (store_set_job_owner) to
 * now + job_lease_ms / hook_lease_ms, one statement each; *n_jobs and
 * *n_hooks (may be NULL) = how many.  SQLite: 0 (one daemon owns the
 * file; its leases are never taken over). */
int store_leases_renew(struct store *st, int64_t job_lease_ms, int64_t hook_lease_ms, int *n_jobs,
                       int *n_hooks);

#endif
