/* steps.c - training and validation steps: applying parser records
 * (NEW / COPY / REPLACE) and the paged per-rank step listing.
 *
 * Metrics live in a narrow table (step_id, pos, name, text, value,
 * decimals) so every printed value keeps its text and number whatever its
 * name.  The stored rank is the record's "[rankN]:" rank, or the log's own
 * rank when the record says 0 (a per-rank file has no prefix).  Records
 * that contradict what is stored (COPY/REPLACE of an unknown step, NEW of
 * a known one) are applied as the nearest sensible thing instead of
 * failing an upload: unknown -> inserted, known NEW -> replaced. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Rank of a log, cached for the log being ingested. */
static int log_rank(struct store *st, int64_t log_id, int *rank)
{
	if (st->rank_log_id == log_id) {
		*rank = st->rank_of_log;
		return 0;
	}
	struct store_q *s = store_stmt(st, SID_LOG_RANK, "SELECT rank FROM logs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, log_id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		*rank = store_q_col_int(s, 0);
		st->rank_log_id = log_id;
		st->rank_of_log = *rank;
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	} else {
		ret = store_q_fail(st, rc, "reading the log rank");
	}
	store_q_done(s);
	return ret;
}

static int insert_metrics(struct store *st, int64_t step_id, const struct matcher_step_record *r)
{
	struct store_q *s = store_stmt(st, SID_METRIC_INSERT,
	                               "INSERT INTO step_metrics(step_id, pos, name, text, value, "
	                               "decimals, prec) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_metric_value *m = &r->metrics[i];
		store_q_bind_i64(s, 1, step_id);
		store_q_bind_i64(s, 2, (int64_t)i);
		store_q_bind_text(s, 3, m->name ? m->name : "");
		store_q_bind_text(s, 4, m->text ? m->text : "");
		if (isnan(m->value))
			store_q_bind_null(s, 5);
		else
			store_q_bind_double(s, 5, m->value);
		store_q_bind_i64(s, 6, m->decimals);
		store_q_bind_i64(s, 7, m->prec);
		int rc = store_q_step(s);
		store_q_done(s);
		if (rc != STORE_Q_DONE)
			return store_q_fail(st, rc, "storing a metric");
	}
	return 0;
}

/* Bind log_id, rank, validation, step at first..first+3. */
static void bind_step_key(struct store_q *s, int first, int64_t log_id, int rank,
                          const struct matcher_step_record *r)
{
	store_q_bind_i64(s, first, log_id);
	store_q_bind_i64(s, first + 1, rank);
	store_q_bind_i64(s, first + 2, r->validation ? 1 : 0);
	store_q_bind_i64(s, first + 3, r->step);
}

/* Insert the step; 1 when it already exists (nothing done). */
static int step_new(struct store *st, int64_t log_id, int rank, const struct matcher_step_record *r)
{
	struct store_q *s =
	        store_stmt(st, SID_STEP_INSERT,
	                   "INSERT INTO steps(log_id, rank, validation, step, line) "
	                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
	if (!s)
		return STORE_ERROR;
	bind_step_key(s, 1, log_id, rank, r);
	store_q_bind_i64(s, 5, (int64_t)r->line);
	int64_t id;
	int rc = store_q_run_id(s, &id);
	if (rc < 0 && store_q_fk_violation(st))
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc < 0)
		return store_q_fail(st, rc, "storing a step");
	if (rc == STORE_Q_DONE)
		return 1;
	return insert_metrics(st, id, r);
}

/* Replace line and metrics of an existing step; 1 when there is none. */
static int step_replace(struct store *st, int64_t log_id, int rank,
                        const struct matcher_step_record *r)
{
	struct store_q *s = store_stmt(st, SID_STEP_REPLACE,
	                               "UPDATE steps SET line = ? WHERE log_id = ? AND rank = ? "
	                               "AND validation = ? AND step = ? RETURNING id");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, (int64_t)r->line);
	bind_step_key(s, 2, log_id, rank, r);
	int64_t id = -1;
	int rc;
	while ((rc = store_q_step(s)) == STORE_Q_ROW)
		id = store_q_col_i64(s, 0);
	store_q_done(s);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "replacing a step");
	if (id < 0)
		return 1;
	struct store_q *d =
	        store_stmt(st, SID_METRICS_DELETE, "DELETE FROM step_metrics WHERE step_id = ?");
	if (!d)
		return STORE_ERROR;
	store_q_bind_i64(d, 1, id);
	rc = store_q_step(d);
	store_q_done(d);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "replacing a step");
	return insert_metrics(st, id, r);
}

/* Count one more copy; 1 when the step is unknown. */
static int step_copy(struct store *st, int64_t log_id, int rank,
                     const struct matcher_step_record *r)
{
	struct store_q *s = store_stmt(st, SID_STEP_COPY,
	                               "UPDATE steps SET copies = copies + 1 WHERE log_id = ? "
	                               "AND rank = ? AND validation = ? AND step = ?");
	if (!s)
		return STORE_ERROR;
	bind_step_key(s, 1, log_id, rank, r);
	int rc = store_q_step(s);
	store_q_done(s);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "counting a step copy");
	return store_q_changes(s) == 0 ? 1 : 0;
}

int store_step_add(struct store *st, int64_t log_id, const struct matcher_step_record *r)
{
	int rank = 0, rc;
	if ((rc = log_rank(st, log_id, &rank)) < 0)
		return rc;
	if (r->rank != 0)
		rank = r->rank;
	switch (r->kind) {
	case MATCHER_STEP_COPY:
		rc = step_copy(st, log_id, rank, r);
		if (rc == 1)
			rc = step_new(st, log_id, rank, r);
		break;
	case MATCHER_STEP_REPLACE:
		rc = step_replace(st, log_id, rank, r);
		if (rc == 1)
			rc = step_new(st, log_id, rank, r);
		break;
	default:
		rc = step_new(st, log_id, rank, r);
		if (rc == 1)
			rc = step_replace(st, log_id, rank, r);
		break;
	}
	return rc == 1 ? store_fail(st, STORE_ERROR, "step %ld could not be stored", r->step) : rc;
}

/* ---- listing ------------------------------------------------------------- */

void store_run_step_page_free(struct store_run_step_page *p)
{
	if (!p)
		return;
	free(p->steps);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* The metrics of one stored step into x (arena a). */
static int metrics_read(struct store *st, struct arena *a, int64_t step_id,
                        struct store_run_step *x, size_t *bytes)
{
	struct store_q *s = store_stmt(st, SID_STEP_METRICS,
	                               "SELECT name, text, value FROM step_metrics "
	                               "WHERE step_id = ? ORDER BY pos");
	size_t cap = 0;
	int src, bad = 0;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, step_id);
	while (!bad && (src = store_q_step(s)) == STORE_Q_ROW) {
		struct store_step_metric *nv =
		        store_arena_grow(a, x->metrics, x->n_metrics, &cap, sizeof *nv);
		if ((bad = !nv))
			break;
		x->metrics = nv;
		struct store_step_metric *m = &x->metrics[x->n_metrics++];
		m->name = store_q_col_dup(a, s, 0, bytes, &bad);
		if (!m->name)
			m->name = "";
		m->text = store_q_col_dup(a, s, 1, bytes, &bad);
		m->value = store_q_col_double(s, 2);
		m->has_value = !store_q_col_isnull(s, 2) && isfinite(m->value);
		*bytes += 64;
	}
	store_q_done(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (src != STORE_Q_DONE)
		return store_q_fail(st, src, "reading metrics");
	return 0;
}

/* One stored step with its metrics (a second query per step; pages are
 * at most 1000 steps). */
static int step_item(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	struct store_run_step_page *p = ctx;
	struct store_run_step *nv = realloc(p->steps, (p->n_steps + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->steps = nv;
	struct store_run_step *x = &p->steps[p->n_steps++];
	memset(x, 0, sizeof *x);
	x->step = (long)store_q_col_i64(s, 1);
	x->rank = store_q_col_int(s, 2);
	x->line = store_q_col_i64(s, 3);
	x->copies = store_q_col_i64(s, 4);
	*bytes += 128;
	return metrics_read(st, &p->arena, store_q_col_i64(s, 0), x, bytes);
}

static void step_drop(void *ctx)
{
	((struct store_run_step_page *)ctx)->n_steps--;
}

int store_steps_list(struct store *st, int64_t run_id, int rank, int validation, int limit,
                     const char *cursor, struct store_run_step_page *out)
{
	int64_t cur[2] = {LLONG_MIN, -1};
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = store_cursor_parse(st, cursor, 's', cur, 2)) < 0)
		return rc;
	if ((rc = store_run_exists(st, run_id)) <= 0)
		return rc == 0 ? store_fail(st, STORE_NOT_FOUND, "run %lld not found",
		                            (long long)run_id)
		               : rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = store_stmt(st, SID_STEPS_PAGE,
	                               "SELECT s.id, s.step, s.rank, s.line, s.copies "
	                               "FROM logs l JOIN steps s ON s.log_id = l.id "
	                               "WHERE l.run_id = ?1 AND s.rank = ?2 AND s.validation = ?3 "
	                               "AND s.step >= ?4 AND (s.step > ?4 OR s.id > ?5) "
	                               "ORDER BY s.step, s.id LIMIT ?6");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, validation ? 1 : 0);
	store_q_bind_i64(s, 4, cur[0]);
	store_q_bind_i64(s, 5, cur[1]);
	store_q_bind_i64(s, 6, limit + 1);
	static const int keys[] = {1, 0}; /* step, then id */
	return store_q_page_walk(st, s, limit, 's', keys, 2, step_item, step_drop, out,
	                         "listing steps", out->next_cursor);
}
