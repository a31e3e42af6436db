/* h_runs.c - the run resources: upload (POST /runs), list, one run, raw
 * log download, parsed ops and steps, delete, and /healthz. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "json_views.h"
#include "store.h"
#include "api.h"
#include "http.h"
#include "ingest.h"

#define PAGE_DEFAULT 100

void srv_run_add_urls(struct srv *s, json_t *run)
{
	json_int_t id = json_integer_value(json_object_get(run, "id"));
	const char *base = s->cfg.public_url;
	char self[1200], ui[1200];
	snprintf(self, sizeof self, "%s/runs/%lld", base, (long long)id);
	snprintf(ui, sizeof ui, "%s/ui/runs/%lld", base, (long long)id);
	json_t *urls = json_object();
	json_object_set_new(urls, "self", json_string(self));
	json_object_set_new(urls, "ui", json_string(ui));
	json_t *logs = json_object_get(run, "logs");
	size_t i;
	json_t *log;
	json_array_foreach(logs, i, log)
	{
		char raw[1300];
		snprintf(raw, sizeof raw, "%s/runs/%lld/logs/%lld", base, (long long)id,
		         (long long)json_integer_value(json_object_get(log, "rank")));
		json_object_set_new(log, "raw_url", json_string(raw));
	}
	json_object_set_new(run, "urls", urls);
}

int srv_h_healthz(struct srv_req *r)
{
	const char *code = "unhealthy";
	char why[1024];
	if (srv_health_check(r->srv, &code, why, sizeof why) < 0) {
		/* /healthz is open; under --private-reads the details (paths,
		 * system errors) are a read like any other */
		if (!srv_auth_may_read(r))
			return srv_reply_error(r, 503, code, "unhealthy: %s (details need a token)",
			                       code);
		return srv_reply_error(r, 503, code, "%s", why);
	}
	json_t *o = json_object();
	json_object_set_new(o, "status", json_string("ok"));
	return srv_reply_json(r, 200, o);
}

int srv_h_runs_create(struct srv_req *r)
{
	int64_t run_id = 0;
	unsigned status = 0;
	json_t *err = NULL;
	if (srv_upload_commit(r->upload, &run_id, &status, &err) < 0)
		return srv_reply_error_json(r, status, err);
	struct store_run_view v;
	json_t *run = NULL;
	if (store_run_get(r->db, run_id, &v) < 0 || !(run = web_run_json(&v.run))) {
		store_run_view_free(&v);
		return srv_reply_error(r, 500, "database", "the stored run cannot be read back");
	}
	srv_run_add_urls(r->srv, run);
	/* ingest metrics from what was stored */
	struct srv_metrics *m = &r->srv->metrics;
	int training = strcmp(v.run.kind, "training") == 0;
	atomic_fetch_add(&m->ingested_runs, 1);
	for (size_t i = 0; i < v.run.n_logs; i++) {
		const struct store_log_view *l = &v.run.logs[i];
		atomic_fetch_add(&m->ingested_bytes, (uint_fast64_t)l->bytes);
		atomic_fetch_add(training ? &m->ingested_steps : &m->ingested_entries,
		                 (uint_fast64_t)l->n_items);
	}
	store_run_view_free(&v);
	char loc[1200];
	snprintf(loc, sizeof loc, "%s/runs/%lld", r->srv->cfg.public_url, (long long)run_id);
	return srv_reply_json_at(r, 201, run, loc);
}

int srv_h_runs_list(struct srv_req *r)
{
	long long limit;
	const char *cursor;
	if (srv_page_params_or_reply(r, PAGE_DEFAULT, &limit, &cursor) < 0)
		return MHD_YES;
	const char *kind = srv_query(r, "kind");
	if (kind && strcmp(kind, "activation") && strcmp(kind, "training"))
		return srv_reply_error(r, 400, "bad_parameter",
		                       "kind must be activation or training");
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_page page;
	int rc = store_runs_list(db, kind, srv_query(r, "name"), (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_runs_page_json(&page);
	store_run_page_free(&page);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	size_t i;
	json_t *run;
	json_array_foreach(json_object_get(out, "runs"), i, run) srv_run_add_urls(r->srv, run);
	return srv_reply_json(r, 200, out);
}

int srv_h_run_get(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_view v;
	int rc = store_run_get(db, r->id, &v);
	json_t *run = rc < 0 ? NULL : web_run_json(&v.run);
	store_run_view_free(&v);
	if (rc == STORE_NOT_FOUND)
		return srv_reply_error(r, 404, "not_found", "no run %lld", (long long)r->id);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!run)
		return srv_reply_error(r, 500, "internal", "out of memory");
	srv_run_add_urls(r->srv, run);
	return srv_reply_json(r, 200, run);
}

int srv_h_run_delete(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	char **freed = NULL;
	int rc = store_run_delete(db, r->id, &freed);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	/* the run is gone; its files go in a second transaction that
	 * re-checks their references under the write lock (store_rawlog.h) */
	store_rawlog_release(r->srv->raw, db, freed, 0, NULL);
	store_strv_free(freed);
	return srv_reply_deleted(r);
}

/* 1 when the request's Accept-Encoding takes gzip (gzip or x-gzip with
 * no q, or q above 0), else 0. */
static int accepts_gzip(struct srv_req *r)
{
	const char *ae = srv_header(r, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	while (ae && *ae) {
		ae += strspn(ae, " \t,");
		size_t len = strcspn(ae, " \t;,");
		int gzip = (len == 4 && !strncasecmp(ae, "gzip", 4)) ||
		           (len == 6 && !strncasecmp(ae, "x-gzip", 6));
		const char *end = ae + strcspn(ae, ",");
		if (gzip) {
			const char *q = strstr(ae, "q=");
			if (!q || q > end)
				return 1;
			return strtod(q + 2, NULL) > 0;
		}
		ae = end;
	}
	return 0;
}

/* A compressed raw log streamed as a response: inflated to its original
 * size, or (passthrough) its gzip stream as stored.  The source is the
 * raw-log store's reader (store_rawlog_read): a file read 32 KiB at a
 * time, or a PostgreSQL blob's 1 MiB chunks, each fetched on a pooled
 * connection taken for that one statement, so a slow client holds no
 * connection.  Memory: this struct, one piece and zlib's 32 KiB window. */
struct gz_reader {
	struct store_rawlog_reader *rd;
	int passthrough; /* serve the stored gzip stream as it is */
	z_stream zs;     /* next_in / avail_in: compressed bytes not used yet */
	int z_live;      /* inflateInit2 done */
	int ended;       /* the gzip member ended */
	uint64_t left;   /* bytes still to send */
};

/* Refill zs.next_in / avail_in from the source: 1, 0 at its end, -1 on an
 * error (logged). */
static int gz_fill(struct gz_reader *g)
{
	const void *data = NULL;
	size_t n = 0;
	int rc = store_rawlog_read(g->rd, &data, &n);
	if (rc <= 0)
		return rc < 0 ? -1 : 0;
	g->zs.next_in = (unsigned char *)data;
	g->zs.avail_in = (uInt)n;
	return 1;
}

static ssize_t gz_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct gz_reader *g = cls;
	(void)pos;
	if (g->left == 0)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (max > g->left)
		max = (size_t)g->left;
	if (max > UINT32_MAX)
		max = UINT32_MAX;
	if (g->passthrough) {
		if (g->zs.avail_in == 0 && gz_fill(g) <= 0)
			goto broken;
		size_t n = g->zs.avail_in < max ? g->zs.avail_in : max;
		memcpy(buf, g->zs.next_in, n);
		g->zs.next_in += n;
		g->zs.avail_in -= (uInt)n;
		g->left -= n;
		return (ssize_t)n;
	}
	g->zs.next_out = (unsigned char *)buf;
	g->zs.avail_out = (uInt)max;
	/* never return 0 (internal-thread mode): loop until bytes come out */
	while (g->zs.avail_out == max) {
		if (g->ended)
			goto broken; /* shorter than recorded */
		if (g->zs.avail_in == 0 && gz_fill(g) <= 0)
			goto broken;
		int zr = inflate(&g->zs, Z_NO_FLUSH);
		if (zr == Z_STREAM_END)
			g->ended = 1;
		else if (zr != Z_OK && zr != Z_BUF_ERROR)
			goto broken;
	}
	size_t got = max - g->zs.avail_out;
	g->left -= got;
	return (ssize_t)got;
broken:
	srv_log("raw log download cut: the compressed raw log is damaged or short (%s)",
	        g->zs.msg ? g->zs.msg : "unexpected end");
	return MHD_CONTENT_READER_END_WITH_ERROR;
}

static void gz_reader_free(void *cls)
{
	struct gz_reader *g = cls;
	if (g->z_live)
		inflateEnd(&g->zs);
	store_rawlog_reader_free(g->rd);
	free(g);
}

/* A response reader over rd (taken: freed with the reader, or here on
 * failure); NULL when out of memory. */
static struct gz_reader *gz_reader_new(struct store_rawlog_reader *rd, int passthrough)
{
	struct gz_reader *g = calloc(1, sizeof *g);
	if (!g) {
		store_rawlog_reader_free(rd);
		return NULL;
	}
	g->rd = rd;
	g->passthrough = passthrough;
	if (!passthrough && inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK) {
		gz_reader_free(g);
		return NULL;
	}
	g->z_live = !passthrough;
	return g;
}

/* Queue g as a 200 of size bytes with content type and headers (name,
 * value, ..., NULL); g is freed with the response. */
static int reply_reader(struct srv_req *r, struct gz_reader *g, uint64_t size, const char *type,
                        const char *const *headers)
{
	g->left = size;
	return srv_reply_stream(r, 200, size, gz_read, g, gz_reader_free, type, headers);
}

/* The download reader's connections: one from the pool per piece. */
static struct store *conn_acquire(void *ctx)
{
	struct store *db = srv_db_acquire(ctx);
	if (!db)
		srv_log("raw log download cut: no database connection");
	return db;
}

static void conn_release(void *ctx, struct store *db)
{
	srv_db_release(ctx, db);
}

/* The raw log sha (bytes long as uploaded, by its log row) as the
 * response, named from stem.  Stored as it came (a gzip upload, or a file
 * from before compression): the file as it is, application/gzip for a
 * gzip upload.  Stored compressed: a log that was gzip when uploaded is
 * served as it came (application/gzip); any other as text, its stored
 * gzip stream with Content-Encoding: gzip when the client takes it, else
 * inflated on the fly. */
static int reply_raw(struct srv_req *r, struct store *db, const char *sha, int64_t bytes,
                     const char *stem)
{
	struct store_rawlog_conns conns = {conn_acquire, conn_release, r->srv};
	struct store_rawlog_info info;
	struct store_rawlog_reader *rd = NULL;
	int rc = store_rawlog_open(r->srv->raw, db, sha, &conns, &info, &rd);
	if (rc == STORE_NOT_FOUND || rc == STORE_IO)
		return srv_reply_error(r, 404, "not_found", "the raw log file is missing");
	if (rc < 0) {
		srv_log("raw log %.12s...: %s", sha, store_errmsg(db));
		return srv_reply_store_error(r, rc);
	}
	const char *type = info.content_gzip ? "application/gzip" : "text/plain; charset=utf-8";
	char name[128], cd[300];
	snprintf(name, sizeof name, "%s%s", stem, info.content_gzip ? ".gz" : "");
	snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", name);
	if (!info.gz) {
		/* stored as it came: gzip uploads, and files from before compression */
		store_rawlog_reader_free(rd);
		const char *const headers[] = {"Content-Disposition", cd, NULL};
		return srv_reply_file(r, info.path, type, headers);
	}
	int passthrough = !info.content_gzip && accepts_gzip(r);
	const char *const headers[] = {"Content-Disposition",
	                               cd,
	                               "Vary",
	                               "Accept-Encoding",
	                               passthrough ? "Content-Encoding" : NULL,
	                               "gzip",
	                               NULL};
	if (passthrough && info.path[0]) {
		store_rawlog_reader_free(rd);
		return srv_reply_file(r, info.path, type, headers);
	}
	int64_t size = passthrough ? info.zbytes : info.bytes >= 0 ? info.bytes : bytes;
	struct gz_reader *g = gz_reader_new(rd, passthrough);
	if (!g)
		return srv_reply_error(r, 503, "out_of_memory", "out of memory");
	return reply_reader(r, g, size > 0 ? (uint64_t)size : 0, type, headers);
}

int srv_h_run_log(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	char sha[65];
	int64_t bytes = 0, log_id = 0;
	char filename[256];
	int rc = store_log_find(db, r->id, (int)r->n, &log_id, sha, &bytes, filename,
	                        sizeof filename);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	char name[96];
	snprintf(name, sizeof name, "run_%lld_rank_%lld.log", (long long)r->id, (long long)r->n);
	return reply_raw(r, db, sha, bytes, name);
}

int srv_h_run_ops(struct srv_req *r)
{
	long long limit, rank;
	const char *cursor;
	if (srv_page_params_or_reply(r, PAGE_DEFAULT, &limit, &cursor) < 0 ||
	    srv_query_int_or_reply(r, "rank", 0, 1000000, -1, &rank) < 0)
		return MHD_YES;
	const char *phase = srv_query(r, "phase");
	if (phase && strcmp(phase, "forward") && strcmp(phase, "backward"))
		return srv_reply_error(r, 400, "bad_parameter",
		                       "phase must be forward or backward");
	struct store_key_filter kf;
	if (srv_key_filter_or_reply(r, &kf) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_op_page page;
	int rc = store_ops_list(db, r->id, (int)rank, phase, &kf, (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_ops_page_json(&page);
	store_op_page_free(&page);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	return srv_reply_json(r, 200, out);
}

int srv_h_run_steps(struct srv_req *r)
{
	long long limit, rank, validation;
	const char *cursor;
	if (srv_page_params_or_reply(r, PAGE_DEFAULT, &limit, &cursor) < 0 ||
	    srv_query_int_or_reply(r, "rank", 0, 1000000, 0, &rank) < 0 ||
	    srv_query_int_or_reply(r, "validation", 0, 1, 0, &validation) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_step_page page;
	int rc = store_steps_list(db, r->id, (int)rank, (int)validation, (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_run_steps_page_json(&page);
	store_run_step_page_free(&page);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	return srv_reply_json(r, 200, out);
}
