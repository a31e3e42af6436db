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

#include "pg/pg.h"
#include "stmt.h"
#include "store.h"

enum store_sid {
	/* runs.c */
	SID_RUN_INSERT,
	SID_LOG_INSERT,
	SID_LOG_SET_HEADER,
	SID_LOG_SET_COUNTS,
	SID_RUN_SET_FIELDS,
	SID_LOG_SET_IDENTITY,
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
	SID_STEPS_BATCH,
	SID_STEP_COPY,
	SID_STEP_REPLACE,
	SID_METRICS_DELETE,
	SID_STEPS_PAGE,
	/* load.c */
	SID_LOAD_LOG,
	SID_LOAD_ENTRIES,
	SID_LOAD_STEPS,
	SID_LOAD_WARNINGS,
	/* comparisons.c, comparison_*.c */
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
	/* actresult.c: its statements are slots SID_ACT_RESULT + enum act_q */
	SID_ACT_RESULT,
	SID_ACT_RESULT_LAST = SID_ACT_RESULT + 21,
	/* trainresult.c: slots SID_TRAIN_RESULT + enum train_q */
	SID_TRAIN_RESULT,
	SID_TRAIN_RESULT_LAST = SID_TRAIN_RESULT + 20,
	/* noiseresult.c: slots SID_NOISE_RESULT + enum noise_q */
	SID_NOISE_RESULT,
	SID_NOISE_RESULT_LAST = SID_NOISE_RESULT + 16,
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
	/* store_on_busy: called when this connection starts waiting for the
	 * write lock, else NULL */
	void (*busy_wait)(void *ctx);
	void *busy_ctx;
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
/* Its PostgreSQL twin (p must be typed text where it first occurs).  meta
 * is text that need not be JSON (store_run_create stores it as given), and
 * a failed ::jsonb cast would abort the statement and the transaction, so
 * the cast is reached only through a CASE on STORE_JSON_OK_PG.  That test
 * costs ~0.1 ms a row, so a cheap one comes first: the commit or branch can
 * hold p only if meta's text does, unless meta has an escape (\) or gives
 * a "commit" / "branch" key a value that is not a string (its ->> text is
 * then not a piece of meta). */
#define STORE_RUN_MATCHES_Q_PG(r, p)                                                               \
	"(strpos(lower(" r ".name), lower(" p ")) > 0 OR CASE WHEN strpos(lower(" r ".meta), "     \
	"lower(" p ")) = 0 AND strpos(" r ".meta, '\\') = 0 AND " r ".meta !~ "                    \
	"'\"(commit|branch)\"" STORE_JSON_WS_PG ":" STORE_JSON_WS_PG "[^\"]' THEN false "          \
	"WHEN " STORE_JSON_OK_PG(r ".meta") " THEN strpos(lower(COALESCE(" r                       \
	                                    ".meta::jsonb ->> 'commit', '')), lower(" p            \
	                                    ")) > 0 OR strpos(lower(COALESCE(" r                   \
	                                    ".meta::jsonb ->> 'branch', '')), lower(" p            \
	                                    ")) > 0 ELSE false END)"
/* PostgreSQL 15 (no pg_input_is_valid, no IS JSON): true when text column
 * x casts to jsonb without an error, in plain SQL (no function, no
 * migration).  x must not hold U+0001 or U+0002 (JSON never does, raw);
 * its strings become U+0001, numbers, true, false and null U+0002, then
 * the innermost arrays and objects of tokens become U+0002 again, once per
 * level: x is valid when one token is left.  Every token stands for text
 * the grammar accepts, so true implies a valid cast.  It is stricter than
 * jsonb (and SQLite's json_valid) at the edges, which then read as not
 * JSON: nesting deeper than 64, numbers with more than 255 digits before
 * or after the point or an exponent above 999, \u0000 and unpaired
 * surrogates (these two jsonb rejects too). */
#define STORE_JSON_WS_PG "[ \\t\\n\\r]*"
#define STORE_JSON_OK_PG(x)                                                                        \
	"EXISTS (WITH RECURSIVE v(t, p, n) AS (SELECT regexp_replace(regexp_replace(" x ", "       \
	"'\"([^\"\\\\\\x01-\\x1f]|\\\\[\"\\\\/"                                                    \
	"bfnrt]|\\\\u(?!0000)(?![dD][89a-fA-F])[0-9a-fA-F]{4}|"                                    \
	"\\\\u[dD][89abAB][0-9a-fA-F]{2}\\\\u[dD][c-fC-F][0-9a-fA-F]{2})*\"', chr(1), 'g'), "      \
	"'-?(0|[1-9][0-9]{0,254})(\\.[0-9]{1,255})?([eE][-+]?[0-9]{1,3})?|true|false|null', "      \
	"chr(2), 'g'), NULL::text, 0 WHERE " x " !~ '[\\x01\\x02]' UNION ALL "                     \
	"SELECT regexp_replace(regexp_replace(t, '\\[" STORE_JSON_WS_PG                            \
	"([\\x01\\x02](" STORE_JSON_WS_PG "," STORE_JSON_WS_PG "[\\x01\\x02])*" STORE_JSON_WS_PG   \
	")?\\]', chr(2), 'g'), '\\{" STORE_JSON_WS_PG "(\\x01" STORE_JSON_WS_PG                    \
	":" STORE_JSON_WS_PG "[\\x01\\x02](" STORE_JSON_WS_PG "," STORE_JSON_WS_PG                 \
	"\\x01" STORE_JSON_WS_PG ":" STORE_JSON_WS_PG "[\\x01\\x02])*" STORE_JSON_WS_PG            \
	")?\\}', chr(2), 'g'), t, n + 1 FROM v WHERE n < 64 AND t ~ '[][{}]' "                     \
	"AND t IS DISTINCT FROM p) SELECT 1 FROM v WHERE t ~ '^" STORE_JSON_WS_PG                  \
	"[\\x01\\x02]" STORE_JSON_WS_PG "$')"
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
/* The typed results' shared statements (actresult.c).  clear: delete the
 * rows of comparison id from tables[0..n) (slots sid0 + i); step: run an
 * INSERT bound on q once and end its use.  0 or a STORE_* code (errmsg
 * "storing the result: ..."). */
int store_result_clear(struct store *st, int sid0, const char *const *tables, size_t n, int64_t id);
int store_result_step(struct store *st, struct store_q *q);
/* Reading a typed result into an arena. */
struct store_result_rd {
	struct store *st;
	struct arena *a; /* everything read is allocated here */
	int64_t id;      /* the comparison */
	size_t *bytes;   /* NULL, or grows by the length of each text read */
	int bad;         /* a text copy failed (out of memory) */
};
/* Run slot sid (sql: ?1 = d->id, ?2 = *arg unless arg is NULL) and call
 * each(d, q, ctx) on every row; each returns 0 or a STORE_* code that
 * stops the walk.  0 or a STORE_* code (errmsg "<what>: ..."). */
int store_result_rows(struct store_result_rd *d, int sid, const char *sql, const int64_t *arg,
                      const char *what,
                      int (*each)(struct store_result_rd *d, struct store_q *q, void *ctx),
                      void *ctx);
/* store_result_rows into an arena array: each row fills a zeroed sz-byte
 * element e (fill returns 0 or a STORE_* code); *out and *n are the array
 * (NULL, 0 when there is no row). */
int store_result_list(struct store_result_rd *d, int sid, const char *sql, const int64_t *arg,
                      const char *what, size_t sz,
                      int (*fill)(struct store_result_rd *d, struct store_q *q, void *e),
                      void **out, size_t *n);
/* The head row of a typed result: store_result_list of at most one row;
 * 1 with *obj the filled sz-byte object, 0 when no result is stored
 * (*obj NULL), or a STORE_* code. */
int store_result_head(struct store_result_rd *d, int sid, const char *sql, const char *what,
                      size_t sz, int (*fill)(struct store_result_rd *d, struct store_q *q, void *e),
                      void **obj);
/* trainresult.c: the same for a training result (migration 009). */
int store_train_result_read(struct store *st, struct arena *a, int64_t id,
                            const struct store_train_result **out, size_t *bytes);
int store_train_result_clear(struct store *st, int64_t id);
/* trainresult.c: one reason / note row of a training or noise result
 * (train_result_reasons / train_result_notes; a noise result keeps its
 * reasons and notes there too), and the reasons read back in order. */
int store_train_reason_put(struct store *st, int64_t id, size_t i,
                           const struct matcher_train_reason *x);
int store_train_note_put(struct store *st, int64_t id, size_t i, const char *note);
int store_train_reasons_read(struct store_result_rd *d, const struct matcher_train_reason **out,
                             size_t *n);
/* noiseresult.c: a noise result's typed rows read back into a malloc'd
 * struct matcher_noise_result (*out NULL when none is stored; reason
 * codes in arena a); the comparison's baseline set into arena a. */
struct matcher_noise_result;
int store_noise_result_read(struct store *st, struct arena *a, int64_t id, const char *policy_text,
                            struct matcher_noise_result **out, size_t *bytes);
int store_comparison_set_read(struct store *st, struct arena *a, int64_t id, const int64_t **runs,
                              size_t *n);
/* Bind text or NULL. */
int store_bind_text(sqlite3_stmt *s, int idx, const char *text);

/* One run (no logs) from the columns id, name, kind, meta, created_at
 * starting at column 0, strings copied into a; *bytes (may be NULL) grows
 * by the text.  0, or -1 on OOM. */
int store_run_from_cols(struct arena *a, struct store_q *q, struct store_run *r, size_t *bytes);

/* The 20 entry columns store_entry_from_cols reads, of table alias t. */
#define STORE_ENTRY_COLS(t)                                                                        \
	t ".ord, " t ".line, " t ".key, " t ".phase, " t ".shape, " t ".l1_text, " t ".l1, " t     \
	  ".l2_text, " t ".l2, " t ".min_text, " t ".min, " t ".max_text, " t ".max, " t           \
	  ".mean_text, " t ".mean, " t ".stat_isnum, " t ".output_hash, " t ".input_hashes, " t    \
	  ".input_producers, " t ".location"
#define STORE_ENTRY_NCOLS 20
/* load.c: an entry from STORE_ENTRY_COLS starting at column c; strings
 * point into the row (valid until the next step/done of q); key NULL
 * when the columns are NULL (no entry: a LEFT JOIN without a match). */
void store_entry_from_cols(struct store_q *q, int c, struct matcher_entry *e);
/* comparison_walks.c: copy an entry's strings into arena a (they point into a
 * row); *bytes grows by their length.  0 or -1 on OOM. */
int store_entry_keep(struct arena *a, struct matcher_entry *e, size_t *bytes);

/* comparison_views.c: the columns of a comparison (store_cmp_from_q reads
 * them from column 0 of a query over "comparisons c"), and one comparison
 * with its two runs read from them into arena a (result text only when
 * with_result). */
#define STORE_CMP_COLS                                                                             \
	"c.id, c.name, c.kind, c.status, c.verdict, c.baseline_id, c.candidate_id, "               \
	"c.policy, c.result, c.error, c.created_at, c.started_at, c.finished_at, "                 \
	"c.baseline_name, c.suite, c.config, c.suite_size, c.lane"
/* The message of comparison c's first reason (a column after
 * STORE_CMP_COLS; NULL when it has none). */
#define STORE_CMP_FIRST_REASON                                                                     \
	"COALESCE((SELECT x.message FROM act_result_reasons x WHERE "                              \
	"x.comparison_id = c.id ORDER BY x.seq LIMIT 1), (SELECT y.message FROM "                  \
	"train_result_reasons y WHERE y.comparison_id = c.id ORDER BY y.seq LIMIT 1))"
int store_cmp_from_q(struct store *st, struct arena *a, struct store_q *q, int with_result,
                     struct store_comparison *c, size_t *bytes);
/* comparison_views.c: the run (no logs) into arena a; *out NULL when it is
 * gone.  Uses its own cached statement (safe while a page is stepped). */
int store_run_summary(struct store *st, struct arena *a, int64_t run_id,
                      const struct store_run **out, size_t *bytes);
/* Page-walk item / drop functions for a store_comparison_page whose
 * items keep their result text. */
int store_cmp_q_item_with_result(struct store *st, struct store_q *q, void *ctx, size_t *bytes);
void store_cmp_drop(void *ctx);
/* baselines.c: 1 if a baseline (or its history) names the run (its name
 * into name, cap bytes), 0 none, <0 error. */
int store_run_in_baseline(struct store *st, int64_t run_id, char *name, size_t cap);

/* runs.c: lock run row run_id until the transaction ends: 1, 0 when there
 * is none, or a STORE_* code.  PostgreSQL: for_delete takes FOR UPDATE
 * (an insert that would reference the run waits, then fails its foreign
 * key), else FOR KEY SHARE (a delete of the run waits until this
 * transaction ends: a reference inserted next cannot break).  SQLite: a
 * plain read, its write transaction excludes other writers. */
int store_run_lock(struct store *st, int64_t run_id, int for_delete);

/* comparisons.c: 1 if a comparison references the run, 0 none, <0 error. */
int store_run_in_comparison(struct store *st, int64_t run_id, int64_t *cmp_id);

/* One page of a typed list.  q is bound and returns at most limit + 1
 * rows.  Each kept row becomes item_fn(st, q, ctx, &bytes): it appends one
 * item to the page in ctx (it may run other statements) and adds its size
 * estimate to bytes, or returns a STORE_* code.  The page stops before
 * the first item that would take it past STORE_PAGE_BYTES (the first item
 * is always kept): drop_fn(ctx) then takes that item back.  next_cursor
 * gets tag + the integer columns key_cols[0..n_keys) of the last item
 * kept, or "".  Ends with store_q_done(q). */
int store_q_page_walk(struct store *st, struct store_q *q, int limit, char tag, const int *key_cols,
                      int n_keys,
                      int (*item_fn)(struct store *st, struct store_q *q, void *ctx, size_t *bytes),
                      void (*drop_fn)(void *ctx), void *ctx, const char *what,
                      char next_cursor[64]);

/* lists.c: a list paged forward by row id: sql selects the item columns
 * WHERE <id> > ?1 ORDER BY <id> LIMIT ?2 with the id in column 0; the
 * cursor is tag + that id; items as for store_q_page_walk. */
int store_q_list_after_id(
        struct store *st, const char *sql, const char *cursor, char tag, int limit,
        int (*item_fn)(struct store *st, struct store_q *q, void *ctx, size_t *bytes),
        void (*drop_fn)(void *ctx), void *ctx, const char *what, char next_cursor[64]);

#endif
