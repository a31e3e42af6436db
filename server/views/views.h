/* views.h - the views room of server/: the documents several rooms send
 * (the comparison document and its long-poll reply, steps.csv, the PNG
 * charts and PDF reports), read from the store and rendered by web/.
 * Used by the handlers (api, ui), the job workers (long-poll wake-ups)
 * and the mail composer (delivery).  Uses http and base. */
#ifndef PARITY_SRV_VIEWS_H
#define PARITY_SRV_VIEWS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "http.h"
#include "web.h" /* enum web_mode, struct web_noise_view */

struct srv;
struct store;

/* render.c: whole PNG and PDF documents of stored comparisons and suites
 * (server/views/render.c): each loads what it needs from the store (typed
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

/* ---- comparison_doc.c ------------------------------------------------ */

/* GET /comparisons/{id} as a shared reply read with db: 200 with the
 * comparison (final when done or failed) or 404; NULL on OOM. */
struct srv_shared_reply *srv_comparison_reply(struct srv *s, struct store *db, int64_t id);
/* The comparison document (web_comparison_json of store_comparison_get,
 * with its result) as a new reference, or NULL with *rc (may be NULL) the
 * STORE_* code (STORE_NOT_FOUND when missing, STORE_ERROR on OOM). */
json_t *srv_comparison_doc(struct store *db, int64_t id, int *rc);
/* Add "urls" (self, ui, report, rows under cfg.public_url) to a
 * comparison object c. */
void srv_comparison_add_urls(struct srv *s, json_t *c);

/* ---- noise_page.c ------------------------------------------------------ */

/* A noise comparison as its page, PNG chart and PDF need it (issue 26):
 * view.cmp.noise is the rebuilt struct matcher_noise_result (NULL when
 * the comparison is not a done noise comparison), view.cmp.baseline_set
 * its members; srv_noise_page_member gives member j's values of metric m
 * (the result's metric order) parallel to view.cmp.noise->steps, NaN
 * where the member did not log that step.  Everything is owned by the
 * struct until srv_noise_page_free. */
struct srv_noise_page {
	struct store_comparison_view view;
	size_t k, n_metrics;
	double *member_values; /* [j][m][i] */
	/* srv_noise_page_view's arrays (owned) */
	char (*names)[96]; /* "NAME (run N)", or "run N" for an unnamed run */
	const char **name_v;
	const double **vals;
	const double *const **per;
	char candidate[96];
};
/* Load comparison id with db (one thread, as the store).  0 (also for a
 * comparison that is not a noise one: view.cmp.noise NULL), or a STORE_*
 * code (STORE_NOT_FOUND).  Free with srv_noise_page_free either way. */
int srv_noise_page_load(struct store *db, int64_t id, struct srv_noise_page *out);
/* The same from a comparison the caller already read (store_comparison_get
 * into *v): *v is taken over (left empty), so the typed result is not
 * rebuilt twice. */
int srv_noise_page_from_view(struct store *db, struct store_comparison_view *v,
                             struct srv_noise_page *out);
void srv_noise_page_free(struct srv_noise_page *p);
/* Member j's values of metric m (n = view.cmp.noise->n_steps), or NULL. */
const double *srv_noise_page_member(const struct srv_noise_page *p, size_t member, size_t metric);
/* Fill *v (web/web.h) for the renderers from a loaded page: the result,
 * the names of the members and the candidate ("NAME (run N)"), the members' values
 * per metric; mode, cmp_id and csv_hint "steps.csv" set, note NULL.
 * Pointers into p (valid until srv_noise_page_free).  0, or -1 (OOM, or
 * p holds no noise result). */
struct web_noise_view;
int srv_noise_page_view(struct srv_noise_page *p, enum web_mode mode, struct web_noise_view *v);

/* ---- steps_csv.c ------------------------------------------------------ */

/* The steps.csv document of training comparison id appended to out, read
 * in pages through pool connections of s.  0; 1 when it would exceed
 * max_bytes (out untouched); -1 on error. */
int srv_steps_csv(struct srv *s, int64_t id, struct buf *out, size_t max_bytes);
/* Queue steps.csv of training comparison c (borrowed; r->id) streamed:
 * what libmicrohttpd expects. */
int srv_steps_csv_reply(struct srv_req *r, const struct store_comparison *c);

#endif
