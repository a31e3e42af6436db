/* workers.h - background threads: the comparison job workers and the
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
#ifndef PARITY_WORKERS_H
#define PARITY_WORKERS_H

#include <stdint.h>
#include <time.h>

struct srv;
struct srv_req;
struct store;

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

/* Monotonic clock in milliseconds. */
int64_t srv_now_ms(void);
/* The CLOCK_MONOTONIC time ms milliseconds from now, for
 * pthread_cond_timedwait on a condition variable set to that clock. */
struct timespec srv_deadline_in_ms(int64_t ms);

/* Compute one claimed comparison (jobs.c): loads both runs, runs the
 * matcher or the training check, stores rows and result, marks it done or
 * failed.  Returns 0 when the job reached a final state. */
int srv_job_run(struct srv *s, struct store *db, int64_t comparison_id);

#endif
