/* pg_int.h - private to store/pg/: the PostgreSQL connection struct, its
 * statement cache and the helpers the pg files share (errors, parameters,
 * SQL fragments for the server's clock).  Nothing outside store/ includes
 * this or libpq-fe.h; libpq itself is loaded at its first call (pq_lib.h).
 *
 * Statement cache: as on SQLite (store_int.h), each statement has a fixed
 * slot (enum pg_sid); pg_stmt_exec() prepares it under the slot's name on
 * first use per connection (PQprepare) and runs it with PQexecPrepared.
 * Parameters travel as text ($1, $2, ...); integers are formatted with
 * pg_i64. */
#ifndef PARITY_STORE_PG_INT_H
#define PARITY_STORE_PG_INT_H

#include "pg.h"
#include "pq_lib.h"
#include "stmt.h"
#include "store.h"

enum pg_sid {
	/* migrate.c */
	PG_SID_HAS_VERSIONS,
	PG_SID_VERSION,
	PG_SID_RECORD,
	/* jobs.c */
	PG_SID_JOB_CLAIM,
	PG_SID_JOB_HEARTBEAT,
	PG_SID_JOB_HEARTBEAT_ALL,
	PG_SID_JOB_FINISH,
	PG_SID_JOB_RELEASE,
	/* blobs.c */
	PG_SID_BLOB_GC_SHARED,
	PG_SID_BLOB_CLAIM,
	PG_SID_BLOB_CHUNK,
	PG_SID_BLOB_DONE,
	PG_SID_BLOB_INFO,
	PG_SID_BLOB_READ,
	PG_SID_BLOB_GET,
	/* load.c */
	PG_SID_LOAD_LOG,
	/* deliveries.c */
	PG_SID_DELIVERY_CLAIM,
	PG_SID_DELIVERY_HEARTBEAT,
	PG_SID_DELIVERY_HEARTBEAT_ALL,
	PG_SID_DELIVERY_RECORD,
	PG_SID_DELIVERY_ATTEMPT,
	PG_SID_DELIVERY_RELEASE,
	PG_SID_DELIVERY_RELEASE_OWNER,
	/* notify.c */
	PG_SID_NOTIFY,
	PG_SID_COUNT
};

struct store_pg {
	PGconn *conn;
	unsigned char prepared[PG_SID_COUNT]; /* 1: slot prepared on conn */
	char errmsg[512];
};

/* Set errmsg (printf) and return code. */
int pg_fail(struct store_pg *pg, int code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Map a failed result to a STORE_* code (SQLSTATE 23505 STORE_DUPLICATE;
 * 40001, 40P01, 55P03, 57014 STORE_BUSY; 53100 STORE_FULL; else
 * STORE_ERROR) with errmsg "<what>: <server message>", and PQclear it
 * (res may be NULL: out of memory or a lost connection). */
int pg_resfail(struct store_pg *pg, PGresult *res, const char *what);
/* The STORE_* code pg_resfail gives res (no side effects). */
int pg_res_code(const PGresult *res);
/* 1 when res is PGRES_COMMAND_OK or PGRES_TUPLES_OK. */
int pg_res_ok(const PGresult *res);
/* "<what>: <msg>" (just msg when what is NULL) on one line into dst. */
void pg_errcopy(char *dst, size_t cap, const char *what, const char *msg);
/* Run sql (no parameters; may hold several statements) and expect it to
 * succeed.  0, or a STORE_* code with errmsg. */
int pg_exec(struct store_pg *pg, const char *sql, const char *what);
/* Run the statement of slot id (sql, n parameters as text, NULL = SQL
 * NULL), preparing it on first use.  The result (PGRES_TUPLES_OK or
 * PGRES_COMMAND_OK) into *res, owned by the caller (PQclear); on failure
 * *res = NULL and a STORE_* code with errmsg. */
int pg_stmt_exec(struct store_pg *pg, enum pg_sid id, const char *sql, int n,
                 const char *const *values, const char *what, PGresult **res);
/* Prepare the statement of slot id unless this connection has; its
 * statement name into name.  0, or a STORE_* code with errmsg. */
int pg_stmt_prepare(struct store_pg *pg, enum pg_sid id, const char *sql, int n, const char *what,
                    char name[16]);
/* pg_stmt_exec with per-parameter lengths and formats (1 = binary, for
 * BYTEA; NULL arrays: all text), as PQexecPrepared takes them. */
int pg_stmt_exec_bin(struct store_pg *pg, enum pg_sid id, const char *sql, int n,
                     const char *const *values, const int *lengths, const int *formats,
                     const char *what, PGresult **res);
/* Lease arguments (jobs.c, deliveries.c): STORE_INVALID (errmsg) for an
 * empty owner, or a lease outside 1..86400000 ms; else 0. */
int pg_check_owner(struct store_pg *pg, const char *owner);
int pg_check_lease(struct store_pg *pg, int64_t lease_ms);
/* Run a statement that changes at most one row (... RETURNING id): 0 when
 * it did (*id = that id when id is non-NULL), STORE_NOT_FOUND when none,
 * else the error. */
int pg_row_stmt(struct store_pg *pg, enum pg_sid sid, const char *sql, int n,
                const char *const *params, const char *what, int64_t *id);
/* pg_row_stmt for a statement on row id ($1) of a leased kind
 * ("comparison", "delivery") that only the lease's owner ($2) may run:
 * STORE_NOT_FOUND says "<kind> <id>: this worker does not hold its lease". */
int pg_owned_stmt(struct store_pg *pg, const char *kind, int64_t id, enum pg_sid sid,
                  const char *sql, int n, const char *const *params, const char *what);
/* A heartbeat of every lease owner holds: sql renews the rows whose owner
 * is $1 to now + $2 ms (lease checked first); *n (may be NULL) = rows. */
int pg_renew_all(struct store_pg *pg, enum pg_sid sid, const char *sql, const char *owner,
                 int64_t lease_ms, const char *what, int *n);
/* v as decimal text in buf (a bigint parameter). */
const char *pg_i64(char buf[24], int64_t v);
/* The bigint in column col of row 0 of res into *v: 0, or STORE_ERROR
 * (errmsg) when it is NULL or not a number. */
int pg_col_i64(struct store_pg *pg, const PGresult *res, int row, int col, int64_t *v);

#endif
