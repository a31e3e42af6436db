/* store_retention.h - part of store.h, which includes it (include store.h,
 * never this file alone): retention: gc candidates, the raw-file clock,
 * backup and the gc lock (store/retention.c). */
#ifndef PARITY_STORE_RETENTION_H
#define PARITY_STORE_RETENTION_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- retention (store/retention.c) -------------------------------------- */

/* Ids for `parity gc`: finished comparisons created before cutoff (an RFC
 * 3339 UTC text like "2026-11-01T00:00:00Z"), and runs created before it
 * that no other comparison references (queued/running/newer ones keep
 * their runs) and no golden baseline names, now or in its history.  Arrays malloc'd (free());
 * counts may be 0. */
int store_gc_candidates(struct store *st, const char *cutoff, int64_t **cmp_ids, size_t *n_cmp,
                        int64_t **run_ids, size_t *n_runs);
/* Sum of the raw upload sizes of a run's logs. */
int store_run_raw_bytes(struct store *st, int64_t run_id, int64_t *bytes);
/* The raw-file clock (migration 004, rule in store/rawlog_files.c), in
 * milliseconds since the Unix epoch: *born_at_ms, when this database was
 * created (0 = unknown), and *stored_at_ms, the latest commit that stored
 * or re-used a raw file (-1 = none yet).  A database without the record
 * reads as born 0, stored -1. */
int store_raw_clock(struct store *st, int64_t *born_at_ms, int64_t *stored_at_ms);
/* Raise stored_at_ms to at least at_ms (never lowers it).  Call inside the
 * write transaction that references the raw file, after its mtime was
 * set. */
int store_raw_clock_stored(struct store *st, int64_t at_ms);
/* Consistent online copy of the whole database to dest_path (written as
 * dest_path.partial, then renamed), with SQLite's backup API: safe while
 * the daemon writes.  The copy is a standalone rollback-journal file. */
int store_backup(struct store *st, const char *dest_path);
/* One gc at a time per database: 1 when this connection holds the gc lock
 * now (PostgreSQL: an advisory lock, kept until the connection closes;
 * SQLite: always 1, its write lock serializes), 0 when another gc holds
 * it, or a STORE_* code.  PostgreSQL: store_backup refuses (STORE_INVALID)
 * and says to use pg_dump. */
int store_gc_lock(struct store *st);
/* PostgreSQL: delete the raw logs (raw_blobs with their chunks) that no
 * log references any more; *n blobs and *bytes stored bytes freed (with
 * dry_run: only counted).  SQLite (raw files: store_rawlog_gc): 0,
 * nothing done. */
int store_raw_blobs_gc(struct store *st, int dry_run, int64_t *n, int64_t *bytes);

#endif
