/* test_matcher_actlog.c - the activation-log parser and collected log
 * against matcher/spec/activation-log.md: every rule and format variant,
 * fatal errors with their line numbers, warnings, and independence from
 * how the input is chunked (1-byte, 7-byte and whole-buffer feeds must
 * produce the same serialised callback stream) on the fixtures and on
 * freshly generated logs of every scenario. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actview.h"
#include "actlog.h"
#include "check.h"

/* ---- helpers ---------------------------------------------------------- */

struct rec {
	struct buf out; /* serialised callbacks */
	int stop_after; /* on_entry returns 1 at this entry count (0 = never) */
	int n_entries;
};

static void put_str(struct buf *b, const char *s)
{
	if (!s)
		buf_puts(b, "-");
	else
		buf_printf(b, "\"%s\"", s);
}

static int rec_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct rec *r = ctx;
	buf_printf(&r->out, "H %ld %d ", h->total, h->has_excluded);
	put_str(&r->out, h->excluded);
	buf_putc(&r->out, '\n');
	return 0;
}

static int rec_entry(void *ctx, const struct matcher_entry *e)
{
	struct rec *r = ctx;
	buf_printf(&r->out, "E %zu %lu ", e->order, e->line);
	put_str(&r->out, e->key);
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		buf_putc(&r->out, ' ');
		put_str(&r->out, e->stats[i]);
		if (e->stat_isnum & (1u << i))
			buf_printf(&r->out, "=%.17g", e->stat_num[i]);
	}
	buf_putc(&r->out, ' ');
	put_str(&r->out, e->output_hash);
	buf_putc(&r->out, ' ');
	put_str(&r->out, e->input_hashes);
	buf_putc(&r->out, ' ');
	put_str(&r->out, e->input_producers);
	buf_putc(&r->out, ' ');
	put_str(&r->out, e->location);
	buf_printf(&r->out, " %d\n", (int)e->phase);
	r->n_entries++;
	return r->stop_after && r->n_entries >= r->stop_after;
}

static int rec_warning(void *ctx, const struct matcher_warning *w)
{
	struct rec *r = ctx;
	buf_printf(&r->out, "W %s %lu %s | %s\n", w->code, w->line, w->message, w->excerpt);
	return 0;
}

/* Feed data in chunks of `chunk` bytes (0 = all at once) and serialise
 * everything, including the final error or summary.  Returns the rc of
 * the failing call or of finish; *out is a malloc'd string. */
static int run(const char *data, size_t n, size_t chunk, size_t max_line, char **out,
               int stop_after)
{
	struct rec r = {BUF_INIT, stop_after, 0};
	struct matcher_actlog_callbacks cb = {&r, rec_header, rec_entry, rec_warning};
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(&cb, max_line);
	int rc = 0;
	if (!chunk)
		chunk = n ? n : 1;
	for (size_t off = 0; off < n && rc == 0; off += chunk) {
		size_t k = n - off < chunk ? n - off : chunk;
		rc = matcher_actlog_feed(p, data + off, k);
	}
	struct matcher_actlog_summary s;
	memset(&s, 0, sizeof s);
	if (rc == 0)
		rc = matcher_actlog_finish(p, &s);
	if (rc < 0) {
		const struct matcher_error *e = matcher_actlog_error(p);
		buf_printf(&r.out, "ERR %s %lu %s\n", e->code, e->line, e->message);
		CHECK(matcher_actlog_feed(p, "x\n", 2) == -1); /* sticky */
		CHECK(matcher_actlog_finish(p, NULL) == -1);
	} else {
		buf_printf(&r.out, "S %zu %lu %lu %zu %ld\n", s.n_entries, s.n_lines,
		           s.n_unrecognised, s.n_warnings, s.header_total);
	}
	matcher_actlog_parser_free(p);
	*out = buf_take(&r.out);
	return rc;
}

/* Whole, 1-byte and 7-byte feeds (plus a few odd sizes) give identical
 * streams.  Returns the whole-feed stream (caller frees). */
static char *check_chunking(const char *what, const char *data, size_t n, size_t max_line)
{
	char *whole = NULL;
	run(data, n, 0, max_line, &whole, 0);
	static const size_t sizes[] = {1, 7, 2, 3, 64, 4093};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char *got = NULL;
		run(data, n, sizes[i], max_line, &got, 0);
		int same = strcmp(got, whole) == 0;
		CHECK(same);
		if (!same)
			fprintf(stderr, "  chunk %zu differs on %s\n", sizes[i], what);
		free(got);
	}
	return whole;
}

static struct matcher_actlog *parse(const char *text, struct matcher_error *err)
{
	struct matcher_actlog *log = NULL;
	struct matcher_error e;
	memset(&e, 0, sizeof e);
	int rc = matcher_actlog_parse_buffer(text, strlen(text), &log, &e);
	if (err)
		*err = e;
	CHECK((rc == 0) == (log != NULL));
	return log;
}

static size_t count_code(const struct matcher_actlog *log, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < log->n_warnings; i++)
		n += strcmp(log->warnings[i].code, code) == 0;
	return n;
}

static const struct matcher_warning *find_warning(const struct matcher_actlog *log,
                                                  const char *code)
{
	for (size_t i = 0; i < log->n_warnings; i++)
		if (strcmp(log->warnings[i].code, code) == 0)
			return &log->warnings[i];
	return NULL;
}

/* ---- numbers ---------------------------------------------------------- */

static void test_numbers(void)
{
	static const struct {
		const char *s;
		int ok;
		double v;
	} cases[] = {
	        {"1", 1, 1},
	        {"-1.5", 1, -1.5},
	        {"+2.5e3", 1, 2500},
	        {"6.571766e+02", 1, 657.1766},
	        {"1E-2", 1, 0.01},
	        {" 3.0 ", 1, 3},
	        {"\t-0\t", 1, 0},
	        {".5", 1, 0.5},
	        {"5.", 1, 5},
	        {"nan", 1, NAN},
	        {"NaN", 1, NAN},
	        {"-nan", 1, NAN},
	        {"inf", 1, INFINITY},
	        {"INF", 1, INFINITY},
	        {"-inf", 1, -INFINITY},
	        {"-Inf", 1, -INFINITY},
	        {"+inf", 1, INFINITY},
	        {"infinity", 1, INFINITY},
	        {"", 0, 0},
	        {"   ", 0, 0},
	        {"abc", 0, 0},
	        {"1e", 0, 0},
	        {"1e+", 0, 0},
	        {"--1", 0, 0},
	        {"1.2.3", 0, 0},
	        {"0x10", 0, 0},
	        {"1,5", 0, 0},
	        {"nanx", 0, 0},
	        {"in", 0, 0},
	        {".", 0, 0},
	        {"-", 0, 0},
	        {"1 2", 0, 0},
	        {"e5", 0, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = 42;
		int ok = matcher_parse_number(cases[i].s, strlen(cases[i].s), &v);
		CHECK_INT(ok, cases[i].ok);
		if (ok && cases[i].ok)
			CHECK_DBL(v, cases[i].v, 1e-15);
		if (ok != cases[i].ok)
			fprintf(stderr, "  number case \"%s\"\n", cases[i].s);
	}
	/* n limits the text: no NUL needed */
	double v = 0;
	CHECK(matcher_parse_number("12345", 2, &v) == 1);
	CHECK_DBL(v, 12, 0);
	/* long but valid */
	char big[200];
	memset(big, '1', sizeof big);
	CHECK(matcher_parse_number(big, sizeof big, &v) == 1);
	CHECK(v > 1e199);
	CHECK(matcher_parse_number(NULL, 0, &v) == 0);
	CHECK(matcher_parse_number("-0", 2, &v) == 1);
	CHECK(v == 0 && signbit(v));

	/* the fast conversion path gives strtod's result bit for bit */
	unsigned long long state = 12345;
	size_t mismatches = 0;
	char txt[64];
	for (int i = 0; i < 120000; i++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		double mant = (double)(state >> 11) / 9007199254740992.0;
		int e10 = (int)((state >> 3) % 61) - 30;
		double x = (state & 1 ? -mant : mant) * pow(10.0, e10);
		switch (i % 6) {
		case 0: snprintf(txt, sizeof txt, "%.6e", x); break;
		case 1: snprintf(txt, sizeof txt, "%.17g", x); break;
		case 2: snprintf(txt, sizeof txt, "%g", x); break;
		case 3: snprintf(txt, sizeof txt, "%.3f", x); break;
		case 4: snprintf(txt, sizeof txt, "%.15e", x); break;
		default: snprintf(txt, sizeof txt, "%.0f", x); break;
		}
		double want = strtod(txt, NULL), got = 0;
		if (!matcher_parse_number(txt, strlen(txt), &got) ||
		    memcmp(&got, &want, sizeof got) != 0) {
			if (mismatches++ < 5)
				fprintf(stderr, "  number \"%s\": %.17g vs strtod %.17g\n", txt,
				        got, want);
		}
	}
	CHECK_INT(mismatches, 0);
	CHECK_STR(matcher_stat_names[MATCHER_STAT_SHAPE], "Shape");
	CHECK_STR(matcher_stat_names[MATCHER_STAT_L1], "L1 norm");
	CHECK_STR(matcher_stat_names[MATCHER_STAT_L2], "L2 norm");
	CHECK_STR(matcher_stat_names[MATCHER_STAT_MIN], "Min");
	CHECK_STR(matcher_stat_names[MATCHER_STAT_MAX], "Max");
	CHECK_STR(matcher_stat_names[MATCHER_STAT_MEAN], "Mean");
}

/* ---- format variants -------------------------------------------------- */

static const char CURRENT[] =
        "Total captured activations: 3\n"
        "Excluded ops dispatched: view, t, _to_copy, detach, t\n"
        "================================================================================\n"
        "\n"
        "[FSDPLlama3Model.layers.0.attention.wq/op_0_mm]\n"
        "  Shape: torch.Size([1024, 256]), Dtype: torch.float32\n"
        "  L2 norm: 6.571766e+02\n"
        "  Min: -6.237175e+00\n"
        "  Max: 5.102890e+00\n"
        "  Mean: -1.689990e-02\n"
        "  Output hash: 2.868071e+05\n"
        "  Input hashes: 1.884970e+05\n"
        "  Input producers: FSDPLlama3Model.layers.0.attention_norm/op_2_mul\n"
        "  Location: llama3/model.py:187\n"
        "\n"
        "[FSDPLlama3Model.layers.0.attention/op_4__scaled_dot_product_flash_attention]\n"
        "  Shape: torch.Size([2, 32, 512, 8]), Dtype: torch.float32\n"
        "  Output hash: 2.402e+05, 1.131e+04\n"
        "  Phase: backward\n"
        "\n"
        "[<none>/op_0__fused_adamw_]\n"
        "  Input hashes: 1.260219e+01, 5.743664e+00, 3.1e+01\n"
        "  Location: optim/adam.py:820\n";

static void test_current(void)
{
	struct matcher_error err;
	struct matcher_actlog *log = parse(CURRENT, &err);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 3);
	CHECK_INT(log->header_total, 3);
	CHECK_INT(log->has_excluded, 1);
	CHECK_INT(log->n_excluded, 4);
	if (log->n_excluded == 4) {
		CHECK_STR(log->excluded[0], "_to_copy");
		CHECK_STR(log->excluded[1], "detach");
		CHECK_STR(log->excluded[2], "t");
		CHECK_STR(log->excluded[3], "view");
	}
	CHECK_INT(log->n_warnings, 0);
	CHECK_INT(log->summary.n_entries, 3);
	CHECK_INT(log->summary.n_lines, 23);
	CHECK_INT(log->summary.n_unrecognised, 0);
	CHECK_INT(log->summary.header_total, 3);

	const struct matcher_entry *e = ENTRY(log, 0);
	CHECK_STR(e->key, "FSDPLlama3Model.layers.0.attention.wq/op_0_mm");
	CHECK_STR(e->stats[MATCHER_STAT_SHAPE], "torch.Size([1024, 256]), Dtype: torch.float32");
	CHECK(!(e->stat_isnum & (1u << MATCHER_STAT_SHAPE)));
	CHECK_STR(e->stats[MATCHER_STAT_L1], NULL);
	CHECK(!(e->stat_isnum & (1u << MATCHER_STAT_L1)));
	CHECK_STR(e->stats[MATCHER_STAT_L2], "6.571766e+02");
	CHECK_DBL(e->stat_num[MATCHER_STAT_L2], 657.1766, 1e-15);
	CHECK_STR(e->stats[MATCHER_STAT_MIN], "-6.237175e+00");
	CHECK_DBL(e->stat_num[MATCHER_STAT_MIN], -6.237175, 1e-15);
	CHECK_STR(e->stats[MATCHER_STAT_MAX], "5.102890e+00");
	CHECK_STR(e->stats[MATCHER_STAT_MEAN], "-1.689990e-02");
	CHECK_INT(e->stat_isnum, 0x3C);
	CHECK_STR(e->output_hash, "2.868071e+05");
	CHECK_STR(e->input_hashes, "1.884970e+05");
	CHECK_STR(e->input_producers, "FSDPLlama3Model.layers.0.attention_norm/op_2_mul");
	CHECK_STR(e->location, "llama3/model.py:187");
	CHECK_INT(e->phase, MATCHER_FORWARD);
	CHECK_INT(e->line, 5);
	CHECK_INT(e->order, 0);

	e = ENTRY(log, 1);
	CHECK_STR(e->key,
	          "FSDPLlama3Model.layers.0.attention/op_4__scaled_dot_product_flash_attention");
	CHECK_STR(e->output_hash, "2.402e+05, 1.131e+04"); /* multi-value */
	CHECK_STR(e->input_hashes, NULL);
	CHECK_STR(e->location, NULL);
	CHECK_INT(e->phase, MATCHER_BACKWARD);
	CHECK_INT(e->line, 16);
	CHECK_INT(e->order, 1);

	/* hash-only (in-place op): no stat lines at all */
	e = ENTRY(log, 2);
	CHECK_STR(e->key, "<none>/op_0__fused_adamw_");
	for (int i = 0; i < MATCHER_N_STATS; i++)
		CHECK(e->stats[i] == NULL);
	CHECK_INT(e->stat_isnum, 0);
	CHECK_STR(e->output_hash, NULL);
	CHECK_STR(e->input_hashes, "1.260219e+01, 5.743664e+00, 3.1e+01");
	CHECK_STR(e->location, "optim/adam.py:820");
	CHECK_INT(e->line, 21);
	matcher_actlog_free(log);
}

static void test_legacy(void)
{
	const char *text =
	        "Total captured activations: 2\n"
	        "================================================================================\n"
	        "\n"
	        "[FSDPLlama3Model.tok_embeddings/op_0_embedding]\n"
	        "  Shape: torch.Size([2, 512, 256]), Dtype: torch.float32\n"
	        "  L1 norm:  1.639633e+05\n"
	        "  L2 norm:  4.248767e+02\n"
	        "  Min:      -3.425830e+00\n"
	        "  Max:      4.028948e+00\n"
	        "  Mean:     1.281421e-02\n"
	        "  Location: llama3/model.py:412\n"
	        "\n"
	        "[FSDPLlama3Model.layers.0/op_0__allgather_base_]\n"
	        "  Location: fsdp/_fsdp_collectives.py:268\n"
	        "\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 2);
	CHECK_INT(log->has_excluded, 0);
	CHECK_INT(log->n_excluded, 0);
	CHECK(log->excluded == NULL);
	CHECK_INT(log->n_warnings, 0);
	const struct matcher_entry *e = ENTRY(log, 0);
	CHECK_STR(e->stats[MATCHER_STAT_L1], "1.639633e+05");
	CHECK_DBL(e->stat_num[MATCHER_STAT_L1], 1.639633e+05, 1e-15);
	CHECK_STR(e->stats[MATCHER_STAT_MIN], "-3.425830e+00");
	CHECK_STR(e->stats[MATCHER_STAT_MEAN], "1.281421e-02");
	CHECK_INT(e->stat_isnum, 0x3E);
	CHECK_STR(e->output_hash, NULL);
	CHECK_STR(e->input_hashes, NULL);
	CHECK_STR(e->input_producers, NULL);
	CHECK_STR(ENTRY(log, 1)->location, "fsdp/_fsdp_collectives.py:268");
	CHECK_INT(ENTRY(log, 1)->line, 13);
	matcher_actlog_free(log);
}

static void test_empty_log(void)
{
	struct matcher_actlog *log = parse("Total captured activations: 0\n"
	                                   "Excluded ops dispatched: (none)\n"
	                                   "======================================================="
	                                   "=========================\n",
	                                   NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 0);
	CHECK_INT(log->header_total, 0);
	CHECK_INT(log->has_excluded, 1);
	CHECK_INT(log->n_excluded, 0);
	CHECK_INT(log->n_warnings, 0);
	CHECK_INT(log->summary.n_lines, 3);
	matcher_actlog_free(log);

	/* header only, without the excluded line: still valid */
	log = parse("Total captured activations: 0\n", NULL);
	CHECK(log != NULL);
	if (log)
		CHECK_INT(log->has_excluded, 0);
	matcher_actlog_free(log);

	/* on_header is called exactly once, from finish */
	char *out = NULL;
	const char *t = "Total captured activations: 0\nExcluded ops dispatched: (none)\n";
	CHECK(run(t, strlen(t), 0, 0, &out, 0) == 0);
	CHECK_STR(out, "H 0 1 \"(none)\"\nS 0 2 0 0 0\n");
	free(out);
}

static void test_truncated(void)
{
	const char *text = "Total captured activations: 5\n"
	                   "================\n"
	                   "[a/op_0_mm]\n"
	                   "  Min: 1\n"
	                   "\n"
	                   "[a/op_1_mm]\n"
	                   "  Min: 2\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 2);
	CHECK_INT(log->n_warnings, 1);
	const struct matcher_warning *w = find_warning(log, "count_mismatch");
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->line, 0);
		CHECK(strstr(w->message, "truncated") != NULL);
		CHECK(strstr(w->message, "5") != NULL);
	}
	matcher_actlog_free(log);

	/* more blocks than announced: mismatch, not "truncated" */
	log = parse("Total captured activations: 1\n[a/op_0_x]\n[a/op_1_x]\n", NULL);
	if (!log)
		return;
	w = find_warning(log, "count_mismatch");
	CHECK(w != NULL);
	if (w)
		CHECK(strstr(w->message, "truncated") == NULL);
	matcher_actlog_free(log);
}

/* CRLF, BOM and a missing final newline give exactly what LF gives. */
static void test_line_endings(void)
{
	struct buf crlf = BUF_INIT;
	buf_puts(&crlf, "\xEF\xBB\xBF");
	for (const char *c = CURRENT; *c; c++) {
		if (*c == '\n')
			buf_putc(&crlf, '\r');
		buf_putc(&crlf, *c);
	}
	char *want = NULL, *got = NULL;
	run(CURRENT, strlen(CURRENT), 0, 0, &want, 0);
	run(crlf.data, crlf.len, 0, 0, &got, 0);
	CHECK_STR(got, want);
	free(got);
	/* no final newline (and no final CRLF) */
	run(crlf.data, crlf.len - 2, 0, 0, &got, 0);
	CHECK_STR(got, want);
	free(got);
	run(CURRENT, strlen(CURRENT) - 1, 1, 0, &got, 0);
	CHECK_STR(got, want);
	free(got);
	/* a final CR alone is stripped too */
	run(crlf.data, crlf.len - 1, 3, 0, &got, 0);
	CHECK_STR(got, want);
	free(got);
	free(want);
	free(check_chunking("crlf+bom", crlf.data, crlf.len, 0));
	buf_reset(&crlf);

	/* BOM only counts at the very start: elsewhere it is part of the line */
	struct matcher_actlog *log = parse("\xEF\xBB\xBF[a/op_0_x]\n  Min: 1\n", NULL);
	if (log) {
		CHECK_INT(log->n_entries, 1);
		CHECK_STR(ENTRY(log, 0)->key, "a/op_0_x");
		matcher_actlog_free(log);
	}
}

static void test_special_values(void)
{
	const char *text = "Total captured activations: 1\n"
	                   "[x/op_0_all_reduce]\n"
	                   "  Shape: torch.Size([4]), Dtype: torch.bfloat16\n"
	                   "  L2 norm: nan\n"
	                   "  Min: -inf\n"
	                   "  Max: INF\n"
	                   "  Mean: NaN\n"
	                   "  Output hash: nan, 1.0e+00, inf\n"
	                   "  Input hashes: -inf\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_warnings, 0);
	const struct matcher_entry *e = ENTRY(log, 0);
	CHECK_INT(e->stat_isnum, 0x3C);
	CHECK(isnan(e->stat_num[MATCHER_STAT_L2]));
	CHECK(isinf(e->stat_num[MATCHER_STAT_MIN]) && e->stat_num[MATCHER_STAT_MIN] < 0);
	CHECK(isinf(e->stat_num[MATCHER_STAT_MAX]) && e->stat_num[MATCHER_STAT_MAX] > 0);
	CHECK(isnan(e->stat_num[MATCHER_STAT_MEAN]));
	CHECK_STR(e->stats[MATCHER_STAT_MAX], "INF");
	CHECK_STR(e->output_hash, "nan, 1.0e+00, inf");
	CHECK_STR(e->input_hashes, "-inf");
	matcher_actlog_free(log);
}

static void test_bad_number(void)
{
	const char *text = "Total captured activations: 1\n"
	                   "[x/op_0_mm]\n"
	                   "  Shape: not-a-number-but-text\n"
	                   "  Min: abc\n"
	                   "  Max:\n"
	                   "  Mean: 1.0 extra\n"
	                   "  L2 norm:1.5\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(count_code(log, "bad_number"), 3);
	const struct matcher_warning *w = find_warning(log, "bad_number");
	if (w) {
		CHECK_INT(w->line, 4);
		CHECK_STR(w->excerpt, "  Min: abc");
	}
	const struct matcher_entry *e = ENTRY(log, 0);
	CHECK_STR(e->stats[MATCHER_STAT_SHAPE], "not-a-number-but-text");
	CHECK_STR(e->stats[MATCHER_STAT_MIN], "abc");
	CHECK_STR(e->stats[MATCHER_STAT_MAX], ""); /* empty value is "", not NULL */
	CHECK_STR(e->stats[MATCHER_STAT_MEAN], "1.0 extra");
	CHECK_STR(e->stats[MATCHER_STAT_L2], "1.5");
	CHECK_INT(e->stat_isnum, 1u << MATCHER_STAT_L2);
	matcher_actlog_free(log);

	/* a bad header count */
	log = parse("Total captured activations: many\n[a/op_0_x]\n", NULL);
	if (!log)
		return;
	CHECK_INT(log->header_total, -1);
	CHECK_INT(count_code(log, "bad_number"), 1);
	CHECK_INT(count_code(log, "no_header"), 0);
	CHECK_INT(count_code(log, "count_mismatch"), 0);
	matcher_actlog_free(log);
}

static void test_keys(void)
{
	/* text after the last ']' ignored; ']' inside the key kept */
	struct matcher_actlog *log = parse("Total captured activations: 3\n"
	                                   "[a.b/op_0_index[0]] trailing text\n"
	                                   "  Min: 1\n"
	                                   "\n"
	                                   "[x/op_1_y]]\n"
	                                   "[]\n",
	                                   NULL);
	if (log) {
		CHECK_INT(log->n_entries, 3);
		CHECK_STR(ENTRY(log, 0)->key, "a.b/op_0_index[0]");
		CHECK_STR(ENTRY(log, 1)->key, "x/op_1_y]");
		CHECK_STR(ENTRY(log, 2)->key, "");
		CHECK_INT(log->n_warnings, 1); /* "[]": empty_key (issue 13) */
		CHECK_INT(count_code(log, "empty_key"), 1);
		matcher_actlog_free(log);
	}

	/* long keys (thousands of bytes), split over many chunks */
	struct buf t = BUF_INIT;
	buf_puts(&t, "Total captured activations: 2\n[");
	for (int i = 0; i < 300; i++)
		buf_printf(&t, "module_%d.", i);
	buf_puts(&t, "x/op_0_mm]\n  Min: 1\n\n[short/op_0_x]\n");
	log = parse(t.data, NULL);
	if (log) {
		CHECK_INT(log->n_entries, 2);
		CHECK(strlen(ENTRY(log, 0)->key) > 2500);
		CHECK(strncmp(ENTRY(log, 0)->key, "module_0.module_1.", 18) == 0);
		CHECK_STR(ENTRY(log, 0)->stats[MATCHER_STAT_MIN], "1");
		matcher_actlog_free(log);
	}
	free(check_chunking("long key", t.data, t.len, 0));
	buf_reset(&t);
}

static void test_unclosed_key(void)
{
	const char *text = "Total captured activations: 2\n"
	                   "[a/op_0_mm\n"
	                   "  Min: 1\n"
	                   "  Location: x.py:1\n"
	                   "\n"
	                   "[b/op_1_mm]\n"
	                   "  Min: 2\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 1);
	CHECK_STR(ENTRY(log, 0)->key, "b/op_1_mm");
	CHECK_STR(ENTRY(log, 0)->stats[MATCHER_STAT_MIN], "2");
	const struct matcher_warning *w = find_warning(log, "unclosed_key");
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->line, 2);
		CHECK_STR(w->excerpt, "[a/op_0_mm");
	}
	CHECK_INT(count_code(log, "unknown_line"), 0);
	CHECK_INT(log->summary.n_unrecognised, 0);
	CHECK_INT(count_code(log, "count_mismatch"), 1); /* 2 announced, 1 block */
	matcher_actlog_free(log);

	/* unclosed key directly followed by a new block */
	log = parse("Total captured activations: 1\n[zzz\n[b/op_0_x]\n  Max: 3\n", NULL);
	if (log) {
		CHECK_INT(log->n_entries, 1);
		CHECK_STR(ENTRY(log, 0)->stats[MATCHER_STAT_MAX], "3");
		CHECK_INT(log->n_warnings, 1);
		matcher_actlog_free(log);
	}
}

static void test_unknown_lines(void)
{
	const char *text = "some preamble that is ignored\n"
	                   "Total captured activations: 1\n"
	                   "random words before the first block\n"
	                   "================\n"
	                   "[a/op_0_mm]\n"
	                   "  Min: 1\n"
	                   "  Dtype: torch.float32\n"
	                   "  Source Location: model.py:9\n"
	                   "\n"
	                   "stray text between blocks\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 1);
	CHECK_INT(log->summary.n_unrecognised, 2);
	CHECK_INT(count_code(log, "unknown_line"), 2);
	if (log->n_warnings >= 2) {
		CHECK_INT(log->warnings[0].line, 7);
		CHECK_STR(log->warnings[0].excerpt, "  Dtype: torch.float32");
		CHECK_INT(log->warnings[1].line, 10);
	}
	/* a field name anywhere on the line is recognised */
	CHECK_STR(ENTRY(log, 0)->location, "model.py:9");
	matcher_actlog_free(log);

	/* warnings per code are capped; the rest only counted */
	struct buf t = BUF_INIT;
	buf_puts(&t, "Total captured activations: 1\n[a/op_0_mm]\n");
	for (int i = 0; i < 250; i++)
		buf_printf(&t, "  junk %d\n", i);
	for (int i = 0; i < 3; i++)
		buf_puts(&t, "  Min: x\n");
	log = parse(t.data, NULL);
	if (log) {
		CHECK_INT(count_code(log, "unknown_line"), MATCHER_MAX_WARNINGS_PER_CODE);
		CHECK_INT(count_code(log, "bad_number"), 3);
		CHECK_INT(log->summary.n_unrecognised, 250);
		CHECK_INT(log->summary.n_warnings, 253);
		matcher_actlog_free(log);
	}
	buf_reset(&t);

	/* excerpts are cut to 200 bytes without splitting a UTF-8 character */
	buf_puts(&t, "Total captured activations: 1\n[a/op_0_mm]\n  ");
	for (int i = 0; i < 150; i++)
		buf_puts(&t, "\xC3\xA9"); /* é */
	buf_putc(&t, '\n');
	log = parse(t.data, NULL);
	if (log && log->n_warnings == 1) {
		size_t len = strlen(log->warnings[0].excerpt);
		CHECK(len <= 200 && len >= 198);
		CHECK(len % 2 == 0); /* 2 blanks + whole 2-byte characters */
	}
	matcher_actlog_free(log);
	buf_reset(&t);
}

static void test_fields(void)
{
	const char *text = "Total captured activations: 2\n"
	                   "[a/op_0_mm]\n"
	                   "\tMean:\t0.5\t\n"
	                   "  Phase: BACKWARD\n"
	                   "  Input producers: a/op_0_x;;b/op_1_y\n"
	                   "  Output hash: \n"
	                   "  Location: model.py:10 Phase: forward\n"
	                   "\n"
	                   "[b/op_1_add_]\n"
	                   "  Phase: forward\n"
	                   "  Input hashes: 1.0, 2.0\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_warnings, 0);
	const struct matcher_entry *e = ENTRY(log, 0);
	CHECK_STR(e->stats[MATCHER_STAT_MEAN], "0.5");
	CHECK_INT(e->phase, MATCHER_BACKWARD);
	CHECK_STR(e->input_producers, "a/op_0_x;;b/op_1_y");
	CHECK_STR(e->output_hash, ""); /* empty, in-place op */
	/* Location is checked before Phase: the line is a Location line */
	CHECK_STR(e->location, "model.py:10 Phase: forward");
	CHECK_INT(ENTRY(log, 1)->phase, MATCHER_FORWARD);
	CHECK_STR(ENTRY(log, 1)->input_hashes, "1.0, 2.0");
	matcher_actlog_free(log);
}

static void test_duplicates_and_no_header(void)
{
	const char *text = "[a/op_0_mm]\n"
	                   "  Min: 1\n"
	                   "\n"
	                   "[b/op_0_mm]\n"
	                   "\n"
	                   "[a/op_0_mm]\n"
	                   "  Min: 2\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 3);
	CHECK_INT(log->header_total, -1);
	CHECK_STR(ENTRY(log, 0)->stats[MATCHER_STAT_MIN], "1");
	CHECK_STR(ENTRY(log, 2)->stats[MATCHER_STAT_MIN], "2");
	const struct matcher_warning *w = find_warning(log, "duplicate_key");
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->line, 6);
		CHECK(strstr(w->message, "line 1") != NULL);
	}
	w = find_warning(log, "no_header");
	CHECK(w != NULL);
	if (w)
		CHECK_INT(w->line, 1);
	CHECK_INT(count_code(log, "count_mismatch"), 0);
	CHECK_INT(log->n_warnings, 2);
	matcher_actlog_free(log);

	/* the duplicate check is made when its block ends (its table slot is
	 * prefetched meanwhile) but warns before the block's other warnings,
	 * in line order, and before the entry is handed over */
	log = parse("Total captured activations: 2\n"
	            "[a/op_0_mm]\n"
	            "  Min: 1\n"
	            "\n"
	            "[a/op_0_mm]\n"
	            "  Min: bogus\n"
	            "  weird line\n",
	            NULL);
	if (log) {
		CHECK_INT(log->n_warnings, 3);
		if (log->n_warnings == 3) {
			CHECK_STR(log->warnings[0].code, "duplicate_key");
			CHECK_INT(log->warnings[0].line, 5);
			CHECK_STR(log->warnings[0].excerpt, "[a/op_0_mm]");
			CHECK_STR(log->warnings[1].code, "bad_number");
			CHECK_INT(log->warnings[1].line, 6);
			CHECK_STR(log->warnings[2].code, "unknown_line");
			CHECK_INT(log->warnings[2].line, 7);
		}
		matcher_actlog_free(log);
	}

	/* many keys: the key set grows; exactly the repeats are reported */
	struct buf t = BUF_INIT;
	buf_puts(&t, "Total captured activations: 6000\n");
	for (int i = 0; i < 5000; i++)
		buf_printf(&t, "[m.%d/op_0_mm]\n", i);
	for (int i = 0; i < 1000; i++)
		buf_printf(&t, "[m.%d/op_0_mm]\n", i * 5);
	log = parse(t.data, NULL);
	if (log) {
		CHECK_INT(log->n_entries, 6000);
		CHECK_INT(log->summary.n_warnings, 1000);
		CHECK_INT(count_code(log, "duplicate_key"), MATCHER_MAX_WARNINGS_PER_CODE);
		matcher_actlog_free(log);
	}
	buf_reset(&t);
}

/* ---- fatal errors ----------------------------------------------------- */

static void test_binary(void)
{
	static const char text[] = "Total captured activations: 1\n[a/op_0_mm]\n  Min: \0 1\n";
	size_t n = sizeof text - 1;
	char *out = check_chunking("nul", text, n, 0);
	CHECK(strstr(out, "ERR binary_data 3 ") != NULL);
	/* the lines before it were processed */
	CHECK(strstr(out, "H 1 0 -") != NULL);
	free(out);

	struct matcher_actlog *log = (struct matcher_actlog *)1;
	struct matcher_error err;
	CHECK(matcher_actlog_parse_buffer(text, n, &log, &err) == -1);
	CHECK(log == NULL);
	CHECK_STR(err.code, "binary_data");
	CHECK_INT(err.line, 3);
	CHECK(strstr(err.message, "3") != NULL);

	/* a NUL in the first line, and in an unterminated last line */
	CHECK(matcher_actlog_parse_buffer("\0", 1, &log, &err) == -1);
	CHECK_STR(err.code, "binary_data");
	CHECK_INT(err.line, 1);
	CHECK(matcher_actlog_parse_buffer("[a/op_0_x]\n\nabc\0", 16, &log, &err) == -1);
	CHECK_STR(err.code, "binary_data");
	CHECK_INT(err.line, 3);
}

static void test_too_long(void)
{
	/* limit 40: line 3 has 41 bytes */
	const char *text = "Total captured activations: 1\n"
	                   "[a/op_0_mm]\n"
	                   "  Location: 01234567890123456789012345678\n"
	                   "  Min: 1\n";
	char *out = check_chunking("too long", text, strlen(text), 40);
	CHECK(strstr(out, "ERR line_too_long 3 ") != NULL);
	free(out);
	/* exactly at the limit is fine (the LF does not count) */
	out = check_chunking("at limit", text, strlen(text), 41);
	CHECK(strncmp(out, "H 1", 3) == 0);
	CHECK(strstr(out, "ERR") == NULL);
	free(out);
	/* long unterminated last line */
	out = check_chunking("too long last", text, strlen(text) - 1, 8);
	CHECK(strstr(out, "ERR line_too_long 1 ") != NULL);
	free(out);

	/* detected as soon as the partial line is over the limit: a 1 MiB
	 * chunk without a newline fails on the first feed, holding nothing */
	size_t big = 1u << 20;
	char *blob = malloc(big);
	memset(blob, 'x', big);
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(NULL, 4096);
	CHECK(matcher_actlog_feed(p, "[a/op_0_x]\n", 11) == 0);
	CHECK(matcher_actlog_feed(p, blob, 4000) == 0);
	CHECK(matcher_actlog_feed(p, blob, big) == -1);
	CHECK_STR(matcher_actlog_error(p)->code, "line_too_long");
	CHECK_INT(matcher_actlog_error(p)->line, 2);
	matcher_actlog_parser_free(p);

	/* the default limit applies with max_line 0 */
	p = matcher_actlog_parser_new(NULL, 0);
	int rc = 0;
	for (int i = 0; i < 17 && rc == 0; i++)
		rc = matcher_actlog_feed(p, blob, big);
	CHECK(rc == -1);
	CHECK_STR(matcher_actlog_error(p)->code, "line_too_long");
	CHECK_INT(matcher_actlog_error(p)->line, 1);
	matcher_actlog_parser_free(p);
	free(blob);

	/* NUL past the limit: the line is too long first */
	static const char nul_late[] = "abcdefghij\0\n";
	out = check_chunking("nul late", nul_late, sizeof nul_late - 1, 5);
	CHECK(strstr(out, "ERR line_too_long 1 ") != NULL);
	free(out);
	out = check_chunking("nul early", nul_late, sizeof nul_late - 1, 11);
	CHECK(strstr(out, "ERR binary_data 1 ") != NULL);
	free(out);
}

static void test_not_activation(void)
{
	struct matcher_actlog *log = NULL;
	struct matcher_error err;
	static const char *const bad[] = {
	        "",
	        "hello\nworld\n",
	        "\n\n\n",
	        "================\n",
	        "[rank0]:[titan] 2026-11-29 10:00:02,731 - root - INFO - step: 1 loss: 11.09\n"
	        "[rank0]:[titan] 2026-11-29 10:00:03,731 - root - INFO - step: 2 loss: 10.09\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		CHECK(matcher_actlog_parse_buffer(bad[i], strlen(bad[i]), &log, &err) == -1);
		CHECK(log == NULL);
		CHECK_STR(err.code, "not_activation_log");
		CHECK_INT(err.line, 0);
	}
	/* a real training log */
	char path[512];
	size_t n = 0;
	char *data = check_slurp(check_testfile("data/train/q1_a.log", path, sizeof path), &n);
	CHECK(data != NULL);
	if (data) {
		CHECK(matcher_actlog_parse_buffer(data, n, &log, &err) == -1);
		CHECK_STR(err.code, "not_activation_log");
		free(data);
	}
	/* a header line alone, or an op block alone, is enough */
	log = parse("Excluded ops dispatched: (none)\n", NULL);
	CHECK(log != NULL);
	matcher_actlog_free(log);
	log = parse("[a/op_0_x]\n", NULL);
	CHECK(log != NULL);
	matcher_actlog_free(log);
	log = parse("[weird key]\n  Min: 1\n", NULL);
	CHECK(log != NULL);
	matcher_actlog_free(log);
}

static int stop_on_warning(void *ctx, const struct matcher_warning *w)
{
	(void)ctx;
	(void)w;
	return 1;
}

static void test_callback_stop(void)
{
	char *out = NULL;
	CHECK(run(CURRENT, strlen(CURRENT), 0, 0, &out, 2) == -1);
	CHECK(strstr(out, "E 1 ") != NULL);
	CHECK(strstr(out, "E 2 ") == NULL);
	CHECK(strstr(out, "ERR callback ") != NULL);
	free(out);
	/* the last entry is emitted from finish */
	CHECK(run(CURRENT, strlen(CURRENT), 0, 0, &out, 3) == -1);
	CHECK(strstr(out, "ERR callback ") != NULL);
	free(out);

	struct matcher_actlog_callbacks cb = {NULL, NULL, NULL, stop_on_warning};
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(&cb, 0);
	const char *t = "[a/op_0_x]\n  junk\n";
	CHECK(matcher_actlog_feed(p, t, strlen(t)) == -1); /* no_header stops it */
	CHECK_STR(matcher_actlog_error(p)->code, "callback");
	matcher_actlog_parser_free(p);

	/* NULL callbacks are fine */
	p = matcher_actlog_parser_new(NULL, 0);
	struct matcher_actlog_summary s;
	CHECK(matcher_actlog_feed(p, CURRENT, strlen(CURRENT)) == 0);
	CHECK(matcher_actlog_finish(p, &s) == 0);
	CHECK_INT(s.n_entries, 3);
	CHECK(matcher_actlog_finish(p, NULL) == 0);  /* repeatable */
	CHECK(matcher_actlog_feed(p, "x", 1) == -1); /* but no feeding after */
	matcher_actlog_parser_free(p);
	matcher_actlog_parser_free(NULL);
}

/* ---- the collected log ------------------------------------------------ */

/* Issue 13: an unknown Phase: value keeps its text and warns; "[]" warns. */
static void test_phase_and_empty_key(void)
{
	const char *text = "Total captured activations: 3\n"
	                   "================\n"
	                   "[a/op_0_mm]\n"
	                   "  Phase: optimizer\n"
	                   "\n"
	                   "[a/op_1_mm]\n"
	                   "  Phase: Backward\n"
	                   "\n"
	                   "[]\n"
	                   "  Min: 1\n";
	struct matcher_actlog *log = parse(text, NULL);
	if (!log)
		return;
	CHECK_INT(log->n_entries, 3);
	CHECK_INT(log->n_warnings, 2);
	const struct matcher_warning *w = find_warning(log, "unknown_phase");
	CHECK(w != NULL);
	if (w) {
		CHECK_INT(w->line, 4);
		CHECK(strstr(w->excerpt, "optimizer") != NULL);
	}
	w = find_warning(log, "empty_key");
	CHECK(w != NULL);
	if (w)
		CHECK_INT(w->line, 9);
	if (log->n_entries == 3) {
		CHECK_INT(ENTRY(log, 0)->phase, MATCHER_FORWARD);
		CHECK_STR(ENTRY(log, 0)->phase_text, "optimizer");
		CHECK_INT(ENTRY(log, 1)->phase, MATCHER_BACKWARD);
		CHECK_STR(ENTRY(log, 2)->key, "");
	}
	matcher_actlog_free(log);
}

static void test_collected(void)
{
	struct matcher_actlog *log = matcher_actlog_new();
	CHECK(log != NULL);
	if (!log)
		return;
	CHECK_INT(log->header_total, -1);
	struct matcher_actlog_header h = {7, 1, " b ,a,, c,a , b"};
	CHECK(matcher_actlog_set_header(log, &h) == 0);
	CHECK_INT(log->header_total, 7);
	CHECK_INT(log->n_excluded, 3);
	if (log->n_excluded == 3) {
		CHECK_STR(log->excluded[0], "a");
		CHECK_STR(log->excluded[1], "b");
		CHECK_STR(log->excluded[2], "c");
	}
	struct matcher_actlog_header none = {0, 1, " (none) "};
	CHECK(matcher_actlog_set_header(log, &none) == 0);
	CHECK_INT(log->n_excluded, 0);
	CHECK_INT(log->has_excluded, 1);

	char key[32], loc[32];
	for (int i = 0; i < 1000; i++) {
		struct matcher_entry e;
		memset(&e, 0, sizeof e);
		snprintf(key, sizeof key, "m/op_%d_mm", i);
		snprintf(loc, sizeof loc, "f.py:%d", i);
		e.key = key;
		e.location = loc;
		e.stats[MATCHER_STAT_MIN] = "1.5";
		e.stat_num[MATCHER_STAT_MIN] = 1.5;
		e.stat_isnum = 1u << MATCHER_STAT_MIN;
		e.line = (unsigned long)i * 3 + 1;
		e.order = (size_t)i;
		CHECK(matcher_actlog_add_entry(log, &e) == 0);
	}
	key[0] = 0; /* the log holds copies */
	CHECK_INT(log->n_entries, 1000);
	CHECK(log->cap_entries >= 1000 && log->cap_entries < 4000);
	CHECK_STR(ENTRY(log, 999)->key, "m/op_999_mm");
	CHECK_STR(ENTRY(log, 5)->location, "f.py:5");
	CHECK_STR(ENTRY(log, 5)->output_hash, NULL);
	CHECK_STR(ENTRY(log, 5)->stats[MATCHER_STAT_MIN], "1.5");
	CHECK_INT(ENTRY(log, 5)->line, 16);
	CHECK_INT(ENTRY(log, 5)->order, 5);

	char msg[] = "hello";
	struct matcher_warning w = {"unknown_line", 4, msg, "  junk"};
	CHECK(matcher_actlog_add_warning(log, &w) == 0);
	msg[0] = 'J';
	CHECK_INT(log->n_warnings, 1);
	CHECK_STR(log->warnings[0].message, "hello");
	CHECK_STR(log->warnings[0].excerpt, "  junk");
	CHECK_INT(log->warnings[0].line, 4);
	matcher_actlog_free(log);
	matcher_actlog_free(NULL);

	/* collector + own parser, same as parse_buffer */
	log = matcher_actlog_new();
	struct matcher_actlog_callbacks cb = matcher_actlog_collector(log);
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(&cb, 0);
	for (const char *c = CURRENT; *c; c++)
		CHECK(matcher_actlog_feed(p, c, 1) == 0);
	CHECK(matcher_actlog_finish(p, &log->summary) == 0);
	CHECK_INT(log->n_entries, 3);
	CHECK_INT(log->n_excluded, 4);
	CHECK_INT(log->summary.n_lines, 23);
	matcher_actlog_parser_free(p);
	matcher_actlog_free(log);
}

/* ---- fixtures and generated logs ------------------------------------- */

static void test_fixture_p1(void)
{
	char path[512];
	size_t n = 0;
	char *data = check_slurp(check_testfile("data/match/p1_a.log", path, sizeof path), &n);
	CHECK(data != NULL);
	if (!data)
		return;
	struct matcher_actlog *log = NULL;
	struct matcher_error err;
	CHECK(matcher_actlog_parse_buffer(data, n, &log, &err) == 0);
	if (log) {
		CHECK_INT(log->n_entries, 94);
		CHECK_INT(log->header_total, 94);
		CHECK_INT(log->n_warnings, 0);
		CHECK_INT(log->summary.n_unrecognised, 0);
		CHECK_INT(log->n_excluded, 8);
		CHECK_STR(log->excluded[0], "_to_copy");
		CHECK_STR(log->excluded[7], "view");
		const struct matcher_entry *e = ENTRY(log, 0);
		CHECK_STR(e->key, "FSDPLlama3Model.tok_embeddings/op_0_embedding");
		CHECK_STR(e->stats[MATCHER_STAT_SHAPE],
		          "torch.Size([2, 512, 256]), Dtype: torch.float32");
		CHECK_STR(e->stats[MATCHER_STAT_L2], "6.616869e+02");
		CHECK_DBL(e->stat_num[MATCHER_STAT_MEAN], -1.801497e-03, 1e-15);
		CHECK_STR(e->output_hash, "2.554581e+05");
		CHECK_STR(e->location, "llama3/model.py:412");
		CHECK_INT(e->line, 5);
		e = ENTRY(log, 1);
		CHECK_STR(e->key, "FSDPLlama3Model.layers.0/op_0__allgather_base_");
		CHECK_STR(e->input_hashes, "8.616606e+03");
		CHECK_STR(e->stats[MATCHER_STAT_SHAPE], NULL);
		e = ENTRY(log, 3);
		CHECK_STR(e->input_hashes, "2.554581e+05, 2.239665e+05");
		CHECK_STR(e->input_producers, "FSDPLlama3Model.tok_embeddings/op_0_embedding;"
		                              "FSDPLlama3Model.layers.0.attention_norm/op_0_pow");
		size_t backward = 0;
		for (size_t i = 0; i < log->n_entries; i++) {
			backward += ENTRY(log, i)->phase == MATCHER_BACKWARD;
			CHECK_INT(ENTRY(log, i)->order, i);
		}
		CHECK(backward > 0 && backward < log->n_entries);
		matcher_actlog_free(log);
	}
	free(data);
}

/* The collected log's records give back exactly the entries the parser
 * handed over: the same serialisation (texts, numbers to the bit as
 * %.17g, lines, orders, phases) and the same Phase texts. */
static void check_roundtrip(const char *what, const char *data, size_t n)
{
	struct buf want = BUF_INIT;
	char *stream = NULL;
	struct matcher_actlog *log = NULL;
	struct matcher_error err;
	struct matcher_entry_view v;

	run(data, n, 0, 0, &stream, 0);
	for (const char *l = stream; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t len = nl ? (size_t)(nl - l) + 1 : strlen(l);

		if (l[0] == 'E' && l[1] == ' ')
			buf_append(&want, l, len);
		l += len;
	}
	CHECK(matcher_actlog_parse_buffer(data, n, &log, &err) == 0);
	if (!log) {
		free(stream);
		buf_reset(&want);
		return;
	}
	struct rec r = {BUF_INIT, 0, 0};

	matcher_entry_view_init(&v);
	for (size_t i = 0; i < log->n_entries; i++) {
		const struct matcher_entry *e = matcher_actlog_entry(log, i, &v);

		CHECK(e != NULL);
		if (!e)
			break;
		rec_entry(&r, e);
	}
	matcher_entry_view_free(&v);
	int same = strcmp(r.out.data ? r.out.data : "", want.data ? want.data : "") == 0;
	CHECK(same);
	if (!same)
		fprintf(stderr, "  records differ from the parsed entries on %s\n", what);
	buf_reset(&r.out);
	buf_reset(&want);
	free(stream);
	matcher_actlog_free(log);
}

static void chunk_file(const char *path)
{
	size_t n = 0;
	char *data = check_slurp(path, &n);
	CHECK(data != NULL);
	if (!data) {
		fprintf(stderr, "  cannot read %s\n", path);
		return;
	}
	char *out = check_chunking(path, data, n, 0);
	check_roundtrip(path, data, n);
	CHECK(strstr(out, "ERR") == NULL);
	CHECK(strstr(out, "\nE 0 ") != NULL);
	free(out);
	free(data);
}

static void test_chunking_fixtures(void)
{
	static const char *const names[] = {
	        "p1_a.log", "p1_b.log", "p2_a.log", "p2_b.log",
	        "p3_a.log", "p3_b.log", "p4_a.log", "p4_b.log",
	};
	char rel[64], path[512];
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(rel, sizeof rel, "data/match/%s", names[i]);
		chunk_file(check_testfile(rel, path, sizeof path));
	}
}

static void test_chunking_generated(void)
{
	if (system("python3 -c '' >/dev/null 2>&1") != 0) {
		fprintf(stderr,
		        "FAIL: python3 is missing: the generated-log chunking test needs it\n");
		CHECK(0);
		return;
	}
	char dir[] = "/tmp/test_actlog_......";
	memset(dir + sizeof dir - 7, 'X', 6); /* mkdtemp template */
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	char gen[512], cmd[2048], path[600];
	check_testfile("tools/gen_actlog.py", gen, sizeof gen);
	static const char *const scenarios[] = {
	        "identical", "ulp", "diverge", "eager-traced", "missing", "dtype",
	};
	for (int legacy = 0; legacy < 2; legacy++) {
		for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
			snprintf(cmd, sizeof cmd,
			         "python3 '%s' --layers 1 --scenario %s %s --seed %zu "
			         "--out-a '%s/a.log' --out-b '%s/b.log'",
			         gen, scenarios[i], legacy ? "--legacy" : "", i + 1, dir, dir);
			int rc = system(cmd);
			CHECK_INT(rc, 0);
			if (rc)
				continue;
			snprintf(path, sizeof path, "%s/a.log", dir);
			chunk_file(path);
			snprintf(path, sizeof path, "%s/b.log", dir);
			chunk_file(path);
		}
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

/* Everything odd at once, fed in every way. */
static void test_chunking_odd(void)
{
	static const char text[] = "\xEF\xBB\xBFpreamble\r\n"
	                           "Total captured activations: 9\r\n"
	                           "Excluded ops dispatched: b, a\n"
	                           "====\n"
	                           "\n"
	                           "[k/op_0_x] tail\r\n"
	                           "  Min:      -1.0\r\n"
	                           "  Max: nan\n"
	                           "  Mean: bogus\n"
	                           "  Dtype: x\n"
	                           "\n"
	                           "stray\n"
	                           "[unclosed\n"
	                           "  Min: 3\n"
	                           "[k/op_0_x]\n"
	                           "  Phase: backward\n"
	                           "  Output hash: 1, 2\n"
	                           "   \t \n"
	                           "[last/op_1_y]\n"
	                           "  Location: a.py:1";
	char *out = check_chunking("odd", text, sizeof text - 1, 0);
	CHECK(strstr(out, "W unclosed_key 13 ") != NULL);
	CHECK(strstr(out, "W duplicate_key 15 ") != NULL);
	CHECK(strstr(out, "W bad_number 9 ") != NULL);
	CHECK(strstr(out, "W unknown_line 10 ") != NULL);
	CHECK(strstr(out, "W unknown_line 12 ") != NULL);
	CHECK(strstr(out, "W count_mismatch 0 ") != NULL);
	CHECK(strstr(out, "\nS 3 20 2 6 9\n") != NULL);
	free(out);
}

/* The compact records at their edges: numbers that pack and numbers that
 * only look like they do, hash lists with other separators, producers with
 * empty parts, keys without or ending in '/', Phase texts. */
static void test_records(void)
{
	static const char text[] = "Total captured activations: 5\n"
	                           "[Root.a/op_0_mm]\n"
	                           "  Shape: torch.Size([2]), Dtype: torch.float32\n"
	                           "  L1 norm: -0.000000e+00\n"
	                           "  L2 norm: 1.0e+05\n"
	                           "  Min: 1.000000e-00\n"
	                           "  Max: 9.999999e+63\n"
	                           "  Mean: 1.000000e+64\n"
	                           "  Output hash: 1.000000e+00, -2.500000e-64\n"
	                           "  Input hashes: 1.000000e+00,2.000000e+00\n"
	                           "  Input producers: Root.a/op_0_x;;noslash;\n"
	                           "  Location: x.py:1\n"
	                           "  Phase: Backward\n"
	                           "\n"
	                           "[noslash]\n"
	                           "  L1 norm: nan\n"
	                           "  Mean: -inf\n"
	                           "  Output hash:\n"
	                           "  Input hashes: 3.000000e+00, nan\n"
	                           "  Input producers:\n"
	                           "\n"
	                           "[]\n"
	                           "  Output hash: 1.000000e+00,  2.000000e+00\n"
	                           "  Input hashes: 1.000000e+00, \n"
	                           "\n"
	                           "[a/b/]\n"
	                           "  Phase: sideways\n"
	                           "  Input producers: /\n"
	                           "  Min: 12.000000e+00\n"
	                           "  Max: 1.000000e+5\n"
	                           "\n"
	                           "[Root.a/op_0_mm]\n"
	                           "  L1 norm: 1.000000e+00\n"
	                           "  Output hash: 1.000000e+00\n";
	struct matcher_actlog *log = parse(text, NULL);

	check_roundtrip("records", text, sizeof text - 1);
	CHECK(log && log->n_entries == 5);
	if (!log)
		return;
	/* packed: "%.6e"-shaped values with exponents -64..63 */
	CHECK(log->recs[0].flags & (1u << MATCHER_STAT_L1));
	CHECK(log->recs[0].flags & (1u << MATCHER_STAT_MAX));
	CHECK(!(log->recs[0].flags & (1u << MATCHER_STAT_L2)));
	CHECK(!(log->recs[0].flags & (1u << MATCHER_STAT_MIN)));
	CHECK(!(log->recs[0].flags & (1u << MATCHER_STAT_MEAN)));
	CHECK(log->recs[0].flags & (1u << MATCHER_REC_OUTHASH));
	CHECK(!(log->recs[0].flags & (1u << MATCHER_REC_INHASH)));
	/* a hash list of two numbers is in the pool, one number in the record */
	CHECK(log->recs[0].flags & MATCHER_REC_POOLED(MATCHER_REC_OUTHASH));
	CHECK(log->recs[4].flags & (1u << MATCHER_REC_OUTHASH));
	CHECK(!(log->recs[4].flags & MATCHER_REC_POOLED(MATCHER_REC_OUTHASH)));
	CHECK_STR(ENTRY(log, 4)->output_hash, "1.000000e+00");
	CHECK_STR(ENTRY(log, 0)->output_hash, "1.000000e+00, -2.500000e-64");
	CHECK(!(log->recs[1].flags & (1u << MATCHER_REC_INHASH))); /* "3.000000e+00, nan": text */
	CHECK_STR(ENTRY(log, 1)->input_hashes, "3.000000e+00, nan");
	CHECK(log->recs[0].flags & MATCHER_REC_BACKWARD);
	/* one copy per distinct string: both "Root.a/" keys share their parts */
	CHECK(log->recs[0].key_pre == log->recs[4].key_pre);
	CHECK(log->recs[0].key_op == log->recs[4].key_op);
	CHECK_STR(ENTRY(log, 0)->input_producers, "Root.a/op_0_x;;noslash;");
	CHECK_STR(ENTRY(log, 1)->input_producers, "");
	CHECK_STR(ENTRY(log, 2)->key, "");
	CHECK_STR(ENTRY(log, 3)->key, "a/b/");
	CHECK_STR(ENTRY(log, 3)->phase_text, "sideways");
	CHECK_STR(ENTRY(log, 0)->phase_text, "Backward");
	CHECK(ENTRY(log, 1)->phase_text == NULL);
	CHECK(ENTRY(log, 1)->stats[MATCHER_STAT_SHAPE] == NULL);
	CHECK(matcher_actlog_bytes(log) > 0);
	/* parse_buffer seals the log (no interning map); adding still interns */
	CHECK(log->strs.map.cap == 0);
	struct matcher_entry e = *ENTRY(log, 0);

	e.order = 5;
	e.location = "y.py:2";
	CHECK_INT(matcher_actlog_add_entry(log, &e), 0);
	CHECK(log->n_entries == 6 && log->recs[5].key_pre == log->recs[0].key_pre);
	CHECK_STR(ENTRY(log, 5)->key, "Root.a/op_0_mm");
	CHECK_STR(ENTRY(log, 5)->location, "y.py:2");
	CHECK_STR(ENTRY(log, 5)->input_producers, "Root.a/op_0_x;;noslash;");
	CHECK(ENTRY(log, 5)->order == 5);
	/* orders are the records' indexes until one is not: then all are kept */
	CHECK(log->orders == NULL);
	e.order = 42;
	CHECK_INT(matcher_actlog_add_entry(log, &e), 0);
	e.order = 7;
	CHECK_INT(matcher_actlog_add_entry(log, &e), 0);
	CHECK(log->orders != NULL);
	matcher_actlog_seal(log);
	CHECK(ENTRY(log, 0)->order == 0 && ENTRY(log, 5)->order == 5);
	CHECK(ENTRY(log, 6)->order == 42 && ENTRY(log, 7)->order == 7);
	for (int i = 0; i < 200; i++) { /* through growth of records and orders */
		e.order = 1000 + (size_t)i;
		CHECK_INT(matcher_actlog_add_entry(log, &e), 0);
	}
	CHECK(ENTRY(log, 207)->order == 1199 && ENTRY(log, 7)->order == 7);
	matcher_actlog_free(log);
}

int main(void)
{
	test_numbers();
	test_current();
	test_legacy();
	test_empty_log();
	test_truncated();
	test_phase_and_empty_key();
	test_line_endings();
	test_special_values();
	test_bad_number();
	test_keys();
	test_unclosed_key();
	test_unknown_lines();
	test_fields();
	test_duplicates_and_no_header();
	test_binary();
	test_too_long();
	test_not_activation();
	test_callback_stop();
	test_collected();
	test_records();
	test_fixture_p1();
	test_chunking_fixtures();
	test_chunking_generated();
	test_chunking_odd();
	return check_report();
}
