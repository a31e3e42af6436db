/* test_store_comparisons.c - comparisons as jobs: create (run checks),
 * claim oldest-first and atomically (threads racing on separate
 * connections each get distinct jobs), requeue after a crash, rows and
 * steps stored with filters (status list, method, phase, origin, key
 * regex), paging, finish, JSON, list, delete, and the run-delete refusal.
 * Both backends (storetest.h); on PostgreSQL claims hold a lease of the
 * connection's owner: a crashed worker's job is taken over after its
 * lease expires (no start-up requeue), and a worker that lost its lease
 * finishes nothing (test_leases). */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

static char path[512];

static size_t rows_n(struct store *st, int64_t id, int rank, const char *status, const char *method,
                     const char *phase, int origin, const char *re)
{
	struct store_row_page page;
	struct store_key_filter kf = {.regex = re};
	int rc = store_comparison_rows_list(st, id, rank, status, method, phase, origin, &kf, 1000,
	                                    NULL, &page);
	size_t n = rc == 0 ? page.n_rows : (size_t)-1;
	store_row_page_free(&page);
	/* the count of the same filters agrees (issue 15, "N of M rows") */
	int64_t counted = -1;
	int partial = -1;
	int crc = store_comparison_rows_count(st, id, rank, status, method, phase, origin, &kf,
	                                      &counted, &partial);
	CHECK_INT(crc, rc);
	if (rc == 0) {
		CHECK_INT(counted, (long long)n);
		CHECK_INT(partial, 0);
	}
	return n;
}

/* A record pairing entry a_ord with b_ord (-1: missing side). */
static struct store_row_rec rec(int64_t a_ord, int64_t b_ord, enum matcher_status status,
                                enum matcher_method method, enum matcher_phase phase, int origin,
                                double dist)
{
	struct store_row_rec r;
	memset(&r, 0, sizeof r);
	r.a_ord = a_ord;
	r.b_ord = b_ord;
	r.status = status;
	r.method = method;
	r.phase = phase;
	r.origin = origin;
	r.output_hash_distance = dist;
	r.input_hash_distance = -1;
	for (int i = 0; i < MATCHER_N_STATS; i++)
		r.stat_diff[i] = -1;
	return r;
}

/* Entries 0..39 of one log: keys "<prefix>layers.<i/4>.attn/op_<i%4>_mm". */
static void add_entries(struct store *st, int64_t log, const char *prefix)
{
	for (int i = 0; i < 40; i++) {
		char key[64];
		struct matcher_entry e;
		memset(&e, 0, sizeof e);
		snprintf(key, sizeof key, "%slayers.%d.attn/op_%d_mm", prefix, i / 4, i % 4);
		e.key = key;
		e.order = (size_t)i;
		e.line = (unsigned long)(10 * i + 1);
		e.phase = i < 20 ? MATCHER_FORWARD : MATCHER_BACKWARD;
		e.stats[MATCHER_STAT_SHAPE] = "[2, 3]";
		e.stats[MATCHER_STAT_L1] = "1.5";
		e.stat_num[MATCHER_STAT_L1] = 1.5;
		e.stat_isnum = 1u << MATCHER_STAT_L1;
		e.output_hash = "1, 2";
		e.location = "model.py:12";
		CHECK_INT(store_entry_add(st, log, &e), 0);
	}
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

/* Rows of comparison id (no filter); -1 on an error. */
static long long rows_count(struct store *st, int64_t id)
{
	int64_t n = -1;
	int partial = 0;
	if (store_comparison_rows_count(st, id, -1, NULL, NULL, NULL, -1, NULL, &n, &partial) < 0)
		return -1;
	return n;
}

/* Worker st's write transaction of job id: one row, then the finish
 * (the order of server/jobs/jobs.c); committed when the finish is accepted,
 * else rolled back.  The finish's result. */
static int finish_with_row(struct store *st, int64_t id, int64_t log_a, int64_t log_b,
                           const char *verdict)
{
	int64_t *ia = NULL, *ib = NULL;
	size_t na = 0, nb = 0;
	CHECK_INT(store_log_entry_ids(st, log_a, &ia, &na), 0);
	CHECK_INT(store_log_entry_ids(st, log_b, &ib, &nb), 0);
	struct store_row_rec one =
	        rec(0, 0, MATCHER_MATCH, MATCHER_METHOD_EXACT, MATCHER_FORWARD, 0, 0.0);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_comparison_rows_clear(st, id), 0);
	CHECK_INT(store_comparison_rows_add(st, id, 0, ia, na, ib, nb, &one, 1), 0);
	int rc = store_comparison_finish(st, id, "done", verdict, "{}", NULL);
	if (rc == 0)
		CHECK_INT(store_tx_commit(st), 0);
	else
		CHECK_INT(store_tx_rollback(st), 0);
	free(ia);
	free(ib);
	return rc;
}

struct waited {
	int n;
	char payload[32];
};

static void on_done(void *ctx, enum store_event ev, const char *payload)
{
	struct waited *w = ctx;
	if (ev == STORE_EV_DONE) {
		w->n++;
		snprintf(w->payload, sizeof w->payload, "%s", payload);
	}
}

/* PostgreSQL: two workers (connections with owners "A", "B") on one
 * job.  A live lease keeps B out; a non-owner's finish is refused ("lease
 * lost") and its rows roll back, also once A's lease expired; B takes
 * the expired job over, and then A (the old owner) finishes nothing.
 * The finish wakes a listener at COMMIT. */
static void test_leases(void)
{
	char err[512];
	struct store *A = NULL, *B = NULL, *lis = NULL;
	CHECK_INT(store_open(path, &A, err, sizeof err), 0);
	CHECK_INT(store_open(path, &B, err, sizeof err), 0);
	CHECK_INT(store_open_existing(path, &lis, err, sizeof err), 0);
	if (!A || !B || !lis) {
		fprintf(stderr, "test_leases: %s\n", err);
		CHECK(0);
		return;
	}
	CHECK_INT(store_listen(lis, 1u << STORE_EV_DONE), 0);
	store_set_job_owner(A, "host-a:1:aaaa", 1500);
	store_set_job_owner(B, "host-b:2:bbbb", 60000);
	int64_t r, la, lb, job, got = 0;
	CHECK_INT(store_run_create(A, "lease-a", "activation", NULL, &r), 0);
	CHECK_INT(store_log_create(A, r, 0, NULL, 1, "la", &la), 0);
	add_entries(A, la, "");
	CHECK_INT(store_log_create(A, r, 1, NULL, 1, "lb", &lb), 0);
	add_entries(A, lb, "");
	CHECK_INT(store_comparison_create(A, r, r, "activation", NULL, NULL, NULL, &job), 0);
	CHECK_INT(store_comparison_claim(A, &got), 0);
	CHECK_INT(got, job);
	CHECK_INT(store_comparison_claim(B, &got), STORE_NOT_FOUND); /* A's lease is live */
	/* B does not hold the job: refused, nothing written */
	CHECK_INT(finish_with_row(B, job, la, lb, "pass"), STORE_NOT_FOUND);
	CHECK(strstr(store_errmsg(B), "lease lost") != NULL);
	CHECK_INT(rows_count(B, job), 0);
	/* nor once A's lease expired while nobody took it over */
	pgtest_sleep_ms(1700);
	CHECK_INT(finish_with_row(B, job, la, lb, "pass"), STORE_NOT_FOUND);
	CHECK_INT(rows_count(B, job), 0);
	char status[16];
	CHECK_INT(store_comparison_status(B, job, status, sizeof status), 0);
	CHECK_STR(status, "running");
	/* B takes the expired job over; A lost it: refused, nothing written */
	CHECK_INT(store_comparison_claim(B, &got), 0);
	CHECK_INT(got, job);
	CHECK_INT(finish_with_row(A, job, la, lb, "fail"), STORE_NOT_FOUND);
	CHECK_INT(rows_count(A, job), 0);
	CHECK_INT(store_comparison_requeue(A, job), 0); /* not A's to give back */
	CHECK_INT(store_comparison_status(A, job, status, sizeof status), 0);
	CHECK_STR(status, "running");
	/* B's finish: no wake-up before its COMMIT, one after */
	struct waited w = {0, ""};
	CHECK_INT(store_wait(lis, 0, on_done, &w), 0);
	CHECK_INT(finish_with_row(B, job, la, lb, "pass"), 0);
	CHECK_INT(store_wait(lis, 2000, on_done, &w), 1);
	CHECK_INT(w.n, 1);
	char idtxt[32];
	snprintf(idtxt, sizeof idtxt, "%lld", (long long)job);
	CHECK_STR(w.payload, idtxt);
	CHECK_INT(rows_count(A, job), 1);
	CHECK_INT(store_comparison_status(A, job, status, sizeof status), 0);
	CHECK_STR(status, "done");
	/* the old owner cannot overwrite the result afterwards either */
	CHECK_INT(finish_with_row(A, job, la, lb, "fail"), STORE_NOT_FOUND);
	CHECK_INT(rows_count(A, job), 1);
	struct store_comparison_view cv;
	CHECK_INT(store_comparison_get(A, job, &cv), 0);
	CHECK_STR(cv.cmp.verdict, "pass");
	store_comparison_view_free(&cv);
	/* a failed finish left A's and B's connections usable */
	CHECK_INT(store_comparison_requeue(B, job), 0);
	CHECK_INT(store_comparisons_requeue_running(A, NULL), 0);
	store_close(lis);
	store_close(A);
	store_close(B);
}

int main(void)
{
	char err[512];
	struct store *st = NULL;
	int pg = storetest_is_pg();
	CHECK_INT(storetest_target("cmp", path, sizeof path), 0);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	int64_t a, b, t, la[2], lb[2];
	CHECK_INT(store_run_create(st, "base", "activation", "{\"commit\":\"c0ffee\"}", &a), 0);
	CHECK_INT(store_log_create(st, a, 0, NULL, 1, "sa", &la[0]), 0);
	CHECK_INT(store_log_create(st, a, 1, NULL, 1, "sa1", &la[1]), 0);
	CHECK_INT(store_run_create(st, "cand", "activation", NULL, &b), 0);
	CHECK_INT(store_log_create(st, b, 0, NULL, 1, "sb", &lb[0]), 0);
	CHECK_INT(store_log_create(st, b, 1, NULL, 1, "sb1", &lb[1]), 0);
	for (int rank = 0; rank < 2; rank++) {
		add_entries(st, la[rank], "");
		add_entries(st, lb[rank], "model.");
	}
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

	struct store_comparison_view cv;
	CHECK_INT(store_comparison_get(st, c1, &cv), 0);
	CHECK_STR(cv.cmp.status, "queued");
	CHECK_STR(cv.cmp.name, "pr-1");
	CHECK_STR(cv.cmp.kind, "activation");
	CHECK(cv.cmp.verdict == NULL);
	CHECK(cv.cmp.started_at == NULL);
	CHECK(cv.cmp.finished_at == NULL);
	CHECK(cv.cmp.result_json == NULL);
	CHECK(cv.cmp.created_at != NULL);
	CHECK_INT(cv.cmp.baseline_id, a);
	CHECK_INT(cv.cmp.candidate_id, b);
	CHECK_STR(cv.cmp.policy_json, "{\"name\":\"premerge\"}");
	CHECK(cv.cmp.baseline && cv.cmp.candidate);
	CHECK_STR(cv.cmp.baseline ? cv.cmp.baseline->name : NULL, "base");
	CHECK(cv.cmp.baseline && strstr(cv.cmp.baseline->meta_json, "c0ffee") != NULL);
	CHECK_INT(cv.cmp.baseline ? (long long)cv.cmp.baseline->n_logs : -1, 0);
	store_comparison_view_free(&cv);

	/* a run used by a comparison cannot be deleted */
	CHECK_INT(store_run_delete(st, a, NULL), STORE_IN_USE);
	CHECK(strstr(store_errmsg(st), "comparison") != NULL);
	CHECK_INT(store_run_exists(st, a), 1);

	/* claim oldest first; requeue after a "crash" (PostgreSQL: the
	 * lease of a worker "w1" that crashed expires, "w2" takes over) */
	int64_t id = 0;
	store_set_job_owner(st, "w1", 2000);
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
	struct store_row_rec one =
	        rec(0, 0, MATCHER_MATCH, MATCHER_METHOD_EXACT, MATCHER_FORWARD, 0, 0.0);
	int64_t *ia[2], *ib[2];
	size_t na[2], nb[2];
	for (int rank = 0; rank < 2; rank++) {
		CHECK_INT(store_log_entry_ids(st, la[rank], &ia[rank], &na[rank]), 0);
		CHECK_INT(store_log_entry_ids(st, lb[rank], &ib[rank], &nb[rank]), 0);
		CHECK_INT(na[rank], 40);
		CHECK_INT(nb[rank], 40);
	}
	int64_t *none = NULL;
	size_t n_none = 7;
	CHECK_INT(store_log_entry_ids(st, 424242, &none, &n_none), STORE_NOT_FOUND);
	CHECK(none == NULL && n_none == 0);
	CHECK_INT(store_comparison_rows_add(st, c1, 0, ia[0], na[0], ib[0], nb[0], &one, 1), 0);
	int nreq = -1;
	CHECK_INT(store_comparisons_requeue_running(st, &nreq), 0);
	CHECK_INT(nreq, pg ? 0 : 1); /* PostgreSQL: other daemons' jobs are left alone */
	if (pg) {
		CHECK_INT(store_comparison_status(st, c1, status, sizeof status), 0);
		CHECK_STR(status, "running");
		store_set_job_owner(st, "w2", 60000);
		CHECK_INT(store_comparison_claim(st, &id), 0);
		CHECK_INT(id, c2); /* w1's lease still runs: c1 is skipped */
		CHECK_INT(store_comparison_requeue(st, c2), 0);
		pgtest_sleep_ms(2100);
	}
	CHECK_INT(store_comparison_claim(st, &id), 0);
	CHECK_INT(id, c1);
	CHECK_INT(store_comparison_rows_clear(st, c1), 0);
	CHECK_INT(rows_n(st, c1, -1, NULL, NULL, NULL, -1, NULL), 0);

	/* 40 rows a rank: match / diff / a_only / b_only in turn */
	CHECK_INT(store_tx_begin(st), 0);
	const enum matcher_status statuses[] = {MATCHER_MATCH, MATCHER_DIFF, MATCHER_A_ONLY,
	                                        MATCHER_B_ONLY};
	const enum matcher_method methods[] = {MATCHER_METHOD_EXACT, MATCHER_METHOD_FUZZY,
	                                       MATCHER_METHOD_NONE, MATCHER_METHOD_NONE};
	struct store_row_rec recs[40];
	for (int i = 0; i < 40; i++) {
		int k = i % 4;
		recs[i] = rec(k == 3 ? -1 : i, k == 2 ? -1 : i, statuses[k], methods[k],
		              i < 20 ? MATCHER_FORWARD : MATCHER_BACKWARD, k == 1 && i < 8,
		              k == 1 ? 0.5 : (k == 0 ? 0.0 : -1));
		if (k == 1) {
			recs[i].input_hash_distance = 0.25;
			recs[i].stat_diff[MATCHER_STAT_L1] = 1e-7;
			recs[i].shape_differs = 1;
		}
	}
	for (int rank = 0; rank < 2; rank++)
		CHECK_INT(store_comparison_rows_add(st, c1, rank, ia[rank], na[rank], ib[rank],
		                                    nb[rank], recs, 40),
		          0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_comparison_rows_add(st, c1, 0, ia[0], na[0], ib[0], nb[0], &one, 1),
	          STORE_DUPLICATE);
	CHECK_INT(store_comparison_rows_add(st, 7777, 0, ia[0], na[0], ib[0], nb[0], &one, 1),
	          STORE_NOT_FOUND);
	struct store_row_rec nowhere =
	        rec(0, 99, MATCHER_MATCH, MATCHER_METHOD_EXACT, MATCHER_FORWARD, 0, 0.0);
	CHECK_INT(store_comparison_rows_add(st, c3, 0, ia[0], na[0], ib[0], nb[0], &nowhere, 1),
	          STORE_INVALID);
	CHECK_INT(rows_n(st, c3, -1, NULL, NULL, NULL, -1, NULL), 0);
	for (int rank = 0; rank < 2; rank++) {
		free(ia[rank]);
		free(ib[rank]);
	}

	/* rows read back: typed columns and both entries joined in */
	struct store_row_page rp;
	CHECK_INT(store_comparison_rows_list(st, c1, 1, NULL, NULL, NULL, -1, NULL, 4, NULL, &rp),
	          0);
	CHECK_INT(rp.n_rows, 4);
	CHECK_STR(rp.next_cursor, "w1.3");
	if (rp.n_rows == 4) {
		const struct store_act_row *m = &rp.rows[0], *d = &rp.rows[1], *ao = &rp.rows[2],
		                           *bo = &rp.rows[3];
		CHECK_INT(m->rank, 1);
		CHECK_INT(m->idx, 0);
		CHECK_INT(m->row.status, MATCHER_MATCH);
		CHECK_INT(m->row.method, MATCHER_METHOD_EXACT);
		CHECK(m->row.output_hash_distance == 0.0);
		CHECK(m->row.input_hash_distance < 0);
		CHECK(m->row.a == &m->a && m->row.b == &m->b);
		CHECK_STR(m->a.key, "layers.0.attn/op_0_mm");
		CHECK_STR(m->b.key, "model.layers.0.attn/op_0_mm");
		CHECK_STR(m->a.stats[MATCHER_STAT_SHAPE], "[2, 3]");
		CHECK_STR(m->a.stats[MATCHER_STAT_L1], "1.5");
		CHECK(m->a.stats[MATCHER_STAT_L2] == NULL);
		CHECK_STR(m->a.output_hash, "1, 2");
		CHECK(m->a.input_hashes == NULL);
		CHECK_STR(m->b.location, "model.py:12");
		CHECK_INT(m->a.line, 1);
		CHECK_INT(m->a.order, 0);
		CHECK_INT(d->row.status, MATCHER_DIFF);
		CHECK_INT(d->row.method, MATCHER_METHOD_FUZZY);
		CHECK(d->row.output_hash_distance == 0.5);
		CHECK(d->row.input_hash_distance == 0.25);
		CHECK(d->row.stat_diff[MATCHER_STAT_L1] == 1e-7);
		CHECK(d->row.stat_diff[MATCHER_STAT_L2] < 0);
		CHECK_INT(d->row.origin, 1);
		CHECK_INT(d->row.shape_differs, 1);
		CHECK_INT(d->a.line, 11);
		CHECK_INT(ao->row.status, MATCHER_A_ONLY);
		CHECK_INT(ao->row.method, MATCHER_METHOD_NONE);
		CHECK(ao->row.a != NULL && ao->row.b == NULL);
		CHECK(bo->row.a == NULL && bo->row.b != NULL);
		CHECK_STR(bo->b.key, "model.layers.0.attn/op_3_mm");
	}
	store_row_page_free(&rp);
	store_row_page_free(&rp); /* a freed page frees again as empty */

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
	CHECK_INT(rows_n(st, c1, 0, "nope", NULL, NULL, -1, NULL), 0);
	/* producer rows: by key (exact), by output hash, only above the row */
	{
		int64_t at = -1;
		CHECK_INT(store_comparison_row_producer(st, c1, 1, 0, "layers.0.attn/op_0_mm", NULL,
		                                        10, &at),
		          0);
		CHECK_INT(at, 0);
		CHECK_INT(store_comparison_row_producer(st, c1, 1, 1, "model.layers.0.attn/op_0_mm",
		                                        NULL, -1, &at),
		          0);
		CHECK_INT(at, 0);
		CHECK_INT(store_comparison_row_producer(st, c1, 1, 0, "layers.0.attn/op_0_mm", NULL,
		                                        0, &at),
		          STORE_NOT_FOUND);
		CHECK_INT(store_comparison_row_producer(st, c1, 1, 0, "nope", "2", 1, &at), 0);
		CHECK_INT(at, 0); /* row 0's A output hash is "1, 2" */
		CHECK_INT(store_comparison_row_producer(st, c1, 1, 0, "nope", "1, 2", 5, &at),
		          STORE_NOT_FOUND); /* one item, not the list */
		CHECK_INT(store_comparison_row_producer(st, c1, 1, 0, NULL, NULL, 5, &at),
		          STORE_INVALID);
		CHECK_INT(store_comparison_row_producer(st, 8888, 1, 0, "x", NULL, 5, &at),
		          STORE_NOT_FOUND);
	}
	CHECK_INT(store_comparison_rows_list(st, c1, -1, NULL, NULL, NULL, -1,
	                                     &(struct store_key_filter){.regex = "("}, 10, NULL,
	                                     &rp),
	          STORE_BAD_REGEX);
	store_row_page_free(&rp);
	CHECK_INT(store_comparison_rows_list(st, c1, -1, NULL, NULL, "up", -1, NULL, 10, NULL, &rp),
	          STORE_INVALID);
	store_row_page_free(&rp);
	CHECK_INT(store_comparison_rows_list(st, c1, -1, NULL, NULL, NULL, -1, NULL, 10, "zz", &rp),
	          STORE_BAD_CURSOR);
	store_row_page_free(&rp);
	CHECK_INT(
	        store_comparison_rows_list(st, 8888, -1, NULL, NULL, NULL, -1, NULL, 10, NULL, &rp),
	        STORE_NOT_FOUND);
	store_row_page_free(&rp);

	/* page through the diffs of both ranks 7 at a time */
	char cur[64] = "";
	int n = 0, pages = 0, in_order = 1;
	long long prev = -1;
	for (;;) {
		CHECK_INT(store_comparison_rows_list(st, c1, -1, "diff", NULL, NULL, -1, NULL, 7,
		                                     cur[0] ? cur : NULL, &rp),
		          0);
		for (size_t i = 0; i < rp.n_rows; i++) {
			long long key = rp.rows[i].rank * 1000LL + rp.rows[i].idx;
			if (key <= prev || rp.rows[i].row.status != MATCHER_DIFF)
				in_order = 0;
			prev = key;
			n++;
		}
		pages++;
		int more = rp.next_cursor[0] != 0;
		snprintf(cur, sizeof cur, "%s", rp.next_cursor);
		store_row_page_free(&rp);
		if (!more || pages > 10)
			break;
	}
	CHECK_INT(n, 20);
	CHECK_INT(pages, 3);
	CHECK(in_order);

	/* training steps for c2: typed cells, NaN / inf / absent sides kept */
	CHECK_INT(store_comparison_claim(st, &id), 0);
	CHECK_INT(id, c2);
	const char *metrics[] = {"loss", "grad_norm"};
	CHECK_INT(store_tx_begin(st), 0);
	for (long s = 1; s <= 12; s++) {
		struct matcher_train_row_cell cells[2];
		memset(cells, 0, sizeof cells);
		cells[0] = (struct matcher_train_row_cell){
		        {1, 1}, 1.0, 1.0 + s / 100.0, 1, 2, s / 100.0, s / 100.0, "", s > 10};
		snprintf(cells[0].abs_text, sizeof cells[0].abs_text, "0.%02ld", s);
		cells[1] = (struct matcher_train_row_cell){{1, s != 5}, NAN, INFINITY, 3, 0,
		                                           INFINITY,    NAN, "inf",    1};
		CHECK_INT(store_comparison_step_add(st, c2, 0, s, metrics, cells, 2), 0);
	}
	CHECK_INT(store_comparison_step_add(st, c2, 1, 1, metrics, NULL, 0), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_comparison_step_add(st, c2, 1, 1, metrics, NULL, 0), STORE_DUPLICATE);
	struct store_step_page sp;
	CHECK_INT(store_comparison_steps_list(st, c2, 0, 5, NULL, &sp), 0);
	CHECK_INT(sp.n_rows, 5);
	CHECK_STR(sp.next_cursor, "t0.5");
	if (sp.n_rows == 5) {
		const struct store_step_row *r = &sp.rows[4];
		CHECK_INT(r->step, 5);
		CHECK_INT(r->rank, 0);
		CHECK_INT(r->n_cells, 2);
		if (r->n_cells == 2) {
			CHECK_STR(r->metrics[0], "loss");
			CHECK_STR(r->metrics[1], "grad_norm");
			CHECK(r->cells[0].present[0] && r->cells[0].present[1]);
			CHECK(r->cells[0].a == 1.0 && r->cells[0].b == 1.0 + 5 / 100.0);
			CHECK_INT(r->cells[0].dec_a, 1);
			CHECK_INT(r->cells[0].dec_b, 2);
			CHECK(r->cells[0].abs == 5 / 100.0 && r->cells[0].rel == 5 / 100.0);
			CHECK_STR(r->cells[0].abs_text, "0.05");
			CHECK_INT(r->cells[0].over, 0);
			CHECK(isnan(r->cells[1].a));
			CHECK_INT(r->cells[1].dec_a, 3);
			CHECK_INT(r->cells[1].present[1], 0); /* step 5: b absent */
			CHECK_INT(r->cells[1].over, 1);
		}
		CHECK(isinf(sp.rows[0].cells[1].b) && sp.rows[0].cells[1].b > 0);
		CHECK(isinf(sp.rows[0].cells[1].abs) && isnan(sp.rows[0].cells[1].rel));
		CHECK_STR(sp.rows[0].cells[1].abs_text, "inf");
	}
	char cur2[64];
	snprintf(cur2, sizeof cur2, "%s", sp.next_cursor);
	store_step_page_free(&sp);
	CHECK_INT(store_comparison_steps_list(st, c2, 0, 100, cur2, &sp), 0);
	CHECK_INT(sp.n_rows, 7);
	CHECK_STR(sp.next_cursor, "");
	CHECK_INT(sp.n_rows ? sp.rows[6].n_cells : 0, 2);
	store_step_page_free(&sp);
	CHECK_INT(store_comparison_steps_list(st, c2, -1, 100, NULL, &sp), 0);
	CHECK_INT(sp.n_rows, 13);
	CHECK_INT(sp.n_rows == 13 ? sp.rows[12].n_cells : 99, 0);
	store_step_page_free(&sp);
	CHECK_INT(store_comparison_steps_list(st, c2, -1, 100, "x", &sp), STORE_BAD_CURSOR);
	store_step_page_free(&sp);
	/* many steps in one call (PostgreSQL: batches of ~8k cells, so 3000
	 * steps of 3 cells take two): every cell read back as stored, names
	 * with quotes, backslashes and commas kept */
	{
		enum { NS = 3000, NM = 3 };
		/* a 2 KB name too: 6 MB of literals, more than a batch's 4 MiB */
		static char long_name[2048];
		memset(long_name, 'n', sizeof long_name - 1);
		memcpy(long_name, "{x}", 3);
		const char *names[NM] = {"loss", "a \"b\", c\\d", long_name};
		long *steps = malloc(NS * sizeof *steps);
		struct matcher_train_row_cell *cells = calloc(NS * NM, sizeof *cells);
		CHECK(steps && cells);
		for (long i = 0; steps && cells && i < NS; i++) {
			steps[i] = 10 * i + 7;
			for (int k = 0; k < NM; k++) {
				struct matcher_train_row_cell *c = &cells[i * NM + k];
				c->present[0] = 1;
				c->present[1] = k != 2 || i % 3;
				c->a = i + k / 8.0;
				c->b = i % 7 == 0 ? NAN : -(double)i;
				c->dec_a = k;
				c->dec_b = 5;
				c->abs = i % 11 == 0 ? INFINITY : i / 3.0;
				c->rel = k;
				snprintf(c->abs_text, sizeof c->abs_text, "t%ld\"%d", i, k);
				c->over = (int)(i % 2);
			}
		}
		CHECK_INT(store_tx_begin(st), 0);
		CHECK_INT(store_comparison_steps_add(st, c2, 2, steps, NS, names, cells, NM), 0);
		CHECK_INT(store_tx_commit(st), 0);
		char cur3[64] = "";
		long seen = 0, n_bad = 0;
		for (int page = 0; page < 10; page++) {
			CHECK_INT(store_comparison_steps_list(st, c2, 2, 1000,
			                                      cur3[0] ? cur3 : NULL, &sp),
			          0);
			for (size_t j = 0; j < sp.n_rows && steps && cells; j++, seen++) {
				const struct store_step_row *r = &sp.rows[j];
				n_bad += r->step != steps[seen] || r->n_cells != NM;
				for (size_t k = 0; k < r->n_cells && k < NM; k++) {
					const struct matcher_train_row_cell
					        *w = &cells[seen * NM + k],
					        *g = &r->cells[k];
					int both = w->present[0] && w->present[1];
					n_bad += strcmp(r->metrics[k], names[k]) != 0 ||
					         g->a != w->a || g->present[1] != w->present[1] ||
					         g->over != w->over || g->dec_a != w->dec_a;
					if (both)
						n_bad += (isnan(w->b) ? !isnan(g->b)
						                      : g->b != w->b) ||
						         g->abs != w->abs || g->rel != w->rel ||
						         strcmp(g->abs_text, w->abs_text) != 0;
				}
			}
			snprintf(cur3, sizeof cur3, "%s", sp.next_cursor);
			store_step_page_free(&sp);
			if (!cur3[0])
				break;
		}
		CHECK_INT(seen, NS);
		CHECK_INT(n_bad, 0);
		/* a page across three ranks: each rank's rows get their own cells */
		CHECK_INT(store_comparison_steps_list(st, c2, -1, 5, "t0.10", &sp), 0);
		CHECK_INT(sp.n_rows, 5);
		if (sp.n_rows == 5) {
			CHECK(sp.rows[1].rank == 0 && sp.rows[1].step == 12 &&
			      sp.rows[1].n_cells == 2);
			CHECK_STR(sp.rows[1].n_cells ? sp.rows[1].cells[0].abs_text : NULL, "0.12");
			CHECK(sp.rows[2].rank == 1 && sp.rows[2].n_cells == 0);
			CHECK(sp.rows[3].rank == 2 && sp.rows[3].step == 7 &&
			      sp.rows[3].n_cells == 3);
			CHECK(sp.rows[4].step == 17 && sp.rows[4].n_cells == 3 &&
			      sp.rows[4].cells[1].a == 1 + 1 / 8.0);
		}
		store_step_page_free(&sp);
		/* a step stored before: the whole call fails */
		CHECK_INT(store_comparison_steps_add(st, c2, 2, steps, 2, names, cells, NM),
		          STORE_DUPLICATE);
		free(steps);
		free(cells);
	}

	/* finish */
	CHECK_INT(store_comparison_finish(st, c1, "done", "fail",
	                                  "{\"reasons\":[\"diff_rows\"],\"summary\":{\"diff\":20}}",
	                                  NULL),
	          0);
	CHECK_INT(store_comparison_finish(st, c2, "failed", NULL, NULL, "baseline log unreadable"),
	          0);
	CHECK_INT(store_comparison_finish(st, c2, "weird", NULL, NULL, NULL), STORE_INVALID);
	CHECK_INT(store_comparison_finish(st, 6666, "done", NULL, NULL, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_comparison_get(st, c1, &cv), 0);
	CHECK_STR(cv.cmp.status, "done");
	CHECK_STR(cv.cmp.verdict, "fail");
	CHECK_STR(cv.cmp.result_json, "{\"reasons\":[\"diff_rows\"],\"summary\":{\"diff\":20}}");
	CHECK(cv.cmp.started_at != NULL);
	CHECK(cv.cmp.finished_at != NULL);
	CHECK(cv.cmp.error == NULL);
	store_comparison_view_free(&cv);
	CHECK_INT(store_comparison_get(st, c2, &cv), 0);
	CHECK_STR(cv.cmp.status, "failed");
	CHECK_STR(cv.cmp.error, "baseline log unreadable");
	CHECK_STR(cv.cmp.kind, "training");
	store_comparison_view_free(&cv);
	CHECK_INT(store_comparison_get(st, 4444, &cv), STORE_NOT_FOUND);
	store_comparison_view_free(&cv);

	/* list newest first, paged, without results */
	struct store_comparison_page cp;
	CHECK_INT(store_comparisons_list(st, 2, NULL, &cp), 0);
	CHECK_INT(cp.n_cmps, 2);
	CHECK_INT(cp.n_cmps ? cp.cmps[0].id : 0, c3);
	CHECK(cp.n_cmps && cp.cmps[1].result_json == NULL);
	CHECK_STR(cp.n_cmps == 2 ? cp.cmps[1].error : NULL, "baseline log unreadable");
	snprintf(cur2, sizeof cur2, "%s", cp.next_cursor);
	CHECK(cur2[0] != 0);
	store_comparison_page_free(&cp);
	CHECK_INT(store_comparisons_list(st, 2, cur2, &cp), 0);
	CHECK_INT(cp.n_cmps, 1);
	CHECK_STR(cp.next_cursor, "");
	store_comparison_page_free(&cp);
	CHECK_INT(store_comparisons_list(st, 2, "r1", &cp), STORE_BAD_CURSOR);
	store_comparison_page_free(&cp);

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
	if (pg)
		test_leases();
	storetest_cleanup("cmp");
	return check_report();
}
