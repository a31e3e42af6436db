/* sources.c - where a training log came from (issue 14): logs.source,
 * "stdout", "tfevents" or "lossfile" (migrations/sqlite/006_train_sources.sql).
 * The per-value precision travels with the metrics (steps.c, load.c). */
#include <stdio.h>
#include <string.h>

#include "store_int.h"
#include "trainsrc.h"

int store_log_set_source(struct store *st, int64_t log_id, const char *source)
{
	enum matcher_source src;
	if (matcher_source_from_name(source, &src) < 0)
		return store_fail(st, STORE_INVALID, "unknown log source");
	struct store_q *q =
	        store_stmt(st, SID_LOG_SET_SOURCE, "UPDATE logs SET source = ? WHERE id = ?");
	if (!q)
		return STORE_ERROR;
	store_q_bind_text(q, 1, matcher_source_name(src));
	store_q_bind_i64(q, 2, log_id);
	int rc = store_q_step(q);
	store_q_done(q);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "storing the log source");
	if (store_q_changes(q) == 0)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	return 0;
}

int store_log_source(struct store *st, int64_t log_id, char *out, size_t cap)
{
	struct store_q *q = store_stmt(st, SID_LOG_SOURCE, "SELECT source FROM logs WHERE id = ?");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, log_id);
	int rc = store_q_step(q), ret = 0;
	if (rc == STORE_Q_ROW) {
		const char *t = store_q_col_text(q, 0);
		snprintf(out, cap, "%s", t ? t : "stdout");
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	} else {
		ret = store_q_fail(st, rc, "reading the log source");
	}
	store_q_done(q);
	return ret;
}
