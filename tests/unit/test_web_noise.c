/* test_web_noise.c - issue 26: a candidate against a baseline set as HTML
 * (web_noise_page / web_noise_chart_svg), PNG (web_noise_chart_png) and
 * PDF (web_pdf_noise_report), rendered from results of matcher_noise_check
 * on synthetic runs (K members: one curve plus independent noise printed
 * with 5 decimals; candidates: another repeat, a member's copy, a shifted
 * run, a NaN step).  Asserts the lane text, the band, K member lines and
 * one candidate line, outside markers that add up to the outside steps,
 * escaping of hostile names, a bounded SVG for 100k steps, the PNG
 * signature and size, and the PDF's text (pdftotext, when installed). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "noisecheck.h"
#include "pdf.h"
#include "web.h"

#define K 5

static uint64_t rng = 1;
static double unif(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

/* A log of n steps: loss = a decaying curve + noise (sd 1e-3) + shift from
 * step shift_from on; loss "nan" at nan_step; grad_norm likewise. */
static char *gen(uint64_t seed, long n, double shift, long shift_from, long nan_step)
{
	size_t cap = (size_t)n * 64 + 1;
	char *s = malloc(cap), *p = s;
	rng = seed * 2654435761u + 7;
	for (long i = 1; i <= n; i++) {
		double loss = 3.0 * exp(-(double)i / 200.0) + 1.0 + 1e-3 * gauss() +
		              (i >= shift_from ? shift : 0);
		double g = 1.0 + 0.1 * sin((double)i / 10.0) + 1e-3 * gauss();
		if (i == nan_step)
			p += sprintf(p, "step: %ld loss: nan grad_norm: %.5f\n", i, g);
		else
			p += sprintf(p, "step: %ld loss: %.5f grad_norm: %.5f\n", i, loss, g);
	}
	return s;
}

static struct matcher_trainrun *parse(char *text)
{
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	if (matcher_trainrun_parse_buffer(text, strlen(text), NULL, 0, &r, &err) < 0)
		fprintf(stderr, "parse: %s\n", err.message);
	free(text);
	return r;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* The sum of data-n="..." over the circle.out markers in s. */
static size_t sum_marked(const char *s)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, "<circle class=\"out")); p++) {
		const char *d = strstr(p, "data-n=\"");
		if (d)
			n += strtoul(d + 8, NULL, 10);
	}
	return n;
}

struct set {
	struct matcher_trainrun *m[K + 1];
	struct matcher_noise_result *res;
	struct web_noise_values vals;
};

/* Members of seeds 1..K, candidate cand (taken), checked. */
static int make(struct set *s, long n, struct matcher_trainrun *cand)
{
	memset(s, 0, sizeof *s);
	for (int j = 0; j < K; j++)
		s->m[j] = parse(gen((uint64_t)j + 1, n, 0, n + 1, -1));
	s->m[K] = cand;
	if (matcher_noise_check((const struct matcher_trainrun *const *)s->m, K, cand, NULL,
	                        &s->res) < 0)
		return -1;
	return web_noise_values_build(&s->vals, s->res,
	                              (const struct matcher_trainrun *const *)s->m, K);
}

static void drop(struct set *s)
{
	web_noise_values_free(&s->vals);
	matcher_noise_result_free(s->res);
	for (int j = 0; j <= K; j++)
		matcher_trainrun_free(s->m[j]);
}

static const char *names[K] = {"m1.log", "m2.log", "m3.log", "m4.log", "m5.log"};

static struct web_noise_view view_of(const struct set *s, const char *cand)
{
	struct web_noise_view v = {.res = s->res,
	                           .member_names = names,
	                           .candidate_name = cand,
	                           .member_values = s->vals.values,
	                           .mode = WEB_OFFLINE};
	return v;
}

/* The first figure of view ("values" / "deviation") in html, as a copy. */
static char *figure(const char *html, const char *view)
{
	char key[64];
	snprintf(key, sizeof key, "data-view=\"%s\"", view);
	const char *a = strstr(html, key), *b = a ? strstr(a, "</figure>") : NULL;
	if (!a || !b)
		return calloc(1, 1);
	char *f = malloc((size_t)(b - a) + 1);
	memcpy(f, a, (size_t)(b - a));
	f[b - a] = 0;
	return f;
}

static void test_lanes(void)
{
	struct set s;
	struct buf out = BUF_INIT;

	/* another repeat: within_noise */
	CHECK(make(&s, 500, parse(gen(77, 500, 0, 501, -1))) == 0);
	CHECK_INT(s.res->lane, MATCHER_LANE_WITHIN_NOISE);
	struct web_noise_view v = view_of(&s, "ok.log");
	CHECK(web_noise_page(&out, &v) == 0);
	CHECK(strstr(out.data, "data-lane=\"within_noise\"") != NULL);
	CHECK(strstr(out.data, "<b>Within noise</b>") != NULL);
	CHECK(strstr(out.data, "id=\"noise-metrics\"") != NULL);
	for (int j = 0; j < K; j++)
		CHECK(strstr(out.data, names[j]) != NULL);
	char *f = figure(out.data, "values");
	CHECK_INT(count(f, "<path class=\"band\""), 1);
	CHECK_INT(count(f, "<path class=\"member\""), K);
	CHECK_INT(count(f, "<path class=\"cand\""), 1);
	CHECK_INT(sum_marked(f), s.res->metrics[0].n_outside);
	CHECK(strstr(f, "<title id=") != NULL && strstr(f, "<desc id=") != NULL);
	free(f);
	/* the members' values are the runs' */
	const struct matcher_train_series *ser = matcher_trainrun_series(s.m[2], 0, 0);
	const struct matcher_train_column *col = matcher_train_series_column(ser, "loss");
	size_t at = matcher_train_series_find(ser, s.res->steps[10]);
	CHECK(col && at != (size_t)-1 && s.vals.values[0][2][10] == col->cells[at].value);
	/* without values: no member lines, the rest is drawn */
	buf_clear(&out);
	v.member_values = NULL;
	CHECK(web_noise_chart_svg(&out, &v, 0, 0) == 0);
	CHECK_INT(count(out.data, "<path class=\"member\""), 0);
	CHECK_INT(count(out.data, "<path class=\"band\""), 1);
	drop(&s);

	/* a member's copy: identical, the member named */
	CHECK(make(&s, 300, parse(gen(3, 300, 0, 301, -1))) == 0);
	CHECK_INT(s.res->lane, MATCHER_LANE_IDENTICAL);
	v = view_of(&s, "copy.log");
	buf_clear(&out);
	CHECK(web_noise_page(&out, &v) == 0);
	CHECK(strstr(out.data, "data-lane=\"identical\"") != NULL);
	CHECK(strstr(out.data, "m3.log <span class=\"badge verdict v-pass\">the candidate equals "
	                       "it</span>") != NULL);
	drop(&s);

	/* shifted by 6 sd from 60 % of the steps: regression, outside marked */
	CHECK(make(&s, 500, parse(gen(78, 500, 6e-3, 300, -1))) == 0);
	CHECK_INT(s.res->lane, MATCHER_LANE_REGRESSION);
	CHECK(s.res->metrics[0].n_outside > 0);
	v = view_of(&s, "bad.log");
	buf_clear(&out);
	CHECK(web_noise_page(&out, &v) == 0);
	CHECK(strstr(out.data, "data-lane=\"regression\"") != NULL);
	CHECK(strstr(out.data, "<b>Regression</b>") != NULL);
	CHECK(strstr(out.data, "outside_noise_band") != NULL);
	CHECK(strstr(out.data, "<tr class=\"bad\"><th scope=\"row\">loss</th>") != NULL);
	f = figure(out.data, "values");
	CHECK_INT(sum_marked(f), s.res->metrics[0].n_outside);
	CHECK(count(f, "<circle class=\"out") > 0);
	free(f);
	f = figure(out.data, "deviation");
	CHECK_INT(sum_marked(f), s.res->metrics[0].n_outside);
	CHECK_INT(count(f, "<path class=\"member\""), K);
	free(f);
	/* the step table opens before the first outside step and marks it */
	CHECK(strstr(out.data, "<tr class=\"out\">") != NULL);
	char first[64];
	snprintf(first, sizeof first, "<td class=\"num\">%ld</td>",
	         s.res->metrics[0].first_outside - 1);
	CHECK(strstr(out.data, first) != NULL);

	/* PNG: signature, size */
	struct buf png = BUF_INIT;
	CHECK(web_noise_chart_png(&png, &v, 0, 0, 600, 200) == 0);
	CHECK(png.len > 100 && !memcmp(png.data, "\x89PNG\r\n\x1a\n", 8));
	if (png.len > 24) {
		const unsigned char *u = (const unsigned char *)png.data;
		CHECK_INT((u[16] << 24) | (u[17] << 16) | (u[18] << 8) | u[19], 600);
		CHECK_INT((u[20] << 24) | (u[21] << 16) | (u[22] << 8) | u[23], 200);
	}
	buf_clear(&png);
	CHECK(web_noise_chart_png(&png, &v, 0, 1, 0, 0) == 0);
	CHECK(png.len > 100 && !memcmp(png.data, "\x89PNG\r\n\x1a\n", 8));
	CHECK(web_noise_chart_png(&png, &v, 99, 0, 0, 0) < 0);
	buf_reset(&png);

	/* PDF: the lane and the metric table as text */
	struct buf pdf = BUF_INIT;
	struct web_pdf *p = web_pdf_new(&pdf, "noise", "2026-01-01T00:00:00Z");
	CHECK(p != NULL);
	CHECK(web_pdf_noise_report(p, &v, 0) == 0);
	CHECK(web_pdf_finish(p) == 0);
	CHECK(pdf.len > 1000 && !memcmp(pdf.data, "%PDF", 4));
	char path[] = "/tmp/parity-noise-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0 && access("/usr/bin/pdftotext", X_OK) == 0) {
		CHECK(write(fd, pdf.data, pdf.len) == (ssize_t)pdf.len);
		char cmd[128], line[512];
		snprintf(cmd, sizeof cmd, "pdftotext %s - 2>/dev/null", path);
		FILE *t = popen(cmd, "r");
		struct buf txt = BUF_INIT;
		while (t && fgets(line, sizeof line, t))
			buf_puts(&txt, line);
		if (t)
			pclose(t);
		CHECK(txt.data && strstr(txt.data, "Regression") != NULL);
		CHECK(txt.data && strstr(txt.data, "outside_noise_band") != NULL);
		CHECK(txt.data && strstr(txt.data, "Metrics") != NULL);
		CHECK(txt.data && strstr(txt.data, "grad_norm") != NULL);
		CHECK(txt.data && strstr(txt.data, "m5.log") != NULL);
		CHECK(txt.data && strstr(txt.data, "bad.log") != NULL);
		buf_reset(&txt);
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
	buf_reset(&pdf);
	drop(&s);

	/* one NaN step: regression, marked on the top edge */
	CHECK(make(&s, 300, parse(gen(79, 300, 0, 301, 150))) == 0);
	CHECK_INT(s.res->lane, MATCHER_LANE_REGRESSION);
	v = view_of(&s, "nan.log");
	buf_clear(&out);
	CHECK(web_noise_chart_svg(&out, &v, 0, 0) == 0);
	CHECK_INT(count(out.data, "<line class=\"nonfinite\""), 1);
	CHECK_INT(sum_marked(out.data), s.res->metrics[0].n_outside);
	buf_reset(&out);
	drop(&s);
}

/* Names from logs and paths are text, never markup. */
static void test_escaping(void)
{
	struct set s;
	struct buf out = BUF_INIT;
	static const char *hostile[K] = {"<script>alert(1)</script>", "a\"b", "c'd", "e&f",
	                                 "</figure><img src=x onerror=alert(2)>"};

	CHECK(make(&s, 200, parse(gen(80, 200, 6e-3, 100, -1))) == 0);
	snprintf(s.res->metrics[0].name, sizeof s.res->metrics[0].name, "<svg onload=alert(3)>");
	struct web_noise_view v = view_of(&s, "\"><img src=y onerror=alert(4)>");
	v.member_names = hostile;
	CHECK(web_noise_page(&out, &v) == 0);
	CHECK(strstr(out.data, "<script>alert") == NULL);
	CHECK(strstr(out.data, "<img src") == NULL);
	CHECK(strstr(out.data, "<svg onload") == NULL);
	CHECK(strstr(out.data, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	CHECK(strstr(out.data, "&lt;svg onload=alert(3)&gt;") != NULL);
	CHECK(strstr(out.data, "a&quot;b") != NULL);
	CHECK(strstr(out.data, "e&amp;f") != NULL);
	/* the PNG and PDF take the same names as plain text */
	struct buf png = BUF_INIT, pdf = BUF_INIT;
	CHECK(web_noise_chart_png(&png, &v, 0, 0, 0, 0) == 0);
	struct web_pdf *p = web_pdf_new(&pdf, "noise", NULL);
	CHECK(p && web_pdf_noise_report(p, &v, 0) == 0);
	CHECK(web_pdf_finish(p) == 0);
	buf_reset(&png);
	buf_reset(&pdf);
	buf_reset(&out);
	drop(&s);
}

/* 100k steps: each chart stays small, markers at most one a column. */
static void test_large(void)
{
	struct set s;
	struct buf out = BUF_INIT;
	const long n = 100000;

	CHECK(make(&s, n, parse(gen(81, n, 6e-3, 60000, -1))) == 0);
	CHECK_INT(s.res->n_steps, n);
	CHECK_INT(s.res->lane, MATCHER_LANE_REGRESSION);
	struct web_noise_view v = view_of(&s, "big.log");
	CHECK(web_noise_chart_svg(&out, &v, 0, 0) == 0);
	CHECK(out.len < 250000);
	printf("100k-step chart: %zu bytes\n", out.len);
	CHECK_INT(count(out.data, "<path class=\"member\""), K);
	CHECK(count(out.data, "<circle class=\"out") <= WEB_NOISE_COLS);
	CHECK_INT(sum_marked(out.data), s.res->metrics[0].n_outside);
	buf_clear(&out);
	CHECK(web_noise_page(&out, &v) == 0);
	CHECK(out.len < 1500000);
	buf_reset(&out);
	drop(&s);
}

int main(void)
{
	test_lanes();
	test_escaping();
	test_large();
	web_fonts_release();
	return check_report();
}
