/* comparison_int.h - private to the comparison files of store/
 * (comparisons.c: the queue and the job's lifecycle; comparison_rows.c:
 * result rows and steps written, deletion; comparison_views.c: one
 * comparison and the lists; comparison_walks.c: result rows read back
 * with their filters and key regex; comparison_steps.c: per-step rows
 * read back): what they share. */
#ifndef PARITY_STORE_COMPARISON_INT_H
#define PARITY_STORE_COMPARISON_INT_H

#include "store_int.h"

#define CMP_COLS STORE_CMP_COLS
/* A parameter compared as text (PostgreSQL needs the cast where the
 * parameter's type cannot be inferred). */
#define TXT_LITE(p) p
#define TXT_PG(p)   "CAST(" p " AS text)"

/* comparisons.c: STORE_NOT_FOUND "comparison N not found" (errmsg). */
int store_cmp_not_found(struct store *st, int64_t id);
/* comparisons.c: 0 when comparison id exists, STORE_NOT_FOUND (errmsg),
 * or a STORE_* code. */
int store_cmp_exists(struct store *st, int64_t id);

#endif
