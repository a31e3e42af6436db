/* train_job.c - training comparisons in the service: the request's policy
 * fields, the job (replay both runs from the store, run the check, build
 * the result and one row of typed cells per common step, which jobs.c
 * stores in the job's one write transaction), and the per-step endpoints
 * (paged JSON, streamed CSV).  The check itself is matcher/traincheck.c;
 * the JSON shapes are web/json_train.c, shared with the CLI so both
 * give identical documents. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srv.h"
#include "store.h"
#include "json_train.h"
#include "traincheck.h"
#include "trainpolicy.h"
#include "web.h"

int srv_train_policy_from_request(json_t *req, char **text_out, char *msg, size_t cap);
int srv_train_job_run(struct srv *s, struct store *db, const struct store_comparison_job *job,
                      struct srv_train_rows *rows, char *err, size_t errcap);
int srv_train_rows_store(struct store *db, int64_t cmp_id, const struct srv_train_rows *rows);
void srv_train_rows_free(struct srv_train_rows *rows);

/* Fold policy, thresholds, metrics, min_steps, allow_warnings and rank of
 * a POST /comparisons body into one policy and its stored form
 * (matcher_train_policy_format; *text_out malloc'd, what is stored).
 * 0, or -1 with a sentence in msg. */
int srv_train_policy_from_request(json_t *req, char **text_out, char *msg, size_t cap)
{
	struct matcher_train_policy p;
	struct buf b = BUF_INIT;
	*text_out = NULL;
	if (web_train_request_policy(req, &p, msg, cap) < 0)
		return -1;
	if (matcher_train_policy_format(&p, &b) < 0) {
		buf_reset(&b);
		snprintf(msg, cap, "out of memory");
		return -1;
	}
	*text_out = b.data;
	return 0;
}

static int replay_step(void *ctx, const struct matcher_step_record *r)
{
	return matcher_trainrun_add_record(ctx, r) < 0 ? -1 : 0;
}

static int replay_warning(void *ctx, const struct matcher_warning *w)
{
	return matcher_trainrun_add_warning(ctx, w) < 0 ? -1 : 0;
}

/* Rebuild a training run from every log of run_id. */
static struct matcher_trainrun *load_run(struct store *db, int64_t run_id,
                                         const struct matcher_train_policy *p, char *err,
                                         size_t errcap)
{
	const char *keep[MATCHER_TRAIN_MAX_METRICS];
	for (size_t i = 0; i < p->n_th; i++)
		keep[i] = p->th[i].metric;
	struct matcher_trainrun *run = matcher_trainrun_new(keep, p->n_th);
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
	matcher_trainrun_free(rows->a);
	matcher_trainrun_free(rows->b);
	arena_reset(&rows->arena);
	memset(rows, 0, sizeof *rows);
}

/* Store the computed rows and typed result (inside the job's write
 * transaction). */
int srv_train_rows_store(struct store *db, int64_t cmp_id, const struct srv_train_rows *rows)
{
	if (rows->has_result) {
		int rc = store_train_result_put(db, cmp_id, &rows->res);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < rows->n; i++) {
		int rc = store_comparison_step_add(
		        db, cmp_id, rows->rank, rows->steps[i], (const char *const *)rows->metrics,
		        &rows->cells[i * rows->n_metrics], rows->n_metrics);
		if (rc < 0)
			return rc;
	}
	return 0;
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
	int rc = -1;
	if (web_train_stored_policy(job->policy_json, &p, err, errcap) < 0)
		goto done;
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
		if (nm > MATCHER_TRAIN_MAX_METRICS ||
		    matcher_train_row(res, i, &rows->steps[i], &rows->cells[i * nm]) < 0) {
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
	matcher_train_result_free(res);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
	return rc;
}

/* ---- GET /comparisons/{id}/steps and steps.csv ------------------------- */

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

int srv_h_comparison_steps(struct srv_req *r)
{
	long long limit, rank;
	const char *cursor;
	if (srv_page_params_or_reply(r, 100, &limit, &cursor) < 0 ||
	    srv_query_int_or_reply(r, "rank", 0, 1000000, -1, &rank) < 0)
		return MHD_YES;
	struct store_comparison_view v;
	int bad = training_comparison_or_reply(r, &v);
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

/* CSV streaming state: pages of rows fetched on demand, so memory stays
 * bounded however many steps there are.  Holds the policy whose metrics
 * are the columns and takes a pool connection per page (released between
 * pages). */
struct csv_stream {
	struct srv *srv;
	int64_t id;
	struct matcher_train_policy policy;
	char cursor[64];
	int done;
	struct buf out;
	size_t out_pos;
};

static void csv_free(void *cls)
{
	struct csv_stream *cs = cls;
	buf_reset(&cs->out);
	free(cs);
}

static int csv_fill(struct csv_stream *cs)
{
	struct store *db = srv_db_acquire(cs->srv);
	if (!db)
		return -1;
	struct store_step_page sp;
	int rc = store_comparison_steps_list(db, cs->id, -1, 1000,
	                                     cs->cursor[0] ? cs->cursor : NULL, &sp);
	srv_db_release(cs->srv, db);
	for (size_t i = 0; rc == 0 && i < sp.n_rows; i++)
		if (web_train_csv_row(&cs->out, &cs->policy, &sp.rows[i]) < 0)
			rc = -1;
	snprintf(cs->cursor, sizeof cs->cursor, "%s", sp.next_cursor);
	cs->done = !cs->cursor[0];
	store_step_page_free(&sp);
	return rc < 0 ? -1 : 0;
}

static int csv_fill_cb(void *ctx)
{
	return csv_fill(ctx);
}

static ssize_t csv_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct csv_stream *cs = cls;
	(void)pos;
	return srv_buf_stream_read(&cs->out, &cs->out_pos, &cs->done, csv_fill_cb, cs, out, max);
}

/* A CSV stream of training comparison c with its header line written (the
 * compared metrics of its policy: the result's, or before it is done the
 * stored request policy's), or NULL. */
static struct csv_stream *csv_stream_new(struct srv *s, const struct store_comparison *c)
{
	struct csv_stream *cs = calloc(1, sizeof *cs);
	char msg[160];
	if (!cs)
		return NULL;
	cs->srv = s;
	cs->id = c->id;
	if (c->train)
		cs->policy = c->train->policy;
	else if (!c->policy_json ||
	         web_train_stored_policy(c->policy_json, &cs->policy, msg, sizeof msg) < 0)
		cs->policy.n_th = 0;
	if (web_train_csv_header(&cs->out, &cs->policy) < 0) {
		csv_free(cs);
		return NULL;
	}
	return cs;
}

int srv_steps_csv(struct srv *s, int64_t id, struct buf *out, size_t max_bytes)
{
	struct store_comparison_view v;
	struct store *db = srv_db_acquire(s);
	int rc = db ? store_comparison_get(db, id, &v) : -1;
	if (db)
		srv_db_release(s, db);
	struct csv_stream *cs = rc < 0 ? NULL : csv_stream_new(s, &v.cmp);
	store_comparison_view_free(&v);
	if (!cs)
		return -1;
	while (!cs->done && cs->out.len <= max_bytes)
		if ((rc = csv_fill(cs)) < 0)
			break;
	if (rc == 0) {
		rc = cs->out.len > max_bytes ? 1 : 0;
		if (rc == 0 && buf_append(out, cs->out.data ? cs->out.data : "", cs->out.len) < 0)
			rc = -1;
	}
	csv_free(cs);
	return rc;
}

int srv_h_comparison_steps_csv(struct srv_req *r)
{
	struct store_comparison_view v;
	if (training_comparison_or_reply(r, &v) < 0) {
		store_comparison_view_free(&v);
		return MHD_YES;
	}
	struct csv_stream *cs = csv_stream_new(r->srv, &v.cmp);
	store_comparison_view_free(&v);
	if (!cs)
		return MHD_NO;
	return srv_reply_csv_stream(r, csv_read, cs, csv_free, "steps");
}
