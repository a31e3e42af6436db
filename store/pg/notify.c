/* notify.c - wake-ups across daemons with LISTEN/NOTIFY (store/BACKENDS.md
 * section 4).  store_pg_notify runs pg_notify() on the caller's
 * connection: inside a transaction the server delivers it at COMMIT (and
 * never after a ROLLBACK).  A waiter keeps a connection of its own that
 * LISTENs, and store_pg_wait poll()s its socket, then PQconsumeInput /
 * PQnotifies.  Notifications sent while no connection listens are lost:
 * callers keep a periodic re-check as the floor (section 4). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pg_int.h"

static const char *const channels[STORE_PG_N_EVENTS] = {"parity_done", "parity_queued",
                                                        "parity_delivery"};

const char *store_pg_channel(enum store_pg_event ev)
{
	return (unsigned)ev < STORE_PG_N_EVENTS ? channels[ev] : NULL;
}

int store_pg_notify(struct store_pg *pg, enum store_pg_event ev, const char *payload)
{
	const char *ch = store_pg_channel(ev);
	if (!ch)
		return pg_fail(pg, STORE_INVALID, "unknown event %d", (int)ev);
	if (payload && strlen(payload) > 7999)
		return pg_fail(pg, STORE_INVALID, "a notification payload is at most 7999 bytes");
	const char *params[] = {ch, payload ? payload : ""};
	PGresult *res = NULL;
	int rc = pg_stmt_exec(pg, PG_SID_NOTIFY, "SELECT pg_notify($1, $2)", 2, params,
	                      "sending a notification", &res);
	PQclear(res);
	return rc;
}

int store_pg_listen(struct store_pg *pg, unsigned mask)
{
	for (int ev = 0; ev < STORE_PG_N_EVENTS; ev++) {
		if (!(mask & (1u << ev)))
			continue;
		/* channel names are the constants above: nothing to quote */
		char sql[64];
		snprintf(sql, sizeof sql, "LISTEN %s", channels[ev]);
		int rc = pg_exec(pg, sql, "listening for wake-ups");
		if (rc < 0)
			return rc;
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Hand every notification libpq has parsed to fn; how many. */
static int collect(struct store_pg *pg,
                   void (*fn)(void *ctx, enum store_pg_event ev, const char *payload), void *ctx)
{
	int n = 0;
	PGnotify *nt;
	while ((nt = PQnotifies(pg->conn))) {
		for (int ev = 0; ev < STORE_PG_N_EVENTS; ev++)
			if (strcmp(nt->relname, channels[ev]) == 0) {
				n++;
				if (fn)
					fn(ctx, (enum store_pg_event)ev,
					   nt->extra ? nt->extra : "");
			}
		PQfreemem(nt);
	}
	return n;
}

int store_pg_wait(struct store_pg *pg, int timeout_ms,
                  void (*fn)(void *ctx, enum store_pg_event ev, const char *payload), void *ctx)
{
	long long deadline = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		if (!PQconsumeInput(pg->conn))
			return pg_fail(pg, STORE_ERROR, "waiting for wake-ups: %s",
			               PQerrorMessage(pg->conn));
		int n = collect(pg, fn, ctx);
		if (n > 0)
			return n;
		long long left = deadline - now_ms();
		if (left <= 0)
			return 0;
		struct pollfd p = {.fd = PQsocket(pg->conn), .events = POLLIN};
		if (p.fd < 0)
			return pg_fail(pg, STORE_ERROR, "waiting for wake-ups: no connection");
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return pg_fail(pg, STORE_ERROR, "waiting for wake-ups: %s",
			               strerror(errno));
	}
}
