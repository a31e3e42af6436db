/* upload.h - streaming intake of POST /runs: multipart (field `log`,
 * repeatable, plus name/kind/rank/meta) or a raw body (fields from the
 * query string).  Each log is written to a temp file under <data>/tmp while
 * its SHA-256 is computed, gzip is inflated on the fly (ratio-bounded) and
 * the decoded text runs through the parser, so bad input is refused as it
 * arrives.  srv_upload_commit then stores the run in one short
 * transaction: the write lock is held for the insert only, never while a
 * slow client trickles its body in.  Anything unfinished is removed by
 * srv_upload_free, so a refused or broken upload leaves nothing behind.
 * A log's temp file is fsync'ed and closed when its part ends, so a
 * request holds one temp fd at a time; at most 1024 logs per request
 * (more: 400 too_many_logs). */
#ifndef PARITY_UPLOAD_H
#define PARITY_UPLOAD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct srv_req;
struct upload;

/* Start an upload for request r (headers known).  NULL with *status and *err
 * (new reference) set when the request is refused up front. */
struct upload *srv_upload_new(struct srv_req *r, unsigned *status, json_t **err);
/* Consume a body chunk.  0, or -1 with *status and *err set. */
int srv_upload_feed(struct upload *u, const char *data, size_t n, unsigned *status, json_t **err);
/* Stop processing (after an error); temp files are removed now. */
void srv_upload_abort(struct upload *u);
/* Body complete: validate, store the run, move raw files into place.
 * 0 and *run_id set, or -1 with *status and *err set (nothing stored). */
int srv_upload_commit(struct upload *u, int64_t *run_id, unsigned *status, json_t **err);
void srv_upload_free(struct upload *u);

/* Rank from a file name: "rank_3_activations.log" -> 3; -1 when none. */
int srv_rank_from_filename(const char *name);

#endif
