/* steps_csv.c - steps.csv of a training comparison: pages of per-step rows
 * read on demand through pool connections, so memory stays bounded however
 * many steps there are.  Served streamed (GET /comparisons/{id}/steps.csv)
 * or built whole for a mail attachment (srv_steps_csv). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_train.h"
#include "store.h"
#include "web.h"
#include "views.h"

/* CSV streaming state: pages of rows fetched on demand, so memory stays
 * bounded however many steps there are.  Owns a copy of the metric names
 * and a pool connection per page (released between pages). */
struct csv_stream {
	struct srv *srv;
	int64_t id;
	char **metrics;
	size_t n_metrics;
	char *cursor;
	int done;
	struct buf out;
	size_t out_pos;
};

static void csv_free(void *cls)
{
	struct csv_stream *cs = cls;
	for (size_t i = 0; i < cs->n_metrics; i++)
		free(cs->metrics[i]);
	free(cs->metrics);
	free(cs->cursor);
	buf_reset(&cs->out);
	free(cs);
}

/* CSV field from a JSON scalar: text through the shared cell writer
 * (quoted, formulas neutralised), numbers as shortest round-trip text. */
static void csv_value(struct buf *b, json_t *v)
{
	if (json_is_string(v)) {
		web_csv_cell(b, json_string_value(v), json_string_length(v));
	} else if (json_is_integer(v)) {
		buf_printf(b, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		buf_printf(b, "%.17g", json_real_value(v));
	} else if (json_is_true(v)) {
		buf_puts(b, "1");
	} else if (json_is_false(v)) {
		buf_puts(b, "0");
	}
}

static int csv_fill(struct csv_stream *cs)
{
	struct store *db = srv_db_acquire(cs->srv);
	if (!db)
		return -1;
	struct store_step_page sp;
	int rc = store_comparison_steps_list(db, cs->id, -1, 1000, cs->cursor, &sp);
	srv_db_release(cs->srv, db);
	json_t *page = rc < 0 ? NULL : web_train_steps_page_json(&sp);
	store_step_page_free(&sp);
	if (!page)
		return -1;
	size_t i;
	json_t *row;
	json_array_foreach(json_object_get(page, "steps"), i, row)
	{
		csv_value(&cs->out, json_object_get(row, "step"));
		for (size_t m = 0; m < cs->n_metrics; m++) {
			json_t *cell = json_object_get(row, cs->metrics[m]);
			static const char *const cols[] = {"a_text", "b_text", "abs_exact", "rel",
			                                   "over"};
			for (size_t k = 0; k < 5; k++) {
				buf_putc(&cs->out, ',');
				csv_value(&cs->out, json_object_get(cell, cols[k]));
			}
		}
		buf_putc(&cs->out, '\n');
	}
	const char *next = json_string_value(json_object_get(page, "next_cursor"));
	free(cs->cursor);
	cs->cursor = next ? strdup(next) : NULL;
	cs->done = !next;
	json_decref(page);
	return 0;
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

/* A CSV stream of comparison id with its header line written (the
 * metric columns in the order of c's policy thresholds), or NULL. */
static struct csv_stream *csv_stream_new(struct srv *s, int64_t id, json_t *c)
{
	struct csv_stream *cs = calloc(1, sizeof *cs);
	if (!cs)
		return NULL;
	cs->srv = s;
	cs->id = id;
	json_t *th = json_object_get(json_object_get(c, "policy"), "thresholds");
	cs->metrics = calloc(json_object_size(th) + 1, sizeof *cs->metrics);
	if (!cs->metrics) {
		csv_free(cs);
		return NULL;
	}
	const char *name;
	json_t *v;
	buf_puts(&cs->out, "step");
	json_object_foreach(th, name, v)
	{
		static const char *const suffix[] = {"_baseline", "_candidate", "_abs", "_rel",
		                                     "_over"};
		cs->metrics[cs->n_metrics++] = strdup(name);
		for (size_t k = 0; k < 5; k++) {
			struct buf cell = BUF_INIT;
			buf_printf(&cell, "%s%s", name, suffix[k]);
			buf_putc(&cs->out, ',');
			web_csv_cell(&cs->out, cell.data ? cell.data : "", cell.len);
			buf_reset(&cell);
		}
	}
	buf_putc(&cs->out, '\n');
	return cs;
}

int srv_steps_csv(struct srv *s, int64_t id, json_t *c, struct buf *out, size_t max_bytes)
{
	struct csv_stream *cs = csv_stream_new(s, id, c);
	if (!cs)
		return -1;
	int rc = 0;
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

int srv_steps_csv_reply(struct srv_req *r, json_t *c)
{
	struct csv_stream *cs = csv_stream_new(r->srv, r->id, c);
	if (!cs)
		return MHD_NO;
	return srv_reply_csv_stream(r, csv_read, cs, csv_free, "steps");
}
