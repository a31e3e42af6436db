/* noise_page.c - a training candidate against a baseline set (issue 26,
 * matcher/spec/noise.md) as HTML: the lane, the members and the
 * candidate, the per-metric table, and per metric an inline SVG band
 * chart (mean +- h shaded, members thin, candidate bold, outside steps
 * marked) with a per-step table window around the first outside step.
 *
 * Rendered from the typed view of web.h (struct web_noise_view: the
 * matcher's result and the members' values), never from JSON.  The chart
 * is reduced to at most WEB_NOISE_COLS columns (web_noise_cols_build,
 * shared with the PNG / PDF painter in web/cairo_chart.c): per column the
 * band's extent and each line's min / max, so 100k steps stay a ~150 KB
 * SVG.  Every log text (metric and run names, reasons) goes through
 * web_printf's %s; every number printed into SVG is checked with
 * isfinite() first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart_scale.h"
#include "noisecheck.h"
#include "web_int.h"

/* ---- the members' values from the runs ----------------------------------- */

int web_noise_values_build(struct web_noise_values *v, const struct matcher_noise_result *r,
                           const struct matcher_trainrun *const *members, size_t k)
{
	size_t nm = r->n_metrics, ns = r->n_steps;
	size_t head = nm * sizeof(double **) + nm * k * sizeof(double *);
	char *block;

	memset(v, 0, sizeof *v);
	block = malloc(head + nm * k * ns * sizeof(double) + 1);
	if (!block)
		return -1;
	const double ***per_metric = (const double ***)block;
	const double **rows = (const double **)(block + nm * sizeof(double **));
	double *vals = (double *)(block + head);
	for (size_t m = 0; m < nm; m++) {
		per_metric[m] = rows + m * k;
		for (size_t j = 0; j < k; j++) {
			double *row = vals + (m * k + j) * ns;
			const struct matcher_train_series *s =
			        matcher_trainrun_series(members[j], r->rank, 0);
			const struct matcher_train_column *col =
			        s ? matcher_train_series_column(s, r->metrics[m].name) : NULL;

			rows[m * k + j] = row;
			for (size_t i = 0; i < ns; i++) {
				size_t at = col ? matcher_train_series_find(s, r->steps[i])
				                : (size_t)-1;

				row[i] = at != (size_t)-1 && col->cells[at].present
				                 ? col->cells[at].value
				                 : NAN;
			}
		}
	}
	v->values = (const double *const *const *)per_metric;
	v->priv = block;
	return 0;
}

void web_noise_values_free(struct web_noise_values *v)
{
	free(v->priv);
	memset(v, 0, sizeof *v);
}

/* ---- columns --------------------------------------------------------------- */

static void widen(double *lo, double *hi, double a)
{
	if (!isfinite(a))
		return;
	if (!(*lo <= a))
		*lo = a;
	if (!(*hi >= a))
		*hi = a;
}

int web_noise_cols_build(struct web_noise_cols *c, const struct web_noise_view *v, size_t m,
                         size_t max_cols, int deviation)
{
	const struct matcher_noise_result *r = v->res;
	const struct matcher_noise_metric *mt = &r->metrics[m];
	const double *const *mv = v->member_values ? v->member_values[m] : NULL;
	size_t ns = r->n_steps, n = ns < max_cols ? ns : max_cols;

	memset(c, 0, sizeof *c);
	c->lo = c->hi = c->x0 = c->x1 = NAN;
	if (!n || mt->not_logged || !mt->y || !mt->mean || !mt->h || !mt->outside)
		return 0;
	c->k = mv ? r->k : 0;
	c->cols = malloc(n * sizeof *c->cols);
	c->m_lo = malloc((c->k ? c->k * n : 1) * sizeof *c->m_lo);
	c->m_hi = malloc((c->k ? c->k * n : 1) * sizeof *c->m_hi);
	if (!c->cols || !c->m_lo || !c->m_hi) {
		web_noise_cols_free(c);
		return -1;
	}
	c->n = n;
	for (size_t i = 0; i < n; i++) {
		struct web_noise_col *col = &c->cols[i];

		memset(col, 0, sizeof *col);
		col->x0 = col->x1 = col->band_lo = col->band_hi = NAN;
		col->y_lo = col->y_hi = col->out_y = NAN;
		col->out_step = -1;
	}
	for (size_t i = 0; i < c->k * n; i++)
		c->m_lo[i] = c->m_hi[i] = NAN;
	for (size_t i = 0; i < ns; i++) {
		size_t ci = (size_t)((double)i * (double)n / (double)ns);
		struct web_noise_col *col;
		double y = mt->y[i], base = deviation ? mt->mean[i] : 0;

		if (!isfinite(mt->mean[i]))
			continue; /* not compared at this step */
		y -= base;
		if (ci >= n)
			ci = n - 1;
		col = &c->cols[ci];
		if (!isfinite(col->x0))
			col->x0 = (double)r->steps[i];
		col->x1 = (double)r->steps[i];
		if (!isfinite(c->x0))
			c->x0 = (double)r->steps[i];
		c->x1 = (double)r->steps[i];
		if (isfinite(mt->h[i])) {
			widen(&col->band_lo, &col->band_hi, mt->mean[i] - base - mt->h[i]);
			widen(&col->band_lo, &col->band_hi, mt->mean[i] - base + mt->h[i]);
		}
		if (isfinite(y))
			widen(&col->y_lo, &col->y_hi, y);
		else
			col->y_nonfinite = 1;
		col->n_out += mt->outside[i] & 1;
		col->n_chg += (mt->outside[i] >> 1) & 1;
		if (mt->outside[i] && col->out_step < 0) {
			col->out_step = r->steps[i];
			col->out_y = y;
		}
		for (size_t j = 0; j < c->k; j++)
			if (mv[j])
				widen(&c->m_lo[j * n + ci], &c->m_hi[j * n + ci], mv[j][i] - base);
	}
	for (size_t i = 0; i < n; i++) {
		widen(&c->lo, &c->hi, c->cols[i].band_lo);
		widen(&c->lo, &c->hi, c->cols[i].band_hi);
		widen(&c->lo, &c->hi, c->cols[i].y_lo);
		widen(&c->lo, &c->hi, c->cols[i].y_hi);
	}
	for (size_t i = 0; i < c->k * n; i++) {
		widen(&c->lo, &c->hi, c->m_lo[i]);
		widen(&c->lo, &c->hi, c->m_hi[i]);
	}
	c->has_extreme = mt->has_extreme;
	c->extreme_step = mt->extreme_step;
	return 0;
}

void web_noise_cols_free(struct web_noise_cols *c)
{
	free(c->cols);
	free(c->m_lo);
	free(c->m_hi);
	memset(c, 0, sizeof *c);
}

/* ---- the SVG band chart -------------------------------------------------- */

#define SVG_W 900.0
#define SVG_H 300.0
#define SVG_L 78.0
#define SVG_R 888.0
#define SVG_T 24.0
#define SVG_B 270.0

struct plot {
	struct web_scale x, y;
};

static double col_x(const struct plot *p, const struct web_noise_col *col)
{
	return web_scale_map(&p->x, col->x0 / 2 + col->x1 / 2);
}

/* Print " M x,y" / " L x,y" (pen 0 / 1) when both are finite; 1 when
 * printed, 0 skipped, -1 OOM. */
static int pt(struct buf *out, int pen, double x, double y)
{
	if (!isfinite(x) || !isfinite(y))
		return 0;
	return buf_printf(out, " %c%.1f,%.1f", pen ? 'L' : 'M', x, y) < 0 ? -1 : 1;
}

/* A line through per-column min / max (a vertical stroke where they
 * differ), broken where a column has no value. */
static int line_path(struct buf *out, const struct plot *p, const struct web_noise_cols *c,
                     const double *lo, const double *hi)
{
	int pen = 0, bad = 0;

	for (size_t i = 0; i < c->n; i++) {
		double x = col_x(p, &c->cols[i]);
		int r;

		if (!isfinite(lo[i])) {
			pen = 0;
			continue;
		}
		r = pt(out, pen, x, web_scale_map(&p->y, lo[i]));
		bad |= r < 0;
		pen = r > 0;
		if (pen && hi[i] != lo[i])
			bad |= pt(out, 1, x, web_scale_map(&p->y, hi[i])) < 0;
	}
	return bad ? -1 : 0;
}

/* The band: one closed polygon per run of columns with a band. */
static int band_path(struct buf *out, const struct plot *p, const struct web_noise_cols *c)
{
	int bad = 0;
	size_t i = 0;

	while (i < c->n) {
		size_t j;

		if (!isfinite(c->cols[i].band_lo)) {
			i++;
			continue;
		}
		for (j = i; j < c->n && isfinite(c->cols[j].band_lo); j++)
			bad |= pt(out, j > i, col_x(p, &c->cols[j]),
			          web_scale_map(&p->y, c->cols[j].band_hi)) < 0;
		for (size_t t = j; t-- > i;)
			bad |= pt(out, 1, col_x(p, &c->cols[t]),
			          web_scale_map(&p->y, c->cols[t].band_lo)) < 0;
		bad |= buf_puts(out, " Z") < 0;
		i = j;
	}
	return bad ? -1 : 0;
}

static int svg_axes(struct buf *out, const struct plot *p)
{
	double t[24];
	size_t n;
	int bad = 0;

	bad |= buf_printf(out,
	                  "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	                  "height=\"%.1f\"/>",
	                  SVG_L, SVG_T, SVG_R - SVG_L, SVG_B - SVG_T);
	n = web_scale_ticks(&p->y, 5, 0, 20, t, 24);
	for (size_t i = 0; i < n; i++) {
		double y = web_scale_at(&p->y, t[i]);

		if (!isfinite(y))
			continue;
		bad |= buf_printf(out,
		                  "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/><text class=\"tick y\" x=\"%.1f\" y=\"%.1f\" "
		                  "text-anchor=\"end\" dominant-baseline=\"central\">%.6g</text>",
		                  SVG_L, SVG_R, y, y, SVG_L - 5, y, t[i]);
	}
	n = web_scale_ticks(&p->x, 6, 1, 90, t, 24);
	for (size_t i = 0; i < n; i++) {
		double x = web_scale_at(&p->x, t[i]);

		if (!isfinite(x))
			continue;
		bad |= buf_printf(
		        out,
		        "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		        "y2=\"%.1f\"/><text class=\"tick x\" x=\"%.1f\" y=\"%.1f\" "
		        "text-anchor=\"middle\" dominant-baseline=\"hanging\">%.0f</text>",
		        x, x, SVG_T, SVG_B, x, SVG_B + 5, t[i]);
	}
	bad |= buf_printf(
	        out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">step</text>",
	        SVG_R, SVG_H - 2);
	return bad ? -1 : 0;
}

int web_noise_chart_svg(struct buf *out, const struct web_noise_view *v, size_t m, int deviation)
{
	const struct matcher_noise_result *r = v->res;
	const struct matcher_noise_metric *mt = &r->metrics[m];
	struct web_noise_cols c;
	struct plot p;
	double *lo = NULL, *hi = NULL;
	int bad = 0;

	if (web_noise_cols_build(&c, v, m, WEB_NOISE_COLS, deviation) < 0)
		return -1;
	memset(&p, 0, sizeof p);
	const struct web_scale_pad steps = {0, 0, 0, 0}, values = {0.06, 0.01, 0, 1};
	web_scale_fit(&p.x, 0, c.x0, c.x1, &steps);
	web_scale_fit(&p.y, 0, c.lo, c.hi, &values);
	p.x.o0 = SVG_L;
	p.x.o1 = SVG_R;
	p.y.o0 = SVG_B;
	p.y.o1 = SVG_T;
	lo = malloc((c.n ? c.n : 1) * sizeof *lo);
	hi = malloc((c.n ? c.n : 1) * sizeof *hi);
	if (!lo || !hi) {
		bad = 1;
		goto done;
	}
	bad |= web_printf(out,
	                  "<figure class=\"noise-chart\" data-metric=\"%s\" data-view=\"%s\">"
	                  "<svg class=\"noise-svg\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
	                  "aria-labelledby=\"noise-t%zu-%d noise-d%zu-%d\" data-members=\"%zu\" "
	                  "data-outside=\"%zu\"><title id=\"noise-t%zu-%d\">%s%s: the candidate "
	                  "against the noise band of %zu baseline runs</title><desc "
	                  "id=\"noise-d%zu-%d\">",
	                  mt->name, deviation ? "deviation" : "values", SVG_W, SVG_H, m, deviation,
	                  m, deviation, c.k, mt->n_outside, m, deviation, mt->name,
	                  deviation ? " minus the members' mean" : "", r->k, m, deviation);
	bad |= web_printf(out,
	                  "The shaded band is the members' mean plus or minus the half-width h "
	                  "per step; %zu of %zu compared steps are outside it (%ld allowed), "
	                  "%zu of %zu changes (%ld allowed).",
	                  mt->n_outside, mt->n, mt->allowed, mt->n_change_outside, mt->n_change,
	                  mt->allowed_change);
	if (mt->has_first_outside)
		bad |= web_printf(out, " First outside step: %ld.", mt->first_outside);
	bad |= buf_puts(out, "</desc>");
	bad |= svg_axes(out, &p) < 0;
	if (c.n) {
		bad |= buf_puts(out, "<path class=\"band\" d=\"");
		bad |= band_path(out, &p, &c) < 0;
		bad |= buf_puts(out, "\"/>");
		for (size_t j = 0; j < c.k; j++) {
			bad |= buf_printf(out, "<path class=\"member\" data-member=\"%zu\" d=\"",
			                  j + 1);
			bad |= line_path(out, &p, &c, c.m_lo + j * c.n, c.m_hi + j * c.n) < 0;
			bad |= buf_puts(out, "\"/>");
		}
		for (size_t i = 0; i < c.n; i++) {
			lo[i] = c.cols[i].y_lo;
			hi[i] = c.cols[i].y_hi;
		}
		bad |= buf_puts(out, "<path class=\"cand\" d=\"");
		bad |= line_path(out, &p, &c, lo, hi) < 0;
		bad |= buf_puts(out, "\"/>");
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct web_noise_col *col = &c.cols[i];
		double x = col_x(&p, col);

		if (!col->y_nonfinite || !isfinite(x))
			continue;
		bad |= buf_printf(out,
		                  "<line class=\"nonfinite\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		                  "y2=\"%.1f\"/>",
		                  x, x, SVG_T, SVG_T + 8);
	}
	if (c.has_extreme) {
		double x = web_scale_map(&p.x, (double)c.extreme_step);

		if (isfinite(x))
			bad |= buf_printf(
			        out,
			        "<line class=\"vmark extreme\" data-step=\"%ld\" x1=\"%.1f\" "
			        "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>extreme step "
			        "%ld</title></line>",
			        c.extreme_step, x, x, SVG_T, SVG_B, c.extreme_step);
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct web_noise_col *col = &c.cols[i];
		double x = col_x(&p, col),
		       y = isfinite(col->out_y) ? web_scale_map(&p.y, col->out_y) : SVG_T + 4;

		if (!(col->n_out + col->n_chg) || !isfinite(x) || !isfinite(y))
			continue;
		/* short: a 100k-step chart has up to WEB_NOISE_COLS of them */
		bad |= buf_printf(out,
		                  "<circle class=\"out%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
		                  "data-step=\"%ld\" data-n=\"%zu\"",
		                  col->n_out ? "" : " chg", x, y, col->out_step, col->n_out);
		if (col->n_chg)
			bad |= buf_printf(out, " data-nc=\"%zu\"", col->n_chg);
		bad |= buf_puts(out, "/>");
	}
	bad |= web_printf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\">%s%s</text>", SVG_L + 4,
	                  SVG_T - 8, mt->name, deviation ? " \xe2\x88\x92 members' mean" : "");
	bad |= buf_puts(out, "</svg><figcaption><span class=\"key band\">band (mean &plusmn; "
	                     "h)</span> ");
	bad |= web_printf(out, "<span class=\"key member\">members (%zu)</span> ", c.k);
	bad |= web_printf(out,
	                  "<span class=\"key cand\">%s</span> <span class=\"key out\">outside "
	                  "(%zu steps, %zu changes)</span>",
	                  v->candidate_name ? v->candidate_name : "candidate", mt->n_outside,
	                  mt->n_change_outside);
	if (c.has_extreme)
		bad |= web_printf(out, " <span class=\"key extreme\">extreme step %ld</span>",
		                  c.extreme_step);
	bad |= buf_puts(out, "</figcaption></figure>");
done:
	free(lo);
	free(hi);
	web_noise_cols_free(&c);
	return bad ? -1 : 0;
}

/* ---- the page ------------------------------------------------------------- */

const char *web_noise_lane_label(int lane)
{
	switch (lane) {
	case MATCHER_LANE_IDENTICAL: return "Identical";
	case MATCHER_LANE_WITHIN_NOISE: return "Within noise";
	case MATCHER_LANE_REGRESSION: return "Regression";
	default: return "No lane (error)";
	}
}

const char *web_noise_lane_sentence(int lane)
{
	switch (lane) {
	case MATCHER_LANE_IDENTICAL:
		return "The candidate equals one member of the baseline set exactly at every "
		       "compared step: it is one of the set's runs.";
	case MATCHER_LANE_WITHIN_NOISE:
		return "The candidate differs from every member but stays within the run-to-run "
		       "noise the set shows: no metric leaves the band more often than chance "
		       "allows.";
	case MATCHER_LANE_REGRESSION:
		return "The candidate leaves the band the baseline set spans more often than "
		       "run-to-run noise explains (or a value is not finite, or a step jumps): it "
		       "is not one more repeat of the set.";
	default: return "The check could not give a lane: see the reasons.";
	}
}

void web_noise_fmt(char *s, size_t cap, char kind, double v, int present)
{
	if (isfinite(v) && kind == 'z')
		snprintf(s, cap, "%+.2f", v);
	else if (isfinite(v) && kind == '%')
		snprintf(s, cap, "%.0f %%", v);
	else if (isfinite(v) && kind == 'e')
		snprintf(s, cap, "%.3g", v);
	else if (isfinite(v))
		snprintf(s, cap, "%.10g", v);
	else if (present)
		snprintf(s, cap, "%s", isnan(v) ? "NaN" : v > 0 ? "Inf" : "-Inf");
	else
		snprintf(s, cap, "\xe2\x80\x94");
}

const char *web_noise_outside_text(unsigned outside)
{
	return outside == 3   ? "level, change"
	       : outside == 1 ? "level"
	       : outside == 2 ? "change"
	                      : "";
}

static int num_td(struct buf *out, char kind, double v, int present)
{
	char s[48];

	web_noise_fmt(s, sizeof s, kind, v, present);
	return web_printf(out, "<td class=\"num\">%s</td>", s);
}

static const char *member_name(const struct web_noise_view *v, size_t j, char *tmp, size_t cap)
{
	if (v->member_names && v->member_names[j])
		return v->member_names[j];
	snprintf(tmp, cap, "member %zu", j + 1);
	return tmp;
}

static int verdict_section(struct buf *out, const struct web_noise_view *v)
{
	const struct matcher_noise_result *r = v->res;
	const char *verdict = matcher_verdict_name(r->verdict);
	const char *lane = matcher_noise_lane_name(r->lane);
	const struct matcher_noise_params *np = &r->policy.noise;
	struct buf t = BUF_INIT;
	int bad = 0;

	bad |= web_printf(out,
	                  "<section class=\"verdict v-%s\" id=\"verdict\" data-verdict=\"%s\" "
	                  "data-lane=\"%s\"><div class=\"verdict-word\">%s</div>"
	                  "<div class=\"verdict-body\"><p class=\"lane lane-%s\" id=\"lane\">"
	                  "<b>%s</b> &mdash; %s</p>",
	                  verdict, verdict, lane ? lane : "none", verdict, lane ? lane : "none",
	                  web_noise_lane_label(r->lane), web_noise_lane_sentence(r->lane));
	if (r->n_reasons) {
		bad |= buf_puts(out, "<ul class=\"reasons\">");
		for (size_t i = 0; i < r->n_reasons; i++)
			bad |= web_printf(out, "<li><code>%s</code> %s</li>", r->reasons[i].code,
			                  web_utf8(&t, r->reasons[i].message));
		bad |= buf_puts(out, "</ul>");
	}
	bad |= web_printf(out,
	                  "<p class=\"policy\">Policy <b>%s</b>: a candidate against a baseline "
	                  "set of %zu runs (rank %d); alpha_step %g, alpha_run %g, at least %ld "
	                  "runs",
	                  r->policy.name, r->k, r->rank, np->alpha_step, np->alpha_run,
	                  np->min_runs);
	if (isfinite(r->t_quantile) && r->t_quantile > 0)
		bad |= web_printf(out, "; t quantile %.4g", r->t_quantile);
	bad |= buf_puts(out, ".</p></div></section>");
	buf_reset(&t);
	return bad ? -1 : 0;
}

static int set_section(struct buf *out, const struct web_noise_view *v)
{
	const struct matcher_noise_result *r = v->res;
	struct buf t = BUF_INIT;
	char tmp[32];
	int bad = 0;

	bad |= web_printf(out,
	                  "<section id=\"set\"><h2>Baseline set (%zu runs) and candidate</h2>"
	                  "<ol class=\"members\">",
	                  r->k);
	for (size_t j = 0; j < r->k; j++) {
		bad |= web_printf(out, "<li class=\"member\">%s",
		                  web_utf8(&t, member_name(v, j, tmp, sizeof tmp)));
		if (r->identical_to == (int)j)
			bad |= buf_puts(out, " <span class=\"badge verdict v-pass\">the candidate "
			                     "equals it</span>");
		bad |= buf_puts(out, "</li>");
	}
	bad |= web_printf(out, "</ol><p id=\"candidate\">Candidate: <b>%s</b>",
	                  web_utf8(&t, v->candidate_name ? v->candidate_name : "candidate"));
	bad |= web_printf(out, " &middot; %zu compared steps", r->n_steps);
	if (r->n_skipped)
		bad |= web_printf(out,
		                  " &middot; %zu candidate steps not in every member were not "
		                  "compared (the first: step %ld)",
		                  r->n_skipped, r->first_skipped);
	bad |= buf_puts(out, "</p></section>");
	buf_reset(&t);
	return bad ? -1 : 0;
}

static int metrics_table(struct buf *out, const struct matcher_noise_result *r)
{
	int bad = 0;

	bad |= buf_puts(out,
	                "<h2>Metrics</h2><div class=\"scroll\"><table class=\"stats noise\" "
	                "id=\"noise-metrics\"><thead><tr><th scope=\"col\">metric</th>"
	                "<th scope=\"col\">steps compared</th><th scope=\"col\">outside / "
	                "allowed</th><th scope=\"col\">p</th><th scope=\"col\">bias (sd)</th>"
	                "<th scope=\"col\">above the mean</th><th scope=\"col\">changes outside "
	                "/ allowed</th><th scope=\"col\">first outside step</th>"
	                "<th scope=\"col\">result</th></tr></thead><tbody>");
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_noise_metric *m = &r->metrics[i];

		if (m->not_logged) {
			bad |= web_printf(out,
			                  "<tr class=\"skipped\"><th scope=\"row\">%s</th><td "
			                  "colspan=\"8\">not logged: not compared</td></tr>",
			                  m->name);
			continue;
		}
		bad |= web_printf(
		        out,
		        "<tr class=\"%s\"><th scope=\"row\">%s</th><td class=\"num\">%zu</td>"
		        "<td class=\"num\">%zu / %ld</td>",
		        m->regression ? "bad" : "within", m->name, m->n, m->n_outside, m->allowed);
		bad |= num_td(out, 'e', m->p, 0);
		bad |= num_td(out, 'z', m->bias, 0);
		bad |= num_td(out, '%', 100 * m->share_above, 0);
		bad |= web_printf(out, "<td class=\"num\">%zu / %ld</td>", m->n_change_outside,
		                  m->allowed_change);
		if (m->has_first_outside)
			bad |= web_printf(out,
			                  "<td class=\"num\"><a href=\"#noise-m%zu\">%ld</a></td>",
			                  i, m->first_outside);
		else
			bad |= buf_puts(out, "<td class=\"num\">&mdash;</td>");
		bad |= web_printf(out, "<td class=\"result\">%s</td></tr>",
		                  m->regression ? "regression"
		                  : m->n        ? "within noise"
		                                : "not compared");
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	return bad ? -1 : 0;
}

size_t web_noise_window_start(const struct matcher_noise_result *r,
                              const struct matcher_noise_metric *m)
{
	size_t fi = r->n_steps, fn = r->n_steps;

	for (size_t i = 0; i < r->n_steps && fi == r->n_steps; i++) {
		if (m->outside[i])
			fi = i;
		else if (fn == r->n_steps && isfinite(m->mean[i]) && !isfinite(m->y[i]))
			fn = i;
	}
	if (fi == r->n_steps)
		fi = fn;
	if (fi == r->n_steps)
		return 0;
	return fi > WEB_NOISE_TABLE_BEFORE ? fi - WEB_NOISE_TABLE_BEFORE : 0;
}

static int step_table(struct buf *out, const struct matcher_noise_result *r, size_t mi,
                      const char *csv_hint)
{
	const struct matcher_noise_metric *m = &r->metrics[mi];
	size_t listed = 0, i = web_noise_window_start(r, m);
	long first = -1, last = -1;
	int bad = 0;

	bad |= web_printf(out,
	                  "<div class=\"scroll\"><table class=\"steps noise-steps\" "
	                  "id=\"noise-steps-%zu\"><thead><tr><th scope=\"col\">step</th>"
	                  "<th scope=\"col\">candidate</th><th scope=\"col\">mean</th>"
	                  "<th scope=\"col\">sd</th><th scope=\"col\">h</th><th "
	                  "scope=\"col\">z</th><th scope=\"col\">outside</th></tr></thead><tbody>",
	                  mi);
	for (; i < r->n_steps && listed < WEB_NOISE_TABLE_ROWS; i++) {
		unsigned o = m->outside[i];

		if (!isfinite(m->mean[i]))
			continue;
		if (first < 0)
			first = r->steps[i];
		last = r->steps[i];
		listed++;
		bad |= web_printf(out, "<tr class=\"%s\"><td class=\"num\">%ld</td>",
		                  o ? "out" : "in", r->steps[i]);
		bad |= num_td(out, 'g', m->y[i], 1);
		bad |= num_td(out, 'g', m->mean[i], 0);
		bad |= num_td(out, 'e', m->sd[i], 0);
		bad |= num_td(out, 'e', m->h[i], 0);
		bad |= num_td(out, 'z', m->z[i], 0);
		bad |= web_printf(out, "<td>%s</td></tr>", web_noise_outside_text(o));
	}
	bad |= buf_puts(out, "</tbody></table></div>");
	if (listed)
		bad |= web_printf(
		        out,
		        "<p class=\"muted\">Steps %ld to %ld (%zu of %zu compared steps%s); "
		        "every step is in the CSV (%s).</p>",
		        first, last, listed, m->n,
		        m->has_first_outside ? ", around the first outside step" : "",
		        csv_hint ? csv_hint : "parity compare ... --format csv");
	return bad ? -1 : 0;
}

int web_noise_body(struct buf *out, const struct web_noise_view *v)
{
	const struct matcher_noise_result *r = v->res;
	struct buf t = BUF_INIT;
	int bad = 0;

	bad |= verdict_section(out, v);
	bad |= set_section(out, v);
	bad |= metrics_table(out, r);
	if (r->n_notes) {
		bad |= buf_puts(out, "<h2>Notes</h2><ul class=\"notes\" id=\"notes\">");
		for (size_t i = 0; i < r->n_notes; i++)
			bad |= web_printf(out, "<li>%s</li>", web_utf8(&t, r->notes[i]));
		bad |= buf_puts(out, "</ul>");
	}
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_noise_metric *m = &r->metrics[i];

		if (m->not_logged || !m->n || !m->y)
			continue;
		bad |= web_printf(out,
		                  "<section class=\"noise-metric\" id=\"noise-m%zu\"><h2>%s</h2>",
		                  i, m->name);
		bad |= buf_puts(out, "<div class=\"noise-charts\">");
		bad |= web_noise_chart_svg(out, v, i, 0) < 0;
		bad |= web_noise_chart_svg(out, v, i, 1) < 0;
		bad |= buf_puts(out, "</div>");
		bad |= step_table(out, r, i, v->csv_hint) < 0;
		bad |= buf_puts(out, "</section>");
	}
	buf_reset(&t);
	return bad ? -1 : 0;
}

int web_noise_page(struct buf *out, const struct web_noise_view *v)
{
	const struct matcher_noise_result *r = v->res;
	struct buf title = BUF_INIT, t = BUF_INIT;
	int bad = 0;

	if (v->cmp_id)
		buf_printf(&title, "#%lld ", v->cmp_id);
	buf_printf(&title, "%s: %s against a baseline set of %zu \xe2\x80\x94 parity",
	           web_noise_lane_label(r->lane),
	           web_utf8(&t, v->candidate_name ? v->candidate_name : "candidate"), r->k);
	bad |= web_page_begin(out, v->mode, title.data ? title.data : "parity", 0);
	bad |= buf_puts(out, "<h1>Training comparison against a baseline set");
	if (v->cmp_id)
		bad |= web_printf(out, " #%lld", v->cmp_id);
	bad |= buf_puts(out, "</h1>");
	if (v->note)
		bad |= web_printf(out, "<p class=\"note\" id=\"note\">%s</p>", v->note);
	bad |= web_noise_body(out, v);
	bad |= web_page_end(out, v->mode);
	buf_reset(&title);
	buf_reset(&t);
	return bad ? -1 : 0;
}

int web_noise_report_html(struct buf *out, const struct web_noise_view *v)
{
	struct web_noise_view o = *v;

	o.mode = WEB_OFFLINE;
	return web_noise_page(out, &o);
}
