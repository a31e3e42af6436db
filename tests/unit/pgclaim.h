/* pgclaim.h - two claimers at once on one queue (jobs, webhook
 * deliveries): each thread opens its own connection, waits at a barrier,
 * then claims until nothing is left, recording ids in claim order.  Used
 * by test_pg_jobs.c and test_pg_deliveries.c.  Header-only. */
#ifndef PARITY_TEST_PGCLAIM_H
#define PARITY_TEST_PGCLAIM_H

#include <pthread.h>
#include <stdlib.h>

#include "pgtest.h"

#define PGCLAIM_MAX 1000

/* One claim (and whatever the test does with it): 0 and *id,
 * STORE_NOT_FOUND when nothing is left, else an error. */
typedef int (*pgclaim_fn)(struct store_pg *pg, const char *owner, int64_t *id);

struct pgclaimer {
	const char *url, *owner;
	pgclaim_fn claim;
	pthread_barrier_t *start;
	int64_t ids[PGCLAIM_MAX + 1];
	int n, rc, ordered; /* ordered: ids came in increasing order */
};

static void *pgclaim_thread(void *p)
{
	struct pgclaimer *c = p;
	struct store_pg *pg = pgtest_connect(c->url);
	c->rc = pg ? 0 : -1;
	c->ordered = 1;
	pthread_barrier_wait(c->start);
	while (c->rc == 0 && c->n <= PGCLAIM_MAX) {
		int64_t id = 0;
		int rc = c->claim(pg, c->owner, &id);
		if (rc == STORE_NOT_FOUND)
			break;
		if (rc != 0) {
			fprintf(stderr, "%s: %s\n", c->owner, store_pg_errmsg(pg));
			c->rc = rc;
			break;
		}
		if (c->n > 0 && id <= c->ids[c->n - 1])
			c->ordered = 0;
		c->ids[c->n++] = id;
	}
	store_pg_close(pg);
	return NULL;
}

/* Run owners[0] and owners[1] at once on url with claim; their results in
 * c[0..1].  Returns how many ids were claimed twice or fall outside
 * 1..max_id (0 is the answer a queue must give). */
static int pgclaim_race(const char *url, pgclaim_fn claim, const char *const owners[2], int max_id,
                        struct pgclaimer c[2])
{
	pthread_barrier_t start;
	pthread_barrier_init(&start, NULL, 2);
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		memset(&c[i], 0, sizeof c[i]);
		c[i].url = url;
		c[i].owner = owners[i];
		c[i].claim = claim;
		c[i].start = &start;
		pthread_create(&th[i], NULL, pgclaim_thread, &c[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);
	fprintf(stderr, "claims: %d + %d\n", c[0].n, c[1].n);
	unsigned char *seen = calloc((size_t)max_id + 1, 1);
	int bad = 0;
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < c[i].n; k++) {
			int64_t j = c[i].ids[k];
			if (j < 1 || j > max_id || seen[j]++)
				bad++;
		}
	free(seen);
	return bad;
}

#endif
