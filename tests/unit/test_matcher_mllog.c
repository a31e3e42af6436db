/* test_matcher_mllog.c - the MLPerf MLLOG parser (matcher/mllog.h): rank
 * prefixes and ignored lines, series and their step axis, values with
 * Python's repr digits, NaN / Infinity, meta, copies, every refusal with
 * its line, feeding in any split equals feeding whole, detection (kind and
 * source), and the two real DeepCAM results (tests/data/mllog/): their
 * series and step counts, each against itself bitwise, Clemson against
 * Dell failing at epoch 1. */
#include <math.h>

#include "buf.h"
#include "check.h"
#include "mllog.h"
#include "traincheck.h"
#include "trainsrc.h"

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct buf *t = ctx;
	CHECK(r->n_metrics >= 1 && r->kind == MATCHER_STEP_NEW && r->rank == 3);
	buf_printf(t, "%c%ld@%lu", r->validation ? 'V' : 'T', r->step, r->line);
	for (size_t k = 0; k < r->n_metrics; k++) {
		CHECK(r->metrics[k].prec == MATCHER_PREC_DECIMAL);
		buf_printf(t, " %s=%s/%d", r->metrics[k].name, r->metrics[k].text,
		           r->metrics[k].decimals);
	}
	buf_putc(t, '\n');
	return 0;
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct buf *t = ctx;
	buf_printf(t, "W %s %lu: %s\n", w->code, w->line, w->message);
	return 0;
}

/* Parse s[0..n) in chunks of `chunk` bytes (0 whole); transcript (records,
 * warnings, the outcome, the meta) into *t. */
static int parse_n(const char *s, size_t n, size_t chunk, struct buf *t)
{
	struct matcher_trainlog_callbacks cb = {t, on_step, on_warning};
	struct matcher_mllog_parser *p = matcher_mllog_parser_new(&cb, 3, 0);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	buf_init(t);
	while (rc == 0 && off < n) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		rc = matcher_mllog_feed(p, s + off, k);
		off += k;
	}
	if (rc == 0)
		rc = matcher_mllog_finish(p, &sum);
	if (rc == 0) {
		buf_printf(t, "ok %zu steps %zu validation %zu copies %lu lines %zu warnings\n",
		           sum.n_steps, sum.n_validation, sum.n_copies, sum.n_lines,
		           sum.n_warnings);
		const char *k, *v;
		size_t nm = matcher_mllog_meta(p, 0, &k, &v);
		for (size_t i = 0; i < nm; i++) {
			matcher_mllog_meta(p, i, &k, &v);
			buf_printf(t, "M %s=%s\n", k, v);
		}
	} else {
		buf_printf(t, "error %s line %lu: %s\n", matcher_mllog_error(p)->code,
		           matcher_mllog_error(p)->line, matcher_mllog_error(p)->message);
		CHECK(matcher_mllog_feed(p, "x\n", 2) == -1); /* dead stays dead */
	}
	matcher_mllog_parser_free(p);
	return rc;
}

static int parse(const char *s, size_t chunk, struct buf *t)
{
	return parse_n(s, strlen(s), chunk, t);
}

#define EV(type, key, value, md)                                                                   \
	":::MLLOG {\"namespace\": \"\", \"time_ms\": 1691208622022, \"event_type\": \"" type       \
	"\", \"key\": \"" key "\", \"value\": " value ", \"metadata\": {\"file\": "                \
	"\"train.py\", \"lineno\": 56" md "}}"

/* A small log: launcher prefixes, chatter, config keys, two epochs. */
static const char LOG[] = "Sat Aug  5 00:10:22 2023 starting\n" EV(
        "POINT_IN_TIME", "submission_benchmark", "\"deepcam\"",
        "") "\n"
            "0: " EV("POINT_IN_TIME", "submission_org", "\"Cl\\u00e9mson\"",
                     "") "\n"
                         "[1,0]<stdout>:" EV(
                                 "POINT_IN_TIME", "global_batch_size", "144",
                                 "") "\r\n"
                                     "[1,1]<stdout>:" EV(
                                             "POINT_IN_TIME", "global_batch_size", "256",
                                             "") "\n"
                                                 "ray-training  | [0] " EV(
                                                         "POINT_IN_TIME", "opt_betas",
                                                         "[0.9, 0.999]",
                                                         "") "\n"
                                                             "\t" EV("POINT_IN_TIME",
                                                                     "opt_max_grad_norm",
                                                                     "1.0", "") "\n"
                                                                                "not an event: "
                                                                                ":::MLLOG is "
                                                                                "mentioned, no "
                                                                                "JSON\n" EV(
                                                                                        "INTERVAL_"
                                                                                        "START",
                                                                                        "epoch_"
                                                                                        "start",
                                                                                        "null",
                                                                                        ", "
                                                                                        "\"epoch_"
                                                                                        "num\": 1, "
                                                                                        "\"step_"
                                                                                        "num\": 0") "\n"
                                                                                                    "step 5 of 842 ...\n" EV("POINT_IN_TIME", "train_loss",
                                                                                                                             "0.01748511753976345", ", \"epoch_num\": 1, \"step_num\": 842") "\n" EV("POINT_IN_TIME", "learning_rate", "1e-05", ", \"epoch_num\": 1, \"step_num\": 842") "\n"
                                                                                                                                                                                                                                                                                         "0: " EV(
                                                                                                                                                                                                                                                                                                 "POINT_IN_TIME", "train_loss", "0.01748511753976345", ", \"epoch_num\": 1, \"step_num\": 842") "\n" EV("POINT_IN_TIME",
                                                                                                                                                                                                                                                                                                                                                                                                        "eval_accuracy",
                                                                                                                                                                                                                                                                                                                                                                                                        "0.6646025776863098",
                                                                                                                                                                                                                                                                                                                                                                                                        ", \"epoch_num\": 1, \"step_num\": 842") "\n" EV("POINT_IN_TIME",
                                                                                                                                                                                                                                                                                                                                                                                                                                                         "tracked_stats",
                                                                                                                                                                                                                                                                                                                                                                                                                                                         "{\"throughput\": 330.5, "
                                                                                                                                                                                                                                                                                                                                                                                                                                                         "\"tag\": \"x\"}",
                                                                                                                                                                                                                                                                                                                                                                                                                                                         ", \"step\": 842") "\n" EV("POINT_IN_TIME",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    "train_loss",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                    "NaN", ", \"epoch_num\": 2, \"step_num\": 1684") "\n" EV("POINT_IN_TIME", "tracked_stats", "{\"throughput\": -Infinity}", ", \"epoch_num\": 2") "\n" EV("POINT_IN_TIME", "eval_accuracy", "0.7",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                            ", \"epoch_num\": 2, \"step_num\": 1684") "\n" EV("POINT_IN_TIME",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              "eval_loss",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                              "2", ", \"samples_count\": 77") "\n" EV("INTERVAL_END", "run_stop", "null", ", \"status\": \"success\", \"epoch_num\": 2") "\n"
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                         "done";

static void test_values(void)
{
	struct buf a, b;
	CHECK(parse(LOG, 0, &a) == 0);
	CHECK_STR(a.data,
	          "T1@11 loss=0.01748511753976345/17 learning_rate=1e-05/5 "
	          "eval_accuracy=0.6646025776863098/16\n"
	          "W skipped_value 19: line 19: eval_loss has no whole-number epoch_num (the "
	          "run's step): its value is skipped\n"
	          "T2@16 loss=nan/0 throughput=-inf/0 eval_accuracy=0.7/1\n"
	          "ok 2 steps 0 validation 1 copies 21 lines 1 warnings\n"
	          "M submission_benchmark=deepcam\n"
	          "M submission_org=Cl\xc3\xa9mson\n"
	          "M global_batch_size=144\n"
	          "M opt_betas=[0.9, 0.999]\n"
	          "M opt_max_grad_norm=1.0\n"
	          "M run_stop_status=success\n");
	/* any split gives the same transcript */
	for (size_t chunk = 1; chunk < 200; chunk += chunk < 20 ? 1 : 37) {
		CHECK(parse(LOG, chunk, &b) == 0);
		CHECK_STR(b.data, a.data);
		buf_reset(&b);
	}
	buf_reset(&a);
}

static void test_axes(void)
{
	struct buf a;
	/* samples_count before epoch_num; the value's own digits */
	CHECK(parse(EV("POINT_IN_TIME", "train_loss", "3.5",
	               ", \"samples_count\": 430, \"epoch_num\": 1, \"lr\": "
	               "0.00022") "\n" EV("POINT_IN_TIME", "train_loss", "3.25",
	                                  ", \"samples_count\": 860") "\n",
	            0, &a) == 0);
	CHECK_STR(a.data, "T430@1 loss=3.5/1\nT860@2 loss=3.25/2\n"
	                  "ok 2 steps 0 validation 0 copies 2 lines 0 warnings\n");
	buf_reset(&a);
	/* step_num alone; a whole-number real counts; a fraction does not */
	CHECK(parse(EV("POINT_IN_TIME", "eval_accuracy", "0.5", ", \"epoch_num\": 0.25") "\n" EV(
	                    "POINT_IN_TIME", "eval_accuracy", "0.6",
	                    ", \"epoch_num\": 0.5, \"step_num\": 20.0") "\n",
	            0, &a) == 0);
	CHECK_STR(a.data, "W skipped_value 1: line 1: eval_accuracy has no samples_count, "
	                  "epoch_num or step_num that is a whole number: its value is skipped\n"
	                  "T20@2 eval_accuracy=0.6/1\n"
	                  "ok 1 steps 0 validation 0 copies 2 lines 1 warnings\n");
	buf_reset(&a);
	/* a key that is no metric name */
	CHECK(parse(EV("POINT_IN_TIME", "train loss", "1", ", \"epoch_num\": 1") "\n" EV(
	                    "POINT_IN_TIME", "train_loss", "1", ", \"epoch_num\": 1") "\n",
	            0, &a) == 0);
	CHECK(strstr(a.data, "W skipped_value 1: line 1: train loss is not a metric name") &&
	      strstr(a.data, "T1@2 loss=1/0\n"));
	buf_reset(&a);
}

static void test_refusals(void)
{
	struct buf a;
	CHECK(parse("hello\n0: :::MLLOG {\"key\": \"train_loss\", \"value\": 1.5,, }\n", 0, &a) ==
	      -1);
	CHECK_STR(a.data, "error bad_json line 2: line 2, column 48: the MLLOG JSON is broken: "
	                  "string or '}' expected near ','\n");
	buf_reset(&a);
	CHECK(parse(EV("POINT_IN_TIME", "train_loss", "1",
	               ", \"epoch_num\": 1") "\n"
	                                     ":::MLLOG {\"key\": 1}\n",
	            0, &a) == -1);
	CHECK_STR(a.data, "error not_mllog_event line 2: line 2: an MLLOG event is a JSON object "
	                  "with a string \"key\"\n");
	buf_reset(&a);
	CHECK(parse(EV("POINT_IN_TIME", "train_loss", "1", ", \"epoch_num\": 2") "\n" EV(
	                    "POINT_IN_TIME", "train_loss", "1", ", \"epoch_num\": 1") "\n",
	            0, &a) == -1);
	CHECK_STR(a.data, "error step_order line 2: line 2: train_loss at epoch_num 1 comes after "
	                  "epoch_num 2 (line 1): steps must not go back\n");
	buf_reset(&a);
	CHECK(parse(EV("POINT_IN_TIME", "eval_accuracy", "0.5", ", \"epoch_num\": 2") "\n" EV(
	                    "POINT_IN_TIME", "eval_accuracy", "0.50001", ", \"epoch_num\": 2") "\n",
	            0, &a) == -1);
	CHECK_STR(a.data, "error step_order line 2: line 2: eval_accuracy at epoch_num 2 is "
	                  "0.50001, but line 1 gave 0.5: one step, two values\n");
	buf_reset(&a);
	CHECK(parse("no events here\n", 0, &a) == -1);
	CHECK_STR(a.data, "error no_values line 0: no `:::MLLOG` line in 1 lines\n");
	buf_reset(&a);
	CHECK(parse(EV("POINT_IN_TIME", "seed", "1", "") "\n", 0, &a) == -1);
	CHECK(strstr(a.data, "error no_values line 0: no values in 1 MLLOG lines") != NULL);
	buf_reset(&a);
	CHECK(parse_n("x\n:::MLLOG {\"key\": \"a\0\"}\n", 25, 0, &a) == -1);
	CHECK(strstr(a.data, "error binary_data line 2:") != NULL);
	buf_reset(&a);
	/* a long MLLOG line is refused, a long other line is dropped */
	struct buf big = BUF_INIT;
	buf_puts(&big, EV("POINT_IN_TIME", "train_loss", "1", ", \"epoch_num\": 1") "\n");
	for (int i = 0; i < 70000; i++)
		buf_putc(&big, 'x');
	buf_puts(&big, "\n" EV("POINT_IN_TIME", "train_loss", "2", ", \"epoch_num\": 2") "\n");
	CHECK(parse(big.data, 4096, &a) == 0);
	CHECK_STR(a.data, "T1@1 loss=1/0\nT2@3 loss=2/0\n"
	                  "ok 2 steps 0 validation 0 copies 3 lines 0 warnings\n");
	buf_reset(&a);
	buf_clear(&big);
	buf_puts(&big, ":::MLLOG {\"key\": \"");
	for (int i = 0; i < 70000; i++)
		buf_putc(&big, 'x');
	buf_puts(&big, "\"}\n");
	CHECK(parse(big.data, 1000, &a) == -1);
	CHECK_STR(a.data,
	          "error line_too_long line 1: line 1 is an MLLOG line longer than 65536 bytes\n");
	buf_reset(&a);
	buf_reset(&big);
	/* too many values at one step */
	for (int i = 0; i <= MATCHER_MLLOG_METRICS; i++)
		buf_printf(
		        &big,
		        ":::MLLOG {\"event_type\": \"POINT_IN_TIME\", \"key\": \"m%d\", \"value\": "
		        "1, \"metadata\": {\"epoch_num\": 1}}\n",
		        i);
	CHECK(parse(big.data, 0, &a) == -1);
	CHECK_STR(a.data, "error too_many_metrics line 33: line 33: more than 32 values at "
	                  "epoch_num 1\n");
	buf_reset(&a);
	buf_reset(&big);
}

static void test_detect(void)
{
	const char *ev = EV("POINT_IN_TIME", "train_loss", "1", ", \"epoch_num\": 1") "\n";
	struct buf f = BUF_INIT;
	size_t at = 0;
	CHECK(matcher_mllog_line("0: :::MLLOG {\"a\": 1}", 21, &at) == 1 && at == 12);
	CHECK(matcher_mllog_line(":::MLLOG{}", 10, NULL) == 0);
	CHECK(matcher_mllog_line("grep :::MLLOG file", 18, NULL) == 0);
	CHECK(matcher_mllog_detect(ev, strlen(ev)) == 1);
	CHECK(matcher_mllog_detect(ev, strlen(ev) - 1) == 0); /* a partial line */
	CHECK(matcher_detect_kind(ev, strlen(ev)) == MATCHER_KIND_TRAINING);
	CHECK(matcher_detect_source(ev, strlen(ev)) == MATCHER_SOURCE_MLLOG);
	CHECK_STR(matcher_source_name(MATCHER_SOURCE_MLLOG), "mllog");
	enum matcher_source src;
	CHECK(matcher_source_from_name("mllog", &src) == 0 && src == MATCHER_SOURCE_MLLOG);
	/* a stdout log that prints MLLOG events after its metric lines stays stdout */
	buf_printf(&f, "[rank0]: step: 1  loss: 8.1  grad_norm: 1.2\n%s", ev);
	CHECK(matcher_mllog_detect(f.data, f.len) == 0);
	CHECK(matcher_detect_source(f.data, f.len) == MATCHER_SOURCE_STDOUT);
	buf_clear(&f);
	buf_printf(&f, "chatter\n%s[rank0]: step: 1  loss: 8.1\n", ev);
	CHECK(matcher_detect_source(f.data, f.len) == MATCHER_SOURCE_MLLOG);
	buf_reset(&f);
	/* other text mentioning MLLOG is not a training log */
	const char *t = "see the :::MLLOG lines in result_0.txt\n"
	                "`:::MLLOG {json}` lines, among other output\n"
	                ":::MLLOG {\"value\": 1}\n";
	CHECK(matcher_detect_kind(t, strlen(t)) == MATCHER_KIND_UNKNOWN);
	CHECK(matcher_mllog_detect(t, strlen(t)) == 0);
	CHECK(matcher_mllog_event_line(ev, strlen(ev) - 1) == 1);
	CHECK(matcher_mllog_event_line("0: :::MLLOG {\"key\": 1} \r", 24) == 1);
}

/* A real result file through trainsrc.h into a run (source detected). */
static struct matcher_trainrun *real(const char *name, struct matcher_trainlog_summary *sum,
                                     size_t *n_meta, const char *benchmark)
{
	char path[512];
	size_t n = 0;
	snprintf(path, sizeof path, "%s/data/mllog/%s", PARITY_TESTS_DIR, name);
	char *data = check_slurp(path, &n);
	struct matcher_trainrun *run = matcher_trainrun_new(NULL, 0);
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(run);
	CHECK(data && matcher_detect_kind(data, n) == MATCHER_KIND_TRAINING);
	CHECK(data && matcher_detect_source(data, n) == MATCHER_SOURCE_MLLOG);
	struct matcher_trainsrc *p = matcher_trainsrc_new(MATCHER_SOURCE_MLLOG, &cb, 0, 0);
	CHECK(matcher_trainsrc_feed(p, data, n) == 0 && matcher_trainsrc_finish(p, sum) == 0);
	matcher_trainrun_set_summary(run, sum);
	const char *k, *v;
	*n_meta = matcher_trainsrc_meta(p, 0, &k, &v);
	const char *bench = NULL;
	for (size_t i = 0; i < *n_meta; i++)
		if (matcher_trainsrc_meta(p, i, &k, &v) && !strcmp(k, "submission_benchmark"))
			bench = v;
	CHECK(bench != NULL);
	CHECK_STR(bench ? bench : "", benchmark);
	matcher_trainsrc_free(p);
	free(data);
	return run;
}

/* a against b under bitwise; metric: the compared set (NULL: the
 * default loss, grad_norm) */
static struct matcher_train_result *check(const struct matcher_trainrun *a,
                                          const struct matcher_trainrun *b, const char *metric)
{
	struct matcher_train_policy pol;
	struct matcher_train_result *res = NULL;
	CHECK(matcher_train_policy_preset(&pol, "bitwise") == 0);
	if (metric)
		CHECK(matcher_train_policy_select(&pol, &metric, 1, 0.0) == 0);
	CHECK(matcher_train_check(a, b, &pol, &res) == 0);
	return res;
}

static void test_real(void)
{
	struct matcher_trainlog_summary sa, sb;
	size_t ma, mb;
	struct matcher_trainrun *a = real("deepcam_clemson_result_1.txt", &sa, &ma, "deepcam");
	struct matcher_trainrun *b = real("deepcam_dell_result_0.txt", &sb, &mb, "deepcam");
	CHECK(sa.n_steps == 9 && sa.n_validation == 0 && sa.n_lines == 144 && sa.n_warnings == 0);
	CHECK(sb.n_steps == 9 && sb.n_validation == 0 && sb.n_lines == 143 && sb.n_warnings == 0);
	CHECK_INT(ma, 39); /* counted independently with Python's json */
	CHECK_INT(mb, 38);
	const struct matcher_train_series *s = matcher_trainrun_series(a, 0, 0);
	CHECK(s && s->n_steps == 9 && s->steps[0] == 1 && s->steps[8] == 9);
	CHECK(matcher_train_series_column(s, "loss") &&
	      matcher_train_series_column(s, "train_accuracy") &&
	      matcher_train_series_column(s, "learning_rate") &&
	      matcher_train_series_column(s, "throughput") &&
	      matcher_train_series_column(s, "eval_accuracy") &&
	      matcher_train_series_column(s, "eval_loss"));
	CHECK(matcher_trainrun_series(a, 0, 1) == NULL);
	struct matcher_train_result *r = check(a, a, NULL);
	CHECK(r->verdict == MATCHER_VERDICT_PASS && r->metrics[0].n_compared == 9);
	matcher_train_result_free(r);
	r = check(b, b, NULL);
	CHECK(r->verdict == MATCHER_VERDICT_PASS);
	matcher_train_result_free(r);
	/* Clemson (batch 144) vs Dell (batch 256): epoch 1's loss already
	 * differs, 0.01869264431297779 - 0.017406122758984566 exactly */
	r = check(a, b, NULL);
	CHECK(r->verdict == MATCHER_VERDICT_FAIL);
	CHECK(r->n_reasons >= 1 && !strcmp(r->reasons[0].code, "threshold_exceeded") &&
	      r->reasons[0].has_step && r->reasons[0].step == 1);
	CHECK_STR(r->metrics[0].name, "loss");
	CHECK(r->metrics[0].has_first_over && r->metrics[0].first_over == 1 &&
	      r->metrics[0].n_over == 9);
	matcher_train_result_free(r);
	/* the quality metric alone: 0.6260235905647278 vs 0.5847589373588562 */
	r = check(a, b, "eval_accuracy");
	CHECK(r->verdict == MATCHER_VERDICT_FAIL && r->n_metrics == 1);
	CHECK(r->metrics[0].has_first_over && r->metrics[0].first_over == 1 &&
	      r->metrics[0].n_compared == 9);
	matcher_train_result_free(r);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
}

/* A result file with eval_accuracy only (most MLPerf benchmarks log no
 * train_loss): comparable on it; the real OpenFold result, then a small
 * one over samples_count. */
static void test_eval_only(void)
{
	struct matcher_trainlog_summary so;
	size_t mo;
	struct matcher_trainrun *of = real("openfold_clemson_result_1.txt", &so, &mo, "openfold");
	CHECK(so.n_steps == 15 && so.n_warnings == 0 && so.n_lines == 132);
	const struct matcher_train_series *s = matcher_trainrun_series(of, 0, 0);
	CHECK(s && s->n_steps == 15 && s->steps[0] == 5760 && s->steps[14] == 86400);
	struct matcher_train_result *ro = check(of, of, "eval_accuracy");
	CHECK(ro->verdict == MATCHER_VERDICT_PASS && ro->metrics[0].n_compared == 15);
	matcher_train_result_free(ro);
	matcher_trainrun_free(of);

	static const char *const acc[] = {"0.93", "0.925", "0.92"};
	struct buf f = BUF_INIT;
	buf_puts(&f, EV("POINT_IN_TIME", "submission_org", "\"x\"", "") "\n");
	for (int i = 0; i < 3; i++)
		buf_printf(
		        &f,
		        ":::MLLOG {\"event_type\": \"POINT_IN_TIME\", \"key\": \"eval_accuracy\", "
		        "\"value\": %s, \"metadata\": {\"samples_count\": %d}}\n",
		        acc[i], 1536 + 384 * i);
	struct matcher_trainrun *run = matcher_trainrun_new(NULL, 0);
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(run);
	struct matcher_trainsrc *p =
	        matcher_trainsrc_new(matcher_detect_source(f.data, f.len), &cb, 0, 0);
	struct matcher_trainlog_summary sum;
	CHECK(matcher_trainsrc_source(p) == MATCHER_SOURCE_MLLOG);
	CHECK(matcher_trainsrc_feed(p, f.data, f.len) == 0 &&
	      matcher_trainsrc_finish(p, &sum) == 0);
	CHECK(sum.n_steps == 3);
	matcher_trainsrc_free(p);
	struct matcher_train_result *r = check(run, run, "eval_accuracy");
	CHECK(r->verdict == MATCHER_VERDICT_PASS && r->metrics[0].n_compared == 3);
	matcher_train_result_free(r);
	r = check(run, run, NULL); /* no train_loss: the default set lacks loss */
	CHECK(r->verdict == MATCHER_VERDICT_ERROR);
	matcher_train_result_free(r);
	matcher_trainrun_free(run);
	buf_reset(&f);
}

int main(void)
{
	test_values();
	test_axes();
	test_refusals();
	test_detect();
	test_real();
	test_eval_only();
	return check_report();
}
