/* h_rows.c - the filtered activation rows as a streamed CSV download
 * (GET /comparisons/{id}/rows.csv).
 *
 * rows.csv has the columns of `parity compare --format csv` (the same
 * writer, web/act_csv.c) and the filters of /rows.  Its first page of
 * rows is read by the handler (on a reader thread when q is set, so a bad
 * or costly regex is a JSON 400 before any byte is sent); later pages are
 * read when libmicrohttpd's content reader needs them, a page (1000 rows)
 * at a time with a pool connection taken and released around each read,
 * so memory is one page whatever the row count.  Each later page is one
 * bounded read (the regex limits and time budget apply per page); with q
 * it runs on a reader thread (srv_buf_stream_read_offloaded), never on
 * the libmicrohttpd worker, and stops when the client leaves.  A later
 * page that fails (or finds the reader queue full) ends the body with an
 * error, so the client sees a broken transfer (curl exits 18), never a
 * silently short file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "web.h"
#include "api.h"

#define CSV_PAGE_ROWS 1000

/* ---- rows.csv ------------------------------------------------------------- */

/* The stream's own copies of the filters (the request's strings are not
 * used once the handler returns). */
struct rows_csv {
	struct srv *srv;
	int64_t id;
	int rank, origin, icase;
	char *status, *method, *phase, *q;
	char cursor[64];
	int done;
	struct buf out;
	size_t out_pos;
	struct srv_page_read pr; /* with q: later pages on a reader thread */
};

static void rows_csv_free(void *cls)
{
	struct rows_csv *cs = cls;
	free(cs->status);
	free(cs->method);
	free(cs->phase);
	free(cs->q);
	buf_reset(&cs->out);
	free(cs);
}

static char *dup_or_null(const char *s, int *oom)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		*oom = 1;
	return d;
}

/* Append the CSV lines of page to cs->out and move the cursor on. */
static int csv_page(struct rows_csv *cs, struct store_row_page *page)
{
	int bad = 0;
	for (size_t i = 0; i < page->n_rows && !bad; i++) {
		struct web_act_row wr = {(long)page->rows[i].idx, &page->rows[i].row};
		bad = web_act_csv_row(&cs->out, page->rows[i].rank, &wr) < 0;
	}
	snprintf(cs->cursor, sizeof cs->cursor, "%s", page->next_cursor);
	cs->done = !page->next_cursor[0];
	return bad ? -1 : 0;
}

/* Read the next page with db (kf: the key filter, whose cancel callback
 * may be NULL).  0, or a STORE_* code. */
static int csv_read_page(struct rows_csv *cs, struct store *db, const struct store_key_filter *kf)
{
	struct store_row_page page;
	int rc = store_comparison_rows_list(db, cs->id, cs->rank, cs->status, cs->method, cs->phase,
	                                    cs->origin, kf, CSV_PAGE_ROWS,
	                                    cs->cursor[0] ? cs->cursor : NULL, &page);
	if (rc == 0 && csv_page(cs, &page) < 0)
		rc = STORE_ERROR;
	store_row_page_free(&page);
	return rc;
}

static int rows_csv_fill(void *ctx)
{
	struct rows_csv *cs = ctx;
	struct store_key_filter kf;
	srv_key_filter_init(cs->pr.r, &kf, cs->q, cs->icase);
	struct store *db = srv_db_acquire(cs->srv);
	if (!db)
		return -1;
	int rc = csv_read_page(cs, db, &kf);
	srv_db_release(cs->srv, db);
	return rc < 0 ? -1 : 0;
}

static ssize_t rows_csv_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct rows_csv *cs = cls;
	(void)pos;
	if (cs->q)
		return srv_buf_stream_read_offloaded(&cs->out, &cs->out_pos, &cs->done, &cs->pr,
		                                     out, max);
	return srv_buf_stream_read(&cs->out, &cs->out_pos, &cs->done, rows_csv_fill, cs, out, max);
}

int srv_h_comparison_rows_csv(struct srv_req *r)
{
	struct srv_row_filters rf;
	if (srv_row_filters_or_reply(r, &rf) < 0)
		return MHD_YES;
	struct rows_csv *cs = calloc(1, sizeof *cs);
	int oom = !cs;
	if (cs) {
		cs->srv = r->srv;
		cs->id = r->id;
		cs->rank = rf.rank;
		cs->origin = rf.origin;
		cs->icase = rf.kf.icase;
		cs->status = dup_or_null(rf.status, &oom);
		cs->method = dup_or_null(rf.method, &oom);
		cs->phase = dup_or_null(rf.phase, &oom);
		cs->q = dup_or_null(rf.kf.regex, &oom);
		cs->pr = (struct srv_page_read){.r = r, .fill = rows_csv_fill, .ctx = cs};
		oom |= web_act_csv_header(&cs->out) < 0;
	}
	if (oom) {
		if (cs)
			rows_csv_free(cs);
		return srv_reply_error(r, 503, "out_of_memory", "out of memory");
	}
	/* the first page here: its errors (bad regex, too costly) are JSON */
	int rc = csv_read_page(cs, r->db, &rf.kf);
	if (rc < 0) {
		rows_csv_free(cs);
		return srv_reply_store_error(r, rc);
	}
	return srv_reply_csv_stream(r, rows_csv_read, cs, rows_csv_free, "rows");
}
