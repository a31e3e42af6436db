/* render.h - whole PNG and PDF documents of stored comparisons and suites
 * (server/render.c): each loads what it needs from the store (typed
 * results, per-step rows page by page, profiles, non-matching rows) and
 * has web/pdf.h draw it.  Used by the HTTP handlers (h_render.c) and by
 * the mail sender, which attaches them.
 *
 * Bounded whatever the comparison's size: charts are built from
 * envelopes (WEB_ENV_BINS bins a metric), the per-step table lists the
 * first WEB_PDF_STEP_ROWS steps and the activation table the first
 * WEB_PDF_ACT_ROWS non-matching rows (a note counts the rest), a suite
 * report at most SRV_RENDER_SUITE_MAX configs.
 *
 * Chart metric names are the policy's ("loss", "validation/loss"): in a
 * URL the '/' is written as is or as %2F (libmicrohttpd decodes the path
 * before routing). */
#ifndef PARITY_SRV_RENDER_H
#define PARITY_SRV_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct store;

#define SRV_RENDER_SUITE_MAX 100

/* Each renders a whole document into out (caller owns out; buf from matcher/buf.h).
 * Return 0, or -1 with a message in err. db: an open store handle. */
int srv_render_comparison_pdf(struct store *db, int64_t comparison_id, struct buf *out, char *err,
                              size_t errlen);
int srv_render_suite_pdf(struct store *db, const char *suite, struct buf *out, char *err,
                         size_t errlen);
int srv_render_chart_png(struct store *db, int64_t comparison_id, const char *metric, int diff,
                         struct buf *out, char *err, size_t errlen);

/* Why a render failed, for an HTTP reply: status 404 (no such
 * comparison or suite, not a training comparison, unknown metric), 409
 * (not finished, or failed), 500; code a short error code. */
struct srv_render_err {
	unsigned status;
	const char *code;
	char message[256];
};
/* The same renders with the reason of a failure in *e (also on 0: status
 * 200).  width/height of the PNG: 0 = 900 x 320, else 200..4000 x
 * 100..4000. */
int srv_render_comparison_pdf_e(struct store *db, int64_t comparison_id, struct buf *out,
                                struct srv_render_err *e);
int srv_render_suite_pdf_e(struct store *db, const char *suite, struct buf *out,
                           struct srv_render_err *e);
int srv_render_chart_png_e(struct store *db, int64_t comparison_id, const char *metric, int diff,
                           int width, int height, struct buf *out, struct srv_render_err *e);

#endif
