/* test_web_scale.c - the chart scales of web/chart_scale.h are total on
 * doubles (issue 23 F1): for every data range in a hostile table (spans
 * that overflow, flat ranges, subnormal spans, non-finite or reversed
 * bounds) and both kinds of axis, the fitted domain is finite with
 * d0 < d1, every value (NaN and +-inf included) maps to a finite
 * coordinate inside the output interval, and the ticks are few, finite,
 * strictly increasing and inside the domain. */
#include <float.h>
#include <math.h>

#include "chart_scale.h"
#include "check.h"

static const double bounds[][2] = {
        {1e308, -1e308},
        {-1e308, 1e308},
        {-DBL_MAX, DBL_MAX},
        {DBL_MAX, DBL_MAX},
        {-DBL_MAX, -DBL_MAX},
        {0, 0},
        {1, 1},
        {-3, 7},
        {1e-310, 1e-310},
        {1e-310, 3e-310},
        {4.9e-324, 9.9e-324},
        {0, 4.9e-324},
        {-4.9e-324, 4.9e-324},
        {1e300, 1e300 + 1e285},
        {NAN, NAN},
        {NAN, 1},
        {INFINITY, -INFINITY},
        {-INFINITY, INFINITY},
        {-INFINITY, 5},
        {1e-300, 1e300},
        {9.2e18, 9.2e18},
        {1e18, 9.2e18},
        {-1, -1e-320},
        {DBL_MIN, DBL_MAX},
};
static const double values[] = {NAN,      INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, 1e308,
                                -1e308,   0,        -0.0,      1,       -1,       1e-310,
                                4.9e-324, DBL_MIN,  1e300,     -1e-300};

static void test_fit_map_ticks(void)
{
	const struct web_scale_pad pads[] = {{0.05, 0.01, 0, 1}, {0, 0, 1, 2}, {0.5, 1, 0, 0}};
	size_t bad_domain = 0, bad_map = 0, bad_ticks = 0;

	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
		for (int log = 0; log < 2; log++)
			for (size_t p = 0; p < sizeof pads / sizeof pads[0]; p++) {
				struct web_scale s = {.o0 = 200, .o1 = 10};
				web_scale_fit(&s, log, bounds[i][0], bounds[i][1], &pads[p]);
				if (!isfinite(s.d0) || !isfinite(s.d1) || !(s.d1 > s.d0) ||
				    s.log != log) {
					bad_domain++;
					fprintf(stderr, "domain of %g..%g log %d: %g..%g\n",
					        bounds[i][0], bounds[i][1], log, s.d0, s.d1);
				}
				for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
					double y = web_scale_map(&s, values[v]),
					       u = web_scale_at(&s, values[v]);
					if (!(y >= 10 && y <= 200) || !(u >= 10 && u <= 200)) {
						bad_map++;
						fprintf(stderr, "map %g on %g..%g: %g %g\n",
						        values[v], s.d0, s.d1, y, u);
					}
				}
				/* ticks: as the charts ask them, and far too many */
				double t[40];
				int asks[][2] = {{4, 23}, {6, 0}, {1, 0}, {1000, 0}};
				for (size_t a = 0; a < 4; a++) {
					size_t n = web_scale_ticks(&s, asks[a][0], a == 1 ? 1 : 0,
					                           asks[a][1], t, 40);
					double slack = (s.d1 / 2 - s.d0 / 2) * 1e-6;
					for (size_t k = 0; k < n; k++)
						if (!isfinite(t[k]) || (k && !(t[k] > t[k - 1])) ||
						    t[k] < s.d0 - slack || t[k] > s.d1 + slack) {
							bad_ticks++;
							fprintf(stderr,
							        "tick %.17g on %.17g..%.17g (%zu "
							        "%zu)\n",
							        t[k], s.d0, s.d1, k, a);
						}
					if (n > 40)
						bad_ticks++;
				}
			}
	CHECK_INT(bad_domain, 0);
	CHECK_INT(bad_map, 0);
	CHECK_INT(bad_ticks, 0);
}

/* The ordinary cases keep their familiar look: 5% padding, 1/2/5 steps,
 * whole decades. */
static void test_ordinary(void)
{
	const struct web_scale_pad lin = {0.05, 0.01, 0, 1};
	struct web_scale s = {.o0 = 100, .o1 = 0};
	double t[24];

	web_scale_fit(&s, 0, 0, 10, &lin);
	CHECK(fabs(s.d0 + 0.5) < 1e-12 && fabs(s.d1 - 10.5) < 1e-12);
	size_t n = web_scale_ticks(&s, 5, 0, 0, t, 24);
	CHECK_INT(n, 6);
	CHECK(n == 6 && t[0] == 0 && t[1] == 2 && t[5] == 10);
	CHECK(fabs(web_scale_map(&s, 5) - 50) < 1e-9);

	web_scale_fit(&s, 1, 2e-5, 0.3, &lin);
	CHECK(s.d0 == -5 && s.d1 == 0);
	n = web_scale_ticks(&s, 24, 0, 0, t, 24);
	CHECK(n == 6 && t[0] == -5 && t[5] == 0);
	CHECK(web_scale_map(&s, 0) == 100 && web_scale_map(&s, -1) == 100);

	/* a flat range gets room around it; a point sits in the middle */
	const struct web_scale_pad steps = {0, 0, 0, 0};
	web_scale_fit(&s, 0, 7, 7, &steps);
	CHECK(s.d0 == 6 && s.d1 == 8 && web_scale_map(&s, 7) == 50);
	/* +-1e308: finite domain, 0 in the middle, ticks on round values */
	web_scale_fit(&s, 0, -1e308, 1e308, &lin);
	CHECK(s.d0 < -1e308 && s.d1 > 1e308);
	CHECK(fabs(web_scale_map(&s, 0) - 50) < 1e-9);
	n = web_scale_ticks(&s, 4, 0, 0, t, 24);
	CHECK(n >= 3 && n <= 5);
}

int main(void)
{
	test_fit_map_ticks();
	test_ordinary();
	return check_report();
}
