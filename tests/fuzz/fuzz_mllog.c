/* fuzz_mllog.c - libFuzzer target for the MLPerf MLLOG push parser
 * (matcher/mllog.h).
 *
 * Same scheme as fuzz_lossfile.c: split plan, then the file, parsed whole
 * and in the planned chunks; the transcripts (every record, warning, the
 * outcome and the meta) must be identical.  Invariants: NEW records of
 * 1..MATCHER_MLLOG_METRICS metrics with decimal precision and no name
 * twice, training records only, steps strictly increasing, the summary's
 * counts match the records, the meta is bounded and
 * NUL-terminated, a failed parser refuses more input.  Detection runs on
 * every input. */
#include <string.h>

#include "fuzz_common.h"
#include "mllog.h"

struct run {
	struct buf t;
	unsigned stop_after, n_calls;
	size_t n_rec[2];
	long last_step[2];
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	int v = s->validation;
	FUZZ_CHECK(v == 0 && s->kind == MATCHER_STEP_NEW && s->rank == 0);
	FUZZ_CHECK(s->n_metrics >= 1 && s->n_metrics <= MATCHER_MLLOG_METRICS && s->step >= 0);
	FUZZ_CHECK(r->n_rec[v] == 0 || s->step > r->last_step[v]);
	for (size_t k = 0; k < s->n_metrics; k++) {
		FUZZ_CHECK(s->metrics[k].prec == MATCHER_PREC_DECIMAL &&
		           s->metrics[k].decimals >= 0);
		FUZZ_CHECK(strlen(s->metrics[k].name) > 0 &&
		           strlen(s->metrics[k].name) < MATCHER_MLLOG_NAME);
		for (size_t j = 0; j < k; j++)
			FUZZ_CHECK(strcmp(s->metrics[j].name, s->metrics[k].name) != 0);
	}
	r->n_rec[v]++;
	r->last_step[v] = s->step;
	fuzz_put_num(&r->t, "R.kind", (unsigned long long)v);
	fuzz_put_num(&r->t, "R.step", (unsigned long long)s->step);
	fuzz_put_num(&r->t, "R.line", s->line);
	for (size_t k = 0; k < s->n_metrics; k++) {
		fuzz_put_str(&r->t, "M.name", s->metrics[k].name);
		fuzz_put_str(&r->t, "M.text", s->metrics[k].text);
		fuzz_put_dbl(&r->t, "M.value", s->metrics[k].value);
	}
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct run *r = ctx;
	FUZZ_CHECK(w->code && w->message && w->line > 0);
	fuzz_put_str(&r->t, "W.code", w->code);
	fuzz_put_num(&r->t, "W.line", w->line);
	fuzz_put_str(&r->t, "W.msg", w->message);
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int parse(struct run *r, struct fuzz_split *plan, size_t max_line, const uint8_t *data,
                 size_t n)
{
	struct matcher_trainlog_callbacks cb = {r, on_step, on_warning};
	struct matcher_mllog_parser *p = matcher_mllog_parser_new(&cb, 0, max_line);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_mllog_feed(p, (const char *)data, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);
			rc = matcher_mllog_feed(p, (const char *)data + off, len);
			off += len;
		}
	}
	if (rc == 0)
		rc = matcher_mllog_finish(p, &sum);
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_steps == r->n_rec[0] && sum.n_validation == 0 && sum.n_steps > 0 &&
		           sum.n_ranks == 1);
		fuzz_put_num(&r->t, "S.lines", sum.n_lines);
		fuzz_put_num(&r->t, "S.copies", sum.n_copies);
		fuzz_put_num(&r->t, "S.warnings", sum.n_warnings);
		const char *mk, *mv;
		size_t nm = matcher_mllog_meta(p, 0, &mk, &mv);
		FUZZ_CHECK(nm <= MATCHER_MLLOG_META);
		for (size_t i = 0; i < nm; i++) {
			FUZZ_CHECK(matcher_mllog_meta(p, i, &mk, &mv) == nm);
			FUZZ_CHECK(strlen(mk) > 0 && strlen(mk) < MATCHER_MLLOG_NAME &&
			           strlen(mv) < MATCHER_MLLOG_META_VALUE);
			fuzz_put_str(&r->t, "H.key", mk);
			fuzz_put_str(&r->t, "H.value", mv);
		}
		FUZZ_CHECK(matcher_mllog_feed(p, "x\n", 2) == -1); /* finished */
	} else {
		const struct matcher_error *err = matcher_mllog_error(p);
		FUZZ_CHECK(rc == -1 && err && err->code);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		FUZZ_CHECK(matcher_mllog_feed(p, "x\n", 2) == -1);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	matcher_mllog_parser_free(p);
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
	int rc_whole = parse(&whole, NULL, plan.max_line, payload, n);
	int rc_chunked = parse(&chunked, &plan, plan.max_line, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole.t, &chunked.t, "mllog whole vs chunked");
	size_t at = 0;
	if (matcher_mllog_line((const char *)payload, n, &at))
		FUZZ_CHECK(at < n && payload[at] == '{');
	(void)matcher_mllog_detect((const char *)payload, n);
	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	return 0;
}
