/* test_store_steps.c - training records: NEW stores every metric as text
 * and number (NaN kept as text, value null), COPY counts, REPLACE swaps
 * the values, validation steps are a separate series, the stored rank
 * falls back to the log's rank, paging with cursors, and the replay
 * (store_steps_foreach / store_warnings_foreach) gives back what went in.
 * Paging (issue 23, F6: one keyed statement per page, metrics joined):
 * a rank whose steps come from two logs pages in (step, id) order across
 * them, the same with 1, 2 or 1000 steps a page; a step without metrics
 * keeps its place; the 1 MiB page budget cuts a page of big metrics and
 * the cursor goes on from the last step kept. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "buf.h"
#include "check.h"
#include "store.h"
#include "storetest.h"

/* The metric called name of a listed step, or NULL. */
static const struct store_step_metric *metric(const struct store_run_step *x, const char *name)
{
	for (size_t i = 0; i < x->n_metrics; i++)
		if (!strcmp(x->metrics[i].name, name))
			return &x->metrics[i];
	return NULL;
}

/* The first column of sql's first row, read on a connection of its own
 * (target: the SQLite path or the PostgreSQL URL). */
static int count_rows(const char *target, const char *sql)
{
	if (storetest_is_pg())
		return (int)pgtest_num(target, sql);
	const char *path = target;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	int n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return n;
}

static void rec(struct matcher_step_record *r, struct matcher_metric_value *m, int rank, long step,
                int validation, enum matcher_step_kind kind, const char *loss_text, double loss)
{
	memset(r, 0, sizeof *r);
	m[0] = (struct matcher_metric_value){"loss", loss_text, loss, 5, 0};
	m[1] = (struct matcher_metric_value){"grad_norm", "4.9806", 4.9806, 4, 0};
	m[2] = (struct matcher_metric_value){"tps", "1,231", 1231, 0, 0};
	m[3] = (struct matcher_metric_value){"memory_pct", "44.56", 44.56, 2, 0};
	r->rank = rank;
	r->step = step;
	r->validation = validation;
	r->line =
	        (unsigned long)(step * 10 + validation + (kind == MATCHER_STEP_REPLACE ? 1000 : 0));
	r->kind = kind;
	r->metrics = m;
	r->n_metrics = validation ? 1 : 4;
}

struct replay {
	int n, n_val, bad_order, ranks[4];
	long last_step[2];
	char loss_text[8][16];
	double loss[8];
	int decimals0;
	size_t n_metrics3;
};

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct replay *p = ctx;
	if (r->kind != MATCHER_STEP_NEW)
		p->bad_order++;
	if (r->validation) {
		p->n_val++;
		return 0;
	}
	if (r->rank >= 0 && r->rank < 4)
		p->ranks[r->rank]++;
	if (r->rank == 0) {
		if (r->step <= p->last_step[0])
			p->bad_order++;
		p->last_step[0] = r->step;
		if (r->step >= 1 && r->step <= 7 && r->n_metrics > 0) {
			snprintf(p->loss_text[r->step], sizeof p->loss_text[0], "%s",
			         r->metrics[0].text);
			p->loss[r->step] = r->metrics[0].value;
		}
		if (r->step == 1)
			p->decimals0 = r->metrics[0].decimals;
		if (r->step == 3)
			p->n_metrics3 = r->n_metrics;
	}
	p->n++;
	return 0;
}

static int stop_after_two(void *ctx, const struct matcher_step_record *r)
{
	(void)r;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static int count_warning(void *ctx, const struct matcher_warning *w)
{
	if (strcmp(w->code, "duplicate_step") == 0 && w->line == 1003)
		++*(int *)ctx;
	return 0;
}

/* A new training run called name, its transaction begun. */
static int64_t train_run(struct store *st, const char *name)
{
	int64_t run_id = 0;
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_create(st, name, "training", NULL, &run_id), 0);
	return run_id;
}

/* Every (step, line) of rank's training series, pages of limit steps;
 * the number of pages, or -1. */
static int list_all(struct store *st, int64_t run_id, int rank, int limit, long *steps, long *lines,
                    size_t *n_metrics, int cap, int *n)
{
	char cur[64] = "";
	int pages = 0;
	*n = 0;
	for (;;) {
		struct store_run_step_page page;
		int rc = store_steps_list(st, run_id, rank, 0, limit, cur[0] ? cur : NULL, &page);
		CHECK_INT(rc, 0);
		if (rc < 0) {
			store_run_step_page_free(&page);
			return -1;
		}
		for (size_t i = 0; i < page.n_steps && *n < cap; i++, ++*n) {
			steps[*n] = page.steps[i].step;
			lines[*n] = (long)page.steps[i].line;
			n_metrics[*n] = page.steps[i].n_metrics;
		}
		pages++;
		snprintf(cur, sizeof cur, "%s", page.next_cursor);
		store_run_step_page_free(&page);
		if (!cur[0] || pages > 2000)
			return pages;
	}
}

/* Rank 2 from an interleaved file (log rank 0) and a per-rank file (log
 * rank 2): merged in (step, id) order, whatever the page size. */
static void test_merged_pages(struct store *st)
{
	int64_t la, lb;
	struct matcher_step_record r;
	struct matcher_metric_value m[4];
	int64_t run_id = train_run(st, "merge");
	CHECK_INT(store_log_create(st, run_id, 0, "all.log", 10, "ma", &la), 0);
	CHECK_INT(store_log_create(st, run_id, 2, "rank2.log", 10, "mb", &lb), 0);
	static const long a_steps[] = {1, 3, 5, 7, 9}, b_steps[] = {2, 3, 4, 6};
	for (size_t i = 0; i < 5; i++) {
		rec(&r, m, 2, a_steps[i], 0, MATCHER_STEP_NEW, "1.5", 1.5);
		r.line = (unsigned long)(100 + a_steps[i]);
		CHECK_INT(store_step_add(st, la, &r), 0);
	}
	for (size_t i = 0; i < 4; i++) {
		rec(&r, m, 0, b_steps[i], 0, MATCHER_STEP_NEW, "2.5", 2.5);
		r.line = (unsigned long)(200 + b_steps[i]);
		r.n_metrics = b_steps[i] == 4 ? 0 : 4; /* step 4 printed without metrics */
		CHECK_INT(store_step_add(st, lb, &r), 0);
	}
	CHECK_INT(store_tx_commit(st), 0);
	static const long want_steps[] = {1, 2, 3, 3, 4, 5, 6, 7, 9};
	static const long want_lines[] = {101, 202, 103, 203, 204, 105, 206, 107, 109};
	static const int limits[] = {1, 2, 1000};
	for (size_t k = 0; k < 3; k++) {
		long steps[16], lines[16];
		size_t nm[16];
		int n = 0, pages = list_all(st, run_id, 2, limits[k], steps, lines, nm, 16, &n);
		CHECK_INT(n, 9);
		CHECK_INT(pages, limits[k] == 1000 ? 1 : (9 + limits[k] - 1) / limits[k]);
		for (int i = 0; i < n && i < 9; i++) {
			CHECK_INT(steps[i], want_steps[i]);
			CHECK_INT(lines[i], want_lines[i]);
			CHECK_INT(nm[i], steps[i] == 4 ? 0 : 4);
		}
	}
	CHECK_INT(store_run_delete(st, run_id, NULL), 0);
}

/* 600 steps of 2000-byte metric texts: the 1 MiB budget cuts the page
 * after 477 steps (1 + 128 a step, 64 + 4 + 2000 its metric: 2197 bytes
 * each); the next page has the rest. */
static void test_budget_pages(struct store *st)
{
	static char big[2001];
	memset(big, '7', 2000);
	int64_t log_id;
	struct matcher_step_record r;
	struct matcher_metric_value m[4];
	int64_t run_id = train_run(st, "budget");
	CHECK_INT(store_log_create(st, run_id, 0, "big.log", 10, "bb", &log_id), 0);
	for (long step = 1; step <= 600; step++) {
		rec(&r, m, 0, step, 0, MATCHER_STEP_NEW, big, 7);
		r.n_metrics = 1;
		CHECK_INT(store_step_add(st, log_id, &r), 0);
	}
	CHECK_INT(store_tx_commit(st), 0);
	struct store_run_step_page page;
	CHECK_INT(store_steps_list(st, run_id, 0, 0, 1000, NULL, &page), 0);
	CHECK_INT(page.n_steps, 477);
	CHECK(strncmp(page.next_cursor, "s477.", 5) == 0);
	CHECK_INT(page.n_steps ? strlen(page.steps[page.n_steps - 1].metrics[0].text) : 0, 2000);
	store_run_step_page_free(&page);
	long steps[700], lines[700];
	size_t nm[700];
	int n = 0;
	CHECK_INT(list_all(st, run_id, 0, 1000, steps, lines, nm, 700, &n), 2);
	CHECK_INT(n, 600);
	for (int i = 0; i < n; i++)
		if (steps[i] != i + 1 || nm[i] != 1) {
			CHECK_INT(steps[i], i + 1);
			break;
		}
	CHECK_INT(store_run_delete(st, run_id, NULL), 0);
}

/* ---- bulk (store_steps_*) ------------------------------------------------ */

/* Each replayed record as one line of text, appended to a buf. */
static int dump_step(void *ctx, const struct matcher_step_record *r)
{
	struct buf *b = ctx;
	buf_printf(b, "r%d s%ld v%d l%lu:", r->rank, r->step, r->validation, r->line);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_metric_value *m = &r->metrics[i];
		buf_printf(b, " [%s|%s|%.17g|%d|%d]", m->name, m->text, m->value, m->decimals,
		           m->prec);
	}
	return buf_putc(b, '\n');
}

/* Text of record i's metric k: quotes, backslashes, commas, braces, the
 * word NULL, empty text, bytes that are not UTF-8, other scripts. */
static const char *odd_text(unsigned i, unsigned k)
{
	static const char *t[] = {"1.25",         "\"q\"", "a\\b", "x,y",         "{1,2}",
	                          "NULL",         "",      " sp ", "caf\xc3\xa9", "bad\xff",
	                          "\xce\xbc=0.5", "1,231"};
	return t[(i * 7 + k * 3) % (sizeof t / sizeof t[0])];
}

/* The same 5000 records (NEW, COPY, REPLACE; ranks 0..2 where 0 means the
 * log's rank 2, so keys repeat within a batch; NEW of steps stored by an
 * earlier batch; validation steps; 0..9 metrics with odd texts, NaN and
 * infinities) through store_step_add into one log and through the bulk
 * into another: the logs replay the same, copies included.  The bulk
 * crosses its batch limits (2048 records, 8192 values) several times. */
static void test_bulk_same_as_single(struct store *st, const char *target)
{
	int64_t run_one = train_run(st, "one"), run_bulk = 0, l_one, l_bulk;
	CHECK_INT(store_run_create(st, "bulk", "training", NULL, &run_bulk), 0);
	CHECK_INT(store_log_create(st, run_one, 2, "one.log", 1, "o", &l_one), 0);
	CHECK_INT(store_log_create(st, run_bulk, 2, "bulk.log", 1, "b", &l_bulk), 0);
	struct store_steps *bulk = NULL;
	CHECK_INT(store_steps_begin(st, l_bulk, &bulk), 0);
	if (!bulk)
		return;
	static const double vals[] = {1.5, NAN, INFINITY, -INFINITY, 1e-300, -2.5e300, 0.1, 0};
	unsigned x = 12345;
	for (unsigned i = 0; i < 5000; i++) {
		x = x * 1103515245u + 12345u;
		struct matcher_metric_value m[10];
		char names[10][16];
		struct matcher_step_record r = {0};
		r.rank = (int)(x >> 8) % 3;
		r.step = (long)(i / 2 + ((x >> 12) % 8 == 0 ? (x >> 16) % 40 : 0));
		r.validation = (x >> 20) % 9 == 0;
		r.line = i + 1;
		unsigned kind = (x >> 24) % 16;
		r.kind = kind == 0   ? MATCHER_STEP_COPY
		         : kind == 1 ? MATCHER_STEP_REPLACE
		                     : MATCHER_STEP_NEW;
		r.n_metrics = (x >> 4) % 10;
		for (unsigned k = 0; k < r.n_metrics; k++) {
			snprintf(names[k], sizeof names[k], k == 3 ? "m\"%u\\" : "m%u", k);
			m[k] = (struct matcher_metric_value){
			        names[k], odd_text(i, k), vals[(i + k) % 8], (int)k, (int)(k % 4)};
		}
		r.metrics = m;
		CHECK_INT(store_step_add(st, l_one, &r), 0);
		CHECK_INT(store_steps_add(bulk, &r), 0);
	}
	CHECK_INT(store_steps_end(bulk, 0), 0);
	CHECK_INT(store_tx_commit(st), 0);
	struct buf one = BUF_INIT, got = BUF_INIT;
	CHECK_INT(store_steps_foreach(st, l_one, dump_step, &one), 0);
	CHECK_INT(store_steps_foreach(st, l_bulk, dump_step, &got), 0);
	CHECK(one.len > 100000);
	CHECK(one.len == got.len && memcmp(one.data, got.data, one.len) == 0);
	CHECK(strstr(one.data, "r2 s") && strstr(one.data, "r1 s") && !strstr(one.data, "r0 s"));
	CHECK(strstr(one.data, "|\"q\"|") && strstr(one.data, "|a\\b|") &&
	      strstr(one.data, "|NULL|"));
	CHECK(strstr(one.data, "bad\xef\xbf\xbd") && strstr(one.data, "|inf|") &&
	      strstr(one.data, "|nan|"));
	char sql[160];
	for (int k = 0; k < 2; k++) {
		int64_t log_id = k ? l_bulk : l_one;
		snprintf(sql, sizeof sql,
		         "SELECT count(*) FROM steps WHERE log_id = %lld AND copies > 0",
		         (long long)log_id);
		int with_copies = count_rows(target, sql);
		snprintf(sql, sizeof sql, "SELECT sum(copies) FROM steps WHERE log_id = %lld",
		         (long long)log_id);
		int copies = count_rows(target, sql);
		CHECK(with_copies > 10);
		static int first_copies;
		if (k == 0)
			first_copies = copies;
		else
			CHECK_INT(copies, first_copies);
	}
	buf_reset(&one);
	buf_reset(&got);
	/* a bulk ended as failed sends nothing more; one on a missing log */
	struct store_steps *none = NULL;
	if (storetest_is_pg())
		CHECK_INT(store_steps_begin(st, 999999, &none), STORE_NOT_FOUND);
	CHECK_INT(store_steps_end(none, 1), 0);
	CHECK_INT(store_run_delete(st, run_one, NULL), 0);
	CHECK_INT(store_run_delete(st, run_bulk, NULL), 0);
}

/* Long texts: 40 records of a 200 KB metric each (8 MB) go in batches
 * of at most 4 MiB and read back whole. */
static void test_bulk_long_texts(struct store *st)
{
	int64_t run_id = train_run(st, "long"), log_id;
	CHECK_INT(store_log_create(st, run_id, 0, "long.log", 1, "l", &log_id), 0);
	struct store_steps *bulk = NULL;
	CHECK_INT(store_steps_begin(st, log_id, &bulk), 0);
	enum { LEN = 200 * 1024 };
	char *text = malloc(LEN + 1);
	CHECK(text != NULL);
	for (long step = 1; text && bulk && step <= 40; step++) {
		memset(text, 'a' + (int)(step % 26), LEN);
		text[LEN] = 0;
		struct matcher_metric_value m = {"loss", text, (double)step, 0, 0};
		struct matcher_step_record r = {0,  step, 0, (unsigned long)step, MATCHER_STEP_NEW,
		                                &m, 1};
		CHECK_INT(store_steps_add(bulk, &r), 0);
	}
	CHECK_INT(store_steps_end(bulk, 0), 0);
	CHECK_INT(store_tx_commit(st), 0);
	struct buf got = BUF_INIT;
	CHECK_INT(store_steps_foreach(st, log_id, dump_step, &got), 0);
	CHECK(got.len > 40 * LEN);
	CHECK(got.data && strstr(got.data, "r0 s40 v0 l40: [loss|oooo") &&
	      got.data[got.len - 2] == ']');
	buf_reset(&got);
	free(text);
	CHECK_INT(store_run_delete(st, run_id, NULL), 0);
}

int main(void)
{
	char path[512], err[512];
	struct store *st = NULL;
	CHECK_INT(storetest_target("steps", path, sizeof path), 0);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	int64_t log0, log3;
	struct matcher_step_record r;
	struct matcher_metric_value m[4];
	int64_t run_id = train_run(st, "train");
	CHECK_INT(store_log_create(st, run_id, 0, "stdout.log", 100, "s0", &log0), 0);
	/* steps 1..7 of ranks 0 and 1 in one interleaved file */
	for (long step = 1; step <= 7; step++)
		for (int rank = 0; rank < 2; rank++) {
			rec(&r, m, rank, step, 0, MATCHER_STEP_NEW, step == 5 ? "nan" : "11.09833",
			    step == 5 ? NAN : 11.09833 - (double)step);
			CHECK_INT(store_step_add(st, log0, &r), 0);
		}
	/* step 2 of rank 0 printed twice more (copies) */
	rec(&r, m, 0, 2, 0, MATCHER_STEP_COPY, "11.09833", 9.09833);
	CHECK_INT(store_step_add(st, log0, &r), 0);
	CHECK_INT(store_step_add(st, log0, &r), 0);
	/* step 3 of rank 0 replaced (restart), with fewer metrics */
	rec(&r, m, 0, 3, 0, MATCHER_STEP_REPLACE, "7.5", 7.5);
	r.n_metrics = 2;
	CHECK_INT(store_step_add(st, log0, &r), 0);
	struct matcher_warning w = {"duplicate_step", 1003, "step 3 seen again",
	                            "step: 3 loss: 7.5"};
	CHECK_INT(store_warning_add(st, log0, &w), 0);
	/* validation steps are their own series (same step numbers) */
	rec(&r, m, 0, 5, 1, MATCHER_STEP_NEW, "3.25", 3.25);
	CHECK_INT(store_step_add(st, log0, &r), 0);
	rec(&r, m, 0, 5, 0, MATCHER_STEP_COPY, "nan", NAN);
	CHECK_INT(store_step_add(st, log0, &r), 0);
	CHECK_INT(store_log_set_counts(st, log0, 14, 1, 100, 1), 0);
	/* a per-rank file uploaded as rank 3: records say rank 0 -> stored as 3 */
	CHECK_INT(store_log_create(st, run_id, 3, "rank3.log", 10, "s3", &log3), 0);
	for (long step = 1; step <= 3; step++) {
		rec(&r, m, 0, step, 0, MATCHER_STEP_NEW, "1.0", 1.0);
		CHECK_INT(store_step_add(st, log3, &r), 0);
	}
	CHECK_INT(store_step_add(st, 123456, &r), STORE_NOT_FOUND);
	CHECK_INT(store_tx_commit(st), 0);

	/* listing rank 0 */
	struct store_run_step_page page;
	CHECK_INT(store_steps_list(st, run_id, 0, 0, 0, NULL, &page), 0);
	CHECK_INT(page.n_steps, 7);
	if (page.n_steps == 7) {
		const struct store_run_step *s1 = &page.steps[0], *s2 = &page.steps[1];
		const struct store_run_step *s3 = &page.steps[2], *s5 = &page.steps[4];
		CHECK_INT(s1->step, 1);
		CHECK_INT(s1->rank, 0);
		CHECK_INT(s1->line, 10);
		CHECK_INT(s1->copies, 0);
		const struct store_step_metric *loss = metric(s1, "loss"), *tps = metric(s1, "tps");
		CHECK_STR(loss ? loss->text : NULL, "11.09833");
		CHECK(loss && loss->has_value);
		CHECK_DBL(loss ? loss->value : 0, 10.09833, 1e-12);
		CHECK_STR(tps ? tps->text : NULL, "1,231");
		CHECK_DBL(tps ? tps->value : 0, 1231, 0);
		CHECK_INT(s1->n_metrics, 4);
		CHECK_INT(s2->copies, 2);
		/* replaced values */
		CHECK_INT(s3->n_metrics, 2);
		CHECK_STR(metric(s3, "loss") ? metric(s3, "loss")->text : NULL, "7.5");
		CHECK_INT(s3->line, 1030);
		/* NaN */
		const struct store_step_metric *l5 = metric(s5, "loss");
		CHECK_STR(l5 ? l5->text : NULL, "nan");
		CHECK(l5 && !l5->has_value);
		CHECK_INT(s5->copies, 1);
	}
	CHECK_STR(page.next_cursor, "");
	store_run_step_page_free(&page);

	/* validation series */
	CHECK_INT(store_steps_list(st, run_id, 0, 1, 0, NULL, &page), 0);
	CHECK_INT(page.n_steps, 1);
	CHECK_STR(page.n_steps && metric(&page.steps[0], "loss")
	                  ? metric(&page.steps[0], "loss")->text
	                  : NULL,
	          "3.25");
	store_run_step_page_free(&page);
	/* rank fallback: the per-rank file is rank 3 */
	CHECK_INT(store_steps_list(st, run_id, 3, 0, 0, NULL, &page), 0);
	CHECK_INT(page.n_steps, 3);
	store_run_step_page_free(&page);
	/* paging rank 1 two at a time */
	char cur[64] = "";
	int n = 0, pages = 0;
	long prev = 0;
	for (;;) {
		CHECK_INT(store_steps_list(st, run_id, 1, 0, 2, cur[0] ? cur : NULL, &page), 0);
		for (size_t i = 0; i < page.n_steps; i++) {
			CHECK(page.steps[i].step > prev);
			prev = page.steps[i].step;
			n++;
		}
		pages++;
		snprintf(cur, sizeof cur, "%s", page.next_cursor);
		store_run_step_page_free(&page);
		if (!cur[0] || pages > 10)
			break;
	}
	CHECK_INT(n, 7);
	CHECK_INT(pages, 4);
	CHECK_INT(store_steps_list(st, run_id, 1, 0, 2, "s1", &page), STORE_BAD_CURSOR);
	store_run_step_page_free(&page);
	CHECK_INT(store_steps_list(st, 99999, 0, 0, 2, NULL, &page), STORE_NOT_FOUND);
	store_run_step_page_free(&page);

	/* replay */
	struct replay rp;
	memset(&rp, 0, sizeof rp);
	CHECK_INT(store_steps_foreach(st, log0, on_step, &rp), 0);
	CHECK_INT(rp.n, 14);
	CHECK_INT(rp.n_val, 1);
	CHECK_INT(rp.bad_order, 0);
	CHECK_INT(rp.ranks[0], 7);
	CHECK_INT(rp.ranks[1], 7);
	CHECK_STR(rp.loss_text[1], "11.09833");
	CHECK_DBL(rp.loss[1], 10.09833, 1e-12);
	CHECK_STR(rp.loss_text[3], "7.5");
	CHECK_INT(rp.n_metrics3, 2);
	CHECK_STR(rp.loss_text[5], "nan");
	CHECK(isnan(rp.loss[5]));
	CHECK_INT(rp.decimals0, 5);
	int count = 0;
	CHECK_INT(store_steps_foreach(st, log0, stop_after_two, &count), 42);
	CHECK_INT(count, 2);
	CHECK_INT(store_steps_foreach(st, 4242, on_step, &rp), STORE_NOT_FOUND);
	int nw = 0;
	CHECK_INT(store_warnings_foreach(st, log0, count_warning, &nw), 0);
	CHECK_INT(nw, 1);

	test_bulk_same_as_single(st, path);
	test_bulk_long_texts(st);
	test_merged_pages(st);
	test_budget_pages(st);

	/* the run view shows training counts; delete cascades steps */
	struct store_run_view run;
	CHECK_INT(store_run_get(st, run_id, &run), 0);
	CHECK_INT(run.run.n_logs ? run.run.logs[0].n_validation : -1, 1);
	store_run_view_free(&run);
	CHECK_INT(store_run_delete(st, run_id, NULL), 0);
	memset(&rp, 0, sizeof rp);
	CHECK_INT(store_steps_foreach(st, log0, on_step, &rp), STORE_NOT_FOUND);
	/* nothing left behind by the cascade */
	CHECK_INT(count_rows(path, "SELECT count(*) FROM step_metrics"), 0);
	CHECK_INT(count_rows(path, "SELECT count(*) FROM steps"), 0);
	CHECK_INT(count_rows(path, "SELECT count(*) FROM warnings"), 0);
	CHECK_INT(count_rows(path, "SELECT count(*) FROM logs"), 0);

	store_close(st);
	storetest_cleanup("steps");
	return check_report();
}
