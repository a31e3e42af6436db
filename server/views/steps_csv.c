/* steps_csv.c - steps.csv of a training comparison, written from the
 * typed per-step rows (web_train_csv_row): pages of rows read on demand
 * through pool connections, so memory stays bounded however many steps
 * there are.  Served streamed (GET /comparisons/{id}/steps.csv) or built
 * whole for a mail attachment (srv_steps_csv). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_train.h"
#include "store.h"
#include "views.h"
#include "web.h"

/* CSV streaming state: pages of rows fetched on demand, so memory stays
 * bounded however many steps there are.  Holds the compared metrics' names
 * (the columns; copies) and takes a pool connection per page (released
 * between pages). */
struct csv_stream {
	struct srv *srv;
	int64_t id;
	char **names;
	size_t n_names;
	char cursor[64];
	int done;
	struct buf out;
	size_t out_pos;
};

static void csv_free(void *cls)
{
	struct csv_stream *cs = cls;
	buf_reset(&cs->out);
	for (size_t i = 0; i < cs->n_names; i++)
		free(cs->names[i]);
	free(cs->names);
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
		if (web_train_csv_row(&cs->out, (const char *const *)cs->names, cs->n_names,
		                      &sp.rows[i]) < 0)
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

/* Append a copy of name to the stream's columns (room for cap).  0 or -1. */
static int add_name(struct csv_stream *cs, const char *name, size_t cap)
{
	if (!cs->names && !(cs->names = calloc(cap ? cap : 1, sizeof *cs->names)))
		return -1;
	if (!(cs->names[cs->n_names] = strdup(name)))
		return -1;
	cs->n_names++;
	return 0;
}

/* A CSV stream of training comparison c with its header line written (the
 * compared metrics of its result, or before it is done the stored request
 * policy's), or NULL. */
static struct csv_stream *csv_stream_new(struct srv *s, const struct store_comparison *c)
{
	struct csv_stream *cs = calloc(1, sizeof *cs);
	char msg[160];
	if (!cs)
		return NULL;
	cs->srv = s;
	cs->id = c->id;
	if (c->noise) {
		/* a noise comparison: the band's columns (web_noise_csv_*), all
		 * written now from the typed result the view holds */
		int bad = web_noise_csv_header(&cs->out, c->noise) < 0;
		for (size_t i = 0; !bad && i < c->noise->n_steps; i++)
			bad = web_noise_csv_row(&cs->out, c->noise, i) < 0;
		cs->done = 1;
		if (bad) {
			csv_free(cs);
			return NULL;
		}
		return cs;
	}
	struct matcher_train_policy p;
	int bad = 0;
	if (c->train) {
		for (size_t i = 0; !bad && i < c->train->n_metrics; i++)
			bad = add_name(cs, c->train->metrics[i].name, c->train->n_metrics) < 0;
	} else if (c->policy_json &&
	           web_train_stored_policy(c->policy_json, &p, msg, sizeof msg) == 0) {
		for (size_t i = 0; !bad && i < p.n_th; i++)
			bad = add_name(cs, p.th[i].metric, p.n_th) < 0;
	}
	if (bad ||
	    web_train_csv_header(&cs->out, (const char *const *)cs->names, cs->n_names) < 0) {
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

int srv_steps_csv_reply(struct srv_req *r, const struct store_comparison *c)
{
	struct csv_stream *cs = csv_stream_new(r->srv, c);
	if (!cs)
		return MHD_NO;
	return srv_reply_csv_stream(r, csv_read, cs, csv_free, "steps");
}
