/* lossfile.h - golden loss files as a training-run source: a push parser
 * fed arbitrary chunks that emits one step record per value line, with the
 * value's full decimal text (precision MATCHER_PREC_DECIMAL).
 *
 * Format (TorchTitan's golden loss files (its tests' assets/losses/), and what `parity export
 * --format losses` writes): one `STEP VALUE` per line, separated by spaces
 * or tabs; STEP a non-negative integer, VALUE a decimal number (sign,
 * fraction, exponent; nan / inf / -inf), as Python's repr prints a float.
 * Blank lines, lines starting with `#`, a UTF-8 BOM and CRLF line ends are
 * tolerated.  The metric is `loss` unless a `# metric: NAME` line before
 * the first value names another.  TorchTitan's newer golden files carry
 * several metrics: a `# step NAME1 NAME2 ...` line before the first value
 * names the columns, and every value line then has STEP and one value per
 * column (`# step loss grad_norm`, then `1 8.02396965 1.59952199`); their
 * other header lines `# key: value` (`# config: ...`, `# ngpu: 8`,
 * `# parallelism: ...`) are the file's meta (matcher_lossfile_meta).
 * Steps must increase.  Anything else is a
 * fatal error naming the line.  Memory: the current line (at most
 * max_line bytes).  No I/O, no globals. */
#ifndef PARITY_LOSSFILE_H
#define PARITY_LOSSFILE_H

#include <stddef.h>

#include "trainlog.h"

#define MATCHER_LOSSFILE_NAME       48  /* metric name incl. NUL */
#define MATCHER_LOSSFILE_COLS       16  /* value columns of a `# step ...` header */
#define MATCHER_LOSSFILE_META       16  /* `# key: value` header lines kept */
#define MATCHER_LOSSFILE_META_VALUE 256 /* a kept value incl. NUL */

/* Fatal errors (struct matcher_error.code, .line = 1-based line):
 * not_loss_file (a line that is not `STEP VALUE`, or whose number of
 * values differs from the `# step ...` header's columns), step_order (a step not
 * above the previous one), bad_metric (a `# metric:` name that is empty,
 * too long or after the first value; a `# step ...` column named twice or
 * not a name), binary_data (a NUL byte),
 * line_too_long, no_values (no value line at all), callback, oom. */

struct matcher_lossfile_parser;

/* New parser.  cb: the trainlog callbacks (on_step gets one record per
 * value line: NEW, one metric; on_warning is never called).  rank: the
 * records' rank.  max_line: 0 = 64 KiB.  Owned by the
 * caller (matcher_lossfile_parser_free).  NULL on OOM. */
struct matcher_lossfile_parser *
matcher_lossfile_parser_new(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line);
/* Feed n bytes (any split).  0, or -1 on a fatal error; after -1 every
 * call returns -1. */
int matcher_lossfile_feed(struct matcher_lossfile_parser *p, const char *data, size_t n);
/* End of input (a last line without newline counts).  0 and *out filled
 * (n_steps, n_lines; n_ranks 1), or -1. */
int matcher_lossfile_finish(struct matcher_lossfile_parser *p,
                            struct matcher_trainlog_summary *out);
/* The header's i-th `# key: value` line (before the first value; not
 * `metric:`), *key and *value borrowed from p; returns how many there are
 * (i past them: *key and *value untouched). */
size_t matcher_lossfile_meta(const struct matcher_lossfile_parser *p, size_t i, const char **key,
                             const char **value);
/* The fatal error after a -1, else NULL.  Borrowed from p. */
const struct matcher_error *matcher_lossfile_error(const struct matcher_lossfile_parser *p);
void matcher_lossfile_parser_free(struct matcher_lossfile_parser *p);

/* Do the first bytes look like a golden loss file: is the first line that
 * is neither blank nor a `#` comment a `STEP VALUE` line?  (A partial last
 * line is not judged; a bad line further on is the parser's error, with
 * its line number.)  Pure. */
int matcher_lossfile_detect(const char *data, size_t n);

#endif
