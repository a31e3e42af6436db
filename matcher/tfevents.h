/* tfevents.h - TensorBoard event files (events.out.tfevents.*) as a
 * training-run source: a push parser fed arbitrary chunks that emits the
 * same step records as the stdout parser (trainlog.h), with full-precision
 * values.
 *
 * Framing (TFRecord): each record is a little-endian uint64 length, the
 * masked CRC32C of those 8 bytes, `length` data bytes and the masked
 * CRC32C of the data.  Both CRCs are verified; a mismatch is a fatal
 * error naming the record's byte offset.  A final record cut short (a
 * writer that crashed) is a `truncated_record` warning.  The data is an
 * `Event` protocol buffer (decoded by protobuf-c, matcher/proto/
 * tfevents.proto); every `Summary.Value` holding a scalar becomes a metric
 * of the event's step: `simple_value` (float32), or a tensor of dtype
 * DT_FLOAT / DT_DOUBLE with one element in float_val / double_val or a
 * 4/8-byte tensor_content.  Other values (histograms, images, text) are
 * counted and skipped.  Tag `loss_metrics/global_avg_loss` is the metric
 * `loss`; every other tag is its own metric name.
 *
 * Consecutive events of one step are grouped into one record (TensorBoard
 * writes one event per add_scalar call).  A step seen before is a
 * REPLACE with a `duplicate_step` warning; a step lower than the highest
 * one seen that is new is a `step_backwards` warning.  Memory: the current
 * record (at most max_record bytes; larger records are CRC-checked while
 * streaming and skipped) plus 8 bytes per distinct step.  No I/O, no
 * globals; one parser per thread. */
#ifndef PARITY_TFEVENTS_H
#define PARITY_TFEVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "trainlog.h"

#define MATCHER_TFEVENTS_MAX_RECORD (16u << 20) /* default max_record */
#define MATCHER_TFEVENTS_MAX_TAGS   256         /* distinct tags in one step */
#define MATCHER_TFEVENTS_LOSS_TAG   "loss_metrics/global_avg_loss"

/* Fatal errors (struct matcher_error.code, line = 0, message names the
 * byte offset of the record): bad_crc (length or data CRC), bad_event (the
 * data is not an Event protocol buffer), too_many_tags, not_event_file
 * (no scalar value at all), callback, oom.  Warnings: truncated_record,
 * duplicate_step, step_backwards (warning .line = the 1-based record
 * number; the message names the byte offset). */

struct matcher_tfevents_summary {
	uint64_t bytes;    /* fed */
	size_t n_records;  /* complete, verified records */
	size_t n_events;   /* records that decoded as an Event with a summary */
	size_t n_scalars;  /* scalar values read */
	size_t n_skipped;  /* non-scalar values and oversized records */
	size_t n_steps;    /* distinct steps (records of kind NEW) */
	size_t n_warnings; /* all warnings */
	int has_double;    /* a DT_DOUBLE tensor was read */
	double first_wall_time, last_wall_time; /* 0 when no event */
};

struct matcher_tfevents_parser;

/* New parser.  cb: the trainlog callbacks (records and warnings; pointers
 * valid during the call).  rank: the records' rank (event files carry
 * none: the caller numbers files).  max_record: 0 = the default.  Owned by
 * the caller (matcher_tfevents_parser_free).  NULL on OOM. */
struct matcher_tfevents_parser *
matcher_tfevents_parser_new(const struct matcher_trainlog_callbacks *cb, int rank,
                            size_t max_record);
/* Feed n bytes (any split).  0, or -1 on a fatal error (see
 * matcher_tfevents_error); after -1 every call returns -1. */
int matcher_tfevents_feed(struct matcher_tfevents_parser *p, const void *data, size_t n);
/* End of input: emits the last step and the truncated_record warning.
 * 0 and *out filled, or -1. */
int matcher_tfevents_finish(struct matcher_tfevents_parser *p,
                            struct matcher_tfevents_summary *out);
/* The fatal error after a -1, else NULL.  Borrowed from p. */
const struct matcher_error *matcher_tfevents_error(const struct matcher_tfevents_parser *p);
void matcher_tfevents_parser_free(struct matcher_tfevents_parser *p);

/* Does data (the first bytes of a file, n >= 12 to tell) start with a
 * TFRecord header whose length CRC verifies?  Pure. */
int matcher_tfevents_detect(const void *data, size_t n);

/* The metric name of a tag ("loss" for MATCHER_TFEVENTS_LOSS_TAG, else the
 * tag itself).  Pure; returns tag or a static string. */
const char *matcher_tfevents_metric(const char *tag);

/* CRC32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven:
 * crc = matcher_crc32c(0, data, n) for a whole buffer, or chained by
 * passing the previous result.  The TFRecord mask is
 * ((crc >> 15 | crc << 17) + 0xa282ead8).  Pure, thread-safe. */
uint32_t matcher_crc32c(uint32_t crc, const void *data, size_t n);
uint32_t matcher_crc32c_mask(uint32_t crc);

/* Shortest decimal text that reads back to the same float (f32 = 1) or
 * double (f32 = 0): "10.812345", "nan", "inf", "-inf".  Pure. */
void matcher_format_binary(double v, int f32, char *out, size_t cap);

#endif
