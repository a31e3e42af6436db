/* render.h - whole documents rendered from the store for the daemon's
 * mail (and routes): the comparison and suite PDFs and chart PNGs. */
#ifndef PARITY_RENDER_H
#define PARITY_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct store;

/* Each renders a whole document into out (caller owns out; buf from matcher/buf.h).
 * Return 0, or -1 with a message in err. db: an open store handle. */
int srv_render_comparison_pdf(struct store *db, int64_t comparison_id, struct buf *out, char *err,
                              size_t errlen);
int srv_render_suite_pdf(struct store *db, const char *suite, struct buf *out, char *err,
                         size_t errlen);
int srv_render_chart_png(struct store *db, int64_t comparison_id, const char *metric, int diff,
                         struct buf *out, char *err, size_t errlen);

#endif
