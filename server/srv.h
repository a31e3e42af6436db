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
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "config.h"
#include "guard.h"
#include "metrics.h"
#include "store.h"

struct store;
struct store_key_filter;
struct srv_filter_pool;
struct upload;

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
};

/* PostgreSQL only (pgwake.c): the threads that tie the daemons of one
 * database together.  The LISTEN thread turns notifications into the
 * local condition variables; the heartbeat thread renews this daemon's
 * job leases and delivery claims.  Each has a connection of its own,
 * outside the pool. */
struct srv_pgwake {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* stop */
	int ready, stop_listen, stop_beat;
	pthread_t listen_thread, beat_thread;
	int listen_started, beat_started;
	int64_t hook_lease_ms; /* delivery claim lease (webhooks.c) */
};

struct srv {
	struct srv_config cfg; /* read-only after start */
	struct MHD_Daemon *daemon;
	struct srv_dbpool db;
	char raw_dir[4200];        /* <data>/raw */
	char tmp_dir[4200];        /* <data>/tmp */
	char quarantine_dir[4200]; /* <data>/quarantine */
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
	int waiters_recheck; /* a waiter may have missed a finish: re-read all (jobs_mu) */
	/* webhook senders (webhooks.c): sleep on hooks_cv until a delivery is
	 * due, one is queued (hooks_generation bumped) or they are stopping */
	pthread_mutex_t hooks_mu;
	pthread_cond_t hooks_cv;
	uint64_t hooks_generation;
	int hooks_stopping;
	pthread_t *hook_threads;
	size_t n_hook_threads;
	struct srv_metrics metrics;      /* atomics: any thread */
	struct srv_guard guard;          /* slow-client deadlines (guard.h) */
	struct srv_filter_pool *filters; /* reader threads (keyfilter.c) */
	struct srv_pgwake pgwake;        /* PostgreSQL only (pgwake.c) */
};

/* Body handling a route wants. */
enum srv_body {
	SRV_BODY_NONE = 0,    /* a body is refused (400) */
	SRV_BODY_BUFFER,      /* JSON (Content-Type: application/json, else 415),
	                       * buffered up to cfg.max_json_body */
	SRV_BODY_BUFFER_FORM, /* like SRV_BODY_BUFFER, or multipart/form-data */
	SRV_BODY_UPLOAD       /* streamed to the upload module (any content type) */
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
	struct buf body;          /* SRV_BODY_BUFFER, SRV_BODY_BUFFER_FORM */
	struct upload *upload;    /* SRV_BODY_UPLOAD */
	struct store *db;         /* borrowed from the pool while the handler runs */
	int64_t wait_deadline_ms; /* long-poll: answer by then (0 = no wait) */
	/* long-poll: jobs_generation seen before the comparison was read, and
	 * the document the waker hands over when it resumes the request */
	uint64_t wait_generation;
	struct srv_shared_reply *wait_reply;
	int suspended;
	char request_id[72];          /* X-Request-Id: echoed or generated */
	int64_t start_us;             /* monotonic, first callback */
	unsigned status;              /* status queued (access log, metrics) */
	uint64_t bytes_out;           /* response size when known */
	int counted_upload;           /* holds a slot of the ingest cap */
	int retry_after_s;            /* Retry-After on a 503 */
	struct srv_guard_conn *guard; /* the connection's guard entry (may be NULL) */
	const char *cut_reason;       /* why the daemon closed it early (access log) */
	int token_state;              /* bearer token: 0 not checked yet, 1 valid, -1 none
	                               * or invalid (srv_auth_has_token) */
	char token_name[136];         /* the valid token's name (token_state 1), else "" */
	int client_gone;              /* a read stopped because the client left */
	/* run by a reader thread (keyfilter.c): the reply is kept in deferred
	 * (or deferred_close set) and queued when the connection resumes */
	int in_reader;
	/* set by srv_filter_offload on the libmicrohttpd thread before r is
	 * queued, never cleared: from then on that thread must not touch r
	 * (a reader thread owns it until it resumes the connection) */
	int offloaded;
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
/* A shared reply: text copied once into a new object with one reference
 * (NULL on OOM); unref drops one (NULL is a no-op). */
struct srv_shared_reply *srv_shared_reply_new(unsigned status, int final, const char *text,
                                              size_t len);
void srv_shared_reply_unref(struct srv_shared_reply *sr);
/* Queue sr as a JSON reply without copying it (the response holds its
 * own reference; the caller keeps its own). */
int srv_reply_shared(struct srv_req *r, struct srv_shared_reply *sr);
/* GET /comparisons/{id} as a shared reply read with db: 200 with the
 * comparison (final when done or failed) or 404; NULL on OOM. */
struct srv_shared_reply *srv_comparison_reply(struct srv *s, struct store *db, int64_t id);
/* The comparison document (web_comparison_json of store_comparison_get,
 * with its result) as a new reference, or NULL with *rc (may be NULL) the
 * STORE_* code (STORE_NOT_FOUND when missing, STORE_ERROR on OOM). */
json_t *srv_comparison_doc(struct store *db, int64_t id, int *rc);
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

/* Limits on what a client may store (server/limits.c). */
#define SRV_NAME_MAX 1000        /* run and comparison names, bytes */
#define SRV_META_MAX (64 * 1024) /* a run's meta (JSON object text), bytes */
/* 1 when a run or comparison name of n bytes may be stored: at most
 * SRV_NAME_MAX bytes and no NUL byte; else 0. */
int srv_name_ok(const char *name, size_t n);

/* Query parameter helpers (values already %-decoded by libmicrohttpd). */
const char *srv_query(struct srv_req *r, const char *name);
/* Integer parameter: returns 0 (absent: *out = dflt), 1 set, -1 invalid
 * (reply already queued with 400). */
int srv_query_int_or_reply(struct srv_req *r, const char *name, long long lo, long long hi,
                           long long dflt, long long *out);

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
/* url with its password (if any) replaced by PASSWORD, for messages. */
void srv_url_redact(const char *url, char *out, size_t cap);

/* PostgreSQL (pgwake.c).  start: the LISTEN and heartbeat threads, 0 or
 * -1 (logged); stop_listen: joins the LISTEN thread (before the workers
 * stop: nothing is woken after); stop: joins both.  Safe when never
 * started. */
int srv_pgwake_start(struct srv *s);
void srv_pgwake_stop_listen(struct srv *s);
void srv_pgwake_stop(struct srv *s);
/* The LISTEN thread's recovery floor: waiters re-read their comparison
 * at least this often, whatever was (not) notified. */
#define SRV_PG_RECHECK_MS 2000

/* Raw-log files, content-addressed by SHA-256 under <data>/raw; their
 * lifetime rule is explained at the top of blobs.c. */
/* Set raw_dir, tmp_dir and quarantine_dir for a data directory. */
void srv_blob_dirs(struct srv *s, const char *data_dir);
/* The path of sha256's raw file in one form: gz = 1 the compressed one
 * (<sha256>.gz, the original bytes gzip-compressed), 0 the original bytes
 * as they are (<sha256>). */
void srv_blob_path(const struct srv *s, const char *sha256, int gz, char *out, size_t cap);
/* The raw file of sha256 in whichever form exists (path into out): 1 the
 * compressed form, 0 the plain one, -1 none. */
int srv_blob_find(const struct srv *s, const char *sha256, char *out, size_t cap);
/* Put an upload's fsync'ed temp file in place: rename it to its path in
 * form gz (1: the temp file holds the original bytes gzip-compressed), or,
 * when the same bytes are stored already in either form, re-use that file
 * (its mtime is refreshed) and delete the temp file; then raise the
 * raw-file clock.
 * MUST be called inside the write transaction (store_tx_begin) that
 * inserts the logs referencing sha256, which must commit (or roll back
 * and srv_blob_release the file with own = 1) before the lock is let go.
 * *created = 1 when the file was renamed in.  0, or -1 (logged). */
int srv_blob_commit(const struct srv *s, struct store *db, const char *tmp_path, int gz,
                    const char *sha256, int *created);
/* What a release or a sweep did (or, dry run, would do). */
struct srv_blob_tally {
	size_t removed, quarantined;
	int64_t removed_bytes, quarantined_bytes;
};
/* The only way raw files go away.  In one write transaction of db (none
 * may be open on it), the file(s) of each digest of the NULL-terminated
 * list that no log references (either form) are deleted when the
 * raw-file clock vouches for them, else moved to the quarantine directory (logged).  own = 1: files
 * the caller renamed in itself for a commit that failed: deleted when unreferenced.  Counts into t
 * (may be NULL).  0, or -1 when the lock or the database failed (logged; the files stay for the
 * next sweep). */
int srv_blob_release(const struct srv *s, struct store *db, char *const *shas, int own,
                     struct srv_blob_tally *t);
/* Start-up: empty <data>/tmp, then release every unreferenced raw file;
 * logs what it removed and quarantined. */
void srv_blob_sweep(struct srv *s);
/* Release every raw file no log references (a cheap read picks them, then
 * srv_blob_release decides under the lock, a batch at a time); dry_run
 * only counts what would happen.  Used at start-up and by `parity gc`.
 * 0, or -1 on a database failure (logged). */
int srv_blob_sweep_unreferenced(const struct srv *s, struct store *db, int dry_run,
                                struct srv_blob_tally *t);

/* Health (health.c).  Whether the daemon can still store what it
 * acknowledges: <data>, <data>/raw and <data>/tmp accept new files, the
 * database file at its path is the one the daemon opened
 * (srv_db_pool_check), and the database can take the write lock.  0 when healthy, else -1 with a
 * short error code ("storage_unwritable", "database_missing", "database_replaced",
 * "database_unwritable", "database") in *code and a sentence in why.  A few syscalls and no write
 * to the database: cheap enough to poll.  Needs no connection of the caller's. */
int srv_health_check(struct srv *s, const char **code, char *why, size_t cap);
/* The directory part of srv_health_check (also run at start-up). */
int srv_storage_writable(const struct srv *s, char *why, size_t cap);

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
/* rows.csv (h_rows.c): the filtered rows streamed as CSV. */
int srv_h_comparison_rows_csv(struct srv_req *r);
int srv_h_comparison_delete(struct srv_req *r);
int srv_h_comparison_steps(struct srv_req *r);
int srv_h_comparison_steps_csv(struct srv_req *r);
/* PNG charts and PDF reports (h_render.c, documents by render.h) */
int srv_h_comparison_chart(struct srv_req *r);
int srv_h_comparison_pdf(struct srv_req *r);
int srv_h_suite_pdf(struct srv_req *r);
/* The steps.csv document of training comparison id appended to out, read
 * in pages through pool connections of s.  0; 1 when it would exceed
 * max_bytes (out untouched); -1 on error. */
int srv_steps_csv(struct srv *s, int64_t id, struct buf *out, size_t max_bytes);
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
/* GET /runs/{id}/losses.txt (h_losses.c): a golden loss file, streamed. */
int srv_h_run_losses(struct srv_req *r);
int srv_h_webhooks_create(struct srv_req *r);
int srv_h_webhooks_list(struct srv_req *r);
int srv_h_webhook_delete(struct srv_req *r);
/* golden baselines and suites (h_baselines.c, issue 16) */
int srv_h_baselines_list(struct srv_req *r);
int srv_h_baseline_get(struct srv_req *r);
int srv_h_baseline_put(struct srv_req *r);
int srv_h_suite_get(struct srv_req *r);
int srv_h_webhook_deliveries(struct srv_req *r);

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
/* The row filters of /comparisons/{id}/rows and rows.csv (h_comparisons.c):
 * rank (-1 all), status, method, phase, origin (-1 any), the key filter
 * (q, case).  Strings borrowed from the query string. */
/* Time budget of a regex row count ("N of M rows"), on top of the page's
 * own read: half the read budget, so a filtered page or count=1 request
 * costs at most 1.5 x STORE_REGEX_BUDGET_MS of regex work. */
#define SRV_COUNT_BUDGET_MS (STORE_REGEX_BUDGET_MS / 2)
struct srv_row_filters {
	int rank, origin;
	const char *status, *method, *phase;
	struct store_key_filter kf;
};
/* Parse and check them, then take a database connection and check that
 * the comparison r->id exists: 0 = go on (r->db set), -1 = a reply (400,
 * 404, 503) is queued or the request went to a reader thread (q set). */
int srv_row_filters_or_reply(struct srv_req *r, struct srv_row_filters *rf);
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
/* The per-step rows of a training comparison (train_job.c), computed
 * with reads only and stored by the job's one write transaction: rank,
 * the metric names (n_metrics) and per common step its number and
 * n_metrics cells (cells[i * n_metrics + k]).  malloc'd; free with
 * srv_train_rows_free (a zeroed value is empty). */
struct srv_train_rows {
	/* the typed result (res.verdict when has_result), borrowing check,
	 * a and b, which the value owns; notes' pointers in arena */
	int has_result;
	struct store_train_result res;
	struct matcher_train_result *check;
	struct matcher_trainrun *a, *b;
	struct arena arena;
	int rank;
	char **metrics;
	size_t n_metrics;
	long *steps;
	struct matcher_train_row_cell *cells;
	size_t n;
};

void srv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
