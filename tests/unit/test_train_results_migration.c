/* test_train_results_migration.c - the typed training result (migration
 * 009): for training fixture pairs under several policies (premerge,
 * bitwise, a custom one with rel thresholds, an if_logged metric and a
 * missing metric), the result the job builds (store_train_result_of_check) is
 * stored with store_train_result_put and read back by
 * store_comparison_get; its document (web_train_result_doc) must be
 * byte-identical to web_train_result_json straight from the matcher (what
 * the CLI prints).  Then the database is rewound to before 009 with the
 * documents stored as JSON text in comparisons.result (the old way):
 * migration 009 converts them into the same typed rows, so they read back
 * byte-identical and comparisons.result is emptied. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_train.h"
#include "store.h"
#include "traincheck.h"

static char dir[] = "/tmp/parity-trainmig-______";
static char path[512];

static struct matcher_trainrun *load(const char *name)
{
	char rel[128], p[512];
	size_t n;
	snprintf(rel, sizeof rel, "data/train/%s.log", name);
	char *d = check_slurp(check_testfile(rel, p, sizeof p), &n);
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	if (d && matcher_trainrun_parse_buffer(d, n, NULL, 0, &r, &err) < 0)
		fprintf(stderr, "%s: %s\n", rel, err.message);
	free(d);
	CHECK(r != NULL);
	return r;
}

struct pair {
	const char *a, *b;
	int policy; /* 0 premerge, 1 bitwise, 2 custom */
};
static const struct pair pairs[] = {
        {"q1_a", "q1_b", 0},
        {"q2_a", "q2_b", 0},
        {"q3_a", "q3_b", 0},
        {"q4_a", "q4_b", 0},
        {"q1_a", "q1_b", 1},
        {"t13_clean", "t13_bf16", 0},
        {"t13_clean", "t13_cut_in_escape", 0},
        {"t13_clean", "t13_fp8", 2},
        {"t13_cut_restart", "t13_native_crash", 0},
        {"t13_clean", "t13_early", 0},
        {"q2_a", "q2_b", 2},
};
#define N_CMP (sizeof pairs / sizeof *pairs)

static void make_policy(struct matcher_train_policy *p, int kind)
{
	matcher_train_policy_preset(p, kind == 1 ? "bitwise" : "premerge");
	if (kind == 2) {
		CHECK_INT(matcher_train_policy_set(p, "loss", 1e-4, 0.5, 1), 0);
		CHECK_INT(matcher_train_policy_set(p, "lr", 0, 0, 0), 0);
		CHECK_INT(matcher_train_policy_set(p, "memory_gib", 0.25, 0, 0), 0);
		matcher_train_policy_if_logged(p, "memory_gib");
		p->min_steps = 3;
		p->rank = 0;
		matcher_train_policy_customise(p);
	}
}

static char *stored_doc(struct store *st, int64_t id)
{
	struct store_comparison_view v;
	char *text = NULL;
	CHECK_INT(store_comparison_get(st, id, &v), 0);
	CHECK(v.cmp.train != NULL);
	CHECK(v.cmp.result_json == NULL);
	if (v.cmp.train) {
		json_t *d = web_train_result_doc(v.cmp.train);
		CHECK(d != NULL);
		text = d ? json_dumps(d, JSON_COMPACT) : NULL;
		json_decref(d);
	}
	store_comparison_view_free(&v);
	return text;
}

static void rewind_to_v8(char *const *docs, const int64_t *ids)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db, "UPDATE comparisons SET result = ? WHERE id = ?", -1, &s,
	                             NULL),
	          SQLITE_OK);
	for (size_t k = 0; k < N_CMP; k++) {
		sqlite3_bind_text(s, 1, docs[k], -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, ids[k]);
		CHECK_INT(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	CHECK_INT(sqlite3_exec(db,
	                       CHECK_DROP_009 /* 009 */ CHECK_DROP_010 /* 010 */
	                       "DELETE FROM schema_migrations WHERE version >= 9; "
	                       "PRAGMA user_version=8; COMMIT;",
	                       NULL, NULL, NULL),
	          SQLITE_OK);
	sqlite3_close(db);
}

int main(void)
{
	char err[512];
	struct store *st = NULL;
	char *want[N_CMP] = {0};
	int64_t ids[N_CMP] = {0};
	int seen_note = 0, seen_only = 0, seen_warning = 0, seen_fail = 0;

	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	for (size_t k = 0; k < N_CMP; k++) {
		struct matcher_trainrun *a = load(pairs[k].a), *b = load(pairs[k].b);
		struct matcher_train_policy pol;
		struct matcher_train_result *r = NULL;
		struct store_train_result v;
		struct arena arena;
		int64_t ra, rb;
		if (!a || !b)
			return check_report();
		make_policy(&pol, pairs[k].policy);
		CHECK_INT(matcher_train_check(a, b, &pol, &r), 0);
		json_t *doc = web_train_result_json(r, a, b);
		CHECK(doc != NULL);
		want[k] = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		seen_note |= r->n_notes > 0;
		seen_only |= r->n_only_a + r->n_only_b > 0;
		seen_warning |= a->n_warnings + b->n_warnings > 0;
		seen_fail |= r->verdict == MATCHER_VERDICT_FAIL;
		CHECK_INT(store_run_create(st, "run a", "training", NULL, &ra), 0);
		CHECK_INT(store_run_create(st, "run b", "training", NULL, &rb), 0);
		CHECK_INT(
		        store_comparison_create(st, ra, rb, "training", NULL, NULL, NULL, &ids[k]),
		        0);
		arena_init(&arena);
		CHECK_INT(store_train_result_of_check(&v, &arena, r, a, b), 0);
		CHECK_INT(store_tx_begin(st), 0);
		CHECK_INT(store_comparison_finish(st, ids[k], "done",
		                                  matcher_verdict_name(v.verdict), NULL, NULL),
		          0);
		CHECK_INT(store_train_result_put(st, ids[k], &v), 0);
		CHECK_INT(store_tx_commit(st), 0);
		arena_reset(&arena);
		matcher_train_result_free(r);
		matcher_trainrun_free(a);
		matcher_trainrun_free(b);
	}
	/* the fixtures cover the optional parts of the document */
	CHECK(seen_note && seen_only && seen_warning && seen_fail);

	/* stored typed: read back byte-identical */
	for (size_t k = 0; k < N_CMP; k++) {
		char *got = stored_doc(st, ids[k]);
		CHECK_STR(got, want[k]);
		free(got);
	}
	/* recomputing clears the typed result with the rows */
	CHECK_INT(store_comparison_rows_clear(st, ids[0]), 0);
	{
		struct store_comparison_view v;
		CHECK_INT(store_comparison_get(st, ids[0], &v), 0);
		CHECK(v.cmp.train == NULL);
		store_comparison_view_free(&v);
	}
	store_close(st);
	st = NULL;

	/* stored the pre-009 way (JSON text): converted by the migration */
	rewind_to_v8(want, ids);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st)
		fprintf(stderr, "%s\n", err);
	if (st) {
		CHECK(store_schema_version(st) >= 9);
		for (size_t k = 0; k < N_CMP; k++) {
			char *got = stored_doc(st, ids[k]);
			CHECK_STR(got, want[k]);
			free(got);
		}
		store_close(st);
	}
	for (size_t k = 0; k < N_CMP; k++)
		free(want[k]);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return check_report();
}
