/* h_steps.c - GET /comparisons/{id}/steps (paged JSON) and steps.csv
 * (streamed) of a training comparison. */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "json_train.h"
#include "views.h"

/* The comparison into *v (free it whatever the result) if it is a
 * training one: 0; else replies and -1. */
static int training_comparison_or_reply(struct srv_req *r, struct store_comparison_view *v)
{
	memset(v, 0, sizeof *v);
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return -1;
	if (store_comparison_get(db, r->id, v) < 0) {
		srv_reply_error(r, 404, "not_found", "no comparison %lld", (long long)r->id);
		return -1;
	}
	if (strcmp(v->cmp.kind, "training")) {
		srv_reply_error(r, 400, "wrong_kind",
		                "comparison %lld is not a training comparison", (long long)r->id);
		return -1;
	}
	return 0;
}

int srv_h_comparison_steps(struct srv_req *r)
{
	long long limit, rank;
	const char *cursor;
	if (srv_page_params_or_reply(r, 100, &limit, &cursor) < 0 ||
	    srv_query_int_or_reply(r, "rank", 0, 1000000, -1, &rank) < 0)
		return MHD_YES;
	struct store_comparison_view v;
	int bad = training_comparison_or_reply(r, &v);
	store_comparison_view_free(&v);
	if (bad)
		return MHD_YES;
	struct store_step_page page;
	int rc = store_comparison_steps_list(r->db, r->id, (int)rank, (int)limit, cursor, &page);
	if (rc < 0) {
		store_step_page_free(&page);
		return srv_reply_store_error(r, rc);
	}
	json_t *out = web_train_steps_page_json(&page);
	store_step_page_free(&page);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	return srv_reply_json(r, 200, out);
}

int srv_h_comparison_steps_csv(struct srv_req *r)
{
	struct store_comparison_view v;
	if (training_comparison_or_reply(r, &v) < 0) {
		store_comparison_view_free(&v);
		return MHD_YES;
	}
	int rc = srv_steps_csv_reply(r, &v.cmp);
	store_comparison_view_free(&v);
	return rc;
}
