/* ui.h - the HTML handlers of the daemon (ui/: h_ui.c, forms.c, ui_rows.c, ui_baselines.c): pages
 * rendered by web/ from the store's JSON (activation rows: the store's typed rows), the embedded
 * assets, the divergence profile SVG and the self-contained report.  Routes live between the page
 * markers of routes.c.
 *
 * Every handler follows the srv_handler contract (http.h): it queues
 * exactly one response on r->conn and returns MHD_YES/MHD_NO.  Pages carry
 * a Content-Security-Policy without inline script (web_csp_page); the
 * report carries web_csp_report.  Each HTML reply has a Server-Timing
 * header ("render;dur=<ms>") measured from the handler's start. */
#ifndef PARITY_SRV_UI_H
#define PARITY_SRV_UI_H

#include <stdio.h>

#include "http.h"
#include "store.h"
#include "web.h"

/* GET /: recent comparisons and runs, or the getting-started commands. */
int srv_ui_home(struct srv_req *r);
/* GET /ui/runs/{id} */
int srv_ui_run(struct srv_req *r);
/* GET /ui/comparisons/{id}?rank=&status=&method=&phase=&origin=&q=&from=&limit=
 * (activation) or ?cursor=&log= (training); queued/running/failed show
 * their state. */
int srv_ui_comparison(struct srv_req *r);
/* GET /ui/comparisons/{id}/profile.svg?rank=: the divergence profile as a
 * standalone SVG document (loaded by the page through <object>). */
int srv_ui_profile(struct srv_req *r);
/* Cause chain (h_rows.c): 303 to the page of an input's producer row
 * (?rank&side&key&hash&row), and of the origin a diff row's first
 * differing input leads back to (?rank&row, the chain listed). */
int srv_ui_producer(struct srv_req *r);
int srv_ui_origin_walk(struct srv_req *r);
/* The op key of each of the n chain rows of rank (ui_rows.c) into keys
 * (n slots; each a malloc'd copy the caller frees, or NULL when the row
 * is not found).  0, or -1 on a read error (keys read so far stay). */
int srv_ui_chain_keys(struct srv_req *r, int rank, const long *chain, size_t n, char **keys);
/* GET /comparisons/{id}/report.html?rank=: the self-contained report. */
int srv_ui_report(struct srv_req *r);
/* GET /assets/{name}: an embedded asset (cacheable). */
int srv_ui_asset(struct srv_req *r);

/* Page helpers of h_ui.c for the other page handlers: queue an HTML page
 * (body taken) with the page headers; a small HTML error page; the
 * request's database connection, or NULL with a 503 page queued. */
int srv_ui_page_reply(struct srv_req *r, unsigned status, struct buf *body);
int srv_ui_page_error(struct srv_req *r, unsigned status, const char *what);
struct store *srv_ui_page_db(struct srv_req *r);

/* Issue 16 pages (h_baselines.c): GET /ui/suites/{suite}, the config
 * matrix; GET /ui/baselines/{name}, the comparisons made against a
 * golden baseline over time with a chart. */
int srv_ui_suite(struct srv_req *r);
int srv_ui_baseline(struct srv_req *r);
/* Issue 25 list pages (ui_baselines.c): GET /ui/suites, every suite with
 * its latest configs' verdict; GET /ui/baselines?cursor=, the golden
 * baselines. */
int srv_ui_suites(struct srv_req *r);
int srv_ui_baselines(struct srv_req *r);

/* GET /ui/runs?q=&kind=&cursor=, GET /ui/comparisons?q=&kind=&verdict=&status=&cursor= */
int srv_ui_runs(struct srv_req *r);
int srv_ui_comparisons(struct srv_req *r);
/* GET /ui/runs/{id}/delete, /ui/comparisons/{id}/delete: the confirmation;
 * POST to the same path is the API's delete handler (routes.c), which
 * answers a form post with 303 to the list. */
int srv_ui_run_delete_page(struct srv_req *r);
int srv_ui_comparison_delete_page(struct srv_req *r);

#endif
