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
 * the first value names another.  Steps must increase.  Anything else is a
 * fatal error naming the line.  Memory: the current line (at most
 * max_line bytes).  No I/O, no globals. */
#ifndef PARITY_LOSSFILE_H
#define PARITY_LOSSFILE_H

#include <stddef.h>

#include "trainlog.h"

#define MATCHER_LOSSFILE_NAME 48 /* metric name incl. NUL */

/* Fatal errors (struct matcher_error.code, .line = 1-based line):
 * not_loss_file (a line that is not `STEP VALUE`), step_order (a step not
 * above the previous one), bad_metric (a `# metric:` name that is empty,
 * too long or after the first value), binary_data (a NUL byte),
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
/* The fatal error after a -1, else NULL.  Borrowed from p. */
const struct matcher_error *matcher_lossfile_error(const struct matcher_lossfile_parser *p);
void matcher_lossfile_parser_free(struct matcher_lossfile_parser *p);

/* Do the first bytes look like a golden loss file: is the first line that
 * is neither blank nor a `#` comment a `STEP VALUE` line?  (A partial last
 * line is not judged; a bad line further on is the parser's error, with
 * its line number.)  Pure. */
int matcher_lossfile_detect(const char *data, size_t n);

#endif
