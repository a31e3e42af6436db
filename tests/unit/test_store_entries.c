/* test_store_entries.c - activation entries: every field survives
 * insert -> ops JSON and insert -> store_actlog_load (incl. NaN stats,
 * absent lines, backward phase, keys without op_N shape); new rows leave
 * the derived columns (module, op_index, op_name, the REAL stats) NULL and
 * rows stored before with them filled read the same; ops paging with
 * cursors, rank/phase filters, the REGEXP key filter and an invalid regex;
 * the bulk transaction (foreign keys back on after it, however it ended);
 * deferred checkpoints (a commit signals instead of checkpointing); and
 * the bulk insert rate (printed, rows/s) and the replay's memory.
 * Runs on both backends (storetest.h); the SQLite-only parts say why. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

#include <sqlite3.h>

#include "actview.h"
#include "check.h"
#include "store.h"
#include "storetest.h"

/* A fully populated entry i (fields vary with i). */
static void make_entry(struct matcher_entry *e, char *key, size_t keycap, size_t i)
{
	memset(e, 0, sizeof *e);
	snprintf(key, keycap, "FSDPLlama3Model.layers.%zu.attention.wq/op_%zu_mm", i / 4, i % 4);
	e->key = key;
	e->stats[MATCHER_STAT_SHAPE] = "torch.Size([1024, 256]), Dtype: torch.float32";
	e->stats[MATCHER_STAT_L2] = "6.571766e+02";
	e->stat_num[MATCHER_STAT_L2] = 657.1766;
	e->stats[MATCHER_STAT_MIN] = "-6.237175e+00";
	e->stat_num[MATCHER_STAT_MIN] = -6.237175;
	e->stats[MATCHER_STAT_MAX] = "5.102890e+00";
	e->stat_num[MATCHER_STAT_MAX] = 5.10289;
	e->stats[MATCHER_STAT_MEAN] = "-1.689990e-02";
	e->stat_num[MATCHER_STAT_MEAN] = -0.0168999;
	e->stat_isnum = (1u << MATCHER_STAT_L2) | (1u << MATCHER_STAT_MIN) |
	                (1u << MATCHER_STAT_MAX) | (1u << MATCHER_STAT_MEAN);
	e->output_hash = "2.868071e+05";
	e->input_hashes = "1.884970e+05, 3.1e+01";
	e->input_producers = "FSDPLlama3Model.layers.0.attention_norm/op_2_mul;";
	e->location = "llama3/model.py:187";
	e->phase = (i % 3 == 2) ? MATCHER_BACKWARD : MATCHER_FORWARD;
	e->line = 5 + 11 * (unsigned long)i;
	e->order = i;
}

static int64_t new_log(struct store *st, const char *name, int nranks, int64_t *logs)
{
	int64_t run_id;
	CHECK_INT(store_run_create(st, name, "activation", NULL, &run_id), 0);
	for (int r = 0; r < nranks; r++) {
		char sha[65];
		snprintf(sha, sizeof sha, "%s-%d", name, r);
		CHECK_INT(store_log_create(st, run_id, r, NULL, 1, sha, &logs[r]), 0);
	}
	return run_id;
}

static void test_fields(struct store *st)
{
	int64_t logs[1];
	int64_t run_id = new_log(st, "fields", 1, logs);
	struct matcher_entry e[4];
	char keys[4][200];
	for (size_t i = 0; i < 4; i++)
		make_entry(&e[i], keys[i], sizeof keys[i], i);
	/* 1: legacy: L1 stat, no hashes, NaN and inf values */
	e[1].stats[MATCHER_STAT_L1] = "nan";
	e[1].stat_num[MATCHER_STAT_L1] = NAN;
	e[1].stat_isnum |= 1u << MATCHER_STAT_L1;
	e[1].stats[MATCHER_STAT_MAX] = "inf";
	e[1].stat_num[MATCHER_STAT_MAX] = INFINITY;
	e[1].output_hash = e[1].input_hashes = e[1].input_producers = NULL;
	/* 2: hash-only in-place op with an odd key; a non-numeric stat */
	e[2].key = "<none>/op_0__fused_adamw_";
	for (int k = 0; k < MATCHER_N_STATS; k++)
		e[2].stats[k] = NULL;
	e[2].stat_isnum = 0;
	e[2].output_hash = "";
	e[2].location = NULL;
	/* 3: key without op_N shape; Mean text not a number */
	e[3].key = "weird key without slash";
	e[3].stats[MATCHER_STAT_MEAN] = "n/a";
	e[3].stat_isnum &= ~(1u << MATCHER_STAT_MEAN);
	CHECK_INT(store_log_set_header(st, logs[0], 4, "detach, t"), 0);
	for (size_t i = 0; i < 4; i++)
		CHECK_INT(store_entry_add(st, logs[0], &e[i]), 0);
	CHECK_INT(store_entry_add(st, 999999, &e[0]), STORE_NOT_FOUND);
	struct matcher_warning w = {"bad_number", 47, "Mean is not a number", "  Mean: n/a"};
	CHECK_INT(store_warning_add(st, logs[0], &w), 0);
	CHECK_INT(store_log_set_counts(st, logs[0], 4, 0, 50, 1), 0);

	/* ops page (typed) */
	struct store_op_page page;
	CHECK_INT(store_ops_list(st, run_id, -1, NULL, NULL, 0, NULL, &page), 0);
	CHECK_INT(page.n_ops, 4);
	CHECK_STR(page.next_cursor, "");
	if (page.n_ops == 4) {
		const struct store_op *o0 = &page.ops[0], *o1 = &page.ops[1], *o2 = &page.ops[2],
		                      *o3 = &page.ops[3];
		CHECK_STR(o0->e.key, keys[0]);
		CHECK_STR(o0->module, "FSDPLlama3Model.layers.0.attention.wq");
		CHECK_INT(o0->op_index, 0);
		CHECK_STR(o0->op_name, "mm");
		CHECK_INT(o0->e.phase, MATCHER_FORWARD);
		CHECK_INT(o0->rank, 0);
		CHECK_INT(o0->e.order, 0);
		CHECK_INT(o0->e.line, 5);
		CHECK_STR(o0->e.stats[MATCHER_STAT_SHAPE],
		          "torch.Size([1024, 256]), Dtype: torch.float32");
		CHECK_STR(o0->e.stats[MATCHER_STAT_L2], "6.571766e+02");
		CHECK(o0->e.stat_isnum & (1u << MATCHER_STAT_L2));
		CHECK_DBL(o0->e.stat_num[MATCHER_STAT_L2], 657.1766, 1e-12);
		CHECK(o0->e.stats[MATCHER_STAT_L1] == NULL);
		CHECK_STR(o0->e.output_hash, "2.868071e+05");
		CHECK_STR(o0->e.input_hashes, "1.884970e+05, 3.1e+01");
		CHECK_STR(o0->e.input_producers,
		          "FSDPLlama3Model.layers.0.attention_norm/op_2_mul;");
		CHECK_STR(o0->e.location, "llama3/model.py:187");
		/* nan parses as a number (the serializer writes null for it) */
		CHECK_STR(o1->e.stats[MATCHER_STAT_L1], "nan");
		CHECK(o1->e.stat_isnum & (1u << MATCHER_STAT_L1));
		CHECK(o1->e.output_hash == NULL);
		CHECK_STR(o2->module, "<none>");
		CHECK_STR(o2->op_name, "_fused_adamw_");
		CHECK_INT(o2->e.phase, MATCHER_BACKWARD);
		CHECK_STR(o2->e.output_hash, "");
		for (int i = 0; i < MATCHER_N_STATS; i++)
			CHECK(o2->e.stats[i] == NULL);
		CHECK(o3->module == NULL);
		CHECK_INT(o3->op_index, -1);
		CHECK(o3->op_name == NULL);
		CHECK_STR(o3->e.stats[MATCHER_STAT_MEAN], "n/a");
		CHECK(!(o3->e.stat_isnum & (1u << MATCHER_STAT_MEAN)));
	}
	store_op_page_free(&page);

	/* load round trip */
	struct matcher_actlog *log = NULL;
	CHECK_INT(store_actlog_load(st, logs[0], &log), 0);
	CHECK(log != NULL);
	if (log) {
		CHECK_INT(log->n_entries, 4);
		CHECK_INT(log->header_total, 4);
		CHECK_INT(log->has_excluded, 1);
		CHECK_INT(log->n_excluded, 2);
		CHECK_INT(log->summary.n_lines, 50);
		CHECK_INT(log->n_warnings, 1);
		if (log->n_warnings == 1) {
			CHECK_STR(log->warnings[0].code, "bad_number");
			CHECK_INT(log->warnings[0].line, 47);
			CHECK_STR(log->warnings[0].message, "Mean is not a number");
			CHECK_STR(log->warnings[0].excerpt, "  Mean: n/a");
		}
		for (size_t i = 0; i < 4 && i < log->n_entries; i++) {
			const struct matcher_entry *g = ENTRY(log, i), *x = &e[i];
			CHECK_STR(g->key, x->key);
			for (int k = 0; k < MATCHER_N_STATS; k++) {
				CHECK_STR(g->stats[k], x->stats[k]);
				if (x->stat_isnum & (1u << k))
					CHECK_DBL(g->stat_num[k], x->stat_num[k], 0);
			}
			CHECK_INT(g->stat_isnum, x->stat_isnum);
			CHECK_STR(g->output_hash, x->output_hash);
			CHECK_STR(g->input_hashes, x->input_hashes);
			CHECK_STR(g->input_producers, x->input_producers);
			CHECK_STR(g->location, x->location);
			CHECK_INT(g->phase, x->phase);
			CHECK_INT(g->line, x->line);
			CHECK_INT(g->order, x->order);
		}
	}
	matcher_actlog_free(log);
	log = NULL;
	CHECK_INT(store_actlog_load(st, 888888, &log), STORE_NOT_FOUND);
	CHECK(log == NULL);
}

static void test_paging(struct store *st)
{
	int64_t logs[3];
	int64_t run_id = new_log(st, "paging", 3, logs);
	char key[200];
	struct matcher_entry e;
	CHECK_INT(store_tx_begin(st), 0);
	for (int r = 0; r < 3; r++)
		for (size_t i = 0; i < 25; i++) {
			make_entry(&e, key, sizeof key, i);
			CHECK_INT(store_entry_add(st, logs[r], &e), 0);
		}
	CHECK_INT(store_tx_commit(st), 0);

	/* all ranks, pages of 10: 75 ops in (rank, order) */
	char cur[64] = "";
	int n = 0, pages = 0, ok_order = 1;
	long long prev_rank = -1, prev_ord = -1;
	for (;;) {
		struct store_op_page page;
		CHECK_INT(
		        store_ops_list(st, run_id, -1, NULL, NULL, 10, cur[0] ? cur : NULL, &page),
		        0);
		for (size_t i = 0; i < page.n_ops; i++) {
			long long r = page.ops[i].rank;
			long long ord = (long long)page.ops[i].e.order;
			if (r < prev_rank || (r == prev_rank && ord <= prev_ord))
				ok_order = 0;
			prev_rank = r;
			prev_ord = ord;
			n++;
		}
		pages++;
		int more = page.next_cursor[0] != 0;
		snprintf(cur, sizeof cur, "%s", page.next_cursor);
		store_op_page_free(&page);
		if (!more || pages > 20)
			break;
	}
	CHECK_INT(n, 75);
	CHECK_INT(pages, 8);
	CHECK(ok_order);

	struct store_op_page page;
	CHECK_INT(store_ops_list(st, run_id, 1, NULL, NULL, 1000, NULL, &page), 0);
	CHECK_INT(page.n_ops, 25);
	store_op_page_free(&page);
	/* phase: i % 3 == 2 backward -> 8 of 25 per rank */
	CHECK_INT(store_ops_list(st, run_id, 2, "backward", NULL, 1000, NULL, &page), 0);
	CHECK_INT(page.n_ops, 8);
	store_op_page_free(&page);
	CHECK_INT(store_ops_list(st, run_id, 2, "forward", NULL, 1000, NULL, &page), 0);
	CHECK_INT(page.n_ops, 17);
	store_op_page_free(&page);
	CHECK_INT(store_ops_list(st, run_id, 2, "sideways", NULL, 10, NULL, &page), STORE_INVALID);
	store_op_page_free(&page);

	/* regex: layers 1 and 2 (i/4 == 1 or 2 -> i in 4..11) op_1 or op_3 */
	CHECK_INT(store_ops_list(
	                  st, run_id, 0, NULL,
	                  &(struct store_key_filter){.regex = "layers\\.[12]\\..*/op_[13]_mm$"},
	                  1000, NULL, &page),
	          0);
	CHECK_INT(page.n_ops, 4);
	store_op_page_free(&page);
	/* regex + paging + phase across ranks */
	CHECK_INT(store_ops_list(st, run_id, -1, "forward",
	                         &(struct store_key_filter){.regex = "op_0"}, 2, NULL, &page),
	          0);
	CHECK_INT(page.n_ops, 2);
	CHECK(page.next_cursor[0] != 0);
	store_op_page_free(&page);
	CHECK_INT(store_ops_list(st, run_id, -1, NULL,
	                         &(struct store_key_filter){.regex = "no-such-key"}, 10, NULL,
	                         &page),
	          0);
	CHECK_INT(page.n_ops, 0);
	CHECK_STR(page.next_cursor, "");
	store_op_page_free(&page);
	CHECK_INT(store_ops_list(st, run_id, -1, NULL,
	                         &(struct store_key_filter){.regex = "layers.("}, 10, NULL, &page),
	          STORE_BAD_REGEX);
	CHECK_INT(page.n_ops, 0);
	CHECK(strstr(store_errmsg(st), "regular expression") != NULL);
	printf("bad regex: %s\n", store_errmsg(st));
	CHECK_INT(store_ops_list(st, run_id, -1, NULL, NULL, 10, "o1", &page), STORE_BAD_CURSOR);
	CHECK_INT(store_ops_list(st, run_id, -1, NULL, NULL, 10, "r5", &page), STORE_BAD_CURSOR);
	CHECK_INT(store_ops_list(st, 777777, -1, NULL, NULL, 10, NULL, &page), STORE_NOT_FOUND);
}

/* Bytes that are not UTF-8 are stored as U+FFFD on both engines. */
static void test_bad_utf8(struct store *st)
{
	int64_t logs[1];
	int64_t run_id = new_log(st, "utf8", 1, logs);
	char key[200];
	struct matcher_entry e;
	make_entry(&e, key, sizeof key, 0);
	e.key = "mod\xff\xfe/op_1_caf\xc3\xa9";
	e.location = "x.py:\xc0\x80";
	/* both stores write what every output shows for them: U+FFFD per
	 * byte (PostgreSQL's UTF8 database refuses them; on SQLite a reader
	 * would meet them: issue 23) */
	const char *want_key = "mod\xef\xbf\xbd\xef\xbf\xbd/op_1_caf\xc3\xa9";
	const char *want_mod = "mod\xef\xbf\xbd\xef\xbf\xbd";
	const char *want_loc = "x.py:\xef\xbf\xbd\xef\xbf\xbd";
	CHECK_INT(store_entry_add(st, logs[0], &e), 0);
	struct store_op_page page;
	CHECK_INT(store_ops_list(st, run_id, 0, NULL, NULL, 10, NULL, &page), 0);
	CHECK_INT(page.n_ops, 1);
	if (page.n_ops) {
		CHECK_STR(page.ops[0].e.key, want_key);
		CHECK_STR(page.ops[0].op_name, "caf\xc3\xa9");
		CHECK_STR(page.ops[0].module, want_mod);
		CHECK_STR(page.ops[0].e.location, want_loc);
	}
	store_op_page_free(&page);
	/* the in-memory log has the stored bytes */
	struct matcher_actlog *log = NULL;
	CHECK_INT(store_actlog_load(st, logs[0], &log), 0);
	CHECK(log && log->n_entries == 1 && strcmp(ENTRY(log, 0)->key, want_key) == 0);
	matcher_actlog_free(log);
}

/* store_tx_begin_bulk skips the per-row foreign-key checks; commit and
 * rollback turn them back on. */
static void test_bulk_tx(struct store *st)
{
	int64_t logs[1];
	char key[200];
	struct matcher_entry e;
	make_entry(&e, key, sizeof key, 0);
	CHECK_INT(store_tx_begin_bulk(st), 0);
	int64_t run_id = new_log(st, "bulk tx", 1, logs);
	CHECK(run_id > 0);
	CHECK_INT(store_entry_add(st, logs[0], &e), 0);
	CHECK_INT(store_tx_commit(st), 0);
	/* checks are on again: an entry of a log that does not exist fails */
	CHECK_INT(store_entry_add(st, 777777, &e), STORE_NOT_FOUND);
	CHECK_INT(store_tx_begin_bulk(st), 0);
	CHECK_INT(store_tx_rollback(st), 0);
	CHECK_INT(store_entry_add(st, 777778, &e), STORE_NOT_FOUND);
	/* and inside an ordinary transaction after a bulk one */
	CHECK_INT(store_tx_begin_bulk(st), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_entry_add(st, 777779, &e), STORE_NOT_FOUND);
	CHECK_INT(store_tx_rollback(st), 0);
}

static void count_due(void *ctx)
{
	++*(int *)ctx;
}

static long long file_size(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* After store_defer_checkpoints a commit that leaves the WAL due calls
 * back and leaves the database file as it was; store_checkpoint_passive
 * then copies the WAL in.  SQLite only: PostgreSQL has no WAL file of the
 * store's to checkpoint (those calls are no-ops there). */
static void test_deferred_checkpoint(const char *path)
{
	char err[512], wal[600], key[200];
	struct store *st = NULL;
	snprintf(wal, sizeof wal, "%s-wal", path);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st)
		return;
	CHECK_INT(store_checkpoint(st), 0); /* empty WAL, database file complete */
	int due = 0;
	store_defer_checkpoints(st, count_due, &due);
	long long db_before = file_size(path);
	int64_t logs[1];
	struct matcher_entry e;
	CHECK_INT(store_tx_begin_bulk(st), 0);
	new_log(st, "deferred", 1, logs);
	/* a small commit: the WAL is not due yet */
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(due, 0);
	/* well over STORE_WAL_DUE_PAGES pages (16 KiB each) of rows */
	CHECK_INT(store_tx_begin_bulk(st), 0);
	for (size_t i = 0; i < 80000; i++) {
		make_entry(&e, key, sizeof key, i);
		if (store_entry_add(st, logs[0], &e) != 0) {
			CHECK(!"entry insert failed");
			break;
		}
	}
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(due, 1);
	CHECK(file_size(wal) > (long long)STORE_WAL_DUE_PAGES * 16384);
	CHECK(file_size(path) == db_before); /* not checkpointed by the commit */
	CHECK_INT(store_checkpoint_passive(st), 0);
	CHECK(file_size(path) > db_before + (long long)STORE_WAL_DUE_PAGES * 16384);
	store_close(st);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_throughput(struct store *st)
{
	/* PostgreSQL: a round trip per row (~10k rows/s; the upload uses
	 * COPY, store/pg/load.c), so fewer rows */
	const size_t N = storetest_is_pg() ? 20000 : 200000;
	int64_t logs[1];
	new_log(st, "bulk", 1, logs);
	char key[200];
	struct matcher_entry e;
	int fails = 0;
	double t0 = now_s();
	CHECK_INT(store_tx_begin(st), 0);
	for (size_t i = 0; i < N; i++) {
		make_entry(&e, key, sizeof key, i);
		fails += store_entry_add(st, logs[0], &e) != 0;
	}
	double t1 = now_s();
	CHECK_INT(store_tx_commit(st), 0);
	double dt = now_s() - t0, di = t1 - t0;
	CHECK_INT(fails, 0);
	printf("entry insert: %zu rows: inserts %.3f s = %.0f rows/s; with the durable commit "
	       "%.3f s = %.0f rows/s\n",
	       N, di, (double)N / di, dt, (double)N / dt);
	/* printed only: the rate is a benchmark figure (tests/bench/ingest.sh),
	 * never a pass/fail condition on a shared or sanitized machine */

	t0 = now_s();
	struct matcher_actlog *log = NULL;
	CHECK_INT(store_actlog_load(st, logs[0], &log), 0);
	dt = now_s() - t0;
	CHECK(log && log->n_entries == N);
	printf("actlog load: %zu entries in %.3f s = %.0f rows/s\n", N, dt, (double)N / dt);
	matcher_actlog_free(log);
}

/* Rows stored before issue 12 carry module, op_index, op_name and the REAL
 * stats; new rows leave them NULL (derived on read).  Both read alike. */
/* The number in column 0 of sql's first row, run on the test's database
 * directly (target: the store's file or URL); -1 on failure. */
static long long raw_num(const char *target, const char *sql)
{
	if (storetest_is_pg())
		return pgtest_num(target, sql);
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	long long n = -1;
	if (sqlite3_open_v2(target, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

/* Run sql on the test's database directly: 0 or -1. */
static int raw_exec(const char *target, const char *sql)
{
	if (storetest_is_pg())
		return pgtest_exec(target, sql);
	sqlite3 *db = NULL;
	int rc = sqlite3_open(target, &db) == SQLITE_OK &&
	                         sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK
	                 ? 0
	                 : -1;
	sqlite3_close(db);
	return rc;
}

/* Rows stored before issue 12 carry module, op_index, op_name and the REAL
 * stats; new rows leave them NULL (derived on read).  Both read alike. */
static void test_old_rows(struct store *st, const char *target)
{
	int64_t logs[1];
	int64_t run_id = new_log(st, "old rows", 1, logs);
	char sql[1024];
	unsigned isnum = (1u << MATCHER_STAT_L2) | (1u << MATCHER_STAT_MAX);
	snprintf(sql, sizeof sql,
	         "INSERT INTO entries(log_id, ord, line, key, module, op_index, op_name, phase, "
	         "shape, l2_text, l2, max_text, max, mean_text, stat_isnum) VALUES (%lld, 0, 7, "
	         "'a.b/op_3_mm', 'a.b', 3, 'mm', 1, 'torch.Size([2])', '6.5e+02', 650.0, 'nan', "
	         "NULL, 'n/a', %u)",
	         (long long)logs[0], isnum);
	CHECK_INT(raw_exec(target, sql), 0);
	/* only that row has the derived columns filled: new rows store text */
	CHECK_INT(raw_num(target, "SELECT count(*) FROM entries WHERE module IS NOT NULL OR "
	                          "op_index IS NOT NULL OR op_name IS NOT NULL OR l1 IS NOT "
	                          "NULL OR l2 IS NOT NULL OR min IS NOT NULL OR max IS NOT NULL "
	                          "OR mean IS NOT NULL"),
	          1);

	struct store_op_page page;
	CHECK_INT(store_ops_list(st, run_id, -1, NULL, NULL, 0, NULL, &page), 0);
	CHECK_INT(page.n_ops, 1);
	if (page.n_ops) {
		const struct store_op *o = &page.ops[0];
		CHECK_STR(o->module, "a.b");
		CHECK_INT(o->op_index, 3);
		CHECK_STR(o->op_name, "mm");
		CHECK_INT(o->e.phase, MATCHER_BACKWARD);
		CHECK_DBL(o->e.stat_num[MATCHER_STAT_L2], 650.0, 0);
		CHECK_STR(o->e.stats[MATCHER_STAT_MAX], "nan");
		CHECK(isnan(o->e.stat_num[MATCHER_STAT_MAX]));
		CHECK(!(o->e.stat_isnum & (1u << MATCHER_STAT_MEAN)) ||
		      !isfinite(o->e.stat_num[MATCHER_STAT_MEAN]));
	}
	store_op_page_free(&page);

	struct matcher_actlog *log = NULL;
	CHECK_INT(store_actlog_load(st, logs[0], &log), 0);
	if (log && log->n_entries == 1) {
		const struct matcher_entry *g = ENTRY(log, 0);
		CHECK_INT(g->stat_isnum, isnum);
		CHECK_DBL(g->stat_num[MATCHER_STAT_L2], 650.0, 0);
		CHECK(isnan(g->stat_num[MATCHER_STAT_MAX]));
		CHECK_STR(g->stats[MATCHER_STAT_MEAN], "n/a");
		CHECK_INT(g->line, 7);
	} else {
		CHECK(!"one entry loaded");
	}
	matcher_actlog_free(log);
}

int main(void)
{
	char target[512], err[512];
	struct store *st = NULL;
	if (storetest_target("entries", target, sizeof target) < 0)
		return 1;
	CHECK_INT(store_open(target, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	test_fields(st);
	test_paging(st);
	test_bad_utf8(st);
	test_old_rows(st, target);
	test_bulk_tx(st);
	test_throughput(st);
	store_close(st);
	if (!storetest_is_pg()) {
		char path[400];
		snprintf(path, sizeof path, "%s/deferred.db", storetest_dir);
		test_deferred_checkpoint(path);
	}
	storetest_cleanup("entries");
	return check_report();
}
