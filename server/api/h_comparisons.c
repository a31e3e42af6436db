/* h_comparisons.c - the comparison resources: create (queued for a
 * worker), list, one (with ?wait= long-poll), result rows with filters,
 * delete.  Requests are validated completely here, so a comparison that
 * is accepted (202) can only fail for reasons found while computing it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_act.h"
#include "json_views.h"
#include "match.h"
#include "store.h"
#include "api.h"
#include "http.h"
#include "jobs.h"
#include "views.h"

#define MAX_WAIT_SECONDS 600

/* ---- request body: JSON or multipart ------------------------------------- */

struct form {
	json_t *obj;
	char bad_key[64];
};

/* 1 when key is a field of POST /comparisons (JSON or form). */
static int known_field(const char *key)
{
	static const char *const known[] = {
	        "baseline",  "candidate",  "policy",        "name",
	        "overrides", "thresholds", "min_steps",     "allow_warnings",
	        "metrics",   "rank",       "extra_metrics", "baseline_name",
	        "suite",     "config",     "suite_size",    "baseline_set"};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(key, known[i]))
			return 1;
	return 0;
}

static enum MHD_Result form_iter(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *filename, const char *content_type,
                                 const char *transfer_encoding, const char *data, uint64_t off,
                                 size_t size)
{
	struct form *f = cls;
	(void)kind, (void)filename, (void)content_type, (void)transfer_encoding, (void)off;
	if (!key)
		return MHD_YES;
	if (!known_field(key)) {
		snprintf(f->bad_key, sizeof f->bad_key, "%s", key);
		return MHD_NO;
	}
	/* append to what this key already holds (values arrive in pieces) */
	json_t *prev = json_object_get(f->obj, key);
	struct buf b = BUF_INIT;
	if (prev)
		buf_puts(&b, json_string_value(prev));
	buf_append(&b, data, size);
	json_t *s = json_stringn(b.data ? b.data : "", b.len);
	buf_reset(&b);
	if (!s) {
		snprintf(f->bad_key, sizeof f->bad_key, "%s", key);
		return MHD_NO;
	}
	json_object_set_new(f->obj, key, s);
	return MHD_YES;
}

/* Multipart values are text: numbers and JSON objects are decoded here so
 * both forms validate the same way. */
static void decode_form_values(json_t *obj)
{
	static const char *const json_keys[] = {"baseline",   "candidate",   "policy",
	                                        "thresholds", "min_steps",   "allow_warnings",
	                                        "metrics",    "rank",        "extra_metrics",
	                                        "suite_size", "baseline_set"};
	for (size_t i = 0; i < sizeof json_keys / sizeof json_keys[0]; i++) {
		json_t *v = json_object_get(obj, json_keys[i]);
		if (!json_is_string(v))
			continue;
		json_t *d = json_loads(json_string_value(v), JSON_DECODE_ANY, NULL);
		if (d)
			json_object_set_new(obj, json_keys[i], d);
	}
}

/* Parse the body into a JSON object.  NULL when a reply was queued. */
static json_t *request_object(struct srv_req *r)
{
	const char *ct = srv_header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
	int urlenc = srv_media_type_is(ct, "application/x-www-form-urlencoded");
	if (urlenc || (ct && !strncasecmp(ct, "multipart/form-data", 19))) {
		const char *b = urlenc ? "" : strstr(ct, "boundary=");
		if (!b || strchr(b, ';')) {
			srv_reply_error(
			        r, 400, "bad_multipart",
			        "multipart Content-Type needs boundary= as its last parameter");
			return NULL;
		}
		struct form f = {json_object(), ""};
		struct MHD_PostProcessor *pp =
		        MHD_create_post_processor(r->conn, 65536, form_iter, &f);
		int ok = pp && MHD_post_process(pp, r->body.data ? r->body.data : "",
		                                r->body.len) == MHD_YES;
		/* a multipart body must end with its closing boundary (for a
		 * urlencoded one the post processor's end says nothing) */
		json_t *unclosed = srv_multipart_end(pp);
		if (ok && unclosed && !urlenc) {
			srv_reply_error_json(r, 400, unclosed);
			json_decref(f.obj);
			return NULL;
		}
		json_decref(unclosed);
		if (f.bad_key[0]) {
			srv_reply_error(r, 400, "unknown_field",
			                "unknown or invalid form field '%s'", f.bad_key);
			json_decref(f.obj);
			return NULL;
		}
		srv_form_drop_empty(f.obj);
		if (!ok || json_object_size(f.obj) == 0) {
			srv_reply_error(r, 400, "bad_multipart", "no form field could be read");
			json_decref(f.obj);
			return NULL;
		}
		decode_form_values(f.obj);
		/* the decoded values (a policy object) nest as a JSON body may */
		if (!srv_json_depth_ok(f.obj)) {
			srv_reply_error(r, 400, "bad_json",
			                "a form field nests objects and arrays deeper than %d "
			                "levels",
			                SRV_JSON_DEPTH_MAX);
			json_decref(f.obj);
			return NULL;
		}
		return f.obj;
	}
	return srv_body_json_or_reply(r);
}

static int run_id_field(struct srv_req *r, json_t *req, const char *key, int64_t *out)
{
	json_t *v = json_object_get(req, key);
	if (!json_is_integer(v) || json_integer_value(v) <= 0) {
		srv_reply_error(r, 400, "bad_parameter", "%s must be a run id (a positive integer)",
		                key);
		return -1;
	}
	*out = json_integer_value(v);
	return 0;
}

/* The "baseline_set" of a request (issue 26): 2..MATCHER_NOISE_MAX_RUNS
 * distinct run ids into ids (*n).  -1 with the 400 queued. */
static int baseline_set_field(struct srv_req *r, json_t *v, int64_t *ids, size_t *n)
{
	*n = 0;
	if (!json_is_array(v)) {
		srv_reply_error(r, 400, "bad_parameter",
		                "baseline_set must be an array of training run ids");
		return -1;
	}
	size_t k = json_array_size(v);
	if (k < 2) {
		srv_reply_error(r, 400, "baseline_set_too_small",
		                "a baseline set needs at least 2 runs (it has %zu): a band needs "
		                "repeats; compare two runs with baseline",
		                k);
		return -1;
	}
	if (k > MATCHER_NOISE_MAX_RUNS) {
		srv_reply_error(r, 400, "baseline_set_too_large",
		                "a baseline set has at most %d runs (it has %zu)",
		                MATCHER_NOISE_MAX_RUNS, k);
		return -1;
	}
	int64_t dup = 0;
	int rc = srv_run_ids(v, ids, k, n, &dup);
	if (rc == SRV_IDS_TWICE)
		srv_reply_error(r, 400, "bad_parameter", "baseline_set names run %lld twice",
		                (long long)dup);
	else if (rc < 0)
		srv_reply_error(r, 400, "bad_parameter",
		                "baseline_set must be an array of run ids (positive integers)");
	return rc < 0 ? -1 : 0;
}

int srv_h_comparisons_create(struct srv_req *r)
{
	json_t *req = request_object(r);
	if (!req)
		return MHD_YES;
	int rc = MHD_YES;
	json_t *policy = NULL;
	char *train_text = NULL;
	struct matcher_overrides *ov = NULL;
	int64_t base_id, cand_id, id;
	int64_t set[MATCHER_NOISE_MAX_RUNS];
	size_t n_set = 0;
	char kind_a[16], kind_b[16], msg[512];
	const char *key;
	json_t *val;
	json_object_foreach(req, key, val)
	{
		if (!known_field(key)) {
			rc = srv_reply_error(r, 400, "unknown_field", "unknown field '%.60s'", key);
			goto done;
		}
	}
	/* issue 16 labels: a golden baseline name instead of a baseline run,
	 * suite and config */
	json_t *bname = json_object_get(req, "baseline_name");
	json_t *suite = json_object_get(req, "suite"), *config = json_object_get(req, "config");
	if (bname &&
	    (!json_is_string(bname) || !store_baseline_name_ok(json_string_value(bname)))) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "baseline_name must be a baseline name (1-%d bytes of A-Z a-z "
		                     "0-9 . _ - /)",
		                     STORE_BASELINE_NAME_MAX);
		goto done;
	}
	if ((suite && (!json_is_string(suite) || !store_label_ok(json_string_value(suite)))) ||
	    (config && (!json_is_string(config) || !store_label_ok(json_string_value(config))))) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "suite and config must be labels of 1-%d bytes of A-Z a-z 0-9 "
		                     ". _ - (not starting with '.')",
		                     STORE_LABEL_MAX);
		goto done;
	}
	json_t *ssize = json_object_get(req, "suite_size");
	if ((config || ssize) && !suite) {
		rc = srv_reply_error(r, 400, "bad_parameter", "config and suite_size need suite");
		goto done;
	}
	if (ssize && (!json_is_integer(ssize) || json_integer_value(ssize) < 1 ||
	              json_integer_value(ssize) > STORE_SUITE_SIZE_MAX)) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "suite_size must be the number of configs (1-%d)",
		                     STORE_SUITE_SIZE_MAX);
		goto done;
	}
	if (bname && json_object_get(req, "baseline")) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "give baseline or baseline_name, not both");
		goto done;
	}
	json_t *bset = json_object_get(req, "baseline_set");
	if (bset && (bname || json_object_get(req, "baseline"))) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "give one of baseline, baseline_name and baseline_set");
		goto done;
	}
	if (bset && baseline_set_field(r, bset, set, &n_set) < 0)
		goto done;
	if (bset)
		base_id = set[0];
	if ((!bname && !bset && run_id_field(r, req, "baseline", &base_id) < 0) ||
	    run_id_field(r, req, "candidate", &cand_id) < 0)
		goto done;
	json_t *name = json_object_get(req, "name");
	if (name && (!json_is_string(name) ||
	             !srv_name_ok(json_string_value(name), json_string_length(name)))) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "name must be text of at most %d bytes", SRV_NAME_MAX);
		goto done;
	}
	json_t *overrides = json_object_get(req, "overrides");
	if (overrides && !json_is_string(overrides) && !json_is_null(overrides)) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "overrides must be the override file's text");
		goto done;
	}
	struct store *db = srv_db_or_reply(r);
	if (!db)
		goto done;
	if (bname) {
		/* resolved now and recorded: a later promotion does not move it */
		/* issue 26: an entry that is a set makes this a set comparison */
		size_t n_cur = 0;
		int brc = store_baseline_members(db, json_string_value(bname), set,
		                                 MATCHER_NOISE_MAX_RUNS, &n_cur);
		if (brc == 0) {
			base_id = set[0];
			n_set = n_cur > 1 ? n_cur : 0;
		}
		/* a set compares with noise unless another policy is asked for:
		 * then two runs, the set's newest as the baseline */
		if (brc == 0 && n_set && json_object_get(req, "policy") &&
		    !srv_train_request_is_noise(req)) {
			base_id = set[n_set - 1];
			n_set = 0;
		}
		if (brc == STORE_NOT_FOUND) {
			rc = srv_reply_error(r, 404, "unknown_baseline",
			                     "no baseline is named '%s'", json_string_value(bname));
			goto done;
		}
		if (brc < 0) {
			rc = srv_reply_store_error(r, brc);
			goto done;
		}
	}
	if (store_run_kind(db, base_id, kind_a, sizeof kind_a) < 0) {
		rc = srv_reply_error(r, 400, "unknown_run", "baseline run %lld does not exist",
		                     (long long)base_id);
		goto done;
	}
	if (store_run_kind(db, cand_id, kind_b, sizeof kind_b) < 0) {
		rc = srv_reply_error(r, 400, "unknown_run", "candidate run %lld does not exist",
		                     (long long)cand_id);
		goto done;
	}
	if (srv_set_members_or_reply(r, db, set, 1, n_set, 1) < 0)
		goto done;
	if (n_set && (strcmp(kind_a, "training") || strcmp(kind_b, "training"))) {
		rc = srv_reply_error(r, 400, "kind_mismatch",
		                     "a baseline set and its candidate are training runs (run %lld "
		                     "is %s)",
		                     strcmp(kind_a, "training") ? (long long)base_id
		                                                : (long long)cand_id,
		                     strcmp(kind_a, "training") ? kind_a : kind_b);
		goto done;
	}
	if (strcmp(kind_a, kind_b)) {
		rc = srv_reply_error(
		        r, 400, "kind_mismatch", "cannot compare a%s %s run with a%s %s run",
		        kind_a[0] == 'a' ? "n" : "", kind_a, kind_b[0] == 'a' ? "n" : "", kind_b);
		goto done;
	}
	const char *ov_text = json_string_value(overrides);
	if (!srv_policy_size_ok(json_object_get(req, "policy"), msg, sizeof msg)) {
		rc = srv_reply_error(r, 400, "bad_policy", "%s", msg);
		goto done;
	}
	if (!strcmp(kind_a, "activation")) {
		static const char *const train_only[] = {"thresholds",     "min_steps",
		                                         "allow_warnings", "metrics",
		                                         "rank",           "extra_metrics"};
		for (size_t i = 0; i < sizeof train_only / sizeof train_only[0]; i++)
			if (json_object_get(req, train_only[i])) {
				rc = srv_reply_error(r, 400, "bad_parameter",
				                     "%s applies to training comparisons only",
				                     train_only[i]);
				goto done;
			}
		struct matcher_act_policy pol;
		struct srv_act_policy_storage pst;
		if (srv_act_policy_parse(json_object_get(req, "policy"), &pol, &pst, msg,
		                         sizeof msg) < 0) {
			rc = srv_reply_error(r, 400, "bad_policy", "%s", msg);
			goto done;
		}
		policy = web_act_policy_json(&pol);
		srv_act_policy_storage_free(&pst);
		if (ov_text && strlen(ov_text) > r->srv->cfg.max_override_bytes) {
			rc = srv_reply_error(r, 413, "too_large", "override file over %zu bytes",
			                     r->srv->cfg.max_override_bytes);
			goto done;
		}
		if (ov_text && matcher_overrides_parse(ov_text, strlen(ov_text), &ov) < 0) {
			rc = srv_reply_error(r, 503, "out_of_memory",
			                     "cannot read the override file");
			goto done;
		}
	} else {
		if (ov_text) {
			rc = srv_reply_error(r, 400, "bad_parameter",
			                     "overrides apply to activation comparisons only");
			goto done;
		}
		if (srv_train_policy_from_request(req, n_set > 0, &train_text, msg, sizeof msg) <
		    0) {
			rc = srv_reply_error(r, 400, "bad_policy", "%s", msg);
			goto done;
		}
	}
	/* training: the policy's stored form (matcher/trainpolicy.h) */
	char *policy_text = train_text ? train_text : json_dumps(policy, JSON_COMPACT);
	int labelled = bname || suite || n_set;
	int src = labelled ? store_tx_begin(db) : 0;
	if (src == 0)
		src = store_comparison_create(db, base_id, cand_id, kind_a, json_string_value(name),
		                              policy_text, ov_text, &id);
	if (src == 0 && n_set)
		src = store_comparison_set_put(db, id, set, n_set);
	if (src == 0 && labelled)
		src = store_comparison_set_labels(
		        db, id, json_string_value(bname), json_string_value(suite),
		        json_string_value(config), (int)json_integer_value(ssize));
	if (labelled)
		src = src == 0 ? store_tx_commit(db) : (store_tx_rollback(db), src);
	free(policy_text);
	if (src < 0) {
		rc = srv_reply_store_error(r, src);
		goto done;
	}
	srv_jobs_notify(r->srv);
	json_t *c = srv_comparison_doc(db, id, NULL);
	if (!c) {
		rc = srv_reply_error(r, 500, "database", "cannot read the comparison back");
		goto done;
	}
	if (srv_auth_may_read(r)) {
		srv_comparison_add_urls(r->srv, c);
	} else {
		/* private reads, no token: the runs' meta, the policy and any
		 * result are not this client's to read */
		static const char *const receipt[] = {"id", "kind", "status", "created_at", NULL};
		srv_json_receipt(c, receipt);
	}
	char loc[1200];
	snprintf(loc, sizeof loc, "%s/comparisons/%lld", r->srv->cfg.public_url, (long long)id);
	rc = srv_reply_json_at(r, 202, c, loc);
done:
	matcher_overrides_free(ov);
	json_decref(policy);
	json_decref(req);
	return rc;
}

int srv_h_comparisons_list(struct srv_req *r)
{
	long long limit;
	const char *cursor;
	if (srv_page_params_or_reply(r, 50, &limit, &cursor) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_comparison_page page;
	int rc = store_comparisons_list(db, (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_comparisons_page_json(&page);
	store_comparison_page_free(&page);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(out, "comparisons"), i, c)
	        srv_comparison_add_urls(r->srv, c);
	return srv_reply_json(r, 200, out);
}

/* Suspend long-poll r (deadline wait seconds after its first pass) with
 * its pool connection handed back: 1, or 0 when it must be answered now
 * (the deadline passed, or the daemon is stopping). */
static int suspend_waiter(struct srv_req *r, long long wait)
{
	int64_t now = srv_now_ms();
	if (!r->wait_deadline_ms)
		r->wait_deadline_ms = now + wait * 1000;
	if (now >= r->wait_deadline_ms)
		return 0;
	srv_db_release(r->srv, r->db);
	r->db = NULL;
	return srv_wait_suspend(r->srv, r) == 0;
}

/* Long-poll: GET /comparisons/{id}?wait=S suspends the connection without
 * a database connection.  When a comparison finishes (or the deadline
 * passes) the waker reads each waited-for comparison once and hands that
 * one document to all its waiters (workers.c), so a thousand waiters cost
 * one read, not a thousand connections. */
int srv_h_comparison_get(struct srv_req *r)
{
	long long wait;
	if (srv_query_int_or_reply(r, "wait", 0, MAX_WAIT_SECONDS, 0, &wait) < 0)
		return MHD_YES;
	struct srv_shared_reply *sr = r->wait_reply;
	r->wait_reply = NULL;
	int rc = MHD_YES;
	if (!sr) {
		/* the generation before the read: a finish after it re-wakes us */
		r->wait_generation = srv_jobs_generation(r->srv);
		struct store *db = srv_db_or_reply(r);
		if (!db)
			return MHD_YES;
		/* a long-poll on an unfinished comparison suspends after one
		 * cheap status read (a storm of waiters must not each build the
		 * whole document: the waker reads it once when it finishes) */
		char status[16];
		if (wait > 0 && !r->wait_deadline_ms &&
		    store_comparison_status(db, r->id, status, sizeof status) == 0 &&
		    (!strcmp(status, "queued") || !strcmp(status, "running"))) {
			if (suspend_waiter(r, wait))
				return MHD_YES;
			/* stopping: the connection went back; read and answer */
			if (!(db = srv_db_or_reply(r)))
				return MHD_YES;
		}
		if (!(sr = srv_comparison_reply(r->srv, db, r->id)))
			return srv_reply_error(r, 503, "out_of_memory", "out of memory");
	}
	if (sr->status == 200 && !sr->final && wait > 0 && suspend_waiter(r, wait)) {
		srv_shared_reply_unref(sr);
		return MHD_YES;
	}
	/* (stopping, or the deadline passed: answer with what was read) */
	rc = srv_reply_shared(r, sr);
	srv_shared_reply_unref(sr);
	return rc;
}

/* 1 when every comma-separated item of v is one of the allowed words. */
static int in_list(const char *v, const char *const *allowed)
{
	while (*v) {
		size_t n = strcspn(v, ",");
		int ok = 0;
		for (size_t i = 0; allowed[i]; i++)
			ok |= strlen(allowed[i]) == n && !strncmp(v, allowed[i], n);
		if (!ok)
			return 0;
		v += n;
		if (*v == ',')
			v++;
	}
	return 1;
}

int srv_row_filters_or_reply(struct srv_req *r, struct srv_row_filters *rf)
{
	long long rank, origin = -1;
	memset(rf, 0, sizeof *rf);
	if (srv_query_int_or_reply(r, "rank", 0, 1000000, -1, &rank) < 0)
		return -1;
	const char *o = srv_query(r, "origin");
	if (o) {
		if (!strcmp(o, "true") || !strcmp(o, "1"))
			origin = 1;
		else if (!strcmp(o, "false") || !strcmp(o, "0"))
			origin = 0;
		else
			return srv_reply_error(r, 400, "bad_parameter",
			                       "origin must be true or false"),
			       -1;
	}
	const char *status = srv_query(r, "status"), *method = srv_query(r, "method");
	const char *phase = srv_query(r, "phase");
	static const char *const statuses[] = {"match", "diff", "a_only", "b_only", NULL};
	static const char *const methods[] = {"override", "exact", "fuzzy", "stats", NULL};
	if (status && !*status)
		status = NULL;
	if (method && !*method)
		method = NULL;
	if (status && !in_list(status, statuses))
		return srv_reply_error(r, 400, "bad_parameter",
		                       "status must be match, diff, a_only or b_only "
		                       "(or a comma-separated list of them)"),
		       -1;
	if (method && !in_list(method, methods))
		return srv_reply_error(r, 400, "bad_parameter",
		                       "method must be override, exact, fuzzy or stats "
		                       "(or a comma-separated list of them)"),
		       -1;
	if (phase && !*phase)
		phase = NULL;
	if (phase && strcmp(phase, "forward") && strcmp(phase, "backward"))
		return srv_reply_error(r, 400, "bad_parameter",
		                       "phase must be forward or backward"),
		       -1;
	rf->rank = (int)rank;
	rf->origin = (int)origin;
	rf->status = status;
	rf->method = method;
	rf->phase = phase;
	if (srv_key_filter_or_reply(r, &rf->kf) < 0)
		return -1;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return -1;
	char cst[16];
	int rc = store_comparison_status(db, r->id, cst, sizeof cst);
	if (rc == STORE_NOT_FOUND)
		return srv_reply_error(r, 404, "not_found", "no comparison %lld", (long long)r->id),
		       -1;
	if (rc < 0)
		return srv_reply_store_error(r, rc), -1;
	return 0;
}

int srv_h_comparison_rows(struct srv_req *r)
{
	long long limit, count;
	const char *cursor;
	struct srv_row_filters rf;
	if (srv_page_params_or_reply(r, 100, &limit, &cursor) < 0 ||
	    srv_query_int_or_reply(r, "count", 0, 1, 0, &count) < 0 ||
	    srv_row_filters_or_reply(r, &rf) < 0)
		return MHD_YES;
	struct store *db = r->db;
	struct store_row_page page;
	int rc = store_comparison_rows_list(db, r->id, rf.rank, rf.status, rf.method, rf.phase,
	                                    rf.origin, &rf.kf, (int)limit, cursor, &page);
	if (rc < 0) {
		store_row_page_free(&page);
		return srv_reply_store_error(r, rc);
	}
	/* count=1: "matched" (rows passing the filters, all pages) and
	 * "total" (rows of the rank, or of every rank); a full scan with a
	 * regex, under the same budget: "matched_partial" says it ran out */
	int64_t matched = 0, total = 0;
	int partial = 0, junk;
	struct store_key_filter ckf = rf.kf;
	ckf.budget_ms = SRV_COUNT_BUDGET_MS;
	if (count &&
	    ((rc = store_comparison_rows_count(db, r->id, rf.rank, rf.status, rf.method, rf.phase,
	                                       rf.origin, &ckf, &matched, &partial)) < 0 ||
	     (rc = store_comparison_rows_count(db, r->id, rf.rank, NULL, NULL, NULL, -1, NULL,
	                                       &total, &junk)) < 0)) {
		store_row_page_free(&page);
		return srv_reply_store_error(r, rc);
	}
	struct buf body = BUF_INIT;
	int bad = web_act_rows_page_append(&body, &page) < 0;
	store_row_page_free(&page);
	if (!bad && count) {
		body.len--; /* reopen the object: it ends in '}' */
		bad = buf_printf(&body, ",\"matched\":%lld,\"total\":%lld,\"matched_partial\":%s}",
		                 (long long)matched, (long long)total,
		                 partial ? "true" : "false") < 0;
	}
	if (bad || buf_putc(&body, '\n') < 0) {
		buf_reset(&body);
		return srv_reply_error(r, 500, "internal", "out of memory");
	}
	return srv_reply_buf(r, 200, "application/json", &body);
}

int srv_h_comparison_delete(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	int rc = store_comparison_delete(db, r->id);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	return srv_reply_deleted(r);
}
