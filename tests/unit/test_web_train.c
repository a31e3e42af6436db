/* test_web_train.c - the training charts and per-step table (issue 15):
 * the SVG is parsed back (text positions, label boxes at the largest CSS
 * font, path points) to check that no label leaves the viewBox, that the
 * threshold label is drawn after and clear of the non-finite band, that
 * zero differences on a log scale sit on their own "0" row and not on the
 * threshold line, and that the first offending step is marked on every
 * chart of the page and of the offline report; the table is checked for
 * the jump (page holding the step, row highlighted and anchored), the
 * over-threshold filter and the pager's step-range labels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "web.h"

#define EM 0.64 /* a digit's width, in em (DejaVu Sans) */

/* One <text> element of an SVG. */
struct text {
	char cls[64], anchor[16], baseline[16], body[128];
	double x, y;
	size_t at; /* offset in the document */
};

static void attr(const char *tag, const char *end, const char *name, char *out, size_t cap)
{
	char key[40];
	const char *p;

	out[0] = 0;
	snprintf(key, sizeof key, " %s=\"", name);
	p = strstr(tag, key);
	if (!p || p > end)
		return;
	p += strlen(key);
	size_t n = (size_t)(strchr(p, '"') - p);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

/* Every <text> of svg[0..len) into t (at most cap); returns the count. */
static size_t texts(const char *svg, size_t len, struct text *t, size_t cap)
{
	size_t n = 0;
	const char *p = svg;

	while (n < cap && (p = strstr(p, "<text ")) != NULL && (size_t)(p - svg) < len) {
		const char *gt = strchr(p, '>'), *close = strstr(p, "</text>");
		char num[32];

		memset(&t[n], 0, sizeof t[n]);
		attr(p, gt, "class", t[n].cls, sizeof t[n].cls);
		attr(p, gt, "text-anchor", t[n].anchor, sizeof t[n].anchor);
		attr(p, gt, "dominant-baseline", t[n].baseline, sizeof t[n].baseline);
		attr(p, gt, "x", num, sizeof num);
		t[n].x = atof(num);
		attr(p, gt, "y", num, sizeof num);
		t[n].y = atof(num);
		size_t bl = (size_t)(close - gt - 1);
		if (bl >= sizeof t[n].body)
			bl = sizeof t[n].body - 1;
		memcpy(t[n].body, gt + 1, bl);
		t[n].at = (size_t)(p - svg);
		n++;
		p = close;
	}
	return n;
}

/* Characters of a label as shown (an entity counts one). */
static size_t shown_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++) {
		if (*s == '&') {
			const char *semi = strchr(s, ';');
			if (semi)
				s = semi;
		} else if (((unsigned char)*s & 0xC0) == 0x80) {
			continue;
		}
		n++;
	}
	return n;
}

/* A text's box at the largest chart font. */
static void box(const struct text *t, double *l, double *r, double *top, double *bottom)
{
	double w = (double)shown_chars(t->body) * EM * WEB_CHART_FONT_MAX;

	*l = !strcmp(t->anchor, "end")      ? t->x - w
	     : !strcmp(t->anchor, "middle") ? t->x - w / 2
	                                    : t->x;
	*r = *l + w;
	if (!strcmp(t->baseline, "hanging")) {
		*top = t->y;
		*bottom = t->y + WEB_CHART_FONT_MAX;
	} else if (!strcmp(t->baseline, "central")) {
		*top = t->y - WEB_CHART_FONT_MAX / 2;
		*bottom = t->y + WEB_CHART_FONT_MAX / 2;
	} else {
		*top = t->y - 0.75 * WEB_CHART_FONT_MAX;
		*bottom = t->y + 0.25 * WEB_CHART_FONT_MAX;
	}
}

static double num_attr(const char *tag, const char *name)
{
	char v[32];
	attr(tag, strchr(tag, '>'), name, v, sizeof v);
	return v[0] ? atof(v) : NAN;
}

/* The chart's labels outside its w x h viewBox (at the largest font) and
 * x tick labels overlapping their left neighbour; *n_x x tick labels, of
 * which *saw_2000 says whether one reads "2000". */
static void layout(const struct buf *b, double w, double h, size_t *outside, size_t *overlap,
                   size_t *n_x, int *saw_2000)
{
	struct text t[64];
	size_t nt = texts(b->data, b->len, t, 64);
	double prev_r = -1;

	*outside = *overlap = *n_x = 0;
	*saw_2000 = 0;
	for (size_t i = 0; i < nt; i++) {
		double l, r, top, bottom;
		box(&t[i], &l, &r, &top, &bottom);
		if (l < 0 || r > w || top < 0 || bottom > h) {
			(*outside)++;
			fprintf(stderr, "outside: \"%s\" %.1f..%.1f x %.1f..%.1f\n", t[i].body, l,
			        r, top, bottom);
		}
		if (strstr(t[i].cls, "tick x")) {
			(*n_x)++;
			*saw_2000 |= !strcmp(t[i].body, "2000");
			*overlap += l < prev_r;
			prev_r = r;
		}
	}
}

/* (a) every label inside the viewBox, x tick labels apart */
static void test_labels_inside(void)
{
	enum { N = 2001 };
	static double x[N], y[N];
	struct buf b = BUF_INIT;
	size_t outside, overlap, n_x;
	int saw_2000;

	for (size_t i = 0; i < N; i++) {
		x[i] = (double)i;
		y[i] = 2.5 - 0.0004 * (double)i + 1e-5 * sin((double)i);
	}
	struct web_series s = {"baseline", "s-a", x, y, N};
	struct web_chart c = {
	        .title = "loss", .y_label = "loss", .series = &s, .n_series = 1, .hline = NAN};
	CHECK(web_chart_svg(&b, &c) == 0);
	layout(&b, 720, 240, &outside, &overlap, &n_x, &saw_2000);
	CHECK(saw_2000);
	CHECK(n_x >= 3);
	CHECK_INT(outside, 0);
	CHECK_INT(overlap, 0);
	buf_reset(&b);

	/* six-digit steps and a narrow chart: still inside, still apart */
	for (size_t i = 0; i < N; i++)
		x[i] = 100000 + 50.0 * (double)i;
	c.width = 400;
	CHECK(web_chart_svg(&b, &c) == 0);
	layout(&b, 400, 240, &outside, &overlap, &n_x, &saw_2000);
	CHECK(n_x >= 2);
	CHECK_INT(outside, 0);
	CHECK_INT(overlap, 0);
	buf_reset(&b);
}

/* (b) the threshold label after the non-finite band and clear of it */
static void test_threshold_label_vs_nan_band(void)
{
	size_t n = 300;
	double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
	struct buf b = BUF_INIT;
	struct text t[64];

	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i;
		y[i] = i >= 200 ? NAN : 1e-6 * (1 + (double)(i % 9)); /* a NaN band at the end */
	}
	struct web_series s = {"|difference|", "s-d", x, y, n};
	struct web_chart c = {.title = "d",
	                      .y_label = "|diff|",
	                      .series = &s,
	                      .n_series = 1,
	                      .log_y = 1,
	                      .hline = 5e-4,
	                      .hline_label = "threshold 0.0005"};
	CHECK(web_chart_svg(&b, &c) == 0);
	const char *last_band = NULL, *p = b.data;
	while ((p = strstr(p, "<line class=\"nonfinite")) != NULL)
		last_band = p++;
	CHECK(last_band != NULL);
	size_t nt = texts(b.data, b.len, t, 64);
	const struct text *hl = NULL;
	for (size_t i = 0; i < nt; i++)
		if (!strcmp(t[i].cls, "hline-label"))
			hl = &t[i];
	CHECK(hl != NULL);
	if (hl && last_band) {
		double band_top = num_attr(last_band, "y1"),
		       band_bottom = num_attr(last_band, "y2");
		double l, r, top, bottom;
		box(hl, &l, &r, &top, &bottom);
		CHECK(hl->at > (size_t)(last_band - b.data));    /* drawn over the band */
		CHECK(bottom <= band_top || top >= band_bottom); /* and not on it */
		CHECK(top >= 0 && bottom <= 240 && l >= 0 && r <= 720);
		/* the bands at x >= 200 reach the label's x range: the overlap
		 * would be real */
		CHECK(num_attr(last_band, "x1") > l);
	}
	buf_reset(&b);
	free(x);
	free(y);
}

/* y of the first point of the first path. */
static double first_path_y(const char *svg)
{
	const char *d = strstr(svg, " d=\"");
	const char *comma = d ? strchr(d, ',') : NULL;
	return comma ? atof(comma + 1) : NAN;
}

/* (c) zero differences on a log scale: their own row, not the threshold */
static void test_log_zeros(void)
{
	double x[40], y[40];
	struct buf b = BUF_INIT;
	struct text t[64];

	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 40; i++) {
			x[i] = i + 1;
			/* all zero (identical runs), or zero then growing */
			y[i] = k == 0 || i < 20 ? 0 : 1e-7 * pow(10, (i - 20) / 5.0);
		}
		struct web_series s = {"|difference|", "s-d", x, y, 40};
		struct web_chart c = {.title = "d",
		                      .y_label = "|diff|",
		                      .series = &s,
		                      .n_series = 1,
		                      .log_y = 1,
		                      .hline = 1e-5,
		                      .hline_label = "threshold 1e-05"};
		buf_clear(&b);
		CHECK(web_chart_svg(&b, &c) == 0);
		const char *hline = strstr(b.data, "<line class=\"hline\"");
		CHECK(hline != NULL);
		double yz = first_path_y(b.data), yh = hline ? num_attr(hline, "y1") : NAN;
		CHECK(fabs(yz - yh) >= 10);
		/* a "0" tick labels the zero row */
		size_t nt = texts(b.data, b.len, t, 64);
		int zero_tick = 0;
		for (size_t i = 0; i < nt; i++)
			zero_tick |= strstr(t[i].cls, "tick") && !strcmp(t[i].body, "0") &&
			             fabs(t[i].y - yz) < 1;
		CHECK(zero_tick);
		/* and the zeros are below every decade */
		for (size_t i = 0; i < nt; i++)
			if (!strncmp(t[i].body, "1e", 2))
				CHECK(t[i].y < yz - 10);
	}
	buf_reset(&b);
}

/* ---- the page ---------------------------------------------------------- */

/* A training comparison of metrics loss and grad_norm over steps
 * 1..n_steps: loss over from step 170 on every 10th step, grad_norm at
 * step 120 only. */
struct fixture {
	struct store_comparison cmp;
	struct store_train_result res;
	struct matcher_train_metric_result m[2];
	const char *names[2];
	struct store_step_row *rows;
	struct matcher_train_row_cell *cells;
};

static void doc(struct fixture *f, int n_steps)
{
	memset(f, 0, sizeof *f);
	f->cmp = (struct store_comparison){
	        .id = 9, .name = "", .kind = "training", .status = "done", .verdict = "fail"};
	f->names[0] = "loss";
	f->names[1] = "grad_norm";
	for (int k = 0; k < 2; k++) {
		struct matcher_train_metric_result *m = &f->m[k];
		snprintf(m->name, sizeof m->name, "%s", f->names[k]);
		snprintf(m->max_abs_text, sizeof m->max_abs_text, "%s", k ? "1" : "0.5");
		m->max_abs = k ? 1 : 0.5;
		m->has_first_over = 1;
		m->first_over = k ? 120 : 170;
		m->n_over = k ? 1 : 9;
		m->th.abs = k ? 1e-2 : 1e-3;
		snprintf(m->th.metric, sizeof m->th.metric, "%s", f->names[k]);
	}
	matcher_train_policy_preset(&f->res.policy, "premerge");
	f->res.verdict = MATCHER_VERDICT_FAIL;
	f->res.metrics = f->m;
	f->res.n_metrics = 2;
	f->res.n_common = n_steps;
	f->rows = calloc((size_t)n_steps, sizeof *f->rows);
	f->cells = calloc(2 * (size_t)n_steps, sizeof *f->cells);
	for (int i = 1; i <= n_steps; i++) {
		int lo = i >= 170 && i % 10 == 0, go = i == 120;
		struct matcher_train_row_cell *c = &f->cells[2 * (i - 1)];
		c[0] = (struct matcher_train_row_cell){
		        {1, 1}, 2.0, lo ? 2.5 : 2.0, 1, 1, lo ? 0.5 : 0.0, lo ? 0.25 : 0.0, "", lo};
		snprintf(c[0].abs_text, sizeof c[0].abs_text, "%s", lo ? "0.5" : "0");
		c[1] = (struct matcher_train_row_cell){
		        {1, 1}, 1.0, go ? 2.0 : 1.0, 1, 1, go ? 1.0 : 0.0, go ? 1.0 : 0.0, "", go};
		snprintf(c[1].abs_text, sizeof c[1].abs_text, "%s", go ? "1" : "0");
		f->rows[i - 1] = (struct store_step_row){0, i, f->names, c, 2};
	}
}

static void doc_free(struct fixture *f)
{
	free(f->rows);
	free(f->cells);
}

static void view_of(struct web_train_view *v, struct fixture *f)
{
	memset(v, 0, sizeof *v);
	v->cmp = &f->cmp;
	v->res = &f->res;
	v->steps = f->rows;
	v->n_steps = (size_t)f->res.n_common;
	v->mode = WEB_SERVER;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* 2: every chart marks the first offending step (its metric's, and the
 * earlier one of another metric with its name), on the page and offline */
static void test_first_over_marks(void)
{
	struct fixture f;
	struct buf b = BUF_INIT;
	struct web_train_view v;

	doc(&f, 250);
	view_of(&v, &f);
	for (int pass = 0; pass < 2; pass++) {
		buf_clear(&b);
		if (pass == 0)
			CHECK(web_train_page(&b, &v) == 0);
		else
			CHECK(web_report_html(&b, &v) == 0);
		CHECK_INT(count(b.data, "<svg class=\"chart-svg\""), 4);
		/* each chart: its own marker; loss's also grad_norm's earlier one */
		const char *p = b.data;
		int i = 0;
		while ((p = strstr(p, "<svg class=\"chart-svg\"")) != NULL) {
			const char *end = strstr(p, "</svg>");
			char chart[200000];
			size_t len = (size_t)(end - p) < sizeof chart - 1 ? (size_t)(end - p)
			                                                  : sizeof chart - 1;
			memcpy(chart, p, len);
			chart[len] = 0;
			if (i < 2) { /* loss: overlay and diff */
				CHECK(strstr(chart, "<line class=\"vmark first\" data-x=\"170\"") !=
				      NULL);
				CHECK(strstr(chart, ">first over: step 170</text>") != NULL);
				CHECK(strstr(chart,
				             "<line class=\"vmark first-any\" data-x=\"120\"") !=
				      NULL);
				CHECK(strstr(chart, ">first over (grad_norm): step 120</text>") !=
				      NULL);
			} else { /* grad_norm: the overall first is its own */
				CHECK(strstr(chart, "<line class=\"vmark first\" data-x=\"120\"") !=
				      NULL);
				CHECK(strstr(chart, "first-any") == NULL);
			}
			/* marker labels inside the viewBox */
			struct text t[64];
			size_t nt = texts(chart, len, t, 64);
			for (size_t k = 0; k < nt; k++) {
				double l, r, top, bottom;
				if (strncmp(t[k].cls, "vmark-label", 11))
					continue;
				box(&t[k], &l, &r, &top, &bottom);
				CHECK(l >= 0 && r <= 720 && top >= 0 && bottom <= 240);
			}
			p = end;
			i++;
		}
	}
	buf_reset(&b);
	doc_free(&f);
}

/* rows shown: the steps of <tr id="sN"> in order into out (cap); count */
static size_t rows_shown(const char *html, long *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = html; (p = strstr(p, "<tr id=\"s")) != NULL; p++)
		if (n < cap)
			out[n++] = atol(p + 9);
	return n;
}

/* Render the page of v into b; the steps of its rows into rows. */
static size_t render(struct buf *b, const struct web_train_view *v, long *rows)
{
	buf_clear(b);
	CHECK(web_train_page(b, v) == 0);
	return rows_shown(b->data, rows, 300);
}

/* 1: jump, filter, pager labels */
static void test_table(void)
{
	struct fixture f;
	struct buf b = BUF_INIT;
	struct web_train_view v;
	long rows[300];
	size_t n;

	doc(&f, 250);
	view_of(&v, &f);

	/* first page, no jump */
	n = render(&b, &v, rows);
	CHECK_INT(n, 100);
	CHECK_INT(rows[0], 1);
	CHECK(strstr(b.data, "id=\"page-next\">steps 101-200 &rsaquo;</a>") != NULL);
	CHECK(strstr(b.data, "href=\"?from=101\" id=\"page-next\"") != NULL);
	CHECK(strstr(b.data, "id=\"page-prev\"") == NULL);
	CHECK(strstr(b.data, "<form class=\"jump\" id=\"jump\" method=\"get\" action=\"#hit\">") !=
	      NULL);
	CHECK(strstr(b.data, "id=\"hit\"") == NULL);
	/* issue 25: the page links its PDF, steps.csv and each metric's PNG
	 * charts; a skip link leads to the per-step table */
	CHECK(strstr(b.data, "<a id=\"dl-pdf\" href=\"/comparisons/9/report.pdf\"") != NULL);
	CHECK(strstr(b.data, "<a id=\"dl-csv\" href=\"/comparisons/9/steps.csv\"") != NULL);
	CHECK(strstr(b.data, "href=\"/comparisons/9/charts/loss.png\" type=\"image/png\"") != NULL);
	CHECK(strstr(b.data, "href=\"/comparisons/9/charts/grad_norm-diff.png\"") != NULL);
	CHECK_INT(count(b.data, "class=\"dl-png\" href="), 4);
	CHECK(strstr(b.data, "<a class=\"skip\" href=\"#per-step\">") != NULL);
	CHECK(strstr(b.data, "<h2 id=\"per-step\">Per step</h2>") != NULL);

	/* ?step=170: the page of steps 101-200, row 170 highlighted, anchored */
	v.has_step = 1;
	v.step = 170;
	n = render(&b, &v, rows);
	CHECK_INT(n, 100);
	CHECK_INT(rows[0], 101);
	CHECK_INT(rows[99], 200);
	CHECK(strstr(b.data,
	             "<tr id=\"s170\" class=\"over-row hit\"><th><span id=\"hit\"></span>170"
	             "</th>") != NULL);
	CHECK_INT(count(b.data, "id=\"hit\""), 1);
	CHECK(strstr(b.data, "id=\"page-prev\">&lsaquo; steps 1-100</a>") != NULL);
	CHECK(strstr(b.data, "id=\"page-next\">steps 201-250 &rsaquo;</a>") != NULL);
	CHECK(strstr(b.data,
	             "name=\"step\" id=\"jump-step\" inputmode=\"numeric\" value=\"170\"") != NULL);
	/* red cells say why (issue 25): loss over at 170..200 (4 steps), grad_norm
	 * at 120, two red cells each */
	CHECK_INT(count(b.data, "class=\"num over tint t10\" title=\"loss: |candidate - baseline| "
	                        "= 0.5, over the threshold\">"),
	          8);
	CHECK_INT(count(b.data, "title=\"grad_norm: |candidate - baseline| = 1, over"), 2);
	CHECK_INT(count(b.data, "class=\"num over tint t10\">"), 0);

	/* a step past the end: the last page, its last row */
	v.step = 9999;
	n = render(&b, &v, rows);
	CHECK_INT(n, 50);
	CHECK(strstr(b.data, "id=\"jump-note\"") != NULL);
	CHECK(strstr(b.data, "hit\"><th><span id=\"hit\"></span>250</th>") != NULL);

	/* over-threshold only: steps 120 and 170, 180, ..., 250 */
	v.has_step = 0;
	v.over_only = 1;
	n = render(&b, &v, rows);
	CHECK_INT(n, 10);
	CHECK_INT(rows[0], 120);
	CHECK_INT(rows[1], 170);
	CHECK_INT(rows[9], 250);
	CHECK_INT(count(b.data, "<tr id=\"s"), count(b.data, "class=\"over-row"));
	CHECK(strstr(b.data, "(10 of 250)") != NULL);
	CHECK(strstr(b.data, "id=\"filter-all\"") != NULL);
	CHECK(strstr(b.data, "<input type=\"hidden\" name=\"over\" value=\"1\">") != NULL);
	/* jumping inside the filter: a filtered-out step lands on the next */
	v.has_step = 1;
	v.step = 171;
	buf_clear(&b);
	CHECK(web_train_page(&b, &v) == 0);
	CHECK(strstr(b.data, "<span id=\"hit\"></span>180</th>") != NULL);

	/* links keep log (and over) */
	v.has_step = 0;
	v.log_y = 1;
	v.over_only = 0;
	v.has_from = 1;
	v.from = 150;
	buf_clear(&b);
	CHECK(web_train_page(&b, &v) == 0);
	CHECK(strstr(b.data, "href=\"?log=1&amp;from=1\" id=\"page-first\"") != NULL);
	CHECK(strstr(b.data, "href=\"?log=1&amp;from=201\" id=\"page-next\"") != NULL);

	/* more common steps than rows read: said so */
	CHECK(strstr(b.data, "show the first") == NULL);
	f.res.n_common = 300000;
	n = render(&b, &v, rows);
	CHECK(strstr(b.data, "the charts and the table show the first 250 (the CSV") != NULL);

	/* offline: every row, no controls */
	buf_clear(&b);
	CHECK(web_report_html(&b, &v) == 0);
	CHECK_INT(rows_shown(b.data, rows, 300), 250);
	CHECK(strstr(b.data, "id=\"jump\"") == NULL);
	buf_reset(&b);
	doc_free(&f);
}

int main(void)
{
	test_labels_inside();
	test_threshold_label_vs_nan_band();
	test_log_zeros();
	test_first_over_marks();
	test_table();
	return check_report();
}
