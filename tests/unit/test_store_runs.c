/* test_store_runs.c - runs and logs: create/read round trip of every field
 * (header, counts, excluded ops, warnings), duplicate rank, the newest-first
 * list with kind/name filters, cursor paging and a bad cursor, raw-log
 * lookup, and deletion returning the digests nothing references any more.
 * On SQLite and PostgreSQL (storetest.h): expected errors inside the
 * caller's transaction (duplicate rank, missing run or log, a referenced
 * run) leave it usable, as SQLite always did; a meta that is not JSON is
 * stored, listed and found by name. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define SHA_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

static void test_round_trip(struct store *st)
{
	int64_t run_id, l0, l1, dup;
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_create(st, "eager", "activation", "{\"commit\":\"abc123\",\"n\":2}",
	                           &run_id),
	          0);
	CHECK_INT(store_log_create(st, run_id, 0, "rank_0_activations.log", 1234, SHA_A, &l0), 0);
	CHECK_INT(store_log_create(st, run_id, 1, NULL, 99, SHA_B, &l1), 0);
	CHECK_INT(store_log_create(st, run_id, 1, "again", 1, SHA_C, &dup), STORE_DUPLICATE);
	CHECK(strstr(store_errmsg(st), "rank 1") != NULL);
	CHECK_INT(store_log_create(st, 987654, 0, NULL, 1, SHA_C, &dup), STORE_NOT_FOUND);
	CHECK_INT(store_log_set_header(st, l0, 3, "_to_copy, detach, t, view"), 0);
	CHECK_INT(store_log_set_header(st, l1, -1, "(none)"), 0);
	CHECK_INT(store_log_set_header(st, 999999, 1, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_log_set_counts(st, l0, 3, 0, 40, 2), 0);
	CHECK_INT(store_log_set_counts(st, l1, 0, 0, 5, 0), 0);
	struct matcher_warning w1 = {"count_mismatch", 0, "header says 3, found 2", ""};
	struct matcher_warning w2 = {"unknown_line", 17, "unrecognised line",
	                             "  Weird: line \"x\""};
	CHECK_INT(store_warning_add(st, l0, &w1), 0);
	CHECK_INT(store_warning_add(st, 999999, &w1), STORE_NOT_FOUND);
	CHECK(strstr(store_errmsg(st), "log 999999 not found") != NULL);
	CHECK_INT(store_warning_add(st, l0, &w2), 0);
	/* the errors above left the transaction usable: all of it commits */
	CHECK_INT(store_tx_commit(st), 0);

	struct store_run_view v;
	CHECK_INT(store_run_get(st, run_id, &v), 0);
	const struct store_run *run = &v.run;
	CHECK_INT(run->id, run_id);
	CHECK_STR(run->name, "eager");
	CHECK_STR(run->kind, "activation");
	CHECK_STR(run->meta_json, "{\"commit\":\"abc123\",\"n\":2}");
	CHECK_INT(run->with_warnings, 1);
	const char *created = run->created_at;
	CHECK(created && strlen(created) == 20 && created[10] == 'T' && created[19] == 'Z');
	CHECK_INT(run->n_logs, 2);
	if (run->n_logs != 2) {
		store_run_view_free(&v);
		return;
	}
	const struct store_log_view *a = &run->logs[0], *b = &run->logs[1];
	CHECK_INT(a->rank, 0);
	CHECK_INT(a->id, l0);
	CHECK_STR(a->filename, "rank_0_activations.log");
	CHECK_INT(a->bytes, 1234);
	CHECK_STR(a->sha256, SHA_A);
	CHECK_INT(a->n_items, 3);
	CHECK_INT(a->n_lines, 40);
	CHECK_INT(a->has_header_total, 1);
	CHECK_INT(a->header_total, 3);
	CHECK_INT(a->has_excluded, 1);
	CHECK_INT(a->n_excluded, 4);
	if (a->n_excluded == 4) {
		CHECK_STR(a->excluded[0], "_to_copy");
		CHECK_STR(a->excluded[1], "detach");
		CHECK_STR(a->excluded[3], "view");
	}
	CHECK_INT(a->n_warnings, 2);
	CHECK_INT(a->n_warnings_listed, 2);
	if (a->n_warnings_listed == 2) {
		CHECK_STR(a->warnings[0].code, "count_mismatch");
		CHECK_INT(a->warnings[0].line, 0);
		CHECK_STR(a->warnings[0].excerpt, "");
		CHECK_STR(a->warnings[1].message, "unrecognised line");
		CHECK_STR(a->warnings[1].excerpt, "  Weird: line \"x\"");
		CHECK_INT(a->warnings[1].line, 17);
	}
	CHECK(b->filename == NULL);
	CHECK_INT(b->has_header_total, 0);
	CHECK_INT(b->has_excluded, 1); /* "(none)": the line, no names */
	CHECK_INT(b->n_excluded, 0);
	CHECK_INT(b->n_warnings_listed, 0);
	store_run_view_free(&v);
	CHECK(v.run.logs == NULL && v.arena.head == NULL);

	CHECK_INT(store_run_get(st, 424242, &v), STORE_NOT_FOUND);
	CHECK(strstr(store_errmsg(st), "not found") != NULL);
	store_run_view_free(&v);

	/* raw-download lookup */
	int64_t lid = 0, bytes = 0;
	char sha[65], fname[64];
	CHECK_INT(store_log_find(st, run_id, 0, &lid, sha, &bytes, fname, sizeof fname), 0);
	CHECK_INT(lid, l0);
	CHECK_STR(sha, SHA_A);
	CHECK_INT(bytes, 1234);
	CHECK_STR(fname, "rank_0_activations.log");
	CHECK_INT(store_log_find(st, run_id, 1, NULL, sha, NULL, fname, sizeof fname), 0);
	CHECK_STR(fname, "");
	CHECK_INT(store_log_find(st, run_id, 7, NULL, NULL, NULL, NULL, 0), STORE_NOT_FOUND);

	struct store_log_ref *refs = NULL;
	size_t n = 0;
	CHECK_INT(store_run_logs(st, run_id, &refs, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(refs[0].rank, 0);
		CHECK_INT(refs[0].log_id, l0);
		CHECK_INT(refs[0].n_items, 3);
		CHECK_INT(refs[1].rank, 1);
	}
	free(refs);
	CHECK_INT(store_run_logs(st, 55555, &refs, &n), STORE_NOT_FOUND);
	char kind[16];
	CHECK_INT(store_run_kind(st, run_id, kind, sizeof kind), 0);
	CHECK_STR(kind, "activation");
}

static void test_training_json(struct store *st)
{
	int64_t run_id, l0;
	CHECK_INT(store_run_create(st, "train-a", "training", NULL, &run_id), 0);
	CHECK_INT(store_log_create(st, run_id, 0, "stdout.log", 10, SHA_C, &l0), 0);
	CHECK_INT(store_log_set_counts(st, l0, 100, 4, 500, 0), 0);
	struct store_run_view v;
	CHECK_INT(store_run_get(st, run_id, &v), 0);
	CHECK_STR(v.run.kind, "training");
	CHECK(v.run.meta_json == NULL);
	CHECK_INT(v.run.n_logs, 1);
	if (v.run.n_logs == 1) {
		CHECK_INT(v.run.logs[0].n_items, 100);
		CHECK_INT(v.run.logs[0].n_validation, 4);
		CHECK_INT(v.run.logs[0].n_lines, 500);
		CHECK_INT(v.run.logs[0].has_excluded, 0);
	}
	store_run_view_free(&v);
}

static void test_list(struct store *st)
{
	int64_t ids[7];
	for (int i = 0; i < 7; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s-%d", i % 2 ? "nightly" : "pr", i);
		CHECK_INT(store_run_create(st, name, i % 3 == 0 ? "training" : "activation", NULL,
		                           &ids[i]),
		          0);
	}
	/* page through everything 3 at a time, newest first */
	const char *cursor = NULL;
	char cbuf[64] = "";
	int64_t prev = INT64_MAX;
	int total = 0, pages = 0;
	for (;;) {
		struct store_run_page page;
		CHECK_INT(store_runs_list(st, NULL, NULL, 3, cursor, &page), 0);
		CHECK(page.n_runs <= 3);
		for (size_t i = 0; i < page.n_runs; i++) {
			CHECK(page.runs[i].id < prev);
			prev = page.runs[i].id;
			CHECK_INT(page.runs[i].with_warnings, 0);
			total++;
		}
		pages++;
		snprintf(cbuf, sizeof cbuf, "%s", page.next_cursor);
		store_run_page_free(&page);
		if (!cbuf[0] || pages > 10)
			break;
		cursor = cbuf;
	}
	CHECK_INT(total, 7 + 2); /* plus the two runs of the other tests */
	CHECK_INT(pages, 3);

	struct store_run_page page;
	CHECK_INT(store_runs_list(st, "training", NULL, 0, NULL, &page), 0);
	CHECK_INT(page.n_runs, 3 + 1);
	store_run_page_free(&page);
	CHECK_INT(store_runs_list(st, NULL, "nightly", 0, NULL, &page), 0);
	CHECK_INT(page.n_runs, 3);
	CHECK_STR(page.n_runs ? page.runs[0].name : NULL, "nightly-5");
	CHECK_STR(page.next_cursor, "");
	store_run_page_free(&page);
	CHECK_INT(store_runs_list(st, "activation", "ghtly-", 0, NULL, &page), 0);
	CHECK_INT(page.n_runs, 2); /* 1 and 5 */
	store_run_page_free(&page);
	/* the first run of the round trip comes with its logs */
	CHECK_INT(store_runs_list(st, NULL, "eager", 0, NULL, &page), 0);
	CHECK_INT(page.n_runs, 1);
	if (page.n_runs == 1) {
		CHECK_INT(page.runs[0].n_logs, 2);
		CHECK_INT(page.runs[0].logs[0].n_excluded, 4);
		CHECK(page.runs[0].logs[0].warnings == NULL);
	}
	store_run_page_free(&page);

	/* bad cursors and kinds */
	const char *bad[] = {"x", "r", "r12x", "12", "o1.2", "r1.2", "r--1", " r1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_INT(store_runs_list(st, NULL, NULL, 5, bad[i], &page), STORE_BAD_CURSOR);
		CHECK_INT(page.n_runs, 0);
		store_run_page_free(&page);
	}
	CHECK_INT(store_runs_list(st, "bogus", NULL, 5, NULL, &page), STORE_INVALID);
	store_run_page_free(&page);
	CHECK_INT(store_runs_list(st, NULL, NULL, 5, "", &page), 0);
	store_run_page_free(&page);
}

/* A meta that is not JSON (the store keeps it as given) is listed, read
 * back and found by name; searches that look into meta skip it without an
 * error, also inside a transaction (a failed cast on PostgreSQL would end
 * it). */
static void test_bad_meta(struct store *st)
{
	int64_t bad, good, obj;
	CHECK_INT(store_run_create(st, "meta-bad", "activation", "{\"commit\": \"zz9\"", &bad), 0);
	CHECK_INT(store_run_create(st, "meta-arr", "activation", "[\"zz9\"]", &good), 0);
	CHECK_INT(store_run_create(st, "meta-obj", "activation",
	                           " {\"commit\" : \"ZZ9\\u0041\", \"n\": [1, {}]} ", &obj),
	          0);
	struct store_run_view v;
	CHECK_INT(store_run_get(st, bad, &v), 0);
	CHECK_STR(v.run.meta_json, "{\"commit\": \"zz9\"");
	store_run_view_free(&v);
	CHECK_INT(store_tx_begin(st), 0);
	struct store_list_filter f = {"meta-", NULL, NULL, NULL, 0};
	struct store_run_page p;
	CHECK_INT(store_runs_find(st, &f, 10, NULL, &p), 0);
	CHECK_INT(p.n_runs, 3);
	store_run_page_free(&p);
	/* only the valid object's commit matches (escapes decoded) */
	f.q = "zz9a";
	CHECK_INT(store_runs_find(st, &f, 10, NULL, &p), 0);
	CHECK_INT(p.n_runs, 1);
	CHECK_INT(p.n_runs ? p.runs[0].id : 0, obj);
	store_run_page_free(&p);
	f.q = "zz9";
	CHECK_INT(store_runs_find(st, &f, 10, NULL, &p), 0);
	CHECK_INT(p.n_runs, 1);
	store_run_page_free(&p);
	/* a commit that is a number matches its value, not only its text */
	int64_t num;
	CHECK_INT(store_run_create(st, "meta-num", "activation", "{\"commit\": 1E3}", &num), 0);
	f.q = "1000";
	CHECK_INT(store_runs_find(st, &f, 10, NULL, &p), 0);
	CHECK_INT(p.n_runs, 1);
	CHECK_INT(p.n_runs ? p.runs[0].id : 0, num);
	store_run_page_free(&p);
	CHECK_INT(store_runs_list(st, NULL, "meta-bad", 10, NULL, &p), 0);
	CHECK_INT(p.n_runs, 1);
	CHECK_STR(p.n_runs ? p.runs[0].meta_json : NULL, "{\"commit\": \"zz9\"");
	store_run_page_free(&p);
	int64_t extra;
	CHECK_INT(store_run_create(st, "after-search", "training", NULL, &extra), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_run_exists(st, extra), 1);
	CHECK_INT(store_run_delete(st, bad, NULL), 0);
	CHECK_INT(store_run_delete(st, good, NULL), 0);
	CHECK_INT(store_run_delete(st, obj, NULL), 0);
	CHECK_INT(store_run_delete(st, extra, NULL), 0);
	CHECK_INT(store_run_delete(st, num, NULL), 0);
}

static int has(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

static void test_delete(struct store *st)
{
	int64_t r1, r2, l;
	CHECK_INT(store_run_create(st, "d1", "activation", NULL, &r1), 0);
	CHECK_INT(store_log_create(st, r1, 0, NULL, 1, "1111", &l), 0);
	CHECK_INT(store_log_create(st, r1, 1, NULL, 1, "2222", &l), 0);
	struct matcher_warning w = {"no_header", 0, "m", ""};
	CHECK_INT(store_warning_add(st, l, &w), 0);
	CHECK_INT(store_run_create(st, "d2", "activation", NULL, &r2), 0);
	CHECK_INT(store_log_create(st, r2, 0, NULL, 1, "2222", &l), 0);

	CHECK_INT(store_sha256_referenced(st, "1111"), 1);
	CHECK_INT(store_sha256_referenced(st, "9999"), 0);
	char **unref = NULL;
	CHECK_INT(store_run_delete(st, r1, &unref), 0);
	CHECK(unref != NULL);
	CHECK(has(unref, "1111"));
	CHECK(!has(unref, "2222")); /* still used by d2 */
	store_strv_free(unref);
	CHECK_INT(store_run_exists(st, r1), 0);
	CHECK_INT(store_sha256_referenced(st, "1111"), 0);
	CHECK_INT(store_run_delete(st, r1, &unref), STORE_NOT_FOUND);
	CHECK(unref == NULL);
	CHECK_INT(store_run_delete(st, r2, &unref), 0);
	CHECK(has(unref, "2222"));
	store_strv_free(unref);
	CHECK_INT(store_run_delete(st, 31337, NULL), STORE_NOT_FOUND);

	/* deleting inside the caller's transaction, then rolling back */
	int64_t r3;
	CHECK_INT(store_run_create(st, "d3", "training", NULL, &r3), 0);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_delete(st, r3, NULL), 0);
	CHECK_INT(store_tx_rollback(st), 0);
	CHECK_INT(store_run_exists(st, r3), 1);
	/* ids are not reused after a delete */
	int64_t r4;
	CHECK_INT(store_run_delete(st, r3, NULL), 0);
	CHECK_INT(store_run_create(st, "d4", "training", NULL, &r4), 0);
	CHECK(r4 > r3);

	/* a run a baseline names stays: STORE_IN_USE inside the caller's
	 * transaction, which goes on */
	CHECK_INT(store_baseline_set(st, "main/keep", r4, NULL, NULL, 0, NULL), 0);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_delete(st, r4, &unref), STORE_IN_USE);
	CHECK(strstr(store_errmsg(st), "main/keep") != NULL);
	CHECK(unref == NULL);
	int64_t r5;
	CHECK_INT(store_run_create(st, "d5", "training", NULL, &r5), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_run_exists(st, r4), 1);
	CHECK_INT(store_run_exists(st, r5), 1);
}

int main(void)
{
	char target[512], err[512];
	struct store *st = NULL;
	CHECK_INT(storetest_target("runs", target, sizeof target), 0);
	CHECK_INT(store_open(target, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	test_round_trip(st);
	test_training_json(st);
	test_list(st);
	test_bad_meta(st);
	test_delete(st);
	store_close(st);
	storetest_cleanup("runs");
	return check_report();
}
