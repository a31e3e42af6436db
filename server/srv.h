/* srv.h - the daemon's internal interfaces: the server object, one HTTP
 * request's state, the route table, reply helpers and the database pool.
 *
 * Threading: libmicrohttpd runs handlers on its pool threads.  The
 * struct srv is read-only after start-up except for the members guarded
 * by their own mutex (db pool, job queue signal).  A request's state is
 * touched only by the thread running its callbacks. */
#ifndef PARITY_SRV_H
#define PARITY_SRV_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdint.h>

#include "buf.h"
#include "config.h"
#include "metrics.h"

struct store;
struct store_key_filter;
struct srv_filter_pool;
struct upload;

/* Pool of SQLite connections (one per concurrent user, never shared). */
struct srv_dbpool {
	pthread_mutex_t mu;
	struct store **free_conns;
	size_t n_free, cap_free;
	char path[4200];
};

struct srv {
	struct srv_config cfg; /* read-only after start */
	struct MHD_Daemon *daemon;
	struct srv_dbpool db;
	char raw_dir[4200]; /* <data>/raw */
	char tmp_dir[4200]; /* <data>/tmp */
	/* comparison jobs: workers wait on cv; signalled on new work / stop */
	pthread_mutex_t jobs_mu;
	pthread_cond_t jobs_cv;   /* new job queued or stopping */
	pthread_cond_t done_cv;   /* a comparison finished (long-poll) */
	uint64_t jobs_generation; /* bumped whenever a comparison finishes */
	int stopping;
	pthread_t *worker_threads;
	size_t n_workers;
	pthread_t waker_thread;
	int waker_started;
	struct srv_req **waiters; /* suspended long-polls (jobs_mu) */
	size_t n_waiters, cap_waiters;
	/* webhook senders (webhooks.c): sleep on hooks_cv until a delivery is
	 * due, one is queued (hooks_generation bumped) or they are stopping */
	pthread_mutex_t hooks_mu;
	pthread_cond_t hooks_cv;
	uint64_t hooks_generation;
	int hooks_stopping;
	pthread_t *hook_threads;
	size_t n_hook_threads;
	struct srv_metrics metrics;      /* atomics: any thread */
	struct srv_filter_pool *filters; /* reader threads (keyfilter.c) */
};

/* Body handling a route wants. */
enum srv_body {
	SRV_BODY_NONE = 0, /* a body is refused (400) */
	SRV_BODY_BUFFER,   /* buffered up to cfg.max_json_body (JSON, forms) */
	SRV_BODY_UPLOAD    /* streamed to the upload module */
};

struct srv_req;
typedef int (*srv_handler)(struct srv_req *r);

struct srv_route {
	const char *method;  /* "GET", "POST", "DELETE" */
	const char *pattern; /* "/runs/{id}/logs/{n}": {id} and {n} are integers */
	enum srv_body body;
	srv_handler handler;
};

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
	struct buf body;          /* SRV_BODY_BUFFER */
	struct upload *upload;    /* SRV_BODY_UPLOAD */
	struct store *db;         /* borrowed from the pool for the request */
	int64_t wait_deadline_ms; /* long-poll: answer by then (0 = no wait) */
	int suspended;
	char request_id[72]; /* X-Request-Id: echoed or generated */
	int64_t start_us;    /* monotonic, first callback */
	unsigned status;     /* status queued (access log, metrics) */
	uint64_t bytes_out;  /* response size when known */
	int counted_upload;  /* holds a slot of the ingest cap */
	int retry_after_s;   /* Retry-After on a 503 */
	int timed_out;       /* cut off at the total request deadline */
	int client_gone;     /* a read stopped because the client left */
	/* run by a reader thread (keyfilter.c): the reply is kept in deferred
	 * (or deferred_close set) and queued when the connection resumes */
	int in_reader;
	int64_t offload_ms; /* when it was queued for a reader (monotonic) */
	int offload_late;   /* waited too long for a reader: answer busy */
	struct MHD_Response *deferred;
	unsigned deferred_status;
	int deferred_close;
};

/* Route lookup: sets *route and path params on r.  Returns 0 found, 404 no
 * such path, 405 the path exists for other methods. */
int srv_route_find(struct srv_req *r, const char *method, const char *path);

/* Comma-separated methods a path accepts (for the Allow header of a 405). */
void srv_route_allow(const char *path, char *out, size_t cap);

/* Queue resp (destroyed here) with the common headers; bytes = body size
 * when known (else -1).  Every handler that builds its own response uses
 * this instead of MHD_queue_response. */
int srv_queue_response(struct srv_req *r, unsigned status, struct MHD_Response *resp,
                       int64_t bytes);

/* Route table access for metrics: index of a route, route at an index
 * (NULL past the end). */
int srv_route_index(const struct srv_route *rt);
const struct srv_route *srv_route_at(size_t i);

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
/* 200 {"deleted": <path id>} for DELETE handlers. */
int srv_reply_deleted(struct srv_req *r);
/* limit (1..1000, default dflt) and cursor ("" = none) of every list:
 * 0, or -1 with a 400 queued. */
int srv_page_params_or_reply(struct srv_req *r, long long dflt, long long *limit,
                             const char **cursor);
int srv_reply_error(struct srv_req *r, unsigned status, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* Error object {"error":{"code","message","line"?}} (new reference). */
json_t *srv_error_json(const char *code, unsigned long line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
int srv_reply_error_json(struct srv_req *r, unsigned status, json_t *err);
int srv_reply_buf(struct srv_req *r, unsigned status, const char *content_type,
                  struct buf *body); /* takes the buffer's storage */
/* Stream a file (raw log download). */
int srv_reply_file(struct srv_req *r, const char *path, const char *content_type,
                   const char *download_name);
/* The request's database connection (taken from the pool on first use,
 * returned when the request completes), or NULL with a 503 queued. */
struct store *srv_db_or_reply(struct srv_req *r);
/* Map a store error code to an HTTP reply (404/409/400/500; a too costly
 * key regex is 400 regex_too_costly; STORE_CANCELLED queues nothing and
 * returns MHD_NO, which closes the connection of the departed client). */
int srv_reply_store_error(struct srv_req *r, int rc);

/* Query parameter helpers (values already %-decoded by libmicrohttpd). */
const char *srv_query(struct srv_req *r, const char *name);
/* Integer parameter: returns 0 (absent: *out = dflt), 1 set, -1 invalid
 * (reply already queued with 400). */
int srv_query_int_or_reply(struct srv_req *r, const char *name, long long lo, long long hi,
                           long long dflt, long long *out);

/* Database pool: a connection for the calling thread's exclusive use until
 * released.  NULL on failure (logged). */
struct store *srv_db_acquire(struct srv *s);
void srv_db_release(struct srv *s, struct store *db);
void srv_db_pool_destroy(struct srv_dbpool *pool);

/* Raw-log files, content-addressed by SHA-256 under <data>/raw. */
void srv_blob_path(const struct srv *s, const char *sha256, char *out, size_t cap);
/* Move a finished temp file into place (fsync file + dir).  0 or -1. */
int srv_blob_commit(const struct srv *s, const char *tmp_path, const char *sha256, int *created);
/* Remove blobs no longer referenced by the database (start-up sweep and
 * after deletes).  Errors are logged, not returned. */
void srv_blob_unlink(const struct srv *s, const char *sha256);
void srv_blob_sweep(struct srv *s);
/* Remove raw files no log references that are older than min_age_s;
 * counts them (dry_run: only counts).  Used at start-up and by `parity gc`. */
void srv_blob_sweep_unreferenced(const struct srv *s, struct store *db, long min_age_s, int dry_run,
                                 size_t *files, int64_t *bytes);

/* Handlers (h_*.c). */
int srv_h_healthz(struct srv_req *r);
int srv_h_runs_create(struct srv_req *r);
int srv_h_runs_list(struct srv_req *r);
int srv_h_run_get(struct srv_req *r);
int srv_h_run_delete(struct srv_req *r);
int srv_h_run_log(struct srv_req *r);
int srv_h_run_ops(struct srv_req *r);
int srv_h_run_steps(struct srv_req *r);
int srv_h_comparisons_create(struct srv_req *r);
int srv_h_comparisons_list(struct srv_req *r);
int srv_h_comparison_get(struct srv_req *r);
int srv_h_comparison_rows(struct srv_req *r);
int srv_h_comparison_delete(struct srv_req *r);
int srv_h_comparison_steps(struct srv_req *r);
int srv_h_comparison_steps_csv(struct srv_req *r);
int srv_h_webhooks_create(struct srv_req *r);
int srv_h_webhooks_list(struct srv_req *r);
int srv_h_webhook_delete(struct srv_req *r);
int srv_h_webhook_deliveries(struct srv_req *r);

/* Key filters of list requests (keyfilter.c).  The filter of r: regex q
 * (NULL/"" = none), icase, the store's default time budget and
 * srv_client_gone as cancel callback. */
void srv_key_filter_init(struct srv_req *r, struct store_key_filter *kf, const char *q, int icase);
/* The filter from q and icase=0|1 of the query string: 0 = go on (no
 * regex, or running on a reader thread); -1 = stop, because the request
 * was handed to a reader thread (srv_filter_offload) or a 400 (bad icase)
 * or 503 busy is queued.  Handlers call it before any database work. */
int srv_key_filter_or_reply(struct srv_req *r, struct store_key_filter *kf);
/* Hand a regex-filtered request to a reader thread: 1 = suspended and
 * queued (the handler returns MHD_YES at once; a reader runs the route's
 * handler again with r->in_reader set and resumes the connection), 0 = go
 * on here (on a reader, or the pool is stopped/absent), -1 = too busy: the
 * queue is full, or on the reader after waiting over 500 ms for it (the
 * caller answers 503 busy). */
int srv_filter_offload(struct srv_req *r);
/* The reader threads (serve.c).  Stop: requests handed over so far are
 * run (each read is bounded by its budget) and their connections resumed,
 * later ones run inline; call it before MHD_stop_daemon.  Free (after
 * MHD_stop_daemon, when no handler can run) stops if needed and releases
 * the pool. */
int srv_filters_start(struct srv *s);
void srv_filters_stop(struct srv *s);
void srv_filters_free(struct srv *s);
/* Cancel callback (ctx = struct srv_req *): 1 when the client closed or
 * reset its connection (EOF or hang-up seen without consuming data). */
int srv_client_gone(void *ctx);

/* Add "urls" to a run object. */
void srv_run_add_urls(struct srv *s, json_t *run);

/* Start the HTTP daemon on cfg.listen_*; the bound port in *bound_port. */
struct MHD_Daemon *srv_http_start(struct srv *s, unsigned *bound_port);

/* Logging to stderr with a timestamp. */
void srv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
