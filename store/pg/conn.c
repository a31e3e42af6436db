/* conn.c - a PostgreSQL connection for the store (libpq): connect, errors
 * mapped to STORE_* codes, the per-connection statement cache.  Limits:
 * one connection per struct store_pg, used by one thread at a time; no
 * reconnect (a caller whose connection broke closes it and opens a new
 * one, as the pool does for SQLite). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

int store_is_pg_url(const char *s)
{
	return s && (strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0);
}

int pg_fail(struct store_pg *pg, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pg->errmsg, sizeof pg->errmsg, fmt, ap);
	va_end(ap);
	return code;
}

/* libpq messages end with a newline and may span lines ("...failed:
 * Connection refused\n\tIs the server running..."); errmsg is one line */
void pg_errcopy(char *dst, size_t cap, const char *what, const char *msg)
{
	if (!msg || !msg[0])
		msg = "unknown error";
	if (what)
		snprintf(dst, cap, "%s: %s", what, msg);
	else
		snprintf(dst, cap, "%s", msg);
	size_t n = strlen(dst);
	while (n > 0 && (dst[n - 1] == '\n' || dst[n - 1] == ' '))
		dst[--n] = 0;
	for (char *p = dst; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
}

int pg_res_code(const PGresult *res)
{
	int code = STORE_ERROR;
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	if (state) {
		if (strcmp(state, "23505") == 0)
			code = STORE_DUPLICATE;
		else if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0 ||
		         strcmp(state, "55P03") == 0 || strcmp(state, "57014") == 0)
			code = STORE_BUSY;
		else if (strcmp(state, "53100") == 0)
			code = STORE_FULL;
	}
	return code;
}

int pg_resfail(struct store_pg *pg, PGresult *res, const char *what)
{
	int code = pg_res_code(res);
	const char *msg = res ? PQresultErrorMessage(res) : "";
	if (!msg[0])
		msg = PQerrorMessage(pg->conn);
	pg_errcopy(pg->errmsg, sizeof pg->errmsg, what, msg);
	PQclear(res);
	return code;
}

int pg_res_ok(const PGresult *res)
{
	ExecStatusType t = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
	return t == PGRES_COMMAND_OK || t == PGRES_TUPLES_OK;
}

int pg_exec(struct store_pg *pg, const char *sql, const char *what)
{
	PGresult *res = PQexec(pg->conn, sql);
	if (!pg_res_ok(res))
		return pg_resfail(pg, res, what);
	PQclear(res);
	return 0;
}

int pg_stmt_prepare(struct store_pg *pg, enum pg_sid id, const char *sql, int n, const char *what,
                    char name[16])
{
	snprintf(name, 16, "p%d", (int)id);
	if (pg->prepared[id])
		return 0;
	PGresult *p = PQprepare(pg->conn, name, sql, n, NULL);
	if (!pg_res_ok(p))
		return pg_resfail(pg, p, what);
	PQclear(p);
	pg->prepared[id] = 1;
	return 0;
}

int pg_stmt_exec_bin(struct store_pg *pg, enum pg_sid id, const char *sql, int n,
                     const char *const *values, const int *lengths, const int *formats,
                     const char *what, PGresult **res)
{
	char name[16];
	*res = NULL;
	int rc = pg_stmt_prepare(pg, id, sql, n, what, name);
	if (rc < 0)
		return rc;
	PGresult *r = PQexecPrepared(pg->conn, name, n, values, lengths, formats, 0);
	if (!pg_res_ok(r))
		return pg_resfail(pg, r, what);
	*res = r;
	return 0;
}

int pg_stmt_exec(struct store_pg *pg, enum pg_sid id, const char *sql, int n,
                 const char *const *values, const char *what, PGresult **res)
{
	return pg_stmt_exec_bin(pg, id, sql, n, values, NULL, NULL, what, res);
}

const char *pg_i64(char buf[24], int64_t v)
{
	snprintf(buf, 24, "%" PRId64, v);
	return buf;
}

int pg_col_i64(struct store_pg *pg, const PGresult *res, int row, int col, int64_t *v)
{
	if (row >= PQntuples(res) || col >= PQnfields(res) || PQgetisnull(res, row, col))
		return pg_fail(pg, STORE_ERROR, "expected a number, got no value");
	const char *t = PQgetvalue(res, row, col);
	char *end;
	errno = 0;
	long long x = strtoll(t, &end, 10);
	if (errno || end == t || *end)
		return pg_fail(pg, STORE_ERROR, "expected a number, got '%.40s'", t);
	*v = x;
	return 0;
}

/* Server notices (e.g. "table exists, skipping") are not errors: dropped,
 * so the daemon's log holds only what it reports itself. */
static void quiet_notices(void *arg, const char *message)
{
}

int store_pg_open(const char *url, struct store_pg **out, char *err, size_t errlen)
{
	*out = NULL;
	char why[256];
	if (!store_pq_get(why, sizeof why)) {
		if (errlen)
			snprintf(err, errlen, "the PostgreSQL store needs libpq: %s", why);
		return STORE_ERROR;
	}
	struct store_pg *pg = calloc(1, sizeof *pg);
	if (!pg) {
		if (errlen)
			snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	/* Defaults the URL may override (later parameters win, and the URL
	 * is expanded in place of dbname): give up on an unreachable server
	 * after 10 s instead of the TCP timeout; show up as "parity" in
	 * pg_stat_activity. */
	const char *keys[] = {"connect_timeout", "dbname", "fallback_application_name", NULL};
	const char *vals[] = {"10", url, "parity", NULL};
	pg->conn = PQconnectdbParams(keys, vals, 1);
	if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
		/* libpq's message names host and port, never the password */
		if (errlen)
			pg_errcopy(err, errlen, "connecting to PostgreSQL",
			           pg->conn ? PQerrorMessage(pg->conn) : "out of memory");
		store_pg_close(pg);
		return STORE_ERROR;
	}
	PQsetNoticeProcessor(pg->conn, quiet_notices, NULL);
	*out = pg;
	return 0;
}

void store_pg_close(struct store_pg *pg)
{
	if (!pg)
		return;
	PQfinish(pg->conn);
	free(pg);
}

const char *store_pg_errmsg(const struct store_pg *pg)
{
	return pg ? pg->errmsg : "no database connection";
}
