/* fuzz_lossfile.c - libFuzzer target for the golden loss file push parser
 * (matcher/lossfile.h).
 *
 * Same scheme as fuzz_trainlog.c: split plan, then the file, parsed whole
 * and in the planned chunks; the transcripts (every record, the outcome)
 * must be identical.  Invariants: 1..MATCHER_LOSSFILE_COLS metrics per
 * record and the same number in every record (the columns), decimal
 * precision, steps strictly increasing, the value's text parses back to
 * its value, lines never go backwards.  Detection runs on every input. */
#include <string.h>

#include "fuzz_common.h"
#include "lossfile.h"

struct run {
	struct fuzz_train_run h; /* transcript and counts: fuzz_common.h */
	size_t n_metrics;        /* values per row: the columns */
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->n_metrics <= MATCHER_LOSSFILE_COLS && s->rank == 0);
	for (size_t k = 0; k < s->n_metrics; k++)
		FUZZ_CHECK(s->metrics[k].prec == MATCHER_PREC_DECIMAL);
	/* every row has as many values as the file's first (the columns) */
	FUZZ_CHECK(r->h.n_rec == 0 || s->n_metrics == r->n_metrics);
	r->n_metrics = s->n_metrics;
	return fuzz_train_record(&r->h, s, 1);
}

static const struct fuzz_train_spec SPEC = {
        .name = "lossfile whole vs chunked",
        .src = MATCHER_SOURCE_LOSSFILE,
        .use_max_line = 1,
        .run_size = sizeof(struct run),
        .on_step = on_step,
        .meta_max = MATCHER_LOSSFILE_META,
        .key_min = 1,
        .key_cap = MATCHER_LOSSFILE_NAME,
        .value_cap = MATCHER_LOSSFILE_META_VALUE,
        .poke = "1 1\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	fuzz_train_source(&SPEC, &plan, payload, n);
	(void)matcher_lossfile_detect((const char *)payload, n);
	return 0;
}
