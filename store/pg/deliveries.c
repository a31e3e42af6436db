/* deliveries.c - webhook delivery claims shared by several daemons, the
 * pattern of jobs.c on webhook_deliveries: a claim selects the pending
 * delivery due first with FOR UPDATE SKIP LOCKED (claimers never get the
 * same row, never wait on each other) and stamps it with claimed_by (the
 * daemon's owner name, migrations/postgresql/011) and claimed_until (the
 * lease, server clock in epoch ms).  Recording an attempt and releasing
 * are owner-checked, so a daemon whose claim expired and was taken over
 * cannot record over the new owner.  At-least-once: an attempt whose
 * claim expired mid-send can be sent again by the next claimer, so the
 * lease must exceed the webhook timeout plus a margin. */
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

int store_pg_delivery_claim(struct store_pg *pg, const char *owner, int64_t lease_ms, int64_t *id)
{
	char lbuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0 || (rc = pg_check_lease(pg, lease_ms)) < 0)
		return rc;
	const char *params[] = {owner, pg_i64(lbuf, lease_ms)};
	/* the selection of store_delivery_claim (SQLite), plus SKIP LOCKED; a
	 * row changed by a concurrent claimer is re-checked against the WHERE
	 * (READ COMMITTED) and passed over */
	rc = pg_row_stmt(pg, PG_SID_DELIVERY_CLAIM,
	                 "UPDATE webhook_deliveries SET claimed_by = $1, claimed_until = " PG_NOW_MS
	                 " + $2::bigint WHERE id = (SELECT id FROM webhook_deliveries "
	                 "WHERE status = 'pending' AND next_attempt_at <= " PG_NOW_MS
	                 " AND (claimed_until IS NULL OR claimed_until <= " PG_NOW_MS ") "
	                 "ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
	                 "RETURNING id",
	                 2, params, "claiming a delivery", id);
	if (rc == STORE_NOT_FOUND)
		pg_fail(pg, rc, "no delivery is due");
	return rc;
}

int store_pg_delivery_heartbeat(struct store_pg *pg, int64_t id, const char *owner,
                                int64_t lease_ms)
{
	char ibuf[24], lbuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0 || (rc = pg_check_lease(pg, lease_ms)) < 0)
		return rc;
	const char *params[] = {pg_i64(ibuf, id), owner, pg_i64(lbuf, lease_ms)};
	return pg_owned_stmt(pg, "delivery", id, PG_SID_DELIVERY_HEARTBEAT,
	                     "UPDATE webhook_deliveries SET claimed_until = " PG_NOW_MS
	                     " + $3::bigint "
	                     "WHERE id = $1::bigint AND status = 'pending' AND claimed_by = $2 "
	                     "AND claimed_until IS NOT NULL RETURNING id",
	                     3, params, "extending a delivery claim");
}

int store_pg_deliveries_heartbeat_all(struct store_pg *pg, const char *owner, int64_t lease_ms,
                                      int *n)
{
	char lbuf[24];
	int rc;
	if (n)
		*n = 0;
	if ((rc = pg_check_owner(pg, owner)) < 0 || (rc = pg_check_lease(pg, lease_ms)) < 0)
		return rc;
	const char *params[] = {owner, pg_i64(lbuf, lease_ms)};
	PGresult *res = NULL;
	rc = pg_stmt_exec(pg, PG_SID_DELIVERY_HEARTBEAT_ALL,
	                  "UPDATE webhook_deliveries SET claimed_until = " PG_NOW_MS
	                  " + $2::bigint WHERE claimed_by = $1 AND status = 'pending' "
	                  "AND claimed_until IS NOT NULL",
	                  2, params, "extending a daemon's delivery claims", &res);
	if (rc == 0 && n)
		*n = atoi(PQcmdTuples(res));
	PQclear(res);
	return rc;
}

int store_pg_delivery_record(struct store_pg *pg, int64_t id, const char *owner, int http_status,
                             const char *error, int64_t duration_ms, const char *outcome,
                             int64_t next_attempt_ms)
{
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0)
		return rc;
	if (!outcome || (strcmp(outcome, "pending") && strcmp(outcome, "delivered") &&
	                 strcmp(outcome, "failed")))
		return pg_fail(pg, STORE_INVALID, "outcome must be pending, delivered or failed");
	char ibuf[24], nbuf[24], hbuf[24], dbuf[24];
	const char *params[] = {pg_i64(ibuf, id), owner, outcome, pg_i64(nbuf, next_attempt_ms),
	                        error};
	/* one statement: the owner-checked update and the attempt row commit
	 * together, with or without a surrounding transaction */
	rc = pg_owned_stmt(pg, "delivery", id, PG_SID_DELIVERY_RECORD,
	                   "UPDATE webhook_deliveries SET status = $3, attempts = attempts + 1, "
	                   "next_attempt_at = $4::bigint, claimed_until = NULL, claimed_by = NULL, "
	                   "last_error = $5, finished_at = CASE WHEN $3 = 'pending' THEN NULL "
	                   "ELSE " PG_NOW_TEXT
	                   " END WHERE id = $1::bigint AND status = 'pending' AND claimed_by = $2 "
	                   "AND claimed_until IS NOT NULL RETURNING id",
	                   5, params, "recording the delivery");
	if (rc < 0)
		return rc;
	const char *aparams[] = {ibuf, http_status > 0 ? pg_i64(hbuf, http_status) : NULL, error,
	                         pg_i64(dbuf, duration_ms < 0 ? 0 : duration_ms)};
	PGresult *res = NULL;
	rc = pg_stmt_exec(pg, PG_SID_DELIVERY_ATTEMPT,
	                  "INSERT INTO webhook_attempts(delivery_id, at, http_status, error, "
	                  "duration_ms) VALUES ($1::bigint, " PG_NOW_TEXT_MS ", $2::bigint, $3, "
	                  "$4::bigint)",
	                  4, aparams, "recording the attempt", &res);
	PQclear(res);
	return rc;
}

int store_pg_delivery_release(struct store_pg *pg, int64_t id, const char *owner)
{
	char ibuf[24];
	int rc;
	if ((rc = pg_check_owner(pg, owner)) < 0)
		return rc;
	const char *params[] = {pg_i64(ibuf, id), owner};
	return pg_owned_stmt(
	        pg, "delivery", id, PG_SID_DELIVERY_RELEASE,
	        "UPDATE webhook_deliveries SET claimed_until = NULL, claimed_by = NULL "
	        "WHERE id = $1::bigint AND claimed_by = $2 AND claimed_until IS NOT NULL "
	        "RETURNING id",
	        2, params, "releasing a delivery");
}

int store_pg_deliveries_release_owner(struct store_pg *pg, const char *owner, int *n)
{
	int rc;
	if (n)
		*n = 0;
	if ((rc = pg_check_owner(pg, owner)) < 0)
		return rc;
	const char *params[] = {owner};
	PGresult *res = NULL;
	rc = pg_stmt_exec(pg, PG_SID_DELIVERY_RELEASE_OWNER,
	                  "UPDATE webhook_deliveries SET claimed_until = NULL, claimed_by = NULL "
	                  "WHERE claimed_by = $1",
	                  1, params, "releasing a daemon's deliveries", &res);
	if (rc == 0 && n)
		*n = atoi(PQcmdTuples(res));
	PQclear(res);
	return rc;
}
