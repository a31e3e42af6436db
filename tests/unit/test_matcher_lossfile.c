/* test_matcher_lossfile.c - the golden loss file parser
 * (matcher/lossfile.h): values with their exact text, comments, blank
 * lines, CRLF, a BOM, `# metric:`, every refusal with its line number,
 * chunking invariance and detection. */
#include "check.h"
#include "lossfile.h"

#include "buf.h"

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct buf *t = ctx;
	CHECK(r->n_metrics >= 1 && r->kind == MATCHER_STEP_NEW && r->validation == 0);
	buf_printf(t, "%d:%ld@%lu", r->rank, r->step, r->line);
	for (size_t k = 0; k < r->n_metrics; k++)
		buf_printf(t, " %s=%s/%d/%d/%.17g", r->metrics[k].name, r->metrics[k].text,
		           r->metrics[k].decimals, r->metrics[k].prec, r->metrics[k].value);
	buf_putc(t, '\n');
	return 0;
}

/* Parse s in chunks of `chunk` bytes (0 whole); transcript into *t. */
static int parse(const char *s, size_t chunk, struct buf *t)
{
	struct matcher_trainlog_callbacks cb = {t, on_step, NULL};
	struct matcher_lossfile_parser *p = matcher_lossfile_parser_new(&cb, 1, 0);
	struct matcher_trainlog_summary sum;
	size_t n = strlen(s), off = 0;
	int rc = 0;
	buf_init(t);
	while (rc == 0 && off < n) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		rc = matcher_lossfile_feed(p, s + off, k);
		off += k;
	}
	if (rc == 0)
		rc = matcher_lossfile_finish(p, &sum);
	if (rc == 0)
		buf_printf(t, "ok %zu steps %lu lines\n", sum.n_steps, sum.n_lines);
	else
		buf_printf(t, "error %s line %lu: %s\n", matcher_lossfile_error(p)->code,
		           matcher_lossfile_error(p)->line, matcher_lossfile_error(p)->message);
	matcher_lossfile_parser_free(p);
	return rc;
}

static void test_values(void)
{
	const char *f = "\xEF\xBB\xBF# llama3 debug model, 8 GPUs\r\n"
	                "\r\n"
	                "1 8.15432071685791\r\n"
	                "  2\t7.978399276733398  \r\n"
	                "# a comment between values\n"
	                "3 1e-05\n"
	                "10 nan\n"
	                "11 -inf";
	struct buf a, b;
	CHECK(parse(f, 0, &a) == 0);
	CHECK_STR(a.data, "1:1@3 loss=8.15432071685791/14/1/8.1543207168579102\n"
	                  "1:2@4 loss=7.978399276733398/15/1/7.9783992767333984\n"
	                  "1:3@6 loss=1e-05/5/1/1.0000000000000001e-05\n"
	                  "1:10@7 loss=nan/0/1/nan\n"
	                  "1:11@8 loss=-inf/0/1/-inf\n"
	                  "ok 5 steps 8 lines\n");
	for (size_t chunk = 1; chunk < 12; chunk++) {
		CHECK(parse(f, chunk, &b) == 0);
		CHECK_STR(b.data, a.data);
		buf_reset(&b);
	}
	buf_reset(&a);
	CHECK(parse("# metric: grad_norm\n5 0.5\n", 0, &a) == 0);
	CHECK_STR(a.data, "1:5@2 grad_norm=0.5/1/1/0.5\nok 1 steps 2 lines\n");
	buf_reset(&a);
}

static void test_refusals(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	        {"1 2.0\n2 2.0 3.0\n", "error not_loss_file line 2: line 2 has 2 values: a file of "
	                               "several metrics names them first"},
	        {"# step loss grad_norm\n1 2.0 3.0\n2 2.0\n",
	         "error not_loss_file line 3: line 3 has 1 value(s); the header `# step ...` names "
	         "2"},
	        {"# step loss loss\n1 2.0 3.0\n",
	         "error bad_metric line 1: line 1 names metric loss twice"},
	        {"# step loss a;b\n1 2.0 3.0\n", "error bad_metric line 1: "},
	        {"# step loss grad_norm\n1 2.0 x\n", "error not_loss_file line 2: "},
	        {"step: 1  loss: 2.0\n", "error not_loss_file line 1: "},
	        {"1 2.0\n-2 1.0\n", "error not_loss_file line 2: "},
	        {"1 2,000\n", "error not_loss_file line 1: "},
	        {"1 2.0x\n", "error not_loss_file line 1: "},
	        {"1\n", "error not_loss_file line 1: "},
	        {"1 2.0\n\n3 1.0\n3 1.0\n",
	         "error step_order line 4: line 4: step 3 does not follow step 3 (line 3)"},
	        {"5 2.0\n4 1.0\n", "error step_order line 2: "},
	        {"1 2.0\n# metric: lr\n", "error bad_metric line 2: "},
	        {"# metric: a b\n", "error bad_metric line 1: "},
	        {"# only comments\n\n", "error no_values line 0: "},
	        {"", "error no_values line 0: "},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct buf a, b;
		CHECK(parse(cases[i].in, 0, &a) == -1);
		/* the error is the transcript's last line */
		const char *last = strstr(a.data, "error ");
		CHECK(last && strncmp(last, cases[i].want, strlen(cases[i].want)) == 0);
		CHECK(parse(cases[i].in, 1, &b) == -1);
		CHECK_STR(b.data, a.data);
		buf_reset(&a);
		buf_reset(&b);
	}
	/* a NUL byte (strlen stops there, so feed directly) */
	struct matcher_lossfile_parser *p = matcher_lossfile_parser_new(NULL, 0, 0);
	CHECK(matcher_lossfile_feed(p, "1 2.0\n2 \0\n", 10) == -1);
	CHECK_STR(matcher_lossfile_error(p)->code, "binary_data");
	CHECK(matcher_lossfile_error(p)->line == 2);
	CHECK(matcher_lossfile_feed(p, "3 1\n", 4) == -1);
	matcher_lossfile_parser_free(p);
	/* line limit */
	p = matcher_lossfile_parser_new(NULL, 0, 16);
	CHECK(matcher_lossfile_feed(p, "1 2.0\n2 1.00000000000000000000\n", 31) == -1);
	CHECK_STR(matcher_lossfile_error(p)->code, "line_too_long");
	CHECK(matcher_lossfile_error(p)->line == 2);
	matcher_lossfile_parser_free(p);
}

/* TorchTitan's newer golden files (its test asset losses/real_pg/a10g/
 * llama3.txt, copied to tests/data/train/): a header of `# key: value`
 * lines (the file's meta) and `# step NAME ...` columns, values in full
 * float repr. */
static void test_columns(void)
{
	const char *f = "# config: llama3_debugmodel_fsdp2_tp2_cp2\n"
	                "# ngpu: 8\n"
	                "# parallelism: FSDP=2, TP=2, CP=2\n"
	                "# step loss grad_norm\n"
	                "1 8.023969650268555 1.5995219945907593\n"
	                "2 7.695959091186523 1.4733818769454956\n";
	struct buf a, b;
	CHECK(parse(f, 0, &a) == 0);
	CHECK_STR(a.data, "1:1@5 loss=8.023969650268555/15/1/8.0239696502685547 "
	                  "grad_norm=1.5995219945907593/16/1/1.5995219945907593\n"
	                  "1:2@6 loss=7.695959091186523/15/1/7.6959590911865234 "
	                  "grad_norm=1.4733818769454956/16/1/1.4733818769454956\n"
	                  "ok 2 steps 6 lines\n");
	for (size_t chunk = 1; chunk < 9; chunk++) {
		CHECK(parse(f, chunk, &b) == 0);
		CHECK_STR(b.data, a.data);
		buf_reset(&b);
	}
	buf_reset(&a);
	/* the header's key: value lines are the file's meta */
	struct matcher_lossfile_parser *p = matcher_lossfile_parser_new(NULL, 0, 0);
	const char *k = NULL, *v = NULL;
	CHECK(matcher_lossfile_feed(p, f, strlen(f)) == 0);
	CHECK_INT(matcher_lossfile_meta(p, 0, &k, &v), 3);
	CHECK_STR(k, "config");
	CHECK_STR(v, "llama3_debugmodel_fsdp2_tp2_cp2");
	CHECK_INT(matcher_lossfile_meta(p, 2, &k, &v), 3);
	CHECK_STR(k, "parallelism");
	CHECK_STR(v, "FSDP=2, TP=2, CP=2");
	matcher_lossfile_parser_free(p);
	CHECK(matcher_lossfile_detect(f, strlen(f)) == 1);
	CHECK(matcher_detect_kind(f, strlen(f)) == MATCHER_KIND_TRAINING);
}

static void test_detect(void)
{
	const char *golden = "# comment\n1 8.15432071685791\n2 7.97\n";
	CHECK(matcher_lossfile_detect(golden, strlen(golden)) == 1);
	CHECK(matcher_lossfile_detect("1 8.1", 5) == 0); /* partial line */
	CHECK(matcher_lossfile_detect("step: 1  loss: 8.1\n", 19) == 0);
	CHECK(matcher_lossfile_detect("1 8.1\nhello\n", 12) == 1); /* the parser says line 2 */
	CHECK(matcher_lossfile_detect("hello\n1 8.1\n", 12) == 0);
	CHECK(matcher_lossfile_detect("# only\n\n", 8) == 0);
	CHECK(matcher_detect_kind(golden, strlen(golden)) == MATCHER_KIND_TRAINING);
}

int main(void)
{
	test_values();
	test_refusals();
	test_columns();
	test_detect();
	return check_report();
}
