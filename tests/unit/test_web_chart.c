/* test_web_chart.c - the charts on hostile series (issue 23 F1): a table
 * of series no real run has (+-1e308, +-DBL_MAX, +-inf, NaN, all NaN, one
 * point, identical values, subnormals, huge x, a million points) goes
 * through every chart: SVG (linear and log, with a threshold and a
 * marker), PNG (overlay and |difference|).  Each render must end (a
 * watchdog fails the test instead of hanging it: +-1e308 once sent the SVG
 * tick loop into an endless loop), succeed, and print only finite
 * coordinates, those of the lines inside the viewBox.  Uses the public
 * web.h / pdf.h API only. */
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pdf.h"
#include "web.h"

#define WATCHDOG_S 30 /* one render; a loaded 2-core machine needs < 1 s */

static const char *volatile current = "";

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "test_web_chart: a render did not finish (hang): ";
	ssize_t rc = write(2, msg, sizeof msg - 1);
	rc = write(2, current, strlen(current));
	rc = write(2, "\n", 1);
	(void)rc;
	_exit(1);
}

struct hostile {
	const char *name;
	double y[8];
	size_t n;      /* values in y, repeated when n_rep > n */
	size_t n_rep;  /* points in the series (0: n) */
	double x_step; /* x of point i: x0 + i * x_step */
	double x0;
};

/* y values no sane run has; x are steps unless a case says otherwise */
static const struct hostile cases[] = {
        {"+-1e308", {1e308, -1e308, 1.0}, 3, 0, 1, 1},
        {"+-DBL_MAX", {DBL_MAX, -DBL_MAX, 0}, 3, 0, 1, 1},
        {"DBL_MAX twice", {DBL_MAX, DBL_MAX}, 2, 0, 1, 1},
        {"-DBL_MAX and DBL_MAX/2", {-DBL_MAX, DBL_MAX / 2, -DBL_MAX}, 3, 0, 1, 0},
        {"inf, -inf", {INFINITY, -INFINITY, 1, INFINITY}, 4, 0, 1, 1},
        {"NaN between", {NAN, 1, NAN, 2}, 4, 0, 1, 1},
        {"all NaN", {NAN, NAN, NAN}, 3, 0, 1, 1},
        {"all inf", {INFINITY, -INFINITY}, 2, 0, 1, 1},
        {"one point", {3.5}, 1, 0, 1, 7},
        {"identical", {2, 2, 2, 2}, 4, 0, 1, 1},
        {"identical zeros", {0, 0, 0}, 3, 0, 1, 1},
        {"subnormals", {1e-310, 2e-310, 3e-310}, 3, 0, 1, 1},
        {"identical subnormals", {1e-310, 1e-310}, 2, 0, 1, 1},
        {"smallest subnormals", {4.9e-324, 0, 9.9e-324, -4.9e-324}, 4, 0, 1, 1},
        {"1e308 and 1e-308", {1e308, 1e-308, -1e-308}, 3, 0, 1, 1},
        {"huge steps", {1, 2, 3}, 3, 0, 4e18, 1e18},
        {"x +-1e308", {1, 2, 3}, 3, 0, 1e308, -1e308},
        {"x all one value", {1, 5, 9}, 3, 0, 0, 42},
        {"a million +-1e308", {1e308, -1e308, NAN, 1}, 4, 1000000, 1, 0},
        {"a million identical", {1e-310}, 1, 1000000, 1, 0},
};

/* The numbers of one attribute value: all finite and, when lo < hi,
 * inside lo..hi.  1 when fine. */
static int numbers_ok(const char *v, const char *end, double lo, double hi)
{
	while (v < end) {
		char *e;
		double d;
		if (!strchr("+-.0123456789", *v) || (*v == '-' && v + 1 < end && v[1] == '-')) {
			if (strchr("nNiI", *v))
				return 0; /* nan, inf */
			v++;
			continue;
		}
		d = strtod(v, &e);
		if (e == v) {
			v++;
			continue;
		}
		if (!isfinite(d) || (lo < hi && (d < lo || d > hi)))
			return 0;
		v = e;
	}
	return 1;
}

/* Every coordinate attribute of svg finite; those of the lines (path d,
 * line x/y) inside the w x h viewBox.  How many attributes are bad. */
static size_t bad_coords(const char *svg, double w, double h)
{
	static const struct {
		const char *attr;
		int axis; /* 'x', 'y' or 'd' (a path: x,y pairs) */
	} attrs[] = {{" x=\"", 'x'},  {" y=\"", 'y'},      {" x1=\"", 'x'},    {" x2=\"", 'x'},
	             {" y1=\"", 'y'}, {" y2=\"", 'y'},     {" width=\"", 'x'}, {" height=\"", 'y'},
	             {" d=\"", 'd'},  {" data-l=\"", 'x'}, {" data-r=\"", 'x'}};
	size_t bad = 0;
	for (size_t k = 0; k < sizeof attrs / sizeof attrs[0]; k++) {
		for (const char *p = strstr(svg, attrs[k].attr); p;
		     p = strstr(p + 1, attrs[k].attr)) {
			const char *v = p + strlen(attrs[k].attr), *end = strchr(v, '"');
			if (!end)
				return bad + 1;
			double lim = attrs[k].axis == 'y' ? h : w, lo = -lim, hi = 2 * lim;
			/* text may sit a little outside (test_web_train checks
			 * it); lines, paths and the plot stay in the viewBox */
			const char *tag = p;
			while (tag > svg && *tag != '<')
				tag--;
			if (!strncmp(tag, "<line", 5) || !strncmp(tag, "<path", 5) ||
			    !strncmp(tag, "<rect", 5))
				lo = 0, hi = attrs[k].axis == 'd' ? (w > h ? w : h) : lim;
			if (!numbers_ok(v, end, lo, hi)) {
				bad++;
				fprintf(stderr, "%s: bad %.*s\n", current,
				        (int)(end - p + 1 < 120 ? end - p + 1 : 120), p);
			}
		}
	}
	return bad;
}

static void fill(const struct hostile *c, double **x, double **y, size_t *n)
{
	size_t m = c->n_rep ? c->n_rep : c->n;
	*x = malloc(m * sizeof **x);
	*y = malloc(m * sizeof **y);
	for (size_t i = 0; i < m; i++) {
		(*x)[i] = c->x0 + (double)i * c->x_step;
		(*y)[i] = c->y[i % c->n];
	}
	*n = m;
}

static void test_svg(void)
{
	static const double hlines[] = {NAN, 1e-3, 1e308, DBL_MAX};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		double *x, *y, *y2;
		size_t n;
		fill(&cases[k], &x, &y, &n);
		y2 = malloc(n * sizeof *y2);
		for (size_t i = 0; i < n; i++)
			y2[i] = -y[i] / 3;
		struct web_series s[2] = {{"baseline", "s-a", x, y, n},
		                          {"candidate", "s-b", x, y2, n}};
		struct web_chart_mark mark = {x[n / 2], "first over", NULL};
		for (int log = 0; log < 2; log++) {
			for (size_t h = 0; h < sizeof hlines / sizeof hlines[0]; h++) {
				struct buf b = BUF_INIT;
				struct web_chart c = {.title = cases[k].name,
				                      .y_label = "v",
				                      .series = s,
				                      .n_series = 2,
				                      .log_y = log,
				                      .hline = hlines[h],
				                      .hline_label = "threshold",
				                      .marks = &mark,
				                      .n_marks = 1};
				char what[160];
				snprintf(what, sizeof what, "svg %s log %d hline %g", cases[k].name,
				         log, hlines[h]);
				current = what;
				alarm(WATCHDOG_S);
				int rc = web_chart_svg(&b, &c);
				alarm(0);
				CHECK_INT(rc, 0);
				CHECK(b.data && strstr(b.data, "</svg>"));
				CHECK_INT(b.data ? bad_coords(b.data, 720, 240) : 1, 0);
				buf_reset(&b);
			}
		}
		free(x);
		free(y);
		free(y2);
	}
}

/* A PNG of w x h: signature and IHDR. */
static int png_is(const struct buf *png, unsigned w, unsigned h)
{
	const unsigned char *d = (const unsigned char *)png->data;
	if (png->len < 24 || memcmp(d, "\x89PNG\r\n\x1a\n", 8) || memcmp(d + 12, "IHDR", 4))
		return 0;
	unsigned gw = (unsigned)d[16] << 24 | (unsigned)d[17] << 16 | (unsigned)d[18] << 8 | d[19];
	unsigned gh = (unsigned)d[20] << 24 | (unsigned)d[21] << 16 | (unsigned)d[22] << 8 | d[23];
	return gw == w && gh == h;
}

static void test_png(void)
{
	static const double thresholds[] = {NAN, 1e-3, DBL_MAX};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		double *x, *y;
		size_t n;
		struct web_env e;
		fill(&cases[k], &x, &y, &n);
		web_env_init(&e);
		int env_bad = 0;
		for (size_t i = 0; i < n; i++) {
			double v[WEB_ENV_N] = {y[i], -y[i] / 3, fabs(y[i] + y[i] / 3)};
			int has[WEB_ENV_N] = {1, 1, 1};
			env_bad |= web_env_add(&e, x[i], v, has) != 0;
		}
		CHECK_INT(env_bad, 0);
		for (int diff = 0; diff < 2; diff++) {
			for (size_t t = 0; t < sizeof thresholds / sizeof thresholds[0]; t++) {
				struct buf png = BUF_INIT;
				struct web_metric_chart c = {.metric = cases[k].name,
				                             .env = &e,
				                             .threshold = thresholds[t],
				                             .has_first_over = 1,
				                             .first_over = (long)(n / 2)};
				char what[160];
				snprintf(what, sizeof what, "png %s diff %d threshold %g",
				         cases[k].name, diff, thresholds[t]);
				current = what;
				alarm(WATCHDOG_S);
				int rc = web_chart_png(&png, &c, diff, 300, 120);
				alarm(0);
				CHECK_INT(rc, 0);
				CHECK(png_is(&png, 300, 120));
				buf_reset(&png);
			}
		}
		web_env_free(&e);
		free(x);
		free(y);
	}
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	test_svg();
	test_png();
	/* the process-wide font caches of the PNG drawing (LeakSanitizer) */
	web_fonts_release();
	return check_report();
}
