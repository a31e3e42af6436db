/* test_matcher_megatron.c - the Megatron-LM golden values parser
 * (matcher/megatron.h): both forms, "nan", the merge of metrics by step,
 * Python-repr value texts, name mapping, top-level scalars as meta, every
 * refusal naming its key, chunking invariance (1 byte at a time equals
 * whole), detection, the real files of tests/data/megatron/, and the
 * policy "megatron" (its allowance of failing steps, the window median of
 * iteration-time, its stored form). */
#include "check.h"
#include "megatron.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"
#include "traincheck.h"
#include "trainpolicy.h"
#include "trainsrc.h"

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct buf *t = ctx;
	CHECK(r->n_metrics >= 1 && r->kind == MATCHER_STEP_NEW && r->validation == 0);
	buf_printf(t, "%d:%ld", r->rank, r->step);
	for (size_t k = 0; k < r->n_metrics; k++)
		buf_printf(t, " %s=%s/%d/%d/%.17g", r->metrics[k].name, r->metrics[k].text,
		           r->metrics[k].decimals, r->metrics[k].prec, r->metrics[k].value);
	buf_putc(t, '\n');
	return 0;
}

static int stop_at_first(void *ctx, const struct matcher_step_record *r)
{
	(void)ctx;
	(void)r;
	return 1;
}

/* Parse s[0..n) in chunks of `chunk` bytes (0 whole); transcript into *t. */
static int parse_n(const char *s, size_t n, size_t chunk, struct buf *t)
{
	struct matcher_trainlog_callbacks cb = {t, on_step, NULL};
	struct matcher_megatron_parser *p = matcher_megatron_parser_new(&cb, 1, 0);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	buf_init(t);
	while (rc == 0 && off < n) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		rc = matcher_megatron_feed(p, s + off, k);
		off += k;
	}
	if (rc == 0)
		rc = matcher_megatron_finish(p, &sum);
	if (rc == 0) {
		buf_printf(t, "ok %zu steps %lu lines\n", sum.n_steps, sum.n_lines);
		const char *k, *v;
		size_t nm = matcher_megatron_meta(p, 0, &k, &v);
		for (size_t i = 0; i < nm; i++) {
			matcher_megatron_meta(p, i, &k, &v);
			buf_printf(t, "meta %s=%s\n", k, v);
		}
	} else {
		buf_printf(t, "error %s line %lu: %s\n", matcher_megatron_error(p)->code,
		           matcher_megatron_error(p)->line, matcher_megatron_error(p)->message);
	}
	matcher_megatron_parser_free(p);
	return rc;
}

static int parse(const char *s, size_t chunk, struct buf *t)
{
	return parse_n(s, strlen(s), chunk, t);
}

static void test_dict_form(void)
{
	/* two metrics on different step sets: merged per step, file order */
	const char *f = "{\n"
	                "    \"lm loss\": {\n"
	                "        \"start_step\": 1,\n"
	                "        \"end_step\": 10,\n"
	                "        \"step_interval\": 5,\n"
	                "        \"values\": {\"1\": 10.85678, \"5\": \"nan\", \"10\": 1e-05}\n"
	                "    },\n"
	                "    \"num-zeros\": {\"start_step\": 5, \"end_step\": 15, "
	                "\"step_interval\": 5,\n"
	                "        \"values\": {\"5\": 1654.0, \"10\": 2463815680.0, \"15\": 7}},\n"
	                "    \"mtp_1 loss\": {\"start_step\": 1, \"end_step\": 1, "
	                "\"step_interval\": 1, \"values\": {\"1\": -0.00012}}\n"
	                "}\n";
	struct buf a, b;
	CHECK(parse(f, 0, &a) == 0);
	CHECK_STR(a.data, "1:1 loss=10.85678/5/1/10.856780000000001 mtp_1_loss=-0.00012/5/1/"
	                  "-0.00012\n"
	                  "1:5 loss=nan/0/1/nan num-zeros=1654.0/1/1/1654\n"
	                  "1:10 loss=1e-05/5/1/1.0000000000000001e-05 "
	                  "num-zeros=2463815680.0/1/1/2463815680\n"
	                  "1:15 num-zeros=7/0/1/7\n"
	                  "ok 4 steps 11 lines\n");
	/* split feeding, down to 1 byte at a time, equals whole */
	for (size_t chunk = 1; chunk < 9; chunk++) {
		CHECK(parse(f, chunk, &b) == 0);
		CHECK_STR(b.data, a.data);
		buf_reset(&b);
	}
	buf_reset(&a);
}

/* The older list form (Megatron-LM's gpt3_mcore_tp1_pp2_fp16 golden
 * values): steps start + i * interval, end exclusive in practice; the
 * top-level "iteration_timing_avg" is meta. */
static void test_list_form(void)
{
	const char *f = "{\"lm loss\": {\"start_step\": 0, \"end_step\": 33, \"step_interval\": "
	                "5, \"values\": [10.84266, 10.89696, \"nan\"]}, \"iteration_timing_avg\": "
	                "0.11905411764705882, \"note\": \"x\"}";
	struct buf a, b;
	CHECK(parse(f, 0, &a) == 0);
	CHECK_STR(a.data, "1:0 loss=10.84266/5/1/10.84266\n"
	                  "1:5 loss=10.89696/5/1/10.89696\n"
	                  "1:10 loss=nan/0/1/nan\n"
	                  "ok 3 steps 1 lines\n"
	                  "meta iteration_timing_avg=0.11905411764705882\n"
	                  "meta note=x\n");
	CHECK(parse(f, 1, &b) == 0);
	CHECK_STR(b.data, a.data);
	buf_reset(&a);
	buf_reset(&b);
}

static void test_refusals(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	        {"", "error no_metrics line 0: empty golden values file: nothing to compare"},
	        {" \n\t", "error no_metrics line 0: "},
	        {"{}", "error no_metrics line 0: no metric in the golden values (0 members)"},
	        {"{\"iteration_timing_avg\": 0.1}", "error no_metrics line 0: "},
	        {"[1, 2]", "error not_megatron line 0: "},
	        {"{\"lm loss\": [1, 2]}", "error not_megatron line 0: \"lm loss\" is neither"},
	        {"{\"lm loss\": {\n\"start_step\": 1,,}}",
	         "error json_syntax line 2: golden values are not JSON: "},
	        {"{\"a\": 1, \"a\": 2}", "error json_syntax line 1: "},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"step_interval\": 1}}",
	         "error bad_metric line 0: \"lm loss\" has no \"values\""},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"step_interval\": 1, "
	         "\"values\": {}}}",
	         "error bad_metric line 0: \"lm loss\": \"values\" is empty"},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"step_interval\": 1, "
	         "\"values\": []}}",
	         "error bad_metric line 0: \"lm loss\": \"values\" is empty"},
	        {"{\"lm loss\": {\"start_step\": \"1\", \"end_step\": 2, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0}}}",
	         "error bad_metric line 0: \"lm loss\": start_step must be a non-negative"},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"values\": {\"1\": 2.0}}}",
	         "error bad_metric line 0: \"lm loss\": step_interval must be"},
	        {"{\"lm loss\": {\"start_step\": 3, \"end_step\": 2, \"step_interval\": 1, "
	         "\"values\": {\"3\": 2.0}}}",
	         "error bad_metric line 0: \"lm loss\": start_step 3, end_step 2, step_interval 1 "
	         "are inconsistent"},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0, \"2\": \"x\"}}}",
	         "error bad_value line 0: \"lm loss\": \"values\".\"2\" is not a number or "
	         "\"nan\""},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"step_interval\": 1, "
	         "\"values\": {\"1\": null, \"2\": 1.0}}}",
	         "error bad_value line 0: \"lm loss\": \"values\".\"1\""},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 3, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0, \"3\": 1.0, \"2\": 1.0}}}",
	         "error step_order line 0: \"lm loss\": step \"2\" does not follow step 3"},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 3, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0, \"x\": 1.0}}}",
	         "error bad_metric line 0: \"lm loss\": \"values\" key \"x\" is not a step number"},
	        {"{\"lm loss\": {\"start_step\": 2, \"end_step\": 3, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0, \"3\": 1.0}}}",
	         "error bad_metric line 0: \"lm loss\": step \"1\" is inconsistent with "
	         "start_step 2"},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 5, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0, \"3\": 1.0}}}",
	         "error bad_metric line 0: \"lm loss\": the last step 3 is not end_step 5"},
	        {"{\"lm loss\": {\"start_step\": 0, \"end_step\": 5, \"step_interval\": 5, "
	         "\"values\": [1.0, 2.0, 3.0]}}",
	         "error bad_metric line 0: \"lm loss\": 3 values do not fit start_step 0"},
	        {"{\"lm loss\": {\"start_step\": 0, \"end_step\": 5, \"step_interval\": 5, "
	         "\"values\": [1.0, true]}}",
	         "error bad_value line 0: \"lm loss\": \"values\"[1] (step 5) is not a number"},
	        {"{\"lm loss\": {\"start_step\": 1, \"end_step\": 1, \"step_interval\": 1, "
	         "\"values\": {\"1\": 2.0}}, \"loss\": {\"start_step\": 1, \"end_step\": 1, "
	         "\"step_interval\": 1, \"values\": {\"1\": 2.0}}}",
	         "error bad_metric line 0: \"lm loss\" and \"loss\" are both metric loss"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf a, b;
		CHECK(parse(cases[i].in, 0, &a) == -1);
		const char *last = strstr(a.data, "error ");
		CHECK(last && strncmp(last, cases[i].want, strlen(cases[i].want)) == 0);
		if (!(last && strncmp(last, cases[i].want, strlen(cases[i].want)) == 0))
			fprintf(stderr, "case %zu: %s", i, a.data);
		CHECK(parse(cases[i].in, 1, &b) == -1);
		CHECK_STR(b.data, a.data);
		buf_reset(&a);
		buf_reset(&b);
	}
	/* a NUL byte is a syntax error, not the end of the text */
	struct buf a;
	CHECK(parse_n("{\"a\"\0: 1}", 9, 0, &a) == -1);
	CHECK(strstr(a.data, "error json_syntax line 1") != NULL);
	buf_reset(&a);
	/* after an error every call fails */
	struct matcher_megatron_parser *p = matcher_megatron_parser_new(NULL, 0, 0);
	CHECK(matcher_megatron_finish(p, NULL) == -1);
	CHECK(matcher_megatron_feed(p, "{", 1) == -1);
	CHECK(matcher_megatron_finish(p, NULL) == -1);
	matcher_megatron_parser_free(p);
	/* the byte cap, named in the error */
	static char spaces[1 << 20];
	memset(spaces, ' ', sizeof spaces);
	p = matcher_megatron_parser_new(NULL, 0, 0);
	for (unsigned i = 0; i < MATCHER_MEGATRON_MAX_BYTES / sizeof spaces; i++)
		CHECK(matcher_megatron_feed(p, spaces, sizeof spaces) == 0);
	CHECK(matcher_megatron_feed(p, "{", 1) == -1);
	CHECK_STR(matcher_megatron_error(p)->code, "too_large");
	CHECK_STR(matcher_megatron_error(p)->message, "golden values over 16 MiB");
	matcher_megatron_parser_free(p);
	/* a callback stops parsing */
	struct matcher_trainlog_callbacks stop = {NULL, stop_at_first, NULL};
	p = matcher_megatron_parser_new(&stop, 0, 0);
	const char *two =
	        "{\"lm loss\": {\"start_step\": 1, \"end_step\": 2, \"step_interval\": 1, "
	        "\"values\": {\"1\": 2.0, \"2\": 1.0}}}";
	CHECK(matcher_megatron_feed(p, two, strlen(two)) == 0);
	CHECK(matcher_megatron_finish(p, NULL) == -1);
	CHECK_STR(matcher_megatron_error(p)->code, "callback");
	CHECK_STR(matcher_megatron_error(p)->message, "stopped by the caller at step 1");
	matcher_megatron_parser_free(p);
}

static void test_names_and_text(void)
{
	char out[48];
	static const char *const names[][2] = {
	        {"lm loss", "loss"},
	        {"num-zeros", "num-zeros"},
	        {"mem-allocated-bytes", "mem-allocated-bytes"},
	        {"iteration-time", "iteration-time"},
	        {"mtp_1 loss", "mtp_1_loss"},
	        {"total loss", "total_loss"},
	        {"a<b>\"c", "a_b__c"},
	        {"", "_"},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		matcher_megatron_metric(names[i][0], out, sizeof out);
		CHECK_STR(out, names[i][1]);
	}
	/* Python's repr of each (python3 -c 'print(repr(x))') */
	static const struct {
		double v;
		const char *repr;
	} texts[] = {
	        {10.85678, "10.85678"},
	        {1654.0, "1654.0"},
	        {2463815680.0, "2463815680.0"},
	        {1e-05, "1e-05"},
	        {1.5e-05, "1.5e-05"},
	        {0.0001, "0.0001"},
	        {0.00012, "0.00012"},
	        {1e16, "1e+16"},
	        {1234567890123456.0, "1234567890123456.0"},
	        {0.1, "0.1"},
	        {0.0, "0.0"},
	        {-0.0, "-0.0"},
	        {-2.5, "-2.5"},
	        {0.11905411764705882, "0.11905411764705882"},
	        {1.7976931348623157e308, "1.7976931348623157e+308"},
	        {5e-324, "5e-324"},
	        {123456789.0, "123456789.0"},
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		matcher_format_pyfloat(texts[i].v, out, sizeof out);
		CHECK_STR(out, texts[i].repr);
	}
	matcher_format_pyfloat(NAN, out, sizeof out);
	CHECK_STR(out, "nan");
	matcher_format_pyfloat(-INFINITY, out, sizeof out);
	CHECK_STR(out, "-inf");
}

static void test_detect(void)
{
	static const struct {
		const char *in;
		int want;
	} cases[] = {
	        {"{\n    \"lm loss\": {\n        \"start_step\": 1,", 1},
	        {"\xEF\xBB\xBF{\"lm loss\": {\"values\": [1.0]", 1},
	        {"{\"num-zeros\": {\"end_step\": 3", 1},
	        {"{ \"a\\\"b\" : { \"step_interval\" : 1", 1},
	        {"{}", 1},
	        {" { }\n", 1},
	        {"{} x", 0},
	        {"{\"lm loss\": {\"start", 0}, /* cut before the key ends */
	        {"{\"lm loss\": {\"other\": 1, \"values\": []}}", 0},
	        {"{\"lm loss\": [1.0]}", 0},
	        {"{\"0\": {\"input_prompt\": \"x\"}}", 0}, /* Megatron's inference goldens */
	        {"[{\"start_step\": 1}]", 0},
	        {"step: 1  loss: 2.0\n", 0},
	        {"1 2.0\n", 0},
	        {"", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = strlen(cases[i].in);
		CHECK_INT(matcher_megatron_detect(cases[i].in, n), cases[i].want);
		if (cases[i].want) {
			CHECK(matcher_detect_source(cases[i].in, n) == MATCHER_SOURCE_MEGATRON);
			CHECK(matcher_detect_kind(cases[i].in, n) == MATCHER_KIND_TRAINING);
		}
	}
	CHECK_STR(matcher_source_name(MATCHER_SOURCE_MEGATRON), "megatron");
	enum matcher_source s;
	CHECK(matcher_source_from_name("megatron", &s) == 0 && s == MATCHER_SOURCE_MEGATRON);
}

/* Read a file of tests/data/megatron/ into *b. */
static int slurp(const char *name, struct buf *b)
{
	char path[512];
	snprintf(path, sizeof path, "%s/data/megatron/%s", PARITY_TESTS_DIR, name);
	FILE *f = fopen(path, "rb");
	char chunk[4096];
	size_t k;
	buf_init(b);
	if (!f)
		return -1;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(b, chunk, k);
	fclose(f);
	return 0;
}

/* The real files through the trainsrc interface: detected, their step
 * counts and metrics, and byte-at-a-time equal to whole. */
static void test_real_files(void)
{
	static const struct {
		const char *file;
		size_t n_steps;
		const char *first; /* transcript's first line */
	} files[] = {
	        {"gpt3_mcore_te_tp1_pp4_vp1_resume_torch_dist__golden_values_dev_dgx_a100.json", 21,
	         "1:1 loss=10.81548/5/1/10.815480000000001 num-zeros=1518.0/1/1/1518 "
	         "mem-allocated-bytes=733860352.0/1/1/733860352 "},
	        {"gpt3_mcore_te_tp1_pp4_vp1_resume_torch_dist__golden_values_dev_dgx_h100.json", 21,
	         "1:1 loss=10.84517/5/1/10.84517 num-zeros=1655.0/1/1/1655 "},
	        {"gpt3_mcore_te_tp1_pp4_vp1_resume_torch_dist__golden_values_lts_dgx_a100.json", 21,
	         "1:1 loss=10.82005/5/1/10.82005 "},
	        {"gpt3_mcore_tp1_pp2_fp16__golden_values_lts_dgx_a100.json", 10,
	         "1:0 loss=10.83369/5/1/10.833690000000001 num-zeros=2173.0/1/1/2173\n"},
	        {"gpt3_moe_mcore_te_tp2_pp2_ep4_etp1_fine_grained_offloading__golden_values_dev_"
	         "dgx_"
	         "gb200.json",
	         50, "1:1 loss="},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		struct buf f, a, b;
		CHECK(slurp(files[i].file, &f) == 0);
		if (!f.len) {
			fprintf(stderr, "missing %s\n", files[i].file);
			continue;
		}
		CHECK(matcher_detect_source(f.data, f.len) == MATCHER_SOURCE_MEGATRON);
		CHECK(matcher_detect_kind(f.data, f.len) == MATCHER_KIND_TRAINING);
		CHECK(parse_n(f.data, f.len, 0, &a) == 0);
		char want[64];
		snprintf(want, sizeof want, "ok %zu steps", files[i].n_steps);
		CHECK(strstr(a.data, want) != NULL);
		if (!strstr(a.data, want))
			fprintf(stderr, "%s: %s\n", files[i].file,
			        strstr(a.data, "ok ") ? strstr(a.data, "ok ") : a.data);
		CHECK(strncmp(a.data, files[i].first, strlen(files[i].first)) == 0);
		if (strncmp(a.data, files[i].first, strlen(files[i].first)))
			fprintf(stderr, "%s: %.200s\n", files[i].file, a.data);
		CHECK(parse_n(f.data, f.len, 1, &b) == 0);
		CHECK_STR(b.data, a.data);
		buf_reset(&f);
		buf_reset(&a);
		buf_reset(&b);
	}
}

/* ---- the policy "megatron" ------------------------------------------------ */

/* tf for a run without iteration-time */
static double no_time[1];

/* Golden values of steps 1..n: lm loss 10 - step / 100 times lf[step]
 * (1 when lf is NULL; NaN when lf[step] is 0), iteration-time 0.2 times
 * tf[step] (1 when NULL; none for no_time; NaN for 0). */
static void golden(struct buf *b, int n, const double *lf, const double *tf)
{
	buf_init(b);
	buf_printf(b,
	           "{\"lm loss\": {\"start_step\": 1, \"end_step\": %d, \"step_interval\": 1, "
	           "\"values\": {",
	           n);
	for (int i = 1; i <= n; i++) {
		double f = lf ? lf[i] : 1;
		if (f == 0)
			buf_printf(b, "%s\"%d\": \"nan\"", i > 1 ? ", " : "", i);
		else
			buf_printf(b, "%s\"%d\": %.5f", i > 1 ? ", " : "", i, (10 - i / 100.0) * f);
	}
	if (tf == no_time) {
		buf_puts(b, "}}}");
		return;
	}
	buf_printf(b,
	           "}}, \"iteration-time\": {\"start_step\": 1, \"end_step\": %d, "
	           "\"step_interval\": 1, \"values\": {",
	           n);
	for (int i = 1; i <= n; i++) {
		double f = tf ? tf[i] : 1;
		if (f == 0)
			buf_printf(b, "%s\"%d\": \"nan\"", i > 1 ? ", " : "", i);
		else
			buf_printf(b, "%s\"%d\": %.5f", i > 1 ? ", " : "", i, 0.2 * f);
	}
	buf_puts(b, "}}}");
}

static struct matcher_trainrun *run_of(const struct buf *b)
{
	struct matcher_trainrun *r = matcher_trainrun_new(NULL, 0);
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(r);
	struct matcher_megatron_parser *p = matcher_megatron_parser_new(&cb, 0, 0);
	struct matcher_trainlog_summary sum;
	CHECK(matcher_megatron_feed(p, b->data, b->len) == 0);
	CHECK(matcher_megatron_finish(p, &sum) == 0);
	matcher_trainrun_set_summary(r, &sum);
	matcher_megatron_parser_free(p);
	return r;
}

/* The verdict of baseline a against candidate b under "megatron"; the
 * notes joined into *notes (may be NULL). */
static enum matcher_verdict megatron_verdict(int n, const double *la, const double *ta,
                                             const double *lb, const double *tb, struct buf *notes)
{
	struct buf fa, fb;
	golden(&fa, n, la, ta);
	golden(&fb, n, lb, tb);
	struct matcher_trainrun *a = run_of(&fa), *b = run_of(&fb);
	struct matcher_train_policy pol;
	struct matcher_train_result *res = NULL;
	CHECK(matcher_train_policy_preset(&pol, "megatron") == 0);
	CHECK(matcher_train_check(a, b, &pol, &res) == 0);
	enum matcher_verdict v = res->verdict;
	if (notes) {
		buf_init(notes);
		for (size_t i = 0; i < res->n_notes; i++)
			buf_printf(notes, "%s\n", res->notes[i]);
		for (size_t i = 0; i < res->n_reasons; i++)
			buf_printf(notes, "%s: %s\n", res->reasons[i].code,
			           res->reasons[i].message);
	}
	matcher_train_result_free(res);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
	buf_reset(&fa);
	buf_reset(&fb);
	return v;
}

static void test_policy(void)
{
	static double ones[301], off1[301], off2[301], off4[301], rel49[301], nan1[301];
	static double t_out[301], t_slow[301], t_late[301];
	for (int i = 0; i <= 300; i++) {
		ones[i] = off1[i] = off2[i] = off4[i] = rel49[i] = nan1[i] = 1;
		t_out[i] = t_slow[i] = t_late[i] = 1;
	}
	off1[7] = 1.06;           /* one step 6% off */
	off2[7] = off2[9] = 1.06; /* two */
	off4[7] = off4[9] = off4[70] = off4[90] = 1.06;
	for (int i = 1; i <= 300; i++)
		rel49[i] = 1.049; /* every step 4.9% off: within rtol */
	nan1[3] = 0;              /* one step "nan" in the candidate */
	t_out[35] = 5;            /* one slow step inside the window */
	for (int i = 30; i <= 45; i++)
		t_slow[i] = 1.1;    /* the window 10% slower */
	t_late[1] = t_late[2] = 40; /* start-up steps outside the window */
	struct buf notes;
	/* N = 50: one failing step allowed (50 // 100 -> at least 1) */
	CHECK_INT(megatron_verdict(50, ones, NULL, ones, NULL, NULL), MATCHER_VERDICT_PASS);
	CHECK_INT(megatron_verdict(50, ones, NULL, off1, NULL, &notes), MATCHER_VERDICT_PASS);
	CHECK(strstr(notes.data,
	             "loss: 1 of 50 steps over the threshold, within the allowance of 1") != NULL);
	buf_reset(&notes);
	CHECK_INT(megatron_verdict(50, ones, NULL, off2, NULL, &notes), MATCHER_VERDICT_FAIL);
	CHECK(strstr(notes.data, "beyond the allowance of 1") != NULL);
	CHECK(strstr(notes.data, "threshold_exceeded: loss differs") != NULL);
	buf_reset(&notes);
	/* relative, not absolute: 4.9% everywhere passes */
	CHECK_INT(megatron_verdict(50, ones, NULL, rel49, NULL, NULL), MATCHER_VERDICT_PASS);
	/* a one-sided "nan" is one failing step, within the allowance */
	CHECK_INT(megatron_verdict(50, ones, NULL, nan1, NULL, NULL), MATCHER_VERDICT_PASS);
	CHECK_INT(megatron_verdict(50, off1, NULL, nan1, NULL, NULL), MATCHER_VERDICT_FAIL);
	/* N = 300: 3 allowed (300 // 100) */
	CHECK_INT(megatron_verdict(300, ones, NULL, off2, NULL, NULL), MATCHER_VERDICT_PASS);
	CHECK_INT(megatron_verdict(300, ones, NULL, off4, NULL, NULL), MATCHER_VERDICT_FAIL);
	/* N = 1: every value must be close */
	CHECK_INT(megatron_verdict(1, ones, no_time, ones, no_time, NULL), MATCHER_VERDICT_PASS);
	static double first_off[2] = {1, 1.06};
	CHECK_INT(megatron_verdict(1, ones, no_time, first_off, no_time, NULL),
	          MATCHER_VERDICT_FAIL);
	/* iteration-time logged but no common step in the window: an error
	 * naming it (Megatron's median of nothing is NaN: its check fails) */
	CHECK_INT(megatron_verdict(3, ones, NULL, ones, NULL, &notes), MATCHER_VERDICT_ERROR);
	CHECK(strstr(notes.data, "metric iteration-time has no finite baseline value at a common "
	                         "step from step 5 on") != NULL);
	buf_reset(&notes);
	/* iteration-time: the median over steps 30..45 (last step > 25) */
	CHECK_INT(megatron_verdict(50, ones, NULL, ones, t_out, &notes), MATCHER_VERDICT_PASS);
	CHECK(strstr(notes.data, "iteration-time: compared as the medians over steps 30..45 (16 "
	                         "steps): baseline 0.2, candidate 0.2") != NULL);
	buf_reset(&notes);
	CHECK_INT(megatron_verdict(50, ones, NULL, ones, t_slow, &notes), MATCHER_VERDICT_FAIL);
	CHECK(strstr(notes.data, "iteration-time: the median over steps 30..45 differs beyond rel "
	                         "0.05: baseline 0.2, candidate 0.22") != NULL);
	buf_reset(&notes);
	CHECK_INT(megatron_verdict(50, ones, NULL, ones, t_late, NULL), MATCHER_VERDICT_PASS);
	/* no finite baseline value in the window: its first 4 finite steps
	 * from the window's start; a candidate's NaN counts as +Inf */
	static double t_gap[51], t_after[51], t_nan[51];
	for (int i = 0; i <= 50; i++) {
		t_gap[i] = i >= 30 && i <= 45 ? 0 : 1;
		t_after[i] = i >= 46 && i <= 49 ? 1.1 : 1;
		t_nan[i] = i >= 30 && i <= 38 ? 0 : 1;
	}
	CHECK_INT(megatron_verdict(50, ones, t_gap, ones, t_after, &notes), MATCHER_VERDICT_FAIL);
	CHECK(strstr(notes.data, "compared as the medians over steps 46..49 (4 steps)") != NULL);
	buf_reset(&notes);
	CHECK_INT(megatron_verdict(50, ones, t_gap, ones, ones, NULL), MATCHER_VERDICT_PASS);
	CHECK_INT(megatron_verdict(50, ones, NULL, ones, t_nan, &notes), MATCHER_VERDICT_FAIL);
	CHECK(strstr(notes.data, "candidate inf") != NULL);
	buf_reset(&notes);
	/* a short run (last step <= 25): steps 5..20 */
	CHECK_INT(megatron_verdict(20, ones, NULL, ones, t_slow, &notes), MATCHER_VERDICT_PASS);
	CHECK(strstr(notes.data, "over steps 5..20 (16 steps)") != NULL);
	buf_reset(&notes);
	CHECK_INT(megatron_verdict(20, ones, t_slow, ones, t_late, NULL), MATCHER_VERDICT_PASS);
	static double t_short[21];
	for (int i = 0; i <= 20; i++)
		t_short[i] = i >= 5 ? 1.2 : 1;
	CHECK_INT(megatron_verdict(20, ones, NULL, ones, t_short, NULL), MATCHER_VERDICT_FAIL);

	/* the preset and its stored form */
	struct matcher_train_policy p, q;
	CHECK(matcher_train_policy_preset(&p, "megatron") == 0);
	CHECK_STR(p.name, "megatron");
	CHECK_INT((int)p.n_th, 8);
	CHECK_STR(p.th[1].metric, "num-zeros");
	CHECK(p.th[1].rel == 0.20 && p.th[1].allow_pct == 1 && p.th[1].if_logged);
	CHECK_STR(p.th[0].metric, "loss");
	CHECK(isinf(p.th[0].abs) && p.th[0].has_rel && p.th[0].rel == 0.05);
	CHECK(p.th[0].allow_pct == 1 && !p.th[0].if_logged && !p.th[0].median_window);
	CHECK_STR(p.th[7].metric, "iteration-time");
	CHECK(p.th[7].median_window && p.th[7].allow_pct == 0 && p.th[7].if_logged);
	struct buf t;
	buf_init(&t);
	CHECK(matcher_train_policy_format(&p, &t) == 0);
	CHECK(strstr(t.data, "th loss inf 0x1.999999999999ap-5 0 1 0\n") != NULL);
	CHECK(strstr(t.data, "th iteration-time inf 0x1.999999999999ap-5 1 0 1\n") != NULL);
	CHECK(matcher_train_policy_parse(t.data, &q) == 0);
	CHECK(memcmp(&p, &q, sizeof p) == 0);
	buf_reset(&t);
	/* older stored forms (no trailing fields) still read */
	CHECK(matcher_train_policy_parse("parity-train-policy 1\nname premerge\nbase premerge\n"
	                                 "min_steps 1\nallow_warnings 0\nrank -1\n"
	                                 "th loss 0x1.4f8b588e368f1p-17 - 0\n",
	                                 &q) == 0);
	CHECK(q.th[0].allow_pct == 0 && q.th[0].median_window == 0);
	CHECK(matcher_train_policy_parse("parity-train-policy 1\nname x\nbase x\n"
	                                 "min_steps 1\nallow_warnings 0\nrank -1\n"
	                                 "th loss 0x0p+0 - 0 101 0\n",
	                                 &q) == -1);
	/* by name, as a request gives it */
	struct matcher_train_policy_spec spec;
	char msg[200];
	memset(&spec, 0, sizeof spec);
	spec.given = spec.is_name = 1;
	spec.name = "megatron";
	CHECK(matcher_train_policy_resolve(&spec, &q, msg, sizeof msg) == 0);
	CHECK(memcmp(&p, &q, sizeof p) == 0);
	/* a request adding a metric and loosening loss: the added metric gets
	 * Megatron's rule, loss keeps its allowance */
	struct matcher_train_request req;
	static const char *const extra[] = {"grad_norm"};
	struct matcher_train_th_spec th = {"loss", MATCHER_SPEC_ABSENT, MATCHER_SPEC_SET, 0, 0.1};
	memset(&req, 0, sizeof req);
	req.policy = spec;
	req.extra_metrics = (struct matcher_train_names){1, extra, 1};
	req.thresholds = (struct matcher_train_ths){1, &th, 1};
	CHECK(matcher_train_request_resolve(&req, &q, msg, sizeof msg) == 0);
	CHECK_STR(q.name, "custom");
	CHECK_STR(q.base, "megatron");
	CHECK_STR(q.th[8].metric, "grad_norm");
	CHECK(isinf(q.th[8].abs) && q.th[8].has_rel && q.th[8].rel == 0.05 &&
	      q.th[8].allow_pct == 1);
	CHECK(isinf(q.th[0].abs) && q.th[0].rel == 0.1 && q.th[0].allow_pct == 1);
	/* premerge is untouched by any of this */
	CHECK(matcher_train_policy_preset(&q, "premerge") == 0);
	CHECK(q.th[0].allow_pct == 0 && q.th[0].abs == 1e-5);
}

int main(void)
{
	test_dict_form();
	test_list_form();
	test_refusals();
	test_names_and_text();
	test_detect();
	test_real_files();
	test_policy();
	return check_report();
}
