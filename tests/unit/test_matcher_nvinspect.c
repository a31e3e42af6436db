/* test_matcher_nvinspect.c - the DL Framework Inspect statistics log
 * parser (matcher/nvinspect.h): one record per iteration with every
 * series, printed precision, the time prefix, tolerated lines, every
 * refusal with its line number, the series limit, chunking invariance
 * (every split equals the whole), the layer/tensor/stat split, detection
 * and the source table (trainsrc.h). */
#include "check.h"
#include "nvinspect.h"
#include "trainsrc.h"

#include <stdio.h>
#include <stdlib.h>

#include "buf.h"

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct buf *t = ctx;
	CHECK(r->n_metrics >= 1 && r->kind == MATCHER_STEP_NEW && r->validation == 0);
	buf_printf(t, "%d:%ld@%lu", r->rank, r->step, r->line);
	for (size_t k = 0; k < r->n_metrics; k++)
		buf_printf(t, " %s=%s/%d/%d", r->metrics[k].name, r->metrics[k].text,
		           r->metrics[k].decimals, r->metrics[k].prec);
	buf_putc(t, '\n');
	return 0;
}

/* Parse s[0..n) in chunks of `chunk` bytes (0 whole); transcript into *t. */
static int parse_n(const char *s, size_t n, size_t chunk, size_t limit, struct buf *t)
{
	struct matcher_trainlog_callbacks cb = {t, on_step, NULL};
	struct matcher_nvinspect_parser *p = matcher_nvinspect_parser_new(&cb, 3, 0);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	matcher_nvinspect_set_limit(p, limit);
	buf_init(t);
	while (rc == 0 && off < n) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		rc = matcher_nvinspect_feed(p, s + off, k);
		off += k;
	}
	if (rc == 0)
		rc = matcher_nvinspect_finish(p, &sum);
	if (rc == 0)
		buf_printf(t, "ok %zu steps %lu lines %zu series\n", sum.n_steps, sum.n_lines,
		           matcher_nvinspect_series_count(p));
	else
		buf_printf(t, "error %s line %lu: %s\n", matcher_nvinspect_error(p)->code,
		           matcher_nvinspect_error(p)->line, matcher_nvinspect_error(p)->message);
	matcher_nvinspect_parser_free(p);
	return rc;
}

static int parse(const char *s, size_t chunk, struct buf *t)
{
	return parse_n(s, strlen(s), chunk, 0, t);
}

static void test_values(void)
{
	const char *f = "\xEF\xBB\xBF# log/nvdlfw_inspect_statistics_logs/"
	                "nvdlfw_inspect_globalrank-0.log\r\n"
	                "\r\n"
	                "2025-06-12 14:03:00,037 - INFO - l.qkv_activation_max \t\t\t\t "
	                "iteration=000002 \t\t\t\t value=4.3188\r\n"
	                "2025-06-12 14:03:00,038 - INFO - l.qkv_activation_min \t\t\t\t "
	                "iteration=000002 \t\t\t\t value=-4.3386\n"
	                "INFO - l.qkv_gradient_fp8_delayed_scaling_underflows%    iteration=000002 "
	                "value=nan\n"
	                "WARNING - `reduction_group` not found and `skip_reduction` is False.\n"
	                "INFO - l.qkv_activation_max iteration=000004 value=4.3181\n"
	                "INFO - l.qkv_activation_min iteration=000004 value=130776.7969";
	struct buf a, b;
	CHECK(parse(f, 0, &a) == 0);
	CHECK_STR(a.data,
	          "3:2@3 l.qkv_activation_max=4.3188/4/0 l.qkv_activation_min=-4.3386/4/0 "
	          "l.qkv_gradient_fp8_delayed_scaling_underflows%=nan/0/0\n"
	          "3:4@7 l.qkv_activation_max=4.3181/4/0 l.qkv_activation_min=130776.7969/4/0\n"
	          "ok 2 steps 8 lines 3 series\n");
	/* every split of the input gives the same transcript */
	for (size_t chunk = 1; chunk < 40; chunk++) {
		CHECK(parse(f, chunk, &b) == 0);
		CHECK_STR(b.data, a.data);
		buf_reset(&b);
	}
	buf_reset(&a);
}

static void expect_error(const char *f, const char *code, unsigned long line, const char *needle)
{
	struct buf t;
	char want[128];
	CHECK(parse(f, 0, &t) == -1);
	snprintf(want, sizeof want, "error %s line %lu: ", code, line);
	/* the iterations before the bad line were handed on; the error ends it */
	const char *last = strstr(t.data, "error ");
	if (!last || strncmp(last, want, strlen(want)) != 0 || !strstr(last, needle)) {
		fprintf(stderr, "want %s...%s, got %s", want, needle, t.data);
		CHECK(0);
	}
	/* the same error whatever the split */
	struct buf c;
	CHECK(parse(f, 7, &c) == -1);
	CHECK_STR(c.data, t.data);
	buf_reset(&c);
	buf_reset(&t);
}

static void test_refusals(void)
{
	expect_error("INFO - a_weight_max iteration=1 value=1.0\nhello world\n",
	             "not_nvinspect_log", 2, "line 2 is not a logger line");
	expect_error("INFO - a_weight_max iteration=1 value=1.0\nINFO - a_weight_min iteration=x "
	             "value=1\n",
	             "not_nvinspect_log", 2, "iteration=N value=X");
	expect_error("INFO - a_weight_max iteration=1 value=1.0\nINFO - a_weight_min iteration=2 "
	             "value=abc\n",
	             "not_nvinspect_log", 2, "line 2");
	expect_error("INFO - a_weight_max iteration=1 value=1.0 extra\n", "not_nvinspect_log", 1,
	             "line 1");
	expect_error("INFO - iteration=1 value=1.0\n", "not_nvinspect_log", 1, "line 1");
	expect_error("INFO - a_weight_max iteration=5 value=1.0\n"
	             "INFO - a_weight_max iteration=6 value=1.0\n"
	             "INFO - a_weight_max iteration=4 value=1.0\n",
	             "step_order", 3, "iteration 4 follows iteration 6 (line 2)");
	expect_error("INFO - a_weight_max iteration=5 value=1.0\n"
	             "INFO - a_weight_min iteration=5 value=1.0\n"
	             "INFO - a_weight_max iteration=5 value=2.0\n",
	             "duplicate_value", 3, "series a_weight_max twice in iteration 5");
	expect_error("# nothing\n\nINFO - starting\n", "no_values", 0, "in 3 lines");
	struct buf t;
	CHECK(parse_n("INFO - a_weight_max iteration=5 value=1.0\nINFO - a\0b\n", 51, 0, 0, &t) ==
	      -1);
	CHECK(strstr(t.data, "error binary_data line 2: line 2 holds a NUL byte") != NULL);
	buf_reset(&t);
	/* the series limit names itself */
	const char *f = "INFO - a_weight_max iteration=5 value=1.0\n"
	                "INFO - a_weight_min iteration=5 value=1.0\n"
	                "INFO - a_weight_std iteration=5 value=1.0\n";
	CHECK(parse_n(f, strlen(f), 0, 2, &t) == -1);
	CHECK(strstr(t.data, "error too_many_series line 3: line 3: more than 2 series in "
	                     "iteration 5") != NULL);
	buf_reset(&t);
	/* a line longer than the limit */
	struct matcher_nvinspect_parser *p = matcher_nvinspect_parser_new(NULL, 0, 16);
	CHECK(matcher_nvinspect_feed(p, "INFO - a_weight_max iteration=5 value=1.0\n", 42) == -1);
	CHECK_STR(matcher_nvinspect_error(p)->code, "line_too_long");
	CHECK(matcher_nvinspect_feed(p, "\n", 1) == -1);
	matcher_nvinspect_parser_free(p);
}

/* Many series over many iterations: one record per iteration with all of
 * them, in file order; memory bounded by one iteration. */
static void test_many_series(void)
{
	struct buf f, t;
	buf_init(&f);
	for (int it = 1; it <= 50; it++)
		for (int s = 0; s < 600; s++)
			buf_printf(
			        &f,
			        "2025-06-12 14:03:00,%03d - INFO - model.layers.%d.mlp.fc1_%s_max "
			        "\t iteration=%06d \t value=%d.%04d\n",
			        s % 1000, s / 3,
			        s % 3 == 0   ? "activation"
			        : s % 3 == 1 ? "gradient"
			                     : "weight",
			        it, s, it);
	CHECK(parse_n(f.data, f.len, 0, 0, &t) == 0);
	/* 50 records, each of 600 metrics */
	size_t recs = 0;
	for (const char *c = t.data; (c = strchr(c, '\n')); c++)
		recs++;
	CHECK_INT(recs, 51);
	CHECK(strstr(t.data, "ok 50 steps 30000 lines 600 series\n") != NULL);
	CHECK(strstr(t.data, "3:50@29401 model.layers.0.mlp.fc1_activation_max=0.0050/4/0 ") ==
	      strstr(t.data, "3:50@"));
	struct buf c;
	CHECK(parse_n(f.data, f.len, 4093, 0, &c) == 0);
	CHECK_STR(c.data, t.data);
	buf_reset(&c); /* parse_n starts its transcript anew */
	CHECK(parse_n(f.data, f.len, 0, 599, &c) == -1);
	buf_reset(&c);
	buf_reset(&t);
	buf_reset(&f);
}

static void check_split(const char *name, const char *layer, const char *tensor, const char *stat)
{
	size_t ll, tl;
	const char *t, *s;
	int found = matcher_nvinspect_split(name, &ll, &t, &tl, &s);
	CHECK_INT(found, *tensor != 0);
	CHECK_INT(ll, strlen(layer));
	CHECK(strncmp(name, layer, ll) == 0);
	CHECK_INT(tl, strlen(tensor));
	CHECK(strncmp(t, tensor, tl) == 0);
	CHECK_STR(s, stat);
}

static void test_split(void)
{
	check_split("transformer_layer.self_attention.layernorm_qkv_activation_l1_norm",
	            "transformer_layer.self_attention.layernorm_qkv", "activation", "l1_norm");
	check_split(
	        "model.decoder.layers.1.mlp.linear_fc1_gradient_fp8_delayed_scaling_underflows%",
	        "model.decoder.layers.1.mlp.linear_fc1", "gradient",
	        "fp8_delayed_scaling_underflows%");
	check_split("m.final_output_weight_mxfp8_mse_columnwise", "m.final_output", "weight",
	            "mxfp8_mse_columnwise");
	check_split("m.fc2_output_activation_max", "m.fc2_output", "activation", "max");
	check_split("m.fc2_wgrad_max", "m.fc2", "wgrad", "max");
	check_split("m.fc2_dgrad_dynamic_range", "m.fc2", "dgrad", "dynamic_range");
	check_split("loss", "loss", "", "");
	check_split("m_weight", "m_weight", "", "");
}

static void test_detect(void)
{
	const char *real = "INFO - transformer_layer.self_attention.layernorm_qkv_activation_max "
	                   "\t\t\t\t iteration=000002 \t\t\t\t value=4.3188\n";
	const char *timed = "# stats\n\n2025-06-12 14:03:00,037 - INFO - a_weight_max \t\t\t\t "
	                    "iteration=000005 \t\t\t\t value=-3.2585\n";
	CHECK(matcher_nvinspect_detect(real, strlen(real)) == 1);
	CHECK(matcher_nvinspect_detect(timed, strlen(timed)) == 1);
	CHECK(matcher_nvinspect_detect(real, strlen(real) - 1) == 0); /* partial line */
	CHECK(matcher_nvinspect_detect("INFO - starting\n", 16) == 0);
	/* logger chatter before the first statistics line is skipped, as the
	 * parser skips it; any other line first is not a statistics log */
	const char *chatter = "WARNING - reduction group not found\nINFO - a_weight_max "
	                      "iteration=1 value=1.0\n";
	CHECK(matcher_nvinspect_detect(chatter, strlen(chatter)) == 1);
	CHECK(matcher_nvinspect_detect("hello\nINFO - a_weight_max iteration=1 value=1.0\n", 49) ==
	      0);
	CHECK(matcher_nvinspect_detect("INFO - a_weight_max iteration=1 value=x\n", 40) == 0);
	CHECK(matcher_nvinspect_detect("step: 1  loss: 8.1\n", 19) == 0);
	CHECK(matcher_nvinspect_detect("1 8.1\n", 6) == 0);
	CHECK(matcher_detect_kind(real, strlen(real)) == MATCHER_KIND_TRAINING);
	CHECK(matcher_detect_kind(timed, strlen(timed)) == MATCHER_KIND_TRAINING);
	CHECK(matcher_detect_source(timed, strlen(timed)) == MATCHER_SOURCE_NVDLFW_INSPECT);
	CHECK(matcher_detect_source("1 8.1\n", 6) == MATCHER_SOURCE_LOSSFILE);
	CHECK_STR(matcher_source_name(MATCHER_SOURCE_NVDLFW_INSPECT), "nvdlfw_inspect");
	enum matcher_source s;
	CHECK(matcher_source_from_name("nvdlfw_inspect", &s) == 0 &&
	      s == MATCHER_SOURCE_NVDLFW_INSPECT);
}

/* The real excerpt from Transformer Engine's docs and our own file, read
 * through the source table as the service reads them. */
static void test_files(void)
{
	static const struct {
		const char *path;
		size_t steps, lines, series;
	} files[] = {
	        {PARITY_TESTS_DIR "/data/nvinspect/te_getting_started_globalrank-0.log", 3, 15, 5},
	        {PARITY_TESTS_DIR "/data/nvinspect/gpt_fp8_globalrank-0.log", 10, 1280, 128},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *fp = fopen(files[i].path, "rb");
		CHECK(fp != NULL);
		if (!fp)
			continue;
		struct buf f, t;
		char chunk[4096];
		size_t k;
		buf_init(&f);
		while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0)
			buf_append(&f, chunk, k);
		fclose(fp);
		CHECK(matcher_detect_source(f.data, f.len) == MATCHER_SOURCE_NVDLFW_INSPECT);
		buf_init(&t);
		struct matcher_trainlog_callbacks cb = {&t, on_step, NULL};
		struct matcher_trainsrc *p =
		        matcher_trainsrc_new(MATCHER_SOURCE_NVDLFW_INSPECT, &cb, 0, 0);
		struct matcher_trainlog_summary sum;
		CHECK(matcher_trainsrc_feed(p, f.data, f.len) == 0);
		CHECK(matcher_trainsrc_finish(p, &sum) == 0);
		CHECK_INT(sum.n_steps, files[i].steps);
		CHECK_INT(sum.n_lines, files[i].lines);
		size_t recs = 0, vals = 0;
		for (const char *c = t.data; *c; c++) {
			recs += *c == '\n';
			vals += *c == '=';
		}
		CHECK_INT(recs, files[i].steps);
		CHECK_INT(vals, files[i].steps * files[i].series);
		matcher_trainsrc_free(p);
		buf_reset(&t);
		buf_reset(&f);
	}
}

int main(void)
{
	test_values();
	test_refusals();
	test_many_series();
	test_split();
	test_detect();
	test_files();
	return check_report();
}
