/* upload.h - streaming intake of POST /runs: multipart (field `log`,
 * repeatable, plus name/kind/rank/meta) or a raw body (fields from the
 * query string).  Each log is written to a temp file under <data>/tmp while
 * its SHA-256 is computed, gzip is inflated on the fly (ratio-bounded) and
 * the decoded text runs through the parser, so bad input is refused as it
 * arrives; a log that is not gzip already is also compressed as it
 * arrives into the file that will be stored (<sha256>.gz, store_rawlog.h), and
 * the parser's records go to a spool file (spool.h).  srv_upload_commit
 * then stores the run in one short transaction that replays those
 * records: the write lock is held for the insert only, never while a slow
 * client trickles its body in.  Anything unfinished is removed by
 * srv_upload_free, so a refused or broken upload leaves nothing behind.
 * A log's temp files are closed when its part ends (the one to be stored
 * fsync'ed), so a request holds at most two temp fds at a time; at most
 * 1024 logs per request (more: 400 too_many_logs).
 * PostgreSQL (--db): the same streaming, but the temp files stay scratch
 * (no fsync): the commit's transaction writes each raw log as rows (its
 * compressed temp copy as it is; store_rawlog_put_file) and the entries
 * in bulk (store_entries_*: a COPY).  A failed commit rolls all of it
 * back; a 2xx means the database committed it. */
#ifndef PARITY_UPLOAD_H
#define PARITY_UPLOAD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct srv;
struct srv_req;
struct upload;

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
 * s->tmp_dir; limits come from s->cfg (max_upload, max_inflate_ratio,
 * max_line). */
struct upload *srv_upload_start(struct srv *s, struct srv_req *r, int multipart,
                                const struct srv_upload_fields *f, unsigned *status, json_t **err);
/* One piece of a form part, as libmicrohttpd's post processor reports it:
 * key (NULL = ignored), the part's file name (may be NULL), its bytes and
 * their offset in the part (0 starts a part).  Fields: log (repeatable),
 * name, kind, rank (repeatable), meta; anything else is refused.  0, or -1
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

/* Rank from a file name: "rank_3_activations.log" -> 3; -1 when none. */
int srv_rank_from_filename(const char *name);

#endif
