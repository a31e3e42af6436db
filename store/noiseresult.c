/* noiseresult.c - comparisons against a baseline set (issue 26, migration
 * 012; matcher/spec/noise.md): the set's members of a comparison, and the
 * typed result of matcher_noise_check (head, per-metric summary, per-step
 * rows y / mean / sd / h / z / outside, the lane).  The reasons and notes
 * go to train_result_reasons / train_result_notes through trainresult.c.
 * store_noise_result_put writes inside the job's transaction;
 * store_noise_result_read (store_comparison_get) rebuilds the matcher's
 * struct, so web_noise_result_json and web_noise_csv_* serve the stored
 * result as they serve the CLI's.  Reals: NaN is NULL, as in
 * trainresult.c.  Every metric with per-step arrays has a row at every
 * compared step (NULL mean: not compared there), so the rebuilt step list
 * (the distinct steps of the rows) is the check's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arraylit.h"
#include "store_int.h"
#include "trainpolicy.h"

/* The statements: slot SID_NOISE_RESULT + N_* */
enum noise_q {
	N_CLEAR, /* N_CLEAR .. + N_TABLES - 1: a DELETE per table */
	N_HEAD = N_CLEAR + 3,
	N_METRIC,
	N_STEP,
	N_LANE,
	N_SET_ADD,
	N_READ_HEAD,
	N_READ_METRICS,
	N_READ_STEPS,
	N_READ_NOTES,
	N_READ_SET,
	N_COUNT
};
_Static_assert(SID_NOISE_RESULT + N_COUNT - 1 <= SID_NOISE_RESULT_LAST,
               "store_int.h reserves the slots of noiseresult.c");
#define SID(x) (SID_NOISE_RESULT + (x))

static const char *const tables[] = {"noise_results", "noise_result_metrics", "noise_result_steps"};
#define N_TABLES (sizeof tables / sizeof *tables)
_Static_assert(N_TABLES == N_HEAD - N_CLEAR, "one clear slot per table");

static const char *const what = "reading the noise result";

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

/* ---- the set of a comparison ------------------------------------------- */

int store_comparison_set_put(struct store *st, int64_t id, const int64_t *runs, size_t n)
{
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct store_q *q =
		        store_stmt(st, SID(N_SET_ADD),
		                   "INSERT INTO comparison_set_members VALUES (?1, ?2, ?3)");
		if (!q) {
			rc = STORE_ERROR;
			break;
		}
		store_q_bind_i64(q, 1, id);
		store_q_bind_i64(q, 2, (int64_t)i);
		store_q_bind_i64(q, 3, runs[i]);
		rc = store_result_step(st, q);
	}
	return store_tx_end_owned(st, owned, rc);
}

static int fill_id(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	*(int64_t *)e = store_q_col_i64(q, 0);
	return 0;
}

int store_comparison_set_read(struct store *st, struct arena *a, int64_t id, const int64_t **runs,
                              size_t *n)
{
	struct store_result_rd d = {st, a, id, NULL, 0};
	void *v = NULL;
	int rc = store_result_list(&d, SID(N_READ_SET),
	                           "SELECT run_id FROM comparison_set_members WHERE "
	                           "comparison_id = ? ORDER BY idx",
	                           NULL, "reading the baseline set", sizeof(int64_t), fill_id, &v,
	                           n);
	*runs = rc == 0 ? v : NULL;
	if (rc < 0)
		*n = 0;
	return rc;
}

/* ---- write ------------------------------------------------------------- */

static int put_head(struct store *st, int64_t id, const struct matcher_noise_result *r)
{
	struct store_q *q = store_stmt(
	        st, SID(N_HEAD),
	        "INSERT INTO noise_results VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int)r->verdict);
	store_q_bind_i64(q, 3, (int)r->lane);
	store_q_bind_i64(q, 4, r->rank);
	store_q_bind_i64(q, 5, (int64_t)r->k);
	if (r->identical_to >= 0)
		store_q_bind_i64(q, 6, r->identical_to);
	bind_num(q, 7, r->t_quantile);
	store_q_bind_i64(q, 8, (int64_t)r->n_steps);
	store_q_bind_i64(q, 9, (int64_t)r->n_skipped);
	if (r->n_skipped > 0)
		store_q_bind_i64(q, 10, r->first_skipped);
	return store_result_step(st, q);
}

static int put_metric(struct store *st, int64_t id, size_t i, const struct matcher_noise_metric *m)
{
	struct store_q *q = store_stmt(
	        st, SID(N_METRIC),
	        "INSERT INTO noise_result_metrics VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
	        "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int64_t)i);
	store_q_bind_text(q, 3, m->name);
	store_q_bind_i64(q, 4, m->not_logged ? 1 : 0);
	store_q_bind_i64(q, 5, (int64_t)m->n);
	store_q_bind_i64(q, 6, (int64_t)m->n_outside);
	store_q_bind_i64(q, 7, m->allowed);
	bind_num(q, 8, m->p);
	bind_num(q, 9, m->bias);
	bind_num(q, 10, m->share_above);
	if (m->has_first_outside)
		store_q_bind_i64(q, 11, m->first_outside);
	if (m->has_max_ratio) {
		bind_num(q, 12, m->max_ratio);
		store_q_bind_i64(q, 13, m->max_ratio_step);
	}
	if (m->has_nonfinite)
		store_q_bind_i64(q, 14, m->first_nonfinite);
	store_q_bind_i64(q, 15, (int64_t)m->n_change);
	store_q_bind_i64(q, 16, (int64_t)m->n_change_outside);
	store_q_bind_i64(q, 17, m->allowed_change);
	store_q_bind_i64(q, 18, m->first_change_outside);
	bind_num(q, 19, m->t_extreme);
	if (m->has_extreme)
		store_q_bind_i64(q, 20, m->extreme_step);
	store_q_bind_i64(q, 21, m->extreme_change ? 1 : 0);
	store_q_bind_i64(q, 22, m->prec);
	store_q_bind_i64(q, 23, m->regression ? 1 : 0);
	return store_result_step(st, q);
}

/* PostgreSQL: a metric's step rows in batches of STEPS_BATCH, one
 * statement each, the columns step..outside as array literals
 * (arraylit.h; a round trip per row: ~2 s for 20k steps). */
#define STEPS_BATCH 8192
#define STEP_COLS   7
#define STEPS_PG                                                                                   \
	"INSERT INTO noise_result_steps SELECT ?1, ?2, u.* FROM unnest(?3::bigint[], "             \
	"?4::float8[], ?5::float8[], ?6::float8[], ?7::float8[], ?8::float8[], ?9::bigint[]) AS u"

/* Send the batch in col (emptied after). */
static int pg_steps_flush(struct store *st, int64_t id, size_t mi, struct buf *col)
{
	struct store_q *q = store_stmt(st, SID(N_STEP), STEPS_PG);
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int64_t)mi);
	if (arraylit_bind(q, 3, col, STEP_COLS) < 0) {
		store_q_done(q);
		return store_fail(st, STORE_ERROR, "out of memory");
	}
	return store_result_step(st, q);
}

static int pg_put_steps(struct store *st, int64_t id, const struct matcher_noise_result *r,
                        size_t mi)
{
	const struct matcher_noise_metric *m = &r->metrics[mi];
	struct buf col[STEP_COLS];
	for (int k = 0; k < STEP_COLS; k++)
		buf_init(&col[k]);
	int rc = 0;
	for (size_t i = 0; i < r->n_steps && rc == 0; i++) {
		if (arraylit_i64(&col[0], r->steps[i]) | arraylit_num(&col[1], m->y[i]) |
		    arraylit_num(&col[2], m->mean[i]) | arraylit_num(&col[3], m->sd[i]) |
		    arraylit_num(&col[4], m->h[i]) | arraylit_num(&col[5], m->z[i]) |
		    arraylit_i64(&col[6], m->outside[i]))
			rc = store_fail(st, STORE_ERROR, "out of memory");
		else if ((i + 1) % STEPS_BATCH == 0 || i + 1 == r->n_steps)
			rc = pg_steps_flush(st, id, mi, col);
	}
	for (int k = 0; k < STEP_COLS; k++)
		buf_reset(&col[k]);
	return rc;
}

static int put_steps(struct store *st, int64_t id, const struct matcher_noise_result *r, size_t mi)
{
	const struct matcher_noise_metric *m = &r->metrics[mi];
	if (!m->y || !m->mean || !m->sd || !m->h || !m->z || !m->outside)
		return 0;
	if (st->backend == STORE_BACKEND_PG)
		return pg_put_steps(st, id, r, mi);
	for (size_t i = 0; i < r->n_steps; i++) {
		struct store_q *q = store_stmt(st, SID(N_STEP),
		                               "INSERT INTO noise_result_steps VALUES (?1, ?2, ?3, "
		                               "?4, ?5, ?6, ?7, ?8, ?9)");
		if (!q)
			return STORE_ERROR;
		store_q_bind_i64(q, 1, id);
		store_q_bind_i64(q, 2, (int64_t)mi);
		store_q_bind_i64(q, 3, r->steps[i]);
		bind_num(q, 4, m->y[i]);
		bind_num(q, 5, m->mean[i]);
		bind_num(q, 6, m->sd[i]);
		bind_num(q, 7, m->h[i]);
		bind_num(q, 8, m->z[i]);
		store_q_bind_i64(q, 9, m->outside[i]);
		int rc = store_result_step(st, q);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int store_noise_result_put(struct store *st, int64_t id, const struct matcher_noise_result *r)
{
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = store_train_result_clear(st, id);
	if (rc == 0)
		rc = store_result_clear(st, SID(N_CLEAR), tables, N_TABLES, id);
	if (rc == 0)
		rc = put_head(st, id, r);
	for (size_t i = 0; rc == 0 && i < r->n_reasons; i++)
		rc = store_train_reason_put(st, id, i, &r->reasons[i]);
	for (size_t i = 0; rc == 0 && i < r->n_notes; i++)
		rc = store_train_note_put(st, id, i, r->notes[i]);
	for (size_t i = 0; rc == 0 && i < r->n_metrics; i++)
		rc = put_metric(st, id, i, &r->metrics[i]);
	for (size_t i = 0; rc == 0 && i < r->n_metrics; i++)
		rc = put_steps(st, id, r, i);
	if (rc == 0) {
		const char *lane = matcher_noise_lane_name(r->lane);
		struct store_q *q =
		        store_stmt(st, SID(N_LANE), "UPDATE comparisons SET lane = ? WHERE id = ?");
		if (!q) {
			rc = STORE_ERROR;
		} else {
			store_q_bind_text(q, 1, lane);
			store_q_bind_i64(q, 2, id);
			rc = store_result_step(st, q);
		}
	}
	return store_tx_end_owned(st, owned, rc);
}

/* ---- read -------------------------------------------------------------- */

static int fill_head(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct matcher_noise_result *r = e;
	r->verdict = (enum matcher_verdict)store_q_col_int(q, 0);
	r->lane = (enum matcher_noise_lane)store_q_col_int(q, 1);
	r->rank = store_q_col_int(q, 2);
	r->k = (size_t)store_q_col_i64(q, 3);
	r->identical_to = store_q_col_isnull(q, 4) ? -1 : store_q_col_int(q, 4);
	r->t_quantile = col_num(q, 5);
	r->n_steps = (size_t)store_q_col_i64(q, 6);
	r->n_skipped = (size_t)store_q_col_i64(q, 7);
	r->first_skipped = (long)store_q_col_i64(q, 8);
	return 0;
}

static int fill_metric(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct matcher_noise_metric *m = e;
	const char *t = store_q_col_text(q, 0);
	snprintf(m->name, sizeof m->name, "%s", t ? t : "");
	m->not_logged = store_q_col_int(q, 1);
	m->n = (size_t)store_q_col_i64(q, 2);
	m->n_outside = (size_t)store_q_col_i64(q, 3);
	m->allowed = (long)store_q_col_i64(q, 4);
	m->p = col_num(q, 5);
	m->bias = col_num(q, 6);
	m->share_above = col_num(q, 7);
	m->has_first_outside = !store_q_col_isnull(q, 8);
	m->first_outside = (long)store_q_col_i64(q, 8);
	m->has_max_ratio = !store_q_col_isnull(q, 10);
	m->max_ratio = m->has_max_ratio ? col_num(q, 9) : 0;
	m->max_ratio_step = (long)store_q_col_i64(q, 10);
	m->has_nonfinite = !store_q_col_isnull(q, 11);
	m->first_nonfinite = (long)store_q_col_i64(q, 11);
	m->n_change = (size_t)store_q_col_i64(q, 12);
	m->n_change_outside = (size_t)store_q_col_i64(q, 13);
	m->allowed_change = (long)store_q_col_i64(q, 14);
	m->first_change_outside = (long)store_q_col_i64(q, 15);
	m->t_extreme = col_num(q, 16);
	m->has_extreme = !store_q_col_isnull(q, 17);
	m->extreme_step = (long)store_q_col_i64(q, 17);
	m->extreme_change = store_q_col_int(q, 18);
	m->prec = store_q_col_int(q, 19);
	m->regression = store_q_col_int(q, 20);
	return 0;
}

/* One per-step row, gathered before the arrays are laid out. */
struct step_row {
	int64_t metric;
	long step;
	double y, mean, sd, h, z;
	unsigned char outside;
};

static int fill_step(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct step_row *s = e;
	s->metric = store_q_col_i64(q, 0);
	s->step = (long)store_q_col_i64(q, 1);
	s->y = col_num(q, 2);
	s->mean = col_num(q, 3);
	s->sd = col_num(q, 4);
	s->h = col_num(q, 5);
	s->z = col_num(q, 6);
	s->outside = (unsigned char)store_q_col_int(q, 7);
	return 0;
}

static int fill_note(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	const char *t = store_q_col_text(q, 0);
	snprintf(*(char(*)[384])e, 384, "%s", t ? t : "");
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

/* The step list (the sorted, distinct steps of the rows) and each
 * metric's arrays parallel to it, NaN where it was not compared.  0 or
 * -1 on OOM. */
static int lay_out_steps(struct matcher_noise_result *r, const struct step_row *rows, size_t n)
{
	r->steps = malloc((n ? n : 1) * sizeof *r->steps);
	if (!r->steps)
		return -1;
	for (size_t i = 0; i < n; i++)
		r->steps[i] = rows[i].step;
	qsort(r->steps, n, sizeof *r->steps, cmp_long);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || r->steps[u - 1] != r->steps[i])
			r->steps[u++] = r->steps[i];
	r->n_steps = u;
	for (size_t mi = 0; mi < r->n_metrics; mi++) {
		struct matcher_noise_metric *m = &r->metrics[mi];
		size_t cap = u ? u : 1, has = 0;
		for (size_t i = 0; !has && i < n; i++)
			has = rows[i].metric == (int64_t)mi;
		if (!has)
			continue; /* the check kept no arrays for it */
		m->y = malloc(cap * sizeof *m->y);
		m->mean = malloc(cap * sizeof *m->mean);
		m->sd = malloc(cap * sizeof *m->sd);
		m->h = malloc(cap * sizeof *m->h);
		m->z = malloc(cap * sizeof *m->z);
		m->outside = calloc(cap, 1);
		if (!m->y || !m->mean || !m->sd || !m->h || !m->z || !m->outside)
			return -1;
		for (size_t i = 0; i < u; i++)
			m->y[i] = m->mean[i] = m->sd[i] = m->h[i] = m->z[i] = NAN;
	}
	for (size_t i = 0; i < n; i++) {
		const struct step_row *s = &rows[i];
		if (s->metric < 0 || (size_t)s->metric >= r->n_metrics)
			continue;
		long *at = bsearch(&s->step, r->steps, u, sizeof *r->steps, cmp_long);
		size_t k = (size_t)(at - r->steps);
		struct matcher_noise_metric *m = &r->metrics[s->metric];
		if (!m->y)
			continue;
		m->y[k] = s->y;
		m->mean[k] = s->mean;
		m->sd[k] = s->sd;
		m->h[k] = s->h;
		m->z[k] = s->z;
		m->outside[k] = s->outside;
	}
	return 0;
}

int store_noise_result_read(struct store *st, struct arena *a, int64_t id, const char *policy_text,
                            struct matcher_noise_result **out, size_t *bytes)
{
	struct store_result_rd d = {st, a, id, bytes, 0};
	struct matcher_noise_result *r = NULL;
	const struct matcher_train_reason *reasons = NULL;
	void *head = NULL, *v = NULL;
	size_t n = 0, n_rows = 0;
	struct arena tmp;
	arena_init(&tmp);
	*out = NULL;
	int rc = store_result_head(&d, SID(N_READ_HEAD),
	                           "SELECT verdict, lane, rank, k, identical_to, t_quantile, "
	                           "n_steps, n_skipped, first_skipped FROM noise_results "
	                           "WHERE comparison_id = ?",
	                           what, sizeof *r, fill_head, &head);
	if (rc <= 0)
		goto done;
	rc = 0;
	if (!(r = calloc(1, sizeof *r)))
		goto oom;
	*r = *(struct matcher_noise_result *)head;
	if (!policy_text || matcher_train_policy_parse(policy_text, &r->policy) < 0)
		matcher_train_policy_preset(&r->policy, "noise");
	rc = store_result_list(&d, SID(N_READ_METRICS),
	                       "SELECT name, not_logged, n, n_outside, allowed, p, bias, "
	                       "share_above, first_outside, max_ratio, max_ratio_step, "
	                       "first_nonfinite, n_change, n_change_outside, allowed_change, "
	                       "first_change_outside, t_extreme, extreme_step, extreme_change, "
	                       "prec, regression FROM noise_result_metrics WHERE "
	                       "comparison_id = ? ORDER BY idx",
	                       NULL, what, sizeof *r->metrics, fill_metric, &v, &n);
	if (rc < 0)
		goto done;
	if (!(r->metrics = calloc(n ? n : 1, sizeof *r->metrics)))
		goto oom;
	if (n)
		memcpy(r->metrics, v, n * sizeof *r->metrics);
	r->n_metrics = n;
	/* the steps are read into a temporary arena: they become arrays */
	struct store_result_rd td = {st, &tmp, id, NULL, 0};
	rc = store_result_list(&td, SID(N_READ_STEPS),
	                       "SELECT metric_idx, step, y, mean, sd, h, z, outside FROM "
	                       "noise_result_steps WHERE comparison_id = ? ORDER BY metric_idx, "
	                       "step",
	                       NULL, what, sizeof(struct step_row), fill_step, &v, &n_rows);
	if (rc < 0)
		goto done;
	if (lay_out_steps(r, v, n_rows) < 0)
		goto oom;
	/* every step of the check has a row, unless no metric had arrays (an
	 * error result): then the step list is empty */
	rc = store_train_reasons_read(&d, &reasons, &n);
	if (rc < 0)
		goto done;
	if (!(r->reasons = calloc(n ? n : 1, sizeof *r->reasons)))
		goto oom;
	if (n)
		memcpy(r->reasons, reasons, n * sizeof *r->reasons);
	r->n_reasons = n;
	rc = store_result_list(&td, SID(N_READ_NOTES),
	                       "SELECT note FROM train_result_notes WHERE comparison_id = ? "
	                       "ORDER BY idx",
	                       NULL, what, 384, fill_note, &v, &n);
	if (rc < 0)
		goto done;
	if (!(r->notes = calloc(n ? n : 1, 384)))
		goto oom;
	if (n)
		memcpy(r->notes, v, n * 384);
	r->n_notes = n;
	if (d.bad || td.bad)
		goto oom;
	*out = r;
	r = NULL;
	goto done;
oom:
	rc = store_fail(st, STORE_ERROR, "out of memory");
done:
	arena_reset(&tmp);
	matcher_noise_result_free(r);
	return rc;
}

int store_comparison_set_get(struct store *st, int64_t id, int64_t **runs, size_t *n)
{
	struct arena a;
	const int64_t *v = NULL;
	arena_init(&a);
	*runs = NULL;
	int rc = store_comparison_set_read(st, &a, id, &v, n);
	if (rc == 0 && *n) {
		if (!(*runs = malloc(*n * sizeof **runs)))
			rc = store_fail(st, STORE_ERROR, "out of memory");
		else
			memcpy(*runs, v, *n * sizeof **runs);
	}
	if (rc < 0)
		*n = 0;
	arena_reset(&a);
	return rc;
}

/* ---- member values for pages ------------------------------------------- */

struct values_ctx {
	int rank;
	const char *const *metrics;
	size_t n_metrics;
	const long *steps;
	size_t n_steps;
	double *out;
};

static int values_step(void *ctx, const struct matcher_step_record *r)
{
	struct values_ctx *c = ctx;
	if (r->validation || r->rank != c->rank)
		return 0;
	const long *at = bsearch(&r->step, c->steps, c->n_steps, sizeof *c->steps, cmp_long);
	if (!at)
		return 0;
	size_t i = (size_t)(at - c->steps);
	for (size_t k = 0; k < c->n_metrics; k++)
		for (size_t j = 0; j < r->n_metrics; j++)
			if (r->metrics[j].name && !strcmp(r->metrics[j].name, c->metrics[k]))
				c->out[k * c->n_steps + i] = r->metrics[j].value;
	return 0;
}

int store_run_metric_values(struct store *st, int64_t run_id, int rank, const char *const *metrics,
                            size_t n_metrics, const long *steps, size_t n_steps, double *out)
{
	struct store_log_ref *logs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < n_metrics * n_steps; i++)
		out[i] = NAN;
	int rc = store_run_logs(st, run_id, &logs, &n);
	struct values_ctx c = {rank, metrics, n_metrics, steps, n_steps, out};
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (logs[i].rank == rank || rank < 0)
			rc = store_steps_foreach(st, logs[i].log_id, values_step, &c);
	free(logs);
	return rc < 0 ? rc : 0;
}
