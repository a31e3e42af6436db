/* test_matcher_trainprec.c - training checks on full-precision sources
 * (issue 14): event files and golden loss files through trainsrc.h into
 * struct matcher_trainrun, then matcher_train_check.  Covers the done-when
 * items at library level: an event file against itself passes bitwise;
 * one float32 ulp fails bitwise naming the step and passes premerge; a
 * golden file and an event file with the same values pass bitwise; two
 * golden files that differ fail at the first differing step; a printed
 * log against a golden file compares at the printed resolution and says
 * so; no resolution note without a printed side. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "tfevents_writer.h"
#include "train_prec.h"
#include "traincheck.h"
#include "trainsrc.h"

static float loss_at(long s)
{
	return 10.0f / (1.0f + (float)s * 0.37f) + 0.001f * (float)(s % 7);
}

static struct matcher_trainrun *parse(const char *data, size_t n)
{
	struct matcher_trainrun *run = matcher_trainrun_new(NULL, 0);
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(run);
	struct matcher_trainsrc *p =
	        matcher_trainsrc_new(matcher_detect_source(data, n), &cb, 0, 0);
	struct matcher_trainlog_summary sum;
	int rc = matcher_trainsrc_feed(p, data, n);
	if (rc == 0)
		rc = matcher_trainsrc_finish(p, &sum);
	if (rc == 0)
		matcher_trainrun_set_summary(run, &sum);
	else
		fprintf(stderr, "parse: %s\n", matcher_trainsrc_error(p)->message);
	CHECK(rc == 0);
	matcher_trainsrc_free(p);
	return run;
}

/* Event file with steps 1..n (loss, grad_norm); step `ulp` moved one ulp. */
static struct matcher_trainrun *events(long n, long ulp)
{
	struct buf f = BUF_INIT;
	tfw_file_version(&f, 1.0);
	for (long s = 1; s <= n; s++) {
		float l = loss_at(s);
		if (s == ulp)
			l = nextafterf(l, INFINITY);
		tfw_scalar(&f, 1.0, s, MATCHER_TFEVENTS_LOSS_TAG, l, TFW_SIMPLE);
		tfw_scalar(&f, 1.0, s, "grad_norm", 1.5 + (double)s / 8, TFW_FLOAT_VAL);
	}
	CHECK(matcher_detect_source(f.data, f.len) == MATCHER_SOURCE_TFEVENTS);
	struct matcher_trainrun *r = parse(f.data, f.len);
	buf_reset(&f);
	return r;
}

/* Golden file of the same losses (Python repr of the float32 as double). */
static struct matcher_trainrun *golden(long n, long ulp, int printed)
{
	struct buf f = BUF_INIT;
	buf_puts(&f, printed ? "" : "# golden\n");
	for (long s = 1; s <= n; s++) {
		float l = loss_at(s);
		if (s == ulp)
			l = nextafterf(l, INFINITY);
		char t[40];
		matcher_format_binary(l, 0, t, sizeof t);
		if (printed)
			buf_printf(&f, "step: %ld  loss: %.5f\n", s, (double)l);
		else
			buf_printf(&f, "%ld %s\n", s, t);
	}
	CHECK(matcher_detect_source(f.data, f.len) ==
	      (printed ? MATCHER_SOURCE_STDOUT : MATCHER_SOURCE_LOSSFILE));
	struct matcher_trainrun *r = parse(f.data, f.len);
	buf_reset(&f);
	return r;
}

static struct matcher_train_result *check(const struct matcher_trainrun *a,
                                          const struct matcher_trainrun *b, const char *policy)
{
	struct matcher_train_policy pol;
	struct matcher_train_result *res = NULL;
	CHECK(matcher_train_policy_preset(&pol, policy) == 0);
	CHECK(matcher_train_check(a, b, &pol, &res) == 0);
	return res;
}

static int has_note(const struct matcher_train_result *r, const char *part)
{
	for (size_t i = 0; i < r->n_notes; i++)
		if (strstr(r->notes[i], part))
			return 1;
	return 0;
}

static void test_events(void)
{
	struct matcher_trainrun *a = events(30, 0), *b = events(30, 12);
	struct matcher_train_result *r = check(a, a, "bitwise");
	CHECK(r->verdict == MATCHER_VERDICT_PASS && r->n_notes == 0);
	CHECK(r->metrics[0].max_abs == 0 && !r->metrics[0].has_resolution);
	matcher_train_result_free(r);
	r = check(a, b, "bitwise");
	CHECK(r->verdict == MATCHER_VERDICT_FAIL);
	CHECK(r->n_reasons == 1 && !strcmp(r->reasons[0].code, "threshold_exceeded"));
	CHECK(r->reasons[0].has_step && r->reasons[0].step == 12);
	float l = loss_at(12);
	CHECK(r->metrics[0].max_abs == (double)nextafterf(l, INFINITY) - (double)l);
	CHECK(r->metrics[0].n_over == 1);
	matcher_train_result_free(r);
	r = check(a, b, "premerge");
	CHECK(r->verdict == MATCHER_VERDICT_PASS && r->n_notes == 0);
	matcher_train_result_free(r);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
}

static void test_golden(void)
{
	struct matcher_trainrun *e = events(30, 0), *g = golden(30, 0, 0), *g2 = golden(30, 9, 0);
	struct matcher_trainrun *s = golden(30, 0, 1);
	struct matcher_train_result *r = check(g, e, "bitwise");
	CHECK(r->verdict == MATCHER_VERDICT_PASS);
	CHECK(has_note(r, "loss: the baseline's values are decimal (golden loss file), the "
	                  "candidate's float32 (TensorBoard): they are compared at float32"));
	CHECK(has_note(r, "grad_norm: not compared: the baseline is a golden loss file"));
	matcher_train_result_free(r);
	r = check(g, g2, "bitwise");
	CHECK(r->verdict == MATCHER_VERDICT_FAIL);
	CHECK(r->n_reasons == 1 && r->reasons[0].step == 9);
	CHECK(!has_note(r, "resolution"));
	matcher_train_result_free(r);
	/* printed vs golden: the golden value rounded to 5 decimals */
	r = check(s, g, "bitwise");
	CHECK(r->verdict == MATCHER_VERDICT_PASS);
	CHECK(has_note(r, "compared at the printed resolution (5 decimals)"));
	CHECK(has_note(r, "loss is printed with 5 decimals"));
	matcher_train_result_free(r);
	matcher_trainrun_free(e);
	matcher_trainrun_free(g);
	matcher_trainrun_free(g2);
	matcher_trainrun_free(s);
}

static void test_diff(void)
{
	double abs;
	char t[48];
	matcher_train_prec_diff(1.0, 0, MATCHER_PREC_FLOAT32, 1.0, 0, MATCHER_PREC_FLOAT32, &abs, t,
	                        sizeof t);
	CHECK(abs == 0 && !strcmp(t, "0"));
	/* decimal text against float32: the decimal is rounded to float32 */
	matcher_train_prec_diff(0.1, 1, MATCHER_PREC_DECIMAL, (double)0.1f, 0, MATCHER_PREC_FLOAT32,
	                        &abs, t, sizeof t);
	CHECK(abs == 0);
	/* two decimals: exact on the digits */
	matcher_train_prec_diff(2.0, 1, MATCHER_PREC_DECIMAL, 2.00001, 5, MATCHER_PREC_DECIMAL,
	                        &abs, t, sizeof t);
	CHECK(!strcmp(t, "0.00001") && abs == 1e-5);
	/* printed vs decimal: at the printed decimals */
	matcher_train_prec_diff(2.12346, 5, MATCHER_PREC_PRINTED, 2.123456789, 9,
	                        MATCHER_PREC_DECIMAL, &abs, t, sizeof t);
	CHECK(abs == 0);
	matcher_train_prec_diff(2.12345, 5, MATCHER_PREC_PRINTED, 2.123456789, 9,
	                        MATCHER_PREC_DECIMAL, &abs, t, sizeof t);
	CHECK(!strcmp(t, "0.00001"));
	CHECK(matcher_train_prec_rank(MATCHER_PREC_PRINTED) <
	      matcher_train_prec_rank(MATCHER_PREC_FLOAT32));
	CHECK(matcher_train_prec_rank(MATCHER_PREC_FLOAT32) <
	      matcher_train_prec_rank(MATCHER_PREC_DECIMAL));
}

int main(void)
{
	test_events();
	test_golden();
	test_diff();
	return check_report();
}
