/* test_store_noise.c - baseline sets in the store (issue 26, migration
 * 012) on a fresh database: a comparison's set members read back in
 * order (store_comparison_set_get and store_comparison_get); a real noise
 * result (matcher_noise_check of a regressed candidate with a NaN step)
 * stored and rebuilt field by field, every per-step array (NaN as NaN,
 * outside bits), reasons with their fail class, notes, and the lane on
 * the comparison (also in lists); a baseline set: PUT of runs recorded
 * in the history with its runs, read back oldest first; promotion
 * replaces the oldest member and keeps K; a promotion from a set that is
 * no longer current changes nothing (1), and neither does one into a set
 * that changed behind the same newest run; runs of a set cannot be
 * deleted.  On SQLite and PostgreSQL (storetest.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "storetest.h"
#include "store.h"
#include "trainpolicy.h"

#define STEPS 8300 /* > one PostgreSQL batch of step rows (8192) */

static char target[512];

static int64_t run(struct store *st, const char *name)
{
	int64_t id = 0;
	CHECK_INT(store_run_create(st, name, "training", NULL, &id), 0);
	return id;
}

/* A run of STEPS steps: loss base + member noise, a shift from step 40
 * when shift != 0, NaN at nan_step (0: none). */
static struct matcher_trainrun *trainrun(int seed, double shift, long nan_step)
{
	struct buf b;
	buf_init(&b);
	for (long s = 1; s <= STEPS; s++) {
		double v = 2.0 - 0.01 * (double)s + 1e-3 * sin((double)(seed * 7 + s) * 1.3);
		if (s >= 40)
			v += shift;
		if (s == nan_step)
			buf_printf(&b, "step: %ld  loss:     nan  grad_norm:  1.0000\n", s);
		else
			buf_printf(&b, "step: %ld  loss: %8.5f  grad_norm:  1.0000\n", s, v);
	}
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	if (matcher_trainrun_parse_buffer(b.data, b.len, NULL, 0, &r, &err) < 0)
		r = NULL;
	buf_reset(&b);
	return r;
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static void check_same_result(const struct matcher_noise_result *a,
                              const struct matcher_noise_result *b)
{
	CHECK_INT(b->verdict, a->verdict);
	CHECK_INT(b->lane, a->lane);
	CHECK_INT(b->rank, a->rank);
	CHECK_INT(b->k, a->k);
	CHECK_INT(b->identical_to, a->identical_to);
	CHECK(same(b->t_quantile, a->t_quantile));
	CHECK_INT(b->n_steps, a->n_steps);
	CHECK_INT(b->n_skipped, a->n_skipped);
	CHECK_INT(b->n_metrics, a->n_metrics);
	CHECK(matcher_train_policy_is_noise(&b->policy));
	CHECK(b->policy.noise.alpha_step == a->policy.noise.alpha_step);
	for (size_t i = 0; i < a->n_steps && i < b->n_steps; i++)
		CHECK_INT(b->steps[i], a->steps[i]);
	for (size_t k = 0; k < a->n_metrics && k < b->n_metrics; k++) {
		const struct matcher_noise_metric *x = &a->metrics[k], *y = &b->metrics[k];
		CHECK_STR(y->name, x->name);
		CHECK_INT(y->n, x->n);
		CHECK_INT(y->n_outside, x->n_outside);
		CHECK_INT(y->allowed, x->allowed);
		CHECK(same(y->p, x->p) && same(y->bias, x->bias) &&
		      same(y->share_above, x->share_above));
		CHECK_INT(y->has_first_outside, x->has_first_outside);
		CHECK_INT(y->first_outside, x->first_outside);
		CHECK_INT(y->has_max_ratio, x->has_max_ratio);
		CHECK(same(y->max_ratio, x->max_ratio));
		CHECK_INT(y->has_nonfinite, x->has_nonfinite);
		CHECK_INT(y->first_nonfinite, x->first_nonfinite);
		CHECK_INT(y->n_change_outside, x->n_change_outside);
		CHECK_INT(y->has_extreme, x->has_extreme);
		CHECK_INT(y->regression, x->regression);
		CHECK_INT(y->prec, x->prec);
		CHECK_INT(!!y->y, !!x->y);
		int arrays_ok = 1;
		for (size_t i = 0; x->y && y->y && i < a->n_steps; i++)
			arrays_ok &= same(y->y[i], x->y[i]) && same(y->mean[i], x->mean[i]) &&
			             same(y->sd[i], x->sd[i]) && same(y->h[i], x->h[i]) &&
			             same(y->z[i], x->z[i]) && y->outside[i] == x->outside[i];
		CHECK(arrays_ok);
	}
	CHECK_INT(b->n_reasons, a->n_reasons);
	for (size_t i = 0; i < a->n_reasons && i < b->n_reasons; i++) {
		CHECK_STR(b->reasons[i].code, a->reasons[i].code);
		CHECK_STR(b->reasons[i].message, a->reasons[i].message);
		CHECK_INT(b->reasons[i].is_error, a->reasons[i].is_error);
		CHECK_INT(b->reasons[i].has_step, a->reasons[i].has_step);
		CHECK_INT(b->reasons[i].step, a->reasons[i].step);
	}
	CHECK_INT(b->n_notes, a->n_notes);
	for (size_t i = 0; i < a->n_notes && i < b->n_notes; i++)
		CHECK_STR(b->notes[i], a->notes[i]);
}

static void test_comparison_set(struct store *st)
{
	int64_t m[5], cand = run(st, "cand"), id = 0;
	char name[16];
	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "m%d", i + 1);
		m[i] = run(st, name);
	}
	struct matcher_train_policy pol;
	struct buf ptext = BUF_INIT;
	CHECK_INT(matcher_train_policy_preset(&pol, "noise"), 0);
	CHECK_INT(matcher_train_policy_format(&pol, &ptext), 0);
	CHECK_INT(store_comparison_create(st, m[0], cand, "training", "set", ptext.data, NULL, &id),
	          0);
	CHECK_INT(store_comparison_set_put(st, id, m, 5), 0);
	int64_t *got = NULL;
	size_t n = 0;
	CHECK_INT(store_comparison_set_get(st, id, &got, &n), 0);
	CHECK_INT(n, 5);
	for (size_t i = 0; got && i < n; i++)
		CHECK_INT(got[i], m[i]);
	free(got);

	/* a regressed candidate with a NaN step: a real result to store */
	struct matcher_trainrun *runs[6] = {0};
	for (int i = 0; i < 5; i++)
		runs[i] = trainrun(i + 1, 0, 0);
	runs[5] = trainrun(9, 0.05, 20);
	struct matcher_noise_result *res = NULL;
	CHECK_INT(matcher_noise_check((const struct matcher_trainrun *const *)runs, 5, runs[5],
	                              &pol, &res),
	          0);
	CHECK(res && res->lane == MATCHER_LANE_REGRESSION && res->n_reasons > 0);
	CHECK_INT(store_noise_result_put(st, id, res), 0);
	CHECK_INT(store_comparison_finish(st, id, "done", "fail", NULL, NULL), 0);

	struct store_comparison_view v;
	CHECK_INT(store_comparison_get(st, id, &v), 0);
	CHECK_INT(v.cmp.n_baseline_set, 5);
	CHECK_INT(v.cmp.baseline_set ? v.cmp.baseline_set[4] : 0, m[4]);
	CHECK_STR(v.cmp.lane ? v.cmp.lane : "", "regression");
	CHECK(v.cmp.noise != NULL && v.cmp.train == NULL && v.cmp.result_json == NULL);
	if (res && v.cmp.noise) {
		check_same_result(res, v.cmp.noise);
		CHECK_INT(v.cmp.noise->reasons[0].is_error, 0); /* outside_noise_band: fail */
	}
	store_comparison_view_free(&v);

	/* stored again (a requeued job): replaced, not doubled */
	CHECK_INT(store_noise_result_put(st, id, res), 0);
	CHECK_INT(store_comparison_get(st, id, &v), 0);
	if (v.cmp.noise)
		check_same_result(res, v.cmp.noise);
	store_comparison_view_free(&v);

	/* lists carry the lane; a two-run comparison has none */
	int64_t two = 0;
	CHECK_INT(
	        store_comparison_create(st, m[0], cand, "training", "two", ptext.data, NULL, &two),
	        0);
	struct store_comparison_page p;
	CHECK_INT(store_comparisons_list(st, 10, NULL, &p), 0);
	int seen = 0;
	for (size_t i = 0; i < p.n_cmps; i++) {
		if (p.cmps[i].id == id)
			seen += p.cmps[i].lane && !strcmp(p.cmps[i].lane, "regression");
		if (p.cmps[i].id == two)
			seen += p.cmps[i].lane == NULL;
	}
	CHECK_INT(seen, 2);
	store_comparison_page_free(&p);

	/* a set member cannot be deleted */
	CHECK(store_run_delete(st, m[3], NULL) < 0);

	matcher_noise_result_free(res);
	for (int i = 0; i < 6; i++)
		matcher_trainrun_free(runs[i]);
	buf_reset(&ptext);
}

static void test_baseline_set(struct store *st)
{
	int64_t r[7];
	char name[16];
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof name, "b%d", i + 1);
		r[i] = run(st, name);
	}
	int64_t hid = 0, cur = 0, got[8];
	size_t n = 0;
	CHECK_INT(store_baseline_set_runs(st, "main/set", r, 5, "ci", "five", 0, &hid), 0);
	CHECK(hid > 0);
	CHECK_INT(store_baseline_members(st, "main/set", got, 8, &n), 0);
	CHECK_INT(n, 5);
	CHECK_INT(got[0], r[0]);
	CHECK_INT(got[4], r[4]);
	CHECK_INT(store_baseline_current(st, "main/set", &cur), 0);
	CHECK_INT(cur, r[4]); /* the newest */

	/* promotion: the oldest leaves, the candidate joins, K stays 5 */
	CHECK_INT(store_baseline_promote_set(st, "main/set", r[5], r, 5, "ci", "promoted", 0, &cur,
	                                     &hid),
	          0);
	CHECK_INT(store_baseline_members(st, "main/set", got, 8, &n), 0);
	CHECK_INT(n, 5);
	CHECK_INT(got[0], r[1]);
	CHECK_INT(got[4], r[5]);
	/* a second promotion earned against the old set changes nothing */
	CHECK_INT(store_baseline_promote_set(st, "main/set", r[6], r, 5, "ci", "stale", 0, &cur,
	                                     NULL),
	          1);
	CHECK_INT(cur, r[5]);
	/* a set changed behind the same newest run: refused as well */
	int64_t other[5] = {r[0], r[2], r[3], r[4], r[5]};
	CHECK_INT(store_baseline_set_runs(st, "main/set", other, 5, NULL, NULL, 0, NULL), 0);
	int64_t was[5] = {r[1], r[2], r[3], r[4], r[5]};
	CHECK_INT(
	        store_baseline_promote_set(st, "main/set", r[6], was, 5, NULL, NULL, 0, &cur, NULL),
	        1);
	CHECK_INT(store_baseline_members(st, "main/set", got, 8, &n), 0);
	CHECK_INT(got[0], r[0]);

	/* the history: every change with its set */
	struct store_baseline_view v;
	CHECK_INT(store_baseline_get(st, "main/set", &v), 0);
	CHECK_INT(v.b.n_history, 3);
	CHECK_INT(v.b.n_members, 5);
	CHECK_INT(v.b.history ? v.b.history[1].n_runs : 0, 5);
	CHECK_INT(v.b.history && v.b.history[1].runs ? v.b.history[1].runs[4] : 0, r[5]);
	CHECK_STR(v.b.history ? v.b.history[1].note : "", "promoted");
	store_baseline_view_free(&v);

	/* back to one run: no members, single-run history entry */
	CHECK_INT(store_baseline_set(st, "main/set", r[6], NULL, NULL, 0, NULL), 0);
	CHECK_INT(store_baseline_members(st, "main/set", got, 8, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(got[0], r[6]);
	CHECK_INT(store_baseline_get(st, "main/set", &v), 0);
	CHECK_INT(v.b.n_members, 0);
	CHECK_INT(v.b.history ? v.b.history[3].n_runs : 9, 0);
	store_baseline_view_free(&v);
	/* runs in a set's history stay undeletable */
	CHECK(store_run_delete(st, r[1], NULL) < 0);
	CHECK_INT(store_baseline_members(st, "no/such", got, 8, &n), STORE_NOT_FOUND);
}

int main(void)
{
	char err[512];
	struct store *st = NULL;
	CHECK_INT(storetest_target("noise", target, sizeof target), 0);
	if (store_open(target, &st, err, sizeof err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	test_comparison_set(st);
	test_baseline_set(st);
	store_close(st);
	storetest_cleanup("noise");
	return check_report();
}
