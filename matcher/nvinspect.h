/* nvinspect.h - NVIDIA DL Framework Inspect statistics logs as a
 * training-run source: a push parser fed arbitrary chunks that emits one
 * step record per iteration holding every series logged at it.
 *
 * Format (nvdlfw_inspect_statistics_logs/nvdlfw_inspect_globalrank-N.log,
 * written by nvidia-dlfw-inspect's statistics logger for Transformer
 * Engine's LogTensorStats / LogFp8TensorStats features; spec:
 * matcher/spec/nvinspect.md): one value per line,
 *
 *   [<YYYY-MM-DD HH:MM:SS,mmm> - ]<LEVEL> - <series> iteration=NNNNNN value=X.XXXX
 *
 * fields separated by spaces and tabs; <series> is
 * `<layer>_<tensor>_<stat>` (matcher_nvinspect_split) in printable ASCII, the value printed
 * with 4 decimals (f"{value:.4f}": nan / inf possible).  Each series is a
 * metric named by the whole <series> text, with printed precision (its
 * decimals are its resolution).  Lines of one iteration are consecutive;
 * they are buffered and handed on as one record (step = iteration) when
 * the next iteration starts or the input ends, so iterations arrive in
 * file order with all their series.  Blank lines, `#` comment lines, a
 * UTF-8 BOM, CRLF and other logger lines without ` iteration=` (a
 * `LEVEL - message` line) are tolerated.  Memory: the current line and one
 * iteration's values (at most max_series of them).  No I/O, no globals. */
#ifndef PARITY_NVINSPECT_H
#define PARITY_NVINSPECT_H

#include <stddef.h>

#include "trainlog.h"

#define MATCHER_NVINSPECT_NAME       128  /* series name incl. NUL (MATCHER_TRAIN_NAME) */
#define MATCHER_NVINSPECT_MAX_SERIES 4096 /* default: values in one iteration */

/* Fatal errors (struct matcher_error.code, .line = 1-based line):
 * not_nvinspect_log (a line that is not a logger line `LEVEL - ...`, or a
 * line with ` iteration=` that is not `<series> iteration=N value=X`),
 * step_order (an iteration below the previous one), duplicate_value (a
 * series twice in one iteration), too_many_series (more than max_series
 * values in one iteration), binary_data (a NUL byte), line_too_long,
 * no_values (no statistics line at all), callback, oom. */

struct matcher_nvinspect_parser;

/* New parser.  cb: the trainlog callbacks (on_step gets one NEW record
 * per iteration, its metrics in file order; on_warning is never called).
 * rank: the records' rank.  max_line: 0 = 64 KiB.  The series limit per
 * iteration is MATCHER_NVINSPECT_MAX_SERIES (matcher_nvinspect_set_limit).
 * Owned by the caller (matcher_nvinspect_parser_free).  NULL on OOM. */
struct matcher_nvinspect_parser *
matcher_nvinspect_parser_new(const struct matcher_trainlog_callbacks *cb, int rank,
                             size_t max_line);
/* Change the per-iteration series limit (before the first feed; 0 =
 * default). */
void matcher_nvinspect_set_limit(struct matcher_nvinspect_parser *p, size_t max_series);
/* Feed n bytes (any split).  0, or -1 on a fatal error; after -1 every
 * call returns -1. */
int matcher_nvinspect_feed(struct matcher_nvinspect_parser *p, const char *data, size_t n);
/* End of input (a last line without newline counts; the last iteration
 * is handed on).  0 and *out filled (n_steps = iterations, n_lines;
 * n_ranks 1), or -1. */
int matcher_nvinspect_finish(struct matcher_nvinspect_parser *p,
                             struct matcher_trainlog_summary *out);
/* The fatal error after a -1, else NULL.  Borrowed from p. */
const struct matcher_error *matcher_nvinspect_error(const struct matcher_nvinspect_parser *p);
/* Distinct series seen so far (all iterations; counted, not kept: the
 * largest per-iteration count). */
size_t matcher_nvinspect_series_count(const struct matcher_nvinspect_parser *p);
void matcher_nvinspect_parser_free(struct matcher_nvinspect_parser *p);

/* Do the first bytes look like a statistics log: is the first line that
 * is neither blank, a `#` comment nor another logger message (`LEVEL -
 * text` without ` iteration=`) a statistics line?  (A partial last line is
 * not judged.)  Pure. */
int matcher_nvinspect_detect(const char *data, size_t n);

/* The rank in a statistics log's path: N of `...globalrank-N.log`
 * (the last path component), else -1.  Pure. */
int matcher_nvinspect_rank_of_path(const char *path);

/* Split a series name `<layer>_<tensor>_<stat>`: the tensor is the LAST
 * `_<tensor>_` whose <tensor> is one of activation, gradient, weight,
 * output, wgrad, dgrad (the roles Transformer Engine logs; layer names may
 * hold '.', '_' and even these words, stat names never do); the layer is
 * what precedes it, the stat what follows (`max`, `l1_norm`,
 * `fp8_delayed_scaling_underflows%`, `mxfp8_mse_columnwise`).  1 with
 * [0, *layer_len) the layer, *tensor / *tensor_len and *stat (the rest of
 * name, NUL-terminated) set; 0 when no such role is in the name (then
 * *layer_len = strlen(name), *tensor_len 0 and *stat "").  Pure. */
int matcher_nvinspect_split(const char *name, size_t *layer_len, const char **tensor,
                            size_t *tensor_len, const char **stat);

#endif
