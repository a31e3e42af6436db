/* store_baselines.h - part of store.h, which includes it (include store.h,
 * never this file alone): golden baselines and suites (store/baselines.c). */
#ifndef PARITY_STORE_BASELINES_H
#define PARITY_STORE_BASELINES_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- golden baselines and suites (store/baselines.c, issue 16) ---------- */

/* Baseline names: 1-STORE_BASELINE_NAME_MAX bytes of [A-Za-z0-9._/-]
 * (slashes separate parts: "main/llama3-8b-fsdp"), no empty part, no part
 * starting with '.'.  Suite and config labels: 1-STORE_LABEL_MAX bytes of
 * [A-Za-z0-9._-] not starting with '.' (one URL segment). */
#define STORE_BASELINE_NAME_MAX 200
#define STORE_LABEL_MAX         100
/* 1 when name is a valid baseline name / label (above), else 0. */
int store_baseline_name_ok(const char *name);
int store_label_ok(const char *label);

/* Make run_id the current run of baseline name (creating the name) and
 * append the change to its history: token_name NULL = open (no token),
 * note NULL = "", comparison_id > 0 names the comparison whose pass
 * promoted it (0 = set by hand).  *history_id (may be NULL) gets the
 * history row.  One transaction (or the caller's).  STORE_INVALID for a
 * bad name or a note over 2000 bytes, STORE_NOT_FOUND when the run does
 * not exist. */
int store_baseline_set(struct store *st, const char *name, int64_t run_id, const char *token_name,
                       const char *note, int64_t comparison_id, int64_t *history_id);
/* Promote run_id to baseline name only if from_run is still its current
 * run (compare-and-swap, issue 23: a promotion earned against an older
 * run must not overwrite a newer one).  Checks and history as
 * store_baseline_set, comparison_id the comparison that passed.  0 when
 * promoted (*current = run_id); 1 when not, with nothing changed and
 * *current the name's current run (0: no such name); else STORE_INVALID,
 * STORE_NOT_FOUND (run_id does not exist) or an error.  One transaction
 * (or the caller's).  Two concurrent promotions from one run: exactly one
 * returns 0. */
int store_baseline_promote(struct store *st, const char *name, int64_t run_id, int64_t from_run,
                           const char *token_name, const char *note, int64_t comparison_id,
                           int64_t *current, int64_t *history_id);
/* Baseline sets (issue 26, migration 012): make runs[0..n) (oldest first;
 * 1 <= n <= STORE_BASELINE_SET_MAX) the current entry of name, recorded
 * in its history with the set; one run is a single-run entry (as
 * store_baseline_set).  Errors as store_baseline_set. */
#define STORE_BASELINE_SET_MAX 64
int store_baseline_set_runs(struct store *st, const char *name, const int64_t *runs, size_t n,
                            const char *token_name, const char *note, int64_t comparison_id,
                            int64_t *history_id);
/* Promote run_id into the set of name: the oldest member leaves, run_id
 * joins as the newest (the set stays n_from runs), only while from[0..
 * n_from) is still the name's current set (compare-and-swap as
 * store_baseline_promote; it runs in its own transaction: inside the
 * caller's a changed set is STORE_INVALID).  0 promoted, 1 not (nothing
 * changed; *current the name's newest run, 0: no such name), or a
 * STORE_* code. */
int store_baseline_promote_set(struct store *st, const char *name, int64_t run_id,
                               const int64_t *from, size_t n_from, const char *token_name,
                               const char *note, int64_t comparison_id, int64_t *current,
                               int64_t *history_id);
/* The current entry of name as runs (oldest first) into runs[0..cap):
 * *n = the set's size, or 1 for a single-run entry.  STORE_NOT_FOUND. */
int store_baseline_members(struct store *st, const char *name, int64_t *runs, size_t cap,
                           size_t *n);
/* The current run of baseline name into *run_id.  STORE_NOT_FOUND when
 * no baseline has that name. */
int store_baseline_current(struct store *st, const char *name, int64_t *run_id);
/* One change of a baseline. */
struct store_baseline_change {
	int64_t id;
	int64_t run_id;
	const char *set_at;
	const char *token_name; /* NULL: set without a token ("open") */
	const char *note;       /* "" when none */
	int64_t comparison_id;  /* the promoting comparison, 0 when set by hand */
	const int64_t *runs;    /* a set entry: its runs, oldest first; else NULL */
	size_t n_runs;
};
struct store_baseline {
	int64_t id;
	const char *name;
	int64_t run_id;              /* the current run */
	const struct store_run *run; /* it, without logs (NULL when gone) */
	const char *created_at, *updated_at;
	int64_t n_changes; /* every change ever made */
	/* a set entry (issue 26): its runs, oldest first (run_id is the
	 * newest); NULL and 0 for a single run */
	const int64_t *members;
	size_t n_members;
	/* store_baseline_get only: the newest STORE_BASELINE_HISTORY_MAX
	 * changes, oldest first (NULL and 0 in lists) */
	struct store_baseline_change *history;
	size_t n_history;
};
#define STORE_BASELINE_HISTORY_MAX 1000
struct store_baseline_view {
	struct store_baseline b;
	struct arena arena;
};
void store_baseline_view_free(struct store_baseline_view *v);
/* Baseline name with its history into *out (zeroed first; free it
 * whatever the result).  STORE_NOT_FOUND. */
int store_baseline_get(struct store *st, const char *name, struct store_baseline_view *out);
/* A page of baselines in creation order (limit, cursor as for every
 * list; the byte budget counts the text plus 256 bytes a baseline). */
struct store_baseline_page {
	struct store_baseline *baselines;
	size_t n_baselines;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_baseline_page_free(struct store_baseline_page *p);
int store_baselines_list(struct store *st, int limit, const char *cursor,
                         struct store_baseline_page *out);
/* Comparisons made against baseline name (comparisons.baseline_name),
 * newest first, as store_comparisons_list pages them (the result text is
 * read too: the history page shows max |diff| per metric).  An unknown
 * name gives an empty page. */
int store_baseline_comparisons(struct store *st, const char *name, int limit, const char *cursor,
                               struct store_comparison_page *out);

/* A suite: the latest comparison of each config label (configs in name
 * order, at most STORE_SUITE_CONFIGS_MAX of them; comparisons without a
 * config count as config ""), and how many of the suite's comparisons are
 * still queued or running.  Strings in the view's arena. */
#define STORE_SUITE_CONFIGS_MAX 1000
#define STORE_SUITE_SIZE_MAX    STORE_SUITE_CONFIGS_MAX
struct store_suite_view {
	struct store_comparison *latest; /* one per config, with result text */
	size_t n_latest;
	int64_t n_comparisons; /* every comparison filed into the suite */
	int64_t n_pending;     /* queued or running among them */
	int64_t expected;      /* the largest suite_size given, 0 = none */
	int truncated;         /* more configs than STORE_SUITE_CONFIGS_MAX */
	struct arena arena;
};
void store_suite_view_free(struct store_suite_view *v);
/* The suites (comparisons with a suite label) for the /ui/suites page,
 * the most recently filed first, at most STORE_SUITES_MAX of them: per
 * suite its configs (the latest comparison of each, as store_suite_get
 * counts them), how many of those fail (verdict fail or error, or a
 * failed job) or are still queued or running, every comparison filed and
 * the newest creation time.  Strings in the list's arena. */
#define STORE_SUITES_MAX 500
struct store_suite_summary {
	const char *suite, *last_at;
	int64_t n_configs, n_failing, n_pending, n_comparisons;
};
struct store_suite_list {
	struct store_suite_summary *suites;
	size_t n_suites;
	int truncated; /* more than STORE_SUITES_MAX suites */
	struct arena arena;
};
void store_suite_list_free(struct store_suite_list *l);
int store_suites_list(struct store *st, struct store_suite_list *out);
/* Suite into *out (zeroed first; free it whatever the result).
 * STORE_NOT_FOUND when no comparison carries that suite label. */
int store_suite_get(struct store *st, const char *suite, struct store_suite_view *out);
/* The suite label of comparison id into out (cap bytes; "" when it has
 * none).  STORE_NOT_FOUND. */
int store_comparison_suite(struct store *st, int64_t id, char *out, size_t cap);
/* Queued or running comparisons of suite into *n (0 when unknown). */
int store_suite_pending(struct store *st, const char *suite, int64_t *n);

#endif
