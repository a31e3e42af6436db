/* stmt.h - private to store/: the statement layer (store/BACKENDS.md,
 * section 1).  A feature file writes its SQL once and runs it through
 * these calls; stmt.c has one implementation per engine, picked by
 * st->backend:
 *   SQLite: a struct store_q wraps the cached sqlite3_stmt of the slot
 *     (or a one-off statement, store_prep) and each call is the matching
 *     sqlite3_* call, so behaviour is exactly that of the raw API.
 *   PostgreSQL: the slot's statement is prepared once per connection
 *     (PQprepare, name "q<slot>"; one-off statements use the unnamed
 *     statement) from the SQL text with "?" turned into "$n" and "?NNN"
 *     into "$NNN" (store_q_pg_sql; quoted strings, quoted identifiers and
 *     comments are skipped).  Parameters travel as text (doubles "%.17g",
 *     "Infinity", "-Infinity"; NaN as NULL, as SQLite stores it), blobs as
 *     binary parameters.  The first store_q_step runs the statement
 *     (PQexecPrepared, whole result: callers bound their reads with
 *     LIMIT), or, after store_q_stream, sends it and fetches one row per
 *     step (single-row mode: big reads stay at one row in memory);
 *     columns are parsed from the text result (booleans "t"/"f" read as
 *     1/0, bytea unescaped).
 * Usage, as with sqlite3_stmt: q = store_stmt(st, SID_X, sql) (or
 * store_prep for a one-off), store_q_bind_* (1-based), store_q_step until
 * STORE_Q_DONE, store_q_col_* (0-based) on each STORE_Q_ROW, then always
 * store_q_done(q) (resets a cached slot, frees a one-off).
 * Errors: store_q_step returns a negative STORE_* code (busy, duplicate,
 * full, else STORE_ERROR) and leaves the engine's message in errmsg;
 * store_q_fail(st, code, what) turns it into "<what>: <message>".
 * One connection, one thread at a time, as for struct store. */
#ifndef PARITY_STORE_STMT_H
#define PARITY_STORE_STMT_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct sqlite3_stmt;
struct pg_result;

enum store_backend { STORE_BACKEND_SQLITE = 0, STORE_BACKEND_PG = 1 };

/* The SQL text of the current backend where the dialects differ; needs a
 * `struct store *st` in scope. */
#define STORE_SQL(sqlite_text, pg_text)                                                            \
	(st->backend == STORE_BACKEND_PG ? (pg_text) : (sqlite_text))

/* The server's clock: RFC 3339 UTC text with whole seconds (what the
 * SQLite store writes with strftime('%Y-%m-%dT%H:%M:%SZ', 'now')) and
 * epoch milliseconds.  clock_timestamp(), not now(): a lease taken late
 * in a long transaction must not start in the past. */
#define PG_NOW_TEXT                                                                                \
	"to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
/* RFC 3339 UTC text with milliseconds (SQLite's NOW_MS in webhooks.c,
 * strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) */
#define PG_NOW_TEXT_MS                                                                             \
	"to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
#define PG_NOW_MS "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"
/* SQLite's clock as RFC 3339 UTC text with whole seconds (NOW in the
 * feature files) */
#define LITE_NOW_TEXT "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
/* The statement head NOW tail with each backend's NOW text (string
 * literals head and tail; st in scope as for STORE_SQL). */
#define STORE_SQL_NOW(head, tail) STORE_SQL(head LITE_NOW_TEXT tail, head PG_NOW_TEXT tail)

/* Statements whose text differs in a few fragments: M is a macro of one
 * argument d that spells each fragment as FRAG_##d; STORE_SQL_D(M) is
 * M(LITE) on SQLite and M(PG) on PostgreSQL.  The fragments: */
#define STORE_SQL_D(M) STORE_SQL(M(LITE), M(PG))
/* the current time, RFC 3339 UTC, whole seconds / milliseconds */
#define NOW_LITE    LITE_NOW_TEXT
#define NOW_PG      PG_NOW_TEXT
#define NOW_MS_LITE "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
#define NOW_MS_PG   PG_NOW_TEXT_MS
/* the larger of two values (SQLite's scalar max) */
#define MAX2_LITE "max"
#define MAX2_PG   "greatest"

#define STORE_Q_DONE 0
#define STORE_Q_ROW  1
/* sid of a handle that only wraps a raw sqlite3_stmt (store_q_borrow) */
#define STORE_Q_BORROWED (-2)
/* PostgreSQL: the highest parameter number a statement may use */
#define STORE_Q_MAX_PARAMS 64

struct store_q {
	struct store *st;
	struct sqlite3_stmt *s; /* SQLite */
	int sid;                /* slot, -1 for a one-off statement, STORE_Q_BORROWED */
	/* PostgreSQL */
	char *sql; /* translated text (one-off: until done) */
	int nparams;
	char *vals[STORE_Q_MAX_PARAMS];
	int lens[STORE_Q_MAX_PARAMS];
	int fmts[STORE_Q_MAX_PARAMS];
	int bind_err;          /* a bind failed (out of memory, bad index) */
	struct pg_result *res; /* after the first step, until done */
	int row, nrows;        /* current row (-1 before the first) */
	int stream;            /* store_q_stream: 0, or STORE_Q_STREAM_* (stmt.c) */
	int cancel_ok;         /* streamed outside a transaction: done may cancel */
	int key_col;           /* store_q_key_filter: the key column + 1, 0 = none */
	int64_t changes;       /* rows changed by the last run */
	unsigned char *bytes;  /* unescaped bytea of the last col_blob */
};

/* The cached statement of slot id (enum store_sid), prepared from sql on
 * first use; NULL with errmsg "prepare: ..." on failure. */
struct store_q *store_stmt(struct store *st, int id, const char *sql);
/* A statement for one call (store_q_done frees it); NULL with errmsg. */
struct store_q *store_prep(struct store *st, const char *sql);
/* store_prep with errmsg "<what>: <engine message>" on failure. */
struct store_q *store_prep_as(struct store *st, const char *sql, const char *what);

/* Bind parameter idx (1-based).  text NULL binds NULL; text and blob are
 * used until the next step (SQLite binds them without copying).  Text
 * that is not UTF-8 is bound repaired (store_utf8_repair) on both. */
int store_q_bind_i64(struct store_q *q, int idx, int64_t v);
int store_q_bind_double(struct store_q *q, int idx, double v);
int store_q_bind_text(struct store_q *q, int idx, const char *text);
int store_q_bind_blob(struct store_q *q, int idx, const void *p, size_t n);
int store_q_bind_null(struct store_q *q, int idx);

/* STORE_Q_ROW, STORE_Q_DONE, or a negative STORE_* code (see above). */
int store_q_step(struct store_q *q);
/* Read this use's rows one at a time (call after binding, before the
 * first store_q_step; the next store_q_done ends it).  PostgreSQL: the
 * first step sends the statement (PQsendQueryPrepared) in single-row mode
 * and each step fetches the next row, so memory stays at one row however
 * many rows come; an error after some rows is returned by the step that
 * meets it (rows before it were real).  While such a read is open the
 * connection runs nothing else: store_q_done first (it stops the read:
 * outside a transaction by cancelling the query, inside one by reading
 * the remaining rows, since a cancel would abort the caller's
 * transaction).  SQLite: a no-op (sqlite3_step already works so). */
void store_q_stream(struct store_q *q);
/* The key filter in C for this use (BACKENDS.md section 2), between
 * store_keymatch_begin and _end.  PostgreSQL: store_q_step skips the rows
 * whose text column col fails the connection's filter (store_keymatch_key;
 * so a read stops after limit + 1 matches, not rows: leave the SQL
 * unlimited and stream it), and a filter that stops the read (budget,
 * cancel, a too costly key) makes the step return STORE_ERROR
 * (store_keymatch_end then gives the reason).  SQLite: a no-op (the SQL's
 * REGEXP filters). */
void store_q_key_filter(struct store_q *q, int col);
/* Run a statement that returns at most one id (INSERT ... RETURNING id):
 * step once, *id = column 0 of the row (0 when none), then store_q_done.
 * STORE_Q_ROW, STORE_Q_DONE (no row, e.g. ON CONFLICT DO NOTHING) or a
 * negative STORE_* code as store_q_step. */
int store_q_run_id(struct store_q *q, int64_t *id);
/* Run a statement without rows (UPDATE, DELETE): step once, *changed =
 * store_q_changes, then store_q_done.  Returns what store_q_step did. */
int store_q_run_changes(struct store_q *q, int64_t *changed);
/* 1 when the last failed store_q_step broke a foreign key (SQLite
 * SQLITE_CONSTRAINT_FOREIGNKEY, PostgreSQL 23503). */
int store_q_fk_violation(struct store *st);
/* Columns of the current row (0-based); NULL reads as 0 / NULL. */
int64_t store_q_col_i64(struct store_q *q, int col);
int store_q_col_int(struct store_q *q, int col);
double store_q_col_double(struct store_q *q, int col);
const char *store_q_col_text(struct store_q *q, int col);
/* Length in bytes of a text or blob column (after col_text / col_blob). */
size_t store_q_col_bytes(struct store_q *q, int col);
const void *store_q_col_blob(struct store_q *q, int col);
int store_q_col_isnull(struct store_q *q, int col);
/* Rows changed by the last INSERT/UPDATE/DELETE run: a slot also after
 * store_q_done, a one-off (store_prep) only before it (done frees it). */
int64_t store_q_changes(struct store_q *q);
/* End this use: reset and clear bindings (a slot) or free (one-off). */
void store_q_done(struct store_q *q);
/* store_q_done for a cached slot whose every parameter is bound again on
 * each use (a hot insert): SQLite resets without clearing the bindings. */
void store_q_reset(struct store_q *q);
/* SQLite, while raw code remains: q wraps the raw statement s of st for
 * a layer function (store_q_done resets s, frees nothing). */
void store_q_borrow(struct store_q *q, struct store *st, struct sqlite3_stmt *s);
/* Free a slot's handle (store_close). */
void store_q_free(struct store_q *q);
/* errmsg = "<what>: <errmsg>"; returns code. */
int store_q_fail(struct store *st, int code, const char *what);

/* A text column copied into arena a (NULL for SQL NULL); *bytes (may be
 * NULL) grows by its length; *bad is set on OOM.  Bytes that are not
 * UTF-8 (rows an older SQLite store kept as sent) come back as U+FFFD. */
struct arena;
const char *store_q_col_dup(struct arena *a, struct store_q *q, int col, size_t *bytes, int *bad);

/* 1 when a transaction is open on st's connection (both engines). */
int store_in_tx(struct store *st);
/* PostgreSQL: run BEGIN, COMMIT or ROLLBACK (sql) for db.c's store_tx_*;
 * 0, or a STORE_* code with errmsg "<what>: ...".  A COMMIT that the
 * server turned into a ROLLBACK (the transaction had failed) is an error. */
int store_pg_tx_cmd(struct store *st, const char *sql, const char *what);

/* Text s (n bytes) with each byte that is not part of a valid UTF-8
 * sequence, and each NUL, replaced by U+FFFD: a malloc'd NUL-terminated
 * copy with *out_len its length, or NULL when s is valid already (NULL
 * with *out_len = SIZE_MAX when out of memory).  Both engines store text
 * this way (store_q_bind_text, the PostgreSQL COPY): a UTF8 database
 * refuses invalid bytes, and SQLite's readers would meet them (issue 23). */
char *store_utf8_repair(const char *s, size_t n, size_t *out_len);

/* The PostgreSQL text of SQLite-style sql: "?" numbered in order (as
 * SQLite numbers them: one above the largest so far), "?NNN" kept as
 * "$NNN"; quoted strings ('...', "..."), and -- and slash-star comments
 * copied unchanged.  malloc'd (NULL on OOM); *nparams = the highest
 * number used. */
char *store_q_pg_sql(const char *sql, int *nparams);

/* A struct store on an existing PostgreSQL database, without migrations:
 * store_open on a postgresql:// target connects with it, then migrates;
 * the statement layer's tests use it alone.  0, or a STORE_* code with
 * err set. */
int store_open_pg_conn(const char *url, struct store **out, char *err, size_t errlen);

#endif
