/* comparisons.c - comparisons as jobs: queue, claim (one atomic UPDATE ...
 * RETURNING, so any number of worker connections can race safely),
 * start-up requeue, finish; their stored result rows and per-step rows
 * with the filters pages use; JSON reads and deletion.
 *
 * Result rows are JSON text written by the worker plus the columns the
 * filters need (status, method, phase, origin, keys, max distance); the
 * store never interprets the row JSON beyond parsing it for output. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
#define CMP_COLS                                                                                   \
	"c.id, c.name, c.kind, c.status, c.verdict, c.baseline_id, c.candidate_id, "               \
	"c.policy, c.result, c.error, c.created_at, c.started_at, c.finished_at"

static int not_found(struct store *st, int64_t id)
{
	return store_fail(st, STORE_NOT_FOUND, "comparison %lld not found", (long long)id);
}

/* Parse JSON text of a column; null when NULL or unparsable. */
static json_t *col_json(sqlite3_stmt *s, int col)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return json_null();
	json_t *j = json_loadb((const char *)sqlite3_column_text(s, col),
	                       (size_t)sqlite3_column_bytes(s, col), JSON_DECODE_ANY, NULL);
	return j ? j : json_null();
}

/* ---- jobs ---------------------------------------------------------------- */

int store_comparison_create(struct store *st, int64_t baseline_id, int64_t candidate_id,
                            const char *kind, const char *name, const char *policy_json,
                            const char *overrides_text, int64_t *id)
{
	char kb[16], kc[16];
	int owned = 0, rc;
	if (!kind || (strcmp(kind, "activation") != 0 && strcmp(kind, "training") != 0))
		return store_fail(st, STORE_INVALID, "kind must be \"activation\" or \"training\"");
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if ((rc = store_run_kind(st, baseline_id, kb, sizeof kb)) < 0 ||
	    (rc = store_run_kind(st, candidate_id, kc, sizeof kc)) < 0)
		goto done;
	if (strcmp(kb, kind) != 0 || strcmp(kc, kind) != 0) {
		rc = store_fail(
		        st, STORE_INVALID,
		        "a %s comparison needs two %s runs (baseline is %s, candidate is %s)", kind,
		        kind, kb, kc);
		goto done;
	}
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_INSERT,
	                   "INSERT INTO comparisons(name, kind, baseline_id, candidate_id, "
	                   "policy, overrides, created_at) VALUES (?, ?, ?, ?, ?, ?, " NOW ")");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_bind_text(s, 1, name ? name : "");
	store_bind_text(s, 2, kind);
	sqlite3_bind_int64(s, 3, baseline_id);
	sqlite3_bind_int64(s, 4, candidate_id);
	store_bind_text(s, 5, policy_json);
	store_bind_text(s, 6, overrides_text);
	int src = sqlite3_step(s);
	store_stmt_done(s);
	if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "creating the comparison");
		goto done;
	}
	if (id)
		*id = sqlite3_last_insert_rowid(st->db);
	rc = 0;
done:
	return store_tx_end_owned(st, owned, rc);
}

int store_comparison_claim(struct store *st, int64_t *id)
{
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_CLAIM,
	                   "UPDATE comparisons SET status = 'running', started_at = " NOW
	                   " WHERE id = (SELECT id FROM comparisons WHERE status = 'queued' "
	                   "ORDER BY id LIMIT 1) RETURNING id");
	if (!s)
		return STORE_ERROR;
	int64_t got = -1;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		got = sqlite3_column_int64(s, 0);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "claiming a comparison");
	if (got < 0)
		return store_fail(st, STORE_NOT_FOUND, "no queued comparison");
	if (id)
		*id = got;
	return 0;
}

int store_comparisons_requeue_running(struct store *st, int *n)
{
	sqlite3_stmt *s = store_stmt(st, SID_CMP_REQUEUE,
	                             "UPDATE comparisons SET status = 'queued', started_at = NULL "
	                             "WHERE status = 'running'");
	if (!s)
		return STORE_ERROR;
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "requeueing comparisons");
	if (n)
		*n = sqlite3_changes(st->db);
	return 0;
}

static char *col_strdup(sqlite3_stmt *s, int col, int *oom)
{
	if (sqlite3_column_type(s, col) == SQLITE_NULL)
		return NULL;
	char *p = strdup((const char *)sqlite3_column_text(s, col));
	if (!p)
		*oom = 1;
	return p;
}

int store_comparison_job(struct store *st, int64_t id, struct store_comparison_job *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_JOB,
	                   "SELECT kind, status, baseline_id, candidate_id, name, policy, "
	                   "overrides FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s), ret = 0, oom = 0;
	if (rc == SQLITE_ROW) {
		out->id = id;
		snprintf(out->kind, sizeof out->kind, "%s",
		         (const char *)sqlite3_column_text(s, 0));
		snprintf(out->status, sizeof out->status, "%s",
		         (const char *)sqlite3_column_text(s, 1));
		out->baseline_id = sqlite3_column_int64(s, 2);
		out->candidate_id = sqlite3_column_int64(s, 3);
		out->name = col_strdup(s, 4, &oom);
		out->policy_json = col_strdup(s, 5, &oom);
		out->overrides = col_strdup(s, 6, &oom);
		if (oom) {
			store_comparison_job_free(out);
			ret = store_fail(st, STORE_ERROR, "out of memory");
		}
	} else if (rc == SQLITE_DONE) {
		ret = not_found(st, id);
	} else {
		ret = store_sqlfail(st, rc, "reading the comparison");
	}
	store_stmt_done(s);
	return ret;
}

void store_comparison_job_free(struct store_comparison_job *job)
{
	if (!job)
		return;
	free(job->name);
	free(job->policy_json);
	free(job->overrides);
	job->name = job->policy_json = job->overrides = NULL;
}

int store_comparison_status(struct store *st, int64_t id, char *status_out, size_t cap)
{
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_STATUS, "SELECT status FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s), ret = 0;
	if (rc == SQLITE_ROW) {
		if (status_out && cap)
			snprintf(status_out, cap, "%s", (const char *)sqlite3_column_text(s, 0));
	} else if (rc == SQLITE_DONE) {
		ret = not_found(st, id);
	} else {
		ret = store_sqlfail(st, rc, "reading the comparison");
	}
	store_stmt_done(s);
	return ret;
}

int store_run_in_comparison(struct store *st, int64_t run_id, int64_t *cmp_id)
{
	sqlite3_stmt *s = store_stmt(st, SID_CMP_RUNREF,
	                             "SELECT id FROM comparisons WHERE baseline_id = ?1 "
	                             "UNION ALL SELECT id FROM comparisons WHERE candidate_id = ?1 "
	                             "LIMIT 1");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	int rc = sqlite3_step(s), ret;
	if (rc == SQLITE_ROW) {
		if (cmp_id)
			*cmp_id = sqlite3_column_int64(s, 0);
		ret = 1;
	} else if (rc == SQLITE_DONE) {
		ret = 0;
	} else {
		ret = store_sqlfail(st, rc, "checking comparisons of the run");
	}
	store_stmt_done(s);
	return ret;
}

/* ---- results ------------------------------------------------------------- */

/* Run a bound INSERT of a result row or step and reset it; a missing
 * comparison (foreign key) is STORE_NOT_FOUND. */
static int insert_result_row(struct store *st, sqlite3_stmt *s, int64_t comparison_id,
                             const char *what)
{
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return not_found(st, comparison_id);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, what);
	return 0;
}

int store_comparison_row_add(struct store *st, int64_t comparison_id, int rank, int64_t idx,
                             const char *status, const char *method, const char *phase, int origin,
                             const char *a_key, const char *b_key, double max_distance,
                             const char *row_json)
{
	if (!status || !phase || !row_json)
		return store_fail(st, STORE_INVALID, "row without status, phase or JSON");
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_ROW_INSERT,
	                   "INSERT INTO comparison_rows(comparison_id, rank, idx, status, "
	                   "method, phase, origin, a_key, b_key, max_distance, row) "
	                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, comparison_id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int64(s, 3, idx);
	store_bind_text(s, 4, status);
	store_bind_text(s, 5, method);
	store_bind_text(s, 6, phase);
	sqlite3_bind_int(s, 7, origin ? 1 : 0);
	store_bind_text(s, 8, a_key);
	store_bind_text(s, 9, b_key);
	if (!isnan(max_distance))
		sqlite3_bind_double(s, 10, max_distance);
	store_bind_text(s, 11, row_json);
	return insert_result_row(st, s, comparison_id, "storing a comparison row");
}

int store_comparison_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                              const char *row_json)
{
	if (!row_json)
		return store_fail(st, STORE_INVALID, "step row without JSON");
	sqlite3_stmt *s = store_stmt(st, SID_CMP_STEP_INSERT,
	                             "INSERT INTO comparison_steps(comparison_id, rank, step, row) "
	                             "VALUES (?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, comparison_id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int64(s, 3, step);
	store_bind_text(s, 4, row_json);
	return insert_result_row(st, s, comparison_id, "storing a comparison step");
}

static int exec_id(struct store *st, enum store_sid sid, const char *sql, int64_t id,
                   const char *what)
{
	sqlite3_stmt *s = store_stmt(st, sid, sql);
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, what);
	return 0;
}

int store_comparison_rows_clear(struct store *st, int64_t comparison_id)
{
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = exec_id(st, SID_CMP_ROWS_CLEAR, "DELETE FROM comparison_rows WHERE comparison_id = ?",
	             comparison_id, "clearing comparison rows");
	if (rc == 0)
		rc = exec_id(st, SID_CMP_STEPS_CLEAR,
		             "DELETE FROM comparison_steps WHERE comparison_id = ?", comparison_id,
		             "clearing comparison steps");
	return store_tx_end_owned(st, owned, rc);
}

int store_comparison_finish(struct store *st, int64_t id, const char *status, const char *verdict,
                            const char *result_json, const char *error)
{
	if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0))
		return store_fail(st, STORE_INVALID, "status must be \"done\" or \"failed\"");
	sqlite3_stmt *s = store_stmt(st, SID_CMP_FINISH,
	                             "UPDATE comparisons SET status = ?, verdict = ?, result = ?, "
	                             "error = ?, finished_at = " NOW " WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_bind_text(s, 1, status);
	store_bind_text(s, 2, verdict);
	store_bind_text(s, 3, result_json);
	store_bind_text(s, 4, error);
	sqlite3_bind_int64(s, 5, id);
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "finishing the comparison");
	if (sqlite3_changes(st->db) == 0)
		return not_found(st, id);
	return 0;
}

int store_comparison_delete(struct store *st, int64_t id)
{
	int rc = exec_id(st, SID_CMP_DELETE, "DELETE FROM comparisons WHERE id = ?", id,
	                 "deleting the comparison");
	if (rc == 0 && sqlite3_changes(st->db) == 0)
		return not_found(st, id);
	return rc;
}

/* ---- JSON reads ---------------------------------------------------------- */

/* The summary object of a run (no logs) for embedding; null if gone. */
static json_t *run_summary(struct store *st, int64_t run_id)
{
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_RUN_ROW,
	                   "SELECT id, name, kind, meta, created_at FROM runs WHERE id = ?");
	json_t *j = NULL;
	if (!s)
		return json_null();
	sqlite3_bind_int64(s, 1, run_id);
	if (sqlite3_step(s) == SQLITE_ROW)
		j = store_run_row_json(s);
	store_stmt_done(s);
	return j ? j : json_null();
}

/* One comparison object from CMP_COLS at column 0. */
static json_t *cmp_json(struct store *st, sqlite3_stmt *s, int with_result)
{
	json_t *c = json_object();
	if (!c)
		return NULL;
	json_object_set_new(c, "id", json_integer(sqlite3_column_int64(s, 0)));
	json_object_set_new(c, "name", store_json_col_text(s, 1));
	json_object_set_new(c, "kind", store_json_col_text(s, 2));
	json_object_set_new(c, "status", store_json_col_text(s, 3));
	json_object_set_new(c, "verdict", store_json_col_text(s, 4));
	json_object_set_new(c, "baseline", json_integer(sqlite3_column_int64(s, 5)));
	json_object_set_new(c, "candidate", json_integer(sqlite3_column_int64(s, 6)));
	json_object_set_new(c, "policy", col_json(s, 7));
	if (with_result)
		json_object_set_new(c, "result", col_json(s, 8));
	json_object_set_new(c, "error", store_json_col_text(s, 9));
	json_object_set_new(c, "created_at", store_json_col_text(s, 10));
	json_object_set_new(c, "started_at", store_json_col_text(s, 11));
	json_object_set_new(c, "finished_at", store_json_col_text(s, 12));
	(void)st;
	return c;
}

/* Add "runs":{"baseline":..,"candidate":..} (reads with another
 * statement, so it may run while a page statement is being stepped). */
static void add_runs(struct store *st, json_t *c)
{
	json_t *runs = json_object();
	json_object_set_new(runs, "baseline",
	                    run_summary(st, json_integer_value(json_object_get(c, "baseline"))));
	json_object_set_new(runs, "candidate",
	                    run_summary(st, json_integer_value(json_object_get(c, "candidate"))));
	json_object_set_new(c, "runs", runs);
}

json_t *store_comparison_json(struct store *st, int64_t id)
{
	sqlite3_stmt *s = store_stmt(st, SID_CMP_GET,
	                             "SELECT " CMP_COLS " FROM comparisons c WHERE c.id = ?");
	json_t *c = NULL;
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		c = cmp_json(st, s, 1);
	else if (rc == SQLITE_DONE)
		not_found(st, id);
	else
		store_sqlfail(st, rc, "reading the comparison");
	store_stmt_done(s);
	if (c)
		add_runs(st, c);
	return c;
}

/* A list item, with its runs (the page counts their bytes too). */
static json_t *cmp_row(struct store *st, sqlite3_stmt *s, void *ctx, int *rc)
{
	(void)ctx, (void)rc;
	json_t *c = cmp_json(st, s, 0);
	if (c)
		add_runs(st, c);
	return c;
}

int store_comparisons_list(struct store *st, int limit, const char *cursor, json_t **out)
{
	int64_t before = INT64_MAX;
	int rc;
	*out = NULL;
	if ((rc = store_cursor_parse(st, cursor, 'c', &before, 1)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_stmt(st, SID_CMP_PAGE,
	                             "SELECT " CMP_COLS " FROM comparisons c WHERE c.id < ? "
	                             "ORDER BY c.id DESC LIMIT ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, before);
	sqlite3_bind_int(s, 2, limit + 1);
	static const int keys[] = {0};
	return store_page_collect(st, s, limit, "comparisons", 'c', keys, 1, cmp_row, NULL,
	                          "listing comparisons", out);
}

static int cmp_exists(struct store *st, int64_t id)
{
	char status[16];
	return store_comparison_status(st, id, status, sizeof status);
}

/* Row JSON parsed, plus extra integer fields. */
static json_t *row_with(sqlite3_stmt *s, int json_col, const char *k1, int64_t v1, const char *k2,
                        int64_t v2)
{
	json_t *r = col_json(s, json_col);
	if (!json_is_object(r)) {
		json_decref(r);
		r = json_object();
	}
	if (!r)
		return NULL;
	json_object_set_new(r, k1, json_integer(v1));
	json_object_set_new(r, k2, json_integer(v2));
	return r;
}

/* Row JSON of a rows/steps page with its two key columns added
 * (ctx = the name of the second key: "idx" or "step"). */
static json_t *keyed_row(struct store *st, sqlite3_stmt *s, void *ctx, int *rc)
{
	(void)st, (void)rc;
	return row_with(s, 2, "rank", sqlite3_column_int64(s, 0), ctx, sqlite3_column_int64(s, 1));
}

int store_comparison_rows_list(struct store *st, int64_t id, int rank, const char *status,
                               const char *method, const char *phase, int origin,
                               const struct store_key_filter *keys, int limit, const char *cursor,
                               json_t **out)
{
	int64_t cur[2] = {INT_MIN, -1};
	int rc;
	const char *regex = NULL;
	*out = NULL;
	if (phase && !phase[0])
		phase = NULL;
	if (phase && strcmp(phase, "forward") != 0 && strcmp(phase, "backward") != 0)
		return store_fail(st, STORE_INVALID, "phase must be \"forward\" or \"backward\"");
	if (status && !status[0])
		status = NULL;
	if (method && !method[0])
		method = NULL;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	if ((rc = store_cursor_parse(st, cursor, 'w', cur, 2)) < 0)
		goto done;
	if ((rc = cmp_exists(st, id)) < 0)
		goto done;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s =
	        store_stmt(st, SID_CMP_ROWS_PAGE,
	                   "SELECT rank, idx, row FROM comparison_rows WHERE comparison_id = ?1 "
	                   "AND (?2 < 0 OR rank = ?2) "
	                   "AND (?3 IS NULL OR instr(',' || ?3 || ',', ',' || status || ',') > 0) "
	                   "AND (?4 IS NULL OR instr(',' || ?4 || ',', ',' || method || ',') > 0) "
	                   "AND (?5 IS NULL OR phase = ?5) AND (?6 < 0 OR origin = ?6) "
	                   "AND (?7 IS NULL OR a_key REGEXP ?7 OR b_key REGEXP ?7) "
	                   "AND (rank > ?8 OR (rank = ?8 AND idx > ?9)) "
	                   "ORDER BY rank, idx LIMIT ?10");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, rank);
	store_bind_text(s, 3, status);
	store_bind_text(s, 4, method);
	store_bind_text(s, 5, phase);
	sqlite3_bind_int(s, 6, origin < 0 ? -1 : (origin ? 1 : 0));
	store_bind_text(s, 7, regex);
	sqlite3_bind_int64(s, 8, cur[0]);
	sqlite3_bind_int64(s, 9, cur[1]);
	sqlite3_bind_int(s, 10, limit + 1);
	static const int key_cols[] = {0, 1};
	rc = store_page_collect(st, s, limit, "rows", 'w', key_cols, 2, keyed_row, (void *)"idx",
	                        "listing comparison rows", out);
done:
	return store_keymatch_end(st, rc);
}

int store_comparison_steps_list(struct store *st, int64_t id, int rank, int limit,
                                const char *cursor, json_t **out)
{
	int64_t cur[2] = {INT_MIN, LLONG_MIN};
	int rc;
	*out = NULL;
	if ((rc = store_cursor_parse(st, cursor, 't', cur, 2)) < 0)
		return rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_stmt(st, SID_CMP_STEPS_PAGE,
	                             "SELECT rank, step, row FROM comparison_steps "
	                             "WHERE comparison_id = ?1 AND (?2 < 0 OR rank = ?2) "
	                             "AND (rank > ?3 OR (rank = ?3 AND step > ?4)) "
	                             "ORDER BY rank, step LIMIT ?5");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int64(s, 3, cur[0]);
	sqlite3_bind_int64(s, 4, cur[1]);
	sqlite3_bind_int(s, 5, limit + 1);
	static const int keys[] = {0, 1};
	return store_page_collect(st, s, limit, "steps", 't', keys, 2, keyed_row, (void *)"step",
	                          "listing comparison steps", out);
}

int store_comparison_steps_foreach(struct store *st, int64_t id, int rank,
                                   int (*cb)(void *ctx, int rank, long step, const char *row_json),
                                   void *ctx)
{
	int rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	sqlite3_stmt *s = store_stmt(st, SID_CMP_STEPS_ALL,
	                             "SELECT rank, step, row FROM comparison_steps "
	                             "WHERE comparison_id = ?1 AND (?2 < 0 OR rank = ?2) "
	                             "ORDER BY rank, step");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, rank);
	int ret = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((ret = cb(ctx, sqlite3_column_int(s, 0), (long)sqlite3_column_int64(s, 1),
		              (const char *)sqlite3_column_text(s, 2))) != 0)
			break;
	}
	if (ret == 0 && rc != SQLITE_DONE)
		ret = store_sqlfail(st, rc, "reading comparison steps");
	store_stmt_done(s);
	return ret;
}
