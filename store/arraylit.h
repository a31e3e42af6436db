/* arraylit.h - private to store/: PostgreSQL array literals built one
 * element at a time ("{1,NULL,\"a \\\"b\\\"\"}"), so that many rows travel
 * in one statement as a few array parameters that unnest() turns back
 * into rows (a round trip per row costs ~0.1 ms: 340k metric values of a
 * 20k-step log took 30 s one INSERT each).  Each column is a struct buf
 * (matcher/buf.h); each put returns 0, or -1 when out of memory. */
#ifndef PARITY_STORE_ARRAYLIT_H
#define PARITY_STORE_ARRAYLIT_H

#include <stdint.h>

#include "buf.h"

int arraylit_i64(struct buf *a, int64_t v);
int arraylit_null(struct buf *a);
/* NaN as NULL (as the statement layer binds it), +-Infinity by name, else
 * "%.17g" (the double read back exactly). */
int arraylit_num(struct buf *a, double v);
/* Text quoted ('"' and '\' escaped), bytes that are not UTF-8 repaired as
 * store_q_bind_text repairs them; NULL as NULL. */
int arraylit_text(struct buf *a, const char *s);
/* The literal, closed ("{}" when empty), as a NUL-terminated string in
 * a->data; buf_clear(a) starts the next one. */
int arraylit_close(struct buf *a);
/* Close the n literals cols[0..n), bind them to q's parameters first..
 * first + n - 1 (the statement layer copies them) and empty them for the
 * next batch.  0, or -1 when out of memory. */
struct store_q;
int arraylit_bind(struct store_q *q, int first, struct buf *cols, int n);

#endif
