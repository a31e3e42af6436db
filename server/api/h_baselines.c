/* h_baselines.c - golden baselines and suites (issue 16): PUT/GET
 * /baselines/{name}, GET /baselines, GET /suites/{suite} (their pages
 * are ui/ui_baselines.c).  Names come from the URL
 * (routes.c {path} / {name}) and are validated here (400); store reads
 * are structs serialized by web/json_views.h or rendered by web/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_views.h"
#include "store.h"
#include "web.h"
#include "api.h"

static int bad_name(struct srv_req *r)
{
	return srv_reply_error(r, 400, "bad_name",
	                       "a baseline name is 1-%d bytes of A-Z a-z 0-9 . _ - and /, "
	                       "without empty parts or parts starting with '.'",
	                       STORE_BASELINE_NAME_MAX);
}

/* The baseline document, or only its members keep (srv_json_receipt)
 * when keep is not NULL. */
static int reply_baseline(struct srv_req *r, struct store *db, const char *name,
                          const char *const *keep)
{
	struct store_baseline_view v;
	int rc = store_baseline_get(db, name, &v);
	json_t *o = rc < 0 ? NULL : web_baseline_json(&v.b);
	store_baseline_view_free(&v);
	if (o && keep)
		srv_json_receipt(o, keep);
	return srv_reply_read(r, rc, o);
}

int srv_h_baseline_get(struct srv_req *r)
{
	char name[STORE_BASELINE_NAME_MAX + 2];
	srv_url_tail(r, "/baselines/", name, sizeof name);
	if (!store_baseline_name_ok(name))
		return bad_name(r);
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	return reply_baseline(r, db, name, NULL);
}

/* A promotion names the comparison that earned it: it must be done with
 * verdict pass, made against this baseline name, with run as candidate.
 * 0 with *from_run the run it was compared against (the promotion holds
 * only while that run is still the name's current one) and, for a
 * comparison against a set, the set in from_set[0..*n_from) (0 else), or
 * -1 with a reply queued. */
static int check_promotion(struct srv_req *r, struct store *db, int64_t cmp_id, const char *name,
                           int64_t run, int64_t *from_run, int64_t *from_set, size_t *n_from)
{
	struct store_comparison_view v;
	int rc = store_comparison_get(db, cmp_id, &v);
	int ok = rc == 0 && !strcmp(v.cmp.status, "done") && v.cmp.verdict &&
	         !strcmp(v.cmp.verdict, "pass") && v.cmp.baseline_name &&
	         !strcmp(v.cmp.baseline_name, name) && v.cmp.candidate_id == run;
	*from_run = rc == 0 ? v.cmp.baseline_id : 0;
	/* issue 26: against a set, the set it was compared with */
	*n_from = 0;
	for (size_t i = 0; rc == 0 && i < v.cmp.n_baseline_set && i < STORE_BASELINE_SET_MAX; i++)
		from_set[(*n_from)++] = v.cmp.baseline_set[i];
	store_comparison_view_free(&v);
	if (rc == STORE_NOT_FOUND) {
		srv_reply_error(r, 400, "bad_parameter", "comparison %lld does not exist",
		                (long long)cmp_id);
		return -1;
	}
	if (rc < 0) {
		srv_reply_store_error(r, rc);
		return -1;
	}
	if (!ok) {
		srv_reply_error(r, 409, "not_promotable",
		                "comparison %lld is not a passed comparison of run %lld against "
		                "baseline '%s'",
		                (long long)cmp_id, (long long)run, name);
		return -1;
	}
	return 0;
}

int srv_run_ids(json_t *v, int64_t *ids, size_t max, size_t *n, int64_t *dup)
{
	*n = 0;
	if (!json_is_array(v))
		return SRV_IDS_NOT_ARRAY;
	size_t k = json_array_size(v);
	for (size_t i = 0; i < k && i < max; i++) {
		json_t *e = json_array_get(v, i);
		if (!json_is_integer(e) || json_integer_value(e) <= 0)
			return SRV_IDS_NOT_ID;
		ids[i] = json_integer_value(e);
		for (size_t j = 0; j < i; j++)
			if (ids[j] == ids[i]) {
				*dup = ids[i];
				return SRV_IDS_TWICE;
			}
		*n = i + 1;
	}
	return 0;
}

int srv_set_members_or_reply(struct srv_req *r, struct store *db, const int64_t *set, size_t from,
                             size_t n, int member_place)
{
	for (size_t i = from; i < n; i++) {
		char kind[16];
		if (store_run_kind(db, set[i], kind, sizeof kind) < 0) {
			if (member_place)
				srv_reply_error(
				        r, 400, "unknown_run",
				        "baseline run %lld (member %zu of the set) does not exist",
				        (long long)set[i], i + 1);
			else
				srv_reply_error(r, 400, "unknown_run", "run %lld does not exist",
				                (long long)set[i]);
			return -1;
		}
		if (strcmp(kind, "training")) {
			srv_reply_error(r, 400, "kind_mismatch",
			                "a baseline set holds training runs (run %lld is %s)",
			                (long long)set[i], kind);
			return -1;
		}
	}
	return 0;
}

/* The "runs" of a PUT (issue 26): 1..STORE_BASELINE_SET_MAX distinct run
 * ids, oldest first.  -1 with the 400 queued. */
static int runs_field_or_reply(struct srv_req *r, json_t *v, int64_t *ids, size_t *n)
{
	size_t k = json_array_size(v);
	int64_t dup = 0;
	if (!json_is_array(v) || k < 1 || k > STORE_BASELINE_SET_MAX) {
		srv_reply_error(r, 400, "bad_parameter",
		                "runs must be an array of 1-%d training run ids (oldest first)",
		                STORE_BASELINE_SET_MAX);
		return -1;
	}
	int rc = srv_run_ids(v, ids, STORE_BASELINE_SET_MAX, n, &dup);
	if (rc == SRV_IDS_TWICE)
		srv_reply_error(r, 400, "bad_parameter", "runs names run %lld twice",
		                (long long)dup);
	else if (rc < 0)
		srv_reply_error(r, 400, "bad_parameter", "runs must be run ids");
	return rc < 0 ? -1 : 0;
}

int srv_h_baseline_put(struct srv_req *r)
{
	char name[STORE_BASELINE_NAME_MAX + 2];
	srv_url_tail(r, "/baselines/", name, sizeof name);
	if (!store_baseline_name_ok(name))
		return bad_name(r);
	json_t *req = srv_body_json_or_reply(r);
	int rc = MHD_YES;
	if (!req)
		return MHD_YES;
	const char *key;
	json_t *val;
	json_object_foreach(req, key, val)
	{
		if (strcmp(key, "run") && strcmp(key, "runs") && strcmp(key, "note") &&
		    strcmp(key, "comparison")) {
			rc = srv_reply_error(r, 400, "unknown_field",
			                     "unknown field '%.60s' (run, runs, note, comparison)",
			                     key);
			goto done;
		}
	}
	json_t *run = json_object_get(req, "run"), *note = json_object_get(req, "note");
	json_t *cmp = json_object_get(req, "comparison"), *runs = json_object_get(req, "runs");
	int64_t set[STORE_BASELINE_SET_MAX];
	size_t n_set = 0;
	if (runs && (run || (cmp && !json_is_null(cmp)))) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "runs sets a baseline set by hand: give runs or run, and a "
		                     "promotion names its run");
		goto done;
	}
	if (runs && runs_field_or_reply(r, runs, set, &n_set) < 0)
		goto done;
	if (!runs && (!json_is_integer(run) || json_integer_value(run) <= 0)) {
		rc = srv_reply_error(r, 400, "bad_parameter", "run must be a run id");
		goto done;
	}
	if (note && !json_is_null(note) &&
	    (!json_is_string(note) || json_string_length(note) > 2000 ||
	     strlen(json_string_value(note)) != json_string_length(note))) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "note must be text of at most 2000 bytes");
		goto done;
	}
	if (cmp && !json_is_null(cmp) && (!json_is_integer(cmp) || json_integer_value(cmp) <= 0)) {
		rc = srv_reply_error(r, 400, "bad_parameter", "comparison must be a comparison id");
		goto done;
	}
	struct store *db = srv_db_or_reply(r);
	if (!db)
		goto done;
	if (n_set > 1 && srv_set_members_or_reply(r, db, set, 0, n_set, 0) < 0)
		goto done;
	int64_t run_id = runs ? set[n_set - 1] : json_integer_value(run);
	int64_t cmp_id = json_integer_value(cmp);
	int64_t from_run = 0, current = 0, from_set[STORE_BASELINE_SET_MAX];
	size_t n_from = 0;
	if (cmp_id > 0 &&
	    check_promotion(r, db, cmp_id, name, run_id, &from_run, from_set, &n_from) < 0)
		goto done;
	/* the token that made the change: also when writes are open and the
	 * client sent one anyway */
	const char *who = srv_auth_has_token(r) ? r->token_name : NULL;
	/* a promotion is a compare-and-swap: it holds only while the run the
	 * comparison was made against is still current (two pipelines that
	 * passed against one run: the first promotes, the second is 409) */
	int src = cmp_id > 0 && n_from
	                  /* a set: the candidate replaces its oldest member */
	                  ? store_baseline_promote_set(db, name, run_id, from_set, n_from, who,
	                                               json_string_value(note), cmp_id, &current,
	                                               NULL)
	                  : cmp_id > 0 ? store_baseline_promote(db, name, run_id, from_run, who,
	                                                        json_string_value(note), cmp_id,
	                                                        &current, NULL)
	                    : runs     ? store_baseline_set_runs(db, name, set, n_set, who,
	                                                         json_string_value(note), 0, NULL)
	                               : store_baseline_set(db, name, run_id, who,
	                                                    json_string_value(note), cmp_id, NULL);
	if (src == 1 && n_from && current != 0) {
		rc = srv_reply_error(r, 409, "not_promotable",
		                     "baseline '%s' is no longer the set comparison %lld was made "
		                     "against: nothing changed; compare run %lld with its current "
		                     "set to promote it",
		                     name, (long long)cmp_id, (long long)run_id);
		goto done;
	}
	if (src == 1 && current == 0) {
		rc = srv_reply_error(r, 409, "not_promotable", "baseline '%s' does not exist",
		                     name);
		goto done;
	}
	if (src == 1) {
		rc = srv_reply_error(r, 409, "not_promotable",
		                     "baseline '%s' is now run %lld, not run %lld that comparison "
		                     "%lld was made against: nothing changed; compare run %lld "
		                     "with run %lld to promote it",
		                     name, (long long)current, (long long)from_run,
		                     (long long)cmp_id, (long long)run_id, (long long)current);
		goto done;
	}
	if (src == STORE_NOT_FOUND) {
		rc = srv_reply_error(r, 400, "unknown_run", "%s", store_errmsg(db));
		goto done;
	}
	if (src < 0) {
		rc = srv_reply_store_error(r, src);
		goto done;
	}
	/* private reads, no token: the run's meta and the history are not
	 * this client's to read */
	static const char *const receipt[] = {"name", "run", "updated_at", "changes", NULL};
	rc = reply_baseline(r, db, name, srv_auth_may_read(r) ? NULL : receipt);
done:
	json_decref(req);
	return rc;
}

int srv_h_baselines_list(struct srv_req *r)
{
	long long limit;
	const char *cursor;
	if (srv_page_params_or_reply(r, 50, &limit, &cursor) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_baseline_page page;
	int rc = store_baselines_list(db, (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_baselines_page_json(&page);
	store_baseline_page_free(&page);
	return srv_reply_read(r, rc, out);
}

int srv_h_suite_get(struct srv_req *r)
{
	char suite[STORE_LABEL_MAX + 2];
	srv_url_tail(r, "/suites/", suite, sizeof suite);
	if (!store_label_ok(suite))
		return srv_reply_error(r, 400, "bad_name",
		                       "a suite is 1-%d bytes of A-Z a-z 0-9 . _ -",
		                       STORE_LABEL_MAX);
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_suite_view v;
	int rc = store_suite_get(db, suite, &v);
	json_t *out = rc < 0 ? NULL : web_suite_json(suite, &v);
	store_suite_view_free(&v);
	return srv_reply_read(r, rc, out);
}
