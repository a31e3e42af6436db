/* chart_scale.c - what the cairo charts draw, computed without cairo: the
 * envelope of a series (web/pdf.h: at most WEB_ENV_BINS bins of min/max,
 * merged pairwise as points arrive, so a million steps cost the same
 * memory as two thousand), nice axis ticks and the data-to-frame mapping
 * (web_scale_ticks, web_frame_x/y in pdf_int.h).  Non-finite values are flagged, never reach a min
 * or max. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* A step of 1, 2 or 5 times a power of ten giving about n ticks. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

size_t web_scale_ticks(double lo, double hi, int n, double *out, size_t cap)
{
	size_t k = 0;
	if (!isfinite(lo) || !isfinite(hi) || cap == 0)
		return 0;
	if (!(hi > lo)) {
		out[0] = lo;
		return 1;
	}
	double step = nice_step(hi - lo, n > 0 ? n : 5);
	if (!(step > 0) || !isfinite(step))
		return 0;
	for (double t = ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9 && k < cap; t += step)
		out[k++] = fabs(t) < step * 1e-9 ? 0 : t;
	return k;
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

double web_frame_x(const struct web_frame *f, double x)
{
	if (!(f->x1 > f->x0))
		return (f->l + f->r) / 2;
	return f->l + (x - f->x0) / (f->x1 - f->x0) * (f->r - f->l);
}

double web_frame_y(const struct web_frame *f, double y)
{
	if (f->log)
		y = y > 0 ? log10(y) : f->y0;
	if (!(f->y1 > f->y0))
		return (f->t + f->b) / 2;
	return f->b - (fmin(fmax(y, f->y0), f->y1) - f->y0) / (f->y1 - f->y0) * (f->b - f->t);
}
