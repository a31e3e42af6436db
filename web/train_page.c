/* train_page.c - the training comparison page: verdict banner with every
 * reason and the resolution notes, overlay charts (baseline vs candidate
 * against step, linear or log), a |difference| chart per metric with the
 * threshold drawn as a line, the first offending step marked on every
 * chart, the per-metric statistics and the per-step table with
 * over-threshold cells red.
 *
 * Memory is bounded whatever the step count (issue 23 F3): the rows are
 * fed once, in step order, into a struct web_train_window (the server
 * reads them a store page at a time), which keeps per metric an envelope
 * (web/pdf.h, WEB_ENV_BINS min/max bins) for the server-side SVG charts,
 * so they read without JS (parity.js only adds the hover read-out), and
 * only the rows the table shows: TABLE_PAGE rows a page on the server
 * (the page holding ?from=STEP, or holding ?step=STEP with that row
 * highlighted and anchored #hit; ?over=1 keeps only rows with a cell over
 * its threshold) with the first and last step of every page for the
 * pager, the first WEB_TRAIN_REPORT_ROWS rows in the offline report.
 * Everything is links and a GET form: no JavaScript needed.
 *
 * Input is typed (struct web_train_view: the stored comparison, its
 * struct store_train_result and struct store_step_row rows); nothing here
 * reads JSON.  Log text (reasons, notes, warnings, run names) is printed
 * UTF-8-repaired (web_utf8), as the API documents give it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pdf.h"
#include "web_int.h"

#define TABLE_PAGE 100 /* rows of a table page on the server */

/* The cell of metric k of the result (named name) in row: the row's
 * cells usually come in the result's metric order (index k), else by
 * name; NULL when the row has none (validation metrics are another step
 * series: never in a row). */
static const struct matcher_train_row_cell *cell_of(const struct store_step_row *row,
                                                    const char *name, size_t k)
{
	return strncmp(name, "validation/", 11) ? store_step_row_cell(row, name, k) : NULL;
}

static int both_sides(const struct matcher_train_row_cell *c)
{
	return c->present[0] && c->present[1];
}

/* |diff| of a cell as the steps document gives it: NaN when a side is
 * absent or the difference is a one-sided NaN (exact text "NaN"). */
static double cell_abs(const struct matcher_train_row_cell *c)
{
	return both_sides(c) && strcmp(c->abs_text, "NaN") ? c->abs : NAN;
}

/* Series arrays of one metric, drawn from its envelope: a bin of one
 * point is that point, a wider one its min and max (at its first and
 * last step), a non-finite value in a bin a NaN point (a gap and a mark
 * on the top edge).  At most 3 points a bin. */
struct metric_data {
	double *x, *y[WEB_ENV_N];
	size_t n[WEB_ENV_N];
};

static void metric_free(struct metric_data *m)
{
	free(m->x);
	for (int k = 0; k < WEB_ENV_N; k++)
		free(m->y[k]);
	memset(m, 0, sizeof *m);
}

static int metric_load(const struct web_env *e, struct metric_data *m, double **xs)
{
	size_t cap = 3 * (e->n_bins ? e->n_bins : 1);

	memset(m, 0, sizeof *m);
	m->x = malloc(WEB_ENV_N * cap * sizeof *m->x);
	for (int k = 0; k < WEB_ENV_N; k++)
		m->y[k] = malloc(cap * sizeof *m->y[k]);
	if (!m->x || !m->y[0] || !m->y[1] || !m->y[2]) {
		metric_free(m);
		return -1;
	}
	for (int k = 0; k < WEB_ENV_N; k++) {
		double *x = xs[k] = m->x + (size_t)k * cap, *y = m->y[k];
		size_t n = 0;

		for (size_t i = 0; i < e->n_bins; i++) {
			const struct web_env_bin *bn = &e->bins[i];

			if (bn->has[k]) {
				x[n] = bn->x0;
				y[n++] = bn->lo[k];
				if (bn->hi[k] != bn->lo[k] || bn->x1 != bn->x0) {
					x[n] = bn->x1;
					y[n++] = bn->hi[k];
				}
			}
			if (bn->nonfinite[k]) {
				x[n] = (bn->x0 + bn->x1) / 2;
				y[n++] = NAN;
			}
		}
		m->n[k] = n;
	}
	return 0;
}

/* The first step over a threshold of any metric: *step and *metric
 * (borrowed), or 0 when no metric has one. */
static int first_over_any(const struct store_train_result *r, long *step, const char **metric)
{
	int found = 0;

	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];

		if (m->has_first_over && (!found || m->first_over < *step)) {
			*step = m->first_over;
			*metric = m->name;
			found = 1;
		}
	}
	return found;
}

/* The markers of a metric's charts: its own first step over the
 * threshold, and the first one of any metric when that is earlier (or
 * the metric has none).  Labels go into lab[0..1]; returns the count. */
static size_t first_marks(const struct store_train_result *r,
                          const struct matcher_train_metric_result *ms, struct web_chart_mark mk[2],
                          struct buf lab[2])
{
	long any_step = 0;
	const char *any_metric = NULL;
	size_t n = 0;

	if (ms->has_first_over) {
		buf_printf(&lab[n], "first over: step %lld", (long long)ms->first_over);
		mk[n].x = (double)ms->first_over;
		mk[n].label = lab[n].data;
		mk[n].cls = "first";
		n++;
	}
	if (first_over_any(r, &any_step, &any_metric) && strcmp(any_metric, ms->name) &&
	    (!n || any_step < ms->first_over)) {
		buf_printf(&lab[n], "first over (%s): step %ld", any_metric, any_step);
		mk[n].x = (double)any_step;
		mk[n].label = lab[n].data;
		mk[n].cls = "first-any";
		n++;
	}
	return n;
}

static int charts(struct buf *out, const struct web_train_view *v, const struct web_train_window *w,
                  size_t k, const char *na, const char *nb)
{
	const struct matcher_train_metric_result *ms = &v->res->metrics[k];
	const char *metric = ms->name;
	struct metric_data m;
	double *xs[WEB_ENV_N];
	struct web_series s[2];
	struct web_chart c;
	struct web_chart_mark mk[2];
	struct buf t1 = BUF_INIT, t2 = BUF_INIT, hl = BUF_INIT, lab[2] = {BUF_INIT, BUF_INIT};
	double th = ms->th.abs;
	int bad = 0;

	if (metric_load(&w->env[k], &m, xs) < 0)
		return -1;
	memset(mk, 0, sizeof mk);
	buf_printf(&t1, "%s: baseline vs candidate", metric);
	buf_printf(&t2, "%s: |candidate - baseline| per step", metric);
	memset(s, 0, sizeof s);
	s[0].label = na && *na ? na : "baseline";
	s[0].cls = "s-a";
	s[0].x = xs[WEB_ENV_A];
	s[0].y = m.y[WEB_ENV_A];
	s[0].n = m.n[WEB_ENV_A];
	s[1].label = nb && *nb ? nb : "candidate";
	s[1].cls = "s-b";
	s[1].x = xs[WEB_ENV_B];
	s[1].y = m.y[WEB_ENV_B];
	s[1].n = m.n[WEB_ENV_B];
	memset(&c, 0, sizeof c);
	c.title = t1.data;
	c.y_label = metric;
	c.series = s;
	c.n_series = 2;
	c.log_y = v->log_y;
	c.hline = NAN;
	c.marks = mk;
	c.n_marks = first_marks(v->res, ms, mk, lab);
	bad |= buf_puts(out, "<div class=\"chart-row\">");
	bad |= web_chart_svg(out, &c);
	memset(s, 0, sizeof s);
	s[0].label = "|difference|";
	s[0].cls = "s-d";
	s[0].x = xs[WEB_ENV_D];
	s[0].y = m.y[WEB_ENV_D];
	s[0].n = m.n[WEB_ENV_D];
	c.title = t2.data;
	c.n_series = 1;
	c.y_label = "|diff|";
	c.hline = th;
	if (isfinite(th)) {
		buf_printf(&hl, "threshold %g", th);
		c.hline_label = hl.data;
	}
	bad |= web_chart_svg(out, &c);
	bad |= buf_puts(out, "</div>");
	metric_free(&m);
	buf_reset(&t1);
	buf_reset(&t2);
	buf_reset(&hl);
	buf_reset(&lab[0]);
	buf_reset(&lab[1]);
	return bad ? -1 : 0;
}

/* A statistic value: exact text, "-" (missing), "NaN", "Inf", "-Inf" or
 * the number. */
static int num_cell(struct buf *out, double d, int missing, const char *exact)
{
	if (exact)
		return web_printf(out, "<td class=\"num\">%s</td>", exact);
	if (missing)
		return buf_puts(out, "<td class=\"num muted\">&ndash;</td>");
	if (isnan(d))
		return buf_puts(out, "<td class=\"num\">NaN</td>");
	if (isinf(d))
		return web_printf(out, "<td class=\"num\">%sInf</td>", d < 0 ? "-" : "");
	return web_printf(out, "<td class=\"num\">%.6g</td>", d);
}

static int stats_table(struct buf *out, const struct store_train_result *r,
                       const unsigned char *charted)
{
	int bad = 0;

	bad |= buf_puts(out,
	                "<div class=\"scroll\"><table class=\"stats\" id=\"stats\"><thead><tr>"
	                "<th>Metric</th><th>Result</th><th>Threshold</th><th>Max |diff|</th>"
	                "<th>at step</th><th>Mean |diff|</th><th>Max rel</th><th>Mean rel</th>"
	                "<th>First over</th><th>Steps over</th><th>Compared</th>"
	                "<th>NaN A/B</th><th>Inf A/B</th><th>Printed decimals</th></tr></thead>"
	                "<tbody>");
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];
		if (!charted[i])
			continue;
		int pass = m->pass && !m->not_logged, not_logged = m->not_logged;
		double ta = m->th.abs, tr = m->th.has_rel ? m->th.rel : NAN;

		bad |= web_printf(out, "<tr class=\"%s\"><th>%s</th><td>",
		                  not_logged ? "muted"
		                  : pass     ? "ok"
		                             : "bad",
		                  m->name);
		bad |= web_badge(out, not_logged ? "not logged" : pass ? "pass" : "fail");
		bad |= buf_puts(out, "</td><td class=\"num\">");
		if (isfinite(ta))
			bad |= web_printf(out, "abs %g", ta);
		if (isfinite(tr))
			bad |= web_printf(out, " rel %g", tr);
		bad |= buf_puts(out, "</td>");
		bad |= num_cell(out, 0, 0, m->max_abs_text);
		bad |= num_cell(out, (double)m->max_abs_step, !m->has_max_step, NULL);
		bad |= num_cell(out, m->mean_abs, 0, NULL);
		bad |= num_cell(out, m->max_rel, 0, NULL);
		bad |= num_cell(out, m->mean_rel, 0, NULL);
		bad |= num_cell(out, (double)m->first_over, !m->has_first_over, NULL);
		bad |= num_cell(out, (double)m->n_over, 0, NULL);
		bad |= num_cell(out, (double)m->n_compared, 0, NULL);
		bad |= web_printf(out,
		                  "<td class=\"num\">%lld / %lld</td><td class=\"num\">%lld / "
		                  "%lld</td>",
		                  (long long)m->nan[0], (long long)m->nan[1], (long long)m->inf[0],
		                  (long long)m->inf[1]);
		bad |= web_printf(out, "<td class=\"num\">%lld%s</td></tr>",
		                  (long long)(m->has_resolution ? m->decimals : 0),
		                  m->below_resolution ? " (threshold below resolution)" : "");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

/* 1 when a cell of the row is over its threshold (the check's "over":
 * |diff| or rel over the threshold, or a one-sided NaN/Inf). */
static int row_over(const struct store_step_row *row, const struct store_train_result *r)
{
	for (size_t k = 0; k < r->n_metrics; k++) {
		const struct matcher_train_row_cell *c = cell_of(row, r->metrics[k].name, k);

		if (c && c->over)
			return 1;
	}
	return 0;
}

/* A printed value of one side, "-" when that side did not print it. */
static void side_text(const struct matcher_train_row_cell *c, int side, char *t, size_t cap)
{
	if (!c->present[side])
		snprintf(t, cap, "-");
	else
		matcher_train_format_value(side ? c->b : c->a, side ? c->dec_b : c->dec_a, t, cap);
}

/* <td class="cls"> of a candidate or |diff| cell; a red one (over a
 * threshold) says why in its title. */
static int value_td(struct buf *out, const char *cls, const struct matcher_train_row_cell *c,
                    const char *metric)
{
	if (!c->over)
		return web_printf(out, "<td class=\"%s\">", cls);
	return web_printf(out,
	                  "<td class=\"%s\" title=\"%s: |candidate - baseline| = %s, over the "
	                  "threshold\">",
	                  cls, metric, c->abs_text);
}

/* The per-step table of rows[0..n); the row of step hit (when has_hit)
 * is highlighted and holds the #hit anchor. */
static int step_table(struct buf *out, const struct web_train_view *v, const unsigned char *charted,
                      const struct store_step_row *rows, size_t n, int has_hit, long hit)
{
	const struct store_train_result *r = v->res;
	size_t i, k;
	int bad = 0;

	bad |= buf_puts(out, "<div class=\"scroll\"><table class=\"steps\" id=\"steps\"><thead>"
	                     "<tr><th rowspan=\"2\">Step</th>");
	for (k = 0; k < r->n_metrics; k++)
		if (charted[k])
			bad |= web_printf(out, "<th colspan=\"4\">%s</th>", r->metrics[k].name);
	bad |= buf_puts(out, "</tr><tr>");
	for (k = 0; k < r->n_metrics; k++)
		if (charted[k])
			bad |= buf_puts(out, "<th>baseline</th><th>candidate</th><th>|diff|</th>"
			                     "<th>rel</th>");
	bad |= buf_puts(out, "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		const struct store_step_row *row = &rows[i];
		long long step = row->step;
		int any_over = row_over(row, r), is_hit = has_hit && step == hit;

		if (any_over || is_hit)
			bad |= web_printf(out, "<tr id=\"s%lld\" class=\"%s%s%s\"><th>", step,
			                  any_over ? "over-row" : "", any_over && is_hit ? " " : "",
			                  is_hit ? "hit" : "");
		else
			bad |= web_printf(out, "<tr id=\"s%lld\"><th>", step);
		if (is_hit)
			bad |= buf_puts(out, "<span id=\"hit\"></span>");
		bad |= web_printf(out, "%lld</th>", step);
		for (k = 0; k < r->n_metrics; k++) {
			const struct matcher_train_row_cell *c =
			        cell_of(row, r->metrics[k].name, k);
			char ta[64], tb[64];
			const char *cls;

			if (!charted[k])
				continue;
			if (!c) {
				bad |= buf_puts(
				        out, "<td class=\"muted\" colspan=\"4\">not printed</td>");
				continue;
			}
			cls = c->over ? "num over tint t10" : "num";
			side_text(c, 0, ta, sizeof ta);
			side_text(c, 1, tb, sizeof tb);
			bad |= web_printf(out, "<td class=\"num\">%s</td>", ta);
			bad |= value_td(out, cls, c, r->metrics[k].name);
			bad |= web_printf(out, "%s</td>", tb);
			bad |= value_td(out, cls, c, r->metrics[k].name);
			if (both_sides(c))
				bad |= web_printf(out, "%s", c->abs_text);
			else
				bad |= num_cell(out, 0, 1, NULL) < 0;
			bad |= buf_puts(out, "</td>");
			{
				double rel =
				        both_sides(c) && strcmp(c->abs_text, "NaN") ? c->rel : NAN;

				if (!both_sides(c))
					bad |= buf_puts(out,
					                "<td class=\"num muted\">&ndash;</td>");
				else if (isfinite(rel))
					bad |= web_printf(out, "<td class=\"num\">%.3g</td>", rel);
				else
					bad |= web_printf(out, "<td class=\"num\">%s</td>",
					                  isnan(rel) ? "NaN"
					                  : rel < 0  ? "-Inf"
					                             : "Inf");
			}
		}
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

static int warnings_list(struct buf *out, const struct matcher_warning *w, size_t n,
                         const char *side)
{
	struct buf t[3] = {BUF_INIT, BUF_INIT, BUF_INIT};
	int bad = 0;

	if (!n)
		return 0;
	bad |= web_printf(out, "<h3>Warnings in the %s log</h3><ul class=\"warnings\">", side);
	for (size_t i = 0; i < n; i++) {
		bad |= web_printf(out, "<li><code>%s</code> line %lld: %s",
		                  web_utf8(&t[0], w[i].code), (long long)w[i].line,
		                  web_utf8(&t[1], w[i].message));
		bad |= web_printf(out, "<pre class=\"excerpt\">%s</pre>",
		                  web_utf8(&t[2], w[i].excerpt ? w[i].excerpt : ""));
		bad |= buf_puts(out, "</li>");
	}
	bad |= buf_puts(out, "</ul>");
	for (int k = 0; k < 3; k++)
		buf_reset(&t[k]);
	return bad ? -1 : 0;
}

/* "?log=1&over=1&<key>=<val>" for a link of the table (log and over
 * only when set), to print through %s. */
static int table_href(struct buf *q, const struct web_train_view *v, const char *key, long val)
{
	buf_clear(q);
	return buf_printf(q, "?%s%s%s=%ld", v->log_y ? "log=1&" : "", v->over_only ? "over=1&" : "",
	                  key, val);
}

/* A pager link to page p of the list: "steps A-B". */
static int page_link(struct buf *out, const struct web_train_view *v,
                     const struct web_train_window *w, size_t p, const char *id, const char *text)
{
	struct buf q = BUF_INIT;
	long first = w->bounds[2 * p], last = w->bounds[2 * p + 1];
	int bad = table_href(&q, v, "from", first) < 0;

	bad |= web_printf(out, "<a href=\"%s\" id=\"%s\">", q.data, id);
	if (!strcmp(id, "page-next"))
		bad |= web_printf(out, "steps %ld-%ld &rsaquo;</a>", first, last);
	else if (!strcmp(id, "page-prev"))
		bad |= web_printf(out, "&lsaquo; steps %ld-%ld</a>", first, last);
	else /* static text */
		bad |= buf_puts(out, text) | buf_puts(out, "</a>");
	buf_reset(&q);
	return bad ? -1 : 0;
}
/* The server's controls above the table: jump form, filter links. */
static int table_controls(struct buf *out, const struct web_train_view *v, size_t n_over,
                          size_t n_all)
{
	int bad = 0;

	bad |= buf_puts(out, "<form class=\"jump\" id=\"jump\" method=\"get\" action=\"#hit\">");
	if (v->log_y)
		bad |= buf_puts(out, "<input type=\"hidden\" name=\"log\" value=\"1\">");
	if (v->over_only)
		bad |= buf_puts(out, "<input type=\"hidden\" name=\"over\" value=\"1\">");
	bad |= buf_puts(out, "<label>Jump to step <input type=\"number\" name=\"step\" "
	                     "id=\"jump-step\" inputmode=\"numeric\"");
	if (v->has_step)
		bad |= web_printf(out, " value=\"%ld\"", v->step);
	bad |= buf_puts(out, "></label> <button type=\"submit\">Go</button></form>");
	bad |= buf_puts(out, "<p class=\"table-filter\">");
	if (v->over_only)
		bad |= web_printf(out,
		                  "<strong>Only steps over a threshold</strong> (%zu of %zu) "
		                  "&middot; <a id=\"filter-all\" href=\"?%s\">all steps</a>",
		                  n_over, n_all, v->log_y ? "log=1" : "");
	else
		bad |= web_printf(out,
		                  "<a id=\"filter-over\" href=\"?%sover=1\">only steps over a "
		                  "threshold</a> (%zu of %zu)",
		                  v->log_y ? "log=1&" : "", n_over, n_all);
	bad |= buf_puts(out, "</p>");
	return bad ? -1 : 0;
}

/* The per-step table: on the server one page with its controls and
 * pager, offline the rows kept. */
static int per_step(struct buf *out, const struct web_train_view *v,
                    const struct web_train_window *w)
{
	size_t n = w->n, start = w->start, end = w->start + w->n_rows, p = start / TABLE_PAGE;
	int bad = 0, has_hit = v->has_step && w->n_rows;

	if (v->mode != WEB_SERVER) {
		if (w->n_rows < w->n)
			bad |= web_printf(out,
			                  "<p class=\"note\" id=\"table-cut\">The table shows the "
			                  "first %zu of %zu steps.</p>",
			                  w->n_rows, w->n);
		return step_table(out, v, w->charted, w->rows, w->n_rows, 0, 0) < 0 || bad ? -1 : 0;
	}
	bad |= table_controls(out, v, w->n_over, w->n_all);
	if (has_hit && w->hit != v->step)
		bad |= web_printf(out,
		                  "<p class=\"note\" id=\"jump-note\">Step %ld is not "
		                  "in the table%s; step %ld is the nearest after it.</p>",
		                  v->step, v->over_only ? " (filtered)" : "", w->hit);
	bad |= step_table(out, v, w->charted, w->rows, w->n_rows, has_hit, w->hit);
	bad |= buf_puts(out, "<nav class=\"pager\" id=\"steps-pager\">");
	if (start > 0) {
		bad |= page_link(out, v, w, 0, "page-first", "&laquo; first");
		bad |= page_link(out, v, w, p - 1, "page-prev", NULL);
	}
	if (w->n_rows)
		bad |= web_printf(out,
		                  "<span class=\"muted\" id=\"page-range\">steps %ld-%ld (rows "
		                  "%zu-%zu of %zu)</span>",
		                  w->rows[0].step, w->rows[w->n_rows - 1].step, start + 1, end, n);
	else
		bad |= buf_puts(out, "<span class=\"muted\" id=\"page-range\">no steps</span>");
	if (end < n) {
		bad |= page_link(out, v, w, p + 1, "page-next", NULL);
		bad |= page_link(out, v, w, w->n_pages - 1, "page-last", "last &raquo;");
	}
	bad |= buf_puts(out, "</nav>");
	return bad ? -1 : 0;
}

/* ---- the window (web.h) ------------------------------------------------- */

int web_train_window_init(struct web_train_window *w, const struct web_train_view *v)
{
	size_t nm = v->res->n_metrics;

	memset(w, 0, sizeof *w);
	w->res = v->res;
	w->offline = v->mode != WEB_SERVER;
	w->over_only = !w->offline && v->over_only;
	w->has_target = !w->offline && (v->has_step || v->has_from);
	w->target = v->has_step ? v->step : v->from;
	w->found = !w->has_target;
	w->cap_rows = w->offline ? WEB_TRAIN_REPORT_ROWS : TABLE_PAGE;
	w->env = calloc(nm ? nm : 1, sizeof *w->env);
	w->charted = web_train_charted_map(v->res);
	return w->env && w->charted ? 0 : -1;
}

void web_train_window_free(struct web_train_window *w)
{
	if (!w)
		return;
	for (size_t k = 0; w->env && k < w->res->n_metrics; k++)
		web_env_free(&w->env[k]);
	free(w->env);
	free(w->charted);
	free(w->rows);
	free(w->names);
	free(w->cells);
	free(w->bounds);
	memset(w, 0, sizeof *w);
}

/* Keep a copy of row (its cells of the result's metrics, in their order)
 * as rows[n_rows]; the arrays grow as needed (pointers into them are
 * re-made). */
static int keep_row(struct web_train_window *w, const struct store_step_row *row)
{
	size_t nm = w->res->n_metrics, i = w->n_rows, j = 0;

	if (i == w->cap_cells) {
		size_t cap = w->cap_cells ? 2 * w->cap_cells : 16;
		struct store_step_row *rows;
		const char **names;
		struct matcher_train_row_cell *cells;

		if (cap > w->cap_rows)
			cap = w->cap_rows;
		size_t nc = cap * nm > 0 ? cap * nm : 1;
		rows = realloc(w->rows, cap * sizeof *rows);
		if (rows)
			w->rows = rows;
		names = realloc(w->names, nc * sizeof *names);
		if (names)
			w->names = names;
		cells = realloc(w->cells, nc * sizeof *cells);
		if (cells)
			w->cells = cells;
		if (!rows || !names || !cells)
			return -1;
		w->cap_cells = cap;
		for (size_t r = 0; r < i; r++) {
			w->rows[r].metrics = w->names + r * nm;
			w->rows[r].cells = w->cells + r * nm;
		}
	}
	struct store_step_row *x = &w->rows[i];
	x->rank = row->rank;
	x->step = row->step;
	x->metrics = w->names + i * nm;
	x->cells = w->cells + i * nm;
	for (size_t k = 0; k < nm; k++) {
		const struct matcher_train_row_cell *c = cell_of(row, w->res->metrics[k].name, k);

		if (c) {
			w->names[i * nm + j] = w->res->metrics[k].name;
			w->cells[i * nm + j++] = *c;
		}
	}
	x->n_cells = j;
	w->n_rows++;
	return 0;
}

int web_train_window_add(struct web_train_window *w, const struct store_step_row *row)
{
	const struct store_train_result *r = w->res;
	int over = row_over(row, r);
	size_t i;

	w->n_all++;
	w->n_over += over;
	for (size_t k = 0; k < r->n_metrics; k++) {
		const struct matcher_train_row_cell *c =
		        w->charted[k] ? cell_of(row, r->metrics[k].name, k) : NULL;

		if (!c)
			continue;
		double val[WEB_ENV_N] = {c->a, c->b, cell_abs(c)};
		int has[WEB_ENV_N] = {c->present[0], c->present[1], both_sides(c)};
		if (web_env_add(&w->env[k], (double)row->step, val, has) < 0)
			return -1;
	}
	if (w->over_only && !over)
		return 0;
	i = w->n++;
	if (w->offline)
		return w->n_rows < w->cap_rows ? keep_row(w, row) : 0;
	/* the pager: first and last step of every page of the list */
	if (i % TABLE_PAGE == 0) {
		if (w->n_pages == w->cap_pages) {
			size_t cap = w->cap_pages ? 2 * w->cap_pages : 64;
			long *b = realloc(w->bounds, 2 * cap * sizeof *b);

			if (!b)
				return -1;
			w->bounds = b;
			w->cap_pages = cap;
		}
		w->bounds[2 * w->n_pages] = row->step;
		w->n_pages++;
		/* a page starts: the kept one is complete once the asked step
		 * was in it, else it is dropped */
		if (w->found && i > 0)
			w->frozen = 1;
		else {
			w->n_rows = 0;
			w->start = i;
		}
	}
	w->bounds[2 * w->n_pages - 1] = row->step;
	if (w->frozen)
		return 0;
	if (keep_row(w, row) < 0)
		return -1;
	if (!w->found) { /* the asked step, or the last row while none is after it */
		w->hit = row->step;
		w->found = row->step >= w->target;
	}
	return 0;
}

int web_train_page(struct buf *out, const struct web_train_view *v)
{
	const struct store_comparison *cmp = v->cmp;
	const struct store_train_result *r = v->res;
	struct buf title = BUF_INIT, fa = BUF_INIT, fb = BUF_INIT, note = BUF_INIT;
	const char *na, *nb, *verdict = matcher_verdict_name(r->verdict);
	long long id = cmp ? (long long)cmp->id : 0;
	struct web_train_window own;
	const struct web_train_window *w = v->win;
	int bad = 0;

	if (!w) { /* made from every row given */
		int rc = web_train_window_init(&own, v);

		for (size_t i = 0; rc == 0 && i < v->n_steps; i++)
			rc = web_train_window_add(&own, &v->steps[i]);
		if (rc < 0) {
			web_train_window_free(&own);
			return -1;
		}
		w = &own;
	}
	/* the runs' names (a run gone: unknown), the CLI's log names */
	na = cmp ? (cmp->baseline ? cmp->baseline->name : NULL) : v->name_a;
	nb = cmp ? (cmp->candidate ? cmp->candidate->name : NULL) : v->name_b;
	na = web_utf8(&fa, na);
	nb = web_utf8(&fb, nb);
	if (id)
		buf_printf(&title, "#%lld ", id);
	buf_printf(&title, "%s: %s vs %s \xe2\x80\x94 training comparison \xe2\x80\x94 parity",
	           verdict, na && *na ? na : "baseline", nb && *nb ? nb : "candidate");
	bad |= web_page_begin_skip(out, v->mode, title.data, 0, r->n_metrics ? "per-step" : NULL,
	                           "Skip to the per-step table");
	bad |= buf_puts(out, "<h1>Training comparison");
	if (id)
		bad |= web_printf(out, " #%lld", id);
	bad |= buf_puts(out, "</h1>");
	if (v->note)
		bad |= web_printf(out, "<p class=\"note\" id=\"note\">%s</p>", v->note);
	bad |= web_cmp_runs_line(out, cmp, na, nb, v->mode);
	bad |= web_train_verdict_banner(out, r);
	if (v->mode == WEB_SERVER && id) {
		const char **names = calloc(r->n_metrics ? r->n_metrics : 1, sizeof *names);

		size_t n_names = 0; /* the charted metrics' PNG links */
		for (size_t k = 0; names && k < r->n_metrics; k++)
			if (w->charted[k])
				names[n_names++] = r->metrics[k].name;
		bad |= web_cmp_actions(out, id, cmp->baseline ? cmp->baseline->id : 0,
		                       cmp->candidate ? cmp->candidate->id : 0, "training",
		                       cmp->baseline_name);
		bad |= !names || web_cmp_downloads(out, id, names, n_names) < 0;
		free(names);
	}
	if (r->n_notes) {
		bad |= buf_puts(out, "<div class=\"notes\" id=\"resolution\"><h3>Notes</h3><ul>");
		for (size_t i = 0; i < r->n_notes; i++)
			bad |= web_printf(out, "<li>%s</li>", web_utf8(&note, r->notes[i]));
		bad |= buf_puts(out, "</ul></div>");
	}
	bad |= web_printf(out, "<p class=\"muted\">%lld common steps", (long long)r->n_common);
	if (r->n_only[0])
		bad |= web_printf(out, "; %lld only in the baseline", (long long)r->n_only[0]);
	if (r->n_only[1])
		bad |= web_printf(out, "; %lld only in the candidate", (long long)r->n_only[1]);
	if ((long long)w->n_all < (long long)r->n_common)
		bad |= web_printf(out,
		                  "; the charts and the table show the first %zu (the CSV "
		                  "has every step)",
		                  w->n_all);
	bad |= buf_puts(out, "</p>");
	if (web_train_all_common(r))
		bad |= web_train_groups(out, r);

	/* charts (of many series: the failing ones) */
	size_t n_charted = 0;
	for (size_t k = 0; k < r->n_metrics; k++)
		n_charted += w->charted[k] != 0;
	if (n_charted && w->n_all) {
		bad |= buf_puts(out,
		                "<section class=\"charts\"><h2>Charts</h2><p class=\"muted\">");
		if (v->mode == WEB_SERVER)
			bad |= web_printf(
			        out,
			        "Y axis: %s &middot; <a id=\"toggle-log\" href=\"?log=%d\">"
			        "%s</a>",
			        v->log_y ? "log" : "linear", v->log_y ? 0 : 1,
			        v->log_y ? "linear scale" : "log scale");
		bad |= buf_puts(out, "</p>");
		for (size_t k = 0; k < r->n_metrics; k++) {
			if (!w->charted[k])
				continue;
			bad |= web_printf(out, "<h3>%s</h3>", r->metrics[k].name);
			bad |= charts(out, v, w, k, na, nb);
		}
		bad |= buf_puts(out, "</section>");
	}
	if (r->n_metrics) {
		bad |= buf_puts(out, "<h2>Statistics</h2>");
		if (n_charted < r->n_metrics)
			bad |= web_printf(
			        out,
			        "<p class=\"muted\">The charted series (%zu of %zu); every "
			        "series' statistics are in the JSON (<code>metrics</code>), "
			        "its values in the CSV.</p>",
			        n_charted, r->n_metrics);
		bad |= stats_table(out, r, w->charted);
	}
	bad |= warnings_list(out, r->warnings[0], r->n_warnings[0], "baseline");
	bad |= warnings_list(out, r->warnings[1], r->n_warnings[1], "candidate");

	if (r->n_metrics) {
		bad |= buf_puts(out, "<h2 id=\"per-step\">Per step</h2>");
		if (v->mode == WEB_SERVER)
			bad |= web_printf(out,
			                  "<p><a href=\"/comparisons/%lld/steps.csv\" "
			                  "id=\"csv\">Download CSV</a></p>",
			                  id);
		bad |= per_step(out, v, w);
	}
	if (v->mode == WEB_SERVER)
		bad |= web_printf(out,
		                  "<p class=\"muted\">API: <a href=\"/comparisons/%lld\">JSON</a> "
		                  "&middot; <a href=\"/comparisons/%lld/steps\">steps</a> &middot; "
		                  "<a href=\"/comparisons/%lld/report.html\">self-contained "
		                  "report</a></p>",
		                  id, id, id);
	bad |= web_page_end(out, v->mode);
	buf_reset(&title);
	buf_reset(&fa);
	buf_reset(&fb);
	buf_reset(&note);
	if (w == &own)
		web_train_window_free(&own);
	return bad ? -1 : 0;
}

int web_report_html(struct buf *out, const struct web_train_view *v)
{
	struct web_train_view o = *v;

	o.mode = WEB_OFFLINE;
	return web_train_page(out, &o);
}

int web_train_steps_of_check(const struct matcher_train_result *r, struct arena *arena,
                             struct store_step_row **rows, size_t *n)
{
	const char **names = NULL;

	*rows = NULL;
	*n = 0;
	if (r->n_metrics && !(names = arena_alloc(arena, r->n_metrics * sizeof *names)))
		return -1;
	for (size_t k = 0; k < r->n_metrics; k++)
		names[k] = r->metrics[k].name;
	*rows = calloc(r->n_common ? r->n_common : 1, sizeof **rows);
	if (!*rows)
		return -1;
	for (size_t i = 0; i < r->n_common; i++) {
		struct store_step_row *x = &(*rows)[i];

		x->metrics = names;
		x->n_cells = r->n_metrics;
		x->cells = arena_alloc(arena, (r->n_metrics ? r->n_metrics : 1) * sizeof *x->cells);
		if (!x->cells || matcher_train_row(r, i, &x->step, x->cells) < 0) {
			free(*rows);
			*rows = NULL;
			return -1;
		}
	}
	*n = r->n_common;
	return 0;
}
