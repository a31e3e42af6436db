/* mllog.h - MLPerf MLLOG files as a training-run source: a push parser fed
 * arbitrary chunks that turns `:::MLLOG {json}` lines into step records
 * (precision MATCHER_PREC_DECIMAL) and the run's submission and config
 * keys into meta.  Format and rules: matcher/spec/training-log.md
 * ("MLPerf MLLOG files").
 *
 * A line is an MLLOG line when `:::MLLOG` and then a `{` (blanks between)
 * start within its first MATCHER_MLLOG_PREFIX bytes: whatever comes before
 * is a launcher's prefix (`0: `, `[1,0]<stdout>:`, `[rank0]: `) and is
 * ignored; every other line is ignored too.  The JSON (parsed with jansson,
 * the line at most max_line bytes) is an event: namespace, time_ms,
 * event_type, key, value, metadata.
 *   series: a POINT_IN_TIME event whose value is a number and whose
 *     metadata carries samples_count, epoch_num or step_num: a metric of
 *     the key's name (eval_accuracy, eval_loss, train_accuracy, ...),
 *     except train_loss, the metric `loss`; a `tracked_stats` value object
 *     gives one value per numeric member.  All series share one step
 *     axis, fixed by the first value: the first of samples_count,
 *     epoch_num, step_num it carries as a non-negative integer (samples and
 *     epochs before steps: runs of one benchmark with other batch sizes
 *     still meet at every eval); a later value without that key, or a
 *     value with none of them integral, is skipped with a `skipped_value`
 *     warning.  Steps must not go back; the values of one step (lines in a
 *     row or not) make one record; the same value again at that step is
 *     another rank's copy (counted), a different one a fatal `step_order`
 *     error.
 *   meta: a POINT_IN_TIME event without any of the three step keys whose
 *     value is a string, number, boolean or array (submission_benchmark,
 *     submission_org, ..., global_batch_size, seed, opt_base_learning_rate):
 *     key -> its value as text; the first MATCHER_MLLOG_META keys, the first
 *     occurrence of each; the run_stop event's metadata.status as
 *     `run_stop_status`.
 * Values: jansson reads numbers as doubles; MLLOG is written by Python's
 * json, whose float repr is the shortest text that reads back, so the
 * shortest round-trip text of the double (matcher_format_binary) is the
 * digits the file holds: that text and its decimals are the value, as for
 * a golden loss file.  Python's NaN / Infinity / -Infinity are read as
 * such.  Memory: the current line, the pending step and the meta table.
 * No I/O, no globals. */
#ifndef PARITY_MLLOG_H
#define PARITY_MLLOG_H

#include <stddef.h>

#include "trainlog.h"

#define MATCHER_MLLOG_PREFIX     256 /* `:::MLLOG` must start within these bytes */
#define MATCHER_MLLOG_NAME       48  /* metric and meta key names incl. NUL */
#define MATCHER_MLLOG_METRICS    32  /* values of one step */
#define MATCHER_MLLOG_META       64  /* meta keys kept */
#define MATCHER_MLLOG_META_VALUE 256 /* a kept meta value incl. NUL */

/* Fatal errors (struct matcher_error.code, .line = 1-based line):
 * bad_json (an MLLOG line whose JSON does not parse: line and column),
 * not_mllog_event (JSON that is not an object with a string "key"),
 * step_order (a step below the current one, or a value
 * again at a step with other digits), too_many_metrics, binary_data (a NUL
 * byte), line_too_long (an MLLOG line over max_line; other long lines
 * are skipped), no_values (no series value at all), callback, oom.
 * Warnings (on_warning): skipped_value (a series value without a usable
 * step, or with a name that is not a metric name). */

struct matcher_mllog_parser;

/* New parser.  cb: the trainlog callbacks (on_step gets one record per
 * step, NEW, with that step's values; no validation records).  rank: the
 * records' rank.  max_line: 0 = 64 KiB.  Owned by the caller
 * (matcher_mllog_parser_free).  NULL on OOM. */
struct matcher_mllog_parser *matcher_mllog_parser_new(const struct matcher_trainlog_callbacks *cb,
                                                      int rank, size_t max_line);
/* Feed n bytes (any split).  0, or -1 on a fatal error; after -1 every
 * call returns -1. */
int matcher_mllog_feed(struct matcher_mllog_parser *p, const char *data, size_t n);
/* End of input (a last line without newline counts; the pending step is
 * emitted).  0 and *out filled (n_steps, n_copies, n_lines, n_warnings;
 * n_ranks 1), or -1. */
int matcher_mllog_finish(struct matcher_mllog_parser *p, struct matcher_trainlog_summary *out);
/* The i-th meta key and value (file order), borrowed from p; returns how
 * many there are (i past them: *key and *value untouched). */
size_t matcher_mllog_meta(const struct matcher_mllog_parser *p, size_t i, const char **key,
                          const char **value);
/* The fatal error after a -1, else NULL.  Borrowed from p. */
const struct matcher_error *matcher_mllog_error(const struct matcher_mllog_parser *p);
void matcher_mllog_parser_free(struct matcher_mllog_parser *p);

/* Is s[0..n) (one line, no newline) an MLLOG line?  1 and *json_at = the
 * offset of its `{`, else 0.  Pure. */
int matcher_mllog_line(const char *s, size_t n, size_t *json_at);

/* Does s[0..n) look like an MLLOG event: an MLLOG line whose JSON ends
 * the line with `}` and has a "key" member (what detection asks, so that
 * text merely naming `:::MLLOG {json}` is no MLLOG file)?  Pure, no
 * parsing. */
int matcher_mllog_event_line(const char *s, size_t n);

/* Do the first bytes look like an MLLOG file: is there a whole MLLOG event
 * line (matcher_mllog_event_line) before any line with both `step:` and
 * `loss:` (a stdout log that also prints MLLOG events stays a stdout
 * log)?  Pure. */
int matcher_mllog_detect(const char *data, size_t n);

#endif
