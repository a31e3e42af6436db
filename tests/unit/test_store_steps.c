/* test_store_steps.c - training records: NEW stores every metric as text
 * and number (NaN kept as text, value null), COPY counts, REPLACE swaps
 * the values, validation steps are a separate series, the stored rank
 * falls back to the log's rank, paging with cursors, and the replay
 * (store_steps_foreach / store_warnings_foreach) gives back what went in. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/parity-store-steps-______";

static int count_rows(const char *path, const char *sql)
{
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

int main(void)
{
	char path[512], err[512];
	struct store *st = NULL;
	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	int64_t run_id, log0, log3;
	struct matcher_step_record r;
	struct matcher_metric_value m[4];
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_create(st, "train", "training", NULL, &run_id), 0);
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
	json_t *page = NULL;
	CHECK_INT(store_steps_list(st, run_id, 0, 0, 0, NULL, &page), 0);
	json_t *steps = json_object_get(page, "steps");
	CHECK_INT(json_array_size(steps), 7);
	json_t *s1 = json_array_get(steps, 0), *s2 = json_array_get(steps, 1);
	json_t *s3 = json_array_get(steps, 2), *s5 = json_array_get(steps, 4);
	CHECK_INT(json_integer_value(json_object_get(s1, "step")), 1);
	CHECK_INT(json_integer_value(json_object_get(s1, "rank")), 0);
	CHECK_INT(json_integer_value(json_object_get(s1, "line")), 10);
	CHECK_INT(json_integer_value(json_object_get(s1, "copies")), 0);
	json_t *met = json_object_get(s1, "metrics");
	CHECK_STR(json_string_value(json_object_get(json_object_get(met, "loss"), "text")),
	          "11.09833");
	CHECK_DBL(json_real_value(json_object_get(json_object_get(met, "loss"), "value")), 10.09833,
	          1e-12);
	CHECK_STR(json_string_value(json_object_get(json_object_get(met, "tps"), "text")), "1,231");
	CHECK_DBL(json_number_value(json_object_get(json_object_get(met, "tps"), "value")), 1231,
	          0);
	CHECK_INT(json_object_size(met), 4);
	CHECK_INT(json_integer_value(json_object_get(s2, "copies")), 2);
	/* replaced values */
	json_t *m3 = json_object_get(s3, "metrics");
	CHECK_INT(json_object_size(m3), 2);
	CHECK_STR(json_string_value(json_object_get(json_object_get(m3, "loss"), "text")), "7.5");
	CHECK_INT(json_integer_value(json_object_get(s3, "line")), 1030);
	/* NaN */
	json_t *l5 = json_object_get(json_object_get(s5, "metrics"), "loss");
	CHECK_STR(json_string_value(json_object_get(l5, "text")), "nan");
	CHECK(json_is_null(json_object_get(l5, "value")));
	CHECK_INT(json_integer_value(json_object_get(s5, "copies")), 1);
	CHECK(json_is_null(json_object_get(page, "next_cursor")));
	json_decref(page);

	/* validation series */
	CHECK_INT(store_steps_list(st, run_id, 0, 1, 0, NULL, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "steps")), 1);
	CHECK_STR(json_string_value(json_object_get(
	                  json_object_get(
	                          json_object_get(json_array_get(json_object_get(page, "steps"), 0),
	                                          "metrics"),
	                          "loss"),
	                  "text")),
	          "3.25");
	json_decref(page);
	/* rank fallback: the per-rank file is rank 3 */
	CHECK_INT(store_steps_list(st, run_id, 3, 0, 0, NULL, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "steps")), 3);
	json_decref(page);
	/* paging rank 1 two at a time */
	char cur[64] = "";
	int n = 0, pages = 0;
	long prev = 0;
	for (;;) {
		CHECK_INT(store_steps_list(st, run_id, 1, 0, 2, cur[0] ? cur : NULL, &page), 0);
		if (!page)
			break;
		size_t i;
		json_t *o;
		json_array_foreach(json_object_get(page, "steps"), i, o)
		{
			long stp = (long)json_integer_value(json_object_get(o, "step"));
			CHECK(stp > prev);
			prev = stp;
			n++;
		}
		pages++;
		json_t *nc = json_object_get(page, "next_cursor");
		int more = json_is_string(nc);
		if (more)
			snprintf(cur, sizeof cur, "%s", json_string_value(nc));
		json_decref(page);
		if (!more || pages > 10)
			break;
	}
	CHECK_INT(n, 7);
	CHECK_INT(pages, 4);
	CHECK_INT(store_steps_list(st, run_id, 1, 0, 2, "s1", &page), STORE_BAD_CURSOR);
	CHECK_INT(store_steps_list(st, 99999, 0, 0, 2, NULL, &page), STORE_NOT_FOUND);

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

	/* the run JSON shows training counts; delete cascades steps */
	json_t *run = store_run_json(st, run_id);
	CHECK_INT(json_integer_value(json_object_get(
	                  json_array_get(json_object_get(run, "logs"), 0), "validation_steps")),
	          1);
	json_decref(run);
	CHECK_INT(store_run_delete(st, run_id, NULL), 0);
	memset(&rp, 0, sizeof rp);
	CHECK_INT(store_steps_foreach(st, log0, on_step, &rp), STORE_NOT_FOUND);
	/* nothing left behind by the cascade */
	CHECK_INT(count_rows(path, "SELECT count(*) FROM step_metrics"), 0);
	CHECK_INT(count_rows(path, "SELECT count(*) FROM steps"), 0);
	CHECK_INT(count_rows(path, "SELECT count(*) FROM warnings"), 0);
	CHECK_INT(count_rows(path, "SELECT count(*) FROM logs"), 0);

	store_close(st);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup failed\n");
	return check_report();
}
