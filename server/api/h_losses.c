/* h_losses.c - GET /runs/{id}/losses.txt: a training run's metric as a
 * golden loss file (web_losses_*), streamed.
 *
 * Query: rank (default 0), metric (default loss).  The steps are read in
 * pages of STEP_PAGE from the store as the client takes the body, each
 * page on a pooled connection held only while it is read, so memory stays
 * bounded whatever the run's length.  404 for a missing run or rank, 400
 * for an activation run or a metric name that is not one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "trainsrc.h"
#include "web.h"
#include "api.h"
#include "http.h"

#define STEP_PAGE 2000

struct losses_stream {
	struct srv *srv;
	int64_t run_id;
	int rank;
	int binary; /* a TensorBoard source: values as Python's repr */
	char metric[64];
	char *cursor;
	int done;
	struct buf out;
	size_t out_pos;
};

static void losses_free(void *cls)
{
	struct losses_stream *ls = cls;
	free(ls->cursor);
	buf_reset(&ls->out);
	free(ls);
}

/* Append the next page of lines to ls->out.  0 or -1. */
static int losses_fill(struct losses_stream *ls)
{
	struct store *db = srv_db_acquire(ls->srv);
	if (!db)
		return -1;
	struct store_run_step_page page;
	int rc = store_steps_list(db, ls->run_id, ls->rank, 0, STEP_PAGE, ls->cursor, &page);
	srv_db_release(ls->srv, db);
	if (rc < 0) {
		store_run_step_page_free(&page);
		return -1;
	}
	for (size_t i = 0; i < page.n_steps && rc == 0; i++) {
		const struct store_run_step *row = &page.steps[i];
		const struct store_step_metric *m = NULL;
		for (size_t k = 0; k < row->n_metrics && !m; k++)
			if (strcmp(row->metrics[k].name, ls->metric) == 0)
				m = &row->metrics[k];
		if (!m)
			continue; /* the metric was not logged at this step */
		char text[64];
		web_losses_value(m->has_value ? m->value : NAN, m->text, ls->binary, text,
		                 sizeof text);
		rc = web_losses_line(&ls->out, row->step, text);
	}
	free(ls->cursor);
	ls->cursor = page.next_cursor[0] ? strdup(page.next_cursor) : NULL;
	ls->done = !page.next_cursor[0];
	if (rc == 0 && !ls->done && !ls->cursor)
		rc = -1;
	store_run_step_page_free(&page);
	return rc < 0 ? -1 : 0;
}

static int losses_fill_cb(void *ctx)
{
	return losses_fill(ctx);
}

static ssize_t losses_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct losses_stream *ls = cls;
	(void)pos;
	return srv_buf_stream_read(&ls->out, &ls->out_pos, &ls->done, losses_fill_cb, ls, out, max);
}

static int metric_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n >= 48)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("_/.-", s[i])))
			return 0;
	return 1;
}

int srv_h_run_losses(struct srv_req *r)
{
	long long rank;
	const char *metric = srv_query(r, "metric");
	if (srv_query_int_or_reply(r, "rank", 0, 1000000, 0, &rank) < 0)
		return MHD_YES;
	if (!metric)
		metric = "loss";
	if (!metric_name_ok(metric))
		return srv_reply_error(r, 400, "bad_metric",
		                       "metric must be a metric name (letters, digits, _ / . -)");
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	char kind[16], source[16], name[256] = "";
	int64_t log_id;
	int rc = store_run_kind(db, r->id, kind, sizeof kind);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (strcmp(kind, "training") != 0)
		return srv_reply_error(r, 400, "wrong_kind",
		                       "run %lld is an activation run: losses are training series",
		                       (long long)r->id);
	if ((rc = store_log_find(db, r->id, (int)rank, &log_id, NULL, NULL, NULL, 0)) < 0 ||
	    (rc = store_log_source(db, log_id, source, sizeof source)) < 0)
		return srv_reply_store_error(r, rc);
	struct store_run_view run;
	if (store_run_get(db, r->id, &run) == 0)
		snprintf(name, sizeof name, "%s", run.run.name);
	store_run_view_free(&run);

	struct losses_stream *ls = calloc(1, sizeof *ls);
	if (!ls)
		return srv_reply_error(r, 503, "out_of_memory", "out of memory");
	ls->srv = r->srv;
	ls->run_id = r->id;
	ls->rank = (int)rank;
	ls->binary = !strcmp(source, matcher_source_name(MATCHER_SOURCE_TFEVENTS));
	snprintf(ls->metric, sizeof ls->metric, "%s", metric);
	char origin[320];
	snprintf(origin, sizeof origin, "run %lld (%s)", (long long)r->id, name);
	if (web_losses_header(&ls->out, origin, ls->rank, source, metric) < 0) {
		losses_free(ls);
		return srv_reply_error(r, 503, "out_of_memory", "out of memory");
	}
	char cd[96];
	snprintf(cd, sizeof cd, "attachment; filename=\"run_%lld_%s.txt\"", (long long)r->id,
	         strcmp(metric, "loss") ? "metric" : "losses");
	const char *const hdrs[] = {"Content-Disposition", cd, NULL};
	return srv_reply_stream(r, 200, MHD_SIZE_UNKNOWN, losses_read, ls, losses_free,
	                        "text/plain; charset=utf-8", hdrs);
}
