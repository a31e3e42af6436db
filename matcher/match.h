/* match.h - pairing the ops of two activation logs (one rank each) into
 * ordered rows, with statuses, distances and the summary users read first.
 *
 * Contract: matcher/spec/matching.md, row for row: the four passes
 * (manual override, exact key after the root-class strip, fuzzy key with
 * op counters removed, stats signature), the row order (A's file order,
 * then never-claimed B entries), statuses and hash distances.  Our
 * additions: legacy L1-as-hash, inf handling, override-file warnings and
 * unused overrides, first divergence per phase, origin vs propagated.
 * Every pass is linear (hash tables); the inputs are only read.  No I/O,
 * no globals; safe to call from several threads on different inputs. */
#ifndef PARITY_MATCH_H
#define PARITY_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "actlog.h"
#include "buf.h"

/* Row status.  Names (matcher_status_name): "match", "diff", "a_only",
 * "b_only". */
enum matcher_status {
	MATCHER_MATCH = 0,
	MATCHER_DIFF,
	MATCHER_A_ONLY,
	MATCHER_B_ONLY,
	MATCHER_N_STATUS
};

/* How a paired row was found.  Names (matcher_method_name): "override",
 * "exact", "fuzzy", "stats"; MATCHER_METHOD_NONE (only-rows) has no name
 * (NULL, JSON null). */
enum matcher_method {
	MATCHER_METHOD_OVERRIDE = 0,
	MATCHER_METHOD_EXACT,
	MATCHER_METHOD_FUZZY,
	MATCHER_METHOD_STATS,
	MATCHER_N_METHODS,
	MATCHER_METHOD_NONE = MATCHER_N_METHODS
};

/* "No such row" for row indexes (first divergence, ...). */
#define MATCHER_NO_ROW ((size_t)-1)
/* Threshold above which a hash distance makes a paired row a diff. */
#define MATCHER_HASH_EPS 1e-8

struct matcher_row {
	const struct matcher_entry *a; /* borrowed from log A; NULL for b_only */
	const struct matcher_entry *b; /* borrowed from log B; NULL for a_only */
	enum matcher_status status;
	enum matcher_method method;  /* NONE for only-rows */
	enum matcher_phase phase;    /* of a, or of b for b_only */
	int origin;                  /* 1: diff row whose inputs agree */
	int shape_differs;           /* paired rows only */
	double output_hash_distance; /* < 0: no distance (both empty or only-row) */
	double input_hash_distance;  /* < 0: no distance */
	/* Per-stat relative differences for cell colouring, indexed by
	 * enum matcher_stat; < 0 when there is no difference (a side lacks the
	 * stat, or the texts are equal).  In [0, 1]. */
	double stat_diff[MATCHER_N_STATS];
};

/* ---- override file ---------------------------------------------------- */

struct matcher_override {
	const char *a_key; /* trimmed, in the overrides' arena */
	const char *b_key;
	unsigned long line; /* 1-based line the pair came from (the later one) */
};

struct matcher_overrides {
	struct matcher_override *items; /* one per distinct A key, file order of
	                                   first appearance, later line's target */
	size_t n_items;
	struct matcher_warning *warnings; /* code "override_no_comma" (strings in
	                                     arena; message and excerpt set) */
	size_t n_warnings;
	struct arena arena;
};

/* Parse an override file: one `<A key>, <B key>` per line, split at the
 * first comma, both sides trimmed; blank lines and lines whose trimmed text
 * starts with '#' skipped; a line without a comma skipped and reported as a
 * warning with its line number; when an A key repeats, the later line wins.
 * CRLF and a UTF-8 BOM are accepted.  Never fails on content: only -1 on
 * OOM.  *out is owned by the caller (matcher_overrides_free). */
int matcher_overrides_parse(const char *text, size_t n, struct matcher_overrides **out);
void matcher_overrides_free(struct matcher_overrides *ov);

/* ---- the match -------------------------------------------------------- */

/* An override that paired nothing. reason: "a_key_not_found",
 * "b_key_not_found", "b_key_already_paired" (static strings). */
struct matcher_unused_override {
	const char *a_key; /* borrowed from the overrides */
	const char *b_key;
	unsigned long line;
	const char *reason;
};

struct matcher_match_summary {
	size_t n_rows;
	size_t n_status[MATCHER_N_STATUS];
	size_t n_method[MATCHER_N_METHODS];         /* paired rows per method */
	size_t n_phase_status[2][MATCHER_N_STATUS]; /* [phase][status] */
	size_t n_origin;                            /* diff rows that are origins */
	size_t n_propagated;                        /* diff rows whose inputs differ */
	size_t first_divergence[2];                 /* [phase]: first diff row, or MATCHER_NO_ROW */
	double max_hash_distance;                   /* largest output/input hash distance over
	                                               paired rows; < 0 when there is none */
	size_t max_hash_row;                        /* its row, or MATCHER_NO_ROW */
};

/* A row as the match keeps it (40 bytes); struct matcher_row is its
 * re-derived form (matcher_result_row). */
struct matcher_row_rec {
	uint32_t a, b;               /* entry index in log A / B, or MATCHER_REC_NONE */
	unsigned char status;        /* enum matcher_status */
	unsigned char method;        /* enum matcher_method */
	unsigned char phase;         /* enum matcher_phase */
	unsigned char origin;        /* as in struct matcher_row */
	unsigned char shape_differs; /* as in struct matcher_row */
	double output_hash_distance;
	double input_hash_distance;
};

struct matcher_match_result {
	struct matcher_row_rec *recs; /* owned; row order */
	size_t n_rows;
	struct matcher_match_summary summary;
	size_t n_overrides_used;                /* override items that paired at least one row */
	struct matcher_unused_override *unused; /* owned array */
	size_t n_unused;
	const struct matcher_actlog *log_a, *log_b; /* borrowed (see matcher_match) */
};

/* Match log A against log B (same rank) with optional overrides (NULL for
 * none).  On success returns 0 and sets *out, owned by the caller
 * (matcher_match_result_free); rows refer to entries of a and b and unused
 * overrides borrow strings from ov, so all three must outlive *out.
 * -1 only on OOM (*out NULL).  Time and memory linear in the inputs. */
int matcher_match(const struct matcher_actlog *a, const struct matcher_actlog *b,
                  const struct matcher_overrides *ov, struct matcher_match_result **out);
void matcher_match_result_free(struct matcher_match_result *r);

/* A row re-derived with its two entries and per-stat differences.  Init
 * once, reuse for many rows, free once.  Each thread its own. */
struct matcher_row_view {
	struct matcher_row row;
	struct matcher_entry_view a, b;
};
void matcher_row_view_init(struct matcher_row_view *v);
void matcher_row_view_free(struct matcher_row_view *v);
/* The row's status, method, phase, origin and distances from its record,
 * without entries (a and b NULL, no stat differences): row. */
const struct matcher_row *matcher_row_of_rec(const struct matcher_row_rec *q,
                                             struct matcher_row *row);
/* Row i of r, valid until v is reused: &v->row, or NULL on OOM. */
const struct matcher_row *matcher_result_row(const struct matcher_match_result *r, size_t i,
                                             struct matcher_row_view *v);

/* Fill one paired row's status, distances, per-stat diffs and origin from
 * its two entries (both non-NULL); leaves method and phase alone.  Exposed
 * for the service, which recomputes rows it reads back. */
void matcher_row_compare(struct matcher_row *row);

/* ---- the rules, exposed for tests and for web/ ------------------------ */

/* Root-class strip: the number of leading bytes to drop from key (the
 * wrapper-class segment and its dot), 0 when the key has none. */
size_t matcher_key_root_len(const char *key, size_t n);
/* Fuzzy key: every "/op_<digits>_" replaced by "/", then the root-class
 * strip.  Written to out (cleared first; key must not point into out).
 * 0 or -1 on OOM. */
int matcher_key_fuzzy(const char *key, size_t n, struct buf *out);
/* Op type: with a '/' in the raw key, the fuzzy key after its last '/';
 * otherwise the raw key.  Appended to out (cleared first).  0 or -1. */
int matcher_key_op_type(const char *key, size_t n, struct buf *out);

/* Hash distance of two comma-separated number lists (NULL = empty text):
 * < 0 (no distance) when both are empty, else in [0, 1]. */
double matcher_hash_distance(const char *a, const char *b);
/* Relative difference |a-b| / max(|a|,|b|,1e-30) clamped to [0, 1]; a NaN
 * side compares the texts ta/tb instead (equal: 0, else 1); an infinity
 * against a finite value or the other infinity gives 1. */
double matcher_rel_diff(double a, double b, const char *ta, const char *tb);
/* Colour intensity t in [0, 1] of a relative difference: 0 at <= 1e-8, 1 at
 * >= 0.1, else (log10(rd) + 8) / 7.  Negative rd (no difference) gives 0. */
double matcher_colour_intensity(double rd);
/* The output hash an entry is compared on: Output hash, or the L1 norm
 * stat text for legacy entries without one, or NULL. */
const char *matcher_entry_output_hash(const struct matcher_entry *e);

/* Static names; NULL for out-of-range values / MATCHER_METHOD_NONE. */
const char *matcher_status_name(enum matcher_status s);
const char *matcher_method_name(enum matcher_method m);
const char *matcher_phase_name(enum matcher_phase p);

#endif
