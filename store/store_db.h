/* store_db.h - part of store.h, which includes it (include store.h, never
 * this file alone): opening a database, transactions and connection-level
 * settings (store/db.c). */
#ifndef PARITY_STORE_DB_H
#define PARITY_STORE_DB_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- setup (store/db.c) ------------------------------------------------ */

/* target is a SQLite file path, or a postgresql:// (postgres://) URL
 * (store_is_url): then the database must exist; the call connects and
 * applies pending PostgreSQL migrations under an advisory lock
 * (store/pg/migrate.c), so several daemons may start at once.
 * SQLite: open (creating if needed) the database file at db_path, set the
 * connection pragmas, apply pending embedded migrations (each in its own
 * BEGIN IMMEDIATE, re-checking user_version inside, so concurrent opens
 * from several threads/processes are safe) and register REGEXP (the key
 * filter matcher, only usable inside the key-filtered reads).
 * On success *out is a new handle (store_close).  On failure *out is NULL,
 * a sentence is written to err (errlen bytes, may be 0) and the code is
 * returned: STORE_TOO_NEW when the file's schema version is above the
 * highest embedded migration, STORE_BUSY, STORE_ERROR. */
int store_open(const char *target, struct store **out, char *err, size_t errlen);
/* store_open for a database that must already exist: a missing file is
 * an error (STORE_ERROR), never a new empty database.  The daemon's
 * connection pool uses it, so a database deleted under the running daemon
 * is not silently replaced by an empty one. */
int store_open_existing(const char *target, struct store **out, char *err, size_t errlen);
/* Finalize every cached statement and close.  NULL is a no-op.  A still
 * open transaction is rolled back. */
void store_close(struct store *st);
/* Last error sentence of this connection; borrowed, valid until the next
 * store call on st.  Never NULL. */
const char *store_errmsg(const struct store *st);
/* Schema version of the open database (PRAGMA user_version). */
int store_schema_version(struct store *st);
/* 1 when the file at the path this connection was opened with is no
 * longer the file it has open (deleted, renamed or replaced: its writes
 * would go to a file nobody will find), else 0.  One stat(); cheap. */
int store_file_replaced(struct store *st);
/* Whether this connection can write: takes the write lock without waiting
 * (BEGIN IMMEDIATE) and rolls back at once, writing nothing.  0 when it
 * can, or when another connection holds the lock (someone is writing);
 * STORE_ERROR with errmsg when the database is read-only or the lock
 * cannot be taken for another reason.  0 as well inside an open
 * transaction (the lock is held).  Cheap enough for a health check. */
int store_check_writable(struct store *st);

/* Explicit write transactions.  begin = BEGIN IMMEDIATE (takes the write
 * lock now, waiting up to the busy timeout: STORE_BUSY).  Functions that
 * write several rows open their own transaction only when none is open. */
int store_tx_begin(struct store *st);
/* store_tx_begin for a bulk ingest that only adds rows under parents it
 * creates itself in the same transaction (a run, its logs, their entries):
 * the per-row foreign-key checks are skipped (they cost ~8 % of an entry
 * insert and cannot fail there); store_tx_commit or store_tx_rollback turns
 * them back on.  Only for writes whose references all point at rows of
 * the same transaction (the write lock keeps anything else away). */
int store_tx_begin_bulk(struct store *st);
/* store_tx_begin_bulk without waiting: STORE_BUSY at once when another
 * connection holds the write lock.  SQLite only (STORE_INVALID on
 * PostgreSQL): for work that is worth doing early only while nobody else
 * needs the lock (server/ingest/stage.c). */
int store_tx_try_begin_bulk(struct store *st);
/* Call wait(ctx) each time this connection starts waiting for a lock
 * another connection holds (SQLite's busy handler; the wait itself is as
 * before, up to the busy timeout); wait runs on the waiting thread and must
 * only signal.  NULL turns it off.  No-op on PostgreSQL. */
void store_on_busy(struct store *st, void (*wait)(void *ctx), void *ctx);
int store_tx_commit(struct store *st);
/* Always safe to call; 0 when nothing was open. */
int store_tx_rollback(struct store *st);

#endif
