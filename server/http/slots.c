/* slots.c - the ingest slots (--max-ingests), fair per client (see
 * http.h).  One mutex guards the holders and the queue; wake-ups are
 * made after it is released, suspension under it (so a grant can never
 * come before the request is suspended). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

int srv_slots_init(struct srv_slots *sl, unsigned max, unsigned max_waiting,
                   void (*wake)(struct srv_slot_wait *w))
{
	memset(sl, 0, sizeof *sl);
	sl->max = max ? max : 1;
	sl->share = sl->max / 2 ? sl->max / 2 : 1;
	sl->max_waiting = max_waiting;
	sl->wake = wake;
	sl->holder = calloc(sl->max, sizeof *sl->holder);
	if (!sl->holder || pthread_mutex_init(&sl->mu, NULL) != 0) {
		free(sl->holder);
		sl->holder = NULL;
		return -1;
	}
	sl->ready = 1;
	return 0;
}

void srv_slots_free(struct srv_slots *sl)
{
	if (!sl->ready)
		return;
	pthread_mutex_destroy(&sl->mu);
	free(sl->holder);
	sl->holder = NULL;
	sl->ready = 0;
}

/* Slots key holds.  Caller holds sl->mu. */
static unsigned held_by(const struct srv_slots *sl, const char *key)
{
	unsigned n = 0;
	for (unsigned i = 0; i < sl->max; i++)
		n += sl->holder[i][0] && !strcmp(sl->holder[i], key);
	return n;
}

/* A free slot for key (1-based), or 0 when none is free or key holds
 * its share.  Caller holds sl->mu. */
static unsigned grant(struct srv_slots *sl, const char *key)
{
	if (sl->held >= sl->max || held_by(sl, key) >= sl->share)
		return 0;
	for (unsigned i = 0; i < sl->max; i++)
		if (!sl->holder[i][0]) {
			snprintf(sl->holder[i], sizeof sl->holder[i], "%s", key);
			sl->held++;
			return i + 1;
		}
	return 0;
}

static void unlink_waiter(struct srv_slots *sl, struct srv_slot_wait *prev, struct srv_slot_wait *w)
{
	if (prev)
		prev->next = w->next;
	else
		sl->head = w->next;
	if (sl->tail == w)
		sl->tail = prev;
	w->next = NULL;
	sl->n_waiting--;
}

/* Take out of the queue, in order, each waiter that gets a free slot
 * (now_us == 0: granted) or whose deadline is <= now_us (expired); the
 * list of them (by wake_next) is returned.  Caller holds sl->mu. */
static struct srv_slot_wait *settle(struct srv_slots *sl, int64_t now_us)
{
	struct srv_slot_wait *woken = NULL, **tail = &woken;
	for (struct srv_slot_wait *prev = NULL, *w = sl->head; w;) {
		struct srv_slot_wait *next = w->next;
		unsigned got = now_us ? 0 : grant(sl, w->key);
		if (got || (now_us && w->deadline_us <= now_us)) {
			unlink_waiter(sl, prev, w);
			w->slot = got;
			w->state = got ? SRV_SLOT_GRANTED : SRV_SLOT_EXPIRED;
			*tail = w;
			tail = &w->wake_next;
		} else {
			prev = w;
		}
		w = next;
	}
	return woken;
}

static void wake_all(struct srv_slots *sl, struct srv_slot_wait *list)
{
	while (list) {
		struct srv_slot_wait *next = list->wake_next;
		list->wake_next = NULL;
		if (sl->wake)
			sl->wake(list);
		list = next;
	}
}

long srv_slots_acquire(struct srv_slots *sl, struct srv_slot_wait *w, const char *key,
                       int64_t deadline_us, void (*suspend)(struct srv_slot_wait *w))
{
	long rc;
	pthread_mutex_lock(&sl->mu);
	unsigned slot = grant(sl, key);
	if (slot) {
		rc = (long)slot;
	} else if (sl->n_waiting >= sl->max_waiting || deadline_us <= 0) {
		rc = -1;
	} else {
		w->next = w->wake_next = NULL;
		w->slot = 0;
		snprintf(w->key, sizeof w->key, "%s", key);
		w->deadline_us = deadline_us;
		w->state = SRV_SLOT_WAITING;
		if (sl->tail)
			sl->tail->next = w;
		else
			sl->head = w;
		sl->tail = w;
		sl->n_waiting++;
		if (suspend)
			suspend(w);
		rc = 0;
	}
	pthread_mutex_unlock(&sl->mu);
	return rc;
}

void srv_slots_release(struct srv_slots *sl, unsigned slot)
{
	pthread_mutex_lock(&sl->mu);
	if (slot >= 1 && slot <= sl->max && sl->holder[slot - 1][0]) {
		sl->holder[slot - 1][0] = 0;
		sl->held--;
	}
	/* first come, first served among the waiters under their share */
	struct srv_slot_wait *woken = settle(sl, 0);
	pthread_mutex_unlock(&sl->mu);
	wake_all(sl, woken);
}

void srv_slots_expire(struct srv_slots *sl, int64_t now_us)
{
	if (!sl->ready)
		return;
	pthread_mutex_lock(&sl->mu);
	struct srv_slot_wait *woken = settle(sl, now_us);
	pthread_mutex_unlock(&sl->mu);
	wake_all(sl, woken);
}

void srv_slots_leave(struct srv_slots *sl, struct srv_slot_wait *w)
{
	pthread_mutex_lock(&sl->mu);
	for (struct srv_slot_wait *prev = NULL, *x = sl->head; x; prev = x, x = x->next)
		if (x == w) {
			unlink_waiter(sl, prev, w);
			w->state = SRV_SLOT_EXPIRED;
			break;
		}
	pthread_mutex_unlock(&sl->mu);
	/* out of the queue, w changes no more: a slot granted to it that
	 * its request never took goes to the next waiter */
	if (w->state == SRV_SLOT_GRANTED && w->slot) {
		unsigned slot = w->slot;
		w->slot = 0;
		w->state = SRV_SLOT_EXPIRED;
		srv_slots_release(sl, slot);
	}
}
