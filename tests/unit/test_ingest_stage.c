/* test_ingest_stage.c - the insert stage of an upload (server/ingest/stage.c),
 * driven through the body sink as http drives it (srvtest.h), with the
 * Content-Length and the arrival rate of a fast client:
 *   - a fast upload: its entries go in while the body streams (the stage
 *     holds the write lock mid-body: the gauge says so), and the run reads back as the
 *     commit's own insert would store it: name, meta, rank, size, digest,
 *     counts, every entry in order; no placeholder is left;
 *   - a writer that wants the lock while the stage holds it gets it before
 *     the body ends (the stage gives way), and the upload is still stored
 *     whole by its commit;
 *   - a multipart upload whose first log is too small to start the stage
 *     and whose second log starts it: both logs staged, both whole;
 *   - a body that arrives slowly gets no stage; an upload dropped mid-body
 *     stores nothing and leaves the lock free. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "ingest.h"
#include "srvtest.h"

#define N_OPS 24000 /* ~3.5 MB of log: many spool flushes */

/* An activation log of n_ops ops, malloc'd, its length in *n. */
static char *make_log(int n_ops, size_t *n)
{
	size_t cap = (size_t)n_ops * 400 + 256, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
	                        "Total captured activations: %d\n"
	                        "Excluded ops dispatched: view\n"
	                        "==========\n\n",
	                        n_ops);
	for (int i = 0; i < n_ops; i++)
		len += (size_t)snprintf(s + len, cap - len,
		                        "[model.layers.%d/op_%d_add]\n"
		                        "  Shape: torch.Size([2, 512]), Dtype: torch.float32\n"
		                        "  L2 norm: %d.250000e+00\n"
		                        "  Min: -1.5e+00\n  Max: 2.5e+00\n  Mean: 1.0e-03\n"
		                        "  Output hash: %d.0e+02\n"
		                        "  Location: model.py:%d\n\n",
		                        i / 8, i % 8, i % 97, i, i % 400);
	*n = len;
	return s;
}

static int64_t metric(struct srvtest *t, int staged)
{
	return (int64_t)atomic_load(staged ? &t->srv.metrics.ingest_staged
	                                   : &t->srv.metrics.ingest_stage_fallbacks);
}

/* 1 when another connection holds SQLite's write lock (asked of a
 * connection of its own, outside the pool: it never counts as a waiter). */
static int lock_held(struct srvtest *t)
{
	struct store *db;
	char err[256];
	if (store_open_existing(t->srv.db.path, &db, err, sizeof err) < 0)
		return -1;
	int rc = store_tx_try_begin_bulk(db);
	if (rc == 0)
		store_tx_rollback(db);
	store_close(db);
	return rc == STORE_BUSY;
}

/* A pooled writer: waits for the lock, writes nothing, lets go. */
struct writer {
	struct srvtest *t;
	int rc;
	volatile int done;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct store *db = srv_db_acquire(&w->t->srv);
	w->rc = db ? store_tx_begin(db) : -1;
	if (w->rc == 0)
		w->rc = store_tx_commit(db);
	srv_db_release(&w->t->srv, db);
	w->done = 1;
	return NULL;
}

enum mode { FAST, GIVE_WAY, SLOW, DROP };

/* POST /runs?name=NAME&rank=3&meta=... of log (n bytes) in 64 KiB chunks
 * as a client of this machine sends it (mode SLOW: one that started long
 * ago).  GIVE_WAY: once the stage holds the lock, a pooled writer asks for
 * it; *writer_first = 1 when it got it before the last chunk.  DROP: freed
 * after half the body.  The run id, 0 when none. */
static int64_t upload(struct srvtest *t, const char *log, size_t n, const char *name,
                      enum mode mode, int *writer_first)
{
	char cl[32];
	snprintf(cl, sizeof cl, "%zu", n);
	const char *const headers[] = {"Content-Type", "text/plain", "Content-Length", cl, NULL};
	const char *const query[] = {"name", name, "rank", "3", "meta", "{\"lr\":\"0.1\"}", NULL};
	struct srv_capture c;
	memset(&c, 0, sizeof c);
	struct srv_req r;
	srvtest_req_init(t, &r, "POST", "/runs", query, headers, &c);
	r.start_us = srv_now_ms() * 1000 - 60 * 1000000; /* SLOW: a minute for 3.5 MB */
	unsigned status = 0;
	json_t *err = NULL;
	int64_t id = 0;
	struct writer w = {t, 0, 0};
	pthread_t th;
	int writing = 0;
	void *u = srv_upload_sink.open(&r, &status, &err);
	CHECK(u != NULL);
	for (size_t off = 0; u && off < n && !err; off += 65536) {
		size_t k = n - off < 65536 ? n - off : 65536;
		if (mode == DROP && off > n / 2)
			break;
		if (mode == GIVE_WAY && !writing &&
		    atomic_load(&t->srv.metrics.ingest_stage_holding) == 1) {
			CHECK(pthread_create(&th, NULL, writer_main, &w) == 0);
			writing = 1;
		}
		if (writing && off + k >= n && writer_first)
			*writer_first = w.done;
		r.body_bytes += k;
		if (mode != SLOW) /* as fast as the stage asks, however loaded the machine */
			r.start_us = srv_now_ms() * 1000;
		srv_upload_sink.feed(u, log + off, k, &status, &err);
		if (writing && !w.done) { /* give the writer its turn */
			struct timespec ms = {0, 1000000};
			nanosleep(&ms, NULL);
		}
	}
	CHECK(err == NULL);
	if (mode == GIVE_WAY)
		CHECK(writing); /* the stage held the lock mid-body */
	if (mode != DROP && u && !err) {
		if (srv_upload_commit(u, &id, &status, &err) < 0) {
			fprintf(stderr, "commit: %u %s\n", status, json_dumps(err, 0));
			id = 0;
		}
	}
	json_decref(err);
	srv_upload_sink.free(u);
	if (writing) {
		pthread_join(th, NULL);
		CHECK_INT(w.rc, 0);
	}
	if (r.db)
		srv_db_release(&t->srv, r.db);
	srv_capture_reset(&c);
	return id;
}

/* Log i of run v is whole: rank, size, digest, header, entries in order. */
static void check_log(struct store *db, const struct store_run_view *v, size_t i, int rank,
                      const char *sha, size_t n, int n_ops)
{
	CHECK(v->run.n_logs > i);
	if (v->run.n_logs <= i)
		return;
	const struct store_log_view *l = &v->run.logs[i];
	CHECK_INT(l->rank, rank);
	CHECK_INT(l->bytes, (int64_t)n);
	CHECK_STR(l->sha256, sha);
	CHECK_INT(l->n_items, n_ops);
	CHECK_INT(l->has_header_total, 1);
	CHECK_INT(l->header_total, n_ops);
	CHECK_INT(l->n_excluded, 1);
	int64_t *ids = NULL;
	size_t n_ids = 0;
	CHECK(store_log_entry_ids(db, l->id, &ids, &n_ids) == 0);
	CHECK_INT(n_ids, n_ops);
	int in_order = 1;
	for (size_t k = 1; k < n_ids; k++)
		in_order &= ids[k] > ids[k - 1];
	CHECK(in_order);
	free(ids);
}

/* The run reads back whole: fields, its one log. */
static void check_run(struct srvtest *t, int64_t id, const char *name, const char *sha, size_t n)
{
	struct store *db = srv_db_acquire(&t->srv);
	struct store_run_view v;
	CHECK(store_run_get(db, id, &v) == 0);
	CHECK_STR(v.run.name, name);
	CHECK_STR(v.run.kind, "activation");
	CHECK_STR(v.run.meta_json ? v.run.meta_json : "(null)", "{\"lr\":\"0.1\"}");
	CHECK_INT(v.run.n_logs, 1);
	check_log(db, &v, 0, 3, sha, n, N_OPS);
	store_run_view_free(&v);
	srv_db_release(&t->srv, db);
}

/* A multipart upload as the post processor hands it over: a small log
 * (rank 0), a large one (rank 1), then the name.  The run id, 0 if none. */
static int64_t upload_two(struct srvtest *t, const char *small, size_t n_small, const char *big,
                          size_t n_big)
{
	char cl[32];
	snprintf(cl, sizeof cl, "%zu", n_small + n_big + 1000);
	const char *const headers[] = {"Content-Length", cl, NULL};
	struct srv_capture c;
	memset(&c, 0, sizeof c);
	struct srv_req r;
	srvtest_req_init(t, &r, "POST", "/runs", NULL, headers, &c);
	unsigned status = 0;
	json_t *err = NULL;
	int64_t id = 0;
	struct upload *u = srv_upload_start(&t->srv, &r, 1, NULL, &status, &err);
	CHECK(u != NULL);
	const char *logs[2] = {small, big}, *names[2] = {"rank_0.log", "rank_1.log"};
	size_t sizes[2] = {n_small, n_big};
	int rc = 0;
	for (int j = 0; j < 2; j++)
		for (size_t off = 0; u && off < sizes[j] && rc == 0; off += 65536) {
			size_t k = sizes[j] - off < 65536 ? sizes[j] - off : 65536;
			r.body_bytes += k;
			r.start_us = srv_now_ms() * 1000;
			rc = srv_upload_form_data(u, "log", names[j], logs[j] + off, off, k);
		}
	if (u && rc == 0)
		rc = srv_upload_form_data(u, "name", NULL, "two", 0, 3);
	CHECK_INT(rc, 0);
	if (u && rc == 0 && srv_upload_commit(u, &id, &status, &err) < 0)
		id = 0;
	json_decref(err);
	srv_upload_free(u);
	if (r.db)
		srv_db_release(&t->srv, r.db);
	srv_capture_reset(&c);
	return id;
}

static int64_t n_runs(struct srvtest *t)
{
	struct store *db = srv_db_acquire(&t->srv);
	struct store_run_page p;
	int64_t n = store_runs_list(db, NULL, NULL, 100, NULL, &p) == 0 ? (int64_t)p.n_runs : -1;
	store_run_page_free(&p);
	srv_db_release(&t->srv, db);
	return n;
}

int main(void)
{
	struct srvtest t;
	CHECK(srvtest_open(&t, NULL) == 0);
	CHECK(srvtest_ingest_dirs(&t) == 0);
	size_t n;
	char *log = make_log(N_OPS, &n);
	char sha[65];
	CHECK(srv_sha256_hex(log, n, sha) == 0);

	/* fast: staged, and stored as the commit would store it */
	int64_t id = upload(&t, log, n, "fast", FAST, NULL);
	CHECK(id > 0);
	CHECK_INT(metric(&t, 1), 1);
	CHECK_INT(metric(&t, 0), 0);
	check_run(&t, id, "fast", sha, n);

	/* a writer waiting for the lock: the stage gives way before the body
	 * ends, the commit stores the upload */
	int writer_first = 0;
	id = upload(&t, log, n, "gave way", GIVE_WAY, &writer_first);
	CHECK(id > 0);
	CHECK(writer_first);
	CHECK_INT(metric(&t, 1), 1);
	CHECK_INT(metric(&t, 0), 1);
	check_run(&t, id, "gave way", sha, n);

	/* two logs, the stage started by the second one: both staged */
	size_t n_small;
	char *small = make_log(40, &n_small);
	char sha_small[65];
	CHECK(srv_sha256_hex(small, n_small, sha_small) == 0);
	id = upload_two(&t, small, n_small, log, n);
	CHECK(id > 0);
	CHECK_INT(metric(&t, 1), 2);
	CHECK_INT(metric(&t, 0), 1);
	struct store *db = srv_db_acquire(&t.srv);
	struct store_run_view v;
	CHECK(store_run_get(db, id, &v) == 0);
	CHECK_STR(v.run.name, "two");
	CHECK_INT(v.run.n_logs, 2);
	check_log(db, &v, 0, 0, sha_small, n_small, 40);
	check_log(db, &v, 1, 1, sha, n, N_OPS);
	store_run_view_free(&v);
	srv_db_release(&t.srv, db);
	free(small);

	/* slow: no stage at all */
	id = upload(&t, log, n, "slow", SLOW, NULL);
	CHECK(id > 0);
	CHECK_INT(metric(&t, 1), 2);
	CHECK_INT(metric(&t, 0), 1);
	check_run(&t, id, "slow", sha, n);

	/* dropped mid-body: nothing stored, the lock free again */
	CHECK_INT(upload(&t, log, n, "dropped", DROP, NULL), 0);
	CHECK_INT(n_runs(&t), 4);
	CHECK_INT(lock_held(&t), 0);

	free(log);
	srvtest_close(&t);
	return check_report();
}
