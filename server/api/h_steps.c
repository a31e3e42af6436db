/* h_steps.c - GET /comparisons/{id}/steps (paged JSON) and steps.csv
 * (streamed) of a training comparison. */
#include <stdio.h>
#include <stdlib.h>
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

/* A page of a noise result's steps (web_noise_steps_page_json). */
static int noise_steps_reply(struct srv_req *r, const struct matcher_noise_result *res,
                             size_t limit, const char *cursor)
{
	size_t from = 0;
	if (cursor) {
		char *end;
		unsigned long long v = strtoull(cursor, &end, 10);
		if (!*cursor || *end || v > res->n_steps)
			return srv_reply_error(r, 400, "bad_parameter",
			                       "cursor is not a cursor "
			                       "of this list");
		from = (size_t)v;
	}
	char next[32] = "";
	if (from + limit < res->n_steps)
		snprintf(next, sizeof next, "%zu", from + limit);
	json_t *out = web_noise_steps_page_json(res, from, limit, next);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	return srv_reply_json(r, 200, out);
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
	if (!bad && v.noise) {
		/* a noise comparison: its steps come with the typed result; the
		 * cursor is the index of the next step (rank does not apply) */
		int rc = noise_steps_reply(r, v.noise, (size_t)limit, cursor);
		store_comparison_view_free(&v);
		return rc;
	}
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
