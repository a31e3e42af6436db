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
#include <stdint.h>

#include "buf.h"
#include "idset.h"
#include "strmap.h"

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

/* The collected log keeps each op as a compact record, not as a struct
 * matcher_entry (whose pointers and copies cost ~450 bytes an op; a record
 * costs 56 bytes and its share of two pools).  Every text of an entry is
 * kept exactly and re-derived on demand (matcher_actlog_entry):
 *  - a key is split after its last '/' into a module prefix and an op
 *    name, each interned (one copy per distinct string);
 *  - Shape, Location and Phase texts are interned;
 *  - a stat value printed like "%.6e" (sign, 1+6 digits, exponent -64..63
 *    with two digits) is packed into 32 bits (its flag bit set); any
 *    other text (nan, "3.1e+01", ...) is interned;
 *  - Output hash and Input hashes are lists of such numbers separated by
 *    ", " (flag bit set): one number is packed in the field itself, two or
 *    more are an offset into the list pool (MATCHER_REC_POOLED set),
 *    holding the count then the packed items; any other text is interned;
 *  - Input producers is a list of interned key prefix / op name pairs;
 *  - an entry's order (its index in the file) is its record's index; a
 *    log whose entries come with other orders keeps them in `orders`.
 * So one text always takes one form, and equal texts have equal forms.
 * Numbers are not stored: a packed value is read on the parser's exact
 * fast path, any other text is parsed again (the same parse, so the same
 * values). */
#define MATCHER_REC_NONE 0xFFFFFFFFu /* absent field */

enum matcher_rec_field {
	MATCHER_REC_OUTHASH = MATCHER_N_STATS, /* after the six stats */
	MATCHER_REC_INHASH,
	MATCHER_REC_LOCATION,
	MATCHER_REC_PHASE,
	MATCHER_REC_N_FIELDS
};

struct matcher_rec {
	uint32_t key_pre, key_op;             /* interned; key = pre + op */
	uint32_t field[MATCHER_REC_N_FIELDS]; /* stats (by enum matcher_stat),
	                                         then the fields above */
	uint32_t producers;                   /* list pool offset or NONE */
	uint32_t line;
	uint32_t flags; /* bit i (< MATCHER_REC_N_FIELDS): field i is packed
	                   (stats, hashes); MATCHER_REC_POOLED(f) for a hash
	                   list in the pool; MATCHER_REC_BACKWARD */
};
#define MATCHER_REC_POOLED(f) (1u << (16 + (f)))

/* The text of field f (enum matcher_stat or matcher_rec_field) of e. */
static inline const char *matcher_entry_field_text(const struct matcher_entry *e, int f)
{
	switch (f) {
	case MATCHER_REC_OUTHASH: return e->output_hash;
	case MATCHER_REC_INHASH: return e->input_hashes;
	case MATCHER_REC_LOCATION: return e->location;
	case MATCHER_REC_PHASE: return e->phase_text;
	default: return e->stats[f];
	}
}
#define MATCHER_REC_BACKWARD (1u << 31)

/* Interned strings: id -> NUL-terminated text (in the table's arena). */
struct matcher_strtab {
	const char **str;
	uint32_t *len;
	size_t n, cap;
	struct matcher_idset map;    /* the texts below, by text */
	struct matcher_idset map_op; /* op names (after a key's last '/'),
	                                 Shape, Location and Phase texts: a few
	                                 hundred, so a small table that stays
	                                 in cache */
	struct arena text;
};

struct matcher_actlog {
	struct matcher_rec *recs; /* file order */
	size_t n_entries;
	size_t cap_entries;
	uint32_t *orders; /* entry orders, when one differs from its index
	                     (NULL: order = index), cap_entries of them */
	struct matcher_strtab strs;
	uint32_t *lists; /* list pool */
	size_t n_lists, cap_lists;
	uint32_t hint[MATCHER_REC_N_FIELDS + 6]; /* last id per field, key part,
	                                            previous key part and
	                                            producer part: neighbours
	                                            share most texts */
	uint32_t recent_pre[64];                 /* key prefixes seen lately, by a hash of their
	                                            length and last bytes (ids, or NONE) */
	long header_total;                       /* -1 absent */
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

/* An entry re-derived from its record: e's strings point into text.  Init
 * once, reuse for many entries (no allocation once text has grown), free
 * once. */
struct matcher_entry_view {
	struct matcher_entry e;
	struct buf text;
};
void matcher_entry_view_init(struct matcher_entry_view *v);
void matcher_entry_view_free(struct matcher_entry_view *v);
/* Entry i of log, as the parser handed it over (same texts, numbers,
 * line, order).  &v->e, or NULL on OOM. */
const struct matcher_entry *matcher_actlog_entry(const struct matcher_actlog *log, size_t i,
                                                 struct matcher_entry_view *v);
/* Append entry i's key to out (not cleared).  0 or -1 on OOM. */
int matcher_actlog_key(const struct matcher_actlog *log, size_t i, struct buf *out);
/* Append the text of field f (enum matcher_stat or matcher_rec_field) of
 * entry i to out (not cleared); 0 when present, 1 when absent (nothing
 * appended), -1 on OOM. */
int matcher_actlog_field(const struct matcher_actlog *log, size_t i, int f, struct buf *out);
/* 1 when field f of entry i of a and of entry j of b has the same text and
 * that text is present and not empty, else 0 (absent, empty or different
 * texts: the caller compares the texts).  Exact without re-deriving: a
 * text always takes the same form (packed number, packed list or
 * interned), so equal texts have equal forms and equal contents. */
int matcher_actlog_same_field(const struct matcher_actlog *a, size_t i,
                              const struct matcher_actlog *b, size_t j, int f);
/* The phase of entry i. */
enum matcher_phase matcher_actlog_phase(const struct matcher_actlog *log, size_t i);
/* The log is complete for now: drop the interning map and spare capacity
 * (~40 bytes an op).  Adding later still works (the map is rebuilt). */
void matcher_actlog_seal(struct matcher_actlog *log);
/* Bytes held by the log (records, pools, tables), for benchmarks. */
size_t matcher_actlog_bytes(const struct matcher_actlog *log);

/* Empty log (header_total -1).  Owned by the caller: matcher_actlog_free. */
struct matcher_actlog *matcher_actlog_new(void);
void matcher_actlog_free(struct matcher_actlog *log);
/* Append a copy of e as a record (order and line kept as given; both must
 * fit 32 bits).  0 or -1 on OOM / overflow.  Used by the collector and by store/
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
