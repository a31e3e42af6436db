/* test_store_comparisons.c - comparisons as jobs: create (run checks),
 * claim oldest-first and atomically (threads racing on separate
 * connections each get distinct jobs), requeue after a crash, rows and
 * steps stored with filters (status list, method, phase, origin, key
 * regex), paging, finish, JSON, list, delete, and the run-delete refusal. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/parity-store-cmp-______";
static char path[512];

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static size_t rows_n(struct store *st, int64_t id, int rank, const char *status, const char *method,
                     const char *phase, int origin, const char *re)
{
	json_t *page = NULL;
	struct store_key_filter kf = {.regex = re};
	int rc = store_comparison_rows_list(st, id, rank, status, method, phase, origin, &kf, 1000,
	                                    NULL, &page);
	size_t n = rc == 0 ? json_array_size(json_object_get(page, "rows")) : (size_t)-1;
	json_decref(page);
	return n;
}

struct claimer {
	int64_t got[64];
	int n;
	int err;
};

static void *claim_thread(void *p)
{
	struct claimer *c = p;
	struct store *st = NULL;
	char err[256];
	if (store_open(path, &st, err, sizeof err) != 0) {
		c->err++;
		return NULL;
	}
	for (;;) {
		int64_t id;
		int rc = store_comparison_claim(st, &id);
		if (rc == STORE_NOT_FOUND)
			break;
		if (rc != 0) {
			c->err++;
			break;
		}
		if (c->n < 64)
			c->got[c->n++] = id;
	}
	store_close(st);
	return NULL;
}

static int csv_cb(void *ctx, int rank, long step, const char *row)
{
	int *n = ctx;
	if (rank == 0 && step == *n + 1 && strstr(row, "\"loss\""))
		(*n)++;
	return 0;
}

int main(void)
{
	char err[512];
	struct store *st = NULL;
	CHECK(CHECK_MKDTEMP(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	int64_t a, b, t, l;
	CHECK_INT(store_run_create(st, "base", "activation", "{\"commit\":\"c0ffee\"}", &a), 0);
	CHECK_INT(store_log_create(st, a, 0, NULL, 1, "sa", &l), 0);
	CHECK_INT(store_run_create(st, "cand", "activation", NULL, &b), 0);
	CHECK_INT(store_log_create(st, b, 0, NULL, 1, "sb", &l), 0);
	CHECK_INT(store_run_create(st, "train", "training", NULL, &t), 0);

	/* create: run checks */
	int64_t c1, c2, c3, bad;
	CHECK_INT(store_comparison_create(st, a, 9999, "activation", NULL, NULL, NULL, &bad),
	          STORE_NOT_FOUND);
	CHECK_INT(store_comparison_create(st, a, t, "activation", NULL, NULL, NULL, &bad),
	          STORE_INVALID);
	CHECK_INT(store_comparison_create(st, a, b, "nope", NULL, NULL, NULL, &bad), STORE_INVALID);
	CHECK_INT(store_comparison_create(st, a, b, "activation", "pr-1", "{\"name\":\"premerge\"}",
	                                  "a,b\n", &c1),
	          0);
	CHECK_INT(store_comparison_create(st, t, t, "training", NULL, NULL, NULL, &c2), 0);
	CHECK_INT(store_comparison_create(st, b, a, "activation", NULL, NULL, NULL, &c3), 0);

	json_t *c = store_comparison_json(st, c1);
	CHECK(c != NULL);
	CHECK_STR(jstr(c, "status"), "queued");
	CHECK_STR(jstr(c, "name"), "pr-1");
	CHECK_STR(jstr(c, "kind"), "activation");
	CHECK(json_is_null(json_object_get(c, "verdict")));
	CHECK(json_is_null(json_object_get(c, "started_at")));
	CHECK_INT(json_integer_value(json_object_get(c, "baseline")), a);
	CHECK_STR(jstr(json_object_get(c, "policy"), "name"), "premerge");
	CHECK_STR(jstr(json_object_get(json_object_get(c, "runs"), "baseline"), "name"), "base");
	json_t *base_run = json_object_get(json_object_get(c, "runs"), "baseline");
	CHECK_STR(jstr(json_object_get(base_run, "meta"), "commit"), "c0ffee");
	json_decref(c);

	/* a run used by a comparison cannot be deleted */
	CHECK_INT(store_run_delete(st, a, NULL), STORE_IN_USE);
	CHECK(strstr(store_errmsg(st), "comparison") != NULL);
	CHECK_INT(store_run_exists(st, a), 1);

	/* claim oldest first; requeue after a "crash" */
	int64_t id = 0;
	CHECK_INT(store_comparison_claim(st, &id), 0);
	CHECK_INT(id, c1);
	char status[16];
	CHECK_INT(store_comparison_status(st, c1, status, sizeof status), 0);
	CHECK_STR(status, "running");
	struct store_comparison_job job;
	CHECK_INT(store_comparison_job(st, c1, &job), 0);
	CHECK_STR(job.kind, "activation");
	CHECK_STR(job.status, "running");
	CHECK_INT(job.baseline_id, a);
	CHECK_INT(job.candidate_id, b);
	CHECK_STR(job.policy_json, "{\"name\":\"premerge\"}");
	CHECK_STR(job.overrides, "a,b\n");
	CHECK_STR(job.name, "pr-1");
	store_comparison_job_free(&job);
	CHECK_INT(store_comparison_job(st, 5555, &job), STORE_NOT_FOUND);

	/* partial rows, crash, requeue, clear, recompute */
	CHECK_INT(store_comparison_row_add(st, c1, 0, 0, "match", "exact", "forward", 0, "k0", "k0",
	                                   0.0, "{\"a\":\"k0\"}"),
	          0);
	int nreq = 0;
	CHECK_INT(store_comparisons_requeue_running(st, &nreq), 0);
	CHECK_INT(nreq, 1);
	CHECK_INT(store_comparison_claim(st, &id), 0);
	CHECK_INT(id, c1);
	CHECK_INT(store_comparison_rows_clear(st, c1), 0);
	CHECK_INT(rows_n(st, c1, -1, NULL, NULL, NULL, -1, NULL), 0);

	CHECK_INT(store_tx_begin(st), 0);
	const char *statuses[] = {"match", "diff", "a_only", "b_only"};
	const char *methods[] = {"exact", "fuzzy", NULL, NULL};
	for (int rank = 0; rank < 2; rank++)
		for (int i = 0; i < 40; i++) {
			char ak[64], bk[64], row[200];
			int k = i % 4;
			snprintf(ak, sizeof ak, "layers.%d.attn/op_%d_mm", i / 4, i % 4);
			snprintf(bk, sizeof bk, "model.layers.%d.attn/op_%d_mm", i / 4, i % 4);
			snprintf(row, sizeof row, "{\"a_key\":\"%s\",\"status\":\"%s\",\"i\":%d}",
			         ak, statuses[k], i);
			CHECK_INT(store_comparison_row_add(st, c1, rank, i, statuses[k], methods[k],
			                                   i < 20 ? "forward" : "backward",
			                                   k == 1 && i < 8, k == 3 ? NULL : ak,
			                                   k == 2 ? NULL : bk, k == 1 ? 0.5 : NAN,
			                                   row),
			          0);
		}
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_comparison_row_add(st, c1, 0, 3, "match", NULL, "forward", 0, NULL, NULL,
	                                   NAN, "{}"),
	          STORE_DUPLICATE);
	CHECK_INT(store_comparison_row_add(st, 7777, 0, 3, "match", NULL, "forward", 0, NULL, NULL,
	                                   NAN, "{}"),
	          STORE_NOT_FOUND);

	CHECK_INT(rows_n(st, c1, -1, NULL, NULL, NULL, -1, NULL), 80);
	CHECK_INT(rows_n(st, c1, 1, NULL, NULL, NULL, -1, NULL), 40);
	CHECK_INT(rows_n(st, c1, 0, "diff", NULL, NULL, -1, NULL), 10);
	CHECK_INT(rows_n(st, c1, 0, "diff,a_only,b_only", NULL, NULL, -1, NULL), 30);
	CHECK_INT(rows_n(st, c1, 0, NULL, "fuzzy", NULL, -1, NULL), 10);
	CHECK_INT(rows_n(st, c1, 0, NULL, "exact,fuzzy", "backward", -1, NULL), 10);
	CHECK_INT(rows_n(st, c1, -1, NULL, NULL, NULL, 1, NULL), 4);
	CHECK_INT(rows_n(st, c1, 0, NULL, NULL, NULL, 0, NULL), 38);
	/* regex on either key: "^model\\.layers\\.1\\." only matches b keys */
	CHECK_INT(rows_n(st, c1, 0, NULL, NULL, NULL, -1, "^model\\.layers\\.1\\."), 3);
	CHECK_INT(rows_n(st, c1, 0, NULL, NULL, NULL, -1, "^layers\\.1\\."), 3);
	CHECK_INT(rows_n(st, c1, 0, NULL, NULL, NULL, -1, "layers\\.1\\."), 4);
	json_t *page = NULL;
	CHECK_INT(store_comparison_rows_list(st, c1, -1, NULL, NULL, NULL, -1,
	                                     &(struct store_key_filter){.regex = "("}, 10, NULL,
	                                     &page),
	          STORE_BAD_REGEX);
	CHECK_INT(
	        store_comparison_rows_list(st, c1, -1, NULL, NULL, "up", -1, NULL, 10, NULL, &page),
	        STORE_INVALID);
	CHECK_INT(
	        store_comparison_rows_list(st, c1, -1, NULL, NULL, NULL, -1, NULL, 10, "zz", &page),
	        STORE_BAD_CURSOR);
	CHECK_INT(store_comparison_rows_list(st, 8888, -1, NULL, NULL, NULL, -1, NULL, 10, NULL,
	                                     &page),
	          STORE_NOT_FOUND);

	/* page through the diffs of both ranks 7 at a time */
	char cur[64] = "";
	int n = 0, pages = 0, in_order = 1;
	long long prev = -1;
	for (;;) {
		CHECK_INT(store_comparison_rows_list(st, c1, -1, "diff", NULL, NULL, -1, NULL, 7,
		                                     cur[0] ? cur : NULL, &page),
		          0);
		if (!page)
			break;
		size_t i;
		json_t *r;
		json_array_foreach(json_object_get(page, "rows"), i, r)
		{
			long long key = json_integer_value(json_object_get(r, "rank")) * 1000 +
			                json_integer_value(json_object_get(r, "idx"));
			if (key <= prev || strcmp(jstr(r, "status"), "diff") != 0)
				in_order = 0;
			prev = key;
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
	CHECK_INT(n, 20);
	CHECK_INT(pages, 3);
	CHECK(in_order);

	/* training steps for c2 */
	CHECK_INT(store_comparison_claim(st, &id), 0);
	CHECK_INT(id, c2);
	for (long s = 1; s <= 12; s++) {
		char row[100];
		snprintf(row, sizeof row, "{\"loss\":{\"a\":\"1.0\",\"b\":\"1.%ld\"}}", s);
		CHECK_INT(store_comparison_step_add(st, c2, 0, s, row), 0);
	}
	CHECK_INT(store_comparison_step_add(st, c2, 1, 1, "{\"loss\":{}}"), 0);
	CHECK_INT(store_comparison_steps_list(st, c2, 0, 5, NULL, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "steps")), 5);
	CHECK_INT(json_integer_value(json_object_get(
	                  json_array_get(json_object_get(page, "steps"), 4), "step")),
	          5);
	CHECK(json_is_string(json_object_get(page, "next_cursor")));
	char cur2[64];
	snprintf(cur2, sizeof cur2, "%s", json_string_value(json_object_get(page, "next_cursor")));
	json_decref(page);
	CHECK_INT(store_comparison_steps_list(st, c2, 0, 100, cur2, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "steps")), 7);
	json_decref(page);
	CHECK_INT(store_comparison_steps_list(st, c2, -1, 100, NULL, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "steps")), 13);
	json_decref(page);
	int csv = 0;
	CHECK_INT(store_comparison_steps_foreach(st, c2, 0, csv_cb, &csv), 0);
	CHECK_INT(csv, 12);

	/* finish */
	CHECK_INT(store_comparison_finish(st, c1, "done", "fail",
	                                  "{\"reasons\":[\"diff_rows\"],\"summary\":{\"diff\":20}}",
	                                  NULL),
	          0);
	CHECK_INT(store_comparison_finish(st, c2, "failed", NULL, NULL, "baseline log unreadable"),
	          0);
	CHECK_INT(store_comparison_finish(st, c2, "weird", NULL, NULL, NULL), STORE_INVALID);
	CHECK_INT(store_comparison_finish(st, 6666, "done", NULL, NULL, NULL), STORE_NOT_FOUND);
	c = store_comparison_json(st, c1);
	CHECK_STR(jstr(c, "status"), "done");
	CHECK_STR(jstr(c, "verdict"), "fail");
	CHECK_INT(json_integer_value(json_object_get(
	                  json_object_get(json_object_get(c, "result"), "summary"), "diff")),
	          20);
	CHECK(jstr(c, "started_at") != NULL);
	CHECK(jstr(c, "finished_at") != NULL);
	json_decref(c);
	c = store_comparison_json(st, c2);
	CHECK_STR(jstr(c, "status"), "failed");
	CHECK_STR(jstr(c, "error"), "baseline log unreadable");
	json_decref(c);
	CHECK(store_comparison_json(st, 4444) == NULL);

	/* list newest first, paged */
	CHECK_INT(store_comparisons_list(st, 2, NULL, &page), 0);
	json_t *list = json_object_get(page, "comparisons");
	CHECK_INT(json_array_size(list), 2);
	CHECK_INT(json_integer_value(json_object_get(json_array_get(list, 0), "id")), c3);
	CHECK(json_object_get(json_array_get(list, 0), "result") == NULL);
	snprintf(cur2, sizeof cur2, "%s", json_string_value(json_object_get(page, "next_cursor")));
	json_decref(page);
	CHECK_INT(store_comparisons_list(st, 2, cur2, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "comparisons")), 1);
	CHECK(json_is_null(json_object_get(page, "next_cursor")));
	json_decref(page);
	CHECK_INT(store_comparisons_list(st, 2, "r1", &page), STORE_BAD_CURSOR);

	/* several workers on their own connections claim distinct jobs */
	enum { NJOBS = 30, NT = 3 };
	for (int i = 0; i < NJOBS; i++)
		CHECK_INT(store_comparison_create(st, a, b, "activation", NULL, NULL, NULL, &id),
		          0);
	pthread_t th[NT];
	struct claimer cl[NT];
	memset(cl, 0, sizeof cl);
	for (int i = 0; i < NT; i++)
		pthread_create(&th[i], NULL, claim_thread, &cl[i]);
	int total = 0, errs = 0, dupes = 0;
	for (int i = 0; i < NT; i++) {
		pthread_join(th[i], NULL);
		total += cl[i].n;
		errs += cl[i].err;
	}
	for (int i = 0; i < NT; i++)
		for (int j = 0; j < cl[i].n; j++)
			for (int k = 0; k < NT; k++)
				for (int m = 0; m < cl[k].n; m++)
					if ((k != i || m != j) && cl[i].got[j] == cl[k].got[m])
						dupes++;
	CHECK_INT(total, NJOBS + 1); /* + c3, still queued */
	CHECK_INT(errs, 0);
	CHECK_INT(dupes, 0);
	CHECK_INT(store_comparison_claim(st, &id), STORE_NOT_FOUND);

	/* delete comparisons, then the runs can go */
	CHECK_INT(store_comparison_delete(st, c1), 0);
	CHECK_INT(store_comparison_delete(st, c1), STORE_NOT_FOUND);
	CHECK_INT(rows_n(st, c1, -1, NULL, NULL, NULL, -1, NULL), (size_t)-1);
	CHECK_INT(store_comparison_delete(st, c2), 0);
	CHECK_INT(store_run_delete(st, t, NULL), 0);
	CHECK_INT(store_run_delete(st, a, NULL), STORE_IN_USE); /* c3 and the workers' jobs */

	store_close(st);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup failed\n");
	return check_report();
}
