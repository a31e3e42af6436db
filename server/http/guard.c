/* guard.c - the slow-client guard thread (see http.h for why it exists).
 *
 * Every open connection has one entry, in one of three phases:
 *   HEADERS  waiting for a request's headers, since the connection opened
 *            or the previous request completed: --header-timeout;
 *   BODY     headers done, the body (if any) arriving: --request-timeout
 *            from the request's start, and --min-upload-rate checked over
 *            consecutive windows of --min-upload-window seconds (a window
 *            that ends with fewer than rate x window bytes cuts);
 *   BUSY     the handler or the response runs: not timed here.
 * The thread checks every entry each SRV_GUARD_TICK_MS under the mutex and
 * shuts an overdue connection down; the connection's own thread finds out
 * on its next read. */

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include "base.h"
#include "http.h"

enum phase { PHASE_HEADERS, PHASE_BODY, PHASE_BUSY };

struct srv_guard_conn {
	struct srv_guard_conn *prev, *next;
	int fd;
	enum phase phase;
	int64_t since_us;      /* HEADERS: awaited since; BODY: request start */
	int64_t win_start_us;  /* BODY: start of the current rate window */
	uint64_t win_bytes;    /* BODY: bytes handled in that window */
	int in_call;           /* a body chunk is being handled right now */
	int64_t call_start_us; /* when that call began */
	enum srv_guard_cut cut;
};

static int64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

const char *srv_guard_cut_name(enum srv_guard_cut cut)
{
	switch (cut) {
	case SRV_GUARD_HEADER_TIMEOUT: return "header_timeout";
	case SRV_GUARD_TOO_SLOW: return "too_slow";
	case SRV_GUARD_REQUEST_TIMEOUT: return "request_timeout";
	default: return NULL;
	}
}

static void count_cut(struct srv_guard *g, enum srv_guard_cut cut)
{
	switch (cut) {
	case SRV_GUARD_HEADER_TIMEOUT: atomic_fetch_add(&g->metrics->cut_header_timeout, 1); break;
	case SRV_GUARD_TOO_SLOW: atomic_fetch_add(&g->metrics->cut_too_slow, 1); break;
	case SRV_GUARD_REQUEST_TIMEOUT:
		atomic_fetch_add(&g->metrics->cut_request_timeout, 1);
		break;
	default: break;
	}
}

/* Is c out of time at now?  Rolls c's rate window when a full window met
 * its quota.  Caller holds g->mu. */
static enum srv_guard_cut overdue(struct srv_guard *g, struct srv_guard_conn *c, int64_t now)
{
	if (c->phase == PHASE_HEADERS)
		return g->header_timeout_us && now - c->since_us >= g->header_timeout_us
		               ? SRV_GUARD_HEADER_TIMEOUT
		               : SRV_GUARD_OK;
	if (c->phase != PHASE_BODY || c->in_call)
		return SRV_GUARD_OK;
	if (g->request_timeout_us && now - c->since_us >= g->request_timeout_us)
		return SRV_GUARD_REQUEST_TIMEOUT;
	if (g->window_us && now - c->win_start_us >= g->window_us) {
		if (c->win_bytes < g->window_quota)
			return SRV_GUARD_TOO_SLOW;
		c->win_start_us = now;
		c->win_bytes = 0;
	}
	return SRV_GUARD_OK;
}

static void *guard_main(void *arg)
{
	struct srv_guard *g = arg;
	pthread_mutex_lock(&g->mu);
	while (!g->stopping) {
		int64_t now = mono_us();
		for (struct srv_guard_conn *c = g->head; c; c = c->next) {
			if (c->cut)
				continue;
			enum srv_guard_cut why = overdue(g, c, now);
			if (!why)
				continue;
			/* bytes the kernel holds for us: the daemon is behind, not
			 * the client; look again at the next tick */
			int pending = 0;
			if (ioctl(c->fd, FIONREAD, &pending) == 0 && pending > 0)
				continue;
			c->cut = why;
			shutdown(c->fd, SHUT_RDWR);
			count_cut(g, why);
		}
		if (g->tick) {
			void (*fn)(void *, int64_t) = g->tick;
			void *targ = g->tick_arg;
			pthread_mutex_unlock(&g->mu);
			fn(targ, now);
			pthread_mutex_lock(&g->mu);
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += SRV_GUARD_TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec += until.tv_nsec / 1000000000L;
			until.tv_nsec %= 1000000000L;
		}
		pthread_cond_timedwait(&g->cv, &g->mu, &until);
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

int srv_guard_start(struct srv_guard *g, const struct srv_config *cfg, struct srv_metrics *metrics)
{
	memset(g, 0, sizeof *g);
	g->metrics = metrics;
	g->header_timeout_us = (int64_t)cfg->header_timeout_s * 1000000;
	g->request_timeout_us = (int64_t)cfg->request_timeout_s * 1000000;
	if (cfg->min_upload_rate) {
		g->window_us = (int64_t)cfg->min_upload_window_s * 1000000;
		g->window_quota = cfg->min_upload_rate * cfg->min_upload_window_s;
	}
	pthread_condattr_t ca;
	if (pthread_condattr_init(&ca) != 0)
		return -1;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int rc = pthread_cond_init(&g->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc != 0)
		return -1;
	if (pthread_mutex_init(&g->mu, NULL) != 0) {
		pthread_cond_destroy(&g->cv);
		return -1;
	}
	if (pthread_create(&g->thread, NULL, guard_main, g) != 0) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
		return -1;
	}
	g->started = 1;
	return 0;
}

void srv_guard_stop(struct srv_guard *g)
{
	if (!g->started)
		return;
	pthread_mutex_lock(&g->mu);
	g->stopping = 1;
	pthread_cond_signal(&g->cv);
	pthread_mutex_unlock(&g->mu);
	pthread_join(g->thread, NULL);
	/* MHD_stop_daemon closed every connection: the registry is empty */
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	g->started = 0;
}

void srv_guard_on_tick(struct srv_guard *g, void (*fn)(void *arg, int64_t now_us), void *arg)
{
	if (!g->started)
		return;
	pthread_mutex_lock(&g->mu);
	g->tick = fn;
	g->tick_arg = arg;
	pthread_mutex_unlock(&g->mu);
}

void srv_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                      enum MHD_ConnectionNotificationCode code)
{
	struct srv_guard *g = cls;
	struct srv_guard_conn *c;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!ci || !(c = calloc(1, sizeof *c)))
			return; /* unguarded, as without the guard */
		c->fd = ci->connect_fd;
		c->phase = PHASE_HEADERS;
		c->since_us = mono_us();
		pthread_mutex_lock(&g->mu);
		c->next = g->head;
		if (g->head)
			g->head->prev = c;
		g->head = c;
		pthread_mutex_unlock(&g->mu);
		*socket_context = c;
		return;
	}
	c = *socket_context;
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	if (c->prev)
		c->prev->next = c->next;
	else
		g->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&g->mu);
	free(c);
	*socket_context = NULL;
}

struct srv_guard_conn *srv_guard_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

void srv_guard_body_start(struct srv_guard *g, struct srv_guard_conn *c)
{
	if (!c)
		return;
	int64_t now = mono_us();
	pthread_mutex_lock(&g->mu);
	c->phase = PHASE_BODY;
	c->since_us = now;
	c->win_start_us = now;
	c->win_bytes = 0;
	c->in_call = 0;
	pthread_mutex_unlock(&g->mu);
}

enum srv_guard_cut srv_guard_body_bytes(struct srv_guard *g, struct srv_guard_conn *c, size_t n)
{
	if (!c)
		return SRV_GUARD_OK;
	int64_t now = mono_us();
	pthread_mutex_lock(&g->mu);
	c->win_bytes += n;
	c->in_call = 1;
	c->call_start_us = now;
	enum srv_guard_cut cut = c->cut;
	pthread_mutex_unlock(&g->mu);
	return cut;
}

void srv_guard_body_handled(struct srv_guard *g, struct srv_guard_conn *c)
{
	if (!c)
		return;
	int64_t now = mono_us();
	pthread_mutex_lock(&g->mu);
	/* time the daemon spent on the chunk is not the client's */
	c->win_start_us += now - c->call_start_us;
	c->in_call = 0;
	pthread_mutex_unlock(&g->mu);
}

void srv_guard_busy(struct srv_guard *g, struct srv_guard_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->mu);
	c->phase = PHASE_BUSY;
	c->in_call = 0;
	pthread_mutex_unlock(&g->mu);
}

void srv_guard_request_done(struct srv_guard *g, struct srv_guard_conn *c)
{
	if (!c)
		return;
	int64_t now = mono_us();
	pthread_mutex_lock(&g->mu);
	c->phase = PHASE_HEADERS;
	c->since_us = now;
	c->in_call = 0;
	pthread_mutex_unlock(&g->mu);
}

enum srv_guard_cut srv_guard_cut_reason(struct srv_guard *g, struct srv_guard_conn *c)
{
	if (!c)
		return SRV_GUARD_OK;
	pthread_mutex_lock(&g->mu);
	enum srv_guard_cut cut = c->cut;
	pthread_mutex_unlock(&g->mu);
	return cut;
}
