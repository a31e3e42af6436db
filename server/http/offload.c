/* offload.c - the bounded pool that runs costly requests off the
 * libmicrohttpd workers: regex-filtered reads (keyfilter.c) and CPU-heavy
 * renders (PDF, PNG, the HTML report, pages of many steps; issue 23 F5).
 *
 * A libmicrohttpd worker that runs a slow handler stalls every connection
 * it has accepted (engineering notes section 1): 12 PDFs of a 1M-step
 * comparison once held /healthz for 61 s.  So such a request is suspended
 * and queued, per kind, for that kind's threads, which run the route's
 * handler again from the top; the reply is kept (srv_queue_response sees
 * r->in_reader) and queued by the worker when the connection is resumed.
 * Each kind has its own threads, a bounded queue and a bounded wait in
 * it: a request refused or taken out too late gets 503 busy with
 * Retry-After, so a flood of one kind delays only that kind, and cheap
 * requests (healthz, small JSON) never wait behind it.  Render threads run
 * at a lower CPU priority than the workers, so on a small machine the
 * cheap requests also get the processor first.  A client that left while
 * its request waited is not worked for: its connection is closed.  The
 * read queue also carries single pages of streamed regex reads (rows.csv
 * with q: srv_offload_page), run without touching the request's reply. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "http.h"

/* per kind: queue length, longest wait in it, threads, nice increment */
static const struct kind_conf {
	const char *what; /* the 503 message's subject */
	size_t queue_cap;
	int64_t max_wait_ms;
	size_t max_threads; /* 0: half the HTTP threads */
	int nice;
} KINDS[SRV_OFFLOAD_N] = {
        [SRV_OFFLOAD_READ] = {"regex-filtered requests", 64, 500, 0, 0},
        [SRV_OFFLOAD_RENDER] = {"reports and charts", 16, 30000, 2, 5},
};

struct queue {
	struct srv_req **ring; /* FIFO of queue_cap */
	size_t head, n_queued;
	pthread_cond_t cv;
	pthread_t *threads;
	size_t n_threads;
};

struct srv_offload {
	struct srv *srv;
	pthread_mutex_t mu;
	struct queue q[SRV_OFFLOAD_N];
	int stopping;
	int joined; /* srv_offload_stop's own */
};

struct worker_arg {
	struct srv_offload *p;
	enum srv_offload_kind kind;
};

static void run(struct srv *s, struct srv_req *r, enum srv_offload_kind kind, int stopping)
{
	/* the connection is suspended: nothing else touches r.  The handler
	 * runs again from the top; srv_offload tells it to go on, or that it
	 * waited too long or, for a render, that the daemon is stopping (its
	 * busy reply: a queue of renders must not hold up the shutdown; reads
	 * are bounded by their budget and still run) */
	r->in_reader = 1;
	r->offload_late = (stopping && kind == SRV_OFFLOAD_RENDER) ||
	                  srv_now_ms() - r->offload_ms > KINDS[kind].max_wait_ms;
	if (kind == SRV_OFFLOAD_RENDER && srv_client_gone(r)) {
		r->client_gone = 1; /* nobody to render for */
	} else {
		int ret = r->route->handler(r);
		(void)ret; /* MHD_NO comes with no reply: close instead */
	}
	r->in_reader = 0;
	/* its connection goes back now, as on_request does for inline
	 * handlers (which must not touch an offloaded r) */
	srv_db_release(s, r->db);
	r->db = NULL;
	if (!r->deferred)
		r->deferred_close = 1;
	r->suspended = 0;
	MHD_resume_connection(r->conn);
}

static void *worker_main(void *arg)
{
	struct worker_arg a = *(struct worker_arg *)arg;
	struct srv_offload *p = a.p;
	struct queue *q = &p->q[a.kind];
	free(arg);
	if (KINDS[a.kind].nice) /* this thread only (Linux); best effort */
		(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), KINDS[a.kind].nice);
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!q->n_queued && !p->stopping)
			pthread_cond_wait(&q->cv, &p->mu);
		if (!q->n_queued) { /* stopping and drained */
			pthread_mutex_unlock(&p->mu);
			break;
		}
		struct srv_req *r = q->ring[q->head];
		q->head = (q->head + 1) % KINDS[a.kind].queue_cap;
		q->n_queued--;
		int stopping = p->stopping;
		pthread_mutex_unlock(&p->mu);
		struct srv_page_read *pr = r->page_read;
		if (pr) { /* a later page of a streamed body */
			r->page_read = NULL;
			pr->failed = pr->fill(pr->ctx) < 0;
			MHD_resume_connection(r->conn);
			continue;
		}
		run(p->srv, r, a.kind, stopping);
	}
	return NULL;
}

int srv_offload(struct srv_req *r, enum srv_offload_kind kind)
{
	struct srv_offload *p = r->srv->offload;
	int rc = 0;
	if (r->in_reader)
		return r->offload_late ? -1 : 0;
	if (!p || !r->conn || kind < 0 || kind >= SRV_OFFLOAD_N)
		return 0;
	struct queue *q = &p->q[kind];
	pthread_mutex_lock(&p->mu);
	if (p->stopping || !q->n_threads) {
		rc = 0; /* shutting down (or no thread): run inline */
	} else if (q->n_queued >= KINDS[kind].queue_cap) {
		rc = -1;
	} else {
		/* a pool connection is not held while waiting */
		srv_db_release(r->srv, r->db);
		r->db = NULL;
		/* suspend before a thread can see r: it resumes when done */
		r->offloaded = 1;
		r->suspended = 1;
		r->offload_ms = srv_now_ms();
		MHD_suspend_connection(r->conn);
		q->ring[(q->head + q->n_queued) % KINDS[kind].queue_cap] = r;
		q->n_queued++;
		pthread_cond_signal(&q->cv);
		rc = 1;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int srv_offload_page(struct srv_req *r, struct srv_page_read *pr)
{
	struct srv_offload *p = r->srv->offload;
	struct queue *q = p ? &p->q[SRV_OFFLOAD_READ] : NULL;
	int rc = 0;
	if (!p || !r->conn)
		return 0;
	pthread_mutex_lock(&p->mu);
	if (p->stopping || !q->n_threads) {
		rc = 0; /* shutting down: read it here, the read is bounded */
	} else if (q->n_queued >= KINDS[SRV_OFFLOAD_READ].queue_cap) {
		rc = -1;
	} else {
		/* suspend before a reader can see it: the reader resumes */
		r->page_read = pr;
		MHD_suspend_connection(r->conn);
		q->ring[(q->head + q->n_queued) % KINDS[SRV_OFFLOAD_READ].queue_cap] = r;
		q->n_queued++;
		pthread_cond_signal(&q->cv);
		rc = 1;
	}
	pthread_mutex_unlock(&p->mu);
	return rc;
}

int srv_offload_or_reply(struct srv_req *r, enum srv_offload_kind kind)
{
	int rc = srv_offload(r, kind);
	if (rc < 0) {
		r->retry_after_s = kind == SRV_OFFLOAD_RENDER ? 5 : 1;
		srv_reply_error(r, 503, "busy", "too many %s are running; retry shortly",
		                KINDS[kind].what);
	}
	return rc == 0 ? 0 : -1;
}

int srv_offload_start(struct srv *s)
{
	struct srv_offload *p = calloc(1, sizeof *p);
	size_t half = s->cfg.http_threads > 1 ? s->cfg.http_threads / 2 : 1;
	if (!p)
		return -1;
	p->srv = s;
	pthread_mutex_init(&p->mu, NULL);
	for (int k = 0; k < SRV_OFFLOAD_N; k++)
		pthread_cond_init(&p->q[k].cv, NULL);
	s->offload = p;
	for (int k = 0; k < SRV_OFFLOAD_N; k++) {
		struct queue *q = &p->q[k];
		size_t want = KINDS[k].max_threads && KINDS[k].max_threads < half
		                      ? KINDS[k].max_threads
		                      : half;
		q->ring = calloc(KINDS[k].queue_cap, sizeof *q->ring);
		q->threads = calloc(want, sizeof *q->threads);
		if (!q->ring || !q->threads)
			goto fail;
		while (q->n_threads < want) {
			struct worker_arg *a = malloc(sizeof *a);
			if (!a)
				break;
			*a = (struct worker_arg){p, (enum srv_offload_kind)k};
			if (pthread_create(&q->threads[q->n_threads], NULL, worker_main, a) != 0) {
				free(a);
				break;
			}
			q->n_threads++; /* fixed once the daemon runs */
		}
		if (q->n_threads == 0)
			goto fail;
	}
	return 0;
fail:
	srv_offload_free(s);
	return -1;
}

void srv_offload_stop(struct srv *s)
{
	struct srv_offload *p = s->offload;
	if (!p)
		return;
	if (p->joined)
		return;
	pthread_mutex_lock(&p->mu);
	p->stopping = 1;
	for (int k = 0; k < SRV_OFFLOAD_N; k++)
		pthread_cond_broadcast(&p->q[k].cv);
	pthread_mutex_unlock(&p->mu);
	for (int k = 0; k < SRV_OFFLOAD_N; k++)
		for (size_t i = 0; i < p->q[k].n_threads; i++)
			pthread_join(p->q[k].threads[i], NULL);
	p->joined = 1;
}

void srv_offload_free(struct srv *s)
{
	struct srv_offload *p = s->offload;
	if (!p)
		return;
	srv_offload_stop(s);
	for (int k = 0; k < SRV_OFFLOAD_N; k++) {
		pthread_cond_destroy(&p->q[k].cv);
		free(p->q[k].ring);
		free(p->q[k].threads);
	}
	pthread_mutex_destroy(&p->mu);
	free(p);
	s->offload = NULL;
}
