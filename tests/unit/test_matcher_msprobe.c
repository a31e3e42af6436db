/* test_matcher_msprobe.c - Ascend msprobe dumps as activation entries
 * (matcher/msprobe.h, matcher/spec/msprobe.md): the key mapping, the real
 * PyTorch and MindSpore dumps of msprobe's own tests (tests/data/msprobe/),
 * md5 mode, stack.json locations in both layouts, NaN literals, the
 * errors naming the op or jansson's line, chunking invariance, detection,
 * and the activation parser handing a dump over (actlog.h). */
#include "actview.h"
#include "check.h"
#include "match.h"
#include "msprobe.h"
#include "trainlog.h"
#include "trainsrc.h"

#include <stdlib.h>

#include "buf.h"

static char *slurp(const char *rel, size_t *n)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", PARITY_TESTS_DIR, rel);
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		*n = 0;
		return NULL;
	}
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, k);
	fclose(f);
	*n = b.len;
	return b.data;
}

static int on_header(void *ctx, const struct matcher_actlog_header *h)
{
	buf_printf(ctx, "total %ld\n", h->total);
	return 0;
}

static int on_entry(void *ctx, const struct matcher_entry *e)
{
	struct buf *t = ctx;
	buf_printf(t, "%zu@%lu [%s] %s\n", e->order, e->line, e->key,
	           e->phase == MATCHER_BACKWARD ? "backward" : "forward");
	for (int i = 0; i < MATCHER_N_STATS; i++)
		if (e->stats[i])
			buf_printf(t, "  %s: %s%s\n", matcher_stat_names[i], e->stats[i],
			           i == MATCHER_STAT_SHAPE || e->stat_isnum & (1u << i)
			                   ? ""
			                   : " (text)");
	if (e->output_hash)
		buf_printf(t, "  out: %s\n", e->output_hash);
	if (e->input_hashes)
		buf_printf(t, "  in: %s\n", e->input_hashes);
	if (e->location)
		buf_printf(t, "  at: %s\n", e->location);
	return 0;
}

/* Parse through the activation parser (as every reader does) in chunks
 * of `chunk` bytes; the transcript, or "error CODE@LINE: message". */
static void parse(const char *s, size_t n, size_t chunk, struct buf *t)
{
	struct matcher_actlog_callbacks cb = {t, on_header, on_entry, NULL};
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(&cb, 0);
	struct matcher_actlog_summary sum;
	size_t off = 0;
	int rc = 0;
	buf_init(t);
	while (rc == 0 && off < n) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		rc = matcher_actlog_feed(p, s + off, k);
		off += k;
	}
	if (rc == 0)
		rc = matcher_actlog_finish(p, &sum);
	if (rc == 0)
		buf_printf(t, "ok %zu entries %lu lines\n", sum.n_entries, sum.n_lines);
	else
		buf_printf(t, "error %s@%lu: %s\n", matcher_actlog_error(p)->code,
		           matcher_actlog_error(p)->line, matcher_actlog_error(p)->message);
	matcher_actlog_parser_free(p);
}

static const char *parse_s(const char *s, struct buf *t)
{
	parse(s, strlen(s), 0, t);
	return t->data;
}

static void test_keys(void)
{
	static const char *const cases[][2] = {
	        {"Functional.conv2d.0.forward", "Functional.conv2d.forward/op_0_conv2d"},
	        {"Tensor.__add__.12.backward", "Tensor.__add__.backward/op_12___add__"},
	        {"Module.conv1.Conv2d.forward.0", "Module.conv1.Conv2d.forward/op_0_Conv2d"},
	        {"Cell.net.layers.0.attn.Attention.backward.3",
	         "Cell.net.layers.0.attn.Attention.backward/op_3_Attention"},
	        {"Module.fc.Linear.parameters_grad.1",
	         "Module.fc.Linear.parameters_grad/op_1_Linear"},
	        {"Module.fc.Linear.parameters_grad", "Module.fc.Linear.parameters_grad"},
	        {"api", "api"},
	        {"a.0.forward", "a.0.forward"},
	        {"", ""},
	        {"Torch.matmul.x.forward", "Torch.matmul.x.forward"},
	};
	struct buf k = BUF_INIT;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK(matcher_msprobe_key(cases[i][0], &k) == 0);
		CHECK_STR(k.data ? k.data : "", cases[i][1]);
	}
	buf_reset(&k);
}

/* A small dump in md5 mode with every value shape: several outputs, a
 * null output, scalars, kwargs, parameters, NaN literals. */
static const char MD5_DUMP[] =
        "{\n"
        " \"task\": \"statistics\",\n"
        " \"level\": \"L1\",\n"
        " \"framework\": \"pytorch\",\n"
        " \"dump_data_dir\": null,\n"
        " \"data\": {\n"
        "  \"Functional.linear.0.forward\": {\n"
        "   \"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
        "\"shape\": [2, 4], \"Max\": 1.5, \"Min\": -1.0, \"Mean\": 0.1, \"Norm\": 2.0, "
        "\"requires_grad\": true, \"md5\": \"0a1b2c3d\"}, {\"type\": \"int\", \"value\": 3}],\n"
        "   \"input_kwargs\": {\"bias\": {\"type\": \"torch.Tensor\", \"dtype\": "
        "\"torch.float32\", \"shape\": [4], \"Max\": 0.5, \"Min\": 0.5, \"Mean\": 0.5, "
        "\"Norm\": 1.0, \"requires_grad\": true, \"md5\": \"ffff0000\"}, \"inplace\": "
        "{\"type\": \"bool\", \"value\": false}},\n"
        "   \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": "
        "[2, 4], \"Max\": NaN, \"Min\": -Infinity, \"Mean\": 0.30000000000000004, \"Norm\": "
        "Infinity, \"requires_grad\": true, \"md5\": \"12345678\"}, null, {\"type\": "
        "\"torch.Tensor\", \"dtype\": \"torch.int64\", \"shape\": [], \"Max\": 7, \"Min\": 7, "
        "\"Mean\": 7, \"Norm\": 7, \"requires_grad\": false, \"md5\": \"deadbeef\"}]\n"
        "  },\n"
        "  \"Functional.linear.0.backward\": {\n"
        "   \"input\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": "
        "[2, 4], \"Max\": 1e-05, \"Min\": -2e-05, \"Mean\": 0, \"Norm\": 3e-05, \"md5\": "
        "\"00000001\"}],\n"
        "   \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": "
        "[2, 4], \"Max\": true, \"Min\": false, \"Mean\": null, \"Norm\": null, \"md5\": "
        "\"00000002\"}]\n"
        "  },\n"
        "  \"Module.fc.Linear.parameters_grad\": {\n"
        "   \"weight\": {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": "
        "[4, 4], \"Max\": 0.25, \"Min\": -0.25, \"Mean\": 0.0, \"Norm\": 1.0}\n"
        "  }\n"
        " }\n"
        "}\n";

static void test_md5_dump(void)
{
	struct buf t;
	const char *want = "total 3\n"
	                   "0@7 [Functional.linear.forward/op_0_linear] forward\n"
	                   "  Shape: [2, 4], Dtype: torch.float32; [], Dtype: torch.int64\n"
	                   "  L2 norm: inf\n"
	                   "  Min: -inf\n"
	                   "  Max: nan\n"
	                   "  Mean: 0.30000000000000004\n"
	                   "  out: 12345678, deadbeef\n"
	                   "  in: 0a1b2c3d, 3, ffff0000, false\n"
	                   "1@12 [Functional.linear.backward/op_0_linear] backward\n"
	                   "  Shape: [2, 4], Dtype: torch.float32\n"
	                   "  Min: false (text)\n"
	                   "  Max: true (text)\n"
	                   "  out: 00000002\n"
	                   "  in: 00000001\n"
	                   "2@16 [Module.fc.Linear.parameters_grad] backward\n"
	                   "  Shape: [4, 4], Dtype: torch.float32\n"
	                   "  L2 norm: 1\n"
	                   "  Min: -0.25\n"
	                   "  Max: 0.25\n"
	                   "  Mean: 0\n"
	                   "  out: 1\n"
	                   "ok 3 entries 20 lines\n";
	CHECK_STR(parse_s(MD5_DUMP, &t), want);
	/* chunking invariance: 1 byte, 7 bytes, whole */
	for (size_t chunk = 1; chunk <= 7; chunk += 6) {
		struct buf c;
		parse(MD5_DUMP, strlen(MD5_DUMP), chunk, &c);
		CHECK_STR(c.data, t.data);
		buf_reset(&c);
	}
	buf_reset(&t);
	CHECK(matcher_msprobe_detect(MD5_DUMP, strlen(MD5_DUMP)));
	CHECK_INT(matcher_detect_kind(MD5_DUMP, strlen(MD5_DUMP)), MATCHER_KIND_ACTIVATION);
}

/* The real dumps of msprobe's tests: op counts, the first and last ops,
 * stats text, phases. */
static void test_real_dumps(void)
{
	static const struct {
		const char *path;
		size_t n_ops;
		const char *first, *last;
		int backward;
	} files[] = {
	        {"data/msprobe/pytorch/dump.json", 12, "Tensor.__add__.forward/op_0___add__",
	         "NPU.npu_fusion_attention.backward/op_0_npu_fusion_attention", 1},
	        {"data/msprobe/mindspore/dump.json", 13, "Tensor.__add__.forward/op_0___add__",
	         "Functional.flash_attention_score.backward/op_0_flash_attention_score", 2},
	        {"data/msprobe/pytorch_run_ut_dump.json", 0, NULL, NULL, 0},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t n;
		char *s = slurp(files[i].path, &n);
		CHECK(s != NULL);
		if (!s)
			continue;
		CHECK(matcher_msprobe_detect(s, n));
		CHECK_INT(matcher_detect_kind(s, n), MATCHER_KIND_ACTIVATION);
		struct matcher_actlog *log = NULL;
		struct matcher_error err;
		CHECK(matcher_actlog_parse_buffer(s, n, &log, &err) == 0);
		if (log && files[i].first) {
			CHECK_INT(log->n_entries, files[i].n_ops);
			CHECK_INT(log->header_total, (long)files[i].n_ops);
			CHECK_STR(ENTRY(log, 0)->key, files[i].first);
			CHECK_STR(ENTRY(log, log->n_entries - 1)->key, files[i].last);
			size_t nb = 0;
			for (size_t k = 0; k < log->n_entries; k++)
				nb += ENTRY(log, k)->phase == MATCHER_BACKWARD;
			CHECK_INT(nb, files[i].backward);
		}
		matcher_actlog_free(log);
		free(s);
	}
	/* one op of the PyTorch dump in full */
	size_t n;
	char *s = slurp("data/msprobe/pytorch/dump.json", &n);
	struct matcher_actlog *log = NULL;
	struct matcher_error err;
	if (s && matcher_actlog_parse_buffer(s, n, &log, &err) == 0) {
		const struct matcher_entry *e = ENTRY(log, 4);
		CHECK_STR(e->key, "Module.module.module.language_model.embedding.word_embeddings."
		                  "VocabParallelEmbedding.forward/op_0_VocabParallelEmbedding");
		CHECK_INT(e->line, 153);
		CHECK_STR(e->stats[MATCHER_STAT_SHAPE], "[1, 4096, 6144], Dtype: torch.bfloat16");
		CHECK_STR(e->stats[MATCHER_STAT_MAX], "2.6875");
		CHECK_STR(e->stats[MATCHER_STAT_MIN], "-2.640625");
		CHECK_STR(e->stats[MATCHER_STAT_MEAN], "0.000316619873046875");
		CHECK_STR(e->stats[MATCHER_STAT_L2], "2512");
		CHECK_STR(e->output_hash, "2512");
		CHECK_STR(e->input_hashes, "2257767.75");
		CHECK(e->stats[MATCHER_STAT_L1] == NULL && e->location == NULL);
	}
	matcher_actlog_free(log);
	free(s);
}

/* stack.json in both layouts: the first frame outside msprobe's hooks. */
static void test_stack(void)
{
	size_t n;
	char *s = slurp("data/msprobe/pytorch/stack.json", &n);
	struct matcher_msprobe_stack *st = NULL;
	struct matcher_error err;
	CHECK(s && matcher_msprobe_stack_parse(s, n, 0, &st, &err) == 0);
	CHECK_INT(matcher_msprobe_stack_count(st), 11); /* the backward op has none */
	CHECK_STR(matcher_msprobe_stack_find(st, "Tensor.__add__.forward/op_0___add__"),
	          "/path_to_net/PanGu/pangu/training/utils.py:176");
	CHECK_STR(matcher_msprobe_stack_find(st, "Tensor.__or__.forward/op_0___or__"),
	          "/path_to_package/third_party/MindSpeed/mindspeed/core/tensor_parallel/"
	          "layers.py:19");
	CHECK(matcher_msprobe_stack_find(st, "Tensor.__add__.0.forward") == NULL);
	/* the dump parser fills locations from it */
	size_t dn;
	char *d = slurp("data/msprobe/pytorch/dump.json", &dn);
	struct buf t = BUF_INIT;
	struct matcher_actlog_callbacks cb = {&t, NULL, on_entry, NULL};
	struct matcher_msprobe_parser *p = matcher_msprobe_parser_new(&cb, 0, st);
	CHECK(d && matcher_msprobe_feed(p, d, dn) == 0 && matcher_msprobe_finish(p, NULL) == 0);
	CHECK(t.data && strstr(t.data, "[Tensor.__add__.forward/op_0___add__] forward\n") &&
	      strstr(t.data, "  at: /path_to_net/PanGu/pangu/training/utils.py:176\n"));
	matcher_msprobe_parser_free(p);
	buf_reset(&t);
	free(d);
	matcher_msprobe_stack_free(st);
	free(s);
	/* the newer layout: {"0": [[names], [frames]]} */
	static const char NEW[] =
	        "{\"0\": [[\"Torch.matmul.0.forward\", \"Torch.matmul.1.forward\"], "
	        "[\"File /x/msprobe/pytorch/hook_module/wrap_torch.py, line 9, in f, \\n x\", "
	        "\"File /w/model.py, line 42, in forward, \\n y = a @ b\"]],\n"
	        " \"1\": [[\"File /w/train.py, line 7, in main, \\n z\"], "
	        "[\"Module.fc.Linear.forward.0\"]]}";
	CHECK(matcher_msprobe_stack_parse(NEW, strlen(NEW), 0, &st, &err) == 0);
	CHECK_STR(matcher_msprobe_stack_find(st, "Torch.matmul.forward/op_1_matmul"),
	          "/w/model.py:42");
	CHECK_STR(matcher_msprobe_stack_find(st, "Module.fc.Linear.forward/op_0_Linear"),
	          "/w/train.py:7");
	matcher_msprobe_stack_free(st);
	/* refusals */
	CHECK(matcher_msprobe_stack_parse("{\"a\": 3}", 8, 0, &st, &err) == -1 && st == NULL);
	CHECK_STR(err.code, "bad_stack");
	CHECK(strstr(err.message, "\"a\"") != NULL);
	CHECK(matcher_msprobe_stack_parse("{\n\"a\": [}", 9, 0, &st, &err) == -1);
	CHECK_STR(err.code, "bad_json");
	CHECK_INT(err.line, 2);
}

static void test_errors(void)
{
	struct buf t;
	/* jansson's line and column */
	CHECK_STR(parse_s("{\"task\": \"statistics\",\n \"data\": {\n  \"a.0.forward\": {,}}}", &t),
	          "error bad_json@3: dump.json is not valid JSON: line 3, column 19: string or "
	          "'}' expected near ','\n");
	buf_reset(&t);
	/* the op named, with its line */
	CHECK_STR(parse_s("{\"data\": {\n\"Torch.add.0.forward\": {\"output\": [{\"shape\": [1], "
	                  "\"Max\": {\"x\": 1}}]}}}",
	                  &t),
	          "total 1\nerror bad_dump@2: op \"Torch.add.0.forward\": tensor stat \"Max\" is "
	          "not a "
	          "number\n");
	buf_reset(&t);
	CHECK_STR(parse_s("{\"data\": {\"a\": 3}}", &t),
	          "total 1\nerror bad_dump@1: op \"a\": its record is not an object\n");
	buf_reset(&t);
	CHECK_STR(parse_s("{\"data\": {\"a\": {\"output\": [{\"shape\": 3}]}}}", &t),
	          "total 1\nerror bad_dump@1: op \"a\": tensor \"shape\" is not a list\n");
	buf_reset(&t);
	CHECK_STR(parse_s("{\"data\": {\"a\": {\"output\": [{\"shape\": [\"x\"]}]}}}", &t),
	          "total 1\nerror bad_dump@1: op \"a\": tensor \"shape\" holds a non-number\n");
	buf_reset(&t);
	CHECK_STR(parse_s("{\"data\": {\"a\": {\"output\": [{\"shape\": [1], \"md5\": 5}]}}}", &t),
	          "total 1\nerror bad_dump@1: op \"a\": tensor \"md5\" is not a string\n");
	buf_reset(&t);
	CHECK_STR(parse_s("{\"task\": \"x\"}", &t),
	          "error not_activation_log@0: not an msprobe dump: no \"data\" object of op "
	          "records\n");
	buf_reset(&t);
	CHECK_STR(parse_s("[1]", &t), t.data); /* not `{`: the text parser's refusal */
	buf_reset(&t);
	CHECK_STR(parse_s("{\"data\": {\"a\": 1, \"a\": 2}}", &t),
	          "error bad_json@1: dump.json is not valid JSON: line 1, column 21: duplicate "
	          "object key near '\"a\"'\n");
	buf_reset(&t);
	/* nesting over the limit names the op */
	struct buf deep = BUF_INIT;
	buf_puts(&deep, "{\"data\": {\"op\": {\"output\": ");
	for (int i = 0; i < 40; i++)
		buf_putc(&deep, '[');
	for (int i = 0; i < 40; i++)
		buf_putc(&deep, ']');
	buf_puts(&deep, "}}}");
	CHECK_STR(parse_s(deep.data, &t),
	          "total 1\nerror bad_dump@1: op \"op\": arguments nested deeper than 32 levels\n");
	buf_reset(&t);
	buf_reset(&deep);
	/* a BOM and blank lines before the dump, in any chunking; an escaped
	 * name gets the line where the search stands (the previous op's) */
	const char *lead = "\xEF\xBB\xBF\n \n{\"task\": \"t\", \"data\": {\"b\\u0041\": {}, "
	                   "\n\"c\": {}}}";
	const char *lead_want =
	        "total 2\n0@1 [bA] forward\n1@4 [c] forward\nok 2 entries 4 lines\n";
	for (size_t chunk = 0; chunk <= 2; chunk++) {
		parse(lead, strlen(lead), chunk, &t);
		CHECK_STR(t.data, lead_want);
		buf_reset(&t);
	}
	/* a text log after blanks is still a text log */
	CHECK_STR(parse_s("\n\nTotal captured activations: 0\n", &t),
	          "total 0\nok 0 entries 3 lines\n");
	buf_reset(&t);
	/* an empty dump: no entries (the upload refuses it as empty) */
	CHECK_STR(parse_s("\xEF\xBB\xBF  {\"task\": \"statistics\", \"data\": {}}", &t),
	          "total 0\nok 0 entries 1 lines\n");
	buf_reset(&t);
	/* the byte limit, named */
	struct matcher_msprobe_parser *p = matcher_msprobe_parser_new(NULL, 16, NULL);
	CHECK(matcher_msprobe_feed(p, "{\"data\": {}}", 12) == 0);
	CHECK(matcher_msprobe_feed(p, "     ", 5) == -1);
	CHECK_STR(matcher_msprobe_error(p)->code, "too_large");
	CHECK(strstr(matcher_msprobe_error(p)->message, "limit of a dump.json") != NULL);
	CHECK(matcher_msprobe_finish(p, NULL) == -1);
	matcher_msprobe_parser_free(p);
	/* a strings' NaN is no literal */
	CHECK_STR(parse_s("{\"data\": {\"NaN.0.forward\": {\"output\": [{\"shape\": [1], "
	                  "\"dtype\": \"NaN\", \"Max\": \"NaN\"}]}}}",
	                  &t),
	          "total 1\n0@1 [NaN.0.forward] forward\n  Shape: [1], Dtype: NaN\n  Max: nan\n"
	          "  out: \nok 1 entries 1 lines\n");
	buf_reset(&t);
}

/* A call counter that shifted (one extra Tensor.__add__ call earlier in
 * the step) is paired by the fuzzy pass, with its stats equal. */
static void test_fuzzy_counters(void)
{
#define OUT "\"output\": [{\"shape\": [2], \"dtype\": \"x\", \"Norm\": %s}]"
	char a[512], b[768];
	snprintf(a, sizeof a,
	         "{\"task\": \"statistics\", \"data\": {\"Tensor.__add__.0.forward\": {" OUT
	         "}, \"Torch.matmul.0.forward\": {" OUT "}}}",
	         "1.5", "7");
	snprintf(b, sizeof b,
	         "{\"task\": \"statistics\", \"data\": {\"Tensor.__add__.0.forward\": {" OUT
	         "}, \"Tensor.__add__.1.forward\": {" OUT "}, \"Torch.matmul.0.forward\": {" OUT
	         "}}}",
	         "9", "1.5", "7");
#undef OUT
	struct matcher_actlog *la = NULL, *lb = NULL;
	struct matcher_error err;
	struct matcher_match_result *r = NULL;
	CHECK(matcher_actlog_parse_buffer(a, strlen(a), &la, &err) == 0);
	CHECK(matcher_actlog_parse_buffer(b, strlen(b), &lb, &err) == 0);
	CHECK(la && lb && matcher_match(la, lb, NULL, &r) == 0);
	if (r) {
		CHECK_INT(r->n_rows, 3);
		/* A's add.0 takes B's add.0 (exact, a diff); matmul exact; B's
		 * add.1 alone */
		CHECK_INT(ROW(r, 0)->method, MATCHER_METHOD_EXACT);
		CHECK_INT(ROW(r, 0)->status, MATCHER_DIFF);
		CHECK_INT(ROW(r, 1)->method, MATCHER_METHOD_EXACT);
		CHECK_INT(ROW(r, 1)->status, MATCHER_MATCH);
		CHECK_INT(ROW(r, 2)->status, MATCHER_B_ONLY);
		matcher_match_result_free(r);
	}
	/* without the exact twin, the shifted counter pairs by the fuzzy key */
	snprintf(b, sizeof b, "%s", a);
	char *p = strstr(b, "__add__.0");
	p[8] = '3';
	matcher_actlog_free(lb);
	CHECK(matcher_actlog_parse_buffer(b, strlen(b), &lb, &err) == 0);
	CHECK(matcher_match(la, lb, NULL, &r) == 0);
	if (r) {
		CHECK_STR(ROW(r, 0)->b->key, "Tensor.__add__.forward/op_3___add__");
		CHECK_INT(ROW(r, 0)->method, MATCHER_METHOD_FUZZY);
		CHECK_INT(ROW(r, 0)->status, MATCHER_MATCH);
		matcher_match_result_free(r);
	}
	matcher_actlog_free(la);
	matcher_actlog_free(lb);
}

static void test_detect(void)
{
	static const char *const no[] = {
	        "{\"data\": {}}",                           /* no task/framework member */
	        "{\"task\": \"statistics\", \"data\": []}", /* data not an object */
	        "[{\"task\": 1, \"data\": {}}]",
	        "Total captured activations: 3\n",
	        "",
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		CHECK(!matcher_msprobe_detect(no[i], strlen(no[i])));
	const char *yes = "\n {\"framework\" :\"mindspore\",\"data\"\t:\n{\"x\": {}}}";
	CHECK(matcher_msprobe_detect(yes, strlen(yes)));
	enum matcher_source s;
	CHECK(matcher_source_from_name("msprobe", &s) == 0);
	CHECK_INT(s, MATCHER_SOURCE_MSPROBE);
	CHECK_STR(matcher_source_name(MATCHER_SOURCE_MSPROBE), "msprobe");
	CHECK(matcher_source_from_name("stdout", &s) == 0 && s == MATCHER_SOURCE_STDOUT);
	CHECK(matcher_source_from_name("nope", &s) == -1);
}

int main(void)
{
	test_keys();
	test_md5_dump();
	test_real_dumps();
	test_stack();
	test_errors();
	test_fuzzy_counters();
	test_detect();
	return check_report();
}
