/* guard.h - deadlines for slow clients that libmicrohttpd cannot enforce
 * by itself: a request's headers must be complete within
 * --header-timeout, a request body must keep --min-upload-rate averaged
 * over --min-upload-window, and must be complete within
 * --request-timeout.  All three hold even when the client sends nothing
 * at all.
 *
 * Why a thread of its own: libmicrohttpd 0.9.75 calls the application only
 * when bytes arrive (and not at all before the headers are complete), and
 * its CONNECTION_TIMEOUT is an inactivity timeout that every trickled byte
 * resets.  So a guard thread keeps a registry of open connections (filled
 * by MHD_OPTION_NOTIFY_CONNECTION, in the connection's socket_context),
 * wakes every SRV_GUARD_TICK_MS and cuts a connection that is out of time
 * with shutdown(2).  libmicrohttpd then sees the connection end on its
 * next read, closes it and completes the request (MHD_OPTION_NOTIFY_COMPLETED
 * with an error code), so the request's state -- an upload's temp files,
 * its ingest slot -- is released on the connection's own thread as for any
 * client that went away.  shutdown() never races with the close: a
 * connection leaves the registry (under the guard's mutex) in
 * MHD_CONNECTION_NOTIFY_CLOSED, which libmicrohttpd calls before it closes
 * the socket (verified with 0.9.75), so the fd the guard shuts down is
 * always the connection's own.
 *
 * Fairness: the guard measures what the daemon has read, so a worker that
 * is busy (a long commit on the same event-loop thread) could make a fast
 * client look slow.  A connection is therefore never cut while its body
 * is being handed to the application, nor while the kernel holds unread
 * bytes for it (FIONREAD): then the daemon, not the client, is behind.
 *
 * Not bounded here: a client that reads a response slowly (the idle
 * timeout, an inactivity timeout, covers one that stops reading), and a
 * suspended long-poll (bounded by its own ?wait=). */
#ifndef PARITY_GUARD_H
#define PARITY_GUARD_H

#include <microhttpd.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define SRV_GUARD_TICK_MS 250

/* Why a connection was cut (0 = it was not). */
enum srv_guard_cut {
	SRV_GUARD_OK = 0,
	SRV_GUARD_HEADER_TIMEOUT,  /* headers not complete within --header-timeout */
	SRV_GUARD_TOO_SLOW,        /* body below --min-upload-rate over a window */
	SRV_GUARD_REQUEST_TIMEOUT, /* body not complete within --request-timeout */
	SRV_GUARD_N_CUTS
};

struct srv_config;
struct srv_guard_conn;
struct srv_metrics;

struct srv_guard {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* stop signal (CLOCK_MONOTONIC) */
	struct srv_guard_conn *head;
	int stopping;
	int started;
	pthread_t thread;
	/* settings, fixed at start (0 = that bound is off) */
	int64_t header_timeout_us;
	int64_t request_timeout_us;
	int64_t window_us;
	uint64_t window_quota; /* bytes per window: rate x window */
	struct srv_metrics *metrics;
};

/* Start the guard thread with the limits of cfg; cuts are counted in
 * metrics.  0, or -1 (nothing to stop). */
int srv_guard_start(struct srv_guard *g, const struct srv_config *cfg, struct srv_metrics *metrics);
/* Stop and join the thread; call after MHD_stop_daemon (every connection
 * has left the registry then).  Safe on a guard that never started. */
void srv_guard_stop(struct srv_guard *g);

/* MHD_OPTION_NOTIFY_CONNECTION callback, cls = the struct srv_guard. */
void srv_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                      enum MHD_ConnectionNotificationCode code);

/* The guard entry of a connection; NULL when it could not be allocated
 * (the connection then runs unguarded, as before). */
struct srv_guard_conn *srv_guard_of(struct MHD_Connection *conn);

/* The calls below come from the connection's own thread, in this order
 * per request; each is a no-op on a NULL entry.
 *   body_start   headers complete (first access-handler call): from now the
 *                body, if any, must keep the rate and the request deadline;
 *   body_bytes   a body chunk of n bytes is being handled; returns the cut
 *                reason when the guard already cut the connection (stop);
 *   body_handled the chunk is consumed (the guard may cut again);
 *   busy         the body is complete (or a reply was queued early): the
 *                handler and the response are not timed by the guard;
 *   request_done the request completed: the next request's headers are
 *                awaited from now (keep-alive). */
void srv_guard_body_start(struct srv_guard *g, struct srv_guard_conn *c);
enum srv_guard_cut srv_guard_body_bytes(struct srv_guard *g, struct srv_guard_conn *c, size_t n);
void srv_guard_body_handled(struct srv_guard *g, struct srv_guard_conn *c);
void srv_guard_busy(struct srv_guard *g, struct srv_guard_conn *c);
void srv_guard_request_done(struct srv_guard *g, struct srv_guard_conn *c);
/* Why the guard cut this connection (SRV_GUARD_OK: it did not). */
enum srv_guard_cut srv_guard_cut_reason(struct srv_guard *g, struct srv_guard_conn *c);
/* "header_timeout", "too_slow", "request_timeout" (NULL for OK). */
const char *srv_guard_cut_name(enum srv_guard_cut cut);

#endif
