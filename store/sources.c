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
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_LOG_SET_SOURCE, "UPDATE logs SET source = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_bind_text(s, 1, matcher_source_name(src));
	sqlite3_bind_int64(s, 2, log_id);
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "storing the log source");
	if (sqlite3_changes(st->db) == 0)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	return 0;
}

int store_log_source(struct store *st, int64_t log_id, char *out, size_t cap)
{
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_LOG_SOURCE, "SELECT source FROM logs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, log_id);
	int rc = sqlite3_step(s), ret = 0;
	if (rc == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(s, 0);
		snprintf(out, cap, "%s", t ? (const char *)t : "stdout");
	} else if (rc == SQLITE_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	} else {
		ret = store_sqlfail(st, rc, "reading the log source");
	}
	store_stmt_done(s);
	return ret;
}
