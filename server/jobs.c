/* jobs.c - compute one comparison: the body of a worker's job.
 *
 * Activation: rank N of the baseline against rank N of the candidate; a
 * rank present on one side only is an error reason; the overall verdict is
 * the worst rank's.  Every row is stored (as the same JSON the CLI prints,
 * plus filter columns) together with the result document and the final
 * status in ONE transaction, so a crash mid-job leaves the comparison
 * 'running' with no rows, and the restarted daemon recomputes it from
 * scratch to the same result.
 * Training: see train_job.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act_json.h"
#include "actcheck.h"
#include "match.h"
#include "policy.h"
#include "srv.h"
#include "store.h"
#include "webhooks.h"
#include "workers.h"

int srv_train_job_run(struct srv *s, struct store *db, const struct store_comparison_job *job,
                      json_t **result, char *err, size_t errcap);

static void add_reason(json_t *reasons, const char *code, int rank, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void add_reason(json_t *reasons, const char *code, int rank, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_t *r = json_object();
	json_object_set_new(r, "code", json_string(code));
	json_object_set_new(r, "message", json_string(msg));
	if (rank >= 0)
		json_object_set_new(r, "rank", json_integer(rank));
	json_array_append_new(reasons, r);
}

/* Sum the numeric members of src into dst (recursively for objects), so
 * the overall summary of a multi-rank comparison is the per-rank sum. */
static void sum_counts(json_t *dst, json_t *src)
{
	const char *k;
	json_t *v;
	json_object_foreach(src, k, v)
	{
		json_t *d = json_object_get(dst, k);
		if (json_is_integer(v)) {
			json_int_t base = json_is_integer(d) ? json_integer_value(d) : 0;
			json_object_set_new(dst, k, json_integer(base + json_integer_value(v)));
		} else if (json_is_object(v)) {
			if (!json_is_object(d)) {
				d = json_object();
				json_object_set_new(dst, k, d);
			}
			sum_counts(d, v);
		}
	}
}

/* One rank: match, check, store rows.  Appends its document to ranks_out
 * and returns its verdict (ERROR on failure with err set). */
static int run_rank(struct store *db, int64_t cmp_id, int rank, int64_t log_a, int64_t log_b,
                    const struct matcher_overrides *ov, const struct matcher_act_policy *pol,
                    const char *name_a, const char *name_b, json_t **doc_out,
                    enum matcher_verdict *verdict, char *err, size_t errcap)
{
	struct matcher_actlog *a = NULL, *b = NULL;
	struct matcher_match_result *res = NULL;
	int rc = -1;
	if (store_actlog_load(db, log_a, &a) < 0 || store_actlog_load(db, log_b, &b) < 0) {
		snprintf(err, errcap, "cannot load rank %d: %s", rank, store_errmsg(db));
		goto done;
	}
	if (matcher_match(a, b, ov, &res) < 0) {
		snprintf(err, errcap, "matching rank %d failed (out of memory)", rank);
		goto done;
	}
	struct matcher_act_verdict v;
	matcher_act_check(res, pol, &v);
	*verdict = v.verdict;
	for (size_t i = 0; i < res->n_rows; i++) {
		const struct matcher_row *row = &res->rows[i];
		json_t *rj = srv_act_row_json(row);
		char *text = rj ? json_dumps(rj, JSON_COMPACT) : NULL;
		json_decref(rj);
		double d = row->output_hash_distance;
		if (row->input_hash_distance > d)
			d = row->input_hash_distance;
		int src = text ? store_comparison_row_add(
		                         db, cmp_id, rank, (int64_t)i,
		                         matcher_status_name(row->status),
		                         row->method == MATCHER_METHOD_NONE
		                                 ? NULL
		                                 : matcher_method_name(row->method),
		                         matcher_phase_name(row->phase), row->origin,
		                         row->a ? row->a->key : NULL, row->b ? row->b->key : NULL,
		                         d < 0 ? NAN : d, text)
		               : STORE_ERROR;
		free(text);
		if (src < 0) {
			snprintf(err, errcap, "cannot store rows: %s", store_errmsg(db));
			goto done;
		}
	}
	struct srv_act_doc doc = {name_a, name_b, a, b, ov, res, pol, &v};
	*doc_out = srv_act_result_json(&doc, 0);
	if (!*doc_out) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	json_object_set_new(*doc_out, "rank", json_integer(rank));
	rc = 0;
done:
	matcher_match_result_free(res);
	matcher_actlog_free(a);
	matcher_actlog_free(b);
	return rc;
}

/* Names of the two runs, for the result document ("" when unnamed). */
static void run_names(struct store *db, const struct store_comparison_job *job, char *a, char *b,
                      size_t cap)
{
	json_t *ra = store_run_json(db, job->baseline_id),
	       *rb = store_run_json(db, job->candidate_id);
	const char *na = json_string_value(json_object_get(ra, "name"));
	const char *nb = json_string_value(json_object_get(rb, "name"));
	snprintf(a, cap, "%s", na ? na : "");
	snprintf(b, cap, "%s", nb ? nb : "");
	json_decref(ra);
	json_decref(rb);
}

static int act_job(struct store *db, const struct store_comparison_job *job, json_t **result,
                   char *err, size_t errcap)
{
	char name_a[1024], name_b[1024];
	run_names(db, job, name_a, name_b, sizeof name_a);
	struct store_log_ref *la = NULL, *lb = NULL;
	size_t na = 0, nb = 0;
	struct matcher_overrides *ov = NULL;
	struct matcher_act_policy pol;
	struct srv_act_policy_storage pst = {0};
	json_t *policy_v = NULL, *ranks = json_array(), *reasons = json_array();
	json_t *summary = json_object();
	int rc = -1;
	enum matcher_verdict worst = MATCHER_VERDICT_PASS;

	json_error_t jerr;
	if (job->policy_json && *job->policy_json)
		policy_v = json_loads(job->policy_json, 0, &jerr);
	if (srv_act_policy_parse(policy_v, &pol, &pst, err, errcap) < 0)
		goto done;
	if (job->overrides && *job->overrides &&
	    matcher_overrides_parse(job->overrides, strlen(job->overrides), &ov) < 0) {
		snprintf(err, errcap, "cannot read the override file");
		goto done;
	}
	if (store_run_logs(db, job->baseline_id, &la, &na) < 0 ||
	    store_run_logs(db, job->candidate_id, &lb, &nb) < 0) {
		snprintf(err, errcap, "cannot list the runs' logs: %s", store_errmsg(db));
		goto done;
	}
	/* both lists are ordered by rank: merge */
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		if (j >= nb || (i < na && la[i].rank < lb[j].rank)) {
			add_reason(reasons, "rank_missing", la[i].rank,
			           "rank %d exists in the baseline only", la[i].rank);
			worst = MATCHER_VERDICT_ERROR;
			i++;
			continue;
		}
		if (i >= na || lb[j].rank < la[i].rank) {
			add_reason(reasons, "rank_missing", lb[j].rank,
			           "rank %d exists in the candidate only", lb[j].rank);
			worst = MATCHER_VERDICT_ERROR;
			j++;
			continue;
		}
		json_t *doc = NULL;
		enum matcher_verdict v;
		if (run_rank(db, job->id, la[i].rank, la[i].log_id, lb[j].log_id, ov, &pol, name_a,
		             name_b, &doc, &v, err, errcap) < 0)
			goto done;
		worst = matcher_verdict_worst(worst, v);
		size_t k;
		json_t *r;
		json_array_foreach(json_object_get(doc, "reasons"), k, r)
		{
			json_t *c = json_deep_copy(r);
			json_object_set_new(c, "rank", json_integer(la[i].rank));
			json_array_append_new(reasons, c);
		}
		sum_counts(summary, json_object_get(doc, "summary"));
		json_array_append_new(ranks, doc);
		i++;
		j++;
	}
	if (json_array_size(ranks) == 0 && worst != MATCHER_VERDICT_ERROR) {
		add_reason(reasons, "no_common_rank", -1, "the two runs have no rank in common");
		worst = MATCHER_VERDICT_ERROR;
	}
	/* Top level: the lowest rank's document (same keys as the CLI JSON),
	 * with the verdict, reasons and summary of all ranks. */
	json_t *top =
	        json_array_size(ranks) ? json_deep_copy(json_array_get(ranks, 0)) : json_object();
	json_object_del(top, "rank");
	json_object_set_new(top, "kind", json_string("activation"));
	json_object_set_new(top, "verdict", json_string(matcher_verdict_name(worst)));
	json_object_set(top, "reasons", reasons);
	json_object_set_new(top, "policy", srv_act_policy_json(&pol));
	json_object_set(top, "summary", summary);
	json_object_set(top, "ranks", ranks);
	*result = top;
	rc = 0;
done:
	free(la);
	free(lb);
	matcher_overrides_free(ov);
	srv_act_policy_storage_free(&pst);
	json_decref(policy_v);
	json_decref(ranks);
	json_decref(reasons);
	json_decref(summary);
	return rc;
}

int srv_job_run(struct srv *s, struct store *db, int64_t id)
{
	struct store_comparison_job job;
	char err[512] = "";
	json_t *result = NULL;
	int rc = store_comparison_job(db, id, &job);
	if (rc < 0) {
		srv_log("comparison %lld: cannot load the job: %s", (long long)id,
		        store_errmsg(db));
		return -1;
	}
	int64_t t0 = srv_now_ms();
	if (store_tx_begin(db) < 0 || store_comparison_rows_clear(db, id) < 0) {
		snprintf(err, sizeof err, "database: %s", store_errmsg(db));
		rc = -1;
	} else if (!strcmp(job.kind, "activation")) {
		rc = act_job(db, &job, &result, err, sizeof err);
	} else {
		rc = srv_train_job_run(s, db, &job, &result, err, sizeof err);
	}
	if (rc == 0) {
		char *text = json_dumps(result, JSON_COMPACT);
		const char *verdict = json_string_value(json_object_get(result, "verdict"));
		rc = text ? store_comparison_finish(db, id, "done", verdict, text, NULL) : -1;
		free(text);
		/* webhook deliveries commit with the result: no lost event */
		if (rc == 0 && srv_webhooks_enqueue_completed(&s->cfg, db, id) < 0)
			rc = -1;
		if (rc == 0)
			rc = store_tx_commit(db);
		if (rc < 0)
			snprintf(err, sizeof err, "cannot store the result: %s", store_errmsg(db));
	}
	if (rc < 0) {
		/* roll back partial rows; record the failure in its own transaction */
		store_tx_rollback(db);
		int frc = store_tx_begin(db);
		if (frc == 0)
			frc = store_comparison_finish(db, id, "failed", NULL, NULL, err);
		if (frc == 0 && srv_webhooks_enqueue_completed(&s->cfg, db, id) < 0)
			frc = -1;
		if (frc == 0)
			frc = store_tx_commit(db);
		if (frc < 0) {
			srv_log("comparison %lld: cannot record failure: %s", (long long)id,
			        store_errmsg(db));
			store_tx_rollback(db);
		}
	}
	srv_webhooks_notify(s);
	int64_t elapsed_ms = srv_now_ms() - t0;
	srv_metrics_observe(&s->metrics.job_seconds, elapsed_ms * 1000);
	atomic_fetch_add(rc == 0 ? &s->metrics.jobs_done : &s->metrics.jobs_failed, 1);
	srv_log("comparison %lld %s in %lld ms%s%s", (long long)id, rc == 0 ? "done" : "failed",
	        (long long)elapsed_ms, rc == 0 ? "" : ": ", rc == 0 ? "" : err);
	json_decref(result);
	store_comparison_job_free(&job);
	return 0;
}
