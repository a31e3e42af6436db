/* TEMPORARY: replaced by the pdf helper's renderers at merge.
 *
 * render_stub.c - placeholders for server/render.h so the mail branch
 * builds and its tests run: a two-line PDF and a valid 1x1 PNG whatever
 * is asked.  Delete this file when server/render.c arrives. */
#include "render.h"

#include <stdio.h>

static int put(struct buf *out, const void *p, size_t n, char *err, size_t errlen)
{
	if (buf_append(out, p, n) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int srv_render_comparison_pdf(struct store *db, int64_t comparison_id, struct buf *out, char *err,
                              size_t errlen)
{
	(void)db, (void)comparison_id;
	static const char pdf[] = "%PDF-1.4\n%stub\n";
	return put(out, pdf, sizeof pdf - 1, err, errlen);
}

int srv_render_suite_pdf(struct store *db, const char *suite, struct buf *out, char *err,
                         size_t errlen)
{
	(void)suite;
	return srv_render_comparison_pdf(db, 0, out, err, errlen);
}

int srv_render_chart_png(struct store *db, int64_t comparison_id, const char *metric, int diff,
                         struct buf *out, char *err, size_t errlen)
{
	(void)db, (void)comparison_id, (void)metric, (void)diff;
	static const unsigned char png[] = {
	        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
	        0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00,
	        0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78,
	        0x9c, 0x63, 0xf8, 0xff, 0xff, 0x3f, 0x03, 0x00, 0x08, 0xfc, 0x02, 0xfe, 0xa7, 0x9a,
	        0xa0, 0xa0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
	return put(out, png, sizeof png, err, errlen);
}
