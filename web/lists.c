/* lists.c - the run and comparison tables (home page, /ui/runs,
 * /ui/comparisons, the delete confirmation) and the two list pages: a
 * search box (?q= over names, commit, branch), filters (kind; verdict and
 * status for comparisons), one page of rows and a link to the next page
 * (the store's cursor, the filters kept).  Everything lives in the URL:
 * the pages work without JavaScript.  The tables are class "sortable":
 * parity.js turns their headers into sort buttons (aria-sort). */
#include <string.h>

#include "json_views.h"
#include "web_int.h"

const char *web_cmp_reason(const struct store_comparison *c)
{
	return c->first_reason ? c->first_reason : c->error ? c->error : "";
}

const char *web_verdict_lane(const char *verdict, const char *lane, char *out, size_t cap)
{
	const char *t = web_lane_text(lane);
	snprintf(out, cap, "%s%s%s%s", verdict ? verdict : "", t ? " (" : "", t ? t : "",
	         t ? ")" : "");
	return out;
}

const char *web_verdict_text(const struct store_comparison *c, char *out, size_t cap)
{
	return web_verdict_lane(c->verdict, c->lane, out, cap);
}

static const char *run_name(const struct store_run *r)
{
	return r && *r->name ? r->name : "(unnamed)";
}

int web_cmp_table(struct buf *out, const struct store_comparison_page *list, int actions)
{
	int bad = 0;

	bad |= buf_puts(out,
	                "<div class=\"scroll\"><table class=\"list sortable\" id=\"comparisons\">"
	                "<thead><tr><th>#</th><th>Verdict</th><th>Name</th><th>Kind</th>"
	                "<th>Baseline</th><th>Candidate</th><th>First reason</th>"
	                "<th>Created</th>");
	if (actions)
		bad |= buf_puts(out, "<th></th>");
	bad |= buf_puts(out, "</tr></thead><tbody>");
	for (size_t i = 0; i < list->n_cmps; i++) {
		const struct store_comparison *c = &list->cmps[i];
		long long id = (long long)c->id;

		bad |= web_printf(
		        out, "<tr><td><a href=\"/ui/comparisons/%lld\">#%lld</a></td><td>", id, id);
		bad |= web_badge(out, !strcmp(c->status, "done") ? c->verdict : c->status);
		bad |= web_printf(out,
		                  "</td><td class=\"name\">%s</td><td>%s</td><td><a "
		                  "href=\"/ui/runs/%lld\">%s</a></td><td><a href=\"/ui/runs/%lld\">"
		                  "%s</a></td><td class=\"reason\">%s</td><td>%s</td>",
		                  c->name ? c->name : "", c->kind, (long long)c->baseline_id,
		                  run_name(c->baseline), (long long)c->candidate_id,
		                  run_name(c->candidate), web_cmp_reason(c), c->created_at);
		if (actions)
			bad |= web_printf(
			        out,
			        "<td><a class=\"rerun\" href=\"/ui/comparisons?baseline=%lld&amp;"
			        "candidate=%lld#compare\">re-run</a> <a class=\"delete\" "
			        "href=\"/ui/comparisons/%lld/delete\">delete</a></td>",
			        (long long)c->baseline_id, (long long)c->candidate_id, id);
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

int web_run_table(struct buf *out, const struct store_run_page *list, int actions)
{
	int bad = 0;

	bad |= buf_puts(
	        out, "<div class=\"scroll\"><table class=\"list sortable\" id=\"runs\"><thead><tr>"
	             "<th>#</th><th>Name</th><th>Kind</th><th>Ranks</th><th>Commit</th>"
	             "<th>Branch</th><th>Created</th>");
	if (actions)
		bad |= buf_puts(out, "<th></th>");
	bad |= buf_puts(out, "</tr></thead><tbody>");
	for (size_t i = 0; i < list->n_runs; i++) {
		const struct store_run *r = &list->runs[i];
		struct web_meta meta;
		long long id = (long long)r->id;

		bad |= web_meta_read(r->meta_json, &meta) < 0;
		bad |= web_printf(out,
		                  "<tr><td><a href=\"/ui/runs/%lld\">#%lld</a></td><td><a "
		                  "href=\"/ui/runs/%lld\">%s</a></td><td>%s</td><td>%zu</td>"
		                  "<td><code>%s</code></td><td>%s</td><td>%s</td>",
		                  id, id, id, run_name(r), r->kind, r->n_logs,
		                  web_meta_str(&meta, "commit"), web_meta_str(&meta, "branch"),
		                  r->created_at);
		if (actions)
			bad |= web_printf(out,
			                  "<td><a class=\"delete\" href=\"/ui/runs/%lld/delete\">"
			                  "delete</a></td>",
			                  id);
		bad |= buf_puts(out, "</tr>");
		web_meta_free(&meta);
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

/* <option>s of one filter select: "" (any) then names; the current value
 * selected. */
static int filter_select(struct buf *out, const char *name, const char *label,
                         const char *const *values, const char *cur)
{
	int bad = web_printf(out,
	                     "<label for=\"f-%s\">%s</label><select id=\"f-%s\" name=\"%s\">"
	                     "<option value=\"\">any</option>",
	                     name, label, name, name);

	for (size_t i = 0; values[i]; i++)
		bad |= web_printf(out, "<option%s>%s</option>",
		                  cur && !strcmp(cur, values[i]) ? " selected" : "", values[i]);
	bad |= buf_puts(out, "</select>");
	return bad ? -1 : 0;
}

/* The search form and, past the rows, the next-page link keeping the
 * filters. */
static int search_form(struct buf *out, const char *action, const struct web_list_query *q,
                       int comparisons)
{
	static const char *const kinds[] = {"activation", "training", NULL};
	static const char *const verdicts[] = {"pass", "fail", "error", NULL};
	static const char *const statuses[] = {"queued", "running", "done", "failed", NULL};
	int bad = 0;

	bad |= web_printf(out,
	                  "<form id=\"search\" class=\"filters\" method=\"get\" action=\"%s\">"
	                  "<label for=\"f-q\">Search</label><input type=\"search\" id=\"f-q\" "
	                  "name=\"q\" value=\"%s\" placeholder=\"name, commit or branch\">",
	                  action, q->q ? q->q : "");
	bad |= filter_select(out, "kind", "Kind", kinds, q->kind);
	if (comparisons) {
		bad |= filter_select(out, "verdict", "Verdict", verdicts, q->verdict);
		bad |= filter_select(out, "status", "Status", statuses, q->status);
	}
	bad |= buf_puts(out, "<button type=\"submit\">Search</button></form>");
	return bad ? -1 : 0;
}

static int next_link(struct buf *out, const char *action, const struct web_list_query *q,
                     const char *cursor)
{
	struct buf href = BUF_INIT;
	const char *names[] = {"q", "kind", "verdict", "status"};
	const char *vals[] = {q->q, q->kind, q->verdict, q->status};
	int bad = 0;

	if (!cursor || !*cursor)
		return 0;
	bad |= buf_puts(&href, action);
	bad |= buf_puts(&href, "?cursor=");
	bad |= web_urlenc(&href, cursor);
	for (size_t i = 0; i < 4; i++) {
		if (!vals[i] || !*vals[i])
			continue;
		bad |= buf_printf(&href, "&%s=", names[i]);
		bad |= web_urlenc(&href, vals[i]);
	}
	bad |= web_printf(out,
	                  "<nav class=\"pager\"><a id=\"next\" rel=\"next\" href=\"%s\">Next "
	                  "page &rarr;</a></nav>",
	                  href.data);
	buf_reset(&href);
	return bad ? -1 : 0;
}

int web_runs_list(struct buf *out, const struct store_run_page *page,
                  const struct web_list_query *q)
{
	int bad = 0;

	bad |= web_page_begin(out, WEB_SERVER, "Runs \xe2\x80\x94 parity", 0);
	bad |= buf_puts(out, "<h1>Runs</h1>");
	bad |= search_form(out, "/ui/runs", q, 0);
	if (page->n_runs)
		bad |= web_run_table(out, page, 1);
	else
		bad |= buf_puts(out, "<p class=\"muted\" id=\"no-match\">No run matches.</p>");
	bad |= next_link(out, "/ui/runs", q, page->next_cursor);
	bad |= web_upload_form(out);
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}

int web_comparisons_list(struct buf *out, const struct store_comparison_page *page,
                         const struct web_list_query *q, const struct store_run_page *runs)
{
	int bad = 0;

	bad |= web_page_begin(out, WEB_SERVER, "Comparisons \xe2\x80\x94 parity", 0);
	bad |= buf_puts(out, "<h1>Comparisons</h1>");
	bad |= search_form(out, "/ui/comparisons", q, 1);
	if (page->n_cmps)
		bad |= web_cmp_table(out, page, 1);
	else
		bad |= buf_puts(out,
		                "<p class=\"muted\" id=\"no-match\">No comparison matches.</p>");
	bad |= next_link(out, "/ui/comparisons", q, page->next_cursor);
	bad |= web_compare_form(out, runs, q->baseline, q->candidate);
	bad |= web_page_end(out, WEB_SERVER);
	return bad ? -1 : 0;
}
