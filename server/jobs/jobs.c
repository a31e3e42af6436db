/* jobs.c - compute one comparison: the body of a worker's job.
 *
 * Activation: rank N of the baseline against rank N of the candidate; a
 * rank present on one side only is an error reason; the overall verdict is
 * the worst rank's.  Training: see train_job.c.
 *
 * Writers are never blocked by a job: the logs are loaded and matched
 * with plain reads (runs are immutable, and cannot be deleted while a
 * comparison references them), outside any transaction.  Only then are
 * the rows (typed records that reference the runs' entries), the typed
 * result (typed, both kinds), the final status and the webhook deliveries written
 * in ONE short transaction.  A crash before its commit leaves the comparison 'running' with no
 * rows; start-up requeues it and it is recomputed to the same rows.  When the write lock cannot be
 * had (STORE_BUSY) the job is put back to 'queued' for a later try instead of failing; every other
 * error ends it 'failed'.  Neither path leaves it 'running' while the
 * daemon lives: the final write is retried until it lands or the daemon
 * stops (and start-up recovery takes over). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "json_act.h"
#include "actcheck.h"
#include "match.h"
#include "store.h"
#include "web.h"
#include "delivery.h"
#include "http.h"
#include "jobs.h"

/* The rows of one rank, computed and waiting for the write. */
struct rank_rows {
	int rank;
	int64_t *ids_a, *ids_b; /* entry ids of the two logs by order */
	size_t n_a, n_b;
	struct store_row_rec *recs;
	size_t n;
};

/* Everything a job writes, computed before the write transaction. */
struct job_out {
	struct store_act_build act; /* activation: the typed result */
	int is_act;
	struct rank_rows *ranks; /* activation */
	size_t n_ranks;
	struct srv_train_rows train; /* training */
};

static void job_out_free(struct job_out *o)
{
	if (o->is_act)
		store_act_build_free(&o->act);
	for (size_t i = 0; i < o->n_ranks; i++) {
		free(o->ranks[i].recs);
		free(o->ranks[i].ids_a);
		free(o->ranks[i].ids_b);
	}
	free(o->ranks);
	srv_train_rows_free(&o->train);
	memset(o, 0, sizeof *o);
}

/* One rank: match and check (reads only).  Fills out with the rows to
 * store, adds its typed result to act and returns its verdict (-1 on
 * failure with err set). */
static int run_rank(struct store *db, int rank, int64_t log_a, int64_t log_b,
                    const struct matcher_overrides *ov, const struct matcher_act_policy *pol,
                    const char *name_a, const char *name_b, struct rank_rows *out,
                    struct store_act_build *act, enum matcher_verdict *verdict, char *err,
                    size_t errcap)
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
	out->rank = rank;
	if (store_log_entry_ids(db, log_a, &out->ids_a, &out->n_a) < 0 ||
	    store_log_entry_ids(db, log_b, &out->ids_b, &out->n_b) < 0) {
		snprintf(err, errcap, "cannot load rank %d: %s", rank, store_errmsg(db));
		goto done;
	}
	out->recs = malloc((res->n_rows ? res->n_rows : 1) * sizeof *out->recs);
	if (!out->recs) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	struct matcher_row_view rv;
	matcher_row_view_init(&rv);
	for (size_t i = 0; i < res->n_rows; i++) {
		const struct matcher_row *row = matcher_result_row(res, i, &rv);
		if (!row) {
			matcher_row_view_free(&rv);
			snprintf(err, errcap, "out of memory");
			goto done;
		}
		store_row_rec_from(&out->recs[i], row);
	}
	matcher_row_view_free(&rv);
	out->n = res->n_rows;
	struct store_act_input doc = {name_a, name_b, a, b, ov, res, pol, &v};
	if (store_act_build_rank(act, &doc, rank) < 0) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
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
	struct store_run_view ra, rb;
	int ok_a = store_run_get(db, job->baseline_id, &ra) == 0,
	    ok_b = store_run_get(db, job->candidate_id, &rb) == 0;
	snprintf(a, cap, "%s", ok_a ? ra.run.name : "");
	snprintf(b, cap, "%s", ok_b ? rb.run.name : "");
	store_run_view_free(&ra);
	store_run_view_free(&rb);
}

static int act_job(struct store *db, const struct store_comparison_job *job, struct job_out *out,
                   char *err, size_t errcap)
{
	char name_a[1024], name_b[1024];
	run_names(db, job, name_a, name_b, sizeof name_a);
	struct store_log_ref *la = NULL, *lb = NULL;
	size_t na = 0, nb = 0;
	struct matcher_overrides *ov = NULL;
	struct matcher_act_policy pol;
	struct srv_act_policy_storage pst = {0};
	json_t *policy_v = NULL;
	char msg[128];
	int rc = -1;
	enum matcher_verdict worst = MATCHER_VERDICT_PASS;

	json_error_t jerr;
	if (job->policy_json && *job->policy_json)
		policy_v = json_loads(job->policy_json, 0, &jerr);
	if (srv_act_policy_parse(policy_v, &pol, &pst, err, errcap) < 0)
		goto done;
	store_act_build_init(&out->act, &pol);
	out->is_act = 1;
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
			snprintf(msg, sizeof msg, "rank %d exists in the baseline only",
			         la[i].rank);
			store_act_build_reason(&out->act, "rank_missing", la[i].rank, msg);
			worst = MATCHER_VERDICT_ERROR;
			i++;
			continue;
		}
		if (i >= na || lb[j].rank < la[i].rank) {
			snprintf(msg, sizeof msg, "rank %d exists in the candidate only",
			         lb[j].rank);
			store_act_build_reason(&out->act, "rank_missing", lb[j].rank, msg);
			worst = MATCHER_VERDICT_ERROR;
			j++;
			continue;
		}
		enum matcher_verdict v;
		struct rank_rows *more =
		        realloc(out->ranks, (out->n_ranks + 1) * sizeof *out->ranks);
		if (!more) {
			snprintf(err, errcap, "out of memory");
			goto done;
		}
		out->ranks = more;
		struct rank_rows *rr = &out->ranks[out->n_ranks++];
		memset(rr, 0, sizeof *rr);
		if (run_rank(db, la[i].rank, la[i].log_id, lb[j].log_id, ov, &pol, name_a, name_b,
		             rr, &out->act, &v, err, errcap) < 0)
			goto done;
		worst = matcher_verdict_worst(worst, v);
		i++;
		j++;
	}
	if (out->act.res.n_ranks == 0 && worst != MATCHER_VERDICT_ERROR) {
		store_act_build_reason(&out->act, "no_common_rank", -1,
		                       "the two runs have no rank in common");
		worst = MATCHER_VERDICT_ERROR;
	}
	out->act.res.verdict = worst;
	if (out->act.bad) {
		snprintf(err, errcap, "out of memory");
		goto done;
	}
	rc = 0;
done:
	free(la);
	free(lb);
	matcher_overrides_free(ov);
	srv_act_policy_storage_free(&pst);
	json_decref(policy_v);
	return rc;
}

/* Compute the job's rows and result with reads only.  0, or -1 with err. */
static int job_compute(struct srv *s, struct store *db, const struct store_comparison_job *job,
                       struct job_out *out, char *err, size_t errcap)
{
	if (!strcmp(job->kind, "activation"))
		return act_job(db, job, out, err, errcap);
	return srv_train_job_run(s, db, job, &out->train, err, errcap);
}

/* Queue the "completed" webhook deliveries (inside the job's write
 * transaction): 0 or a STORE_* code. */
static int enqueue_completed(struct srv *s, struct store *db, int64_t id)
{
	int rc = srv_webhooks_enqueue_completed(&s->cfg, db, id);
	return rc < 0 ? rc : 0;
}

/* The one write transaction of a finished job: rows, result, status
 * "done", webhook deliveries.  0, or a STORE_* code (rolled back). */
static int job_store_done(struct srv *s, struct store *db, int64_t id, const struct job_out *o)
{
	int rc = store_tx_begin(db);
	if (rc < 0)
		return rc;
	rc = store_comparison_rows_clear(db, id);
	for (size_t i = 0; rc == 0 && i < o->n_ranks; i++)
		rc = store_comparison_rows_add(db, id, o->ranks[i].rank, o->ranks[i].ids_a,
		                               o->ranks[i].n_a, o->ranks[i].ids_b, o->ranks[i].n_b,
		                               o->ranks[i].recs, o->ranks[i].n);
	if (rc == 0)
		rc = srv_train_rows_store(db, id, &o->train);
	if (rc == 0)
		rc = store_comparison_finish(
		        db, id, "done",
		        matcher_verdict_name(o->is_act ? o->act.res.verdict : o->train.res.verdict),
		        NULL, NULL);
	if (rc == 0 && o->is_act)
		rc = store_act_result_put(db, id, &o->act.res);
	/* webhook deliveries commit with the result: no lost event */
	if (rc == 0)
		rc = enqueue_completed(s, db, id);
	if (rc == 0)
		rc = store_tx_commit(db);
	if (rc != 0)
		store_tx_rollback(db);
	return rc;
}

/* Record a failure: status "failed" with err, webhook deliveries. */
static int job_store_failed(struct srv *s, struct store *db, int64_t id, const char *err)
{
	int rc = store_tx_begin(db);
	if (rc == 0)
		rc = store_comparison_finish(db, id, "failed", NULL, NULL, err);
	if (rc == 0)
		rc = enqueue_completed(s, db, id);
	if (rc == 0)
		rc = store_tx_commit(db);
	if (rc != 0)
		store_tx_rollback(db);
	return rc;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int stopping(struct srv *s)
{
	pthread_mutex_lock(&s->jobs->mu);
	int stop = s->jobs->stopping;
	pthread_mutex_unlock(&s->jobs->mu);
	return stop;
}

/* How often the final write is retried before the worker gives the job
 * back; the pause between tries (doubling up to the maximum while the
 * outcome itself cannot be recorded). */
#define JOB_WRITE_TRIES  2
#define JOB_RETRY_MS     200
#define JOB_RETRY_MAX_MS 5000

int srv_job_run(struct srv *s, struct store *db, int64_t id)
{
	struct store_comparison_job job;
	struct job_out out;
	char err[512] = "";
	const char *outcome = "failed";
	memset(&out, 0, sizeof out);
	if (store_comparison_job(db, id, &job) < 0) {
		srv_log("comparison %lld: cannot load the job: %s", (long long)id,
		        store_errmsg(db));
		/* never leave it running: give it back for another try */
		while (store_comparison_requeue(db, id) == STORE_BUSY && !stopping(s))
			sleep_ms(JOB_RETRY_MS);
		return -1;
	}
	int64_t t0 = srv_now_ms();
	int rc = job_compute(s, db, &job, &out, err, sizeof err);
	int64_t write_ms = 0;
	if (rc == 0) {
		for (int tries = 0; tries < JOB_WRITE_TRIES; tries++) {
			int64_t w0 = srv_now_ms();
			rc = job_store_done(s, db, id, &out);
			write_ms += srv_now_ms() - w0;
			if (rc != STORE_BUSY)
				break;
			sleep_ms(JOB_RETRY_MS);
		}
		if (rc == 0) {
			outcome = "done";
		} else if (rc == STORE_BUSY) {
			snprintf(err, sizeof err, "database busy, requeued: %s", store_errmsg(db));
			outcome = "requeued";
		} else if (rc == STORE_NOT_FOUND) {
			snprintf(err, sizeof err, "deleted while it ran");
			outcome = "dropped";
		} else {
			snprintf(err, sizeof err, "cannot store the result: %s", store_errmsg(db));
		}
	}
	/* the job must leave 'running': retry the final write until it lands
	 * (or the daemon stops: start-up recovery requeues it) */
	for (int pause = JOB_RETRY_MS;; pause = pause < JOB_RETRY_MAX_MS ? pause * 2 : pause) {
		int frc = 0;
		if (!strcmp(outcome, "failed"))
			frc = job_store_failed(s, db, id, err);
		else if (!strcmp(outcome, "requeued"))
			frc = store_comparison_requeue(db, id);
		if (frc == 0 || frc == STORE_NOT_FOUND)
			break;
		srv_log("comparison %lld: cannot record the outcome (%s): %s", (long long)id,
		        outcome, store_errmsg(db));
		if (stopping(s))
			break;
		sleep_ms(pause);
	}
	srv_webhooks_notify(s);
	int64_t elapsed_ms = srv_now_ms() - t0;
	srv_metrics_observe(&s->metrics.job_seconds, elapsed_ms * 1000);
	if (strcmp(outcome, "requeued") != 0)
		atomic_fetch_add(!strcmp(outcome, "done") ? &s->metrics.jobs_done
		                                          : &s->metrics.jobs_failed,
		                 1);
	srv_log("comparison %lld %s in %lld ms (writing %lld ms)%s%s", (long long)id, outcome,
	        (long long)elapsed_ms, (long long)write_ms, err[0] ? ": " : "", err);
	job_out_free(&out);
	store_comparison_job_free(&job);
	return strcmp(outcome, "done") && strcmp(outcome, "failed") ? -1 : 0;
}
