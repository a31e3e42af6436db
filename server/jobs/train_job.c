/* train_job.c - training comparisons in the service: the request's policy
 * fields, the job (replay both runs from the store, run the check, build
 * the result and one row of typed cells per common step, which jobs.c
 * stores in the job's one write transaction).  The per-step endpoints
 * are api/h_steps.c, steps.csv views/steps_csv.c.  The check itself is matcher/traincheck.c;
 * the JSON shapes are web/json_train.c, shared with the CLI so both
 * give identical documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "json_train.h"
#include "noisecheck.h"
#include "traincheck.h"
#include "trainpolicy.h"
#include "trainsrc.h"
#include "web.h"
#include "jobs.h"

/* Fold policy, thresholds, metrics, min_steps, allow_warnings and rank of
 * a POST /comparisons body into one policy and its stored form
 * (matcher_train_policy_format; *text_out malloc'd, what is stored).
 * 0, or -1 with a sentence in msg. */
int srv_train_policy_from_request(json_t *req, int is_set, char **text_out, char *msg, size_t cap)
{
	struct matcher_train_policy p;
	struct buf b = BUF_INIT;
	json_t *with = NULL;
	int rc = -1;
	*text_out = NULL;
	if (is_set && !json_object_get(req, "policy")) {
		/* a set defaults to the noise policy (matcher/spec/noise.md) */
		if (!(with = json_copy(req)) ||
		    json_object_set_new(with, "policy", json_string("noise"))) {
			snprintf(msg, cap, "out of memory");
			goto done;
		}
		req = with;
	}
	if (web_train_request_policy(req, &p, msg, cap) < 0)
		goto done;
	if (matcher_train_policy_is_noise(&p) && !is_set) {
		/* two runs have no noise band (matcher/spec/noise.md) */
		snprintf(msg, cap,
		         "the noise policy compares a candidate against a baseline set of repeats "
		         "(baseline_set, or a baseline_name whose entry is a set); a comparison of "
		         "two runs takes premerge or bitwise");
		goto done;
	}
	if (!matcher_train_policy_is_noise(&p) && is_set) {
		snprintf(msg, cap,
		         "a baseline set is compared with the noise policy (policy \"noise\", the "
		         "default with a set)");
		goto done;
	}
	if (matcher_train_policy_format(&p, &b) < 0) {
		buf_reset(&b);
		snprintf(msg, cap, "out of memory");
		goto done;
	}
	*text_out = b.data;
	rc = 0;
done:
	json_decref(with);
	return rc;
}

int srv_train_request_is_noise(json_t *req)
{
	struct matcher_train_policy p;
	char msg[256];
	return web_train_request_policy(req, &p, msg, sizeof msg) == 0 &&
	       matcher_train_policy_is_noise(&p);
}

static int replay_step(void *ctx, const struct matcher_step_record *r)
{
	return matcher_trainrun_add_record(ctx, r) < 0 ? -1 : 0;
}

static int replay_warning(void *ctx, const struct matcher_warning *w)
{
	return matcher_trainrun_add_warning(ctx, w) < 0 ? -1 : 0;
}

/* Is one of run_id's logs a DL Framework Inspect statistics log (its
 * series are all compared, nvinspect.h)?  1, 0, or -1 with err. */
static int has_stats_log(struct store *db, int64_t run_id, char *err, size_t errcap)
{
	struct store_log_ref *logs = NULL;
	size_t n = 0;
	int found = 0;
	if (store_run_logs(db, run_id, &logs, &n) < 0) {
		snprintf(err, errcap, "cannot load run %lld: %s", (long long)run_id,
		         store_errmsg(db));
		return -1;
	}
	for (size_t i = 0; !found && i < n; i++) {
		char src[32];
		enum matcher_source s;
		found = store_log_source(db, logs[i].log_id, src, sizeof src) == 0 &&
		        matcher_source_from_name(src, &s) == 0 &&
		        s == MATCHER_SOURCE_NVDLFW_INSPECT;
	}
	free(logs);
	return found;
}

/* Rebuild a training run from every log of run_id (every metric when the
 * policy compares all common ones, else the policy's). */
static struct matcher_trainrun *load_run(struct store *db, int64_t run_id,
                                         const struct matcher_train_policy *p, char *err,
                                         size_t errcap)
{
	const char *keep[MATCHER_TRAIN_MAX_METRICS];
	for (size_t i = 0; i < p->n_th; i++)
		keep[i] = p->th[i].metric;
	struct matcher_trainrun *run =
	        matcher_trainrun_new(p->all_common ? NULL : keep, p->all_common ? 0 : p->n_th);
	struct store_log_ref *logs = NULL;
	size_t n = 0;
	if (!run || store_run_logs(db, run_id, &logs, &n) < 0) {
		snprintf(err, errcap, "cannot load run %lld: %s", (long long)run_id,
		         store_errmsg(db));
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (store_steps_foreach(db, logs[i].log_id, replay_step, run) < 0 ||
		    store_warnings_foreach(db, logs[i].log_id, replay_warning, run) < 0) {
			snprintf(err, errcap, "cannot load run %lld: %s", (long long)run_id,
			         store_errmsg(db));
			goto fail;
		}
	free(logs);
	return run;
fail:
	free(logs);
	matcher_trainrun_free(run);
	return NULL;
}

/* Free the arrays of rows; it is empty afterwards. */
void srv_train_rows_free(struct srv_train_rows *rows)
{
	for (size_t i = 0; rows->metrics && i < rows->n_metrics; i++)
		free(rows->metrics[i]);
	free(rows->metrics);
	free(rows->steps);
	free(rows->cells);
	matcher_train_result_free(rows->check);
	matcher_noise_result_free(rows->noise);
	matcher_trainrun_free(rows->a);
	matcher_trainrun_free(rows->b);
	arena_reset(&rows->arena);
	memset(rows, 0, sizeof *rows);
}

/* Store the computed rows and typed result (inside the job's write
 * transaction). */
int srv_train_rows_store(struct store *db, int64_t cmp_id, const struct srv_train_rows *rows)
{
	if (rows->noise)
		return store_noise_result_put(db, cmp_id, rows->noise);
	if (rows->has_result) {
		int rc = store_train_result_put(db, cmp_id, &rows->res);
		if (rc < 0)
			return rc;
	}
	return store_comparison_steps_add(db, cmp_id, rows->rank, rows->steps, rows->n,
	                                  (const char *const *)rows->metrics, rows->cells,
	                                  rows->n_metrics);
}

/* A candidate against the baseline set set[0..n) (issue 26): load the
 * K + 1 runs as the two-run job does, run the noise check; rows->noise
 * holds the result (stored by srv_train_rows_store).  0, or -1 with err. */
static int noise_job(struct store *db, const struct store_comparison_job *job,
                     const struct matcher_train_policy *p, const int64_t *set, size_t n,
                     struct srv_train_rows *rows, char *err, size_t errcap)
{
	struct matcher_trainrun *runs[MATCHER_NOISE_MAX_RUNS + 1] = {0};
	size_t got = 0;
	int rc = -1;
	if (n > MATCHER_NOISE_MAX_RUNS) {
		snprintf(err, errcap, "a baseline set has at most %d runs", MATCHER_NOISE_MAX_RUNS);
		goto done;
	}
	for (; got < n; got++)
		if (!(runs[got] = load_run(db, set[got], p, err, errcap)))
			goto done;
	if (!(runs[n] = load_run(db, job->candidate_id, p, err, errcap)))
		goto done;
	if (matcher_noise_check((const struct matcher_trainrun *const *)runs, n, runs[n], p,
	                        &rows->noise) < 0) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	rows->res.verdict = rows->noise->verdict;
	rows->rank = rows->noise->rank;
	rc = 0;
done:
	for (size_t i = 0; i <= n && i <= MATCHER_NOISE_MAX_RUNS; i++)
		matcher_trainrun_free(runs[i]);
	return rc;
}

/* Compute a training comparison with reads only: rows the typed result
 * and the per-step table to store.  0, or -1 with err. */
int srv_train_job_run(struct srv *s, struct store *db, const struct store_comparison_job *job,
                      struct srv_train_rows *rows, char *err, size_t errcap)
{
	(void)s;
	struct matcher_train_policy p;
	struct matcher_trainrun *a = NULL, *b = NULL;
	struct matcher_train_result *res = NULL;
	int64_t *set = NULL;
	size_t n_set = 0;
	int rc = -1;
	if (web_train_stored_policy(job->policy_json, &p, err, errcap) < 0)
		goto done;
	if (store_comparison_set_get(db, job->id, &set, &n_set) < 0) {
		snprintf(err, errcap, "cannot read the baseline set: %s", store_errmsg(db));
		goto done;
	}
	if (n_set > 0) {
		rc = noise_job(db, job, &p, set, n_set, rows, err, errcap);
		goto done;
	}
	/* statistics logs: every series both runs logged (issue 27) */
	int sa = has_stats_log(db, job->baseline_id, err, errcap);
	int sb = sa < 0 ? -1 : has_stats_log(db, job->candidate_id, err, errcap);
	if (sa < 0 || sb < 0)
		goto done;
	if (sa || sb)
		matcher_train_policy_compare_all(&p);
	if (!(a = load_run(db, job->baseline_id, &p, err, errcap)) ||
	    !(b = load_run(db, job->candidate_id, &p, err, errcap)))
		goto done;
	if (matcher_train_check(a, b, &p, &res) < 0) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	rows->rank = res->rank;
	size_t nm = res->n_metrics;
	rows->metrics = calloc(nm ? nm : 1, sizeof *rows->metrics);
	rows->steps = malloc((res->n_common ? res->n_common : 1) * sizeof *rows->steps);
	size_t n_cells = res->n_common * nm;
	rows->cells = malloc((n_cells ? n_cells : 1) * sizeof *rows->cells);
	if (!rows->metrics || !rows->steps || !rows->cells) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	for (rows->n_metrics = 0; rows->n_metrics < nm; rows->n_metrics++)
		if (!(rows->metrics[rows->n_metrics] =
		              strdup(res->metrics[rows->n_metrics].name))) {
			snprintf(err, errcap, "out of memory");
			goto done;
		}
	for (size_t i = 0; i < res->n_common; i++) {
		if (matcher_train_row(res, i, &rows->steps[i], &rows->cells[i * nm]) < 0) {
			snprintf(err, errcap, "cannot build the step table");
			goto done;
		}
		rows->n = i + 1;
	}
	/* the typed result borrows the check and the runs: rows owns them */
	rows->check = res;
	rows->a = a;
	rows->b = b;
	res = NULL;
	a = b = NULL;
	if (store_train_result_of_check(&rows->res, &rows->arena, rows->check, rows->a, rows->b) <
	    0) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	rows->has_result = 1;
	rc = 0;
done:
	free(set);
	matcher_train_result_free(res);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
	return rc;
}
