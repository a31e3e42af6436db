/* ingest.h - the ingest room of server/: POST /runs from the first body
 * byte to the committed run.  The upload body sink (upload.c: multipart or
 * raw bodies, several files = ranks, meta), the spool that parses while
 * bytes arrive (spool.c), the gzip pipe (gzpipe.c), the insert stage
 * that stores entries while the body streams (stage.c), the raw-log files
 * (blobs.c), the run meta of the upload form (meta.c) and the storage
 * health check (health.c).  Uses http and base. */
#ifndef PARITY_SRV_INGEST_H
#define PARITY_SRV_INGEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "actlog.h"
#include "http.h"
#include "trainlog.h"

struct srv;
struct srv_req;
struct upload;
struct srv_spool;
struct srv_gzpipe;
struct store;

/* upload.c: streaming intake of POST /runs: multipart (field `log`,
 * repeatable, plus name/kind/rank/meta) or a raw body (fields from the
 * query string).  Each log is written to a temp file under <data>/tmp while
 * its SHA-256 is computed, gzip is inflated on the fly (ratio-bounded) and
 * the decoded text runs through the parser, so bad input is refused as it
 * arrives; a log that is not gzip already is also compressed as it
 * arrives into the file that will be stored (<sha256>.gz, store_rawlog.h), and
 * the parser's records go to a spool file (ingest.h).  srv_upload_commit
 * then stores the run in one short transaction that replays those
 * records: the write lock is held for the insert only, never while a slow
 * client trickles its body in.  (A fast activation upload on SQLite has
 * its records inserted by the insert stage while it streams, in the
 * transaction the commit then finishes; the stage holds the lock only
 * while no other writer waits for it: stage.c.)  Anything unfinished is removed by
 * srv_upload_free, so a refused or broken upload leaves nothing behind.
 * A log's temp files are closed when its part ends (the one to be stored
 * fsync'ed), so a request holds at most two temp fds at a time; at most
 * 1024 logs per request (more: 400 too_many_logs).
 * PostgreSQL (--db): the same streaming, but the temp files stay scratch
 * (no fsync): the commit's transaction writes each raw log as rows (its
 * compressed temp copy as it is; store_rawlog_put_file) and the entries
 * in bulk (store_entries_*: a COPY).  A failed commit rolls all of it
 * back; a 2xx means the database committed it. */

/* Start an upload for request r (headers known): multipart/form-data
 * bodies go through libmicrohttpd's post processor into
 * srv_upload_form_data, any other body is one log with its fields from
 * the query string.  NULL with *status and *err (new reference) set when
 * the request is refused up front. */
struct upload *srv_upload_new(struct srv_req *r, unsigned *status, json_t **err);

/* The fields of a raw-body upload (NULL = absent). */
struct srv_upload_fields {
	const char *name, *meta, *kind, *rank, *filename;
};
/* The same without libmicrohttpd (srv_upload_new calls it; tests and the
 * fuzzer call it directly): r may be NULL, and then the upload can be
 * settled but not committed.  multipart: the body arrives as form parts
 * through srv_upload_form_data (f is ignored); else the body is one log
 * fed with srv_upload_feed and f holds its fields.  Temp files go to
 * the raw-log store's tmp directory (s->raw); limits come from s->cfg (max_upload,
 * max_inflate_ratio, max_line). */
struct upload *srv_upload_start(struct srv *s, struct srv_req *r, int multipart,
                                const struct srv_upload_fields *f, unsigned *status, json_t **err);
/* One piece of a form part, as libmicrohttpd's post processor reports it:
 * key (NULL = ignored), the part's file name (may be NULL), its bytes and
 * their offset in the part (0 starts a part).  Fields: log (repeatable),
 * name, kind, rank (repeatable), meta, and beside msprobe dumps stack and
 * construct (repeatable, msprobe_side.c); anything else is refused.  0, or -1
 * when the upload is refused (the error comes from settle or commit). */
int srv_upload_form_data(struct upload *u, const char *key, const char *filename, const char *data,
                         uint64_t off, size_t size);
/* Consume a body chunk.  0, or -1 with *status and *err set. */
int srv_upload_feed(struct upload *u, const char *data, size_t n, unsigned *status, json_t **err);
/* Stop processing (after an error); temp files are removed now. */
void srv_upload_abort(struct upload *u);
/* Body complete: finish every part and field and validate the whole
 * upload (kinds, ranks, name, meta) without storing anything.  0, or -1
 * with *status and *err set.  Calling it again returns the same verdict
 * (the error only once). */
int srv_upload_settle(struct upload *u, unsigned *status, json_t **err);
/* Settle, then store the run, move raw files into place.
 * 0 and *run_id set, or -1 with *status and *err set (nothing stored). */
int srv_upload_commit(struct upload *u, int64_t *run_id, unsigned *status, json_t **err);
void srv_upload_free(struct upload *u);

/* What a settled upload holds, per log in arrival order (tests, fuzzing). */
struct srv_upload_log_info {
	int rank;
	int kind; /* enum matcher_kind */
	uint64_t raw_bytes;
	char sha256[65]; /* hex of the raw bytes */
	/* the raw bytes on disk; NULL once moved or removed, and for a
	 * compressed log once its records spool (its plain copy is deleted) */
	const char *tmp_path;
	/* the raw bytes gzip-compressed (the file to be stored as <sha256>.gz);
	 * NULL for a gzip upload (stored as it came) or once moved */
	const char *gz_path;
	uint64_t gz_bytes; /* its size */
	uint64_t n_items;  /* entries (activation) or steps (training) */
};
size_t srv_upload_n_logs(const struct upload *u);
/* 0, or -1 when i is out of range. */
int srv_upload_log_info(const struct upload *u, size_t i, struct srv_upload_log_info *out);

/* Rank from a file name: "rank_3_activations.log" -> 3,
 * "nvdlfw_inspect_globalrank-2.log" -> 2; -1 when none. */
int srv_rank_from_filename(const char *name);

/* msprobe_side.c: the files beside msprobe dumps in a multipart upload,
 * fields `stack` (stack.json) and `construct` (construct.json), the k-th
 * of each belonging to the k-th dump.  struct srv_msprobe_side is created
 * by the first such part. */
struct srv_msprobe_side;
struct matcher_msprobe_stack;
/* A piece of a form part (as srv_upload_form_data gets it): 1 when key is
 * `stack` or `construct` (buffered), 0 when it is another field, -1 with
 * *status and *err set (413 over the size limit, 503 OOM). */
int srv_msprobe_side_field(struct srv_msprobe_side **side, const char *key, const char *data,
                           uint64_t off, size_t size, unsigned *status, json_t **err);
/* The body is complete and holds n_dumps msprobe dumps: parse the stack
 * files, check the construct files.  0, or -1 with *status and *err (400
 * naming the part and jansson's line and column or the key). */
int srv_msprobe_side_settle(struct srv_msprobe_side *side, size_t n_dumps, unsigned *status,
                            json_t **err);
/* The locations of the k-th dump (NULL: none sent). */
const struct matcher_msprobe_stack *srv_msprobe_side_stack(const struct srv_msprobe_side *side,
                                                           size_t k);
void srv_msprobe_side_free(struct srv_msprobe_side *side);
/* Entry e with its location from st (when e has none and st knows its
 * key): 1 and *copy set (strings borrowed), else 0. */
int srv_msprobe_locate(const struct matcher_msprobe_stack *st, const struct matcher_entry *e,
                       struct matcher_entry *copy);

/* The body sink of POST /runs (routes.c puts it in the route). */
extern const struct srv_body_sink srv_upload_sink;

/* spool.c: the parser's records of one uploaded log, written to a temp
 * file while the body streams in and replayed by the commit, so a log is
 * parsed once: the insert transaction (which holds the write lock) reads
 * compact records instead of reading and parsing the log again.
 *
 * Format (private to this file pair, never kept past the upload): records
 * of u32 payload length, u8 type, payload; strings are u32 length
 * (UINT32_MAX = NULL) and the bytes plus a NUL.  Native byte order.
 * Memory: the writer buffers up to 256 KiB; the reader holds one record
 * (grown to the largest one, bounded by the parser's line limit). */

/* Write all n bytes to fd, retrying short writes and EINTR (the upload's
 * temp files: spool, compressed copy, plain copy).  0, or -1 with errno
 * set. */
int srv_write_all(int fd, const void *data, size_t n);

/* A writer into fd (owned from here on: closed by srv_spool_free).  NULL
 * on OOM (fd left open). */
struct srv_spool *srv_spool_new(int fd);
/* Append one record (every pointer is copied).  0, or -1 when the file
 * cannot be written (errno set: ENOSPC etc.). */
int srv_spool_header(struct srv_spool *sp, const struct matcher_actlog_header *h);
int srv_spool_entry(struct srv_spool *sp, const struct matcher_entry *e);
int srv_spool_step(struct srv_spool *sp, const struct matcher_step_record *r);
int srv_spool_warning(struct srv_spool *sp, const struct matcher_warning *w);
/* Call flushed(ctx, bytes, final) each time the file has grown, on the
 * writer's thread: bytes (a record boundary) are in the file and may be
 * read (srv_spool_reader_run); final = 1 once from srv_spool_finish when
 * the file is complete. */
void srv_spool_on_flush(struct srv_spool *sp, void (*flushed)(void *ctx, uint64_t bytes, int final),
                        void *ctx);
/* Write out what is buffered and close the file.  0, or -1 (errno set). */
int srv_spool_finish(struct srv_spool *sp);
/* Close (if still open) and free; NULL is a no-op. */
void srv_spool_free(struct srv_spool *sp);

/* Read the spool file at path and call the callbacks in the order the
 * records were written: act for header, entry and warning records of an
 * activation log, train for step and warning records of a training log
 * (either may be NULL when its records cannot occur).  Pointers passed
 * are valid during the call only.  0; -1 when the file cannot be read or
 * is damaged; -2 when a callback returned non-zero (replay stops). */
int srv_spool_replay(const char *path, const struct matcher_actlog_callbacks *act,
                     const struct matcher_trainlog_callbacks *train);
/* The same in steps, while the file is still being written (stage.c):
 * open (NULL when it cannot be read or on OOM); run replays the records
 * that lie whole in the file's first avail bytes and not replayed yet
 * (UINT64_MAX: up to its end), with run's codes; done is 1 when no part
 * of a record is left over.  Memory as srv_spool_replay's. */
struct srv_spool_reader;
struct srv_spool_reader *srv_spool_reader_open(const char *path);
int srv_spool_reader_run(struct srv_spool_reader *rd, uint64_t avail,
                         const struct matcher_actlog_callbacks *act,
                         const struct matcher_trainlog_callbacks *train);
int srv_spool_reader_done(const struct srv_spool_reader *rd);
void srv_spool_reader_free(struct srv_spool_reader *rd);

/* stage.c: the inserter, the store callbacks of every ingest path (a
 * log's records into its rows: header, entries in bulk, steps, warnings),
 * and the insert stage, which inserts an activation upload's spooled
 * records into SQLite while its body still streams in, on a thread of its
 * own, in a write transaction it takes only while nobody else wants the
 * lock (the rules are at the top of stage.c); the commit then finishes
 * that transaction instead of starting one.  Whenever the stage lets go,
 * the commit inserts as before: the stage only ever saves time. */
struct srv_inserter {
	struct store *db;
	int64_t log_id;
	int rc; /* the last store code of a callback */
	/* entries go in bulk (store_entries_*: a COPY on PostgreSQL), opened
	 * at the first entry and ended before any other statement (a header or
	 * a warning: at most MATCHER_MAX_WARNINGS_PER_CODE per code, so a log
	 * makes a bounded number of bulks) */
	struct store_entries *bulk;
	/* steps go in bulk too (store_steps_*: batches on PostgreSQL), opened
	 * at the first step record and ended as the entries are */
	struct store_steps *steps;
	/* an msprobe dump's locations (srv_msprobe_locate), else NULL */
	const struct matcher_msprobe_stack *stack;
};
void srv_inserter_init(struct srv_inserter *in, struct store *db, int64_t log_id);
/* Parser (or spool replay) callbacks inserting into in's log. */
struct matcher_actlog_callbacks srv_inserter_act(struct srv_inserter *in);
struct matcher_trainlog_callbacks srv_inserter_train(struct srv_inserter *in);
/* End the open entry bulk, if any.  fail = 0: 0 or a store code; fail = 1:
 * discard it (after a failure: nothing of it stays), 0. */
int srv_inserter_end(struct srv_inserter *in, int fail);

struct srv_stage;
/* Start the stage of an upload of at most max_logs logs (s's database
 * must be SQLite).  NULL when no thread can be started (the commit
 * inserts everything). */
struct srv_stage *srv_stage_start(struct srv *s, size_t max_logs);
/* Log i (0, 1, ... in order) has begun: its spool file (NULL when its
 * records are not the stage's: not an activation log, or not spooled; the
 * stage stops before it) and the client's file name (may be NULL).  Both
 * copied. */
void srv_stage_log(struct srv_stage *g, size_t i, const char *spool_path, const char *filename);
/* Log i's spool holds bytes now (final = 1: complete). */
void srv_stage_spooled(struct srv_stage *g, size_t i, uint64_t bytes, int final);
/* The body is complete and every log's spool final: wait for the stage.
 * 0 when it kept up: *db (the caller's from now, to release) holds an
 * open bulk transaction (store_tx_begin_bulk) with the run *run_id
 * (placeholder name, no meta) and logs [0, *n_logs) inserted with their
 * records and header, ids in (*log_ids)[i] (owned by g), placeholder rank,
 * size and digest; counts and identity are the caller's to set.  -1: it
 * let go (nothing held, nothing stored). */
int srv_stage_finish(struct srv_stage *g, struct store **db, int64_t *run_id,
                     const int64_t **log_ids, size_t *n_logs);
/* Stop (rolling back what it holds) and free; NULL is a no-op. */
void srv_stage_free(struct srv_stage *g);

/* gzpipe.c: gzip-compress a byte stream into a file on a helper thread,
 * so an upload's deflate runs beside its hashing and parsing instead of
 * after them (upload.c).  The first 256 KiB are deflated by the writer
 * itself (small logs need no thread); past that a thread starts, the
 * caller's bytes are copied into a 1 MiB ring it deflates from, and a full
 * ring makes the writer wait (the client is then sending faster than zlib
 * level RAW_GZ_LEVEL compresses).  Memory: zlib's state (~256 KiB at
 * memLevel 8), a 64 KiB output buffer and, threaded, the ring.  One
 * writer thread per pipe. */

/* Start compressing into fd (not owned, left open) at zlib level (one
 * gzip member).  NULL with errno set (ENOMEM, EAGAIN...). */
struct srv_gzpipe *srv_gzpipe_start(int fd, int level);
/* Queue n bytes (copied; waits while the ring is full).  0, or -1 with
 * errno set when the thread failed (a write error such as ENOSPC). */
int srv_gzpipe_write(struct srv_gzpipe *g, const void *data, size_t n);
/* End the member, wait for the thread to write it all, free the pipe.
 * *out_bytes: the compressed size.  0, or -1 with errno set. */
int srv_gzpipe_finish(struct srv_gzpipe *g, uint64_t *out_bytes);
/* Stop without finishing (what was written stays, incomplete), wait for
 * the thread, free.  NULL is a no-op. */
void srv_gzpipe_abort(struct srv_gzpipe *g);

/* ---- health.c --------------------------------------------------------- */

/* Health (health.c).  Whether the daemon can still store what it
 * acknowledges: <data>, <data>/raw and <data>/tmp accept new files, the
 * database file at its path is the one the daemon opened
 * (srv_db_pool_check), and the database can take the write lock.  0 when healthy, else -1 with a
 * short error code ("storage_unwritable", "database_missing", "database_replaced",
 * "database_unwritable", "database") in *code and a sentence in why.  A few syscalls and no write
 * to the database: cheap enough to poll.  Needs no connection of the caller's. */
int srv_health_check(struct srv *s, const char **code, char *why, size_t cap);
/* The directory part of srv_health_check (also run at start-up). */
int srv_storage_writable(const struct srv *s, char *why, size_t cap);

/* ---- meta.c ----------------------------------------------------------- */

/* A run's meta as the upload form writes it: text that does not start
 * with '{' is read as lines "key=value" (or "key: value"; blank lines
 * skipped, keys and values trimmed, a later key replaces an earlier one)
 * and meta is replaced by that JSON object's text.  JSON text is left as
 * it is.  0, or -1 with a sentence in msg (a line without '=' or ':', an
 * empty key, out of memory). */
int srv_meta_from_lines(struct buf *meta, char *msg, size_t cap);

#endif
