/* trainlog.h - the training log (stdout of a run): the streaming push
 * parser and the step records it emits.
 *
 * Format contract: matcher/spec/training-log.md.  Like the activation
 * parser, it is fed arbitrary chunks and holds only the current line plus
 * a per-rank map of steps seen (for duplicate / backwards detection: a few
 * dozen bytes a step).  Each metric line becomes one record handed to a
 * callback.  The collected in-memory series and the threshold checks live
 * in traincheck.h.  No I/O, no globals. */
#ifndef PARITY_TRAINLOG_H
#define PARITY_TRAINLOG_H

#include <stddef.h>

#include "actlog.h" /* struct matcher_warning, matcher_error, matcher_parse_number */

/* One printed value.  Canonical names: "loss", "grad_norm", "memory_gib",
 * "memory_pct", "tps", "tflops", "mfu", then any other `name: number` pair
 * by its own name ("lr", "elapsed_time_per_step").  `text` is the value as
 * printed without thousands separators' meaning changed (e.g. "1,231",
 * "35.22", "7.21", "nan"); `value` its number (commas removed; unit
 * suffixes like "GiB", "%", "s" stripped).  `decimals` = digits printed
 * after the decimal point (the resolution), 0 for integers and nan/inf. */
/* How a value was recorded (issue 14).  PRINTED: stdout text, `decimals`
 * is its resolution.  DECIMAL: full-precision decimal text of a golden
 * loss file (lossfile.h; `decimals` = digits after the point).  FLOAT32 /
 * FLOAT64: the binary value of a TensorBoard scalar (tfevents.h; `value`
 * holds it exactly, `text` its shortest round-trip decimal, decimals 0). */
enum matcher_precision {
	MATCHER_PREC_PRINTED = 0,
	MATCHER_PREC_DECIMAL = 1,
	MATCHER_PREC_FLOAT32 = 2,
	MATCHER_PREC_FLOAT64 = 3
};

struct matcher_metric_value {
	const char *name;
	const char *text;
	double value;
	int decimals;
	int prec; /* enum matcher_precision; 0 (PRINTED) for stdout */
};

/* How a record relates to earlier ones of the same rank and series. */
enum matcher_step_kind {
	MATCHER_STEP_NEW = 0, /* first time this step is seen */
	MATCHER_STEP_COPY,    /* same step, same loss and grad_norm text:
	                         another rank printing into one stream; the
	                         consumer counts it and keeps the first */
	MATCHER_STEP_REPLACE  /* same step, different text (a restart):
	                         the consumer replaces the earlier values;
	                         a duplicate_step warning was emitted */
};

struct matcher_step_record {
	int rank; /* from "[rankN]:" prefix, else 0 */
	long step;
	int validation;     /* 1: a "validate step:" line (series
	                       "validation/<metric>") */
	unsigned long line; /* 1-based */
	enum matcher_step_kind kind;
	const struct matcher_metric_value *metrics; /* valid during the callback */
	size_t n_metrics;
};

/* Warning codes (struct matcher_warning.code):
 *   malformed_line    step: and loss: present but a value unreadable
 *   truncated_line    a metric line cut while being written: the file's
 *                     last line without a final newline, or fewer standard
 *                     fields (loss grad_norm memory tps tflops mfu) than
 *                     the rank's previous line; its values are not used
 *   duplicate_step    same rank+step again with different loss/grad_norm
 *   step_backwards    step number lower than the previous one of that rank
 *   error_line        traceback / " - ERROR - " / RuntimeError: / Error: /
 *                     SIGKILL / Killed, and native crashes (terminate called
 *                     after throwing, CUDA error:, NCCL error, glog E/F
 *                     lines, Segmentation fault, core dumped, Fatal Python
 *                     error, ChildFailedError, exitcode: -N); line = first
 *                     line of the block, excerpt = its first lines
 * A line with step: but no loss: is chatter (no warning).
 * Fatal errors (struct matcher_error.code): binary_data, line_too_long,
 * not_training_log (no usable metric line: none at all, or all malformed or
 * truncated, then line = the first of those), callback, oom. */

struct matcher_trainlog_callbacks {
	void *ctx;
	int (*on_step)(void *ctx, const struct matcher_step_record *r);
	int (*on_warning)(void *ctx, const struct matcher_warning *w);
};

struct matcher_trainlog_summary {
	size_t n_steps;      /* distinct training steps, all ranks */
	size_t n_validation; /* distinct validation steps, all ranks */
	size_t n_copies;     /* MATCHER_STEP_COPY records */
	unsigned long n_lines;
	size_t n_warnings;
	int n_ranks; /* distinct ranks with a metric line */
};

struct matcher_trainlog_parser;

struct matcher_trainlog_parser *
matcher_trainlog_parser_new(const struct matcher_trainlog_callbacks *cb, size_t max_line);
int matcher_trainlog_feed(struct matcher_trainlog_parser *p, const char *data, size_t n);
int matcher_trainlog_finish(struct matcher_trainlog_parser *p,
                            struct matcher_trainlog_summary *out);
const struct matcher_error *matcher_trainlog_error(const struct matcher_trainlog_parser *p);
void matcher_trainlog_parser_free(struct matcher_trainlog_parser *p);

/* ---- kind detection --------------------------------------------------- */

enum matcher_kind { MATCHER_KIND_UNKNOWN = 0, MATCHER_KIND_ACTIVATION, MATCHER_KIND_TRAINING };

/* Guess the kind from the first bytes of a log (pass up to 64 KiB; BOM,
 * CRLF and ANSI colours tolerated).  UNKNOWN when neither is recognised. */
enum matcher_kind matcher_detect_kind(const char *data, size_t n);
const char *matcher_kind_name(enum matcher_kind k); /* "activation", "training", "unknown" */

#endif
