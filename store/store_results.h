/* store_results.h - part of store.h, which includes it (include store.h,
 * never this file alone): typed comparison results: activation (migration
 * 007, store/actresult.c) and training (migration 009,
 * store/trainresult.c). */
#ifndef PARITY_STORE_RESULTS_H
#define PARITY_STORE_RESULTS_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- activation result summary (typed; migration 007) -------------------
 * What an activation comparison concludes, beside its rows: the verdict,
 * the policy it was judged by, every reason, and per rank the counts, the
 * first divergences, the excluded ops, the override report and the log
 * warnings.  Built from the matcher's result (store_views.h
 * store_act_build_rank, for the job and the CLI alike), stored by
 * store_act_result_put, read back by store_comparison_get; web/json_act.h
 * web_act_result_doc is its one JSON serializer.  Every string and array
 * lives in the arena of whoever built or read it (a comparison view, or
 * a struct store_act_build) and is valid until that arena is reset. */
struct store_act_ref {     /* a reference to one result row */
	int64_t row;       /* row index in its rank; -1: none (JSON null) */
	const char *a_key; /* NULL: no baseline side */
	const char *b_key; /* NULL: no candidate side */
	enum matcher_status status;
	enum matcher_phase phase;
	enum matcher_method method;
	int origin, shape_differs;
	double out_dist, in_dist; /* < 0: none */
};
struct store_act_reason {
	int rank;    /* -1: the reason names no rank */
	int in_rank; /* 1: a rank's own check reason (has details, listed in
	              * that rank's document too); 0: a job-level reason */
	const char *code, *message;
	int64_t count, tolerated;            /* details (in_rank only) */
	struct store_act_ref first;          /* details.first */
	struct store_act_ref first_phase[2]; /* "diff_rows": [phase] */
	double max_hash_distance;            /* "diff_rows": < 0 none */
};
struct store_act_warning {
	const char *code;
	int64_t line;
	const char *message;
	const char *excerpt; /* NULL: none */
};
struct store_act_unused {
	const char *a_key, *b_key;
	int64_t line;
	const char *reason;
};
enum { STORE_WARN_LOG_A, STORE_WARN_LOG_B, STORE_WARN_OVERRIDES, STORE_N_WARN };
struct store_act_rank {
	int rank; /* -1: a single pair of logs (the CLI's document: no "rank") */
	enum matcher_verdict verdict;
	const char *name_a, *name_b;
	size_t reasons_at, n_reasons; /* its reasons: result->reasons[at..] */
	/* summary */
	int64_t n_rows;
	int64_t n_status[MATCHER_N_STATUS];
	int64_t n_method[MATCHER_N_METHODS];
	int64_t n_phase_status[2][MATCHER_N_STATUS];
	int64_t n_origin, n_propagated;
	double max_hash_distance; /* < 0: none */
	int64_t max_hash_row;     /* -1: none */
	int64_t n_tolerated;
	int64_t n_entries[2];
	const char *const *excluded[2]; /* excluded ops per side */
	size_t n_excluded[2];
	int64_t overrides_used;
	const struct store_act_unused *unused;
	size_t n_unused;
	const struct store_act_warning *warnings[STORE_N_WARN];
	size_t n_warnings[STORE_N_WARN];
	struct store_act_ref first_divergence[2]; /* [phase] */
};
struct store_act_result {
	enum matcher_verdict verdict; /* the worst rank's, or error */
	struct matcher_act_policy policy;
	const struct store_act_reason *reasons; /* every reason, in order */
	size_t n_reasons;
	const struct store_act_rank *ranks; /* by rank */
	size_t n_ranks;
};
/* Store a finished activation comparison's result (inside the job's write
 * transaction; replaces a previous one).  0, STORE_NOT_FOUND, or error. */
int store_act_result_put(struct store *st, int64_t comparison_id, const struct store_act_result *r);

/* ---- training result (typed; migration 009) ------------------------------
 * What a training comparison concludes: verdict, the policy it was judged
 * by, every reason, per metric the statistics, notes, the steps only one
 * run has (listed part capped at STORE_TRAIN_MAX_LISTED_STEPS, counts
 * exact) and each side's log warnings.  Built from the matcher's result
 * (store_views.h store_train_result_of_check, for the job and the CLI
 * alike), stored by store_train_result_put, read back by
 * store_comparison_get; web/json_train.h web_train_result_doc is its one
 * JSON serializer.  Reasons and metrics reuse the matcher's structs
 * (code/side point at static or arena strings).  Every pointer lives in
 * the arena of whoever built or read it (a comparison view, or the
 * builder's arena) and is valid until that arena is reset. */
struct store_train_result {
	enum matcher_verdict verdict;
	struct matcher_train_policy policy;
	int rank;
	const struct matcher_train_reason *reasons;
	size_t n_reasons;
	const struct matcher_train_metric_result *metrics; /* policy order */
	size_t n_metrics;
	const char *const *notes;
	size_t n_notes;
	int64_t n_common;
	const long *only[2]; /* [0] baseline, [1] candidate: listed steps */
	size_t n_only_listed[2];
	int64_t n_only[2]; /* counts */
	const struct matcher_warning *warnings[2];
	size_t n_warnings[2];
};
/* Store a finished training comparison's result (inside the job's write
 * transaction; replaces a previous one).  0, or a STORE_* code. */
int store_train_result_put(struct store *st, int64_t comparison_id,
                           const struct store_train_result *r);

/* ---- noise result (typed; migration 012, store/noiseresult.c) -----------
 * A training candidate against a baseline set (matcher/noisecheck.h):
 * store_comparison_set_put records the set's members in order (with the
 * comparison's creation; its baseline_id is the first member);
 * store_noise_result_put stores the check's result (head, metrics, one
 * row per metric and step, reasons and notes) and the comparison's lane,
 * inside the job's write transaction (replaces a previous one).
 * store_comparison_get reads both back (struct store_comparison's
 * baseline_set and noise).  0, or a STORE_* code. */
int store_comparison_set_put(struct store *st, int64_t comparison_id, const int64_t *runs,
                             size_t n);
int store_noise_result_put(struct store *st, int64_t comparison_id,
                           const struct matcher_noise_result *r);
/* The comparison's baseline set: *runs malloc'd (the caller frees; NULL
 * and *n 0 for a comparison of two runs).  0, or a STORE_* code. */
int store_comparison_set_get(struct store *st, int64_t comparison_id, int64_t **runs, size_t *n);
/* The values of a run's metrics at given steps, for the pages of a noise
 * comparison (the members drawn beside the band): out[k * n_steps + i] =
 * metric k at steps[i] (ascending) of the training logs' rank (the
 * result's rank), NaN where the run did not log it (validation series are
 * not read).  The caller owns out (n_metrics * n_steps doubles).  0, or a
 * STORE_* code. */
int store_run_metric_values(struct store *st, int64_t run_id, int rank, const char *const *metrics,
                            size_t n_metrics, const long *steps, size_t n_steps, double *out);

#endif
