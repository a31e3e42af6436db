/* trainresult.c - the typed result of a training comparison (migration
 * 009): store_train_result_put writes it inside the job's transaction;
 * store_train_result_read (store_comparison_get) reads it back into an
 * arena.  Reals: NaN is stored as NULL and read back as NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

static void bind_num(sqlite3_stmt *s, int i, double d)
{
	if (isnan(d))
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_double(s, i, d);
}

static double col_num(sqlite3_stmt *s, int c)
{
	return sqlite3_column_type(s, c) == SQLITE_NULL ? NAN : sqlite3_column_double(s, c);
}

static const char *const tables[] = {
        "train_results",         "train_result_thresholds", "train_result_reasons",
        "train_result_metrics",  "train_result_notes",      "train_result_only_steps",
        "train_result_warnings",
};
#define N_TABLES (sizeof tables / sizeof *tables)

int store_train_result_clear(struct store *st, int64_t id)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < N_TABLES; i++) {
		char sql[96];
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE comparison_id = ?", tables[i]);
		sqlite3_stmt *s = store_result_prep(st, sql);
		if (!s)
			return STORE_ERROR;
		sqlite3_bind_int64(s, 1, id);
		rc = store_result_step(st, s);
		sqlite3_finalize(s);
	}
	return rc;
}

enum { P_TOP, P_TH, P_REASON, P_METRIC, P_NOTE, P_ONLY, P_WARN, P_N };
static const char *const put_sql[P_N] = {
        "INSERT INTO train_results VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        "INSERT INTO train_result_thresholds VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        "INSERT INTO train_result_reasons VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
        "?11, ?12, ?13)",
        "INSERT INTO train_result_metrics VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
        "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)",
        "INSERT INTO train_result_notes VALUES (?1, ?2, ?3)",
        "INSERT INTO train_result_only_steps VALUES (?1, ?2, ?3, ?4)",
        "INSERT INTO train_result_warnings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
};

static int put_reason(struct store *st, sqlite3_stmt *s, int64_t id, size_t i,
                      const struct matcher_train_reason *x)
{
	sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int64(s, 2, (int64_t)i);
	sqlite3_bind_text(s, 3, x->code ? x->code : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, x->message, -1, SQLITE_STATIC);
	if (x->metric[0])
		sqlite3_bind_text(s, 5, x->metric, -1, SQLITE_STATIC);
	if (x->side)
		sqlite3_bind_int(s, 6, strcmp(x->side, "baseline") ? 1 : 0);
	if (x->has_step)
		sqlite3_bind_int64(s, 7, x->step);
	if (x->has_abs) {
		bind_num(s, 8, x->abs);
		sqlite3_bind_text(s, 9, x->abs_text, -1, SQLITE_STATIC);
	}
	if (x->has_threshold)
		bind_num(s, 10, x->threshold);
	sqlite3_bind_int(s, 11, x->has_threshold ? 1 : 0);
	if (x->has_count)
		sqlite3_bind_int64(s, 12, x->count);
	if (x->has_line)
		sqlite3_bind_int64(s, 13, (int64_t)x->line);
	return store_result_step(st, s);
}

static int put_metric(struct store *st, sqlite3_stmt *s, int64_t id, size_t i,
                      const struct matcher_train_metric_result *m)
{
	int c = 1;
	sqlite3_bind_int64(s, c++, id);
	sqlite3_bind_int64(s, c++, (int64_t)i);
	sqlite3_bind_text(s, c++, m->name, -1, SQLITE_STATIC);
	bind_num(s, c++, m->th.abs);
	if (m->th.has_rel)
		bind_num(s, c, m->th.rel);
	c++;
	sqlite3_bind_int(s, c++, m->th.has_rel ? 1 : 0);
	sqlite3_bind_int(s, c++, m->present[0] ? 1 : 0);
	sqlite3_bind_int(s, c++, m->present[1] ? 1 : 0);
	if (m->has_resolution) {
		sqlite3_bind_int(s, c++, m->decimals);
		bind_num(s, c++, m->resolution);
	} else {
		c += 2;
	}
	sqlite3_bind_int(s, c++, m->below_resolution ? 1 : 0);
	sqlite3_bind_int64(s, c++, (int64_t)m->n_compared);
	bind_num(s, c++, m->max_abs);
	sqlite3_bind_text(s, c++, m->max_abs_text, -1, SQLITE_STATIC);
	bind_num(s, c++, m->mean_abs);
	bind_num(s, c++, m->max_rel);
	bind_num(s, c++, m->mean_rel);
	if (m->has_max_step)
		sqlite3_bind_int64(s, c, m->max_abs_step);
	c++;
	if (m->has_first_over)
		sqlite3_bind_int64(s, c, m->first_over);
	c++;
	sqlite3_bind_int64(s, c++, (int64_t)m->n_over);
	for (int k = 0; k < 2; k++)
		sqlite3_bind_int64(s, c++, (int64_t)m->nan[k]);
	for (int k = 0; k < 2; k++)
		sqlite3_bind_int64(s, c++, (int64_t)m->inf[k]);
	sqlite3_bind_int(s, c++, m->pass ? 1 : 0);
	sqlite3_bind_int(s, c++, m->not_logged ? 1 : 0);
	return store_result_step(st, s);
}

static int put_rest(struct store *st, sqlite3_stmt **p, int64_t id,
                    const struct store_train_result *r)
{
	int rc = 0;
	const struct matcher_train_policy *pol = &r->policy;
	for (size_t i = 0; rc == 0 && i < pol->n_th; i++) {
		sqlite3_stmt *s = p[P_TH];
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_text(s, 3, pol->th[i].metric, -1, SQLITE_STATIC);
		bind_num(s, 4, pol->th[i].abs);
		if (pol->th[i].has_rel)
			bind_num(s, 5, pol->th[i].rel);
		sqlite3_bind_int(s, 6, pol->th[i].has_rel ? 1 : 0);
		sqlite3_bind_int(s, 7, pol->th[i].if_logged ? 1 : 0);
		rc = store_result_step(st, s);
	}
	for (size_t i = 0; rc == 0 && i < r->n_reasons; i++)
		rc = put_reason(st, p[P_REASON], id, i, &r->reasons[i]);
	for (size_t i = 0; rc == 0 && i < r->n_metrics; i++)
		rc = put_metric(st, p[P_METRIC], id, i, &r->metrics[i]);
	for (size_t i = 0; rc == 0 && i < r->n_notes; i++) {
		sqlite3_stmt *s = p[P_NOTE];
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_text(s, 3, r->notes[i], -1, SQLITE_STATIC);
		rc = store_result_step(st, s);
	}
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; rc == 0 && i < r->n_only_listed[side]; i++) {
			sqlite3_stmt *s = p[P_ONLY];
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int(s, 2, side);
			sqlite3_bind_int64(s, 3, (int64_t)i);
			sqlite3_bind_int64(s, 4, r->only[side][i]);
			rc = store_result_step(st, s);
		}
		for (size_t i = 0; rc == 0 && i < r->n_warnings[side]; i++) {
			const struct matcher_warning *w = &r->warnings[side][i];
			sqlite3_stmt *s = p[P_WARN];
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int(s, 2, side);
			sqlite3_bind_int64(s, 3, (int64_t)i);
			sqlite3_bind_text(s, 4, w->code ? w->code : "", -1, SQLITE_STATIC);
			sqlite3_bind_int64(s, 5, (int64_t)w->line);
			sqlite3_bind_text(s, 6, w->message ? w->message : "", -1, SQLITE_STATIC);
			sqlite3_bind_text(s, 7, w->excerpt ? w->excerpt : "", -1, SQLITE_STATIC);
			rc = store_result_step(st, s);
		}
	}
	return rc;
}

int store_train_result_put(struct store *st, int64_t id, const struct store_train_result *r)
{
	sqlite3_stmt *p[P_N] = {0};
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = store_train_result_clear(st, id);
	for (int i = 0; rc == 0 && i < P_N; i++)
		if (!(p[i] = store_result_prep(st, put_sql[i])))
			rc = STORE_ERROR;
	if (rc == 0) {
		sqlite3_stmt *s = p[P_TOP];
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int(s, 2, (int)r->verdict);
		sqlite3_bind_int(s, 3, r->rank);
		sqlite3_bind_text(s, 4, r->policy.name, -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, r->policy.base, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, r->policy.min_steps);
		sqlite3_bind_int(s, 7, r->policy.allow_warnings ? 1 : 0);
		if (r->policy.rank >= 0)
			sqlite3_bind_int(s, 8, r->policy.rank);
		sqlite3_bind_int64(s, 9, r->n_common);
		sqlite3_bind_int64(s, 10, r->n_only[0]);
		sqlite3_bind_int64(s, 11, r->n_only[1]);
		rc = store_result_step(st, s);
	}
	if (rc == 0)
		rc = put_rest(st, p, id, r);
	for (int i = 0; i < P_N; i++)
		sqlite3_finalize(p[i]);
	return store_tx_end_owned(st, owned, rc);
}

/* ---- read ------------------------------------------------------------------ */

struct rd {
	struct store *st;
	struct arena *a;
	int64_t id;
	size_t *bytes;
	int bad;
};

static const char *col_str(struct rd *d, sqlite3_stmt *s, int c)
{
	const char *v = store_col_dup(d->a, s, c, d->bytes, &d->bad);
	return v ? v : "";
}

static void col_copy(sqlite3_stmt *s, int c, char *out, size_t cap)
{
	const unsigned char *t = sqlite3_column_text(s, c);
	snprintf(out, cap, "%s", t ? (const char *)t : "");
}

/* Run `sql` (bound to the id) and call each(d, s, elem) for every row into
 * an arena array of sz-byte elements; *out / *n set.  0 or STORE_*. */
static int read_list(struct rd *d, const char *sql, size_t sz,
                     void (*each)(struct rd *, sqlite3_stmt *, void *), void **out, size_t *n)
{
	sqlite3_stmt *s = store_result_prep(d->st, sql);
	size_t cap = 0;
	void *v = NULL;
	int rc;
	*n = 0;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, d->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		void *nv = store_arena_grow(d->a, v, *n, &cap, sz);
		if (!nv) {
			rc = store_fail(d->st, STORE_ERROR, "out of memory");
			break;
		}
		v = nv;
		char *e = (char *)v + *n * sz;
		memset(e, 0, sz);
		each(d, s, e);
		(*n)++;
	}
	rc = rc == SQLITE_DONE ? 0
	     : rc > 0          ? store_sqlfail(d->st, rc, "reading the training result")
	                       : rc;
	sqlite3_finalize(s);
	*out = v;
	return rc;
}

static void each_th(struct rd *d, sqlite3_stmt *s, void *e)
{
	(void)d;
	struct matcher_train_threshold *t = e;
	col_copy(s, 0, t->metric, sizeof t->metric);
	t->abs = col_num(s, 1);
	t->has_rel = sqlite3_column_int(s, 3);
	t->rel = t->has_rel ? col_num(s, 2) : 0;
	t->if_logged = sqlite3_column_int(s, 4);
}

static void each_reason(struct rd *d, sqlite3_stmt *s, void *e)
{
	struct matcher_train_reason *x = e;
	x->code = col_str(d, s, 0);
	col_copy(s, 1, x->message, sizeof x->message);
	col_copy(s, 2, x->metric, sizeof x->metric);
	if (sqlite3_column_type(s, 3) != SQLITE_NULL)
		x->side = sqlite3_column_int(s, 3) ? "candidate" : "baseline";
	if ((x->has_step = sqlite3_column_type(s, 4) != SQLITE_NULL))
		x->step = (long)sqlite3_column_int64(s, 4);
	if ((x->has_abs = sqlite3_column_type(s, 6) != SQLITE_NULL)) {
		x->abs = col_num(s, 5);
		col_copy(s, 6, x->abs_text, sizeof x->abs_text);
	}
	if ((x->has_threshold = sqlite3_column_int(s, 8)))
		x->threshold = col_num(s, 7);
	if ((x->has_count = sqlite3_column_type(s, 9) != SQLITE_NULL))
		x->count = (long)sqlite3_column_int64(s, 9);
	if ((x->has_line = sqlite3_column_type(s, 10) != SQLITE_NULL))
		x->line = (unsigned long)sqlite3_column_int64(s, 10);
	x->is_error =
	        !!strcmp(x->code, "threshold_exceeded") && !!strcmp(x->code, "nan_inf_mismatch");
}

static void each_metric(struct rd *d, sqlite3_stmt *s, void *e)
{
	(void)d;
	struct matcher_train_metric_result *m = e;
	int c = 0;
	col_copy(s, c++, m->name, sizeof m->name);
	snprintf(m->th.metric, sizeof m->th.metric, "%s", m->name);
	m->th.abs = col_num(s, c++);
	m->th.rel = col_num(s, c++);
	m->th.has_rel = sqlite3_column_int(s, c++);
	if (!m->th.has_rel)
		m->th.rel = 0;
	m->present[0] = sqlite3_column_int(s, c++);
	m->present[1] = sqlite3_column_int(s, c++);
	m->has_resolution = sqlite3_column_type(s, c) != SQLITE_NULL;
	m->decimals = sqlite3_column_int(s, c++);
	m->resolution = col_num(s, c++);
	m->below_resolution = sqlite3_column_int(s, c++);
	m->n_compared = (size_t)sqlite3_column_int64(s, c++);
	m->max_abs = col_num(s, c++);
	col_copy(s, c++, m->max_abs_text, sizeof m->max_abs_text);
	m->mean_abs = col_num(s, c++);
	m->max_rel = col_num(s, c++);
	m->mean_rel = col_num(s, c++);
	m->has_max_step = sqlite3_column_type(s, c) != SQLITE_NULL;
	m->max_abs_step = (long)sqlite3_column_int64(s, c++);
	m->has_first_over = sqlite3_column_type(s, c) != SQLITE_NULL;
	m->first_over = (long)sqlite3_column_int64(s, c++);
	m->n_over = (size_t)sqlite3_column_int64(s, c++);
	for (int k = 0; k < 2; k++)
		m->nan[k] = (size_t)sqlite3_column_int64(s, c++);
	for (int k = 0; k < 2; k++)
		m->inf[k] = (size_t)sqlite3_column_int64(s, c++);
	m->pass = sqlite3_column_int(s, c++);
	m->not_logged = sqlite3_column_int(s, c++);
}

static void each_note(struct rd *d, sqlite3_stmt *s, void *e)
{
	*(const char **)e = col_str(d, s, 0);
}

static void each_step(struct rd *d, sqlite3_stmt *s, void *e)
{
	(void)d;
	*(long *)e = (long)sqlite3_column_int64(s, 0);
}

static void each_warning(struct rd *d, sqlite3_stmt *s, void *e)
{
	struct matcher_warning *w = e;
	w->code = col_str(d, s, 0);
	w->line = (unsigned long)sqlite3_column_int64(s, 1);
	w->message = col_str(d, s, 2);
	w->excerpt = col_str(d, s, 3);
}

static int read_lists(struct rd *d, struct store_train_result *r)
{
	void *v;
	size_t n;
	int rc = read_list(d,
	                   "SELECT metric, abs, rel, has_rel, if_logged FROM "
	                   "train_result_thresholds WHERE comparison_id = ? ORDER BY idx",
	                   sizeof(struct matcher_train_threshold), each_th, &v, &n);
	if (rc == 0) {
		size_t k = n < MATCHER_TRAIN_MAX_METRICS ? n : MATCHER_TRAIN_MAX_METRICS;
		if (k)
			memcpy(r->policy.th, v, k * sizeof *r->policy.th);
		r->policy.n_th = k;
	}
	if (rc == 0)
		rc = read_list(d,
		               "SELECT code, message, metric, side, step, max_abs, max_abs_text, "
		               "threshold, has_threshold, count, line FROM train_result_reasons "
		               "WHERE comparison_id = ? ORDER BY seq",
		               sizeof *r->reasons, each_reason, &v, &r->n_reasons);
	if (rc == 0)
		r->reasons = v;
	if (rc == 0)
		rc = read_list(
		        d,
		        "SELECT name, th_abs, th_rel, th_has_rel, present_a, present_b, "
		        "decimals, resolution, below_resolution, compared, max_abs, "
		        "max_abs_text, mean_abs, max_rel, mean_rel, max_abs_step, first_over, "
		        "n_over, nan_a, nan_b, inf_a, inf_b, pass, not_logged FROM "
		        "train_result_metrics WHERE comparison_id = ? ORDER BY idx",
		        sizeof *r->metrics, each_metric, &v, &r->n_metrics);
	if (rc == 0)
		r->metrics = v;
	if (rc == 0)
		rc = read_list(d,
		               "SELECT note FROM train_result_notes WHERE comparison_id = ? "
		               "ORDER BY idx",
		               sizeof(const char *), each_note, &v, &r->n_notes);
	if (rc == 0)
		r->notes = v;
	for (int side = 0; rc == 0 && side < 2; side++) {
		char sql[160];
		snprintf(sql, sizeof sql,
		         "SELECT step FROM train_result_only_steps WHERE comparison_id = ? "
		         "AND side = %d ORDER BY idx",
		         side);
		rc = read_list(d, sql, sizeof(long), each_step, &v, &r->n_only_listed[side]);
		if (rc == 0)
			r->only[side] = v;
		snprintf(sql, sizeof sql,
		         "SELECT code, line, message, excerpt FROM train_result_warnings WHERE "
		         "comparison_id = ? AND side = %d ORDER BY idx",
		         side);
		if (rc == 0)
			rc = read_list(d, sql, sizeof(struct matcher_warning), each_warning, &v,
			               &r->n_warnings[side]);
		if (rc == 0)
			r->warnings[side] = v;
	}
	return rc;
}

int store_train_result_read(struct store *st, struct arena *a, int64_t id,
                            const struct store_train_result **out, size_t *bytes)
{
	struct rd d = {st, a, id, bytes, 0};
	struct store_train_result *r;
	*out = NULL;
	sqlite3_stmt *s;
	void *obj;
	int rc = store_result_head(st, a,
	                           "SELECT verdict, rank, policy_name, policy_base, min_steps, "
	                           "allow_warnings, policy_rank, n_common, n_only_a, n_only_b "
	                           "FROM train_results WHERE comparison_id = ?",
	                           id, "reading the training result", sizeof *r, &s, &obj);
	if (rc <= 0)
		return rc;
	r = obj;
	r->verdict = (enum matcher_verdict)sqlite3_column_int(s, 0);
	r->rank = sqlite3_column_int(s, 1);
	col_copy(s, 2, r->policy.name, sizeof r->policy.name);
	col_copy(s, 3, r->policy.base, sizeof r->policy.base);
	r->policy.min_steps = (long)sqlite3_column_int64(s, 4);
	r->policy.allow_warnings = sqlite3_column_int(s, 5);
	r->policy.rank = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 6);
	r->n_common = sqlite3_column_int64(s, 7);
	r->n_only[0] = sqlite3_column_int64(s, 8);
	r->n_only[1] = sqlite3_column_int64(s, 9);
	sqlite3_finalize(s);
	rc = read_lists(&d, r);
	if (rc == 0 && d.bad)
		rc = store_fail(st, STORE_ERROR, "out of memory");
	if (rc == 0)
		*out = r;
	return rc;
}
