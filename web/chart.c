/* chart.c - server-side SVG: x/y line charts (training metrics, their
 * differences) and the divergence profile of an activation comparison.
 *
 * Data reach pixel space through the scales of chart_scale.h, the same
 * as the PNG and PDF charts use, total on doubles (an overflowing range
 * or a flat one cannot stall a tick loop here, issue 23 F1); coordinates
 * are printed with one decimal, every number checked with isfinite()
 * before it reaches the output (a non-finite value is skipped, never
 * printed).  Long series are
 * reduced to a min/max envelope per pixel column so a 100k-step run stays
 * a few tens of KB of SVG.  Colours come from CSS classes, so light and
 * dark mode both work and no style attribute is needed.
 *
 * Chart text is sized in viewBox units, so parity.css raises its
 * font-size as the figure narrows (up to WEB_CHART_FONT_MAX units at
 * ~380 px).  Labels are laid out here for that largest size, with an
 * estimated CHAR_EM em a character: tick labels are shifted to stay inside
 * the viewBox and thinned out so neighbours do not overlap, and the
 * threshold and marker labels are drawn last, clear of the non-finite
 * band, with a halo.  Placement is an estimate (no font metrics here). */
#include "web.h"

#include "chart_scale.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS      900
#define CHAR_EM   0.66 /* advance of a character, in em (DejaVu digits: 0.64) */
#define FONT      WEB_CHART_FONT_MAX
#define NAN_BAND  8.0  /* height of the non-finite markers on the top edge */
#define ZERO_GAP  26.0 /* log scale: zero row to the lowest decade */
#define MAX_TICKS 24

struct frame {
	double w, h;        /* viewBox */
	double l, r, t, b;  /* plot area edges */
	double yb;          /* bottom of the value scale: b, or above the zero row */
	double yz;          /* log scale: the zero row (values <= 0), NAN when none */
	struct web_scale x; /* steps onto l..r */
	struct web_scale y; /* values onto yb..t (log10 when y.log) */
};

/* y of a value; on a log scale values <= 0 go to the zero row. */
static double ytr(const struct frame *f, double y)
{
	if (f->y.log && !(y > 0))
		return isfinite(f->yz) ? f->yz : f->b;
	return web_scale_map(&f->y, y);
}

/* Print a coordinate pair "x,y" (or with sep); 1 when not finite. */
static int pt(struct buf *out, const char *pre, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return 1;
	return buf_printf(out, "%s%.1f,%.1f", pre, x, y) < 0 ? -1 : 0;
}

/* Estimated width of s at the largest chart font, in viewBox units. */
static double text_w(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return (double)n * CHAR_EM * FONT;
}

struct ticks {
	double v[MAX_TICKS]; /* scale values */
	char s[MAX_TICKS][32];
	size_t n;
	double max_w; /* widest label (text_w) */
};

/* Add tick v labelled: "1e<v>" (kind 'e'), "%.4g" of shown ('g') or
 * "%.0f" ('f'). */
static void tick_add(struct ticks *tk, double v, int kind, double shown)
{
	char *s;

	if (tk->n >= MAX_TICKS || !isfinite(v))
		return;
	s = tk->s[tk->n];
	tk->v[tk->n] = v;
	if (kind == 'e')
		snprintf(s, sizeof tk->s[0], "1e%.0f", shown);
	else if (kind == 'g')
		snprintf(s, sizeof tk->s[0], "%.4g", shown);
	else
		snprintf(s, sizeof tk->s[0], "%.0f", shown);
	if (text_w(tk->s[tk->n]) > tk->max_w)
		tk->max_w = text_w(tk->s[tk->n]);
	tk->n++;
}

/* The y ticks: decades on a log scale (every k-th, so labels keep a font
 * height apart), else about 4 nice values as far apart. */
static void y_ticks(const struct frame *f, struct ticks *tk)
{
	double v[MAX_TICKS];
	size_t n = web_scale_ticks(&f->y, f->y.log ? MAX_TICKS : 4, 0, FONT + 2, v, MAX_TICKS);

	memset(tk, 0, sizeof *tk);
	for (size_t i = 0; i < n; i++)
		tick_add(tk, v[i], f->y.log ? 'e' : 'g', v[i]);
}

/* The x ticks (steps): a whole step wide enough for the longest label. */
static void x_ticks(const struct frame *f, struct ticks *tk)
{
	double v[MAX_TICKS], lw;
	char a[32], b[32];

	memset(tk, 0, sizeof *tk);
	snprintf(a, sizeof a, "%.0f", f->x.d0);
	snprintf(b, sizeof b, "%.0f", f->x.d1);
	lw = text_w(a) > text_w(b) ? text_w(a) : text_w(b);
	size_t n = web_scale_ticks(&f->x, 6, 1, lw + 10, v, MAX_TICKS);
	for (size_t i = 0; i < n; i++)
		tick_add(tk, v[i], 'f', v[i]);
}

static int axes(struct buf *out, const struct frame *f, const struct ticks *yt,
                const struct ticks *xt, const char *zero_label, const char *y_label)
{
	int bad = 0;
	size_t i;

	bad |= buf_printf(out,
	                  "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	                  "height=\"%.1f\"/>",
	                  f->l, f->t, f->r - f->l, f->b - f->t);
	for (i = 0; i < yt->n; i++) {
		double y = web_scale_at(&f->y, yt->v[i]);

		if (!isfinite(y))
			continue;
		bad |= buf_printf(out,
		                  "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/><text class=\"tick y\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"end\" dominant-baseline=\"central\">",
		                  f->l, f->r, y, y, f->l - 5, y);
		bad |= web_printf(out, "%s</text>", yt->s[i]);
	}
	if (isfinite(f->yz))
		bad |= web_printf(out,
		                  "<line class=\"grid zero\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/><text class=\"tick y zero\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"end\" dominant-baseline=\"central\">%s</text>",
		                  f->l, f->r, f->yz, f->yz, f->l - 5, f->yz, zero_label);
	/* x labels: centred on their tick, shifted to stay inside the viewBox
	 * (the last tick sits near the right edge: "2000" would be cut to
	 * "200"); a label the shift pushed onto its left neighbour drops that
	 * neighbour's label (keep[]), from the right */
	double lx[MAX_TICKS], next_left = INFINITY;
	int keep[MAX_TICKS];
	for (i = 0; i < xt->n; i++) {
		double hw = text_w(xt->s[i]) / 2;

		lx[i] = web_scale_at(&f->x, xt->v[i]);
		if (lx[i] + hw > f->w - 1)
			lx[i] = f->w - 1 - hw;
		if (lx[i] - hw < 1)
			lx[i] = 1 + hw;
	}
	for (i = xt->n; i-- > 0;) {
		double hw = text_w(xt->s[i]) / 2;

		keep[i] = lx[i] + hw + 4 <= next_left;
		if (keep[i])
			next_left = lx[i] - hw;
	}
	for (i = 0; i < xt->n; i++) {
		double x = web_scale_at(&f->x, xt->v[i]);

		if (!isfinite(x) || !isfinite(lx[i]))
			continue;
		bad |= buf_printf(out,
		                  "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/>",
		                  x, x, f->t, f->b);
		if (!keep[i])
			continue;
		bad |= buf_printf(out,
		                  "<text class=\"tick x\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"middle\" dominant-baseline=\"hanging\">",
		                  lx[i], f->b + 4);
		bad |= web_printf(out, "%s</text>", xt->s[i]);
	}
	if (y_label)
		bad |= web_printf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">%s</text>",
		                  f->l + 4, f->t - 6, y_label);
	return bad ? -1 : 0;
}

/* Reduce one series to (x, y) points: all of them when short, else per
 * pixel column the first, min and max in index order. */
static int reduce(const struct web_series *s, double *ox, double *oy, size_t cap, size_t *n_out)
{
	size_t i, n = 0, cols = cap / 3;

	if (s->n <= cap) {
		for (i = 0; i < s->n; i++) {
			ox[n] = s->x[i];
			oy[n++] = s->y[i];
		}
		*n_out = n;
		return 0;
	}
	for (size_t c = 0; c < cols; c++) {
		size_t lo = s->n * c / cols, hi = s->n * (c + 1) / cols, imin = lo, imax = lo;
		size_t idx[3];
		int k, m = 0;

		if (hi <= lo)
			continue;
		for (i = lo; i < hi; i++) {
			if (!isfinite(s->y[i]))
				continue;
			if (!isfinite(s->y[imin]) || s->y[i] < s->y[imin])
				imin = i;
			if (!isfinite(s->y[imax]) || s->y[i] > s->y[imax])
				imax = i;
		}
		idx[m++] = lo;
		if (imin != lo)
			idx[m++] = imin;
		if (imax != lo && imax != imin)
			idx[m++] = imax;
		/* keep index order */
		for (k = 1; k < m; k++) {
			for (int j = k; j > 0 && idx[j] < idx[j - 1]; j--) {
				size_t t = idx[j];
				idx[j] = idx[j - 1];
				idx[j - 1] = t;
			}
		}
		for (k = 0; k < m; k++) {
			ox[n] = s->x[idx[k]];
			oy[n++] = s->y[idx[k]];
		}
	}
	*n_out = n;
	return 0;
}

/* The scales of c into f (steps as they are, values padded or whole
 * decades), yz when a log scale has values <= 0; *zero_all: those are all
 * 0.  Any doubles: chart_scale.h keeps the domains finite. */
static void ranges(struct frame *f, const struct web_chart *c, int *zero_all)
{
	double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
	int have = 0, nonpos = 0, log_y = c->log_y != 0;

	*zero_all = 1;
	for (size_t k = 0; k < c->n_series; k++) {
		const struct web_series *s = &c->series[k];

		for (size_t i = 0; i < s->n; i++) {
			double y = s->y[i];

			if (!isfinite(s->x[i]))
				continue;
			x0 = fmin(x0, s->x[i]);
			x1 = fmax(x1, s->x[i]);
			if (!isfinite(y))
				continue;
			if (log_y && !(y > 0)) {
				nonpos = 1;
				*zero_all &= y == 0;
				continue;
			}
			y0 = fmin(y0, y);
			y1 = fmax(y1, y);
			have = 1;
		}
	}
	if (isfinite(c->hline) && (!log_y || c->hline > 0)) {
		y0 = fmin(y0, c->hline);
		y1 = fmax(y1, c->hline);
		have = 1;
	}
	if (!have) {
		y0 = log_y ? 1 : 0;
		y1 = log_y ? 10 : 1;
	}
	const struct web_scale_pad steps = {0, 0, 0, 0}, values = {0.05, 0.01, 0, 1};
	web_scale_fit(&f->x, 0, x0, x1, &steps);
	web_scale_fit(&f->y, log_y, y0, y1, &values);
	/* zeros get their own row under the lowest decade, so a zero
	 * difference never sits on the threshold line */
	f->yz = NAN;
	f->yb = f->b;
	if (log_y && nonpos) {
		f->yz = f->b - 8;
		f->yb = f->yz - ZERO_GAP;
	}
	f->y.o0 = f->yb;
	f->y.o1 = f->t;
}

/* A label's top and bottom at the largest font: text at baseline y, or
 * hanging from y. */
static void label_box(double y, int hanging, double *top, double *bottom)
{
	*top = hanging ? y : y - 0.8 * FONT;
	*bottom = hanging ? y + FONT : y + 0.25 * FONT;
}

/* The threshold label: above its line, unless that leaves the viewBox or
 * meets the non-finite band on the top edge, then below it. */
static int hline_label(struct buf *out, const struct frame *f, double yh, const char *label)
{
	double top, bottom, y = yh - 6;
	int hanging = 0;

	label_box(y, 0, &top, &bottom);
	if (top < 1 || (bottom > f->t && top < f->t + NAN_BAND + 1)) {
		y = yh + 4;
		hanging = 1;
	}
	return web_printf(out,
	                  "<text class=\"hline-label\" x=\"%.1f\" y=\"%.1f\" "
	                  "text-anchor=\"end\" dominant-baseline=\"%s\">%s</text>",
	                  f->r - 4, y, hanging ? "hanging" : "alphabetic", label);
}

/* The vertical markers (first offending steps): lines now, labels later. */
static int marks(struct buf *out, const struct frame *f, const struct web_chart *c, int labels)
{
	int bad = 0, row = 0;

	for (size_t k = 0; k < c->n_marks; k++) {
		const struct web_chart_mark *m = &c->marks[k];
		const char *cls = m->cls ? m->cls : "first";
		double x = web_scale_map(&f->x, m->x), w, y, lx;
		const char *anchor = "end";

		if (!isfinite(m->x) || m->x < f->x.d0 || m->x > f->x.d1 || !isfinite(x))
			continue;
		if (!labels) {
			bad |= web_printf(out,
			                  "<line class=\"vmark %s\" data-x=\"%.15g\" x1=\"%.1f\" "
			                  "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			                  cls, m->x, x, x, f->t, f->b);
			continue;
		}
		if (!m->label)
			continue;
		/* left of the line (before the first offending step the chart is
		 * quiet), else right of it, always inside the viewBox */
		w = text_w(m->label);
		y = f->t + NAN_BAND + 3 + row++ * (FONT + 3);
		lx = x - 4;
		if (lx - w < f->l) {
			if (x + 4 + w <= f->w - 1) {
				lx = x + 4;
				anchor = "start";
			} else if (lx - w < 1) {
				lx = w + 1;
			}
		}
		bad |= web_printf(out,
		                  "<text class=\"vmark-label %s\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"%s\" dominant-baseline=\"hanging\">%s</text>",
		                  cls, lx, y, anchor, m->label);
	}
	return bad ? -1 : 0;
}

int web_chart_svg(struct buf *out, const struct web_chart *c)
{
	struct frame f;
	struct ticks yt, xt;
	size_t i, k, cap = COLS * 3;
	double *rx = NULL, *ry = NULL, yh = NAN;
	int bad = 0, rc = -1, zero_all;
	const char *zero_label;

	memset(&f, 0, sizeof f);
	f.w = c->width > 0 ? c->width : 720;
	f.h = c->height > 0 ? c->height : 240;
	f.t = 26;
	f.b = f.h - 6 - FONT;
	f.r = f.w - 12;
	ranges(&f, c, &zero_all);
	zero_label = zero_all ? "0"
	                      : "\xe2\x89\xa4"
	                        "0";
	/* the left margin holds the widest y label */
	y_ticks(&f, &yt);
	f.l = yt.max_w > text_w(zero_label) ? yt.max_w : text_w(zero_label);
	f.l = f.l + 8 < 40 ? 40 : f.l + 8;
	if (f.l > f.w / 3)
		f.l = f.w / 3;
	f.x.o0 = f.l;
	f.x.o1 = f.r;
	x_ticks(&f, &xt);

	rx = malloc(cap * sizeof *rx);
	ry = malloc(cap * sizeof *ry);
	if (!rx || !ry)
		goto done;
	bad |= web_printf(out,
	                  "<figure class=\"chart\"><svg class=\"chart-svg\" viewBox=\"0 0 %.0f "
	                  "%.0f\" role=\"img\" aria-label=\"%s\" data-x0=\"",
	                  f.w, f.h, c->title ? c->title : "chart");
	bad |= web_num(out, f.x.d0, 10) < 0;
	bad |= buf_puts(out, "\" data-x1=\"");
	bad |= web_num(out, f.x.d1, 10) < 0;
	bad |= buf_printf(out, "\" data-l=\"%.1f\" data-r=\"%.1f\">", f.l, f.r);
	if (c->title)
		bad |= web_printf(out, "<title>%s</title>", c->title);
	bad |= axes(out, &f, &yt, &xt, zero_label, c->y_label);
	if (isfinite(c->hline) && (!f.y.log || c->hline > 0)) {
		yh = ytr(&f, c->hline);
		bad |= buf_printf(out,
		                  "<line class=\"hline\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/>",
		                  f.l, f.r, yh, yh);
	}
	for (k = 0; k < c->n_series; k++) {
		const struct web_series *s = &c->series[k];
		size_t n = 0;
		int pen = 0;

		reduce(s, rx, ry, cap, &n);
		bad |= web_printf(out, "<path class=\"line %s\" data-label=\"%s\" d=\"",
		                  s->cls ? s->cls : "s-a", s->label ? s->label : "");
		for (i = 0; i < n; i++) {
			int r = 1; /* 1: gap (not drawn) */

			if (isfinite(ry[i]))
				r = pt(out, pen ? " L" : " M", web_scale_map(&f.x, rx[i]),
				       ytr(&f, ry[i]));
			pen = r == 0;
			bad |= r < 0;
		}
		bad |= buf_puts(out, "\" data-pts=\"");
		for (i = 0; i < n; i++) {
			if (!isfinite(rx[i]))
				continue;
			bad |= buf_printf(out, "%s%.15g:", i ? ";" : "", rx[i]);
			if (isfinite(ry[i]))
				bad |= buf_printf(out, "%.9g", ry[i]);
			else
				bad |= buf_puts(out, ry[i] != ry[i] ? "NaN"
				                     : ry[i] > 0    ? "Inf"
				                                    : "-Inf");
		}
		bad |= buf_puts(out, "\"/>");
		/* non-finite values: ticks on the top edge */
		for (i = 0; i < n; i++) {
			if (isfinite(ry[i]))
				continue;
			double x = web_scale_map(&f.x, rx[i]);

			if (!isfinite(x))
				continue;
			bad |= buf_printf(out,
			                  "<line class=\"nonfinite %s\" x1=\"%.1f\" x2=\"%.1f\" "
			                  "y1=\"%.1f\" y2=\"%.1f\"/>",
			                  s->cls ? s->cls : "s-a", x, x, f.t, f.t + NAN_BAND);
		}
	}
	bad |= marks(out, &f, c, 0);
	/* labels last, so no line or band covers them */
	if (isfinite(yh) && c->hline_label)
		bad |= hline_label(out, &f, yh, c->hline_label);
	bad |= marks(out, &f, c, 1);
	bad |= buf_printf(out, "<line class=\"cursor\" x1=\"0\" x2=\"0\" y1=\"%.1f\" y2=\"%.1f\"/>",
	                  f.t, f.b);
	bad |= buf_puts(out, "</svg><figcaption>");
	for (k = 0; k < c->n_series; k++)
		bad |= web_printf(out, "<span class=\"key %s\">%s</span> ",
		                  c->series[k].cls ? c->series[k].cls : "s-a",
		                  c->series[k].label ? c->series[k].label : "");
	if (isfinite(c->hline) && c->hline_label)
		bad |= web_printf(out, "<span class=\"key s-h\">%s</span>", c->hline_label);
	bad |= buf_puts(out, "<span class=\"readout\"></span></figcaption></figure>");
	rc = bad ? -1 : 0;
done:
	free(rx);
	free(ry);
	return rc;
}

/* ---- divergence profile ------------------------------------------------- */

struct bin {
	double dist; /* max distance in the bin, -1 none */
	long idx;    /* row of the max (or of the first only-row) */
	int phase;
	int only; /* an only-row falls in the bin */
	long only_idx;
	double median;   /* median distance over every row of the bin (matched
	                    rows count as 0), so a column full of noise and a
	                    column with one bad row look different */
	size_t n_d, off; /* distances of the bin in dists[off .. off+n_d) */
};

static int cmp_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? 1 : a > b ? -1 : 0;
}

/* Bin of row idx. */
static size_t bin_of(long idx, size_t nb, long n_rows)
{
	size_t b = (size_t)((double)idx * (double)nb / (double)n_rows);
	return b >= nb ? nb - 1 : b;
}

/* Fill each bin's median from the paired rows' distances. */
static int medians(const struct web_profile *p, struct bin *bins, size_t nb, long n_rows)
{
	double *d = malloc((p->n ? p->n : 1) * sizeof *d);
	size_t i, off = 0;

	if (!d)
		return -1;
	for (i = 0; i < p->n; i++) {
		const struct web_profile_point *q = &p->pts[i];
		if (q->idx >= 0 && q->idx < n_rows && q->status < 2 && q->dist > 0) /* not NaN */
			bins[bin_of(q->idx, nb, n_rows)].n_d++;
	}
	for (i = 0; i < nb; i++) {
		bins[i].off = off;
		off += bins[i].n_d;
		bins[i].n_d = 0;
	}
	for (i = 0; i < p->n; i++) {
		const struct web_profile_point *q = &p->pts[i];
		if (q->idx >= 0 && q->idx < n_rows && q->status < 2 && q->dist > 0) {
			struct bin *b = &bins[bin_of(q->idx, nb, n_rows)];
			d[b->off + b->n_d++] = q->dist < 1 ? q->dist : 1;
		}
	}
	for (i = 0; i < nb; i++) {
		/* rows in the bin: indexes whose bin is i */
		long lo = (long)ceil((double)i * (double)n_rows / (double)nb);
		long hi = (long)ceil((double)(i + 1) * (double)n_rows / (double)nb);
		size_t rows = hi > lo ? (size_t)(hi - lo) : 1, k = (rows + 1) / 2;

		bins[i].median = 0;
		if (bins[i].n_d >= k) {
			qsort(d + bins[i].off, bins[i].n_d, sizeof *d, cmp_desc);
			bins[i].median = d[bins[i].off + k - 1];
		}
	}
	free(d);
	return 0;
}

int web_profile_svg(struct buf *out, const struct web_profile *p, const char *href_prefix,
                    const char *target, int standalone)
{
	/* the plot spans T..B; the band above it (0..T) holds the
	 * first-divergence labels, one line per phase, so they never cover a
	 * bar */
	const double W = 900, H = 216, L = 48, R = 892, T = 40, B = 190;
	long n_rows = p->n_rows > 0 ? p->n_rows : 1;
	size_t nb = n_rows < COLS ? (size_t)n_rows : COLS, i;
	struct bin *bins = calloc(nb ? nb : 1, sizeof *bins);
	/* distances on a log scale, 1e-8 at the bottom, 1 (and above) at the top */
	const struct web_scale ys = {.d0 = -8, .d1 = 0, .o0 = B, .o1 = T, .log = 1};
	double bw;
	int bad = 0, e;

	if (!bins)
		return -1;
	bw = (R - L) / (double)nb;
	for (i = 0; i < nb; i++) {
		bins[i].dist = -1;
		bins[i].idx = -1;
		bins[i].only_idx = -1;
	}
	for (i = 0; i < p->n; i++) {
		const struct web_profile_point *q = &p->pts[i];
		size_t b;
		double qd;

		if (q->idx < 0 || q->idx >= n_rows)
			continue;
		b = bin_of(q->idx, nb, n_rows);
		if (q->status >= 2) {
			if (!bins[b].only)
				bins[b].only_idx = q->idx;
			bins[b].only = 1;
			continue;
		}
		/* +inf counts as a full mismatch, NaN as no distance */
		qd = isnan(q->dist) ? -1 : q->dist > 1 ? 1 : q->dist;
		if (qd > bins[b].dist || (bins[b].idx < 0 && q->status == 1)) {
			bins[b].dist = qd > bins[b].dist ? qd : bins[b].dist;
			bins[b].idx = q->idx;
			bins[b].phase = q->phase;
		}
	}
	if (medians(p, bins, nb, n_rows) < 0) {
		free(bins);
		return -1;
	}
	if (standalone)
		bad |= buf_puts(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" "
		                     "xmlns:xlink=\"http://www.w3.org/1999/xlink\" ");
	else
		bad |= buf_puts(out, "<svg ");
	bad |= buf_printf(out,
	                  "class=\"profile\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
	                  "aria-label=\"Divergence profile: hash distance per row\">",
	                  W, H);
	if (standalone)
		bad |= buf_puts(out,
		                "<style>:root{color-scheme:light dark}"
		                "text{font:11px system-ui,sans-serif;fill:#555}"
		                ".plot{fill:#fafafa;stroke:#ccc}.grid{stroke:#e4e4e4}"
		                ".bar.fwd{fill:#2f6fd6}.bar.bwd{fill:#8a3fc4}.only{fill:#e08a00}"
		                ".bar.max{opacity:.35}"
		                ".first{stroke:#d00;stroke-dasharray:4 3}.firstl{fill:#d00}"
		                ".hit{fill:transparent}.hit:hover{fill:rgba(0,0,0,.08)}"
		                ".kbd .hit{fill:rgba(127,127,127,.3);stroke:#1f5fbf;stroke-width:1}"
		                ":root:focus{outline:none}"
		                ":root:focus-visible{outline:3px solid #1f5fbf;outline-offset:-3px}"
		                "@media (prefers-color-scheme:dark){text{fill:#bbb}"
		                ".plot{fill:#1d1f23;stroke:#444}.grid{stroke:#2c2f35}"
		                ".bar.fwd{fill:#6aa0ff}.bar.bwd{fill:#c58cff}"
		                ".first{stroke:#ff6b6b}.firstl{fill:#ff6b6b}"
		                ".hit:hover{fill:rgba(255,255,255,.1)}}</style>");
	bad |= buf_puts(out, "<title>Divergence profile: hash distance per row (log scale, "
	                     "1e-8 to 1); click a bar to jump to its row</title>");
	bad |= buf_printf(out,
	                  "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	                  "height=\"%.1f\"/>",
	                  L, T, R - L, B - T);
	for (e = -8; e <= 0; e += 2) {
		double y = web_scale_at(&ys, e);

		bad |= buf_printf(out,
		                  "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"end\">1e%d</text>",
		                  L, R, y, y, L - 4, y + 4, e);
	}
	bad |= buf_printf(out,
	                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">row 0</text>"
	                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">row "
	                  "%ld</text>",
	                  L, B + 16, R, B + 16, n_rows - 1);
	for (i = 0; i < nb; i++) {
		const struct bin *b = &bins[i];
		double x = L + (double)i * bw, h;
		long link = b->idx >= 0 ? b->idx : b->only_idx;

		if (link < 0)
			continue;
		/* one tab stop for the whole chart: the bars are not tab stops;
		 * parity.js makes the <svg> focusable and walks the bars with
		 * the arrow keys (without script the jump links and the pager
		 * reach the same rows) */
		bad |= buf_puts(out, "<a tabindex=\"-1\"");
		if (target)
			bad |= web_printf(out, " target=\"%s\"", target);
		if (href_prefix)
			bad |= web_printf(out, " href=\"%s%ld#r%ld\"", href_prefix, link, link);
		else
			bad |= web_printf(out, " href=\"#%sr%ld\"",
			                  p->id_prefix ? p->id_prefix : "", link);
		bad |= buf_puts(out, ">");
		if (b->dist >= 0)
			bad |= buf_printf(out,
			                  "<title>row %ld: largest distance %.3g, median %.3g"
			                  "</title>",
			                  link, b->dist, b->median);
		else
			bad |= buf_printf(out, "<title>row %ld</title>", link);
		for (int layer = 0; layer < 2; layer++) {
			double v = layer ? b->median : b->dist;

			if (!(v > 1e-8))
				continue;
			h = B - web_scale_map(&ys, v);
			if (isfinite(h) && h > 0)
				bad |= buf_printf(out,
				                  "<rect class=\"bar %s%s\" x=\"%.2f\" y=\"%.1f\" "
				                  "width=\"%.2f\" height=\"%.1f\"/>",
				                  b->phase ? "bwd" : "fwd", layer ? "" : " max", x,
				                  B - h, bw > 1.2 ? bw - 0.4 : bw, h);
		}
		if (b->only)
			bad |= buf_printf(out,
			                  "<path class=\"only\" d=\"M%.1f %.1f l4 -7 l-8 0 z\"/>",
			                  x + bw / 2, T + 8);
		bad |= buf_printf(out,
		                  "<rect class=\"hit\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		                  "height=\"%.1f\"/></a>",
		                  x, T, bw < 2 ? 2 : bw, B - T);
	}
	for (e = 0; e < 2; e++) {
		long f = e ? p->first_bwd : p->first_fwd;
		double x;

		if (f < 0 || f >= n_rows)
			continue;
		x = L + ((double)f * (double)nb / (double)n_rows + 0.5) * bw;
		/* the marker runs through the plot; its label sits in the band
		 * above the plot, starting (or ending) at the marker's x */
		bad |= buf_printf(out,
		                  "<line class=\"first\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/><text class=\"firstl\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"%s\">first %s divergence (row %ld)</text>",
		                  x, x, T - 8, B, x + (x > W / 2 ? 2 : -2), 13 + 13.0 * e,
		                  x > W / 2 ? "end" : "start", e ? "backward" : "forward", f);
	}
	bad |= buf_puts(out, "</svg>");
	free(bins);
	return bad ? -1 : 0;
}
