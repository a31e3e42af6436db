/* train_page.c - the training comparison page: verdict banner with every
 * reason and the resolution notes, overlay charts (baseline vs candidate
 * against step, linear or log), a |difference| chart per metric with the
 * threshold drawn as a line, the first offending step marked on every
 * chart, the per-metric statistics and the per-step table with
 * over-threshold cells red.
 *
 * The charts are server-side SVG built from every per-step row (reduced
 * to ~900 columns), so they read without JS; parity.js only adds the
 * hover read-out.  The table is cut from the same rows: TABLE_PAGE rows a
 * page on the server (the page holding ?from=STEP, or holding ?step=STEP
 * with that row highlighted and anchored #hit; ?over=1 keeps only rows
 * with a cell over its threshold), every row in the offline report.
 * Everything is links and a GET form: no JavaScript needed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

#define TABLE_PAGE 100 /* rows of a table page on the server */

/* Series arrays of one metric. */
struct metric_data {
	double *x, *a, *b, *d;
	size_t n;
};

static void metric_free(struct metric_data *m)
{
	free(m->x);
	free(m->a);
	free(m->b);
	free(m->d);
	memset(m, 0, sizeof *m);
}

static int metric_load(json_t *steps, const char *name, struct metric_data *m)
{
	size_t n = json_array_size(steps), i;
	json_t *row;

	memset(m, 0, sizeof *m);
	m->x = malloc((n ? n : 1) * sizeof *m->x);
	m->a = malloc((n ? n : 1) * sizeof *m->a);
	m->b = malloc((n ? n : 1) * sizeof *m->b);
	m->d = malloc((n ? n : 1) * sizeof *m->d);
	if (!m->x || !m->a || !m->b || !m->d) {
		metric_free(m);
		return -1;
	}
	json_array_foreach(steps, i, row)
	{
		json_t *c = json_object_get(row, name);

		if (!json_is_object(c))
			continue;
		m->x[m->n] = (double)wj_int(row, "step", 0);
		m->a[m->n] = wj_num(json_object_get(c, "a"), NULL);
		m->b[m->n] = wj_num(json_object_get(c, "b"), NULL);
		m->d[m->n] = wj_num(json_object_get(c, "abs"), NULL);
		m->n++;
	}
	return 0;
}

/* The first step over a threshold of any metric: *step and *metric
 * (borrowed key), or 0 when no metric has one. */
static int first_over_any(json_t *metrics, long *step, const char **metric)
{
	const char *k;
	json_t *m;
	int found = 0;

	json_object_foreach(metrics, k, m)
	{
		json_t *f = json_object_get(m, "first_over");

		if (json_is_integer(f) && (!found || json_integer_value(f) < *step)) {
			*step = (long)json_integer_value(f);
			*metric = k;
			found = 1;
		}
	}
	return found;
}

/* The markers of a metric's charts: its own first step over the
 * threshold, and the first one of any metric when that is earlier (or
 * the metric has none).  Labels go into lab[0..1]; returns the count. */
static size_t first_marks(json_t *mstats, const char *metric, json_t *metrics,
                          struct web_chart_mark mk[2], struct buf lab[2])
{
	json_t *own = json_object_get(mstats, "first_over");
	long any_step = 0;
	const char *any_metric = NULL;
	size_t n = 0;

	if (json_is_integer(own)) {
		buf_printf(&lab[n], "first over: step %lld", (long long)json_integer_value(own));
		mk[n].x = (double)json_integer_value(own);
		mk[n].label = lab[n].data;
		mk[n].cls = "first";
		n++;
	}
	if (first_over_any(metrics, &any_step, &any_metric) && strcmp(any_metric, metric) &&
	    (!n || any_step < (long)json_integer_value(own))) {
		buf_printf(&lab[n], "first over (%s): step %ld", any_metric, any_step);
		mk[n].x = (double)any_step;
		mk[n].label = lab[n].data;
		mk[n].cls = "first-any";
		n++;
	}
	return n;
}

static int charts(struct buf *out, json_t *steps, const char *metric, json_t *mstats,
                  json_t *metrics, json_t *names, int log_y)
{
	struct metric_data m;
	struct web_series s[2];
	struct web_chart c;
	struct web_chart_mark mk[2];
	struct buf t1 = BUF_INIT, t2 = BUF_INIT, hl = BUF_INIT, lab[2] = {BUF_INIT, BUF_INIT};
	double th = wj_num(json_object_get(json_object_get(mstats, "threshold"), "abs"), NULL);
	const char *na = wj_str(names, "a"), *nb = wj_str(names, "b");
	int bad = 0;

	if (metric_load(steps, metric, &m) < 0)
		return -1;
	memset(mk, 0, sizeof mk);
	buf_printf(&t1, "%s: baseline vs candidate", metric);
	buf_printf(&t2, "%s: |candidate - baseline| per step", metric);
	memset(s, 0, sizeof s);
	s[0].label = na && *na ? na : "baseline";
	s[0].cls = "s-a";
	s[0].x = m.x;
	s[0].y = m.a;
	s[0].n = m.n;
	s[1].label = nb && *nb ? nb : "candidate";
	s[1].cls = "s-b";
	s[1].x = m.x;
	s[1].y = m.b;
	s[1].n = m.n;
	memset(&c, 0, sizeof c);
	c.title = t1.data;
	c.y_label = metric;
	c.series = s;
	c.n_series = 2;
	c.log_y = log_y;
	c.hline = NAN;
	c.marks = mk;
	c.n_marks = first_marks(mstats, metric, metrics, mk, lab);
	bad |= buf_puts(out, "<div class=\"chart-row\">");
	bad |= web_chart_svg(out, &c);
	memset(s, 0, sizeof s);
	s[0].label = "|difference|";
	s[0].cls = "s-d";
	s[0].x = m.x;
	s[0].y = m.d;
	s[0].n = m.n;
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

/* A statistic value: number, "NaN", "Inf", "-Inf" or "-". */
static int num_cell(struct buf *out, json_t *v, const char *exact)
{
	int missing;
	double d = wj_num(v, &missing);

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

static int stats_table(struct buf *out, json_t *metrics)
{
	const char *k;
	json_t *m;
	int bad = 0;

	bad |= buf_puts(out,
	                "<div class=\"scroll\"><table class=\"stats\" id=\"stats\"><thead><tr>"
	                "<th>Metric</th><th>Result</th><th>Threshold</th><th>Max |diff|</th>"
	                "<th>at step</th><th>Mean |diff|</th><th>Max rel</th><th>Mean rel</th>"
	                "<th>First over</th><th>Steps over</th><th>Compared</th>"
	                "<th>NaN A/B</th><th>Inf A/B</th><th>Printed decimals</th></tr></thead>"
	                "<tbody>");
	json_object_foreach(metrics, k, m)
	{
		json_t *th = json_object_get(m, "threshold");
		json_t *nan = json_object_get(m, "nan"), *inf = json_object_get(m, "inf");
		int pass = json_is_true(json_object_get(m, "pass"));
		int not_logged = json_is_true(json_object_get(m, "not_logged"));
		double ta = wj_num(json_object_get(th, "abs"), NULL);
		double tr = wj_num(json_object_get(th, "rel"), NULL);

		bad |= web_printf(out, "<tr class=\"%s\"><th>%s</th><td>",
		                  not_logged ? "muted"
		                  : pass     ? "ok"
		                             : "bad",
		                  k);
		bad |= web_badge(out, not_logged ? "not logged" : pass ? "pass" : "fail");
		bad |= buf_puts(out, "</td><td class=\"num\">");
		if (isfinite(ta))
			bad |= web_printf(out, "abs %g", ta);
		if (isfinite(tr))
			bad |= web_printf(out, " rel %g", tr);
		bad |= buf_puts(out, "</td>");
		bad |= num_cell(out, json_object_get(m, "max_abs"), wj_str(m, "max_abs_exact"));
		bad |= num_cell(out, json_object_get(m, "max_abs_step"), NULL);
		bad |= num_cell(out, json_object_get(m, "mean_abs"), NULL);
		bad |= num_cell(out, json_object_get(m, "max_rel"), NULL);
		bad |= num_cell(out, json_object_get(m, "mean_rel"), NULL);
		bad |= num_cell(out, json_object_get(m, "first_over"), NULL);
		bad |= num_cell(out, json_object_get(m, "over"), NULL);
		bad |= num_cell(out, json_object_get(m, "compared"), NULL);
		bad |= web_printf(out,
		                  "<td class=\"num\">%lld / %lld</td><td class=\"num\">%lld / "
		                  "%lld</td>",
		                  (long long)json_integer_value(json_array_get(nan, 0)),
		                  (long long)json_integer_value(json_array_get(nan, 1)),
		                  (long long)json_integer_value(json_array_get(inf, 0)),
		                  (long long)json_integer_value(json_array_get(inf, 1)));
		bad |= web_printf(out, "<td class=\"num\">%lld%s</td></tr>",
		                  wj_int(m, "decimals", 0),
		                  json_is_true(json_object_get(m, "below_resolution"))
		                          ? " (threshold below resolution)"
		                          : "");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

/* 1 when a cell of the row is over its threshold (the check's "over":
 * |diff| or rel over the threshold, or a one-sided NaN/Inf). */
static int row_over(json_t *row, json_t *metrics)
{
	const char *k;
	json_t *m;

	json_object_foreach(metrics, k, m)
	{
		if (json_is_true(json_object_get(json_object_get(row, k), "over")))
			return 1;
	}
	return 0;
}

/* The per-step table of rows[idx[0..n)]; the row of step hit (when
 * has_hit) is highlighted and holds the #hit anchor. */
static int step_table(struct buf *out, json_t *rows, const size_t *idx, size_t n, json_t *metrics,
                      int has_hit, long hit)
{
	const char *k;
	json_t *m, *row;
	size_t i;
	int bad = 0;

	bad |= buf_puts(out, "<div class=\"scroll\"><table class=\"steps\" id=\"steps\"><thead>"
	                     "<tr><th rowspan=\"2\">Step</th>");
	json_object_foreach(metrics, k, m) bad |= web_printf(out, "<th colspan=\"4\">%s</th>", k);
	bad |= buf_puts(out, "</tr><tr>");
	json_object_foreach(metrics, k, m) bad |=
	        buf_puts(out, "<th>baseline</th><th>candidate</th><th>|diff|</th><th>rel</th>");
	bad |= buf_puts(out, "</tr></thead><tbody>");
	for (i = 0; i < n; i++) {
		long long step;
		int any_over, is_hit;

		row = json_array_get(rows, idx[i]);
		step = wj_int(row, "step", 0);
		any_over = row_over(row, metrics);
		is_hit = has_hit && step == hit;
		if (any_over || is_hit)
			bad |= web_printf(out, "<tr id=\"s%lld\" class=\"%s%s%s\"><th>", step,
			                  any_over ? "over-row" : "", any_over && is_hit ? " " : "",
			                  is_hit ? "hit" : "");
		else
			bad |= web_printf(out, "<tr id=\"s%lld\"><th>", step);
		if (is_hit)
			bad |= buf_puts(out, "<span id=\"hit\"></span>");
		bad |= web_printf(out, "%lld</th>", step);
		json_object_foreach(metrics, k, m)
		{
			json_t *c = json_object_get(row, k);
			int over = json_is_true(json_object_get(c, "over"));
			const char *cls = over ? "num over tint t10" : "num";

			if (!json_is_object(c)) {
				bad |= buf_puts(
				        out, "<td class=\"muted\" colspan=\"4\">not printed</td>");
				continue;
			}
			bad |= web_printf(out, "<td class=\"num\">%s</td><td class=\"%s\">%s</td>",
			                  wj_str(c, "a_text") ? wj_str(c, "a_text") : "-", cls,
			                  wj_str(c, "b_text") ? wj_str(c, "b_text") : "-");
			bad |= web_printf(out, "<td class=\"%s\">", cls);
			if (wj_str(c, "abs_exact"))
				bad |= web_printf(out, "%s", wj_str(c, "abs_exact"));
			else
				bad |= num_cell(out, json_object_get(c, "abs"), NULL) < 0;
			bad |= buf_puts(out, "</td>");
			{
				int missing;
				double r = wj_num(json_object_get(c, "rel"), &missing);

				if (missing)
					bad |= buf_puts(out,
					                "<td class=\"num muted\">&ndash;</td>");
				else if (isfinite(r))
					bad |= web_printf(out, "<td class=\"num\">%.3g</td>", r);
				else
					bad |= web_printf(out, "<td class=\"num\">%s</td>",
					                  isnan(r) ? "NaN"
					                  : r < 0  ? "-Inf"
					                           : "Inf");
			}
		}
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

static int warnings_list(struct buf *out, json_t *w, const char *side)
{
	size_t i;
	json_t *x;
	int bad = 0;

	if (!json_array_size(w))
		return 0;
	bad |= web_printf(out, "<h3>Warnings in the %s log</h3><ul class=\"warnings\">", side);
	json_array_foreach(w, i, x)
	{
		bad |= web_printf(out, "<li><code>%s</code> line %lld: %s", wj_str(x, "code"),
		                  wj_int(x, "line", 0), wj_str(x, "message"));
		if (wj_str(x, "excerpt"))
			bad |= web_printf(out, "<pre class=\"excerpt\">%s</pre>",
			                  wj_str(x, "excerpt"));
		bad |= buf_puts(out, "</li>");
	}
	bad |= buf_puts(out, "</ul>");
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

/* First k in idx[0..n) whose row's step is >= step (n when none). */
static size_t first_at(json_t *rows, const size_t *idx, size_t n, long step)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (wj_int(json_array_get(rows, idx[mid]), "step", 0) < step)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static long long step_at(json_t *rows, const size_t *idx, size_t k)
{
	return wj_int(json_array_get(rows, idx[k]), "step", 0);
}

/* A pager link to the page starting at rows idx[at..]: "steps A-B". */
static int page_link(struct buf *out, const struct web_train_view *v, json_t *rows,
                     const size_t *idx, size_t n, size_t at, const char *id, const char *text)
{
	struct buf q = BUF_INIT;
	size_t end = at + TABLE_PAGE < n ? at + TABLE_PAGE : n;
	int bad = table_href(&q, v, "from", (long)step_at(rows, idx, at)) < 0;

	bad |= web_printf(out, "<a href=\"%s\" id=\"%s\">", q.data, id);
	if (!strcmp(id, "page-next"))
		bad |= web_printf(out, "steps %lld-%lld &rsaquo;</a>", step_at(rows, idx, at),
		                  step_at(rows, idx, end - 1));
	else if (!strcmp(id, "page-prev"))
		bad |= web_printf(out, "&lsaquo; steps %lld-%lld</a>", step_at(rows, idx, at),
		                  step_at(rows, idx, end - 1));
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
 * pager, offline every row. */
static int per_step(struct buf *out, const struct web_train_view *v, json_t *metrics)
{
	json_t *rows = v->steps_all;
	size_t n_all = json_array_size(rows), n = 0, n_over = 0, i, start = 0, end, k;
	size_t *idx = malloc((n_all ? n_all : 1) * sizeof *idx);
	int bad = 0, has_hit = 0;
	long hit = 0;

	if (!idx)
		return -1;
	for (i = 0; i < n_all; i++) {
		int over = row_over(json_array_get(rows, i), metrics);

		n_over += over;
		if (over || !v->over_only || v->mode != WEB_SERVER)
			idx[n++] = i;
	}
	if (v->mode != WEB_SERVER) {
		bad |= step_table(out, rows, idx, n, metrics, 0, 0);
		free(idx);
		return bad ? -1 : 0;
	}
	bad |= table_controls(out, v, n_over, n_all);
	/* the page holding the asked step (the next one shown when it is not) */
	if ((v->has_step || v->has_from) && n) {
		k = first_at(rows, idx, n, v->has_step ? v->step : v->from);
		if (k == n)
			k = n - 1;
		start = k - k % TABLE_PAGE;
		if (v->has_step) {
			has_hit = 1;
			hit = (long)step_at(rows, idx, k);
			if (hit != v->step)
				bad |= web_printf(
				        out,
				        "<p class=\"note\" id=\"jump-note\">Step %ld is not "
				        "in the table%s; step %ld is the nearest after it.</p>",
				        v->step, v->over_only ? " (filtered)" : "", hit);
		}
	}
	end = start + TABLE_PAGE < n ? start + TABLE_PAGE : n;
	bad |= step_table(out, rows, idx + start, end - start, metrics, has_hit, hit);
	bad |= buf_puts(out, "<nav class=\"pager\" id=\"steps-pager\">");
	if (start > 0) {
		bad |= page_link(out, v, rows, idx, n, 0, "page-first", "&laquo; first");
		bad |= page_link(out, v, rows, idx, n, start - TABLE_PAGE, "page-prev", NULL);
	}
	if (n)
		bad |= web_printf(out,
		                  "<span class=\"muted\" id=\"page-range\">steps %lld-%lld (rows "
		                  "%zu-%zu of %zu)</span>",
		                  step_at(rows, idx, start), step_at(rows, idx, end - 1), start + 1,
		                  end, n);
	else
		bad |= buf_puts(out, "<span class=\"muted\" id=\"page-range\">no steps</span>");
	if (end < n) {
		bad |= page_link(out, v, rows, idx, n, end, "page-next", NULL);
		bad |= page_link(out, v, rows, idx, n, (n - 1) - (n - 1) % TABLE_PAGE, "page-last",
		                 "last &raquo;");
	}
	bad |= buf_puts(out, "</nav>");
	free(idx);
	return bad ? -1 : 0;
}

int web_train_page(struct buf *out, const struct web_train_view *v)
{
	json_t *cmp = v->cmp, *result = json_object_get(cmp, "result");
	json_t *metrics, *names, *notes, *x, *steps;
	struct buf title = BUF_INIT;
	long long id = wj_int(cmp, "id", 0);
	const char *k;
	size_t i;
	int bad = 0;

	if (!result && wj_str(cmp, "kind"))
		result = cmp;
	metrics = json_object_get(result, "metrics");
	names = json_object_get(result, "names");
	if (!names) {
		json_t *runs = json_object_get(cmp, "runs");

		names = json_pack("{s:s?,s:s?}", "a",
		                  wj_str(json_object_get(runs, "baseline"), "name"), "b",
		                  wj_str(json_object_get(runs, "candidate"), "name"));
	} else {
		json_incref(names);
	}
	if (id)
		buf_printf(&title, "#%lld ", id);
	buf_printf(&title, "%s: %s vs %s \xe2\x80\x94 training comparison \xe2\x80\x94 parity",
	           wj_str(result, "verdict") ? wj_str(result, "verdict") : "comparison",
	           wj_str(names, "a") && *wj_str(names, "a") ? wj_str(names, "a") : "baseline",
	           wj_str(names, "b") && *wj_str(names, "b") ? wj_str(names, "b") : "candidate");
	bad |= web_page_begin(out, v->mode, title.data, 0);
	bad |= buf_puts(out, "<h1>Training comparison");
	if (id)
		bad |= web_printf(out, " #%lld", id);
	bad |= buf_puts(out, "</h1>");
	if (v->note)
		bad |= web_printf(out, "<p class=\"note\" id=\"note\">%s</p>", v->note);
	bad |= web_runs_line(out, cmp, v->mode);
	bad |= web_verdict_banner(out, cmp, result);
	if (v->mode == WEB_SERVER && id) {
		json_t *runs = json_object_get(cmp, "runs");

		bad |= web_cmp_actions(out, id, wj_int(json_object_get(runs, "baseline"), "id", 0),
		                       wj_int(json_object_get(runs, "candidate"), "id", 0));
	}
	notes = json_object_get(result, "notes");
	if (json_array_size(notes)) {
		bad |= buf_puts(out, "<div class=\"notes\" id=\"resolution\"><h3>Notes</h3><ul>");
		json_array_foreach(notes, i, x) bad |=
		        web_printf(out, "<li>%s</li>", json_string_value(x));
		bad |= buf_puts(out, "</ul></div>");
	}
	steps = json_object_get(result, "steps");
	if (json_is_object(steps)) {
		bad |= web_printf(out, "<p class=\"muted\">%lld common steps",
		                  wj_int(steps, "common", 0));
		if (wj_int(steps, "only_baseline_count", 0))
			bad |= web_printf(out, "; %lld only in the baseline",
			                  wj_int(steps, "only_baseline_count", 0));
		if (wj_int(steps, "only_candidate_count", 0))
			bad |= web_printf(out, "; %lld only in the candidate",
			                  wj_int(steps, "only_candidate_count", 0));
		if ((long long)json_array_size(v->steps_all) < wj_int(steps, "common", 0))
			bad |= web_printf(out,
			                  "; the charts and the table show the first %zu (the CSV "
			                  "has every step)",
			                  json_array_size(v->steps_all));
		bad |= buf_puts(out, "</p>");
	}

	/* charts */
	if (json_object_size(metrics) && json_array_size(v->steps_all)) {
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
		json_object_foreach(metrics, k, x)
		{
			bad |= web_printf(out, "<h3>%s</h3>", k);
			bad |= charts(out, v->steps_all, k, x, metrics, names, v->log_y);
		}
		bad |= buf_puts(out, "</section>");
	}
	if (json_object_size(metrics)) {
		bad |= buf_puts(out, "<h2>Statistics</h2>");
		bad |= stats_table(out, metrics);
	}
	x = json_object_get(result, "warnings");
	bad |= warnings_list(out, json_object_get(x, "baseline"), "baseline");
	bad |= warnings_list(out, json_object_get(x, "candidate"), "candidate");

	if (json_object_size(metrics)) {
		bad |= buf_puts(out, "<h2>Per step</h2>");
		if (v->mode == WEB_SERVER)
			bad |= web_printf(out,
			                  "<p><a href=\"/comparisons/%lld/steps.csv\" "
			                  "id=\"csv\">Download CSV</a></p>",
			                  id);
		bad |= per_step(out, v, metrics);
	}
	if (v->mode == WEB_SERVER)
		bad |= web_printf(out,
		                  "<p class=\"muted\">API: <a href=\"/comparisons/%lld\">JSON</a> "
		                  "&middot; <a href=\"/comparisons/%lld/steps\">steps</a> &middot; "
		                  "<a href=\"/comparisons/%lld/report.html\">self-contained "
		                  "report</a></p>",
		                  id, id, id);
	bad |= web_page_end(out, v->mode);
	json_decref(names);
	buf_reset(&title);
	return bad ? -1 : 0;
}
