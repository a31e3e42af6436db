/* gzpipe.c - a gzip member written by a helper thread (see ingest.h).
 *
 * The first INLINE_BYTES are deflated by the caller itself: most logs are
 * small, and they need neither the thread nor the ring.  Past that the
 * thread is started and takes over the same z_stream.
 *
 * The ring holds bytes [rd, wr) (monotonic counters, positions modulo
 * RING).  The writer copies into the free part and never touches [rd, wr);
 * the thread deflates straight from [rd, wr) without the lock and only
 * then advances rd, so no byte is copied twice. */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "ingest.h"

#define RING (1u << 20)
#define OUT  (64 * 1024)
/* Past 256 KiB a log is large enough that deflating it on the caller's
 * thread would lengthen its upload (the caller parses meanwhile). */
#define INLINE_BYTES (256u << 10)

struct srv_gzpipe {
	int threaded; /* the thread runs (else the caller deflates inline) */
	uint64_t in_bytes;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more;  /* bytes or the end arrived (thread waits) */
	pthread_cond_t space; /* the thread consumed bytes or failed (writer waits) */
	unsigned char *ring;
	uint64_t rd, wr;
	int closing; /* no more bytes: finish the member */
	int aborted; /* stop at once, write nothing more */
	int err;     /* errno of the thread's failure, 0 while fine */
	int fd;
	z_stream zs;
	uint64_t out_bytes;
	unsigned char out[OUT];
};

/* Deflate n bytes at p with flush; write what comes out.  0 or errno. */
static int pump(struct srv_gzpipe *g, unsigned char *p, size_t n, int flush)
{
	g->zs.next_in = p;
	g->zs.avail_in = (uInt)n;
	int zr;
	do {
		g->zs.next_out = g->out;
		g->zs.avail_out = OUT;
		zr = deflate(&g->zs, flush);
		if (zr == Z_STREAM_ERROR)
			return EIO;
		size_t got = OUT - g->zs.avail_out;
		if (got && srv_write_all(g->fd, g->out, got) < 0)
			return errno ? errno : EIO;
		g->out_bytes += got;
	} while (g->zs.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

static void *run(void *arg)
{
	struct srv_gzpipe *g = arg;
	pthread_setname_np(pthread_self(), "ingest-gzip"); /* top -H, perf */
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (g->rd == g->wr && !g->closing && !g->aborted)
			pthread_cond_wait(&g->more, &g->mu);
		if (g->aborted || (g->rd == g->wr && g->closing))
			break;
		uint64_t rd = g->rd;
		size_t span = (size_t)(g->wr - rd);
		size_t to_end = RING - (size_t)(rd % RING);
		if (span > to_end)
			span = to_end;
		pthread_mutex_unlock(&g->mu);
		int err = pump(g, g->ring + rd % RING, span, Z_NO_FLUSH);
		pthread_mutex_lock(&g->mu);
		g->rd = rd + span;
		if (err) {
			g->err = err;
			pthread_cond_broadcast(&g->space);
			break;
		}
		pthread_cond_signal(&g->space);
	}
	int finish = g->closing && !g->aborted && !g->err;
	pthread_mutex_unlock(&g->mu);
	if (finish) {
		int err = pump(g, NULL, 0, Z_FINISH);
		if (err) {
			pthread_mutex_lock(&g->mu);
			g->err = err;
			pthread_mutex_unlock(&g->mu);
		}
	}
	return NULL;
}

struct srv_gzpipe *srv_gzpipe_start(int fd, int level)
{
	struct srv_gzpipe *g = calloc(1, sizeof *g);
	if (!g) {
		errno = ENOMEM;
		return NULL;
	}
	g->fd = fd;
	if (deflateInit2(&g->zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	return g;
}

/* Hand the z_stream over to a new thread.  0, or -1 with errno set. */
static int go_threaded(struct srv_gzpipe *g)
{
	g->ring = malloc(RING);
	if (!g->ring) {
		errno = ENOMEM;
		return -1;
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->more, NULL);
	pthread_cond_init(&g->space, NULL);
	int rc = pthread_create(&g->thread, NULL, run, g);
	if (rc != 0) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->more);
		pthread_cond_destroy(&g->space);
		free(g->ring);
		g->ring = NULL;
		errno = rc;
		return -1;
	}
	g->threaded = 1;
	return 0;
}

int srv_gzpipe_write(struct srv_gzpipe *g, const void *data, size_t n)
{
	const unsigned char *p = data;
	if (!g->threaded) {
		if (g->err) {
			errno = g->err;
			return -1;
		}
		if (g->in_bytes + n <= INLINE_BYTES) {
			g->in_bytes += n;
			if ((g->err = pump(g, (unsigned char *)p, n, Z_NO_FLUSH)) != 0) {
				errno = g->err;
				return -1;
			}
			return 0;
		}
		if (go_threaded(g) < 0)
			return -1;
	}
	pthread_mutex_lock(&g->mu);
	while (n) {
		while (g->wr - g->rd == RING && !g->err)
			pthread_cond_wait(&g->space, &g->mu);
		if (g->err) {
			errno = g->err;
			pthread_mutex_unlock(&g->mu);
			return -1;
		}
		size_t room = RING - (size_t)(g->wr - g->rd);
		size_t to_end = RING - (size_t)(g->wr % RING);
		size_t k = n < room ? n : room;
		if (k > to_end)
			k = to_end;
		/* [wr, wr + k) is free: the thread never reads it until wr moves */
		unsigned char *dst = g->ring + g->wr % RING;
		pthread_mutex_unlock(&g->mu);
		memcpy(dst, p, k);
		pthread_mutex_lock(&g->mu);
		g->wr += k;
		p += k;
		n -= k;
		pthread_cond_signal(&g->more);
	}
	pthread_mutex_unlock(&g->mu);
	return 0;
}

/* Stop the thread (finishing the member unless abort), join it, free g;
 * the compressed size into *out_bytes (may be NULL).  The thread's errno,
 * or 0. */
static int stop(struct srv_gzpipe *g, int abort, uint64_t *out_bytes)
{
	if (g->threaded) {
		pthread_mutex_lock(&g->mu);
		g->closing = 1;
		g->aborted = abort;
		pthread_cond_signal(&g->more);
		pthread_mutex_unlock(&g->mu);
		pthread_join(g->thread, NULL);
		/* the thread is gone: its fields are ours */
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->more);
		pthread_cond_destroy(&g->space);
	} else if (!abort && !g->err) {
		g->err = pump(g, NULL, 0, Z_FINISH);
	}
	int err = g->err;
	if (out_bytes)
		*out_bytes = g->out_bytes;
	deflateEnd(&g->zs);
	free(g->ring);
	free(g);
	return err;
}

int srv_gzpipe_finish(struct srv_gzpipe *g, uint64_t *out_bytes)
{
	int err = stop(g, 0, out_bytes);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

void srv_gzpipe_abort(struct srv_gzpipe *g)
{
	if (g)
		stop(g, 1, NULL);
}
