/* trainresult.c - the typed result of a training comparison (migration
 * 009): store_train_result_put writes it inside the job's transaction;
 * store_train_result_read (store_comparison_get) reads it back into an
 * arena.  Reals: NaN is stored as NULL and read back as NaN; ±Inf and
 * every finite double are stored and read back exactly (on PostgreSQL as
 * DOUBLE PRECISION: "Infinity", shortest exact text).  Every statement
 * goes through the statement layer (stmt.h), in the cached slot
 * SID_TRAIN_RESULT + enum train_q; the read helpers are actresult.c's
 * store_result_* (store_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* The statements: slot SID_TRAIN_RESULT + T_* */
enum train_q {
	T_CLEAR, /* T_CLEAR .. T_CLEAR + N_CLEAR - 1: a DELETE per table */
	T_TOP = T_CLEAR + 7,
	T_TH,
	T_REASON,
	T_METRIC,
	T_NOTE,
	T_ONLY,
	T_WARN,
	T_HEAD,
	T_READ_TH,
	T_READ_REASONS,
	T_READ_METRICS,
	T_READ_NOTES,
	T_READ_ONLY,
	T_READ_WARN,
	T_N
};
_Static_assert(SID_TRAIN_RESULT + T_N - 1 == SID_TRAIN_RESULT_LAST,
               "store_int.h reserves one slot per statement of trainresult.c");
#define SID(x) (SID_TRAIN_RESULT + (x))

static const char *const tables[] = {
        "train_results",         "train_result_thresholds", "train_result_reasons",
        "train_result_metrics",  "train_result_notes",      "train_result_only_steps",
        "train_result_warnings",
};
#define N_CLEAR (sizeof tables / sizeof *tables)
_Static_assert(N_CLEAR == T_TOP - T_CLEAR, "one clear slot per table");

static void bind_num(struct store_q *q, int i, double d)
{
	if (isnan(d))
		store_q_bind_null(q, i);
	else
		store_q_bind_double(q, i, d);
}

static double col_num(struct store_q *q, int c)
{
	return store_q_col_isnull(q, c) ? NAN : store_q_col_double(q, c);
}

int store_train_result_clear(struct store *st, int64_t id)
{
	return store_result_clear(st, SID(T_CLEAR), tables, N_CLEAR, id);
}

static int put_top(struct store *st, int64_t id, const struct store_train_result *r)
{
	struct store_q *q = store_stmt(st, SID(T_TOP),
	                               "INSERT INTO train_results VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	                               "?7, ?8, ?9, ?10, ?11)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int)r->verdict);
	store_q_bind_i64(q, 3, r->rank);
	store_q_bind_text(q, 4, r->policy.name);
	store_q_bind_text(q, 5, r->policy.base);
	store_q_bind_i64(q, 6, r->policy.min_steps);
	store_q_bind_i64(q, 7, r->policy.allow_warnings ? 1 : 0);
	if (r->policy.rank >= 0)
		store_q_bind_i64(q, 8, r->policy.rank);
	store_q_bind_i64(q, 9, r->n_common);
	store_q_bind_i64(q, 10, r->n_only[0]);
	store_q_bind_i64(q, 11, r->n_only[1]);
	return store_result_step(st, q);
}

static int put_threshold(struct store *st, int64_t id, size_t i,
                         const struct matcher_train_threshold *t)
{
	struct store_q *q = store_stmt(
	        st, SID(T_TH),
	        "INSERT INTO train_result_thresholds VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int64_t)i);
	store_q_bind_text(q, 3, t->metric);
	bind_num(q, 4, t->abs);
	if (t->has_rel)
		bind_num(q, 5, t->rel);
	store_q_bind_i64(q, 6, t->has_rel ? 1 : 0);
	store_q_bind_i64(q, 7, t->if_logged ? 1 : 0);
	return store_result_step(st, q);
}

static int put_reason(struct store *st, int64_t id, size_t i, const struct matcher_train_reason *x)
{
	struct store_q *q =
	        store_stmt(st, SID(T_REASON),
	                   "INSERT INTO train_result_reasons VALUES (?1, ?2, ?3, ?4, ?5, "
	                   "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int64_t)i);
	store_q_bind_text(q, 3, x->code ? x->code : "");
	store_q_bind_text(q, 4, x->message);
	if (x->metric[0])
		store_q_bind_text(q, 5, x->metric);
	if (x->side)
		store_q_bind_i64(q, 6, strcmp(x->side, "baseline") ? 1 : 0);
	if (x->has_step)
		store_q_bind_i64(q, 7, x->step);
	if (x->has_abs) {
		bind_num(q, 8, x->abs);
		store_q_bind_text(q, 9, x->abs_text);
	}
	if (x->has_threshold)
		bind_num(q, 10, x->threshold);
	store_q_bind_i64(q, 11, x->has_threshold ? 1 : 0);
	if (x->has_count)
		store_q_bind_i64(q, 12, x->count);
	if (x->has_line)
		store_q_bind_i64(q, 13, (int64_t)x->line);
	return store_result_step(st, q);
}

static int put_metric(struct store *st, int64_t id, size_t i,
                      const struct matcher_train_metric_result *m)
{
	struct store_q *q = store_stmt(
	        st, SID(T_METRIC),
	        "INSERT INTO train_result_metrics VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	        "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)");
	int c = 1;
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, c++, id);
	store_q_bind_i64(q, c++, (int64_t)i);
	store_q_bind_text(q, c++, m->name);
	bind_num(q, c++, m->th.abs);
	if (m->th.has_rel)
		bind_num(q, c, m->th.rel);
	c++;
	store_q_bind_i64(q, c++, m->th.has_rel ? 1 : 0);
	store_q_bind_i64(q, c++, m->present[0] ? 1 : 0);
	store_q_bind_i64(q, c++, m->present[1] ? 1 : 0);
	if (m->has_resolution) {
		store_q_bind_i64(q, c++, m->decimals);
		bind_num(q, c++, m->resolution);
	} else {
		c += 2;
	}
	store_q_bind_i64(q, c++, m->below_resolution ? 1 : 0);
	store_q_bind_i64(q, c++, (int64_t)m->n_compared);
	bind_num(q, c++, m->max_abs);
	store_q_bind_text(q, c++, m->max_abs_text);
	bind_num(q, c++, m->mean_abs);
	bind_num(q, c++, m->max_rel);
	bind_num(q, c++, m->mean_rel);
	if (m->has_max_step)
		store_q_bind_i64(q, c, m->max_abs_step);
	c++;
	if (m->has_first_over)
		store_q_bind_i64(q, c, m->first_over);
	c++;
	store_q_bind_i64(q, c++, (int64_t)m->n_over);
	for (int k = 0; k < 2; k++)
		store_q_bind_i64(q, c++, (int64_t)m->nan[k]);
	for (int k = 0; k < 2; k++)
		store_q_bind_i64(q, c++, (int64_t)m->inf[k]);
	store_q_bind_i64(q, c++, m->pass ? 1 : 0);
	store_q_bind_i64(q, c++, m->not_logged ? 1 : 0);
	return store_result_step(st, q);
}

static int put_side(struct store *st, int64_t id, int side, const struct store_train_result *r)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < r->n_only_listed[side]; i++) {
		struct store_q *q =
		        store_stmt(st, SID(T_ONLY),
		                   "INSERT INTO train_result_only_steps VALUES (?1, ?2, ?3, ?4)");
		if (!q)
			return STORE_ERROR;
		store_q_bind_i64(q, 1, id);
		store_q_bind_i64(q, 2, side);
		store_q_bind_i64(q, 3, (int64_t)i);
		store_q_bind_i64(q, 4, r->only[side][i]);
		rc = store_result_step(st, q);
	}
	for (size_t i = 0; rc == 0 && i < r->n_warnings[side]; i++) {
		const struct matcher_warning *w = &r->warnings[side][i];
		struct store_q *q =
		        store_stmt(st, SID(T_WARN),
		                   "INSERT INTO train_result_warnings VALUES (?1, ?2, ?3, "
		                   "?4, ?5, ?6, ?7)");
		if (!q)
			return STORE_ERROR;
		store_q_bind_i64(q, 1, id);
		store_q_bind_i64(q, 2, side);
		store_q_bind_i64(q, 3, (int64_t)i);
		store_q_bind_text(q, 4, w->code ? w->code : "");
		store_q_bind_i64(q, 5, (int64_t)w->line);
		store_q_bind_text(q, 6, w->message ? w->message : "");
		store_q_bind_text(q, 7, w->excerpt ? w->excerpt : "");
		rc = store_result_step(st, q);
	}
	return rc;
}

int store_train_result_put(struct store *st, int64_t id, const struct store_train_result *r)
{
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = store_train_result_clear(st, id);
	if (rc == 0)
		rc = put_top(st, id, r);
	for (size_t i = 0; rc == 0 && i < r->policy.n_th; i++)
		rc = put_threshold(st, id, i, &r->policy.th[i]);
	for (size_t i = 0; rc == 0 && i < r->n_reasons; i++)
		rc = put_reason(st, id, i, &r->reasons[i]);
	for (size_t i = 0; rc == 0 && i < r->n_metrics; i++)
		rc = put_metric(st, id, i, &r->metrics[i]);
	for (size_t i = 0; rc == 0 && i < r->n_notes; i++)
		rc = store_train_note_put(st, id, i, r->notes[i]);
	for (int side = 0; rc == 0 && side < 2; side++)
		rc = put_side(st, id, side, r);
	return store_tx_end_owned(st, owned, rc);
}

int store_train_reason_put(struct store *st, int64_t id, size_t i,
                           const struct matcher_train_reason *x)
{
	return put_reason(st, id, i, x);
}

int store_train_note_put(struct store *st, int64_t id, size_t i, const char *note)
{
	struct store_q *q =
	        store_stmt(st, SID(T_NOTE), "INSERT INTO train_result_notes VALUES (?1, ?2, ?3)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int64_t)i);
	store_q_bind_text(q, 3, note);
	return store_result_step(st, q);
}

/* ---- read ------------------------------------------------------------------ */

static const char *col_str(struct store_result_rd *d, struct store_q *q, int c)
{
	const char *v = store_q_col_dup(d->a, q, c, d->bytes, &d->bad);
	return v ? v : "";
}

static void col_copy(struct store_q *q, int c, char *out, size_t cap)
{
	const char *t = store_q_col_text(q, c);
	snprintf(out, cap, "%s", t ? t : "");
}

static int fill_head(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct store_train_result *r = e;
	r->verdict = (enum matcher_verdict)store_q_col_int(q, 0);
	r->rank = store_q_col_int(q, 1);
	col_copy(q, 2, r->policy.name, sizeof r->policy.name);
	col_copy(q, 3, r->policy.base, sizeof r->policy.base);
	r->policy.min_steps = (long)store_q_col_i64(q, 4);
	r->policy.allow_warnings = store_q_col_int(q, 5);
	r->policy.rank = store_q_col_isnull(q, 6) ? -1 : store_q_col_int(q, 6);
	r->n_common = store_q_col_i64(q, 7);
	r->n_only[0] = store_q_col_i64(q, 8);
	r->n_only[1] = store_q_col_i64(q, 9);
	return 0;
}

static int fill_th(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct matcher_train_threshold *t = e;
	col_copy(q, 0, t->metric, sizeof t->metric);
	t->abs = col_num(q, 1);
	t->has_rel = store_q_col_int(q, 3);
	t->rel = t->has_rel ? col_num(q, 2) : 0;
	t->if_logged = store_q_col_int(q, 4);
	return 0;
}

static int fill_reason(struct store_result_rd *d, struct store_q *q, void *e)
{
	struct matcher_train_reason *x = e;
	x->code = col_str(d, q, 0);
	col_copy(q, 1, x->message, sizeof x->message);
	col_copy(q, 2, x->metric, sizeof x->metric);
	if (!store_q_col_isnull(q, 3))
		x->side = store_q_col_int(q, 3) ? "candidate" : "baseline";
	if ((x->has_step = !store_q_col_isnull(q, 4)))
		x->step = (long)store_q_col_i64(q, 4);
	if ((x->has_abs = !store_q_col_isnull(q, 6))) {
		x->abs = col_num(q, 5);
		col_copy(q, 6, x->abs_text, sizeof x->abs_text);
	}
	if ((x->has_threshold = store_q_col_int(q, 8)))
		x->threshold = col_num(q, 7);
	if ((x->has_count = !store_q_col_isnull(q, 9)))
		x->count = (long)store_q_col_i64(q, 9);
	if ((x->has_line = !store_q_col_isnull(q, 10)))
		x->line = (unsigned long)store_q_col_i64(q, 10);
	x->is_error = !!strcmp(x->code, "threshold_exceeded") &&
	              !!strcmp(x->code, "nan_inf_mismatch") &&
	              !!strcmp(x->code, "outside_noise_band");
	return 0;
}

static int fill_metric(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct matcher_train_metric_result *m = e;
	int c = 0;
	col_copy(q, c++, m->name, sizeof m->name);
	snprintf(m->th.metric, sizeof m->th.metric, "%s", m->name);
	m->th.abs = col_num(q, c++);
	m->th.rel = col_num(q, c++);
	m->th.has_rel = store_q_col_int(q, c++);
	if (!m->th.has_rel)
		m->th.rel = 0;
	m->present[0] = store_q_col_int(q, c++);
	m->present[1] = store_q_col_int(q, c++);
	m->has_resolution = !store_q_col_isnull(q, c);
	m->decimals = store_q_col_int(q, c++);
	m->resolution = col_num(q, c++);
	m->below_resolution = store_q_col_int(q, c++);
	m->n_compared = (size_t)store_q_col_i64(q, c++);
	m->max_abs = col_num(q, c++);
	col_copy(q, c++, m->max_abs_text, sizeof m->max_abs_text);
	m->mean_abs = col_num(q, c++);
	m->max_rel = col_num(q, c++);
	m->mean_rel = col_num(q, c++);
	m->has_max_step = !store_q_col_isnull(q, c);
	m->max_abs_step = (long)store_q_col_i64(q, c++);
	m->has_first_over = !store_q_col_isnull(q, c);
	m->first_over = (long)store_q_col_i64(q, c++);
	m->n_over = (size_t)store_q_col_i64(q, c++);
	for (int k = 0; k < 2; k++)
		m->nan[k] = (size_t)store_q_col_i64(q, c++);
	for (int k = 0; k < 2; k++)
		m->inf[k] = (size_t)store_q_col_i64(q, c++);
	m->pass = store_q_col_int(q, c++);
	m->not_logged = store_q_col_int(q, c++);
	return 0;
}

static int fill_note(struct store_result_rd *d, struct store_q *q, void *e)
{
	*(const char **)e = col_str(d, q, 0);
	return 0;
}

static int fill_step(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	*(long *)e = (long)store_q_col_i64(q, 0);
	return 0;
}

static int fill_warning(struct store_result_rd *d, struct store_q *q, void *e)
{
	struct matcher_warning *w = e;
	w->code = col_str(d, q, 0);
	w->line = (unsigned long)store_q_col_i64(q, 1);
	w->message = col_str(d, q, 2);
	w->excerpt = col_str(d, q, 3);
	return 0;
}

static const char *const what = "reading the training result";

int store_train_reasons_read(struct store_result_rd *d, const struct matcher_train_reason **out,
                             size_t *n)
{
	void *v = NULL;
	int rc = store_result_list(d, SID(T_READ_REASONS),
	                           "SELECT code, message, metric, side, step, max_abs, "
	                           "max_abs_text, threshold, has_threshold, count, line FROM "
	                           "train_result_reasons WHERE comparison_id = ? ORDER BY seq",
	                           NULL, what, sizeof **out, fill_reason, &v, n);
	*out = rc == 0 ? v : NULL;
	return rc;
}

static int read_lists(struct store_result_rd *d, struct store_train_result *r)
{
	void *v;
	size_t n;
	int rc = store_result_list(d, SID(T_READ_TH),
	                           "SELECT metric, abs, rel, has_rel, if_logged FROM "
	                           "train_result_thresholds WHERE comparison_id = ? ORDER BY idx",
	                           NULL, what, sizeof(struct matcher_train_threshold), fill_th, &v,
	                           &n);
	if (rc == 0) {
		size_t k = n < MATCHER_TRAIN_MAX_METRICS ? n : MATCHER_TRAIN_MAX_METRICS;
		if (k)
			memcpy(r->policy.th, v, k * sizeof *r->policy.th);
		r->policy.n_th = k;
	}
	if (rc == 0)
		rc = store_train_reasons_read(d, &r->reasons, &r->n_reasons);
	if (rc == 0)
		rc = store_result_list(
		        d, SID(T_READ_METRICS),
		        "SELECT name, th_abs, th_rel, th_has_rel, present_a, present_b, "
		        "decimals, resolution, below_resolution, compared, max_abs, "
		        "max_abs_text, mean_abs, max_rel, mean_rel, max_abs_step, first_over, "
		        "n_over, nan_a, nan_b, inf_a, inf_b, pass, not_logged FROM "
		        "train_result_metrics WHERE comparison_id = ? ORDER BY idx",
		        NULL, what, sizeof *r->metrics, fill_metric, &v, &r->n_metrics);
	if (rc == 0)
		r->metrics = v;
	if (rc == 0)
		rc = store_result_list(
		        d, SID(T_READ_NOTES),
		        "SELECT note FROM train_result_notes WHERE comparison_id = ? "
		        "ORDER BY idx",
		        NULL, what, sizeof(const char *), fill_note, &v, &r->n_notes);
	if (rc == 0)
		r->notes = v;
	for (int side = 0; rc == 0 && side < 2; side++) {
		int64_t sd = side;
		rc = store_result_list(
		        d, SID(T_READ_ONLY),
		        "SELECT step FROM train_result_only_steps WHERE comparison_id = "
		        "?1 AND side = ?2 ORDER BY idx",
		        &sd, what, sizeof(long), fill_step, &v, &r->n_only_listed[side]);
		if (rc == 0)
			r->only[side] = v;
		if (rc == 0)
			rc = store_result_list(
			        d, SID(T_READ_WARN),
			        "SELECT code, line, message, excerpt FROM "
			        "train_result_warnings WHERE comparison_id = ?1 AND side "
			        "= ?2 ORDER BY idx",
			        &sd, what, sizeof(struct matcher_warning), fill_warning, &v,
			        &r->n_warnings[side]);
		if (rc == 0)
			r->warnings[side] = v;
	}
	return rc;
}

int store_train_result_read(struct store *st, struct arena *a, int64_t id,
                            const struct store_train_result **out, size_t *bytes)
{
	struct store_result_rd d = {st, a, id, bytes, 0};
	void *obj;
	*out = NULL;
	int rc = store_result_head(&d, SID(T_HEAD),
	                           "SELECT verdict, rank, policy_name, policy_base, min_steps, "
	                           "allow_warnings, policy_rank, n_common, n_only_a, n_only_b "
	                           "FROM train_results WHERE comparison_id = ?",
	                           what, sizeof(struct store_train_result), fill_head, &obj);
	if (rc <= 0)
		return rc;
	rc = read_lists(&d, obj);
	if (rc == 0 && d.bad)
		rc = store_fail(st, STORE_ERROR, "out of memory");
	if (rc == 0)
		*out = obj;
	return rc;
}
