/* fuzz_trainlog.c - libFuzzer target for the training-log push parser
 * (matcher/trainlog.h).
 *
 * Same scheme as fuzz_actlog.c: a split plan (fuzz_common.h) then the log;
 * the log is parsed fed whole and fed in the planned chunks, and the
 * transcripts of every step record (rank, step, series, kind, every metric
 * with its text, value bits and decimals), every warning and the outcome
 * must be identical.  The option nibble stops parsing from a callback
 * after that many calls.  Record invariants are checked on the way and
 * the summary's counters must agree with the records seen (NEW training
 * records = n_steps, NEW validation records = n_validation, COPY records =
 * n_copies). */
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"
#include "trainlog.h"

struct run {
	struct buf t;
	unsigned stop_after;
	unsigned n_calls;
	size_t n_new_train, n_new_val, n_copy;
	unsigned long last_line;
};

static int count_call(struct run *r)
{
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;

	FUZZ_CHECK(s->line >= 1 && s->line >= r->last_line);
	FUZZ_CHECK(s->rank >= 0);
	FUZZ_CHECK(s->validation == 0 || s->validation == 1);
	FUZZ_CHECK(s->kind == MATCHER_STEP_NEW || s->kind == MATCHER_STEP_COPY ||
	           s->kind == MATCHER_STEP_REPLACE);
	FUZZ_CHECK(s->n_metrics == 0 || s->metrics != NULL);
	r->last_line = s->line;
	if (s->kind == MATCHER_STEP_NEW && s->validation)
		r->n_new_val++;
	else if (s->kind == MATCHER_STEP_NEW)
		r->n_new_train++;
	else if (s->kind == MATCHER_STEP_COPY)
		r->n_copy++;
	fuzz_put_num(&r->t, "R.rank", (unsigned long long)s->rank);
	fuzz_put_num(&r->t, "R.step", (unsigned long long)s->step);
	fuzz_put_num(&r->t, "R.val", (unsigned long long)s->validation);
	fuzz_put_num(&r->t, "R.line", s->line);
	fuzz_put_num(&r->t, "R.kind", s->kind);
	fuzz_put_num(&r->t, "R.n", s->n_metrics);
	for (size_t i = 0; i < s->n_metrics; i++) {
		const struct matcher_metric_value *m = &s->metrics[i];

		FUZZ_CHECK(m->name != NULL && m->text != NULL);
		FUZZ_CHECK(m->decimals >= 0);
		fuzz_put_str(&r->t, "M.name", m->name);
		fuzz_put_str(&r->t, "M.text", m->text);
		fuzz_put_dbl(&r->t, "M.value", m->value);
		fuzz_put_num(&r->t, "M.dec", (unsigned long long)m->decimals);
	}
	return count_call(r);
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct run *r = ctx;

	FUZZ_CHECK(w->code != NULL && w->message != NULL);
	fuzz_put_str(&r->t, "W.code", w->code);
	fuzz_put_num(&r->t, "W.line", w->line);
	fuzz_put_str(&r->t, "W.msg", w->message);
	fuzz_put_str(&r->t, "W.excerpt", w->excerpt);
	return count_call(r);
}

static int parse(struct run *r, struct fuzz_split *plan, size_t max_line, const uint8_t *payload,
                 size_t n)
{
	struct matcher_trainlog_callbacks cb = {r, on_step, on_warning};
	struct matcher_trainlog_parser *p = matcher_trainlog_parser_new(&cb, max_line);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;

	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_trainlog_feed(p, (const char *)payload, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);

			rc = matcher_trainlog_feed(p, (const char *)payload + off, len);
			off += len;
		}
	}
	if (rc == 0) {
		memset(&sum, 0xa5, sizeof sum);
		rc = matcher_trainlog_finish(p, &sum);
	} else {
		FUZZ_CHECK(matcher_trainlog_feed(p, "x\n", 2) == -1);
	}
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_steps == r->n_new_train);
		FUZZ_CHECK(sum.n_validation == r->n_new_val);
		FUZZ_CHECK(sum.n_copies == r->n_copy);
		FUZZ_CHECK(sum.n_ranks >= 0);
		fuzz_put_num(&r->t, "S.steps", sum.n_steps);
		fuzz_put_num(&r->t, "S.val", sum.n_validation);
		fuzz_put_num(&r->t, "S.copies", sum.n_copies);
		fuzz_put_num(&r->t, "S.lines", sum.n_lines);
		fuzz_put_num(&r->t, "S.warnings", sum.n_warnings);
		fuzz_put_num(&r->t, "S.ranks", (unsigned long long)sum.n_ranks);
	} else {
		const struct matcher_error *err = matcher_trainlog_error(p);

		FUZZ_CHECK(rc == -1);
		FUZZ_CHECK(err != NULL && err->code != NULL);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	matcher_trainlog_parser_free(p);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	struct run whole, chunked;
	int rc_whole, rc_chunked;

	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	memset(&whole, 0, sizeof whole);
	memset(&chunked, 0, sizeof chunked);
	buf_init(&whole.t);
	buf_init(&chunked.t);
	whole.stop_after = chunked.stop_after = plan.option;
	rc_whole = parse(&whole, NULL, plan.max_line, payload, n);
	rc_chunked = parse(&chunked, &plan, plan.max_line, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole.t, &chunked.t, "trainlog whole vs chunked");
	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	return 0;
}
