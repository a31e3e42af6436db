/* test_pg_notify.c - wake-ups with LISTEN/NOTIFY (store/pg/notify.c)
 * against PARITY_TEST_DB (pgtest.h), two connections:
 *   - a notification sent inside a transaction does not wake the waiter
 *     before COMMIT; after it the waiter (blocked in store_pg_wait in
 *     another thread) wakes within 100 ms, with the event and payload;
 *   - a rolled-back notification never arrives;
 *   - a wait with nothing sent times out after its timeout (not much
 *     later); timeout 0 only collects;
 *   - only the channels listened to wake; outside a transaction a notify
 *     is sent at once. */
#include <pthread.h>
#include <time.h>

#include "check.h"
#include "pgtest.h"
#include "store.h"

static char url[1024];

struct got {
	int n;
	enum store_pg_event ev[8];
	char payload[8][32];
};

static void on_wake(void *ctx, enum store_pg_event ev, const char *payload)
{
	struct got *g = ctx;
	if (g->n < 8) {
		g->ev[g->n] = ev;
		snprintf(g->payload[g->n], sizeof g->payload[0], "%s", payload);
	}
	g->n++;
}

/* The waiting side of one round: a thread blocked in store_pg_wait. */
struct waiter {
	struct store_pg *pg;
	int timeout_ms, rc;
	long long woke_ms;
	struct got got;
};

static void *wait_thread(void *p)
{
	struct waiter *w = p;
	w->rc = store_pg_wait(w->pg, w->timeout_ms, on_wake, &w->got);
	w->woke_ms = pgtest_mono_ms();
	return NULL;
}

int main(void)
{
	const char *base = pgtest_base_url();
	CHECK(pgtest_fresh_db(base, "notify", url, sizeof url) == 0);
	struct store_pg *sender = pgtest_connect(url), *listener = pgtest_connect(url);
	CHECK(sender && listener);
	if (!sender || !listener)
		return check_report();
	CHECK_STR(store_pg_channel(STORE_PG_EV_DONE), "parity_done");
	CHECK_STR(store_pg_channel(STORE_PG_EV_QUEUED), "parity_queued");
	CHECK_STR(store_pg_channel(STORE_PG_EV_DELIVERY), "parity_delivery");
	CHECK(store_pg_channel(STORE_PG_N_EVENTS) == NULL);
	CHECK_INT(store_pg_listen(listener, 1u << STORE_PG_EV_DONE | 1u << STORE_PG_EV_QUEUED), 0);

	/* timeout with nothing sent */
	struct got g = {0};
	long long t0 = pgtest_mono_ms();
	CHECK_INT(store_pg_wait(listener, 300, on_wake, &g), 0);
	long long took = pgtest_mono_ms() - t0;
	CHECK(took >= 295 && took < 600);
	CHECK_INT(g.n, 0);
	t0 = pgtest_mono_ms();
	CHECK_INT(store_pg_wait(listener, 0, on_wake, &g), 0);
	CHECK(pgtest_mono_ms() - t0 < 100);

	/* in a transaction: nothing before COMMIT, a wake-up right after */
	for (int round = 0; round < 3; round++) {
		struct waiter w = {.pg = listener, .timeout_ms = 5000};
		CHECK_INT(store_pg_tx_begin(sender), 0);
		CHECK_INT(store_pg_notify(sender, STORE_PG_EV_DONE, "42"), 0);
		pthread_t th;
		pthread_create(&th, NULL, wait_thread, &w);
		pgtest_sleep_ms(250); /* the waiter must still be blocked */
		CHECK_INT(w.woke_ms, 0);
		long long committed = pgtest_mono_ms();
		CHECK_INT(store_pg_tx_commit(sender), 0);
		pthread_join(th, NULL);
		CHECK_INT(w.rc, 1);
		CHECK(w.woke_ms >= committed);
		fprintf(stderr, "round %d: woke %lld ms after COMMIT\n", round,
		        w.woke_ms - committed);
		CHECK(w.woke_ms - committed < 100);
		CHECK_INT(w.got.n, 1);
		CHECK_INT(w.got.ev[0], STORE_PG_EV_DONE);
		CHECK_STR(w.got.payload[0], "42");
	}

	/* rolled back: never delivered */
	CHECK_INT(store_pg_tx_begin(sender), 0);
	CHECK_INT(store_pg_notify(sender, STORE_PG_EV_QUEUED, "lost"), 0);
	CHECK_INT(store_pg_tx_rollback(sender), 0);
	memset(&g, 0, sizeof g);
	CHECK_INT(store_pg_wait(listener, 300, on_wake, &g), 0);
	CHECK_INT(g.n, 0);

	/* a channel not listened to does not wake; outside a transaction a
	 * notify goes at once; two pending ones come back together */
	CHECK_INT(store_pg_notify(sender, STORE_PG_EV_DELIVERY, "7"), 0);
	CHECK_INT(store_pg_wait(listener, 200, on_wake, &g), 0);
	CHECK_INT(store_pg_notify(sender, STORE_PG_EV_QUEUED, NULL), 0);
	CHECK_INT(store_pg_notify(sender, STORE_PG_EV_DONE, "9"), 0);
	pgtest_sleep_ms(100);
	memset(&g, 0, sizeof g);
	CHECK_INT(store_pg_wait(listener, 1000, on_wake, &g), 2);
	CHECK_INT(g.ev[0], STORE_PG_EV_QUEUED);
	CHECK_STR(g.payload[0], "");
	CHECK_INT(g.ev[1], STORE_PG_EV_DONE);
	CHECK_STR(g.payload[1], "9");

	/* bad arguments */
	CHECK_INT(store_pg_notify(sender, STORE_PG_N_EVENTS, "x"), STORE_INVALID);
	static char huge[9000];
	memset(huge, 'x', sizeof huge - 1);
	CHECK_INT(store_pg_notify(sender, STORE_PG_EV_DONE, huge), STORE_INVALID);

	/* a broken connection is an error, not a timeout */
	CHECK_INT(pgtest_num(url, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
	                          "WHERE datname = current_database() AND pid <> pg_backend_pid() "
	                          "AND query LIKE 'LISTEN%'"),
	          1);
	pgtest_sleep_ms(100);
	CHECK_INT(store_pg_wait(listener, 1000, on_wake, &g), STORE_ERROR);

	store_pg_close(sender);
	store_pg_close(listener);
	pgtest_drop_db(base, "notify");
	return check_report();
}
