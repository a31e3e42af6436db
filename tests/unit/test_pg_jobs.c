/* test_pg_jobs.c - the job queue with leases on PostgreSQL
 * (store/pg/jobs.c) against the server of PARITY_TEST_DB (pgtest.h: fails
 * without it), on a fresh migrated database:
 *   - two connections claiming concurrently (threads started together)
 *     take every queued job exactly once, oldest first per claimer;
 *   - a live lease blocks other claimers; a heartbeat extends it;
 *   - an expired lease is taken over by another claimer, after which the
 *     old owner's heartbeat and finish are refused and the new owner's
 *     finish is what stays;
 *   - heartbeat_all renews exactly one owner's leases;
 *   - release puts a job back; bad owners / leases / statuses are refused. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "pgclaim.h"
#include "store.h"

#define N_JOBS 300

static char url[1024];

/* a claim with a 60 s lease */
static int job_claim(struct store_pg *pg, const char *owner, int64_t *id)
{
	return store_pg_job_claim(pg, owner, 60000, id);
}

/* Queue n comparisons between the two runs; 0 on success. */
static int queue_jobs(int n)
{
	char sql[512];
	snprintf(sql, sizeof sql,
	         "INSERT INTO comparisons(kind, baseline_id, candidate_id, created_at) "
	         "SELECT 'activation', 1, 2, '2026-01-01T00:00:00Z' FROM generate_series(1, %d)",
	         n);
	return pgtest_exec(url, sql);
}

int main(void)
{
	const char *base = pgtest_base_url();
	CHECK(pgtest_fresh_db(base, "jobs", url, sizeof url) == 0);
	struct store_pg *a = pgtest_connect(url), *b = pgtest_connect(url);
	CHECK(a && b);
	if (!a || !b)
		return check_report();
	CHECK(store_pg_migrate(a, NULL) == 0);
	CHECK(pgtest_exec(url, "INSERT INTO runs(id, name, kind, created_at) VALUES "
	                       "(1, 'a', 'activation', '2026-01-01T00:00:00Z'), "
	                       "(2, 'b', 'activation', '2026-01-01T00:00:00Z')") == 0);

	/* nothing queued */
	int64_t id = -1, id2 = -1;
	CHECK_INT(store_pg_job_claim(a, "A", 1000, &id), STORE_NOT_FOUND);

	/* concurrent claims: every job once */
	CHECK(queue_jobs(N_JOBS) == 0);
	static struct pgclaimer c[2];
	const char *const owners[] = {"host1:1:w0", "host2:1:w0"};
	CHECK_INT(pgclaim_race(url, job_claim, owners, N_JOBS, c), 0);
	CHECK_INT(c[0].rc, 0);
	CHECK_INT(c[1].rc, 0);
	CHECK_INT(c[0].n + c[1].n, N_JOBS);
	/* both took part (on 2 cores they interleave; a claimer that got none
	 * would mean claims serialize on a lock) */
	CHECK(c[0].n > 0 && c[1].n > 0);
	CHECK(c[0].ordered && c[1].ordered);
	/* the database agrees on who holds what */
	char sql[256];
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM comparisons WHERE status = 'running' AND lease_owner = '%s'",
	         c[0].owner);
	CHECK_INT(pgtest_num(url, sql), c[0].n);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM comparisons WHERE status = 'running' AND "
	                          "started_at IS NOT NULL AND lease_until_ms > "
	                          "(extract(epoch FROM now()) * 1000)::bigint + 50000"),
	          N_JOBS);
	CHECK_INT(store_pg_job_claim(b, "B", 1000, &id), STORE_NOT_FOUND);
	CHECK(pgtest_exec(url, "DELETE FROM comparisons") == 0);

	/* a live lease blocks; a heartbeat extends it past its first expiry */
	CHECK(queue_jobs(1) == 0);
	/* margins of 700 ms: the machine may be busy (a late check fails) */
	CHECK_INT(store_pg_job_claim(a, "A", 1500, &id), 0);
	CHECK_INT(store_pg_job_claim(b, "B", 1500, &id2), STORE_NOT_FOUND);
	pgtest_sleep_ms(800);
	CHECK_INT(store_pg_job_heartbeat(a, id, "A", 1500), 0);
	pgtest_sleep_ms(800); /* past the first lease's end */
	CHECK_INT(store_pg_job_claim(b, "B", 1500, &id2), STORE_NOT_FOUND);
	/* another owner cannot extend or finish it */
	CHECK_INT(store_pg_job_heartbeat(b, id, "B", 1500), STORE_NOT_FOUND);
	CHECK(strstr(store_pg_errmsg(b), "does not hold its lease") != NULL);
	CHECK_INT(store_pg_job_finish(b, id, "B", "done", "pass", NULL), STORE_NOT_FOUND);

	/* expiry: B takes it over; A's heartbeat and finish are refused */
	pgtest_sleep_ms(1000); /* past the extended lease's end */
	id2 = -1;
	CHECK_INT(store_pg_job_claim(b, "B", 60000, &id2), 0);
	CHECK_INT(id2, id);
	CHECK_INT(store_pg_job_heartbeat(a, id, "A", 1500), STORE_NOT_FOUND);
	CHECK_INT(store_pg_job_finish(a, id, "A", "failed", NULL, "stale"), STORE_NOT_FOUND);
	CHECK_INT(store_pg_job_finish(b, id, "B", "done", "pass", NULL), 0);
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM comparisons WHERE id = %lld AND status = 'done' AND "
	         "verdict = 'pass' AND error IS NULL AND finished_at IS NOT NULL AND "
	         "lease_owner IS NULL AND lease_until_ms IS NULL",
	         (long long)id);
	CHECK_INT(pgtest_num(url, sql), 1);
	/* a finished job is claimed by nobody, finished twice by nobody */
	CHECK_INT(store_pg_job_claim(a, "A", 1000, &id2), STORE_NOT_FOUND);
	CHECK_INT(store_pg_job_finish(b, id, "B", "done", "pass", NULL), STORE_NOT_FOUND);

	/* release: back to the queue, claimable at once */
	CHECK(queue_jobs(1) == 0);
	CHECK_INT(store_pg_job_claim(a, "A", 60000, &id), 0);
	CHECK_INT(store_pg_job_release(b, id, "B"), STORE_NOT_FOUND);
	CHECK_INT(store_pg_job_release(a, id, "A"), 0);
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM comparisons WHERE id = %lld AND status = 'queued' AND "
	         "started_at IS NULL AND lease_owner IS NULL",
	         (long long)id);
	CHECK_INT(pgtest_num(url, sql), 1);
	CHECK_INT(store_pg_job_claim(b, "B", 60000, &id2), 0);
	CHECK_INT(id2, id);

	/* a daemon renews all its leases at once, nobody else's */
	CHECK(queue_jobs(3) == 0);
	int64_t d[3];
	for (int i = 0; i < 3; i++)
		CHECK_INT(store_pg_job_claim(a, i < 2 ? "daemon-1" : "daemon-2", 1000, &d[i]), 0);
	int renewed = -1;
	CHECK_INT(store_pg_jobs_heartbeat_all(a, "daemon-1", 3600000, &renewed), 0);
	CHECK_INT(renewed, 2);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM comparisons WHERE lease_owner = 'daemon-1' "
	                          "AND lease_until_ms > (extract(epoch FROM now()) * 1000)::bigint "
	                          "+ 3000000"),
	          2);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM comparisons WHERE lease_owner = 'daemon-2' "
	                          "AND lease_until_ms < (extract(epoch FROM now()) * 1000)::bigint "
	                          "+ 2000"),
	          1);
	CHECK_INT(store_pg_jobs_heartbeat_all(a, "daemon-9", 1000, &renewed), 0);
	CHECK_INT(renewed, 0);
	CHECK_INT(store_pg_jobs_heartbeat_all(a, "", 1000, &renewed), STORE_INVALID);

	/* bad arguments */
	CHECK_INT(store_pg_job_claim(a, "", 1000, &id), STORE_INVALID);
	CHECK_INT(store_pg_job_claim(a, NULL, 1000, &id), STORE_INVALID);
	CHECK_INT(store_pg_job_claim(a, "A", 0, &id), STORE_INVALID);
	CHECK_INT(store_pg_job_claim(a, "A", 86400001, &id), STORE_INVALID);
	CHECK_INT(store_pg_job_heartbeat(b, id2, "B", -5), STORE_INVALID);
	CHECK_INT(store_pg_job_finish(b, id2, "B", "running", NULL, NULL), STORE_INVALID);
	CHECK_INT(store_pg_job_finish(b, id2, "B", NULL, NULL, NULL), STORE_INVALID);
	CHECK_INT(store_pg_job_finish(b, id2, "B", "failed", NULL, "it broke"), 0);

	store_pg_close(a);
	store_pg_close(b);
	pgtest_drop_db(base, "jobs");
	return check_report();
}
