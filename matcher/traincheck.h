/* traincheck.h - the collected training run and the threshold checks that
 * turn two runs into a verdict.
 *
 * Contract: matcher/spec/checks.md (training part).  A struct
 * matcher_trainrun is built only from struct matcher_step_record and
 * struct matcher_warning values (the parser's callbacks, or the service
 * replaying stored records), so a run rebuilt from the database checks
 * exactly like one parsed from the file.  It keeps one series per (rank,
 * training|validation) and, per metric, one 16-byte cell per step; an
 * optional keep-list of metric names bounds memory (2 x 200k steps x
 * {loss, grad_norm} is about 20 MB).  Differences are computed on the
 * printed decimals (train_num.h), never by naive double subtraction.
 * No I/O, no globals; objects are not thread-safe, distinct objects are. */
#ifndef PARITY_TRAINCHECK_H
#define PARITY_TRAINCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "trainlog.h"
#include "verdict.h"

#define MATCHER_TRAIN_MAX_METRICS 16
/* a metric name incl. NUL: statistics logs' `<layer>_<tensor>_<stat>`
 * series names are long (nvinspect.h) */
#define MATCHER_TRAIN_NAME 128

/* ---- the collected run ------------------------------------------------ */

struct matcher_train_cell {
	double value;
	int16_t decimals; /* printed decimals (resolution) */
	uint8_t present;  /* 0: not printed at this step (e.g. mfu: N/A) */
	uint8_t prec;     /* enum matcher_precision (0 printed) */
};

struct matcher_train_column {
	char *name;                       /* metric name within the series */
	struct matcher_train_cell *cells; /* parallel to the series' steps */
	size_t cap;
};

struct matcher_train_series {
	int rank;
	int validation; /* 1: "validate step:" lines */
	long *steps;    /* arrival order, unique */
	size_t n_steps, cap_steps;
	int sorted; /* steps ascending as stored */
	struct matcher_train_column *cols;
	size_t n_cols;
	size_t n_copies; /* MATCHER_STEP_COPY records */
	/* step -> index map (open addressing, private); built only once the
	 * steps stop arriving in ascending order, else binary search */
	long *map_step;
	size_t *map_idx;
	size_t map_cap;
};

struct matcher_trainrun {
	struct matcher_train_series *series;
	size_t n_series, cap_series;
	size_t *series_idx; /* private: rank*2+validation -> index+1 */
	size_t cap_series_idx;
	struct matcher_warning *warnings; /* copies, strings in arena */
	size_t n_warnings, cap_warnings;
	size_t n_warnings_total; /* incl. ones the parser only counted */
	struct matcher_trainlog_summary summary;
	int has_summary;
	char **keep; /* qualified names; NULL = keep all */
	size_t n_keep;
	struct arena arena;
};

/* New empty run.  keep: metric names to keep ("loss", "grad_norm",
 * "validation/loss", "memory_gib", ...), copied; NULL/0 keeps every
 * metric.  Owned by the caller (matcher_trainrun_free).  NULL on OOM. */
struct matcher_trainrun *matcher_trainrun_new(const char *const *keep, size_t n_keep);
void matcher_trainrun_free(struct matcher_trainrun *r);

/* Apply one record: NEW appends the step, REPLACE overwrites its values,
 * COPY only counts.  A NEW record for a step already present is treated
 * as REPLACE (replay safety).  Values are copied.  0 or -1 on OOM. */
int matcher_trainrun_add_record(struct matcher_trainrun *r, const struct matcher_step_record *rec);
/* Append a copy of w (strings into the run's arena).  0 or -1 on OOM. */
int matcher_trainrun_add_warning(struct matcher_trainrun *r, const struct matcher_warning *w);
/* Record the parser summary (n_warnings includes warnings beyond the
 * per-code cap that were never delivered). */
void matcher_trainrun_set_summary(struct matcher_trainrun *r,
                                  const struct matcher_trainlog_summary *s);
/* Parser callbacks that collect into r (ctx = r). */
struct matcher_trainlog_callbacks matcher_trainrun_collector(struct matcher_trainrun *r);

/* The series of (rank, validation) or NULL; borrowed from r. */
const struct matcher_train_series *matcher_trainrun_series(const struct matcher_trainrun *r,
                                                           int rank, int validation);
/* The column named `name` in s, or NULL; borrowed. */
const struct matcher_train_column *matcher_train_series_column(const struct matcher_train_series *s,
                                                               const char *name);

/* The index of step in s's arrays (steps, cells), or (size_t)-1 when s
 * (may be NULL) does not hold it.  O(log n) or O(1). */
size_t matcher_train_series_find(const struct matcher_train_series *s, long step);
/* The rank a check uses when its policy names none: 0 when r has it, else
 * the lowest rank with training steps (0 for an empty run). */
int matcher_trainrun_default_rank(const struct matcher_trainrun *r);
/* Do two cells hold the same value at the coarser of their precisions
 * (the bitwise policy's equality: printed digits, float32, ...; NaN
 * equals NaN, Inf equals Inf of the same sign)?  Both must be present. */
int matcher_train_cells_equal(const struct matcher_train_cell *a,
                              const struct matcher_train_cell *b);

/* Parse a whole buffer into a new run (convenience for tests and the CLI
 * on small inputs).  0 and *out set, or -1 with *err filled (*out NULL). */
int matcher_trainrun_parse_buffer(const char *data, size_t n, const char *const *keep,
                                  size_t n_keep, struct matcher_trainrun **out,
                                  struct matcher_error *err);

/* ---- policy ----------------------------------------------------------- */

struct matcher_train_threshold {
	char metric[MATCHER_TRAIN_NAME]; /* "loss", "validation/loss", ... */
	double abs;                      /* max |b - a| allowed */
	double rel;                      /* max |b - a| / |a| when has_rel */
	int has_rel;
	int if_logged; /* a default metric (grad_norm): when neither run logged
	                  it, skipped with a metric_not_logged note instead of
	                  a metric_missing error; never set for loss */
	/* Megatron-LM's check (policy "megatron", matcher/spec/megatron.md):
	 * allow_pct P > 0 lets up to floor(N * P / 100) of the N compared
	 * steps be over (at least 1, at most 50; none when N is 1), a step
	 * with NaN/Inf on one side counting as one over; median_window 1
	 * compares one value per run instead of each step: the median over
	 * the steady window (steps 5..20 when the baseline's last step is at
	 * most 25, else 30..45; NaN taken as +Inf).  0 = off (every preset
	 * but megatron). */
	int allow_pct;
	int median_window;
};

/* The noise policy's parameters (matcher/spec/noise.md, noisecheck.h). */
struct matcher_noise_params {
	double alpha_step; /* two-sided per-step level of the band (0.001) */
	double alpha_run;  /* the count tests' level (0.01) */
	long min_runs;     /* smallest usable baseline set (2) */
};

struct matcher_train_policy {
	char name[32]; /* "premerge", "bitwise", "noise", "megatron", "custom" */
	char base[32]; /* preset a custom policy started from */
	struct matcher_train_threshold th[MATCHER_TRAIN_MAX_METRICS];
	size_t n_th; /* compared metrics, in order */
	long min_steps;
	int allow_warnings;
	int rank; /* -1: rank 0 (or the lowest present) */
	/* a candidate against a baseline set (base "noise"): the band's
	 * parameters; every preset sets the defaults, only noise uses them */
	struct matcher_noise_params noise;
	/* issue 27: compare every metric both runs' training series hold (a
	 * statistics log's hundreds of series), in the baseline's order, instead
	 * of th[]: a metric named in th[] keeps its threshold, the others get
	 * all_abs (the preset's default threshold); metrics of one run only are
	 * noted, not compared (matcher_train_policy_compare_all) */
	int all_common;
	double all_abs;
};

/* Fill *p with a named preset ("premerge", "bitwise", "noise",
 * "megatron"; NULL = premerge).  noise compares premerge's metrics against
 * a baseline set (noisecheck.h; its thresholds are 0 and unused);
 * megatron reproduces Megatron-LM's approximate golden-value check
 * (matcher/spec/megatron.md: relative tolerance 0.05 on loss, num-zeros,
 * mtp_1_loss, the memory series and iteration-time's window median, with
 * its allowance of failing steps).
 * 0, or -1 for an unknown name (*p then holds premerge). */
int matcher_train_policy_preset(struct matcher_train_policy *p, const char *name);
/* Set (or add) a metric's thresholds; the policy becomes "custom" with
 * base = the preset.  0, or -1 when the table is full / name too long /
 * a threshold is negative or NaN. */
int matcher_train_policy_set(struct matcher_train_policy *p, const char *metric, double abs,
                             double rel, int has_rel);
/* Make names[0..n) the exact compared set, in that order: thresholds
 * already in the policy are kept, others get `abs` (no rel); every named
 * metric is explicit (if_logged 0: missing = metric_missing).  The policy
 * becomes custom unless the set, thresholds and flags are unchanged.
 * 0, or -1 (empty set, too many, a name empty or too long, a repeat). */
int matcher_train_policy_select(struct matcher_train_policy *p, const char *const *names, size_t n,
                                double abs);
/* Mark metric as if_logged (skipped with a note when neither run logged
 * it).  0, or -1 when it is not in the policy or is "loss". */
int matcher_train_policy_if_logged(struct matcher_train_policy *p, const char *metric);
/* Compare every common metric (all_common) unless the compared set was
 * named: the policy still holds the preset's default set (loss, then
 * grad_norm marked if_logged) and is not the noise policy.  Callers use it
 * for sources whose metrics are many series without a loss (DL Framework
 * Inspect statistics logs, nvinspect.h).  1 when set, else 0. */
int matcher_train_policy_compare_all(struct matcher_train_policy *p);
/* Mark other overrides (min_steps, allow_warnings) as custom. */
void matcher_train_policy_customise(struct matcher_train_policy *p);

/* ---- result ----------------------------------------------------------- */

/* One reason.  code (static string): warnings, rank_missing,
 * step_sets_differ, no_common_steps, too_few_steps, metric_missing (all
 * make the verdict error), threshold_exceeded, nan_inf_mismatch (fail).
 * Optional details are valid when their has_ flag / non-empty. */
struct matcher_train_reason {
	const char *code;
	int is_error;                    /* 1: error class, 0: fail class */
	char message[512];               /* room for a long metric name twice */
	char metric[MATCHER_TRAIN_NAME]; /* "" when not about a metric */
	const char *side;                /* "baseline", "candidate", NULL */
	long step;                       /* first offending step */
	int has_step;
	double abs;        /* max |diff| */
	char abs_text[48]; /* exact decimal text of abs */
	int has_abs;
	double threshold;
	int has_threshold;
	long count; /* steps over / warnings / only-steps */
	int has_count;
	unsigned long line; /* warnings: line of the first one */
	int has_line;
};

struct matcher_train_metric_result {
	char name[MATCHER_TRAIN_NAME];
	struct matcher_train_threshold th;
	int present[2]; /* column exists in baseline/candidate */
	int has_resolution;
	int decimals;          /* fewest printed decimals seen */
	double resolution;     /* 10^-decimals */
	int below_resolution;  /* threshold < resolution / 2 */
	size_t n_compared;     /* common steps with both values */
	double max_abs;        /* +inf for a one-sided NaN/Inf */
	char max_abs_text[48]; /* exact: "0.00228", "0", "NaN", "Inf" */
	double mean_abs, max_rel, mean_rel;
	long max_abs_step;
	int has_max_step;
	long first_over;
	int has_first_over;
	size_t n_over;
	size_t nan[2], inf[2]; /* [0] baseline, [1] candidate */
	int pass;
	int not_logged; /* if_logged metric neither run logged: not compared,
	                   pass 0, a metric_not_logged note in notes */
	/* precisions seen per side (bit 1 << enum matcher_precision), and the
	 * coarsest one both sides were compared at (train_prec.h) */
	unsigned prec_seen[2];
	int prec_compared;
};

struct matcher_train_result {
	enum matcher_verdict verdict;
	struct matcher_train_policy policy;
	int rank;
	struct matcher_train_reason *reasons;
	size_t n_reasons;
	struct matcher_train_metric_result *metrics; /* policy order */
	size_t n_metrics;
	char (*notes)[384]; /* informational: resolution notes and
	                       "... (metric_not_logged) ..." notes */
	size_t n_notes;
	/* all_common: the first difference over every compared metric (the
	 * earliest step over its threshold or with a one-sided NaN/Inf; at
	 * one step the first metric in order), and the metrics of one run
	 * only */
	int has_first_diff;
	long first_diff_step;
	size_t first_diff_metric; /* index into metrics */
	size_t n_only_metrics[2]; /* [0] baseline only, [1] candidate only */
	size_t n_common;          /* common training steps */
	long *only_a, *only_b;    /* training steps in one run only */
	size_t n_only_a, n_only_b;
	/* per-step table (matcher_train_row): common steps ascending */
	long *common;
	size_t *idx_a, *idx_b;                      /* indices into the series */
	const struct matcher_train_series *sa, *sb; /* borrowed from the runs */
	const struct matcher_train_column **cols;   /* [2 * n_metrics], NULL absent */
};

/* Append a zeroed reason with code and class to (*v, *n); NULL on OOM. */
struct matcher_train_reason *matcher_train_reason_add(struct matcher_train_reason **v, size_t *n,
                                                      const char *code, int is_error);
/* Append the "warnings" error reason when run has parse warnings (side:
 * "baseline", "candidate" or a longer label such as "baseline set member
 * 2", which counts as baseline).  0, or -1 on OOM. */
int matcher_train_warnings_reason(struct matcher_train_reason **v, size_t *n,
                                  const struct matcher_trainrun *run, const char *side);
/* The verdict reasons give: error when one is of the error class, else
 * fail when there is any, else pass. */
enum matcher_verdict matcher_train_reasons_verdict(const struct matcher_train_reason *r, size_t n);

/* Compare candidate b against baseline a under policy pol (NULL =
 * premerge).  Always produces a result (an unusable input gives verdict
 * error with reasons); -1 only on OOM.  *out owned by the caller
 * (matcher_train_result_free); it borrows a and b for matcher_train_row,
 * so keep both runs alive while rows are read. */
int matcher_train_check(const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                        const struct matcher_train_policy *pol, struct matcher_train_result **out);
void matcher_train_result_free(struct matcher_train_result *r);

/* One metric of one per-step row. */
struct matcher_train_row_cell {
	int present[2];
	double a, b;
	int dec_a, dec_b;
	double abs, rel; /* 0 when a side is absent */
	char abs_text[48];
	int over;
};

/* Row i (0 <= i < n_common) of the training per-step table: *step and
 * cells[0..n_metrics) for the training-series metrics (validation metrics
 * are left absent).  0, or -1 when i is out of range. */
int matcher_train_row(const struct matcher_train_result *r, size_t i, long *step,
                      struct matcher_train_row_cell *cells);

/* Format a printed value back (NaN, Inf, -Inf, or %.*f with its decimals). */
void matcher_train_format_value(double v, int decimals, char *out, size_t cap);

#endif
