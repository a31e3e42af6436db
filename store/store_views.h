/* store_views.h - typed views the pages, reports, mail and CSVs render
 * (included by store.h; kept apart from the per-resource verbs).
 *
 * The typed rule (issue 24): the store fills structs, web/ renders them,
 * and JSON is written only at the API and webhook edge (web/json_*.c).
 * A training comparison's page, report, PDF, mail and steps.csv are all
 * drawn from struct store_comparison (its train result) and the per-step
 * rows below; the views here only gather what the per-resource verbs
 * return (no SQL of their own), so every backend serves them. */
#ifndef PARITY_STORE_VIEWS_H
#define PARITY_STORE_VIEWS_H

#include <stddef.h>
#include <stdint.h>

#include "actcheck.h"
#include "actlog.h"
#include "buf.h"
#include "match.h"
#include "traincheck.h"

struct store;
struct store_act_result;
struct store_train_result;
struct store_step_row;
struct store_step_page;
struct matcher_train_row_cell;

/* Every per-step row of one rank (-1 all) of a training comparison in
 * (rank, step) order, read page by page (store_comparison_steps_list)
 * until the last page or at least max rows (0: no bound; the page that
 * crosses max is kept whole).  rows[0..n) point into the pages, which
 * the view owns until store_step_rows_free. */
struct store_step_rows {
	const struct store_step_row *rows;
	size_t n;
	int more; /* 1: rows were left unread (max reached) */
	struct store_step_page *pages;
	size_t n_pages;
};
/* 0 or a STORE_* code (out zeroed first; free it whatever the result). */
int store_comparison_steps_all(struct store *st, int64_t id, int rank, size_t max,
                               struct store_step_rows *out);
void store_step_rows_free(struct store_step_rows *v);
/* Every per-step row of one rank (-1 all) of a training comparison in
 * (rank, step) order, given to each(ctx, row) a page at a time: memory is
 * one page whatever the step count (the row is borrowed for the call).
 * each returns 0, or < 0 to stop (returned as is).  0 or a STORE_* code. */
int store_comparison_steps_each(struct store *st, int64_t id, int rank,
                                int (*each)(void *ctx, const struct store_step_row *row),
                                void *ctx);
/* The cell of metric name in a per-step row, or NULL when the row has
 * none; hint: its usual position (the result's metric index), tried
 * first.  Borrowed from the row. */
const struct matcher_train_row_cell *store_step_row_cell(const struct store_step_row *row,
                                                         const char *name, size_t hint);

/* ---- typed results built from the matcher's (store/results_build.c) -------
 * The layer below web/ that turns a check into the structs the store keeps
 * and web/ serializes and renders: the daemon's jobs and the CLI both
 * build through here, so a stored result and a CLI document agree. */

/* Everything one pair of activation logs' result is made from; all
 * borrowed.  ov, policy and names may be NULL (no overrides / bitwise /
 * no names). */
struct store_act_input {
	const char *name_a;
	const char *name_b;
	const struct matcher_actlog *a;
	const struct matcher_actlog *b;
	const struct matcher_overrides *ov;
	const struct matcher_match_result *result;
	const struct matcher_act_policy *policy;
	const struct matcher_act_verdict *verdict;
};

/* Building a typed activation result (struct store_act_result) one rank at
 * a time; everything is copied into b->arena, so the matcher's result may
 * be freed after each rank.  res.verdict starts "pass": the caller sets
 * the combined verdict.  Functions return 0 or -1 on OOM (b->bad stays
 * set).  store_act_build_free releases everything. */
struct store_act_build {
	struct store_act_result res;
	struct store_act_reason *reasons;
	struct store_act_rank *ranks;
	size_t cap_reasons, cap_ranks;
	int bad;
	struct arena arena;
};
void store_act_build_init(struct store_act_build *b, const struct matcher_act_policy *policy);
/* Add one rank (rank -1: a single pair, no "rank" in its document) with
 * its check reasons (also appended to res.reasons). */
int store_act_build_rank(struct store_act_build *b, const struct store_act_input *d, int rank);
/* A job-level reason without details (e.g. "rank_missing"); rank -1: none. */
int store_act_build_reason(struct store_act_build *b, const char *code, int rank,
                           const char *message);
void store_act_build_free(struct store_act_build *b);

/* Most steps a training result lists as only in one run (the counts stay
 * exact). */
#define STORE_TRAIN_MAX_LISTED_STEPS 1000

/* The typed training result of a check: *out borrows r, a and b (keep
 * them alive while it is used; a and b, the runs, give the warnings and
 * may be NULL); the notes' pointer array goes into arena.  The job stores
 * it, the CLI serializes it.  0, or -1 on OOM. */
int store_train_result_of_check(struct store_train_result *out, struct arena *arena,
                                const struct matcher_train_result *r,
                                const struct matcher_trainrun *a, const struct matcher_trainrun *b);

#endif
