/* web_int.h - helpers shared by the page renderers of web/ (not part of
 * the public interface): page pieces used by more than one page and the
 * typed reader of the runs' free-form meta.
 *
 * The typed rule of web/: pages, reports (HTML, PDF), CSVs and mail
 * pieces render structs (store.h views, matcher results, the view
 * structs of web.h); JSON is only written by the API serializers
 * (web/json_*.c) and read only by the adapters beside them (web/json_meta.c
 * for the stored meta, web/json_train.c for the request's policy). */
#ifndef PARITY_WEB_INT_H
#define PARITY_WEB_INT_H

#include "web.h"

#define WEB_ACT_LIMIT 200

/* Bytes a JSON string writer copies as they are: WEB_JSON_PLAIN, printable
 * ASCII other than '"' and '\\' (the API's writers check the rest for
 * UTF-8); WEB_JSON_SCRIPT, any byte >= 0x20 but '"', '\\', '<', '>', '&',
 * '\'' and 0xe2 (it may start U+2028 / U+2029), for JSON inside a
 * <script> element (the offline report). */
#define WEB_JSON_PLAIN  1
#define WEB_JSON_SCRIPT 2
extern const unsigned char web_json_byte[256];

/* <table class="rows"><thead> with the header row of a Forward/Backward
 * row table (the L1 column when show_l1), table left open: the page's
 * tables and the report's virtual ones (web/report.c). */
int web_act_thead(struct buf *out, int show_l1);
/* The link to comparison id's self-contained report (a#report-link),
 * saying how many rows it holds and about how large it is (every rank's
 * rows: the report the link opens). */
int web_report_link(struct buf *out, long long id, const struct store_act_result *res);

/* The verdict banner of a typed result: class by verdict, every reason,
 * the policy line.  Training (reasons' text UTF-8-repaired) and
 * activation. */
int web_train_verdict_banner(struct buf *out, const struct store_train_result *res);
int web_act_verdict_banner(struct buf *out, const struct store_act_result *res);

/* One side of the "baseline vs candidate" line: linked = the run exists
 * (server mode links it), name NULL when unknown. */
struct web_run_ref {
	long long id;
	const char *name;
	int linked;
};
/* The "baseline vs candidate" line with links (server mode), and
 * " · finished <finished_at>" when it is not NULL. */
int web_runs_line_of(struct buf *out, const struct web_run_ref *a, const struct web_run_ref *b,
                     const char *finished_at, enum web_mode mode);
/* The runs line of a stored comparison (cmp NULL: a CLI report, no links)
 * with the names given (the runs' names, else the logs'; already
 * repaired), then its labels and the two runs' metadata table. */
int web_cmp_runs_line(struct buf *out, const struct store_comparison *cmp, const char *name_a,
                      const char *name_b, enum web_mode mode);
/* The baseline-vs-candidate metadata table (web/meta_table.c):
 * <table id="meta"> of the two runs' stored meta texts (NULL, not JSON or
 * not an object = none) flattened to dotted keys, rows that differ marked
 * class="differs"; nothing when both are empty.  web_cmp_runs_line
 * appends it after the runs line, so every comparison page and report
 * shows it. */
int web_meta_table(struct buf *out, const char *meta_a, const char *meta_b);
/* The same merged key list typed: one row per key of either side in key
 * order (a / b NULL where that side lacks the key; differs set when the
 * values differ or a side lacks it), n_diff such rows, dropped keys past
 * WEB_META_KEYS a side.  Strings owned by out until web_meta_rows_free.
 * 0, or -1 on OOM (out then empty). */
#define WEB_META_KEYS 200
struct web_meta_row {
	const char *key, *a, *b;
	int differs;
};
struct web_meta_rows {
	struct web_meta_row *rows;
	size_t n, n_diff, dropped;
	void *priv;
};
int web_meta_rows_build(const char *meta_a, const char *meta_b, struct web_meta_rows *out);
void web_meta_rows_free(struct web_meta_rows *m);
/* One run's meta (web/json_meta.c): its top-level keys in stored order,
 * each with its text (a string as is, anything else as compact JSON,
 * is_string telling which); nothing for a missing or non-object meta.
 * Owned by out until web_meta_free.  0, or -1 on OOM (out empty). */
struct web_meta_kv {
	const char *key, *text;
	int is_string;
};
struct web_meta {
	struct web_meta_kv *kv;
	size_t n;
};
int web_meta_read(const char *meta_json, struct web_meta *out);
void web_meta_free(struct web_meta *m);
/* The string value of key (NULL when absent or not a string). */
const char *web_meta_str(const struct web_meta *m, const char *key);
/* The issue 16 labels of a comparison (each NULL when absent):
 * <p id="labels"> "Golden baseline NAME · Suite S, config C", linked to
 * their pages in server mode; nothing when it has neither. */
int web_cmp_labels(struct buf *out, const char *baseline_name, const char *suite,
                   const char *config, enum web_mode mode);

/* ---- issue 26: a noise chart reduced to columns (web/noise_page.c) ---- */

/* One column of a band chart: the steps res->steps[i0 .. i1) where the
 * metric was compared.  NaN where a column has no such value. */
struct web_noise_col {
	double x0, x1;           /* first and last step */
	double band_lo, band_hi; /* min(mean - h), max(mean + h) */
	double y_lo, y_hi;       /* the candidate's finite values */
	int y_nonfinite;         /* a candidate NaN / Inf */
	size_t n_out, n_chg;     /* outside steps (level), outside changes */
	long out_step;           /* the first outside (level or change) step */
	double out_y;            /* the candidate there (NaN: non-finite) */
};
/* Metric m of v reduced to at most max_cols columns (one per compared
 * step when they fit): cols, and per member j its min / max per column at
 * m_lo[j * n + c], m_hi[...] (k 0 without values); lo..hi the range of
 * every finite value drawn (NaN when none); x0..x1 the steps.  deviation:
 * every value minus the members' mean at its step (the band is then
 * +-h around 0, which shows the noise at any scale).  Allocates
 * (web_noise_cols_free).  0, or -1 on OOM. */
struct web_noise_cols {
	struct web_noise_col *cols;
	size_t n, k;
	double *m_lo, *m_hi;
	double lo, hi, x0, x1;
	int has_extreme;
	long extreme_step;
};
int web_noise_cols_build(struct web_noise_cols *c, const struct web_noise_view *v, size_t m,
                         size_t max_cols, int deviation);
void web_noise_cols_free(struct web_noise_cols *c);

/* The index into res->steps where metric m's per-step table starts: the
 * window of web.h (WEB_NOISE_TABLE_BEFORE rows before the first outside
 * step or non-finite candidate value; 0 when there is none). */
struct matcher_noise_metric;
size_t web_noise_window_start(const struct matcher_noise_result *r,
                              const struct matcher_noise_metric *m);
/* A number as the noise tables show it, by kind: 'g' a value (%.10g),
 * 'e' a spread or p (%.3g), 'z' a z or bias (%+.2f), '%' a share in
 * percent (%.0f %); a non-finite v as "NaN" / "Inf" (present: a value
 * that is there) or an em dash (absent). */
void web_noise_fmt(char *s, size_t cap, char kind, double v, int present);
/* The outside column: "level", "change", "level, change" or "" for the
 * bits of matcher_noise_metric.outside. */
const char *web_noise_outside_text(unsigned outside);

/* ---- many series (issue 27, web/train_groups.c) -------------------------
 * A training result that compares every series both runs logged (a DL
 * Framework Inspect statistics log's hundreds of series). */
#define WEB_TRAIN_CHARTS_MAX 8 /* charts (and per-step columns) of such a page */
struct store_train_result;
/* Does r compare all common series (its policy says so, or it holds a
 * metric its policy does not name)? */
int web_train_all_common(const struct store_train_result *r);
/* The first difference: the earliest step of a fail-class reason naming a
 * metric (at one step the first metric in order).  1 with *metric (index)
 * and *step, else 0. */
int web_train_first_diff(const struct store_train_result *r, size_t *metric, long *step);
/* Does metric k get a chart and a per-step column?  Every metric of an
 * ordinary result; of an all-common result with more than
 * WEB_TRAIN_CHARTS_MAX series only the first WEB_TRAIN_CHARTS_MAX failing
 * ones. */
int web_train_charted(const struct store_train_result *r, size_t k);
/* web_train_charted of every metric at once (for the per-row loops):
 * malloc'd, r->n_metrics bytes (at least 1), NULL on OOM. */
unsigned char *web_train_charted_map(const struct store_train_result *r);
/* The section of an all-common result: the first difference, then one
 * table row per layer and tensor (matcher_nvinspect_split): its stats, its
 * number of series, its verdict and its first differing iteration.  0 or
 * -1 (OOM). */
int web_train_groups(struct buf *out, const struct store_train_result *r);

#endif
