/* lines.c - chunked input into lines (see lines.h). */
#include "lines.h"

#include <string.h>

void matcher_lines_init(struct matcher_lines *l, size_t max_line)
{
	buf_init(&l->part);
	l->max_line = max_line;
	l->n_lines = 0;
}

void matcher_lines_reset(struct matcher_lines *l)
{
	buf_reset(&l->part);
}

/* Line n_lines + 1 = s[0..n): its BOM off when it is line 1. */
static int emit(struct matcher_lines *l, const char *s, size_t n, matcher_line_fn fn, void *ctx)
{
	unsigned long ln = ++l->n_lines;
	if (ln == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3, n -= 3;
	return fn(ctx, s, n, ln);
}

int matcher_lines_feed(struct matcher_lines *l, const char *data, size_t n, matcher_line_fn fn,
                       void *ctx)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		if (l->part.len + k > l->max_line)
			return MATCHER_LINES_TOO_LONG;
		if (!nl)
			return buf_append(&l->part, data, n) < 0 ? MATCHER_LINES_OOM : 0;
		int rc;
		if (l->part.len) {
			if (buf_append(&l->part, data, k) < 0)
				return MATCHER_LINES_OOM;
			rc = emit(l, l->part.data, l->part.len, fn, ctx);
			buf_clear(&l->part);
		} else {
			rc = emit(l, data, k, fn, ctx);
		}
		if (rc < 0)
			return rc;
		data += k + 1;
		n -= k + 1;
	}
	return 0;
}

int matcher_lines_finish(struct matcher_lines *l, matcher_line_fn fn, void *ctx)
{
	if (!l->part.len)
		return 0;
	int rc = emit(l, l->part.data, l->part.len, fn, ctx);
	buf_clear(&l->part);
	return rc;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

void matcher_line_trim(const char **s, size_t *n)
{
	while (*n && ((*s)[*n - 1] == '\r' || is_blank((*s)[*n - 1])))
		(*n)--;
	while (*n && is_blank(**s))
		(*s)++, (*n)--;
}

int matcher_line_token(const char *s, size_t n, size_t *i, size_t *b)
{
	while (*i < n && is_blank(s[*i]))
		(*i)++;
	*b = *i;
	while (*i < n && !is_blank(s[*i]))
		(*i)++;
	return *i > *b;
}
