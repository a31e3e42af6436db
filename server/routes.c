/* routes.c - the route table: every URL the daemon answers, in one place
 * you can grep.  Part of the composition root: it alone names the
 * handlers of the api and ui rooms and the ingest room's body sink;
 * serve.c registers the table in struct srv, and http's router
 * (http/router.c, which explains the {id}/{n}/{name}/{path} segments)
 * looks requests up in it. */
#include <stddef.h>

#include "serve.h"
#include "api.h"
#include "http.h"
#include "ingest.h"
#include "ui.h"

static const struct srv_route routes[] = {
        {"GET", "/healthz", SRV_BODY_NONE, srv_h_healthz, NULL},
        {"GET", "/metrics", SRV_BODY_NONE, srv_h_metrics, NULL},
        /* the API description (web/assets/openapi.json, served like an asset) */
        {"GET", "/openapi.json", SRV_BODY_NONE, srv_ui_asset, NULL},
        {"POST", "/runs", SRV_BODY_UPLOAD, srv_h_runs_create, &srv_upload_sink},
        {"GET", "/runs", SRV_BODY_NONE, srv_h_runs_list, NULL},
        {"GET", "/runs/{id}", SRV_BODY_NONE, srv_h_run_get, NULL},
        {"DELETE", "/runs/{id}", SRV_BODY_NONE, srv_h_run_delete, NULL},
        {"GET", "/runs/{id}/logs/{n}", SRV_BODY_NONE, srv_h_run_log, NULL},
        {"GET", "/runs/{id}/ops", SRV_BODY_NONE, srv_h_run_ops, NULL},
        {"GET", "/runs/{id}/steps", SRV_BODY_NONE, srv_h_run_steps, NULL},
        {"GET", "/runs/{id}/losses.txt", SRV_BODY_NONE, srv_h_run_losses, NULL},
        {"POST", "/comparisons", SRV_BODY_BUFFER_FORM, srv_h_comparisons_create, NULL},
        {"GET", "/comparisons", SRV_BODY_NONE, srv_h_comparisons_list, NULL},
        {"GET", "/comparisons/{id}", SRV_BODY_NONE, srv_h_comparison_get, NULL},
        {"DELETE", "/comparisons/{id}", SRV_BODY_NONE, srv_h_comparison_delete, NULL},
        {"GET", "/comparisons/{id}/rows", SRV_BODY_NONE, srv_h_comparison_rows, NULL},
        {"GET", "/comparisons/{id}/rows.csv", SRV_BODY_NONE, srv_h_comparison_rows_csv, NULL},
        {"GET", "/comparisons/{id}/steps", SRV_BODY_NONE, srv_h_comparison_steps, NULL},
        {"GET", "/comparisons/{id}/steps.csv", SRV_BODY_NONE, srv_h_comparison_steps_csv, NULL},
        /* PNG charts and PDF reports (h_render.c, issue 16) */
        {"GET", "/comparisons/{id}/charts/{path}", SRV_BODY_NONE, srv_h_comparison_chart, NULL},
        {"GET", "/comparisons/{id}/report.pdf", SRV_BODY_NONE, srv_h_comparison_pdf, NULL},
        {"GET", "/suites/{name}/report.pdf", SRV_BODY_NONE, srv_h_suite_pdf, NULL},
        {"POST", "/webhooks", SRV_BODY_BUFFER, srv_h_webhooks_create, NULL},
        {"GET", "/webhooks", SRV_BODY_NONE, srv_h_webhooks_list, NULL},
        {"DELETE", "/webhooks/{id}", SRV_BODY_NONE, srv_h_webhook_delete, NULL},
        /* golden baselines and suites (h_baselines.c, issue 16) */
        {"GET", "/baselines", SRV_BODY_NONE, srv_h_baselines_list, NULL},
        {"GET", "/baselines/{path}", SRV_BODY_NONE, srv_h_baseline_get, NULL},
        {"PUT", "/baselines/{path}", SRV_BODY_BUFFER, srv_h_baseline_put, NULL},
        {"GET", "/suites/{name}", SRV_BODY_NONE, srv_h_suite_get, NULL},
        {"GET", "/webhooks/{id}/deliveries", SRV_BODY_NONE, srv_h_webhook_deliveries, NULL},
        /* pages (h_ui.c) */
        {"GET", "/", SRV_BODY_NONE, srv_ui_home, NULL},
        {"GET", "/ui/runs", SRV_BODY_NONE, srv_ui_runs, NULL},
        {"GET", "/ui/runs/{id}", SRV_BODY_NONE, srv_ui_run, NULL},
        {"GET", "/ui/runs/{id}/delete", SRV_BODY_NONE, srv_ui_run_delete_page, NULL},
        {"POST", "/ui/runs/{id}/delete", SRV_BODY_NONE, srv_h_run_delete, NULL},
        {"GET", "/ui/comparisons", SRV_BODY_NONE, srv_ui_comparisons, NULL},
        {"GET", "/ui/comparisons/{id}/delete", SRV_BODY_NONE, srv_ui_comparison_delete_page, NULL},
        {"POST", "/ui/comparisons/{id}/delete", SRV_BODY_NONE, srv_h_comparison_delete, NULL},
        {"GET", "/ui/comparisons/{id}", SRV_BODY_NONE, srv_ui_comparison, NULL},
        {"GET", "/ui/comparisons/{id}/profile.svg", SRV_BODY_NONE, srv_ui_profile, NULL},
        {"GET", "/ui/comparisons/{id}/producer", SRV_BODY_NONE, srv_ui_producer, NULL},
        {"GET", "/ui/comparisons/{id}/origin", SRV_BODY_NONE, srv_ui_origin_walk, NULL},
        {"GET", "/comparisons/{id}/report.html", SRV_BODY_NONE, srv_ui_report, NULL},
        {"GET", "/assets/{name}", SRV_BODY_NONE, srv_ui_asset, NULL},
        {"GET", "/ui/suites", SRV_BODY_NONE, srv_ui_suites, NULL},
        {"GET", "/ui/baselines", SRV_BODY_NONE, srv_ui_baselines, NULL},
        {"GET", "/ui/suites/{name}", SRV_BODY_NONE, srv_ui_suite, NULL},
        {"GET", "/ui/baselines/{path}", SRV_BODY_NONE, srv_ui_baseline, NULL},
        /* end pages */
        {NULL, NULL, SRV_BODY_NONE, NULL, NULL},
};

const struct srv_route *srv_routes(void)
{
	return routes;
}
