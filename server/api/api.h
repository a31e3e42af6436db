/* api.h - the API room of server/: the JSON/CSV/PNG/PDF handlers (h_*.c),
 * one file per resource.  Every handler follows the srv_handler contract
 * (http.h): it queues exactly one response on r->conn and returns
 * MHD_YES/MHD_NO.  The composition root (routes.c) names them in the
 * route table; no other room calls them.  Uses jobs, delivery, ingest,
 * views, http and base. */
#ifndef PARITY_SRV_API_H
#define PARITY_SRV_API_H

#include <jansson.h>
#include <stdint.h>

#include "http.h"
#include "store.h"

struct srv;
struct srv_req;

/* Handlers (h_*.c). */
int srv_h_healthz(struct srv_req *r);
int srv_h_runs_create(struct srv_req *r);
int srv_h_runs_list(struct srv_req *r);
int srv_h_run_get(struct srv_req *r);
int srv_h_run_delete(struct srv_req *r);
int srv_h_run_log(struct srv_req *r);
int srv_h_run_ops(struct srv_req *r);
int srv_h_run_steps(struct srv_req *r);
int srv_h_comparisons_create(struct srv_req *r);
int srv_h_comparisons_list(struct srv_req *r);
int srv_h_comparison_get(struct srv_req *r);
int srv_h_comparison_rows(struct srv_req *r);
/* rows.csv (h_rows.c): the filtered rows streamed as CSV. */
int srv_h_comparison_rows_csv(struct srv_req *r);
int srv_h_comparison_delete(struct srv_req *r);
int srv_h_comparison_steps(struct srv_req *r);
int srv_h_comparison_steps_csv(struct srv_req *r);
/* PNG charts and PDF reports (h_render.c, documents by views.h) */
int srv_h_comparison_chart(struct srv_req *r);
int srv_h_comparison_pdf(struct srv_req *r);
int srv_h_suite_pdf(struct srv_req *r);

/* GET /runs/{id}/losses.txt (h_losses.c): a golden loss file, streamed. */
int srv_h_run_losses(struct srv_req *r);
int srv_h_webhooks_create(struct srv_req *r);
int srv_h_webhooks_list(struct srv_req *r);
int srv_h_webhook_delete(struct srv_req *r);
/* golden baselines and suites (h_baselines.c, issue 16) */
int srv_h_baselines_list(struct srv_req *r);
int srv_h_baseline_get(struct srv_req *r);
int srv_h_baseline_put(struct srv_req *r);
int srv_h_suite_get(struct srv_req *r);
int srv_h_webhook_deliveries(struct srv_req *r);

/* The row filters of /comparisons/{id}/rows and rows.csv (h_comparisons.c):
 * rank (-1 all), status, method, phase, origin (-1 any), the key filter
 * (q, case).  Strings borrowed from the query string. */

struct srv_row_filters {
	int rank, origin;
	const char *status, *method, *phase;
	struct store_key_filter kf;
};
/* Parse and check them, then take a database connection and check that
 * the comparison r->id exists: 0 = go on (r->db set), -1 = a reply (400,
 * 404, 503) is queued or the request went to a reader thread (q set). */
int srv_row_filters_or_reply(struct srv_req *r, struct srv_row_filters *rf);

/* Add "urls" to a run object. */
void srv_run_add_urls(struct srv *s, json_t *run);

/* A JSON array of distinct run ids (issue 26's baseline sets, h_baselines.c):
 * 0 and ids[0..*n) (at most max read), or why not: SRV_IDS_NOT_ARRAY,
 * SRV_IDS_NOT_ID (an item is not a positive integer) or SRV_IDS_TWICE
 * (*dup the repeated id); the caller words the 400. */
enum { SRV_IDS_NOT_ARRAY = -1, SRV_IDS_NOT_ID = -2, SRV_IDS_TWICE = -3 };
int srv_run_ids(json_t *v, int64_t *ids, size_t max, size_t *n, int64_t *dup);
/* Every run of set[from..n) exists and is a training run, else the 400
 * (unknown_run, naming the member's place in the set when member_place,
 * or kind_mismatch) is queued and -1 returned. */
struct store;
int srv_set_members_or_reply(struct srv_req *r, struct store *db, const int64_t *set, size_t from,
                             size_t n, int member_place);

#endif
