/* test_store_search.c - the browser lists' filters (issue 15):
 * store_runs_find searches names and meta commit/branch case-insensitively
 * and filters by kind; store_comparisons_find also searches the
 * comparison's and its runs' names, filters by kind, verdict, status and
 * the run used, and gives each comparison its first reason; a meta that
 * is not valid JSON matches by name only (no error); SQL metacharacters
 * in q are plain text.  On SQLite and PostgreSQL (storetest.h). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

static size_t runs_found(struct store *st, const char *q, const char *kind, int64_t *first)
{
	struct store_list_filter f = {q, kind, NULL, NULL, 0};
	struct store_run_page p;
	CHECK_INT(store_runs_find(st, &f, 50, NULL, &p), 0);
	size_t n = p.n_runs;
	if (first)
		*first = n ? p.runs[0].id : -1;
	store_run_page_free(&p);
	return n;
}

static size_t cmps_found(struct store *st, const struct store_list_filter *f, const char **reason)
{
	static char keep[256];
	struct store_comparison_page p;
	CHECK_INT(store_comparisons_find(st, f, 50, NULL, &p), 0);
	size_t n = p.n_cmps;
	if (reason) {
		snprintf(keep, sizeof keep, "%s",
		         n && p.cmps[0].first_reason ? p.cmps[0].first_reason : "");
		*reason = keep;
	}
	store_comparison_page_free(&p);
	return n;
}

int main(void)
{
	char target[512], err[512];
	struct store *st = NULL;
	int64_t a, b, c, t, x, cmp1, cmp2, first;
	CHECK_INT(storetest_target("search", target, sizeof target), 0);
	CHECK_INT(store_open(target, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	CHECK_INT(store_run_create(st, "Eager-BF16", "activation",
	                           "{\"commit\":\"3F2A9C1\",\"branch\":\"main\"}", &a),
	          0);
	CHECK_INT(store_run_create(st, "traced", "activation",
	                           "{\"commit\":\"9d8e7f6\",\"branch\":\"feature/x\"}", &b),
	          0);
	CHECK_INT(store_run_create(st, "100%_done", "activation", NULL, &c), 0);
	CHECK_INT(store_run_create(st, "train", "training", "{\"branch\":\"main\"}", &t), 0);

	/* not JSON: found by its name only */
	CHECK_INT(store_run_create(st, "unparsed", "training", "{\"branch\":\"main\"", &x), 0);

	CHECK_INT((int)runs_found(st, NULL, NULL, NULL), 5);
	CHECK_INT((int)runs_found(st, "UNPARSED", NULL, &first), 1);
	CHECK(first == x);
	CHECK_INT((int)runs_found(st, "eager", NULL, &first), 1);
	CHECK(first == a);
	CHECK_INT((int)runs_found(st, "3f2a", NULL, &first), 1); /* commit, any case */
	CHECK(first == a);
	CHECK_INT((int)runs_found(st, "FEATURE/", NULL, &first), 1); /* branch */
	CHECK(first == b);
	CHECK_INT((int)runs_found(st, "main", NULL, NULL), 2);
	CHECK_INT((int)runs_found(st, "main", "training", &first), 1);
	CHECK(first == t);
	CHECK_INT((int)runs_found(st, "%", NULL, &first), 1); /* not a LIKE pattern */
	CHECK(first == c);
	CHECK_INT((int)runs_found(st, "' OR 1=1 --", NULL, NULL), 0);

	CHECK_INT(store_comparison_create(st, a, b, "activation", "nightly", "{}", NULL, &cmp1), 0);
	CHECK_INT(store_comparison_create(st, a, c, "activation", "", "{}", NULL, &cmp2), 0);
	/* a finished comparison's first reason comes from its typed result */
	struct store_act_reason why;
	memset(&why, 0, sizeof why);
	why.rank = -1;
	why.code = "diff_rows";
	why.message = "3 paired ops differ";
	why.max_hash_distance = -1;
	struct store_act_result res;
	memset(&res, 0, sizeof res);
	res.verdict = MATCHER_VERDICT_FAIL;
	res.reasons = &why;
	res.n_reasons = 1;
	CHECK_INT(store_act_result_put(st, cmp1, &res), 0);
	CHECK_INT(store_comparison_finish(st, cmp1, "done", "fail", NULL, NULL), 0);
	CHECK_INT(store_comparison_finish(st, cmp2, "failed", NULL, NULL, "boom"), 0);

	struct store_list_filter f = {0};
	const char *reason;
	CHECK_INT((int)cmps_found(st, &f, NULL), 2);
	f.q = "NIGHT";
	CHECK_INT((int)cmps_found(st, &f, &reason), 1); /* comparison name */
	CHECK_STR(reason, "3 paired ops differ");
	f.q = "9d8e";
	CHECK_INT((int)cmps_found(st, &f, NULL), 1); /* candidate's commit */
	f.q = "eager";
	CHECK_INT((int)cmps_found(st, &f, NULL), 2); /* baseline's name */
	f.verdict = "fail";
	CHECK_INT((int)cmps_found(st, &f, NULL), 1);
	f.verdict = NULL;
	f.status = "failed";
	CHECK_INT((int)cmps_found(st, &f, &reason), 1);
	CHECK_STR(reason, ""); /* no result, no reason */
	f.status = NULL;
	f.kind = "training";
	CHECK_INT((int)cmps_found(st, &f, NULL), 0);
	struct store_list_filter using = {0};
	using.run_id = c;
	CHECK_INT((int)cmps_found(st, &using, NULL), 1);
	using.run_id = t;
	CHECK_INT((int)cmps_found(st, &using, NULL), 0);
	store_close(st);
	storetest_cleanup("search");
	return check_report();
}
