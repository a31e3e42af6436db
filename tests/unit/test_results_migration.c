/* test_results_migration.c - the typed activation result (migration 007):
 * for the four activation fixtures (tests/data/match/pN, p4 with its
 * overrides), the result the job builds (store_act_build_rank) is stored
 * with store_act_result_put and read back by store_comparison_get; its
 * document (web_act_result_doc) must be byte-identical to the one built
 * straight from the matcher.  A multi-rank comparison (tolerance policy
 * with allowed ops, a job-level "rank_missing" reason) is included.  Then
 * the database is rewound to before 007 with the documents stored as
 * JSON text in comparisons.result (the old way): migration 007 converts
 * them into the same typed rows, so they read back byte-identical and
 * comparisons.result is emptied. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "actview.h"
#include "actcheck.h"
#include "actlog.h"
#include "actload.h"
#include "check.h"
#include "undo_008.h"
#include "json_act.h"
#include "json_views.h"
#include "match.h"
#include "store.h"

#define N_CMP 5

static char dir[] = "/tmp/parity-resmig-______";
static char path[512];

static int64_t add_log(struct store *st, int64_t run, int rank, const struct matcher_actlog *log)
{
	int64_t id = 0;
	CHECK_INT(store_log_create(st, run, rank, NULL, 1, "x", &id), 0);
	CHECK_INT(store_tx_begin(st), 0);
	for (size_t i = 0; i < log->n_entries; i++)
		CHECK_INT(store_entry_add(st, id, ENTRY(log, i)), 0);
	CHECK_INT(store_tx_commit(st), 0);
	return id;
}

static void add_rows(struct store *st, int64_t cmp, int rank, int64_t la, int64_t lb,
                     const struct matcher_match_result *r)
{
	struct store_row_rec *recs = calloc(r->n_rows + 1, sizeof *recs);
	int64_t *ia = NULL, *ib = NULL;
	size_t na = 0, nb = 0;
	for (size_t i = 0; i < r->n_rows; i++)
		store_row_rec_from(&recs[i], ROW(r, i));
	CHECK_INT(store_log_entry_ids(st, la, &ia, &na), 0);
	CHECK_INT(store_log_entry_ids(st, lb, &ib, &nb), 0);
	CHECK_INT(store_comparison_rows_add(st, cmp, rank, ia, na, ib, nb, recs, r->n_rows), 0);
	free(ia);
	free(ib);
	free(recs);
}

/* The stored result's document text (NULL when there is none). */
static char *stored_doc(struct store *st, int64_t id, int want_json_null)
{
	struct store_comparison_view v;
	char *text = NULL;
	CHECK_INT(store_comparison_get(st, id, &v), 0);
	CHECK(v.cmp.act != NULL);
	if (want_json_null)
		CHECK(v.cmp.result_json == NULL);
	if (v.cmp.act) {
		json_t *d = web_act_result_doc(v.cmp.act);
		CHECK(d != NULL);
		text = d ? json_dumps(d, JSON_COMPACT) : NULL;
		json_decref(d);
	}
	store_comparison_view_free(&v);
	return text;
}

static void rewind_to_v6(char *const *docs, const int64_t *ids)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db, "UPDATE comparisons SET result = ? WHERE id = ?", -1, &s,
	                             NULL),
	          SQLITE_OK);
	for (int k = 0; k < N_CMP; k++) {
		sqlite3_bind_text(s, 1, docs[k], -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, 2, ids[k]);
		CHECK_INT(sqlite3_step(s), SQLITE_DONE);
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	CHECK_INT(sqlite3_exec(db,
	                       UNDO_008
	                       "DROP TABLE act_results; DROP TABLE act_result_policy_ops; "
	                       "DROP TABLE act_result_ranks; DROP TABLE act_result_reasons; "
	                       "DROP TABLE act_result_excluded; DROP TABLE act_result_unused; "
	                       "DROP TABLE act_result_warnings; " CHECK_DROP_009 /* 009 */
	                               CHECK_DROP_010                            /* 010 */
	                       "DELETE FROM schema_migrations WHERE version >= 7; "
	                       "PRAGMA user_version=6; COMMIT;",
	                       NULL, NULL, NULL),
	          SQLITE_OK);
	sqlite3_close(db);
}

int main(void)
{
	char err[512], rel[96], p[4096];
	struct store *st = NULL;
	struct matcher_actlog *a[4] = {0}, *b[4] = {0};
	struct matcher_overrides *ov = NULL;
	struct matcher_match_result *res[4] = {0};
	struct matcher_act_verdict ver[4];
	char *want[N_CMP] = {0};
	int64_t ids[N_CMP] = {0};
	static const char *const allow[] = {"aten::add", "conv2d"};
	struct matcher_act_policy tol = {MATCHER_POLICY_TOLERANCE, 0.25, allow, 2};

	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	CHECK(store_schema_version(st) >= 7);
	size_t n = 0;
	char *otext = check_slurp(check_testfile("data/match/p4_overrides.csv", p, sizeof p), &n);
	CHECK(otext && matcher_overrides_parse(otext, n, &ov) == 0);
	free(otext);

	int64_t run_a[N_CMP], run_b[N_CMP], la[N_CMP][2], lb[N_CMP][2];
	for (int k = 0; k < 4; k++) {
		snprintf(rel, sizeof rel, "data/match/p%d_a.log", k + 1);
		a[k] = load(rel);
		snprintf(rel, sizeof rel, "data/match/p%d_b.log", k + 1);
		b[k] = load(rel);
		if (!a[k] || !b[k])
			return check_report();
		CHECK_INT(matcher_match(a[k], b[k], k == 3 ? ov : NULL, &res[k]), 0);
		matcher_act_check(res[k], NULL, &ver[k]);
	}
	/* comparisons 0..3: fixture k at rank 0, bitwise; comparison 4: ranks 0
	 * (p2) and 1 (p3) under a tolerance policy, rank 2 in the baseline only */
	for (int k = 0; k < N_CMP; k++) {
		CHECK_INT(store_run_create(st, "run a", "activation", NULL, &run_a[k]), 0);
		CHECK_INT(store_run_create(st, "run b", "activation", NULL, &run_b[k]), 0);
		CHECK_INT(store_comparison_create(st, run_a[k], run_b[k], "activation", NULL, NULL,
		                                  NULL, &ids[k]),
		          0);
	}
	for (int k = 0; k < 4; k++) {
		struct store_act_build bld;
		struct store_act_input d = {"run a", "run b", a[k],   b[k], k == 3 ? ov : NULL,
		                            res[k],  NULL,    &ver[k]};
		la[k][0] = add_log(st, run_a[k], 0, a[k]);
		lb[k][0] = add_log(st, run_b[k], 0, b[k]);
		store_act_build_init(&bld, NULL);
		CHECK_INT(store_act_build_rank(&bld, &d, 0), 0);
		bld.res.verdict = ver[k].verdict;
		json_t *doc = web_act_result_doc(&bld.res);
		CHECK(doc != NULL);
		want[k] = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		CHECK_INT(store_tx_begin(st), 0);
		add_rows(st, ids[k], 0, la[k][0], lb[k][0], res[k]);
		CHECK_INT(store_comparison_finish(st, ids[k], "done",
		                                  matcher_verdict_name(bld.res.verdict), NULL,
		                                  NULL),
		          0);
		CHECK_INT(store_act_result_put(st, ids[k], &bld.res), 0);
		CHECK_INT(store_tx_commit(st), 0);
		store_act_build_free(&bld);
	}
	{
		struct store_act_build bld;
		struct matcher_act_verdict tv[2];
		store_act_build_init(&bld, &tol);
		for (int r = 0; r < 2; r++) {
			la[4][r] = add_log(st, run_a[4], r, a[r + 1]);
			lb[4][r] = add_log(st, run_b[4], r, b[r + 1]);
		}
		add_log(st, run_a[4], 2, a[0]);
		CHECK_INT(store_tx_begin(st), 0);
		for (int r = 0; r < 2; r++) {
			int k = r + 1;
			matcher_act_check(res[k], &tol, &tv[r]);
			struct store_act_input d = {"run a", "run b", a[k], b[k],
			                            NULL,    res[k],  &tol, &tv[r]};
			add_rows(st, ids[4], r, la[4][r], lb[4][r], res[k]);
			CHECK_INT(store_act_build_rank(&bld, &d, r), 0);
		}
		CHECK_INT(store_act_build_reason(&bld, "rank_missing", 2,
		                                 "rank 2 exists in the baseline only"),
		          0);
		bld.res.verdict = MATCHER_VERDICT_ERROR;
		json_t *doc = web_act_result_doc(&bld.res);
		want[4] = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
		CHECK_INT(store_comparison_finish(st, ids[4], "done", "error", NULL, NULL), 0);
		CHECK_INT(store_act_result_put(st, ids[4], &bld.res), 0);
		CHECK_INT(store_tx_commit(st), 0);
		store_act_build_free(&bld);
		/* the multi-rank document carries what the pages show */
		json_t *j = json_loads(want[4], 0, NULL);
		CHECK_INT((long)json_array_size(json_object_get(j, "ranks")), 2);
		CHECK_STR(json_string_value(json_object_get(json_object_get(j, "policy"), "name")),
		          "tolerance");
		json_t *rs = json_object_get(j, "reasons");
		CHECK_STR(json_string_value(json_object_get(
		                  json_array_get(rs, json_array_size(rs) - 1), "code")),
		          "rank_missing");
		json_decref(j);
	}
	/* p4 carries override warnings or unused overrides: they round-trip */
	CHECK(strstr(want[3], "\"overrides\":{\"used\":") != NULL);

	/* stored typed, read back: the same bytes */
	for (int k = 0; k < N_CMP; k++) {
		char *got = stored_doc(st, ids[k], 1);
		CHECK(got && want[k] && strcmp(got, want[k]) == 0);
		if (got && want[k] && strcmp(got, want[k]) != 0)
			fprintf(stderr, "comparison %d:\nwant %s\ngot  %s\n", k, want[k], got);
		free(got);
	}
	/* recomputing clears the typed result with the rows */
	CHECK_INT(store_comparison_rows_clear(st, ids[0]), 0);
	{
		struct store_comparison_view v;
		CHECK_INT(store_comparison_get(st, ids[0], &v), 0);
		CHECK(v.cmp.act == NULL);
		store_comparison_view_free(&v);
	}
	store_close(st);
	st = NULL;

	/* stored the pre-007 way (the document as JSON text): converted by the
	 * migration, read back byte-identical (comparison 0 lost its rows above:
	 * it is left out) */
	rewind_to_v6(want, ids);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st)
		fprintf(stderr, "%s\n", err);
	if (st) {
		CHECK(store_schema_version(st) >= 7);
		for (int k = 1; k < N_CMP; k++) {
			char *got = stored_doc(st, ids[k], 1);
			CHECK(got && want[k] && strcmp(got, want[k]) == 0);
			if (got && want[k] && strcmp(got, want[k]) != 0)
				fprintf(stderr, "migrated %d:\nwant %s\ngot  %s\n", k, want[k],
				        got);
			free(got);
		}
		store_close(st);
	}
	for (int k = 0; k < 4; k++) {
		matcher_match_result_free(res[k]);
		matcher_actlog_free(a[k]);
		matcher_actlog_free(b[k]);
	}
	for (int k = 0; k < N_CMP; k++)
		free(want[k]);
	matcher_overrides_free(ov);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return check_report();
}
