/* trainsrc.h - the sources of a training run behind one interface:
 * stdout logs (trainlog.h), TensorBoard event files (tfevents.h), golden
 * loss files (lossfile.h) and the formats of issue 27 (trainsrc.c's
 * table).  Detection by content, one push parser
 * that forwards to the right one, and the names used in the API, the
 * database and the pages.  All three emit the same step records and
 * warnings, so everything downstream (spooling, storage, struct
 * matcher_trainrun, the checks) is shared.  No I/O, no globals. */
#ifndef PARITY_TRAINSRC_H
#define PARITY_TRAINSRC_H

#include <stddef.h>

#include "trainlog.h"

enum matcher_source {
	MATCHER_SOURCE_STDOUT = 0, /* printed metric lines */
	MATCHER_SOURCE_TFEVENTS,   /* events.out.tfevents.* */
	MATCHER_SOURCE_LOSSFILE,   /* golden `step value` file */
	/* Issue 27 (rows in trainsrc.c's table as their parsers land): */
	MATCHER_SOURCE_MEGATRON,       /* Megatron-LM golden_values_*.json */
	MATCHER_SOURCE_NVDLFW_INSPECT, /* NVIDIA DL Framework Inspect statistics log */
	MATCHER_SOURCE_MLLOG,          /* MLPerf `:::MLLOG {json}` lines */
	/* Activation sources: names only (trainsrc.c's ACT_SOURCES; their
	 * parser is actlog.h's, which hands a dump to msprobe.h): */
	MATCHER_SOURCE_MSPROBE = 100 /* Ascend msprobe dump.json */
};

/* Which source do the first bytes of a training run come from?  An
 * event file is recognised by its first record header (CRC-checked), a
 * loss file by its lines (lossfile.h), an MLLOG file by a `:::MLLOG {...}`
 * event line before any stdout metric line (mllog.h); anything else is stdout.
 * Pure. */
enum matcher_source matcher_detect_source(const char *data, size_t n);
/* "stdout", "tfevents", "lossfile", ...: the table's name; and back (-1
 * for an unknown name or a source without a parser yet). */
const char *matcher_source_name(enum matcher_source s);
int matcher_source_from_name(const char *name, enum matcher_source *out);
/* "printed", "decimal", "float32", "float64" (enum matcher_precision). */
const char *matcher_precision_name(int prec);

struct matcher_trainsrc;

/* New parser of source src.  rank: the records' rank for event and loss
 * files (a stdout log carries its own).  max_line: the stdout / loss-file
 * line limit, 0 = default (event files use their own record limit).
 * Owned by the caller (matcher_trainsrc_free).  NULL on OOM. */
struct matcher_trainsrc *matcher_trainsrc_new(enum matcher_source src,
                                              const struct matcher_trainlog_callbacks *cb, int rank,
                                              size_t max_line);
int matcher_trainsrc_feed(struct matcher_trainsrc *s, const char *data, size_t n);
/* End of input.  *out gets the summary in trainlog terms (an event file's
 * n_lines = its record count). */
int matcher_trainsrc_finish(struct matcher_trainsrc *s, struct matcher_trainlog_summary *out);
const struct matcher_error *matcher_trainsrc_error(const struct matcher_trainsrc *s);
enum matcher_source matcher_trainsrc_source(const struct matcher_trainsrc *s);
/* A golden loss file's i-th header `# key: value` (matcher_lossfile_meta),
 * golden values' i-th top-level scalar (matcher_megatron_meta); the
 * an MLLOG file's i-th submission / config key (matcher_mllog_meta); the
 * count, 0 for other sources. */
size_t matcher_trainsrc_meta(const struct matcher_trainsrc *s, size_t i, const char **key,
                             const char **value);
void matcher_trainsrc_free(struct matcher_trainsrc *s);

#endif
