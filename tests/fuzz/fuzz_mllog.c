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
	struct fuzz_train_run h; /* transcript and counts: fuzz_common.h */
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->rank == 0 && s->n_metrics <= MATCHER_MLLOG_METRICS && s->step >= 0);
	for (size_t k = 0; k < s->n_metrics; k++)
		FUZZ_CHECK(s->metrics[k].prec == MATCHER_PREC_DECIMAL &&
		           strlen(s->metrics[k].name) < MATCHER_MLLOG_NAME);
	return fuzz_train_record(&r->h, s, 0);
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct run *r = ctx;
	FUZZ_CHECK(w->code && w->message && w->line > 0);
	fuzz_put_str(&r->h.t, "W.code", w->code);
	fuzz_put_num(&r->h.t, "W.line", w->line);
	fuzz_put_str(&r->h.t, "W.msg", w->message);
	r->h.n_calls++;
	return r->h.stop_after && r->h.n_calls >= r->h.stop_after;
}

static const struct fuzz_train_spec SPEC = {
        .name = "mllog whole vs chunked",
        .src = MATCHER_SOURCE_MLLOG,
        .use_max_line = 1,
        .run_size = sizeof(struct run),
        .on_step = on_step,
        .on_warning = on_warning,
        .meta_max = MATCHER_MLLOG_META,
        .key_min = 1,
        .key_cap = MATCHER_MLLOG_NAME,
        .value_cap = MATCHER_MLLOG_META_VALUE,
        .poke = "x\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	fuzz_train_source(&SPEC, &plan, payload, n);
	size_t at = 0;
	if (matcher_mllog_line((const char *)payload, n, &at))
		FUZZ_CHECK(at < n && payload[at] == '{');
	(void)matcher_mllog_detect((const char *)payload, n);
	return 0;
}
