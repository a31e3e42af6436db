/* jobs.h - the jobs room of server/: the comparison workers and the
 * long-poll waker (workers.c), one activation or training job
 * (jobs.c, train_job.c), activation policies (policy.c) and, on
 * PostgreSQL, the threads that tie the daemons of one database together
 * (pgwake.c).  Uses delivery (webhooks queued when a job ends), views
 * (the long-poll document), http and base. */
#ifndef PARITY_SRV_JOBS_H
#define PARITY_SRV_JOBS_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "actcheck.h"
#include "http.h"
#include "store.h"

struct srv;
struct srv_req;
struct store;
struct matcher_train_result;
struct matcher_trainrun;
struct matcher_noise_result;

/* The workers' and long-poll waker's state (workers.c; storage in
 * serve.c).  Workers wait on jobs_cv (new work, stop); the waker on
 * done_cv (a comparison finished). */
struct srv_jobs {
	pthread_mutex_t mu;
	pthread_cond_t jobs_cv; /* new job queued or stopping */
	pthread_cond_t done_cv; /* a comparison finished (long-poll) */
	uint64_t generation;    /* bumped whenever a comparison finishes */
	int stopping;
	pthread_t *worker_threads;
	size_t n_workers;
	pthread_t waker_thread;
	int waker_started;
	struct srv_req **waiters; /* suspended long-polls (mu) */
	size_t n_waiters, cap_waiters;
	int waiters_recheck; /* a waiter may have missed a finish: re-read all (mu) */
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

/* workers.c: background threads: the comparison job workers and the
 * long-poll waker.
 *
 * Jobs are rows in SQLite (status queued -> running -> done|failed).  A
 * worker claims the oldest queued row, computes it (jobs.c) and stores the
 * result in one transaction.  At start-up, rows left 'running' by a killed
 * daemon are queued again, so nothing acknowledged is lost.  Workers sleep
 * on a condition variable (new job, stop) with a bounded timeout as a
 * safety net; nothing busy-waits.
 *
 * Long-poll (GET /comparisons/{id}?wait=S): the handler suspends its
 * connection (holding no database connection) and registers it.  When any
 * comparison finishes, or a deadline passes, the waker reads each
 * comparison that waiters are waiting for ONCE and resumes the waiters it
 * can answer with that shared document (finished, gone, or deadline
 * passed); the rest stay suspended.  Many waiters on one comparison thus
 * cost one read and no connections. */

int srv_workers_start(struct srv *s);
/* Stop accepting work, wake and join every thread, resume every suspended
 * long-poll.  A job being computed finishes first (jobs are bounded). */
void srv_workers_stop(struct srv *s);
/* A comparison was queued: wake one worker. */
void srv_jobs_notify(struct srv *s);

/* Suspend r until its comparison finishes or r->wait_deadline_ms
 * (CLOCK_MONOTONIC milliseconds) passes.  r->wait_generation must hold
 * srv_jobs_generation() from before the request read the comparison, so a
 * finish in between is not missed.  When resumed, r->wait_reply holds
 * the comparison read once for all its waiters (NULL: read it yourself).
 * 0 suspended, -1 not possible (stopping: answer now). */
int srv_wait_suspend(struct srv *s, struct srv_req *r);
/* Bumped whenever a comparison finishes. */
uint64_t srv_jobs_generation(struct srv *s);

/* Compute one claimed comparison (jobs.c): loads both runs, runs the
 * matcher or the training check, stores rows and result, marks it done or
 * failed.  Returns 0 when the job reached a final state. */
int srv_job_run(struct srv *s, struct store *db, int64_t comparison_id);

/* ---- train_job.c: the training comparison job ------------------------ */

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
	/* a candidate against a baseline set (issue 26): the noise check's
	 * result, stored instead of res (res.verdict still holds the verdict) */
	struct matcher_noise_result *noise;
	int rank;
	char **metrics;
	size_t n_metrics;
	long *steps;
	struct matcher_train_row_cell *cells;
	size_t n;
};

/* The training policy of a POST /comparisons request (its "policy",
 * "metrics", "extra_metrics", "thresholds", "min_steps",
 * "allow_warnings", "rank") in its stored text form
 * (matcher_train_policy_format; *text_out malloc'd).  is_set: the
 * request names a baseline set, whose policy is "noise" (the default
 * then; another policy is refused), which two runs cannot use.  0, or -1
 * with a sentence in msg. */
/* 1 when the request's training policy fields resolve to the noise
 * policy (a baseline_name whose entry is a set compares with noise unless
 * another policy is asked for: then with the set's newest run). */
int srv_train_request_is_noise(json_t *req);
int srv_train_policy_from_request(json_t *req, int is_set, char **text_out, char *msg, size_t cap);
/* Compute a claimed training comparison with reads only: rows filled
 * (free with srv_train_rows_free).  0, or -1 with err. */
int srv_train_job_run(struct srv *s, struct store *db, const struct store_comparison_job *job,
                      struct srv_train_rows *rows, char *err, size_t errcap);
/* Store rows inside the job's write transaction: 0 or a STORE_* code. */
int srv_train_rows_store(struct store *db, int64_t cmp_id, const struct srv_train_rows *rows);
void srv_train_rows_free(struct srv_train_rows *rows);

/* policy.c: activation comparison policies from their JSON / CLI forms.
 *
 * JSON: "bitwise", {"name":"bitwise"}, or the tolerance form
 * {"max_hash_distance": 1e-6, "allow_only_ops": ["wait_tensor", ...]}
 * (optionally with "name":"tolerance").  The parsed policy borrows its op
 * names from `storage`, which the caller keeps alive as long as the
 * policy. */

struct srv_act_policy_storage {
	const char **ops; /* malloc'd array of borrowed strings */
	json_t *ref;      /* keeps the strings alive */
};

/* Most bytes of a request's "policy" value (compact JSON), activation or
 * training (issue 23 F4); srv_policy_size_ok checks it. */
#define SRV_POLICY_MAX_BYTES 65536
/* 1 when v (NULL: none) is within SRV_POLICY_MAX_BYTES, else 0 with a
 * sentence naming the limit in msg. */
int srv_policy_size_ok(json_t *v, char *msg, size_t cap);

/* Parse v (NULL = bitwise) into *p.  0, or -1 with a sentence in msg
 * (also when a limit of matcher_act_policy_validate is passed). */
int srv_act_policy_parse(json_t *v, struct matcher_act_policy *p,
                         struct srv_act_policy_storage *storage, char *msg, size_t cap);
void srv_act_policy_storage_free(struct srv_act_policy_storage *storage);

/* ---- pgwake.c --------------------------------------------------------- */

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

#endif
