/* gzpipe.h - gzip-compress a byte stream into a file on a helper thread,
 * so an upload's deflate runs beside its hashing and parsing instead of
 * after them (upload.c).  The first 256 KiB are deflated by the writer
 * itself (small logs need no thread); past that a thread starts, the
 * caller's bytes are copied into a 1 MiB ring it deflates from, and a full
 * ring makes the writer wait (the client is then sending faster than zlib
 * level RAW_GZ_LEVEL compresses).  Memory: zlib's state (~256 KiB at
 * memLevel 8), a 64 KiB output buffer and, threaded, the ring.  One
 * writer thread per pipe. */
#ifndef PARITY_GZPIPE_H
#define PARITY_GZPIPE_H

#include <stddef.h>
#include <stdint.h>

struct srv_gzpipe;

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

#endif
