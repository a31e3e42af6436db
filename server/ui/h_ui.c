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
 * table (status 400).  The key regex ignores case unless case=sensitive
 * (srv_key_icase); the filter bar says "N of M rows" (a count under
 * SRV_COUNT_BUDGET_MS); ?row=N starts the window UI_ROW_CONTEXT rows
 * above row N and ?chain= lists a walked cause chain (h_rows.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "json_act.h"
#include "store.h"
#include "json_train.h"
#include "json_views.h"
#include "web.h"
#include "http.h"
#include "ui.h"
#include "views.h"

#define UI_MAX_SERIES  200000 /* steps read for charts */
#define UI_ROW_CONTEXT 5      /* rows shown above the row of ?row=N */
#define UI_CHAIN_MAX   64     /* rows of a ?chain= listed */

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
	/* same-origin, not no-referrer: under no-referrer a browser sends
	 * "Origin: null" with the pages' own form posts, which the
	 * cross-origin check (http.h) must refuse */
	const char *const hdrs[] = {"Referrer-Policy",
	                            "same-origin",
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
	const char *const hdrs[] = {"Cache-Control", "public, max-age=300", NULL};
	return srv_reply_static(r, 200, ctype, data, len, hdrs);
}

/* ---- home and runs ------------------------------------------------------- */

int srv_ui_home(struct srv_req *r)
{
	double t0 = now_ms();
	struct store *db = db_or_page(r, t0);
	struct store_comparison_page cmps;
	struct store_run_page runs;
	struct buf b = BUF_INIT;
	char base[1200];
	if (!db)
		return MHD_YES;
	memset(&runs, 0, sizeof runs);
	if (store_comparisons_list(db, 20, NULL, &cmps) < 0 ||
	    store_runs_list(db, NULL, NULL, 20, NULL, &runs) < 0) {
		store_comparison_page_free(&cmps);
		store_run_page_free(&runs);
		return error_page(r, 500, store_errmsg(db), t0);
	}
	const char *host = srv_header(r, "Host");
	if (r->srv->cfg.public_url[0])
		snprintf(base, sizeof base, "%s", r->srv->cfg.public_url);
	else
		snprintf(base, sizeof base, "http://%s", host ? host : "localhost:8080");
	int rc = web_home(&b, &cmps, &runs, base);
	store_comparison_page_free(&cmps);
	store_run_page_free(&runs);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, 200, &b, t0);
}

/* The training steps of one rank of a run for its charts: the pages of
 * store_steps_list until the last or UI_MAX_SERIES steps.  *pages
 * malloc'd (free each with store_run_step_page_free, then free()).
 * 0 or a STORE_* code. */
static int run_step_pages(struct store *db, int64_t id, int rank,
                          struct store_run_step_page **pages, size_t *n)
{
	size_t total = 0;
	int rc = 0;
	*pages = NULL;
	*n = 0;
	do {
		struct store_run_step_page *nv = realloc(*pages, (*n + 1) * sizeof *nv);
		if (!nv)
			return STORE_ERROR;
		*pages = nv;
		struct store_run_step_page *p = &nv[(*n)++];
		const char *cursor = *n > 1 ? nv[*n - 2].next_cursor : NULL;
		rc = store_steps_list(db, id, rank, 0, 1000, cursor, p);
		total += p->n_steps;
	} while (rc == 0 && (*pages)[*n - 1].next_cursor[0] && total < UI_MAX_SERIES);
	return rc;
}

/* Pages of more steps than this are built on a render thread
 * (offload.c): a 100k-step page takes seconds, and on a libmicrohttpd
 * worker it would stall every connection the worker holds. */
#define UI_RENDER_STEPS 20000

/* Hand a large page to a render thread: 1 = stop here (handed over, or
 * 503 queued past the render queue), 0 = build it here. */
static int render_elsewhere(struct srv_req *r, int64_t n_steps, double t0)
{
	if (n_steps <= UI_RENDER_STEPS)
		return 0;
	int off = srv_offload(r, SRV_OFFLOAD_RENDER);
	if (off < 0) {
		r->retry_after_s = 5;
		error_page(r, 503, "Too many large pages are being built; reload shortly.", t0);
	}
	return off != 0;
}

int srv_ui_run(struct srv_req *r)
{
	double t0 = now_ms();
	struct store *db = db_or_page(r, t0);
	struct buf b = BUF_INIT;
	struct store_run_step_page *steps = NULL;
	size_t n_steps = 0;
	if (!db)
		return MHD_YES;
	struct store_run_view run;
	int rc = store_run_get(db, r->id, &run);
	if (rc < 0) {
		store_run_view_free(&run);
		if (rc == STORE_NOT_FOUND)
			return error_page(r, 404, "No such run.", t0);
		return error_page(r, 500, store_errmsg(db), t0);
	}
	int train = !strcmp(run.run.kind, "training") && run.run.n_logs;
	if (train && render_elsewhere(r, run.run.logs[0].n_items, t0)) {
		store_run_view_free(&run);
		return MHD_YES;
	}
	if (train)
		rc = run_step_pages(db, r->id, run.run.logs[0].rank, &steps, &n_steps);
	if (rc == 0)
		rc = web_run(&b, &run.run, steps, n_steps);
	store_run_view_free(&run);
	for (size_t i = 0; i < n_steps; i++)
		store_run_step_page_free(&steps[i]);
	free(steps);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, 200, &b, t0);
}

/* ---- activation helpers -------------------------------------------------- */

/* The rank's part of an activation result, NULL when it has none. */
static const struct store_act_rank *rank_of(const struct store_act_result *res, int rank)
{
	for (size_t i = 0; i < res->n_ranks; i++) {
		if (res->ranks[i].rank == rank)
			return &res->ranks[i];
	}
	return NULL;
}

static int default_rank(const struct store_act_result *res)
{
	return res->n_ranks ? res->ranks[0].rank : 0;
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
static int collect_profile(struct store *db, int64_t id, int rank, const struct store_act_rank *rd,
                           struct web_profile *p, struct web_profile_point **pts)
{
	struct profile_acc acc = {NULL, 0, 0};
	memset(p, 0, sizeof *p);
	int rc = store_comparison_profile_foreach(db, id, rank, profile_point, &acc);
	*pts = acc.pts;
	p->pts = acc.pts;
	p->n = acc.n;
	p->n_rows = (long)rd->n_rows;
	p->first_fwd = (long)rd->first_divergence[0].row;
	p->first_bwd = (long)rd->first_divergence[1].row;
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
	struct store_comparison_view cv;
	int grc = store_comparison_get(db, r->id, &cv);
	const struct store_act_result *res = grc == 0 ? cv.cmp.act : NULL;
	if (!res) {
		store_comparison_view_free(&cv);
		return error_page(r, 404, "No finished activation comparison with that id.", t0);
	}
	int rank = (int)query_long(r, "rank", 0, 1 << 20, default_rank(res));
	const struct store_act_rank *rd = rank_of(res, rank);
	if (!rd) {
		store_comparison_view_free(&cv);
		return error_page(r, 404, "No such rank.", t0);
	}
	int rc = collect_profile(db, r->id, rank, rd, &p, &pts);
	if (rc == 0) {
		buf_printf(&pre, "/ui/comparisons/%lld?rank=%d&from=", (long long)r->id, rank);
		rc = web_profile_svg(&b, &p, pre.data, "_top", 1);
	}
	free(pts);
	buf_reset(&pre);
	store_comparison_view_free(&cv);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Cannot build the profile.", t0);
	}
	return reply(r, 200, "image/svg+xml",
	             "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self'", &b,
	             t0, NULL);
}

/* ---- comparison pages ---------------------------------------------------- */

/* ?chain=402,398,390: at most UI_CHAIN_MAX row indexes into out; a
 * malformed list is ignored (0). */
static size_t parse_chain(const char *text, long *out)
{
	size_t n = 0;
	const char *p = text;
	while (p && *p && n < UI_CHAIN_MAX) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 0 || (*end && *end != ','))
			return 0;
		out[n++] = v;
		p = *end ? end + 1 : end;
	}
	return n;
}

/* 1 when name is one of the comma-separated list's items. */
static int status_listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* "N of M rows" of the page's filters into v: M the rank's rows (the
 * result's counts), N a count under the filters (with a regex: a scan
 * under SRV_COUNT_BUDGET_MS; out of budget, a lower bound).  0, or a
 * store error code (its message on the connection). */
static int count_rows(struct srv_req *r, const struct web_act_filters *f, struct web_act_view *v)
{
	const struct store_act_rank *rd = rank_of(v->res, f->rank);
	if (!rd && v->res->n_ranks == 1 && v->res->ranks[0].rank < 0)
		rd = &v->res->ranks[0];
	if (!rd)
		return 0;
	v->n_total = (long long)rd->n_rows;
	if (!f->q && !f->method && f->origin != 1) {
		/* status and phase only: the result's counts, no scan */
		int ph = !f->phase ? -1 : !strcmp(f->phase, "backward");
		v->n_matched = 0;
		for (int st = 0; st < MATCHER_N_STATUS; st++) {
			if (f->status &&
			    !status_listed(f->status, matcher_status_name((enum matcher_status)st)))
				continue;
			v->n_matched += ph < 0 ? rd->n_status[st] : rd->n_phase_status[ph][st];
		}
		return 0;
	}
	struct store_key_filter kf;
	srv_key_filter_init(r, &kf, f->q, f->icase);
	kf.budget_ms = SRV_COUNT_BUDGET_MS;
	int64_t n = 0;
	int partial = 0;
	int rc = store_comparison_rows_count(r->db, r->id, f->rank, f->status, f->method, f->phase,
	                                     f->origin, &kf, &n, &partial);
	if (rc == STORE_BAD_REGEX || rc == STORE_TOO_COSTLY) {
		partial = 1; /* a per-key limit on a row the page did not reach */
		rc = 0;
	}
	if (rc < 0)
		return rc;
	v->n_matched = n;
	v->count_partial = partial;
	return 0;
}

static int act_page(struct srv_req *r, const struct store_comparison *cmp, double t0)
{
	struct store *db = r->db;
	struct web_act_filters f;
	struct web_act_view v;
	struct buf b = BUF_INIT, url = BUF_INIT;
	char cursor[64];
	unsigned status = 200;

	memset(&f, 0, sizeof f);
	f.rank = (int)query_long(r, "rank", 0, 1 << 20, default_rank(cmp->act));
	f.status = query_str(r, "status");
	f.method = query_str(r, "method");
	f.phase = query_str(r, "phase");
	f.origin = query_long(r, "origin", 0, 1, 0) == 1 ? 1 : -1;
	f.q = query_str(r, "q");
	f.icase = srv_key_icase(r) != 0; /* a bad value: the default */
	f.from = query_long(r, "from", 0, 1L << 40, 0);
	f.limit = (int)query_long(r, "limit", 1, 1000, 200);
	/* ?row=N (a #rN link): the page holding row N, UI_ROW_CONTEXT rows
	 * of context above it */
	long row = query_long(r, "row", 0, 1L << 40, -1);
	if (row >= 0)
		f.from = row > UI_ROW_CONTEXT ? row - UI_ROW_CONTEXT : 0;
	/* no position asked for, no filter: open at the first divergence */
	int landed = 0;
	if (row < 0 && !query_str(r, "from") && !f.status && !f.method && !f.phase &&
	    f.origin != 1 && !f.q)
		landed = (f.from = web_act_landing(cmp->act, f.rank, UI_ROW_CONTEXT)) > 0;
	long chain[UI_CHAIN_MAX];
	size_t n_chain = parse_chain(query_str(r, "chain"), chain);
	char *chain_keys[UI_CHAIN_MAX] = {0};

	memset(&v, 0, sizeof v);
	v.cmp = cmp;
	v.res = cmp->act;
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
	v.chain = chain;
	v.n_chain = n_chain;
	v.landed = landed;
	v.landing_context = UI_ROW_CONTEXT;
	v.n_total = -1;
	if (status == 200 && count_rows(r, &f, &v) < 0) {
		free(rows);
		store_row_page_free(&page);
		return error_page(r, 500, store_errmsg(db), t0);
	}
	buf_printf(&url, "/ui/comparisons/%lld/profile.svg?rank=%d", (long long)r->id, f.rank);
	v.profile_url = url.data;
	if (srv_ui_chain_keys(r, f.rank, chain, n_chain, chain_keys) == 0)
		v.chain_keys = (const char *const *)chain_keys;
	rc = web_act_page(&b, &v);
	for (size_t i = 0; i < n_chain; i++)
		free(chain_keys[i]);
	free(rows);
	store_row_page_free(&page);
	buf_reset(&url);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, status, &b, t0);
}

/* An optional step number of the query (?step=, ?from=): 0 when absent
 * or empty, 1 with *out set, -1 when it is not an integer step. */
static int query_step(struct srv_req *r, const char *name, long *out)
{
	const char *v = query_str(r, name);
	char *end;
	if (!v)
		return 0;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (*end || errno || end == v)
		return -1;
	*out = x;
	return 1;
}

static int window_add(void *w, const struct store_step_row *row)
{
	return web_train_window_add(w, row) < 0 ? STORE_ERROR : 0;
}

/* The window of v (its envelopes and the table's rows) filled from the
 * comparison's per-step rows, read a page at a time: memory stays bounded
 * whatever the step count.  0, or an error page is queued (*ret). */
static int train_window(struct srv_req *r, const struct web_train_view *v,
                        struct web_train_window *w, double t0, int *ret)
{
	int rc = web_train_window_init(w, v) < 0 ? STORE_ERROR : 0;
	if (rc == 0)
		rc = store_comparison_steps_each(r->db, r->id, v->res->rank, window_add, w);
	if (rc < 0)
		*ret = error_page(r, 500, store_errmsg(r->db), t0);
	return rc;
}

/* The training page: charts from every per-step row's envelope, the
 * table's page; ?step= (jump), ?from= (pager), ?over=1, ?log=1. */
static int train_page(struct srv_req *r, const struct store_comparison *cmp, double t0)
{
	struct web_train_view v;
	struct web_train_window w;
	struct buf b = BUF_INIT;
	int ret;

	memset(&v, 0, sizeof v);
	v.cmp = cmp;
	v.res = cmp->train;
	v.mode = WEB_SERVER;
	v.log_y = query_long(r, "log", 0, 1, 0) == 1;
	v.over_only = query_long(r, "over", 0, 1, 0) == 1;
	v.has_step = query_step(r, "step", &v.step);
	v.has_from = query_step(r, "from", &v.from);
	if (v.has_step < 0 || v.has_from < 0)
		return error_page(r, 400, "step and from must be step numbers (integers).", t0);
	if (train_window(r, &v, &w, t0, &ret) < 0) {
		web_train_window_free(&w);
		return ret;
	}
	v.win = &w;
	int rc = web_train_page(&b, &v);
	web_train_window_free(&w);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	return reply_page(r, 200, &b, t0);
}

/* Load the comparison into *v; pending/failed ones get their state page.
 * Returns 1 when it is done with its typed result (v->cmp.act or
 * v->cmp.train), else 0 with the reply queued in *ret.  Free v whatever
 * the result. */
/* A candidate against a baseline set (issue 26): the lane, the members,
 * the per-metric table and the band charts, from the stored result and
 * the members' stored values (srv_noise_page_load): the comparison page
 * (web_noise_page), or with report set the self-contained report.html
 * (web_noise_report_html). */
static int noise_page(struct srv_req *r, double t0, int report, struct store_comparison_view *cv)
{
	struct srv_noise_page p;
	struct buf b = BUF_INIT;
	int ret;
	if (srv_noise_page_from_view(r->db, cv, &p) < 0 || !p.view.cmp.noise) {
		srv_noise_page_free(&p);
		return error_page(r, 500, "The comparison's result cannot be read.", t0);
	}
	struct web_noise_view v;
	int rc = -1;
	if (srv_noise_page_view(&p, report ? WEB_OFFLINE : WEB_SERVER, &v) == 0)
		rc = report ? web_noise_report_html(&b, &v) : web_noise_page(&b, &v);
	srv_noise_page_free(&p);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Out of memory.", t0);
	}
	if (!report)
		return reply_page(r, 200, &b, t0);
	char disp[96];
	snprintf(disp, sizeof disp, "inline; filename=\"comparison-%lld.html\"", (long long)r->id);
	ret = reply(r, 200, "text/html; charset=utf-8", web_csp_report, &b, t0, disp);
	return ret;
}

static int done_or_state_page(struct srv_req *r, double t0, struct store_comparison_view *v,
                              int *ret)
{
	struct store *db = db_or_page(r, t0);
	*ret = MHD_YES;
	memset(v, 0, sizeof *v);
	if (!db)
		return 0;
	int rc = store_comparison_get(db, r->id, v);
	if (rc < 0) {
		*ret = rc == STORE_NOT_FOUND ? error_page(r, 404, "No such comparison.", t0)
		                             : error_page(r, 500, store_errmsg(db), t0);
		return 0;
	}
	int done = !strcmp(v->cmp.status, "done") && (v->cmp.act || v->cmp.train || v->cmp.noise);
	if (!done) {
		struct buf b = BUF_INIT;
		if (web_comparison_pending(&b, &v->cmp) < 0) {
			buf_reset(&b);
			*ret = error_page(r, 500, "Out of memory.", t0);
		} else {
			*ret = reply_page(r, 200, &b, t0);
		}
	}
	return done;
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
	struct store_comparison_view v;
	if (done_or_state_page(r, t0, &v, &ret)) {
		if (v.cmp.noise)
			ret = noise_page(r, t0, 0, &v);
		else if (v.cmp.train && render_elsewhere(r, v.cmp.train->n_common, t0))
			ret = MHD_YES;
		else
			ret = v.cmp.train ? train_page(r, &v.cmp, t0) : act_page(r, &v.cmp, t0);
	}
	store_comparison_view_free(&v);
	return ret;
}

/* ---- the report ----------------------------------------------------------- */

/* The served activation report streamed: the head is rendered by the
 * handler, the rows are read from the store a page (1000 rows) at a time
 * inside libmicrohttpd's content reader, each page with a pool connection
 * taken and released around the read, so memory stays bounded by one
 * page of rows and its data whatever the row count.  Every row: forward
 * rows then backward rows, each in row order (web/report.c embeds them
 * as data the report renders virtually). */
struct report_stream {
	struct srv *srv;
	int64_t id;
	int rank;                          /* the rank being written */
	struct store_comparison_view *all; /* every-rank report: the comparison */
	size_t rank_i;                     /* every-rank report: index of rank in its ranks */
	int rank_open;                     /* every-rank report: its section head is written */
	char prefix[WEB_RANK_PREFIX];
	int phase;      /* section being written: 0 forward, 1 backward */
	int in_section; /* its header is written */
	int l1_known;   /* st.show_l1 was decided (first page with rows) */
	char cursor[64];
	int done;
	struct web_report_rows st;
	struct buf out;
	size_t out_pos;
};

static void report_stream_free(void *cls)
{
	struct report_stream *rs = cls;
	if (rs->all) {
		store_comparison_view_free(rs->all);
		free(rs->all);
	}
	buf_reset(&rs->out);
	free(rs);
}

/* Every-rank report: the next rank's section head (its profile read with
 * a pool connection), its counters reset.  0 or -1. */
static int report_rank_begin(struct report_stream *rs)
{
	const struct store_act_result *res = rs->all->cmp.act;
	const struct store_act_rank *rd = &res->ranks[rs->rank_i];
	struct web_profile p;
	struct web_profile_point *pts = NULL;
	rs->rank = rd->rank;
	web_report_rank_prefix(rs->prefix, rs->rank);
	struct store *db = srv_db_acquire(rs->srv);
	if (!db)
		return -1;
	int rc = collect_profile(db, rs->id, rs->rank, rd, &p, &pts);
	srv_db_release(rs->srv, db);
	p.id_prefix = rs->prefix;
	if (rc == 0)
		rc = web_report_rank_begin(&rs->out, res, rs->rank, &p, NULL);
	free(pts);
	memset(&rs->st, 0, sizeof rs->st);
	rs->st.id_prefix = rs->prefix;
	rs->phase = 0;
	rs->l1_known = 0;
	rs->rank_open = 1;
	return rc < 0 ? -1 : 0;
}

/* Append the next piece (a page of rows, a section's end, the page's end)
 * to rs->out.  0, or -1 on a store or memory error. */
static int report_fill(struct report_stream *rs)
{
	static const char *const phase_names[2] = {"forward", "backward"};
	if (rs->all && !rs->rank_open)
		return report_rank_begin(rs);
	if (!rs->in_section) {
		if (web_report_section_begin(&rs->out, &rs->st, rs->phase) < 0)
			return -1;
		rs->in_section = 1;
		rs->cursor[0] = '\0';
	}
	{
		struct store *db = srv_db_acquire(rs->srv);
		if (!db)
			return -1;
		struct store_row_page page;
		int rc = store_comparison_rows_list(db, rs->id, rs->rank, NULL, NULL,
		                                    phase_names[rs->phase], -1, NULL, 1000,
		                                    rs->cursor[0] ? rs->cursor : NULL, &page);
		srv_db_release(rs->srv, db);
		if (rc < 0) {
			store_row_page_free(&page);
			return -1;
		}
		if (!rs->l1_known && page.n_rows) {
			for (size_t i = 0; i < page.n_rows; i++) {
				const struct matcher_row *row = &page.rows[i].row;
				if ((row->a && row->a->stats[MATCHER_STAT_L1]) ||
				    (row->b && row->b->stats[MATCHER_STAT_L1]))
					rs->st.show_l1 = 1;
			}
			rs->l1_known = 1;
		}
		for (size_t i = 0; i < page.n_rows && !rc; i++) {
			const struct store_act_row *row = &page.rows[i];
			struct web_act_row wr = {(long)row->idx, &row->row};
			rc = web_report_row(&rs->out, &rs->st, &wr);
		}
		int more = page.next_cursor[0] != '\0';
		snprintf(rs->cursor, sizeof rs->cursor, "%s", page.next_cursor);
		store_row_page_free(&page);
		if (rc < 0)
			return -1;
		if (more)
			return 0;
	}
	if (web_report_section_end(&rs->out, &rs->st) < 0)
		return -1;
	rs->in_section = 0;
	if (++rs->phase < 2)
		return 0;
	if (rs->all) {
		rs->rank_open = 0;
		if (web_report_rank_end(&rs->out) < 0)
			return -1;
		if (++rs->rank_i < rs->all->cmp.act->n_ranks)
			return 0;
	}
	rs->done = 1;
	return web_report_act_end(&rs->out);
}

static int report_fill_cb(void *ctx)
{
	return report_fill(ctx);
}

static ssize_t report_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct report_stream *rs = cls;
	(void)pos;
	return srv_buf_stream_read(&rs->out, &rs->out_pos, &rs->done, report_fill_cb, rs, out, max);
}

/* The activation report of rank (rd its part), or with rank < 0 of every
 * rank (a section each; the stream takes *v over, leaving it empty): the
 * head into b, the rows streamed. */
static int act_report(struct srv_req *r, struct store_comparison_view *v, int rank,
                      const struct store_act_rank *rd, double t0, const char *disp)
{
	const struct store_comparison *cmp = &v->cmp;
	struct buf b = BUF_INIT, note = BUF_INIT;
	struct web_profile p, *pp = NULL;
	struct web_profile_point *pts = NULL;
	char timing[64];
	size_t n_ranks = cmp->act->n_ranks;
	int rc;

	if (rank < 0) {
		buf_printf(&note,
		           "This report shows every rank (%zu), a section each, with every row "
		           "of the rank; add ?rank=N for one.",
		           n_ranks);
		rc = web_report_act_begin_all(&b, cmp, cmp->act, note.data);
	} else {
		if (collect_profile(r->db, r->id, rank, rd, &p, &pts) == 0)
			pp = &p;
		if (n_ranks > 1)
			buf_printf(&note, "This report shows rank %d of %zu.", rank, n_ranks);
		rc = web_report_act_begin(&b, cmp, cmp->act, pp, rank, note.len ? note.data : NULL);
	}
	free(pts);
	buf_reset(&note);
	struct report_stream *rs = rc < 0 ? NULL : calloc(1, sizeof *rs);
	if (!rs) {
		buf_reset(&b);
		return error_page(r, 500, "Cannot build the report.", t0);
	}
	rs->srv = r->srv;
	rs->id = r->id;
	rs->rank = rank;
	if (rank < 0) {
		if (!(rs->all = malloc(sizeof *rs->all))) {
			buf_reset(&b);
			free(rs);
			return error_page(r, 500, "Cannot build the report.", t0);
		}
		*rs->all = *v; /* the arena moves with it */
		memset(v, 0, sizeof *v);
	}
	rs->out = b;
	snprintf(timing, sizeof timing, "head;dur=%.2f", now_ms() - t0);
	const char *const hdrs[] = {"Referrer-Policy",
	                            "no-referrer",
	                            "Content-Security-Policy",
	                            web_csp_report,
	                            "Content-Disposition",
	                            disp,
	                            "Server-Timing",
	                            timing,
	                            NULL};
	return srv_reply_stream(r, 200, MHD_SIZE_UNKNOWN, report_read, rs, report_stream_free,
	                        "text/html; charset=utf-8", hdrs);
}

int srv_ui_report(struct srv_req *r)
{
	double t0 = now_ms();
	int ret;
	/* every step of every metric: a render thread's work */
	if (srv_offload_or_reply(r, SRV_OFFLOAD_RENDER) < 0)
		return MHD_YES;
	struct store_comparison_view v;
	if (!done_or_state_page(r, t0, &v, &ret)) {
		store_comparison_view_free(&v);
		return ret;
	}
	if (v.cmp.noise)
		return noise_page(r, t0, 1, &v); /* takes v over */
	char disp[96];
	snprintf(disp, sizeof disp, "inline; filename=\"comparison-%lld.html\"", (long long)r->id);
	if (!v.cmp.train) {
		const struct store_act_result *res = v.cmp.act;
		int rank = (int)query_long(r, "rank", 0, 1 << 20,
		                           res->n_ranks > 1 ? -1 : default_rank(res));
		const struct store_act_rank *rd = rank < 0 ? NULL : rank_of(res, rank);
		ret = rank < 0 || rd ? act_report(r, &v, rank, rd, t0, disp)
		                     : error_page(r, 404, "Cannot build the report.", t0);
		store_comparison_view_free(&v);
		return ret;
	}
	struct buf b = BUF_INIT;
	struct web_train_window w;
	struct web_train_view tv = {.cmp = &v.cmp, .res = v.cmp.train, .mode = WEB_OFFLINE};
	int rc = train_window(r, &tv, &w, t0, &ret);
	if (rc < 0) {
		web_train_window_free(&w);
		store_comparison_view_free(&v);
		return ret;
	}
	tv.win = &w;
	rc = web_report_html(&b, &tv);
	web_train_window_free(&w);
	store_comparison_view_free(&v);
	if (rc < 0) {
		buf_reset(&b);
		return error_page(r, 500, "Cannot build the report.", t0);
	}
	return reply(r, 200, "text/html; charset=utf-8", web_csp_report, &b, t0, disp);
}

/* ---- the page helpers for other handler files (h_baselines.c) ---------- */

int srv_ui_page_reply(struct srv_req *r, unsigned status, struct buf *body)
{
	return reply_page(r, status, body, r->start_us / 1e3);
}

int srv_ui_page_error(struct srv_req *r, unsigned status, const char *what)
{
	return error_page(r, status, what, now_ms());
}

struct store *srv_ui_page_db(struct srv_req *r)
{
	return db_or_page(r, now_ms());
}
