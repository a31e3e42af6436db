/* fuzz_common.h - helpers shared by the libFuzzer targets in tests/fuzz:
 * the chunk-split prefix that lets the fuzzer choose how a push parser is
 * fed, a transcript writer that turns every callback into bytes so two
 * parser runs can be compared exactly, and FUZZ_CHECK.
 *
 * A failed FUZZ_CHECK prints the condition and calls abort(): that is how a
 * harness reports a finding to libFuzzer (and fails the ctest replay).  The
 * code under test itself must never abort; only the harness does.
 * Harness code only: not part of any library, not thread-safe. */
#ifndef PARITY_FUZZ_COMMON_H
#define PARITY_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "trainsrc.h"

/* The libFuzzer entry point every target defines (and replay_main.c
 * calls for each corpus file). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond))                                                                       \
			fuzz_fail(__FILE__, __LINE__, #cond);                                      \
	} while (0)

/* Print "file:line: check failed: what" to stderr and abort(). */
void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

/* Split plan decoded from the head of an input:
 *   byte 0: bits 0-2 = number of chunk-size bytes that follow minus 1
 *           (1..8 bytes); bit 3 = use a small max_line (see max_line);
 *           bits 4-7 = a target-specific option nibble;
 *   then that many bytes, each a chunk length (value 0 means 1 byte,
 *   otherwise the value itself), used cyclically to cut the payload.
 * Everything after them is the payload (the log text). */
struct fuzz_split {
	const uint8_t *sizes;
	size_t n_sizes;
	size_t next;     /* index of the next size to use */
	size_t max_line; /* 0 (parser default) or a small limit */
	unsigned option; /* bits 4-7 of byte 0 */
};

/* Decode the split plan; sets *payload / *n_payload to the rest.  0, or -1
 * when the input is too short to hold a plan (the target then ignores it). */
int fuzz_split_init(struct fuzz_split *s, const uint8_t *data, size_t size, const uint8_t **payload,
                    size_t *n_payload);
/* Length of the next chunk, at most `left` (and at least 1 when left > 0). */
size_t fuzz_split_next(struct fuzz_split *s, size_t left);

/* Transcript helpers: append a tagged record to t.  Doubles are written as
 * their bit pattern so NaN payloads and -0 compare exactly.  NULL strings
 * are written distinctly from "".  OOM is a harness failure (abort). */
void fuzz_put_str(struct buf *t, const char *tag, const char *s);
void fuzz_put_num(struct buf *t, const char *tag, unsigned long long v);
void fuzz_put_dbl(struct buf *t, const char *tag, double v);

/* Abort (harness failure) with both transcripts' first difference shown
 * when a and b differ. */
void fuzz_same_transcript(const struct buf *a, const struct buf *b, const char *what);

/* ---- training sources (trainsrc.h) ------------------------------------ */

/* The head of a training-source target's run: its transcript and the
 * counts its callbacks keep (the target's own struct starts with it). */
struct fuzz_train_run {
	struct buf t;
	unsigned stop_after, n_calls;
	size_t n_rec; /* records seen */
	long last_step;
	unsigned long last_line;
};

/* A training source's target: the callbacks check each record and add it
 * to the transcript (ctx: the run); the harness checks the rest. */
struct fuzz_train_spec {
	const char *name; /* "lossfile": labels a differing transcript */
	enum matcher_source src;
	int rank;         /* the parser's rank */
	int use_max_line; /* hand the plan's small line limit to the parser */
	size_t run_size;  /* sizeof the target's run (>= struct fuzz_train_run) */
	int (*on_step)(void *ctx, const struct matcher_step_record *s);
	int (*on_warning)(void *ctx, const struct matcher_warning *w);
	/* meta (matcher_trainsrc_meta): at most meta_max pairs, keys of
	 * key_min..key_cap-1 bytes, values under value_cap */
	size_t meta_max, key_min, key_cap, value_cap;
	const char *poke; /* fed after the end or a failure: refused */
};

/* The checks every source's records share (a NEW training record of at
 * least one metric with distinct non-empty names and decimals >= 0; steps
 * strictly increasing, and lines too with lines_increase), then the
 * record into r's transcript and counts.  Returns on_step's answer (stop
 * after plan.option calls). */
int fuzz_train_record(struct fuzz_train_run *r, const struct matcher_step_record *s,
                      int lines_increase);

/* Parse payload whole and in the plan's chunks through matcher_trainsrc:
 * the outcomes and transcripts (records, warnings, summary, meta, error)
 * must be identical; a done parser's summary counts n_rec steps of one
 * rank, a failed one has an error and refuses more input.  Stops after
 * plan.option callbacks (0 = never). */
void fuzz_train_source(const struct fuzz_train_spec *sp, struct fuzz_split *plan,
                       const uint8_t *payload, size_t n);

#endif
