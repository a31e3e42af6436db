/* jobs.c - the comparison queue on PostgreSQL, shared by several daemons:
 * claims with FOR UPDATE SKIP LOCKED and a lease (lease_owner,
 * lease_until_ms; migrations/postgresql/002) that the owner extends by
 * heartbeat.  A job whose lease expired (its daemon died or hung) is
 * claimable again, so another daemon finishes it; the lost owner's
 * heartbeat and finish then fail (STORE_NOT_FOUND), so it cannot write
 * over the new owner's result.  All times are the server's clock.
 * Limit: at-least-once: a job can run twice (lease expired while its
 * owner was still working), never be finished twice. */
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

#define MAX_LEASE_MS 86400000LL

int pg_check_owner(struct store_pg *pg, const char *owner)
{
	if (!owner || !owner[0])
		return pg_fail(pg, STORE_INVALID, "a lease needs an owner name");
	return 0;
}

int pg_check_lease(struct store_pg *pg, int64_t lease_ms)
{
	if (lease_ms < 1 || lease_ms > MAX_LEASE_MS)
		return pg_fail(pg, STORE_INVALID, "lease %lld ms is outside 1..%lld",
		               (long long)lease_ms, MAX_LEASE_MS);
	return 0;
}

/* Run one statement that changes at most one row: 0 when it changed a row (*id = its RETURNING
 * id when id is non-NULL), STORE_NOT_FOUND when none, else the error. */
int pg_row_stmt(struct store_pg *pg, enum pg_sid sid, const char *sql, int n,
                const char *const *params, const char *what, int64_t *id)
{
	PGresult *res = NULL;
	int rc = pg_stmt_exec(pg, sid, sql, n, params, what, &res);
	if (rc < 0)
		return rc;
	if (PQntuples(res) == 0)
		rc = STORE_NOT_FOUND;
	else if (id)
		rc = pg_col_i64(pg, res, 0, 0, id);
	PQclear(res);
	return rc;
}

int pg_owned_stmt(struct store_pg *pg, const char *kind, int64_t id, enum pg_sid sid,
                  const char *sql, int n, const char *const *params, const char *what)
{
	int rc = pg_row_stmt(pg, sid, sql, n, params, what, NULL);
	if (rc == STORE_NOT_FOUND)
		pg_fail(pg, rc, "%s %lld: this worker does not hold its lease", kind,
		        (long long)id);
	return rc;
}

int store_pg_job_claim(struct store_pg *pg, const char *owner, int64_t lease_ms, int64_t *id)
{
	char lbuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0 || (rc = pg_check_lease(pg, lease_ms)) < 0)
		return rc;
	const char *params[] = {owner, pg_i64(lbuf, lease_ms)};
	/* The inner SELECT locks the oldest claimable row and skips rows other
	 * claimers hold; a row another claimer changed meanwhile is re-checked
	 * against the WHERE (READ COMMITTED) and passed over, so one job goes
	 * to one claimer.  Expired running jobs count as claimable. */
	rc = pg_row_stmt(
	        pg, PG_SID_JOB_CLAIM,
	        "UPDATE comparisons SET status = 'running', started_at = " PG_NOW_TEXT
	        ", lease_owner = $1, lease_until_ms = " PG_NOW_MS " + $2::bigint "
	        "WHERE id = (SELECT id FROM comparisons "
	        "WHERE status = 'queued' OR (status = 'running' AND lease_until_ms < " PG_NOW_MS
	        ") ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id",
	        2, params, "claiming a comparison", id);
	return rc;
}

int store_pg_job_heartbeat(struct store_pg *pg, int64_t id, const char *owner, int64_t lease_ms)
{
	char ibuf[24], lbuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0 || (rc = pg_check_lease(pg, lease_ms)) < 0)
		return rc;
	const char *params[] = {pg_i64(ibuf, id), owner, pg_i64(lbuf, lease_ms)};
	rc = pg_owned_stmt(pg, "comparison", id, PG_SID_JOB_HEARTBEAT,
	                   "UPDATE comparisons SET lease_until_ms = " PG_NOW_MS " + $3::bigint "
	                   "WHERE id = $1::bigint AND status = 'running' AND lease_owner = $2 "
	                   "RETURNING id",
	                   3, params, "extending a job lease");
	return rc;
}

int pg_renew_all(struct store_pg *pg, enum pg_sid sid, const char *sql, const char *owner,
                 int64_t lease_ms, const char *what, int *n)
{
	char lbuf[24];
	int rc;
	if (n)
		*n = 0;
	if ((rc = pg_check_owner(pg, owner)) < 0 || (rc = pg_check_lease(pg, lease_ms)) < 0)
		return rc;
	const char *params[] = {owner, pg_i64(lbuf, lease_ms)};
	PGresult *res = NULL;
	rc = pg_stmt_exec(pg, sid, sql, 2, params, what, &res);
	if (rc == 0 && n)
		*n = atoi(PQcmdTuples(res));
	PQclear(res);
	return rc;
}

int store_pg_jobs_heartbeat_all(struct store_pg *pg, const char *owner, int64_t lease_ms, int *n)
{
	return pg_renew_all(pg, PG_SID_JOB_HEARTBEAT_ALL,
	                    "UPDATE comparisons SET lease_until_ms = " PG_NOW_MS " + $2::bigint "
	                    "WHERE status = 'running' AND lease_owner = $1",
	                    owner, lease_ms, "extending job leases", n);
}

int store_pg_job_finish(struct store_pg *pg, int64_t id, const char *owner, const char *status,
                        const char *verdict, const char *error)
{
	char ibuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0)
		return rc;
	if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0))
		return pg_fail(pg, STORE_INVALID, "a job ends done or failed");
	const char *params[] = {pg_i64(ibuf, id), owner, status, verdict, error};
	rc = pg_owned_stmt(pg, "comparison", id, PG_SID_JOB_FINISH,
	                   "UPDATE comparisons SET status = $3, verdict = $4, error = $5, "
	                   "finished_at = " PG_NOW_TEXT
	                   ", lease_owner = NULL, lease_until_ms = NULL "
	                   "WHERE id = $1::bigint AND status = 'running' AND lease_owner = $2 "
	                   "RETURNING id",
	                   5, params, "finishing a comparison");
	return rc;
}

int store_pg_job_release(struct store_pg *pg, int64_t id, const char *owner)
{
	char ibuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0)
		return rc;
	const char *params[] = {pg_i64(ibuf, id), owner};
	rc = pg_owned_stmt(pg, "comparison", id, PG_SID_JOB_RELEASE,
	                   "UPDATE comparisons SET status = 'queued', started_at = NULL, "
	                   "lease_owner = NULL, lease_until_ms = NULL "
	                   "WHERE id = $1::bigint AND status = 'running' AND lease_owner = $2 "
	                   "RETURNING id",
	                   2, params, "requeueing a comparison");
	return rc;
}
