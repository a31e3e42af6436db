/* db.c - opening a connection: pragmas, embedded migrations, the REGEXP
 * function (regex.c), the statement cache, transactions and the helpers every other
 * store file uses (errors, cursors, JSON from columns).
 *
 * Migrations are the files migrations/sqlite/NNN_name.sql embedded by CMake as
 * parity_migrations[] (sorted by name).  Version = the leading number.
 * Each one above PRAGMA user_version runs in its own BEGIN IMMEDIATE with
 * the version re-read inside, so two threads (or processes) opening the
 * same new file at once apply each migration exactly once.  A database
 * whose user_version is above the highest embedded one is refused: an
 * older binary must not write a schema it does not know. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_int.h"

extern const struct parity_embedded parity_migrations[];

/* ---- errors -------------------------------------------------------------- */

int store_fail(struct store *st, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->errmsg, sizeof st->errmsg, fmt, ap);
	va_end(ap);
	return code;
}

int store_sqlite_code(int rc)
{
	int code = STORE_ERROR;
	int prim = rc & 0xff;
	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
		code = STORE_BUSY;
	else if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY)
		code = STORE_DUPLICATE;
	else if (prim == SQLITE_FULL)
		code = STORE_FULL;
	return code;
}

int store_sqlfail(struct store *st, int rc, const char *what)
{
	int code = store_sqlite_code(rc);
	snprintf(st->errmsg, sizeof st->errmsg, "%s: %s", what,
	         st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
	return code;
}

const char *store_errmsg(const struct store *st)
{
	return st ? st->errmsg : "no database connection";
}

/* ---- statement cache ----------------------------------------------------- */

sqlite3_stmt *store_raw_stmt(struct store *st, enum store_sid id, const char *sql)
{
	if (st->stmts[id])
		return st->stmts[id];
	int rc = sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->stmts[id],
	                            NULL);
	if (rc != SQLITE_OK) {
		store_sqlfail(st, rc, "prepare");
		st->stmts[id] = NULL;
		return NULL;
	}
	return st->stmts[id];
}

void store_stmt_done(sqlite3_stmt *s)
{
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
}

int store_bind_text(sqlite3_stmt *s, int idx, const char *text)
{
	if (!text)
		return sqlite3_bind_null(s, idx);
	return sqlite3_bind_text(s, idx, text, -1, SQLITE_STATIC);
}

/* ---- open / migrations --------------------------------------------------- */

static int exec_sql(struct store *st, const char *sql, const char *what)
{
	char *msg = NULL;
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		int prim = rc & 0xff;
		snprintf(st->errmsg, sizeof st->errmsg, "%s: %s", what,
		         msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		if (prim == SQLITE_FULL)
			return STORE_FULL;
		return (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) ? STORE_BUSY : STORE_ERROR;
	}
	return 0;
}

static int read_user_version(struct store *st, int *out)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		int code = store_sqlfail(st, rc, "reading the schema version");
		sqlite3_finalize(s);
		return code;
	}
	*out = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return 0;
}

int store_schema_version(struct store *st)
{
	int v = -1;
	if (st->backend == STORE_BACKEND_PG) {
		if (store_pg_schema_version(st->pg, &v) < 0) {
			store_pg_errcopy(st);
			return -1;
		}
		return v;
	}
	if (read_user_version(st, &v) < 0)
		return -1;
	return v;
}

int store_migration_version(const char *name)
{
	if (!isdigit((unsigned char)name[0]))
		return -1;
	long v = 0;
	for (const char *p = name; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (*p - '0');
		if (v > INT_MAX / 10)
			return -1;
	}
	return (int)v;
}

/* Apply one migration unless a concurrent opener already did. */
static int apply_migration(struct store *st, const struct parity_embedded *m, int version)
{
	char sql[160];
	int rc = exec_sql(st, "BEGIN IMMEDIATE", "starting a migration");
	if (rc < 0)
		return rc;
	int cur = 0;
	if ((rc = read_user_version(st, &cur)) < 0)
		goto fail;
	if (cur >= version)
		return exec_sql(st, "COMMIT", "migration commit");
	if ((rc = exec_sql(st, (const char *)m->data, m->name)) < 0)
		goto fail;
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d", version);
	if ((rc = exec_sql(st, sql, "recording the schema version")) < 0)
		goto fail;
	sqlite3_stmt *s = NULL;
	int src = sqlite3_prepare_v2(st->db,
	                             "INSERT INTO schema_migrations(version, name, applied_at) "
	                             "VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
	                             -1, &s, NULL);
	if (src == SQLITE_OK) {
		sqlite3_bind_int(s, 1, version);
		sqlite3_bind_text(s, 2, m->name, -1, SQLITE_STATIC);
		src = sqlite3_step(s);
	}
	sqlite3_finalize(s);
	if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "recording the migration");
		goto fail;
	}
	if ((rc = exec_sql(st, "COMMIT", "migration commit")) < 0)
		goto fail;
	return 0;
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int store_migrations_max(const struct parity_embedded *list, char *err, size_t errlen)
{
	int prev = 0;
	for (const struct parity_embedded *m = list; m->name; m++) {
		int v = store_migration_version(m->name);
		if (v <= prev) {
			snprintf(err, errlen,
			         "embedded migration %s: version must be a number above %d",
			         m->name, prev);
			return -1;
		}
		prev = v;
	}
	return prev;
}

static int migrate(struct store *st)
{
	int rc;
	int max = store_migrations_max(parity_migrations, st->errmsg, sizeof st->errmsg);
	if (max < 0)
		return STORE_ERROR;
	int cur = 0;
	if ((rc = read_user_version(st, &cur)) < 0)
		return rc;
	if (cur > max)
		return store_fail(st, STORE_TOO_NEW,
		                  "database schema version %d is newer than this binary "
		                  "supports (%d): use a newer parity or another data dir",
		                  cur, max);
	for (const struct parity_embedded *m = parity_migrations; m->name; m++) {
		int v = store_migration_version(m->name);
		if (v <= cur)
			continue;
		if ((rc = apply_migration(st, m, v)) < 0)
			return rc;
	}
	return 0;
}

/* Switching a new file to WAL needs an exclusive lock and SQLite does not
 * wait for it through the busy handler: threads opening one new file at
 * once see SQLITE_BUSY (measured: 3 in 300 races of 6 openers).  Retry
 * for up to the busy timeout. */
static int set_wal(struct store *st)
{
	struct timespec pause = {0, 10 * 1000 * 1000};
	int rc = 0;
	for (int tries = 0; tries < 500; tries++) {
		rc = exec_sql(st, "PRAGMA journal_mode=WAL", "setting WAL mode");
		if (rc != STORE_BUSY)
			return rc;
		nanosleep(&pause, NULL);
	}
	return rc;
}

#define BUSY_TIMEOUT_MS 5000

/* SQLite's own busy-timeout handler (sqlite3_busy_timeout: the same
 * delays), plus the store_on_busy hook when a wait starts. */
static int busy_handler(void *arg, int count)
{
	static const int delays_ms[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
	enum { N_DELAYS = sizeof delays_ms / sizeof delays_ms[0] };
	struct store *st = arg;
	if (count == 0 && st->busy_wait)
		st->busy_wait(st->busy_ctx);
	int waited = 0; /* by the earlier calls of this wait */
	for (int i = 0; i < count && waited < BUSY_TIMEOUT_MS; i++)
		waited += delays_ms[i < N_DELAYS ? i : N_DELAYS - 1];
	int delay = delays_ms[count < N_DELAYS ? count : N_DELAYS - 1];
	if (waited + delay > BUSY_TIMEOUT_MS)
		delay = BUSY_TIMEOUT_MS - waited;
	if (delay <= 0)
		return 0;
	sqlite3_sleep(delay);
	return 1;
}

/* Wait for locks up to BUSY_TIMEOUT_MS (wait 1) or not at all (0). */
static void busy_wait_set(struct store *st, int wait)
{
	sqlite3_busy_handler(st->db, wait ? busy_handler : NULL, wait ? st : NULL);
}

void store_on_busy(struct store *st, void (*wait)(void *ctx), void *ctx)
{
	st->busy_wait = wait;
	st->busy_ctx = ctx;
}

/* Process-wide SQLite settings, applied once before the first connection
 * (sqlite3_config must precede sqlite3_initialize).  Memory statistics
 * off: with them on, every SQLite allocation takes a global mutex, ~7 %
 * of an entry insert; nothing here reads sqlite3_memory_used. */
static void sqlite_global_config(void)
{
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static int open_with(const char *db_path, int create, struct store **out, char *err, size_t errlen)
{
	int rc = STORE_ERROR;
	struct store *st = calloc(1, sizeof *st);
	*out = NULL;
	if (!st) {
		if (errlen)
			snprintf(err, errlen, "out of memory");
		return STORE_ERROR;
	}
	st->rank_log_id = -1;
	static pthread_once_t config_once = PTHREAD_ONCE_INIT;
	pthread_once(&config_once, sqlite_global_config);
	int src = sqlite3_open_v2(db_path, &st->db,
	                          SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
	                                  SQLITE_OPEN_NOMUTEX,
	                          NULL);
	if (src != SQLITE_OK) {
		rc = store_sqlfail(st, src, "opening the database");
		goto done;
	}
	sqlite3_extended_result_codes(st->db, 1);
	busy_wait_set(st, 1);
	/* page_size only takes effect on a new, empty file (before WAL is
	 * set): 16 KiB pages measured ~20% faster for bulk entry ingest with
	 * the durable commit than 4 KiB.  journal_mode is persistent; setting
	 * it again is cheap.  synchronous FULL: a 2xx from the service must
	 * mean the upload is durable. */
	if ((rc = exec_sql(st, "PRAGMA page_size=16384", "setting the page size")) < 0)
		goto done;
	if ((rc = set_wal(st)) < 0)
		goto done;
	if ((rc = exec_sql(st,
	                   "PRAGMA synchronous=FULL;"
	                   "PRAGMA foreign_keys=ON;"
	                   "PRAGMA cache_size=-8192;"
	                   "PRAGMA temp_store=MEMORY;",
	                   "setting pragmas")) < 0)
		goto done;
	if ((rc = store_keymatch_register(st)) < 0)
		goto done;
	if ((rc = migrate(st)) < 0)
		goto done;
	*out = st;
	st = NULL;
	rc = 0;
done:
	if (st) {
		if (errlen)
			snprintf(err, errlen, "%s: %s", db_path, st->errmsg);
		store_close(st);
	}
	return rc;
}

/* PostgreSQL: connect, then bring the schema up to date under the
 * migration lock (store/pg/migrate.c); the database must exist. */
static int open_pg(const char *url, struct store **out, char *err, size_t errlen)
{
	int rc = store_open_pg_conn(url, out, err, errlen);
	if (rc < 0)
		return rc;
	if ((rc = store_pg_migrate((*out)->pg, NULL)) < 0) {
		if (errlen)
			snprintf(err, errlen, "%s", store_pg_errmsg((*out)->pg));
		store_close(*out);
		*out = NULL;
	}
	return rc;
}

int store_open(const char *target, struct store **out, char *err, size_t errlen)
{
	if (store_is_pg_url(target))
		return open_pg(target, out, err, errlen);
	return open_with(target, 1, out, err, errlen);
}

int store_open_existing(const char *target, struct store **out, char *err, size_t errlen)
{
	if (store_is_pg_url(target))
		return open_pg(target, out, err, errlen);
	return open_with(target, 0, out, err, errlen);
}

void store_set_job_owner(struct store *st, const char *owner, int64_t lease_ms)
{
	snprintf(st->owner, sizeof st->owner, "%s", owner ? owner : "");
	st->lease_ms = lease_ms;
}

int store_file_replaced(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return 0; /* no file: the server keeps the database */
	/* the unix VFS compares the inode it opened with a stat() of the
	 * path; a missing file counts as moved */
	int moved = 0;
	if (sqlite3_file_control(st->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
		return 0;
	return moved != 0;
}

void store_pg_errcopy(struct store *st)
{
	snprintf(st->errmsg, sizeof st->errmsg, "%s", store_pg_errmsg(st->pg));
}

/* PostgreSQL: a primary (not a standby in recovery) that lets this role
 * write: one row of schema_migrations rewritten unchanged and rolled
 * back, with a lock timeout (a migration holding it proves writes). */
static int pg_check_writable(struct store *st)
{
	if (store_in_tx(st))
		return 0;
	struct store_q *q = store_prep_as(st, "SELECT pg_is_in_recovery()", "checking recovery");
	if (!q)
		return STORE_ERROR;
	int rc = store_q_step(q), standby = rc == STORE_Q_ROW && store_q_col_int(q, 0);
	store_q_done(q);
	if (rc != STORE_Q_ROW)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "checking recovery");
	if (standby)
		return store_fail(st, STORE_ERROR,
		                  "the database server is a standby in recovery (read-only): "
		                  "point --db at the primary");
	if ((rc = store_tx_begin(st)) < 0)
		return rc;
	if ((rc = store_pg_tx_cmd(st, "SET LOCAL lock_timeout = '2s'", "taking a row lock")) == 0 &&
	    (q = store_prep_as(st,
	                       "UPDATE schema_migrations SET name = name WHERE version = "
	                       "(SELECT max(version) FROM schema_migrations)",
	                       "writing a test row"))) {
		rc = store_q_step(q);
		store_q_done(q);
		if (rc == STORE_BUSY)
			rc = STORE_Q_DONE; /* someone holds the row: writes happen */
		rc = rc == STORE_Q_DONE ? 0 : store_q_fail(st, rc, "writing a test row");
	} else if (rc == 0) {
		rc = STORE_ERROR;
	}
	char keep[sizeof st->errmsg];
	memcpy(keep, st->errmsg, sizeof keep);
	store_tx_rollback(st);
	memcpy(st->errmsg, keep, sizeof keep);
	return rc;
}

int store_check_writable(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return pg_check_writable(st);
	if (!sqlite3_get_autocommit(st->db))
		return 0;
	/* no waiting: a health check must not block behind a long insert,
	 * and a lock held by another writer proves writes are happening */
	busy_wait_set(st, 0);
	int src = sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	busy_wait_set(st, 1);
	if (src == SQLITE_OK) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return 0;
	}
	if ((src & 0xff) == SQLITE_BUSY || (src & 0xff) == SQLITE_LOCKED)
		return 0;
	return store_sqlfail(st, src, "taking the write lock");
}

void store_close(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < SID_COUNT; i++) {
		sqlite3_finalize(st->stmts[i]);
		store_q_free(st->qs[i]);
	}
	store_pg_close(st->pg);
	if (st->db) {
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(st->db);
	}
	free(st);
}

/* ---- transactions -------------------------------------------------------- */

/* Foreign keys back on once a bulk transaction ended (store_tx_begin_bulk).
 * Quiet: the caller's error text stays; should the PRAGMA fail, the next
 * store_tx_begin tries again. */
static void fk_restore(struct store *st)
{
	if (!st->fk_off || !sqlite3_get_autocommit(st->db))
		return;
	if (sqlite3_exec(st->db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL) == SQLITE_OK)
		st->fk_off = 0;
}

int store_tx_begin(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return store_pg_tx_cmd(st, "BEGIN", "begin");
	fk_restore(st);
	return exec_sql(st, "BEGIN IMMEDIATE", "begin");
}

/* PRAGMA foreign_keys is a no-op inside a transaction: it is switched
 * before BEGIN and after the transaction ended.  PostgreSQL: a plain
 * BEGIN (store/BACKENDS.md: the entries have no FK there). */
int store_tx_begin_bulk(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return store_pg_tx_cmd(st, "BEGIN", "begin");
	int rc = exec_sql(st, "PRAGMA foreign_keys=OFF", "bulk begin");
	if (rc < 0)
		return rc;
	st->fk_off = 1;
	if ((rc = exec_sql(st, "BEGIN IMMEDIATE", "begin")) < 0)
		fk_restore(st);
	return rc;
}

int store_tx_try_begin_bulk(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return store_fail(st, STORE_INVALID, "no early write transaction on PostgreSQL");
	busy_wait_set(st, 0);
	int rc = store_tx_begin_bulk(st);
	busy_wait_set(st, 1);
	return rc;
}

int store_tx_commit(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG) {
		int rc = store_pg_tx_cmd(st, "COMMIT", "commit");
		if (rc < 0 && store_in_tx(st)) {
			char keep[sizeof st->errmsg];
			memcpy(keep, st->errmsg, sizeof keep);
			store_pg_tx_cmd(st, "ROLLBACK", "rollback");
			memcpy(st->errmsg, keep, sizeof keep);
		}
		return rc;
	}
	int rc = exec_sql(st, "COMMIT", "commit");
	/* a failed COMMIT (e.g. BUSY) leaves the transaction open: end it so
	 * the connection is usable; the caller reports the failure */
	if (rc < 0 && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	fk_restore(st);
	return rc;
}

int store_tx_rollback(struct store *st)
{
	if (st->backend == STORE_BACKEND_PG)
		return store_in_tx(st) ? store_pg_tx_cmd(st, "ROLLBACK", "rollback") : 0;
	int rc = 0;
	if (!sqlite3_get_autocommit(st->db))
		rc = exec_sql(st, "ROLLBACK", "rollback");
	fk_restore(st);
	return rc;
}

int store_tx_auto(struct store *st, int *owned)
{
	*owned = 0;
	if (store_in_tx(st))
		return 0;
	int rc = store_tx_begin(st);
	if (rc == 0)
		*owned = 1;
	return rc;
}

int store_tx_end_owned(struct store *st, int owned, int rc)
{
	if (!owned)
		return rc;
	if (rc < 0) {
		char keep[sizeof st->errmsg];
		memcpy(keep, st->errmsg, sizeof keep);
		store_tx_rollback(st);
		memcpy(st->errmsg, keep, sizeof keep);
		return rc;
	}
	return store_tx_commit(st);
}

/* ---- lists --------------------------------------------------------------- */

int store_clamp_limit(int limit)
{
	if (limit <= 0)
		return 50;
	return limit > 1000 ? 1000 : limit;
}

int store_cursor_parse(struct store *st, const char *cursor, char tag, int64_t *v, int n)
{
	if (!cursor || !cursor[0])
		return 1;
	const char *p = cursor;
	if (*p++ != tag)
		goto bad;
	for (int i = 0; i < n; i++) {
		if (i > 0 && *p++ != '.')
			goto bad;
		if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1]))))
			goto bad;
		char *end;
		errno = 0;
		long long x = strtoll(p, &end, 10);
		if (errno || end == p)
			goto bad;
		v[i] = x;
		p = end;
	}
	if (*p)
		goto bad;
	return 0;
bad:
	return store_fail(st, STORE_BAD_CURSOR, "invalid cursor (use next_cursor from a response)");
}

void store_cursor_text(char tag, const int64_t *v, int n, char out[64])
{
	size_t len = 0;
	out[len++] = tag;
	out[len] = 0;
	/* at most 3 numbers of 20 characters fit in 64 bytes */
	for (int i = 0; i < n && i < 3; i++)
		len += (size_t)snprintf(out + len, 64 - len, "%s%lld", i ? "." : "",
		                        (long long)v[i]);
}

void *store_arena_grow(struct arena *a, void *v, size_t n, size_t *cap, size_t sz)
{
	if (n < *cap)
		return v;
	size_t ncap = *cap ? *cap * 2 : 8;
	void *nv = arena_alloc(a, ncap * sz);
	if (!nv)
		return NULL;
	if (n)
		memcpy(nv, v, n * sz);
	*cap = ncap;
	return nv;
}

int store_q_page_walk(struct store *st, struct store_q *q, int limit, char tag, const int *key_cols,
                      int n_keys,
                      int (*item_fn)(struct store *st, struct store_q *q, void *ctx, size_t *bytes),
                      void (*drop_fn)(void *ctx), void *ctx, const char *what, char next_cursor[64])
{
	int64_t last[4] = {0, 0, 0, 0};
	int rc = 0, src, n = 0, more = 0;
	size_t bytes = 0;
	next_cursor[0] = 0;
	if (n_keys > 3) {
		store_q_done(q);
		return store_fail(st, STORE_ERROR, "too many cursor keys");
	}
	while ((src = store_q_step(q)) == STORE_Q_ROW) {
		if (n == limit) {
			more = 1;
			break;
		}
		/* the item's share of the page, plus its separating comma */
		size_t sz = 1;
		if ((rc = item_fn(st, q, ctx, &sz)) < 0)
			goto done;
		if (n > 0 && bytes + sz > STORE_PAGE_BYTES) {
			drop_fn(ctx);
			more = 1;
			break;
		}
		bytes += sz;
		for (int k = 0; k < n_keys; k++)
			last[k] = store_q_col_i64(q, key_cols[k]);
		n++;
	}
	if (src != STORE_Q_ROW && src != STORE_Q_DONE) {
		rc = store_q_fail(st, src, what);
		goto done;
	}
	if (more)
		store_cursor_text(tag, last, n_keys, next_cursor);
done:
	store_q_done(q);
	return rc;
}
