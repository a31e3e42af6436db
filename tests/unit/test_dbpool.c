/* test_dbpool.c - the bounded database pool (server/dbpool.c): at most
 * max_open connections lent out at once, an acquisition past the bound
 * waits for a release and gives up after its wait (busy, counted), a
 * release wakes a waiter, idle connections kept stay bounded, and the
 * statistics GET /metrics shows add up. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "srv.h"
#include "store.h"

static char dir[] = "/tmp/parity-dbpool-______";

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct giver {
	struct srv *s;
	struct store *db;
};

/* Holds a connection a little while (work in progress), then gives it back. */
static void *give_back_later(void *arg)
{
	struct giver *g = arg;
	usleep(100 * 1000);
	srv_db_release(g->s, g->db);
	return NULL;
}

static void test_bound(struct srv *s)
{
	int busy = -1;
	size_t open = 0, idle = 0;
	uint64_t refused = 0;
	struct store *a = srv_db_acquire_wait(s, 0, &busy);
	CHECK(a != NULL);
	CHECK_INT(busy, 0);
	struct store *b = srv_db_acquire_wait(s, 0, &busy);
	CHECK(b != NULL && b != a);
	srv_db_pool_stats(&s->db, &open, &idle, &refused);
	CHECK_INT(open, 2);
	CHECK_INT(idle, 0);
	CHECK_INT(refused, 0);

	/* a third caller waits its time, then gives up: busy, nothing opened */
	int64_t t0 = now_ms();
	struct store *c = srv_db_acquire_wait(s, 80, &busy);
	CHECK(c == NULL);
	CHECK_INT(busy, 1);
	CHECK(now_ms() - t0 >= 80);
	CHECK(srv_db_acquire_wait(s, 0, &busy) == NULL && busy == 1);
	srv_db_pool_stats(&s->db, &open, &idle, &refused);
	CHECK_INT(open, 2);
	CHECK_INT(refused, 2);

	/* a release wakes a waiter, which gets that very connection */
	struct giver g = {s, a};
	pthread_t th;
	CHECK_INT(pthread_create(&th, NULL, give_back_later, &g), 0);
	t0 = now_ms();
	c = srv_db_acquire_wait(s, 10000, &busy);
	CHECK(c == a);
	CHECK_INT(busy, 0);
	CHECK(now_ms() - t0 < 10000);
	pthread_join(th, NULL);
	CHECK(store_schema_version(c) > 0); /* a working connection */

	srv_db_release(s, b);
	srv_db_release(s, c);
	srv_db_release(s, NULL); /* no-op */
	srv_db_pool_stats(&s->db, &open, &idle, &refused);
	CHECK_INT(open, 2);
	CHECK_INT(idle, 2);
	/* idle ones are reused before anything new is opened */
	a = srv_db_acquire(s);
	srv_db_pool_stats(&s->db, &open, &idle, NULL);
	CHECK_INT(open, 2);
	CHECK_INT(idle, 1);
	srv_db_release(s, a);
}

static void test_idle_bound(struct srv *s)
{
	struct store *held[40];
	size_t open = 0, idle = 0;
	for (size_t i = 0; i < 40; i++)
		held[i] = srv_db_acquire_wait(s, 0, NULL);
	for (size_t i = 0; i < 40; i++)
		CHECK(held[i] != NULL);
	srv_db_pool_stats(&s->db, &open, &idle, NULL);
	CHECK_INT(open, 40);
	for (size_t i = 0; i < 40; i++)
		srv_db_release(s, held[i]);
	/* the burst is over: only a few stay open */
	srv_db_pool_stats(&s->db, &open, &idle, NULL);
	CHECK_INT(idle, open);
	CHECK(open >= 1 && open <= 16);
}

int main(void)
{
	char path[256];
	if (!CHECK_MKDTEMP(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof path, "%s/parity.db", dir);
	/* the pool never creates the database (serve.c does at start-up) */
	struct store *first = NULL;
	char err[512];
	CHECK_INT(store_open(path, &first, err, sizeof err), 0);
	store_close(first);
	struct srv *s = calloc(1, sizeof *s);
	CHECK_INT(srv_db_pool_init(&s->db, path, 2), 0);
	test_bound(s);
	srv_db_pool_destroy(&s->db);

	memset(s, 0, sizeof *s);
	CHECK_INT(srv_db_pool_init(&s->db, path, 64), 0);
	test_idle_bound(s);
	srv_db_pool_destroy(&s->db);
	free(s);

	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return check_report();
}
