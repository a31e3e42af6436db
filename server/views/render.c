/* render.c - PNG charts and PDF reports of stored comparisons and suites
 * (API: views.h).  The store gives typed results and pages of rows; this
 * file reduces them to what web/pdf.h draws (an envelope per metric, the
 * first per-step rows, a bounded profile per rank, the first
 * non-matching rows) and calls it.  No HTTP here: h_render.c serves the
 * documents and the mail sender attaches them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_views.h"
#include "pdf.h"
#include "store.h"
#include "web.h"
#include "views.h"

#define STEP_PAGE      1000
#define PROFILE_RANKS  16 /* ranks with a profile in one report */
#define VALIDATION_PFX "validation/"

static int fail(struct srv_render_err *e, unsigned status, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static int fail(struct srv_render_err *e, unsigned status, const char *code, const char *fmt, ...)
{
	va_list ap;
	e->status = status;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	return -1;
}

static int store_fail(struct srv_render_err *e, struct store *db, int rc)
{
	if (rc == STORE_NOT_FOUND)
		return fail(e, 404, "not_found", "%s", store_errmsg(db));
	return fail(e, rc == STORE_BUSY ? 503 : 500, "database", "%s", store_errmsg(db));
}

/* The comparison, finished with a typed result, into *v. */
static int load_done(struct store *db, int64_t id, struct store_comparison_view *v,
                     struct srv_render_err *e)
{
	int rc = store_comparison_get(db, id, v);
	if (rc == STORE_NOT_FOUND)
		return fail(e, 404, "not_found", "no comparison %lld", (long long)id);
	if (rc < 0)
		return store_fail(e, db, rc);
	const struct store_comparison *c = &v->cmp;
	if (!strcmp(c->status, "failed"))
		return fail(e, 409, "comparison_failed", "comparison %lld failed: %s",
		            (long long)id, c->error ? c->error : "no reason recorded");
	if (strcmp(c->status, "done"))
		return fail(e, 409, "not_ready", "comparison %lld is %s; ask again when it is done",
		            (long long)id, c->status);
	if (!c->train && !c->act && !c->noise)
		return fail(e, 409, "no_result",
		            "comparison %lld has no typed result (recompute it)", (long long)id);
	return 0;
}

/* ---- training ------------------------------------------------------------ */

struct train_data {
	struct web_env *env; /* one per compared metric (n_env) */
	size_t n_env;
	struct web_pdf_step *steps;
	size_t n_steps;
	int64_t total;
	int64_t skipped; /* rows before steps[0] (a window round the first offence) */
	const char *table[2];
	int table_idx[2];
	int n_table;
};

static void train_data_free(struct train_data *d)
{
	for (size_t i = 0; i < d->n_env; i++)
		web_env_free(&d->env[i]);
	free(d->env);
	free(d->steps);
	memset(d, 0, sizeof *d);
}

static int is_validation(const char *m)
{
	return !strncmp(m, VALIDATION_PFX, strlen(VALIDATION_PFX));
}

/* One side's validation series of a metric column. */
struct vseries {
	long *step;
	double *v;
	size_t n, cap;
};

static int vseries_load(struct store *db, int64_t run_id, int rank, const char *col,
                        struct vseries *s)
{
	char cursor[64] = "";
	do {
		struct store_run_step_page pg;
		int rc = store_steps_list(db, run_id, rank, 1, STEP_PAGE, cursor[0] ? cursor : NULL,
		                          &pg);
		if (rc < 0) {
			store_run_step_page_free(&pg);
			return rc;
		}
		for (size_t i = 0; i < pg.n_steps; i++) {
			const struct store_run_step *st = &pg.steps[i];
			for (size_t k = 0; k < st->n_metrics; k++) {
				if (strcmp(st->metrics[k].name, col))
					continue;
				if (s->n == s->cap) {
					size_t nc = s->cap ? s->cap * 2 : 256;
					long *ns = realloc(s->step, nc * sizeof *ns);
					if (ns)
						s->step = ns;
					double *nv = ns ? realloc(s->v, nc * sizeof *nv) : NULL;
					if (!nv) {
						store_run_step_page_free(&pg);
						return STORE_ERROR;
					}
					s->v = nv;
					s->cap = nc;
				}
				s->step[s->n] = st->step;
				s->v[s->n++] =
				        st->metrics[k].has_value ? st->metrics[k].value : NAN;
				break;
			}
		}
		snprintf(cursor, sizeof cursor, "%s", pg.next_cursor);
		store_run_step_page_free(&pg);
	} while (cursor[0]);
	return 0;
}

/* A validation metric's envelope: the two runs' validation series joined
 * on their common steps. */
static int load_validation(struct store *db, const struct store_comparison *c, const char *metric,
                           struct web_env *env)
{
	struct vseries s[2];
	int rc = 0;
	memset(s, 0, sizeof s);
	for (int k = 0; k < 2 && rc == 0; k++)
		rc = vseries_load(db, k ? c->candidate_id : c->baseline_id, c->train->rank,
		                  metric + strlen(VALIDATION_PFX), &s[k]);
	for (size_t i = 0, j = 0; rc == 0 && i < s[0].n && j < s[1].n;) {
		if (s[0].step[i] < s[1].step[j]) {
			i++;
			continue;
		}
		if (s[0].step[i] > s[1].step[j]) {
			j++;
			continue;
		}
		double a = s[0].v[i], b = s[1].v[j];
		double v[WEB_ENV_N] = {a, b, isfinite(a) && isfinite(b) ? fabs(b - a) : INFINITY};
		int has[WEB_ENV_N] = {1, 1, 1};
		if (isnan(a) && isnan(b))
			v[WEB_ENV_D] = 0; /* both NaN: no difference */
		if (web_env_add(env, (double)s[0].step[i], v, has) < 0)
			rc = STORE_ERROR;
		i++;
		j++;
	}
	for (int k = 0; k < 2; k++) {
		free(s[k].step);
		free(s[k].v);
	}
	return rc;
}

/* The first offending step of r (the smallest first step over a
 * threshold of its metrics), or -1 when no metric went over. */
static long first_offending(const struct store_train_result *r)
{
	long first = -1;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];
		if (m->has_first_over && (first < 0 || m->first_over < first))
			first = m->first_over;
	}
	return first;
}

/* The rows kept before the first offending step (a ring of `before`
 * slots written pre times) in step order at steps[0..]; how many. */
static size_t unroll_ring(struct web_pdf_step *steps, size_t pre, size_t before)
{
	if (pre <= before)
		return pre;
	size_t k = pre % before;
	struct web_pdf_step *tmp = malloc(k ? k * sizeof *tmp : 1);
	if (!tmp)
		return 0; /* the window then starts at the offence itself */
	memcpy(tmp, steps, k * sizeof *tmp);
	memmove(steps, steps + k, (before - k) * sizeof *steps);
	memcpy(steps + before - k, tmp, k * sizeof *tmp);
	free(tmp);
	return before;
}

/* The envelopes (every metric, or only metric index `only`) and
 * want_steps per-step rows of the table metrics: the first ones, or for
 * a comparison with an offending step, from want_steps / 5 rows before
 * the first of them (d->skipped counts the rows before the window). */
static int load_train(struct store *db, const struct store_comparison *c, int only,
                      size_t want_steps, struct train_data *d, struct srv_render_err *e)
{
	const struct store_train_result *r = c->train;
	char cursor[64] = "";
	memset(d, 0, sizeof *d);
	if (!(d->env = calloc(r->n_metrics ? r->n_metrics : 1, sizeof *d->env)))
		return fail(e, 500, "internal", "out of memory");
	d->n_env = r->n_metrics;
	if (want_steps) {
		d->n_table = web_pdf_table_metrics(r, d->table, d->table_idx);
		if (!(d->steps = calloc(want_steps, sizeof *d->steps)))
			return fail(e, 500, "internal", "out of memory");
	}
	long first = want_steps ? first_offending(r) : -1;
	size_t before = first >= 0 ? want_steps / 5 : 0, pre = 0;
	int reached = first < 0;
	int any_training = 0;
	for (size_t i = 0; i < r->n_metrics; i++)
		if ((only < 0 || (size_t)only == i) && !is_validation(r->metrics[i].name))
			any_training = 1;
	while (any_training || want_steps) {
		struct store_step_page sp;
		int rc = store_comparison_steps_list(db, c->id, -1, STEP_PAGE,
		                                     cursor[0] ? cursor : NULL, &sp);
		if (rc < 0) {
			store_step_page_free(&sp);
			return store_fail(e, db, rc);
		}
		for (size_t i = 0; i < sp.n_rows; i++) {
			const struct store_step_row *row = &sp.rows[i];
			d->total++;
			for (size_t k = 0; k < r->n_metrics; k++) {
				if ((only >= 0 && (size_t)only != k) ||
				    is_validation(r->metrics[k].name))
					continue;
				const struct matcher_train_row_cell *cl =
				        store_step_row_cell(row, r->metrics[k].name, k);
				if (cl && web_env_add_cell(&d->env[k], row->step, cl) < 0) {
					store_step_page_free(&sp);
					return fail(e, 500, "internal", "out of memory");
				}
			}
			if (!reached && row->step >= first) {
				reached = 1;
				d->n_steps = unroll_ring(d->steps, pre, before);
				d->skipped = (int64_t)(pre - d->n_steps);
			}
			struct web_pdf_step *s = NULL;
			if (!reached && before)
				s = &d->steps[pre++ % before];
			else if (!reached)
				pre++;
			else if (d->n_steps < want_steps)
				s = &d->steps[d->n_steps++];
			if (s) {
				s->step = row->step;
				for (int k = 0; k < d->n_table; k++) {
					const struct matcher_train_row_cell *cl =
					        store_step_row_cell(row, d->table[k],
					                            (size_t)d->table_idx[k]);
					if (cl)
						s->cell[k] = *cl;
					else
						memset(&s->cell[k], 0, sizeof s->cell[k]);
				}
			}
		}
		snprintf(cursor, sizeof cursor, "%s", sp.next_cursor);
		store_step_page_free(&sp);
		if (!cursor[0])
			break;
	}
	if (!reached) {
		/* no row reached the offence (not expected): the last rows */
		d->n_steps = unroll_ring(d->steps, pre, before);
		d->skipped = (int64_t)(pre - d->n_steps);
	}
	for (size_t k = 0; k < r->n_metrics; k++) {
		if ((only >= 0 && (size_t)only != k) || !is_validation(r->metrics[k].name))
			continue;
		int rc = load_validation(db, c, r->metrics[k].name, &d->env[k]);
		if (rc < 0)
			return rc == STORE_ERROR ? fail(e, 500, "internal", "cannot read steps: %s",
			                                store_errmsg(db))
			                         : store_fail(e, db, rc);
	}
	return 0;
}

static const char *run_meta(const struct store_run *run)
{
	return run ? run->meta_json : NULL;
}

static int train_section(struct web_pdf *p, struct store *db, const struct store_comparison *c,
                         int level, size_t max_rows, struct srv_render_err *e)
{
	struct train_data d;
	char hint[96];
	int rc = load_train(db, c, -1, max_rows, &d, e);
	if (rc == 0) {
		snprintf(hint, sizeof hint, "GET /comparisons/%lld/steps.csv", (long long)c->id);
		struct web_pdf_train t = {.cmp = c,
		                          .meta_a = run_meta(c->baseline),
		                          .meta_b = run_meta(c->candidate),
		                          .res = c->train,
		                          .env = d.env,
		                          .table_metric = {d.table[0], d.table[1]},
		                          .n_table_metrics = d.n_table,
		                          .steps = d.steps,
		                          .n_steps = d.n_steps,
		                          .n_steps_total = d.total,
		                          .csv_hint = hint,
		                          .n_steps_before = d.skipped};
		if (web_pdf_train_report(p, &t, level) < 0)
			rc = fail(e, 500, "internal", "cannot draw the report");
	}
	train_data_free(&d);
	return rc;
}

/* ---- activation ------------------------------------------------------------ */

static int prof_point(void *ctx, int64_t idx, const char *status, const char *phase, double dist)
{
	int st = !status ? 0 : !strcmp(status, "diff") ? 1 : !strcmp(status, "a_only") ? 2 : 3;
	web_profile_acc_add(ctx, (long)idx, st, phase && !strcmp(phase, "backward"), dist);
	return 0;
}

static int act_profiles(struct store *db, const struct store_comparison *c,
                        struct web_profile **out, size_t *n_out)
{
	const struct store_act_result *r = c->act;
	size_t n = r->n_ranks < PROFILE_RANKS ? r->n_ranks : PROFILE_RANKS;
	struct web_profile *pr = calloc(n ? n : 1, sizeof *pr);
	*out = pr;
	*n_out = 0;
	if (!pr)
		return STORE_ERROR;
	for (size_t i = 0; i < n; i++) {
		const struct store_act_rank *k = &r->ranks[i];
		struct web_profile_acc a;
		if (web_profile_acc_init(&a, (long)k->n_rows) < 0)
			return STORE_ERROR;
		int rc = store_comparison_profile_foreach(db, c->id, k->rank < 0 ? 0 : k->rank,
		                                          prof_point, &a);
		web_profile_acc_finish(&a, &pr[i]);
		pr[i].first_fwd = (long)k->first_divergence[0].row;
		pr[i].first_bwd = (long)k->first_divergence[1].row;
		*n_out = i + 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int act_section(struct web_pdf *p, struct store *db, const struct store_comparison *c,
                       int level, int64_t max_rows, struct srv_render_err *e)
{
	struct web_profile *prof = NULL;
	size_t n_prof = 0;
	char cursor[64] = "", hint[128];
	int64_t listed = 0, total = 0;
	int rc = act_profiles(db, c, &prof, &n_prof);
	if (rc < 0) {
		rc = store_fail(e, db, rc);
		goto done;
	}
	struct web_pdf_act a = {.cmp = c,
	                        .meta_a = run_meta(c->baseline),
	                        .meta_b = run_meta(c->candidate),
	                        .res = c->act,
	                        .profiles = prof,
	                        .n_profiles = n_prof};
	if (web_pdf_act_report(p, &a, level) < 0) {
		rc = fail(e, 500, "internal", "cannot draw the report");
		goto done;
	}
	for (size_t i = 0; i < c->act->n_ranks; i++)
		total += c->act->ranks[i].n_status[MATCHER_DIFF] +
		         c->act->ranks[i].n_status[MATCHER_A_ONLY] +
		         c->act->ranks[i].n_status[MATCHER_B_ONLY];
	while (listed < max_rows) {
		struct store_row_page pg;
		int lim = (int)(max_rows - listed);
		rc = store_comparison_rows_list(db, c->id, -1, "diff,a_only,b_only", NULL, NULL, -1,
		                                NULL, lim, cursor[0] ? cursor : NULL, &pg);
		if (rc < 0) {
			store_row_page_free(&pg);
			rc = store_fail(e, db, rc);
			goto done;
		}
		for (size_t i = 0; i < pg.n_rows; i++) {
			struct web_act_row wr = {(long)pg.rows[i].idx, &pg.rows[i].row};
			if (web_pdf_act_row(p, pg.rows[i].rank, &wr) < 0)
				rc = -1;
			listed++;
		}
		snprintf(cursor, sizeof cursor, "%s", pg.next_cursor);
		store_row_page_free(&pg);
		if (rc < 0) {
			rc = fail(e, 500, "internal", "cannot draw the report");
			goto done;
		}
		if (!cursor[0])
			break;
	}
	snprintf(hint, sizeof hint, "GET /comparisons/%lld/rows?status=diff,a_only,b_only",
	         (long long)c->id);
	if (web_pdf_act_rows_end(p, listed, total - listed, hint) < 0)
		rc = fail(e, 500, "internal", "cannot draw the report");
done:
	for (size_t i = 0; i < n_prof; i++)
		free((void *)prof[i].pts);
	free(prof);
	return rc;
}

/* A candidate against a baseline set (issue 26): the lane, members,
 * metric table, band charts and step window (web_pdf_noise_report) from
 * the stored result and the members' values (srv_noise_page_load). */
static int noise_section(struct web_pdf *p, struct store *db, const struct store_comparison *c,
                         int level, struct srv_render_err *e)
{
	struct srv_noise_page np;
	struct web_noise_view v;
	int rc = srv_noise_page_load(db, c->id, &np);
	if (rc < 0)
		rc = store_fail(e, db, rc);
	else if (srv_noise_page_view(&np, WEB_OFFLINE, &v) < 0 ||
	         web_pdf_noise_report(p, &v, level) < 0)
		rc = fail(e, 500, "internal", "cannot write the report");
	srv_noise_page_free(&np);
	return rc;
}

/* A comparison's report at heading level (0: a document of its own, with
 * the full caps; deeper: a suite's section, WEB_PDF_SUITE_ROWS rows). */
static int comparison_section(struct web_pdf *p, struct store *db, const struct store_comparison *c,
                              int level, struct srv_render_err *e)
{
	if (c->noise)
		return noise_section(p, db, c, level, e);
	if (c->train)
		return train_section(p, db, c, level,
		                     level ? WEB_PDF_SUITE_ROWS : WEB_PDF_STEP_ROWS, e);
	return act_section(p, db, c, level, level ? WEB_PDF_SUITE_ROWS : WEB_PDF_ACT_ROWS, e);
}

/* ---- documents ------------------------------------------------------------- */

static int finish(struct web_pdf *p, int rc, struct buf *out, struct srv_render_err *e)
{
	if (web_pdf_finish(p) < 0 && rc == 0)
		rc = fail(e, 500, "internal", "cannot write the PDF");
	if (rc < 0)
		buf_clear(out);
	return rc;
}

int srv_render_comparison_pdf_e(struct store *db, int64_t id, struct buf *out,
                                struct srv_render_err *e)
{
	struct store_comparison_view v;
	char title[160];
	memset(e, 0, sizeof *e);
	e->status = 200;
	int rc = load_done(db, id, &v, e);
	if (rc == 0) {
		snprintf(title, sizeof title, "parity comparison #%lld", (long long)id);
		struct web_pdf *p = web_pdf_new(out, title, v.cmp.finished_at);
		if (!p)
			rc = fail(e, 500, "internal", "out of memory");
		else
			rc = finish(p, comparison_section(p, db, &v.cmp, 0, e), out, e);
	}
	store_comparison_view_free(&v);
	return rc;
}

int srv_render_suite_pdf_e(struct store *db, const char *suite, struct buf *out,
                           struct srv_render_err *e)
{
	struct store_suite_view sv;
	char t[400];
	memset(e, 0, sizeof *e);
	e->status = 200;
	int rc = store_suite_get(db, suite, &sv);
	if (rc < 0) {
		rc = rc == STORE_NOT_FOUND ? fail(e, 404, "not_found", "no suite named %s", suite)
		                           : store_fail(e, db, rc);
		store_suite_view_free(&sv);
		return rc;
	}
	/* dated by its newest finish: the same suite state, the same bytes */
	const char *date = NULL;
	for (size_t i = 0; i < sv.n_latest; i++)
		if (sv.latest[i].finished_at &&
		    (!date || strcmp(sv.latest[i].finished_at, date) > 0))
			date = sv.latest[i].finished_at;
	snprintf(t, sizeof t, "parity suite %s", suite);
	size_t *order = web_suite_order(&sv);
	struct web_pdf *p = order ? web_pdf_new(out, t, date) : NULL;
	if (!p) {
		free(order);
		store_suite_view_free(&sv);
		return fail(e, 500, "internal", "out of memory");
	}
	snprintf(t, sizeof t, "Suite %s", suite);
	web_pdf_heading(p, 0, t);
	snprintf(t, sizeof t, "%zu config%s%s%s", sv.n_latest, sv.n_latest == 1 ? "" : "s",
	         web_suite_lane(&sv) ? ", worst lane " : "",
	         web_suite_lane(&sv) ? web_lane_text(web_suite_lane(&sv)) : "");
	web_pdf_verdict(p, web_suite_verdict(&sv), t);
	if (sv.expected) {
		snprintf(t, sizeof t, "%lld configs expected.", (long long)sv.expected);
		web_pdf_para(p, t);
	}
	if (sv.n_pending) {
		snprintf(t, sizeof t, "%lld comparison%s of the suite still queued or running.",
		         (long long)sv.n_pending, sv.n_pending == 1 ? "" : "s");
		web_pdf_note(p, t);
	}
	static const double w[6] = {1.6, 0.9, 0.9,
	                            0.8, 2.0, 3.0}; /* verdict: "pass (within noise)" */
	static const char *const hd[6] = {"Config", "Comparison", "Kind",
	                                  "Status", "Verdict",    "Reason"};
	web_pdf_note(p, "Failing configs first.");
	web_pdf_table_begin(p, 6, w, hd);
	for (size_t j = 0; j < sv.n_latest; j++) {
		const struct store_comparison *c = &sv.latest[order[j]];
		char id[32], verdict[64];
		snprintf(id, sizeof id, "#%lld", (long long)c->id);
		const char *cells[6] = {c->config ? c->config : "(none)",
		                        id,
		                        c->kind,
		                        c->status,
		                        c->verdict ? web_verdict_text(c, verdict, sizeof verdict)
		                                   : NULL,
		                        web_suite_failing(c) ? web_cmp_reason(c) : NULL};
		int mark = !c->verdict ? 0 : !strcmp(c->verdict, "pass") ? 2 : 1;
		web_pdf_table_row(p, cells, mark);
	}
	web_pdf_table_end(p);
	if (sv.n_latest > SRV_RENDER_SUITE_MAX || sv.truncated) {
		snprintf(t, sizeof t, "Sections below cover the first %d configs listed.",
		         SRV_RENDER_SUITE_MAX);
		web_pdf_note(p, t);
	}
	for (size_t j = 0; rc == 0 && j < sv.n_latest && j < SRV_RENDER_SUITE_MAX; j++) {
		const struct store_comparison *c = &sv.latest[order[j]];
		struct store_comparison_view cv;
		struct srv_render_err ce;
		web_pdf_page_break(p);
		snprintf(t, sizeof t, "Config %s", c->config ? c->config : "(none)");
		web_pdf_heading(p, 1, t);
		memset(&ce, 0, sizeof ce);
		if (load_done(db, c->id, &cv, &ce) < 0) {
			if (ce.status >= 500)
				rc = fail(e, ce.status, ce.code, "%s", ce.message);
			else
				web_pdf_para(p, ce.message);
		} else {
			rc = comparison_section(p, db, &cv.cmp, 2, e);
		}
		store_comparison_view_free(&cv);
	}
	free(order);
	store_suite_view_free(&sv);
	return finish(p, rc, out, e);
}

/* The band chart of a noise comparison's metric (diff: the deviation from
 * the members' mean) as PNG. */
static int noise_chart(struct store *db, struct store_comparison_view *cv, const char *metric,
                       int diff, int width, int height, struct buf *out, struct srv_render_err *e)
{
	struct srv_noise_page np;
	struct web_noise_view v;
	long long id = (long long)cv->cmp.id;
	int rc = srv_noise_page_from_view(db, cv, &np);
	if (rc < 0) {
		rc = store_fail(e, db, rc);
	} else if (srv_noise_page_view(&np, WEB_OFFLINE, &v) < 0) {
		rc = fail(e, 500, "internal", "out of memory");
	} else {
		long k = -1;
		for (size_t i = 0; i < v.res->n_metrics; i++)
			if (!strcmp(v.res->metrics[i].name, metric) &&
			    !v.res->metrics[i].not_logged)
				k = (long)i;
		if (k < 0)
			rc = fail(e, 404, "unknown_metric",
			          "comparison %lld compared no metric named '%.60s' against its "
			          "baseline set",
			          (long long)id, metric);
		else if (web_noise_chart_png(out, &v, (size_t)k, diff, width, height) < 0)
			rc = fail(e, 500, "internal", "cannot draw the chart");
	}
	srv_noise_page_free(&np);
	if (rc < 0)
		buf_clear(out);
	return rc;
}

int srv_render_chart_png_e(struct store *db, int64_t id, const char *metric, int diff, int width,
                           int height, struct buf *out, struct srv_render_err *e)
{
	struct store_comparison_view v;
	struct train_data d;
	memset(&d, 0, sizeof d);
	memset(e, 0, sizeof *e);
	e->status = 200;
	int rc = load_done(db, id, &v, e);
	if (rc == 0 && v.cmp.noise)
		return noise_chart(db, &v, metric, diff, width, height, out, e); /* takes v over */
	if (rc == 0 && !v.cmp.train)
		rc = fail(e, 404, "not_training",
		          "comparison %lld is an activation comparison: it has no metric charts",
		          (long long)id);
	int k = -1;
	for (size_t i = 0; rc == 0 && i < v.cmp.train->n_metrics; i++)
		if (!strcmp(v.cmp.train->metrics[i].name, metric))
			k = (int)i;
	if (rc == 0 && k < 0) {
		char names[160] = "";
		for (size_t i = 0; i < v.cmp.train->n_metrics; i++) {
			size_t l = strlen(names);
			snprintf(names + l, sizeof names - l, "%s%s", l ? ", " : "",
			         v.cmp.train->metrics[i].name);
		}
		rc = fail(e, 404, "unknown_metric",
		          "comparison %lld compared no metric named '%.60s' (it compared: %s)",
		          (long long)id, metric, names);
	}
	if (rc == 0)
		rc = load_train(db, &v.cmp, k, 0, &d, e);
	if (rc == 0) {
		const struct matcher_train_metric_result *m = &v.cmp.train->metrics[k];
		struct web_metric_chart c = {.metric = m->name,
		                             .name_a = v.cmp.baseline ? v.cmp.baseline->name : NULL,
		                             .name_b =
		                                     v.cmp.candidate ? v.cmp.candidate->name : NULL,
		                             .env = &d.env[k],
		                             .threshold = m->th.abs,
		                             .has_first_over = m->has_first_over,
		                             .first_over = m->first_over};
		if (web_chart_png(out, &c, diff, width, height) < 0)
			rc = fail(e, 500, "internal", "cannot draw the chart");
	}
	train_data_free(&d);
	store_comparison_view_free(&v);
	if (rc < 0)
		buf_clear(out);
	return rc;
}

static int plain(int rc, const struct srv_render_err *e, char *err, size_t errlen)
{
	if (rc < 0 && err && errlen)
		snprintf(err, errlen, "%s", e->message);
	return rc < 0 ? -1 : 0;
}

int srv_render_comparison_pdf(struct store *db, int64_t comparison_id, struct buf *out, char *err,
                              size_t errlen)
{
	struct srv_render_err e;
	return plain(srv_render_comparison_pdf_e(db, comparison_id, out, &e), &e, err, errlen);
}

int srv_render_suite_pdf(struct store *db, const char *suite, struct buf *out, char *err,
                         size_t errlen)
{
	struct srv_render_err e;
	return plain(srv_render_suite_pdf_e(db, suite, out, &e), &e, err, errlen);
}

int srv_render_chart_png(struct store *db, int64_t comparison_id, const char *metric, int diff,
                         struct buf *out, char *err, size_t errlen)
{
	struct srv_render_err e;
	return plain(srv_render_chart_png_e(db, comparison_id, metric, diff, 0, 0, out, &e), &e,
	             err, errlen);
}
