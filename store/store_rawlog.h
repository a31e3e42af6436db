/* store_rawlog.h - the raw-log store (included by store.h): the bytes a
 * client uploaded, content-addressed by the SHA-256 (64 lowercase hex
 * digits) of those bytes, so two uploads of one file share one stored
 * copy.  One interface, two implementations chosen by the database of the
 * struct store passed to each call:
 *   - SQLite: files under <data>/raw/<aa>/<sha256>[.gz] (store/rawlog_files.c;
 *     the lifetime rule, the raw-file clock and the quarantine are
 *     explained at its top);
 *   - PostgreSQL: rows of raw_blobs / raw_chunks in the database, written
 *     by the upload's own transaction (store/pg/rawlog.c over
 *     store/pg/blobs.c); <data> holds only temp files there.
 * The stored form is either the content as it came (a gzip upload, and
 * files from before compression) or one gzip member of it (everything
 * else; always on PostgreSQL).
 *
 * The store never writes to the daemon's log itself: what an operator
 * should read (a quarantined file, a file that cannot be removed, a read
 * error) goes to the log callback given to store_rawlog_new, one sentence
 * per call. */
#ifndef PARITY_STORE_RAWLOG_H
#define PARITY_STORE_RAWLOG_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct store;

/* The configuration of a raw-log store: its directories and log callback.
 * Shared, read-only, by every thread and connection. */
struct store_rawlog;

/* A raw-log store over data_dir: raw files in data_dir/raw, temp files in
 * data_dir/tmp, quarantined files in data_dir/quarantine (nothing is
 * created here).  log (may be NULL) receives the sentences described
 * above, with log_ctx.  NULL when out of memory. */
struct store_rawlog *store_rawlog_new(const char *data_dir, void (*log)(void *ctx, const char *msg),
                                      void *log_ctx);
void store_rawlog_free(struct store_rawlog *rl);

/* The directories of a raw-log store (borrowed, valid while rl lives). */
enum store_rawlog_dir {
	STORE_RAWLOG_RAW,       /* <data>/raw: the stored files (SQLite) */
	STORE_RAWLOG_TMP,       /* <data>/tmp: uploads being received */
	STORE_RAWLOG_QUARANTINE /* <data>/quarantine: files no database vouches for */
};
const char *store_rawlog_dir(const struct store_rawlog *rl, enum store_rawlog_dir which);

/* ---- put ------------------------------------------------------------------ */

/* Store the finished temp file tmp_path (under the tmp directory) as the
 * raw log sha256, inside db's open write transaction (store_tx_begin or
 * store_tx_begin_bulk): the log rows that reference it commit with it.
 * gz: tmp_path holds one gzip member of the content, whose size is bytes;
 * else tmp_path holds the content as it is.  When the content is stored
 * already (in either form), that copy is re-used and tmp_path dropped.
 * On success tmp_path is gone (moved or removed).
 *   SQLite: the file is fsync'ed already (the caller did); it is renamed
 *   into place (the directory fsync'ed) and the raw-file clock raised in
 *   the transaction; *created = 1 when this call renamed it in: after a
 *   failed commit, store_rawlog_release(..., own = 1) takes it back.
 *   PostgreSQL: its bytes become rows of the transaction (a gzip member as
 *   it is, else deflated now); a rollback leaves nothing; *created = 0.
 * 0; STORE_IO when a file could not be read, written or moved (logged);
 * else the database's STORE_* code (store_errmsg). */
int store_rawlog_put_file(const struct store_rawlog *rl, struct store *db, const char *sha256,
                          const char *tmp_path, int gz, int64_t bytes, int *created);

/* ---- read ----------------------------------------------------------------- */

/* What store_rawlog_open found. */
struct store_rawlog_info {
	int gz;           /* the stored form is one gzip member of the content */
	int content_gzip; /* the content itself starts with the gzip magic (a gzip upload) */
	int64_t bytes;    /* content size; -1 when the store does not record it (a plain
	                   * file is its content: zbytes; a .gz file: the log's raw_bytes) */
	int64_t zbytes;   /* stored size */
	char path[4400];  /* the stored form is this file (SQLite), else "" */
};

/* A reader of a stored form, piece by piece. */
struct store_rawlog_reader;

/* Where a reader takes a database connection for each piece it fetches
 * (PostgreSQL: one short statement per chunk, so a reader that pauses, as
 * an HTTP response does, holds no connection meanwhile).  acquire may
 * return NULL (the read then fails); release gives the connection back. */
struct store_rawlog_conns {
	struct store *(*acquire)(void *ctx);
	void (*release)(void *ctx, struct store *db);
	void *ctx;
};

/* Open the raw log sha256: *info, and when out is not NULL *out, a reader
 * of its stored form from the first byte (free with
 * store_rawlog_reader_free).  conns may be NULL when out is NULL.
 * STORE_NOT_FOUND when nothing is stored under sha256, STORE_IO when its
 * file cannot be opened, else a STORE_* code (store_errmsg(db)). */
int store_rawlog_open(const struct store_rawlog *rl, struct store *db, const char *sha256,
                      const struct store_rawlog_conns *conns, struct store_rawlog_info *info,
                      struct store_rawlog_reader **out);
/* The next piece of the stored form: 1 and *data / *n (borrowed until the
 * next call; n > 0), 0 at its end, or < 0 on an error (logged). */
int store_rawlog_read(struct store_rawlog_reader *r, const void **data, size_t *n);
void store_rawlog_reader_free(struct store_rawlog_reader *r);

/* The raw log sha256 whole, as a mail attaches it, into out (appended)
 * when it fits max bytes: its stored form, except that a gzip upload
 * stored compressed (PostgreSQL) is its content, the gzip file as it came.
 * *gz = 1 when the stored form is a gzip member of the content and out
 * holds (or, too large, would hold) that, else 0 (also when missing).
 * 0, 1 when it is larger than max (out unchanged), or < 0 (missing or
 * unreadable). */
int store_rawlog_get(const struct store_rawlog *rl, struct store *db, const char *sha256,
                     uint64_t max, struct buf *out, int *gz);

/* ---- release, sweep, gc --------------------------------------------------- */

/* What a release, sweep or gc removed and quarantined. */
struct store_rawlog_tally {
	size_t removed, quarantined;
	int64_t removed_bytes, quarantined_bytes;
};

/* The raw logs among shas (a NULL-terminated list, e.g. from
 * store_run_delete; NULL or empty is a no-op) that no log references any
 * more, checked under the database's write lock.
 *   SQLite: each such file is deleted when the raw-file clock vouches for
 *   it, else moved to the quarantine directory (logged).  own = 1: files
 *   this caller stored moments ago (an upload undoing its failed commit)
 *   are deleted without that check.  t (may be NULL) adds up what was done.
 *   PostgreSQL: 0 at once; `parity gc` collects unreferenced raw logs
 *   (store_rawlog_gc).
 * 0, or < 0 (logged; the files are left for the next sweep). */
int store_rawlog_release(const struct store_rawlog *rl, struct store *db, char *const *shas,
                         int own, struct store_rawlog_tally *t);
/* Every stored raw log no log references, released as above a batch at a
 * time (each batch one short write transaction); dry_run only counts
 * into t, taking no lock and changing nothing.  PostgreSQL: 0 at once. */
int store_rawlog_sweep_unreferenced(const struct store_rawlog *rl, struct store *db, int dry_run,
                                    struct store_rawlog_tally *t);
/* Start-up: empty the tmp directory (uploads that never finished), then,
 * when db is not NULL, store_rawlog_sweep_unreferenced (a crash between
 * storing and commit, or between a delete and its release; or a database
 * that lost its raw logs) and log what it removed and quarantined. */
void store_rawlog_sweep(const struct store_rawlog *rl, struct store *db);
/* `parity gc`, after deleting runs: every raw log no log references goes.
 * SQLite: store_rawlog_sweep_unreferenced.  PostgreSQL: one transaction
 * under the blob gc lock deletes the unreferenced raw_blobs
 * (store_raw_blobs_gc); t->removed / removed_bytes count them.  dry_run
 * only counts.  0, or < 0 (store_errmsg(db) for the database's errors). */
int store_rawlog_gc(const struct store_rawlog *rl, struct store *db, int dry_run,
                    struct store_rawlog_tally *t);

#endif
