/* json_act.h - JSON for activation comparisons (web/ renders; the CLI and
 * the daemon both serialize through here): one row (self-contained, so
 * the service can store rows one by one) and the whole result document.
 *
 * Number policy: distances are finite numbers in [0, 1] or null when they
 * do not exist; stat values are emitted as their exact log text (strings),
 * never as numbers, so NaN and inf reach JSON as "nan"/"inf" text and
 * jansson never sees a non-finite double.  Text that is not valid UTF-8
 * (log keys are arbitrary bytes) is emitted with each bad byte replaced by
 * U+FFFD rather than dropped.  All functions return new references (NULL
 * on OOM); they only read their inputs.  Thread-safe on distinct inputs. */
#ifndef PARITY_WEB_JSON_ACT_H
#define PARITY_WEB_JSON_ACT_H

#include <jansson.h>
#include <stdio.h>

#include "actcheck.h"
#include "actlog.h"
#include "buf.h"
#include "match.h"
#include "store.h"

/* The policy as stored with a comparison: {"name":"bitwise"} or
 * {"name":"tolerance","max_hash_distance":x,"allow_only_ops":[...]}. */
json_t *web_act_policy_json(const struct matcher_act_policy *p);

/* The result document without rows {"kind":"activation","verdict",
 * "reasons","policy","names","summary","excluded_ops","overrides",
 * "log_warnings","first_divergence"} of one pair of logs (the CLI's);
 * built through the typed result (store_act_build_rank + web_act_rank_doc),
 * so it is the stored result's serializer too.  web_act_write_json adds
 * "rows". */
json_t *web_act_result_json(const struct store_act_input *d);

/* The ONE serializer of a typed activation result.  web_act_rank_doc:
 * rank i's document (the shape above, plus "rank" when it has one);
 * web_act_result_doc: the whole comparison's document as the API serves
 * it, ranks[0]'s document without "rank" with the overall "verdict", all
 * "reasons" (each with its "rank" where it names one), "policy",
 * "summary" (the per-rank integer sums) and "ranks" (every rank's
 * document).  New references; NULL on OOM. */
json_t *web_act_rank_doc(const struct store_act_result *r, size_t i);
json_t *web_act_result_doc(const struct store_act_result *r);

/* Append one row's compact JSON text to out, the ONE row serializer (CLI
 * --format json, the streamed document, the daemon's rows list):
 * {"a_key","b_key" (null for a missing side),"status","method" (null for
 * only-rows),"phase","origin","shape_differs","output_hash_distance",
 * "input_hash_distance" (number or null),"stat_diffs":{"<stat name>":
 * relative difference, only where the two texts differ},"a":{entry}|null,
 * "b":{entry}|null}; entry = {"key","line","order","phase","stats":
 * {"Shape":"..",...},"output_hash","input_hashes","input_producers",
 * "location"} with absent fields omitted.  Written directly, not through
 * jansson, because building and dumping ~90k row trees takes ~1 s, the
 * CLI's whole budget (tests/unit/rowdoc.h parses its output and checks
 * every field against the row).  It only ever emits strings through its
 * escaper (quotes, backslash, control characters, invalid UTF-8 replaced
 * by U+FFFD) and numbers that are finite.  0 or -1 (OOM). */
int web_act_row_append(struct buf *out, const struct matcher_row *row);

/* Append the rows list document of a page of stored rows (the daemon's
 * GET /comparisons/{id}/rows body), compact:
 * {"rows":[row + "rank","idx"...],"next_cursor":"..."|null}.  Each row is
 * written by web_act_row_append, the function the CLI's --format json
 * rows go through, so both give the same row documents.  0 or -1 (OOM). */
int web_act_rows_page_append(struct buf *out, const struct store_row_page *p);

/* Write the document with rows to f (compact, newline-terminated): the
 * head through jansson, then the rows one at a time (web_act_row_append),
 * so memory stays flat whatever the row count.  0, or -1 on OOM or a write
 * error (errno from stdio). */
int web_act_write_json(FILE *f, const struct store_act_input *d);

#endif
