/* test_matcher_trainlog.c - the training log parser: every rule of
 * training-log.md (escapes, rank prefixes, validation lines, numbers,
 * duplicates, warnings, fatal errors, line endings) and chunk-boundary
 * independence on generated logs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "train_num.h"
#include "trainlog.h"

/* A textual trace of every callback, so two parses can be compared. */
struct trace {
	struct buf out;
	size_t n_steps, n_warnings;
	struct matcher_step_record last; /* metrics not valid */
	char last_metrics[2048];
	char warn_codes[512];
	unsigned long last_warn_line;
	char last_excerpt[1200];
};

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct trace *t = ctx;
	buf_printf(&t->out, "S r%d s%ld v%d k%d L%lu:", r->rank, r->step, r->validation,
	           (int)r->kind, r->line);
	size_t o = 0;
	t->last_metrics[0] = 0;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_metric_value *m = &r->metrics[i];
		buf_printf(&t->out, " %s=%s(%.17g,%d)", m->name, m->text, m->value, m->decimals);
		int w = snprintf(t->last_metrics + o, sizeof t->last_metrics - o, "%s%s=%s/%d",
		                 i ? " " : "", m->name, m->text, m->decimals);
		if (w > 0 && o + (size_t)w < sizeof t->last_metrics)
			o += (size_t)w;
	}
	buf_putc(&t->out, '\n');
	t->last = *r;
	t->n_steps++;
	return 0;
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct trace *t = ctx;
	buf_printf(&t->out, "W %s L%lu %s | %s\n", w->code, w->line, w->message, w->excerpt);
	size_t l = strlen(t->warn_codes);
	snprintf(t->warn_codes + l, sizeof t->warn_codes - l, "%s%s", l ? "," : "", w->code);
	t->last_warn_line = w->line;
	snprintf(t->last_excerpt, sizeof t->last_excerpt, "%s", w->excerpt);
	t->n_warnings++;
	return 0;
}

/* Parse data fed in chunks of `chunk` bytes (0 = all at once).  Returns
 * the feed/finish status; the trace and summary are filled. */
static int parse(const char *data, size_t n, size_t chunk, size_t max_line, struct trace *t,
                 struct matcher_trainlog_summary *sum, struct matcher_error *err)
{
	memset(t, 0, sizeof *t);
	buf_init(&t->out);
	struct matcher_trainlog_callbacks cb = {t, on_step, on_warning};
	struct matcher_trainlog_parser *p = matcher_trainlog_parser_new(&cb, max_line);
	int rc = 0;
	if (!p)
		return -2;
	if (!chunk)
		chunk = n ? n : 1;
	for (size_t i = 0; i < n && rc == 0; i += chunk)
		rc = matcher_trainlog_feed(p, data + i, n - i < chunk ? n - i : chunk);
	if (rc == 0) {
		memset(sum, 0, sizeof *sum);
		rc = matcher_trainlog_finish(p, sum);
	}
	if (rc < 0 && err)
		*err = *matcher_trainlog_error(p);
	matcher_trainlog_parser_free(p);
	return rc;
}

static int parse_s(const char *s, struct trace *t, struct matcher_trainlog_summary *sum,
                   struct matcher_error *err)
{
	return parse(s, strlen(s), 0, 0, t, sum, err);
}

static const char *metric_of(const struct trace *t, const char *name, char *out, size_t cap)
{
	/* find "name=text/dec" in last_metrics */
	char key[64];
	snprintf(key, sizeof key, "%s=", name);
	const char *p = t->last_metrics;
	out[0] = 0;
	while ((p = strstr(p, key))) {
		if (p == t->last_metrics || p[-1] == ' ') {
			const char *e = strchr(p, ' ');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			n -= strlen(key);
			if (n >= cap)
				n = cap - 1;
			memcpy(out, p + strlen(key), n);
			out[n] = 0;
			return out;
		}
		p++;
	}
	return NULL;
}

static void test_torchtitan_line(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	char v[64];
	const char *log = "[rank0]:[titan] 2026-11-29 10:00:00,000 - root - INFO - Training starts "
	                  "at step 1\n"
	                  "[rank0]:[titan] 2026-11-29 10:00:02,731 - root - INFO - \x1b[31mstep:  "
	                  "1  \x1b[32mloss: "
	                  "11.09833  \x1b[38;2;180;60;0mgrad_norm:  4.9806  \x1b[36mmemory: "
	                  "35.22GiB(44.56%)  "
	                  "\x1b[34mtps: 1,231  \x1b[36mtflops: 71.27  \x1b[35mmfu: 7.21%\x1b[39m\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 1);
	CHECK_INT(t.last.step, 1);
	CHECK_INT(t.last.rank, 0);
	CHECK_INT(t.last.validation, 0);
	CHECK_INT(t.last.line, 2);
	CHECK_INT(t.last.kind, MATCHER_STEP_NEW);
	CHECK_STR(metric_of(&t, "loss", v, sizeof v), "11.09833/5");
	CHECK_STR(metric_of(&t, "grad_norm", v, sizeof v), "4.9806/4");
	CHECK_STR(metric_of(&t, "memory_gib", v, sizeof v), "35.22/2");
	CHECK_STR(metric_of(&t, "memory_pct", v, sizeof v), "44.56/2");
	CHECK_STR(metric_of(&t, "tps", v, sizeof v), "1,231/0");
	CHECK_STR(metric_of(&t, "tflops", v, sizeof v), "71.27/2");
	CHECK_STR(metric_of(&t, "mfu", v, sizeof v), "7.21/2");
	CHECK(strstr(t.out.data, "tps=1,231(1231,0)") != NULL);
	CHECK(strstr(t.out.data, "loss=11.09833(11.098330000000001,5)") != NULL);
	CHECK_INT(sum.n_steps, 1);
	CHECK_INT(sum.n_lines, 2);
	CHECK_INT(sum.n_ranks, 1);
	CHECK_INT(t.n_warnings, 0);
	buf_reset(&t.out);
}

static void test_visible_escapes_and_extras(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	char v[64];
	const char *log = "\xE2\x90\x9B[31mstep: 7  \xE2\x90\x9B[32mloss: 2.50000  lr: 3e-4  "
	                  "elapsed_time_per_step: 1.2s  mfu: N/A\xE2\x90\x9B[39m\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 1);
	CHECK_INT(t.last.step, 7);
	CHECK_STR(metric_of(&t, "loss", v, sizeof v), "2.50000/5");
	CHECK_STR(metric_of(&t, "lr", v, sizeof v), "3e-4/4");
	CHECK_STR(metric_of(&t, "elapsed_time_per_step", v, sizeof v), "1.2/1");
	CHECK(metric_of(&t, "mfu", v, sizeof v) == NULL); /* N/A = absent */
	CHECK(metric_of(&t, "grad_norm", v, sizeof v) == NULL);
	buf_reset(&t.out);
}

static void test_ranks_interleaved(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *log = "[rank0]:step: 1  loss: 1.00000  grad_norm: 1.0000\n"
	                  "[rank1]:step: 1  loss: 1.00001  grad_norm: 1.0000\n"
	                  "[rank1]:step: 2  loss: 0.90000  grad_norm: 1.0000\n"
	                  "[rank0]:step: 2  loss: 0.90000  grad_norm: 1.0000\n"
	                  "[rank12]:step: 2  loss: 0.90000  grad_norm: 1.0000\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 5);
	CHECK_INT(t.n_warnings, 0); /* per rank: no duplicates, no backwards */
	CHECK(strstr(t.out.data, "S r1 s1 v0 k0 L2:") != NULL);
	CHECK(strstr(t.out.data, "S r0 s2 v0 k0 L4:") != NULL);
	CHECK(strstr(t.out.data, "S r12 s2 v0 k0 L5:") != NULL);
	CHECK_INT(sum.n_ranks, 3);
	CHECK_INT(sum.n_steps, 5);
	buf_reset(&t.out);
}

static void test_validation_kept_apart(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *log = "step: 20  loss: 8.12345  grad_norm: 1.2345\n"
	                  "validate step: 20  loss: 8.7725  memory: 35.21GiB(44.56%)  tps: 4,321\n"
	                  "step: 21  loss: 8.00000  grad_norm: 1.2000\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 3);
	CHECK_INT(t.n_warnings, 0);
	CHECK(strstr(t.out.data, "S r0 s20 v1 k0 L2: loss=8.7725") != NULL);
	CHECK(strstr(t.out.data, "S r0 s20 v0 k0 L1: loss=8.12345") != NULL);
	CHECK_INT(sum.n_steps, 2);
	CHECK_INT(sum.n_validation, 1);
	buf_reset(&t.out);
}

static void test_numbers(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	char v[64];
	CHECK_INT(parse_s("step: 1,000  loss: nan  grad_norm: inf  lr: -inf  x: -1,234.5\n", &t,
	                  &sum, NULL),
	          0);
	CHECK_INT(t.last.step, 1000);
	CHECK(strstr(t.out.data, "loss=nan(nan,0)") != NULL);
	CHECK(strstr(t.out.data, "grad_norm=inf(inf,0)") != NULL);
	CHECK(strstr(t.out.data, "lr=-inf(-inf,0)") != NULL);
	CHECK(strstr(t.out.data, "x=-1,234.5(-1234.5,1)") != NULL);
	CHECK_STR(metric_of(&t, "loss", v, sizeof v), "nan/0");
	buf_reset(&t.out);
	CHECK_INT(parse_s("step: 3  loss: NaN  grad_norm: -Infinity\n", &t, &sum, NULL), 0);
	CHECK(strstr(t.out.data, "loss=NaN(nan,0)") != NULL);
	CHECK(strstr(t.out.data, "grad_norm=-Infinity(-inf,0)") != NULL);
	buf_reset(&t.out);

	double d;
	int dec;
	CHECK_INT(matcher_train_parse_num("11.09833", 8, &d, &dec), 8);
	CHECK_DBL(d, 11.09833, 0);
	CHECK_INT(dec, 5);
	CHECK_INT(matcher_train_parse_num("1.5e-3x", 7, &d, &dec), 6);
	CHECK_INT(dec, 4);
	CHECK_INT(matcher_train_parse_num("2E+2", 4, &d, &dec), 4);
	CHECK_DBL(d, 200, 0);
	CHECK_INT(dec, 0);
	CHECK_INT(matcher_train_parse_num("N/A", 3, &d, &dec), 0);
	CHECK_INT(matcher_train_parse_num("info", 4, &d, &dec), 0);
	CHECK_INT(matcher_train_parse_num(".", 1, &d, &dec), 0);
	CHECK_INT(matcher_train_parse_num("12,", 3, &d, &dec), 2);
	CHECK_INT(matcher_train_parse_num("0.1234567890123456789", 21, &d, &dec), 21);
	CHECK_DBL(d, 0.1234567890123456789, 0);
	CHECK_INT(dec, 19);
}

static void test_duplicates(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	/* Identical loss/grad_norm text (tps differs): a copy, no warning. */
	const char *copies = "step: 1  loss: 2.00000  grad_norm: 1.0000  tps: 1,000\n"
	                     "step: 1  loss: 2.00000  grad_norm: 1.0000  tps: 1,200\n"
	                     "step: 2  loss: 1.90000  grad_norm: 1.0000  tps: 1,000\n"
	                     "step: 2  loss: 1.90000  grad_norm: 1.0000  tps: 1,100\n";
	CHECK_INT(parse_s(copies, &t, &sum, NULL), 0);
	CHECK_INT(t.n_warnings, 0);
	CHECK(strstr(t.out.data, "S r0 s1 v0 k1 L2:") != NULL);
	CHECK(strstr(t.out.data, "S r0 s2 v0 k1 L4:") != NULL);
	CHECK_INT(sum.n_copies, 2);
	CHECK_INT(sum.n_steps, 2);
	buf_reset(&t.out);
	/* A different loss: a restart; REPLACE and a duplicate_step warning. */
	const char *restart = "step: 1  loss: 2.00000  grad_norm: 1.0000\n"
	                      "step: 2  loss: 1.90000  grad_norm: 1.0000\n"
	                      "step: 2  loss: 1.95000  grad_norm: 1.0000\n";
	CHECK_INT(parse_s(restart, &t, &sum, NULL), 0);
	CHECK_STR(t.warn_codes, "duplicate_step");
	CHECK_INT(t.last_warn_line, 3);
	CHECK(strstr(t.out.data, "S r0 s2 v0 k2 L3: loss=1.95000") != NULL);
	CHECK_INT(sum.n_warnings, 1);
	buf_reset(&t.out);
}

static void test_backwards(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *log = "step: 5  loss: 2.00000\n"
	                  "step: 6  loss: 1.90000\n"
	                  "step: 3  loss: 1.80000\n"
	                  "step: 4  loss: 1.70000\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_STR(t.warn_codes, "step_backwards");
	CHECK_INT(t.last_warn_line, 3);
	CHECK(strstr(t.out.data, "S r0 s3 v0 k0 L3:") != NULL);
	CHECK_INT(sum.n_steps, 4);
	buf_reset(&t.out);
	/* A restart from a checkpoint: backwards + duplicates of other text. */
	const char *re = "step: 1  loss: 2.00000\nstep: 2  loss: 1.90000\nstep: 3  loss: 1.80000\n"
	                 "step: 2  loss: 1.91000\nstep: 3  loss: 1.80000\n";
	CHECK_INT(parse_s(re, &t, &sum, NULL), 0);
	CHECK_STR(t.warn_codes, "step_backwards,duplicate_step");
	CHECK(strstr(t.out.data, "S r0 s3 v0 k1 L5:") != NULL);
	buf_reset(&t.out);
}

static void test_error_lines(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *log = "[rank0]:step: 1  loss: 2.00000  grad_norm: 1.0000\n"
	                  "[rank0]: Traceback (most recent call last):\n"
	                  "[rank0]:   File \"torchtitan/train.py\", line 611, in train_step\n"
	                  "[rank0]: RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_STR(t.warn_codes, "error_line");
	CHECK_INT(t.last_warn_line, 2);
	CHECK(strstr(t.last_excerpt, "Traceback (most recent call last):") != NULL);
	CHECK(strstr(t.last_excerpt, "RuntimeError: NPU out of memory") != NULL);
	CHECK(strstr(t.last_excerpt, "\n") != NULL);
	buf_reset(&t.out);

	const char *others = "step: 1  loss: 2.00000\n"
	                     "[titan] 2026-11-29 10:00:00,000 - root - ERROR - checkpoint failed\n"
	                     "step: 2  loss: 1.00000\n"
	                     "ValueError: bad shape\n"
	                     "step: 3  loss: 1.00000\n"
	                     "Killed\n"
	                     "step: 4  loss: 1.00000\n"
	                     "W1129 torch/distributed/elastic: Signal 9 (SIGKILL) received\n"
	                     "this line mentions no Error: at its start\n";
	CHECK_INT(parse_s(others, &t, &sum, NULL), 0);
	CHECK_STR(t.warn_codes, "error_line,error_line,error_line,error_line");
	CHECK(strstr(t.out.data, "W error_line L2") != NULL);
	CHECK(strstr(t.out.data, "W error_line L4") != NULL);
	CHECK(strstr(t.out.data, "W error_line L6") != NULL);
	CHECK(strstr(t.out.data, "W error_line L8") != NULL);
	buf_reset(&t.out);

	/* excerpt keeps only the first lines of a long block */
	struct buf b = BUF_INIT;
	buf_puts(&b, "step: 1  loss: 1.0\nTraceback (most recent call last):\n");
	for (int i = 0; i < 50; i++)
		buf_printf(&b, "  frame %d\n", i);
	CHECK_INT(parse_s(b.data, &t, &sum, NULL), 0);
	CHECK_INT(t.n_warnings, 1);
	CHECK(strstr(t.last_excerpt, "frame 3") != NULL);
	CHECK(strstr(t.last_excerpt, "frame 4") == NULL);
	buf_reset(&b);
	buf_reset(&t.out);
}

static void test_malformed(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *log = "step: 1  loss: 2.00000  grad_norm: 1.0000\n"
	                  "step: 2  loss: abc  grad_norm: 1.0000\n"
	                  "step: x  loss: 1.0\n"
	                  "[rank0]:[titan] 2026-11-29 10:01:20,240 - root - INFO - \x1b[31\n"
	                  "[titan] 2026-11-29 10:01:20,240 - root - INFO - ste\n"
	                  "step: 3  loss: 1.00000  grad_norm: 1.0\n"
	                  "step: 4  loss:\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	/* lines cut before their step: field are truncated, not malformed */
	CHECK_STR(t.warn_codes, "malformed_line,malformed_line,truncated_line,truncated_line,"
	                        "malformed_line");
	CHECK(strstr(t.out.data, "W malformed_line L2") != NULL);
	CHECK(strstr(t.out.data, "W truncated_line L4") != NULL);
	CHECK(strstr(t.out.data, "W malformed_line L7") != NULL);
	CHECK_INT(t.n_steps, 2);
	CHECK_INT(sum.n_steps, 2);
	buf_reset(&t.out);
}

static void test_fatal(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	struct matcher_error err;
	const char bin[] = "step: 1  loss: 1.0\nfoo\0bar\nstep: 2  loss: 1.0\n";
	CHECK_INT(parse(bin, sizeof bin - 1, 0, 0, &t, &sum, &err), -1);
	CHECK_STR(err.code, "binary_data");
	CHECK_INT(err.line, 2);
	CHECK(strstr(err.message, "line 2") != NULL);
	buf_reset(&t.out);
	/* same through 1-byte feeds */
	CHECK_INT(parse(bin, sizeof bin - 1, 1, 0, &t, &sum, &err), -1);
	CHECK_STR(err.code, "binary_data");
	CHECK_INT(err.line, 2);
	buf_reset(&t.out);

	char longl[300];
	memset(longl, 'x', sizeof longl);
	memcpy(longl, "step: 1  loss: 1.0\n", 19);
	longl[sizeof longl - 1] = '\n';
	CHECK_INT(parse(longl, sizeof longl, 0, 100, &t, &sum, &err), -1);
	CHECK_STR(err.code, "line_too_long");
	CHECK_INT(err.line, 2);
	buf_reset(&t.out);
	CHECK_INT(parse(longl, sizeof longl, 7, 100, &t, &sum, &err), -1);
	CHECK_STR(err.code, "line_too_long");
	CHECK_INT(err.line, 2);
	buf_reset(&t.out);
	/* the last line without newline counts too */
	CHECK_INT(parse(longl, sizeof longl - 1, 0, 100, &t, &sum, &err), -1);
	CHECK_STR(err.code, "line_too_long");
	buf_reset(&t.out);

	CHECK_INT(parse_s("hello\nworld: 1\nvalidate step\n", &t, &sum, &err), -1);
	CHECK_STR(err.code, "not_training_log");
	buf_reset(&t.out);
	CHECK_INT(parse_s("", &t, &sum, &err), -1);
	CHECK_STR(err.code, "not_training_log");
	buf_reset(&t.out);
}

static void test_line_endings(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	char v[64];
	CHECK_INT(parse_s("\xEF\xBB\xBFstep: 1  loss: 2.50000\r\nstep: 2  loss: 2.40000\r\n", &t,
	                  &sum, NULL),
	          0);
	CHECK_INT(t.n_steps, 2);
	CHECK_STR(metric_of(&t, "loss", v, sizeof v), "2.40000/5");
	CHECK(strstr(t.out.data, "S r0 s1 v0 k0 L1: loss=2.50000(2.5,5)\n") != NULL);
	buf_reset(&t.out);
	/* a last metric line without its newline was cut while written: a
	 * truncated_line warning and its values are not used */
	CHECK_INT(parse_s("step: 1  loss: 2.5\nstep: 2  loss: 2.25", &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 1);
	CHECK_INT(t.last.step, 1);
	CHECK_INT(sum.n_lines, 2);
	CHECK_STR(t.warn_codes, "truncated_line");
	CHECK_INT(t.last_warn_line, 2);
	buf_reset(&t.out);
}

/* Same callback sequence whatever the chunking. */
static void chunk_independence(const char *data, size_t n, const char *what)
{
	struct trace whole, one, seven;
	struct matcher_trainlog_summary s0, s1, s7;
	int r0 = parse(data, n, 0, 0, &whole, &s0, NULL);
	int r1 = parse(data, n, 1, 0, &one, &s1, NULL);
	int r7 = parse(data, n, 7, 0, &seven, &s7, NULL);
	CHECK_INT(r0, 0);
	CHECK_INT(r1, r0);
	CHECK_INT(r7, r0);
	CHECK(whole.n_steps > 0);
	CHECK(whole.out.len == one.out.len && !memcmp(whole.out.data, one.out.data, one.out.len));
	CHECK(whole.out.len == seven.out.len &&
	      !memcmp(whole.out.data, seven.out.data, seven.out.len));
	CHECK_INT(s1.n_steps, s0.n_steps);
	CHECK_INT(s7.n_warnings, s0.n_warnings);
	if (whole.out.len != one.out.len)
		fprintf(stderr, "chunking changed the parse of %s\n", what);
	buf_reset(&whole.out);
	buf_reset(&one.out);
	buf_reset(&seven.out);
}

/* Issue 13: formats and failures seen in real TorchTitan logs. */
static void test_early_2024_format(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	char v[64];
	const char *log = "[rank0]:2024-03-12 10:00:01,000 - root - INFO - step: 1, current loss: "
	                  "10.8, lr: [8e-05]\n"
	                  "[rank0]:2024-03-12 10:00:02,000 - root - INFO - step: 2, current loss: "
	                  "10.52, lr: [8e-05]\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 2);
	CHECK_INT(t.n_warnings, 0);
	CHECK_INT(t.last.step, 2);
	CHECK_STR(metric_of(&t, "loss", v, sizeof v), "10.52/2");
	CHECK_STR(metric_of(&t, "lr", v, sizeof v), "8e-05/5");
	buf_reset(&t.out);
}

static void test_step_chatter(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *log = "step: 1  loss: 2.00000  grad_norm: 1.0000\n"
	                  "[titan] - root - INFO - lr_scheduler: warmup step: 2 of 200\n"
	                  "Profiling step: 2 trace saved to /tmp/trace\n"
	                  "step: 2  loss: 1.90000  grad_norm: 1.0000\n";
	CHECK_INT(parse_s(log, &t, &sum, NULL), 0);
	CHECK_INT(t.n_steps, 2);
	CHECK_INT(t.n_warnings, 0);
	buf_reset(&t.out);
}

static void test_native_crash(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	static const char *const starts[] = {
	        "[rank1]:[E519 19:52:14.553 ProcessGroupNCCL.cpp:2198] [PG 0 Rank 1] Process "
	        "group watchdog thread terminated with exception",
	        "E0519 19:52:14.553000 1234 torch/csrc/x.cpp:12] something failed",
	        "F0519 19:52:14.553 fatal glog",
	        "terminate called after throwing an instance of 'c10::DistBackendError'",
	        "[rank0]: CUDA error: an illegal memory access was encountered",
	        "NCCL error in: ProcessGroupNCCL.cpp:1970, unhandled cuda error",
	        "Segmentation fault (core dumped)",
	        "Aborted (core dumped)",
	        "Fatal Python error: Aborted",
	        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
	        "  exitcode  : -6 (pid: 4242)",
	};
	for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
		struct buf b = BUF_INIT;
		buf_printf(&b,
		           "step: 1  loss: 2.00000\n%s\n  what():  detail\n"
		           "frame #0: c10::Error::Error() + 0x9 (0x7f in libc10.so)\n",
		           starts[k]);
		CHECK_INT(parse_s(b.data, &t, &sum, NULL), 0);
		CHECK_STR(t.warn_codes, "error_line");
		CHECK_INT(t.last_warn_line, 2);
		CHECK(strstr(t.last_excerpt, "frame #0") != NULL);
		buf_reset(&b);
		buf_reset(&t.out);
	}
	/* glog info/warning lines and a positive exit code are not errors */
	CHECK_INT(parse_s("step: 1  loss: 2.0\nI0519 19:52:14.553 ok\nW0519 19:52:14.553 slow\n"
	                  "[W519 19:52:14.553 x.cpp:1] warn\nexitcode: 0\n",
	                  &t, &sum, NULL),
	          0);
	CHECK_INT(t.n_warnings, 0);
	buf_reset(&t.out);
}

static void test_truncated_lines(void)
{
	struct trace t;
	struct matcher_trainlog_summary sum;
	const char *full =
	        "step:  1  loss: 11.09833  grad_norm:  4.9806  memory: 35.22GiB(44.56%)  "
	        "tps: 1,231  tflops: 71.27  mfu: 7.21%\n";
	/* cut at several points, last line without a newline */
	static const char *const cuts[] = {
	        "step:  2  loss: 10.5", "step:  2  loss: 10.51234  grad_norm:  31.5",
	        "step:  2  loss: 10.51234  grad_norm:  31.5000  memory: 35.22GiB(44.5", "step:  2",
	        "[rank0]:[titan] 2026-11-29 10:00:02,731 - root - INFO - \x1b[31mst"};
	for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
		struct buf b = BUF_INIT;
		buf_printf(&b, "%s%s", full, cuts[k]);
		CHECK_INT(parse_s(b.data, &t, &sum, NULL), 0);
		CHECK_STR(t.warn_codes, "truncated_line");
		CHECK_INT(t.last_warn_line, 2);
		CHECK_INT(t.n_steps, 1);
		buf_reset(&b);
		buf_reset(&t.out);
	}
	/* mid-file: fewer standard fields than the previous line of the rank */
	struct buf b = BUF_INIT;
	buf_printf(&b, "%sstep:  2  loss: 10.51234  grad_norm:  31.5\n%s", full, full);
	CHECK_INT(parse_s(b.data, &t, &sum, NULL), 0);
	CHECK(strstr(t.out.data, "W truncated_line L2") != NULL);
	CHECK(strstr(t.out.data, "S r0 s2") == NULL);
	buf_reset(&b);
	buf_reset(&t.out);
	/* mid-file, cut before loss: (not chatter) */
	buf_printf(&b,
	           "%s[titan] 2026-11-29 10:01:20,240 - root - INFO - step: 2  lo\n%s"
	           "step: 3, current loss\nSaving checkpoint at step: 4\n",
	           full, full);
	CHECK_INT(parse_s(b.data, &t, &sum, NULL), 0);
	CHECK_STR(t.warn_codes, "truncated_line,truncated_line");
	CHECK(strstr(t.out.data, "W truncated_line L2") != NULL);
	CHECK(strstr(t.out.data, "W truncated_line L4") != NULL);
	buf_reset(&b);
	buf_reset(&t.out);
	/* a rank's own history: rank 1 printing fewer fields than rank 0 is fine */
	CHECK_INT(
	        parse_s("[rank0]:step: 1  loss: 1.0  grad_norm: 2.0\n[rank1]:step: 1  loss: 1.0\n",
	                &t, &sum, NULL),
	        0);
	CHECK_INT(t.n_warnings, 0);
	buf_reset(&t.out);
	/* every metric line unusable: the fatal message says so, with the line */
	struct matcher_error err;
	CHECK_INT(parse_s("chatter\nstep: 1  loss: abc\nstep: 2  loss: x\n", &t, &sum, &err), -1);
	CHECK_STR(err.code, "not_training_log");
	CHECK_INT(err.line, 2);
	CHECK(strstr(err.message, "all 2 metric line(s) are malformed") != NULL);
	CHECK(strstr(err.message, "no training metric line") == NULL);
	buf_reset(&t.out);
}

static void test_chunks(void)
{
	char path[512];
	const char *files[] = {"data/train/q1_a.log", "data/train/q2_b.log", "data/train/q3_b.log",
	                       "data/train/q4_b.log"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		size_t n;
		char *d = check_slurp(check_testfile(files[i], path, sizeof path), &n);
		CHECK(d != NULL);
		if (d)
			chunk_independence(d, n, files[i]);
		free(d);
	}
	/* Generated scenarios with warnings, validation lines, no colour and
	 * no rank prefix.  The generator is part of the repository: a failure
	 * to run it is a test failure, never a skip. */
	const char *scen[] = {"duplicate --val-every 7", "crash", "malformed --no-color",
	                      "nan --no-rank-prefix --val-every 5"};
	char dir[] = "/tmp/parity_trainlog_______";
	if (!CHECK_MKDTEMP(dir))
		return;
	for (size_t i = 0; i < sizeof scen / sizeof scen[0]; i++) {
		char cmd[2048], pa[600], pb[600];
		snprintf(pa, sizeof pa, "%s/a.log", dir);
		snprintf(pb, sizeof pb, "%s/b.log", dir);
		snprintf(cmd, sizeof cmd,
		         "python3 %s --steps 120 --at 40 --scenario %s --out-a %s --out-b %s "
		         "2>/dev/null",
		         check_testfile("tools/gen_trainlog.py", path, sizeof path), scen[i], pa,
		         pb);
		int rc = system(cmd);
		if (rc != 0) {
			fprintf(stderr, "FAIL: could not run the generator (exit %d): %s\n", rc,
			        cmd);
			CHECK_INT(rc, 0);
			break;
		}
		size_t n;
		char *d = check_slurp(pb, &n);
		CHECK(d != NULL);
		if (d)
			chunk_independence(d, n, scen[i]);
		free(d);
		remove(pa);
		remove(pb);
	}
	rmdir(dir);
}

static int stop_cb(void *ctx, const struct matcher_step_record *r)
{
	(void)ctx;
	return r->step == 2;
}

static void test_callback_stop(void)
{
	struct matcher_trainlog_callbacks cb = {NULL, stop_cb, NULL};
	struct matcher_trainlog_parser *p = matcher_trainlog_parser_new(&cb, 0);
	const char *log = "step: 1  loss: 1.0\nstep: 2  loss: 1.0\nstep: 3  loss: 1.0\n";
	CHECK_INT(matcher_trainlog_feed(p, log, strlen(log)), -1);
	CHECK_STR(matcher_trainlog_error(p)->code, "callback");
	CHECK_INT(matcher_trainlog_error(p)->line, 2);
	CHECK_INT(matcher_trainlog_feed(p, "x\n", 2), -1);
	matcher_trainlog_parser_free(p);
}

int main(void)
{
	test_torchtitan_line();
	test_visible_escapes_and_extras();
	test_ranks_interleaved();
	test_validation_kept_apart();
	test_numbers();
	test_duplicates();
	test_backwards();
	test_error_lines();
	test_malformed();
	test_fatal();
	test_line_endings();
	test_early_2024_format();
	test_step_chatter();
	test_native_crash();
	test_truncated_lines();
	test_chunks();
	test_callback_stop();
	return check_report();
}
