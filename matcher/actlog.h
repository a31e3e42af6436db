/* actlog.h - the activation log (per-op numerics capture): entries, the
 * streaming push parser, and the in-memory log the matcher works on.
 *
 * Format contract: matcher/spec/activation-log.md.  The parser is fed
 * arbitrary chunks (1 byte or 1 MiB: same result) and only ever holds the
 * current line and the current block; each finished block is handed to a
 * callback, so a 300 MB upload streams into the store in bounded memory.
 * struct matcher_actlog is the collected, in-memory form (CLI, jobs).
 * A log whose first non-blank byte is `{` is an Ascend msprobe dump.json:
 * the parser hands it to msprobe.h's parser (same callbacks and errors).
 * No I/O, no globals; not thread-safe per object, fine across objects. */
#ifndef PARITY_ACTLOG_H
#define PARITY_ACTLOG_H

#include <stddef.h>

#include "buf.h"

enum matcher_phase { MATCHER_FORWARD = 0, MATCHER_BACKWARD = 1 };

/* Stat lines, in display order.  Names as printed in the log and used as
 * JSON keys: "Shape", "L1 norm", "L2 norm", "Min", "Max", "Mean". */
enum matcher_stat {
	MATCHER_STAT_SHAPE = 0,
	MATCHER_STAT_L1,
	MATCHER_STAT_L2,
	MATCHER_STAT_MIN,
	MATCHER_STAT_MAX,
	MATCHER_STAT_MEAN,
	MATCHER_N_STATS
};
extern const char *const matcher_stat_names[MATCHER_N_STATS];

/* One op block.  All strings are NUL-terminated; NULL means the line was
 * absent (an empty value after the field name is "" , not NULL). */
struct matcher_entry {
	const char *key;                    /* never NULL */
	const char *stats[MATCHER_N_STATS]; /* exact value text, trimmed */
	double stat_num[MATCHER_N_STATS];   /* parsed value when bit set below */
	unsigned stat_isnum;                /* bit i: stats[i] parsed as a number
	                                       (nan/inf/-inf count as numbers);
	                                       never set for Shape */
	const char *output_hash;            /* "v1, v2" text */
	const char *input_hashes;
	const char *input_producers; /* "k1;k2" text */
	const char *location;
	enum matcher_phase phase; /* "Phase: backward" -> BACKWARD */
	const char *phase_text;   /* the Phase: value as printed; NULL when absent
	                             (not kept by the store: an unknown value
	                             is kept as its unknown_phase warning) */
	unsigned long line;       /* 1-based line of the [key] line */
	size_t order;             /* 0-based index in file order */
};

/* Header lines before the first block. */
struct matcher_actlog_header {
	long total;           /* "Total captured activations: N"; -1 absent */
	int has_excluded;     /* 1 when an "Excluded ops dispatched:" line was seen */
	const char *excluded; /* its value text ("(none)" kept as is); NULL if absent */
};

/* A non-fatal oddity, reported with the line it applies to.  Codes:
 *   unknown_line      unrecognised line inside or outside a block
 *   unclosed_key      a '[' line without a closing ']' (block ignored)
 *   bad_number        a stat value that is not a number (kept as text)
 *   duplicate_key     a key seen before in this log (both kept)
 *   count_mismatch    header total != number of blocks (fewer: truncated)
 *   no_header         blocks without a "Total captured activations" line
 *   unknown_phase     a Phase: value other than forward/backward (matched
 *                     as forward; the text is in the entry and excerpt)
 *   empty_key         a "[]" block key (the block is kept, key "")
 * The parser emits at most MATCHER_MAX_WARNINGS_PER_CODE of each code and
 * counts the rest (struct matcher_actlog_summary.n_warnings). */
struct matcher_warning {
	const char *code;    /* static string */
	unsigned long line;  /* 0 when it applies to the whole file */
	const char *message; /* human sentence; valid during the callback */
	const char *excerpt; /* the offending line, cut to 200 bytes; may be "" */
};
#define MATCHER_MAX_WARNINGS_PER_CODE 100

/* A fatal input error: the log is refused (upload -> 4xx, CLI -> exit 2). */
struct matcher_error {
	const char *code;   /* "binary_data", "line_too_long",
	                       "not_activation_log", "callback", "oom" */
	unsigned long line; /* 0 when not tied to a line */
	char message[256];
};

/* The parsers' one way to fail: unless *dead is already set (the first
 * error stands), set it and fill *e with code, line and the formatted
 * message (cut to its size).  Always returns -1, so a parser writes
 * `return matcher_error_fail(...)`. */
int matcher_error_fail(struct matcher_error *e, int *dead, const char *code, unsigned long line,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Callbacks; any may be NULL.  Pointers passed in are valid only during the
 * call (copy what you keep).  A callback returning non-zero stops parsing:
 * feed/finish then return -1 with error code "callback". */
struct matcher_actlog_callbacks {
	void *ctx;
	/* Called once, before the first entry (or from finish when no block). */
	int (*on_header)(void *ctx, const struct matcher_actlog_header *h);
	int (*on_entry)(void *ctx, const struct matcher_entry *e);
	int (*on_warning)(void *ctx, const struct matcher_warning *w);
};

struct matcher_actlog_summary {
	size_t n_entries;
	unsigned long n_lines;
	unsigned long n_unrecognised; /* unknown lines counted */
	size_t n_warnings;            /* all warnings, including unreported */
	long header_total;            /* -1 absent */
};

struct matcher_actlog_parser;

/* Default limit on one line: 16 MiB. */
#define MATCHER_MAX_LINE_DEFAULT (16u << 20)

/* New parser (callbacks copied).  max_line 0 = default.  NULL on OOM. */
struct matcher_actlog_parser *matcher_actlog_parser_new(const struct matcher_actlog_callbacks *cb,
                                                        size_t max_line);
/* Feed the next chunk.  0, or -1 on a fatal error (see _error); after an
 * error every further call returns -1. */
int matcher_actlog_feed(struct matcher_actlog_parser *p, const char *data, size_t n);
/* End of input: flushes the last line/block, checks the header count,
 * fills *out (may be NULL).  0 or -1 (e.g. not_activation_log). */
int matcher_actlog_finish(struct matcher_actlog_parser *p, struct matcher_actlog_summary *out);
/* The fatal error after a -1; borrowed from p. */
const struct matcher_error *matcher_actlog_error(const struct matcher_actlog_parser *p);
void matcher_actlog_parser_free(struct matcher_actlog_parser *p);

/* ---- the collected log ------------------------------------------------ */

struct matcher_actlog {
	struct matcher_entry *entries; /* file order; strings in arena */
	size_t n_entries;
	size_t cap_entries;
	long header_total; /* -1 absent */
	int has_excluded;
	char **excluded; /* excluded op names, sorted, unique;
	                    "(none)" gives 0 names */
	size_t n_excluded;
	struct matcher_warning *warnings; /* copies (strings in arena) */
	size_t n_warnings;
	size_t cap_warnings;
	struct matcher_actlog_summary summary;
	struct arena arena;
};

/* Empty log (header_total -1).  Owned by the caller: matcher_actlog_free. */
struct matcher_actlog *matcher_actlog_new(void);
void matcher_actlog_free(struct matcher_actlog *log);
/* Append a copy of e (strings copied into the log's arena; order and line
 * kept as given).  0 or -1 on OOM.  Used by the collector and by store/
 * when it rebuilds a log from the database. */
int matcher_actlog_add_entry(struct matcher_actlog *log, const struct matcher_entry *e);
int matcher_actlog_add_warning(struct matcher_actlog *log, const struct matcher_warning *w);
/* Set header fields; parses the excluded-ops text ("a, b" or "(none)"). */
int matcher_actlog_set_header(struct matcher_actlog *log, const struct matcher_actlog_header *h);

/* Callbacks that collect into `log` (ctx = log). */
struct matcher_actlog_callbacks matcher_actlog_collector(struct matcher_actlog *log);

/* Parse a whole buffer into a new log.  0 and *out set, or -1 with *err
 * filled (and *out NULL). */
int matcher_actlog_parse_buffer(const char *data, size_t n, struct matcher_actlog **out,
                                struct matcher_error *err);

/* Number parsing shared by both formats: optional sign, digits, optional
 * fraction and exponent, or nan/inf/-inf (any case); surrounding blanks
 * allowed.  1 and *out set, or 0 when the text is not exactly a number. */
int matcher_parse_number(const char *s, size_t n, double *out);

#endif
