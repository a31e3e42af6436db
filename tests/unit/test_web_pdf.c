/* test_web_pdf.c - the cairo renderers of web/pdf.h without a store:
 * envelopes stay bounded and exact (a million points in at most
 * WEB_ENV_BINS bins keeping every min and max, non-finite values flagged
 * apart), PNG charts decode back (cairo reads them) at the asked size with
 * the series, threshold and first-offending-step colours present, and a
 * training report with a CJK run name becomes a PDF whose table spans
 * pages once the step rows pass one page.  No timing is asserted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "check.h"
#include "pdf.h"
#include "web.h"

struct reader {
	const struct buf *b;
	size_t pos;
};

static cairo_status_t png_read(void *closure, unsigned char *data, unsigned int len)
{
	struct reader *r = closure;
	if (r->pos + len > r->b->len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->b->data + r->pos, len);
	r->pos += len;
	return CAIRO_STATUS_SUCCESS;
}

/* Pixels of the decoded PNG near colour (r, g, b) (each within tol of
 * 255), or -1 when it does not decode; *w, *h its size. */
static long count_colour(const struct buf *png, int r, int g, int b, int tol, int *w, int *h)
{
	struct reader rd = {png, 0};
	cairo_surface_t *s = cairo_image_surface_create_from_png_stream(png_read, &rd);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return -1;
	}
	*w = cairo_image_surface_get_width(s);
	*h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *px = cairo_image_surface_get_data(s);
	long n = 0;
	for (int y = 0; y < *h; y++)
		for (int x = 0; x < *w; x++) {
			uint32_t v;
			memcpy(&v, px + (size_t)y * (size_t)stride + (size_t)x * 4, 4);
			int pr = (v >> 16) & 255, pg = (v >> 8) & 255, pb = v & 255;
			if (abs(pr - r) <= tol && abs(pg - g) <= tol && abs(pb - b) <= tol)
				n++;
		}
	cairo_surface_destroy(s);
	return n;
}

static void test_envelope(void)
{
	struct web_env e;
	web_env_init(&e);
	const size_t n = 1000000;
	int ok = 0;
	for (size_t i = 0; i < n; i++) {
		double v[WEB_ENV_N] = {(double)(i % 7), (double)(i % 7) + 0.5,
		                       i == 777777 ? NAN : 1e-9};
		int has[WEB_ENV_N] = {1, i != 5, 1};
		ok |= web_env_add(&e, (double)i, v, has);
	}
	CHECK_INT(ok, 0);
	CHECK_INT(e.n_points, n);
	CHECK(e.n_bins <= WEB_ENV_BINS && e.n_bins > WEB_ENV_BINS / 2);
	CHECK_DBL(e.bins[0].x0, 0, 0);
	CHECK_DBL(e.bins[e.n_bins - 1].x1, (double)(n - 1), 0);
	/* merged bins keep the exact extremes of their points */
	CHECK_DBL(e.bins[10].lo[WEB_ENV_A], 0, 0);
	CHECK_DBL(e.bins[10].hi[WEB_ENV_A], 6, 0);
	CHECK_DBL(e.bins[10].hi[WEB_ENV_B], 6.5, 0);
	/* the NaN is flagged in exactly one bin and never reaches a range */
	size_t flagged = 0;
	for (size_t i = 0; i < e.n_bins; i++)
		flagged += e.bins[i].nonfinite[WEB_ENV_D];
	CHECK_INT(flagged, 1);
	CHECK_DBL(e.bins[0].dpos, 1e-9, 0);
	/* bins are contiguous and ordered */
	int ordered = 1;
	for (size_t i = 1; i < e.n_bins; i++)
		ordered &= e.bins[i].x0 > e.bins[i - 1].x1;
	CHECK(ordered);
	web_env_free(&e);
	CHECK(e.bins == NULL);

	/* few points: one bin each, values as given */
	web_env_init(&e);
	for (int i = 0; i < 10; i++) {
		double v[WEB_ENV_N] = {i, 2 * i, i};
		int has[WEB_ENV_N] = {1, 1, 1};
		web_env_add(&e, 100 + i, v, has);
	}
	CHECK_INT(e.n_bins, 10);
	CHECK_DBL(e.bins[3].lo[WEB_ENV_B], 6, 0);
	CHECK_DBL(e.bins[3].hi[WEB_ENV_B], 6, 0);
	web_env_free(&e);
}

/* A regressing candidate: equal until step 400, then drifting. */
static void fill(struct web_env *e, long n)
{
	web_env_init(e);
	for (long i = 1; i <= n; i++) {
		double a = 10.0 / (1 + i * 0.01), b = a + (i >= 400 ? (i - 399) * 1e-5 : 0);
		struct matcher_train_row_cell c;
		memset(&c, 0, sizeof c);
		c.present[0] = c.present[1] = 1;
		c.a = a;
		c.b = b;
		c.abs = fabs(b - a);
		web_env_add_cell(e, i, &c);
	}
}

static void test_png(void)
{
	struct web_env e;
	struct buf png = BUF_INIT;
	int w = 0, h = 0;
	fill(&e, 100000);
	struct web_metric_chart c = {.metric = "loss",
	                             .name_a = "训练运行",
	                             .name_b = "candidate",
	                             .env = &e,
	                             .threshold = 1e-4,
	                             .has_first_over = 1,
	                             .first_over = 409};
	CHECK_INT(web_chart_png(&png, &c, 0, 0, 0), 0);
	CHECK(png.len > 8 && !memcmp(png.data, "\x89PNG\r\n\x1a\n", 8));
	long white = count_colour(&png, 255, 255, 255, 0, &w, &h);
	CHECK_INT(w, 900);
	CHECK_INT(h, 320);
	CHECK(white > 0 && white < (long)w * h * 97 / 100); /* not blank */
	/* both series are drawn: baseline blue, candidate orange */
	CHECK(count_colour(&png, 41, 99, 199, 30, &w, &h) > 100);
	CHECK(count_colour(&png, 232, 115, 23, 30, &w, &h) > 100);

	/* |diff|: the purple series, the red threshold, the orange marker */
	buf_clear(&png);
	CHECK_INT(web_chart_png(&png, &c, 1, 600, 200), 0);
	CHECK(count_colour(&png, 255, 255, 255, 0, &w, &h) > 0);
	CHECK_INT(w, 600);
	CHECK_INT(h, 200);
	CHECK(count_colour(&png, 115, 56, 158, 30, &w, &h) > 50);
	CHECK(count_colour(&png, 204, 26, 26, 30, &w, &h) > 50);
	CHECK(count_colour(&png, 242, 140, 0, 30, &w, &h) > 50);

	/* an empty series still gives a valid image saying so */
	struct web_env none;
	web_env_init(&none);
	c.env = &none;
	buf_clear(&png);
	CHECK_INT(web_chart_png(&png, &c, 1, 0, 0), 0);
	CHECK(count_colour(&png, 255, 255, 255, 0, &w, &h) > 0);
	buf_reset(&png);
	web_env_free(&e);
}

static void test_pdf(void)
{
	struct matcher_train_metric_result m[2];
	struct matcher_train_reason why;
	struct store_train_result r;
	struct web_env env[2];
	struct web_pdf_step *steps = calloc(WEB_PDF_STEP_ROWS, sizeof *steps);
	struct buf out = BUF_INIT;

	memset(m, 0, sizeof m);
	memset(&why, 0, sizeof why);
	memset(&r, 0, sizeof r);
	snprintf(m[0].name, sizeof m[0].name, "loss");
	snprintf(m[1].name, sizeof m[1].name, "grad_norm");
	for (int k = 0; k < 2; k++) {
		m[k].th.abs = 1e-5;
		snprintf(m[k].max_abs_text, sizeof m[k].max_abs_text, "0.00507");
		m[k].has_first_over = 1;
		m[k].first_over = 400;
		fill(&env[k], 5000);
	}
	why.code = "threshold_exceeded";
	snprintf(why.message, sizeof why.message, "loss differs beyond the threshold");
	r.verdict = MATCHER_VERDICT_FAIL;
	snprintf(r.policy.name, sizeof r.policy.name, "premerge");
	r.reasons = &why;
	r.n_reasons = 1;
	r.metrics = m;
	r.n_metrics = 2;
	r.n_common = 5000;
	const char *names[2];
	int idx[2];
	CHECK_INT(web_pdf_table_metrics(&r, names, idx), 2);
	CHECK_STR(names[0], "loss");
	CHECK_INT(idx[1], 1);
	for (size_t i = 0; i < WEB_PDF_STEP_ROWS; i++) {
		steps[i].step = (long)i + 1;
		for (int k = 0; k < 2; k++) {
			steps[i].cell[k].present[0] = steps[i].cell[k].present[1] = 1;
			steps[i].cell[k].a = 1.5;
			steps[i].cell[k].b = 1.5;
			snprintf(steps[i].cell[k].abs_text, sizeof steps[i].cell[k].abs_text, "0");
		}
	}
	struct web_pdf *p = web_pdf_new(&out, "test", "2026-01-02T03:04:05Z");
	CHECK(p != NULL);
	struct web_pdf_train t = {.name_a = "训练运行",
	                          .name_b = "cand",
	                          .meta_a = "{\"commit\":\"aaaa\",\"env\":{\"torch\":\"2.3\"}}",
	                          .meta_b = "{\"commit\":\"bbbb\",\"env\":{\"torch\":\"2.3\"}}",
	                          .res = &r,
	                          .env = env,
	                          .table_metric = {"loss", "grad_norm"},
	                          .n_table_metrics = 2,
	                          .steps = steps,
	                          .n_steps = WEB_PDF_STEP_ROWS,
	                          .n_steps_total = 5000,
	                          .csv_hint = "steps.csv"};
	CHECK_INT(web_pdf_train_report(p, &t, 0), 0);
	/* 1000 step rows do not fit a page: the table went on */
	CHECK(web_pdf_pages(p) > 10);
	CHECK_INT(web_pdf_finish(p), 0);
	CHECK(out.len > 1000 && !memcmp(out.data, "%PDF-", 5));
	CHECK(memmem(out.data, out.len, "%%EOF", 5) != NULL);
	CHECK(memmem(out.data, out.len, "20260102030405", 14) != NULL);

	/* a table call on a document that failed is refused, not a crash */
	buf_reset(&out);
	p = web_pdf_new(&out, "bad", NULL);
	CHECK(web_pdf_table_begin(p, 0, NULL, NULL) < 0);
	CHECK(web_pdf_para(p, "after the failure") < 0);
	CHECK(web_pdf_finish(p) < 0);
	buf_reset(&out);
	for (int k = 0; k < 2; k++)
		web_env_free(&env[k]);
	free(steps);
}

int main(void)
{
	test_envelope();
	test_png();
	test_pdf();
	web_fonts_release();
	return check_report();
}
