/* h_runs.c - the run resources: upload (POST /runs), list, one run, raw
 * log download, parsed ops and steps, delete, and /healthz. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srv.h"
#include "store.h"
#include "upload.h"

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
	if (srv_health_check(r->srv, &code, why, sizeof why) < 0)
		return srv_reply_error(r, 503, code, "%s", why);
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
	json_t *run = store_run_json(r->db, run_id);
	if (!run)
		return srv_reply_error(r, 500, "database", "the stored run cannot be read back");
	srv_run_add_urls(r->srv, run);
	/* ingest metrics from what was stored */
	struct srv_metrics *m = &r->srv->metrics;
	size_t i;
	json_t *log;
	atomic_fetch_add(&m->ingested_runs, 1);
	json_array_foreach(json_object_get(run, "logs"), i, log)
	{
		atomic_fetch_add(&m->ingested_bytes,
		                 (uint_fast64_t)json_integer_value(json_object_get(log, "bytes")));
		atomic_fetch_add(&m->ingested_entries, (uint_fast64_t)json_integer_value(
		                                               json_object_get(log, "entries")));
		atomic_fetch_add(&m->ingested_steps,
		                 (uint_fast64_t)json_integer_value(json_object_get(log, "steps")));
	}
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
	json_t *out = NULL;
	int rc = store_runs_list(db, kind, srv_query(r, "name"), (int)limit, cursor, &out);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
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
	json_t *run = store_run_json(db, r->id);
	if (!run)
		return srv_reply_error(r, 404, "not_found", "no run %lld", (long long)r->id);
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
	char path[4400];
	srv_blob_path(r->srv, sha, path, sizeof path);
	/* gzip uploads are served as they came */
	const char *type = "text/plain; charset=utf-8";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		unsigned char magic[2];
		if (read(fd, magic, 2) == 2 && magic[0] == 0x1f && magic[1] == 0x8b)
			type = "application/gzip";
		close(fd);
	}
	char name[96];
	snprintf(name, sizeof name, "run_%lld_rank_%lld.log%s", (long long)r->id, (long long)r->n,
	         strcmp(type, "application/gzip") ? "" : ".gz");
	return srv_reply_file(r, path, type, name);
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
	json_t *out = NULL;
	int rc = store_ops_list(db, r->id, (int)rank, phase, &kf, (int)limit, cursor, &out);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
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
	json_t *out = NULL;
	int rc = store_steps_list(db, r->id, (int)rank, (int)validation, (int)limit, cursor, &out);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	return srv_reply_json(r, 200, out);
}
