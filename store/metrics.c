/* metrics.c - the database-derived numbers of GET /metrics: comparisons
 * by status and verdict, webhook deliveries by status, stored raw bytes.
 * Read at scrape time (a handful of aggregate queries over indexed or
 * small tables), so nothing has to be kept in sync in memory. */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Run a two-column "label, count" query into out. */
static int group_counts(struct store *st, const char *sql, struct store_counts *out)
{
	struct store_q *q = store_prep_as(st, sql, "preparing a metrics query");
	if (!q)
		return STORE_ERROR;
	int rc;
	while ((rc = store_q_step(q)) == STORE_Q_ROW) {
		const char *label = store_q_col_text(q, 0);
		if (out->n == STORE_METRIC_LABELS)
			continue;
		snprintf(out->v[out->n].label, sizeof out->v[out->n].label, "%s",
		         label ? label : "none");
		out->v[out->n++].n = store_q_col_i64(q, 1);
	}
	store_q_done(q);
	return rc == STORE_Q_DONE ? 0 : store_q_fail(st, rc, "running a metrics query");
}

int store_metrics(struct store *st, struct store_metrics *out)
{
	struct store_counts raw;
	memset(out, 0, sizeof *out);
	memset(&raw, 0, sizeof raw);
	out->db_bytes = -1; /* SQLite: the caller adds up the files */
	int rc = group_counts(st, "SELECT status, count(*) FROM comparisons GROUP BY status",
	                      &out->comparisons);
	if (rc == 0)
		rc = group_counts(st,
		                  "SELECT verdict, count(*) FROM comparisons "
		                  "WHERE status = 'done' GROUP BY verdict",
		                  &out->verdicts);
	if (rc == 0)
		rc = group_counts(st,
		                  "SELECT status, count(*) FROM webhook_deliveries GROUP BY status",
		                  &out->deliveries);
	if (rc == 0)
		rc = group_counts(st,
		                  "SELECT 'raw_bytes', coalesce(sum(bytes), 0) FROM "
		                  "(SELECT sha256, max(bytes) AS bytes FROM logs GROUP BY sha256) "
		                  "AS per_blob",
		                  &raw);
	out->raw_bytes = raw.n ? raw.v[0].n : 0;
	if (rc == 0 && st->backend == STORE_BACKEND_PG) {
		memset(&raw, 0, sizeof raw);
		rc = group_counts(st, "SELECT 'db', pg_database_size(current_database())", &raw);
		out->db_bytes = raw.n ? raw.v[0].n : -1;
	}
	return rc;
}

/* PostgreSQL has no WAL of ours to fold back: the checkpoint verbs are
 * no-ops there (the server checkpoints itself). */
int store_checkpoint(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return 0;
	int rc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_sqlfail(st, rc, "checkpointing the WAL");
}

/* The WAL hook replaces SQLite's auto-checkpoint (sqlite3_wal_hook and
 * sqlite3_wal_autocheckpoint set the same slot): it runs after each commit
 * with the WAL's size in pages. */
static int wal_committed(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store *st = arg;
	(void)name;
	if (pages >= 64 * STORE_WAL_DUE_PAGES)
		/* backstop: whoever should checkpoint is not keeping up (or is
		 * gone); this commit does it as SQLite's default would */
		sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	else if (pages >= STORE_WAL_DUE_PAGES && st->ckpt_due)
		st->ckpt_due(st->ckpt_ctx);
	return SQLITE_OK;
}

void store_defer_checkpoints(struct store *st, void (*due)(void *ctx), void *ctx)
{
	st->ckpt_due = due;
	st->ckpt_ctx = ctx;
	if (st->backend == STORE_BACKEND_PG)
		return;
	sqlite3_wal_hook(st->db, wal_committed, st);
}

int store_checkpoint_passive(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return 0;
	int rc = sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_sqlfail(st, rc, "checkpointing the WAL");
}

int store_comparison_profile_foreach(struct store *st, int64_t id, int rank,
                                     int (*cb)(void *ctx, int64_t idx, const char *status,
                                               const char *phase, double max_distance),
                                     void *ctx)
{
	/* the larger distance: SQLite's scalar max(), PostgreSQL's greatest() */
	struct store_q *q = store_prep_as(
	        st,
	        STORE_SQL(
	                "SELECT idx, status, phase, max(coalesce(out_dist, -1), coalesce(in_dist, "
	                "-1)) FROM comparison_rows WHERE comparison_id = ? AND rank = ? AND "
	                "status <> 0 ORDER BY idx",
	                "SELECT idx, status, phase, greatest(coalesce(out_dist, -1), "
	                "coalesce(in_dist, -1)) FROM comparison_rows WHERE comparison_id = ? AND "
	                "rank = ? AND status <> 0 ORDER BY idx"),
	        "preparing the profile query");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, rank);
	int ret = 0, rc;
	while ((rc = store_q_step(q)) == STORE_Q_ROW) {
		double d = store_q_col_double(q, 3);
		ret = cb(ctx, store_q_col_i64(q, 0),
		         matcher_status_name((enum matcher_status)store_q_col_int(q, 1)),
		         matcher_phase_name(store_q_col_int(q, 2) ? MATCHER_BACKWARD
		                                                  : MATCHER_FORWARD),
		         d);
		if (ret)
			break;
	}
	store_q_done(q);
	if (ret)
		return ret;
	return rc == STORE_Q_DONE ? 0 : store_q_fail(st, rc, "reading the profile");
}
