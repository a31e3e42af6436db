/* srvtest.h - drive the daemon's handlers without libmicrohttpd: a struct
 * srv on a fresh data directory (SQLite, migrations applied, a pool of
 * connections, the configuration of `parity serve --data DIR` plus any
 * flags given), and one call per request, whose reply is captured
 * (http.h, struct srv_capture).  No socket, no thread: a handler test
 * exercises exactly the handler and the rooms it links.
 *
 * Header-only; include it once per test executable, after check.h. */
#ifndef PARITY_SRVTEST_H
#define PARITY_SRVTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http.h"
#include "store.h"

struct srvtest {
	struct srv srv;
	char dir[128];
};

/* A daemon state on a new temp dir; extra: more `serve` flags (NULL-
 * terminated, may be NULL).  0 or -1. */
static inline int srvtest_open(struct srvtest *t, const char *const *extra)
{
	memset(t, 0, sizeof *t);
	snprintf(t->dir, sizeof t->dir, "/tmp/parity-srvtest.XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	char *argv[32] = {"serve", "--data", t->dir};
	int argc = 3;
	for (size_t i = 0; extra && extra[i] && argc < 31; i++)
		argv[argc++] = (char *)extra[i];
	if (srv_config_load(&t->srv.cfg, argc, argv) != 0)
		return -1;
	char path[300], err[512];
	snprintf(path, sizeof path, "%s/parity.db", t->dir);
	struct store *db;
	if (store_open(path, &db, err, sizeof err) < 0) { /* applies the migrations */
		fprintf(stderr, "srvtest: %s\n", err);
		return -1;
	}
	store_close(db);
	return srv_db_pool_init(&t->srv.db, path, 0);
}

static inline void srvtest_close(struct srvtest *t)
{
	srv_db_pool_destroy(&t->srv.db);
	store_rawlog_free(t->srv.raw); /* srvtest_ingest_dirs */
	t->srv.raw = NULL;
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "srvtest: could not remove %s\n", t->dir);
}

/* A request of t driven without libmicrohttpd, its reply into c (reset
 * first), with the query and request headers given (may be NULL). */
static inline void srvtest_req_init(struct srvtest *t, struct srv_req *r, const char *method,
                                    const char *url, const char *const *query,
                                    const char *const *headers, struct srv_capture *c)
{
	srv_capture_reset(c);
	c->query = query;
	c->request_headers = headers;
	memset(r, 0, sizeof *r);
	r->srv = &t->srv;
	r->method = method;
	r->url = url;
	r->id = r->n = -1;
	r->capture = c;
	snprintf(r->request_id, sizeof r->request_id, "srvtest");
}

/* A request to handler h: method, url (the path; id is its {id}, -1 when
 * none), the query and request headers (name, value, ..., NULL; may be
 * NULL), a buffered body (NULL = none).  The reply is in out (reset
 * first; srv_capture_reset frees it).  Returns what the handler returned
 * (MHD_YES/MHD_NO).  The request's pooled connection is given back as on
 * completion.  srvtest_call_n: the same with the path's {n}. */
static inline int srvtest_call_n(struct srvtest *t, srv_handler h, const char *method,
                                 const char *url, int64_t id, int64_t n, const char *const *query,
                                 const char *const *headers, const char *body,
                                 struct srv_capture *out)
{
	struct srv_req r;
	srvtest_req_init(t, &r, method, url, query, headers, out);
	r.id = id;
	r.n = n;
	if (body)
		buf_puts(&r.body, body);
	int rc = h(&r);
	if (r.db)
		srv_db_release(&t->srv, r.db);
	buf_reset(&r.body);
	json_decref(r.error_json);
	return rc;
}

/* srvtest_call_n for a path without {n}. */
static inline int srvtest_call(struct srvtest *t, srv_handler h, const char *method,
                               const char *url, int64_t id, const char *const *query,
                               const char *const *headers, const char *body,
                               struct srv_capture *out)
{
	return srvtest_call_n(t, h, method, url, id, -1, query, headers, body, out);
}

/* The captured body as a parsed JSON value (new reference) or NULL. */
static inline json_t *srvtest_json(const struct srv_capture *c)
{
	return json_loadb(c->body.data ? c->body.data : "", c->body.len, 0, NULL);
}

/* 1 when the captured body contains text. */
static inline int srvtest_body_has(const struct srv_capture *c, const char *text)
{
	return c->body.data && memmem(c->body.data, c->body.len, text, strlen(text)) != NULL;
}

#ifdef PARITY_SRV_INGEST_H
/* Tests that link the ingest room (include ingest.h before this file). */

/* <dir>/raw and <dir>/tmp, as serve.c makes them: 0 or -1. */
static inline int srvtest_ingest_dirs(struct srvtest *t)
{
	if (!t->srv.raw && !(t->srv.raw = srv_rawlog_new(t->dir)))
		return -1;
	return mkdir(store_rawlog_dir(t->srv.raw, STORE_RAWLOG_RAW), 0750) == 0 &&
	                       mkdir(store_rawlog_dir(t->srv.raw, STORE_RAWLOG_TMP), 0750) == 0
	               ? 0
	               : -1;
}

/* POST /runs with a raw body (Content-Type text/plain), fed in chunks of
 * chunk bytes: the sink as http drives it, then the handler create
 * (srv_h_runs_create, or NULL where the api room is not linked). */
static inline void srvtest_upload(struct srvtest *t, const char *const *query, const char *body,
                                  size_t n, size_t chunk, srv_handler create, struct srv_capture *c)
{
	const char *const headers[] = {"Content-Type", "text/plain", NULL};
	struct srv_req r;
	srvtest_req_init(t, &r, "POST", "/runs", query, headers, c);
	unsigned status = 0;
	json_t *err = NULL;
	void *u = srv_upload_sink.open(&r, &status, &err);
	for (size_t off = 0; u && off < n && !err; off += chunk) {
		size_t k = n - off < chunk ? n - off : chunk;
		if (srv_upload_sink.feed(u, body + off, k, &status, &err) < 0)
			break;
	}
	if (err) {
		srv_reply_error_json(&r, status, err);
	} else if (create) {
		r.upload = u;
		create(&r);
	} else { /* no api room: commit, and answer {"id": N} as POST /runs would */
		int64_t id = 0;
		if (srv_upload_commit(u, &id, &status, &err) < 0)
			srv_reply_error_json(&r, status, err);
		else
			srv_reply_json(&r, 201, json_pack("{s:I}", "id", (json_int_t)id));
	}
	if (u)
		srv_upload_sink.free(u);
	if (r.db)
		srv_db_release(&t->srv, r.db);
}
#endif

#endif
