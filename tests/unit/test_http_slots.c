/* test_http_slots.c - the http room alone (links parity_srv_http only),
 * issue 23 F8: the ingest slots are fair per client (at most half each,
 * at least 1), waiters are served first come first served skipping
 * clients at their share, and a wait ends at its deadline. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "http.h"

static int n_suspended, n_woken;
static struct srv_slot_wait *last_woken;

static void on_suspend(struct srv_slot_wait *w)
{
	(void)w;
	n_suspended++;
}

static void on_wake(struct srv_slot_wait *w)
{
	n_woken++;
	last_woken = w;
}

static void test_share_and_queue(void)
{
	struct srv_slots sl;
	struct srv_slot_wait w[8];
	memset(w, 0, sizeof w);
	CHECK_INT(srv_slots_init(&sl, 4, 3, on_wake), 0);
	CHECK_INT(sl.share, 2);
	/* one client: half of the slots, then it waits */
	CHECK_INT(srv_slots_acquire(&sl, &w[0], "addr:a", 100, on_suspend), 1);
	CHECK_INT(srv_slots_acquire(&sl, &w[1], "addr:a", 100, on_suspend), 2);
	CHECK_INT(srv_slots_acquire(&sl, &w[2], "addr:a", 100, on_suspend), 0);
	CHECK_INT(n_suspended, 1);
	CHECK_INT(w[2].state, SRV_SLOT_WAITING);
	/* others still get the rest at once */
	CHECK_INT(srv_slots_acquire(&sl, &w[3], "addr:b", 100, on_suspend), 3);
	CHECK_INT(srv_slots_acquire(&sl, &w[4], "token:ci", 100, on_suspend), 4);
	/* all taken: b waits behind a's third */
	CHECK_INT(srv_slots_acquire(&sl, &w[5], "addr:b", 200, on_suspend), 0);
	/* b's slot frees: a's waiter is first but a is at its share, b gets it */
	srv_slots_release(&sl, 3);
	CHECK_INT(n_woken, 1);
	CHECK(last_woken == &w[5]);
	CHECK_INT(w[5].state, SRV_SLOT_GRANTED);
	CHECK_INT(w[5].slot, 3);
	CHECK_INT(w[2].state, SRV_SLOT_WAITING);
	/* a's slot frees: its own waiter takes it */
	srv_slots_release(&sl, 1);
	CHECK_INT(n_woken, 2);
	CHECK(last_woken == &w[2]);
	CHECK_INT(w[2].slot, 1);
	/* a queue of max_waiting (3), then refusals; no wait = refusal */
	CHECK_INT(srv_slots_acquire(&sl, &w[6], "addr:c", 0, on_suspend), -1);
	CHECK_INT(srv_slots_acquire(&sl, &w[0], "addr:c", 50, on_suspend), 0);
	CHECK_INT(srv_slots_acquire(&sl, &w[1], "addr:d", 300, on_suspend), 0);
	CHECK_INT(srv_slots_acquire(&sl, &w[3], "addr:e", 300, on_suspend), 0);
	CHECK_INT(srv_slots_acquire(&sl, &w[6], "addr:f", 300, on_suspend), -1);
	/* deadlines: c's passes first */
	srv_slots_expire(&sl, 60);
	CHECK_INT(n_woken, 3);
	CHECK(last_woken == &w[0]);
	CHECK_INT(w[0].state, SRV_SLOT_EXPIRED);
	/* a waiter whose request ended leaves the queue */
	srv_slots_leave(&sl, &w[1]);
	CHECK_INT(sl.n_waiting, 1);
	srv_slots_expire(&sl, INT64_MAX);
	CHECK_INT(n_woken, 4);
	CHECK(last_woken == &w[3]);
	CHECK_INT(sl.n_waiting, 0);
	srv_slots_free(&sl);
}

static void test_one_slot(void)
{
	struct srv_slots sl;
	struct srv_slot_wait w[2];
	CHECK_INT(srv_slots_init(&sl, 1, 4, on_wake), 0);
	CHECK_INT(sl.share, 1);
	CHECK_INT(srv_slots_acquire(&sl, &w[0], "addr:a", 100, NULL), 1);
	CHECK_INT(srv_slots_acquire(&sl, &w[1], "addr:b", 100, NULL), 0);
	srv_slots_release(&sl, 1);
	CHECK_INT(w[1].state, SRV_SLOT_GRANTED);
	CHECK_INT(w[1].slot, 1);
	srv_slots_release(&sl, 1);
	CHECK_INT(sl.held, 0);
	srv_slots_release(&sl, 1); /* twice: no effect */
	CHECK_INT(sl.held, 0);
	/* a slot granted to a request that ended before taking it is freed */
	CHECK_INT(srv_slots_acquire(&sl, &w[0], "addr:a", 100, NULL), 1);
	CHECK_INT(srv_slots_acquire(&sl, &w[1], "addr:b", 100, NULL), 0);
	srv_slots_release(&sl, 1);
	CHECK_INT(w[1].state, SRV_SLOT_GRANTED);
	CHECK_INT(sl.held, 1);
	srv_slots_leave(&sl, &w[1]);
	CHECK_INT(sl.held, 0);
	CHECK_INT(srv_slots_acquire(&sl, &w[0], "addr:c", 100, NULL), 1);
	srv_slots_free(&sl);
}

int main(void)
{
	test_share_and_queue();
	test_one_slot();
	return check_report();
}
