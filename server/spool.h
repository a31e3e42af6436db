/* spool.h - the parser's records of one uploaded log, written to a temp
 * file while the body streams in and replayed by the commit, so a log is
 * parsed once: the insert transaction (which holds the write lock) reads
 * compact records instead of reading and parsing the log again.
 *
 * Format (private to this file pair, never kept past the upload): records
 * of u32 payload length, u8 type, payload; strings are u32 length
 * (UINT32_MAX = NULL) and the bytes plus a NUL.  Native byte order.
 * Memory: the writer buffers up to 256 KiB; the reader holds one record
 * (grown to the largest one, bounded by the parser's line limit). */
#ifndef PARITY_SPOOL_H
#define PARITY_SPOOL_H

#include "actlog.h"
#include "trainlog.h"

struct srv_spool;

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

#endif
