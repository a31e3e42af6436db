/* comparisons.c - comparisons as jobs: queue, claim (one atomic UPDATE ...
 * RETURNING, so any number of worker connections can race safely),
 * start-up requeue, finish; their stored result rows and per-step rows
 * with the filters pages use; JSON reads and deletion.
 *
 * Activation result rows are typed (migration 005): codes, distances and
 * per-stat differences, with the two entries referenced by id; reads join
 * the entries back into matcher rows.  Training per-step rows are JSON
 * text written by the worker. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define NOW      "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
#define CMP_COLS STORE_CMP_COLS

static int not_found(struct store *st, int64_t id)
{
	return store_fail(st, STORE_NOT_FOUND, "comparison %lld not found", (long long)id);
}

static int cmp_exists(struct store *st, int64_t id);

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
	        store_raw_stmt(st, SID_CMP_INSERT,
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
	        store_raw_stmt(st, SID_CMP_CLAIM,
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
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_CMP_REQUEUE,
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

int store_comparison_requeue(struct store *st, int64_t id)
{
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_CMP_REQUEUE_ONE,
	                       "UPDATE comparisons SET status = 'queued', started_at = NULL "
	                       "WHERE id = ? AND status = 'running'");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "requeueing the comparison");
	if (sqlite3_changes(st->db) == 0)
		return cmp_exists(st, id);
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
	        store_raw_stmt(st, SID_CMP_JOB,
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
	        store_raw_stmt(st, SID_CMP_STATUS, "SELECT status FROM comparisons WHERE id = ?");
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
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_CMP_RUNREF,
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

void store_row_rec_from(struct store_row_rec *rec, const struct matcher_row *row)
{
	rec->a_ord = row->a ? (int64_t)row->a->order : -1;
	rec->b_ord = row->b ? (int64_t)row->b->order : -1;
	rec->status = row->status;
	rec->method = row->method;
	rec->phase = row->phase;
	rec->origin = row->origin ? 1 : 0;
	rec->shape_differs = row->a && row->b && row->shape_differs;
	rec->output_hash_distance = row->output_hash_distance;
	rec->input_hash_distance = row->input_hash_distance;
	for (int i = 0; i < MATCHER_N_STATS; i++)
		rec->stat_diff[i] = row->stat_diff[i];
}

/* Bind a distance-like value: REAL, or NULL when none (< 0 or NaN). */
static void bind_dist(sqlite3_stmt *s, int idx, double d)
{
	if (d >= 0 && !isnan(d))
		sqlite3_bind_double(s, idx, d);
	else
		sqlite3_bind_null(s, idx);
}

int store_log_entry_ids(struct store *st, int64_t log_id, int64_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	sqlite3_stmt *s = store_raw_stmt(st, SID_CMP_LOG_EXISTS, "SELECT 1 FROM logs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, log_id);
	int rc = sqlite3_step(s), ret = 0;
	store_stmt_done(s);
	if (rc == SQLITE_DONE)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc != SQLITE_ROW)
		return store_sqlfail(st, rc, "reading the log");
	s = store_raw_stmt(st, SID_CMP_ENTRY_IDS,
	                   "SELECT ord, id FROM entries WHERE log_id = ? ORDER BY ord");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, log_id);
	size_t cap = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if ((uint64_t)sqlite3_column_int64(s, 0) != *n) {
			ret = store_fail(st, STORE_ERROR, "log %lld: entry orders are not 0..n-1",
			                 (long long)log_id);
			break;
		}
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			int64_t *nv = realloc(*ids, ncap * sizeof *nv);
			if (!nv) {
				ret = store_fail(st, STORE_ERROR, "out of memory");
				break;
			}
			*ids = nv;
			cap = ncap;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(s, 1);
	}
	if (ret == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = store_sqlfail(st, rc, "reading entry ids");
	store_stmt_done(s);
	if (ret < 0) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

/* Bind the entry id of an order (NULL for -1); -1 when out of range. */
static int bind_entry(sqlite3_stmt *s, int idx, int64_t ord, const int64_t *ids, size_t n)
{
	if (ord < 0) {
		sqlite3_bind_null(s, idx);
		return 0;
	}
	if ((uint64_t)ord >= n)
		return -1;
	sqlite3_bind_int64(s, idx, ids[ord]);
	return 0;
}

int store_comparison_rows_add(struct store *st, int64_t comparison_id, int rank,
                              const int64_t *ids_a, size_t n_a, const int64_t *ids_b, size_t n_b,
                              const struct store_row_rec *recs, size_t n)
{
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_CMP_ROW_INSERT,
	        "INSERT INTO comparison_rows(comparison_id, rank, idx, a_entry_id, b_entry_id, "
	        "status, method, phase, origin, shape_differs, out_dist, in_dist, d_shape, d_l1, "
	        "d_l2, d_min, d_max, d_mean) "
	        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	for (size_t i = 0; i < n; i++) {
		const struct store_row_rec *r = &recs[i];
		if ((unsigned)r->status >= MATCHER_N_STATUS ||
		    (unsigned)r->method > MATCHER_N_METHODS)
			return store_fail(st, STORE_INVALID, "row %zu: bad status or method", i);
		sqlite3_bind_int64(s, 1, comparison_id);
		sqlite3_bind_int(s, 2, rank);
		sqlite3_bind_int64(s, 3, (int64_t)i);
		if (bind_entry(s, 4, r->a_ord, ids_a, n_a) < 0 ||
		    bind_entry(s, 5, r->b_ord, ids_b, n_b) < 0) {
			store_stmt_done(s);
			return store_fail(st, STORE_INVALID,
			                  "row %zu of rank %d names an entry its log does not have",
			                  i, rank);
		}
		sqlite3_bind_int(s, 6, (int)r->status);
		if (r->method == MATCHER_METHOD_NONE)
			sqlite3_bind_null(s, 7);
		else
			sqlite3_bind_int(s, 7, (int)r->method);
		sqlite3_bind_int(s, 8, r->phase == MATCHER_BACKWARD);
		sqlite3_bind_int(s, 9, r->origin ? 1 : 0);
		sqlite3_bind_int(s, 10, r->shape_differs ? 1 : 0);
		bind_dist(s, 11, r->output_hash_distance);
		bind_dist(s, 12, r->input_hash_distance);
		for (int k = 0; k < MATCHER_N_STATS; k++)
			bind_dist(s, 13 + k, r->stat_diff[k]);
		int rc = insert_result_row(st, s, comparison_id, "storing a comparison row");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Bind a value that may be NaN (NULL) or infinite (kept). */
static void bind_num(sqlite3_stmt *s, int idx, double v)
{
	if (isnan(v))
		sqlite3_bind_null(s, idx);
	else
		sqlite3_bind_double(s, idx, v);
}

int store_comparison_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                              const char *const *metrics,
                              const struct matcher_train_row_cell *cells, size_t n)
{
	sqlite3_stmt *s = store_raw_stmt(st, SID_CMP_STEP_INSERT,
	                                 "INSERT INTO comparison_steps(comparison_id, rank, step) "
	                                 "VALUES (?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, comparison_id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int64(s, 3, step);
	int rc = insert_result_row(st, s, comparison_id, "storing a comparison step");
	if (rc < 0)
		return rc;
	s = store_raw_stmt(
	        st, SID_CMP_CELL_INSERT,
	        "INSERT INTO comparison_step_cells(comparison_id, rank, step, pos, metric, "
	        "a, b, dec_a, dec_b, abs, rel, abs_text, over) "
	        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	for (size_t k = 0; k < n; k++) {
		const struct matcher_train_row_cell *c = &cells[k];
		int both = c->present[0] && c->present[1];
		sqlite3_bind_int64(s, 1, comparison_id);
		sqlite3_bind_int(s, 2, rank);
		sqlite3_bind_int64(s, 3, step);
		sqlite3_bind_int64(s, 4, (int64_t)k);
		store_bind_text(s, 5, metrics[k]);
		if (c->present[0]) {
			bind_num(s, 6, c->a);
			sqlite3_bind_int(s, 8, c->dec_a);
		}
		if (c->present[1]) {
			bind_num(s, 7, c->b);
			sqlite3_bind_int(s, 9, c->dec_b);
		}
		if (both) {
			bind_num(s, 10, c->abs);
			bind_num(s, 11, c->rel);
			store_bind_text(s, 12, c->abs_text);
		}
		sqlite3_bind_int(s, 13, c->over ? 1 : 0);
		if ((rc = insert_result_row(st, s, comparison_id, "storing a comparison step")) < 0)
			return rc;
	}
	return 0;
}

static int exec_id(struct store *st, enum store_sid sid, const char *sql, int64_t id,
                   const char *what)
{
	sqlite3_stmt *s = store_raw_stmt(st, sid, sql);
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
	if (rc == 0)
		rc = exec_id(st, SID_CMP_CELLS_CLEAR,
		             "DELETE FROM comparison_step_cells WHERE comparison_id = ?",
		             comparison_id, "clearing comparison steps");
	if (rc == 0)
		rc = store_act_result_clear(st, comparison_id);
	if (rc == 0)
		rc = store_train_result_clear(st, comparison_id);
	return store_tx_end_owned(st, owned, rc);
}

int store_comparison_finish(struct store *st, int64_t id, const char *status, const char *verdict,
                            const char *result_json, const char *error)
{
	if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0))
		return store_fail(st, STORE_INVALID, "status must be \"done\" or \"failed\"");
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_CMP_FINISH,
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

/* ---- comparison views ------------------------------------------------------ */

/* The summary of a run (no logs) in the arena; *out NULL if it is gone. */
int store_run_summary(struct store *st, struct arena *a, int64_t run_id,
                      const struct store_run **out, size_t *bytes)
{
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_CMP_RUN_ROW,
	                       "SELECT id, name, kind, meta, created_at FROM runs WHERE id = ?");
	int rc = 0;
	*out = NULL;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	int src = sqlite3_step(s);
	if (src == SQLITE_ROW) {
		struct store_run *r = arena_alloc(a, sizeof *r);
		if (!r || store_run_from_cols(a, s, r, bytes) < 0)
			rc = store_fail(st, STORE_ERROR, "out of memory");
		*out = r;
	} else if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "reading a run of the comparison");
	}
	store_stmt_done(s);
	return rc;
}

/* One comparison from CMP_COLS at column 0 (and its runs, read with
 * another statement, so it may run while a page statement is stepped). */
int store_cmp_from_cols(struct store *st, struct arena *a, sqlite3_stmt *s, int with_result,
                        struct store_comparison *c, size_t *bytes)
{
	int bad = 0;
	memset(c, 0, sizeof *c);
	c->id = sqlite3_column_int64(s, 0);
	c->name = store_col_dup(a, s, 1, bytes, &bad);
	if (!c->name)
		c->name = "";
	snprintf(c->kind, sizeof c->kind, "%s", (const char *)sqlite3_column_text(s, 2));
	snprintf(c->status, sizeof c->status, "%s", (const char *)sqlite3_column_text(s, 3));
	c->verdict = store_col_dup(a, s, 4, bytes, &bad);
	c->baseline_id = sqlite3_column_int64(s, 5);
	c->candidate_id = sqlite3_column_int64(s, 6);
	c->policy_json = store_col_dup(a, s, 7, bytes, &bad);
	if (with_result)
		c->result_json = store_col_dup(a, s, 8, bytes, &bad);
	c->error = store_col_dup(a, s, 9, bytes, &bad);
	c->created_at = store_col_dup(a, s, 10, bytes, &bad);
	c->started_at = store_col_dup(a, s, 11, bytes, &bad);
	c->finished_at = store_col_dup(a, s, 12, bytes, &bad);
	c->baseline_name = store_col_dup(a, s, 13, bytes, &bad);
	c->suite = store_col_dup(a, s, 14, bytes, &bad);
	c->config = store_col_dup(a, s, 15, bytes, &bad);
	c->suite_size = sqlite3_column_int(s, 16);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	int rc = store_run_summary(st, a, c->baseline_id, &c->baseline, bytes);
	if (rc == 0)
		rc = store_run_summary(st, a, c->candidate_id, &c->candidate, bytes);
	return rc;
}

void store_comparison_view_free(struct store_comparison_view *v)
{
	if (!v)
		return;
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

int store_comparison_get(struct store *st, int64_t id, struct store_comparison_view *out)
{
	memset(out, 0, sizeof *out);
	sqlite3_stmt *s = store_raw_stmt(st, SID_CMP_GET,
	                                 "SELECT " CMP_COLS " FROM comparisons c WHERE c.id = ?");
	size_t bytes = 0;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		rc = store_cmp_from_cols(st, &out->arena, s, 1, &out->cmp, &bytes);
	else if (rc == SQLITE_DONE)
		rc = not_found(st, id);
	else
		rc = store_sqlfail(st, rc, "reading the comparison");
	store_stmt_done(s);
	if (rc == 0 && !strcmp(out->cmp.kind, "activation") && !strcmp(out->cmp.status, "done"))
		rc = store_act_result_read(st, &out->arena, id, &out->cmp.act, &bytes);
	if (rc == 0 && !strcmp(out->cmp.kind, "training") && !strcmp(out->cmp.status, "done")) {
		rc = store_train_result_read(st, &out->arena, id, &out->cmp.train, &bytes);
		if (out->cmp.train)
			out->cmp.result_json = NULL;
	}
	return rc;
}

void store_comparison_page_free(struct store_comparison_page *p)
{
	if (!p)
		return;
	free(p->cmps);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* A list item with its runs (the page counts their bytes too). */
static int cmp_item(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes)
{
	struct store_comparison_page *p = ctx;
	struct store_comparison *nv = realloc(p->cmps, (p->n_cmps + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->cmps = nv;
	*bytes += 512;
	struct store_comparison *c = &p->cmps[p->n_cmps++];
	int rc = store_cmp_from_cols(st, &p->arena, s, 0, c, bytes);
	int bad = 0;
	/* store_comparisons_find's extra column after STORE_CMP_COLS (17) */
	if (rc >= 0 && sqlite3_column_count(s) > 17)
		c->first_reason = store_col_dup(&p->arena, s, 17, bytes, &bad);
	return rc < 0 ? rc : bad ? store_fail(st, STORE_ERROR, "out of memory") : rc;
}

static void cmp_drop(void *ctx)
{
	((struct store_comparison_page *)ctx)->n_cmps--;
}

int store_comparison_set_labels(struct store *st, int64_t id, const char *baseline_name,
                                const char *suite, const char *config, int suite_size)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db,
	                            "UPDATE comparisons SET baseline_name = ?, suite = ?, "
	                            "config = ?, suite_size = ? WHERE id = ?",
	                            -1, &s, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s);
		return store_sqlfail(st, rc, "labelling the comparison");
	}
	store_bind_text(s, 1, baseline_name);
	store_bind_text(s, 2, suite);
	store_bind_text(s, 3, config);
	if (suite_size > 0)
		sqlite3_bind_int(s, 4, suite_size);
	else
		sqlite3_bind_null(s, 4);
	sqlite3_bind_int64(s, 5, id);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "labelling the comparison");
	if (sqlite3_changes(st->db) == 0)
		return not_found(st, id);
	return 0;
}

/* A list item with its runs, the result text too (ctx: the page). */
int store_cmp_item_with_result(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes)
{
	struct store_comparison_page *p = ctx;
	struct store_comparison *nv = realloc(p->cmps, (p->n_cmps + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->cmps = nv;
	*bytes += 512;
	return store_cmp_from_cols(st, &p->arena, s, 1, &p->cmps[p->n_cmps++], bytes);
}

void store_cmp_drop(void *ctx)
{
	((struct store_comparison_page *)ctx)->n_cmps--;
}

int store_comparisons_list(struct store *st, int limit, const char *cursor,
                           struct store_comparison_page *out)
{
	return store_comparisons_find(st, NULL, limit, cursor, out);
}

int store_comparisons_find(struct store *st, const struct store_list_filter *f, int limit,
                           const char *cursor, struct store_comparison_page *out)
{
	static const struct store_list_filter none;
	int64_t before = INT64_MAX;
	int rc;
	memset(out, 0, sizeof *out);
	if (!f)
		f = &none;
	if ((rc = store_cursor_parse(st, cursor, 'c', &before, 1)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_CMP_PAGE,
	        "SELECT " CMP_COLS ", COALESCE((SELECT x.message FROM act_result_reasons x WHERE "
	        "x.comparison_id = c.id ORDER BY x.seq LIMIT 1), (SELECT y.message FROM "
	        "train_result_reasons y WHERE y.comparison_id = c.id ORDER BY y.seq LIMIT 1)) "
	        "FROM comparisons c "
	        "WHERE c.id < ?1 AND (?3 IS NULL OR c.kind = ?3) AND (?4 IS NULL OR c.verdict = "
	        "?4) "
	        "AND (?5 IS NULL OR c.status = ?5) "
	        "AND (?6 = 0 OR c.baseline_id = ?6 OR c.candidate_id = ?6) "
	        "AND (?7 IS NULL OR instr(lower(c.name), lower(?7)) > 0 OR EXISTS (SELECT 1 FROM "
	        "runs r WHERE r.id IN (c.baseline_id, c.candidate_id) AND " STORE_RUN_MATCHES_Q(
	                "r", "?7") ")) ORDER BY c.id DESC LIMIT ?2");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, before);
	sqlite3_bind_int(s, 2, limit + 1);
	store_bind_text(s, 3, f->kind && f->kind[0] ? f->kind : NULL);
	store_bind_text(s, 4, f->verdict && f->verdict[0] ? f->verdict : NULL);
	store_bind_text(s, 5, f->status && f->status[0] ? f->status : NULL);
	sqlite3_bind_int64(s, 6, f->run_id > 0 ? f->run_id : 0);
	store_bind_text(s, 7, f->q && f->q[0] ? f->q : NULL);
	static const int keys[] = {0};
	return store_page_walk(st, s, limit, 'c', keys, 1, cmp_item, cmp_drop, out,
	                       "listing comparisons", out->next_cursor);
}

static int cmp_exists(struct store *st, int64_t id)
{
	char status[16];
	return store_comparison_status(st, id, status, sizeof status);
}

void store_row_page_free(struct store_row_page *p)
{
	if (!p)
		return;
	free(p->rows);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* Bit mask of the names in a comma-separated list (names[i] -> bit i);
 * -1 when list is NULL (any).  Unknown names add no bit. */
static int64_t name_mask(const char *list, const char *const *names, int n)
{
	if (!list)
		return -1;
	int64_t mask = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		for (int i = 0; i < n; i++)
			if (names[i] && strlen(names[i]) == len && !strncmp(p, names[i], len))
				mask |= (int64_t)1 << i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return mask;
}

int store_entry_keep(struct arena *a, struct matcher_entry *e, size_t *bytes)
{
	const char **strs[] = {&e->key, &e->output_hash, &e->input_hashes, &e->input_producers,
	                       &e->location};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		if (!*strs[i])
			continue;
		*bytes += strlen(*strs[i]);
		if (!(*strs[i] = arena_strdup(a, *strs[i])))
			return -1;
	}
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		if (!e->stats[i])
			continue;
		*bytes += strlen(e->stats[i]);
		if (!(e->stats[i] = arena_strdup(a, e->stats[i])))
			return -1;
	}
	return 0;
}

/* A REAL column as a distance: the value, or -1 when NULL. */
static double col_dist(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? -1 : sqlite3_column_double(s, col);
}

#define ROW_COLS                                                                                   \
	"r.rank, r.idx, r.status, r.method, r.phase, r.origin, r.shape_differs, r.out_dist, "      \
	"r.in_dist, r.d_shape, r.d_l1, r.d_l2, r.d_min, r.d_max, r.d_mean, "
#define ROW_NCOLS 15
/* Rough JSON size of a row beyond its strings (keys, numbers, flags). */
#define ROW_FIXED_BYTES 512

/* Fill one page row from the current result row of s. */
static int page_row(struct store_row_page *p, sqlite3_stmt *s, size_t *bytes)
{
	struct store_act_row *r = &p->rows[p->n_rows];
	memset(r, 0, sizeof *r);
	r->rank = sqlite3_column_int(s, 0);
	r->idx = sqlite3_column_int64(s, 1);
	r->row.status = (enum matcher_status)sqlite3_column_int(s, 2);
	r->row.method = sqlite3_column_type(s, 3) == SQLITE_NULL
	                        ? MATCHER_METHOD_NONE
	                        : (enum matcher_method)sqlite3_column_int(s, 3);
	r->row.phase = sqlite3_column_int(s, 4) ? MATCHER_BACKWARD : MATCHER_FORWARD;
	r->row.origin = sqlite3_column_int(s, 5);
	r->row.shape_differs = sqlite3_column_int(s, 6);
	r->row.output_hash_distance = col_dist(s, 7);
	r->row.input_hash_distance = col_dist(s, 8);
	for (int i = 0; i < MATCHER_N_STATS; i++)
		r->row.stat_diff[i] = col_dist(s, 9 + i);
	*bytes = ROW_FIXED_BYTES;
	store_entry_from_raw(s, ROW_NCOLS, &r->a);
	store_entry_from_raw(s, ROW_NCOLS + STORE_ENTRY_NCOLS, &r->b);
	if ((r->a.key && store_entry_keep(&p->arena, &r->a, bytes) < 0) ||
	    (r->b.key && store_entry_keep(&p->arena, &r->b, bytes) < 0))
		return -1;
	/* the array never moves once allocated: these pointers stay valid */
	r->row.a = r->a.key ? &r->a : NULL;
	r->row.b = r->b.key ? &r->b : NULL;
	return 0;
}

/* The filters of a row read (parameters ?1-?7, bound by bind_row_filters),
 * shared by the page and the count so both select the same rows. */
#define ROWS_WHERE_NOKEY                                                                           \
	"WHERE r.comparison_id = ?1 AND (?2 < 0 OR r.rank = ?2) "                                  \
	"AND (?3 < 0 OR (?3 >> r.status) & 1) "                                                    \
	"AND (?4 < 0 OR (r.method IS NOT NULL AND (?4 >> r.method) & 1)) "                         \
	"AND (?5 < 0 OR r.phase = ?5) AND (?6 < 0 OR r.origin = ?6) "
#define ROWS_WHERE ROWS_WHERE_NOKEY "AND (?7 IS NULL OR ea.key REGEXP ?7 OR eb.key REGEXP ?7) "

/* Bind ?1-?7 of ROWS_WHERE (phase already checked, "" taken as NULL). */
static void bind_row_filters(sqlite3_stmt *s, int64_t id, int rank, const char *status,
                             const char *method, const char *phase, int origin, const char *regex)
{
	const char *status_names[MATCHER_N_STATUS], *method_names[MATCHER_N_METHODS];
	for (int i = 0; i < MATCHER_N_STATUS; i++)
		status_names[i] = matcher_status_name((enum matcher_status)i);
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		method_names[i] = matcher_method_name((enum matcher_method)i);
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int64(
	        s, 3, name_mask(status && *status ? status : NULL, status_names, MATCHER_N_STATUS));
	sqlite3_bind_int64(
	        s, 4,
	        name_mask(method && *method ? method : NULL, method_names, MATCHER_N_METHODS));
	sqlite3_bind_int(s, 5, !phase || !*phase ? -1 : !strcmp(phase, "backward"));
	sqlite3_bind_int(s, 6, origin < 0 ? -1 : (origin ? 1 : 0));
	store_bind_text(s, 7, regex);
}

static int check_phase(struct store *st, const char *phase)
{
	if (phase && phase[0] && strcmp(phase, "forward") != 0 && strcmp(phase, "backward") != 0)
		return store_fail(st, STORE_INVALID, "phase must be \"forward\" or \"backward\"");
	return 0;
}

int store_comparison_rows_count(struct store *st, int64_t id, int rank, const char *status,
                                const char *method, const char *phase, int origin,
                                const struct store_key_filter *keys, int64_t *matched, int *partial)
{
	const char *regex = NULL;
	int rc;
	*matched = 0;
	*partial = 0;
	if ((rc = check_phase(st, phase)) < 0)
		return rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	/* without a regex: count(*) on the rows alone (no entry joins: 43k
	 * rows in ~5 ms instead of ~150); with one: stepped, so a read
	 * stopped by the regex budget still knows how many rows passed */
	sqlite3_stmt *s =
	        regex ? store_raw_stmt(
	                        st, SID_CMP_ROWS_COUNT,
	                        "SELECT 1 FROM comparison_rows r LEFT JOIN entries ea ON ea.id = "
	                        "r.a_entry_id LEFT JOIN entries eb ON eb.id = "
	                        "r.b_entry_id " ROWS_WHERE)
	              : store_raw_stmt(st, SID_CMP_ROWS_COUNT_NOKEY,
	                               "SELECT count(*) FROM comparison_rows r " ROWS_WHERE_NOKEY);
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	/* (binding ?7 to the NOKEY statement, which lacks it, is a no-op) */
	bind_row_filters(s, id, rank, status, method, phase, origin, regex);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		*matched += regex ? 1 : sqlite3_column_int64(s, 0);
	store_stmt_done(s);
	rc = rc == SQLITE_DONE ? 0 : store_sqlfail(st, rc, "counting comparison rows");
done:
	rc = store_keymatch_end(st, rc);
	if (rc == STORE_TOO_COSTLY && regex) {
		*partial = 1; /* a lower bound: the budget ran out */
		rc = 0;
	}
	return rc;
}

int store_comparison_row_producer(struct store *st, int64_t id, int rank, int side_b,
                                  const char *key, const char *hash, int64_t before_idx,
                                  int64_t *idx)
{
	int rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	if ((!key || !*key) && (!hash || !*hash))
		return store_fail(st, STORE_INVALID, "give the producer's key or the hash");
	/* the producer's key first (exact), else a row whose output hash
	 * list holds the hash; the nearest such row before before_idx */
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_CMP_ROW_PRODUCER,
	        "SELECT r.idx FROM comparison_rows r JOIN entries e ON e.id = "
	        "CASE WHEN ?3 THEN r.b_entry_id ELSE r.a_entry_id END "
	        "WHERE r.comparison_id = ?1 AND r.rank = ?2 AND r.idx < ?6 "
	        "AND (e.key = ?4 OR (?5 IS NOT NULL AND instr(',' || replace(e.output_hash, ' ', "
	        "'') || ',', ',' || ?5 || ',') > 0)) "
	        "ORDER BY (e.key IS ?4) DESC, r.idx DESC LIMIT 1");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int(s, 3, side_b ? 1 : 0);
	store_bind_text(s, 4, key && *key ? key : NULL);
	store_bind_text(s, 5, hash && *hash ? hash : NULL);
	sqlite3_bind_int64(s, 6, before_idx < 0 ? INT64_MAX : before_idx);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*idx = sqlite3_column_int64(s, 0);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = store_fail(st, STORE_NOT_FOUND, "no row of rank %d produced that input", rank);
	} else {
		rc = store_sqlfail(st, rc, "finding the producer row");
	}
	store_stmt_done(s);
	return rc;
}

int store_comparison_rows_list(struct store *st, int64_t id, int rank, const char *status,
                               const char *method, const char *phase, int origin,
                               const struct store_key_filter *keys, int limit, const char *cursor,
                               struct store_row_page *out)
{
	int64_t cur[2] = {INT_MIN, -1};
	int rc;
	const char *regex = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = check_phase(st, phase)) < 0)
		return rc;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	if ((rc = store_cursor_parse(st, cursor, 'w', cur, 2)) < 0)
		goto done;
	if ((rc = cmp_exists(st, id)) < 0)
		goto done;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_CMP_ROWS_PAGE,
	        "SELECT " ROW_COLS STORE_ENTRY_COLS("ea") ", " STORE_ENTRY_COLS(
	                "eb") " FROM comparison_rows r LEFT JOIN entries ea ON ea.id = "
	                      "r.a_entry_id "
	                      "LEFT JOIN entries eb ON eb.id = r.b_entry_id " ROWS_WHERE
	                      "AND (r.rank > ?8 OR (r.rank = ?8 AND r.idx > ?9)) "
	                      "ORDER BY r.rank, r.idx LIMIT ?10");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	bind_row_filters(s, id, rank, status, method, phase, origin, regex);
	sqlite3_bind_int64(s, 8, cur[0]);
	sqlite3_bind_int64(s, 9, cur[1]);
	sqlite3_bind_int(s, 10, limit + 1);
	out->rows = malloc(((size_t)limit + 1) * sizeof *out->rows);
	if (!out->rows) {
		store_stmt_done(s);
		rc = store_fail(st, STORE_ERROR, "out of memory");
		goto done;
	}
	size_t total = 0;
	int more = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t bytes = 0;
		if (out->n_rows == (size_t)limit) {
			more = 1;
			break;
		}
		if (page_row(out, s, &bytes) < 0) {
			rc = store_fail(st, STORE_ERROR, "out of memory");
			break;
		}
		if (out->n_rows > 0 && total + bytes > STORE_PAGE_BYTES) {
			more = 1;
			break;
		}
		total += bytes;
		out->n_rows++;
	}
	store_stmt_done(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE && rc >= 0)
		rc = store_sqlfail(st, rc, "listing comparison rows");
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		rc = 0;
	if (rc == 0 && more && out->n_rows) {
		const struct store_act_row *last = &out->rows[out->n_rows - 1];
		snprintf(out->next_cursor, sizeof out->next_cursor, "w%d.%lld", last->rank,
		         (long long)last->idx);
	}
done:
	rc = store_keymatch_end(st, rc);
	if (rc < 0)
		store_row_page_free(out);
	return rc;
}

void store_step_page_free(struct store_step_page *p)
{
	if (!p)
		return;
	free(p->rows);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* A REAL column that may hold NaN (NULL). */
static double col_num(sqlite3_stmt *s, int col)
{
	return sqlite3_column_type(s, col) == SQLITE_NULL ? NAN : sqlite3_column_double(s, col);
}

/* Cells per row this page can hold before its arrays grow. */
#define CELLS_GUESS 8
/* Rough JSON size of one cell. */
#define CELL_BYTES 256

/* Read the cells of the page's rows (one range query) into the arena. */
static int page_cells(struct store *st, int64_t id, struct store_step_page *p)
{
	if (!p->n_rows)
		return 0;
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_CMP_CELLS_RANGE,
	        "SELECT rank, step, metric, a, b, dec_a, dec_b, abs, rel, abs_text, over "
	        "FROM comparison_step_cells WHERE comparison_id = ?1 "
	        /* row values: an index range, not a scan from the first step */
	        "AND (rank, step) >= (?2, ?3) AND (rank, step) <= (?4, ?5) "
	        "ORDER BY rank, step, pos");
	if (!s)
		return STORE_ERROR;
	const struct store_step_row *first = &p->rows[0], *last = &p->rows[p->n_rows - 1];
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, first->rank);
	sqlite3_bind_int64(s, 3, first->step);
	sqlite3_bind_int(s, 4, last->rank);
	sqlite3_bind_int64(s, 5, last->step);
	size_t at = 0, cap = 0;
	int rc, ret = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int rank = sqlite3_column_int(s, 0);
		long step = (long)sqlite3_column_int64(s, 1);
		while (at < p->n_rows && (p->rows[at].rank < rank ||
		                          (p->rows[at].rank == rank && p->rows[at].step < step))) {
			at++;
			cap = 0;
		}
		if (at == p->n_rows)
			break;
		struct store_step_row *r = &p->rows[at];
		if (r->rank != rank || r->step != step)
			continue;
		if (r->n_cells == cap) {
			/* grow by copying into a bigger arena block (old ones stay) */
			size_t ncap = cap ? cap * 2 : CELLS_GUESS;
			struct matcher_train_row_cell *nc =
			        arena_alloc(&p->arena, ncap * sizeof *nc);
			const char **nm = arena_alloc(&p->arena, ncap * sizeof *nm);
			if (!nc || !nm) {
				ret = store_fail(st, STORE_ERROR, "out of memory");
				break;
			}
			if (r->n_cells) {
				memcpy(nc, r->cells, r->n_cells * sizeof *nc);
				memcpy(nm, r->metrics, r->n_cells * sizeof *nm);
			}
			r->cells = nc;
			r->metrics = nm;
			cap = ncap;
		}
		struct matcher_train_row_cell *c = &r->cells[r->n_cells];
		memset(c, 0, sizeof *c);
		c->present[0] = sqlite3_column_type(s, 5) != SQLITE_NULL;
		c->present[1] = sqlite3_column_type(s, 6) != SQLITE_NULL;
		c->a = c->present[0] ? col_num(s, 3) : 0;
		c->b = c->present[1] ? col_num(s, 4) : 0;
		c->dec_a = sqlite3_column_int(s, 5);
		c->dec_b = sqlite3_column_int(s, 6);
		c->abs = c->present[0] && c->present[1] ? col_num(s, 7) : 0;
		c->rel = c->present[0] && c->present[1] ? col_num(s, 8) : 0;
		snprintf(c->abs_text, sizeof c->abs_text, "%s",
		         sqlite3_column_type(s, 9) == SQLITE_NULL
		                 ? "0"
		                 : (const char *)sqlite3_column_text(s, 9));
		c->over = sqlite3_column_int(s, 10);
		const char *name = arena_strdup(&p->arena, (const char *)sqlite3_column_text(s, 2));
		if (!name) {
			ret = store_fail(st, STORE_ERROR, "out of memory");
			break;
		}
		r->metrics[r->n_cells++] = name;
	}
	if (ret == 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
		ret = store_sqlfail(st, rc, "reading comparison steps");
	store_stmt_done(s);
	return ret;
}

int store_comparison_steps_list(struct store *st, int64_t id, int rank, int limit,
                                const char *cursor, struct store_step_page *out)
{
	int64_t cur[2] = {INT_MIN, LLONG_MIN};
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = store_cursor_parse(st, cursor, 't', cur, 2)) < 0)
		return rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_CMP_STEPS_PAGE,
	        "SELECT s.rank, s.step, (SELECT count(*) FROM comparison_step_cells c "
	        "WHERE c.comparison_id = s.comparison_id AND c.rank = s.rank AND c.step = s.step) "
	        "FROM comparison_steps s WHERE s.comparison_id = ?1 AND (?2 < 0 OR s.rank = ?2) "
	        "AND (s.rank, s.step) > (?3, ?4) "
	        "ORDER BY s.rank, s.step LIMIT ?5");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int64(s, 3, cur[0]);
	sqlite3_bind_int64(s, 4, cur[1]);
	sqlite3_bind_int(s, 5, limit + 1);
	out->rows = calloc((size_t)limit + 1, sizeof *out->rows);
	if (!out->rows) {
		store_stmt_done(s);
		return store_fail(st, STORE_ERROR, "out of memory");
	}
	size_t total = 0;
	int more = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		size_t bytes = 64 + CELL_BYTES * (size_t)sqlite3_column_int64(s, 2);
		if (out->n_rows == (size_t)limit ||
		    (out->n_rows > 0 && total + bytes > STORE_PAGE_BYTES)) {
			more = 1;
			break;
		}
		out->rows[out->n_rows].rank = sqlite3_column_int(s, 0);
		out->rows[out->n_rows].step = (long)sqlite3_column_int64(s, 1);
		out->n_rows++;
		total += bytes;
	}
	store_stmt_done(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_step_page_free(out);
		return store_sqlfail(st, rc, "listing comparison steps");
	}
	if ((rc = page_cells(st, id, out)) < 0) {
		store_step_page_free(out);
		return rc;
	}
	if (more && out->n_rows) {
		const struct store_step_row *last = &out->rows[out->n_rows - 1];
		snprintf(out->next_cursor, sizeof out->next_cursor, "t%d.%ld", last->rank,
		         last->step);
	}
	return 0;
}
