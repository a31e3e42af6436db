/* store_int.h - private to store/: the connection struct, the statement
 * cache and small helpers shared by the feature files (errors, cursors,
 * JSON from columns).  Nothing outside store/ includes this or sqlite3.h.
 *
 * Statement cache: each SQL statement has a fixed slot (enum store_sid);
 * store_raw_stmt() prepares it on first use with SQLITE_PREPARE_PERSISTENT and
 * hands back the cached handle; store_stmt_done() resets it and clears
 * the bindings so no read statement stays open (WAL checkpoints). */
#ifndef PARITY_STORE_INT_H
#define PARITY_STORE_INT_H

#include <sqlite3.h>

#include "stmt.h"
#include "store.h"

enum store_sid {
	/* runs.c */
	SID_RUN_INSERT,
	SID_LOG_INSERT,
	SID_LOG_SET_HEADER,
	SID_LOG_SET_COUNTS,
	SID_LOG_RANK,
	SID_RUN_GET,
	SID_RUN_KIND,
	SID_RUN_LOGS_FULL,
	SID_LOG_WARNINGS,
	SID_RUNS_PAGE,
	SID_RUN_LOGS,
	SID_LOG_FIND,
	SID_RUN_SHAS,
	SID_RUN_DELETE,
	SID_SHA_REFERENCED,
	SID_RUN_IN_COMPARISON,
	SID_WARNING_INSERT,
	/* entries.c */
	SID_ENTRY_INSERT,
	SID_OPS_PAGE,
	/* steps.c */
	SID_STEP_INSERT,
	SID_METRIC_INSERT,
	SID_STEP_COPY,
	SID_STEP_REPLACE,
	SID_METRICS_DELETE,
	SID_STEPS_PAGE,
	SID_STEP_METRICS,
	/* load.c */
	SID_LOAD_LOG,
	SID_LOAD_ENTRIES,
	SID_LOAD_STEPS,
	SID_LOAD_WARNINGS,
	/* comparisons.c */
	SID_CMP_INSERT,
	SID_CMP_CLAIM,
	SID_CMP_REQUEUE,
	SID_CMP_REQUEUE_ONE,
	SID_CMP_JOB,
	SID_CMP_ROW_INSERT,
	SID_CMP_ENTRY_IDS,
	SID_CMP_LOG_EXISTS,
	SID_CMP_ROWS_CLEAR,
	SID_CMP_STEPS_CLEAR,
	SID_CMP_CELLS_CLEAR,
	SID_CMP_STEP_INSERT,
	SID_CMP_CELL_INSERT,
	SID_CMP_FINISH,
	SID_CMP_GET,
	SID_CMP_PAGE,
	SID_CMP_ROWS_PAGE,
	SID_CMP_ROWS_COUNT,
	SID_CMP_ROWS_COUNT_NOKEY,
	SID_CMP_ROW_PRODUCER,
	SID_CMP_STEPS_PAGE,
	SID_CMP_CELLS_RANGE,
	SID_CMP_DELETE,
	SID_CMP_STATUS,
	SID_CMP_RUNREF,
	SID_CMP_RUN_ROW,
	SID_LOG_SET_SOURCE, /* sources.c */
	SID_LOG_SOURCE,
	SID_COUNT
};

struct store_pg;

struct store {
	enum store_backend backend;
	sqlite3 *db; /* SQLite */
	sqlite3_stmt *stmts[SID_COUNT];
	/* the statement layer's handles per slot (stmt.c), made on first use */
	struct store_q *qs[SID_COUNT];
	int q_fk; /* the last failed store_q_step broke a foreign key */
	/* PostgreSQL: the connection (its slots are prepared by store_stmt) */
	struct store_pg *pg;
	char errmsg[512];
	/* last log whose rank was looked up (steps take the log's rank) */
	int64_t rank_log_id;
	int rank_of_log;
	/* the key filter of the read in progress (regex.c), else NULL */
	struct store_keymatch *keymatch;
	/* store_defer_checkpoints: called when the WAL is due, else NULL */
	void (*ckpt_due)(void *ctx);
	void *ckpt_ctx;
	int fk_off; /* store_tx_begin_bulk turned foreign keys off */
	/* PostgreSQL claims: store_set_job_owner ("" = not set) */
	char owner[128];
	int64_t lease_ms;
};

/* An embedded file (CMake's parity_embed, server/embed.cmake): migrations
 * (parity_migrations: migrations/sqlite/; parity_pg_migrations:
 * migrations/postgresql/), sorted by name, ended by a NULL name; data has
 * a trailing NUL not counted in len. */
struct parity_embedded {
	const char *name;
	const unsigned char *data;
	size_t len;
};
/* Version of "NNN_name.sql" (the leading number); -1 when there is none. */
int store_migration_version(const char *name);
/* The highest version of a migration list, checking that versions rise
 * strictly from 1 on; -1 with err (errlen bytes) set when they do not. */
int store_migrations_max(const struct parity_embedded *list, char *err, size_t errlen);

/* Cached statement for slot id, prepared from sql on first use; NULL on
 * failure (errmsg set).  Finish each use with store_stmt_done. */
sqlite3_stmt *store_raw_stmt(struct store *st, enum store_sid id, const char *sql);
/* SQL condition: run alias `r` matches the list search parameter `p` (a
 * case-insensitive substring of its name or meta commit / branch). */
#define STORE_RUN_MATCHES_Q(r, p)                                                                  \
	"(instr(lower(" r ".name), lower(" p ")) > 0 OR (json_valid(" r ".meta) AND ("             \
	"instr(lower(COALESCE(json_extract(" r ".meta, '$.commit'), '')), lower(" p ")) > 0 OR "   \
	"instr(lower(COALESCE(json_extract(" r ".meta, '$.branch'), '')), lower(" p ")) > 0)))"
void store_stmt_done(sqlite3_stmt *s);

/* errmsg = the last error of the PostgreSQL connection (after a
 * store_pg_* call on st->pg). */
void store_pg_errcopy(struct store *st);

/* Set errmsg (printf) and return code. */
int store_fail(struct store *st, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Map an SQLite result code to a STORE_* code, with errmsg
 * "<what>: <sqlite message>". */
int store_sqlfail(struct store *st, int rc, const char *what);
/* The STORE_* code of an SQLite result code (as store_sqlfail maps it). */
int store_sqlite_code(int rc);

/* Open a write transaction if none is open: *owned = 1 when this call
 * began it (finish with store_tx_end_owned). */
int store_tx_auto(struct store *st, int *owned);
/* ok: commit (owned) or nothing; !ok: roll back (owned).  Returns rc or a
 * commit error. */
int store_tx_end_owned(struct store *st, int owned, int rc);

/* Limit policy for lists (<= 0 -> 50, > 1000 -> 1000). */
int store_clamp_limit(int limit);
/* Parse a cursor "<tag><int>[.<int>...]" with exactly n numbers into v.
 * 0 = parsed, 1 = no cursor (NULL/""), STORE_BAD_CURSOR (errmsg set). */
int store_cursor_parse(struct store *st, const char *cursor, char tag, int64_t *v, int n);
/* The cursor "<tag>v0.v1..." (at most 3 numbers) as text into out. */
void store_cursor_text(char tag, const int64_t *v, int n, char out[64]);

/* Key filters (regex.c).  A read with a key filter calls
 * store_keymatch_begin before binding its statement and
 * store_keymatch_end with its result; in between, REGEXP(?, key) in its
 * SQL matches the compiled pattern (the bound text must be the filter's
 * regex) and the read is bounded by the filter's budget and cancel
 * callback (an SQLite progress handler).
 *   begin: kf NULL or an empty regex = no filter (*regex_out = NULL, 0);
 *     else compile (STORE_BAD_REGEX, STORE_TOO_COSTLY with errmsg), make
 *     it the connection's current filter and set *regex_out to the text to
 *     bind.  Nothing to undo on failure.
 *   end: always call after a successful begin (no-op without a filter);
 *     returns STORE_TOO_COSTLY / STORE_CANCELLED (errmsg set) when the
 *     filter stopped the read, else rc. */
int store_keymatch_begin(struct store *st, const struct store_key_filter *kf,
                         const char **regex_out);
int store_keymatch_end(struct store *st, int rc);
/* The key filter in C, for PostgreSQL (BACKENDS.md section 2: its SQL
 * leaves the regex out and returns the key column): between begin and
 * end, test one key (NULL never matches) with the same compiled pattern,
 * limits, budget and cancel callback as REGEXP on SQLite.  1 match, 0 no
 * match (also when no filter is active: 1), -1 stop: the read must end,
 * and store_keymatch_end reports why. */
int store_keymatch_key(struct store *st, const char *key, size_t len);
/* Register REGEXP on a new connection (store_open). */
int store_keymatch_register(struct store *st);

/* One page of a JSON list (the lists not typed yet: ops, steps), built on
 * store_page_walk.  s is bound and
 * returns at most limit + 1 rows (the extra one only tells that there is
 * a next page).  Each kept row becomes row_fn(st, s, ctx, &rc): a new
 * reference, or NULL with rc set (left at 0 means out of memory); row_fn
 * builds the whole item (it may run other statements), since the page
 * stops before the first item that would take the items' compact JSON
 * past STORE_PAGE_BYTES (the first item is always kept).  The cursor is
 * tag + the integer columns key_cols[0..n_keys) of the last row kept.  s
 * is reset before returning.  0 and *out = {"<items>":[...],
 * "next_cursor":"..."|null}, or a STORE_* code (what names the list in the
 * error message). */
int store_page_collect(struct store *st, sqlite3_stmt *s, int limit, const char *items, char tag,
                       const int *key_cols, int n_keys,
                       json_t *(*row_fn)(struct store *st, sqlite3_stmt *s, void *ctx, int *rc),
                       void *ctx, const char *what, json_t **out);

/* JSON for a text column: string (invalid UTF-8 bytes replaced by U+FFFD)
 * or null when the column is NULL. */
json_t *store_json_col_text(sqlite3_stmt *s, int col);
/* JSON string from bytes, repaired like store_json_col_text; NULL on OOM. */
json_t *store_json_text(const char *s, size_t n);
/* A text column copied into arena a: NULL for SQL NULL; *bytes (may be
 * NULL) grows by its length; *bad is set on OOM. */
const char *store_col_dup(struct arena *a, sqlite3_stmt *s, int col, size_t *bytes, int *bad);
/* Room for one more element in an array of n elements (cap allocated,
 * each sz bytes) held in arena a: the array itself while n < *cap, else
 * a copy twice as large (the old block stays in the arena until it is
 * reset) and *cap updated.  NULL on OOM. */
void *store_arena_grow(struct arena *a, void *v, size_t n, size_t *cap, size_t sz);
/* actresult.c: the typed activation result of comparison id into arena a
 * (*out NULL when none is stored); delete it (before recomputing). */
int store_act_result_read(struct store *st, struct arena *a, int64_t id,
                          const struct store_act_result **out, size_t *bytes);
int store_act_result_clear(struct store *st, int64_t id);
/* A one-off statement of the typed results (NULL with the error set);
 * step an insert once and reset it (0 or a STORE_* code). */
sqlite3_stmt *store_result_prep(struct store *st, const char *sql);
/* The head row of a typed result (store/actresult.c, trainresult.c): sql
 * selects it by comparison id (one "?"); on a row, a zeroed sz-byte object
 * is allocated in a.  1: *sp is on the row (the caller finalizes it) and
 * *obj set; 0: no result stored (nothing allocated); negative STORE_* code
 * (errmsg: what, or out of memory) with the statement finalized. */
int store_result_head(struct store *st, struct arena *a, const char *sql, int64_t id,
                      const char *what, size_t sz, sqlite3_stmt **sp, void **obj);
int store_result_step(struct store *st, sqlite3_stmt *s);
/* trainresult.c: the same for a training result (migration 009). */
int store_train_result_read(struct store *st, struct arena *a, int64_t id,
                            const struct store_train_result **out, size_t *bytes);
int store_train_result_clear(struct store *st, int64_t id);
/* Bind text or NULL. */
int store_bind_text(sqlite3_stmt *s, int idx, const char *text);

/* One run (no logs) from the columns id, name, kind, meta, created_at
 * starting at column 0, strings copied into a; *bytes (may be NULL) grows
 * by the text.  0, or -1 on OOM. */
int store_run_from_cols(struct arena *a, sqlite3_stmt *s, struct store_run *r, size_t *bytes);

/* The 20 entry columns store_entry_from_cols reads, of table alias t. */
#define STORE_ENTRY_COLS(t)                                                                        \
	t ".ord, " t ".line, " t ".key, " t ".phase, " t ".shape, " t ".l1_text, " t ".l1, " t     \
	  ".l2_text, " t ".l2, " t ".min_text, " t ".min, " t ".max_text, " t ".max, " t           \
	  ".mean_text, " t ".mean, " t ".stat_isnum, " t ".output_hash, " t ".input_hashes, " t    \
	  ".input_producers, " t ".location"
#define STORE_ENTRY_NCOLS 20
/* load.c: an entry from STORE_ENTRY_COLS starting at column c; strings
 * point into the row (valid until the next step/reset of s); key NULL
 * when the columns are NULL (no entry: a LEFT JOIN without a match). */
void store_entry_from_cols(sqlite3_stmt *s, int c, struct matcher_entry *e);
/* comparisons.c: copy an entry's strings into arena a (they point into a
 * row); *bytes grows by their length.  0 or -1 on OOM. */
int store_entry_keep(struct arena *a, struct matcher_entry *e, size_t *bytes);

/* comparisons.c: the columns of a comparison (store_cmp_from_cols reads
 * them from column 0 of a query over "comparisons c"), and one comparison
 * with its two runs read from them into arena a (result text only when
 * with_result). */
#define STORE_CMP_COLS                                                                             \
	"c.id, c.name, c.kind, c.status, c.verdict, c.baseline_id, c.candidate_id, "               \
	"c.policy, c.result, c.error, c.created_at, c.started_at, c.finished_at, "                 \
	"c.baseline_name, c.suite, c.config, c.suite_size"
int store_cmp_from_cols(struct store *st, struct arena *a, sqlite3_stmt *s, int with_result,
                        struct store_comparison *c, size_t *bytes);
/* comparisons.c: the run (no logs) into arena a; *out NULL when it is
 * gone.  Uses its own cached statement (safe while a page is stepped). */
int store_run_summary(struct store *st, struct arena *a, int64_t run_id,
                      const struct store_run **out, size_t *bytes);
/* Page-walk item / drop functions for a store_comparison_page whose
 * items keep their result text. */
int store_cmp_item_with_result(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes);
void store_cmp_drop(void *ctx);
/* baselines.c: 1 if a baseline (or its history) names the run (its name
 * into name, cap bytes), 0 none, <0 error. */
int store_run_in_baseline(struct store *st, int64_t run_id, char *name, size_t cap);

/* comparisons.c: 1 if a comparison references the run, 0 none, <0 error. */
int store_run_in_comparison(struct store *st, int64_t run_id, int64_t *cmp_id);

/* One page of a typed list (the struct form of store_page_collect).  s
 * is bound and returns at most limit + 1 rows.  Each kept row becomes
 * item_fn(st, s, ctx, &bytes): it appends one item to the page in ctx
 * (it may run other statements) and adds its size estimate to bytes, or
 * returns a STORE_* code.  The page stops before the first item that
 * would take it past STORE_PAGE_BYTES (the first item is always kept):
 * drop_fn(ctx) then takes that item back.  next_cursor gets tag + the
 * integer columns key_cols[0..n_keys) of the last item kept, or "".  s is
 * reset before returning. */
int store_page_walk(struct store *st, sqlite3_stmt *s, int limit, char tag, const int *key_cols,
                    int n_keys,
                    int (*item_fn)(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes),
                    void (*drop_fn)(void *ctx), void *ctx, const char *what, char next_cursor[64]);

/* store_page_walk on a statement of the layer (item_fn reads q). */
int store_q_page_walk(struct store *st, struct store_q *q, int limit, char tag, const int *key_cols,
                      int n_keys,
                      int (*item_fn)(struct store *st, struct store_q *q, void *ctx, size_t *bytes),
                      void (*drop_fn)(void *ctx), void *ctx, const char *what,
                      char next_cursor[64]);

/* Raw item / drop functions of a page walk run by the layer's walk (their
 * context is a struct store_raw_walk), until every list is converted. */
struct store_raw_walk {
	int (*item_fn)(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes);
	void (*drop_fn)(void *ctx);
	void *ctx;
};
int store_raw_walk_item(struct store *st, struct store_q *q, void *vctx, size_t *bytes);
void store_raw_walk_drop(void *vctx);

/* lists.c: a statement prepared for one call (sqlite3_finalize it), or
 * NULL with errmsg set. */
sqlite3_stmt *store_raw_prep(struct store *st, const char *sql);
/* A list paged forward by row id: sql selects the item columns WHERE
 * <id> > ?1 ORDER BY <id> LIMIT ?2 with the id in column 0; the cursor is
 * tag + that id; items as for store_page_walk. */
int store_list_after_id(struct store *st, const char *sql, const char *cursor, char tag, int limit,
                        int (*item_fn)(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes),
                        void (*drop_fn)(void *ctx), void *ctx, const char *what,
                        char next_cursor[64]);
/* store_list_after_id on the statement layer (item_fn reads q). */
int store_q_list_after_id(
        struct store *st, const char *sql, const char *cursor, char tag, int limit,
        int (*item_fn)(struct store *st, struct store_q *q, void *ctx, size_t *bytes),
        void (*drop_fn)(void *ctx), void *ctx, const char *what, char next_cursor[64]);

#endif
