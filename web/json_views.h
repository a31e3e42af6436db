/* json_views.h - the API documents of the store's plain views (runs,
 * comparisons, webhooks, deliveries, tokens, metrics): one serializer per
 * document, used by the daemon's handlers and pages alike.  Inputs are
 * the structs of store/store.h (only read); every result is a new jansson
 * reference (NULL on OOM) whose key order is the API's.  Text that is not
 * valid UTF-8 is emitted with each bad byte replaced by U+FFFD.
 * Thread-safe on distinct inputs. */
#ifndef PARITY_WEB_JSON_VIEWS_H
#define PARITY_WEB_JSON_VIEWS_H

#include <jansson.h>

#include "store.h"

/* The run document (GET /runs/{id}):
 * {"id","name","kind","meta":{..},"created_at",
 *  "logs":[{"id","rank","filename"|null,"bytes","sha256",
 *   "entries","header_total"|null,"excluded_ops":[..]|null (activation) |
 *   "steps","validation_steps" (training),
 *   "lines","n_warnings"[,"warnings":[{"code","line","message","excerpt"}]]}]}
 * "warnings" only when the run was read with them (store_run_get); meta
 * is the stored object, {} when none or unreadable. */
json_t *web_run_json(const struct store_run *r);
/* {"runs":[run...],"next_cursor":"..."|null} (GET /runs). */
json_t *web_runs_page_json(const struct store_run_page *p);
/* The run's meta object parsed from its text: a new object, {} when none
 * or not a JSON object.  NULL on OOM. */
json_t *web_run_meta(const struct store_run *r);

/* {"steps":[{"step","rank","line","copies","metrics":{"loss":{"text",
 * "value"|null},...}}],"next_cursor"} (GET /runs/{id}/steps). */
json_t *web_run_steps_page_json(const struct store_run_step_page *p);
/* GET /runs/{id}/ops: {"ops":[{"rank","order","line","key","module"|null,
 * "op_index"|null,"op_name"|null,"phase":"forward"|"backward","stats":
 * {"Shape":"text","L2 norm":{"text","value"|null},...present ones},
 * "output_hash","input_hashes","input_producers","location" (null when
 * absent)}],"next_cursor"}; "value" is null for nan/inf (JSON has none;
 * "text" tells which). */
json_t *web_ops_page_json(const struct store_op_page *p);

/* A stored free-form JSON text parsed (any JSON value), or null when
 * NULL or unreadable.  NULL on OOM. */
json_t *web_stored_json(const char *text);
/* The "name" of a stored policy text into out ("" when the text is
 * missing, not JSON or names none): the adapter the mail uses. */
void web_stored_policy_name(const char *text, char *out, size_t cap);

/* The comparison document (GET /comparisons/{id}):
 * {"id","name","kind","status","verdict"|null,"baseline":id,
 *  "candidate":id,"policy":{..}|null,"result":{..}|null,"error"|null,
 *  "created_at","started_at"|null,"finished_at"|null,
 *  "runs":{"baseline":{run}|null,"candidate":{run}|null}}
 * (run = id,name,kind,meta,created_at); "result" only when with_result. */
json_t *web_comparison_json(const struct store_comparison *c, int with_result);
/* {"comparisons":[comparison without "result"...],"next_cursor"}. */
json_t *web_comparisons_page_json(const struct store_comparison_page *p);

/* The public view of a webhook:
 * {"id","url","events":[..],"format","has_secret","has_token","created_at"}. */
json_t *web_webhook_json(const struct store_webhook_public *h);
/* {"webhooks":[view...],"next_cursor"} (GET /webhooks). */
json_t *web_webhooks_page_json(const struct store_webhook_page *p);
/* {"deliveries":[{"id","webhook_id","comparison_id","event","url","status",
 * "attempts","next_attempt_at"|null,"last_error"|null,"created_at",
 * "finished_at"|null,"attempt_log":[{"at","http_status"|null,"error"|null,
 * "duration_ms"}]}],"next_cursor"} (GET /webhooks/{id}/deliveries). */
json_t *web_deliveries_page_json(const struct store_delivery_page *p);
/* {"tokens":[{"id","name","created_at","revoked_at"|null}]}
 * (`parity token list --json`). */
json_t *web_tokens_json(const struct store_token_list *l);

/* A golden baseline (GET /baselines/{name}): {"name","run","run_doc":
 * {run}|null,"created_at","updated_at","changes","history":[{"run","time",
 * "token": token name or "open","note","comparison": promoting comparison
 * id|null}]} (history oldest first). */
json_t *web_baseline_json(const struct store_baseline *b);
/* {"baselines":[baseline without "history"...],"next_cursor"}. */
json_t *web_baselines_page_json(const struct store_baseline_page *p);
/* A suite's verdict: "pending" while any of its comparisons is queued or
 * running or it has fewer configs than the largest suite_size given, else the worst of its configs'
 * latest comparisons (pass < fail < error; a failed comparison counts as error).  Static text. */
const char *web_suite_verdict(const struct store_suite_view *v);
/* The worst lane of the suite's configs (issue 26: "regression" over
 * "within_noise" over "identical"), NULL when none of them has a lane. */
const char *web_suite_lane(const struct store_suite_view *v);
/* GET /suites/{suite}: {"suite","verdict","comparisons","pending",
 * "expected_configs"|null,"complete","truncated","configs":[{"config","comparison":{comparison
 * without "result", its "policy" only {"name"} and its runs without
 * "meta"}}]} (configs in name order; a summary, bounded whatever the
 * members' policies and meta: issue 23 F4). */
json_t *web_suite_json(const char *suite, const struct store_suite_view *v);
#endif
