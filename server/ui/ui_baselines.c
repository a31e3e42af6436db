/* ui_baselines.c - the pages of golden baselines and suites (issue 16):
 * GET /ui/suites/{suite}, the config matrix, and GET /ui/baselines/{name},
 * the comparisons made against a baseline over time with a chart, and
 * their list pages GET /ui/suites and GET /ui/baselines (issue 25).
 * Names come from the URL and are validated here (a 400 page). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "web.h"
#include "ui.h"
#include "json_views.h"

int srv_ui_suite(struct srv_req *r)
{
	char suite[STORE_LABEL_MAX + 2];
	srv_url_tail(r, "/ui/suites/", suite, sizeof suite);
	if (!store_label_ok(suite))
		return srv_ui_page_error(r, 400, "Not a suite name.");
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	struct store_suite_view v;
	int rc = store_suite_get(db, suite, &v);
	if (rc < 0) {
		store_suite_view_free(&v);
		return srv_ui_page_error(r, rc == STORE_NOT_FOUND ? 404 : 500, store_errmsg(db));
	}
	struct buf b = BUF_INIT;
	rc = web_suite_page(&b, suite, &v, web_suite_verdict(&v));
	store_suite_view_free(&v);
	if (rc < 0) {
		buf_reset(&b);
		return srv_ui_page_error(r, 500, "Out of memory.");
	}
	return srv_ui_page_reply(r, 200, &b);
}

int srv_ui_baseline(struct srv_req *r)
{
	char name[STORE_BASELINE_NAME_MAX + 2];
	srv_url_tail(r, "/ui/baselines/", name, sizeof name);
	if (!store_baseline_name_ok(name))
		return srv_ui_page_error(r, 400, "Not a baseline name.");
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	struct store_baseline_view v;
	struct store_comparison_page cmps;
	memset(&cmps, 0, sizeof cmps);
	int rc = store_baseline_get(db, name, &v);
	if (rc == 0)
		rc = store_baseline_comparisons(db, name, WEB_BASELINE_HISTORY_MAX,
		                                srv_query(r, "cursor"), &cmps);
	if (rc < 0) {
		int status = rc == STORE_NOT_FOUND ? 404 : rc == STORE_BAD_CURSOR ? 400 : 500;
		store_baseline_view_free(&v);
		store_comparison_page_free(&cmps);
		return srv_ui_page_error(r, (unsigned)status, store_errmsg(db));
	}
	/* the typed results of the finished training comparisons listed (at
	 * most WEB_BASELINE_HISTORY_MAX reads of one comparison each) */
	size_t n = cmps.n_cmps;
	struct store_comparison_view *views = calloc(n ? n : 1, sizeof *views);
	const struct store_train_result **results = calloc(n ? n : 1, sizeof *results);
	for (size_t i = 0; views && results && i < n; i++) {
		const struct store_comparison *c = &cmps.cmps[i];
		if (strcmp(c->kind, "training") != 0 || strcmp(c->status, "done") != 0)
			continue;
		if (store_comparison_get(db, c->id, &views[i]) == 0)
			results[i] = views[i].cmp.train;
	}
	struct buf b = BUF_INIT;
	rc = views && results ? web_baseline_page(&b, &v.b, &cmps, results) : -1;
	for (size_t i = 0; views && i < n; i++)
		store_comparison_view_free(&views[i]);
	free(views);
	free(results);
	store_baseline_view_free(&v);
	store_comparison_page_free(&cmps);
	if (rc < 0) {
		buf_reset(&b);
		return srv_ui_page_error(r, 500, "Out of memory.");
	}
	return srv_ui_page_reply(r, 200, &b);
}

int srv_ui_suites(struct srv_req *r)
{
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	struct store_suite_list l;
	struct buf b = BUF_INIT;
	int rc = store_suites_list(db, &l);
	if (rc == 0)
		rc = web_suites_page(&b, &l);
	store_suite_list_free(&l);
	if (rc < 0) {
		buf_reset(&b);
		return srv_ui_page_error(r, 500, store_errmsg(db));
	}
	return srv_ui_page_reply(r, 200, &b);
}

#define BASELINES_PAGE 200

int srv_ui_baselines(struct srv_req *r)
{
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	struct store_baseline_page page;
	struct buf b = BUF_INIT;
	int rc = store_baselines_list(db, BASELINES_PAGE, srv_query(r, "cursor"), &page);
	if (rc == 0)
		rc = web_baselines_page(&b, &page);
	store_baseline_page_free(&page);
	if (rc < 0) {
		buf_reset(&b);
		return srv_ui_page_error(r, rc == STORE_BAD_CURSOR ? 400 : 500, store_errmsg(db));
	}
	return srv_ui_page_reply(r, 200, &b);
}
