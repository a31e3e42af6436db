/* web.h - the one public header of web/: server-rendered HTML pages (home,
 * run, activation and training comparisons, the self-contained report),
 * SVG charts and the embedded assets (CSS, JS, icon).
 *
 * Typed end to end (issue 24): pages, reports (HTML and PDF), steps.csv
 * and the charts render structs - the store's views (store/store.h,
 * store/store_views.h: comparisons with their typed results, per-step
 * rows, runs), the matcher's results and the view structs below - never a
 * JSON document read by key.  JSON is written only by the API serializers
 * (web/json_act.h, web/json_train.h, web/json_views.h) and read only by
 * the thin adapters beside them: web/json_meta.c (the runs' free-form
 * meta) and the policy adapter of web/json_train.c (into the spec that
 * matcher/trainpolicy.h resolves).  Result construction lives below web/
 * (store/store_views.h store_act_build_*, store_train_result_of_check).
 * web/ never talks to SQLite or libmicrohttpd.  All HTML goes through web_printf, whose %s escapes
 * & < > " ' (there is no raw-string verb: trusted fragments are appended
 * as built buffers).  User data never reaches <script>, <style> or on*
 * attributes; numbers printed into SVG are checked with isfinite().
 *
 * Conventions: functions return 0 or -1 (out of memory / bad format) and
 * only append to out; arguments are borrowed (only read).  No globals
 * beyond read-only tables: every function is thread-safe on distinct
 * outputs. */
#ifndef PARITY_WEB_H
#define PARITY_WEB_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>

#include "buf.h"
#include "match.h"
#include "store.h"

/* ---- the HTML writer (web/html.c) -------------------------------------- */

/* printf into out, where every %s (and %.*s, %c) is HTML-escaped: & < > "
 * ' become entities, so the result is safe in element text and in
 * double-quoted attribute values.  NULL for %s prints nothing.  Numeric
 * conversions (d i u x X o e f g E G with h hh l ll z j t L modifiers,
 * widths, precisions, '*') behave as in printf; %% prints '%'.  %n, %p
 * and unknown conversions fail.  Returns 0, or -1 (nothing sensible was
 * appended after the failure point). */
int web_printf(struct buf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int web_vprintf(struct buf *out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* s (NUL-terminated) with every byte that does not start a valid UTF-8
 * sequence replaced by U+FFFD, as the JSON documents give text: s itself
 * when it is valid, else a repaired copy in scratch (cleared first, owned
 * by the caller).  NULL when s is NULL or on OOM.  Pages print log text
 * (warnings, reasons, run names) through it. */
const char *web_utf8(struct buf *scratch, const char *s);
/* Append s (n bytes) HTML-escaped. */
int web_escape(struct buf *out, const char *s, size_t n);
/* Append s percent-encoded for a URL query value (unreserved bytes kept;
 * the result still goes through web_printf's %s when put in an href). */
int web_urlenc(struct buf *out, const char *s);
/* A number for SVG/HTML attributes: "%.<prec>g" when finite, else "0"
 * (and returns 1 so callers can skip the element); -1 on OOM. */
int web_num(struct buf *out, double v, int prec);

/* ---- golden loss files (web/losses.c) ----------------------------------- */

/* The golden loss file parity writes (`parity export --format losses`,
 * GET /runs/{id}/losses.txt) and reads back (matcher/lossfile.h): comment
 * lines naming where it came from, `# metric: NAME` unless the metric is
 * loss, then one `STEP VALUE` line per step.  web_losses_value gives the
 * text of one value: a TensorBoard value as Python's repr prints the
 * float (shortest text of the double it is, what TorchTitan's golden files
 * hold), any other value as recorded (its text; "nan"/"inf" for a NaN /
 * Inf stored without one).  All append to out; 0 or -1 (OOM). */
int web_losses_header(struct buf *out, const char *origin, int rank, const char *source,
                      const char *metric);
int web_losses_line(struct buf *out, long step, const char *text);
/* The multi-metric form (TorchTitan's newer golden files, matcher/
 * lossfile.h): after web_losses_header with metric NULL, the column line
 * `# step M1 M2 ...`, then per step `STEP V1 V2 ...` (an empty text:
 * nan). */
int web_losses_columns(struct buf *out, const char *const *metrics, size_t n);
int web_losses_row(struct buf *out, long step, const char *const *texts, size_t n);
void web_losses_value(double value, const char *text, int binary, char *out, size_t cap);

/* ---- the CSV cell writer (web/csv.c) ------------------------------------ */

/* Append one CSV cell: every CSV parity writes (steps.csv, `parity check
 * --format csv`) goes through here.  A cell that is a plain number
 * (optional sign, digits with an optional fraction and exponent, or
 * inf/infinity/nan) is written as is, so spreadsheets read "-0.5" as a
 * number.  Any other text starting with = + - @ TAB or CR gets a leading '
 * (spreadsheets would run it as a formula: "=HYPERLINK(...)", "-A1"), and
 * a cell containing , " CR or LF is quoted per RFC 4180 (" doubled).
 * Returns 0, or -1 on OOM. */
int web_csv_cell(struct buf *out, const char *s, size_t n);
/* 1 when s[0,n) is what web_csv_cell writes as a number, else 0. */
int web_csv_is_number(const char *s, size_t n);

/* Activation rows as CSV (web/act_csv.c): the header line, then one line
 * per row (rank, idx, a_key, b_key, status, method, phase, origin,
 * shape_differs, output_hash_distance, input_hash_distance and one
 * "<stat>_diff" column per stat; absent values are empty cells).  Cells go
 * through web_csv_cell; lines end in LF.  Append to out: 0 or -1 (OOM). */
struct web_act_row;
int web_act_csv_header(struct buf *out);
int web_act_csv_row(struct buf *out, int rank, const struct web_act_row *row);

/* steps.csv of a training comparison (web/train_csv.c): the header line
 * ("step", then per compared metric names[0..n) - the result's, in order -
 * <m>_baseline, <m>_candidate, <m>_abs, <m>_rel, <m>_over), and one line
 * per stored per-step row (the printed values, the exact |diff|, rel,
 * over as 1/0; empty cells where a side or the metric is absent,
 * validation metrics always).  Append to out: 0 or -1 (OOM). */
int web_train_csv_header(struct buf *out, const char *const *names, size_t n);
int web_train_csv_row(struct buf *out, const char *const *names, size_t n,
                      const struct store_step_row *row);

/* The per-step table of a candidate against a baseline set
 * (web/train_csv.c; matcher/noisecheck.h): "step", then per compared
 * metric m: m_candidate, m_mean, m_sd, m_h, m_z (the shortest text of each
 * double; empty where the metric was not compared), m_outside and
 * m_change_outside (1/0).  Row i of r->steps.  Append: 0 or -1 (OOM). */
struct matcher_noise_result;
int web_noise_csv_header(struct buf *out, const struct matcher_noise_result *r);
int web_noise_csv_row(struct buf *out, const struct matcher_noise_result *r, size_t i);
/* The lane of a noise comparison ("identical", "within_noise",
 * "regression") as people read it beside the verdict: "identical",
 * "within noise", "regression"; NULL for NULL or an unknown lane (a
 * comparison that has none).  Static text (web/train_csv.c). */
const char *web_lane_text(const char *lane);

/* Colour class for a relative difference (matching.md colour scale):
 * t = matcher_colour_intensity(rd) quantised to 0..10 (0 = untinted; any
 * t > 0 gives at least 1).  rd < 0 means "no difference": 0. */
int web_tint_level(double rd);

/* ---- assets (web/layout.c) --------------------------------------------- */

/* The embedded asset called name ("parity.css", ...), or -1.  *data and
 * *len point into static storage; *ctype gets a static content type. */
int web_asset(const char *name, const unsigned char **data, size_t *len, const char **ctype);

/* Content-Security-Policy for server pages: no inline script or style. */
extern const char web_csp_page[];
/* CSP for the self-contained report: it must inline its CSS and JS, so
 * it allows 'unsafe-inline' for style and script but nothing else (no
 * network at all: default-src 'none', connect-src 'none').  The script is
 * our static asset; user data is only ever in escaped text and data-*. */
extern const char web_csp_report[];

/* ---- page frame (web/layout.c) ----------------------------------------- */

enum web_mode {
	WEB_SERVER = 0, /* links to /assets/ and other server pages */
	WEB_OFFLINE = 1 /* inline CSS/JS, no links to the server */
};

/* <!doctype html>...<body><header>...: title is escaped; refresh_s > 0
 * adds <meta http-equiv="refresh">.  The body opens with skip links
 * (a.skip, visible on focus): "Skip to content" (main#main). */
int web_page_begin(struct buf *out, enum web_mode mode, const char *title, int refresh_s);
/* web_page_begin with a second skip link first, to #skip_id labelled
 * skip_label (trusted literals, e.g. "rows", "Skip to rows"). */
int web_page_begin_skip(struct buf *out, enum web_mode mode, const char *title, int refresh_s,
                        const char *skip_id, const char *skip_label);
/* Footer, script, </body></html>. */
int web_page_end(struct buf *out, enum web_mode mode);
/* <span class="badge verdict v-pass">pass</span> for a verdict (pass,
 * fail, error), <span class="badge job v-failed">failed</span> for a job
 * status or anything else (NULL: "pending"): verdicts are filled, job
 * statuses outlined, so status failed never looks like verdict fail. */
int web_badge(struct buf *out, const char *verdict_or_status);
/* A training log's source ("stdout", "tfevents", "lossfile", "megatron",
 * "nvdlfw_inspect", "mllog"; anything else reads as "stdout"): the
 * precision of its values ("printed", "float32", "decimal") and a human
 * label ("stdout log", "TensorBoard event file", "golden loss file",
 * "Megatron-LM golden values", "MLPerf MLLOG file", ...).  Static strings. */
const char *web_train_source_precision(const char *source);
const char *web_train_source_label(const char *source);
/* An activation log's source as shown on its run page ("msprobe" ->
 * "Ascend msprobe dump (dump.json)"). */
const char *web_act_source_label(const char *source);

/* ---- charts (web/chart.c) ---------------------------------------------- */

/* One line of an x/y chart; x and y have n values; non-finite y values
 * are gaps (and drawn as a marker on the top edge). */
struct web_series {
	const char *label;
	const char *cls; /* CSS class: "s-a", "s-b", "s-d" */
	const double *x;
	const double *y;
	size_t n;
};

/* A vertical marker at x (a step) with its label, e.g. the first step
 * over a threshold; cls "first" (this metric's) or "first-any" (another
 * metric's, earlier).  Markers outside the x range are not drawn. */
struct web_chart_mark {
	double x;
	const char *label; /* NULL: line only */
	const char *cls;   /* NULL: "first" */
};

struct web_chart {
	const char *title;
	const char *y_label;
	const struct web_series *series;
	size_t n_series;
	int log_y;    /* log10 y axis; values <= 0 go to a "0" row below it */
	double hline; /* a horizontal line (threshold); NAN for none */
	const char *hline_label;
	int width, height; /* viewBox size; 0 = 720 x 240 */
	const struct web_chart_mark *marks;
	size_t n_marks;
};

/* The largest font-size (viewBox units) parity.css gives chart text (on
 * a figure ~380 px wide, so text stays >= 10 px); web_chart_svg lays
 * every label out for it, so none leaves the viewBox at any size. */
#define WEB_CHART_FONT_MAX 21.0

/* An inline <svg> chart; long series are reduced to a min/max envelope of
 * about 1000 columns.  Data-* attributes carry the (reduced) points for
 * the hover read-out script.  Drawn in this order: grid and ticks
 * (text.tick.x / text.tick.y; on a log scale with values <= 0 a
 * text.tick.zero row), the threshold line.hline, the series (path.line,
 * non-finite values as line.nonfinite on the top edge), the markers
 * (line.vmark), then the labels text.hline-label and text.vmark-label. */
int web_chart_svg(struct buf *out, const struct web_chart *c);

/* Divergence profile: one value per activation row. */
struct web_profile_point {
	long idx;             /* row index within the rank */
	double dist;          /* max hash distance, < 0 none */
	unsigned char status; /* 0 match, 1 diff, 2 a_only, 3 b_only */
	unsigned char phase;  /* 0 forward, 1 backward */
};

struct web_profile {
	const struct web_profile_point *pts; /* any order; sorted copy made */
	size_t n;
	long n_rows;    /* rows of the rank (points not listed: match) */
	long first_fwd; /* first divergence rows, -1 none */
	long first_bwd;
	const char *id_prefix; /* NULL, or prefix of the row anchors (a
	                        * rank section of the report: "k1-") */
};

/* The divergence profile as a standalone <svg>: log y from 1e-8 to 1,
 * rows along x (forward first, then backward), only-rows marked, first
 * divergences flagged by a marker through the plot and a label in a band
 * above it (labels never cover a bar); each column links to href_prefix
 * + idx + "#r" + idx (href_prefix NULL: "#r" + idx only).  The column
 * links have tabindex=-1: the chart is one tab stop that parity.js adds
 * (arrow keys walk the columns, Enter follows one); without script it is
 * none, and the jump links and the pager reach the same rows.
 * standalone adds the xmlns and a <style> for use as its own document. */
int web_profile_svg(struct buf *out, const struct web_profile *p, const char *href_prefix,
                    const char *target, int standalone);

/* ---- pages (web/pages.c, act_page.c, train_page.c, report.c) ----------- */

/* Home: recent comparisons and runs (pages of store_comparisons_list and
 * store_runs_list; either may be NULL), form#upload and (with runs)
 * form#compare.  When both are empty: the upload form first, then the
 * equivalent curl commands; base_url is the public URL for them. */
int web_home(struct buf *out, const struct store_comparison_page *comparisons,
             const struct store_run_page *runs, const char *base_url);

/* ---- lists and forms (web/lists.c, web/forms.c) ------------------------ */

/* The filters of a list page, as given in its URL (NULL = any). */
struct web_list_query {
	const char *q, *kind, *verdict, *status;
	long long baseline, candidate; /* runs preselected in form#compare (0: none) */
};
/* table#comparisons / table#runs of a page of rows; actions adds a
 * delete link a row. */
int web_cmp_table(struct buf *out, const struct store_comparison_page *list, int actions);
int web_run_table(struct buf *out, const struct store_run_page *list, int actions);
/* GET /ui/runs: search form#search, the rows, a#next, form#upload. */
int web_runs_list(struct buf *out, const struct store_run_page *page,
                  const struct web_list_query *q);
/* GET /ui/comparisons: form#search (kind, verdict, status), the rows
 * (each with a "re-run" link: this page with ?baseline=&candidate=, which
 * preselects them in the form), a#next, form#compare offering runs. */
int web_comparisons_list(struct buf *out, const struct store_comparison_page *page,
                         const struct web_list_query *q, const struct store_run_page *runs);
/* form#upload (multipart POST /runs?html=1: log files, name, meta). */
int web_upload_form(struct buf *out);
/* form#compare (POST /comparisons?html=1): baseline and candidate chosen
 * among runs (preselected: the given ids when > 0, else newest =
 * candidate, the newest other run of its kind = baseline; each option
 * with data-kind; p#self-compare shown when both are one run), the
 * policy menu per kind (optgroups, the baseline's kind first),
 * thresholds, override file, name.  parity.js offers only candidates and
 * policies of the baseline's kind and keeps the warning in step. */
int web_compare_form(struct buf *out, const struct store_run_page *runs, long long baseline,
                     long long candidate);
/* div#cmp-actions of a comparison page (server only): form#rerun posting
 * the same two runs to POST /comparisons?html=1 with a policy picked
 * from a <select> (left out when a run is gone: baseline or candidate
 * <= 0), a link to form#compare with both preselected ("more options"),
 * a#delete-comparison to the delete confirmation and, for the candidate,
 * form#set-baseline (baseline_name prefilled; may be NULL).  kind
 * ("activation" / "training") picks the policies offered. */
int web_cmp_actions(struct buf *out, long long id, long long baseline, long long candidate,
                    const char *kind, const char *baseline_name);
/* form#set-baseline for run (the run page; the candidate on a comparison
 * page, in div#cmp-actions): baseline name (prefilled with name, may be
 * NULL), note and API token; parity.js sends PUT /baselines/{name} with
 * the token as the bearer header, so it is authorised exactly as the API
 * is (the submit button is disabled until the script runs). */
int web_set_baseline_form(struct buf *out, long long run, const char *name);
/* nav#downloads of a finished comparison (server): its PDF report
 * (/comparisons/ID/report.pdf, a#dl-pdf), its CSV (a#dl-csv: rows.csv,
 * or steps.csv when metrics is not NULL: training) and, per training
 * metric, its chart and difference chart as PNG
 * (/comparisons/ID/charts/METRIC.png and METRIC-diff.png). */
int web_cmp_downloads(struct buf *out, long long id, const char *const *metrics, size_t n_metrics);
/* The page of a refused form post: message, code, a#back to back. */
int web_form_error(struct buf *out, unsigned status, const char *code, const char *message,
                   const char *back);
/* Confirmation of a delete (what "run" or "comparison"): form#delete
 * posting to /ui/<what>s/{id}/delete, or, for a run that comparisons
 * use, section#in-use listing them (using: may be NULL) and no form. */
int web_delete_confirm(struct buf *out, const char *what, long long id, const char *name,
                       const struct store_comparison_page *using);

/* A run read by store_run_get (logs, warnings); steps: NULL, or for
 * training runs n_steps consecutive pages of store_steps_list of its
 * first rank (charts of loss and grad_norm). */
int web_run(struct buf *out, const struct store_run *run, const struct store_run_step_page *steps,
            size_t n_steps);

/* A comparison that is queued, running (refreshes itself) or failed. */
int web_comparison_pending(struct buf *out, const struct store_comparison *cmp);

/* Filters of the activation comparison page; all live in the URL. */
struct web_act_filters {
	int rank;           /* the shown rank */
	const char *status; /* NULL = any, else comma list */
	const char *method;
	const char *phase;
	int origin;    /* 1: origins only, else any */
	const char *q; /* key regex (PCRE2, store.h struct store_key_filter) */
	int icase;     /* 1: q ignores case (the default); 0: case=sensitive */
	long from;     /* first row index shown */
	int limit;     /* rows per page */
};

/* Append "?k=v&..." for the filters (from and limit only when not the
 * default, icase=1 only with q), with from replaced by from_idx when >= 0 (-1 = keep f->from,
 * -2 = drop it).  Values are percent-encoded; the result is NOT
 * HTML-escaped (print it through %s). */
int web_act_query(struct buf *out, const struct web_act_filters *f, long from_idx);

/* One activation row as pages show it: its index in the rank and the
 * matcher row (entries through row->a / row->b), the typed view both the
 * CLI (matcher results) and the service (store pages) produce.  Borrowed. */
struct web_act_row {
	long idx; /* >= 0 */
	const struct matcher_row *row;
};

struct web_act_view {
	const struct store_comparison *cmp; /* its metadata; NULL: a CLI report */
	const struct store_act_result *res; /* the typed result */
	const struct web_act_row *rows;     /* this page's rows, n_rows of them */
	size_t n_rows;
	const struct web_act_filters *f;
	long next_from;                    /* idx of the next page, -1 none */
	const char *filter_error;          /* bad/costly regex: shown instead of rows */
	const char *profile_url;           /* <object> SVG URL (server) or NULL */
	const struct web_profile *profile; /* inline profile or NULL */
	enum web_mode mode;
	const char *note; /* banner at the top (report caps) */
	double server_ms; /* ignored (reserved) */
	int head_only;    /* 1: stop before the row tables, page left open
	                   * (the streamed report: web_report_section_* and
	                   * web_report_act_end write the rest) */
	/* "N of M rows" in the filter bar (server): rows passing the filters
	 * and rows of the rank; n_total < 0 = not shown; count_partial: the
	 * regex budget ran out, n_matched is a lower bound */
	long long n_matched, n_total;
	int count_partial;
	/* the cause chain walked to this page's origin (?chain=), row
	 * indexes from the start row to the origin; n_chain 0 = none */
	const long *chain;
	size_t n_chain;
	/* the op key of each chain row (n_chain of them, items may be NULL;
	 * the array NULL: none known), shown beside the row numbers */
	const char *const *chain_keys;
	/* the page opened at the first divergence (no ?from= or ?row= was
	 * given, web_act_landing): 1, the rows before f->from are hidden */
	int landed;
	long landing_context; /* rows of context shown above the divergence */
};

/* Where a comparison page opens when no position is asked for: the row
 * index of the page's first row, context rows above the rank's first
 * divergence (the earlier of forward and backward); 0 (the start) when
 * the rank does not diverge or diverges within the first context rows. */
long web_act_landing(const struct store_act_result *res, int rank, long context);

/* The activation comparison page: verdict banner (a multi-rank result's
 * reasons grouped by code: "diff_rows on ranks 1-3,5"), div#cmp-actions
 * (server), table#ranks (multi-rank: per rank verdict, counts, first
 * divergences linked, largest distance, the earliest-diverging rank
 * badged "first"; its rank links select the rank), counts, excluded ops,
 * divergence profile, jumps, then div#rows: the sticky filter bar,
 * paging links and the Forward/Backward tables of row pairs with tinted
 * cells.  Filter, paging and rank links end in #rows. */
int web_act_page(struct buf *out, const struct web_act_view *v);

/* What a training page or report draws, bounded whatever the step count
 * (issue 23 F3): per metric an envelope of every step (web/pdf.h: at most
 * WEB_ENV_BINS bins of min/max), the counts, and only the rows the table
 * shows.  Fed the per-step rows in step order (store pages, read one at a
 * time, on the server; a check's rows in the CLI): the server's page
 * keeps the TABLE_PAGE rows of the page holding the asked step (?step= or
 * ?from=, else the first page) of the (filtered) row list and the first
 * and last step of every page (the pager); the offline report keeps the
 * first WEB_TRAIN_REPORT_ROWS rows.  Rows are copied: the caller may free
 * each row after web_train_window_add.  init allocates (zeroed by it;
 * free it whatever the result); init and add return 0 or -1 on OOM. */
#define WEB_TRAIN_REPORT_ROWS 5000
struct web_env;
struct web_train_window {
	const struct store_train_result *res;
	int offline, over_only, has_target;
	long target;
	struct web_env *env;         /* res->n_metrics envelopes (validation ones empty) */
	unsigned char *charted;      /* per metric: charted (web/train_groups.c); the
	                                others' envelopes stay empty */
	size_t n_all;                /* rows seen */
	size_t n_over;               /* rows with a cell over its threshold */
	size_t n;                    /* rows listed (over_only: the over ones) */
	size_t start;                /* list index of the first kept row */
	int found;                   /* the asked step (or the next one) was seen */
	long hit;                    /* its step (the last row's when none is after it) */
	struct store_step_row *rows; /* the kept rows, n_rows of them */
	size_t n_rows, cap_rows, cap_cells;
	const char **names; /* cap_rows * n_metrics (row i: names + i * n_metrics) */
	struct matcher_train_row_cell *cells;
	long *bounds; /* per page of the list: its first and last step */
	size_t n_pages, cap_pages;
	int frozen; /* the kept page is complete */
};
struct web_train_view;
int web_train_window_init(struct web_train_window *w, const struct web_train_view *v);
int web_train_window_add(struct web_train_window *w, const struct store_step_row *row);
void web_train_window_free(struct web_train_window *w);

/* A training comparison as its page and report render it, all typed:
 * the comparison's metadata (runs, labels; NULL for a CLI report, which
 * names the logs in name_a / name_b instead), its result and its per-step
 * rows: either a window filled from them (win, the server: bounded) or
 * every per-step row of the result's rank in step order (steps, n_steps:
 * the CLI and tests; a window is made from them).  Borrowed. */
struct web_train_view {
	const struct store_comparison *cmp;   /* NULL: a CLI report */
	const struct store_train_result *res; /* the result (cmp->train) */
	const char *name_a, *name_b;          /* CLI: the logs' names, NULL unknown */
	const struct web_train_window *win;   /* NULL: made from steps */
	const struct store_step_row *steps;   /* every per-step row (win NULL) */
	size_t n_steps;
	/* the table (server): TABLE_PAGE (100) rows a page, pages aligned on
	 * the (filtered) row list; links carry log, over and from */
	int has_step, has_from; /* 0: not given (a zeroed view: first page) */
	long step;              /* the page holding this step (or the next one
	                         * shown), its row highlighted and anchored #hit */
	long from;              /* the page holding this step (pager links) */
	int over_only;          /* only rows with a cell over its threshold */
	int log_y;
	enum web_mode mode; /* WEB_OFFLINE: the first WEB_TRAIN_REPORT_ROWS rows, no controls */
	const char *note;
};

/* The training comparison page: verdict, reasons, resolution notes,
 * overlay and |difference| charts (the first step over a threshold
 * marked on each), statistics, per-step table with jump form
 * (form#jump, GET step=), filter link (a#filter-over / a#filter-all) and
 * pager (a#page-first, a#page-prev "steps A-B", a#page-next, a#page-last). */
int web_train_page(struct buf *out, const struct web_train_view *v);

/* The self-contained HTML report of a training comparison: the page of v
 * offline (the first WEB_TRAIN_REPORT_ROWS rows, no controls; v->mode is ignored), v->note printed
 * at the top when not NULL.  v->win, when given, must have been made for the offline report (a view
 * with mode WEB_OFFLINE).  Activation reports: web_report_act_html. */
int web_report_html(struct buf *out, const struct web_train_view *v);

/* The per-step rows of a check (the CLI's report; the service reads them
 * from the store): *rows (malloc'd, n_common of them) with metric names
 * and cells in arena.  0, or -1 on OOM. */
int web_train_steps_of_check(const struct matcher_train_result *r, struct arena *arena,
                             struct store_step_row **rows, size_t *n);

/* The activation report written in pieces, so rows go out as they are
 * read and memory does not grow with the row count (served report.html
 * and `parity compare -o`).  It holds every row: each section's rows are
 * a data block (web/report.c) that the inline report.js renders
 * virtually (only the rows in view are in the DOM) and filters.
 *   web_report_act_begin   everything above the rows (verdict, counts,
 *                          profile, jumps, filter bar);
 *   per phase (forward, then backward): web_report_section_begin, one
 *                          web_report_row per row in row order,
 *                          web_report_section_end (the row count goes
 *                          below the table);
 *   web_report_act_end     the page's end (inline JS: report.js and
 *                          parity.js).
 * Arguments of begin as for web_report_html.  st is the caller's state,
 * zeroed before begin; set st->show_l1 (web_act_rows_have_l1) before the
 * first row.  Each returns 0, or -1 when out runs out of memory. */
struct web_report_rows {
	int phase;             /* the open section's phase (0 forward, 1 backward) */
	size_t n;              /* rows written in the open section */
	int show_l1;           /* the L1 column is shown */
	const char *id_prefix; /* NULL, or the rank section's id prefix */
};
int web_report_act_begin(struct buf *out, const struct store_comparison *cmp,
                         const struct store_act_result *res, const struct web_profile *profile,
                         int rank, const char *note);
/* The whole activation report at once (begin, the rows, end): rows is one
 * rank's rows; cmp NULL for a CLI report. */
int web_report_act_html(struct buf *out, const struct store_comparison *cmp,
                        const struct store_act_result *res, const struct web_act_row *rows,
                        size_t n_rows, const struct web_profile *profile, int rank,
                        const char *note);
int web_report_section_begin(struct buf *out, struct web_report_rows *st, int phase);
int web_report_row(struct buf *out, struct web_report_rows *st, const struct web_act_row *row);
int web_report_section_end(struct buf *out, struct web_report_rows *st);
int web_report_act_end(struct buf *out);

/* The every-rank report (several ranks, no ?rank=N): begin_all writes
 * the head without a rank's parts (verdict, counts of all ranks, filter
 * bar); then per rank web_report_rank_begin (a <section id="k{rank}-rank">
 * with the rank's note (may be NULL), counts, excluded ops, profile and
 * jumps; its row ids and anchors are prefixed "k{rank}-", which the
 * caller also sets as st->id_prefix and profile->id_prefix), its two
 * phase sections as above, web_report_rank_end; then web_report_act_end.
 * prefix: the caller's "k{rank}-" buffer (WEB_RANK_PREFIX bytes). */
#define WEB_RANK_PREFIX 24
void web_report_rank_prefix(char prefix[WEB_RANK_PREFIX], int rank);
int web_report_act_begin_all(struct buf *out, const struct store_comparison *cmp,
                             const struct store_act_result *res, const char *note);
int web_report_rank_begin(struct buf *out, const struct store_act_result *res, int rank,
                          const struct web_profile *profile, const char *note);
int web_report_rank_end(struct buf *out);

/* 1 when any of the rows has an L1 statistic on either side. */
int web_act_rows_have_l1(const struct web_act_row *rows, size_t n_rows);

/* ---- two runs' meta side by side (web/json_meta.c, for the mail) ------- */

/* The top-level keys of two runs' stored meta texts (NULL, not JSON or not
 * an object = none): baseline's keys in stored order, then the
 * candidate's keys the baseline lacks; each value as one line (a string as
 * is, anything else as compact JSON; NULL where that run lacks the key),
 * differs when a side lacks it or the values are not equal JSON.  Owned by
 * out until web_meta_pairs_free.  0, or -1 on OOM (out empty). */
struct web_meta_pair {
	const char *key, *a, *b;
	int differs;
};
struct web_meta_pairs {
	struct web_meta_pair *rows;
	size_t n;
};
int web_meta_pairs_build(const char *meta_a, const char *meta_b, struct web_meta_pairs *out);
void web_meta_pairs_free(struct web_meta_pairs *p);

/* ---- issue 16 pages (web/baseline_pages.c) ------------------------------ */

/* Comparisons a baseline history page shows (a store page). */
#define WEB_BASELINE_HISTORY_MAX 200
/* The suite matrix (/ui/suites/{suite}): verdict badge (verdict as
 * web_suite_verdict gives it), one row per config with its latest
 * comparison and its reason (table#suite, in web_suite_order); refreshes
 * every 10 s while pending. */
int web_suite_page(struct buf *out, const char *suite, const struct store_suite_view *v,
                   const char *verdict);
/* A golden baseline's page (/ui/baselines/{name}): current run, its
 * changes (table#history), an SVG chart of max |diff| per metric over the
 * comparisons made against it (div#drift, training only) and their table
 * (table#comparisons: verdict, commit, suite/config, max |diff| per
 * metric); "Older comparisons" follows cmps->next_cursor.  results
 * (NULL, or one per listed comparison, each NULL unless it is a finished
 * training comparison) are their typed training results. */
int web_baseline_page(struct buf *out, const struct store_baseline *b,
                      const struct store_comparison_page *cmps,
                      const struct store_train_result *const *results);
/* Issue 25: 1 when a suite config's latest comparison c fails (verdict
 * fail or error, or a failed job).  The configs of v in the order the
 * suite page and PDF list them: failing first, then unfinished, then
 * passing, each in config order (so what needs attention comes first);
 * malloc'd indexes into v->latest (free()), NULL when out of memory. */
int web_suite_failing(const struct store_comparison *c);
/* What a comparison list shows as its reason (web/lists.c): the first
 * reason of its result, else its job's error, else "" (borrowed). */
const char *web_cmp_reason(const struct store_comparison *c);
/* The verdict with its lane (issue 26), "pass (within noise)", "fail
 * (regression)", into out (cap bytes): verdict ("" for NULL) with
 * web_lane_text(lane) in parentheses when it has one.  Returns out. */
const char *web_verdict_lane(const char *verdict, const char *lane, char *out, size_t cap);
/* web_verdict_lane of comparison c's verdict and lane. */
const char *web_verdict_text(const struct store_comparison *c, char *out, size_t cap);
size_t *web_suite_order(const struct store_suite_view *v);
/* Issue 25 list pages: /ui/suites (table#suites: suite, verdict of its
 * latest configs, configs failing / pending, comparisons, last filed)
 * and /ui/baselines (table#baselines: name, current run, updated,
 * changes; "More" follows page->next_cursor). */
int web_suites_page(struct buf *out, const struct store_suite_list *l);
int web_baselines_page(struct buf *out, const struct store_baseline_page *page);

/* ---- a candidate against a baseline set (web/noise_page.c, issue 26) ---- */

/* What the noise pages, the PNG charts and the PDF render, all typed
 * (matcher/noisecheck.h, matcher/spec/noise.md).  Borrowed, only read.
 * The daemon fills it from the store, the CLI from the logs it read
 * (web_noise_values_build).
 *   res            the check's result (its steps, per-metric arrays);
 *   member_names   res->k names (an item NULL: "member i"); NULL: none;
 *   candidate_name NULL: "candidate";
 *   member_values  per metric (res->metrics order), per member (0..k), the
 *                  member's value at each of res->steps (NaN where it has
 *                  none); NULL, or a NULL item: no member lines drawn;
 *   mode           WEB_OFFLINE: the self-contained report (no links);
 *   cmp_id         the stored comparison's id (title), 0: a CLI report;
 *   note           NULL, or a banner at the top;
 *   csv_hint       where every step is (the table lists a window), e.g.
 *                  "steps.csv"; NULL: "parity compare ... --format csv". */
struct matcher_noise_result;
struct matcher_trainrun;
struct web_noise_view {
	const struct matcher_noise_result *res;
	const char *const *member_names;
	const char *candidate_name;
	const double *const *const *member_values;
	enum web_mode mode;
	long long cmp_id;
	const char *note;
	const char *csv_hint;
};

/* Rows the per-step table of a metric lists: a window starting
 * WEB_NOISE_TABLE_BEFORE rows before the first outside step (level or
 * change, else a non-finite candidate value; none: the first step). */
#define WEB_NOISE_TABLE_ROWS   60
#define WEB_NOISE_TABLE_BEFORE 20

/* The members' values of a result, as web_noise_view.member_values wants
 * them, read from the runs the check saw (members[0..k), the result's
 * rank): one allocation, v->values until web_noise_values_free.  0, or -1
 * on OOM (v then empty). */
struct web_noise_values {
	const double *const *const *values;
	void *priv;
};
int web_noise_values_build(struct web_noise_values *v, const struct matcher_noise_result *r,
                           const struct matcher_trainrun *const *members, size_t k);
void web_noise_values_free(struct web_noise_values *v);

/* The band chart of metric m (an index into res->metrics) as an inline
 * <figure class="noise-chart"><svg class="noise-svg">: the band (mean +-
 * h) shaded (path.band), each member a thin line (path.member, k of them
 * when values are given), the candidate bold (path.cand), outside steps
 * marked (circle.out, data-step = the column's first outside step, data-n
 * = its outside steps, data-nc = its outside changes when any), non-finite
 * candidate values as line.nonfinite on the top edge, the extreme step as
 * line.vmark.  100k steps are reduced to a min/max envelope per pixel
 * column (at most WEB_NOISE_COLS columns), so the SVG stays small.  A
 * <title>/<desc> and a figcaption describe it.  deviation 0: the values
 * (data-view="values"); 1: each value minus the members' mean at its step
 * (data-view="deviation"), where the band is +-h around 0 and visible
 * whatever the values' scale. */
#define WEB_NOISE_COLS 800
int web_noise_chart_svg(struct buf *out, const struct web_noise_view *v, size_t m, int deviation);
/* The comparison's body (no page frame, for the daemon's comparison page
 * and the report): section#verdict with the lane (data-lane) and what it
 * means, reasons and the policy's parameters; section#set (members,
 * candidate); table#noise-metrics (steps, outside / allowed, p, bias in
 * sd, share above the mean, changes outside / allowed, first outside
 * step, result); notes; per compared metric section#noise-m<i> with its
 * two band charts (values, deviation) and table.noise-steps (the window above: step, candidate,
 * mean, sd, h, z, outside). */
int web_noise_body(struct buf *out, const struct web_noise_view *v);
/* The whole page (frame of v->mode, h1, note, body). */
int web_noise_page(struct buf *out, const struct web_noise_view *v);
/* The self-contained HTML report (`parity compare M1 ... MK CAND -o
 * x.html`): web_noise_page offline, whatever v->mode. */
int web_noise_report_html(struct buf *out, const struct web_noise_view *v);
/* "identical" -> "Identical", "within_noise" -> "Within noise",
 * "regression" -> "Regression", NONE -> "No lane (error)"; and a sentence
 * saying what the lane means.  Static strings. */
const char *web_noise_lane_label(int lane);
const char *web_noise_lane_sentence(int lane);

/* ---- rows rendered on two threads (web/chunker.c) --------------------
 * The caller posts chunk k+1 to a helper thread, renders chunk k itself,
 * writes it, then collects the helper's rendering of k+1 and writes that:
 * both cores work and the bytes come out in order.  fn renders rows
 * [from, to) of ctx into out (appending) and returns 0 or -1; it runs on
 * the helper thread, or in web_chunker_collect when no thread could be
 * started.  ctx must stay valid until the chunk is collected; one chunk
 * at a time. */
typedef int (*web_chunk_fn)(void *ctx, size_t from, size_t to, struct buf *out);
struct web_chunker {
	web_chunk_fn fn;
	pthread_t th;
	int threaded;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int state;
	void *ctx; /* the posted chunk */
	size_t from, to;
	int rc;
	struct buf out; /* its rendering */
};
void web_chunker_init(struct web_chunker *c, web_chunk_fn fn);
void web_chunker_post(struct web_chunker *c, void *ctx, size_t from, size_t to);
/* Wait for the posted chunk: *out is its rendering (valid until the next
 * post); fn's result. */
int web_chunker_collect(struct web_chunker *c, struct buf **out);
/* Waits for a chunk still being rendered, then stops the thread. */
void web_chunker_free(struct web_chunker *c);

#endif
