/* stmt.c - the statement layer (stmt.h): one implementation on SQLite
 * (the raw sqlite3_* calls the feature files made before) and one on
 * PostgreSQL (libpq prepared statements, text parameters and results). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "pg/pg_int.h"
#include "store_int.h"

#define IS_PG(q) ((q)->st->backend == STORE_BACKEND_PG)

/* ---- ?-parameters to $n ------------------------------------------------- */

/* End of the quoted part or comment starting at p (one past it), or p
 * when none starts there. */
static const char *skip_quoted(const char *p)
{
	if (*p == '\'' || *p == '"') {
		char qc = *p++;
		for (; *p; p++)
			if (*p == qc) {
				if (p[1] != qc)
					return p + 1;
				p++; /* doubled quote */
			}
		return p;
	}
	if (p[0] == '-' && p[1] == '-') {
		while (*p && *p != '\n')
			p++;
		return p;
	}
	if (p[0] == '/' && p[1] == '*') {
		const char *e = strstr(p + 2, "*/");
		return e ? e + 2 : p + strlen(p);
	}
	return p;
}

char *store_q_pg_sql(const char *sql, int *nparams)
{
	/* "?" (1 byte) becomes at most "$64" (3): room for 3 bytes each */
	size_t n = strlen(sql), cap = 3 * n + 1;
	char *out = malloc(cap), *o = out;
	if (!out)
		return NULL;
	int max = 0;
	const char *p = sql;
	while (*p) {
		const char *e = skip_quoted(p);
		if (e != p) {
			memcpy(o, p, (size_t)(e - p));
			o += e - p;
			p = e;
			continue;
		}
		if (*p != '?') {
			*o++ = *p++;
			continue;
		}
		p++;
		int num;
		if (*p >= '0' && *p <= '9') {
			char *end;
			long v = strtol(p, &end, 10);
			num = v > 999999 ? 999999 : (int)v;
			p = end;
		} else {
			num = max + 1;
		}
		if (num > max)
			max = num;
		o += snprintf(o, cap - (size_t)(o - out), "$%d", num);
	}
	*o = 0;
	*nparams = max;
	return out;
}

/* ---- handles -------------------------------------------------------------- */

static void pg_stream_stop(struct store_q *q);

static void pg_clear_result(struct store_q *q)
{
	PQclear(q->res);
	q->res = NULL;
	q->row = -1;
	q->nrows = 0;
	PQfreemem(q->bytes);
	q->bytes = NULL;
}

static void pg_clear_params(struct store_q *q)
{
	for (int i = 0; i < STORE_Q_MAX_PARAMS; i++) {
		free(q->vals[i]);
		q->vals[i] = NULL;
		q->lens[i] = 0;
		q->fmts[i] = 0;
	}
	q->bind_err = 0;
}

void store_q_free(struct store_q *q)
{
	if (!q)
		return;
	if (q->st->backend == STORE_BACKEND_PG) {
		pg_clear_result(q);
		pg_clear_params(q);
		free(q->sql);
	}
	free(q);
}

/* errmsg = the engine's message alone (store_q_fail adds the context) */
static int q_engine_fail(struct store *st, int code, const char *msg)
{
	snprintf(st->errmsg, sizeof st->errmsg, "%s", msg);
	return code;
}

/* A handle for slot sid (-1: one-off) of st; NULL with errmsg on OOM. */
static struct store_q *q_new(struct store *st, int sid)
{
	struct store_q *q = calloc(1, sizeof *q);
	if (!q) {
		store_fail(st, STORE_ERROR, "prepare: out of memory");
		return NULL;
	}
	q->st = st;
	q->sid = sid;
	q->row = -1;
	return q;
}

/* PostgreSQL: prepare sql as "q<sid>" (sid -1: the unnamed statement);
 * on failure errmsg "<what>: <server message>". */
static struct store_q *pg_new(struct store *st, int sid, const char *sql, const char *what)
{
	struct store_q *q = q_new(st, sid);
	if (!q)
		return NULL;
	q->sql = store_q_pg_sql(sql, &q->nparams);
	if (!q->sql) {
		free(q);
		store_fail(st, STORE_ERROR, "prepare: out of memory");
		return NULL;
	}
	if (q->nparams > STORE_Q_MAX_PARAMS) {
		store_fail(st, STORE_ERROR, "prepare: parameter $%d above $%d", q->nparams,
		           STORE_Q_MAX_PARAMS);
		store_q_free(q);
		return NULL;
	}
	char name[16] = "";
	if (sid >= 0)
		snprintf(name, sizeof name, "q%d", sid);
	PGresult *r = PQprepare(st->pg->conn, name, q->sql, q->nparams, NULL);
	if (!pg_res_ok(r)) {
		pg_errcopy(st->errmsg, sizeof st->errmsg, what,
		           r ? PQresultErrorMessage(r) : PQerrorMessage(st->pg->conn));
		PQclear(r);
		store_q_free(q);
		return NULL;
	}
	PQclear(r);
	return q;
}

struct store_q *store_stmt(struct store *st, int id, const char *sql)
{
	if (st->qs[id])
		return st->qs[id];
	if (st->backend == STORE_BACKEND_PG) {
		st->qs[id] = pg_new(st, id, sql, "prepare");
		return st->qs[id];
	}
	sqlite3_stmt *s = store_raw_stmt(st, (enum store_sid)id, sql);
	struct store_q *q = s ? q_new(st, id) : NULL;
	if (!q)
		return NULL;
	q->s = s;
	st->qs[id] = q;
	return q;
}

struct store_q *store_prep(struct store *st, const char *sql)
{
	return store_prep_as(st, sql, "prepare");
}

struct store_q *store_prep_as(struct store *st, const char *sql, const char *what)
{
	if (st->backend == STORE_BACKEND_PG)
		return pg_new(st, -1, sql, what);
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK) {
		store_sqlfail(st, rc, what);
		sqlite3_finalize(s);
		return NULL;
	}
	struct store_q *q = q_new(st, -1);
	if (!q) {
		sqlite3_finalize(s);
		return NULL;
	}
	q->s = s;
	return q;
}

void store_q_borrow(struct store_q *q, struct store *st, struct sqlite3_stmt *s)
{
	memset(q, 0, sizeof *q);
	q->st = st;
	q->s = s;
	q->sid = STORE_Q_BORROWED;
}

void store_q_done(struct store_q *q)
{
	if (!q)
		return;
	if (q->sid == STORE_Q_BORROWED) {
		store_stmt_done(q->s);
		return;
	}
	if (IS_PG(q)) {
		pg_stream_stop(q);
		q->key_col = 0;
		pg_clear_result(q);
		pg_clear_params(q);
		if (q->sid < 0)
			store_q_free(q);
		return;
	}
	if (q->sid < 0) {
		sqlite3_finalize(q->s);
		free(q);
		return;
	}
	store_stmt_done(q->s);
}

void store_q_reset(struct store_q *q)
{
	if (q && !IS_PG(q) && q->sid >= 0)
		sqlite3_reset(q->s);
	else
		store_q_done(q);
}

int store_q_fail(struct store *st, int code, const char *what)
{
	char msg[sizeof st->errmsg];
	memcpy(msg, st->errmsg, sizeof msg);
	/* "<what>: <msg>" cut at the buffer's size, as store_sqlfail's */
	size_t used = (size_t)snprintf(st->errmsg, sizeof st->errmsg, "%s: ", what);
	if (used < sizeof st->errmsg) {
		size_t len = strnlen(msg, sizeof st->errmsg - used - 1);
		memcpy(st->errmsg + used, msg, len);
		st->errmsg[used + len] = 0;
	}
	return code;
}

/* ---- parameters ----------------------------------------------------------- */

/* PostgreSQL: parameter idx gets a copy of n bytes (text: NUL added). */
/* 1 when s[0, n) is ASCII without NUL, tested a word at a time: nearly
 * every value an upload binds (~8 ms of a 30 MB log's insert when tested
 * a byte at a time). */
static int ascii_text(const char *s, size_t n)
{
	const uint64_t high = 0x8080808080808080u, ones = 0x0101010101010101u;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		if ((w & high) || ((w - ones) & ~w & high)) /* a high bit, or a zero byte */
			return 0;
	}
	for (; i < n; i++)
		if ((unsigned char)s[i] - 1u >= 0x7fu)
			return 0;
	return 1;
}

char *store_utf8_repair(const char *s, size_t n, size_t *out_len)
{
	if (ascii_text(s, n) || buf_utf8_valid(s, n) == n)
		return NULL;
	struct buf b = BUF_INIT;
	if (buf_append_utf8(&b, s, n) < 0) {
		buf_reset(&b);
		*out_len = SIZE_MAX;
		return NULL;
	}
	*out_len = b.len;
	return buf_take(&b);
}

static int pg_bind(struct store_q *q, int idx, const void *p, size_t n, int binary)
{
	if (idx < 1 || idx > q->nparams || n > INT32_MAX) {
		q->bind_err = 1;
		return STORE_INVALID;
	}
	free(q->vals[idx - 1]);
	q->vals[idx - 1] = NULL;
	q->lens[idx - 1] = 0;
	q->fmts[idx - 1] = 0;
	if (!p)
		return 0;
	char *v = malloc(n + 1);
	if (!v) {
		q->bind_err = 1;
		return STORE_ERROR;
	}
	if (n)
		memcpy(v, p, n);
	v[n] = 0;
	q->vals[idx - 1] = v;
	q->lens[idx - 1] = (int)n;
	q->fmts[idx - 1] = binary;
	return 0;
}

static int lite_rc(int rc)
{
	return rc == SQLITE_OK ? 0 : store_sqlite_code(rc);
}

int store_q_bind_i64(struct store_q *q, int idx, int64_t v)
{
	if (!IS_PG(q))
		return lite_rc(sqlite3_bind_int64(q->s, idx, v));
	char buf[24];
	int n = snprintf(buf, sizeof buf, "%" PRId64, v);
	return pg_bind(q, idx, buf, (size_t)n, 0);
}

int store_q_bind_double(struct store_q *q, int idx, double v)
{
	if (!IS_PG(q))
		return lite_rc(sqlite3_bind_double(q->s, idx, v));
	if (isnan(v))
		return pg_bind(q, idx, NULL, 0, 0);
	char buf[32];
	int n = isinf(v) ? snprintf(buf, sizeof buf, "%s", v > 0 ? "Infinity" : "-Infinity")
	                 : snprintf(buf, sizeof buf, "%.17g", v);
	return pg_bind(q, idx, buf, (size_t)n, 0);
}

int store_q_bind_text(struct store_q *q, int idx, const char *text)
{
	size_t n = text ? strlen(text) : 0, fixed_n = 0;
	/* Text is stored as UTF-8 on both engines: a UTF8 database refuses
	 * invalid bytes, and on SQLite they would reach every reader (a JSON
	 * key that is not UTF-8 fails the whole document).  So each is
	 * stored as U+FFFD, what every output showed for it (BACKENDS.md). */
	char *fixed = text ? store_utf8_repair(text, n, &fixed_n) : NULL;
	if (fixed_n == SIZE_MAX) {
		q->bind_err = 1;
		return STORE_ERROR;
	}
	if (!IS_PG(q)) {
		if (!fixed && (!text || n > INT32_MAX))
			return lite_rc(store_bind_text(q->s, idx, text));
		if (!fixed) /* the length known: SQLite need not measure it again */
			return lite_rc(sqlite3_bind_text(q->s, idx, text, (int)n, SQLITE_STATIC));
		if (fixed_n > INT32_MAX) {
			free(fixed);
			return STORE_INVALID;
		}
		/* SQLite frees the repaired copy when it is done with it */
		return lite_rc(sqlite3_bind_text(q->s, idx, fixed, (int)fixed_n, free));
	}
	int rc = fixed ? pg_bind(q, idx, fixed, fixed_n, 0) : pg_bind(q, idx, text, n, 0);
	free(fixed);
	return rc;
}

int store_q_bind_blob(struct store_q *q, int idx, const void *p, size_t n)
{
	if (!IS_PG(q)) {
		if (n > INT32_MAX)
			return STORE_INVALID;
		return lite_rc(sqlite3_bind_blob(q->s, idx, p ? p : "", (int)n, SQLITE_STATIC));
	}
	return pg_bind(q, idx, p ? p : "", n, 1);
}

int store_q_bind_null(struct store_q *q, int idx)
{
	if (!IS_PG(q))
		return lite_rc(sqlite3_bind_null(q->s, idx));
	return pg_bind(q, idx, NULL, 0, 0);
}

/* ---- stepping --------------------------------------------------------------- */

/* The statement name of q's slot ("" for a one-off: the unnamed one). */
static void pg_name(const struct store_q *q, char name[16])
{
	name[0] = 0;
	if (q->sid >= 0)
		snprintf(name, 16, "q%d", q->sid);
}

/* A failed step: errmsg = the server's message, the STORE_* code of r
 * (freed; NULL: the connection's message). */
static int pg_step_fail(struct store *st, PGresult *r)
{
	int code = pg_res_code(r);
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	st->q_fk = state && strcmp(state, "23503") == 0;
	pg_errcopy(st->errmsg, sizeof st->errmsg, NULL,
	           r && PQresultErrorMessage(r)[0] ? PQresultErrorMessage(r)
	                                           : PQerrorMessage(st->pg->conn));
	PQclear(r);
	return code;
}

/* q->res = r (a successful result), rows and changes from it. */
static void pg_take(struct store_q *q, PGresult *r)
{
	q->res = r;
	q->row = -1;
	q->nrows = PQntuples(r);
	const char *ct = PQcmdTuples(r);
	q->changes = ct && ct[0] ? strtoll(ct, NULL, 10) : 0;
}

static int pg_run(struct store_q *q)
{
	struct store *st = q->st;
	if (q->bind_err)
		return q_engine_fail(st, STORE_ERROR, "a parameter could not be bound");
	char name[16];
	pg_name(q, name);
	PGresult *r = PQexecPrepared(st->pg->conn, name, q->nparams, (const char *const *)q->vals,
	                             q->lens, q->fmts, 0);
	if (!pg_res_ok(r))
		return pg_step_fail(st, r);
	pg_take(q, r);
	return 0;
}

/* ---- single-row mode (store_q_stream) ---------------------------------------- */

/* q->stream: asked for, sent (rows still to read), all read */
#define STORE_Q_STREAM_ASKED 1
#define STORE_Q_STREAM_SENT  2
#define STORE_Q_STREAM_ENDED 3

void store_q_stream(struct store_q *q)
{
	if (q && q->sid != STORE_Q_BORROWED && IS_PG(q) && !q->res && !q->stream)
		q->stream = STORE_Q_STREAM_ASKED;
}

/* Read and drop what the connection still has for the last query. */
static void pg_drain(PGconn *c)
{
	PGresult *r;
	while ((r = PQgetResult(c)) != NULL)
		PQclear(r);
}

/* Send q in single-row mode. */
static int pg_send(struct store_q *q)
{
	struct store *st = q->st;
	PGconn *c = st->pg->conn;
	if (q->bind_err)
		return q_engine_fail(st, STORE_ERROR, "a parameter could not be bound");
	char name[16];
	pg_name(q, name);
	q->cancel_ok = PQtransactionStatus(c) == PQTRANS_IDLE;
	if (!PQsendQueryPrepared(c, name, q->nparams, (const char *const *)q->vals, q->lens,
	                         q->fmts, 0))
		return pg_step_fail(st, NULL);
	q->stream = STORE_Q_STREAM_SENT;
	if (!PQsetSingleRowMode(c)) {
		/* cannot happen right after a send; never leave it half-read */
		pg_drain(c);
		q->stream = STORE_Q_STREAM_ENDED;
		return q_engine_fail(st, STORE_ERROR, "single-row mode refused");
	}
	return 0;
}

/* The next row of a streamed q. */
static int pg_stream_step(struct store_q *q)
{
	if (q->stream == STORE_Q_STREAM_ASKED) {
		int rc = pg_send(q);
		if (rc < 0)
			return rc;
	}
	pg_clear_result(q);
	if (q->stream == STORE_Q_STREAM_ENDED)
		return STORE_Q_DONE;
	PGconn *c = q->st->pg->conn;
	PGresult *r = PQgetResult(c);
	ExecStatusType t = r ? PQresultStatus(r) : PGRES_COMMAND_OK;
	if (t == PGRES_SINGLE_TUPLE) {
		pg_take(q, r);
		q->row = 0;
		return STORE_Q_ROW;
	}
	/* the end (no rows in it) or an error, possibly after rows */
	if (r)
		pg_drain(c);
	q->stream = STORE_Q_STREAM_ENDED;
	if (!r)
		return STORE_Q_DONE;
	if (!pg_res_ok(r))
		return pg_step_fail(q->st, r);
	pg_take(q, r);
	q->row = q->nrows;
	return STORE_Q_DONE;
}

/* End a stream whose rows were not all read (store_q_done).  Outside a
 * transaction the query is cancelled (one round trip on a new socket,
 * whatever is left); inside one, the rows are read and dropped: a cancel
 * would abort the caller's transaction.  Either way the connection is
 * idle afterwards. */
static void pg_stream_stop(struct store_q *q)
{
	PGconn *c = q->st->pg->conn;
	if (q->stream == STORE_Q_STREAM_SENT) {
		PGcancel *cn = q->cancel_ok ? PQgetCancel(c) : NULL;
		if (cn) {
			char err[256];
			(void)PQcancel(cn, err, sizeof err); /* best effort: the drain ends it */
			PQfreeCancel(cn);
		}
		pg_drain(c);
	}
	q->stream = 0;
	q->cancel_ok = 0;
}

/* The next row of a statement read whole (pg_run on the first step). */
static int pg_next(struct store_q *q)
{
	if (!q->res) {
		int rc = pg_run(q);
		if (rc < 0)
			return rc;
	}
	PQfreemem(q->bytes);
	q->bytes = NULL;
	if (q->row + 1 >= q->nrows) {
		q->row = q->nrows;
		return STORE_Q_DONE;
	}
	q->row++;
	return STORE_Q_ROW;
}

void store_q_key_filter(struct store_q *q, int col)
{
	if (q && q->sid != STORE_Q_BORROWED && IS_PG(q))
		q->key_col = col + 1;
}

int store_q_step(struct store_q *q)
{
	if (!IS_PG(q)) {
		int rc = sqlite3_step(q->s);
		if (rc == SQLITE_ROW)
			return STORE_Q_ROW;
		if (rc == SQLITE_DONE)
			return STORE_Q_DONE;
		q->st->q_fk = rc == SQLITE_CONSTRAINT_FOREIGNKEY;
		return q_engine_fail(q->st, store_sqlite_code(rc), sqlite3_errmsg(q->st->db));
	}
	for (;;) {
		int rc = q->stream ? pg_stream_step(q) : pg_next(q);
		if (rc != STORE_Q_ROW || !q->key_col)
			return rc;
		const char *key = store_q_col_text(q, q->key_col - 1);
		int m = store_keymatch_key(q->st, key,
		                           key ? store_q_col_bytes(q, q->key_col - 1) : 0);
		if (m > 0)
			return rc;
		if (m < 0)
			return q_engine_fail(q->st, STORE_ERROR, "the key filter stopped the read");
	}
}

int store_q_run_id(struct store_q *q, int64_t *id)
{
	int rc = store_q_step(q);
	*id = rc == STORE_Q_ROW ? store_q_col_i64(q, 0) : 0;
	store_q_done(q);
	return rc;
}

int store_q_run_changes(struct store_q *q, int64_t *changed)
{
	int rc = store_q_step(q);
	*changed = store_q_changes(q);
	store_q_done(q);
	return rc;
}

int store_q_fk_violation(struct store *st)
{
	return st->q_fk;
}

int64_t store_q_changes(struct store_q *q)
{
	if (!IS_PG(q))
		return sqlite3_changes(q->st->db);
	return q->changes;
}

/* ---- columns ------------------------------------------------------------------ */

/* PostgreSQL: the text of col in the current row, NULL for SQL NULL or
 * no such row / column. */
static const char *pg_val(struct store_q *q, int col)
{
	if (!q->res || q->row < 0 || q->row >= q->nrows || col < 0 || col >= PQnfields(q->res) ||
	    PQgetisnull(q->res, q->row, col))
		return NULL;
	return PQgetvalue(q->res, q->row, col);
}

int store_q_col_isnull(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return sqlite3_column_type(q->s, col) == SQLITE_NULL;
	return pg_val(q, col) == NULL;
}

int64_t store_q_col_i64(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return sqlite3_column_int64(q->s, col);
	const char *t = pg_val(q, col);
	if (!t)
		return 0;
	if (t[0] == 't' && !t[1])
		return 1;
	if (t[0] == 'f' && !t[1])
		return 0;
	char *end;
	long long v = strtoll(t, &end, 10);
	if (*end == '.' || *end == 'e' || *end == 'E')
		return (int64_t)strtod(t, NULL); /* a numeric or float column */
	return v;
}

int store_q_col_int(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return sqlite3_column_int(q->s, col);
	return (int)store_q_col_i64(q, col);
}

double store_q_col_double(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return sqlite3_column_double(q->s, col);
	const char *t = pg_val(q, col);
	/* strtod reads "Infinity", "-Infinity" and "NaN" as PostgreSQL prints them */
	return t ? strtod(t, NULL) : 0.0;
}

const char *store_q_col_text(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return (const char *)sqlite3_column_text(q->s, col);
	return pg_val(q, col);
}

const void *store_q_col_blob(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return sqlite3_column_blob(q->s, col);
	const char *t = pg_val(q, col);
	PQfreemem(q->bytes);
	q->bytes = NULL;
	if (!t)
		return NULL;
	size_t n = 0;
	q->bytes = PQunescapeBytea((const unsigned char *)t, &n);
	return q->bytes;
}

size_t store_q_col_bytes(struct store_q *q, int col)
{
	if (!IS_PG(q))
		return (size_t)sqlite3_column_bytes(q->s, col);
	const char *t = pg_val(q, col);
	if (!t)
		return 0;
	if (PQftype(q->res, col) == 17 /* BYTEAOID */) {
		/* hex format: "\x" then two digits per byte */
		size_t n = (size_t)PQgetlength(q->res, q->row, col);
		return n >= 2 && t[0] == '\\' && t[1] == 'x' ? (n - 2) / 2 : n;
	}
	return (size_t)PQgetlength(q->res, q->row, col);
}

const char *store_q_col_dup(struct arena *a, struct store_q *q, int col, size_t *bytes, int *bad)
{
	if (store_q_col_isnull(q, col))
		return NULL;
	const char *t = store_q_col_text(q, col);
	size_t n = store_q_col_bytes(q, col), fixed_n = 0;
	/* text an older SQLite store kept with bytes that are not UTF-8 reads
	 * back as it is stored now (store_q_bind_text), so no reader meets
	 * them (a JSON object key that is not UTF-8 fails its document) */
	char *fixed = !IS_PG(q) && t ? store_utf8_repair(t, n, &fixed_n) : NULL;
	if (fixed_n == SIZE_MAX) {
		*bad = 1;
		return NULL;
	}
	char *c =
	        fixed ? arena_strndup(a, fixed, fixed_n) : arena_strndup(a, t ? t : "", t ? n : 0);
	free(fixed);
	*bad |= !c;
	if (bytes)
		*bytes += n;
	return c;
}

/* ---- transactions ----------------------------------------------------------- */

int store_in_tx(struct store *st)
{
	if (st->backend != STORE_BACKEND_PG)
		return !sqlite3_get_autocommit(st->db);
	return PQtransactionStatus(st->pg->conn) != PQTRANS_IDLE;
}

int store_pg_tx_cmd(struct store *st, const char *sql, const char *what)
{
	PGresult *r = PQexec(st->pg->conn, sql);
	int code = 0;
	if (!pg_res_ok(r)) {
		code = pg_res_code(r);
		pg_errcopy(st->errmsg, sizeof st->errmsg, what,
		           r && PQresultErrorMessage(r)[0] ? PQresultErrorMessage(r)
		                                           : PQerrorMessage(st->pg->conn));
	} else if (strcmp(sql, "COMMIT") == 0 && strcmp(PQcmdStatus(r), "ROLLBACK") == 0) {
		/* COMMIT of a transaction a failed statement aborted rolls back */
		code = store_fail(st, STORE_ERROR,
		                  "%s: the transaction was rolled back after an error", what);
	}
	PQclear(r);
	return code;
}

/* ---- a PostgreSQL handle ------------------------------------------------------- */

int store_open_pg_conn(const char *url, struct store **out, char *err, size_t errlen)
{
	*out = NULL;
	struct store *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	st->backend = STORE_BACKEND_PG;
	int rc = store_pg_open(url, &st->pg, err, errlen);
	if (rc < 0) {
		free(st);
		return rc;
	}
	*out = st;
	return 0;
}
