/* test_rows_migration.c - typed result rows (migration 005) against the
 * row JSON the CLI prints: for the four activation fixtures (tests/data/
 * match/pN), rows stored as typed records and read back through the rows
 * list give exactly the documents web_act_row_append writes from the
 * matcher's rows (plus rank and idx), page after page; and rows stored the
 * pre-005 way (JSON text per row) are converted by migration 005 into the
 * same typed rows, so old results read back unchanged.  Likewise the
 * training per-step rows of the four training fixtures (tests/data/
 * train/qN, NaN and one-sided steps included) against web_train_row_json. */
#include <jansson.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "actview.h"
#include "json_act.h"
#include "actlog.h"
#include "actload.h"
#include "check.h"
#include "undo_008.h"
#include "rowdoc.h"
#include "match.h"
#include "store.h"
#include "json_train.h"
#include "traincheck.h"

#define N_FIX   4
#define N_TRAIN 4

static char dir[] = "/tmp/parity-rowsmig-______";
static char path[512];

/* A run with one rank-0 log holding log's entries; *log_id its log. */
static int64_t store_run(struct store *st, const char *name, const struct matcher_actlog *log,
                         int64_t *log_id)
{
	int64_t run = 0;
	CHECK_INT(store_run_create(st, name, "activation", NULL, &run), 0);
	CHECK_INT(store_log_create(st, run, 0, NULL, 1, name, log_id), 0);
	CHECK_INT(store_tx_begin(st), 0);
	for (size_t i = 0; i < log->n_entries; i++)
		CHECK_INT(store_entry_add(st, *log_id, ENTRY(log, i)), 0);
	CHECK_INT(store_tx_commit(st), 0);
	return run;
}

/* What the rows list must give: the CLI's row document + rank, idx (the
 * row writer's document, itself checked against the matcher row). */
static json_t *expected_rows(const struct matcher_match_result *r)
{
	json_t *arr = json_array();
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < r->n_rows; i++) {
		buf_clear(&b);
		CHECK_INT(web_act_row_append(&b, ROW(r, i)), 0);
		CHECK(rowdoc_check(b.data, b.len, ROW(r, i), 0));
		json_t *j = json_loadb(b.data, b.len, 0, NULL);
		json_object_set_new(j, "rank", json_integer(0));
		json_object_set_new(j, "idx", json_integer((json_int_t)i));
		json_array_append_new(arr, j);
	}
	buf_reset(&b);
	return arr;
}

/* Every row of comparison id, following cursors 7 rows at a time, as the
 * API serializes them. */
static json_t *service_rows(struct store *st, int64_t id)
{
	json_t *all = json_array();
	char cursor[64] = "";
	for (int pages = 0; pages < 1000; pages++) {
		struct store_row_page page;
		struct buf b = BUF_INIT;
		int rc = store_comparison_rows_list(st, id, -1, NULL, NULL, NULL, -1, NULL, 7,
		                                    cursor[0] ? cursor : NULL, &page);
		CHECK_INT(rc, 0);
		CHECK_INT(web_act_rows_page_append(&b, &page), 0);
		json_t *doc = b.data ? json_loads(b.data, 0, NULL) : NULL;
		CHECK(doc != NULL);
		json_array_extend(all, json_object_get(doc, "rows"));
		const char *next = json_string_value(json_object_get(doc, "next_cursor"));
		CHECK((next != NULL) == (page.next_cursor[0] != 0));
		snprintf(cursor, sizeof cursor, "%s", next ? next : "");
		json_decref(doc);
		buf_reset(&b);
		store_row_page_free(&page);
		if (rc < 0 || !cursor[0])
			break;
	}
	return all;
}

static void check_same(const char *what, int k, json_t *want, json_t *got)
{
	size_t n_bad = 0;
	CHECK_INT(json_array_size(got), json_array_size(want));
	for (size_t i = 0; i < json_array_size(want); i++) {
		if (!json_equal(json_array_get(want, i), json_array_get(got, i)) && n_bad++ < 2) {
			char *w =
			        json_dumps(json_array_get(want, i), JSON_COMPACT | JSON_SORT_KEYS);
			char *g = json_dumps(json_array_get(got, i), JSON_COMPACT | JSON_SORT_KEYS);
			fprintf(stderr, "%s p%d row %zu:\n want %s\n got  %s\n", what, k + 1, i, w,
			        g ? g : "(none)");
			free(w);
			free(g);
		}
	}
	CHECK_INT(n_bad, 0);
}

static struct matcher_trainrun *load_train(const char *rel)
{
	char p[512];
	size_t n = 0;
	char *d = check_slurp(check_testfile(rel, p, sizeof p), &n);
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	const char *keep[] = {"loss", "grad_norm"};
	CHECK(d != NULL);
	if (d && matcher_trainrun_parse_buffer(d, n, keep, 2, &r, &err) < 0)
		fprintf(stderr, "%s: %s\n", rel, err.message);
	CHECK(r != NULL);
	free(d);
	return r;
}

/* Every per-step row of comparison id as the API gives them. */
static json_t *service_steps(struct store *st, int64_t id)
{
	json_t *all = json_array();
	char cursor[64] = "";
	for (int pages = 0; pages < 1000; pages++) {
		struct store_step_page page;
		int rc = store_comparison_steps_list(st, id, -1, 7, cursor[0] ? cursor : NULL,
		                                     &page);
		CHECK_INT(rc, 0);
		json_t *doc = web_train_steps_page_json(&page);
		CHECK(doc != NULL);
		json_array_extend(all, json_object_get(doc, "steps"));
		snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
		json_decref(doc);
		store_step_page_free(&page);
		if (rc < 0 || !cursor[0])
			break;
	}
	return all;
}

/* Numbers the way rows were written before 005 (and before issue 13):
 * +-inf as "Infinity"/"-Infinity", a one-sided NaN difference as
 * "Infinity" (its exact text field is kept as today's). */
static void old_spelling(json_t *row)
{
	static const char *const num[] = {"a", "b", "abs", "rel"};
	const char *key;
	json_t *cell;
	json_object_foreach(row, key, cell)
	{
		if (!json_is_object(cell))
			continue;
		for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
			const char *v = json_string_value(json_object_get(cell, num[i]));
			if (v &&
			    (!strcmp(v, "Inf") || (!strcmp(v, "NaN") && !strcmp(num[i], "abs"))))
				json_object_set_new(cell, num[i], json_string("Infinity"));
			else if (v && !strcmp(v, "-Inf"))
				json_object_set_new(cell, num[i], json_string("-Infinity"));
		}
	}
}

/* Put comparison_rows back to migration 002's shape, holding the given
 * rows as JSON text, and the schema at version 4. */
static void rewind_to_v4(json_t *const *want, const int64_t *ids, json_t *const *want_t,
                         const int64_t *ids_t)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db,
	                       "PRAGMA foreign_keys=ON; BEGIN; DROP TABLE comparison_rows; "
	                       "CREATE TABLE comparison_rows (comparison_id INTEGER NOT NULL "
	                       "REFERENCES comparisons(id) ON DELETE CASCADE, rank INTEGER NOT "
	                       "NULL, idx INTEGER NOT NULL, status TEXT NOT NULL, method TEXT, "
	                       "phase TEXT NOT NULL, origin INTEGER NOT NULL, a_key TEXT, b_key "
	                       "TEXT, max_distance REAL, row TEXT NOT NULL, PRIMARY KEY "
	                       "(comparison_id, rank, idx)) WITHOUT ROWID;",
	                       NULL, NULL, NULL),
	          SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db,
	                             "INSERT INTO comparison_rows VALUES (?, 0, ?, ?, ?, ?, ?, "
	                             "?, ?, NULL, ?)",
	                             -1, &s, NULL),
	          SQLITE_OK);
	for (int k = 0; k < N_FIX; k++) {
		size_t i;
		json_t *r;
		json_array_foreach(want[k], i, r)
		{
			json_t *copy = json_deep_copy(r);
			json_object_del(copy, "rank");
			json_object_del(copy, "idx");
			char *text = json_dumps(copy, JSON_COMPACT);
			sqlite3_bind_int64(s, 1, ids[k]);
			sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
			sqlite3_bind_text(s, 3, json_string_value(json_object_get(r, "status")), -1,
			                  SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 4, json_string_value(json_object_get(r, "method")), -1,
			                  SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 5, json_string_value(json_object_get(r, "phase")), -1,
			                  SQLITE_TRANSIENT);
			sqlite3_bind_int(s, 6, json_is_true(json_object_get(r, "origin")));
			sqlite3_bind_text(s, 7, json_string_value(json_object_get(r, "a_key")), -1,
			                  SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 8, json_string_value(json_object_get(r, "b_key")), -1,
			                  SQLITE_TRANSIENT);
			sqlite3_bind_text(s, 9, text, -1, SQLITE_TRANSIENT);
			CHECK_INT(sqlite3_step(s), SQLITE_DONE);
			sqlite3_reset(s);
			free(text);
			json_decref(copy);
		}
	}
	sqlite3_finalize(s);
	CHECK_INT(sqlite3_exec(db,
	                       "DROP TABLE comparison_steps; DROP TABLE comparison_step_cells; "
	                       "CREATE TABLE comparison_steps (comparison_id INTEGER NOT NULL "
	                       "REFERENCES comparisons(id) ON DELETE CASCADE, rank INTEGER NOT "
	                       "NULL, step INTEGER NOT NULL, row TEXT NOT NULL, PRIMARY KEY "
	                       "(comparison_id, rank, step)) WITHOUT ROWID;",
	                       NULL, NULL, NULL),
	          SQLITE_OK);
	CHECK_INT(sqlite3_prepare_v2(db, "INSERT INTO comparison_steps VALUES (?, ?, ?, ?)", -1, &s,
	                             NULL),
	          SQLITE_OK);
	for (int k = 0; k < N_TRAIN; k++) {
		size_t i;
		json_t *r;
		json_array_foreach(want_t[k], i, r)
		{
			json_t *copy = json_deep_copy(r);
			json_object_del(copy, "rank");
			old_spelling(copy);
			char *text = json_dumps(copy, JSON_COMPACT);
			sqlite3_bind_int64(s, 1, ids_t[k]);
			sqlite3_bind_int64(s, 2, json_integer_value(json_object_get(r, "rank")));
			sqlite3_bind_int64(s, 3, json_integer_value(json_object_get(r, "step")));
			sqlite3_bind_text(s, 4, text, -1, SQLITE_TRANSIENT);
			CHECK_INT(sqlite3_step(s), SQLITE_DONE);
			sqlite3_reset(s);
			free(text);
			json_decref(copy);
		}
	}
	sqlite3_finalize(s);
	CHECK_INT(
	        sqlite3_exec(db,
	                     "DELETE FROM schema_migrations WHERE version >= 5; " UNDO_008
	                     "DROP TABLE act_results; DROP TABLE act_result_policy_ops; " /* 007 */
	                     "DROP TABLE act_result_ranks; DROP TABLE act_result_reasons; "
	                     "DROP TABLE act_result_excluded; DROP TABLE act_result_unused; "
	                     "DROP TABLE act_result_warnings; " CHECK_DROP_009 /* 009 */
	                             CHECK_DROP_010                            /* 010 */
	                     "ALTER TABLE logs DROP COLUMN source; "           /* undo 006 */
	                     "ALTER TABLE step_metrics DROP COLUMN prec; "
	                     "PRAGMA user_version=4; COMMIT;",
	                     NULL, NULL, NULL),
	        SQLITE_OK);
	sqlite3_close(db);
}

int main(void)
{
	char err[512], rel[64];
	struct store *st = NULL;
	struct matcher_actlog *a[N_FIX], *b[N_FIX];
	struct matcher_match_result *res[N_FIX];
	json_t *want[N_FIX];
	int64_t ids[N_FIX];

	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	CHECK(store_schema_version(st) >= 5); /* 005 and any later */
	for (int k = 0; k < N_FIX; k++) {
		int64_t la, lb, ra, rb;
		snprintf(rel, sizeof rel, "data/match/p%d_a.log", k + 1);
		a[k] = load(rel);
		snprintf(rel, sizeof rel, "data/match/p%d_b.log", k + 1);
		b[k] = load(rel);
		res[k] = NULL;
		want[k] = json_array();
		ids[k] = 0;
		if (!a[k] || !b[k])
			continue;
		CHECK_INT(matcher_match(a[k], b[k], NULL, &res[k]), 0);
		want[k] = (json_decref(want[k]), expected_rows(res[k]));
		ra = store_run(st, "a", a[k], &la);
		rb = store_run(st, "b", b[k], &lb);
		CHECK_INT(store_comparison_create(st, ra, rb, "activation", NULL, NULL, NULL,
		                                  &ids[k]),
		          0);
		struct store_row_rec *recs = calloc(res[k]->n_rows + 1, sizeof *recs);
		for (size_t i = 0; i < res[k]->n_rows; i++)
			store_row_rec_from(&recs[i], ROW(res[k], i));
		int64_t *ia = NULL, *ib = NULL;
		size_t na = 0, nb = 0;
		CHECK_INT(store_log_entry_ids(st, la, &ia, &na), 0);
		CHECK_INT(store_log_entry_ids(st, lb, &ib, &nb), 0);
		CHECK_INT(na, a[k]->n_entries);
		CHECK_INT(store_tx_begin(st), 0);
		CHECK_INT(store_comparison_rows_add(st, ids[k], 0, ia, na, ib, nb, recs,
		                                    res[k]->n_rows),
		          0);
		CHECK_INT(store_tx_commit(st), 0);
		free(ia);
		free(ib);
		free(recs);
		CHECK(res[k]->n_rows > 0);
	}

	/* training: the per-step rows the job stores */
	json_t *want_t[N_TRAIN];
	int64_t ids_t[N_TRAIN], run_t = 0;
	CHECK_INT(store_run_create(st, "t", "training", NULL, &run_t), 0);
	for (int k = 0; k < N_TRAIN; k++) {
		struct matcher_trainrun *ta, *tb;
		struct matcher_train_result *tr = NULL;
		snprintf(rel, sizeof rel, "data/train/q%d_a.log", k + 1);
		ta = load_train(rel);
		snprintf(rel, sizeof rel, "data/train/q%d_b.log", k + 1);
		tb = load_train(rel);
		want_t[k] = json_array();
		ids_t[k] = 0;
		CHECK_INT(store_comparison_create(st, run_t, run_t, "training", NULL, NULL, NULL,
		                                  &ids_t[k]),
		          0);
		if (ta && tb && matcher_train_check(ta, tb, NULL, &tr) == 0) {
			const char *names[MATCHER_TRAIN_MAX_METRICS];
			struct matcher_train_row_cell cells[MATCHER_TRAIN_MAX_METRICS];
			for (size_t m = 0; m < tr->n_metrics; m++)
				names[m] = tr->metrics[m].name;
			CHECK_INT(store_tx_begin(st), 0);
			for (size_t i = 0; i < tr->n_common; i++) {
				long step;
				json_t *j = web_train_row_json(tr, i);
				json_object_set_new(j, "rank", json_integer(tr->rank));
				json_array_append_new(want_t[k], j);
				CHECK_INT(matcher_train_row(tr, i, &step, cells), 0);
				CHECK_INT(store_comparison_step_add(st, ids_t[k], tr->rank, step,
				                                    names, cells, tr->n_metrics),
				          0);
			}
			CHECK_INT(store_tx_commit(st), 0);
			CHECK(tr->n_common > 0);
		}
		CHECK(tr != NULL);
		matcher_train_result_free(tr);
		matcher_trainrun_free(ta);
		matcher_trainrun_free(tb);
	}

	/* typed rows read back == the CLI's row documents */
	for (int k = 0; k < N_FIX; k++) {
		json_t *got = service_rows(st, ids[k]);
		check_same("typed", k, want[k], got);
		json_decref(got);
	}
	for (int k = 0; k < N_TRAIN; k++) {
		json_t *got = service_steps(st, ids_t[k]);
		check_same("typed steps", k, want_t[k], got);
		json_decref(got);
	}
	store_close(st);
	st = NULL;

	/* rows stored as JSON before 005: converted, they read back the same */
	rewind_to_v4(want, ids, want_t, ids_t);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (st) {
		CHECK(store_schema_version(st) >= 5); /* 005 and any later */
		for (int k = 0; k < N_FIX; k++) {
			json_t *got = service_rows(st, ids[k]);
			check_same("migrated", k, want[k], got);
			json_decref(got);
		}
		for (int k = 0; k < N_TRAIN; k++) {
			json_t *got = service_steps(st, ids_t[k]);
			check_same("migrated steps", k, want_t[k], got);
			json_decref(got);
		}
		store_close(st);
	}

	for (int k = 0; k < N_FIX; k++) {
		matcher_match_result_free(res[k]);
		matcher_actlog_free(a[k]);
		matcher_actlog_free(b[k]);
		json_decref(want[k]);
	}
	for (int k = 0; k < N_TRAIN; k++)
		json_decref(want_t[k]);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup failed\n");
	return check_report();
}
