/* fuzz_tfevents.c - libFuzzer target for the TensorBoard event-file push
 * parser (matcher/tfevents.h).
 *
 * Same scheme as fuzz_trainlog.c: a split plan (fuzz_common.h) then the
 * file; it is parsed fed whole and fed in the planned chunks (the small
 * max_line flag becomes a 64-byte record limit, so the streamed skip path
 * runs too), and the transcripts of every step record, warning and the
 * outcome must be identical.  The option nibble stops parsing from a
 * callback after that many calls.  Invariants: records carry one rank,
 * binary precision and finite-or-not values whose text reads back; NEW
 * records add up to the summary's n_steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "tfevents.h"

struct run {
	struct buf t;
	unsigned stop_after, n_calls;
	size_t n_new;
};

static int count_call(struct run *r)
{
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->rank == 2 && s->validation == 0 && s->n_metrics >= 1);
	FUZZ_CHECK(s->n_metrics <= MATCHER_TFEVENTS_MAX_TAGS);
	FUZZ_CHECK(s->kind == MATCHER_STEP_NEW || s->kind == MATCHER_STEP_REPLACE);
	r->n_new += s->kind == MATCHER_STEP_NEW;
	fuzz_put_num(&r->t, "R.step", (unsigned long long)s->step);
	fuzz_put_num(&r->t, "R.line", s->line);
	fuzz_put_num(&r->t, "R.kind", s->kind);
	for (size_t i = 0; i < s->n_metrics; i++) {
		const struct matcher_metric_value *m = &s->metrics[i];
		FUZZ_CHECK(m->prec == MATCHER_PREC_FLOAT32 || m->prec == MATCHER_PREC_FLOAT64);
		FUZZ_CHECK(m->name && m->name[0] && m->text && m->decimals == 0);
		if (m->value == m->value && m->prec == MATCHER_PREC_FLOAT64)
			FUZZ_CHECK(strtod(m->text, NULL) == m->value);
		fuzz_put_str(&r->t, "M.name", m->name);
		fuzz_put_str(&r->t, "M.text", m->text);
		fuzz_put_dbl(&r->t, "M.value", m->value);
	}
	return count_call(r);
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct run *r = ctx;
	FUZZ_CHECK(w->code && w->message);
	fuzz_put_str(&r->t, "W.code", w->code);
	fuzz_put_num(&r->t, "W.line", w->line);
	fuzz_put_str(&r->t, "W.msg", w->message);
	return count_call(r);
}

static int parse(struct run *r, struct fuzz_split *plan, size_t max_record, const uint8_t *data,
                 size_t n)
{
	struct matcher_trainlog_callbacks cb = {r, on_step, on_warning};
	struct matcher_tfevents_parser *p = matcher_tfevents_parser_new(&cb, 2, max_record);
	struct matcher_tfevents_summary sum;
	size_t off = 0;
	int rc = 0;
	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_tfevents_feed(p, data, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);
			rc = matcher_tfevents_feed(p, data + off, len);
			off += len;
		}
	}
	if (rc == 0)
		rc = matcher_tfevents_finish(p, &sum);
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_steps == r->n_new);
		FUZZ_CHECK(sum.n_events <= sum.n_records && sum.bytes == n);
		FUZZ_CHECK(matcher_tfevents_feed(p, "x", 1) == -1);
		fuzz_put_num(&r->t, "S.records", sum.n_records);
		fuzz_put_num(&r->t, "S.scalars", sum.n_scalars);
		fuzz_put_num(&r->t, "S.skipped", sum.n_skipped);
		fuzz_put_num(&r->t, "S.warnings", sum.n_warnings);
	} else {
		const struct matcher_error *err = matcher_tfevents_error(p);
		FUZZ_CHECK(rc == -1 && err && err->code);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		FUZZ_CHECK(matcher_tfevents_feed(p, "x", 1) == -1);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	matcher_tfevents_parser_free(p);
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
	size_t max_record = plan.max_line ? 64 : 0;
	int rc_whole = parse(&whole, NULL, max_record, payload, n);
	int rc_chunked = parse(&chunked, &plan, max_record, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole.t, &chunked.t, "tfevents whole vs chunked");
	(void)matcher_tfevents_detect(payload, n);
	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	return 0;
}
