/* h_steps.c - GET /comparisons/{id}/steps (paged JSON) and steps.csv
 * (streamed) of a finished training comparison. */
#include <stdio.h>
#include <string.h>

#include "json_train.h"
#include "api.h"
#include "views.h"

/* The comparison if it is a finished training one; else replies. */
static json_t *training_comparison_or_reply(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return NULL;
	json_t *c = srv_comparison_doc(db, r->id, NULL);
	if (!c) {
		srv_reply_error(r, 404, "not_found", "no comparison %lld", (long long)r->id);
		return NULL;
	}
	const char *kind = json_string_value(json_object_get(c, "kind"));
	if (!kind || strcmp(kind, "training")) {
		srv_reply_error(r, 400, "wrong_kind",
		                "comparison %lld is not a training comparison", (long long)r->id);
		json_decref(c);
		return NULL;
	}
	return c;
}

int srv_h_comparison_steps(struct srv_req *r)
{
	long long limit, rank;
	const char *cursor;
	if (srv_page_params_or_reply(r, 100, &limit, &cursor) < 0 ||
	    srv_query_int_or_reply(r, "rank", 0, 1000000, -1, &rank) < 0)
		return MHD_YES;
	json_t *c = training_comparison_or_reply(r);
	if (!c)
		return MHD_YES;
	json_decref(c);
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
	json_t *c = training_comparison_or_reply(r);
	if (!c)
		return MHD_YES;
	int rc = srv_steps_csv_reply(r, c);
	json_decref(c);
	return rc;
}
