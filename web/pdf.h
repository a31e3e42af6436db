/* pdf.h - PNG charts and PDF reports drawn with cairo and pango (issue 16).
 *
 *   web/chart_scale.c  the envelope a chart draws (a series reduced to at
 *                      most WEB_ENV_BINS bins of min/max, whatever its
 *                      length) and nice axis ticks; no cairo;
 *   web/cairo_chart.c  the charts on a cairo context: a metric's overlay
 *                      (baseline vs candidate per step), its |difference|
 *                      (log y, threshold line, first offending step
 *                      marked), the activation divergence profile; and
 *                      web_chart_png;
 *   web/pdf_doc.c      a flowing A4 document: headings, paragraphs,
 *                      tables that break across pages (header repeated),
 *                      charts as vector graphics, all text through pango
 *                      (selectable; fontconfig falls back to WenQuanYi Micro Hei for
 *                      Chinese and Japanese);
 *   web/pdf_report.c   the comparison reports on it: training (verdict,
 *                      reasons, meta, statistics, charts, per-step table)
 *                      and activation (verdict, counts, profile,
 *                      non-matching rows).
 *
 * Renderers take typed data (store.h structs, envelopes) and never read
 * the store: server/views/render.c loads and calls them, the CLI feeds them
 * from the matcher's results.  Memory is bounded: an envelope is a fixed
 * array, tables are written row by row and the callers cap the rows.
 * Functions return 0, or -1 on OOM or a cairo error.  Thread-safe on
 * distinct outputs (pango's font map is per thread). */
#ifndef PARITY_WEB_PDF_H
#define PARITY_WEB_PDF_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "store.h"

struct web_profile;
struct web_act_row;

/* ---- envelopes (web/chart_scale.c) -------------------------------------- */

/* Bins kept of one series: points go one per bin until the bins run out,
 * then neighbouring bins merge pairwise (each bin covering twice the
 * points), so between WEB_ENV_BINS / 2 and WEB_ENV_BINS bins cover any
 * number of points in order.  Each bin keeps, per value (0 baseline,
 * 1 candidate, 2 |difference|), the min and max of its finite values and
 * whether it saw a non-finite one. */
#define WEB_ENV_BINS 2048
enum { WEB_ENV_A, WEB_ENV_B, WEB_ENV_D, WEB_ENV_N };
struct web_env_bin {
	double x0, x1; /* first and last x of the bin */
	double lo[WEB_ENV_N], hi[WEB_ENV_N];
	unsigned char has[WEB_ENV_N];       /* a finite value was seen */
	unsigned char nonfinite[WEB_ENV_N]; /* a NaN or Inf was seen */
	double dpos;                        /* smallest positive |difference| (0: none; log axes) */
};
struct web_env {
	struct web_env_bin *bins; /* WEB_ENV_BINS of them, n_bins used */
	size_t n_bins;
	size_t per_bin;  /* points a full bin holds */
	size_t n_points; /* points added */
	size_t fill;     /* points in the last bin */
};
/* Zero e; the first add allocates. */
void web_env_init(struct web_env *e);
void web_env_free(struct web_env *e);
/* Add one point (x ascending); has[k] 0 = that value is absent (not drawn,
 * unlike a non-finite one, which is marked).  0, or -1 on OOM. */
int web_env_add(struct web_env *e, double x, const double v[WEB_ENV_N], const int has[WEB_ENV_N]);

/* Add one per-step cell (matcher_train_row / the store's step rows) at
 * x = step: its baseline and candidate values where present, |diff| when
 * both are.  A cell with neither side adds nothing.  0, or -1 on OOM. */
int web_env_add_cell(struct web_env *e, long step, const struct matcher_train_row_cell *c);

/* A divergence profile reduced to at most WEB_PROFILE_COLS columns of the
 * row index, keeping per column and status (diff, a_only, b_only) the row
 * with the largest distance: bounded however many rows differ.  init
 * allocates (-1 on OOM); add takes rows in any order (status 0, a match,
 * is ignored; 1 diff, 2 a_only, 3 b_only); finish fills out (pts borrowed
 * from acc, first divergences -1) until web_profile_acc_free. */
#define WEB_PROFILE_COLS 2048
struct web_profile_point;
struct web_profile_acc {
	struct web_profile_point *pts;
	long n_rows;
};
int web_profile_acc_init(struct web_profile_acc *acc, long n_rows);
void web_profile_acc_add(struct web_profile_acc *acc, long idx, int status, int backward,
                         double dist);
void web_profile_acc_finish(struct web_profile_acc *acc, struct web_profile *out);
void web_profile_acc_free(struct web_profile_acc *acc);

/* ---- charts (web/cairo_chart.c) ------------------------------------------ */

/* One metric's two charts.  threshold: the policy's abs threshold (NAN:
 * none); first_over: the first step over it (has_first_over 0: none). */
struct web_metric_chart {
	const char *metric;
	const char *name_a, *name_b; /* legend; NULL: "baseline", "candidate" */
	const struct web_env *env;
	double threshold;
	int has_first_over;
	long first_over;
};
/* PNG of the overlay (diff 0) or |difference| chart (diff 1), width x
 * height pixels (0: 900 x 320), appended to out.  Like every renderer
 * here it loads cairo/pango at its first call (web/gfx.h) and fails (-1,
 * NULL) when they cannot be loaded. */
int web_chart_png(struct buf *out, const struct web_metric_chart *c, int diff, int width,
                  int height);

/* Frees the font caches pango, cairo and fontconfig keep for the whole
 * process (the calling thread's default font map, cairo's static data,
 * fontconfig's configuration).  Call once at process exit, after every
 * thread that drew has ended: nothing may draw afterwards.  Without it
 * LeakSanitizer reports those caches (~300 KB) as leaks.  It waits (up to
 * 2 s) until every font map a renderer used is gone, pango's worker
 * threads may hold the last reference, and otherwise leaves the caches
 * alone: it never aborts (pdf_doc.c says why).  A no-op when nothing drew
 * (cairo was never loaded). */
void web_fonts_release(void);

/* ---- documents (web/pdf_doc.c) ------------------------------------------- */

/* An A4 PDF written into out as it is drawn.  web_pdf_new returns NULL on
 * OOM; date (ISO 8601, e.g. a comparison's finished_at; NULL = now) is
 * the document's creation date, so the same comparison renders the same
 * bytes (its ETag stays); every later call on a document that failed is a no-op returning
 * -1; web_pdf_finish ends and frees it (0, or -1 when anything failed:
 * out then holds no usable document). */
struct web_pdf;
struct web_pdf *web_pdf_new(struct buf *out, const char *title, const char *date);
int web_pdf_finish(struct web_pdf *p);
/* Text blocks; level 0 is the document title, 1 a section, 2 a
 * subsection.  Plain text (no markup). */
int web_pdf_heading(struct web_pdf *p, int level, const char *text);
int web_pdf_para(struct web_pdf *p, const char *text);
int web_pdf_note(struct web_pdf *p, const char *text); /* small, grey */
/* A coloured verdict line ("PASS", "FAIL", "ERROR", anything else grey). */
int web_pdf_verdict(struct web_pdf *p, const char *verdict, const char *detail);
/* Start a new page. */
int web_pdf_page_break(struct web_pdf *p);
/* Tables: n columns (at most 8) with relative widths (NULL: equal) and
 * header texts; rows of n texts (NULL cell: an em dash), mark 1 shades
 * the row as differing (red) and 2 as a passing highlight (green).  A
 * row that does not fit the page goes to the next, header repeated. */
int web_pdf_table_begin(struct web_pdf *p, size_t n, const double *widths,
                        const char *const *headers);
int web_pdf_table_row(struct web_pdf *p, const char *const *cells, int mark);
int web_pdf_table_end(struct web_pdf *p);
/* A metric chart (diff as for web_chart_png) as vector graphics across
 * the text width. */
int web_pdf_chart(struct web_pdf *p, const struct web_metric_chart *c, int diff);
/* An activation divergence profile (log y 1e-8..1, rows along x). */
int web_pdf_profile(struct web_pdf *p, const struct web_profile *prof, const char *title);
/* Pages so far (for tests and caps). */
int web_pdf_pages(const struct web_pdf *p);

/* ---- comparison reports (web/pdf_report.c) -------------------------------- */

/* Most per-step rows a training report lists, and most non-matching rows
 * an activation report lists; the rest is counted in a note that points
 * at steps.csv / rows.csv. */
#define WEB_PDF_STEP_ROWS 1000
#define WEB_PDF_ACT_ROWS  1000
/* The same caps for a comparison's section of a suite report (an
 * overview: a hundred configs stay a readable document). */
#define WEB_PDF_SUITE_ROWS 100

/* One listed per-step row: the step and the cells of the table's metrics
 * (web_pdf_train.table_metric). */
struct web_pdf_step {
	long step;
	struct matcher_train_row_cell cell[2];
};
/* A training comparison.  cmp: its metadata (NULL: a CLI report, which
 * uses name_a / name_b); meta_a / meta_b: the runs' meta JSON text (NULL:
 * none); env[i] the envelope of res->metrics[i] (NULL or n_points 0: no
 * chart); steps: the listed rows (at most WEB_PDF_STEP_ROWS) of
 * n_steps_total, with the cells of table_metric[0..n_table_metrics):
 * the first ones, or, when n_steps_before > 0, a window that skips that
 * many rows (a failing comparison's steps around its first offending
 * step: the report says which steps it shows). */
struct web_pdf_train {
	const struct store_comparison *cmp;
	const char *name_a, *name_b;
	const char *meta_a, *meta_b;
	const struct store_train_result *res;
	const struct web_env *env;
	const char *table_metric[2];
	int n_table_metrics;
	const struct web_pdf_step *steps;
	size_t n_steps;
	int64_t n_steps_total;
	const char *csv_hint;   /* where the rest is ("GET /comparisons/7/steps.csv") */
	int64_t n_steps_before; /* rows before steps[0] not listed */
};
/* The metrics of the per-step table: loss and grad_norm when compared,
 * else the first training (not validation/) metrics, at most 2; their
 * names into name[] and indexes in r->metrics into idx[].  How many. */
int web_pdf_table_metrics(const struct store_train_result *r, const char *name[2], int idx[2]);
/* The training report's sections (verdict, reasons, notes, metadata,
 * statistics, charts, per-step table); level: the heading level of its
 * top (0 a whole document, 1 a suite's config section). */
int web_pdf_train_report(struct web_pdf *p, const struct web_pdf_train *t, int level);

/* An activation comparison, written in three steps so rows stream:
 * web_pdf_act_report (verdict, reasons, metadata, counts per status and
 * per rank, a profile per rank given), then web_pdf_act_row per
 * non-matching row (the caller stops at WEB_PDF_ACT_ROWS), then
 * web_pdf_act_rows_end with how many were listed and left out. */
struct web_pdf_act {
	const struct store_comparison *cmp;
	const char *name_a, *name_b;
	const char *meta_a, *meta_b;
	const struct store_act_result *res;
	const struct web_profile *profiles; /* one per rank of res->ranks, or NULL */
	size_t n_profiles;
};
int web_pdf_act_report(struct web_pdf *p, const struct web_pdf_act *a, int level);
int web_pdf_act_row(struct web_pdf *p, int rank, const struct web_act_row *row);
int web_pdf_act_rows_end(struct web_pdf *p, int64_t n_listed, int64_t n_more, const char *csv_hint);

/* ---- issue 26: a candidate against a baseline set ------------------------ */

/* The band chart of metric m of v (web.h struct web_noise_view; deviation
 * as for web_noise_chart_svg: 1 each value minus the members' mean) as a
 * PNG of width x height pixels (0: 900 x 320): band shaded, members thin,
 * candidate bold, outside steps marked, the lane in the title.  Appended
 * to out; -1 also for m out of range. */
struct web_noise_view;
int web_noise_chart_png(struct buf *out, const struct web_noise_view *v, size_t m, int deviation,
                        int width, int height);
/* The chart as vector graphics across the text width (web/pdf_doc.c). */
int web_pdf_noise_chart(struct web_pdf *p, const struct web_noise_view *v, size_t m, int deviation);
/* The report of a noise comparison (web/noise_pdf.c): the lane and its
 * meaning, reasons, the members and the candidate, the per-metric table,
 * notes, per metric the band charts (values, deviation) and the per-step window (as the HTML
 * page: WEB_NOISE_TABLE_ROWS rows around the first outside step); level
 * as for web_pdf_train_report. */
int web_pdf_noise_report(struct web_pdf *p, const struct web_noise_view *v, int level);

#endif
