/* chart_scale.h - the one mapping from data to chart coordinates (not
 * public: web/chart.c draws SVG with it, web/cairo_chart.c PNG and PDF).
 *
 * A scale is total on doubles (issue 23 F1): whatever the data (+-DBL_MAX,
 * a range whose span overflows to +inf, a flat range, subnormal spans,
 * NaN, +-inf), web_scale_fit gives a finite domain d0 < d1, web_scale_at
 * and web_scale_map give a finite coordinate inside [o0, o1], and
 * web_scale_ticks ends after at most cap ticks, each finite, strictly
 * increasing and inside the domain.  No loop here runs on a data value:
 * tick loops count ticks, so nothing a client uploads can make a render
 * spin. */
#ifndef PARITY_WEB_CHART_SCALE_H
#define PARITY_WEB_CHART_SCALE_H

#include <stddef.h>

/* A linear or log10 axis: the domain d0..d1 (in log10 units when log)
 * mapped onto the output interval o0..o1 (pixels or points; o1 < o0 for a
 * y axis that grows down).  Callers set o0/o1 (and may move them once the
 * margins are known); web_scale_fit sets log, d0 and d1. */
struct web_scale {
	double d0, d1; /* finite, d0 < d1 after web_scale_fit */
	double o0, o1;
	int log;
};

/* How web_scale_fit widens a data range.  Linear: frac of the span on each
 * side; a flat range (one value v) gets flat * |v| on each side (1 when
 * that is 0).  Log: whole decades from floor(log10 lo) - below to
 * ceil(log10 hi), at least min_decades of them. */
struct web_scale_pad {
	double frac, flat;
	int below, min_decades;
};

/* Fit s's domain to the data range lo..hi (data units; on a log scale
 * only values > 0 count).  Non-finite or (log) non-positive bounds are
 * ignored; lo > hi or no usable bound gives the default domain 0..1 (log:
 * 1e0..1e1).  The padded domain is clamped to +-DBL_MAX, so a span that
 * overflows stays finite; a domain that rounding left flat is widened to
 * the neighbouring doubles.  o0 and o1 are untouched. */
void web_scale_fit(struct web_scale *s, int log, double lo, double hi,
                   const struct web_scale_pad *pad);

/* The coordinate of u, in scale units (log10 on a log scale), clamped into
 * the domain; NaN maps to the middle.  Always finite when o0, o1 are. */
double web_scale_at(const struct web_scale *s, double u);

/* The coordinate of data value v: web_scale_at of v, or of log10(v) on a
 * log scale, where v <= 0 (and NaN) map to o0, the lowest decade. */
double web_scale_map(const struct web_scale *s, double v);

/* Ticks of s, in scale units, into out (at most cap); how many.  Linear: a
 * step of 1, 2 or 5 x 10^k (at least min_step) giving about n ticks, made
 * coarser while neighbours are under min_gap output units apart.  Log:
 * whole decades, every k-th, k the smallest giving at most n ticks that
 * are min_gap apart.  Each tick is finite, inside the domain (a tick
 * within 1e-9 steps of 0 is 0) and above the previous one. */
size_t web_scale_ticks(const struct web_scale *s, int n, double min_step, double min_gap,
                       double *out, size_t cap);

#endif
