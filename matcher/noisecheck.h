/* noisecheck.h - a training candidate against a baseline *set* of K runs
 * (reference repeats): the noise band per metric and step, the count of
 * outside steps against its binomial allowance, and the three lanes
 * (identical / within_noise / regression).
 *
 * Contract: matcher/spec/noise.md.  The runs are struct matcher_trainrun
 * (traincheck.h), so stdout logs, TensorBoard event files and golden loss
 * files all work, each at its own precision.  Which metrics are compared,
 * the rank, min_steps and allow_warnings come from a training policy
 * (struct matcher_train_policy: its thresholds are not used); the band's
 * parameters from struct matcher_noise_params.
 * No I/O, no globals; the result borrows nothing. */
#ifndef PARITY_NOISECHECK_H
#define PARITY_NOISECHECK_H

#include <stddef.h>

#include "traincheck.h"
#include "verdict.h"

struct matcher_noise_params {
	double alpha_step; /* two-sided per-step level of the band (0.001) */
	double alpha_run;  /* the count test's level (0.01) */
	long min_runs;     /* smallest usable set (2; never below 2) */
};

/* The defaults of the spec: 0.001, 0.01, 2. */
void matcher_noise_params_default(struct matcher_noise_params *np);
/* 0 when np is usable (0 < alpha_step < 1, 0 < alpha_run < 1, 2 <=
 * min_runs <= MATCHER_NOISE_MAX_RUNS), else -1 with a sentence in msg. */
int matcher_noise_params_check(const struct matcher_noise_params *np, char *msg, size_t cap);

#define MATCHER_NOISE_MAX_RUNS 64

enum matcher_noise_lane {
	MATCHER_LANE_NONE = 0, /* verdict error: no lane */
	MATCHER_LANE_IDENTICAL,
	MATCHER_LANE_WITHIN_NOISE,
	MATCHER_LANE_REGRESSION
};

/* "identical", "within_noise", "regression", or NULL for NONE. */
const char *matcher_noise_lane_name(enum matcher_noise_lane lane);

struct matcher_noise_metric {
	char name[MATCHER_TRAIN_NAME];
	int not_logged;     /* if_logged metric nobody logged: not compared */
	size_t n;           /* compared steps (N) */
	size_t n_outside;   /* O */
	long allowed;       /* c: the largest O that is not a regression */
	double p;           /* P(Binomial(N, alpha_step) >= O) */
	double bias;        /* mean z over the finite compared steps */
	double share_above; /* share of compared steps with y > mean */
	long first_outside;
	int has_first_outside;
	double max_ratio; /* largest |y - mean| / h (+inf for a non-finite y) */
	long max_ratio_step;
	int has_max_ratio;
	long first_nonfinite; /* candidate NaN/Inf where every member is finite */
	int has_nonfinite;
	/* the change test (noise.md, "Accumulating noise"): step-to-step
	 * changes against the members' changes between the same steps */
	size_t n_change, n_change_outside;
	long allowed_change;
	long first_change_outside;
	/* the extreme-step test: one level or change beyond t_extreme sd*
	 * (Bonferroni over the compared steps at alpha_run) */
	double t_extreme;
	int has_extreme, extreme_change;
	long extreme_step;
	int prec;       /* coarsest enum matcher_precision seen */
	int regression; /* O > c, a non-finite candidate value, changes
	                   outside > their allowance, or an extreme step */
	/* per step, parallel to the result's steps; NaN (and outside 0) where
	 * this metric was not compared at that step; outside: bit 0 the
	 * level is outside the band, bit 1 the change from the previous
	 * compared step is */
	double *y, *mean, *sd, *h, *z;
	unsigned char *outside;
};

struct matcher_noise_result {
	enum matcher_verdict verdict;
	enum matcher_noise_lane lane;
	struct matcher_train_policy policy;
	struct matcher_noise_params params;
	int rank;
	size_t k;          /* members */
	int identical_to;  /* lane identical: the member (0-based), else -1 */
	double t_quantile; /* t(K - 1, 1 - alpha_step / 2) */
	struct matcher_train_reason *reasons;
	size_t n_reasons;
	struct matcher_noise_metric *metrics; /* policy order */
	size_t n_metrics;
	char (*notes)[384];
	size_t n_notes;
	long *steps; /* compared training steps, ascending */
	size_t n_steps;
	size_t n_skipped;   /* candidate steps not in every member */
	long first_skipped; /* the first of them (n_skipped > 0) */
};

/* Check candidate cand against members[0..k) under pol (NULL =
 * premerge's metrics and rank) and np (NULL = defaults).  Always produces
 * a result (an unusable input gives verdict error with reasons: warnings,
 * rank_missing, step_sets_differ, no_common_steps, too_few_steps,
 * metric_missing, baseline_set_too_small, baseline_nonfinite); -1 only on
 * OOM.  *out owned by the caller (matcher_noise_result_free). */
int matcher_noise_check(const struct matcher_trainrun *const *members, size_t k,
                        const struct matcher_trainrun *cand, const struct matcher_train_policy *pol,
                        const struct matcher_noise_params *np, struct matcher_noise_result **out);
void matcher_noise_result_free(struct matcher_noise_result *r);

#endif
