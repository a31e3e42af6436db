/* pgtest.h - PostgreSQL for the unit tests: the server named by
 * PARITY_TEST_DB (a postgresql:// URL of a role that may create
 * databases; deploy/dev.sh test starts one with tests/pg/cluster.sh) and
 * a fresh database per test, dropped at the end.
 * Under ctest, tests/pg/needs_db.sh runs the test only when PARITY_TEST_DB
 * is set; unset, it skips (exit 77) outside CI and fails when CI=true.
 * Run by hand without PARITY_TEST_DB, or with a URL that is not
 * postgresql://, a test FAILS (exit 1); only with PARITY_ALLOW_SKIP=1
 * (never in CI; deploy/dev.sh refuses it there) does it exit 77.
 * Header-only: each test is one translation unit. */
#ifndef PARITY_TEST_PGTEST_H
#define PARITY_TEST_PGTEST_H

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pg.h"
#include "store.h"

/* The server URL, or exit as described above. */
static inline const char *pgtest_base_url(void)
{
	const char *url = getenv("PARITY_TEST_DB");
	if (url && store_is_pg_url(url))
		return url;
	const char *why = url && url[0] ? "PARITY_TEST_DB is not a postgresql:// URL"
	                                : "PARITY_TEST_DB is not set";
	if (getenv("PARITY_ALLOW_SKIP") && strcmp(getenv("PARITY_ALLOW_SKIP"), "1") == 0) {
		printf("SKIP: %s (PARITY_ALLOW_SKIP=1)\n", why);
		exit(77);
	}
	fprintf(stderr,
	        "FAIL: %s: start a cluster with `tests/pg/cluster.sh start` and export its URL "
	        "(deploy/dev.sh test does; PARITY_ALLOW_SKIP=1 skips visibly)\n",
	        why);
	exit(1);
}

static inline void pgtest_quiet(void *arg, const char *message)
{
}

/* Run sql on url; 0 on success, else prints why. */
static inline int pgtest_exec(const char *url, const char *sql)
{
	PGconn *c = PQconnectdb(url);
	int ok = PQstatus(c) == CONNECTION_OK;
	PQsetNoticeProcessor(c, pgtest_quiet, NULL); /* "... does not exist, skipping" */
	if (ok) {
		PGresult *r = PQexec(c, sql);
		ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
		if (!ok)
			fprintf(stderr, "pgtest: %s: %s", sql, PQresultErrorMessage(r));
		PQclear(r);
	} else {
		fprintf(stderr, "pgtest: %s", PQerrorMessage(c));
	}
	PQfinish(c);
	return ok ? 0 : -1;
}

/* Create the empty database parity_t_<tag>_<pid> on the server of base
 * and write its URL (base with the database part replaced) into out.
 * 0, or -1 (printed). */
static inline int pgtest_fresh_db(const char *base, const char *tag, char *out, size_t cap)
{
	char name[96], sql[160];
	snprintf(name, sizeof name, "parity_t_%s_%ld", tag, (long)getpid());
	snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s", name);
	if (pgtest_exec(base, sql) < 0)
		return -1;
	snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
	if (pgtest_exec(base, sql) < 0)
		return -1;
	/* postgresql://authority/dbname?params: replace dbname */
	const char *auth = strstr(base, "://") + 3;
	const char *path = strchr(auth, '/');
	const char *query = strchr(auth, '?');
	size_t head = path ? (size_t)(path - base) : query ? (size_t)(query - base) : strlen(base);
	if (path && query && query < path)
		head = (size_t)(query - base);
	int n = snprintf(out, cap, "%.*s/%s%s", (int)head, base, name, query ? query : "");
	return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Drop the database pgtest_fresh_db made for tag (connections closed). */
static inline void pgtest_drop_db(const char *base, const char *tag)
{
	char sql[160];
	snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS parity_t_%s_%ld WITH (FORCE)", tag,
	         (long)getpid());
	pgtest_exec(base, sql);
}

/* A store_pg connection to url, or NULL (printed). */
static inline struct store_pg *pgtest_connect(const char *url)
{
	struct store_pg *pg = NULL;
	char err[256];
	if (store_pg_open(url, &pg, err, sizeof err) != 0)
		fprintf(stderr, "pgtest: open: %s\n", err);
	return pg;
}

/* Sleep ms milliseconds; the monotonic clock in ms. */
static inline void pgtest_sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&t, NULL);
}

static inline long long pgtest_mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The first column of the first row of sql on url as a number; -1 on
 * error or no row (printed). */
static inline long long pgtest_num(const char *url, const char *sql)
{
	long long v = -1;
	PGconn *c = PQconnectdb(url);
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		v = atoll(PQgetvalue(r, 0, 0));
	else
		fprintf(stderr, "pgtest: %s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	return v;
}

#endif
