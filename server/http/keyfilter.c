/* keyfilter.c - the key filter (regex) of list requests: the q and case
 * parameters (case-insensitive unless case=sensitive or icase=0, so
 * `layers\.1\d` finds `Layers.12` as the offline report's JS does), the reader threads that run
 * regex-filtered requests off the libmicrohttpd workers, and the cancel callback that stops a read
 * whose client went away.
 *
 * The store bounds one read (PCRE2 limits per key, a time budget for the
 * read); this file keeps such reads from blocking the daemon.  A
 * libmicrohttpd worker that runs a slow handler stalls every connection it
 * has accepted (engineering notes section 1), so a request with q set is
 * suspended and queued for one of n reader threads (n = http_threads / 2,
 * at least 1: regex work is CPU work, and each reader holds a database
 * connection), which runs the route's handler; the handler's reply is kept
 * (srv_queue_response sees r->in_reader) and queued by the worker when the
 * connection is resumed.  The queue is bounded (QUEUE_CAP) and so is the
 * wait in it (MAX_WAIT_MS): a request refused or taken out too late gets
 * 503 busy (Retry-After 1), so a flood of costly patterns delays nothing
 * but regex reads, and each of those is answered within about
 * MAX_WAIT_MS + the read budget.
 * The later pages of a streamed body (rows.csv with q) are regex reads
 * too: the body reader suspends the connection and queues the page for a
 * reader in the same queue (srv_buf_stream_read_offloaded); a full queue
 * ends the body with an error.
 * While a read runs, the store polls srv_client_gone about every 20 ms
 * (inside a long key too): a peer that closed its socket (curl killed,
 * tab closed) ends the read instead of leaving it to burn its budget. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "store.h"
#include "http.h"

#define QUEUE_CAP   64  /* requests waiting for a reader */
#define MAX_WAIT_MS 500 /* longer in the queue: 503 busy */

struct srv_filter_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct srv_req *queue[QUEUE_CAP]; /* FIFO ring */
	size_t head, n_queued;
	pthread_t *threads;
	size_t n_threads;
	int stopping;
};

void srv_key_filter_init(struct srv_req *r, struct store_key_filter *kf, const char *q, int icase)
{
	memset(kf, 0, sizeof *kf);
	kf->regex = q && *q ? q : NULL;
	kf->icase = icase;
	kf->budget_ms = 0; /* the store's default */
	kf->cancelled = srv_client_gone;
	kf->cancel_ctx = r;
}

int srv_key_icase(struct srv_req *r)
{
	const char *c = srv_query(r, "case"), *i = srv_query(r, "icase");
	int by_case = -1, by_icase = -1;
	if (c && *c) {
		if (!strcmp(c, "insensitive"))
			by_case = 1;
		else if (!strcmp(c, "sensitive"))
			by_case = 0;
		else
			return -1;
	}
	if (i && *i) {
		if (!strcmp(i, "1"))
			by_icase = 1;
		else if (!strcmp(i, "0"))
			by_icase = 0;
		else
			return -1;
	}
	if (by_case >= 0 && by_icase >= 0 && by_case != by_icase)
		return -1;
	return by_case >= 0 ? by_case : by_icase >= 0 ? by_icase : 1;
}

int srv_key_filter_or_reply(struct srv_req *r, struct store_key_filter *kf)
{
	int icase = srv_key_icase(r);
	if (icase < 0) {
		srv_reply_error(r, 400, "bad_parameter",
		                "case must be sensitive or insensitive (icase 0 or 1; the two "
		                "must agree); the default is insensitive");
		return -1;
	}
	srv_key_filter_init(r, kf, srv_query(r, "q"), icase);
	if (!kf->regex)
		return 0;
	int rc = srv_filter_offload(r);
	if (rc < 0) {
		r->retry_after_s = 1;
		srv_reply_error(r, 503, "busy",
		                "too many regex-filtered requests are running; retry shortly");
	}
	return rc == 0 ? 0 : -1;
}

int srv_client_gone(void *ctx)
{
	struct srv_req *r = ctx;
	if (!r->conn) /* driven without libmicrohttpd (srv_capture) */
		return 0;
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || ci->connect_fd < 0)
		return 0;
	struct pollfd p = {.fd = ci->connect_fd, .events = POLLIN | POLLRDHUP};
	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL | POLLRDHUP))
		return 1;
	if (p.revents & POLLIN) {
		/* readable: EOF, or bytes of a pipelined request (left unread) */
		char c;
		ssize_t n = recv(ci->connect_fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
		return n == 0 ||
		       (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
	}
	return 0;
}

/* ---- reader threads ------------------------------------------------------ */

static void *reader_main(void *arg)
{
	struct srv *s = arg;
	struct srv_filter_pool *p = s->filters;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->n_queued && !p->stopping)
			pthread_cond_wait(&p->cv, &p->mu);
		if (!p->n_queued) { /* stopping and drained */
			pthread_mutex_unlock(&p->mu);
			break;
		}
		struct srv_req *r = p->queue[p->head];
		p->head = (p->head + 1) % QUEUE_CAP;
		p->n_queued--;
		pthread_mutex_unlock(&p->mu);

		struct srv_page_read *pr = r->page_read;
		if (pr) { /* a later page of a streamed body */
			r->page_read = NULL;
			pr->failed = pr->fill(pr->ctx) < 0;
			MHD_resume_connection(r->conn);
			continue;
		}

		/* the connection is suspended: nothing else touches r.  The
		 * handler runs again from the top; srv_filter_offload tells it
		 * to go on, or that it waited too long (its busy reply) */
		r->in_reader = 1;
		r->offload_late = srv_now_ms() - r->offload_ms > MAX_WAIT_MS;
		int ret = r->route->handler(r);
		r->in_reader = 0;
		/* its connection goes back now, as on_request does for inline
		 * handlers (which must not touch an offloaded r) */
		srv_db_release(s, r->db);
		r->db = NULL;
		(void)ret; /* MHD_NO comes with no reply: close instead */
		if (!r->deferred)
			r->deferred_close = 1;
		r->suspended = 0;
		MHD_resume_connection(r->conn);
	}
	return NULL;
}

/* Suspend r's connection and queue r for a reader (pr: a page of its
 * body, else NULL: its handler).  1 queued, 0 run it here (no pool, or
 * shutting down: the read is bounded), -1 the queue is full. */
static int enqueue(struct srv_req *r, struct srv_page_read *pr)
{
	struct srv_filter_pool *p = r->srv->filters;
	int rc = 0;
	if (!p || !r->conn)
		return 0;
	pthread_mutex_lock(&p->mu);
	if (p->stopping) {
		rc = 0;
	} else if (p->n_queued >= QUEUE_CAP) {
		rc = -1;
	} else {
		/* suspend before a reader can see r: it resumes when done */
		if (pr) {
			r->page_read = pr;
		} else {
			r->offloaded = 1;
			r->suspended = 1;
			r->offload_ms = srv_now_ms();
		}
		MHD_suspend_connection(r->conn);
		p->queue[(p->head + p->n_queued) % QUEUE_CAP] = r;
		p->n_queued++;
		pthread_cond_signal(&p->cv);
		rc = 1;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int srv_filter_offload(struct srv_req *r)
{
	if (r->in_reader)
		return r->offload_late ? -1 : 0;
	return enqueue(r, NULL);
}

ssize_t srv_buf_stream_read_offloaded(struct buf *b, size_t *pos, const int *done,
                                      struct srv_page_read *pr, char *out, size_t max)
{
	if (pr->failed)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	if (*pos >= b->len && !*done) {
		/* the reader appends the next page to b: clear it first */
		buf_clear(b);
		*pos = 0;
		int rc = enqueue(pr->r, pr);
		if (rc != 0)
			return rc > 0 ? 0 : MHD_CONTENT_READER_END_WITH_ERROR;
	}
	return srv_buf_stream_read(b, pos, done, pr->fill, pr->ctx, out, max);
}

int srv_filters_start(struct srv *s)
{
	struct srv_filter_pool *p = calloc(1, sizeof *p);
	size_t want = s->cfg.http_threads > 1 ? s->cfg.http_threads / 2 : 1, n = 0;
	if (!p)
		return -1;
	p->threads = calloc(want, sizeof *p->threads);
	if (!p->threads) {
		free(p);
		return -1;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	s->filters = p;
	while (n < want && pthread_create(&p->threads[n], NULL, reader_main, s) == 0)
		n++;
	p->n_threads = n; /* read only by srv_filters_stop */
	if (n == 0) {
		srv_filters_free(s);
		return -1;
	}
	return 0;
}

void srv_filters_stop(struct srv *s)
{
	struct srv_filter_pool *p = s->filters;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < p->n_threads; i++)
		pthread_join(p->threads[i], NULL);
	p->n_threads = 0;
}

void srv_filters_free(struct srv *s)
{
	struct srv_filter_pool *p = s->filters;
	if (!p)
		return;
	srv_filters_stop(s);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->threads);
	free(p);
	s->filters = NULL;
}
