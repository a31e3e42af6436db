/* pyjson.h - JSON as Python's json module writes it.  json.dumps writes
 * NaN, Infinity and -Infinity bare, which strict JSON (and jansson)
 * refuses; MLPerf MLLOG lines (mllog.h) and msprobe dumps (msprobe.h) hold
 * them.  The text is handed to jansson with each such token (outside
 * strings) replaced by a marker string that no JSON text holds (it starts
 * with U+0001), and values are read back through matcher_pyjson_number.
 * No I/O, no globals. */
#ifndef PARITY_PYJSON_H
#define PARITY_PYJSON_H

#include <jansson.h>
#include <stddef.h>

#include "buf.h"

/* Copy s[0..n) into out (cleared first) with every bare NaN, Infinity and
 * -Infinity outside strings replaced by its marker string.  1 when
 * something was replaced (out holds the text), 0 when nothing was (out
 * is empty: use s), -1 on OOM. */
int matcher_pyjson_mark_specials(const char *s, size_t n, struct buf *out);

/* A JSON number (integer or real) or a marker: 1 and *v, else 0. */
int matcher_pyjson_number(const json_t *j, double *v);

#endif
