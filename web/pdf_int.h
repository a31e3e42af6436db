/* pdf_int.h - what the cairo renderers of web/ share (not public): the
 * envelope's range, the plot frame, the chart painters and the text
 * fonts. */
#ifndef PARITY_WEB_PDF_INT_H
#define PARITY_WEB_PDF_INT_H

#include "chart_scale.h"
#include "gfx.h" /* cairo and pango, loaded at first use */
#include "pdf.h"

/* The range of value k (WEB_ENV_A/B/D) over the envelope's finite values
 * into *lo, *hi; positive 1 counts only values > 0 (log axes).  1 when
 * any, else 0 (lo, hi untouched). */
int web_env_range(const struct web_env *e, int k, int positive, double *lo, double *hi);
/* A plot frame: the rectangle l, r, t, b (output units; y grows down) and
 * the scales mapping data onto it (chart_scale.h: x onto l..r, y onto
 * b..t), the same scales the SVG charts (web/chart.c) use. */
struct web_frame {
	double l, r, t, b;
	struct web_scale x, y;
};

/* The font every renderer uses: family list (Latin, then CJK fallback)
 * at size points, bold or not.  A new description (pango_font_description_free). */
PangoFontDescription *web_pdf_font(double size, int bold);
/* Count the calling thread's default font map among those alive (once
 * per map; web_pdf_font calls it, as every renderer asks for the font
 * before it draws text), so web_fonts_release waits for its end. */
void web_fonts_track(void);

/* pango_layout_set_text of s (NULL: ""), with each byte that is not
 * UTF-8 (log keys and run names are stored as given) replaced by U+FFFD
 * first, so pango neither warns nor drops the text. */
void web_pango_text(PangoLayout *l, const char *s);

/* Paint a metric chart (web_chart_png's diff) / a divergence profile into
 * the rectangle x, y, w, h of cr (user units: pixels or points).  0, or -1
 * when cr is in an error state afterwards. */
int web_cairo_chart(cairo_t *cr, double x, double y, double w, double h,
                    const struct web_metric_chart *c, int diff);
int web_cairo_profile(cairo_t *cr, double x, double y, double w, double h,
                      const struct web_profile *p, const char *title);

/* Issue 26: the band chart of metric m of a noise view (web.h struct
 * web_noise_view; deviation as for web_noise_chart_svg) into the
 * rectangle x, y, w, h of cr.  0, or -1 on OOM
 * or when cr is in an error state afterwards. */
struct web_noise_view;
int web_cairo_noise(cairo_t *cr, double x, double y, double w, double h,
                    const struct web_noise_view *v, size_t m, int deviation);

#endif
