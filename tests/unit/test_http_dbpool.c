/* test_http_dbpool.c - the bounded database pool (server/http/dbpool.c): at most
 * max_open connections lent out at once, an acquisition past the bound
 * waits for a release and gives up after its wait (busy, counted), a
 * release wakes a waiter, idle connections kept stay bounded, and the
 * statistics GET /metrics shows add up; database URLs in messages hide
 * their password; the owner name of a daemon's PostgreSQL claims. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "http.h"
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

/* URLs in messages: the password, in the authority or the query, is
 * replaced; the rest stays. */
static void test_redact(void)
{
	char out[256];
	srv_url_redact("postgresql://parity:s3cret@db:5432/parity", out, sizeof out);
	CHECK_STR(out, "postgresql://parity:PASSWORD@db:5432/parity");
	srv_url_redact("postgresql://parity@db/parity", out, sizeof out);
	CHECK_STR(out, "postgresql://parity@db/parity");
	srv_url_redact("postgresql://db/parity?user=u&password=s3cret&sslmode=require", out,
	               sizeof out);
	CHECK_STR(out, "postgresql://db/parity?user=u&password=PASSWORD&sslmode=require");
	srv_url_redact("postgres://db:5432/parity?password=s3cret", out, sizeof out);
	CHECK_STR(out, "postgres://db:5432/parity?password=PASSWORD");
	srv_url_redact("/data/parity.db", out, sizeof out);
	CHECK_STR(out, "/data/parity.db");
	/* the owner name of a daemon's claims: host:pid:8 hex digits */
	struct srv_dbpool pool;
	memset(&pool, 0, sizeof pool);
	srv_db_pool_owner(&pool, 60000);
	char host[64];
	long pid = 0;
	unsigned rnd = 0;
	char tail = 0;
	CHECK_INT(sscanf(pool.owner, "%63[^:]:%ld:%8x%c", host, &pid, &rnd, &tail), 3);
	CHECK_INT(pid, (long)getpid());
	CHECK_INT(strlen(strrchr(pool.owner, ':') + 1), 8);
	CHECK_INT(pool.lease_ms, 60000);
}

int main(void)
{
	char path[256];
	test_redact();
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
