/* traincheck.c - collecting step records into runs, and the training
 * threshold check (policies, per-metric summaries, reasons, verdict).
 *
 * Steps are compared rank by rank (the policy's rank, default 0) over the
 * steps both runs logged.  Every difference is taken on the printed
 * decimals (train_num.h) so a one-unit difference at the threshold passes.
 * NaN on both sides at a step counts as equal; NaN or Inf on one side only
 * is an exceedance with |diff| = +inf. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "megatron.h" /* matcher_format_pyfloat */
#include "train_num.h"
#include "train_prec.h"
#include "traincheck.h"

/* ---- the collected run ------------------------------------------------ */

struct matcher_trainrun *matcher_trainrun_new(const char *const *keep, size_t n_keep)
{
	struct matcher_trainrun *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	arena_init(&r->arena);
	if (keep && n_keep) {
		r->keep = arena_alloc(&r->arena, n_keep * sizeof *r->keep);
		if (!r->keep)
			goto fail;
		for (size_t i = 0; i < n_keep; i++) {
			r->keep[i] = arena_strdup(&r->arena, keep[i]);
			if (!r->keep[i])
				goto fail;
		}
		r->n_keep = n_keep;
	}
	return r;
fail:
	matcher_trainrun_free(r);
	return NULL;
}

static void series_free(struct matcher_train_series *s)
{
	for (size_t i = 0; i < s->n_cols; i++)
		free(s->cols[i].cells);
	free(s->cols);
	free(s->steps);
	free(s->map_step);
	free(s->map_idx);
}

void matcher_trainrun_free(struct matcher_trainrun *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_series; i++)
		series_free(&r->series[i]);
	free(r->series);
	free(r->series_idx);
	free(r->warnings);
	arena_reset(&r->arena);
	free(r);
}

static int kept(const struct matcher_trainrun *r, int validation, const char *name)
{
	if (!r->keep)
		return 1;
	for (size_t i = 0; i < r->n_keep; i++) {
		const char *k = r->keep[i];
		if (validation) {
			if (!strncmp(k, "validation/", 11) && !strcmp(k + 11, name))
				return 1;
		} else if (!strcmp(k, name)) {
			return 1;
		}
	}
	return 0;
}

#define SERIES_DIRECT_MAX (2 * 65536) /* keys rank * 2 + validation */

static struct matcher_train_series *get_series(struct matcher_trainrun *r, int rank, int validation)
{
	size_t key = (size_t)rank * 2 + (size_t)validation;
	int direct = rank >= 0 && key < SERIES_DIRECT_MAX;
	if (direct && key < r->cap_series_idx && r->series_idx[key])
		return &r->series[r->series_idx[key] - 1];
	if (!direct) {
		for (size_t i = 0; i < r->n_series; i++)
			if (r->series[i].rank == rank && r->series[i].validation == validation)
				return &r->series[i];
	}
	if (direct && key >= r->cap_series_idx) {
		size_t nc = r->cap_series_idx ? r->cap_series_idx : 16;
		while (nc <= key)
			nc *= 2;
		size_t *ni = realloc(r->series_idx, nc * sizeof *ni);
		if (!ni)
			return NULL;
		memset(ni + r->cap_series_idx, 0, (nc - r->cap_series_idx) * sizeof *ni);
		r->series_idx = ni;
		r->cap_series_idx = nc;
	}
	if (r->n_series == r->cap_series) {
		size_t nc = r->cap_series ? r->cap_series * 2 : 4;
		struct matcher_train_series *ns = realloc(r->series, nc * sizeof *ns);
		if (!ns)
			return NULL;
		r->series = ns;
		r->cap_series = nc;
	}
	struct matcher_train_series *s = &r->series[r->n_series++];
	memset(s, 0, sizeof *s);
	s->rank = rank;
	s->validation = validation;
	s->sorted = 1;
	if (direct)
		r->series_idx[key] = r->n_series;
	return s;
}

static size_t step_hash(long step)
{
	unsigned long long h = (unsigned long long)step * 0x9e3779b97f4a7c15ull;
	return (size_t)(h ^ (h >> 31));
}

static int map_put(struct matcher_train_series *s, long step, size_t idx);

static int map_grow(struct matcher_train_series *s)
{
	size_t ncap = s->map_cap ? s->map_cap * 2 : 16;
	long *ks = malloc(ncap * sizeof *ks);
	size_t *vs = malloc(ncap * sizeof *vs);
	if (!ks || !vs) {
		free(ks);
		free(vs);
		return -1;
	}
	for (size_t i = 0; i < ncap; i++)
		vs[i] = (size_t)-1;
	long *oks = s->map_step;
	size_t *ovs = s->map_idx;
	size_t ocap = s->map_cap;
	s->map_step = ks;
	s->map_idx = vs;
	s->map_cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (ovs[i] != (size_t)-1)
			map_put(s, oks[i], ovs[i]);
	free(oks);
	free(ovs);
	return 0;
}

static int map_put(struct matcher_train_series *s, long step, size_t idx)
{
	size_t h = step_hash(step) & (s->map_cap - 1);
	while (s->map_idx[h] != (size_t)-1)
		h = (h + 1) & (s->map_cap - 1);
	s->map_step[h] = step;
	s->map_idx[h] = idx;
	return 0;
}

static size_t map_get(const struct matcher_train_series *s, long step)
{
	if (s->sorted) {
		size_t lo = 0, hi = s->n_steps;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->steps[mid] < step)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < s->n_steps && s->steps[lo] == step ? lo : (size_t)-1;
	}
	if (!s->map_cap)
		return (size_t)-1;
	size_t h = step_hash(step) & (s->map_cap - 1);
	while (s->map_idx[h] != (size_t)-1) {
		if (s->map_step[h] == step)
			return s->map_idx[h];
		h = (h + 1) & (s->map_cap - 1);
	}
	return (size_t)-1;
}

size_t matcher_train_series_find(const struct matcher_train_series *s, long step)
{
	return s ? map_get(s, step) : (size_t)-1;
}

static int column_reserve(struct matcher_train_column *c, size_t n)
{
	if (n <= c->cap)
		return 0;
	size_t nc = c->cap ? c->cap : 8;
	while (nc < n)
		nc *= 2;
	struct matcher_train_cell *ncells = realloc(c->cells, nc * sizeof *ncells);
	if (!ncells)
		return -1;
	memset(ncells + c->cap, 0, (nc - c->cap) * sizeof *ncells);
	c->cells = ncells;
	c->cap = nc;
	return 0;
}

static struct matcher_train_column *get_column(struct matcher_trainrun *r,
                                               struct matcher_train_series *s, const char *name)
{
	for (size_t i = 0; i < s->n_cols; i++)
		if (!strcmp(s->cols[i].name, name))
			return &s->cols[i];
	struct matcher_train_column *nc = realloc(s->cols, (s->n_cols + 1) * sizeof *nc);
	if (!nc)
		return NULL;
	s->cols = nc;
	struct matcher_train_column *c = &s->cols[s->n_cols];
	memset(c, 0, sizeof *c);
	c->name = arena_strdup(&r->arena, name);
	if (!c->name || column_reserve(c, s->cap_steps) < 0)
		return NULL;
	s->n_cols++;
	return c;
}

int matcher_trainrun_add_record(struct matcher_trainrun *r, const struct matcher_step_record *rec)
{
	struct matcher_train_series *s = get_series(r, rec->rank, rec->validation ? 1 : 0);
	if (!s)
		return -1;
	size_t idx = map_get(s, rec->step);
	if (idx != (size_t)-1 && rec->kind == MATCHER_STEP_COPY) {
		s->n_copies++;
		return 0;
	}
	if (idx == (size_t)-1) {
		if (s->n_steps == s->cap_steps) {
			size_t nc = s->cap_steps ? s->cap_steps * 2 : 8;
			long *ns = realloc(s->steps, nc * sizeof *ns);
			if (!ns)
				return -1;
			s->steps = ns;
			s->cap_steps = nc;
			for (size_t i = 0; i < s->n_cols; i++)
				if (column_reserve(&s->cols[i], nc) < 0)
					return -1;
		}
		idx = s->n_steps;
		if (s->sorted && idx && rec->step < s->steps[idx - 1]) {
			/* out of order from now on: index every step by hash */
			s->sorted = 0;
			for (size_t i = 0; i < idx; i++) {
				if ((i + 1) * 2 > s->map_cap && map_grow(s) < 0)
					return -1;
				map_put(s, s->steps[i], i);
			}
		}
		if (!s->sorted) {
			if ((idx + 1) * 2 > s->map_cap && map_grow(s) < 0)
				return -1;
			map_put(s, rec->step, idx);
		}
		s->steps[idx] = rec->step;
		s->n_steps++;
	} else {
		for (size_t i = 0; i < s->n_cols; i++) /* REPLACE: drop old values */
			s->cols[i].cells[idx].present = 0;
	}
	for (size_t i = 0; i < rec->n_metrics; i++) {
		const struct matcher_metric_value *m = &rec->metrics[i];
		if (!kept(r, s->validation, m->name))
			continue;
		struct matcher_train_column *c = get_column(r, s, m->name);
		if (!c)
			return -1;
		c->cells[idx].value = m->value;
		c->cells[idx].decimals = (int16_t)(m->decimals > 400 ? 400 : m->decimals);
		c->cells[idx].present = 1;
		c->cells[idx].prec = (uint8_t)m->prec;
	}
	return 0;
}

int matcher_trainrun_add_warning(struct matcher_trainrun *r, const struct matcher_warning *w)
{
	if (r->n_warnings == r->cap_warnings) {
		size_t nc = r->cap_warnings ? r->cap_warnings * 2 : 8;
		struct matcher_warning *nw = realloc(r->warnings, nc * sizeof *nw);
		if (!nw)
			return -1;
		r->warnings = nw;
		r->cap_warnings = nc;
	}
	struct matcher_warning *d = &r->warnings[r->n_warnings];
	d->code = arena_strdup(&r->arena, w->code ? w->code : "");
	d->line = w->line;
	d->message = arena_strdup(&r->arena, w->message ? w->message : "");
	d->excerpt = arena_strdup(&r->arena, w->excerpt ? w->excerpt : "");
	if (!d->code || !d->message || !d->excerpt)
		return -1;
	r->n_warnings++;
	if (r->n_warnings_total < r->n_warnings)
		r->n_warnings_total = r->n_warnings;
	return 0;
}

void matcher_trainrun_set_summary(struct matcher_trainrun *r,
                                  const struct matcher_trainlog_summary *s)
{
	r->summary = *s;
	r->has_summary = 1;
	if (s->n_warnings > r->n_warnings_total)
		r->n_warnings_total = s->n_warnings;
}

static int collect_step(void *ctx, const struct matcher_step_record *rec)
{
	return matcher_trainrun_add_record(ctx, rec);
}

static int collect_warning(void *ctx, const struct matcher_warning *w)
{
	return matcher_trainrun_add_warning(ctx, w);
}

struct matcher_trainlog_callbacks matcher_trainrun_collector(struct matcher_trainrun *r)
{
	struct matcher_trainlog_callbacks cb = {r, collect_step, collect_warning};
	return cb;
}

const struct matcher_train_series *matcher_trainrun_series(const struct matcher_trainrun *r,
                                                           int rank, int validation)
{
	for (size_t i = 0; i < r->n_series; i++)
		if (r->series[i].rank == rank && r->series[i].validation == validation)
			return &r->series[i];
	return NULL;
}

const struct matcher_train_column *matcher_train_series_column(const struct matcher_train_series *s,
                                                               const char *name)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n_cols; i++)
		if (!strcmp(s->cols[i].name, name))
			return &s->cols[i];
	return NULL;
}

int matcher_trainrun_parse_buffer(const char *data, size_t n, const char *const *keep,
                                  size_t n_keep, struct matcher_trainrun **out,
                                  struct matcher_error *err)
{
	int rc = -1;
	struct matcher_trainlog_parser *p = NULL;
	struct matcher_trainrun *r = matcher_trainrun_new(keep, n_keep);
	struct matcher_trainlog_summary sum;
	*out = NULL;
	if (!r)
		goto oom;
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(r);
	p = matcher_trainlog_parser_new(&cb, 0);
	if (!p)
		goto oom;
	if (matcher_trainlog_feed(p, data, n) < 0 || matcher_trainlog_finish(p, &sum) < 0) {
		if (err)
			*err = *matcher_trainlog_error(p);
		goto done;
	}
	matcher_trainrun_set_summary(r, &sum);
	*out = r;
	r = NULL;
	rc = 0;
	goto done;
oom:
	if (err) {
		memset(err, 0, sizeof *err);
		err->code = "oom";
		snprintf(err->message, sizeof err->message, "out of memory");
	}
done:
	matcher_trainlog_parser_free(p);
	matcher_trainrun_free(r);
	return rc;
}

/* ---- policy ----------------------------------------------------------- */

static void th_init(struct matcher_train_threshold *t, const char *metric, double abs)
{
	memset(t, 0, sizeof *t);
	snprintf(t->metric, sizeof t->metric, "%s", metric);
	t->abs = abs;
}

/* Megatron-LM's approximate check (its functional tests' common.py and
 * test_pretraining_regular_pipeline.py, CHECK_THRESHOLDS;
 * matcher/spec/megatron.md): no absolute bound, rtol 0.05 (num-zeros
 * 0.20) on every training series it names, loss required, the others
 * when logged. */
static int megatron_preset(struct matcher_train_policy *p)
{
	static const struct {
		const char *name;
		double rel;
	} series[] = {
	        {"loss", 0.05},
	        {"num-zeros", 0.20},
	        {"mtp_1_loss", 0.05},
	        {"mtp_2_loss", 0.05},
	        {"total_loss", 0.05},
	        {"mem-allocated-bytes", 0.05},
	        {"mem-max-allocated-bytes", 0.05},
	        {"iteration-time", 0.05},
	};
	snprintf(p->name, sizeof p->name, "megatron");
	snprintf(p->base, sizeof p->base, "megatron");
	for (size_t i = 0; i < sizeof series / sizeof series[0]; i++) {
		struct matcher_train_threshold *t = &p->th[p->n_th++];
		th_init(t, series[i].name, INFINITY);
		t->rel = series[i].rel;
		t->has_rel = 1;
		t->if_logged = i > 0;
		t->median_window = !strcmp(series[i].name, "iteration-time");
		t->allow_pct = t->median_window ? 0 : 1;
	}
	return 0;
}

int matcher_train_policy_preset(struct matcher_train_policy *p, const char *name)
{
	int rc = 0;
	memset(p, 0, sizeof *p);
	p->min_steps = 1;
	p->rank = -1;
	p->noise.alpha_step = 0.001;
	p->noise.alpha_run = 0.01;
	p->noise.min_runs = 2;
	if (name && !strcmp(name, "megatron"))
		return megatron_preset(p);
	double thr = 1e-5;
	int noise = name && !strcmp(name, "noise");
	if (name && (!strcmp(name, "bitwise") || noise))
		thr = 0.0;
	else if (name && strcmp(name, "premerge") != 0)
		rc = -1;
	snprintf(p->name, sizeof p->name, "%s",
	         noise        ? "noise"
	         : thr == 0.0 ? "bitwise"
	                      : "premerge");
	snprintf(p->base, sizeof p->base, "%s", p->name);
	p->all_abs = thr;
	th_init(&p->th[0], "loss", thr);
	th_init(&p->th[1], "grad_norm", thr);
	p->th[1].if_logged = 1; /* TorchTitan printed none before mid 2025 */
	p->n_th = 2;
	return rc;
}

static int th_same(const struct matcher_train_threshold *x, const struct matcher_train_threshold *y)
{
	return !strcmp(x->metric, y->metric) && x->abs == y->abs && x->has_rel == y->has_rel &&
	       (!x->has_rel || x->rel == y->rel) && x->if_logged == y->if_logged &&
	       x->allow_pct == y->allow_pct && x->median_window == y->median_window;
}

int matcher_train_policy_select(struct matcher_train_policy *p, const char *const *names, size_t n,
                                double abs)
{
	struct matcher_train_threshold th[MATCHER_TRAIN_MAX_METRICS];
	if (!n || n > MATCHER_TRAIN_MAX_METRICS || !(abs >= 0))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!names[i] || !*names[i] || strlen(names[i]) >= MATCHER_TRAIN_NAME)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(names[k], names[i]))
				return -1;
		th_init(&th[i], names[i], abs);
		for (size_t k = 0; k < p->n_th; k++)
			if (!strcmp(p->th[k].metric, names[i])) {
				th[i] = p->th[k];
				th[i].if_logged = 0;
			}
	}
	int same = n == p->n_th;
	for (size_t i = 0; same && i < n; i++)
		same = th_same(&th[i], &p->th[i]);
	if (same)
		return 0;
	memcpy(p->th, th, n * sizeof th[0]);
	p->n_th = n;
	matcher_train_policy_customise(p);
	return 0;
}

int matcher_train_policy_if_logged(struct matcher_train_policy *p, const char *metric)
{
	if (!metric || !strcmp(metric, "loss"))
		return -1;
	for (size_t i = 0; i < p->n_th; i++)
		if (!strcmp(p->th[i].metric, metric)) {
			p->th[i].if_logged = 1;
			return 0;
		}
	return -1;
}

int matcher_train_policy_compare_all(struct matcher_train_policy *p)
{
	if (p->n_th < 2 || strcmp(p->th[0].metric, "loss") ||
	    strcmp(p->th[1].metric, "grad_norm") || !p->th[1].if_logged ||
	    !strcmp(p->base, "noise"))
		return 0;
	p->all_common = 1;
	return 1;
}

void matcher_train_policy_customise(struct matcher_train_policy *p)
{
	snprintf(p->name, sizeof p->name, "custom");
}

int matcher_train_policy_set(struct matcher_train_policy *p, const char *metric, double abs,
                             double rel, int has_rel)
{
	if (!metric || !*metric || strlen(metric) >= MATCHER_TRAIN_NAME || !(abs >= 0) ||
	    (has_rel && !(rel >= 0)))
		return -1;
	struct matcher_train_threshold *t = NULL;
	for (size_t i = 0; i < p->n_th; i++)
		if (!strcmp(p->th[i].metric, metric))
			t = &p->th[i];
	/* Restating what the policy already says keeps its name: a stored
	 * "premerge" policy read back is still "premerge", not "custom". */
	if (t && t->abs == abs && t->has_rel == (has_rel ? 1 : 0) && (!has_rel || t->rel == rel))
		return 0;
	if (!t) {
		if (p->n_th >= MATCHER_TRAIN_MAX_METRICS)
			return -1;
		t = &p->th[p->n_th++];
		th_init(t, metric, abs);
		/* a metric added to Megatron's check gets its allowance */
		t->allow_pct = !strcmp(p->base[0] ? p->base : p->name, "megatron");
	}
	t->abs = abs;
	t->rel = has_rel ? rel : 0;
	t->has_rel = has_rel ? 1 : 0;
	matcher_train_policy_customise(p);
	return 0;
}

/* ---- comparing one cell ----------------------------------------------- */

void matcher_train_format_value(double v, int decimals, char *out, size_t cap)
{
	if (isnan(v))
		snprintf(out, cap, "NaN");
	else if (isinf(v))
		snprintf(out, cap, v < 0 ? "-Inf" : "Inf");
	else
		snprintf(out, cap, "%.*f", decimals < 0 ? 0 : (decimals > 30 ? 30 : decimals), v);
}

/* Record the precisions of a compared pair (see matcher_train_prec_diff). */
static void note_precision(struct matcher_train_metric_result *m,
                           const struct matcher_train_cell *x, const struct matcher_train_cell *y)
{
	int r = matcher_train_prec_rank(x->prec) < matcher_train_prec_rank(y->prec) ? x->prec
	                                                                            : y->prec;
	if (!(m->prec_seen[0] | m->prec_seen[1]) ||
	    matcher_train_prec_rank(r) < matcher_train_prec_rank(m->prec_compared))
		m->prec_compared = r;
	m->prec_seen[0] |= 1u << x->prec;
	m->prec_seen[1] |= 1u << y->prec;
}

struct cmp {
	double abs, rel;
	int over;
	int mismatch;  /* NaN/Inf on one side only (or inf of other sign) */
	char text[48]; /* exact |diff| */
};

/* Compare a (baseline) and b (candidate) printed cells under threshold t.
 * rel = abs / |a|; 0 when a = b = 0 and +inf when a = 0 != b. */
static void compare_cells(const struct matcher_train_cell *ca, const struct matcher_train_cell *cb,
                          const struct matcher_train_threshold *t, struct cmp *c)
{
	double a = ca->value, b = cb->value;
	c->mismatch = 0;
	if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
		if ((isnan(a) && isnan(b)) || (isinf(a) && a == b)) {
			c->abs = 0;
			c->rel = 0;
			snprintf(c->text, sizeof c->text, "0");
		} else {
			/* ordered as the largest difference; shown as what it is */
			c->abs = INFINITY;
			c->rel = INFINITY;
			c->mismatch = 1;
			snprintf(c->text, sizeof c->text, "%s",
			         isnan(a) || isnan(b) ? "NaN" : "Inf");
		}
	} else {
		double diff;
		int64_t units;
		int d;
		if (ca->prec || cb->prec) /* a full-precision source (train_prec.h) */
			matcher_train_prec_diff(a, ca->decimals, ca->prec, b, cb->decimals,
			                        cb->prec, &c->abs, c->text, sizeof c->text);
		else if (matcher_train_exact_diff(a, ca->decimals, b, cb->decimals, &diff, &units,
		                                  &d)) {
			c->abs = fabs(diff);
			matcher_train_format_units(units, d, c->text, sizeof c->text);
		} else {
			c->abs = fabs(diff);
			snprintf(c->text, sizeof c->text, "%.17g", c->abs);
		}
		if (a == 0)
			c->rel = c->abs == 0 ? 0 : INFINITY;
		else
			c->rel = c->abs / fabs(a);
	}
	c->over = c->mismatch || c->abs > t->abs || (t->has_rel && c->rel > t->rel);
}

int matcher_train_cells_equal(const struct matcher_train_cell *a,
                              const struct matcher_train_cell *b)
{
	struct matcher_train_threshold exact;
	struct cmp c;
	memset(&exact, 0, sizeof exact);
	compare_cells(a, b, &exact, &c);
	return !c.over;
}

/* ---- the check -------------------------------------------------------- */

struct matcher_train_reason *matcher_train_reason_add(struct matcher_train_reason **v, size_t *n,
                                                      const char *code, int is_error)
{
	struct matcher_train_reason *nr = realloc(*v, (*n + 1) * sizeof *nr);
	if (!nr)
		return NULL;
	*v = nr;
	struct matcher_train_reason *x = &nr[(*n)++];
	memset(x, 0, sizeof *x);
	x->code = code;
	x->is_error = is_error;
	return x;
}

static struct matcher_train_reason *add_reason(struct matcher_train_result *r, const char *code,
                                               int is_error)
{
	return matcher_train_reason_add(&r->reasons, &r->n_reasons, code, is_error);
}

struct stepidx {
	long step;
	size_t idx;
};

static int cmp_stepidx(const void *x, const void *y)
{
	long a = ((const struct stepidx *)x)->step, b = ((const struct stepidx *)y)->step;
	return a < b ? -1 : a > b;
}

/* The steps of s in ascending order: s->steps itself when stored sorted
 * (*pairs NULL, index = position), else a sorted malloc'd copy of
 * (step, index) pairs.  -1 on OOM. */
static int sorted_view(const struct matcher_train_series *s, struct stepidx **pairs, size_t *n)
{
	*pairs = NULL;
	*n = s ? s->n_steps : 0;
	if (!s || s->sorted || !s->n_steps)
		return 0;
	struct stepidx *v = malloc(s->n_steps * sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < s->n_steps; i++) {
		v[i].step = s->steps[i];
		v[i].idx = i;
	}
	qsort(v, s->n_steps, sizeof *v, cmp_stepidx);
	*pairs = v;
	return 0;
}

#define VSTEP(s, pr, i) ((pr) ? (pr)[i].step : (s)->steps[i])
#define VIDX(pr, i)     ((pr) ? (pr)[i].idx : (i))

/* Merge two series' steps: common steps (with their series indices) and
 * the steps only in one.  Output arrays malloc'd (may be NULL when empty);
 * only_a may be NULL when the only-lists are not wanted.  -1 on OOM. */
static int merge_steps(const struct matcher_train_series *sa, const struct matcher_train_series *sb,
                       long **common, size_t **ia, size_t **ib, size_t *n_common, long **only_a,
                       size_t *n_only_a, long **only_b, size_t *n_only_b)
{
	int rc = -1;
	struct stepidx *pa = NULL, *pb = NULL;
	size_t na, nb;
	*common = NULL;
	*ia = *ib = NULL;
	*n_common = 0;
	if (only_a) {
		*only_a = *only_b = NULL;
		*n_only_a = *n_only_b = 0;
	}
	if (sorted_view(sa, &pa, &na) < 0 || sorted_view(sb, &pb, &nb) < 0)
		goto done;
	size_t cap = na < nb ? na : nb;
	if (cap) {
		*common = malloc(cap * sizeof **common);
		*ia = malloc(cap * sizeof **ia);
		*ib = malloc(cap * sizeof **ib);
		if (!*common || !*ia || !*ib)
			goto done;
	}
	if (only_a) {
		if (na && !(*only_a = malloc(na * sizeof **only_a)))
			goto done;
		if (nb && !(*only_b = malloc(nb * sizeof **only_b)))
			goto done;
	}
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		long x = i < na ? VSTEP(sa, pa, i) : 0, y = j < nb ? VSTEP(sb, pb, j) : 0;
		if (j >= nb || (i < na && x < y)) {
			if (only_a)
				(*only_a)[(*n_only_a)++] = x;
			i++;
		} else if (i >= na || y < x) {
			if (only_a)
				(*only_b)[(*n_only_b)++] = y;
			j++;
		} else {
			(*common)[*n_common] = x;
			(*ia)[*n_common] = VIDX(pa, i);
			(*ib)[*n_common] = VIDX(pb, j);
			(*n_common)++;
			i++;
			j++;
		}
	}
	rc = 0;
done:
	free(pa);
	free(pb);
	return rc;
}

static void fmt_g(double v, char *out, size_t cap)
{
	if (isnan(v))
		snprintf(out, cap, "NaN");
	else if (isinf(v))
		snprintf(out, cap, "%s", v < 0 ? "-Inf" : "Inf");
	else
		snprintf(out, cap, "%.6g", v);
}

/* "12, 13, 14" (at most 5 then ", ...") */
static void list_steps(const long *v, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = 0;
	for (size_t i = 0; i < n && i < 5 && o < cap; i++) {
		int w = snprintf(out + o, cap - o, "%s%ld", i ? ", " : "", v[i]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
	if (n > 5 && o < cap)
		snprintf(out + o, cap - o, ", ...");
}

int matcher_train_warnings_reason(struct matcher_train_reason **v, size_t *n,
                                  const struct matcher_trainrun *run, const char *side)
{
	size_t nw = run->n_warnings_total;
	if (!nw)
		return 0;
	struct matcher_train_reason *x = matcher_train_reason_add(v, n, "warnings", 1);
	if (!x)
		return -1;
	x->side = strcmp(side, "candidate") ? "baseline" : "candidate";
	x->count = (long)nw;
	x->has_count = 1;
	if (run->n_warnings) {
		const struct matcher_warning *w = &run->warnings[0];
		x->line = w->line;
		x->has_line = w->line != 0;
		snprintf(x->message, sizeof x->message,
		         "%s log has %zu parse warning(s); first: line %lu %s: %.160s", side, nw,
		         w->line, w->code, w->message);
	} else {
		snprintf(x->message, sizeof x->message, "%s log has %zu parse warning(s)", side,
		         nw);
	}
	return 0;
}

enum matcher_verdict matcher_train_reasons_verdict(const struct matcher_train_reason *r, size_t n)
{
	enum matcher_verdict v = MATCHER_VERDICT_PASS;
	for (size_t i = 0; i < n; i++) {
		if (r[i].is_error)
			v = MATCHER_VERDICT_ERROR;
		else if (v == MATCHER_VERDICT_PASS)
			v = MATCHER_VERDICT_FAIL;
	}
	return v;
}

int matcher_trainrun_default_rank(const struct matcher_trainrun *a)
{
	int best = 0, found = 0;
	for (size_t i = 0; i < a->n_series; i++) {
		if (a->series[i].validation)
			continue;
		if (a->series[i].rank == 0)
			return 0;
		if (!found || a->series[i].rank < best)
			best = a->series[i].rank;
		found = 1;
	}
	return best;
}

/* Megatron's allowance of failing steps among n compared, at pct per
 * cent: floor(n * pct / 100), at least 1 and at most 50; none for a
 * single step (its check then wants every value close). */
static size_t allowed_over(size_t n, int pct)
{
	size_t k = n * (size_t)pct / 100;
	if (n <= 1)
		return 0;
	return k < 1 ? 1 : k > 50 ? 50 : k;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The median of v[0..n) (n > 0; sorted in place), NaN taken as +Inf. */
static double median(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isnan(v[i]))
			v[i] = INFINITY;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A median_window metric: the medians of both runs over Megatron's
 * steady window, compared once under m->th: the common steps where the
 * baseline is finite within steps 5..20 when its last finite step is at
 * most 25, else 30..45; none there: its first 4 such steps from the
 * window's start.  A candidate's NaN or missing value counts as +Inf.
 * The result is one compared value at the first step taken; a note gives
 * the steps and both medians.  0, or -1 on OOM. */
static int window_median(struct matcher_train_result *res, struct matcher_train_metric_result *m,
                         const struct matcher_train_column *ca,
                         const struct matcher_train_column *cb, const long *steps, const size_t *ia,
                         const size_t *ib, size_t n)
{
	const struct matcher_train_threshold *t = &m->th;
	long last = -1;
	for (size_t i = 0; i < n; i++)
		if (ca->cells[ia[i]].present && isfinite(ca->cells[ia[i]].value))
			last = steps[i];
	long lo = last <= 25 ? 5 : 30, hi = last <= 25 ? 20 : 45;
	double *va = malloc((n ? n : 1) * sizeof *va), *vb = malloc((n ? n : 1) * sizeof *vb);
	size_t k = 0;
	long first = 0, final = 0; /* the steps taken */
	int decimal = 1, dec = 0;  /* every value decimal text: the exact diff */
	if (!va || !vb) {
		free(va);
		free(vb);
		return -1;
	}
	/* the baseline's finite steps in the window; else its first 4 from
	 * the window's start (a short or sparse run) */
	for (int pass = 0; pass < 2 && !k && last >= 0; pass++) {
		for (size_t i = 0; i < n && (!pass || k < 4); i++) {
			const struct matcher_train_cell *x = &ca->cells[ia[i]],
			                                *y = &cb->cells[ib[i]];
			if (steps[i] < lo || (!pass && steps[i] > hi) || !x->present ||
			    !isfinite(x->value))
				continue;
			if (!k)
				first = steps[i];
			final = steps[i];
			va[k] = x->value;
			vb[k] = y->present ? y->value : INFINITY; /* Megatron: "nan" */
			k++;
			decimal &=
			        x->prec <= MATCHER_PREC_DECIMAL && y->prec <= MATCHER_PREC_DECIMAL;
			dec = x->decimals > dec ? x->decimals : dec;
			dec = y->decimals > dec ? y->decimals : dec;
		}
	}
	if (!k) {
		struct matcher_train_reason *x = add_reason(res, "metric_missing", 1);
		if (x) {
			snprintf(x->metric, sizeof x->metric, "%s", m->name);
			snprintf(
			        x->message, sizeof x->message,
			        "metric %s has no finite baseline value at a common step from step "
			        "%ld on",
			        m->name, lo);
		}
		free(va);
		free(vb);
		m->pass = 0;
		return x ? 0 : -1;
	}
	lo = first;
	hi = final;
	double a = median(va, k), b = median(vb, k);
	free(va);
	free(vb);
	double abs = isinf(a) || isinf(b) ? (a == b ? 0 : INFINITY) : fabs(b - a);
	double rel = a == 0 ? (abs == 0 ? 0 : INFINITY) : abs / fabs(a);
	char ta[32], tb[32];
	matcher_format_pyfloat(a, ta, sizeof ta);
	matcher_format_pyfloat(b, tb, sizeof tb);
	m->n_compared = 1;
	m->max_abs = m->mean_abs = abs;
	m->max_rel = m->mean_rel = rel;
	m->max_abs_step = lo;
	m->has_max_step = 1;
	/* the median of an even count halves a sum: one decimal more */
	double diff;
	int64_t units;
	int d;
	if (decimal && isfinite(abs) &&
	    matcher_train_exact_diff(a, dec + (k % 2 == 0), b, dec + (k % 2 == 0), &diff, &units,
	                             &d))
		matcher_train_format_units(units, d, m->max_abs_text, sizeof m->max_abs_text);
	else
		matcher_format_pyfloat(abs, m->max_abs_text, sizeof m->max_abs_text);
	m->pass = !(abs > t->abs || (t->has_rel && rel > t->rel));
	snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
	         "%s: compared as the medians over steps %ld..%ld (%zu steps): baseline %s, "
	         "candidate %s",
	         m->name, lo, hi, k, ta, tb);
	if (m->pass)
		return 0;
	m->n_over = 1;
	m->first_over = lo;
	m->has_first_over = 1;
	struct matcher_train_reason *x = add_reason(res, "threshold_exceeded", 0);
	if (!x)
		return -1;
	char r2[32];
	fmt_g(t->rel, r2, sizeof r2);
	snprintf(x->metric, sizeof x->metric, "%s", m->name);
	x->step = lo;
	x->has_step = 1;
	x->abs = abs;
	snprintf(x->abs_text, sizeof x->abs_text, "%s", m->max_abs_text);
	x->has_abs = 1;
	x->threshold = t->abs;
	x->has_threshold = 1;
	x->count = 1;
	x->has_count = 1;
	snprintf(x->message, sizeof x->message,
	         "%s: the median over steps %ld..%ld differs beyond rel %s: baseline %s, "
	         "candidate %s",
	         m->name, lo, hi, r2, ta, tb);
	return 0;
}

static int check_metric(struct matcher_train_result *res, size_t mi,
                        const struct matcher_trainrun *a, const struct matcher_trainrun *b)
{
	int rc = -1;
	struct matcher_train_metric_result *m = &res->metrics[mi];
	const struct matcher_train_threshold *t = &m->th;
	long *vsteps = NULL;
	size_t *via = NULL, *vib = NULL;
	const long *steps = res->common;
	const size_t *ia = res->idx_a, *ib = res->idx_b;
	size_t n = res->n_common;
	int validation = !strncmp(m->name, "validation/", 11);
	const char *col = validation ? m->name + 11 : m->name;
	const struct matcher_train_series *sa = matcher_trainrun_series(a, res->rank, validation);
	const struct matcher_train_series *sb = matcher_trainrun_series(b, res->rank, validation);
	const struct matcher_train_column *ca = matcher_train_series_column(sa, col);
	const struct matcher_train_column *cb = matcher_train_series_column(sb, col);
	m->present[0] = ca != NULL;
	m->present[1] = cb != NULL;
	snprintf(m->max_abs_text, sizeof m->max_abs_text, "0");
	if (!validation) {
		res->cols[2 * mi] = ca;
		res->cols[2 * mi + 1] = cb;
	}
	if (!ca && !cb && t->if_logged && strcmp(m->name, "loss") != 0) {
		/* a default metric neither run printed: not compared, a note */
		m->not_logged = 1;
		snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
		         "%s was not logged by either run (metric_not_logged): not compared; the "
		         "verdict rests on the other metrics",
		         m->name);
		rc = 0;
		goto done;
	}
	if (((!ca && matcher_train_series_golden(sa)) ||
	     (!cb && matcher_train_series_golden(sb))) &&
	    strcmp(m->name, "loss") != 0) {
		/* a golden loss file holds the metrics it names (train_prec.h) */
		snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
		         "%s: not compared: the %s is a golden loss file without it", m->name,
		         !ca && matcher_train_series_golden(sa) ? "baseline" : "candidate");
		m->pass = 1;
		rc = 0;
		goto done;
	}
	if (!ca || !cb) {
		struct matcher_train_reason *x = add_reason(res, "metric_missing", 1);
		if (!x)
			goto done;
		snprintf(x->metric, sizeof x->metric, "%s", m->name);
		x->side = !ca ? "baseline" : "candidate";
		snprintf(x->message, sizeof x->message, "metric %s is missing from the %s%s log",
		         m->name, !ca ? "baseline" : "candidate",
		         (!ca && !cb) ? " and candidate" : "");
		m->pass = 0;
		rc = 0;
		goto done;
	}
	if (validation) {
		size_t nv;
		if (merge_steps(sa, sb, &vsteps, &via, &vib, &nv, NULL, NULL, NULL, NULL) < 0)
			goto done;
		steps = vsteps;
		ia = via;
		ib = vib;
		n = nv;
	}
	if (t->median_window && !validation) {
		rc = window_median(res, m, ca, cb, steps, ia, ib, n);
		goto done;
	}
	double sum_abs = 0, sum_rel = 0;
	long first_mismatch = 0;
	int has_mismatch = 0;
	int min_dec = -1;
	for (size_t i = 0; i < n; i++) {
		const struct matcher_train_cell *x = &ca->cells[ia[i]], *y = &cb->cells[ib[i]];
		if (!x->present || !y->present)
			continue;
		m->nan[0] += isnan(x->value) != 0;
		m->nan[1] += isnan(y->value) != 0;
		m->inf[0] += isinf(x->value) != 0;
		m->inf[1] += isinf(y->value) != 0;
		/* the printed resolution is about printed (stdout) values only */
		if (isfinite(x->value) && !x->prec && (min_dec < 0 || x->decimals < min_dec))
			min_dec = x->decimals;
		if (isfinite(y->value) && !y->prec && (min_dec < 0 || y->decimals < min_dec))
			min_dec = y->decimals;
		note_precision(m, x, y);
		struct cmp c;
		compare_cells(x, y, t, &c);
		m->n_compared++;
		sum_abs += c.abs;
		sum_rel += c.rel;
		if (!m->has_max_step || c.abs > m->max_abs) {
			m->max_abs = c.abs;
			m->max_abs_step = steps[i];
			m->has_max_step = 1;
			snprintf(m->max_abs_text, sizeof m->max_abs_text, "%s", c.text);
		}
		if (c.rel > m->max_rel)
			m->max_rel = c.rel;
		if (c.over) {
			if (!m->has_first_over) {
				m->first_over = steps[i];
				m->has_first_over = 1;
			}
			m->n_over++;
		}
		if (c.mismatch && !has_mismatch) {
			has_mismatch = 1;
			first_mismatch = steps[i];
		}
	}
	if (m->n_compared) {
		m->mean_abs = sum_abs / (double)m->n_compared;
		m->mean_rel = sum_rel / (double)m->n_compared;
	}
	if (min_dec >= 0) {
		m->has_resolution = 1;
		m->decimals = min_dec;
		m->resolution = matcher_train_resolution(min_dec);
		m->below_resolution = t->abs < m->resolution / 2;
	}
	int nan_inf_differ = m->nan[0] != m->nan[1] || m->inf[0] != m->inf[1] || has_mismatch;
	m->pass = m->n_compared > 0 && m->n_over == 0 && !nan_inf_differ;
	if (t->allow_pct > 0 && m->n_compared > 0) {
		/* Megatron's allowance: a one-sided NaN/Inf is one step over */
		size_t allowed = allowed_over(m->n_compared, t->allow_pct);
		m->pass = m->n_over <= allowed;
		if (m->n_over)
			snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
			         "%s: %zu of %zu steps over the threshold, %s the allowance of "
			         "%zu failing step(s) (%d%% of the steps, at least 1, at most 50)",
			         m->name, m->n_over, m->n_compared, m->pass ? "within" : "beyond",
			         allowed, t->allow_pct);
		if (m->pass) {
			rc = 0;
			goto done;
		}
		nan_inf_differ = 0; /* counted among the steps over */
	}
	if (m->n_compared == 0 && n > 0) {
		struct matcher_train_reason *x = add_reason(res, "metric_missing", 1);
		if (!x)
			goto done;
		snprintf(x->metric, sizeof x->metric, "%s", m->name);
		snprintf(x->message, sizeof x->message,
		         "metric %s has no value on both sides at any common step", m->name);
	}
	if (m->n_over) {
		struct matcher_train_reason *x = add_reason(res, "threshold_exceeded", 0);
		char thr[32], rel[64] = "";
		if (!x)
			goto done;
		snprintf(x->metric, sizeof x->metric, "%s", m->name);
		x->step = m->first_over;
		x->has_step = 1;
		x->abs = m->max_abs;
		snprintf(x->abs_text, sizeof x->abs_text, "%s", m->max_abs_text);
		x->has_abs = 1;
		x->threshold = t->abs;
		x->has_threshold = 1;
		x->count = (long)m->n_over;
		x->has_count = 1;
		fmt_g(t->abs, thr, sizeof thr);
		if (t->has_rel) {
			char r2[32];
			fmt_g(t->rel, r2, sizeof r2);
			snprintf(rel, sizeof rel, " (rel %s)", r2);
		}
		snprintf(x->message, sizeof x->message,
		         "%s differs beyond the threshold %s%s from step %ld: max |diff| %s at "
		         "step %ld, %zu of %zu steps over",
		         m->name, thr, rel, m->first_over, m->max_abs_text, m->max_abs_step,
		         m->n_over, m->n_compared);
	}
	if (nan_inf_differ) {
		struct matcher_train_reason *x = add_reason(res, "nan_inf_mismatch", 0);
		if (!x)
			goto done;
		snprintf(x->metric, sizeof x->metric, "%s", m->name);
		if (has_mismatch) {
			x->step = first_mismatch;
			x->has_step = 1;
		}
		snprintf(x->message, sizeof x->message,
		         "%s: NaN/Inf differ (baseline %zu NaN %zu Inf, candidate %zu NaN %zu "
		         "Inf)%s",
		         m->name, m->nan[0], m->inf[0], m->nan[1], m->inf[1],
		         has_mismatch ? "; first on one side only at the step given" : "");
	}
	rc = 0;
done:
	free(vsteps);
	free(via);
	free(vib);
	return rc;
}

/* all_common: the metrics of the training series both runs hold, in the
 * baseline's column order, with their thresholds (a named one, else
 * all_abs) into ms when given; counts the one-sided ones into
 * res->n_only_metrics.  Returns the count. */
static size_t common_metrics(struct matcher_train_result *res, const struct matcher_train_policy *p,
                             struct matcher_train_metric_result *ms)
{
	const struct matcher_train_series *sa = res->sa, *sb = res->sb;
	size_t n = 0;
	if (!sa || !sb)
		return 0;
	for (size_t i = 0; i < sa->n_cols; i++) {
		const char *name = sa->cols[i].name;
		if (!matcher_train_series_column(sb, name)) {
			res->n_only_metrics[0] += ms != NULL;
			continue;
		}
		if (ms) {
			struct matcher_train_metric_result *m = &ms[n];
			snprintf(m->name, sizeof m->name, "%s", name);
			th_init(&m->th, name, p->all_abs);
			for (size_t k = 0; k < p->n_th; k++)
				if (!strcmp(p->th[k].metric, name))
					m->th = p->th[k];
			m->th.if_logged = 0;
		}
		n++;
	}
	for (size_t i = 0; ms && i < sb->n_cols; i++)
		res->n_only_metrics[1] += !matcher_train_series_column(sa, sb->cols[i].name);
	return n;
}

/* Keep the earliest difference: metric i's first step over its threshold
 * or its first one-sided NaN/Inf (from its reasons). */
static void first_diff(struct matcher_train_result *res, size_t i)
{
	const struct matcher_train_metric_result *m = &res->metrics[i];
	for (size_t k = 0; k < res->n_reasons; k++) {
		const struct matcher_train_reason *x = &res->reasons[k];
		if (x->is_error || !x->has_step || strcmp(x->metric, m->name))
			continue;
		if (!res->has_first_diff || x->step < res->first_diff_step) {
			res->has_first_diff = 1;
			res->first_diff_step = x->step;
			res->first_diff_metric = i;
		}
	}
}

int matcher_train_check(const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                        const struct matcher_train_policy *pol, struct matcher_train_result **out)
{
	struct matcher_train_result *res = calloc(1, sizeof *res);
	*out = NULL;
	if (!res)
		return -1;
	if (pol)
		res->policy = *pol;
	else
		matcher_train_policy_preset(&res->policy, "premerge");
	const struct matcher_train_policy *p = &res->policy;
	res->rank = p->rank >= 0 ? p->rank : matcher_trainrun_default_rank(a);

	if (!p->allow_warnings &&
	    (matcher_train_warnings_reason(&res->reasons, &res->n_reasons, a, "baseline") < 0 ||
	     matcher_train_warnings_reason(&res->reasons, &res->n_reasons, b, "candidate") < 0))
		goto oom;

	res->sa = matcher_trainrun_series(a, res->rank, 0);
	res->sb = matcher_trainrun_series(b, res->rank, 0);
	if (!res->sa || !res->sb) {
		struct matcher_train_reason *x = add_reason(res, "rank_missing", 1);
		if (!x)
			goto oom;
		x->side = !res->sa ? "baseline" : "candidate";
		snprintf(x->message, sizeof x->message,
		         "no training steps for rank %d in the %s log", res->rank, x->side);
	}
	if (merge_steps(res->sa, res->sb, &res->common, &res->idx_a, &res->idx_b, &res->n_common,
	                &res->only_a, &res->n_only_a, &res->only_b, &res->n_only_b) < 0)
		goto oom;
	if (res->sa && res->sb && (res->n_only_a || res->n_only_b)) {
		struct matcher_train_reason *x = add_reason(res, "step_sets_differ", 1);
		char la[96], lb[96];
		if (!x)
			goto oom;
		list_steps(res->only_a, res->n_only_a, la, sizeof la);
		list_steps(res->only_b, res->n_only_b, lb, sizeof lb);
		long first = res->n_only_a ? res->only_a[0] : res->only_b[0];
		if (res->n_only_a && res->n_only_b && res->only_b[0] < first)
			first = res->only_b[0];
		x->step = first;
		x->has_step = 1;
		x->count = (long)(res->n_only_a + res->n_only_b);
		x->has_count = 1;
		snprintf(x->message, sizeof x->message,
		         "the runs logged different steps: %zu only in the baseline%s%s%s, "
		         "%zu only in the candidate%s%s%s",
		         res->n_only_a, res->n_only_a ? " (" : "", la, res->n_only_a ? ")" : "",
		         res->n_only_b, res->n_only_b ? " (" : "", lb, res->n_only_b ? ")" : "");
	}
	if (res->sa && res->sb && res->n_common == 0) {
		struct matcher_train_reason *x = add_reason(res, "no_common_steps", 1);
		if (!x)
			goto oom;
		snprintf(x->message, sizeof x->message, "the runs have no training step in common");
	} else if (res->n_common > 0 && (long)res->n_common < p->min_steps) {
		struct matcher_train_reason *x = add_reason(res, "too_few_steps", 1);
		if (!x)
			goto oom;
		x->count = (long)res->n_common;
		x->has_count = 1;
		snprintf(x->message, sizeof x->message,
		         "only %zu common steps; the policy needs at least %ld", res->n_common,
		         p->min_steps);
	}

	size_t nm = p->all_common ? common_metrics(res, p, NULL) : p->n_th;
	res->n_metrics = nm;
	res->metrics = calloc(nm ? nm : 1, sizeof *res->metrics);
	res->cols = calloc(2 * (nm ? nm : 1), sizeof *res->cols);
	/* per metric: a resolution note and a precision note, or one
	 * metric_not_logged / golden note; a Megatron note (allowance, window
	 * medians); and the one-sided metrics' note */
	res->notes = calloc(3 * (nm ? nm : 1) + 1, sizeof *res->notes);
	if (!res->metrics || !res->cols || !res->notes)
		goto oom;
	if (p->all_common)
		common_metrics(res, p, res->metrics);
	if (p->all_common && !nm && res->sa && res->sb) {
		/* nothing to compare is never a pass */
		struct matcher_train_reason *x = add_reason(res, "metric_missing", 1);
		if (!x)
			goto oom;
		snprintf(x->message, sizeof x->message,
		         "the runs logged no series in common (%zu only in the baseline, %zu only "
		         "in the candidate)",
		         res->n_only_metrics[0], res->n_only_metrics[1]);
	}
	size_t n_below = 0, first_below = 0; /* all_common: series below resolution */
	for (size_t i = 0; i < nm; i++) {
		struct matcher_train_metric_result *m = &res->metrics[i];
		if (!p->all_common) {
			snprintf(m->name, sizeof m->name, "%s", p->th[i].metric);
			m->th = p->th[i];
		}
		if (check_metric(res, i, a, b) < 0)
			goto oom;
		first_diff(res, i);
		if (m->has_resolution && m->below_resolution && p->all_common) {
			/* hundreds of series: one note for them all, below */
			if (!n_below++)
				first_below = i;
		} else if (m->has_resolution && m->below_resolution) {
			char thr[32], rs[32];
			fmt_g(m->th.abs, thr, sizeof thr);
			fmt_g(m->resolution, rs, sizeof rs);
			snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
			         "%s is printed with %d decimals (resolution %s): the threshold %s "
			         "is "
			         "below half of that, so differences that small cannot be seen in "
			         "the "
			         "logs; only printed digits are compared",
			         m->name, m->decimals, rs, thr);
		}
		if (matcher_train_prec_note(m->name, m->prec_seen, m->prec_compared, m->decimals,
		                            res->notes[res->n_notes], sizeof res->notes[0]))
			res->n_notes++;
	}

	if (n_below) {
		const struct matcher_train_metric_result *m = &res->metrics[first_below];
		char thr[32], rs[32];
		fmt_g(m->th.abs, thr, sizeof thr);
		fmt_g(m->resolution, rs, sizeof rs);
		snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
		         "%zu of %zu series are printed with fewer decimals than their threshold "
		         "can see (the first: %.100s, %d decimals, resolution %s, threshold %s); "
		         "only printed digits are compared",
		         n_below, nm, m->name, m->decimals, rs, thr);
	}
	if (p->all_common && (res->n_only_metrics[0] || res->n_only_metrics[1]))
		snprintf(res->notes[res->n_notes++], sizeof res->notes[0],
		         "%zu series only in the baseline and %zu only in the candidate: not "
		         "compared (the compared set is every series both runs logged)",
		         res->n_only_metrics[0], res->n_only_metrics[1]);
	res->verdict = matcher_train_reasons_verdict(res->reasons, res->n_reasons);
	*out = res;
	return 0;
oom:
	matcher_train_result_free(res);
	return -1;
}

void matcher_train_result_free(struct matcher_train_result *r)
{
	if (!r)
		return;
	free(r->reasons);
	free(r->metrics);
	free(r->notes);
	free(r->only_a);
	free(r->only_b);
	free(r->common);
	free(r->idx_a);
	free(r->idx_b);
	free(r->cols);
	free(r);
}

int matcher_train_row(const struct matcher_train_result *r, size_t i, long *step,
                      struct matcher_train_row_cell *cells)
{
	if (!r || i >= r->n_common)
		return -1;
	*step = r->common[i];
	for (size_t k = 0; k < r->n_metrics; k++) {
		struct matcher_train_row_cell *c = &cells[k];
		const struct matcher_train_column *ca = r->cols[2 * k], *cb = r->cols[2 * k + 1];
		memset(c, 0, sizeof *c);
		snprintf(c->abs_text, sizeof c->abs_text, "0");
		const struct matcher_train_cell *x = ca ? &ca->cells[r->idx_a[i]] : NULL;
		const struct matcher_train_cell *y = cb ? &cb->cells[r->idx_b[i]] : NULL;
		if (x && x->present) {
			c->present[0] = 1;
			c->a = x->value;
			c->dec_a = x->decimals;
		}
		if (y && y->present) {
			c->present[1] = 1;
			c->b = y->value;
			c->dec_b = y->decimals;
		}
		if (c->present[0] && c->present[1]) {
			struct cmp cm;
			compare_cells(x, y, &r->metrics[k].th, &cm);
			c->abs = cm.abs;
			c->rel = cm.rel;
			c->over = cm.over;
			snprintf(c->abs_text, sizeof c->abs_text, "%s", cm.text);
		}
	}
	return 0;
}
