/* test_store_baselines.c - golden baselines and suites in the store
 * (issue 16) on a fresh database: name and label rules; set creates and
 * moves a baseline, each change in the history with token name (NULL =
 * open), note and promoting comparison; current run; unknown names; runs
 * a baseline names cannot be deleted; list paging by count with cursors;
 * comparisons labelled with baseline name / suite / config / suite_size
 * read back; the suite view (latest comparison per config, pending count,
 * expected configs), the list of suites (issue 25) and the comparisons
 * made against a baseline name;
 * promotion only from the current run (a stale one changes nothing).
 * Two connections: a set of one name waits for another's open
 * transaction and both changes are kept in order; a run delete waits for
 * an open set that names the run and then refuses (the lock, not a lost
 * check); of two promotions of one name from one run the second waits
 * and changes nothing (compare-and-swap, issue 23); of two finishers of a suite's last comparisons
 * the second counts after the first committed and sees none pending.  On SQLite and PostgreSQL
 * (storetest.h). (Their JSON and the suite verdict: test_web_views.c.) */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

static char target[512];

static void test_names(void)
{
	CHECK_INT(store_baseline_name_ok("main/llama3-8b-fsdp"), 1);
	CHECK_INT(store_baseline_name_ok("a"), 1);
	CHECK_INT(store_baseline_name_ok("a/b.c/d_e"), 1);
	CHECK_INT(store_baseline_name_ok(""), 0);
	CHECK_INT(store_baseline_name_ok(NULL), 0);
	CHECK_INT(store_baseline_name_ok("/a"), 0);
	CHECK_INT(store_baseline_name_ok("a/"), 0);
	CHECK_INT(store_baseline_name_ok("a//b"), 0);
	CHECK_INT(store_baseline_name_ok(".a"), 0);
	CHECK_INT(store_baseline_name_ok("a/.b"), 0);
	CHECK_INT(store_baseline_name_ok("a b"), 0);
	CHECK_INT(store_baseline_name_ok("a?b"), 0);
	CHECK_INT(store_baseline_name_ok("caf\xc3\xa9"), 0);
	char longname[STORE_BASELINE_NAME_MAX + 2];
	memset(longname, 'x', sizeof longname);
	longname[STORE_BASELINE_NAME_MAX] = 0;
	CHECK_INT(store_baseline_name_ok(longname), 1);
	longname[STORE_BASELINE_NAME_MAX] = 'x';
	longname[STORE_BASELINE_NAME_MAX + 1] = 0;
	CHECK_INT(store_baseline_name_ok(longname), 0);
	CHECK_INT(store_label_ok("pr-1"), 1);
	CHECK_INT(store_label_ok("a/b"), 0);
	CHECK_INT(store_label_ok(".x"), 0);
	CHECK_INT(store_label_ok(""), 0);
}

static int64_t run(struct store *st, const char *name)
{
	int64_t id = 0;
	CHECK_INT(store_run_create(st, name, "training", "{\"commit\":\"abc\"}", &id), 0);
	return id;
}

static void test_baselines(struct store *st)
{
	int64_t r1 = run(st, "r1"), r2 = run(st, "r2"), r3 = run(st, "r3"), cur = 0, h = 0;
	CHECK_INT(store_baseline_set(st, "a//b", r1, NULL, NULL, 0, NULL), STORE_INVALID);
	CHECK_INT(store_baseline_set(st, "main/x", 99999, NULL, NULL, 0, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_baseline_current(st, "main/x", &cur), STORE_NOT_FOUND);
	CHECK_INT(store_baseline_set(st, "main/x", r1, NULL, "first", 0, &h), 0);
	CHECK(h > 0);
	CHECK_INT(store_baseline_set(st, "main/x", r2, "ci-bot", NULL, 7, NULL), 0);
	CHECK_INT(store_baseline_set(st, "other", r3, NULL, NULL, 0, NULL), 0);
	char big[2100];
	memset(big, 'n', sizeof big - 1);
	big[sizeof big - 1] = 0;
	CHECK_INT(store_baseline_set(st, "main/x", r3, NULL, big, 0, NULL), STORE_INVALID);
	CHECK_INT(store_baseline_current(st, "main/x", &cur), 0);
	CHECK_INT(cur, r2);

	struct store_baseline_view v;
	CHECK_INT(store_baseline_get(st, "main/x", &v), 0);
	CHECK_STR(v.b.name, "main/x");
	CHECK_INT(v.b.run_id, r2);
	CHECK(v.b.run != NULL && !strcmp(v.b.run->name, "r2"));
	CHECK_INT(v.b.n_changes, 2);
	CHECK_INT(v.b.n_history, 2);
	if (v.b.n_history == 2) {
		CHECK_INT(v.b.history[0].run_id, r1);
		CHECK(v.b.history[0].token_name == NULL);
		CHECK_STR(v.b.history[0].note, "first");
		CHECK_INT(v.b.history[0].comparison_id, 0);
		CHECK_INT(v.b.history[1].run_id, r2);
		CHECK_STR(v.b.history[1].token_name, "ci-bot");
		CHECK_STR(v.b.history[1].note, "");
		CHECK_INT(v.b.history[1].comparison_id, 7);
	}
	store_baseline_view_free(&v);
	CHECK_INT(store_baseline_get(st, "nope", &v), STORE_NOT_FOUND);
	store_baseline_view_free(&v);

	/* runs named by a baseline or its history stay */
	char **unref = NULL;
	CHECK_INT(store_run_delete(st, r1, &unref), STORE_IN_USE);
	CHECK(strstr(store_errmsg(st), "main/x") != NULL);
	/* and parity gc keeps them (a cutoff after every run) */
	int64_t *cmp_ids = NULL, *run_ids = NULL;
	size_t n_cmp = 0, n_runs = 0;
	CHECK_INT(store_gc_candidates(st, "9999-01-01T00:00:00Z", &cmp_ids, &n_cmp, &run_ids,
	                              &n_runs),
	          0);
	for (size_t i = 0; i < n_runs; i++)
		CHECK(run_ids[i] != r1 && run_ids[i] != r2 && run_ids[i] != r3);
	CHECK(n_runs == 0);
	free(cmp_ids);
	free(run_ids);
	int64_t r4 = run(st, "r4");
	CHECK_INT(store_run_delete(st, r4, &unref), 0);
	for (size_t i = 0; unref && unref[i]; i++)
		free(unref[i]);
	free(unref);

	/* the list pages by count */
	struct store_baseline_page p;
	CHECK_INT(store_baselines_list(st, 1, NULL, &p), 0);
	CHECK_INT(p.n_baselines, 1);
	CHECK_STR(p.n_baselines ? p.baselines[0].name : NULL, "main/x");
	CHECK(p.n_baselines && p.baselines[0].history == NULL);
	char next[64];
	snprintf(next, sizeof next, "%s", p.next_cursor);
	store_baseline_page_free(&p);
	CHECK(next[0] != 0);
	CHECK_INT(store_baselines_list(st, 1, next, &p), 0);
	CHECK_INT(p.n_baselines, 1);
	CHECK_STR(p.n_baselines ? p.baselines[0].name : NULL, "other");
	CHECK_STR(p.next_cursor, "");
	store_baseline_page_free(&p);
	CHECK_INT(store_baselines_list(st, 1, "zz", &p), STORE_BAD_CURSOR);
	store_baseline_page_free(&p);
}

static int64_t labelled(struct store *st, int64_t base, int64_t cand, const char *bname,
                        const char *suite, const char *config, int size)
{
	int64_t id = 0;
	CHECK_INT(store_comparison_create(st, base, cand, "training", NULL, NULL, NULL, &id), 0);
	CHECK_INT(store_comparison_set_labels(st, id, bname, suite, config, size), 0);
	return id;
}

static void test_suites(struct store *st)
{
	int64_t a = run(st, "a"), b = run(st, "b"), got = 0;
	struct store_suite_view v;
	CHECK_INT(store_suite_get(st, "pr-1", &v), STORE_NOT_FOUND);
	store_suite_view_free(&v);
	CHECK_INT(store_comparison_set_labels(st, 99999, NULL, "s", NULL, 0), STORE_NOT_FOUND);
	int64_t c1 = labelled(st, a, b, "main/x", "pr-1", "tp", 3);
	int64_t c2 = labelled(st, a, b, NULL, "pr-1", "fsdp", 0);
	int64_t c3 = labelled(st, a, b, "main/x", "pr-1", "tp", 0); /* a rerun of tp */
	labelled(st, a, b, NULL, "pr-2", NULL, 0);
	CHECK_INT(store_comparison_finish(st, c1, "done", "pass", "{}", NULL), 0);
	CHECK_INT(store_comparison_finish(st, c2, "done", "fail", "{}", NULL), 0);
	CHECK_INT(store_suite_pending(st, "pr-1", &got), 0);
	CHECK_INT(got, 1); /* c3 */
	CHECK_INT(store_suite_pending(st, "unknown", &got), 0);
	CHECK_INT(got, 0);
	CHECK_INT(store_suite_get(st, "pr-1", &v), 0);
	CHECK_INT(v.n_comparisons, 3);
	CHECK_INT(v.n_pending, 1);
	CHECK_INT(v.expected, 3);
	CHECK_INT(v.n_latest, 2);
	if (v.n_latest == 2) {
		CHECK_STR(v.latest[0].config, "fsdp");
		CHECK_INT(v.latest[0].id, c2);
		CHECK_STR(v.latest[1].config, "tp");
		CHECK_INT(v.latest[1].id, c3); /* the latest of its config */
		CHECK_STR(v.latest[1].baseline_name, "main/x");
		CHECK_STR(v.latest[1].suite, "pr-1");
	}
	store_suite_view_free(&v);
	CHECK_INT(store_comparison_finish(st, c3, "done", "pass", "{}", NULL), 0);
	CHECK_INT(store_suite_get(st, "pr-1", &v), 0);
	CHECK_INT(v.n_pending, 0);
	CHECK_STR(v.n_latest > 1 ? v.latest[1].verdict : NULL, "pass");
	store_suite_view_free(&v);
	int64_t c4 = labelled(st, a, b, NULL, "pr-1", "ddp", 0);
	CHECK_INT(store_comparison_finish(st, c4, "failed", NULL, NULL, "boom"), 0);
	CHECK_INT(store_suite_get(st, "pr-1", &v), 0);
	CHECK_INT(v.n_latest, 3);
	if (v.n_latest == 3) {
		CHECK_STR(v.latest[0].config, "ddp");
		CHECK_STR(v.latest[0].status, "failed");
	}
	store_suite_view_free(&v);

	/* the list of suites (issue 25): the most recently filed first, per
	 * suite its latest configs' failing and pending counts */
	struct store_suite_list l;
	CHECK_INT(store_suites_list(st, &l), 0);
	CHECK_INT(l.n_suites, 2);
	CHECK_INT(l.truncated, 0);
	if (l.n_suites == 2) {
		CHECK_STR(l.suites[0].suite, "pr-1");
		CHECK_INT(l.suites[0].n_configs, 3);
		CHECK_INT(l.suites[0].n_failing, 2); /* fsdp fail, ddp failed */
		CHECK_INT(l.suites[0].n_pending, 0);
		CHECK_INT(l.suites[0].n_comparisons, 4);
		CHECK(l.suites[0].last_at && l.suites[0].last_at[0]);
		CHECK_STR(l.suites[1].suite, "pr-2");
		CHECK_INT(l.suites[1].n_configs, 1);
		CHECK_INT(l.suites[1].n_failing, 0);
		CHECK_INT(l.suites[1].n_pending, 1);
		CHECK_INT(l.suites[1].n_comparisons, 1);
	}
	store_suite_list_free(&l);

	/* comparisons against a baseline name, newest first, with results */
	struct store_comparison_page p;
	CHECK_INT(store_baseline_comparisons(st, "main/x", 1, NULL, &p), 0);
	CHECK_INT(p.n_cmps, 1);
	CHECK_INT(p.n_cmps ? p.cmps[0].id : 0, c3);
	CHECK_STR(p.n_cmps ? p.cmps[0].result_json : NULL, "{}");
	char next[64];
	snprintf(next, sizeof next, "%s", p.next_cursor);
	store_comparison_page_free(&p);
	CHECK_INT(store_baseline_comparisons(st, "main/x", 10, next, &p), 0);
	CHECK_INT(p.n_cmps, 1);
	CHECK_INT(p.n_cmps ? p.cmps[0].id : 0, c1);
	store_comparison_page_free(&p);
	CHECK_INT(store_baseline_comparisons(st, "nope", 10, NULL, &p), 0);
	CHECK_INT(p.n_cmps, 0);
	store_comparison_page_free(&p);
}

/* 1 when baseline name is at run with n changes (*last the newest, in
 * *v: free it), else 0 with the failed check reported. */
static int now_at(struct store *st, const char *name, int64_t run, size_t n,
                  struct store_baseline_view *v, const struct store_baseline_change **last)
{
	int64_t cur = 0;
	CHECK_INT(store_baseline_current(st, name, &cur), 0);
	CHECK_INT(cur, run);
	CHECK_INT(store_baseline_get(st, name, v), 0);
	CHECK_INT(v->b.n_history, n);
	if (v->b.n_history != n || cur != run)
		return 0;
	*last = &v->b.history[n - 1];
	return (*last)->run_id == run;
}

/* Promotion is a compare-and-swap (issue 23): it moves the name only
 * from the run its comparison was made against; a stale one changes
 * nothing and says what is current. */
static void test_promote(struct store *st)
{
	int64_t r1 = run(st, "p1"), r2 = run(st, "p2"), r3 = run(st, "p3"), cur = -1, h = 0;
	CHECK_INT(store_baseline_set(st, "promo", r1, NULL, NULL, 0, NULL), 0);
	int64_t c12 = labelled(st, r1, r2, "promo", NULL, NULL, 0);
	int64_t c13 = labelled(st, r1, r3, "promo", NULL, NULL, 0);
	/* r1 is current: r2 promoted from it */
	CHECK_INT(store_baseline_promote(st, "promo", r2, r1, "ci", "pass", c12, &cur, &h), 0);
	CHECK_INT(cur, r2);
	CHECK(h > 0);
	/* r3 passed against r1 too, but r1 is no longer current */
	cur = -1;
	CHECK_INT(store_baseline_promote(st, "promo", r3, r1, "ci", "pass", c13, &cur, NULL), 1);
	CHECK_INT(cur, r2);
	const struct store_baseline_change *last = NULL;
	struct store_baseline_view v;
	if (now_at(st, "promo", r2, 2, &v, &last)) {
		CHECK_INT(last->comparison_id, c12);
		CHECK_STR(last->token_name, "ci");
	}
	store_baseline_view_free(&v);
	/* no such name: nothing is created */
	cur = -1;
	CHECK_INT(store_baseline_promote(st, "promo-none", r3, r1, NULL, NULL, c13, &cur, NULL), 1);
	CHECK_INT(cur, 0);
	CHECK_INT(store_baseline_current(st, "promo-none", &cur), STORE_NOT_FOUND);
	/* the checks of a set */
	CHECK_INT(store_baseline_promote(st, "promo", 999999, r2, NULL, NULL, c13, &cur, NULL),
	          STORE_NOT_FOUND);
	CHECK_INT(store_baseline_promote(st, "a//b", r3, r2, NULL, NULL, c13, &cur, NULL),
	          STORE_INVALID);
	/* inside the caller's transaction, which stays usable */
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_baseline_promote(st, "promo", r3, r1, NULL, NULL, c13, &cur, NULL), 1);
	CHECK_INT(store_baseline_promote(st, "promo", r3, r2, NULL, NULL, c13, &cur, NULL), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_baseline_current(st, "promo", &cur), 0);
	CHECK_INT(cur, r3);
}

/* The second connection's call, on its own thread. */
struct other {
	struct store *st;
	const char *what; /* "set", "promote", "delete" or "finish" */
	int64_t run_id;   /* finish: the comparison */
	int64_t from;     /* promote: the run it expects current */
	int64_t current;  /* promote: what was current */
	int64_t pending;  /* finish: store_suite_pending's count */
	int rc;
	char err[512];
	volatile int done;
};

static void *other_main(void *arg)
{
	struct other *o = arg;
	if (!strcmp(o->what, "set"))
		o->rc = store_baseline_set(o->st, "race", o->run_id, "b", "second", 0, NULL);
	else if (!strcmp(o->what, "promote"))
		o->rc = store_baseline_promote(o->st, "race-p", o->run_id, o->from, "b", "second",
		                               0, &o->current, NULL);
	else if (!strcmp(o->what, "delete"))
		o->rc = store_run_delete(o->st, o->run_id, NULL);
	else if ((o->rc = store_tx_begin(o->st)) == 0) {
		/* a job's finishing transaction (server/delivery/webhooks.c enqueue_suite) */
		o->pending = -1;
		if ((o->rc = store_comparison_finish(o->st, o->run_id, "done", "pass", "{}",
		                                     NULL)) == 0)
			o->rc = store_suite_pending(o->st, "race-suite", &o->pending);
		o->rc = o->rc == 0 ? store_tx_commit(o->st) : o->rc;
		if (o->rc != 0)
			store_tx_rollback(o->st);
	}
	snprintf(o->err, sizeof o->err, "%s", store_errmsg(o->st));
	o->done = 1;
	return NULL;
}

/* Start what on a second connection while st holds a transaction that
 * did the conflicting write; it must still wait 300 ms later, and finish
 * once st commits.  Returns its result (errmsg in o->err). */
static int while_open(struct store *st, struct other *o)
{
	pthread_t t;
	CHECK_INT(pthread_create(&t, NULL, other_main, o), 0);
	usleep(300 * 1000);
	CHECK_INT(o->done, 0);
	CHECK_INT(store_tx_commit(st), 0);
	pthread_join(t, NULL);
	CHECK_INT(o->done, 1);
	return o->rc;
}

static void test_two_connections(struct store *st)
{
	char err[512];
	struct other o;
	memset(&o, 0, sizeof o);
	CHECK_INT(store_open(target, &o.st, err, sizeof err), 0);
	if (!o.st) {
		fprintf(stderr, "second connection: %s\n", err);
		return;
	}
	int64_t r1 = run(st, "race-1"), r2 = run(st, "race-2"), r3 = run(st, "race-3"), cur = 0;
	/* two sets of one name: the second applies after the first commits */
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_baseline_set(st, "race", r1, "a", "first", 0, NULL), 0);
	o.what = "set";
	o.run_id = r2;
	CHECK_INT(while_open(st, &o), 0);
	CHECK_INT(store_baseline_current(st, "race", &cur), 0);
	CHECK_INT(cur, r2);
	struct store_baseline_view v;
	CHECK_INT(store_baseline_get(st, "race", &v), 0);
	CHECK_INT(v.b.n_history, 2);
	if (v.b.n_history == 2) {
		CHECK_INT(v.b.history[0].run_id, r1);
		CHECK_STR(v.b.history[0].note, "first");
		CHECK_INT(v.b.history[1].run_id, r2);
		CHECK_STR(v.b.history[1].token_name, "b");
	}
	store_baseline_view_free(&v);
	/* a delete of a run that an open transaction is making a baseline:
	 * it waits, then sees the baseline */
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_baseline_set(st, "race-3", r3, NULL, NULL, 0, NULL), 0);
	memset(o.err, 0, sizeof o.err);
	o.done = 0;
	o.what = "delete";
	o.run_id = r3;
	CHECK_INT(while_open(st, &o), STORE_IN_USE);
	CHECK(strstr(o.err, "baseline 'race-3'") != NULL);
	CHECK_INT(store_run_exists(st, r3), 1);

	/* two promotions of one name from the same current run: the second
	 * waits for the first's transaction, then finds r2 current and
	 * changes nothing */
	CHECK_INT(store_baseline_set(st, "race-p", r1, NULL, NULL, 0, NULL), 0);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_baseline_promote(st, "race-p", r2, r1, "a", "first", 0, &cur, NULL), 0);
	o.done = 0;
	o.what = "promote";
	o.run_id = r3;
	o.from = r1;
	CHECK_INT(while_open(st, &o), 1);
	CHECK_INT(o.current, r2);
	const struct store_baseline_change *last = NULL;
	CHECK(now_at(st, "race-p", r2, 2, &v, &last) && !strcmp(last->token_name, "a"));
	store_baseline_view_free(&v);

	/* the last two comparisons of a suite finish at once: the first to
	 * count sees the other pending, the second waits for the first's
	 * commit and sees none (so exactly one sends suite.completed) */
	int64_t c1 = labelled(st, r1, r2, NULL, "race-suite", "x", 2);
	int64_t c2 = labelled(st, r1, r2, NULL, "race-suite", "y", 2);
	int64_t pending = -1;
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_comparison_finish(st, c1, "done", "pass", "{}", NULL), 0);
	CHECK_INT(store_suite_pending(st, "race-suite", &pending), 0);
	CHECK_INT(pending, 1);
	o.done = 0;
	o.what = "finish";
	o.run_id = c2;
	CHECK_INT(while_open(st, &o), 0);
	CHECK_INT(o.pending, 0);
	CHECK_INT(store_suite_pending(st, "race-suite", &pending), 0);
	CHECK_INT(pending, 0);
	store_close(o.st);
}

int main(void)
{
	char err[512];
	struct store *st = NULL;
	CHECK_INT(storetest_target("baselines", target, sizeof target), 0);
	if (store_open(target, &st, err, sizeof err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	test_names();
	test_baselines(st);
	test_suites(st);
	test_promote(st);
	test_two_connections(st);
	store_close(st);
	storetest_cleanup("baselines");
	return check_report();
}
