/* http.h - the HTTP room of server/: the server object, one request's
 * state, the route table mechanics, reply helpers, the database pool, the
 * slow-client guard, metrics, the same-origin and token checks, the
 * reader threads of regex-filtered reads and the replies to form posts.
 * It knows no handler and no body sink: the composition root registers
 * the route table (struct srv.routes) and puts sinks into it.
 *
 * Threading: libmicrohttpd runs handlers on its pool threads.  The
 * struct srv is read-only after start-up except for the members guarded
 * by their own mutex (db pool, guard).  A request's state is touched only
 * by the thread running its callbacks. */
#ifndef PARITY_SRV_HTTP_H
#define PARITY_SRV_HTTP_H

#include <jansson.h>
#include "mhd_lib.h" /* <microhttpd.h>, loaded at first use */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"
#include "buf.h"
#include "store.h"

struct store;
struct store_key_filter;
struct srv_offload;
struct srv_jobs;
struct srv_hooks;
struct srv_pgwake;
struct srv_req;
struct srv_guard_conn;
struct srv;

/* guard.c: deadlines for slow clients that libmicrohttpd cannot enforce
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

#define SRV_GUARD_TICK_MS 250

/* Why a connection was cut (0 = it was not). */
enum srv_guard_cut {
	SRV_GUARD_OK = 0,
	SRV_GUARD_HEADER_TIMEOUT,  /* headers not complete within --header-timeout */
	SRV_GUARD_TOO_SLOW,        /* body below --min-upload-rate over a window */
	SRV_GUARD_REQUEST_TIMEOUT, /* body not complete within --request-timeout */
	SRV_GUARD_N_CUTS
};

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
	void (*tick)(void *arg, int64_t now_us); /* srv_guard_on_tick */
	void *tick_arg;
};

/* Start the guard thread with the limits of cfg; cuts are counted in
 * metrics.  0, or -1 (nothing to stop). */
int srv_guard_start(struct srv_guard *g, const struct srv_config *cfg, struct srv_metrics *metrics);
/* Stop and join the thread; call after MHD_stop_daemon (every connection
 * has left the registry then).  Safe on a guard that never started. */
void srv_guard_stop(struct srv_guard *g);
/* Call fn(arg, now) on every tick of the guard thread (without its
 * mutex), from now on; the ingest slots expire their waiters so. */
void srv_guard_on_tick(struct srv_guard *g, void (*fn)(void *arg, int64_t now_us), void *arg);

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

/* metrics.c: the daemon's own counters (lock-free atomics embedded in
 * struct srv) and the Prometheus text exposition of GET /metrics.
 * Database-derived numbers (comparisons by status and verdict, queue
 * depth, webhook deliveries, stored bytes) are read at scrape time. */

#define SRV_METRICS_ROUTES   64 /* >= number of routes + 1 (unmatched) */
#define SRV_METRICS_STATUSES 25
#define SRV_METRICS_BUCKETS  12

struct srv_histogram {
	atomic_uint_fast64_t buckets[SRV_METRICS_BUCKETS]; /* cumulative at read time */
	atomic_uint_fast64_t count;
	atomic_uint_fast64_t sum_us;
};

struct srv_metrics {
	atomic_uint_fast64_t requests[SRV_METRICS_ROUTES][SRV_METRICS_STATUSES];
	struct srv_histogram request_seconds;
	struct srv_histogram job_seconds;
	atomic_uint_fast64_t bytes_in, bytes_out;
	atomic_uint_fast64_t ingested_bytes, ingested_entries, ingested_steps, ingested_runs;
	atomic_uint_fast64_t uploads_active;       /* gauge */
	atomic_uint_fast64_t uploads_refused_busy; /* 503s from the ingest cap */
	/* the insert stage (server/ingest/stage.c): runs whose entries went in
	 * while their body streamed, and stages that let go of the lock (the
	 * commit inserted everything) */
	atomic_uint_fast64_t ingest_staged, ingest_stage_fallbacks;
	atomic_uint_fast64_t ingest_stage_holding; /* gauge: stages holding the lock */
	/* connections cut by the daemon (guard.c, http.c) */
	atomic_uint_fast64_t cut_header_timeout;  /* headers not complete in time */
	atomic_uint_fast64_t cut_too_slow;        /* body below the minimum rate */
	atomic_uint_fast64_t cut_request_timeout; /* body not complete in time */
	atomic_uint_fast64_t cut_answered_early;  /* error sent while the body arrived */
	atomic_uint_fast64_t jobs_done, jobs_failed;
	atomic_uint_fast64_t longpolls_waiting; /* gauge: suspended ?wait= requests */
};

/* Record a finished request (route index, status, duration). */
void srv_metrics_request(struct srv_metrics *m, int route_index, unsigned status,
                         int64_t duration_us, uint64_t bytes_in, uint64_t bytes_out);
void srv_metrics_observe(struct srv_histogram *h, int64_t duration_us);

/* GET /metrics */
int srv_h_metrics(struct srv_req *r);

/* A reply body built once and sent to several requests (the long-poll
 * wake-up: every waiter of a comparison gets the same document).
 * Immutable after creation; freed with its last reference (any thread). */
struct srv_shared_reply {
	atomic_uint refs;
	unsigned status; /* 200, or the error status of body */
	int final;       /* the comparison is done or failed: will not change */
	size_t len;
	char body[]; /* JSON text, NUL-terminated (not counted in len) */
};

/* Pool of SQLite connections (one per concurrent user, never shared),
 * bounded: at most max_open open at once (0 = no bound), at most
 * max_idle of them kept while unused. */
struct srv_dbpool {
	pthread_mutex_t mu;
	pthread_cond_t returned; /* a connection came back or a slot freed up */
	struct store **free_conns;
	size_t n_free, cap_free;
	size_t n_open;      /* lent out + idle */
	size_t max_open;    /* cfg.max_db_connections */
	size_t max_idle;    /* idle connections kept */
	uint64_t n_refused; /* acquisitions that gave up (pool exhausted) */
	int ready;          /* mutex and condition initialised */
	char path[4200];
	/* the database file opened at start-up (srv_db_pool_pin): read-only
	 * after start; connections are only handed out while path is still
	 * this file */
	int pinned;
	dev_t dev;
	ino_t ino;
	int lost_logged; /* mu */
	/* the checkpointer (srv_db_ckpt_start): connections opened while it
	 * runs leave their WAL checkpoints to it */
	pthread_t ckpt_thread;
	pthread_cond_t ckpt_wake;
	int ckpt_running;        /* set before the HTTP threads start */
	int ckpt_due, ckpt_stop; /* mu */
	int ckpt_cond_live;      /* ckpt_wake initialised (destroyed with the pool) */
	/* PostgreSQL (path is the URL): every connection opened gets this
	 * daemon's owner name and job lease (store_set_job_owner) */
	char owner[128];
	int64_t lease_ms;
	/* times a pooled connection started waiting for the write lock
	 * (store_on_busy): an early insert that holds the lock gives way when
	 * it moves (srv_db_write_waits) */
	atomic_uint_fast64_t write_waits;
};

/* Where an SRV_BODY_UPLOAD route's body goes.  http names no sink: the
 * composition root (routes.c) puts one in the route, and http drives it.
 * open: the sink's state for r, or NULL with *status and *err (a new
 * error object) set; feed: one body chunk, 0 or -1 with *status and *err;
 * abort: the body ended early (client gone, limit): drop what was
 * received; free: release the state (after the handler ran, or aborted). */
struct srv_body_sink {
	void *(*open)(struct srv_req *r, unsigned *status, json_t **err);
	int (*feed)(void *state, const char *data, size_t n, unsigned *status, json_t **err);
	void (*abort)(void *state);
	void (*free)(void *state);
};

/* Body handling a route wants. */
enum srv_body {
	SRV_BODY_NONE = 0,    /* a body is refused (400) */
	SRV_BODY_BUFFER,      /* JSON (Content-Type: application/json, else 415),
	                       * buffered up to cfg.max_json_body */
	SRV_BODY_BUFFER_FORM, /* like SRV_BODY_BUFFER, or multipart/form-data */
	SRV_BODY_UPLOAD       /* streamed to the route's sink (any content type) */
};

typedef int (*srv_handler)(struct srv_req *r);

/* One row of the route table.  The table (NULL-method-terminated) is the
 * composition root's (routes.c), registered in struct srv. */
struct srv_route {
	const char *method;  /* "GET", "POST", "DELETE" */
	const char *pattern; /* "/runs/{id}/logs/{n}": {id} and {n} are integers */
	enum srv_body body;
	srv_handler handler;
	const struct srv_body_sink *sink; /* SRV_BODY_UPLOAD only */
};

/* slots.c: the ingest slots (--max-ingests), fair per client.
 *
 * An upload holds a slot from its headers to its end: its temp files, its
 * parsers and, at the end, the write lock.  A client that trickles its
 * bodies just above --min-upload-rate could hold every slot for the whole
 * --request-timeout, and every other upload got 503 at once.  So:
 *  - one client (its address, or its token's name when it presents a
 *    valid token) holds at most a share of the slots, max / 2 and at
 *    least 1; its further uploads wait like any other;
 *  - an upload that finds no slot for it waits, suspended (it holds no
 *    thread and no slot, its body is not read), up to --ingest-wait
 *    seconds; slots freed go to the waiters in arrival order, skipping
 *    those whose client holds its share; past the wait it gets 503 with
 *    Retry-After, as it did at once before.  At most max_waiting wait;
 *    beyond, 503 at once.
 * The guard thread expires waiters on its tick (srv_slots_expire).
 * Thread-safe (one mutex). */
#define SRV_SLOT_KEY 160

enum srv_slot_state { SRV_SLOT_IDLE = 0, SRV_SLOT_WAITING, SRV_SLOT_GRANTED, SRV_SLOT_EXPIRED };

/* A waiting upload (in its struct srv_req). */
struct srv_slot_wait {
	struct srv_slot_wait *next;      /* the queue */
	struct srv_slot_wait *wake_next; /* woken together */
	char key[SRV_SLOT_KEY];
	int64_t deadline_us; /* CLOCK_MONOTONIC */
	enum srv_slot_state state;
	unsigned slot; /* granted: 1..max */
	void *ctx;     /* the caller's (the request) */
};

struct srv_slots {
	pthread_mutex_t mu;
	unsigned max, share, max_waiting;
	unsigned held, n_waiting;
	char (*holder)[SRV_SLOT_KEY]; /* per slot: its client's key, "" = free */
	struct srv_slot_wait *head, *tail;
	void (*wake)(struct srv_slot_wait *w); /* after a grant or an expiry */
	int ready;
};

/* max slots, at most max_waiting waiters, wake called (without the
 * mutex) for each waiter granted or expired.  0, or -1. */
int srv_slots_init(struct srv_slots *sl, unsigned max, unsigned max_waiting,
                   void (*wake)(struct srv_slot_wait *w));
void srv_slots_free(struct srv_slots *sl);
/* A slot for client key: its number (1..max) when one is free and key
 * is under its share; else 0 with w queued until deadline_us (suspend(w)
 * is called under the mutex, before any wake of w can run); -1 when the
 * queue is full or deadline_us <= 0 (refuse now).  w->ctx is kept. */
long srv_slots_acquire(struct srv_slots *sl, struct srv_slot_wait *w, const char *key,
                       int64_t deadline_us, void (*suspend)(struct srv_slot_wait *w));
/* Free slot (1..max) and grant freed slots to waiters (woken). */
void srv_slots_release(struct srv_slots *sl, unsigned slot);
/* Expire (and wake) the waiters whose deadline is <= now_us; INT64_MAX
 * expires every one (shutdown).  A no-op before init. */
void srv_slots_expire(struct srv_slots *sl, int64_t now_us);
/* Its request ended while waiting: take w out of the queue, or give
 * back the slot granted to it (to the next waiter). */
void srv_slots_leave(struct srv_slots *sl, struct srv_slot_wait *w);

/* The daemon, assembled from per-room state.  Read-only after start-up
 * except for the members guarded by their own mutex.  The rooms above
 * http keep their state behind the opaque pointers below (their headers
 * define the structs; serve.c owns the storage). */
struct srv {
	struct srv_config cfg;          /* read-only after start (base/config.h) */
	const struct srv_route *routes; /* the route table (routes.c) */
	struct MHD_Daemon *daemon;
	struct srv_dbpool db;
	struct srv_metrics metrics;  /* atomics: any thread */
	struct srv_guard guard;      /* slow-client deadlines */
	struct srv_slots slots;      /* ingest slots (slots.c) */
	struct srv_offload *offload; /* reader and render threads (offload.c) */
	/* raw logs: the data directory's raw/, tmp/, quarantine/ and the
	 * engine's raw-log store (store_rawlog.h; srv_rawlog_new) */
	struct store_rawlog *raw;
	struct srv_jobs *jobs;     /* jobs room: workers, long-poll waiters */
	struct srv_hooks *hooks;   /* delivery room: webhook senders */
	struct srv_pgwake *pgwake; /* jobs room: PostgreSQL LISTEN + heartbeat */
};

/* A request driven without libmicrohttpd (handler tests): r->conn is
 * NULL and r->capture points here.  The query string and the request
 * headers come from the NULL-terminated name, value, ... lists (NULL =
 * none; header names compare case-insensitively); the reply that would
 * have been queued is kept: its status, its headers as "Name: value\n"
 * lines and its body (a streamed body is read to its end; broken = 1
 * when the stream ended with an error).  Nothing is suspended: regex
 * reads run inline, long-polls are not available.  Reset with
 * srv_capture_reset (frees the buffers). */
struct srv_capture {
	const char *const *query;
	const char *const *request_headers;
	unsigned status;
	struct buf headers;
	struct buf body;
	int broken;
};
/* The value of header name in c's reply (a thread-local copy, valid
 * until the next call), or NULL. */
const char *srv_capture_header(const struct srv_capture *c, const char *name);
void srv_capture_reset(struct srv_capture *c);

/* One request.  Created on the first libmicrohttpd callback, freed when it
 * completes.  Nothing here may outlive the request. */
struct srv_req {
	struct srv *srv;
	struct MHD_Connection *conn;
	const char *method;
	const char *url;
	const struct srv_route *route;
	int64_t id;       /* {id} path parameter */
	int64_t n;        /* {n} path parameter */
	int error_status; /* set when the body phase failed: reply at the end */
	json_t *error_json;
	int responded;
	uint64_t body_bytes;
	struct buf body;          /* SRV_BODY_BUFFER, SRV_BODY_BUFFER_FORM */
	void *upload;             /* SRV_BODY_UPLOAD: the route sink's state */
	struct store *db;         /* borrowed from the pool while the handler runs */
	int64_t wait_deadline_ms; /* long-poll: answer by then (0 = no wait) */
	/* long-poll: jobs_generation seen before the comparison was read, and
	 * the document the waker hands over when it resumes the request */
	uint64_t wait_generation;
	struct srv_shared_reply *wait_reply;
	int suspended;
	char request_id[72]; /* X-Request-Id: echoed or generated */
	int64_t start_us;    /* monotonic, first callback */
	unsigned status;     /* status queued (access log, metrics) */
	uint64_t bytes_out;  /* response size when known */
	unsigned slot;       /* the ingest slot it holds (1..), 0 = none */
	int slot_waiting;    /* suspended in the first call for a slot */
	struct srv_slot_wait slot_wait;
	int path_has_nul;             /* the raw path held %00: 400 (http.c) */
	int retry_after_s;            /* Retry-After on a 503 */
	struct srv_guard_conn *guard; /* the connection's guard entry (may be NULL) */
	const char *cut_reason;       /* why the daemon closed it early (access log) */
	int token_state;              /* bearer token: 0 not checked yet, 1 valid, -1 none
	                               * or invalid (srv_auth_has_token) */
	char token_name[136];         /* the valid token's name (token_state 1), else "" */
	int client_gone;              /* a read stopped because the client left */
	/* run by an offload thread (offload.c): the reply is kept in deferred
	 * (or deferred_close set) and queued when the connection resumes */
	int in_reader;
	/* set by srv_offload on the libmicrohttpd thread before r is
	 * queued, never cleared: from then on that thread must not touch r
	 * (a reader thread owns it until it resumes the connection) */
	int offloaded;
	int64_t offload_ms; /* when it was queued for a reader (monotonic) */
	int offload_late;   /* waited too long for a reader: answer busy */
	/* the next page of its streamed body, queued for a reader thread
	 * (srv_buf_stream_read_offloaded), else NULL */
	struct srv_page_read *page_read;
	struct srv_capture *capture; /* driven without libmicrohttpd (tests), else NULL */
	struct MHD_Response *deferred;
	unsigned deferred_status;
	int deferred_close;
};

/* ---- router.c: the registered route table ------------------------- */

/* Route lookup in r->srv->routes: sets r->route and the path params.
 * Returns 0 found, 404 no such path, 405 the path exists for other
 * methods. */
int srv_route_find(struct srv_req *r, const char *method, const char *path);
/* Comma-separated methods a path accepts (for the Allow header of a 405). */
void srv_route_allow(const struct srv *s, const char *path, char *out, size_t cap);
/* Route table access for metrics: index of a route, route at an index
 * (NULL past the end). */
int srv_route_index(const struct srv *s, const struct srv_route *rt);
const struct srv_route *srv_route_at(const struct srv *s, size_t i);
/* The URL of r after prefix, one trailing '/' dropped, into out (cap
 * bytes); "" when it does not fit (for {path} and {name} segments, which
 * the handler validates). */
void srv_url_tail(struct srv_req *r, const char *prefix, char *out, size_t cap);

/* ---- http.c: replies ----------------------------------------------- */

/* Queue resp (destroyed here) with the common headers; bytes = body size
 * when known (else -1).  Every handler that builds its own response uses
 * this instead of MHD_queue_response. */
int srv_queue_response(struct srv_req *r, unsigned status, struct MHD_Response *resp,
                       int64_t bytes);

/* Replies (queue a response on r->conn).  Return MHD_YES/MHD_NO to hand
 * straight back to libmicrohttpd.  _json takes ownership of body. */
int srv_reply_json(struct srv_req *r, unsigned status, json_t *body);
/* The one buffered-reply path: body (taken) with the common headers plus
 * `headers`, a NULL-terminated name, value, name, value... list (a NULL
 * value skips its name; NULL list = none). */
int srv_reply_buf_headers(struct srv_req *r, unsigned status, const char *content_type,
                          struct buf *body, const char *const *headers);
/* JSON with a Location header (201/202 of a created resource). */
int srv_reply_json_at(struct srv_req *r, unsigned status, json_t *body, const char *location);
/* Keep only the members keep (a NULL-terminated list) of the object doc:
 * the receipt of a write for a client that may not read what it wrote
 * into (srv_auth_may_read): identifiers and state, no stored data. */
void srv_json_receipt(json_t *doc, const char *const *keep);
/* 200 {"deleted": <path id>} for DELETE handlers. */
int srv_reply_deleted(struct srv_req *r);
/* limit (1..1000, default dflt) and cursor ("" = none) of every list:
 * 0, or -1 with a 400 queued. */
int srv_page_params_or_reply(struct srv_req *r, long long dflt, long long *limit,
                             const char **cursor);
int srv_reply_error(struct srv_req *r, unsigned status, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

int srv_reply_error_json(struct srv_req *r, unsigned status, json_t *err);
/* A streamed reply: status, size bytes (MHD_SIZE_UNKNOWN: chunked) read
 * from read(cls, ...), free_cls(cls) when done (or here on failure),
 * with Content-Type, nosniff and headers (name, value, ..., NULL; a NULL
 * value skips its name).  Every streamed body goes through here. */
int srv_reply_stream(struct srv_req *r, unsigned status, uint64_t size,
                     MHD_ContentReaderCallback read, void *cls,
                     MHD_ContentReaderFreeCallback free_cls, const char *content_type,
                     const char *const *headers);
/* A reply from static bytes that outlive the response (embedded assets). */
int srv_reply_static(struct srv_req *r, unsigned status, const char *content_type, const void *data,
                     size_t len, const char *const *headers);
/* A request header (case-insensitive name), or NULL. */
const char *srv_header(struct srv_req *r, const char *name);
int srv_reply_buf(struct srv_req *r, unsigned status, const char *content_type,
                  struct buf *body); /* takes the buffer's storage */
/* A shared reply: text copied once into a new object with one reference
 * (NULL on OOM); unref drops one (NULL is a no-op). */
struct srv_shared_reply *srv_shared_reply_new(unsigned status, int final, const char *text,
                                              size_t len);
void srv_shared_reply_unref(struct srv_shared_reply *sr);
/* Queue sr as a JSON reply without copying it (the response holds its
 * own reference; the caller keeps its own). */
int srv_reply_shared(struct srv_req *r, struct srv_shared_reply *sr);

/* Stream a file (raw log download) with extra headers: NULL-terminated
 * name, value pairs (headers may be NULL). */
int srv_reply_file(struct srv_req *r, const char *path, const char *content_type,
                   const char *const *headers);
/* The request's database connection (taken from the pool on first use,
 * returned as soon as the handler returns), or NULL with a 503 queued:
 * code "busy" and Retry-After when the pool is exhausted, "database" when
 * the file cannot be opened. */
struct store *srv_db_or_reply(struct srv_req *r);
/* Map a store error code to an HTTP reply (404/409/400/500; a too costly
 * key regex is 400 regex_too_costly; STORE_CANCELLED queues nothing and
 * returns MHD_NO, which closes the connection of the departed client). */
int srv_reply_store_error(struct srv_req *r, int rc);
/* The reply of a read: rc < 0 its store error (doc, if any, dropped),
 * else 200 with doc (taken), or 500 when doc is NULL (out of memory). */
int srv_reply_read(struct srv_req *r, int rc, json_t *doc);

/* The request body as a JSON object (new reference), or NULL with a 400
 * bad_json queued: not JSON (the parser's message and line), not an
 * object, a duplicate key, or nested deeper than SRV_JSON_DEPTH_MAX. */
json_t *srv_body_json_or_reply(struct srv_req *r);

/* End libmicrohttpd's multipart post processor pp (NULL: nothing to end):
 * NULL when the body ended with its closing boundary, else the 400 error
 * object bad_multipart (new reference).  Without that boundary the post
 * processor keeps back the last bytes of the last part (they could start
 * a boundary): a body cut short would lose them silently. */
json_t *srv_multipart_end(struct MHD_PostProcessor *pp);

/* Query parameter helpers (values already %-decoded by libmicrohttpd). */
const char *srv_query(struct srv_req *r, const char *name);
/* Integer parameter: returns 0 (absent: *out = dflt), 1 set, -1 invalid
 * (reply already queued with 400). */
int srv_query_int_or_reply(struct srv_req *r, const char *name, long long lo, long long hi,
                           long long dflt, long long *out);

/* Start the HTTP daemon on cfg.listen_*; the bound port in *bound_port. */
struct MHD_Daemon *srv_http_start(struct srv *s, unsigned *bound_port);

/* ---- dbpool.c -------------------------------------------------------- */

/* How long a request waits for a free connection when all
 * max_db_connections are lent out, before it gets 503 + Retry-After. */
#define SRV_DB_WAIT_MS 300

/* Database pool.  init: 0 or -1; max_open 0 = unbounded (tools). */
int srv_db_pool_init(struct srv_dbpool *pool, const char *path, size_t max_open);
/* Remember the identity of db's file (db opened on pool->path, at
 * start-up, before any thread uses the pool).  0, or -1 when it cannot be
 * told (not pinned: no check). */
int srv_db_pool_pin(struct srv_dbpool *pool, struct store *db);
/* 0 while pool->path is the pinned file (or nothing is pinned); else -1
 * with *code "database_missing" or "database_replaced" and a sentence in
 * why.  One stat(). */
int srv_db_pool_check(struct srv_dbpool *pool, const char **code, char *why, size_t cap);
/* A connection for the calling thread's exclusive use until released.
 * Always NULL (*busy = 0) once the file at the pool's path is not the
 * pinned one: the database files were deleted or replaced under the
 * daemon, whose writes would then be lost; only a restart recovers.
 * When every allowed connection is lent out, waits up to wait_ms for one
 * to come back; NULL then with *busy = 1 (busy may be NULL).  NULL with
 * *busy = 0: the database cannot be opened (logged). */
struct store *srv_db_acquire_wait(struct srv *s, int64_t wait_ms, int *busy);
/* srv_db_acquire_wait with SRV_DB_WAIT_MS. */
struct store *srv_db_acquire(struct srv *s);
/* Give a connection back (NULL is a no-op): kept idle, or closed when
 * enough are idle already. */
void srv_db_release(struct srv *s, struct store *db);
/* How many times a pooled connection has started waiting for SQLite's
 * write lock since start (monotonic; any thread).  A holder of the lock
 * that can let go (server/ingest/stage.c) compares it with the value when
 * it took the lock. */
uint64_t srv_db_write_waits(struct srv_dbpool *pool);
/* Connections open (lent out + idle), idle, and acquisitions refused
 * since start; any pointer may be NULL. */
void srv_db_pool_stats(struct srv_dbpool *pool, size_t *open, size_t *idle, uint64_t *refused);
/* Close every idle connection (lent ones must be back) and the locks
 * (stopping the checkpointer first). */
void srv_db_pool_destroy(struct srv_dbpool *pool);
/* WAL checkpoints on a thread of their own (daemon only, started before
 * any pooled connection is opened): a commit that leaves the WAL large
 * wakes it instead of copying the WAL into the database itself, so an
 * upload's 201 never waits for a checkpoint (store_defer_checkpoints).
 * start: 0, or -1 (the commits keep checkpointing themselves).  stop:
 * joins it; safe when it never started. */
int srv_db_ckpt_start(struct srv_dbpool *pool);
void srv_db_ckpt_stop(struct srv_dbpool *pool);
/* PostgreSQL: this process's owner name of job and delivery claims,
 * "host:pid:<random 32 bits hex>", and the job lease, given to every
 * connection the pool opens from now on. */
void srv_db_pool_owner(struct srv_dbpool *pool, int64_t lease_ms);

/* ---- bufstream.c ----------------------------------------------------- */

/* The read callback of a streamed body (bufstream.c): serve b from *pos;
 * when it is used up, clear it and call fill(ctx) to append the next part
 * (fill sets *done with the last one; -1 ends the response with an error).
 * Returns what libmicrohttpd's content reader expects. */
ssize_t srv_buf_stream_read(struct buf *b, size_t *pos, const int *done, int (*fill)(void *ctx),
                            void *ctx, char *out, size_t max);
/* Queue a streamed CSV download of comparison r->id (bufstream.c): 200,
 * text/csv, Content-Disposition attachment comparison_<id>_<what>.csv,
 * body from read(cls, ...); free_cls(cls) runs when the response is done,
 * or here when it cannot be created (MHD_NO). */
int srv_reply_csv_stream(struct srv_req *r, MHD_ContentReaderCallback read, void *cls,
                         MHD_ContentReaderFreeCallback free_cls, const char *what);

/* ---- keyfilter.c ----------------------------------------------------- */

/* Key filters of list requests (keyfilter.c).  The filter of r: regex q
 * (NULL/"" = none), icase, the store's default time budget and
 * srv_client_gone as cancel callback. */
void srv_key_filter_init(struct srv_req *r, struct store_key_filter *kf, const char *q, int icase);
/* The case mode of the key regex from the query string: 1 insensitive
 * (the default, as on every page and in the offline report), 0 when
 * case=sensitive or icase=0; case=insensitive and icase=1 say the default
 * explicitly.  -1 for any other value, or when case and icase disagree. */
int srv_key_icase(struct srv_req *r);
/* The filter from q and the case mode (srv_key_icase; -1 is a 400
 * bad_parameter) of the query string: 0 = go on (no
 * regex, or running on a reader thread); -1 = stop, because the request
 * was handed to a reader thread (srv_filter_offload) or a 400 (bad icase)
 * or 503 busy is queued.  Handlers call it before any database work. */
int srv_key_filter_or_reply(struct srv_req *r, struct store_key_filter *kf);
/* Time budget of a regex row count ("N of M rows"), on top of the page's
 * own read: half the read budget, so a filtered page or count=1 request
 * costs at most 1.5 x STORE_REGEX_BUDGET_MS of regex work. */
#define SRV_COUNT_BUDGET_MS (STORE_REGEX_BUDGET_MS / 2)

/* srv_offload(r, SRV_OFFLOAD_READ): a regex-filtered request to a
 * reader thread. */
int srv_filter_offload(struct srv_req *r);
/* A streamed body whose pages are regex reads (rows.csv with q): each
 * page after the first is read on a reader thread, not on the
 * libmicrohttpd worker that serves the stream.  fill(ctx) appends the
 * next page to the stream's buffer and sets its done flag (-1: the read
 * failed); it runs on a reader, or here when the pool is stopped or
 * absent, and should use srv_key_filter_init(r, ...) so a read stops
 * when the client leaves. */
struct srv_page_read {
	struct srv_req *r; /* the streaming request (valid while its body is read) */
	int (*fill)(void *ctx);
	void *ctx;
	int failed; /* the last fill failed: the body ends with an error */
};
/* The body reader for such a stream, as srv_buf_stream_read: when b is
 * used up it suspends the connection and queues the next page for a
 * reader thread (which resumes it) and returns 0; a full queue or a
 * failed page ends the body with an error (the client sees a broken
 * transfer, never a short file). */
ssize_t srv_buf_stream_read_offloaded(struct buf *b, size_t *pos, const int *done,
                                      struct srv_page_read *pr, char *out, size_t max);
/* Cancel callback (ctx = struct srv_req *): 1 when the client closed or
 * reset its connection (EOF or hang-up seen without consuming data). */
int srv_client_gone(void *ctx);

/* ---- offload.c: costly requests off the libmicrohttpd workers -------- */

/* What a request is handed over for; each kind has its own threads,
 * bounded queue and longest wait (offload.c): regex reads (half the HTTP
 * threads, 64 queued, 500 ms) and renders: PDF, PNG, the HTML report,
 * pages of many steps (at most 2 threads at a lower CPU priority, 16
 * queued, 30 s). */
enum srv_offload_kind { SRV_OFFLOAD_READ, SRV_OFFLOAD_RENDER, SRV_OFFLOAD_N };

/* Hand r to a thread of its kind: 1 = suspended and queued (the handler
 * returns MHD_YES at once; the thread runs the route's handler again with
 * r->in_reader set and resumes the connection), 0 = go on here (on that
 * thread, or the pool is stopped/absent, or r is driven without
 * libmicrohttpd), -1 = too busy: the queue is full, or on the thread after
 * waiting longer than the kind's bound (the caller answers 503 busy).
 * A database connection r holds is given back when r is queued (the
 * handler runs again from the top). */
int srv_offload(struct srv_req *r, enum srv_offload_kind kind);
/* srv_offload, answering -1 with 503 busy and Retry-After (1 s for reads,
 * 5 s for renders): 0 = go on, -1 = stop (handed over, or 503 queued). */
int srv_offload_or_reply(struct srv_req *r, enum srv_offload_kind kind);
/* Queue page read pr of r's streamed body for a reader thread
 * (SRV_OFFLOAD_READ's queue), r's connection suspended until the page is
 * read (srv_buf_stream_read_offloaded): 1 queued, 0 read it here (no
 * pool, or stopping), -1 the queue is full. */
int srv_offload_page(struct srv_req *r, struct srv_page_read *pr);
/* The pool's threads (serve.c).  Stop: queued reads run (each bounded by
 * its budget), queued renders are answered 503 busy, running ones finish,
 * and their connections are resumed; later requests run inline; call it before MHD_stop_daemon.
 * Free (after MHD_stop_daemon, when no handler can run) stops if needed and releases the pool. */
int srv_offload_start(struct srv *s);
void srv_offload_stop(struct srv *s);
void srv_offload_free(struct srv *s);

/* csrf.c: refusing writes a browser was tricked into sending.
 *
 * The daemon has no cookies, but its default deployment (writes open on
 * loopback) makes every browser on the machine a client: a page on any
 * origin could POST to http://127.0.0.1:8080 (a text/plain body or a form
 * is a CORS "simple request", sent without a preflight).  Two rules, both
 * applied in one place of the dispatch (http.c, first callback, before
 * authentication) so every route, present and future, gets them:
 *
 *  - a write (any method but GET, HEAD, OPTIONS) whose Origin header names
 *    another origin than the daemon's own (the Host header it was reached
 *    by, or --public-url), whose Origin is "null", or that carries
 *    Sec-Fetch-Site: cross-site is refused with 403 cross_origin.  Requests
 *    without Origin (curl, scripts, `parity submit`) are not affected;
 *  - a route that buffers a JSON body requires Content-Type:
 *    application/json (SRV_BODY_BUFFER_FORM, whose handler reads forms, also
 *    multipart/form-data and application/x-www-form-urlencoded),
 *    else 415 unsupported_media_type: no form a browser can send without
 *    a preflight is accepted as JSON.  Uploads (SRV_BODY_UPLOAD) take any
 *    content type (raw logs).
 *
 * Before both, and before routing, the Host header must name this daemon
 * (srv_host_allowed), else 421 misdirected_request: a DNS-rebinding page
 * (evil.example resolving to 127.0.0.1) reaches the daemon with its own
 * name as Host, and would otherwise be "same-origin".  So the first rule
 * trusts only an allowed Host.
 *
 * Thread-safe: no state of its own. */

/* 1 when origin (an Origin header value, "scheme://host[:port]") is the
 * daemon's own: the daemon's scheme (http, unless public_url is https)
 * with the same host and port as the Host header (host may be NULL; a
 * Host without a port means the scheme's default port), or the scheme,
 * host and port of public_url ("" = none).  Host names compare
 * case-insensitively.  "null", a path, a scheme other than http/https, a
 * port with leading zeros or anything unparsable gives 0. */
int srv_origin_is_own(const char *origin, const char *host, const char *public_url);

/* 1 when a Host header value ("name[:port]", the port not considered)
 * names this daemon under cfg: a loopback name (localhost, 127.0.0.0/8,
 * [::1]), the listen address (any IP literal when it is 0.0.0.0 or ::),
 * --public-url's host, or an entry of --allowed-hosts ("*" = any).  A
 * DNS name the attacker controls is none of these.  NULL or unparsable
 * gives 0. */
int srv_host_allowed(const struct srv_config *cfg, const char *host);

/* 1 when the Content-Type value names media type `type` (case-insensitive,
 * parameters such as "; charset=utf-8" allowed), 0 otherwise or when NULL. */
int srv_media_type_is(const char *content_type, const char *type);

/* The decision for one routed request (r->route set): 0 allowed, else 403
 * or 415 with *err a new error object for the reply. */
int srv_csrf_check(struct srv_req *r, json_t **err);

/* auth.c: API tokens and the authentication decision for HTTP requests,
 * plus the two keyed-hash primitives the CI features share (token digests,
 * webhook signatures).
 *
 * Tokens are "pty_" + 43 base64url characters (32 bytes from getrandom).
 * Only SHA-256(token text) is stored.  A request proves itself with
 * `Authorization: Bearer <token>`; the digest is looked up and the stored
 * digest confirmed with CRYPTO_memcmp.  Writes (POST, DELETE) need a token
 * unless cfg.writes_open; reads need one only with cfg.private_reads;
 * GET /healthz and everything under /assets/ are always open.  With
 * private reads every write is also authorised as a read where it reads:
 * a subscription (POST /webhooks) needs a token, and a write's reply
 * leaves out what the client may not read (srv_auth_may_read).
 * Thread-safe: no state of its own. */

/* Check a presented token against the database: 0 valid and not revoked
 * (name_out, when not NULL, gets its name), -1 unknown or revoked (reason
 * in why, a short sentence), -2 database error.  Constant-time confirm. */
int srv_token_verify(struct store *db, const char *token, char *name_out, size_t name_cap,
                     char *why, size_t why_cap);

/* 1 when a request with this method and path must carry a token under cfg. */
int srv_auth_required(const struct srv_config *cfg, const char *method, const char *path);

/* The decision for one request (first libmicrohttpd callback, after route
 * lookup): 0 allowed; otherwise the HTTP status (401, or 503 when the
 * database is unavailable) with *err a new error object for the reply.
 * May borrow r->db from the pool (released with the request). */
int srv_auth_check(struct srv_req *r, json_t **err);

/* 1 when the request carries a valid, unrevoked bearer token, whether or
 * not its route needs one (open reads use it to decide what to show: see
 * h_webhooks.c), else 0; a bad token is not an error here.  Checked once
 * per request (cached in r->token_state); may borrow r->db. */
int srv_auth_has_token(struct srv_req *r);

/* 1 when the request may read stored data: reads are open, or it carries
 * a valid token (srv_auth_has_token).  A write that answers with stored
 * data (a baseline's run, a comparison document, a conflict naming other
 * records) answers a client that may not read without those parts. */
int srv_auth_may_read(struct srv_req *r);

/* formreply.c: the replies to the browser's form posts: how a write that
 * came from an HTML form is answered, the run / comparison list pages and
 * the delete confirmations.
 *
 * A POST whose query has html=1 (the forms' actions carry it) or whose
 * Accept header starts with text/html (a browser navigating) is a form
 * post.  Its success is a 303 See Other to the new resource's page (the
 * "ui" URL of a 201/202, the list page after a delete) and its error an
 * HTML page with the message and a link back, with the same status the
 * API gives.  The same-origin rules (http.h) apply as to every write. */

/* 1 when r is a form post (see above), else 0. */
int srv_form_wants_html(struct srv_req *r);
/* 303 See Other to location (an absolute URL or a path). */
int srv_form_see_other(struct srv_req *r, const char *location);
/* The error object err ({"error":{code,message}}, taken) as an HTML page
 * with status. */
int srv_form_error_page(struct srv_req *r, unsigned status, json_t *err);
/* Where "Back" goes from a refused post or list page (a path). */
const char *srv_form_back(struct srv_req *r);
/* An HTML reply (body taken) with the page headers (same-origin referrer,
 * the page CSP). */
int srv_reply_html(struct srv_req *r, unsigned status, struct buf *body);

/* Remove the members of a decoded form whose value is "" (a form sends
 * every field, the empty ones too: empty means absent). */
void srv_form_drop_empty(json_t *obj);

#endif
