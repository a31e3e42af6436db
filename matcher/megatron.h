/* megatron.h - Megatron-LM golden values as a training-run source: a
 * push parser with lossfile.h's shape that buffers the file (JSON has no
 * line structure to stream), reads it with jansson at the end and emits
 * one step record per step, every metric of that step in it, with the
 * values' decimal text (precision MATCHER_PREC_DECIMAL).
 *
 * Format (matcher/spec/megatron.md; in Megatron-LM, its functional tests'
 * test_cases/{model}/{test}/golden_values_{dev|lts}_{platform}[_2nd].json):
 * a JSON object, metric name -> {"start_step", "end_step",
 * "step_interval", "values"}; values either an object "<step>": number |
 * "nan" (steps increasing, the first = start_step, the last = end_step,
 * all within them) or, in the older form, a list whose i-th value is step
 * start_step + i * step_interval (at most (end - start) / interval + 1
 * values).  A top-level number, string or boolean (the older files'
 * "iteration_timing_avg") is the file's meta (matcher_megatron_meta).
 * Metric names: "lm loss" is `loss`; every other name keeps its letters,
 * digits and `_ . / -`, any other byte becomes `_` ("mtp_1 loss" ->
 * `mtp_1_loss`, "num-zeros" stays); two names that become one are an
 * error.  Strings "nan" / "inf" / "-inf" (any case) are NaN / Inf.
 *
 * Memory: the whole file, at most MATCHER_MEGATRON_MAX_BYTES (named in
 * the error), then jansson's tree: at worst about 13 times the file (a
 * 15 MiB file of 1.4M one-digit values peaks at 210 MB; Megatron's own
 * files are under 1 MiB).  No I/O, no globals. */
#ifndef PARITY_MEGATRON_H
#define PARITY_MEGATRON_H

#include <stddef.h>

#include "trainlog.h"

#define MATCHER_MEGATRON_MAX_BYTES  (16u << 20) /* 16 MiB */
#define MATCHER_MEGATRON_METRICS    64          /* metrics in one file */
#define MATCHER_MEGATRON_NAME       48          /* a metric's name incl. NUL */
#define MATCHER_MEGATRON_META       16          /* top-level scalars kept */
#define MATCHER_MEGATRON_META_VALUE 256         /* a kept value incl. NUL */

/* Fatal errors (struct matcher_error.code; .line = jansson's line for a
 * syntax error, else 0; the message names the JSON key):
 * too_large (over the byte cap), json_syntax (jansson's text, line and
 * column), not_megatron (the root is not an object; a top-level value
 * that is neither a metric object nor a scalar), no_metrics (an empty
 * file, `{}`, or no metric object: nothing to compare), bad_metric (a
 * metric without values or with empty values, start_step / end_step /
 * step_interval missing, not integers or inconsistent with the values,
 * a step key that is not an integer, two names sanitized into one, more
 * than MATCHER_MEGATRON_METRICS metrics), bad_value (a value that is
 * neither a number nor a nan/inf string), step_order (a step key not
 * above the previous one), callback, oom. */

struct matcher_megatron_parser;

/* New parser.  cb: the trainlog callbacks (on_step gets one NEW record
 * per step, steps increasing, the metrics in file order; on_warning is
 * never called).  rank: the records' rank.  max_line: unused (the shape
 * of lossfile.h).  Owned by the caller (matcher_megatron_parser_free).
 * NULL on OOM. */
struct matcher_megatron_parser *
matcher_megatron_parser_new(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line);
/* Feed n bytes (any split; buffered).  0, or -1 on a fatal error (over
 * the byte cap); after -1 every call returns -1. */
int matcher_megatron_feed(struct matcher_megatron_parser *p, const char *data, size_t n);
/* End of input: parse and emit the records.  0 and *out filled (n_steps
 * distinct steps, n_lines the file's lines, n_ranks 1), or -1. */
int matcher_megatron_finish(struct matcher_megatron_parser *p,
                            struct matcher_trainlog_summary *out);
/* The i-th top-level scalar (key, value text), borrowed from p; returns
 * how many there are (i past them: *key and *value untouched). */
size_t matcher_megatron_meta(const struct matcher_megatron_parser *p, size_t i, const char **key,
                             const char **value);
/* The fatal error after a -1, else NULL.  Borrowed from p. */
const struct matcher_error *matcher_megatron_error(const struct matcher_megatron_parser *p);
void matcher_megatron_parser_free(struct matcher_megatron_parser *p);

/* Do the first bytes look like golden values: a JSON object whose first
 * member's value is an object whose first key is start_step, end_step,
 * step_interval or values; or exactly `{}` (so that its upload is
 * refused as "nothing to compare").  Needs the first few hundred bytes;
 * other JSON is not claimed.  Pure. */
int matcher_megatron_detect(const char *data, size_t n);

/* The metric name of a Megatron series into out (cap >= 2): "lm loss" ->
 * "loss", other bytes than letters, digits and `_ . / -` -> '_', cut to
 * cap - 1 bytes.  Pure. */
void matcher_megatron_metric(const char *key, char *out, size_t cap);

/* v as Python's repr writes a float (shortest round trip; fixed notation
 * with at least one decimal for 1e-4 <= |v| < 1e16, else d.ddde+XX):
 * "10.85678", "1654.0", "1e-05", "nan", "inf".  Pure. */
void matcher_format_pyfloat(double v, char *out, size_t cap);

#endif
