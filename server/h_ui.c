/* h_ui.c - the browser side of the daemon: fetch the store's JSON (and the
 * typed activation rows, handed over as they are), hand it to web/ for
 * rendering, reply with security headers.
 *
 * Pages are server-rendered and read without JS.  The activation page
 * shows one filtered window of rows (the store filters and pages; the
 * window starts at row `from`), so the first page of a 100k-row
 * comparison costs one indexed range read.  The divergence profile needs
 * every non-matching row and is therefore a separate request (an SVG the
 * page embeds through <object>), so it never slows the first paint.
 * Bad query values never produce a blank page: an invalid or too costly
 * regex, or a bad phase, is shown as a filter error above the (empty)
 * table (status 400). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "act_json.h"
#include "srv.h"
#include "store.h"
#include "train_json.h"
#include "ui.h"
#include "web.h"

#define UI_STEPS_PAGE       100
#define UI_MAX_SERIES       200000 /* steps read for charts */
#define UI_REPORT_MATCH_CAP 2000   /* matched rows kept in a report */
#define UI_REPORT_TOTAL_CAP 50000

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Queue body (taken) with the HTML security headers. */
static int reply(struct srv_req *r, unsigned status, const char *ctype, const char *csp,
                 struct buf *body, double t0, const char *disposition)
{
	char timing[64];
	snprintf(timing, sizeof timing, "render;dur=%.2f", now_ms() - t0);
	const char *const hdrs[] = {"Referrer-Policy",
	                            "no-referrer",
	                            "Content-Security-Policy",
	                            csp,
	                            "Content-Disposition",
	                            disposition,
	                            "Server-Timing",
	                            timing,
	                            NULL};
	return srv_reply_buf_headers(r, status, ctype, body, hdrs);
}

static int reply_page(struct srv_req *r, unsigned status, struct buf *body, double t0)
{
	return reply(r, status, "text/html; charset=utf-8", web_csp_page, body, t0, NULL);
}

/* A small HTML error page. */
static int error_page(struct srv_req *r, unsigned status, const char *what, double t0)
{
	struct buf b = BUF_INIT;
	char title[64];
	snprintf(title, sizeof title, "%u \xe2\x80\x94 parity", status);
	web_page_begin(&b, WEB_SERVER, title, 0);
	web_printf(&b, "<h1>%u</h1><p class=\"error\">%s</p><p><a href=\"/\">Home</a></p>", status,
	           what);
	web_page_end(&b, WEB_SERVER);
	return reply_page(r, status, &b, t0);
}

static struct store *db_or_page(struct srv_req *r, double t0)
{
	int busy = 0;
	if (!r->db)
		r->db = srv_db_acquire_wait(r->srv, SRV_DB_WAIT_MS, &busy);
	if (!r->db && busy)
		r->retry_after_s = 1;
	if (!r->db)
		error_page(r, 503,
		           busy ? "The server is busy; try again in a moment."
		                : "The database is unavailable.",
		           t0);
	return r->db;
}

static long query_long(struct srv_req *r, const char *name, long lo, long hi, long dflt)
{
	const char *v = srv_query(r, name);
	char *end;
	if (!v || !*v)
		return dflt;
	long x = strtol(v, &end, 10);
	if (*end || x < lo || x > hi)
		return dflt;
	return x;
}

static const char *query_str(struct srv_req *r, const char *name)
{
	const char *v = srv_query(r, name);
	return v && *v ? v : NULL;
}

/* ---- assets ---------------------------------------------------------------- */

int srv_ui_asset(struct srv_req *r)
{
	double t0 = now_ms();
	const char *name = strrchr(r->url, '/');
	const unsigned char *data;
	size_t len;
	const char *ctype;
	if (!name || web_asset(name + 1, &data, &len, &ctype) < 0)
		return error_page(r, 404, "No such asset.", t0);
	struct MHD_Response *resp =
	        MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Content-Type", ctype);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Cache-Control", "public, max-age=300");
	int rc = srv_queue_response(r, 200, resp, (int64_t)len);
	return rc;
}

/* ---- home and runs ------------------------------------------------------- */

int srv_ui_home(struct srv_req *r)
{
	double t0 = now_ms();
	struct store *db = db_or_page(r, t0);
	json_t *cmps = NULL, *runs = NULL;
	struct buf b = BUF_INIT;
	char base[1200];
	if (!db)
		return MHD_YES;
	if (store_comparisons_list(db, 20, NULL, &cmps) < 0 ||
	    store_runs_list(db, NULL, NULL, 20, NULL, &runs) < 0) {
		json_decref(cmps);
		return error_page(r, 500, store_errmsg(db), t0);
	}
	const char *host = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Host");
	if (r->srv->cfg.public_url[0])
		snprintf(base, sizeof base, "%s", r->srv->cfg.public_url);
	else
		snprintf(base, sizeof base, "http://%s", host ? host : "localhost:8080");
	int rc = web_home(&b, cmps, runs, base);
	json_decref(cmps);
	json_decref(runs);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, 200, &b, t0);
}

/* Every page of store_steps_list / store_comparison_steps_list into one
 * array (at most UI_MAX_SERIES rows).  NULL on error. */
static json_t *all_steps(struct store *db, int64_t id, int rank, int comparison)
{
	json_t *all = json_array();
	char *cursor = NULL;
	while (all && json_array_size(all) < UI_MAX_SERIES) {
		json_t *page = NULL;
		int rc;
		if (comparison) {
			struct store_step_page sp;
			rc = store_comparison_steps_list(db, id, rank, 1000, cursor, &sp);
			if (rc == 0 && !(page = srv_train_steps_page_json(&sp)))
				rc = STORE_ERROR;
			store_step_page_free(&sp);
		} else {
			rc = store_steps_list(db, id, rank, 0, 1000, cursor, &page);
		}
		free(cursor);
		cursor = NULL;
		if (rc < 0) {
			json_decref(all);
			return NULL;
		}
		json_array_extend(all, json_object_get(page, "steps"));
		const char *next = json_string_value(json_object_get(page, "next_cursor"));
		if (next)
			cursor = strdup(next);
		json_decref(page);
		if (!cursor)
			break;
	}
	free(cursor);
	return all;
}

int srv_ui_run(struct srv_req *r)
{
	double t0 = now_ms();
	struct store *db = db_or_page(r, t0);
	struct buf b = BUF_INIT;
	json_t *steps = NULL;
	if (!db)
		return MHD_YES;
	json_t *run = store_run_json(db, r->id);
	if (!run)
		return error_page(r, 404, "No such run.", t0);
	const char *kind = json_string_value(json_object_get(run, "kind"));
	if (kind && !strcmp(kind, "training")) {
		json_t *first = json_array_get(json_object_get(run, "logs"), 0);
		int rank = (int)json_integer_value(json_object_get(first, "rank"));
		if (first)
			steps = all_steps(db, r->id, rank, 0);
	}
	int rc = web_run(&b, run, steps);
	json_decref(run);
	json_decref(steps);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, 200, &b, t0);
}

/* ---- activation helpers -------------------------------------------------- */

/* The per-rank document of an activation result (the result itself for
 * single documents). */
static json_t *rank_doc(json_t *result, int rank)
{
	json_t *ranks = json_object_get(result, "ranks"), *d;
	size_t i;
	json_array_foreach(ranks, i, d)
	{
		if (json_integer_value(json_object_get(d, "rank")) == rank)
			return d;
	}
	return json_array_size(ranks) ? NULL : result;
}

static int default_rank(json_t *result)
{
	json_t *first = json_array_get(json_object_get(result, "ranks"), 0);
	return first ? (int)json_integer_value(json_object_get(first, "rank")) : 0;
}

struct profile_acc {
	struct web_profile_point *pts;
	size_t n, cap;
};

static int profile_point(void *ctx, int64_t idx, const char *status, const char *phase, double dist)
{
	struct profile_acc *acc = ctx;
	if (acc->n == acc->cap) {
		size_t ncap = acc->cap ? acc->cap * 2 : 1024;
		struct web_profile_point *np = realloc(acc->pts, ncap * sizeof *np);
		if (!np)
			return STORE_ERROR;
		acc->pts = np;
		acc->cap = ncap;
	}
	struct web_profile_point *q = &acc->pts[acc->n++];
	q->idx = (long)idx;
	q->dist = dist;
	q->status = !status ? 0 : !strcmp(status, "diff") ? 1 : !strcmp(status, "a_only") ? 2 : 3;
	q->phase = phase && !strcmp(phase, "backward");
	return 0;
}

/* Profile points of one rank: every non-matching row (matched rows sit
 * at distance 0 and are drawn from the row count), read through the
 * store's compact profile reader (no row JSON is parsed). */
static int collect_profile(struct store *db, int64_t id, int rank, json_t *rd,
                           struct web_profile *p, struct web_profile_point **pts)
{
	struct profile_acc acc = {NULL, 0, 0};
	memset(p, 0, sizeof *p);
	int rc = store_comparison_profile_foreach(db, id, rank, profile_point, &acc);
	*pts = acc.pts;
	json_t *fd = json_object_get(rd, "first_divergence");
	json_t *ff = json_object_get(json_object_get(fd, "forward"), "row");
	json_t *fb = json_object_get(json_object_get(fd, "backward"), "row");
	p->pts = acc.pts;
	p->n = acc.n;
	p->n_rows =
	        (long)json_integer_value(json_object_get(json_object_get(rd, "summary"), "rows"));
	p->first_fwd = json_is_integer(ff) ? (long)json_integer_value(ff) : -1;
	p->first_bwd = json_is_integer(fb) ? (long)json_integer_value(fb) : -1;
	return rc < 0 ? rc : 0;
}

int srv_ui_profile(struct srv_req *r)
{
	double t0 = now_ms();
	struct store *db = db_or_page(r, t0);
	struct web_profile p;
	struct web_profile_point *pts = NULL;
	struct buf b = BUF_INIT, pre = BUF_INIT;
	if (!db)
		return MHD_YES;
	json_t *cmp = store_comparison_json(db, r->id);
	json_t *result = json_object_get(cmp, "result");
	const char *kind = json_string_value(json_object_get(cmp, "kind"));
	if (!cmp || !result || !kind || strcmp(kind, "activation") != 0) {
		json_decref(cmp);
		return error_page(r, 404, "No finished activation comparison with that id.", t0);
	}
	int rank = (int)query_long(r, "rank", 0, 1 << 20, default_rank(result));
	json_t *rd = rank_doc(result, rank);
	if (!rd) {
		json_decref(cmp);
		return error_page(r, 404, "No such rank.", t0);
	}
	int rc = collect_profile(db, r->id, rank, rd, &p, &pts);
	if (rc == 0) {
		buf_printf(&pre, "/ui/comparisons/%lld?rank=%d&from=", (long long)r->id, rank);
		rc = web_profile_svg(&b, &p, pre.data, "_top", 1);
	}
	free(pts);
	buf_reset(&pre);
	json_decref(cmp);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Cannot build the profile.", t0);
	}
	return reply(r, 200, "image/svg+xml",
	             "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'", &b,
	             t0, NULL);
}

/* ---- comparison pages ---------------------------------------------------- */

static int act_page(struct srv_req *r, json_t *cmp, double t0)
{
	struct store *db = r->db;
	json_t *result = json_object_get(cmp, "result");
	struct web_act_filters f;
	struct web_act_view v;
	struct buf b = BUF_INIT, url = BUF_INIT;
	char cursor[64];
	unsigned status = 200;

	memset(&f, 0, sizeof f);
	f.rank = (int)query_long(r, "rank", 0, 1 << 20, default_rank(result));
	f.status = query_str(r, "status");
	f.method = query_str(r, "method");
	f.phase = query_str(r, "phase");
	f.origin = query_long(r, "origin", 0, 1, 0) == 1 ? 1 : -1;
	f.q = query_str(r, "q");
	f.icase = query_long(r, "icase", 0, 1, 0) == 1;
	f.from = query_long(r, "from", 0, 1L << 40, 0);
	f.limit = (int)query_long(r, "limit", 1, 1000, 200);

	memset(&v, 0, sizeof v);
	v.cmp = cmp;
	v.f = &f;
	v.next_from = -1;
	v.mode = WEB_SERVER;
	if (f.from > 0)
		snprintf(cursor, sizeof cursor, "w%d.%ld", f.rank, f.from - 1);
	else
		cursor[0] = 0;
	struct store_key_filter kf;
	srv_key_filter_init(r, &kf, f.q, f.icase);
	struct store_row_page page;
	int rc = store_comparison_rows_list(db, r->id, f.rank, f.status, f.method, f.phase,
	                                    f.origin, &kf, f.limit, cursor, &page);
	if (rc == STORE_CANCELLED) {
		r->client_gone = 1;
		return MHD_NO;
	}
	if (rc == STORE_BAD_REGEX || rc == STORE_TOO_COSTLY || rc == STORE_INVALID ||
	    rc == STORE_BAD_CURSOR) {
		v.filter_error = store_errmsg(db);
		status = 400;
	} else if (rc < 0) {
		store_row_page_free(&page);
		return error_page(r, 500, store_errmsg(db), t0);
	}
	struct web_act_row *rows = malloc((page.n_rows ? page.n_rows : 1) * sizeof *rows);
	if (!rows) {
		store_row_page_free(&page);
		return error_page(r, 500, "Out of memory.", t0);
	}
	for (size_t i = 0; i < page.n_rows; i++)
		rows[i] = (struct web_act_row){(long)page.rows[i].idx, &page.rows[i].row};
	v.rows = rows;
	v.n_rows = page.n_rows;
	if (page.next_cursor[0] && page.n_rows)
		v.next_from = (long)page.rows[page.n_rows - 1].idx + 1;
	buf_printf(&url, "/ui/comparisons/%lld/profile.svg?rank=%d", (long long)r->id, f.rank);
	v.profile_url = url.data;
	rc = web_act_page(&b, &v);
	free(rows);
	store_row_page_free(&page);
	buf_reset(&url);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, status, &b, t0);
}

static int train_page(struct srv_req *r, json_t *cmp, double t0)
{
	struct store *db = r->db;
	json_t *result = json_object_get(cmp, "result");
	struct web_train_view v;
	struct buf b = BUF_INIT;
	json_t *page = NULL, *all;
	int rank = (int)json_integer_value(json_object_get(result, "rank"));
	const char *cursor = query_str(r, "cursor");
	unsigned status = 200;

	memset(&v, 0, sizeof v);
	v.cmp = cmp;
	v.mode = WEB_SERVER;
	v.log_y = query_long(r, "log", 0, 1, 0) == 1;
	all = all_steps(db, r->id, rank, 1);
	struct store_step_page sp;
	int rc = store_comparison_steps_list(db, r->id, rank, UI_STEPS_PAGE, cursor, &sp);
	if (rc == STORE_BAD_CURSOR) {
		status = 400;
		cursor = NULL;
		store_step_page_free(&sp);
		rc = store_comparison_steps_list(db, r->id, rank, UI_STEPS_PAGE, NULL, &sp);
	}
	if (rc == 0 && !(page = srv_train_steps_page_json(&sp)))
		rc = STORE_ERROR;
	store_step_page_free(&sp);
	if (rc < 0) {
		json_decref(all);
		return error_page(r, 500, store_errmsg(db), t0);
	}
	v.steps_all = all;
	v.steps_page = json_object_get(page, "steps");
	v.next_cursor = json_string_value(json_object_get(page, "next_cursor"));
	v.cursor = cursor;
	rc = web_train_page(&b, &v);
	json_decref(all);
	json_decref(page);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, status, &b, t0);
}

/* Load the comparison; pending/failed ones get their state page.  Returns
 * the comparison (new reference) when it is done, else NULL with the
 * reply queued. */
static json_t *done_or_state_page(struct srv_req *r, double t0, int *ret)
{
	struct store *db = db_or_page(r, t0);
	*ret = MHD_YES;
	if (!db)
		return NULL;
	json_t *cmp = store_comparison_json(db, r->id);
	if (!cmp) {
		*ret = error_page(r, 404, "No such comparison.", t0);
		return NULL;
	}
	const char *st = json_string_value(json_object_get(cmp, "status"));
	if (!st || strcmp(st, "done") != 0 || !json_is_object(json_object_get(cmp, "result"))) {
		struct buf b = BUF_INIT;
		if (web_comparison_pending(&b, cmp) < 0) {
			buf_reset(&b);
			*ret = error_page(r, 500, "Out of memory.", t0);
		} else {
			*ret = reply_page(r, 200, &b, t0);
		}
		json_decref(cmp);
		return NULL;
	}
	return cmp;
}

int srv_ui_comparison(struct srv_req *r)
{
	double t0 = now_ms();
	int ret;
	/* a key regex: build the page on a reader thread (keyfilter.c) */
	if (query_str(r, "q")) {
		int off = srv_filter_offload(r);
		if (off > 0)
			return MHD_YES;
		if (off < 0) {
			r->retry_after_s = 1;
			return error_page(r, 503,
			                  "Too many regex-filtered pages at once; reload shortly.",
			                  t0);
		}
	}
	json_t *cmp = done_or_state_page(r, t0, &ret);
	if (!cmp)
		return ret;
	const char *kind = json_string_value(json_object_get(cmp, "kind"));
	ret = kind && !strcmp(kind, "training") ? train_page(r, cmp, t0) : act_page(r, cmp, t0);
	json_decref(cmp);
	return ret;
}

/* ---- the report ----------------------------------------------------------- */

void srv_ui_report_rows_free(struct srv_ui_rows *r)
{
	for (size_t i = 0; i < r->n_pages; i++)
		store_row_page_free(&r->pages[i]);
	free(r->pages);
	free(r->rows);
	free(r->note);
	memset(r, 0, sizeof *r);
}

int srv_ui_report_rows(struct store *db, int64_t id, int rank, long match_cap, long total_cap,
                       struct srv_ui_rows *out)
{
	char cursor[64] = "";
	const char *filter = NULL; /* all rows until the matched cap is reached */
	long n_match = 0, skipped_match = 0;
	size_t cap_rows = 0;
	int rc = 0, truncated = 0;
	memset(out, 0, sizeof *out);
	for (;;) {
		struct store_row_page *more =
		        realloc(out->pages, (out->n_pages + 1) * sizeof *out->pages);
		if (!more)
			return STORE_ERROR;
		out->pages = more;
		struct store_row_page *page = &out->pages[out->n_pages++];
		rc = store_comparison_rows_list(db, id, rank, filter, NULL, NULL, -1, NULL, 1000,
		                                cursor[0] ? cursor : NULL, page);
		if (rc < 0)
			return rc;
		if (out->n_rows + page->n_rows > cap_rows) {
			size_t ncap = out->n_rows + page->n_rows;
			struct web_act_row *nr = realloc(out->rows, (ncap ? ncap : 1) * sizeof *nr);
			if (!nr)
				return STORE_ERROR;
			out->rows = nr;
			cap_rows = ncap;
		}
		for (size_t i = 0; i < page->n_rows; i++) {
			const struct store_act_row *row = &page->rows[i];
			if (row->row.status == MATCHER_MATCH) {
				if (n_match >= match_cap) {
					skipped_match++;
					continue;
				}
				n_match++;
			}
			if ((long)out->n_rows >= total_cap) {
				truncated = 1;
				break;
			}
			out->rows[out->n_rows++] = (struct web_act_row){(long)row->idx, &row->row};
		}
		if (!page->next_cursor[0] || truncated)
			break;
		snprintf(cursor, sizeof cursor, "%s", page->next_cursor);
		if (!filter && n_match >= match_cap)
			filter = "diff,a_only,b_only"; /* the cursor stays valid: same order */
	}
	if (filter || skipped_match || truncated) {
		struct buf nb = BUF_INIT;
		buf_printf(&nb,
		           "Large comparison: this report holds %s non-matching row%s and the "
		           "first %ld matched rows",
		           truncated ? "the first" : "every", truncated ? "s (capped)" : "",
		           n_match);
		if (truncated)
			buf_printf(&nb, "; it stops after %ld rows in all", total_cap);
		buf_puts(&nb, ". The service shows every row.");
		if (!(out->note = buf_take(&nb)))
			return STORE_ERROR;
	}
	return 0;
}

int srv_ui_report(struct srv_req *r)
{
	double t0 = now_ms();
	int ret;
	json_t *cmp = done_or_state_page(r, t0, &ret);
	if (!cmp)
		return ret;
	struct store *db = r->db;
	json_t *result = json_object_get(cmp, "result");
	const char *kind = json_string_value(json_object_get(cmp, "kind"));
	struct buf b = BUF_INIT, note = BUF_INIT;
	json_t *steps = NULL;
	struct srv_ui_rows rows;
	struct web_profile p, *pp = NULL;
	struct web_profile_point *pts = NULL;
	char disp[96];
	int rc, rank = -1;

	memset(&rows, 0, sizeof rows);
	if (kind && !strcmp(kind, "training")) {
		steps = all_steps(db, r->id,
		                  (int)json_integer_value(json_object_get(result, "rank")), 1);
		rc = steps ? 0 : -1;
	} else {
		rank = (int)query_long(r, "rank", 0, 1 << 20, default_rank(result));
		json_t *rd = rank_doc(result, rank);
		rc = rd ? srv_ui_report_rows(db, r->id, rank, UI_REPORT_MATCH_CAP,
		                             UI_REPORT_TOTAL_CAP, &rows)
		        : STORE_NOT_FOUND;
		if (rc == 0 && collect_profile(db, r->id, rank, rd, &p, &pts) == 0)
			pp = &p;
		if (json_array_size(json_object_get(result, "ranks")) > 1)
			buf_printf(&note,
			           "This report shows rank %d of %zu (add ?rank=N for another). ",
			           rank, json_array_size(json_object_get(result, "ranks")));
		if (rows.note)
			buf_puts(&note, rows.note);
	}
	if (rc == 0)
		rc = web_report_html(&b, cmp, rows.rows, rows.n_rows, steps, pp, rank,
		                     note.len ? note.data : NULL);
	free(pts);
	buf_reset(&note);
	srv_ui_report_rows_free(&rows);
	json_decref(steps);
	json_decref(cmp);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, rc == STORE_NOT_FOUND ? 404 : 500, "Cannot build the report.",
		                  t0);
	}
	snprintf(disp, sizeof disp, "inline; filename=\"comparison-%lld.html\"", (long long)r->id);
	return reply(r, 200, "text/html; charset=utf-8", web_csp_report, &b, t0, disp);
}

/* ---- offline reports for the CLI ---------------------------------------- */

static int write_buf(FILE *f, struct buf *b)
{
	if (b->len && fwrite(b->data, 1, b->len, f) != b->len)
		return -1;
	return 0;
}

int srv_ui_act_report_file(FILE *f, const struct srv_act_doc *d)
{
	const struct matcher_match_result *res = d->result;
	json_t *doc = srv_act_result_json(d, 0);
	struct web_profile_point *pts = NULL;
	struct web_act_row *rows = NULL;
	struct web_profile p;
	struct buf b = BUF_INIT, note = BUF_INIT;
	size_t i, n_pts = 0, n_rows = 0, n_match = 0, skipped = 0;
	int rc = -1;

	if (!doc)
		goto done;
	pts = malloc((res->n_rows ? res->n_rows : 1) * sizeof *pts);
	rows = malloc((res->n_rows ? res->n_rows : 1) * sizeof *rows);
	if (!pts || !rows)
		goto done;
	for (i = 0; i < res->n_rows; i++) {
		const struct matcher_row *row = &res->rows[i];
		int is_match = row->status == MATCHER_MATCH;
		if (!is_match) {
			struct web_profile_point *q = &pts[n_pts++];
			q->idx = (long)i;
			q->dist = row->output_hash_distance > row->input_hash_distance
			                  ? row->output_hash_distance
			                  : row->input_hash_distance;
			q->status = (unsigned char)row->status;
			q->phase = row->phase == MATCHER_BACKWARD;
		}
		if ((is_match && n_match >= UI_REPORT_MATCH_CAP) || n_rows >= UI_REPORT_TOTAL_CAP) {
			skipped++;
			continue;
		}
		n_match += is_match;
		rows[n_rows++] = (struct web_act_row){(long)i, row};
	}
	memset(&p, 0, sizeof p);
	p.pts = pts;
	p.n = n_pts;
	p.n_rows = (long)res->n_rows;
	p.first_fwd = res->summary.first_divergence[0] == MATCHER_NO_ROW
	                      ? -1
	                      : (long)res->summary.first_divergence[0];
	p.first_bwd = res->summary.first_divergence[1] == MATCHER_NO_ROW
	                      ? -1
	                      : (long)res->summary.first_divergence[1];
	if (skipped)
		buf_printf(&note,
		           "Large comparison: this report holds %zu of %zu rows: %s non-matching "
		           "row and the first %zu matched rows. Use the service or --format json "
		           "for every row.",
		           n_rows, res->n_rows,
		           n_rows >= UI_REPORT_TOTAL_CAP ? "the first (capped)" : "every", n_match);
	if (web_report_html(&b, doc, rows, n_rows, NULL, &p, -1, note.len ? note.data : NULL) < 0)
		goto done;
	rc = write_buf(f, &b);
done:
	json_decref(doc);
	free(rows);
	free(pts);
	buf_reset(&b);
	buf_reset(&note);
	return rc;
}

int srv_ui_train_report_file(FILE *f, const struct matcher_train_result *r,
                             const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                             const char *name_a, const char *name_b)
{
	json_t *doc = srv_train_result_json(r, a, b), *steps = json_array();
	struct buf out = BUF_INIT;
	int rc = -1;
	if (!doc || !steps)
		goto done;
	json_object_set_new(doc, "names",
	                    json_pack("{s:o,s:o}", "a", srv_train_json_text(name_a), "b",
	                              srv_train_json_text(name_b)));
	for (size_t i = 0; i < r->n_common; i++) {
		json_t *row = srv_train_row_json(r, i);
		if (!row || json_array_append_new(steps, row) < 0)
			goto done;
	}
	if (web_report_html(&out, doc, NULL, 0, steps, NULL, -1, NULL) < 0)
		goto done;
	rc = write_buf(f, &out);
done:
	json_decref(doc);
	json_decref(steps);
	buf_reset(&out);
	return rc;
}

int srv_ui_is_html_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n >= 5 && (!strcasecmp(path + n - 5, ".html") ||
	                  (n >= 4 && !strcasecmp(path + n - 4, ".htm")));
}
