/* arraylit.c - PostgreSQL array literals, an element at a time
 * (arraylit.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arraylit.h"
#include "stmt.h"

/* The separator before the next element: '{' for the first. */
static int sep(struct buf *a)
{
	return buf_putc(a, a->len ? ',' : '{');
}

int arraylit_i64(struct buf *a, int64_t v)
{
	char t[24];
	snprintf(t, sizeof t, "%lld", (long long)v);
	return sep(a) < 0 ? -1 : buf_puts(a, t);
}

int arraylit_null(struct buf *a)
{
	return sep(a) < 0 ? -1 : buf_puts(a, "NULL");
}

int arraylit_num(struct buf *a, double v)
{
	char t[32];
	if (isnan(v))
		return arraylit_null(a);
	if (isinf(v))
		snprintf(t, sizeof t, "%s", v < 0 ? "-Infinity" : "Infinity");
	else
		snprintf(t, sizeof t, "%.17g", v);
	return sep(a) < 0 ? -1 : buf_puts(a, t);
}

int arraylit_text(struct buf *a, const char *s)
{
	if (!s)
		return arraylit_null(a);
	size_t n = strlen(s), fixed_n = 0;
	char *fixed = store_utf8_repair(s, n, &fixed_n);
	if (!fixed && fixed_n == SIZE_MAX)
		return -1;
	if (fixed) {
		s = fixed;
		n = fixed_n;
	}
	int rc = sep(a) < 0 || buf_reserve(a, n + 2) < 0 || buf_putc(a, '"') < 0 ? -1 : 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (s[i] == '"' || s[i] == '\\')
			rc = buf_putc(a, '\\');
		if (rc == 0)
			rc = buf_putc(a, s[i]);
	}
	if (rc == 0)
		rc = buf_putc(a, '"');
	free(fixed);
	return rc;
}

int arraylit_close(struct buf *a)
{
	if (!a->len && buf_putc(a, '{') < 0)
		return -1;
	return buf_putc(a, '}');
}

int arraylit_bind(struct store_q *q, int first, struct buf *cols, int n)
{
	int rc = 0;
	for (int k = 0; k < n; k++) {
		if (rc == 0 && (arraylit_close(&cols[k]) < 0 ||
		                store_q_bind_text(q, first + k, cols[k].data) < 0))
			rc = -1;
		buf_clear(&cols[k]);
	}
	return rc;
}
