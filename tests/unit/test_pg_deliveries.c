/* test_pg_deliveries.c - webhook delivery claims with a lease
 * (store/pg/deliveries.c) against PARITY_TEST_DB (pgtest.h):
 *   - two connections claiming concurrently take every due delivery
 *     exactly once, and each owner records its own;
 *   - a live claim blocks other claimers; an expired one is claimed
 *     again, after which the old owner can neither record, extend nor
 *     release it (at-least-once: the new owner sends it again);
 *   - a "pending" outcome with a due retry makes it claimable again;
 *     not-yet-due and finished deliveries are not claimed;
 *   - release and release_owner drop claims; bad arguments refused. */
#include "check.h"
#include "pgclaim.h"
#include "store.h"

#define N_DELIVERIES 200

static char url[1024];

/* a claim with a 60 s lease, recorded "delivered" at once by its owner */
static int claim_and_send(struct store_pg *pg, const char *owner, int64_t *id)
{
	int rc = store_pg_delivery_claim(pg, owner, 60000, id);
	if (rc == 0)
		rc = store_pg_delivery_record(pg, *id, owner, 200, NULL, 5, "delivered", 0);
	return rc;
}

/* Queue n deliveries of webhook 1, due at next_ms (epoch ms). */
static int queue(int n, long long next_ms)
{
	char sql[512];
	snprintf(sql, sizeof sql,
	         "INSERT INTO webhook_deliveries(webhook_id, comparison_id, event, url, payload, "
	         "next_attempt_at, created_at) SELECT 1, 1, 'comparison.done', 'http://x', '{}', "
	         "%lld, '2026-01-01T00:00:00Z' FROM generate_series(1, %d)",
	         next_ms, n);
	return pgtest_exec(url, sql);
}

int main(void)
{
	const char *base = pgtest_base_url();
	CHECK(pgtest_fresh_db(base, "deliv", url, sizeof url) == 0);
	struct store_pg *a = pgtest_connect(url), *b = pgtest_connect(url);
	CHECK(a && b);
	if (!a || !b)
		return check_report();
	CHECK_INT(store_pg_migrate(a, NULL), 0);
	CHECK(pgtest_exec(url, "INSERT INTO webhooks(id, url, events, format, created_at) VALUES "
	                       "(1, 'http://x', 'comparison.done', 'generic', 'now')") == 0);
	int64_t id = -1, id2 = -1;
	CHECK_INT(store_pg_delivery_claim(a, "A", 1000, &id), STORE_NOT_FOUND);

	/* concurrent claimers: each delivery once */
	CHECK(queue(N_DELIVERIES, 0) == 0);
	static struct pgclaimer c[2];
	const char *const owners[] = {"host1:1:a", "host2:1:b"};
	CHECK_INT(pgclaim_race(url, claim_and_send, owners, N_DELIVERIES, c), 0);
	CHECK_INT(c[0].rc, 0);
	CHECK_INT(c[1].rc, 0);
	CHECK_INT(c[0].n + c[1].n, N_DELIVERIES);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM webhook_deliveries WHERE status = "
	                          "'delivered' AND attempts = 1 AND claimed_by IS NULL AND "
	                          "claimed_until IS NULL AND finished_at LIKE '____-__-__T%Z'"),
	          N_DELIVERIES);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM webhook_attempts WHERE http_status = 200 "
	                          "AND duration_ms = 5 AND at LIKE '____-__-__T__:__:__.___Z'"),
	          N_DELIVERIES);
	CHECK_INT(store_pg_delivery_claim(a, "A", 1000, &id), STORE_NOT_FOUND);

	/* a live claim blocks; an expired one is taken over */
	CHECK(queue(1, 0) == 0);
	CHECK_INT(store_pg_delivery_claim(a, "A", 200, &id), 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM webhook_deliveries WHERE claimed_by = 'A'"),
	          1);
	CHECK_INT(store_pg_delivery_claim(b, "B", 60000, &id2), STORE_NOT_FOUND);
	pgtest_sleep_ms(120);
	CHECK_INT(store_pg_delivery_heartbeat(a, id, "A", 400), 0);
	pgtest_sleep_ms(180); /* past the first lease, within the extended one */
	CHECK_INT(store_pg_delivery_claim(b, "B", 60000, &id2), STORE_NOT_FOUND);
	pgtest_sleep_ms(400);
	CHECK_INT(store_pg_delivery_claim(b, "B", 60000, &id2), 0);
	CHECK_INT(id2, id);
	CHECK_INT(store_pg_delivery_record(a, id, "A", 200, NULL, 1, "delivered", 0),
	          STORE_NOT_FOUND);
	char msg[96];
	snprintf(msg, sizeof msg, "delivery %lld: this worker does not hold its lease",
	         (long long)id);
	CHECK(strstr(store_pg_errmsg(a), msg) != NULL);
	CHECK_INT(store_pg_delivery_heartbeat(a, id, "A", 1000), STORE_NOT_FOUND);
	CHECK_INT(store_pg_delivery_release(a, id, "A"), STORE_NOT_FOUND);
	/* B's attempt failed: retry due now, so it is claimable again */
	CHECK_INT(store_pg_delivery_record(b, id, "B", 503, "HTTP 503", 12, "pending", 0), 0);
	CHECK_INT(store_pg_delivery_record(b, id, "B", 200, NULL, 1, "delivered", 0),
	          STORE_NOT_FOUND); /* the claim ended with the record */
	CHECK_INT(store_pg_delivery_claim(a, "A", 60000, &id2), 0);
	CHECK_INT(id2, id);
	CHECK_INT(store_pg_delivery_record(a, id, "A", 200, NULL, 1, "delivered", 0), 0);
	char sql[256];
	snprintf(sql, sizeof sql,
	         "SELECT attempts * 10 + (status = 'delivered')::int FROM webhook_deliveries "
	         "WHERE id = %lld",
	         (long long)id);
	CHECK_INT(pgtest_num(url, sql), 21);
	snprintf(
	        sql, sizeof sql,
	        "SELECT count(*) FROM webhook_attempts WHERE delivery_id = %lld AND "
	        "(http_status = 503 AND error = 'HTTP 503' OR http_status = 200 AND error IS NULL)",
	        (long long)id);
	CHECK_INT(pgtest_num(url, sql), 2);

	/* not due yet; failed ones are done */
	CHECK(queue(1, 4102444800000LL) == 0); /* 2100-01-01 */
	CHECK_INT(store_pg_delivery_claim(a, "A", 1000, &id), STORE_NOT_FOUND);
	CHECK(queue(1, 0) == 0);
	CHECK_INT(store_pg_delivery_claim(a, "A", 60000, &id), 0);
	CHECK_INT(store_pg_delivery_record(a, id, "A", 0, "refused", 3, "failed", 0), 0);
	CHECK_INT(store_pg_delivery_claim(a, "A", 60000, &id), STORE_NOT_FOUND);

	/* heartbeat_all: every claim of one owner, no other owner's */
	CHECK(queue(3, 0) == 0);
	int64_t h1 = 0, h2 = 0, h3 = 0;
	int nh = -1;
	CHECK_INT(store_pg_delivery_claim(a, "A", 200, &h1), 0);
	CHECK_INT(store_pg_delivery_claim(a, "A", 200, &h2), 0);
	CHECK_INT(store_pg_delivery_claim(b, "B", 200, &h3), 0);
	CHECK_INT(store_pg_deliveries_heartbeat_all(a, "A", 60000, &nh), 0);
	CHECK_INT(nh, 2);
	CHECK_INT(store_pg_deliveries_heartbeat_all(a, "", 60000, &nh), STORE_INVALID);
	CHECK_INT(store_pg_deliveries_heartbeat_all(a, "A", 0, &nh), STORE_INVALID);
	pgtest_sleep_ms(300); /* A's claims renewed, B's expired */
	CHECK_INT(store_pg_delivery_claim(b, "B2", 60000, &id2), 0);
	CHECK_INT(id2, h3);
	CHECK_INT(store_pg_delivery_claim(b, "B2", 60000, &id2), STORE_NOT_FOUND);
	CHECK_INT(store_pg_deliveries_heartbeat_all(b, "B", 60000, &nh), 0);
	CHECK_INT(nh, 0); /* taken over: no longer B's */
	for (int64_t i = h1; i <= h2; i++)
		CHECK_INT(store_pg_delivery_record(a, i, "A", 200, NULL, 1, "delivered", 0), 0);
	CHECK_INT(store_pg_delivery_record(b, h3, "B2", 200, NULL, 1, "delivered", 0), 0);

	/* release and release_owner */
	CHECK(queue(3, 0) == 0);
	CHECK_INT(store_pg_delivery_claim(a, "A", 60000, &id), 0);
	CHECK_INT(store_pg_delivery_claim(a, "A", 60000, &id2), 0);
	CHECK_INT(store_pg_delivery_release(b, id, "B"), STORE_NOT_FOUND);
	CHECK_INT(store_pg_delivery_release(a, id, "A"), 0);
	int64_t id3 = 0;
	CHECK_INT(store_pg_delivery_claim(b, "B", 60000, &id3), 0);
	CHECK_INT(id3, id); /* released: due first again */
	int n = -1;
	CHECK_INT(store_pg_deliveries_release_owner(a, "A", &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(store_pg_delivery_claim(b, "B", 60000, &id3), 0);
	CHECK_INT(id3, id2);
	CHECK_INT(store_pg_deliveries_release_owner(a, "A", &n), 0);
	CHECK_INT(n, 0);

	/* bad arguments */
	CHECK_INT(store_pg_delivery_claim(a, "", 1000, &id), STORE_INVALID);
	CHECK_INT(store_pg_delivery_claim(a, "A", 0, &id), STORE_INVALID);
	CHECK_INT(store_pg_delivery_claim(a, "A", 86400001, &id), STORE_INVALID);
	CHECK_INT(store_pg_delivery_record(b, id3, "B", 200, NULL, 1, "sent", 0), STORE_INVALID);
	CHECK_INT(store_pg_deliveries_release_owner(a, NULL, &n), STORE_INVALID);

	store_pg_close(a);
	store_pg_close(b);
	pgtest_drop_db(base, "deliv");
	return check_report();
}
