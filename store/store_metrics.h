/* store_metrics.h - part of store.h, which includes it (include store.h,
 * never this file alone): metrics and shutdown (store/metrics.c). */
#ifndef PARITY_STORE_METRICS_H
#define PARITY_STORE_METRICS_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- metrics and shutdown (store/metrics.c) ------------------------------ */

/* Counts by label (a status or verdict), in the order the database gave
 * them; labels past STORE_METRIC_LABELS are dropped (the sets are small
 * and closed), a NULL label reads "none". */
#define STORE_METRIC_LABELS 16
struct store_counts {
	struct {
		char label[32];
		int64_t n;
	} v[STORE_METRIC_LABELS];
	size_t n;
};
/* Aggregates for GET /metrics; raw_bytes counts each distinct upload
 * once. */
struct store_metrics {
	struct store_counts comparisons; /* by status */
	struct store_counts verdicts;    /* finished ones, by verdict */
	struct store_counts deliveries;  /* webhook deliveries by status */
	int64_t raw_bytes;
	/* PostgreSQL: pg_database_size of the database; SQLite: -1 (the
	 * daemon adds up the database file and its WAL itself) */
	int64_t db_bytes;
};
int store_metrics(struct store *st, struct store_metrics *out);
/* Checkpoint and truncate the WAL (clean shutdown).  The checkpoint
 * verbs below are no-ops on PostgreSQL. */
int store_checkpoint(struct store *st);
/* Checkpoints off the committing thread.  By default a commit that leaves
 * the WAL at STORE_WAL_DUE_PAGES pages or more checkpoints it at once,
 * inside the commit (copying the WAL into the database and syncing it: on
 * a 30 MB upload ~50 ms of the request's time).  After this call this
 * connection's commits never checkpoint; due(ctx) is called instead (from
 * inside the commit: it must only signal) and another connection runs
 * store_checkpoint_passive. */
#define STORE_WAL_DUE_PAGES 1000
void store_defer_checkpoints(struct store *st, void (*due)(void *ctx), void *ctx);
/* Copy what the WAL holds into the database as far as no reader needs the
 * older pages, without waiting for any lock (never blocks writers); the
 * next writer restarts the WAL once all of it was copied.  0 or an error
 * code. */
int store_checkpoint_passive(struct store *st);
/* The divergence profile of one rank: every row that is not a match, in
 * row order, with only what the chart needs (max_distance -1 when none).
 * Strings valid during the callback; a non-zero return stops and is
 * returned. */
int store_comparison_profile_foreach(struct store *st, int64_t id, int rank,
                                     int (*cb)(void *ctx, int64_t idx, const char *status,
                                               const char *phase, double max_distance),
                                     void *ctx);

#endif
