/* act_json.h - JSON for activation comparisons: one row (self-contained, so
 * the service can store rows one by one) and the whole result document.
 *
 * Number policy: distances are finite numbers in [0, 1] or null when they
 * do not exist; stat values are emitted as their exact log text (strings),
 * never as numbers, so NaN and inf reach JSON as "nan"/"inf" text and
 * jansson never sees a non-finite double.  Text that is not valid UTF-8
 * (log keys are arbitrary bytes) is emitted with each bad byte replaced by
 * U+FFFD rather than dropped.  All functions return new references (NULL
 * on OOM); they only read their inputs.  Thread-safe on distinct inputs. */
#ifndef PARITY_ACT_JSON_H
#define PARITY_ACT_JSON_H

#include <jansson.h>
#include <stdio.h>

#include "actcheck.h"
#include "actlog.h"
#include "buf.h"
#include "match.h"
#include "store.h"

/* Everything the result document is made from; all borrowed.  ov, policy
 * and names may be NULL (no overrides / bitwise / no names). */
struct srv_act_doc {
	const char *name_a;
	const char *name_b;
	const struct matcher_actlog *a;
	const struct matcher_actlog *b;
	const struct matcher_overrides *ov;
	const struct matcher_match_result *result;
	const struct matcher_act_policy *policy;
	const struct matcher_act_verdict *verdict;
};

/* One entry: {"key","line","order","phase","stats":{"Shape":"..",...},
 * "output_hash","input_hashes","input_producers","location"}; absent
 * fields are omitted. */
json_t *srv_act_entry_json(const struct matcher_entry *e);

/* One row: {"a_key","b_key" (null for a missing side),"status","method"
 * (null for only-rows),"phase","origin","shape_differs",
 * "output_hash_distance","input_hash_distance" (number or null),
 * "stat_diffs":{"<stat name>": relative difference, only where the two
 * texts differ},"a":{entry}|null,"b":{entry}|null}. */
json_t *srv_act_row_json(const struct matcher_row *row);

/* The policy as stored with a comparison: {"name":"bitwise"} or
 * {"name":"tolerance","max_hash_distance":x,"allow_only_ops":[...]}. */
json_t *srv_act_policy_json(const struct matcher_act_policy *p);

/* The verdict's reasons: [{"code","message","details":{...}}]. */
json_t *srv_act_reasons_json(const struct matcher_act_verdict *v,
                             const struct matcher_match_result *r);

/* The result document {"kind":"activation","verdict","reasons","policy",
 * "names","summary","excluded_ops","overrides","log_warnings",
 * "first_divergence"[,"rows"]}; rows are included when with_rows is
 * non-zero (86k rows make a large tree: prefer srv_act_write_json). */
json_t *srv_act_result_json(const struct srv_act_doc *d, int with_rows);

/* Append one row's compact JSON text to out: the same document as
 * srv_act_row_json (tests check json_equal on every fixture and generated
 * row), written directly because building and dumping ~90k row trees
 * through jansson takes ~1 s, the CLI's whole budget.  This writer is the
 * one exception to "JSON only through jansson"; it only ever emits strings
 * through its escaper (quotes, backslash, control characters, invalid
 * UTF-8 replaced by U+FFFD) and numbers that are finite.  0 or -1 (OOM). */
int srv_act_row_append(struct buf *out, const struct matcher_row *row);

/* Append the rows list document of a page of stored rows (the daemon's
 * GET /comparisons/{id}/rows body), compact:
 * {"rows":[row + "rank","idx"...],"next_cursor":"..."|null}.  Each row is
 * written by srv_act_row_append, the function the CLI's --format json
 * rows go through, so both give the same row documents.  0 or -1 (OOM). */
int srv_act_rows_page_append(struct buf *out, const struct store_row_page *p);

/* Write the document with rows to f (compact, newline-terminated): the
 * head through jansson, then the rows one at a time (srv_act_row_append),
 * so memory stays flat whatever the row count.  0, or -1 on OOM or a write
 * error (errno from stdio). */
int srv_act_write_json(FILE *f, const struct srv_act_doc *d);

#endif
