/* chart_scale.c - what the charts draw, computed without cairo: the
 * envelope of a series (web/pdf.h: at most WEB_ENV_BINS bins of min/max,
 * merged pairwise as points arrive, so a million steps cost the same
 * memory as two thousand), and the scales (chart_scale.h): the one
 * data-to-coordinate mapping and tick placement of the SVG, PNG and PDF
 * charts, total on doubles.  Non-finite values are flagged in an
 * envelope, never reach a min or max. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart_scale.h"
#include "pdf_int.h"
#include "web.h"

void web_env_init(struct web_env *e)
{
	memset(e, 0, sizeof *e);
}

void web_env_free(struct web_env *e)
{
	free(e->bins);
	memset(e, 0, sizeof *e);
}

static void bin_merge(struct web_env_bin *dst, const struct web_env_bin *src)
{
	dst->x1 = src->x1;
	if (src->dpos > 0 && (dst->dpos == 0 || src->dpos < dst->dpos))
		dst->dpos = src->dpos;
	for (int k = 0; k < WEB_ENV_N; k++) {
		dst->nonfinite[k] |= src->nonfinite[k];
		if (!src->has[k])
			continue;
		if (!dst->has[k] || src->lo[k] < dst->lo[k])
			dst->lo[k] = src->lo[k];
		if (!dst->has[k] || src->hi[k] > dst->hi[k])
			dst->hi[k] = src->hi[k];
		dst->has[k] = 1;
	}
}

int web_env_add(struct web_env *e, double x, const double v[WEB_ENV_N], const int has[WEB_ENV_N])
{
	if (!e->bins) {
		if (!(e->bins = calloc(WEB_ENV_BINS, sizeof *e->bins)))
			return -1;
		e->per_bin = 1;
	}
	if (!e->n_bins || e->fill == e->per_bin) {
		if (e->n_bins == WEB_ENV_BINS) {
			/* halve: bins 2k and 2k+1 become bin k */
			for (size_t k = 0; k < WEB_ENV_BINS / 2; k++) {
				struct web_env_bin b = e->bins[2 * k];
				bin_merge(&b, &e->bins[2 * k + 1]);
				e->bins[k] = b;
			}
			e->n_bins = WEB_ENV_BINS / 2;
			e->per_bin *= 2;
			/* the last bin is full: a new one starts below */
		}
		struct web_env_bin *b = &e->bins[e->n_bins++];
		memset(b, 0, sizeof *b);
		b->x0 = x;
		e->fill = 0;
	}
	struct web_env_bin *b = &e->bins[e->n_bins - 1];
	b->x1 = x;
	for (int k = 0; k < WEB_ENV_N; k++) {
		if (!has[k])
			continue;
		if (!isfinite(v[k])) {
			b->nonfinite[k] = 1;
			continue;
		}
		if (!b->has[k] || v[k] < b->lo[k])
			b->lo[k] = v[k];
		if (!b->has[k] || v[k] > b->hi[k])
			b->hi[k] = v[k];
		b->has[k] = 1;
		if (k == WEB_ENV_D && v[k] > 0 && (b->dpos == 0 || v[k] < b->dpos))
			b->dpos = v[k];
	}
	e->fill++;
	e->n_points++;
	return 0;
}

int web_env_add_cell(struct web_env *e, long step, const struct matcher_train_row_cell *c)
{
	if (!c->present[0] && !c->present[1])
		return 0;
	double v[WEB_ENV_N] = {c->a, c->b, c->abs};
	int has[WEB_ENV_N] = {c->present[0], c->present[1], c->present[0] && c->present[1]};
	return web_env_add(e, (double)step, v, has);
}

int web_env_range(const struct web_env *e, int k, int positive, double *lo, double *hi)
{
	int any = 0;
	for (size_t i = 0; i < e->n_bins; i++) {
		const struct web_env_bin *b = &e->bins[i];
		if (!b->has[k])
			continue;
		double l = b->lo[k], h = b->hi[k];
		if (positive) {
			if (h <= 0)
				continue;
			if (l <= 0)
				l = k == WEB_ENV_D && b->dpos > 0 ? b->dpos : h;
		}
		if (!any || l < *lo)
			*lo = l;
		if (!any || h > *hi)
			*hi = h;
		any = 1;
	}
	return any;
}

/* ---- scales -------------------------------------------------------------- */

/* The neighbour of x towards dir, kept finite. */
static double next_finite(double x, double dir)
{
	double y = nextafter(x, dir);
	return isfinite(y) ? y : x;
}

void web_scale_fit(struct web_scale *s, int log, double lo, double hi,
                   const struct web_scale_pad *pad)
{
	double d0, d1;

	s->log = log;
	if (log) {
		/* only values > 0 have a decade */
		if (!(lo > 0) || !isfinite(lo))
			lo = hi;
		if (!(hi > 0) || !isfinite(hi))
			hi = lo;
		if (!(lo > 0) || !isfinite(lo) || !(lo <= hi)) {
			s->d0 = 0;
			s->d1 = 1;
			return;
		}
		/* log10 of a positive finite double lies in -324..309: no
		 * overflow from here on */
		d0 = floor(log10(lo)) - (pad ? pad->below : 0);
		d1 = ceil(log10(hi));
		int min = pad && pad->min_decades > 0 ? pad->min_decades : 1;
		if (!(d1 >= d0 + min))
			d1 = d0 + min;
		s->d0 = d0;
		s->d1 = d1;
		return;
	}
	if (!isfinite(lo))
		lo = hi;
	if (!isfinite(hi))
		hi = lo;
	if (!isfinite(lo) || !(lo <= hi)) {
		s->d0 = 0;
		s->d1 = 1;
		return;
	}
	if (hi > lo) {
		/* a tenth of the half-span is finite even when hi - lo is not */
		double half = hi / 2 - lo / 2, p = pad ? half * 2 * pad->frac : 0;
		if (!isfinite(p))
			p = half * pad->frac * 2; /* frac > 1: still only a pad */
		d0 = lo - p;
		d1 = hi + p;
	} else {
		double p = pad ? fabs(lo) * pad->flat : 0;
		if (!(p > 0) || !isfinite(p))
			p = 1;
		d0 = lo - p;
		d1 = hi + p;
	}
	/* clamp into the doubles: -DBL_MAX - pad is -inf */
	d0 = isfinite(d0) ? d0 : lo;
	d1 = isfinite(d1) ? d1 : hi;
	if (!(d1 > d0)) { /* rounding ate the pad (huge or subnormal values) */
		d0 = next_finite(lo, -INFINITY);
		d1 = next_finite(hi, INFINITY);
	}
	s->d0 = d0;
	s->d1 = d1;
}

double web_scale_at(const struct web_scale *s, double u)
{
	double t = 0.5;

	if (u == u && isfinite(s->d0) && isfinite(s->d1) && s->d1 > s->d0) {
		u = u < s->d0 ? s->d0 : u > s->d1 ? s->d1 : u;
		double span = s->d1 - s->d0;
		/* u - d0 <= span; when span overflows, halves do not */
		t = isfinite(span) ? (u - s->d0) / span
		                   : (u / 2 - s->d0 / 2) / (s->d1 / 2 - s->d0 / 2);
		if (!(t >= 0))
			t = 0;
		if (t > 1)
			t = 1;
	}
	return s->o0 + t * (s->o1 - s->o0);
}

double web_scale_map(const struct web_scale *s, double v)
{
	if (s->log)
		return web_scale_at(s, v > 0 ? log10(v) : s->d0);
	return web_scale_at(s, v);
}

/* A step of 1, 2 or 5 times a power of ten giving about n ticks over
 * d0..d1 (finite, d0 < d1), computed in logs so that neither an
 * overflowing span nor a subnormal one leaves the doubles; 0 when none. */
static double nice_step(double d0, double d1, int n)
{
	double span = d1 - d0, lr;

	if (isfinite(span))
		lr = log10(span) - log10(n);
	else
		lr = log10(d1 / 2 - d0 / 2) + log10(2.0 / n);
	if (!isfinite(lr))
		return 0;
	double e = floor(lr), f = pow(10, lr - e), mag = pow(10, e);
	double step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
	if (!isfinite(step))
		step = mag;
	return isfinite(step) && step > 0 ? step : 0;
}

/* Ticks k * step inside d0..d1 (with a slack of 1e-9 of the step or of
 * the span, whichever is smaller, for rounding), at most cap; counted, so
 * a step below the precision of d0 cannot stall the loop.  How many. */
static size_t step_ticks(double d0, double d1, double step, double *out, size_t cap)
{
	double span = d1 / 2 - d0 / 2, tol = (step / 2 < span ? step / 2 : span) * 2e-9;
	double k0 = ceil((d0 - tol) / step), k1 = floor((d1 + tol) / step);
	size_t n = 0;

	if (!isfinite(k0) || !isfinite(k1))
		return 0;
	for (size_t i = 0; n < cap && i < 4 * cap && k0 + (double)i <= k1; i++) {
		double t = (k0 + (double)i) * step;
		if (fabs(t) < tol)
			t = 0;
		if (!isfinite(t) || t < d0 - tol || t > d1 + tol || (n && !(t > out[n - 1])))
			continue;
		out[n++] = t;
	}
	return n;
}

size_t web_scale_ticks(const struct web_scale *s, int n, double min_step, double min_gap,
                       double *out, size_t cap)
{
	double d0 = s->d0, d1 = s->d1, room = fabs(s->o1 - s->o0);

	if (cap == 0 || !isfinite(d0) || !isfinite(d1) || !(d1 > d0))
		return 0;
	if (n < 1)
		n = 1;
	if (s->log) {
		/* whole decades: d0, d1 are within -400..400 here */
		double span = d1 - d0, every = ceil(span / n), px = room / span;
		if (min_gap > 0 && px > 0 && ceil(min_gap / px) > every)
			every = ceil(min_gap / px);
		if (!(every >= 1) || !isfinite(every))
			every = 1;
		size_t k = 0;
		for (double t = ceil(d0); k < cap && t <= d1; t += every)
			out[k++] = t;
		return k;
	}
	for (int m = n; m >= 1; m--) {
		double step = nice_step(d0, d1, m);
		if (step < min_step)
			step = min_step;
		if (!(step > 0))
			return 0;
		/* pixels between neighbours, overflow-safe: step / span * room */
		double gap = web_scale_at(s, d0 + step) - web_scale_at(s, d0);
		if (m > 1 && fabs(gap) < min_gap)
			continue;
		return step_ticks(d0, d1, step, out, cap);
	}
	return 0;
}

int web_profile_acc_init(struct web_profile_acc *acc, long n_rows)
{
	acc->n_rows = n_rows;
	acc->pts = calloc(WEB_PROFILE_COLS * 3, sizeof *acc->pts);
	return acc->pts ? 0 : -1;
}

void web_profile_acc_add(struct web_profile_acc *acc, long idx, int status, int backward,
                         double dist)
{
	if (status < 1 || status > 3 || idx < 0)
		return;
	size_t col = acc->n_rows > WEB_PROFILE_COLS
	                     ? (size_t)((double)idx / (double)acc->n_rows * WEB_PROFILE_COLS)
	                     : (size_t)idx;
	if (col >= WEB_PROFILE_COLS)
		col = WEB_PROFILE_COLS - 1;
	struct web_profile_point *q = &acc->pts[col * 3 + (size_t)(status - 1)];
	if (q->status == 0 || dist > q->dist) {
		q->idx = idx;
		q->dist = dist;
		q->status = (unsigned char)status;
		q->phase = backward ? 1 : 0;
	}
}

void web_profile_acc_finish(struct web_profile_acc *acc, struct web_profile *out)
{
	size_t m = 0;
	for (size_t j = 0; acc->pts && j < WEB_PROFILE_COLS * 3; j++)
		if (acc->pts[j].status)
			acc->pts[m++] = acc->pts[j];
	memset(out, 0, sizeof *out);
	out->pts = acc->pts;
	out->n = m;
	out->n_rows = acc->n_rows;
	out->first_fwd = out->first_bwd = -1;
}

void web_profile_acc_free(struct web_profile_acc *acc)
{
	free(acc->pts);
	acc->pts = NULL;
}
