/* fuzz_nvinspect.c - libFuzzer target for the DL Framework Inspect
 * statistics log push parser (matcher/nvinspect.h).
 *
 * Same scheme as fuzz_lossfile.c: split plan, then the file, parsed whole
 * and in the planned chunks; the transcripts (every record, the outcome)
 * must be identical.  Invariants: 1..MATCHER_NVINSPECT_MAX_SERIES metrics
 * per record with distinct names shorter than MATCHER_NVINSPECT_NAME,
 * printed precision, iterations and lines strictly increasing, the
 * summary's step count matches the records.  Detection and the name split
 * run on every input. */
#include <string.h>

#include "fuzz_common.h"
#include "nvinspect.h"

struct run {
	struct buf t;
	unsigned stop_after, n_calls;
	size_t n_rec;
	long last_step;
	unsigned long last_line;
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->n_metrics >= 1 && s->n_metrics <= MATCHER_NVINSPECT_MAX_SERIES &&
	           s->kind == MATCHER_STEP_NEW && s->rank == 0);
	for (size_t k = 0; k < s->n_metrics; k++) {
		size_t ll, tl;
		const char *t, *st;
		FUZZ_CHECK(s->metrics[k].prec == MATCHER_PREC_PRINTED &&
		           s->metrics[k].decimals >= 0 && *s->metrics[k].name &&
		           strlen(s->metrics[k].name) < MATCHER_NVINSPECT_NAME);
		int found = matcher_nvinspect_split(s->metrics[k].name, &ll, &t, &tl, &st);
		FUZZ_CHECK(ll + (found ? tl + 2 + strlen(st) : 0) == strlen(s->metrics[k].name));
		/* names are distinct within an iteration (small records: pairwise) */
		for (size_t j = 0; j < k && s->n_metrics <= 64; j++)
			FUZZ_CHECK(strcmp(s->metrics[j].name, s->metrics[k].name) != 0);
	}
	FUZZ_CHECK(r->n_rec == 0 || (s->step > r->last_step && s->line > r->last_line));
	r->n_rec++;
	r->last_step = s->step;
	r->last_line = s->line;
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

static int parse(struct run *r, struct fuzz_split *plan, size_t max_line, const uint8_t *data,
                 size_t n)
{
	struct matcher_trainlog_callbacks cb = {r, on_step, NULL};
	struct matcher_nvinspect_parser *p = matcher_nvinspect_parser_new(&cb, 0, max_line);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_nvinspect_feed(p, (const char *)data, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);
			rc = matcher_nvinspect_feed(p, (const char *)data + off, len);
			off += len;
		}
	}
	if (rc == 0)
		rc = matcher_nvinspect_finish(p, &sum);
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_steps == r->n_rec && sum.n_steps > 0);
		fuzz_put_num(&r->t, "S.lines", sum.n_lines);
	} else {
		const struct matcher_error *err = matcher_nvinspect_error(p);
		FUZZ_CHECK(rc == -1 && err && err->code);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		FUZZ_CHECK(matcher_nvinspect_feed(p, "INFO - a_weight_max iteration=1 value=1\n",
		                                  41) == -1);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	matcher_nvinspect_parser_free(p);
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
	fuzz_same_transcript(&whole.t, &chunked.t, "nvinspect whole vs chunked");
	(void)matcher_nvinspect_detect((const char *)payload, n);
	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	return 0;
}
