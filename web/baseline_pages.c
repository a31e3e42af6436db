/* baseline_pages.c - the issue 16 pages: a suite's config matrix
 * (/ui/suites/{suite}) and a golden baseline's history
 * (/ui/baselines/{name}): its changes, and every comparison made against
 * it with the verdict, the candidate's commit and max |diff| per metric
 * (training), charted over time so a drift shows before it fails.  Every
 * value goes through web_printf's escaping %s; lists are bounded by the
 * store pages they render. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_views.h"
#include "web_int.h"

#define MAX_METRICS 8 /* metric columns and chart lines of the history */

/* meta.commit of a run, copied into out ("" when none). */
static void run_commit(const struct store_run *run, char *out, size_t cap)
{
	out[0] = 0;
	if (!run)
		return;
	struct web_meta m;
	if (web_meta_read(run->meta_json, &m) == 0 && web_meta_str(&m, "commit"))
		snprintf(out, cap, "%s", web_meta_str(&m, "commit"));
	web_meta_free(&m);
}

static int run_link(struct buf *out, const struct store_run *run, int64_t id)
{
	if (!run)
		return web_printf(out, "#%lld (deleted)", (long long)id);
	return web_printf(out, "<a href=\"/ui/runs/%lld\">#%lld %s</a>", (long long)id,
	                  (long long)id, run->name);
}

int web_suite_failing(const struct store_comparison *c)
{
	return !strcmp(c->status, "failed") ||
	       (c->verdict && (!strcmp(c->verdict, "fail") || !strcmp(c->verdict, "error")));
}

size_t *web_suite_order(const struct store_suite_view *v)
{
	size_t *o = malloc((v->n_latest ? v->n_latest : 1) * sizeof *o), n = 0;
	for (int pass = 0; o && pass < 3; pass++)
		for (size_t i = 0; i < v->n_latest; i++) {
			const struct store_comparison *c = &v->latest[i];
			int rank = web_suite_failing(c) ? 0 : c->verdict ? 2 : 1;
			if (rank == pass)
				o[n++] = i;
		}
	return o;
}

int web_suite_page(struct buf *out, const char *suite, const struct store_suite_view *v,
                   const char *verdict)
{
	struct buf title = BUF_INIT;
	int bad = 0;
	char commit[128];

	buf_printf(&title, "Suite %s: %s \xe2\x80\x94 parity", suite, verdict);
	bad |= web_page_begin(out, WEB_SERVER, title.data, v->n_pending ? 10 : 0);
	buf_reset(&title);
	bad |= web_printf(out, "<h1>Suite <span class=\"name\">%s</span> ", suite);
	bad |= web_badge(out, strcmp(verdict, "pending") ? verdict : NULL);
	bad |= buf_puts(out, "</h1>");
	bad |= web_printf(out,
	                  "<p class=\"muted\" id=\"suite-summary\">%lld comparison%s filed, "
	                  "%lld pending; %zu config%s (the latest comparison of each).</p>",
	                  (long long)v->n_comparisons, v->n_comparisons == 1 ? "" : "s",
	                  (long long)v->n_pending, v->n_latest, v->n_latest == 1 ? "" : "s");
	if (web_suite_lane(v))
		bad |= web_printf(out, "<p id=\"suite-lane\">Worst lane: <strong>%s</strong></p>",
		                  web_lane_text(web_suite_lane(v)));
	bad |= buf_puts(out,
	                "<div class=\"scroll\"><table class=\"list sortable\" id=\"suite\">"
	                "<thead><tr><th>Config</th><th>Verdict</th><th>Lane</th><th>Reason</th>"
	                "<th>Comparison</th><th>Baseline</th><th>Candidate</th>"
	                "<th>Commit</th><th>Finished</th></tr></thead><tbody>");
	size_t *order = web_suite_order(v);
	for (size_t j = 0; order && j < v->n_latest; j++) {
		const struct store_comparison *c = &v->latest[order[j]];
		int done = !strcmp(c->status, "done") || !strcmp(c->status, "failed");

		bad |= web_printf(out, "<tr><th>%s</th><td>",
		                  c->config && *c->config ? c->config : "(none)");
		bad |= web_badge(out, !done                          ? NULL
		                      : !strcmp(c->status, "failed") ? "error"
		                                                     : c->verdict);
		const char *lane = web_lane_text(c->lane);
		bad |= web_printf(out, "</td><td class=\"lane\">%s", lane ? lane : "");
		bad |= web_printf(out,
		                  "</td><td class=\"reason\">%s</td><td><a "
		                  "href=\"/ui/comparisons/%lld\">#%lld %s</a></td><td>",
		                  web_cmp_reason(c), (long long)c->id, (long long)c->id, c->name);
		if (c->baseline_name)
			bad |= web_printf(out, "<a href=\"/ui/baselines/%s\">%s</a> ",
			                  c->baseline_name, c->baseline_name);
		bad |= run_link(out, c->baseline, c->baseline_id);
		bad |= buf_puts(out, "</td><td>");
		bad |= run_link(out, c->candidate, c->candidate_id);
		run_commit(c->candidate, commit, sizeof commit);
		bad |= web_printf(out, "</td><td><code>%s</code></td><td>%s</td></tr>", commit,
		                  c->finished_at ? c->finished_at : "");
	}
	bad |= !order;
	free(order);
	bad |= buf_puts(out, "</tbody></table></div>");
	if (v->truncated)
		bad |= web_printf(out,
		                  "<p class=\"muted\">Only the first %d configs are shown.</p>",
		                  STORE_SUITE_CONFIGS_MAX);
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

/* The metric names of the page's training results, first seen first. */
struct metric_set {
	const char *name[MAX_METRICS];
	size_t n;
};

static void add_metrics(struct metric_set *m, const struct store_train_result *r)
{
	for (size_t j = 0; r && j < r->n_metrics; j++) {
		const char *k = r->metrics[j].name;
		size_t i = 0;
		while (i < m->n && strcmp(m->name[i], k))
			i++;
		if (i == m->n && m->n < MAX_METRICS)
			m->name[m->n++] = k;
	}
}

/* Links to the runs of a set entry (issue 26: "set of K: #1 #2 ..."), or
 * to the one run. */
static int run_ids(struct buf *out, const int64_t *runs, size_t n, int64_t one)
{
	int bad = 0;
	if (n)
		bad |= web_printf(out, "<span class=\"muted\">set of %zu:</span>", n);
	for (size_t i = 0; i < (n ? n : 1); i++) {
		long long id = (long long)(n ? runs[i] : one);
		bad |= web_printf(out, "%s<a href=\"/ui/runs/%lld\">#%lld</a>", n ? " " : "", id,
		                  id);
	}
	return bad;
}

static int history_table(struct buf *out, const struct store_baseline *b)
{
	int bad = 0;
	bad |= buf_puts(
	        out,
	        "<h2>Changes</h2><div class=\"scroll\"><table class=\"list\" "
	        "id=\"history\"><thead><tr><th>Time</th><th>Run</th><th>By token</th><th>Note</th>"
	        "<th>Promoted by</th></tr></thead><tbody>");
	for (size_t i = b->n_history; i-- > 0;) {
		const struct store_baseline_change *c = &b->history[i];
		bad |= web_printf(out, "<tr><td>%s</td><td>", c->set_at);
		bad |= run_ids(out, c->runs, c->n_runs, c->run_id);
		bad |= web_printf(out, "</td><td>%s</td><td>%s</td><td>",
		                  c->token_name ? c->token_name : "open", c->note);
		if (c->comparison_id > 0)
			bad |= web_printf(out, "<a href=\"/ui/comparisons/%lld\">#%lld</a>",
			                  (long long)c->comparison_id, (long long)c->comparison_id);
		bad |= buf_puts(out, "</td></tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad;
}

/* The metric named name in a training result, or NULL (no result, or
 * not compared there). */
static const struct matcher_train_metric_result *metric_of(const struct store_train_result *r,
                                                           const char *name)
{
	for (size_t j = 0; r && j < r->n_metrics; j++)
		if (strcmp(r->metrics[j].name, name) == 0)
			return &r->metrics[j];
	return NULL;
}

static int drift_chart(struct buf *out, const struct metric_set *ms,
                       const struct store_train_result *const *results, size_t n)
{
	static const char *const cls[] = {"s-a", "s-b", "s-d"};
	struct web_series series[MAX_METRICS];
	double *xs = calloc(n ? n : 1, sizeof *xs);
	double *ys = calloc((n ? n : 1) * MAX_METRICS, sizeof *ys);
	int bad = !xs || !ys;

	for (size_t k = 0; !bad && k < ms->n; k++) {
		/* oldest first: the page lists newest first */
		for (size_t i = 0; i < n; i++) {
			const struct matcher_train_metric_result *m =
			        metric_of(results[n - 1 - i], ms->name[k]);
			xs[i] = (double)(i + 1);
			ys[k * n + i] = m && m->n_compared ? m->max_abs : NAN;
		}
		series[k] = (struct web_series){ms->name[k], cls[k % 3], xs, ys + k * n, n};
	}
	/* the comparisons with a value to draw (activation ones have none) */
	size_t n_pts = 0, one = 0;
	for (size_t i = 0; i < n; i++) {
		int any = 0;
		for (size_t k = 0; k < ms->n; k++) {
			const struct matcher_train_metric_result *m =
			        metric_of(results[i], ms->name[k]);
			any |= m && m->n_compared;
		}
		if (any && !n_pts++)
			one = i;
	}
	if (!bad && ms->n && n_pts < 2) {
		/* one point: a line of one point draws nothing (an empty box),
		 * so say what there is instead */
		const char *sep = ":";
		bad |= buf_puts(out, "<p class=\"muted\" id=\"drift-one\">");
		bad |= buf_puts(out, n_pts ? "Only one comparison has a max |diff| so far"
		                           : "No comparison has a max |diff| yet");
		for (size_t k = 0; n_pts && k < ms->n; k++) {
			const struct matcher_train_metric_result *m =
			        metric_of(results[one], ms->name[k]);
			if (!m || !m->n_compared)
				continue;
			bad |= web_printf(out, "%s max |diff| %s %s", sep, ms->name[k],
			                  m->max_abs_text);
			sep = ",";
		}
		bad |= buf_puts(out, ". The drift chart starts with the second.</p>");
	} else if (!bad && ms->n) {
		struct web_chart c = {.title = "max |diff| per comparison (oldest first)",
		                      .y_label = "max |diff|",
		                      .series = series,
		                      .n_series = ms->n,
		                      .log_y = 1,
		                      .hline = NAN};
		bad |= buf_puts(out, "<div class=\"chart\" id=\"drift\">");
		bad |= web_chart_svg(out, &c);
		bad |= buf_puts(out, "</div>");
	}
	free(xs);
	free(ys);
	return bad;
}

int web_baseline_page(struct buf *out, const struct store_baseline *b,
                      const struct store_comparison_page *cmps,
                      const struct store_train_result *const *results)
{
	struct buf title = BUF_INIT;
	struct metric_set ms = {{0}, 0};
	int bad = 0;
	char commit[128];

	for (size_t i = 0; results && i < cmps->n_cmps; i++)
		add_metrics(&ms, results[i]);
	buf_printf(&title, "Baseline %s \xe2\x80\x94 parity", b->name);
	bad |= web_page_begin(out, WEB_SERVER, title.data, 0);
	buf_reset(&title);
	bad |= web_printf(out, "<h1>Baseline <span class=\"name\">%s</span></h1>", b->name);
	bad |= buf_puts(out, "<p id=\"current\">Current run: ");
	bad |= run_link(out, b->run, b->run_id);
	if (b->n_members) { /* issue 26: the newest member of a set */
		bad |= buf_puts(out, ", the newest of the set ");
		bad |= run_ids(out, b->members, b->n_members, b->run_id);
	}
	bad |= web_printf(out,
	                  " <span class=\"muted\">&middot; since %s &middot; %lld change%s"
	                  "</span></p>",
	                  b->updated_at, (long long)b->n_changes, b->n_changes == 1 ? "" : "s");
	bad |= history_table(out, b);
	bad |= web_printf(out,
	                  "<h2>Comparisons against it</h2><p class=\"muted\">%zu shown, "
	                  "newest first.</p>",
	                  cmps->n_cmps);
	if (results)
		bad |= drift_chart(out, &ms, results, cmps->n_cmps);
	bad |= buf_puts(
	        out,
	        "<div class=\"scroll\"><table class=\"list sortable\" "
	        "id=\"comparisons\"><thead><tr><th>Comparison</th><th>Created</th><th>Verdict</th>"
	        "<th>Candidate</th><th>Commit</th><th>Suite / config</th>");
	for (size_t k = 0; k < ms.n; k++)
		bad |= web_printf(out, "<th>max |diff| %s</th>", ms.name[k]);
	bad |= buf_puts(out, "</tr></thead><tbody>");
	for (size_t i = 0; !bad && i < cmps->n_cmps; i++) {
		const struct store_comparison *c = &cmps->cmps[i];
		bad |= web_printf(out,
		                  "<tr><td><a href=\"/ui/comparisons/%lld\">#%lld</a></td>"
		                  "<td>%s</td><td>",
		                  (long long)c->id, (long long)c->id, c->created_at);
		bad |= web_badge(out, !strcmp(c->status, "failed") ? "error"
		                      : !strcmp(c->status, "done") ? c->verdict
		                                                   : NULL);
		if (web_lane_text(c->lane))
			bad |= web_printf(out, " <span class=\"lane\">%s</span>",
			                  web_lane_text(c->lane));
		bad |= buf_puts(out, "</td><td>");
		bad |= run_link(out, c->candidate, c->candidate_id);
		run_commit(c->candidate, commit, sizeof commit);
		bad |= web_printf(out, "</td><td><code>%s</code></td><td>", commit);
		if (c->suite)
			bad |= web_printf(out, "<a href=\"/ui/suites/%s\">%s</a> %s", c->suite,
			                  c->suite, c->config ? c->config : "");
		bad |= buf_puts(out, "</td>");
		for (size_t k = 0; k < ms.n; k++) {
			const struct matcher_train_metric_result *m =
			        results ? metric_of(results[i], ms.name[k]) : NULL;
			bad |= web_printf(out, "<td class=\"num\">%s</td>",
			                  m && m->n_compared ? m->max_abs_text : "");
		}
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	if (cmps->next_cursor[0])
		bad |= web_printf(out, "<p><a href=\"?cursor=%s\">Older comparisons</a></p>",
		                  cmps->next_cursor);
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

/* ---- the list pages (issue 25) ------------------------------------------ */

int web_suites_page(struct buf *out, const struct store_suite_list *l)
{
	int bad = 0;

	bad |= web_page_begin(out, WEB_SERVER, "Suites \xe2\x80\x94 parity", 0);
	bad |= buf_puts(out, "<h1>Suites</h1>");
	if (!l->n_suites) {
		bad |= buf_puts(out, "<p class=\"muted\" id=\"no-suites\">No suite yet: file "
		                     "comparisons into one with <code>parity submit --suite NAME "
		                     "--config LABEL</code> (or <code>\"suite\"</code> and "
		                     "<code>\"config\"</code> in <code>POST /comparisons</code>)."
		                     "</p>");
		bad |= web_page_end(out, WEB_SERVER);
		return bad ? -1 : 0;
	}
	bad |= buf_puts(out, "<div class=\"scroll\"><table class=\"list sortable\" id=\"suites\">"
	                     "<thead><tr><th>Suite</th><th>Verdict</th><th>Configs</th>"
	                     "<th>Failing</th><th>Pending</th><th>Comparisons</th>"
	                     "<th>Last filed</th><th>PDF</th></tr></thead><tbody>");
	for (size_t i = 0; i < l->n_suites; i++) {
		const struct store_suite_summary *x = &l->suites[i];

		bad |= web_printf(out, "<tr><td><a href=\"/ui/suites/%s\">%s</a></td><td>",
		                  x->suite, x->suite);
		bad |= web_badge(out, x->n_failing ? "fail" : x->n_pending ? NULL : "pass");
		bad |= web_printf(out,
		                  "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
		                  "<td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
		                  "<td>%s</td><td><a href=\"/suites/%s/report.pdf\">PDF</a></td>"
		                  "</tr>",
		                  (long long)x->n_configs, (long long)x->n_failing,
		                  (long long)x->n_pending, (long long)x->n_comparisons, x->last_at,
		                  x->suite);
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	if (l->truncated)
		bad |= web_printf(out,
		                  "<p class=\"muted\">Only the %d most recently filed suites are "
		                  "shown.</p>",
		                  STORE_SUITES_MAX);
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

int web_baselines_page(struct buf *out, const struct store_baseline_page *page)
{
	int bad = 0;

	bad |= web_page_begin(out, WEB_SERVER, "Baselines \xe2\x80\x94 parity", 0);
	bad |= buf_puts(out, "<h1>Baselines</h1>");
	if (!page->n_baselines) {
		bad |= buf_puts(out, "<p class=\"muted\" id=\"no-baselines\">No golden baseline "
		                     "yet: set one with &ldquo;Set as baseline&rdquo; on a run's "
		                     "page, or <code>PUT /baselines/{name}</code>.</p>");
	} else {
		bad |= buf_puts(out, "<div class=\"scroll\"><table class=\"list sortable\" "
		                     "id=\"baselines\"><thead><tr><th>Name</th><th>Current run</th>"
		                     "<th>Updated</th><th>Changes</th><th>Created</th></tr></thead>"
		                     "<tbody>");
		for (size_t i = 0; i < page->n_baselines; i++) {
			const struct store_baseline *b = &page->baselines[i];

			bad |= web_printf(out,
			                  "<tr><td><a href=\"/ui/baselines/%s\">%s</a></td><td>",
			                  b->name, b->name);
			bad |= run_link(out, b->run, b->run_id);
			bad |= web_printf(out,
			                  "</td><td>%s</td><td class=\"num\">%lld</td><td>%s</td>"
			                  "</tr>",
			                  b->updated_at, (long long)b->n_changes, b->created_at);
		}
		bad |= buf_puts(out, "</tbody></table></div>");
	}
	if (page->next_cursor[0])
		bad |= web_printf(out,
		                  "<nav class=\"pager\"><a id=\"next\" rel=\"next\" "
		                  "href=\"/ui/baselines?cursor=%s\">More &rarr;</a></nav>",
		                  page->next_cursor);
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}
