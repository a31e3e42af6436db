/* test_matcher_tfevents.c - the TensorBoard event-file parser
 * (matcher/tfevents.h) on files written by tests/tools/tfevents_writer.h:
 * every scalar encoding add_scalar writes, several tags grouped per step,
 * chunking invariance, a truncated tail, flipped CRC bytes, records that
 * are not Events, oversized records, duplicate steps and detection. */
#include <stdlib.h>

#include "check.h"
#include "tfevents.h"
#include "tfevents_writer.h"

static const char *const TAGS[3] = {"loss_metrics/global_avg_loss", "grad_norm", "lr"};

/* The transcript of a parse: one line per record and warning, then the
 * outcome ("ok <summary>" or "error <code> <message>"). */
struct tr {
	struct buf t;
	size_t n_rec;
};

static int on_step(void *ctx, const struct matcher_step_record *r)
{
	struct tr *x = ctx;
	x->n_rec++;
	buf_printf(&x->t, "step %ld rank %d kind %d line %lu:", r->step, r->rank, (int)r->kind,
	           r->line);
	for (size_t i = 0; i < r->n_metrics; i++)
		buf_printf(&x->t, " %s=%s/%d/%a", r->metrics[i].name, r->metrics[i].text,
		           r->metrics[i].prec, r->metrics[i].value);
	buf_putc(&x->t, '\n');
	return 0;
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct tr *x = ctx;
	buf_printf(&x->t, "warning %s %lu %s\n", w->code, w->line, w->message);
	return 0;
}

/* Parse data fed in chunks of `chunk` bytes (0 = whole); transcript into *out. */
static int parse(const struct buf *data, size_t chunk, size_t max_record, struct tr *out,
                 struct matcher_tfevents_summary *sum)
{
	struct matcher_trainlog_callbacks cb = {out, on_step, on_warning};
	struct matcher_tfevents_parser *p = matcher_tfevents_parser_new(&cb, 3, max_record);
	int rc = 0;
	size_t off = 0, n = data->len;
	buf_init(&out->t);
	out->n_rec = 0;
	while (rc == 0 && off < n) {
		size_t k = chunk && chunk < n - off ? chunk : n - off;
		rc = matcher_tfevents_feed(p, data->data + off, k);
		off += k;
	}
	if (rc == 0)
		rc = matcher_tfevents_finish(p, sum);
	if (rc == 0)
		buf_printf(&out->t, "ok records %zu events %zu scalars %zu skipped %zu steps %zu\n",
		           sum->n_records, sum->n_events, sum->n_scalars, sum->n_skipped,
		           sum->n_steps);
	else
		buf_printf(&out->t, "error %s %s\n", matcher_tfevents_error(p)->code,
		           matcher_tfevents_error(p)->message);
	matcher_tfevents_parser_free(p);
	return rc;
}

static float loss_at(long step)
{
	return 10.0f / (1.0f + (float)step * 0.37f) + 0.001f * (float)(step % 7);
}

/* file_version, then steps 1..n: one event per tag (add_scalar style). */
static void write_run(struct buf *out, long n, enum tfw_enc enc)
{
	buf_init(out);
	tfw_file_version(out, 1700000000.0);
	for (long s = 1; s <= n; s++) {
		tfw_scalar(out, 1700000000.0 + s, s, TAGS[0], loss_at(s), enc);
		tfw_scalar(out, 1700000000.0 + s, s, TAGS[1], 1.5f + (float)s / 8, enc);
		tfw_scalar(out, 1700000000.0 + s, s, TAGS[2], 8e-5f, enc);
	}
}

static void test_crc32c(void)
{
	/* the CRC-32C check value (RFC 3720 B.4 test vector) */
	CHECK(matcher_crc32c(0, "123456789", 9) == 0xE3069283u);
	CHECK(matcher_crc32c(matcher_crc32c(0, "1234", 4), "56789", 5) == 0xE3069283u);
	unsigned char zeros[32] = {0};
	CHECK(matcher_crc32c(0, zeros, 32) == 0x8A9136AAu);
}

static void test_simple_values(void)
{
	struct buf f;
	struct tr a, b;
	struct matcher_tfevents_summary s;
	write_run(&f, 5, TFW_SIMPLE);
	CHECK(parse(&f, 0, 0, &a, &s) == 0);
	CHECK(a.n_rec == 5);
	CHECK(s.n_records == 16 && s.n_events == 15 && s.n_scalars == 15 && s.n_steps == 5);
	CHECK(s.first_wall_time == 1700000001.0 && s.last_wall_time == 1700000005.0);
	/* the three tags of a step are one record; loss by name, others by tag */
	char want[256];
	float l1 = loss_at(1);
	char t1[32];
	matcher_format_binary(l1, 1, t1, sizeof t1);
	snprintf(want, sizeof want,
	         "step 1 rank 3 kind 0 line 2: loss=%s/2/%a grad_norm=1.625/2/%a", t1, (double)l1,
	         1.625);
	CHECK(strstr(a.t.data, want) != NULL);
	CHECK(strstr(a.t.data, " lr=8e-05/2/") != NULL);
	CHECK((float)strtod(t1, NULL) == l1); /* shortest text reads back */
	/* every chunking gives the same transcript */
	for (size_t chunk = 1; chunk < 40; chunk += 3) {
		CHECK(parse(&f, chunk, 0, &b, &s) == 0);
		CHECK_STR(b.t.data, a.t.data);
		buf_reset(&b.t);
	}
	buf_reset(&a.t);
	buf_reset(&f);
}

static void test_encodings(void)
{
	static const enum tfw_enc encs[] = {TFW_SIMPLE, TFW_FLOAT_VAL, TFW_FLOAT_CONTENT,
	                                    TFW_DOUBLE_VAL, TFW_DOUBLE_CONTENT};
	for (size_t i = 0; i < sizeof encs / sizeof encs[0]; i++) {
		struct buf f = BUF_INIT;
		struct tr a;
		struct matcher_tfevents_summary s;
		int dbl = encs[i] >= TFW_DOUBLE_VAL;
		double v = dbl ? 2.0000000000000004 : (double)2.0000002f;
		tfw_file_version(&f, 1.0);
		tfw_scalar(&f, 2.0, 7, TAGS[0], v, encs[i]);
		CHECK(parse(&f, 0, 0, &a, &s) == 0);
		char want[128];
		snprintf(want, sizeof want, "step 7 rank 3 kind 0 line 2: loss=%s/%d/%a\n",
		         dbl ? "2.0000000000000004" : "2.0000002", dbl ? 3 : 2, v);
		CHECK(strstr(a.t.data, want) != NULL);
		CHECK(s.has_double == dbl);
		buf_reset(&a.t);
		buf_reset(&f);
	}
	/* several values in one event, and a non-scalar tensor is skipped */
	struct buf f = BUF_INIT, sum = BUF_INIT, ev = BUF_INIT;
	struct tr a;
	struct matcher_tfevents_summary s;
	const double vals[2] = {3.5, 0.25};
	tfw_scalars(&f, 1.0, 1, TAGS, vals, 2, TFW_FLOAT_VAL);
	{ /* a 2-element DT_FLOAT tensor (a histogram-like value) */
		struct buf val = BUF_INIT, t = BUF_INIT;
		tfw_bytes(&val, 1, "weights", 7);
		tfw_key(&t, 1, 0);
		tfw_varint(&t, 1);
		tfw_bytes(&t, 5, "\0\0\x80\x3f\0\0\0\x40", 8);
		tfw_bytes(&val, 8, t.data, t.len);
		tfw_bytes(&sum, 1, val.data, val.len);
		tfw_event_head(&ev, 1.0, 2);
		tfw_bytes(&ev, 5, sum.data, sum.len);
		tfw_record(&f, ev.data, ev.len);
		buf_reset(&val);
		buf_reset(&t);
	}
	CHECK(parse(&f, 0, 0, &a, &s) == 0);
	CHECK(a.n_rec == 1 && s.n_skipped == 1 && s.n_scalars == 2);
	CHECK(strstr(a.t.data, "loss=3.5/2/") && strstr(a.t.data, "grad_norm=0.25/2/"));
	buf_reset(&a.t);
	buf_reset(&f);
	buf_reset(&sum);
	buf_reset(&ev);
}

static void test_truncated_tail(void)
{
	struct buf f;
	write_run(&f, 4, TFW_SIMPLE);
	size_t full = f.len;
	tfw_scalar(&f, 9.0, 5, TAGS[0], 1.25, TFW_SIMPLE);
	size_t rec5 = f.len - full;
	for (size_t cut = 1; cut < rec5; cut += 5) {
		struct buf g = BUF_INIT;
		struct tr a;
		struct matcher_tfevents_summary s;
		buf_append(&g, f.data, full + cut);
		CHECK(parse(&g, 0, 0, &a, &s) == 0);
		CHECK(a.n_rec == 4 && s.n_steps == 4);
		char want[96];
		snprintf(want, sizeof want,
		         "warning truncated_record 14 the last record (byte offset %zu)", full);
		CHECK(strstr(a.t.data, want) != NULL);
		buf_reset(&a.t);
		buf_reset(&g);
	}
	buf_reset(&f);
}

/* issue 23 F15: a length of 2^64-1 (with a valid length CRC) is named as
 * such, not reported as a cut record of "112 of 15 bytes" */
static void test_absurd_length(void)
{
	struct buf f;
	write_run(&f, 2, TFW_SIMPLE);
	size_t at = f.len;
	unsigned char h[12];
	for (int i = 0; i < 8; i++)
		h[i] = 0xff;
	uint32_t crc = matcher_crc32c_mask(matcher_crc32c(0, h, 8));
	for (int i = 0; i < 4; i++)
		h[8 + i] = (unsigned char)(crc >> (8 * i));
	buf_append(&f, h, sizeof h);
	for (int i = 0; i < 100; i++)
		buf_putc(&f, 'x');
	for (size_t chunk = 0; chunk <= 7; chunk += 7) {
		struct tr a;
		struct matcher_tfevents_summary s;
		CHECK(parse(&f, chunk, 0, &a, &s) < 0);
		char want[160];
		snprintf(want, sizeof want,
		         "error bad_length record at byte offset %zu declares 18446744073709551615 "
		         "data bytes",
		         at);
		CHECK(strstr(a.t.data, want) != NULL);
		CHECK(strstr(a.t.data, " of 15 bytes") == NULL);
		buf_reset(&a.t);
	}
	buf_reset(&f);
}

static void test_flipped_crc(void)
{
	struct buf f;
	write_run(&f, 3, TFW_SIMPLE);
	/* record offsets: walk the framing */
	size_t offs[16], n = 0;
	for (size_t o = 0; o < f.len && n < 16;) {
		uint64_t len = 0;
		for (int i = 7; i >= 0; i--)
			len = len << 8 | (unsigned char)f.data[o + (size_t)i];
		offs[n++] = o;
		o += 16 + (size_t)len;
	}
	CHECK(n == 10);
	struct {
		size_t at; /* byte to flip, relative to record 4 */
		const char *what;
	} cases[] = {{9, "the length CRC"}, {12 + 3, "the data CRC"}, {0, "the length CRC"}};
	/* last case: the data CRC byte of record 4 */
	for (size_t c = 0; c < 3; c++) {
		struct buf g = BUF_INIT;
		struct tr a, b;
		struct matcher_tfevents_summary s;
		buf_append(&g, f.data, f.len);
		size_t at = offs[4] + cases[c].at;
		if (c == 2)
			at = offs[5] - 2; /* inside record 4's data CRC */
		g.data[at] ^= 0x20;
		CHECK(parse(&g, 0, 0, &a, &s) == -1);
		char want[96];
		snprintf(want, sizeof want, "error bad_crc record at byte offset %zu: %s", offs[4],
		         c == 0 ? "the length CRC" : "the data CRC");
		CHECK(strstr(a.t.data, want) != NULL);
		CHECK(parse(&g, 7, 0, &b, &s) == -1);
		CHECK_STR(b.t.data, a.t.data);
		buf_reset(&a.t);
		buf_reset(&b.t);
		buf_reset(&g);
	}
	buf_reset(&f);
}

static void test_refusals(void)
{
	struct buf f = BUF_INIT;
	struct tr a;
	struct matcher_tfevents_summary s;
	/* framing right, data not an Event */
	tfw_file_version(&f, 1.0);
	tfw_record(&f, "\xff\xff\xff\xff", 4);
	CHECK(parse(&f, 0, 0, &a, &s) == -1);
	CHECK(strstr(a.t.data, "error bad_event record at byte offset 40 ") != NULL);
	buf_reset(&a.t);
	buf_reset(&f);
	/* no scalar at all */
	tfw_file_version(&f, 1.0);
	CHECK(parse(&f, 0, 0, &a, &s) == -1);
	CHECK(strstr(a.t.data, "error not_event_file ") != NULL);
	buf_reset(&a.t);
	buf_reset(&f);
	/* oversized records are streamed past (CRC still checked) */
	write_run(&f, 2, TFW_SIMPLE);
	CHECK(parse(&f, 5, 30, &a, &s) == -1); /* every record over 30 bytes */
	CHECK(strstr(a.t.data, "error not_event_file no scalar value in 7 records") != NULL);
	buf_reset(&a.t);
	f.data[f.len - 1] ^= 1;
	CHECK(parse(&f, 5, 30, &a, &s) == -1);
	CHECK(strstr(a.t.data, "error bad_crc ") != NULL);
	buf_reset(&a.t);
	buf_reset(&f);
}

static void test_steps(void)
{
	struct buf f = BUF_INIT;
	struct tr a;
	struct matcher_tfevents_summary s;
	tfw_scalar(&f, 1.0, 1, TAGS[0], 3.0, TFW_SIMPLE);
	tfw_scalar(&f, 1.0, 3, TAGS[0], 2.0, TFW_SIMPLE);
	tfw_scalar(&f, 1.0, 2, TAGS[0], 2.5, TFW_SIMPLE); /* backwards, new */
	tfw_scalar(&f, 1.0, 3, TAGS[0], 1.0, TFW_SIMPLE); /* again: replace */
	tfw_scalar(&f, 1.0, 3, TAGS[1], 0.5, TFW_SIMPLE); /* same group */
	CHECK(parse(&f, 0, 0, &a, &s) == 0);
	CHECK(s.n_steps == 3 && a.n_rec == 4);
	CHECK(strstr(a.t.data, "warning step_backwards 3 step 2 at record 3 comes after step 3") !=
	      NULL);
	CHECK(strstr(a.t.data, "warning duplicate_step 4 step 3 again at record 4") != NULL);
	CHECK(strstr(a.t.data, "step 3 rank 3 kind 2 line 4: loss=1/2/0x1p+0 grad_norm=0.5/2/") !=
	      NULL);
	buf_reset(&a.t);
	buf_reset(&f);
}

static void test_detect(void)
{
	struct buf f = BUF_INIT;
	tfw_file_version(&f, 1.0);
	CHECK(matcher_tfevents_detect(f.data, f.len) == 1);
	CHECK(matcher_tfevents_detect(f.data, 11) == 0);
	CHECK(matcher_tfevents_detect("step: 1  loss: 2.0\n", 19) == 0);
	CHECK(matcher_kind_name(matcher_detect_kind(f.data, f.len)) != NULL);
	CHECK(strcmp(matcher_tfevents_metric("loss_metrics/global_avg_loss"), "loss") == 0);
	CHECK(strcmp(matcher_tfevents_metric("grad_norm"), "grad_norm") == 0);
	buf_reset(&f);
}

int main(void)
{
	test_crc32c();
	test_simple_values();
	test_encodings();
	test_truncated_tail();
	test_absurd_length();
	test_flipped_crc();
	test_refusals();
	test_steps();
	test_detect();
	return check_report();
}
