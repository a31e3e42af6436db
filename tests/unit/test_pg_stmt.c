/* test_pg_stmt.c - the statement layer (store/stmt.h) on PostgreSQL: the
 * checks of stmtcheck.h (test_store_stmt.c runs them on SQLite) on a
 * fresh database of the PARITY_TEST_DB server, plus what only
 * PostgreSQL has: a lost connection is an error, not a crash. */
#include "actview.h"
#include "pgtest.h"
#include "stmtcheck.h"

/* load.c replay callbacks: count, keep the first record / warning */
struct replay {
	int n;
	long step0;
	unsigned long line0;
	size_t n_metrics0;
	double v0, v1;
	char code1[32];
};

static int replay_step(void *ctx, const struct matcher_step_record *r)
{
	struct replay *p = ctx;
	if (p->n++ == 0) {
		p->step0 = r->step;
		p->line0 = r->line;
		p->n_metrics0 = r->n_metrics;
		p->v0 = r->n_metrics > 0 ? r->metrics[0].value : 0;
		p->v1 = r->n_metrics > 1 ? r->metrics[1].value : 0;
	}
	return 0;
}

static int replay_warning(void *ctx, const struct matcher_warning *w)
{
	struct replay *p = ctx;
	if (p->n++ == 1)
		snprintf(p->code1, sizeof p->code1, "%s", w->code);
	return 0;
}

struct prof {
	int n;
	int64_t idx[4];
	double dist[4];
};

static int prof_cb(void *ctx, int64_t idx, const char *status, const char *phase, double d)
{
	struct prof *p = ctx;
	if (p->n < 4) {
		p->idx[p->n] = idx;
		p->dist[p->n++] = d;
	}
	return 0;
}

/* The store files converted to the layer, on the migrated schema: their
 * verbs behave as the SQLite tests (test_delivery_auth.c, test_store_*) expect. */
static void converted_modules(struct store *st, const char *url)
{
	int n = -1;
	CHECK(store_pg_migrate(st->pg, &n) == 0 && n > 0);
	/* auth.c */
	const char *h1 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	const char *h2 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
	int64_t id1 = 0, id2 = 0;
	CHECK(store_token_create(st, "ci", h1, &id1) == 0 && id1 > 0);
	CHECK(store_token_create(st, "dev", h2, &id2) == 0 && id2 > id1);
	CHECK(store_token_create(st, "ci", h2, NULL) == STORE_DUPLICATE);
	CHECK(strstr(store_errmsg(st), "names are never reused") != NULL);
	char hex[65], name[32];
	int revoked = -1, active = -1;
	CHECK(store_token_find(st, h2, hex, name, sizeof name, &revoked) == 0);
	CHECK_STR(hex, h2);
	CHECK_STR(name, "dev");
	CHECK(revoked == 0);
	CHECK(store_tokens_active(st, &active) == 0 && active == 2);
	CHECK(store_token_revoke(st, "dev") == 0);
	CHECK(store_token_revoke(st, "nobody") == STORE_NOT_FOUND);
	CHECK(store_token_find(st, h2, hex, name, sizeof name, &revoked) == 0 && revoked == 1);
	CHECK(store_tokens_active(st, &active) == 0 && active == 1);
	struct store_token_list tl;
	CHECK(store_tokens_list(st, &tl) == 0 && tl.n_tokens == 2);
	if (tl.n_tokens == 2) {
		CHECK(tl.tokens[0].id == id1 && tl.tokens[0].revoked_at == NULL);
		CHECK_STR(tl.tokens[1].name, "dev");
		/* RFC 3339 UTC with whole seconds, as SQLite's strftime writes it */
		CHECK(tl.tokens[1].revoked_at && strlen(tl.tokens[1].revoked_at) == 20 &&
		      tl.tokens[1].revoked_at[10] == 'T' && tl.tokens[1].revoked_at[19] == 'Z');
	}
	store_token_list_free(&tl);
	/* sources.c */
	CHECK(pgtest_exec(url, "INSERT INTO runs(id, name, kind, created_at) VALUES "
	                       "(1, 'r', 'training', 'x'); INSERT INTO logs(id, run_id, rank, "
	                       "bytes, sha256) VALUES (7, 1, 0, 123, 's')") == 0);
	char src[16];
	CHECK(store_log_source(st, 7, src, sizeof src) == 0);
	CHECK_STR(src, "stdout");
	CHECK(store_log_set_source(st, 7, "tfevents") == 0);
	CHECK(store_log_source(st, 7, src, sizeof src) == 0);
	CHECK_STR(src, "tfevents");
	CHECK(store_log_set_source(st, 8, "tfevents") == STORE_NOT_FOUND);
	CHECK(store_log_source(st, 8, src, sizeof src) == STORE_NOT_FOUND);
	/* metrics.c (the comparison rows come raw: their writer is not converted) */
	struct store_metrics m;
	CHECK(store_metrics(st, &m) == 0);
	CHECK(m.raw_bytes == 123 && m.comparisons.n == 0 && m.deliveries.n == 0);
	CHECK(pgtest_exec(url,
	                  "INSERT INTO comparisons(id, kind, status, baseline_id, "
	                  "candidate_id, policy, created_at) VALUES (5, 'training', 'done', 1, "
	                  "1, '{}', 'x'); INSERT INTO comparison_rows(comparison_id, rank, idx, "
	                  "status, phase, origin, shape_differs, out_dist, in_dist) VALUES (5, 0, "
	                  "0, 2, 1, 0, 0, 0.5, 2.5), "
	                  "(5, 0, 1, 0, 0, 0, 0, NULL, NULL), (5, 0, 2, 1, 0, 0, 0, NULL, NULL)") ==
	      0);
	CHECK(store_metrics(st, &m) == 0);
	CHECK(m.comparisons.n == 1 && strcmp(m.comparisons.v[0].label, "done") == 0 &&
	      m.comparisons.v[0].n == 1);
	CHECK(m.verdicts.n == 1 && strcmp(m.verdicts.v[0].label, "none") == 0);
	struct prof p = {0};
	CHECK(store_comparison_profile_foreach(st, 5, 0, prof_cb, &p) == 0);
	CHECK(p.n == 2 && p.idx[0] == 0 && p.dist[0] == 2.5 && p.idx[1] == 2 && p.dist[1] == -1);
	/* retention.c: comparison 5 and run 1 were created at 'x', before 'y' */
	int64_t *cmps = NULL, *runs = NULL, bytes = -1, born = -1, stored = 0;
	size_t n_cmps = 0, n_runs = 0;
	CHECK(store_gc_candidates(st, "y", &cmps, &n_cmps, &runs, &n_runs) == 0);
	CHECK(n_cmps == 1 && cmps[0] == 5 && n_runs == 1 && runs[0] == 1);
	free(cmps);
	free(runs);
	CHECK(store_gc_candidates(st, "a", &cmps, &n_cmps, &runs, &n_runs) == 0);
	CHECK(n_cmps == 0 && n_runs == 0);
	free(cmps);
	free(runs);
	CHECK(store_run_raw_bytes(st, 1, &bytes) == 0 && bytes == 123);
	CHECK(store_run_raw_bytes(st, 2, &bytes) == 0 && bytes == 0);
	CHECK(store_raw_clock(st, &born, &stored) == 0 && born > 0 && stored == -1);
	CHECK(store_raw_clock_stored(st, 5000) == 0 && store_raw_clock_stored(st, 4000) == 0);
	CHECK(store_raw_clock(st, &born, &stored) == 0 && stored == 5000);

	/* steps.c: new, a copy, a replacement; NaN stored as NULL */
	struct matcher_metric_value mv[2] = {{"loss", "2.50", 2.5, 2, 0}, {"lr", "nan", NAN, 0, 0}};
	struct matcher_step_record rec = {0, 10, 0, 3, MATCHER_STEP_NEW, mv, 2};
	CHECK(store_step_add(st, 7, &rec) == 0);
	rec.kind = MATCHER_STEP_COPY;
	CHECK(store_step_add(st, 7, &rec) == 0);
	rec.kind = MATCHER_STEP_REPLACE;
	rec.line = 9;
	mv[0].value = 1.25;
	CHECK(store_step_add(st, 7, &rec) == 0);
	rec.kind = MATCHER_STEP_NEW; /* a NEW of a known step replaces it */
	rec.step = 20;
	CHECK(store_step_add(st, 7, &rec) == 0);
	CHECK(store_step_add(st, 7, &rec) == 0);
	CHECK(pgtest_num(url, "SELECT count(*) FROM steps") == 2);
	CHECK(pgtest_num(url, "SELECT copies * 100 + line FROM steps WHERE step = 10") == 109);
	CHECK(pgtest_num(url, "SELECT count(*) FROM step_metrics") == 4);
	CHECK(pgtest_num(url, "SELECT count(*) FROM step_metrics WHERE value IS NULL") == 2);
	CHECK(pgtest_num(url, "SELECT value * 100 FROM step_metrics m JOIN steps s ON "
	                      "s.id = m.step_id WHERE s.step = 10 AND pos = 0") == 125);
	CHECK(store_step_add(st, 99, &rec) == STORE_NOT_FOUND); /* no such log */

	/* load.c: the replay (streamed) of those steps, of warnings and of
	 * entries (rows written raw: their writers are other files) */
	struct replay rp = {0};
	CHECK(store_steps_foreach(st, 7, replay_step, &rp) == 0);
	CHECK(rp.n == 2 && rp.step0 == 10 && rp.line0 == 9 && rp.n_metrics0 == 2);
	CHECK(rp.v0 == 1.25 && isnan(rp.v1));
	CHECK(store_steps_foreach(st, 99, replay_step, &rp) == STORE_NOT_FOUND);
	CHECK(pgtest_exec(url,
	                  "INSERT INTO warnings(log_id, code, line, message, excerpt) "
	                  "VALUES (7, 'bad_number', 3, 'm', 'x'), (7, 'odd', 4, 'm2', '')") == 0);
	memset(&rp, 0, sizeof rp);
	CHECK(store_warnings_foreach(st, 7, replay_warning, &rp) == 0);
	CHECK(rp.n == 2 && strcmp(rp.code1, "odd") == 0);
	CHECK(pgtest_exec(url, "UPDATE logs SET header_total = 2, n_items = 2, n_lines = 40 "
	                       "WHERE id = 7; INSERT INTO entries(log_id, ord, line, key, phase, "
	                       "l2_text, stat_isnum, output_hash) VALUES "
	                       "(7, 1, 20, 'm.b/op_1_add', 1, '2.5e+00', 4, NULL), "
	                       "(7, 0, 10, 'm.a/op_0_mm', 0, 'x', 0, 'h')") == 0);
	struct matcher_actlog *alog = NULL;
	CHECK(store_actlog_load(st, 7, &alog) == 0);
	if (alog) {
		CHECK(alog->n_entries == 2 && alog->header_total == 2 &&
		      alog->summary.n_lines == 40 && alog->n_warnings == 2);
		if (alog->n_entries == 2) {
			CHECK_STR(ENTRY(alog, 0)->key, "m.a/op_0_mm");
			CHECK(ENTRY(alog, 0)->phase == MATCHER_FORWARD);
			CHECK(ENTRY(alog, 0)->stat_isnum == 0);
			CHECK_STR(ENTRY(alog, 0)->output_hash, "h");
			CHECK(ENTRY(alog, 1)->line == 20 &&
			      ENTRY(alog, 1)->phase == MATCHER_BACKWARD);
			CHECK(ENTRY(alog, 1)->stat_isnum == 4 &&
			      ENTRY(alog, 1)->stat_num[MATCHER_STAT_L2] == 2.5);
			CHECK(ENTRY(alog, 1)->output_hash == NULL);
		}
	}
	matcher_actlog_free(alog);
	CHECK(store_actlog_load(st, 99, &alog) == STORE_NOT_FOUND && alog == NULL);

	/* webhooks.c: hooks, deliveries, claims, attempts (comparison 5) */
	int64_t hook = 0, other = 0, dv = 0, due = 0;
	CHECK(store_webhook_create(st, "http://h/x", "s3cret", "[\"comparison.done\"]", "generic",
	                           NULL, NULL, &hook) == 0 &&
	      hook > 0);
	CHECK(store_webhook_create(st, "http://h/y", NULL, "[\"comparison.done.x\"]", "generic",
	                           "tok", NULL, &other) == 0 &&
	      other > hook);
	struct store_webhook *hooks = NULL;
	size_t n_hooks = 0;
	CHECK(store_webhooks_for_event(st, "comparison.done", &hooks, &n_hooks) == 0);
	CHECK(n_hooks == 1 && hooks[0].id == hook && strcmp(hooks[0].secret, "s3cret") == 0);
	store_webhooks_free(hooks, n_hooks);
	struct store_webhook_view hv;
	CHECK(store_webhook_get(st, other, &hv) == 0 && hv.hook.has_token && !hv.hook.has_secret &&
	      hv.hook.n_events == 1);
	store_webhook_view_free(&hv);
	struct store_webhook_page hp;
	CHECK(store_webhooks_list(st, 1, NULL, &hp) == 0 && hp.n_hooks == 1 &&
	      hp.hooks[0].id == hook && hp.next_cursor[0] == 'h');
	store_webhook_page_free(&hp);
	CHECK(store_delivery_create(st, hook, 5, "comparison.done", 1000, &dv) == 0 && dv > 0);
	CHECK(store_delivery_create(st, 4242, 5, "comparison.done", 1000, &due) == STORE_NOT_FOUND);
	CHECK(store_delivery_set_body(st, dv, "http://h/x", "{}") == 0);
	CHECK(store_delivery_next_due(st, &due) == 0 && due == 1000);
	struct store_delivery d;
	CHECK(store_delivery_claim(st, 500, 100, &d) == STORE_NOT_FOUND); /* not due yet */
	store_delivery_free(&d);
	CHECK(store_delivery_claim(st, 2000, 100, &d) == 0 && d.id == dv &&
	      strcmp(d.secret, "s3cret") == 0);
	store_delivery_free(&d);
	CHECK(store_delivery_next_due(st, &due) == 0 && due == 2100); /* the lease */
	CHECK(store_delivery_record(st, dv, 500, "HTTP 500", 12, "pending", 9000) == 0);
	struct store_delivery_page dp;
	CHECK(store_deliveries_list(st, hook, 10, NULL, &dp) == 0 && dp.n_deliveries == 1);
	if (dp.n_deliveries == 1) {
		CHECK_STR(dp.deliveries[0].next_attempt_at, "1970-01-01T00:00:09.000Z");
		CHECK(dp.deliveries[0].attempts == 1 && dp.deliveries[0].n_attempt_log == 1);
		CHECK(dp.deliveries[0].n_attempt_log == 1 &&
		      dp.deliveries[0].attempt_log[0].http_status == 500 &&
		      strlen(dp.deliveries[0].attempt_log[0].at) == 24);
	}
	store_delivery_page_free(&dp);
	CHECK(store_delivery_claim(st, 9000, 100, &d) == 0);
	store_delivery_free(&d);
	int released = -1;
	CHECK(store_deliveries_release_all(st, &released) == 0 && released == 1);
	CHECK(store_delivery_release(st, dv) == 0);
	CHECK(store_delivery_give_up(st, dv, "enough") == 0);
	CHECK(store_delivery_next_due(st, &due) == STORE_NOT_FOUND);
	CHECK(store_webhook_delete(st, hook) == 0);
	CHECK(store_webhook_delete(st, hook) == STORE_NOT_FOUND);
	CHECK(pgtest_num(url, "SELECT count(*) FROM webhook_deliveries") == 0);

	/* db.c transactions: rollback leaves nothing, commit keeps, a nested
	 * store_tx_auto does not own, a failed statement fails the COMMIT */
	const char *h3 = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc";
	int owned = -1;
	CHECK(store_tx_begin(st) == 0);
	CHECK(store_tx_auto(st, &owned) == 0 && owned == 0);
	CHECK(store_token_create(st, "t3", h3, NULL) == 0);
	CHECK(store_tx_rollback(st) == 0);
	CHECK(store_token_find(st, h3, hex, NULL, 0, NULL) == STORE_NOT_FOUND);
	CHECK(store_tx_auto(st, &owned) == 0 && owned == 1);
	CHECK(store_token_create(st, "t3", h3, NULL) == 0);
	CHECK(store_tx_end_owned(st, owned, 0) == 0);
	CHECK(store_token_find(st, h3, hex, NULL, 0, NULL) == 0);
	CHECK(store_tx_begin_bulk(st) == 0);
	CHECK(store_token_create(st, "t3", h1, NULL) == STORE_DUPLICATE);
	CHECK(store_tx_commit(st) == STORE_ERROR);
	CHECK(strncmp(store_errmsg(st), "commit: ", 8) == 0);
	CHECK(store_tx_rollback(st) == 0); /* nothing open any more */
	CHECK(store_tokens_active(st, &active) == 0 && active == 2);
}

int main(void)
{
	const char *base = pgtest_base_url();
	char url[512], err[512];
	if (pgtest_fresh_db(base, "stmt", url, sizeof url) < 0)
		return 1;
	struct store *st = NULL;
	CHECK(store_open_pg_conn(url, &st, err, sizeof err) == 0);
	if (st) {
		CHECK(st->backend == STORE_BACKEND_PG);
		stmtcheck_run(st);
		stmtcheck_stream(st);
		/* a connection of its own: stmtcheck used two slots of sources.c */
		struct store *st2 = NULL;
		CHECK(store_open_pg_conn(url, &st2, err, sizeof err) == 0);
		if (st2)
			converted_modules(st2, url);
		store_close(st2);
		/* what the layer wrote is what another connection sees */
		CHECK(pgtest_num(url, "SELECT count(*) FROM stmt_t WHERE d = 'Infinity'") == 1);
		CHECK(pgtest_num(url, "SELECT i FROM stmt_t WHERE s = 'v1'") == INT64_MIN);
		/* the server ends the connection: a step fails with a message */
		pgtest_drop_db(base, "stmt");
		struct store_q *q = store_prep(st, "SELECT 1");
		int rc = q ? store_q_step(q) : STORE_ERROR;
		store_q_done(q);
		CHECK(rc == STORE_ERROR);
		CHECK(store_errmsg(st)[0] != 0);
	}
	store_close(st);
	pgtest_drop_db(base, "stmt");
	return check_report();
}
