/* comparisons.c - comparisons as jobs: queue, claim (one atomic UPDATE ...
 * RETURNING, so any number of worker connections can race safely),
 * start-up requeue, the job's read, status and finish.  The other
 * comparison files (comparison_int.h): result rows and steps written and
 * deletion (comparison_rows.c), one comparison and the lists
 * (comparison_views.c), result rows read back with their filters
 * (comparison_walks.c), per-step rows read back (comparison_steps.c).
 *
 * One implementation on both engines through the statement layer
 * (stmt.h).  On PostgreSQL (store/BACKENDS.md sections 2, 4, 5): claims
 * hold a lease of the connection's owner (store/pg/jobs.c) and finishes
 * are owner-checked; queueing and finishing wake other daemons (NOTIFY in
 * the same transaction); key filters run in C over keyset chunks
 * (rows_walk); result rows go in batches of array parameters. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "comparison_int.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

int store_cmp_not_found(struct store *st, int64_t id)
{
	return store_fail(st, STORE_NOT_FOUND, "comparison %lld not found", (long long)id);
}

/* ---- jobs ---------------------------------------------------------------- */

/* The copy of a store_pg_* error into st (they report on the connection's
 * own message buffer); returns rc. */
static int pg_err(struct store *st, int rc)
{
	if (rc < 0)
		snprintf(st->errmsg, sizeof st->errmsg, "%s", store_pg_errmsg(st->pg));
	return rc;
}

/* The lease of this connection's claims (store_set_job_owner), or 60 s. */
static int64_t job_lease_ms(const struct store *st)
{
	return st->lease_ms > 0 ? st->lease_ms : 60000;
}

static pthread_once_t owner_once = PTHREAD_ONCE_INIT;
static char default_owner[128];

static void default_owner_init(void)
{
	char host[64] = "";
	unsigned rnd = 0;
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "host");
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(&rnd, sizeof rnd, 1, f) != 1)
		rnd = (unsigned)time(NULL) ^ (unsigned)getpid();
	if (f)
		fclose(f);
	snprintf(default_owner, sizeof default_owner, "%s:%ld:%08x", host, (long)getpid(), rnd);
}

/* The owner name of this connection's claims: store_set_job_owner's, else
 * one per process ("host:pid:random", as the daemon names itself), so
 * that a store used without a daemon still claims with a lease. */
static const char *job_owner(struct store *st)
{
	if (st->owner[0])
		return st->owner;
	pthread_once(&owner_once, default_owner_init);
	return default_owner;
}

/* PostgreSQL: wake the other daemons' waiters on ev when the current
 * transaction commits (payload: the comparison id). */
static int notify(struct store *st, enum store_pg_event ev, int64_t id)
{
	if (st->backend != STORE_BACKEND_PG)
		return 0;
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)id);
	return pg_err(st, store_pg_notify(st->pg, ev, buf));
}

int store_comparison_create(struct store *st, int64_t baseline_id, int64_t candidate_id,
                            const char *kind, const char *name, const char *policy_json,
                            const char *overrides_text, int64_t *id)
{
	char kb[16], kc[16];
	int owned = 0, rc;
	int64_t got = 0;
	if (!kind || (strcmp(kind, "activation") != 0 && strcmp(kind, "training") != 0))
		return store_fail(st, STORE_INVALID, "kind must be \"activation\" or \"training\"");
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if ((rc = store_run_kind(st, baseline_id, kb, sizeof kb)) < 0 ||
	    (rc = store_run_kind(st, candidate_id, kc, sizeof kc)) < 0)
		goto done;
	if (strcmp(kb, kind) != 0 || strcmp(kc, kind) != 0) {
		rc = store_fail(
		        st, STORE_INVALID,
		        "a %s comparison needs two %s runs (baseline is %s, candidate is %s)", kind,
		        kind, kb, kc);
		goto done;
	}
	struct store_q *s = store_stmt(
	        st, SID_CMP_INSERT,
	        STORE_SQL_NOW("INSERT INTO comparisons(name, kind, baseline_id, candidate_id, "
	                      "policy, overrides, created_at) VALUES (?, ?, ?, ?, ?, ?, ",
	                      ") RETURNING id"));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_text(s, 1, name ? name : "");
	store_q_bind_text(s, 2, kind);
	store_q_bind_i64(s, 3, baseline_id);
	store_q_bind_i64(s, 4, candidate_id);
	store_q_bind_text(s, 5, policy_json);
	store_q_bind_text(s, 6, overrides_text);
	if ((rc = store_q_run_id(s, &got)) != STORE_Q_ROW) {
		rc = store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "creating the comparison");
		goto done;
	}
	if (id)
		*id = got;
	rc = notify(st, STORE_PG_EV_QUEUED, got);
done:
	return store_tx_end_owned(st, owned, rc);
}

int store_comparison_claim(struct store *st, int64_t *id)
{
	int64_t got = -1;
	int rc;
	if (st->backend == STORE_BACKEND_PG) {
		/* several daemons: SKIP LOCKED, a lease, expired ones taken over */
		rc = store_pg_job_claim(st->pg, job_owner(st), job_lease_ms(st), &got);
		if (rc == STORE_NOT_FOUND)
			return store_fail(st, STORE_NOT_FOUND, "no queued comparison");
		if (rc < 0)
			return pg_err(st, rc);
	} else {
		struct store_q *s = store_stmt(
		        st, SID_CMP_CLAIM,
		        "UPDATE comparisons SET status = 'running', started_at = " NOW
		        " WHERE id = (SELECT id FROM comparisons WHERE status = 'queued' "
		        "ORDER BY id LIMIT 1) RETURNING id");
		if (!s)
			return STORE_ERROR;
		while ((rc = store_q_step(s)) == STORE_Q_ROW)
			got = store_q_col_i64(s, 0);
		store_q_done(s);
		if (rc != STORE_Q_DONE)
			return store_q_fail(st, rc, "claiming a comparison");
		if (got < 0)
			return store_fail(st, STORE_NOT_FOUND, "no queued comparison");
	}
	if (id)
		*id = got;
	return 0;
}

int store_comparisons_requeue_running(struct store *st, int *n)
{
	if (n)
		*n = 0;
	/* PostgreSQL: the running jobs may be other daemons' live ones; an
	 * expired lease makes a job claimable again (BACKENDS.md section 5) */
	if (st->backend == STORE_BACKEND_PG)
		return 0;
	struct store_q *s =
	        store_stmt(st, SID_CMP_REQUEUE,
	                   "UPDATE comparisons SET status = 'queued', started_at = NULL "
	                   "WHERE status = 'running'");
	if (!s)
		return STORE_ERROR;
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "requeueing comparisons");
	if (n)
		*n = (int)changed;
	return 0;
}

int store_comparison_requeue(struct store *st, int64_t id)
{
	if (st->backend == STORE_BACKEND_PG) {
		/* only the lease's owner gives it back; else as on SQLite: 0 when
		 * it is no longer (this worker's) running job, NOT_FOUND if gone */
		int rc = store_pg_job_release(st->pg, id, job_owner(st));
		if (rc == STORE_NOT_FOUND)
			return store_cmp_exists(st, id);
		return pg_err(st, rc);
	}
	struct store_q *s =
	        store_stmt(st, SID_CMP_REQUEUE_ONE,
	                   "UPDATE comparisons SET status = 'queued', started_at = NULL "
	                   "WHERE id = ? AND status = 'running'");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "requeueing the comparison");
	if (changed == 0)
		return store_cmp_exists(st, id);
	return 0;
}

static char *col_strdup(struct store_q *s, int col, int *oom)
{
	if (store_q_col_isnull(s, col))
		return NULL;
	char *p = strdup(store_q_col_text(s, col));
	if (!p)
		*oom = 1;
	return p;
}

int store_comparison_job(struct store *st, int64_t id, struct store_comparison_job *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *s =
	        store_stmt(st, SID_CMP_JOB,
	                   "SELECT kind, status, baseline_id, candidate_id, name, policy, "
	                   "overrides FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s), ret = 0, oom = 0;
	if (rc == STORE_Q_ROW) {
		out->id = id;
		snprintf(out->kind, sizeof out->kind, "%s", store_q_col_text(s, 0));
		snprintf(out->status, sizeof out->status, "%s", store_q_col_text(s, 1));
		out->baseline_id = store_q_col_i64(s, 2);
		out->candidate_id = store_q_col_i64(s, 3);
		out->name = col_strdup(s, 4, &oom);
		out->policy_json = col_strdup(s, 5, &oom);
		out->overrides = col_strdup(s, 6, &oom);
		if (oom) {
			store_comparison_job_free(out);
			ret = store_fail(st, STORE_ERROR, "out of memory");
		}
	} else if (rc == STORE_Q_DONE) {
		ret = store_cmp_not_found(st, id);
	} else {
		ret = store_q_fail(st, rc, "reading the comparison");
	}
	store_q_done(s);
	return ret;
}

void store_comparison_job_free(struct store_comparison_job *job)
{
	if (!job)
		return;
	free(job->name);
	free(job->policy_json);
	free(job->overrides);
	job->name = job->policy_json = job->overrides = NULL;
}

int store_comparison_status(struct store *st, int64_t id, char *status_out, size_t cap)
{
	struct store_q *s =
	        store_stmt(st, SID_CMP_STATUS, "SELECT status FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		if (status_out && cap)
			snprintf(status_out, cap, "%s", store_q_col_text(s, 0));
	} else if (rc == STORE_Q_DONE) {
		ret = store_cmp_not_found(st, id);
	} else {
		ret = store_q_fail(st, rc, "reading the comparison");
	}
	store_q_done(s);
	return ret;
}

int store_run_in_comparison(struct store *st, int64_t run_id, int64_t *cmp_id)
{
	struct store_q *s =
	        store_stmt(st, SID_CMP_RUNREF,
	                   "SELECT id FROM comparisons WHERE baseline_id = ?1 "
	                   "UNION ALL SELECT id FROM comparisons WHERE candidate_id = ?1 "
	                   "LIMIT 1");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int rc = store_q_step(s), ret;
	if (rc == STORE_Q_ROW) {
		if (cmp_id)
			*cmp_id = store_q_col_i64(s, 0);
		ret = 1;
	} else if (rc == STORE_Q_DONE) {
		ret = 0;
	} else {
		ret = store_q_fail(st, rc, "checking comparisons of the run");
	}
	store_q_done(s);
	return ret;
}

/* PostgreSQL: the finish of a job the lease's owner holds.  A job
 * without a lease (never claimed, or requeued) may be finished by anyone,
 * as on SQLite; the finisher's name stays in lease_owner, so that a worker
 * whose lease expired and was taken over (by the one that finished it, or
 * still runs it) writes nothing. */
#define FINISH_SQL_PG                                                                              \
	"UPDATE comparisons SET status = ?1, verdict = ?2, result = ?3, error = ?4, "              \
	"finished_at = " PG_NOW_TEXT ", lease_owner = ?6, lease_until_ms = NULL "                  \
	"WHERE id = ?5 AND (lease_owner IS NULL OR lease_owner = ?6)"

int store_comparison_finish(struct store *st, int64_t id, const char *status, const char *verdict,
                            const char *result_json, const char *error)
{
	int owned = 0, rc;
	if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0))
		return store_fail(st, STORE_INVALID, "status must be \"done\" or \"failed\"");
	/* PostgreSQL: the status and its wake-up commit together */
	if (st->backend == STORE_BACKEND_PG && (rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	struct store_q *s =
	        store_stmt(st, SID_CMP_FINISH,
	                   STORE_SQL("UPDATE comparisons SET status = ?, verdict = ?, result = ?, "
	                             "error = ?, finished_at = " NOW " WHERE id = ?",
	                             FINISH_SQL_PG));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_text(s, 1, status);
	store_q_bind_text(s, 2, verdict);
	store_q_bind_text(s, 3, result_json);
	store_q_bind_text(s, 4, error);
	store_q_bind_i64(s, 5, id);
	if (st->backend == STORE_BACKEND_PG)
		store_q_bind_text(s, 6, job_owner(st));
	int64_t changed = 0;
	rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE) {
		rc = store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "finishing the comparison");
		goto done;
	}
	if (changed == 0) {
		rc = store_cmp_exists(st, id);
		if (rc == 0)
			rc = store_fail(
			        st, STORE_NOT_FOUND,
			        "comparison %lld: lease lost (another worker holds or finished "
			        "it), result discarded",
			        (long long)id);
		goto done;
	}
	rc = notify(st, STORE_PG_EV_DONE, id);
done:
	return store_tx_end_owned(st, owned, rc);
}

int store_cmp_exists(struct store *st, int64_t id)
{
	char status[16];
	return store_comparison_status(st, id, status, sizeof status);
}
