/* test_matcher_traincheck.c - the training threshold check: exact
 * printed-decimal differences at the threshold boundary, NaN/Inf rules,
 * a = 0, every reason code, every policy, the resolution note, rebuilding
 * a run from records, the per-step rows, and the four fixtures (verdict,
 * reason codes, first_over, exact max_abs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "train_num.h"
#include "traincheck.h"

/* A run from "step loss grad_norm" triples; texts as printed. */
static struct matcher_trainrun *run_of(const char *const *rows, size_t n, const char *extra)
{
	struct buf b = BUF_INIT;
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "[titan] - root - INFO - step: %s\n", rows[i]);
	if (extra)
		buf_puts(&b, extra);
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	if (matcher_trainrun_parse_buffer(b.data, b.len, NULL, 0, &r, &err) < 0)
		fprintf(stderr, "parse failed: %s %s\n", err.code, err.message);
	buf_reset(&b);
	return r;
}

static struct matcher_train_result *check2(const struct matcher_trainrun *a,
                                           const struct matcher_trainrun *b,
                                           const struct matcher_train_policy *p)
{
	struct matcher_train_result *r = NULL;
	CHECK_INT(matcher_train_check(a, b, p, &r), 0);
	return r;
}

static int has_reason(const struct matcher_train_result *r, const char *code)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (!strcmp(r->reasons[i].code, code))
			return 1;
	return 0;
}

static const struct matcher_train_reason *reason(const struct matcher_train_result *r,
                                                 const char *code)
{
	for (size_t i = 0; i < r->n_reasons; i++)
		if (!strcmp(r->reasons[i].code, code))
			return &r->reasons[i];
	return NULL;
}

static const struct matcher_train_metric_result *metric(const struct matcher_train_result *r,
                                                        const char *name)
{
	for (size_t i = 0; i < r->n_metrics; i++)
		if (!strcmp(r->metrics[i].name, name))
			return &r->metrics[i];
	return NULL;
}

/* Compare one loss value pair under premerge. */
static struct matcher_train_result *pair(const char *la, const char *lb,
                                         struct matcher_trainrun **ra, struct matcher_trainrun **rb)
{
	char a[128], b[128];
	snprintf(a, sizeof a, "1  loss: %s  grad_norm: 1.0000", la);
	snprintf(b, sizeof b, "1  loss: %s  grad_norm: 1.0000", lb);
	const char *rowa[] = {a}, *rowb[] = {b};
	*ra = run_of(rowa, 1, NULL);
	*rb = run_of(rowb, 1, NULL);
	return check2(*ra, *rb, NULL);
}

static void done2(struct matcher_train_result *r, struct matcher_trainrun *a,
                  struct matcher_trainrun *b)
{
	matcher_train_result_free(r);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
}

static void test_exact_boundary(void)
{
	struct matcher_trainrun *a, *b;
	struct matcher_train_result *r;
	/* naive double subtraction gets these wrong ... */
	CHECK(11.09833 - 11.09832 > 1e-5);
	CHECK(2.00001 - 2.0 > 1e-5);
	/* ... the printed digits differ by exactly one unit: pass */
	r = pair("11.09832", "11.09833", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.00001");
	done2(r, a, b);
	r = pair("2.00000", "2.00001", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	done2(r, a, b);
	r = pair("11.09833", "11.09834", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.00001");
	CHECK(metric(r, "loss")->max_abs == 1e-5);
	CHECK(!metric(r, "loss")->has_first_over);
	done2(r, a, b);
	/* equal */
	r = pair("11.09833", "11.09833", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0");
	CHECK(metric(r, "loss")->max_abs == 0);
	done2(r, a, b);
	/* two units: just over */
	r = pair("11.09833", "11.09835", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.00002");
	CHECK_INT(metric(r, "loss")->first_over, 1);
	CHECK(has_reason(r, "threshold_exceeded"));
	CHECK_STR(reason(r, "threshold_exceeded")->metric, "loss");
	CHECK_INT(reason(r, "threshold_exceeded")->step, 1);
	done2(r, a, b);
	/* one unit at a finer resolution than the other side, downwards */
	r = pair("2.5", "2.499990", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.000010");
	done2(r, a, b);
	/* just over with an extra digit */
	r = pair("2.5", "2.4999899", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.0000101");
	done2(r, a, b);
	/* exponent notation */
	r = pair("1.5e-3", "0.00151", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.00001");
	done2(r, a, b);

	double d;
	int64_t u;
	int dd;
	CHECK_INT(matcher_train_exact_diff(11.09833, 5, 11.09834, 5, &d, &u, &dd), 1);
	CHECK_INT(u, 1);
	CHECK_INT(dd, 5);
	CHECK(d == 1e-5);
	CHECK_INT(matcher_train_exact_diff(4.9806, 4, 4.98, 2, &d, &u, &dd), 1);
	CHECK_INT(u, -6);
	/* 17 significant digits (Python's repr of float64 values, as golden
	 * values and MLLOG files hold them): beyond a double's scaled reach,
	 * exact from the values' shortest texts (Python: Decimal difference
	 * 0.001286521553993224; in doubles it would end ...3225) */
	CHECK_INT(matcher_train_exact_diff(0.017406122758984566, 18, 0.01869264431297779, 17, &d,
	                                   &u, &dd),
	          1);
	CHECK_INT(dd, 18);
	CHECK(u == 1286521553993224LL);
	/* large values: 12345.678901234567 at 12 decimals is 1.2e16 units */
	CHECK_INT(matcher_train_exact_diff(12345.678901234567, 12, 12345.678901234562, 12, &d, &u,
	                                   &dd),
	          1);
	CHECK(u == -5);
	/* the digits do not fit 10^-22 units: not exact */
	CHECK_INT(matcher_train_exact_diff(12345.678901234567, 22, 1.5, 22, &d, &u, &dd), 0);
	char t[48];
	matcher_train_format_units(228, 5, t, sizeof t);
	CHECK_STR(t, "0.00228");
	matcher_train_format_units(10, 4, t, sizeof t);
	CHECK_STR(t, "0.0010");
	matcher_train_format_units(-123456, 2, t, sizeof t);
	CHECK_STR(t, "1234.56");
	matcher_train_format_units(0, 5, t, sizeof t);
	CHECK_STR(t, "0");
	matcher_train_format_units(7, 0, t, sizeof t);
	CHECK_STR(t, "7");
}

static void test_nan_inf(void)
{
	struct matcher_trainrun *a, *b;
	struct matcher_train_result *r;
	/* NaN on both sides at the same step: equal */
	r = pair("nan", "nan", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_INT(metric(r, "loss")->nan[0], 1);
	CHECK_INT(metric(r, "loss")->nan[1], 1);
	CHECK(metric(r, "loss")->max_abs == 0);
	done2(r, a, b);
	/* NaN on one side: exceedance + nan_inf_mismatch, max_abs +inf shown "NaN" */
	r = pair("2.00000", "nan", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK(has_reason(r, "threshold_exceeded"));
	CHECK(has_reason(r, "nan_inf_mismatch"));
	CHECK_INT(reason(r, "nan_inf_mismatch")->step, 1);
	CHECK(isinf(metric(r, "loss")->max_abs));
	CHECK_STR(metric(r, "loss")->max_abs_text, "NaN");
	CHECK_INT(metric(r, "loss")->nan[0], 0);
	CHECK_INT(metric(r, "loss")->nan[1], 1);
	CHECK_INT(metric(r, "loss")->first_over, 1);
	done2(r, a, b);
	/* Inf: same sign equal, against a number or the other sign over */
	r = pair("inf", "inf", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_INT(metric(r, "loss")->inf[0], 1);
	done2(r, a, b);
	r = pair("inf", "-inf", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	done2(r, a, b);
	r = pair("1.0", "inf", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK(has_reason(r, "nan_inf_mismatch"));
	CHECK_INT(metric(r, "loss")->inf[1], 1);
	done2(r, a, b);
	/* nan vs inf */
	r = pair("nan", "inf", &a, &b);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	done2(r, a, b);
	/* same NaN count, different steps: still an exceedance */
	const char *ra[] = {"1  loss: nan  grad_norm: 1.0000",
	                    "2  loss: 1.00000  grad_norm: 1.0000"};
	const char *rb[] = {"1  loss: 1.00000  grad_norm: 1.0000",
	                    "2  loss: nan  grad_norm: 1.0000"};
	a = run_of(ra, 2, NULL);
	b = run_of(rb, 2, NULL);
	r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK(has_reason(r, "nan_inf_mismatch"));
	CHECK_INT(metric(r, "loss")->n_over, 2);
	done2(r, a, b);
}

static void test_zero_baseline(void)
{
	struct matcher_trainrun *a, *b;
	struct matcher_train_result *r;
	struct matcher_train_policy p;
	r = pair("0.00000", "0.00000", &a, &b);
	CHECK(metric(r, "loss")->max_rel == 0);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	done2(r, a, b);
	r = pair("0.00000", "0.00001", &a, &b);
	CHECK(isinf(metric(r, "loss")->max_rel));
	CHECK_STR(matcher_verdict_name(r->verdict), "pass"); /* no rel threshold */
	done2(r, a, b);
	matcher_train_policy_preset(&p, NULL);
	CHECK_INT(matcher_train_policy_set(&p, "loss", 1e-3, 0.5, 1), 0);
	const char *ra[] = {"1  loss: 0.00000  grad_norm: 1.0000"};
	const char *rb[] = {"1  loss: 0.00001  grad_norm: 1.0000"};
	a = run_of(ra, 1, NULL);
	b = run_of(rb, 1, NULL);
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail"); /* rel = +inf > 0.5 */
	CHECK_INT(metric(r, "loss")->first_over, 1);
	done2(r, a, b);
}

static const char *const base3[] = {
        "1  loss: 3.00000  grad_norm: 2.0000",
        "2  loss: 2.50000  grad_norm: 1.5000",
        "3  loss: 2.00000  grad_norm: 1.0000",
};

static void test_reason_codes(void)
{
	struct matcher_trainrun *a, *b;
	struct matcher_train_result *r;
	struct matcher_train_policy p;

	/* warnings (a restart in the candidate) -> error; allow_warnings -> pass */
	a = run_of(base3, 3, NULL);
	b = run_of(base3, 3,
	           "step: 2  loss: 2.60000  grad_norm: 1.5000\n"
	           "step: 3  loss: 2.00000  grad_norm: 1.0000\n");
	r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "warnings"));
	CHECK_STR(reason(r, "warnings")->side, "candidate");
	CHECK_INT(reason(r, "warnings")->line, 4);
	CHECK(strstr(reason(r, "warnings")->message, "step_backwards") != NULL);
	CHECK_INT(reason(r, "warnings")->count, 2); /* backwards + duplicate */
	matcher_train_result_free(r);
	matcher_train_policy_preset(&p, NULL);
	p.allow_warnings = 1;
	r = check2(a, b, &p);
	/* the later value of step 2 is kept: it differs from the baseline */
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK(!has_reason(r, "warnings"));
	CHECK_INT(r->n_reasons, 1);
	CHECK_INT(metric(r, "loss")->first_over, 2);
	done2(r, a, b);

	/* step_sets_differ */
	a = run_of(base3, 3, NULL);
	b = run_of(base3, 2, "step: 4  loss: 2.00000  grad_norm: 1.0000\n");
	r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "step_sets_differ"));
	CHECK_INT(reason(r, "step_sets_differ")->step, 3);
	CHECK_INT(r->n_only_a, 1);
	CHECK_INT(r->only_a[0], 3);
	CHECK_INT(r->n_only_b, 1);
	CHECK_INT(r->only_b[0], 4);
	CHECK_INT(r->n_common, 2);
	done2(r, a, b);

	/* no_common_steps */
	a = run_of(base3, 1, NULL);
	b = run_of(base3 + 1, 2, NULL);
	r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "no_common_steps"));
	done2(r, a, b);

	/* too_few_steps */
	a = run_of(base3, 3, NULL);
	b = run_of(base3, 3, NULL);
	matcher_train_policy_preset(&p, NULL);
	p.min_steps = 5;
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "too_few_steps"));
	CHECK_INT(reason(r, "too_few_steps")->count, 3);
	matcher_train_result_free(r);

	/* metric_missing: an extra metric one run never printed */
	matcher_train_policy_preset(&p, NULL);
	CHECK_INT(matcher_train_policy_set(&p, "memory_gib", 0.01, 0, 0), 0);
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "metric_missing"));
	CHECK_STR(reason(r, "metric_missing")->metric, "memory_gib");
	done2(r, a, b);

	/* rank_missing */
	a = run_of(base3, 3, NULL);
	b = run_of(base3, 3, NULL);
	matcher_train_policy_preset(&p, NULL);
	p.rank = 3;
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "rank_missing"));
	done2(r, a, b);

	/* crash (error lines) -> warnings reason with the line */
	a = run_of(base3, 3, NULL);
	b = run_of(base3, 2, "Traceback (most recent call last):\nRuntimeError: boom\n");
	r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "error");
	CHECK(has_reason(r, "warnings"));
	CHECK(has_reason(r, "step_sets_differ"));
	CHECK_INT(reason(r, "warnings")->line, 3);
	done2(r, a, b);
}

static void test_policies(void)
{
	struct matcher_trainrun *a, *b;
	struct matcher_train_result *r;
	struct matcher_train_policy p;
	const char *rb[] = {
	        "1  loss: 3.00001  grad_norm: 2.0000",
	        "2  loss: 2.50000  grad_norm: 1.5000",
	        "3  loss: 2.00000  grad_norm: 1.0000",
	};
	a = run_of(base3, 3, NULL);
	b = run_of(rb, 3, NULL);

	/* premerge (default) */
	CHECK_INT(matcher_train_policy_preset(&p, "premerge"), 0);
	CHECK_STR(p.name, "premerge");
	CHECK_INT(p.n_th, 2);
	CHECK(p.th[0].abs == 1e-5 && p.th[1].abs == 1e-5);
	r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	CHECK_STR(r->policy.name, "premerge");
	matcher_train_result_free(r);

	/* bitwise: identical printed values required */
	CHECK_INT(matcher_train_policy_preset(&p, "bitwise"), 0);
	CHECK(p.th[0].abs == 0 && p.th[1].abs == 0);
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK_INT(metric(r, "loss")->first_over, 1);
	CHECK_INT(metric(r, "grad_norm")->n_over, 0);
	matcher_train_result_free(r);
	r = check2(a, a, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	matcher_train_result_free(r);

	/* custom: per-metric abs and rel, extra metrics, min_steps */
	matcher_train_policy_preset(&p, "bitwise");
	CHECK_INT(matcher_train_policy_set(&p, "loss", 1e-4, 0, 0), 0);
	CHECK_STR(p.name, "custom");
	CHECK_STR(p.base, "bitwise");
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "pass");
	matcher_train_result_free(r);
	CHECK_INT(matcher_train_policy_set(&p, "loss", 1e-4, 1e-6, 1), 0);
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail"); /* rel 3.3e-6 > 1e-6 */
	CHECK_DBL(metric(r, "loss")->max_rel, 1e-5 / 3.0, 1e-9);
	matcher_train_result_free(r);
	CHECK_INT(matcher_train_policy_set(&p, "loss", -1, 0, 0), -1);
	CHECK_INT(matcher_train_policy_set(&p, "loss", NAN, 0, 0), -1);
	CHECK_INT(matcher_train_policy_preset(&p, "nonsense"), -1);
	CHECK_STR(p.name, "premerge");
	done2(NULL, a, b);

	/* validation/loss as an extra metric, over the validation steps */
	const char *va = "validate step: 2  loss: 2.6000\nvalidate step: 3  loss: 2.1000\n";
	const char *vb = "validate step: 2  loss: 2.6000\nvalidate step: 3  loss: 2.1002\n";
	a = run_of(base3, 3, va);
	b = run_of(base3, 3, vb);
	matcher_train_policy_preset(&p, NULL);
	CHECK_INT(matcher_train_policy_set(&p, "validation/loss", 1e-4, 0, 0), 0);
	r = check2(a, b, &p);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK_INT(metric(r, "validation/loss")->first_over, 3);
	CHECK_STR(metric(r, "validation/loss")->max_abs_text, "0.0002");
	CHECK_INT(metric(r, "validation/loss")->n_compared, 2);
	CHECK_STR(metric(r, "loss")->max_abs_text, "0"); /* training loss untouched */
	done2(r, a, b);
}

static void test_resolution(void)
{
	struct matcher_trainrun *a = run_of(base3, 3, NULL), *b = run_of(base3, 3, NULL);
	struct matcher_train_result *r = check2(a, b, NULL);
	CHECK_INT(metric(r, "loss")->decimals, 5);
	CHECK(metric(r, "loss")->resolution == 1e-5);
	CHECK_INT(metric(r, "grad_norm")->decimals, 4);
	CHECK(metric(r, "grad_norm")->resolution == 1e-4);
	CHECK(!metric(r, "loss")->below_resolution);
	CHECK(metric(r, "grad_norm")->below_resolution);
	CHECK_INT(r->n_notes, 1);
	CHECK(strstr(r->notes[0], "grad_norm") != NULL);
	CHECK(strstr(r->notes[0], "cannot") != NULL);
	matcher_train_result_free(r);
	struct matcher_train_policy p;
	matcher_train_policy_preset(&p, NULL);
	matcher_train_policy_set(&p, "grad_norm", 1e-4, 0, 0);
	r = check2(a, b, &p);
	CHECK_INT(r->n_notes, 0);
	done2(r, a, b);
}

/* The service rebuilds runs by replaying stored records and warnings. */
struct replay {
	struct matcher_trainrun *run;
};

static int rp_step(void *ctx, const struct matcher_step_record *rec)
{
	struct replay *rp = ctx;
	/* a store would persist and reload; copy the record through a fresh struct */
	struct matcher_metric_value mv[32];
	struct matcher_step_record r2 = *rec;
	char texts[32][64];
	for (size_t i = 0; i < rec->n_metrics && i < 32; i++) {
		snprintf(texts[i], sizeof texts[i], "%s", rec->metrics[i].text);
		mv[i] = rec->metrics[i];
		mv[i].text = texts[i];
	}
	r2.metrics = mv;
	return matcher_trainrun_add_record(rp->run, &r2);
}

static int rp_warn(void *ctx, const struct matcher_warning *w)
{
	struct replay *rp = ctx;
	return matcher_trainrun_add_warning(rp->run, w);
}

static void test_rebuild_and_rows(void)
{
	char path[512];
	size_t na, nb;
	char *da = check_slurp(check_testfile("data/train/q2_a.log", path, sizeof path), &na);
	char *db = check_slurp(check_testfile("data/train/q2_b.log", path, sizeof path), &nb);
	CHECK(da && db);
	if (!da || !db) {
		free(da);
		free(db);
		return;
	}
	const char *keep[] = {"loss", "grad_norm"};
	struct matcher_trainrun *a = NULL, *b = NULL;
	CHECK_INT(matcher_trainrun_parse_buffer(da, na, keep, 2, &a, NULL), 0);
	/* b through a replaying collector */
	struct replay rp = {matcher_trainrun_new(keep, 2)};
	struct matcher_trainlog_callbacks cb = {&rp, rp_step, rp_warn};
	struct matcher_trainlog_parser *p = matcher_trainlog_parser_new(&cb, 0);
	struct matcher_trainlog_summary sum;
	CHECK_INT(matcher_trainlog_feed(p, db, nb), 0);
	CHECK_INT(matcher_trainlog_finish(p, &sum), 0);
	matcher_trainrun_set_summary(rp.run, &sum);
	matcher_trainlog_parser_free(p);
	b = rp.run;
	/* keep-list honoured */
	CHECK(matcher_train_series_column(matcher_trainrun_series(a, 0, 0), "tps") == NULL);
	CHECK(matcher_train_series_column(matcher_trainrun_series(a, 0, 0), "loss") != NULL);

	struct matcher_train_result *r = check2(a, b, NULL);
	CHECK_STR(matcher_verdict_name(r->verdict), "fail");
	CHECK_INT(metric(r, "loss")->first_over, 33);
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.00228");
	CHECK_INT(r->n_common, 100);
	struct matcher_train_row_cell cells[MATCHER_TRAIN_MAX_METRICS];
	long step;
	CHECK_INT(matcher_train_row(r, 32, &step, cells), 0);
	CHECK_INT(step, 33);
	CHECK(cells[0].over);
	CHECK(cells[0].present[0] && cells[0].present[1]);
	CHECK_INT(cells[0].dec_a, 5);
	CHECK_INT(matcher_train_row(r, 0, &step, cells), 0);
	CHECK_INT(step, 1);
	CHECK(!cells[0].over);
	CHECK_STR(cells[0].abs_text, "0");
	CHECK_INT(matcher_train_row(r, 100, &step, cells), -1);
	char t[64];
	matcher_train_format_value(cells[0].a, cells[0].dec_a, t, sizeof t);
	CHECK(strlen(t) > 0 && strchr(t, '.') && strlen(strchr(t, '.')) == 6);
	matcher_train_format_value(NAN, 0, t, sizeof t);
	CHECK_STR(t, "NaN");
	matcher_train_format_value(-INFINITY, 0, t, sizeof t);
	CHECK_STR(t, "-Inf");
	done2(r, a, b);
	free(da);
	free(db);
}

/* Out-of-order steps still align (series kept unsorted, hashed). */
static void test_unsorted(void)
{
	const char *ra[] = {"3  loss: 1.00000", "1  loss: 3.00000", "2  loss: 2.00000"};
	const char *rb[] = {"1  loss: 3.00000", "2  loss: 2.00000", "3  loss: 1.00100"};
	struct matcher_trainrun *a = run_of(ra, 3, NULL), *b = run_of(rb, 3, NULL);
	struct matcher_train_policy p;
	matcher_train_policy_preset(&p, NULL);
	p.allow_warnings = 1; /* steps go backwards in a */
	matcher_train_policy_set(&p, "grad_norm", 1, 0, 0);
	struct matcher_train_result *r = check2(a, b, &p);
	CHECK_INT(r->n_common, 3);
	CHECK_INT(metric(r, "loss")->first_over, 3);
	CHECK_STR(metric(r, "loss")->max_abs_text, "0.00100");
	/* grad_norm printed by neither run: skipped with a note, not an error */
	CHECK(!has_reason(r, "metric_missing"));
	CHECK(metric(r, "grad_norm")->not_logged);
	CHECK_INT(r->n_notes, 1);
	CHECK(strstr(r->notes[0], "metric_not_logged") != NULL);
	done2(r, a, b);
}

/* The four fixtures: verdict, reason codes, first_over, exact max_abs. */
static void test_fixtures(void)
{
	static const struct {
		const char *name, *verdict, *codes;
		long first_over; /* -1 = null; same for loss and grad_norm */
		const char *max_loss, *max_gn;
	} fx[] = {
	        {"q1", "pass", "", -1, "0", "0"},
	        {"q2", "fail", "threshold_exceeded", 33, "0.00228", "0.0010"},
	        {"q3", "fail", "threshold_exceeded,nan_inf_mismatch", 70, "NaN", "NaN"},
	        {"q4", "error", "step_sets_differ", -1, "0", "0"},
	};
	for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++) {
		char path[512], rel[64];
		size_t na, nb;
		snprintf(rel, sizeof rel, "data/train/%s_a.log", fx[i].name);
		char *da = check_slurp(check_testfile(rel, path, sizeof path), &na);
		snprintf(rel, sizeof rel, "data/train/%s_b.log", fx[i].name);
		char *db = check_slurp(check_testfile(rel, path, sizeof path), &nb);
		struct matcher_trainrun *a = NULL, *b = NULL;
		CHECK(da && db);
		if (da && db && matcher_trainrun_parse_buffer(da, na, NULL, 0, &a, NULL) == 0 &&
		    matcher_trainrun_parse_buffer(db, nb, NULL, 0, &b, NULL) == 0) {
			struct matcher_train_result *r = check2(a, b, NULL);
			char codes[256] = "";
			for (size_t k = 0; k < r->n_reasons; k++) {
				if (strstr(codes, r->reasons[k].code))
					continue;
				size_t l = strlen(codes);
				snprintf(codes + l, sizeof codes - l, "%s%s", l ? "," : "",
				         r->reasons[k].code);
			}
			CHECK_STR(matcher_verdict_name(r->verdict), fx[i].verdict);
			CHECK_STR(codes, fx[i].codes);
			CHECK_STR(metric(r, "loss")->max_abs_text, fx[i].max_loss);
			CHECK_STR(metric(r, "grad_norm")->max_abs_text, fx[i].max_gn);
			CHECK_INT(metric(r, "loss")->has_first_over ? metric(r, "loss")->first_over
			                                            : -1,
			          fx[i].first_over);
			CHECK_INT(metric(r, "grad_norm")->has_first_over
			                  ? metric(r, "grad_norm")->first_over
			                  : -1,
			          fx[i].first_over);
			matcher_train_result_free(r);
		} else {
			CHECK(0);
		}
		matcher_trainrun_free(a);
		matcher_trainrun_free(b);
		free(da);
		free(db);
	}
}

int main(void)
{
	test_exact_boundary();
	test_nan_inf();
	test_zero_baseline();
	test_reason_codes();
	test_policies();
	test_resolution();
	test_rebuild_and_rows();
	test_unsorted();
	test_fixtures();
	return check_report();
}
