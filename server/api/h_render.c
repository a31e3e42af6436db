/* h_render.c - the PNG and PDF endpoints (documents by render.c):
 *   GET /comparisons/{id}/charts/{metric}.png       overlay chart
 *   GET /comparisons/{id}/charts/{metric}-diff.png  |difference| chart
 *       (or {metric}.png?diff=1; ?width=&height= in pixels)
 *   GET /comparisons/{id}/report.pdf                the comparison report
 *   GET /suites/{suite}/report.pdf                  the suite report
 * The metric is the rest of the path: "validation/loss" may be written
 * with its '/' as is or as %2F (libmicrohttpd decodes the path first).
 * "{m}-diff.png" is the diff chart of m unless a metric is named "{m}-diff"
 * itself.  Errors are JSON: 404 (no such comparison, suite or metric; an
 * activation comparison has no charts), 409 (not finished, or failed).
 * Each document carries an ETag (a hash of its bytes): a matching
 * If-None-Match gets 304 without the body (rendering is not skipped, the
 * transfer is).  Every render runs on the render threads (srv_offload,
 * SRV_OFFLOAD_RENDER), never on a libmicrohttpd worker: past their queue
 * the answer is 503 busy with Retry-After. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "store.h"
#include "api.h"
#include "http.h"
#include "views.h"

#define METRIC_PATH_MAX 200

/* FNV-1a 64 of the bytes as a quoted ETag. */
static void etag_of(const struct buf *b, char out[24])
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < b->len; i++) {
		h ^= (unsigned char)b->data[i];
		h *= 1099511628211ULL;
	}
	snprintf(out, 24, "\"%016llx\"", (unsigned long long)h);
}

/* 200 with the document, or 304 when the client has it. */
static int reply_doc(struct srv_req *r, struct buf *b, const char *type, const char *disposition)
{
	char etag[24];
	etag_of(b, etag);
	const char *inm = srv_header(r, "If-None-Match");
	const char *const headers[] = {
	        "ETag",      etag, "Cache-Control", "private, no-cache", "Content-Disposition",
	        disposition, NULL};
	if (inm && strstr(inm, etag)) {
		buf_clear(b);
		return srv_reply_buf_headers(r, 304, type, b, headers);
	}
	return srv_reply_buf_headers(r, 200, type, b, headers);
}

static int reply_render_error(struct srv_req *r, struct buf *b, const struct srv_render_err *e)
{
	buf_reset(b);
	return srv_reply_error(r, e->status ? e->status : 500, e->code ? e->code : "internal", "%s",
	                       e->message);
}

int srv_h_comparison_chart(struct srv_req *r)
{
	const char *t = strstr(r->url + strlen("/comparisons/"), "/charts/");
	char metric[METRIC_PATH_MAX + 16];
	long long diff = 0, w, h;
	if (!t)
		return srv_reply_error(r, 404, "not_found", "no such chart");
	t += strlen("/charts/");
	size_t n = strlen(t);
	if (n < 5 || n - 4 > METRIC_PATH_MAX || strcmp(t + n - 4, ".png"))
		return srv_reply_error(r, 404, "not_found",
		                       "a chart is /comparisons/{id}/charts/{metric}.png or "
		                       "{metric}-diff.png");
	memcpy(metric, t, n - 4);
	metric[n - 4] = 0;
	if (srv_query_int_or_reply(r, "diff", 0, 1, 0, &diff) < 0 ||
	    srv_query_int_or_reply(r, "width", 200, 2000, 900, &w) < 0 ||
	    srv_query_int_or_reply(r, "height", 100, 2000, 320, &h) < 0 ||
	    srv_offload_or_reply(r, SRV_OFFLOAD_RENDER) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct buf b = BUF_INIT;
	struct srv_render_err e;
	int rc = srv_render_chart_png_e(db, r->id, metric, (int)diff, (int)w, (int)h, &b, &e);
	size_t ml = strlen(metric);
	if (rc < 0 && e.code && !strcmp(e.code, "unknown_metric") && ml > 5 &&
	    !strcmp(metric + ml - 5, "-diff")) {
		metric[ml - 5] = 0;
		rc = srv_render_chart_png_e(db, r->id, metric, 1, (int)w, (int)h, &b, &e);
	}
	if (rc < 0)
		return reply_render_error(r, &b, &e);
	return reply_doc(r, &b, "image/png", "inline");
}

/* Render with db and serve a PDF (name: its file name). */
static int serve_pdf(struct srv_req *r, const char *suite, const char *name)
{
	if (srv_offload_or_reply(r, SRV_OFFLOAD_RENDER) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct buf b = BUF_INIT;
	struct srv_render_err e;
	char disp[200];
	int rc = suite ? srv_render_suite_pdf_e(db, suite, &b, &e)
	               : srv_render_comparison_pdf_e(db, r->id, &b, &e);
	if (rc < 0)
		return reply_render_error(r, &b, &e);
	snprintf(disp, sizeof disp, "inline; filename=\"%s.pdf\"", name);
	return reply_doc(r, &b, "application/pdf", disp);
}

int srv_h_comparison_pdf(struct srv_req *r)
{
	char name[48];
	snprintf(name, sizeof name, "comparison-%lld", (long long)r->id);
	return serve_pdf(r, NULL, name);
}

int srv_h_suite_pdf(struct srv_req *r)
{
	char suite[STORE_LABEL_MAX + 2], name[STORE_LABEL_MAX + 16];
	const char *t = r->url + strlen("/suites/"), *end = strchr(t, '/');
	size_t n = end ? (size_t)(end - t) : 0;
	if (!n || n >= sizeof suite)
		return srv_reply_error(r, 400, "bad_name", "not a suite name");
	memcpy(suite, t, n);
	suite[n] = 0;
	if (!store_label_ok(suite))
		return srv_reply_error(r, 400, "bad_name", "not a suite name");
	snprintf(name, sizeof name, "suite-%s", suite);
	return serve_pdf(r, suite, name);
}
