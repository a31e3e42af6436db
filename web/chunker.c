/* chunker.c - a second thread that renders one chunk of rows while the
 * caller renders the one before it (web.h, struct web_chunker): the row
 * writers of the offline report and of `parity compare --format json` use
 * both cores and still write their chunks in order, so the output is the
 * same bytes as a one-thread rendering.  Without a thread (pthread_create
 * failed) a posted chunk is rendered by web_chunker_collect. */
#include <string.h>

#include "web.h"

enum { C_IDLE, C_POSTED, C_DONE, C_QUIT };

static void *chunker_main(void *arg)
{
	struct web_chunker *c = arg;

	pthread_mutex_lock(&c->mu);
	for (;;) {
		while (c->state != C_POSTED && c->state != C_QUIT)
			pthread_cond_wait(&c->cv, &c->mu);
		if (c->state == C_QUIT)
			break;
		pthread_mutex_unlock(&c->mu);
		int rc = c->fn(c->ctx, c->from, c->to, &c->out);
		pthread_mutex_lock(&c->mu);
		c->rc = rc;
		c->state = C_DONE;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

void web_chunker_init(struct web_chunker *c, web_chunk_fn fn)
{
	memset(c, 0, sizeof *c);
	c->fn = fn;
	buf_init(&c->out);
	c->threaded = pthread_mutex_init(&c->mu, NULL) == 0;
	if (c->threaded && pthread_cond_init(&c->cv, NULL) != 0) {
		pthread_mutex_destroy(&c->mu);
		c->threaded = 0;
	}
	if (c->threaded && pthread_create(&c->th, NULL, chunker_main, c) != 0) {
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
		c->threaded = 0;
	}
}

void web_chunker_free(struct web_chunker *c)
{
	if (c->threaded) {
		pthread_mutex_lock(&c->mu);
		/* a chunk still being rendered finishes before the thread goes */
		while (c->state == C_POSTED)
			pthread_cond_wait(&c->cv, &c->mu);
		c->state = C_QUIT;
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
		pthread_join(c->th, NULL);
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->mu);
	}
	buf_reset(&c->out);
}

void web_chunker_post(struct web_chunker *c, void *ctx, size_t from, size_t to)
{
	if (c->threaded)
		pthread_mutex_lock(&c->mu);
	buf_clear(&c->out); /* the helper is idle: its last rendering was collected */
	c->ctx = ctx;
	c->from = from;
	c->to = to;
	c->state = C_POSTED;
	if (c->threaded) {
		pthread_cond_broadcast(&c->cv);
		pthread_mutex_unlock(&c->mu);
	}
}

int web_chunker_collect(struct web_chunker *c, struct buf **out)
{
	int rc;

	if (c->threaded) {
		pthread_mutex_lock(&c->mu);
		while (c->state != C_DONE)
			pthread_cond_wait(&c->cv, &c->mu);
		rc = c->rc;
		c->state = C_IDLE;
		pthread_mutex_unlock(&c->mu);
	} else {
		rc = c->fn(c->ctx, c->from, c->to, &c->out);
		c->state = C_IDLE;
	}
	*out = &c->out;
	return rc;
}
