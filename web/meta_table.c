/* meta_table.c - the baseline-vs-candidate metadata table of comparison
 * pages and reports (issue 16): the two runs' free-form meta objects
 * flattened to dotted keys ("env.torch"), one row per key of either side
 * in key order, rows whose values differ (or that one side lacks) marked
 * class="differs".  Bounded: at most WEB_META_KEYS keys a side (deeper
 * or later keys are counted and named in a note), values clipped to
 * WEB_META_VALUE bytes on a UTF-8 boundary.  Every key and value goes
 * through web_printf's escaping %s.  The rows come typed from
 * web/json_meta.c (web_meta_rows_build), which the PDF reports
 * (web/pdf_report.c) use too. */
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

static int cell(struct buf *out, const char *val)
{
	if (!val)
		return buf_puts(out, "<td class=\"missing\">&mdash;</td>");
	return web_printf(out, "<td>%s</td>", val);
}

int web_meta_table(struct buf *out, const char *meta_a, const char *meta_b)
{
	struct web_meta_rows m;
	int bad = 0;
	if (web_meta_rows_build(meta_a, meta_b, &m) < 0)
		return -1;
	if (!m.n)
		goto done;
	size_t n_diff = m.n_diff;
	bad |= web_printf(out,
	                  "<h2>Metadata</h2><p class=\"muted\">%zu key%s differ%s between "
	                  "baseline and candidate.</p>",
	                  n_diff, n_diff == 1 ? "" : "s", n_diff == 1 ? "s" : "");
	bad |= buf_puts(out, "<table class=\"kv meta\" id=\"meta\"><thead><tr><th>Key</th>"
	                     "<th>Baseline (A)</th><th>Candidate (B)</th></tr></thead><tbody>");
	for (size_t i = 0; i < m.n; i++) {
		const struct web_meta_row *r = &m.rows[i];
		bad |= web_printf(
		        out, r->differs ? "<tr class=\"differs\"><th>%s</th>" : "<tr><th>%s</th>",
		        r->key);
		bad |= cell(out, r->a);
		bad |= cell(out, r->b);
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</tbody></table>");
	if (m.dropped)
		bad |= web_printf(
		        out, "<p class=\"muted\">%zu more key%s not shown (over %d a run).</p>",
		        m.dropped, m.dropped == 1 ? "" : "s", WEB_META_KEYS);
done:
	web_meta_rows_free(&m);
	return bad ? -1 : 0;
}

/* "<what> NAME": a link to prefix + NAME in server mode, bold otherwise. */
static int label(struct buf *out, const char *what, const char *prefix, const char *name,
                 enum web_mode mode)
{
	if (mode == WEB_SERVER)
		return web_printf(out, "%s <a href=\"%s%s\">%s</a>", what, prefix, name, name);
	return web_printf(out, "%s <b>%s</b>", what, name);
}

int web_cmp_labels(struct buf *out, const char *baseline_name, const char *suite,
                   const char *config, enum web_mode mode)
{
	int bad = 0;
	if (!baseline_name && !suite)
		return 0;
	bad |= buf_puts(out, "<p class=\"labels\" id=\"labels\">");
	if (baseline_name)
		bad |= label(out, "Golden baseline", "/ui/baselines/", baseline_name, mode);
	if (baseline_name && suite)
		bad |= buf_puts(out, " &middot; ");
	if (suite)
		bad |= label(out, "Suite", "/ui/suites/", suite, mode);
	if (suite && config)
		bad |= web_printf(out, ", config <b>%s</b>", config);
	bad |= buf_puts(out, "</p>");
	return bad ? -1 : 0;
}
