/* forms.c - form posts answered for a browser, the list pages and the
 * delete confirmations (contract in http.h). */
#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "store.h"
#include "web.h"
#include "ui.h"

#define LIST_PAGE 50

/* ---- list pages ------------------------------------------------------------ */

static const char *qs(struct srv_req *r, const char *name)
{
	const char *v = srv_query(r, name);
	return v && *v ? v : NULL;
}

/* the store's refusal of a filter or cursor, as a page */
static int list_error(struct srv_req *r, struct store *db, int rc)
{
	struct buf b = BUF_INIT;
	unsigned status = rc == STORE_BAD_CURSOR || rc == STORE_INVALID ? 400 : 500;
	web_form_error(&b, status, status == 400 ? "bad_parameter" : "database", store_errmsg(db),
	               srv_form_back(r));
	return srv_reply_html(r, status, &b);
}

int srv_ui_runs(struct srv_req *r)
{
	struct web_list_query q = {qs(r, "q"), qs(r, "kind"), NULL, NULL, 0, 0};
	struct store_list_filter f = {q.q, q.kind, NULL, NULL, 0};
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_page page;
	struct buf b = BUF_INIT;
	int rc = store_runs_find(db, &f, LIST_PAGE, qs(r, "cursor"), &page);
	if (rc >= 0 && web_runs_list(&b, &page, &q) < 0)
		rc = STORE_ERROR;
	store_run_page_free(&page);
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return srv_reply_html(r, 200, &b);
}

int srv_ui_comparisons(struct srv_req *r)
{
	struct web_list_query q = {qs(r, "q"), qs(r, "kind"), qs(r, "verdict"), qs(r, "status"), 0,
	                           0};
	const char *pre_b = qs(r, "baseline"), *pre_c = qs(r, "candidate");
	q.baseline = pre_b ? atoll(pre_b) : 0; /* only preselects: any value is harmless */
	q.candidate = pre_c ? atoll(pre_c) : 0;
	struct store_list_filter f = {q.q, q.kind, q.verdict, q.status, 0};
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_comparison_page page;
	struct store_run_page runs;
	struct buf b = BUF_INIT;
	memset(&runs, 0, sizeof runs);
	int rc = store_comparisons_find(db, &f, LIST_PAGE, qs(r, "cursor"), &page);
	if (rc >= 0)
		rc = store_runs_list(db, NULL, NULL, 200, NULL, &runs);
	if (rc >= 0 && web_comparisons_list(&b, &page, &q, &runs) < 0)
		rc = STORE_ERROR;
	store_comparison_page_free(&page);
	store_run_page_free(&runs);
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return srv_reply_html(r, 200, &b);
}

/* ---- deletes ---------------------------------------------------------------- */

int srv_ui_run_delete_page(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_view v;
	struct store_comparison_page using;
	struct store_list_filter f = {NULL, NULL, NULL, NULL, r->id};
	struct buf b = BUF_INIT;
	memset(&using, 0, sizeof using);
	int rc = store_run_get(db, r->id, &v);
	if (rc >= 0)
		rc = store_comparisons_find(db, &f, 200, NULL, &using);
	if (rc >= 0 && web_delete_confirm(&b, "run", (long long)r->id, v.run.name, &using) < 0)
		rc = STORE_ERROR;
	store_run_view_free(&v);
	store_comparison_page_free(&using);
	if (rc == STORE_NOT_FOUND) {
		web_form_error(&b, 404, "not_found", "No such run.", "/ui/runs");
		return srv_reply_html(r, 404, &b);
	}
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return srv_reply_html(r, 200, &b);
}

int srv_ui_comparison_delete_page(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_comparison_view v;
	struct buf b = BUF_INIT;
	int rc = store_comparison_get(db, r->id, &v);
	if (rc >= 0 && web_delete_confirm(&b, "comparison", (long long)r->id, v.cmp.name, NULL) < 0)
		rc = STORE_ERROR;
	store_comparison_view_free(&v);
	if (rc == STORE_NOT_FOUND) {
		web_form_error(&b, 404, "not_found", "No such comparison.", "/ui/comparisons");
		return srv_reply_html(r, 404, &b);
	}
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return srv_reply_html(r, 200, &b);
}
