/* msprobe.h - Ascend msprobe dumps (dump.json, with stack.json beside it)
 * read as activation logs: one struct matcher_entry per op, in dump order,
 * through the activation parser's callbacks (actlog.h).
 *
 * Format and mapping: matcher/spec/msprobe.md.  A dump is one JSON
 * document, so the parser buffers what it is fed (up to a byte limit named
 * in its error) and parses at finish; the op records are then emitted one
 * by one.  matcher_actlog_parser_new hands a log whose first byte is `{`
 * to this parser, so everything that reads activation logs reads dumps.
 * No I/O, no globals; not thread-safe per object, fine across objects. */
#ifndef PARITY_MSPROBE_H
#define PARITY_MSPROBE_H

#include <stddef.h>

#include "actlog.h"

/* Default limit on a dump.json (and on a stack.json): 256 MiB of text. */
#define MATCHER_MSPROBE_MAX_BYTES_DEFAULT ((size_t)256 << 20)
/* Deepest nesting of tensors inside an op's argument lists. */
#define MATCHER_MSPROBE_MAX_DEPTH 32

/* Does the text start like an msprobe dump.json: a JSON object (after
 * blanks and a UTF-8 BOM) with a `"data": {` member and a `"task"`,
 * `"framework"`, `"dump_data_dir"` or `"input_args"` member in the first
 * n bytes?  Pure. */
int matcher_msprobe_detect(const char *data, size_t n);

/* ---- stack.json: op name -> source location ---------------------------- */

/* The locations of a stack.json, in either of msprobe's layouts:
 * {"op name": ["File f.py, line 3, in fn, \n code", ...]} or
 * {"0": [["op name", ...], ["File ...", ...]]}.  The location of an op is
 * `path:line` of its first frame outside msprobe's own hooks. */
struct matcher_msprobe_stack;

/* Parse a stack.json.  0 and *out set (caller frees), or -1 with *err
 * filled (code bad_json with jansson's line and column, or bad_stack
 * naming the key).  max_bytes 0 = default. */
int matcher_msprobe_stack_parse(const char *data, size_t n, size_t max_bytes,
                                struct matcher_msprobe_stack **out, struct matcher_error *err);
/* The location of the op whose entry key is `key` (matcher_msprobe_key of
 * its name), or NULL.  Valid until the stack is freed. */
const char *matcher_msprobe_stack_find(const struct matcher_msprobe_stack *st, const char *key);
size_t matcher_msprobe_stack_count(const struct matcher_msprobe_stack *st);
void matcher_msprobe_stack_free(struct matcher_msprobe_stack *st);

/* The entry key of msprobe op name `name` (spec: "Keys"), written into
 * out (NUL-terminated).  `Functional.conv2d.0.forward` ->
 * `Functional.conv2d.forward/op_0_conv2d`; a name without a call counter
 * is kept as it is.  0, or -1 on OOM. */
int matcher_msprobe_key(const char *name, struct buf *out);

/* ---- the dump parser --------------------------------------------------- */

struct matcher_msprobe_parser;

/* New parser (callbacks copied).  max_bytes 0 = default.  stack may be
 * NULL (no locations); it is borrowed and must outlive the parser.  NULL
 * on OOM. */
struct matcher_msprobe_parser *
matcher_msprobe_parser_new(const struct matcher_actlog_callbacks *cb, size_t max_bytes,
                           const struct matcher_msprobe_stack *stack);
/* Buffer the next chunk.  0, or -1 (too_large: over max_bytes). */
int matcher_msprobe_feed(struct matcher_msprobe_parser *p, const char *data, size_t n);
/* Parse and emit: on_header (total = the number of ops), then one
 * on_entry per op in dump order.  0, or -1 with the error (bad_json with
 * jansson's line and column; not_activation_log when the document is no
 * msprobe dump; bad_dump naming the op whose record is malformed;
 * callback; oom).  *out may be NULL. */
int matcher_msprobe_finish(struct matcher_msprobe_parser *p, struct matcher_actlog_summary *out);
const struct matcher_error *matcher_msprobe_error(const struct matcher_msprobe_parser *p);
void matcher_msprobe_parser_free(struct matcher_msprobe_parser *p);

#endif
