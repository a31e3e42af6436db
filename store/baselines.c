/* baselines.c - golden baselines (a name -> its current good run, with
 * every change kept) and suites (comparisons labelled with a change and
 * a config), issue 16.  Statements are prepared per call (these are rare,
 * small reads and writes); every value is bound.  They go through the
 * statement layer (stmt.h) and run on SQLite and PostgreSQL alike.
 *
 * Concurrency on PostgreSQL (READ COMMITTED; SQLite's write transaction
 * excludes other writers): store_baseline_set locks the run (FOR KEY
 * SHARE: it cannot be deleted under the new reference) and the baseline
 * row (the upsert locks it as FOR NO KEY UPDATE does, before anything
 * reads it), so concurrent sets of one name apply one after the other and
 * their history rows follow that order; store_baseline_promote swaps
 * the run only while the expected one is current (one conditional
 * UPDATE: the loser of two promotions sees the winner's run and changes
 * nothing); store_suite_pending serializes
 * the finishers of one suite with a transaction-scoped advisory lock. */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define NOTE_MAX 2000
#define BASELINE_COLS                                                                              \
	"b.id, b.name, b.run_id, b.created_at, b.updated_at, "                                     \
	"(SELECT count(*) FROM baseline_history h WHERE h.baseline_id = b.id)"

#define prep store_prep

/* Statement texts with per-backend fragments (STORE_SQL_D, stmt.h).  The
 * upsert's two times are one value on both (SQLite's 'now' is fixed
 * within a statement; PostgreSQL reads its clock once in the subquery). */
#define Q_BASELINE_UPSERT(d)                                                                       \
	"INSERT INTO baselines(name, run_id, created_at, updated_at) " UPSERT_ROW_##d              \
	        " ON CONFLICT(name) DO UPDATE "                                                    \
	        "SET run_id = excluded.run_id, updated_at = excluded.updated_at RETURNING id"
#define UPSERT_ROW_LITE "VALUES (?, ?, " NOW_LITE ", " NOW_LITE ")"
#define UPSERT_ROW_PG   "SELECT ?, ?, t.now, t.now FROM (SELECT " NOW_PG " AS now) t"
/* the compare-and-swap of a promotion (store_baseline_promote) */
#define Q_BASELINE_SWAP(d)                                                                         \
	"UPDATE baselines SET run_id = ?2, updated_at = " NOW_##d                                  \
	        " WHERE name = ?1 AND run_id = ?3 RETURNING id"
#define Q_HISTORY_INSERT(d)                                                                        \
	"INSERT INTO baseline_history(baseline_id, run_id, set_at, token_name, note, "             \
	"comparison_id) VALUES (?, ?, " NOW_##d ", ?, ?, ?) RETURNING id"
/* the finishers of one suite, one at a time until their transactions end
 * (the two-key form: its own key space, apart from the bigint locks such
 * as the migrations'; 17 is this lock's class) */
#define Q_SUITE_LOCK_PG "SELECT pg_advisory_xact_lock(17, hashtext(?))"

static int seg_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

int store_label_ok(const char *label)
{
	size_t n = label ? strlen(label) : 0;
	if (n == 0 || n > STORE_LABEL_MAX || label[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!seg_char(label[i]))
			return 0;
	return 1;
}

int store_baseline_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > STORE_BASELINE_NAME_MAX)
		return 0;
	int part_start = 1;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (c == '/') {
			if (part_start)
				return 0; /* empty part: leading, trailing or "//" */
			part_start = 1;
			continue;
		}
		if (!seg_char(c) || (part_start && c == '.'))
			return 0;
		part_start = 0;
	}
	return !part_start;
}

/* One int64 from a one-row query binding text at 1: 0 with *out, 1 no
 * row, negative error. */
static int one_int(struct store *st, const char *sql, const char *text, int64_t *out,
                   const char *what)
{
	struct store_q *s = prep(st, sql);
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, text);
	int rc = store_q_step(s), ret = 1;
	if (rc == STORE_Q_ROW) {
		*out = store_q_col_i64(s, 0);
		ret = 0;
	} else if (rc < 0) {
		ret = store_q_fail(st, rc, what);
	}
	store_q_done(s);
	return ret;
}

/* The arguments every change checks: 0, or STORE_INVALID with errmsg. */
static int change_args_ok(struct store *st, const char *name, const char *note)
{
	if (!store_baseline_name_ok(name))
		return store_fail(st, STORE_INVALID,
		                  "a baseline name is 1-%d bytes of A-Z a-z 0-9 . _ - and /, "
		                  "without empty parts or parts starting with '.'",
		                  STORE_BASELINE_NAME_MAX);
	if (note && strlen(note) > NOTE_MAX)
		return store_fail(st, STORE_INVALID, "a note is at most %d bytes", NOTE_MAX);
	return 0;
}

/* Lock run_id for the new reference: 0, STORE_NOT_FOUND, or an error. */
static int lock_run(struct store *st, int64_t run_id)
{
	int rc = store_run_lock(st, run_id, 0);
	if (rc == 0)
		return store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	return rc < 0 ? rc : 0;
}

/* Append the change of baseline bid to run_id to its history. */
static int history_add(struct store *st, int64_t bid, int64_t run_id, const char *token_name,
                       const char *note, int64_t comparison_id, int64_t *history_id)
{
	int64_t hid = 0;
	int rc;
	struct store_q *s = prep(st, STORE_SQL_D(Q_HISTORY_INSERT));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, bid);
	store_q_bind_i64(s, 2, run_id);
	store_q_bind_text(s, 3, token_name);
	store_q_bind_text(s, 4, note ? note : "");
	if (comparison_id > 0)
		store_q_bind_i64(s, 5, comparison_id);
	else
		store_q_bind_null(s, 5);
	if ((rc = store_q_run_id(s, &hid)) != STORE_Q_ROW)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "recording the baseline change");
	if (history_id)
		*history_id = hid;
	return 0;
}

/* A change of a baseline set (NULL: a single run): the new members,
 * oldest first, and for a promotion the set it replaces. */
struct set_change {
	const int64_t *runs;
	size_t n_runs;
	const int64_t *from;
	size_t n_from;
};
#define NOT_SWAPPED (-1000) /* change(): the set was not the one compared */

/* 1 when baseline bid's members are from[0..n) in order, 0 when not, or
 * a STORE_* code. */
static int members_equal(struct store *st, int64_t bid, const int64_t *from, size_t n)
{
	struct store_q *s =
	        prep(st, "SELECT run_id FROM baseline_members WHERE baseline_id = ? ORDER BY idx");
	size_t i = 0;
	int rc, same = 1;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, bid);
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		same &= i < n && store_q_col_i64(s, 0) == from[i];
		i++;
	}
	store_q_done(s);
	if (rc < 0)
		return store_q_fail(st, rc, "reading the baseline set");
	return same && i == n;
}

/* Replace baseline bid's members by sc's runs (none for a single run:
 * NULL or one run) and record them with history row hid.  0 or a
 * STORE_* code. */
static int members_put(struct store *st, int64_t bid, int64_t hid, const struct set_change *sc)
{
	struct store_q *s = prep(st, "DELETE FROM baseline_members WHERE baseline_id = ?");
	int rc;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, bid);
	rc = store_q_step(s);
	store_q_done(s);
	if (rc < 0)
		return store_q_fail(st, rc, "changing the baseline set");
	for (size_t i = 0; sc && sc->n_runs > 1 && i < sc->n_runs; i++) {
		for (int t = 0; t < 2; t++) {
			s = prep(st, t ? "INSERT INTO baseline_history_members VALUES (?, ?, ?)"
			               : "INSERT INTO baseline_members VALUES (?, ?, ?)");
			if (!s)
				return STORE_ERROR;
			store_q_bind_i64(s, 1, t ? hid : bid);
			store_q_bind_i64(s, 2, (int64_t)i);
			store_q_bind_i64(s, 3, sc->runs[i]);
			rc = store_q_step(s);
			store_q_done(s);
			if (rc < 0)
				return store_q_fail(st, rc, "recording the baseline set");
		}
	}
	return 0;
}

/* Make run_id the current run of name and record the change: the
 * upsert when from_run is 0, else the swap, only while from_run is
 * current (PostgreSQL, READ COMMITTED: a concurrent promotion holds the
 * row lock; this UPDATE waits for it, then re-reads the row it changed
 * and no longer matches; SQLite: the write transaction excludes it).
 * 0 changed, 1 not swapped (*current = what is current, 0 = no such
 * name), or a STORE_* code. */
static int change(struct store *st, const char *name, int64_t run_id, int64_t from_run,
                  const char *token_name, const char *note, int64_t comparison_id, int64_t *current,
                  int64_t *history_id, const struct set_change *sc)
{
	int owned = 0, rc;
	int64_t bid = 0, hid = 0;
	*current = 0;
	if ((rc = change_args_ok(st, name, note)) < 0)
		return rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if ((rc = lock_run(st, run_id)) < 0)
		goto done;
	for (size_t i = 0; sc && i < sc->n_runs; i++)
		if ((rc = lock_run(st, sc->runs[i])) < 0)
			goto done;
	struct store_q *s =
	        prep(st, from_run ? STORE_SQL_D(Q_BASELINE_SWAP) : STORE_SQL_D(Q_BASELINE_UPSERT));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_text(s, 1, name);
	store_q_bind_i64(s, 2, run_id);
	if (from_run)
		store_q_bind_i64(s, 3, from_run);
	if ((rc = store_q_run_id(s, &bid)) == STORE_Q_ROW) {
		*current = run_id;
		/* a set promotion holds only while the set is the one compared
		 * against (read under the row lock the swap took) */
		if (sc && sc->n_from && (rc = members_equal(st, bid, sc->from, sc->n_from)) <= 0) {
			rc = rc < 0 ? rc : NOT_SWAPPED;
			goto done;
		}
		rc = history_add(st, bid, run_id, token_name, note, comparison_id, &hid);
		if (rc == 0)
			rc = members_put(st, bid, hid, sc);
		if (history_id)
			*history_id = hid;
	} else if (rc < 0 || !from_run) {
		rc = store_q_fail(st, rc < 0 ? rc : STORE_ERROR,
		                  from_run ? "promoting the baseline" : "setting the baseline");
	} else if ((rc = one_int(st, "SELECT run_id FROM baselines WHERE name = ?", name, current,
	                         "reading the baseline")) >= 0) {
		rc = 1;
	}
done:
	if (rc == NOT_SWAPPED) {
		/* undo the swap: the caller's transaction cannot be, so it errs */
		if (!owned)
			return store_fail(st, STORE_INVALID, "the baseline set changed");
		store_tx_end_owned(st, owned, STORE_INVALID);
		*current = run_id;
		return 1;
	}
	int end = store_tx_end_owned(st, owned, rc < 0 ? rc : 0);
	return end < 0 ? end : rc;
}

int store_baseline_set(struct store *st, const char *name, int64_t run_id, const char *token_name,
                       const char *note, int64_t comparison_id, int64_t *history_id)
{
	int64_t current;
	return change(st, name, run_id, 0, token_name, note, comparison_id, &current, history_id,
	              NULL);
}

int store_baseline_promote(struct store *st, const char *name, int64_t run_id, int64_t from_run,
                           const char *token_name, const char *note, int64_t comparison_id,
                           int64_t *current, int64_t *history_id)
{
	if (from_run <= 0) {
		*current = 0;
		return store_fail(st, STORE_INVALID, "a promotion names the run it replaces");
	}
	return change(st, name, run_id, from_run, token_name, note, comparison_id, current,
	              history_id, NULL);
}

int store_baseline_set_runs(struct store *st, const char *name, const int64_t *runs, size_t n,
                            const char *token_name, const char *note, int64_t comparison_id,
                            int64_t *history_id)
{
	int64_t current;
	if (n < 1 || n > STORE_BASELINE_SET_MAX)
		return store_fail(st, STORE_INVALID, "a baseline set has 1-%d runs",
		                  STORE_BASELINE_SET_MAX);
	struct set_change sc = {runs, n, NULL, 0};
	return change(st, name, runs[n - 1], 0, token_name, note, comparison_id, &current,
	              history_id, &sc);
}

int store_baseline_promote_set(struct store *st, const char *name, int64_t run_id,
                               const int64_t *from, size_t n_from, const char *token_name,
                               const char *note, int64_t comparison_id, int64_t *current,
                               int64_t *history_id)
{
	int64_t runs[STORE_BASELINE_SET_MAX];
	*current = 0;
	if (n_from < 2 || n_from > STORE_BASELINE_SET_MAX)
		return store_fail(st, STORE_INVALID, "a set promotion names the set it replaces");
	/* the oldest member leaves, the candidate joins as the newest */
	memcpy(runs, from + 1, (n_from - 1) * sizeof *runs);
	runs[n_from - 1] = run_id;
	struct set_change sc = {runs, n_from, from, n_from};
	return change(st, name, run_id, from[n_from - 1], token_name, note, comparison_id, current,
	              history_id, &sc);
}

int store_baseline_members(struct store *st, const char *name, int64_t *runs, size_t cap, size_t *n)
{
	struct store_q *s = prep(st, "SELECT m.run_id FROM baseline_members m JOIN baselines b ON "
	                             "b.id = m.baseline_id WHERE b.name = ? ORDER BY m.idx");
	int rc;
	*n = 0;
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, name);
	while ((rc = store_q_step(s)) == STORE_Q_ROW)
		if (*n < cap)
			runs[(*n)++] = store_q_col_i64(s, 0);
	store_q_done(s);
	if (rc < 0)
		return store_q_fail(st, rc, "reading the baseline set");
	if (*n == 0) {
		int64_t one;
		if ((rc = store_baseline_current(st, name, &one)) < 0)
			return rc;
		if (cap)
			runs[(*n)++] = one;
	}
	return 0;
}

int store_baseline_current(struct store *st, const char *name, int64_t *run_id)
{
	int rc = one_int(st, "SELECT run_id FROM baselines WHERE name = ?", name, run_id,
	                 "reading the baseline");
	if (rc == 1)
		return store_fail(st, STORE_NOT_FOUND, "no baseline is named '%.200s'", name);
	return rc;
}

int store_run_in_baseline(struct store *st, int64_t run_id, char *name, size_t cap)
{
	struct store_q *s = prep(st, "SELECT b.name FROM baselines b WHERE b.run_id = ?1 UNION ALL "
	                             "SELECT b.name FROM baseline_history h JOIN baselines b ON "
	                             "b.id = h.baseline_id WHERE h.run_id = ?1 UNION ALL "
	                             "SELECT b.name FROM baseline_history_members m JOIN "
	                             "baseline_history h ON h.id = m.history_id JOIN baselines b "
	                             "ON b.id = h.baseline_id WHERE m.run_id = ?1 LIMIT 1");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		const char *n = store_q_col_text(s, 0);
		snprintf(name, cap, "%s", n ? n : "");
		ret = 1;
	} else if (rc < 0) {
		ret = store_q_fail(st, rc, "checking baselines");
	}
	store_q_done(s);
	return ret;
}

/* The runs of set entry sql (?: id), oldest first, into the arena (NULL,
 * 0 when none). */
static int read_runs(struct store *st, struct arena *a, const char *sql, int64_t id,
                     const int64_t **runs, size_t *n)
{
	struct store_q *s = prep(st, sql);
	int64_t *v = NULL;
	size_t cap = 0;
	int rc, bad = 0;
	*runs = NULL;
	*n = 0;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		int64_t *g = store_arena_grow(a, v, *n, &cap, sizeof *g);
		if (!g) {
			bad = 1;
			break;
		}
		v = g;
		v[(*n)++] = store_q_col_i64(s, 0);
	}
	store_q_done(s);
	*runs = v;
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	return rc < 0 ? store_q_fail(st, rc, "reading the baseline set") : 0;
}

/* A baseline from BASELINE_COLS at column 0, its run in the arena. */
static int baseline_from_cols(struct store *st, struct arena *a, struct store_q *s,
                              struct store_baseline *b, size_t *bytes)
{
	int bad = 0;
	memset(b, 0, sizeof *b);
	b->id = store_q_col_i64(s, 0);
	b->name = store_q_col_dup(a, s, 1, bytes, &bad);
	b->run_id = store_q_col_i64(s, 2);
	b->created_at = store_q_col_dup(a, s, 3, bytes, &bad);
	b->updated_at = store_q_col_dup(a, s, 4, bytes, &bad);
	b->n_changes = store_q_col_i64(s, 5);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	int rc = read_runs(st, a,
	                   "SELECT run_id FROM baseline_members WHERE baseline_id = ? ORDER BY idx",
	                   b->id, &b->members, &b->n_members);
	return rc < 0 ? rc : store_run_summary(st, a, b->run_id, &b->run, bytes);
}

void store_baseline_view_free(struct store_baseline_view *v)
{
	if (!v)
		return;
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

static int read_history(struct store *st, struct arena *a, struct store_baseline *b)
{
	struct store_q *s = prep(st, "SELECT id, run_id, set_at, token_name, note, comparison_id "
	                             "FROM (SELECT * FROM baseline_history WHERE baseline_id = ? "
	                             "ORDER BY id DESC LIMIT ?) h ORDER BY id");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, b->id);
	store_q_bind_i64(s, 2, STORE_BASELINE_HISTORY_MAX);
	size_t cap = 0;
	int rc, bad = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		struct store_baseline_change *h =
		        store_arena_grow(a, b->history, b->n_history, &cap, sizeof *h);
		if (!h) {
			bad = 1;
			break;
		}
		b->history = h;
		struct store_baseline_change *c = &h[b->n_history++];
		c->id = store_q_col_i64(s, 0);
		c->run_id = store_q_col_i64(s, 1);
		c->set_at = store_q_col_dup(a, s, 2, NULL, &bad);
		c->token_name = store_q_col_dup(a, s, 3, NULL, &bad);
		c->note = store_q_col_dup(a, s, 4, NULL, &bad);
		if (!c->note)
			c->note = "";
		c->comparison_id = store_q_col_i64(s, 5);
	}
	store_q_done(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (rc < 0)
		return store_q_fail(st, rc, "reading the history");
	for (size_t i = 0; rc == 0 && i < b->n_history; i++)
		rc = read_runs(st, a,
		               "SELECT run_id FROM baseline_history_members WHERE history_id = ? "
		               "ORDER BY idx",
		               b->history[i].id, &b->history[i].runs, &b->history[i].n_runs);
	return rc;
}

int store_baseline_get(struct store *st, const char *name, struct store_baseline_view *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *s = prep(st, "SELECT " BASELINE_COLS " FROM baselines b WHERE b.name = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, name);
	int rc = store_q_step(s);
	if (rc == STORE_Q_ROW)
		rc = baseline_from_cols(st, &out->arena, s, &out->b, NULL);
	else if (rc == STORE_Q_DONE)
		rc = store_fail(st, STORE_NOT_FOUND, "no baseline is named '%.200s'", name);
	else
		rc = store_q_fail(st, rc, "reading the baseline");
	store_q_done(s);
	if (rc == 0)
		rc = read_history(st, &out->arena, &out->b);
	return rc;
}

void store_baseline_page_free(struct store_baseline_page *p)
{
	if (!p)
		return;
	free(p->baselines);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

static int baseline_item(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	struct store_baseline_page *p = ctx;
	struct store_baseline *nv = realloc(p->baselines, (p->n_baselines + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->baselines = nv;
	*bytes += 256;
	return baseline_from_cols(st, &p->arena, s, &p->baselines[p->n_baselines++], bytes);
}

static void baseline_drop(void *ctx)
{
	((struct store_baseline_page *)ctx)->n_baselines--;
}

int store_baselines_list(struct store *st, int limit, const char *cursor,
                         struct store_baseline_page *out)
{
	memset(out, 0, sizeof *out);
	return store_q_list_after_id(st,
	                             "SELECT " BASELINE_COLS
	                             " FROM baselines b WHERE b.id > ? ORDER BY b.id LIMIT ?",
	                             cursor, 'b', limit, baseline_item, baseline_drop, out,
	                             "listing baselines", out->next_cursor);
}

int store_baseline_comparisons(struct store *st, const char *name, int limit, const char *cursor,
                               struct store_comparison_page *out)
{
	int64_t before = INT64_MAX;
	memset(out, 0, sizeof *out);
	int rc = store_cursor_parse(st, cursor, 'c', &before, 1);
	if (rc < 0)
		return rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = prep(st, "SELECT " STORE_CMP_COLS " FROM comparisons c WHERE "
	                             "c.baseline_name = ? AND c.id < ? ORDER BY c.id DESC LIMIT ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, name);
	store_q_bind_i64(s, 2, before);
	store_q_bind_i64(s, 3, limit + 1);
	static const int keys[] = {0};
	/* the walk ends the statement (store_q_done frees a one-off) */
	return store_q_page_walk(st, s, limit, 'c', keys, 1, store_cmp_q_item_with_result,
	                         store_cmp_drop, out, "listing the baseline's comparisons",
	                         out->next_cursor);
}

/* ---- suites ------------------------------------------------------------ */

void store_suite_view_free(struct store_suite_view *v)
{
	if (!v)
		return;
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

int store_comparison_suite(struct store *st, int64_t id, char *out, size_t cap)
{
	struct store_q *s = prep(st, "SELECT coalesce(suite, '') FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		const char *suite = store_q_col_text(s, 0);
		snprintf(out, cap, "%s", suite ? suite : "");
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "comparison %lld not found", (long long)id);
	} else {
		ret = store_q_fail(st, rc, "reading the comparison's suite");
	}
	store_q_done(s);
	return ret;
}

/* The suite's queued and running comparisons into *n. */
static int suite_count_pending(struct store *st, const char *suite, int64_t *n)
{
	int rc = one_int(st,
	                 "SELECT count(*) FROM comparisons WHERE suite = ? AND status IN "
	                 "('queued', 'running')",
	                 suite, n, "counting the suite's comparisons");
	return rc > 0 ? 0 : rc;
}

int store_suite_pending(struct store *st, const char *suite, int64_t *n)
{
	if (st->backend == STORE_BACKEND_PG) {
		/* the finishers of a suite count one after the other, each after
		 * the previous one committed: the last one sees 0 pending, and
		 * only it (READ COMMITTED reads what committed before each
		 * statement) */
		struct store_q *s = prep(st, Q_SUITE_LOCK_PG);
		if (!s)
			return STORE_ERROR;
		store_q_bind_text(s, 1, suite);
		int rc = store_q_step(s);
		store_q_done(s);
		if (rc < 0)
			return store_q_fail(st, rc, "locking the suite");
	}
	return suite_count_pending(st, suite, n);
}

int store_suite_get(struct store *st, const char *suite, struct store_suite_view *out)
{
	memset(out, 0, sizeof *out);
	int64_t total = 0;
	int rc = one_int(st, "SELECT count(*) FROM comparisons WHERE suite = ?", suite, &total,
	                 "reading the suite");
	if (rc < 0)
		return rc;
	if (total == 0)
		return store_fail(st, STORE_NOT_FOUND, "no comparison is filed in suite '%.100s'",
		                  suite);
	out->n_comparisons = total;
	if ((rc = suite_count_pending(st, suite, &out->n_pending)) < 0)
		return rc;
	if ((rc = one_int(st,
	                  "SELECT coalesce(max(suite_size), 0) FROM comparisons WHERE suite = ?",
	                  suite, &out->expected, "reading the suite")) < 0)
		return rc;
	/* the latest comparison of each config (the highest id) */
	struct store_q *s = prep(st, "SELECT " STORE_CMP_COLS ", " STORE_CMP_FIRST_REASON
	                             " FROM comparisons c WHERE c.id IN "
	                             "(SELECT max(id) FROM comparisons WHERE suite = ? "
	                             "GROUP BY coalesce(config, '')) "
	                             "ORDER BY coalesce(c.config, ''), c.id LIMIT ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, suite);
	store_q_bind_i64(s, 2, STORE_SUITE_CONFIGS_MAX + 1);
	size_t cap = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		if (out->n_latest == STORE_SUITE_CONFIGS_MAX) {
			out->truncated = 1;
			break;
		}
		struct store_comparison *v =
		        store_arena_grow(&out->arena, out->latest, out->n_latest, &cap, sizeof *v);
		if (!v) {
			store_q_done(s);
			return store_fail(st, STORE_ERROR, "out of memory");
		}
		out->latest = v;
		int r2 = store_cmp_from_q(st, &out->arena, s, 1, &v[out->n_latest], NULL);
		int oom = 0;
		if (r2 == 0)
			v[out->n_latest].first_reason =
			        store_q_col_dup(&out->arena, s, 18, NULL, &oom);
		if (oom)
			r2 = store_fail(st, STORE_ERROR, "out of memory");
		if (r2 < 0) {
			store_q_done(s);
			return r2;
		}
		out->n_latest++;
	}
	store_q_done(s);
	if (rc < 0)
		return store_q_fail(st, rc, "reading the suite");
	return 0;
}

/* ---- the list of suites (/ui/suites) ------------------------------------ */

void store_suite_list_free(struct store_suite_list *l)
{
	if (!l)
		return;
	arena_reset(&l->arena);
	free(l->suites);
	memset(l, 0, sizeof *l);
}

int store_suites_list(struct store *st, struct store_suite_list *out)
{
	memset(out, 0, sizeof *out);
	/* the latest comparison of each (suite, config), summed per suite;
	 * every comparison of the suite counted by a correlated count */
	struct store_q *s =
	        prep(st, "SELECT c.suite, count(*), "
	                 "sum(CASE WHEN c.status = 'failed' OR c.verdict IN ('fail', 'error') "
	                 "THEN 1 ELSE 0 END), "
	                 "sum(CASE WHEN c.status IN ('queued', 'running') THEN 1 ELSE 0 END), "
	                 "(SELECT count(*) FROM comparisons a WHERE a.suite = c.suite), "
	                 "max(c.created_at) FROM comparisons c WHERE c.id IN "
	                 "(SELECT max(id) FROM comparisons WHERE suite IS NOT NULL AND suite <> '' "
	                 "GROUP BY suite, coalesce(config, '')) "
	                 "GROUP BY c.suite ORDER BY max(c.id) DESC LIMIT ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, STORE_SUITES_MAX + 1);
	int rc;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		if (out->n_suites == STORE_SUITES_MAX) {
			out->truncated = 1;
			break;
		}
		struct store_suite_summary *nv =
		        realloc(out->suites, (out->n_suites + 1) * sizeof *nv);
		if (!nv) {
			store_q_done(s);
			return store_fail(st, STORE_ERROR, "out of memory");
		}
		out->suites = nv;
		struct store_suite_summary *x = &nv[out->n_suites];
		x->suite = arena_strdup(&out->arena, store_q_col_text(s, 0));
		x->n_configs = store_q_col_i64(s, 1);
		x->n_failing = store_q_col_i64(s, 2);
		x->n_pending = store_q_col_i64(s, 3);
		x->n_comparisons = store_q_col_i64(s, 4);
		const char *at = store_q_col_text(s, 5);
		x->last_at = arena_strdup(&out->arena, at ? at : "");
		if (!x->suite || !x->last_at) {
			store_q_done(s);
			return store_fail(st, STORE_ERROR, "out of memory");
		}
		out->n_suites++;
	}
	store_q_done(s);
	return rc < 0 ? store_q_fail(st, rc, "listing suites") : 0;
}
