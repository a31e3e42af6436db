/* cairo_chart.c - the charts of the PNG and PDF outputs, painted on a
 * cairo context (web/pdf.h, pdf_int.h):
 *   overlay      baseline and candidate per step (linear y), each drawn
 *                from its envelope: a line through the points while a
 *                bin holds one point, a min/max band once bins merged;
 *   |difference| per step on a log y axis (zeros sit on the bottom
 *                edge), the threshold as a dashed red line and the first
 *                step over it as an orange line with its number;
 *   profile      an activation comparison's non-matching rows: max hash
 *                distance (log 1e-8..1) against row index, only-rows on
 *                the top edge, the first divergences marked.
 * Non-finite values never reach a coordinate: they are drawn as red ticks
 * on the top edge.  Text goes through pango (web_pdf_font), so a PDF keeps
 * it selectable.  web_chart_png renders a chart into a PNG in memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noisecheck.h"
#include "pdf_int.h"
#include "web.h"
#include "web_int.h"

#define PAD_L 62.0
#define PAD_R 14.0
#define PAD_T 26.0
#define PAD_B 30.0

struct rgb {
	double r, g, b;
};
static const struct rgb C_A = {0.16, 0.39, 0.78};    /* baseline */
static const struct rgb C_B = {0.91, 0.45, 0.09};    /* candidate */
static const struct rgb C_D = {0.45, 0.22, 0.62};    /* |difference| */
static const struct rgb C_BAD = {0.80, 0.10, 0.10};  /* threshold, NaN */
static const struct rgb C_OVER = {0.95, 0.55, 0.00}; /* first offending step */
static const struct rgb C_AXIS = {0.35, 0.35, 0.35};
static const struct rgb C_GRID = {0.90, 0.90, 0.90};

static void colour(cairo_t *cr, struct rgb c)
{
	cairo_set_source_rgb(cr, c.r, c.g, c.b);
}

PangoFontDescription *web_pdf_font(double size, int bold)
{
	web_fonts_track();
	PangoFontDescription *d =
	        pango_font_description_from_string("DejaVu Sans, WenQuanYi Micro Hei, sans-serif");
	if (!d)
		return NULL;
	pango_font_description_set_absolute_size(d, size * PANGO_SCALE);
	pango_font_description_set_weight(d, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
	return d;
}

void web_pango_text(PangoLayout *l, const char *s)
{
	if (!s)
		s = "";
	if (g_utf8_validate(s, -1, NULL)) {
		pango_layout_set_text(l, s, -1);
		return;
	}
	gchar *ok = g_utf8_make_valid(s, -1);
	pango_layout_set_text(l, ok ? ok : "", -1);
	g_free(ok);
}

/* Text at x, y; align 0 left, 1 right, 2 centred (x the anchor); valign 1
 * puts y at the text's vertical middle. */
static void text(cairo_t *cr, const char *s, double x, double y, double size, int bold, int align,
                 int valign)
{
	PangoLayout *l = pango_cairo_create_layout(cr);
	PangoFontDescription *d = web_pdf_font(size, bold);
	int w, h;
	if (!l || !d)
		goto done;
	pango_layout_set_font_description(l, d);
	web_pango_text(l, s);
	pango_layout_get_pixel_size(l, &w, &h);
	cairo_move_to(cr,
	              align == 1   ? x - w
	              : align == 2 ? x - w / 2.0
	                           : x,
	              valign ? y - h / 2.0 : y);
	pango_cairo_show_layout(cr, l);
done:
	if (d)
		pango_font_description_free(d);
	if (l)
		g_object_unref(l);
}

static void tick_text(char *out, size_t cap, double v, int log)
{
	if (log)
		snprintf(out, cap, "1e%d", (int)lround(v));
	else
		snprintf(out, cap, "%.4g", v == 0 ? 0.0 : v);
}

static void axes(cairo_t *cr, const struct web_frame *f, const char *x_label)
{
	double ticks[32];
	char t[48];
	size_t n;

	cairo_set_line_width(cr, 0.6);
	/* y grid and labels: about 5 values, or at most 8 decades */
	n = web_scale_ticks(&f->y, f->y.log ? 8 : 5, 0, 0, ticks, 32);
	for (size_t i = 0; i < n; i++) {
		double y = web_scale_at(&f->y, ticks[i]);
		colour(cr, C_GRID);
		cairo_move_to(cr, f->l, y);
		cairo_line_to(cr, f->r, y);
		cairo_stroke(cr);
		tick_text(t, sizeof t, ticks[i], f->y.log);
		colour(cr, C_AXIS);
		text(cr, t, f->l - 4, y, 8, 0, 1, 1);
	}
	/* x ticks */
	n = web_scale_ticks(&f->x, 6, 0, 0, ticks, 32);
	for (size_t i = 0; i < n; i++) {
		double x = web_scale_at(&f->x, ticks[i]);
		colour(cr, C_AXIS);
		cairo_move_to(cr, x, f->b);
		cairo_line_to(cr, x, f->b + 3);
		cairo_stroke(cr);
		snprintf(t, sizeof t, "%.10g", ticks[i]);
		text(cr, t, x, f->b + 4, 8, 0, 2, 0);
	}
	if (x_label)
		text(cr, x_label, f->r, f->b + 15, 8, 0, 1, 0);
	colour(cr, C_AXIS);
	cairo_rectangle(cr, f->l, f->t, f->r - f->l, f->b - f->t);
	cairo_stroke(cr);
}

/* Value k of the envelope as a line (bins of one point) or a band. */
static void series(cairo_t *cr, const struct web_frame *f, const struct web_env *e, int k,
                   struct rgb c, double width)
{
	int open = 0;
	colour(cr, c);
	cairo_set_line_width(cr, width);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	for (size_t i = 0; i < e->n_bins; i++) {
		const struct web_env_bin *b = &e->bins[i];
		if (!b->has[k]) {
			open = 0;
			continue;
		}
		double x = web_scale_map(&f->x, b->x0 / 2 + b->x1 / 2),
		       ylo = web_scale_map(&f->y, b->lo[k]), yhi = web_scale_map(&f->y, b->hi[k]);
		if (!open)
			cairo_move_to(cr, x, ylo);
		else
			cairo_line_to(cr, x, ylo);
		if (yhi != ylo)
			cairo_line_to(cr, x, yhi);
		open = 1;
	}
	cairo_stroke(cr);
	/* a lone point would not show as a path: a dot */
	if (e->n_bins == 1 && e->bins[0].has[k]) {
		cairo_arc(cr, web_scale_map(&f->x, e->bins[0].x0),
		          web_scale_map(&f->y, e->bins[0].lo[k]), 2, 0, 2 * M_PI);
		cairo_fill(cr);
	}
	/* non-finite values: red ticks on the top edge */
	colour(cr, C_BAD);
	cairo_set_line_width(cr, 1);
	for (size_t i = 0; i < e->n_bins; i++)
		if (e->bins[i].nonfinite[k]) {
			double x = web_scale_map(&f->x, e->bins[i].x0 / 2 + e->bins[i].x1 / 2);
			cairo_move_to(cr, x, f->t);
			cairo_line_to(cr, x, f->t + 6);
		}
	cairo_stroke(cr);
}

static void legend(cairo_t *cr, const struct web_frame *f, const char *const *names,
                   const struct rgb *cols, size_t n)
{
	double x = f->r;
	for (size_t i = n; i-- > 0;) {
		PangoLayout *l = pango_cairo_create_layout(cr);
		PangoFontDescription *d = web_pdf_font(8, 0);
		int w = 0, h = 0;
		if (l && d) {
			pango_layout_set_font_description(l, d);
			web_pango_text(l, names[i]);
			pango_layout_get_pixel_size(l, &w, &h);
		}
		x -= w;
		colour(cr, C_AXIS);
		cairo_move_to(cr, x, f->t - 12);
		if (l)
			pango_cairo_show_layout(cr, l);
		colour(cr, cols[i]);
		cairo_rectangle(cr, x - 14, f->t - 8, 10, 3);
		cairo_fill(cr);
		x -= 24;
		if (d)
			pango_font_description_free(d);
		if (l)
			g_object_unref(l);
	}
}

static void frame_box(struct web_frame *f, double x, double y, double w, double h)
{
	memset(f, 0, sizeof *f);
	f->l = x + PAD_L;
	f->r = x + w - PAD_R;
	f->t = y + PAD_T;
	f->b = y + h - PAD_B;
	f->x.o0 = f->l;
	f->x.o1 = f->r;
	f->y.o0 = f->b;
	f->y.o1 = f->t;
}

int web_cairo_chart(cairo_t *cr, double x, double y, double w, double h,
                    const struct web_metric_chart *c, int diff)
{
	const struct web_env *e = c->env;
	struct web_frame f;
	char title[320], t[96];

	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
	frame_box(&f, x, y, w, h);
	snprintf(title, sizeof title,
	         diff ? "%s: |candidate - baseline| per step (log)" : "%s: baseline vs candidate",
	         c->metric);
	colour(cr, C_AXIS);
	text(cr, title, x + 4, y + 2, 10, 1, 0, 0);
	if (!e || !e->n_bins) {
		text(cr, "no common steps with values", (f.l + f.r) / 2, (f.t + f.b) / 2, 9, 0, 2,
		     1);
		goto done;
	}
	/* steps as they are (one step: a unit each side) */
	const struct web_scale_pad step_pad = {0, 0, 0, 0};
	web_scale_fit(&f.x, 0, e->bins[0].x0, e->bins[e->n_bins - 1].x1, &step_pad);
	if (!diff) {
		double lo = 0, hi = 0, l2, h2;
		int any = web_env_range(e, WEB_ENV_A, 0, &lo, &hi);
		if (web_env_range(e, WEB_ENV_B, 0, &l2, &h2)) {
			lo = any && lo < l2 ? lo : l2;
			hi = any && hi > h2 ? hi : h2;
			any = 1;
		}
		if (!any)
			lo = 0, hi = 1;
		const struct web_scale_pad pad = {0.05, 0.05, 0, 0};
		web_scale_fit(&f.y, 0, lo, hi, &pad);
		axes(cr, &f, "step");
		cairo_save(cr);
		cairo_rectangle(cr, f.l, f.t, f.r - f.l, f.b - f.t);
		cairo_clip(cr);
		series(cr, &f, e, WEB_ENV_A, C_A, 2.4);
		series(cr, &f, e, WEB_ENV_B, C_B, 1.1);
		cairo_restore(cr);
		const char *names[2] = {c->name_a && *c->name_a ? c->name_a : "baseline",
		                        c->name_b && *c->name_b ? c->name_b : "candidate"};
		const struct rgb cols[2] = {C_A, C_B};
		legend(cr, &f, names, cols, 2);
	} else {
		double lo = 0, hi = 0;
		int any = web_env_range(e, WEB_ENV_D, 1, &lo, &hi);
		double th = c->threshold;
		if (isfinite(th) && th > 0) {
			lo = any && lo < th ? lo : th;
			hi = any && hi > th ? hi : th;
			any = 1;
		}
		if (!any)
			lo = 1e-12, hi = 1e-11;
		/* a decade below the lowest: zeros sit there */
		const struct web_scale_pad pad = {0, 0, 1, 2};
		web_scale_fit(&f.y, 1, lo, hi, &pad);
		axes(cr, &f, "step");
		cairo_save(cr);
		cairo_rectangle(cr, f.l, f.t, f.r - f.l, f.b - f.t);
		cairo_clip(cr);
		series(cr, &f, e, WEB_ENV_D, C_D, 1.2);
		if (isfinite(th) && th > 0) {
			double ty = floor(web_scale_map(&f.y, th)) + 0.5, dash = 4; /* crisp */
			colour(cr, C_BAD);
			cairo_set_line_width(cr, 1);
			cairo_set_dash(cr, &dash, 1, 0);
			cairo_move_to(cr, f.l, ty);
			cairo_line_to(cr, f.r, ty);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			snprintf(t, sizeof t, "threshold %g", th);
			text(cr, t, f.l + 4, ty - 12, 8, 0, 0, 0);
		}
		if (c->has_first_over) {
			double ox = web_scale_map(&f.x, (double)c->first_over);
			colour(cr, C_OVER);
			cairo_set_line_width(cr, 1.5);
			cairo_move_to(cr, ox, f.t);
			cairo_line_to(cr, ox, f.b);
			cairo_stroke(cr);
			snprintf(t, sizeof t, "first over: step %ld", c->first_over);
			text(cr, t, ox > (f.l + f.r) / 2 ? ox - 4 : ox + 4, f.t + 4, 8, 1,
			     ox > (f.l + f.r) / 2 ? 1 : 0, 0);
		}
		cairo_restore(cr);
		const char *names[1] = {"|difference|"};
		const struct rgb cols[1] = {C_D};
		legend(cr, &f, names, cols, 1);
	}
done:
	cairo_restore(cr);
	return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

int web_cairo_profile(cairo_t *cr, double x, double y, double w, double h,
                      const struct web_profile *p, const char *title)
{
	struct web_frame f;
	static const struct rgb by_status[4] = {
	        {0.5, 0.5, 0.5}, {0.80, 0.10, 0.10}, {0.16, 0.39, 0.78}, {0.91, 0.45, 0.09}};

	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
	frame_box(&f, x, y, w, h);
	colour(cr, C_AXIS);
	text(cr, title ? title : "Divergence profile", x + 4, y + 2, 10, 1, 0, 0);
	const struct web_scale_pad rows = {0, 0, 0, 0};
	web_scale_fit(&f.x, 0, 0, p->n_rows > 1 ? (double)(p->n_rows - 1) : 1, &rows);
	f.y.log = 1; /* distances 1e-8 .. 1 */
	f.y.d0 = -8;
	f.y.d1 = 0;
	axes(cr, &f, "row");
	cairo_save(cr);
	cairo_rectangle(cr, f.l, f.t, f.r - f.l, f.b - f.t);
	cairo_clip(cr);
	cairo_set_line_width(cr, 1);
	for (size_t i = 0; i < p->n; i++) {
		const struct web_profile_point *pt = &p->pts[i];
		double px = web_scale_map(&f.x, (double)pt->idx);
		int st = pt->status < 4 ? pt->status : 1;
		colour(cr, by_status[st]);
		if (st >= 2 || pt->dist < 0) {
			cairo_move_to(cr, px, f.t);
			cairo_line_to(cr, px, f.t + 8);
			cairo_stroke(cr);
			continue;
		}
		double py = web_scale_map(&f.y, pt->dist > 0 ? pt->dist : 1e-8);
		cairo_rectangle(cr, px - 1, py - 1, 2, 2);
		cairo_fill(cr);
	}
	long first[2] = {p->first_fwd, p->first_bwd};
	for (int k = 0; k < 2; k++) {
		char t[64];
		if (first[k] < 0)
			continue;
		double px = web_scale_map(&f.x, (double)first[k]);
		colour(cr, C_OVER);
		cairo_move_to(cr, px, f.t);
		cairo_line_to(cr, px, f.b);
		cairo_stroke(cr);
		snprintf(t, sizeof t, "first %s divergence: row %ld", k ? "backward" : "forward",
		         first[k]);
		text(cr, t, px + 3, f.t + 10 + 11 * k, 8, 1, 0, 0);
	}
	cairo_restore(cr);
	const char *names[3] = {"diff", "only in baseline", "only in candidate"};
	const struct rgb cols[3] = {by_status[1], by_status[2], by_status[3]};
	legend(cr, &f, names, cols, 3);
	cairo_restore(cr);
	return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int len)
{
	return buf_append(closure, data, len) < 0 ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

int web_chart_png(struct buf *out, const struct web_metric_chart *c, int diff, int width,
                  int height)
{
	if (width <= 0 || height <= 0)
		width = 900, height = 320;
	if (!web_gfx_get(NULL, 0))
		return -1;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
	cairo_t *cr = cairo_create(s);
	/* text and lines a little larger on wide images */
	double k = width >= 800 ? 1.25 : 1;
	cairo_scale(cr, k, k);
	int rc = web_cairo_chart(cr, 0, 0, width / k, height / k, c, diff);
	cairo_destroy(cr);
	if (rc == 0 && cairo_surface_write_to_png_stream(s, png_write, out) != CAIRO_STATUS_SUCCESS)
		rc = -1;
	cairo_surface_destroy(s);
	return rc;
}

/* ---- issue 26: the band chart of a candidate against a baseline set ----
 *
 * The same columns as the SVG (web_noise_cols_build): the band (mean +-
 * h) shaded grey-blue, each member a thin grey line, the candidate a bold
 * orange one, outside steps as red dots (a change outside only: hollow),
 * non-finite candidate values as red ticks on the top edge, the extreme
 * step as a dashed red line.  The lane is in the title. */
static const struct rgb C_BAND = {0.78, 0.85, 0.95};
static const struct rgb C_MEMBER = {0.45, 0.50, 0.58};

static double noise_col_x(const struct web_frame *f, const struct web_noise_col *col)
{
	return web_scale_map(&f->x, col->x0 / 2 + col->x1 / 2);
}

static void noise_line(cairo_t *cr, const struct web_frame *f, const struct web_noise_cols *c,
                       const double *lo, const double *hi)
{
	int open = 0;
	for (size_t i = 0; i < c->n; i++) {
		double x = noise_col_x(f, &c->cols[i]);
		double a = lo[i], b = hi[i];
		if (!isfinite(a) || !isfinite(x)) {
			open = 0;
			continue;
		}
		if (open)
			cairo_line_to(cr, x, web_scale_map(&f->y, a));
		else
			cairo_move_to(cr, x, web_scale_map(&f->y, a));
		if (b != a)
			cairo_line_to(cr, x, web_scale_map(&f->y, b));
		open = 1;
	}
	cairo_stroke(cr);
}

int web_cairo_noise(cairo_t *cr, double x, double y, double w, double h,
                    const struct web_noise_view *v, size_t m, int deviation)
{
	const struct matcher_noise_result *r = v->res;
	struct web_noise_cols c;
	struct web_frame f;
	char title[320];
	size_t cap = WEB_NOISE_COLS;

	if (w - PAD_L - PAD_R < (double)cap)
		cap = w - PAD_L - PAD_R > 50 ? (size_t)(w - PAD_L - PAD_R) : 50;
	if (web_noise_cols_build(&c, v, m, cap, deviation) < 0)
		return -1;
	cairo_save(cr);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_rectangle(cr, x, y, w, h);
	cairo_fill(cr);
	frame_box(&f, x, y, w, h);
	snprintf(title, sizeof title, "%s%s: %s against %zu baseline runs", r->metrics[m].name,
	         deviation ? " minus the members' mean" : "", web_noise_lane_label(r->lane), r->k);
	colour(cr, C_AXIS);
	text(cr, title, x + 4, y + 2, 10, 1, 0, 0);
	if (!c.n || !isfinite(c.x0)) {
		text(cr, "no compared steps", (f.l + f.r) / 2, (f.t + f.b) / 2, 9, 0, 2, 1);
		goto done;
	}
	const struct web_scale_pad steps = {0, 0, 0, 0}, values = {0.06, 0.01, 0, 1};
	web_scale_fit(&f.x, 0, c.x0, c.x1, &steps);
	web_scale_fit(&f.y, 0, c.lo, c.hi, &values);
	axes(cr, &f, "step");
	cairo_save(cr);
	cairo_rectangle(cr, f.l, f.t, f.r - f.l, f.b - f.t);
	cairo_clip(cr);
	/* the band: a polygon per run of columns that have one */
	colour(cr, C_BAND);
	for (size_t i = 0; i < c.n;) {
		size_t j;
		if (!isfinite(c.cols[i].band_lo)) {
			i++;
			continue;
		}
		for (j = i; j < c.n && isfinite(c.cols[j].band_lo); j++) {
			double px = noise_col_x(&f, &c.cols[j]),
			       py = web_scale_map(&f.y, c.cols[j].band_hi);
			if (j == i)
				cairo_move_to(cr, px, py);
			else
				cairo_line_to(cr, px, py);
		}
		if (j == i + 1) /* one column: a sliver, so it shows */
			cairo_line_to(cr, noise_col_x(&f, &c.cols[i]) + 1,
			              web_scale_map(&f.y, c.cols[i].band_hi));
		for (size_t t = j; t-- > i;)
			cairo_line_to(cr, noise_col_x(&f, &c.cols[t]) + (j == i + 1 ? 1 : 0),
			              web_scale_map(&f.y, c.cols[t].band_lo));
		cairo_close_path(cr);
		cairo_fill(cr);
		i = j;
	}
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	colour(cr, C_MEMBER);
	cairo_set_line_width(cr, 0.6);
	for (size_t j = 0; j < c.k; j++)
		noise_line(cr, &f, &c, c.m_lo + j * c.n, c.m_hi + j * c.n);
	colour(cr, C_B);
	cairo_set_line_width(cr, 1.8);
	/* the candidate's min / max per column, as arrays like the members' */
	double *ylo = malloc(c.n * sizeof *ylo), *yhi = malloc(c.n * sizeof *yhi);
	if (ylo && yhi) {
		for (size_t i = 0; i < c.n; i++) {
			ylo[i] = c.cols[i].y_lo;
			yhi[i] = c.cols[i].y_hi;
		}
		noise_line(cr, &f, &c, ylo, yhi);
	}
	free(ylo);
	free(yhi);
	colour(cr, C_BAD);
	cairo_set_line_width(cr, 1);
	for (size_t i = 0; i < c.n; i++)
		if (c.cols[i].y_nonfinite) {
			double px = noise_col_x(&f, &c.cols[i]);
			cairo_move_to(cr, px, f.t);
			cairo_line_to(cr, px, f.t + 6);
		}
	cairo_stroke(cr);
	if (c.has_extreme) {
		double px = web_scale_map(&f.x, (double)c.extreme_step), dash = 3;
		cairo_set_dash(cr, &dash, 1, 0);
		cairo_move_to(cr, px, f.t);
		cairo_line_to(cr, px, f.b);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct web_noise_col *col = &c.cols[i];
		if (!(col->n_out + col->n_chg))
			continue;
		double px = noise_col_x(&f, col),
		       py = isfinite(col->out_y) ? web_scale_map(&f.y, col->out_y) : f.t + 3;
		cairo_new_sub_path(cr);
		cairo_arc(cr, px, py, 2.4, 0, 2 * M_PI);
		if (col->n_out)
			cairo_fill(cr);
		else
			cairo_stroke(cr);
	}
	cairo_restore(cr);
	const char *names[4] = {"band (mean \xc2\xb1 h)", "members", "candidate", "outside"};
	const struct rgb cols[4] = {C_BAND, C_MEMBER, C_B, C_BAD};
	legend(cr, &f, names, cols, 4);
done:
	cairo_restore(cr);
	web_noise_cols_free(&c);
	return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

int web_noise_chart_png(struct buf *out, const struct web_noise_view *v, size_t m, int deviation,
                        int width, int height)
{
	if (width <= 0 || height <= 0)
		width = 900, height = 320;
	if (m >= v->res->n_metrics || !web_gfx_get(NULL, 0))
		return -1;
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
	cairo_t *cr = cairo_create(s);
	double k = width >= 800 ? 1.25 : 1;
	cairo_scale(cr, k, k);
	int rc = web_cairo_noise(cr, 0, 0, width / k, height / k, v, m, deviation);
	cairo_destroy(cr);
	if (rc == 0 && cairo_surface_write_to_png_stream(s, png_write, out) != CAIRO_STATUS_SUCCESS)
		rc = -1;
	cairo_surface_destroy(s);
	return rc;
}
