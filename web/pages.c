/* pages.c - the small pages: home (recent comparisons and runs, or the
 * getting-started commands), one run (metadata, ranks, warnings, raw log
 * downloads, loss/grad_norm charts for training runs) and the state page
 * of a comparison that is queued, running (refreshes itself) or failed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

static int cmp_list(struct buf *out, json_t *list)
{
	json_t *items = json_object_get(list, "comparisons"), *c;
	size_t i;
	int bad = 0;

	bad |= buf_puts(out, "<table class=\"list\" id=\"comparisons\"><thead><tr><th>#</th>"
	                     "<th>Verdict</th><th>Kind</th><th>Baseline</th><th>Candidate</th>"
	                     "<th>Created</th></tr></thead><tbody>");
	json_array_foreach(items, i, c)
	{
		json_t *runs = json_object_get(c, "runs");
		json_t *ra = json_object_get(runs, "baseline"),
		       *rb = json_object_get(runs, "candidate");
		const char *st = wj_str(c, "status");
		long long id = wj_int(c, "id", 0);

		bad |= web_printf(
		        out, "<tr><td><a href=\"/ui/comparisons/%lld\">#%lld</a></td><td>", id, id);
		bad |= web_badge(out, st && !strcmp(st, "done") ? wj_str(c, "verdict") : st);
		bad |= web_printf(out,
		                  "</td><td>%s</td><td><a href=\"/ui/runs/%lld\">%s</a></td>"
		                  "<td><a href=\"/ui/runs/%lld\">%s</a></td><td>%s</td></tr>",
		                  wj_str(c, "kind"), wj_int(ra, "id", 0),
		                  wj_str(ra, "name") && *wj_str(ra, "name") ? wj_str(ra, "name")
		                                                            : "(unnamed)",
		                  wj_int(rb, "id", 0),
		                  wj_str(rb, "name") && *wj_str(rb, "name") ? wj_str(rb, "name")
		                                                            : "(unnamed)",
		                  wj_str(c, "created_at"));
	}
	bad |= buf_puts(out, "</tbody></table>");
	return bad ? -1 : 0;
}

static int run_list(struct buf *out, json_t *list)
{
	json_t *items = json_object_get(list, "runs"), *r;
	size_t i;
	int bad = 0;

	bad |= buf_puts(out, "<table class=\"list\" id=\"runs\"><thead><tr><th>#</th><th>Name</th>"
	                     "<th>Kind</th><th>Ranks</th><th>Commit</th><th>Created</th></tr>"
	                     "</thead><tbody>");
	json_array_foreach(items, i, r)
	{
		json_t *meta = json_object_get(r, "meta");
		long long id = wj_int(r, "id", 0);

		bad |= web_printf(out,
		                  "<tr><td><a href=\"/ui/runs/%lld\">#%lld</a></td><td><a "
		                  "href=\"/ui/runs/%lld\">%s</a></td><td>%s</td><td>%zu</td>"
		                  "<td><code>%s</code></td><td>%s</td></tr>",
		                  id, id, id,
		                  wj_str(r, "name") && *wj_str(r, "name") ? wj_str(r, "name")
		                                                          : "(unnamed)",
		                  wj_str(r, "kind"), json_array_size(json_object_get(r, "logs")),
		                  wj_str(meta, "commit"), wj_str(r, "created_at"));
	}
	bad |= buf_puts(out, "</tbody></table>");
	return bad ? -1 : 0;
}

int web_home(struct buf *out, json_t *comparisons, json_t *runs, const char *base_url)
{
	size_t nc = json_array_size(json_object_get(comparisons, "comparisons"));
	size_t nr = json_array_size(json_object_get(runs, "runs"));
	const char *base = base_url && *base_url ? base_url : "http://localhost:8080";
	int bad = 0;

	bad |= web_page_begin(out, WEB_SERVER, "parity \xe2\x80\x94 compare two training runs", 0);
	bad |= buf_puts(out, "<h1>parity</h1><p class=\"lead\">Compare two ML training runs: "
	                     "per-op activation logs or training stdout.</p>");
	if (!nc && !nr) {
		bad |= web_printf(
		        out,
		        "<section class=\"empty-state\" id=\"empty\"><h2>Get started</h2>"
		        "<p>Upload two logs, then ask for a comparison:</p>"
		        "<pre><code>curl -F log=@runA/rank_0_activations.log -F name=eager "
		        "%s/runs\ncurl -F log=@runB/rank_0_activations.log -F name=traced "
		        "%s/runs</code></pre><pre><code>curl -H 'Content-Type: application/json' "
		        "-d '{\"baseline\":1,\"candidate\":2}' %s/comparisons</code></pre>"
		        "<p>The reply holds the URL of the comparison page.</p></section>",
		        base, base, base);
	}
	if (nc) {
		bad |= buf_puts(out, "<h2>Recent comparisons</h2>");
		bad |= cmp_list(out, comparisons);
	}
	if (nr) {
		bad |= buf_puts(out, "<h2>Recent runs</h2>");
		bad |= run_list(out, runs);
	}
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

/* Training charts of one run: one series per metric. */
static int run_charts(struct buf *out, json_t *steps)
{
	static const char *const metrics[] = {"loss", "grad_norm"};
	size_t n = json_array_size(steps), i, k;
	double *x = malloc((n ? n : 1) * sizeof *x), *y = malloc((n ? n : 1) * sizeof *y);
	int bad = 0;

	if (!x || !y) {
		free(x);
		free(y);
		return -1;
	}
	for (k = 0; k < 2; k++) {
		struct web_series s;
		struct web_chart c;
		size_t m = 0;
		json_t *row;

		json_array_foreach(steps, i, row)
		{
			json_t *v = json_object_get(json_object_get(row, "metrics"), metrics[k]);
			int missing;
			double d;

			if (!v)
				continue;
			d = wj_num(json_object_get(v, "value"), &missing);
			if (missing) {
				const char *t = wj_str(v, "text");

				d = t && (!strcmp(t, "nan") || !strcmp(t, "-nan")) ? NAN
				    : t && t[0] == '-'                             ? -INFINITY
				                                                   : INFINITY;
			}
			x[m] = (double)wj_int(row, "step", 0);
			y[m++] = d;
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

int web_run(struct buf *out, json_t *run, json_t *steps)
{
	json_t *meta = json_object_get(run, "meta"), *logs = json_object_get(run, "logs"), *l, *v;
	struct buf title = BUF_INIT;
	long long id = wj_int(run, "id", 0);
	const char *name = wj_str(run, "name"), *k;
	size_t i;
	int bad = 0;

	buf_printf(&title, "Run #%lld %s \xe2\x80\x94 parity", id, name ? name : "");
	bad |= web_page_begin(out, WEB_SERVER, title.data, 0);
	bad |= web_printf(out, "<h1>Run #%lld <span class=\"name\">%s</span></h1>", id,
	                  name && *name ? name : "(unnamed)");
	bad |= web_printf(out,
	                  "<p><span class=\"chip\">%s</span> <span class=\"muted\">created "
	                  "%s</span></p>",
	                  wj_str(run, "kind"), wj_str(run, "created_at"));
	if (json_object_size(meta)) {
		bad |= buf_puts(out, "<h2>Metadata</h2><table class=\"kv meta\">");
		json_object_foreach(meta, k, v)
		{
			bad |= web_printf(out, "<tr><th>%s</th><td>", k);
			if (json_is_string(v)) {
				bad |= web_printf(out, "%s", json_string_value(v));
			} else {
				char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
				                                JSON_REAL_PRECISION(15));

				bad |= web_printf(out, "<code>%s</code>", t ? t : "");
				free(t);
			}
			bad |= buf_puts(out, "</td></tr>");
		}
		bad |= buf_puts(out, "</table>");
	}
	bad |= buf_puts(out, "<h2>Ranks</h2><table class=\"list\" id=\"logs\"><thead><tr>"
	                     "<th>Rank</th><th>File</th><th>Bytes</th><th>Items</th><th>Lines</th>"
	                     "<th>Warnings</th><th>Raw log</th></tr></thead><tbody>");
	json_array_foreach(logs, i, l)
	{
		long long items = json_is_integer(json_object_get(l, "entries"))
		                          ? wj_int(l, "entries", 0)
		                          : wj_int(l, "steps", 0);

		bad |= web_printf(out,
		                  "<tr><td>%lld</td><td>%s</td><td class=\"num\">%lld</td>"
		                  "<td class=\"num\">%lld %s</td><td class=\"num\">%lld</td>"
		                  "<td class=\"num\">%lld</td><td><a href=\"/runs/%lld/logs/%lld\" "
		                  "download>download</a></td></tr>",
		                  wj_int(l, "rank", 0), wj_str(l, "filename"),
		                  wj_int(l, "bytes", 0), items,
		                  json_is_integer(json_object_get(l, "entries")) ? "ops" : "steps",
		                  wj_int(l, "lines", 0), wj_int(l, "n_warnings", 0), id,
		                  wj_int(l, "rank", 0));
	}
	bad |= buf_puts(out, "</tbody></table>");
	json_array_foreach(logs, i, l)
	{
		/* training logs: source and precision (issue 14) */
		const char *src = json_string_value(json_object_get(l, "source"));
		const char *prec = json_string_value(json_object_get(l, "precision"));
		if (src && prec)
			bad |= web_printf(
			        out, "<p class=\"source\">Rank %lld: %s, values %s%s</p>",
			        wj_int(l, "rank", 0),
			        !strcmp(src, "tfevents")   ? "TensorBoard event file"
			        : !strcmp(src, "lossfile") ? "golden loss file"
			                                   : "stdout log",
			        prec,
			        !strcmp(prec, "printed") ? " (resolution: the printed decimals)"
			        : !strcmp(prec, "float32")
			                ? " (full precision; float64 for DT_DOUBLE scalars)"
			                : " (full precision, as written)");
	}
	json_array_foreach(logs, i, l)
	{
		json_t *ws = json_object_get(l, "warnings"), *w;
		json_t *ex = json_object_get(l, "excluded_ops");
		size_t j;

		if (json_is_array(ex)) {
			bad |= web_printf(out, "<p>Rank %lld excluded ops dispatched: ",
			                  wj_int(l, "rank", 0));
			if (!json_array_size(ex))
				bad |= buf_puts(out, "<span class=\"chip\">(none)</span>");
			json_array_foreach(ex, j, w) bad |= web_printf(
			        out, "<span class=\"chip\">%s</span> ", json_string_value(w));
			bad |= buf_puts(out, "</p>");
		}
		if (!json_array_size(ws))
			continue;
		bad |= web_printf(out,
		                  "<h3>Warnings, rank %lld</h3><table class=\"list warnings\">"
		                  "<thead><tr><th>Code</th><th>Line</th><th>Message</th>"
		                  "<th>Excerpt</th></tr></thead><tbody>",
		                  wj_int(l, "rank", 0));
		json_array_foreach(ws, j, w) bad |=
		        web_printf(out,
		                   "<tr><td><code>%s</code></td><td class=\"num\">%lld</td>"
		                   "<td>%s</td><td><code>%s</code></td></tr>",
		                   wj_str(w, "code"), wj_int(w, "line", 0), wj_str(w, "message"),
		                   wj_str(w, "excerpt"));
		bad |= buf_puts(out, "</tbody></table>");
		if (wj_int(l, "n_warnings", 0) > (long long)json_array_size(ws))
			bad |= web_printf(out, "<p class=\"muted\">%lld more not listed.</p>",
			                  wj_int(l, "n_warnings", 0) -
			                          (long long)json_array_size(ws));
	}
	if (json_array_size(steps)) {
		bad |= buf_puts(out, "<h2>Charts</h2>");
		bad |= run_charts(out, steps);
	}
	bad |= web_printf(out, "<p class=\"muted\">API: <a href=\"/runs/%lld\">JSON</a></p>", id);
	bad |= web_page_end(out, WEB_SERVER);
	buf_reset(&title);
	return bad ? -1 : 0;
}

int web_comparison_pending(struct buf *out, json_t *cmp)
{
	const char *st = wj_str(cmp, "status");
	long long id = wj_int(cmp, "id", 0);
	int failed = st && !strcmp(st, "failed");
	struct buf title = BUF_INIT;
	int bad = 0;

	buf_printf(&title, "#%lld %s \xe2\x80\x94 comparison \xe2\x80\x94 parity", id,
	           st ? st : "pending");
	bad |= web_page_begin(out, WEB_SERVER, title.data, failed ? 0 : 2);
	bad |= web_printf(out, "<h1>Comparison #%lld</h1>", id);
	bad |= web_runs_line(out, cmp, WEB_SERVER);
	bad |= web_printf(out, "<section class=\"state %s\" id=\"state\" data-status=\"%s\">",
	                  failed ? "v-error" : "v-running", st ? st : "");
	bad |= web_badge(out, st);
	if (failed) {
		bad |= web_printf(out,
		                  "<p>The comparison failed: <span class=\"errmsg\">%s</span></p>",
		                  wj_str(cmp, "error") ? wj_str(cmp, "error") : "unknown error");
	} else if (st && !strcmp(st, "running")) {
		bad |= web_printf(out,
		                  "<p>Computing since %s&hellip; this page refreshes itself "
		                  "until it is done.</p><progress></progress>",
		                  wj_str(cmp, "started_at") ? wj_str(cmp, "started_at") : "now");
	} else {
		bad |= web_printf(out,
		                  "<p>Queued at %s; waiting for a worker&hellip; this page "
		                  "refreshes itself.</p><progress></progress>",
		                  wj_str(cmp, "created_at"));
	}
	bad |= buf_puts(out, "</section>");
	bad |= web_page_end(out, WEB_SERVER);
	buf_reset(&title);
	return bad ? -1 : 0;
}
