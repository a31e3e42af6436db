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
	struct fuzz_train_run h; /* transcript and counts: fuzz_common.h */
};

static int on_step(void *ctx, const struct matcher_step_record *s)
{
	struct run *r = ctx;
	FUZZ_CHECK(s->n_metrics <= MATCHER_MEGATRON_METRICS && s->rank == 2 && s->step >= 0);
	for (size_t k = 0; k < s->n_metrics; k++) {
		const struct matcher_metric_value *m = &s->metrics[k];
		FUZZ_CHECK(m->prec == MATCHER_PREC_DECIMAL &&
		           strlen(m->name) < MATCHER_MEGATRON_NAME);
		double back = strtod(m->text, NULL);
		FUZZ_CHECK(isnan(m->value) ? isnan(back) : back == m->value);
	}
	return fuzz_train_record(&r->h, s, 0);
}

static const struct fuzz_train_spec SPEC = {
        .name = "megatron whole vs chunked",
        .src = MATCHER_SOURCE_MEGATRON,
        .rank = 2,
        .run_size = sizeof(struct run),
        .on_step = on_step,
        .meta_max = MATCHER_MEGATRON_META,
        .key_cap = MATCHER_MEGATRON_NAME,
        .value_cap = MATCHER_MEGATRON_META_VALUE,
        .poke = "{}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	fuzz_train_source(&SPEC, &plan, payload, n);
	/* the first 8 payload bytes as a double: its Python repr reads back */
	if (n >= 8) {
		double v;
		char text[48];
		memcpy(&v, payload, sizeof v);
		matcher_format_pyfloat(v, text, sizeof text);
		double back = strtod(text, NULL);
		FUZZ_CHECK(isnan(v) ? isnan(back) : back == v);
	}
	return 0;
}
