/* fuzz_megatron.c - libFuzzer target for the Megatron-LM golden values
 * parser (matcher/megatron.h).
 *
 * Same scheme as fuzz_lossfile.c: split plan, then the file, parsed whole
 * and in the planned chunks; the transcripts (every record, the meta, the
 * outcome) must be identical.  Invariants: 1..MATCHER_MEGATRON_METRICS
 * metrics per record with distinct names, decimal precision, steps
 * strictly increasing, each value's text parses back to its value (NaN
 * to NaN), the summary's step count matches the records, meta bounded.
 * Detection and the Python-repr formatter (a double's text reads back
 * to it) run on every input. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "megatron.h"

struct run {
	struct buf t;
	unsigned stop_after, n_calls;
	size_t n_rec;
	long last_step;
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->n_metrics >= 1 && s->n_metrics <= MATCHER_MEGATRON_METRICS &&
	           s->kind == MATCHER_STEP_NEW && s->rank == 2 && s->step >= 0);
	FUZZ_CHECK(r->n_rec == 0 || s->step > r->last_step);
	r->n_rec++;
	r->last_step = s->step;
	fuzz_put_num(&r->t, "R.step", (unsigned long long)s->step);
	for (size_t k = 0; k < s->n_metrics; k++) {
		const struct matcher_metric_value *m = &s->metrics[k];
		FUZZ_CHECK(m->prec == MATCHER_PREC_DECIMAL && m->decimals >= 0);
		FUZZ_CHECK(strlen(m->name) > 0 && strlen(m->name) < MATCHER_MEGATRON_NAME);
		for (size_t j = 0; j < k; j++)
			FUZZ_CHECK(strcmp(m->name, s->metrics[j].name) != 0);
		double back = strtod(m->text, NULL);
		FUZZ_CHECK(isnan(m->value) ? isnan(back) : back == m->value);
		fuzz_put_str(&r->t, "M.name", m->name);
		fuzz_put_str(&r->t, "M.text", m->text);
		fuzz_put_dbl(&r->t, "M.value", m->value);
	}
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int parse(struct run *r, struct fuzz_split *plan, const uint8_t *data, size_t n)
{
	struct matcher_trainlog_callbacks cb = {r, on_step, NULL};
	struct matcher_megatron_parser *p = matcher_megatron_parser_new(&cb, 2, 0);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_megatron_feed(p, (const char *)data, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);
			rc = matcher_megatron_feed(p, (const char *)data + off, len);
			off += len;
		}
	}
	if (rc == 0)
		rc = matcher_megatron_finish(p, &sum);
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_steps == r->n_rec && sum.n_steps > 0 && sum.n_ranks == 1);
		fuzz_put_num(&r->t, "S.lines", sum.n_lines);
		const char *mk, *mv;
		size_t nm = matcher_megatron_meta(p, 0, &mk, &mv);
		FUZZ_CHECK(nm <= MATCHER_MEGATRON_META);
		for (size_t i = 0; i < nm; i++) {
			FUZZ_CHECK(matcher_megatron_meta(p, i, &mk, &mv) == nm);
			FUZZ_CHECK(strlen(mk) < MATCHER_MEGATRON_NAME &&
			           strlen(mv) < MATCHER_MEGATRON_META_VALUE);
			fuzz_put_str(&r->t, "H.key", mk);
			fuzz_put_str(&r->t, "H.value", mv);
		}
	} else {
		const struct matcher_error *err = matcher_megatron_error(p);
		FUZZ_CHECK(rc == -1 && err && err->code);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		FUZZ_CHECK(matcher_megatron_feed(p, "{}", 2) == -1);
		FUZZ_CHECK(matcher_megatron_finish(p, NULL) == -1);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	matcher_megatron_parser_free(p);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	struct run whole, chunked;
	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	memset(&whole, 0, sizeof whole);
	memset(&chunked, 0, sizeof chunked);
	buf_init(&whole.t);
	buf_init(&chunked.t);
	whole.stop_after = chunked.stop_after = plan.option;
	int rc_whole = parse(&whole, NULL, payload, n);
	int rc_chunked = parse(&chunked, &plan, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole.t, &chunked.t, "megatron whole vs chunked");
	(void)matcher_megatron_detect((const char *)payload, n);
	/* the first 8 payload bytes as a double: its Python repr reads back */
	if (n >= 8) {
		double v;
		char text[48];
		memcpy(&v, payload, sizeof v);
		matcher_format_pyfloat(v, text, sizeof text);
		double back = strtod(text, NULL);
		FUZZ_CHECK(isnan(v) ? isnan(back) : back == v);
	}
	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	return 0;
}
