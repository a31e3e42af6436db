/* train_page.c - the training comparison page: verdict banner with every
 * reason and the resolution notes, overlay charts (baseline vs candidate
 * against step, linear or log), a |difference| chart per metric with the
 * threshold drawn as a line, the per-metric statistics and the paged
 * per-step table with over-threshold cells red.
 *
 * The charts are server-side SVG built from every per-step row (reduced
 * to ~900 columns), so they read without JS; parity.js only adds the
 * hover read-out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

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

static int charts(struct buf *out, json_t *steps, const char *metric, json_t *mstats, json_t *names,
                  int log_y)
{
	struct metric_data m;
	struct web_series s[2];
	struct web_chart c;
	struct buf t1 = BUF_INIT, t2 = BUF_INIT, hl = BUF_INIT;
	double th = wj_num(json_object_get(json_object_get(mstats, "threshold"), "abs"), NULL);
	const char *na = wj_str(names, "a"), *nb = wj_str(names, "b");
	int bad = 0;

	if (metric_load(steps, metric, &m) < 0)
		return -1;
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

/* The per-step table of the rows given. */
static int step_table(struct buf *out, json_t *rows, json_t *metrics)
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
	json_array_foreach(rows, i, row)
	{
		int any_over = 0;

		json_object_foreach(metrics, k, m) any_over |=
		        json_is_true(json_object_get(json_object_get(row, k), "over"));
		if (any_over)
			bad |= web_printf(out, "<tr id=\"s%lld\" class=\"over-row\"><th>%lld</th>",
			                  wj_int(row, "step", 0), wj_int(row, "step", 0));
		else
			bad |= web_printf(out, "<tr id=\"s%lld\"><th>%lld</th>",
			                  wj_int(row, "step", 0), wj_int(row, "step", 0));
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
			bad |= charts(out, v->steps_all, k, x, names, v->log_y);
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
		bad |= step_table(out, v->steps_page, metrics);
		if (v->mode == WEB_SERVER) {
			bad |= buf_puts(out, "<nav class=\"pager\">");
			if (v->cursor && *v->cursor)
				bad |= web_printf(
				        out,
				        "<a href=\"?log=%d\" id=\"page-first\">&laquo; first "
				        "page</a> ",
				        v->log_y);
			if (v->next_cursor) {
				struct buf q = BUF_INIT;

				bad |= web_urlenc(&q, v->next_cursor);
				bad |= web_printf(
				        out,
				        "<a href=\"?log=%d&cursor=%s\" id=\"page-next\">next "
				        "page &rsaquo;</a>",
				        v->log_y, q.data);
				buf_reset(&q);
			}
			bad |= buf_puts(out, "</nav>");
		}
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
