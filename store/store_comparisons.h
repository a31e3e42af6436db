/* store_comparisons.h - part of store.h, which includes it (include
 * store.h, never this file alone): comparisons: the job queue, result rows
 * and steps, and the comparison views and pages (store/comparisons.c,
 * comparison_rows.c, comparison_views.c, comparison_walks.c,
 * comparison_steps.c). */
#ifndef PARITY_STORE_COMPARISONS_H
#define PARITY_STORE_COMPARISONS_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- comparisons as jobs (store/comparisons.c) ------------------------- */

/* Queue a comparison (status "queued", created_at now).  kind as for runs;
 * both runs must exist (STORE_NOT_FOUND) and be of that kind
 * (STORE_INVALID).  name may be NULL (""), policy_json NULL or the policy
 * text (activation: JSON object text; training: the stored form of
 * matcher/trainpolicy.h), overrides_text NULL or the override file. */
int store_comparison_create(struct store *st, int64_t baseline_id, int64_t candidate_id,
                            const char *kind, const char *name, const char *policy_json,
                            const char *overrides_text, int64_t *id);
/* PostgreSQL, several daemons (store/BACKENDS.md section 5): this
 * connection's owner name (one per daemon process, "host:pid:random",
 * at most 127 bytes) and lease in ms for job claims and webhook delivery
 * claims; claims, heartbeats and finishes are owner-checked.  The
 * daemon's pool sets it on every connection it opens.  SQLite (one
 * process) ignores it. */
void store_set_job_owner(struct store *st, const char *owner, int64_t lease_ms);
/* Atomically mark the oldest queued comparison "running" (started_at now)
 * and return its id: 0, or STORE_NOT_FOUND when none is queued.  Safe
 * across connections/threads: one UPDATE ... RETURNING.  PostgreSQL: with
 * a lease for this connection's owner (store_set_job_owner; unset: one
 * name per process and 60 s); a running job whose lease expired is
 * claimable again. */
int store_comparison_claim(struct store *st, int64_t *id);
/* Start-up recovery: every "running" job back to "queued"; *n (may be NULL)
 * = how many.  (A job writes its rows in the transaction that finishes it,
 * so a requeued one has none; that write clears any first all the same.)
 * PostgreSQL: a no-op (*n = 0): the running jobs may be other daemons'
 * live ones, and an expired lease makes a job claimable again. */
int store_comparisons_requeue_running(struct store *st, int *n);

/* Give one claimed job back: "running" -> "queued" (started_at cleared),
 * so a worker tries it again later.  0 also when it is no longer running
 * (PostgreSQL: no longer this owner's); STORE_NOT_FOUND when it is gone. */
int store_comparison_requeue(struct store *st, int64_t id);

/* What a worker needs; strings malloc'd, free with
 * store_comparison_job_free (fields NULL when absent). */
struct store_comparison_job {
	int64_t id;
	char kind[16];
	char status[16];
	int64_t baseline_id;
	int64_t candidate_id;
	char *name;
	char *policy_json;
	char *overrides;
};
int store_comparison_job(struct store *st, int64_t id, struct store_comparison_job *out);
void store_comparison_job_free(struct store_comparison_job *job);
/* Current status ("queued"/"running"/"done"/"failed") into status_out
 * (>= 16 bytes); cheap, for long-polling.  STORE_NOT_FOUND. */
int store_comparison_status(struct store *st, int64_t id, char *status_out, size_t cap);

/* One activation result row to store: the matcher's row with its entries
 * named by file order (matcher_entry.order) in the rank's two logs. */
struct store_row_rec {
	int64_t a_ord; /* order of the baseline entry; -1 for b_only */
	int64_t b_ord; /* order of the candidate entry; -1 for a_only */
	enum matcher_status status;
	enum matcher_method method; /* MATCHER_METHOD_NONE for only-rows */
	enum matcher_phase phase;
	int origin;
	int shape_differs;
	double output_hash_distance;       /* < 0: none */
	double input_hash_distance;        /* < 0: none */
	double stat_diff[MATCHER_N_STATS]; /* < 0: none */
};
/* The record of a matcher row (entries must be set for its sides). */
void store_row_rec_from(struct store_row_rec *rec, const struct matcher_row *row);

/* The entry ids of a log by file order: (*ids)[ord] is the id of the
 * entry with that order, *n how many (orders run 0..n-1).  *ids is
 * malloc'd (free()).  A plain read: jobs call it before their write
 * transaction.  STORE_NOT_FOUND when the log does not exist. */
int store_log_entry_ids(struct store *st, int64_t log_id, int64_t **ids, size_t *n);

/* Store the rows of one rank (idx = position in recs) of an activation
 * comparison; ids_a (n_a) / ids_b (n_b) are store_log_entry_ids of the
 * rank's baseline / candidate logs, through which the rows reference the
 * entries (not copied).  One cached statement, one step per row: call
 * inside a transaction, and roll it back on an error.  STORE_DUPLICATE
 * for a (rank, idx) stored before, STORE_NOT_FOUND when the comparison is
 * missing, STORE_INVALID when an order is outside its log. */
int store_comparison_rows_add(struct store *st, int64_t comparison_id, int rank,
                              const int64_t *ids_a, size_t n_a, const int64_t *ids_b, size_t n_b,
                              const struct store_row_rec *recs, size_t n);
/* Store one per-step row of a training comparison: the step and its n
 * cells, metrics[k] naming cells[k] (the check's metric order, kept on
 * read).  Call inside a transaction.  STORE_DUPLICATE for a (rank, step)
 * stored before, STORE_NOT_FOUND when the comparison is missing. */
int store_comparison_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                              const char *const *metrics,
                              const struct matcher_train_row_cell *cells, size_t n);
/* store_comparison_step_add for the n_steps steps steps[i] of a rank,
 * with cells[i * n .. i * n + n) (cells may be NULL when n is 0).  On
 * PostgreSQL in batches, a statement each (about 8k cells). */
int store_comparison_steps_add(struct store *st, int64_t comparison_id, int rank, const long *steps,
                               size_t n_steps, const char *const *metrics,
                               const struct matcher_train_row_cell *cells, size_t n);
/* Delete every stored row and step of a comparison (before recomputing). */
int store_comparison_rows_clear(struct store *st, int64_t comparison_id);
/* End a job: status "done"|"failed" (STORE_INVALID otherwise), verdict
 * NULL or e.g. "pass"/"fail"/"error", result_json NULL or object text
 * (legacy; results go to store_act_result_put / store_train_result_put),
 * error NULL or a sentence; finished_at now.  STORE_NOT_FOUND.
 * PostgreSQL: a claimed job only by its lease's owner (this connection's
 * store_set_job_owner name); else STORE_NOT_FOUND "lease lost", nothing
 * written and the transaction still usable (roll the rows back).  It
 * wakes other daemons' waiters (parity_done) when its transaction
 * commits. */
int store_comparison_finish(struct store *st, int64_t id, const char *status, const char *verdict,
                            const char *result_json, const char *error);
/* A comparison read back (metadata; its rows and steps have their own
 * pages).  Strings live in the arena of the view or page that holds it;
 * NULL where the column is empty. */
struct store_comparison {
	int64_t id;
	const char *name;    /* "" when unnamed */
	char kind[16];       /* "activation" | "training" */
	char status[16];     /* "queued" | "running" | "done" | "failed" */
	const char *verdict; /* NULL until done, e.g. "pass" / "fail" / "error" */
	int64_t baseline_id, candidate_id;
	/* the two runs without logs; NULL when a run is gone */
	const struct store_run *baseline, *candidate;
	/* the stored policy text (NULL = none): activation, a JSON object;
	 * training, the stored form of matcher/trainpolicy.h (comparisons
	 * created before issue 24: JSON) */
	const char *policy_json;
	/* a stored result document text not converted to typed tables
	 * (store_comparison_get only; NULL in lists, while not done, and
	 * whenever train is set) */
	const char *result_json;
	/* the typed result of a done activation comparison (store_comparison_get
	 * only; NULL in lists, while not done, and for training) */
	const struct store_act_result *act;
	/* the typed result of a done training comparison (store_comparison_get
	 * only; NULL in lists, while not done, and for activation) */
	const struct store_train_result *train;
	const char *error; /* NULL or a sentence */
	const char *created_at, *started_at, *finished_at;
	/* the message of the result's first reason (store_comparisons_find
	 * and store_suite_get only; NULL elsewhere and when there is none) */
	const char *first_reason;
	/* issue 16 labels, NULL when not given: the golden baseline name the
	 * baseline run was resolved from, the suite and its config label */
	const char *baseline_name, *suite, *config;
	int suite_size; /* configs its suite is to have, 0 = not said */
	/* issue 26: the lane of a done noise comparison ("identical",
	 * "within_noise", "regression"), NULL for every other comparison */
	const char *lane;
	/* a comparison against a baseline set (store_comparison_get only):
	 * the member runs in order (baseline_id is the first), else NULL, 0 */
	const int64_t *baseline_set;
	size_t n_baseline_set;
	/* its typed noise result once done (store_comparison_get only; the
	 * view owns it); web/json_train.h web_noise_result_json serializes it */
	const struct matcher_noise_result *noise;
};
struct store_comparison_view {
	struct store_comparison cmp;
	struct arena arena;
	struct matcher_noise_result *noise; /* owned: cmp.noise */
};
/* Free a view (a zeroed view is valid to free); empty afterwards. */
void store_comparison_view_free(struct store_comparison_view *v);
/* The comparison with its runs and stored result into *out (zeroed first;
 * free it with store_comparison_view_free whatever the result).
 * STORE_NOT_FOUND when missing.  web/json_views.h serializes it as
 * GET /comparisons/{id}. */
int store_comparison_get(struct store *st, int64_t id, struct store_comparison_view *out);
/* A page of comparisons, newest first, without results; in the page's
 * arena until store_comparison_page_free.  The byte budget
 * (STORE_PAGE_BYTES) counts the text plus 512 bytes a comparison. */
struct store_comparison_page {
	struct store_comparison *cmps;
	size_t n_cmps;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_comparison_page_free(struct store_comparison_page *p);
int store_comparisons_list(struct store *st, int limit, const char *cursor,
                           struct store_comparison_page *out);
/* store_comparisons_list with a filter (store_runs.h: struct
 * store_list_filter); comparisons come with first_reason.  Same paging
 * and errors. */
int store_comparisons_find(struct store *st, const struct store_list_filter *f, int limit,
                           const char *cursor, struct store_comparison_page *out);
/* A page of activation result rows read back: each row is a matcher row
 * whose a / b point at the entries beside it (NULL for a missing side),
 * rebuilt from the runs' stored entries exactly as the matcher saw them,
 * so the row serializer of the CLI (web/json_act.h) serves it too.
 * Strings live in arena; everything is owned by the page until
 * store_row_page_free. */
struct store_act_row {
	int rank;
	int64_t idx;
	struct matcher_row row;
	struct matcher_entry a, b;
};
struct store_row_page {
	struct store_act_row *rows;
	size_t n_rows;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
/* Free a page's rows and strings; the page is empty afterwards (a zeroed
 * page is valid to free). */
void store_row_page_free(struct store_row_page *p);

/* Result rows in (rank, idx) order into *out (zeroed first; free it with
 * store_row_page_free whatever the result).  Filters: rank -1 = all;
 * status and method NULL = any, else one name or a comma-separated list
 * ("diff,a_only,b_only"; unknown names match nothing); phase
 * NULL/"forward"/"backward" (STORE_INVALID otherwise); origin -1 any, 0/1;
 * keys NULL = any, else a key filter (struct store_key_filter) matched
 * against the a key OR the b key (STORE_BAD_REGEX, STORE_TOO_COSTLY,
 * STORE_CANCELLED).  The page's byte budget
 * (STORE_PAGE_BYTES) counts the rows' text plus a fixed 512 bytes a row.
 * STORE_NOT_FOUND when the comparison does not exist. */
int store_comparison_rows_list(struct store *st, int64_t id, int rank, const char *status,
                               const char *method, const char *phase, int origin,
                               const struct store_key_filter *keys, int limit, const char *cursor,
                               struct store_row_page *out);
/* How many rows pass the filters of store_comparison_rows_list (same
 * arguments, no paging) into *matched.  With a key regex this is a full
 * scan of the rank's rows under the regex limits and time budget: when
 * the budget runs out, *matched is the rows counted so far (a lower
 * bound), *partial is 1 and the result is 0; a bad or per-key too costly
 * regex is STORE_BAD_REGEX / STORE_TOO_COSTLY as for the list.  Without
 * a regex it is one indexed range count. */
int store_comparison_rows_count(struct store *st, int64_t id, int rank, const char *status,
                                const char *method, const char *phase, int origin,
                                const struct store_key_filter *keys, int64_t *matched,
                                int *partial);
/* The row of rank (>= 0) that produced an input: the row whose side-A
 * (side_b 0) or side-B entry has the key (the input's producer, exact),
 * or else an output hash list holding hash (one item, as printed); the
 * nearest such row before before_idx (< 0: any).  *idx its index.
 * STORE_NOT_FOUND: no such row, or no such comparison; STORE_INVALID:
 * neither key nor hash given.  One scan of the rank's rows. */
int store_comparison_row_producer(struct store *st, int64_t id, int rank, int side_b,
                                  const char *key, const char *hash, int64_t before_idx,
                                  int64_t *idx);
/* A page of per-step rows of a training comparison read back: each row's
 * cells as matcher_train_row gave them when stored (a NaN value reads back
 * NaN), with their metric names.  Strings and cells live in the page until
 * store_step_page_free. */
struct store_step_row {
	int rank;
	long step;
	const char **metrics; /* n_cells names */
	struct matcher_train_row_cell *cells;
	size_t n_cells;
};
struct store_step_page {
	struct store_step_row *rows;
	size_t n_rows;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
/* Free a page (a zeroed page is valid to free); it is empty afterwards. */
void store_step_page_free(struct store_step_page *p);
/* Per-step rows of one rank (-1 all) in (rank, step) order into *out
 * (zeroed first; free it whatever the result).  The byte budget
 * (STORE_PAGE_BYTES) counts 256 bytes a cell.  STORE_NOT_FOUND when the
 * comparison does not exist. */
int store_comparison_steps_list(struct store *st, int64_t id, int rank, int limit,
                                const char *cursor, struct store_step_page *out);
/* Delete a comparison with its rows and steps.  STORE_NOT_FOUND. */
int store_comparison_delete(struct store *st, int64_t id);

/* Label a comparison (issue 16): baseline_name (the golden baseline its
 * baseline run was resolved from), suite and config, each NULL to leave
 * unset, and suite_size (how many configs the suite is to have; 0 = not
 * said).  Call in the transaction that created it.  STORE_NOT_FOUND. */
int store_comparison_set_labels(struct store *st, int64_t id, const char *baseline_name,
                                const char *suite, const char *config, int suite_size);

#endif
