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
	struct fuzz_train_run h; /* transcript and counts: fuzz_common.h */
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->n_metrics <= MATCHER_NVINSPECT_MAX_SERIES && s->rank == 0);
	for (size_t k = 0; k < s->n_metrics; k++) {
		size_t ll, tl;
		const char *t, *st;
		FUZZ_CHECK(s->metrics[k].prec == MATCHER_PREC_PRINTED &&
		           strlen(s->metrics[k].name) < MATCHER_NVINSPECT_NAME);
		int found = matcher_nvinspect_split(s->metrics[k].name, &ll, &t, &tl, &st);
		FUZZ_CHECK(ll + (found ? tl + 2 + strlen(st) : 0) == strlen(s->metrics[k].name));
	}
	return fuzz_train_record(&r->h, s, 1);
}

static const struct fuzz_train_spec SPEC = {
        .name = "nvinspect whole vs chunked",
        .src = MATCHER_SOURCE_NVDLFW_INSPECT,
        .use_max_line = 1,
        .run_size = sizeof(struct run),
        .on_step = on_step,
        .poke = "INFO - a_weight_max iteration=1 value=1\n",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	fuzz_train_source(&SPEC, &plan, payload, n);
	(void)matcher_nvinspect_detect((const char *)payload, n);
	return 0;
}
