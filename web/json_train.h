/* json_train.h - JSON for training comparisons: the whole result document
 * (CLI --format json, the service's comparison body), one per-step row
 * (GET /comparisons/{id}/steps), reasons, policies, warnings and fatal
 * parse errors.
 *
 * Number policy: finite doubles are JSON numbers; +inf/-inf/NaN (a
 * one-sided NaN gives max_abs +inf, shown "NaN") are the strings "Inf",
 * "-Inf", "NaN", so jansson never sees a non-finite double.  Exact
 * decimal differences are also given as text ("max_abs_exact": "0.00228").
 * Log text that is not valid UTF-8 is emitted with each bad byte replaced
 * by U+FFFD.  All json_t results are new references (NULL on OOM); inputs
 * are only read.  Thread-safe on distinct inputs. */
#ifndef PARITY_WEB_JSON_TRAIN_H
#define PARITY_WEB_JSON_TRAIN_H

#include <jansson.h>
#include <stddef.h>

#include "store.h"
#include "traincheck.h"

/* Most steps listed in steps.only_baseline / only_candidate; the full
 * counts are in only_baseline_count / only_candidate_count. */
#define WEB_TRAIN_MAX_LISTED_STEPS STORE_TRAIN_MAX_LISTED_STEPS

/* The result document (web_train_result_doc of store_train_result_of_check):
 * {"kind":"training","verdict","reasons":[...],"policy":{...},"rank",
 *  "resolution":{"loss":1e-05,...},"notes":[...],
 *  "steps":{"common","only_baseline":[...],"only_candidate":[...],
 *           "only_baseline_count","only_candidate_count"},
 *  "metrics":{"loss":{...},...},
 *  "warnings":{"baseline":[...],"candidate":[...]}}
 * a and b (the runs, for their warnings) may be NULL: empty lists. */
json_t *web_train_result_json(const struct matcher_train_result *r,
                              const struct matcher_trainrun *a, const struct matcher_trainrun *b);

/* The one serializer of the result document (shape above), from the typed
 * result, stored or freshly built.  NULL on OOM. */
json_t *web_train_result_doc(const struct store_train_result *r);

/* Row i of the per-step table:
 * {"step":N,"loss":{"a","b","a_text","b_text","abs","abs_exact","rel","over"},...}
 * with null for a side that did not print the metric.  NULL when i is out
 * of range or on OOM. */
json_t *web_train_row_json(const struct matcher_train_result *r, size_t i);

/* The per-step row of one step from its cells (metrics[k] names
 * cells[k]; n of each), in the shape above; metrics named "validation/..."
 * are left out (another step series).  The one serializer of per-step
 * rows: web_train_row_json (CLI) and the service's stored rows both use
 * it.  NULL on OOM. */
json_t *web_train_step_json(long step, const char *const *metrics,
                            const struct matcher_train_row_cell *cells, size_t n);

/* A page of stored per-step rows as the steps list document
 * (GET /comparisons/{id}/steps): {"steps":[row + "rank"...],
 * "next_cursor":"..."|null}, rows by web_train_step_json.  NULL on OOM. */
json_t *web_train_steps_page_json(const struct store_step_page *p);

/* {"code","message", then "metric","side","step","max_abs","max_abs_exact",
 *  "threshold","count","line" when set}. */
json_t *web_train_reason_json(const struct matcher_train_reason *x);

/* {"name","base","min_steps","allow_warnings","rank"(null = default),
 *  "thresholds":{"loss":{"abs":1e-05,"rel":null},...} (the noise policy:
 *  "alpha_step","alpha_run","min_runs" instead),
 *  "metrics":["loss","grad_norm"] (the compared set, in order),
 *  "if_logged":["grad_norm"] (skipped with a note when neither run logged
 *  them)} */
json_t *web_train_policy_json(const struct matcher_train_policy *p);

/* The policy adapter (the JSON edge of matcher/trainpolicy.h: it copies
 * the request's fields into a spec, matcher_train_policy_resolve applies
 * the rules and words the errors).  A policy: a preset name string, or an
 * object of the form above (every key optional; "name" picks the preset
 * the overrides start from; "thresholds" values are {"abs":X,"rel":Y} or
 * a bare number = abs); NULL = premerge.  0, or -1 with a sentence in
 * msg. */
int web_train_policy_from_json(json_t *v, struct matcher_train_policy *p, char *msg, size_t cap);
/* The same from a stored policy text (NULL, or text that is not JSON,
 * reads as null: premerge). */
int web_train_policy_from_text(const char *text, struct matcher_train_policy *p, char *msg,
                               size_t cap);
/* A training comparison's stored policy (store_comparison.policy_json):
 * the stored form of matcher/trainpolicy.h, read by
 * matcher_train_policy_parse without JSON, or for comparisons created
 * before it a policy JSON text (web_train_policy_from_text).  0, or -1
 * with a sentence in msg. */
int web_train_stored_policy(const char *text, struct matcher_train_policy *p, char *msg,
                            size_t cap);
/* A POST /comparisons body's training fields (policy, metrics,
 * extra_metrics, thresholds, min_steps, allow_warnings, rank) folded into
 * one policy (matcher_train_request_resolve).  0, or -1 with a sentence
 * in msg. */
int web_train_request_policy(json_t *req, struct matcher_train_policy *p, char *msg, size_t cap);

/* A candidate against a baseline set (matcher/noisecheck.h, the CLI's
 * --format json and the service's comparison body):
 * {"kind":"training","verdict","lane":"identical"|"within_noise"|
 *  "regression"|null,"identical_to":MEMBER|null (1-based),"reasons":[...],
 *  "policy":{...},"rank","members":K,"t_quantile",
 *  "steps":{"compared","skipped","first_skipped"|null},"notes":[...],
 *  "metrics":{"loss":{"compared","outside","allowed","p","bias",
 *    "share_above","first_outside"|null,"max_ratio","max_ratio_step"|null,
 *    "changes":{"compared","outside","allowed","first_outside"|null},
 *    "extreme_step"|null,"nonfinite_step"|null,"regression","not_logged"},
 *  ...}}.  NULL on OOM. */
struct matcher_noise_result;
json_t *web_noise_result_json(const struct matcher_noise_result *r);
/* GET /comparisons/{id}/steps of a noise comparison: steps [from, from +
 * n) of r as {"steps":[{"step":S,"metrics":{"loss":{"y","mean","sd","h",
 * "z","outside":bool,"change_outside":bool},...}},...],"next_cursor":
 * next_cursor or null}; a metric appears at the steps it was compared.
 * New reference, NULL on OOM. */
json_t *web_noise_steps_page_json(const struct matcher_noise_result *r, size_t from, size_t n,
                                  const char *next_cursor);

/* {"code","line","message","excerpt"}. */
json_t *web_train_warning_json(const struct matcher_warning *w);

/* The document for a log the parser refused:
 * {"kind":"training","verdict":"error","reasons":[{"code":"binary_data",
 *  "message","side","line"}]}.  side = "baseline"/"candidate"/NULL. */
json_t *web_train_fatal_json(const struct matcher_error *e, const char *side);

/* A JSON string from arbitrary bytes (bad UTF-8 -> U+FFFD). */
json_t *web_train_json_text(const char *s);

/* A double as a JSON number, or "Inf"/"-Inf"/"NaN". */
json_t *web_train_json_num(double v);

#endif
