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
	 * re-checks their references under the write lock (blobs.c) */
	srv_blob_release(r->srv, db, freed, 0, NULL);
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
 * size, or (passthrough) its gzip stream as stored.  The source is a file
 * (SQLite: <sha256>.gz, read 32 KiB at a time) or, on PostgreSQL, the
 * blob's 1 MiB chunks (store_pg_blob_chunk), each fetched on a pooled
 * connection taken for that one statement, so a slow client holds no
 * connection.  Memory: this struct, one chunk and zlib's 32 KiB window. */
struct gz_reader {
	int fd;          /* the file, or -1 for a PostgreSQL blob */
	struct srv *srv; /* PostgreSQL: the pool, the blob, its next chunk */
	char sha[65];
	int64_t seq;
	void *chunk;     /* the current chunk (malloc'd) */
	int passthrough; /* serve the stored gzip stream as it is */
	z_stream zs;     /* next_in / avail_in: compressed bytes not used yet */
	int z_live;      /* inflateInit2 done */
	int ended;       /* the gzip member ended */
	uint64_t left;   /* bytes still to send */
	unsigned char in[32768];
};

/* Refill zs.next_in / avail_in from the source: 1, 0 at its end, -1 on an
 * error (logged). */
static int gz_fill(struct gz_reader *g)
{
	if (g->fd >= 0) {
		ssize_t n;
		while ((n = read(g->fd, g->in, sizeof g->in)) < 0 && errno == EINTR)
			;
		if (n < 0)
			return -1;
		g->zs.next_in = g->in;
		g->zs.avail_in = (uInt)n;
		return n > 0;
	}
	struct store *db = srv_db_acquire(g->srv);
	if (!db) {
		srv_log("raw log download cut: no database connection");
		return -1;
	}
	void *data = NULL;
	size_t n = 0;
	int rc = store_pg_blob_chunk(store_pg_of(db), g->sha, g->seq, &data, &n);
	if (rc < 0 && rc != STORE_NOT_FOUND)
		srv_log("raw log download cut: %s", store_pg_errmsg(store_pg_of(db)));
	srv_db_release(g->srv, db);
	if (rc == STORE_NOT_FOUND)
		return 0;
	if (rc < 0)
		return -1;
	free(g->chunk);
	g->chunk = data;
	g->seq++;
	g->zs.next_in = data;
	g->zs.avail_in = (uInt)n;
	return n > 0 ? 1 : -1;
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
	if (g->fd >= 0)
		close(g->fd);
	free(g->chunk);
	free(g);
}

/* A reader of the file at path (PostgreSQL: path NULL, blob sha of srv's
 * database); NULL when out of memory or the file cannot be opened. */
static struct gz_reader *gz_reader_new(struct srv *srv, const char *path, const char *sha,
                                       int passthrough)
{
	struct gz_reader *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->srv = srv;
	g->passthrough = passthrough;
	snprintf(g->sha, sizeof g->sha, "%s", sha);
	g->fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if ((path && g->fd < 0) || (!passthrough && inflateInit2(&g->zs, 16 + MAX_WBITS) != Z_OK)) {
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

/* Stream the compressed raw file at path as the original bytes (bytes of
 * them): decompressed on the fly, or as it is with Content-Encoding: gzip
 * when the client takes it. */
static int reply_gz(struct srv_req *r, const char *path, int64_t bytes, const char *name)
{
	char cd[300];
	snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", name);
	const char *const headers[] = {"Content-Disposition", cd, "Vary", "Accept-Encoding", NULL};
	const char *const gz_headers[] = {"Content-Disposition", cd,     "Vary", "Accept-Encoding",
	                                  "Content-Encoding",    "gzip", NULL};
	if (accepts_gzip(r))
		return srv_reply_file(r, path, "text/plain; charset=utf-8", gz_headers);
	struct gz_reader *g = gz_reader_new(r->srv, path, "", 0);
	if (!g)
		return srv_reply_error(r, 404, "not_found", "the raw log file is missing");
	return reply_reader(r, g, bytes > 0 ? (uint64_t)bytes : 0, "text/plain; charset=utf-8",
	                    headers);
}

/* PostgreSQL: the raw log from its blob (store/pg/blobs.c).  A log that
 * was gzip when uploaded is served as it came (application/gzip, as
 * SQLite's file of a gzip upload); any other as text, its stored gzip
 * stream with Content-Encoding: gzip when the client takes it, else
 * inflated on the fly. */
static int reply_pg_raw(struct srv_req *r, struct store *db, const char *sha, const char *stem)
{
	struct store_pg *pg = store_pg_of(db);
	int64_t bytes = 0, zbytes = 0;
	int rc = store_pg_blob_size(pg, sha, &bytes, &zbytes);
	if (rc == STORE_NOT_FOUND)
		return srv_reply_error(r, 404, "not_found", "the raw log is missing");
	/* the content's first two bytes (gzip magic?), inflated from chunk 0,
	 * which the reader then starts with */
	void *first = NULL;
	size_t n_first = 0;
	if (rc == 0)
		rc = store_pg_blob_chunk(pg, sha, 0, &first, &n_first);
	if (rc < 0) {
		srv_log("raw log %.12s...: %s", sha, store_pg_errmsg(pg));
		return srv_reply_store_error(r, rc);
	}
	unsigned char magic[2] = {0, 0};
	z_stream zs = {0};
	if (inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK) {
		zs.next_in = first;
		zs.avail_in = (uInt)n_first;
		zs.next_out = magic;
		zs.avail_out = 2;
		while (zs.avail_out > 0 && inflate(&zs, Z_NO_FLUSH) == Z_OK)
			;
		inflateEnd(&zs);
	}
	int gzip_upload = bytes >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	int passthrough = !gzip_upload && accepts_gzip(r);
	char name[128], cd[300];
	snprintf(name, sizeof name, "%s%s", stem, gzip_upload ? ".gz" : "");
	snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", name);
	const char *const headers[] = {"Content-Disposition",
	                               cd,
	                               "Vary",
	                               "Accept-Encoding",
	                               passthrough ? "Content-Encoding" : NULL,
	                               "gzip",
	                               NULL};
	struct gz_reader *g = gz_reader_new(r->srv, NULL, sha, passthrough);
	if (!g) {
		free(first);
		return srv_reply_error(r, 503, "out_of_memory", "out of memory");
	}
	g->chunk = first;
	g->seq = 1;
	g->zs.next_in = first;
	g->zs.avail_in = (uInt)n_first;
	return reply_reader(r, g, (uint64_t)(passthrough ? zbytes : bytes),
	                    gzip_upload ? "application/gzip" : "text/plain; charset=utf-8",
	                    headers);
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
	if (store_is_pg(db))
		return reply_pg_raw(r, db, sha, name);
	char path[4400];
	int gz = srv_blob_find(r->srv, sha, path, sizeof path);
	if (gz < 0)
		return srv_reply_error(r, 404, "not_found", "the raw log file is missing");
	if (gz)
		return reply_gz(r, path, bytes, name);
	/* stored as it came: gzip uploads, and files from before compression */
	const char *type = "text/plain; charset=utf-8";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		unsigned char magic[2];
		if (read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
			type = "application/gzip";
		close(fd);
	}
	snprintf(name, sizeof name, "run_%lld_rank_%lld.log%s", (long long)r->id, (long long)r->n,
	         strcmp(type, "application/gzip") ? "" : ".gz");
	char cd[300];
	snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", name);
	const char *const headers[] = {"Content-Disposition", cd, NULL};
	return srv_reply_file(r, path, type, headers);
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
