/* test_matcher_trainall.c - the compared set "every series both runs
 * logged" (traincheck.h: all_common, matcher_train_policy_compare_all):
 * when a policy switches to it, which series it compares (baseline order,
 * one-sided ones noted), their thresholds (a named one, else the preset's
 * default), the first difference, the single resolution note, and long
 * statistics-log names. */
#include "check.h"
#include "nvinspect.h"
#include "traincheck.h"

#include <stdio.h>
#include <stdlib.h>

#include "buf.h"

/* A run from statistics-log text (every series kept). */
static struct matcher_trainrun *run_of(const char *text)
{
	struct matcher_trainrun *r = matcher_trainrun_new(NULL, 0);
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(r);
	struct matcher_nvinspect_parser *p = matcher_nvinspect_parser_new(&cb, 0, 0);
	struct matcher_trainlog_summary sum;
	CHECK(matcher_nvinspect_feed(p, text, strlen(text)) == 0);
	CHECK(matcher_nvinspect_finish(p, &sum) == 0);
	matcher_trainrun_set_summary(r, &sum);
	matcher_nvinspect_parser_free(p);
	return r;
}

/* Five iterations of series names[0..n) with value base + it/10, except
 * series `bump` at iteration `at` (+ delta). */
static void stats(struct buf *b, const char *const *names, size_t n, const char *bump, int at,
                  double delta)
{
	buf_init(b);
	for (int it = 1; it <= 5; it++)
		for (size_t i = 0; i < n; i++) {
			double v = 1.0 + (double)i + it / 10.0;
			if (bump && !strcmp(names[i], bump) && it == at)
				v += delta;
			buf_printf(b, "INFO - %s \t iteration=%06d \t value=%.4f\n", names[i], it,
			           v);
		}
}

static int has_note(const struct matcher_train_result *r, const char *needle)
{
	for (size_t i = 0; i < r->n_notes; i++)
		if (strstr(r->notes[i], needle))
			return 1;
	return 0;
}

static void test_when(void)
{
	struct matcher_train_policy p;
	const char *names[] = {"loss"};
	CHECK(matcher_train_policy_preset(&p, "premerge") == 0);
	CHECK(p.all_abs == 1e-5);
	CHECK(matcher_train_policy_compare_all(&p) == 1 && p.all_common == 1);
	/* a threshold for one series keeps the default set: still all */
	CHECK(matcher_train_policy_preset(&p, "bitwise") == 0);
	CHECK(matcher_train_policy_set(&p, "l.fc1_weight_max", 0.5, 0, 0) == 0);
	CHECK(matcher_train_policy_compare_all(&p) == 1 && p.all_abs == 0);
	/* a named compared set is kept */
	CHECK(matcher_train_policy_preset(&p, "premerge") == 0);
	CHECK(matcher_train_policy_select(&p, names, 1, 1e-5) == 0);
	CHECK(matcher_train_policy_compare_all(&p) == 0 && p.all_common == 0);
	/* the noise policy compares its own set */
	CHECK(matcher_train_policy_preset(&p, "noise") == 0);
	CHECK(matcher_train_policy_compare_all(&p) == 0 && p.all_common == 0);
}

static void test_common_set(void)
{
	const char *na[] = {"l.fc1_activation_max", "l.fc1_gradient_std", "l.fc2_weight_min"};
	struct buf a, b;
	stats(&a, na, 3, NULL, 0, 0);
	/* the candidate: fc1_gradient_std (+1e-4 at 4), fc2_weight_min (+3e-4
	 * from 3), a series of its own instead of fc1_activation_max */
	buf_init(&b);
	for (int it = 1; it <= 5; it++) {
		buf_printf(&b, "INFO - l.fc1_gradient_std iteration=%d value=%.4f\n", it,
		           2.0 + it / 10.0 + (it == 4 ? 0.0001 : 0));
		buf_printf(&b, "INFO - l.fc2_weight_min iteration=%d value=%.4f\n", it,
		           3.0 + it / 10.0 + (it >= 3 ? 0.0003 : 0));
		buf_printf(&b, "INFO - l.fc2_output_mean iteration=%d value=1.0\n", it);
	}
	struct matcher_trainrun *ra = run_of(a.data), *rb = run_of(b.data);
	struct matcher_train_policy p;
	struct matcher_train_result *r = NULL;
	matcher_train_policy_preset(&p, "bitwise");
	matcher_train_policy_compare_all(&p);
	CHECK(matcher_train_check(ra, rb, &p, &r) == 0);
	CHECK(r->verdict == MATCHER_VERDICT_FAIL);
	/* the common series in the baseline's order */
	CHECK_INT(r->n_metrics, 2);
	CHECK_STR(r->metrics[0].name, "l.fc1_gradient_std");
	CHECK_STR(r->metrics[1].name, "l.fc2_weight_min");
	CHECK(r->metrics[0].th.abs == 0 && !r->metrics[0].th.if_logged);
	CHECK_INT(r->n_only_metrics[0], 1);
	CHECK_INT(r->n_only_metrics[1], 1);
	CHECK(has_note(r, "1 series only in the baseline and 1 only in the candidate"));
	/* the earliest difference wins over the order: fc2 at 3, fc1_gradient at 4 */
	CHECK(r->has_first_diff);
	CHECK_INT(r->first_diff_step, 3);
	CHECK_STR(r->metrics[r->first_diff_metric].name, "l.fc2_weight_min");
	CHECK_STR(r->metrics[1].max_abs_text, "0.0003");
	/* one resolution note for all the series, not one each */
	size_t n_res = 0;
	for (size_t i = 0; i < r->n_notes; i++)
		n_res += strstr(r->notes[i], "printed with") != NULL;
	CHECK_INT(n_res, 1);
	CHECK(has_note(r, "2 of 2 series are printed with fewer decimals"));
	matcher_train_result_free(r);

	/* a named threshold for one series: it passes; the other still fails */
	matcher_train_policy_preset(&p, "bitwise");
	CHECK(matcher_train_policy_set(&p, "l.fc2_weight_min", 0.001, 0, 0) == 0);
	matcher_train_policy_compare_all(&p);
	CHECK(matcher_train_check(ra, rb, &p, &r) == 0);
	CHECK(r->metrics[1].pass && !r->metrics[0].pass);
	CHECK_INT(r->first_diff_step, 4);
	CHECK_STR(r->metrics[r->first_diff_metric].name, "l.fc1_gradient_std");
	matcher_train_result_free(r);

	/* itself: bitwise pass, no first difference */
	CHECK(matcher_train_check(ra, ra, &p, &r) == 0);
	CHECK(r->verdict == MATCHER_VERDICT_PASS && !r->has_first_diff);
	CHECK_INT(r->n_metrics, 3);
	matcher_train_result_free(r);

	/* no series in common: an error, never a pass */
	struct matcher_trainrun *rc = run_of("INFO - other_weight_max iteration=1 value=1.0\n");
	matcher_train_policy_preset(&p, "bitwise");
	matcher_train_policy_compare_all(&p);
	CHECK(matcher_train_check(ra, rc, &p, &r) == 0);
	CHECK(r->verdict == MATCHER_VERDICT_ERROR && r->n_metrics == 0);
	CHECK_STR(r->reasons[r->n_reasons - 1].code, "metric_missing");
	CHECK(strstr(r->reasons[r->n_reasons - 1].message,
	             "no series in common (3 only in the baseline, 1 only in the candidate)") !=
	      NULL);
	matcher_train_result_free(r);
	matcher_trainrun_free(rc);

	/* without all_common the preset's loss is missing: an error */
	matcher_train_policy_preset(&p, "bitwise");
	CHECK(matcher_train_check(ra, ra, &p, &r) == 0);
	CHECK(r->verdict == MATCHER_VERDICT_ERROR);
	matcher_train_result_free(r);
	matcher_trainrun_free(ra);
	matcher_trainrun_free(rb);
	buf_reset(&a);
	buf_reset(&b);
}

/* Two series differ at one iteration: the first in file order is named. */
static void test_tie(void)
{
	const char *n[] = {"m.a_weight_max", "m.b_weight_max"};
	struct buf a, b;
	stats(&a, n, 2, NULL, 0, 0);
	buf_init(&b);
	for (int it = 1; it <= 5; it++)
		for (size_t i = 0; i < 2; i++)
			buf_printf(&b, "INFO - %s iteration=%d value=%.4f\n", n[i], it,
			           1.0 + (double)i + it / 10.0 + (it == 2 ? 0.5 : 0));
	struct matcher_trainrun *ra = run_of(a.data), *rb = run_of(b.data);
	struct matcher_train_policy p;
	struct matcher_train_result *r = NULL;
	matcher_train_policy_preset(&p, "premerge");
	matcher_train_policy_compare_all(&p);
	CHECK(matcher_train_check(ra, rb, &p, &r) == 0);
	CHECK(r->has_first_diff && r->first_diff_step == 2 && r->first_diff_metric == 0);
	matcher_train_result_free(r);
	matcher_trainrun_free(ra);
	matcher_trainrun_free(rb);
	buf_reset(&a);
	buf_reset(&b);
}

/* Names up to MATCHER_TRAIN_NAME - 1 bytes compare; longer ones are the
 * parser's error, with the line. */
static void test_long_names(void)
{
	char name[MATCHER_TRAIN_NAME + 8], line[512];
	memset(name, 'x', sizeof name);
	memcpy(name, "model.", 6);
	memcpy(name + MATCHER_TRAIN_NAME - 1 - 11, "_weight_max", 11);
	name[MATCHER_TRAIN_NAME - 1] = 0;
	snprintf(line, sizeof line, "INFO - %s iteration=1 value=1.0\n", name);
	struct matcher_trainrun *ra = run_of(line);
	struct matcher_train_policy p;
	struct matcher_train_result *r = NULL;
	matcher_train_policy_preset(&p, "bitwise");
	matcher_train_policy_compare_all(&p);
	CHECK(matcher_train_check(ra, ra, &p, &r) == 0);
	CHECK(r->verdict == MATCHER_VERDICT_PASS && r->n_metrics == 1);
	CHECK_STR(r->metrics[0].name, name);
	matcher_train_result_free(r);
	matcher_trainrun_free(ra);

	memcpy(name + MATCHER_TRAIN_NAME - 1 - 11, "x_weight_max", 12);
	name[MATCHER_TRAIN_NAME] = 0;
	snprintf(line, sizeof line, "INFO - %s iteration=1 value=1.0\n", name);
	struct matcher_nvinspect_parser *ps = matcher_nvinspect_parser_new(NULL, 0, 0);
	CHECK(matcher_nvinspect_feed(ps, line, strlen(line)) == -1);
	CHECK(strstr(matcher_nvinspect_error(ps)->message, "longer than 127 characters") != NULL);
	matcher_nvinspect_parser_free(ps);
}

int main(void)
{
	test_when();
	test_common_set();
	test_tie();
	test_long_names();
	return check_report();
}
