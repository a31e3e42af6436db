/* pages.c - the small pages: home (the upload and compare forms, then
 * recent comparisons and runs, or the getting-started commands), one run
 * ("Compare with...", "Set as baseline", metadata, ranks, warnings, raw
 * log downloads, loss/grad_norm charts for training runs) and the state
 * page of a comparison that is queued, running (refreshes itself) or
 * failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_views.h"
#include "web_int.h"

int web_home(struct buf *out, const struct store_comparison_page *comparisons,
             const struct store_run_page *runs, const char *base_url)
{
	size_t nc = comparisons ? comparisons->n_cmps : 0;
	size_t nr = runs ? runs->n_runs : 0;
	const char *base = base_url && *base_url ? base_url : "http://localhost:8080";
	int bad = 0;

	bad |= web_page_begin(out, WEB_SERVER, "parity \xe2\x80\x94 compare two training runs", 0);
	bad |= buf_puts(out, "<h1>parity</h1><p class=\"lead\">Compare two ML training runs: "
	                     "per-op activation logs or training stdout.</p>");
	/* the forms first: once runs pile up, tables above them would push
	 * them a screen or more down */
	bad |= buf_puts(out, "<div class=\"forms\" id=\"home-forms\">");
	bad |= web_upload_form(out);
	if (nr)
		bad |= web_compare_form(out, runs, 0, 0);
	bad |= buf_puts(out, "</div>");
	if (!nc && !nr) {
		bad |= web_printf(
		        out,
		        "<section class=\"empty-state\" id=\"empty\"><h2>Get started</h2>"
		        "<p>Upload two runs with the form above, then compare them. From a "
		        "shell the same is:</p>"
		        "<pre><code>curl -F log=@runA/rank_0_activations.log -F name=eager "
		        "%s/runs\ncurl -F log=@runB/rank_0_activations.log -F name=traced "
		        "%s/runs</code></pre><pre><code>curl -H 'Content-Type: application/json' "
		        "-d '{\"baseline\":1,\"candidate\":2}' %s/comparisons</code></pre>"
		        "<p>The reply holds the URL of the comparison page.</p></section>",
		        base, base, base);
	}
	if (nc) {
		bad |= buf_puts(out, "<h2>Recent comparisons <a class=\"more\" "
		                     "href=\"/ui/comparisons\">all</a></h2>");
		bad |= web_cmp_table(out, comparisons, 0);
	}
	if (nr) {
		bad |= buf_puts(out, "<h2>Recent runs <a class=\"more\" href=\"/ui/runs\">all</a>"
		                     "</h2>");
		bad |= web_run_table(out, runs, 0);
	}
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

/* A metric's chart value: the number, else from its text NaN, -inf or
 * +inf (what a training log prints for non-finite values). */
static double metric_value(const struct store_step_metric *m)
{
	const char *t = m->text;

	if (m->has_value)
		return m->value;
	return t && (!strcmp(t, "nan") || !strcmp(t, "-nan")) ? NAN
	       : t && t[0] == '-'                             ? -INFINITY
	                                                      : INFINITY;
}

/* Training charts of one run: one series per metric over the step pages. */
static int run_charts(struct buf *out, const struct store_run_step_page *pages, size_t n_pages)
{
	static const char *const metrics[] = {"loss", "grad_norm"};
	size_t n = 0, i, j, k, q;
	double *x, *y;
	int bad = 0;

	for (i = 0; i < n_pages; i++)
		n += pages[i].n_steps;
	x = malloc((n ? n : 1) * sizeof *x);
	y = malloc((n ? n : 1) * sizeof *y);
	if (!x || !y) {
		free(x);
		free(y);
		return -1;
	}
	for (k = 0; k < 2; k++) {
		struct web_series s;
		struct web_chart c;
		size_t m = 0;

		for (i = 0; i < n_pages; i++) {
			for (j = 0; j < pages[i].n_steps; j++) {
				const struct store_run_step *st = &pages[i].steps[j];

				for (q = 0; q < st->n_metrics; q++) {
					if (strcmp(st->metrics[q].name, metrics[k]))
						continue;
					x[m] = (double)st->step;
					y[m++] = metric_value(&st->metrics[q]);
					break;
				}
			}
		}
		if (!m)
			continue;
		memset(&s, 0, sizeof s);
		s.label = metrics[k];
		s.cls = "s-a";
		s.x = x;
		s.y = y;
		s.n = m;
		memset(&c, 0, sizeof c);
		c.title = metrics[k];
		c.y_label = metrics[k];
		c.series = &s;
		c.n_series = 1;
		c.hline = NAN;
		bad |= web_printf(out, "<h3>%s</h3>", metrics[k]);
		bad |= web_chart_svg(out, &c);
	}
	free(x);
	free(y);
	return bad ? -1 : 0;
}

int web_run(struct buf *out, const struct store_run *run, const struct store_run_step_page *steps,
            size_t n_steps)
{
	struct web_meta meta;
	struct buf title = BUF_INIT;
	long long id = (long long)run->id;
	const char *name = run->name;
	int training = !strcmp(run->kind, "training");
	size_t i;
	int bad = web_meta_read(run->meta_json, &meta) < 0;

	buf_printf(&title, "Run #%lld %s \xe2\x80\x94 parity", id, name);
	bad |= web_page_begin(out, WEB_SERVER, title.data, 0);
	bad |= web_printf(out, "<h1>Run #%lld <span class=\"name\">%s</span></h1>", id,
	                  *name ? name : "(unnamed)");
	bad |= web_printf(out,
	                  "<p><span class=\"chip\">%s</span> <span class=\"muted\">created "
	                  "%s</span></p>",
	                  run->kind, run->created_at);
	/* the next step after an upload (its 303 lands here) */
	bad |= web_printf(out,
	                  "<p class=\"next-step\" id=\"compare-with\"><a class=\"button\" "
	                  "href=\"/ui/comparisons?candidate=%lld#compare\">Compare with&hellip;"
	                  "</a> <span class=\"muted\">another %s run (this one as the "
	                  "candidate)</span></p>",
	                  id, run->kind);
	bad |= buf_puts(out, "<details class=\"set-baseline\"><summary>Set as "
	                     "baseline&hellip;</summary>");
	bad |= web_set_baseline_form(out, id, NULL);
	bad |= buf_puts(out, "</details>");
	if (meta.n) {
		bad |= buf_puts(out,
		                "<h2>Metadata</h2><div class=\"scroll\"><table class=\"kv meta\">");
		for (i = 0; i < meta.n; i++) {
			const struct web_meta_kv *x = &meta.kv[i];

			bad |= web_printf(out, "<tr><th>%s</th><td>", x->key);
			if (x->is_string)
				bad |= web_printf(out, "%s", x->text);
			else
				bad |= web_printf(out, "<code>%s</code>", x->text);
			bad |= buf_puts(out, "</td></tr>");
		}
		bad |= buf_puts(out, "</table></div>");
	}
	web_meta_free(&meta);
	bad |= buf_puts(out,
	                "<h2>Ranks</h2><div class=\"scroll\"><table class=\"list\" id=\"logs\">"
	                "<thead><tr>"
	                "<th>Rank</th><th>File</th><th>Bytes</th><th>Items</th><th>Lines</th>"
	                "<th>Warnings</th><th>Raw log</th></tr></thead><tbody>");
	for (i = 0; i < run->n_logs; i++) {
		const struct store_log_view *l = &run->logs[i];

		bad |= web_printf(out,
		                  "<tr><td>%d</td><td>%s</td><td class=\"num\">%lld</td>"
		                  "<td class=\"num\">%lld %s</td><td class=\"num\">%lld</td>"
		                  "<td class=\"num\">%lld</td><td><a href=\"/runs/%lld/logs/%d\" "
		                  "download>download</a></td></tr>",
		                  l->rank, l->filename, (long long)l->bytes, (long long)l->n_items,
		                  training ? "steps" : "ops", (long long)l->n_lines,
		                  (long long)l->n_warnings, id, l->rank);
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	for (i = 0; training && i < run->n_logs; i++) {
		/* training logs: source and precision (issue 14) */
		const char *prec = web_train_source_precision(run->logs[i].source);
		bad |= web_printf(out, "<p class=\"source\">Rank %d: %s, values %s%s</p>",
		                  run->logs[i].rank, web_train_source_label(run->logs[i].source),
		                  prec,
		                  !strcmp(prec, "printed") ? " (resolution: the printed decimals)"
		                  : !strcmp(prec, "float32")
		                          ? " (full precision; float64 for DT_DOUBLE scalars)"
		                          : " (full precision, as written)");
	}
	for (i = 0; !training && i < run->n_logs; i++)
		/* activation logs of another tool (issue 27): their format */
		if (run->logs[i].source && strcmp(run->logs[i].source, "stdout") != 0)
			bad |= web_printf(out, "<p class=\"source\">Rank %d: %s</p>",
			                  run->logs[i].rank,
			                  web_act_source_label(run->logs[i].source));
	for (i = 0; i < run->n_logs; i++) {
		const struct store_log_view *l = &run->logs[i];
		size_t j;

		if (l->has_excluded) {
			bad |= web_printf(out, "<p>Rank %d excluded ops dispatched: ", l->rank);
			if (!l->n_excluded)
				bad |= buf_puts(out, "<span class=\"chip\">(none)</span>");
			for (j = 0; j < l->n_excluded; j++)
				bad |= web_printf(out, "<span class=\"chip\">%s</span> ",
				                  l->excluded[j]);
			bad |= buf_puts(out, "</p>");
		}
		if (!l->n_warnings_listed)
			continue;
		bad |= web_printf(out,
		                  "<h3>Warnings, rank %d</h3><div class=\"scroll\"><table "
		                  "class=\"list warnings\">"
		                  "<thead><tr><th>Code</th><th>Line</th><th>Message</th>"
		                  "<th>Excerpt</th></tr></thead><tbody>",
		                  l->rank);
		for (j = 0; j < l->n_warnings_listed; j++) {
			const struct store_warning_view *w = &l->warnings[j];

			bad |= web_printf(out,
			                  "<tr><td><code>%s</code></td><td class=\"num\">%lld</td>"
			                  "<td>%s</td><td><code>%s</code></td></tr>",
			                  w->code, (long long)w->line, w->message, w->excerpt);
		}
		bad |= buf_puts(out, "</tbody></table></div>");
		if (l->n_warnings > (int64_t)l->n_warnings_listed)
			bad |= web_printf(
			        out, "<p class=\"muted\">%lld more not listed.</p>",
			        (long long)(l->n_warnings - (int64_t)l->n_warnings_listed));
	}
	if (n_steps && steps[0].n_steps) {
		bad |= buf_puts(out, "<h2>Charts</h2>");
		bad |= run_charts(out, steps, n_steps);
	}
	bad |= web_printf(out,
	                  "<p class=\"muted\">API: <a href=\"/runs/%lld\">JSON</a> &middot; <a "
	                  "class=\"delete\" href=\"/ui/runs/%lld/delete\">Delete this run"
	                  "&hellip;</a></p>",
	                  id, id);
	bad |= web_page_end(out, WEB_SERVER);
	buf_reset(&title);
	return bad ? -1 : 0;
}

int web_comparison_pending(struct buf *out, const struct store_comparison *cmp)
{
	const char *st = cmp->status;
	long long id = (long long)cmp->id;
	int failed = !strcmp(st, "failed");
	struct web_run_ref ra = {(long long)cmp->baseline_id,
	                         cmp->baseline ? cmp->baseline->name : NULL, cmp->baseline != NULL};
	struct web_run_ref rb = {(long long)cmp->candidate_id,
	                         cmp->candidate ? cmp->candidate->name : NULL,
	                         cmp->candidate != NULL};
	struct buf title = BUF_INIT;
	int bad = 0;

	buf_printf(&title, "#%lld %s \xe2\x80\x94 comparison \xe2\x80\x94 parity", id,
	           st[0] ? st : "pending");
	bad |= web_page_begin(out, WEB_SERVER, title.data, failed ? 0 : 2);
	bad |= web_printf(out, "<h1>Comparison #%lld</h1>", id);
	bad |= web_runs_line_of(out, &ra, &rb, cmp->finished_at, WEB_SERVER);
	bad |= web_printf(out, "<section class=\"state %s\" id=\"state\" data-status=\"%s\">",
	                  failed ? "v-error" : "v-running", st);
	bad |= web_badge(out, st);
	if (failed) {
		bad |= web_printf(out,
		                  "<p>The comparison failed: <span class=\"errmsg\">%s</span></p>",
		                  cmp->error ? cmp->error : "unknown error");
	} else if (!strcmp(st, "running")) {
		bad |= web_printf(out,
		                  "<p>Computing since %s&hellip; this page refreshes itself "
		                  "until it is done.</p><progress></progress>",
		                  cmp->started_at ? cmp->started_at : "now");
	} else {
		bad |= web_printf(out,
		                  "<p>Queued at %s; waiting for a worker&hellip; this page "
		                  "refreshes itself.</p><progress></progress>",
		                  cmp->created_at);
	}
	bad |= buf_puts(out, "</section>");
	bad |= web_page_end(out, WEB_SERVER);
	buf_reset(&title);
	return bad ? -1 : 0;
}
