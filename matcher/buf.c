/* buf.c - growable buffers and the bump arena (see buf.h). */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_reset(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void buf_clear(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

int buf_reserve(struct buf *b, size_t n)
{
	if (n >= ((size_t)-1) / 2 - b->len)
		return -1;
	size_t need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	char *p = realloc(b->data, cap);
	if (!p)
		return -1;
	b->data = p;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = 0;
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_append(b, &c, 1);
}

int buf_put_uint(struct buf *b, unsigned long long v)
{
	char tmp[24];
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return buf_append(b, tmp + i, sizeof(tmp) - i);
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof small, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof small)
		return buf_append(b, small, (size_t)n);
	if (buf_reserve(b, (size_t)n) < 0)
		return -1;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

char *buf_take(struct buf *b)
{
	if (!b->data && buf_reserve(b, 0) < 0)
		return NULL;
	b->data[b->len] = 0;
	char *p = b->data;
	buf_init(b);
	return p;
}

struct arena_block {
	struct arena_block *next;
	size_t cap, used;
	_Alignas(16) unsigned char mem[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used = 0;
}

void arena_reset(struct arena *a)
{
	struct arena_block *blk = a->head;
	while (blk) {
		struct arena_block *next = blk->next;
		free(blk);
		blk = next;
	}
	arena_init(a);
}

/* n bytes at the next multiple of align (1 or 16) in the current block,
 * or in a new block. */
static void *arena_alloc_aligned(struct arena *a, size_t n, size_t align)
{
	struct arena_block *blk = a->head;
	size_t pad = blk ? (align - blk->used % align) % align : 0;
	size_t need = n + pad;
	if (need < n || n + align < n)
		return NULL;
	if (!blk || blk->cap - blk->used < need) {
		/* a new block starts aligned (its mem is 16-aligned) */
		pad = 0;
		need = (n + align - 1) & ~(align - 1);
		size_t cap = need > 65536 ? need : 65536;
		blk = malloc(sizeof *blk + cap);
		if (!blk)
			return NULL;
		blk->cap = cap;
		blk->used = 0;
		if (a->head && need > 65536) {
			/* big one-off: keep the current block for small requests */
			blk->next = a->head->next;
			a->head->next = blk;
		} else {
			blk->next = a->head;
			a->head = blk;
		}
	}
	void *p = blk->mem + blk->used + pad;
	blk->used += need;
	a->used += need;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	return arena_alloc_aligned(a, n, 16);
}

char *arena_alloc_bytes(struct arena *a, size_t n)
{
	return arena_alloc_aligned(a, n, 1);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	/* strings need no alignment: packing them saves ~8 bytes a string
	 * (~15 MB over the two parsed logs of an 86k-op comparison) */
	char *p = n + 1 > n ? arena_alloc_bytes(a, n + 1) : NULL;
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

size_t buf_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp;
	size_t len;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (len > n)
		return 0;
	cp = c & (0x7fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

size_t buf_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, l;
	while (i < n) {
		if (p[i] - 1u < 0x7fu) { /* ASCII other than NUL: most text */
			i++;
			continue;
		}
		if (!p[i] || (l = buf_utf8_len(p + i, n - i)) == 0)
			break;
		i += l;
	}
	return i;
}

int buf_append_utf8(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t ok = buf_utf8_valid(s + i, n - i);
		if (ok && buf_append(b, s + i, ok) < 0)
			return -1;
		i += ok;
		if (i < n) { /* one bad byte (or a NUL) */
			if (buf_append(b, "\xef\xbf\xbd", 3) < 0)
				return -1;
			i++;
		}
	}
	(void)p;
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

void buf_line_trim(const char **s, size_t *n)
{
	while (*n && ((*s)[*n - 1] == '\r' || is_blank((*s)[*n - 1])))
		(*n)--;
	while (*n && is_blank(**s))
		(*s)++, (*n)--;
}

int buf_sample_line(const char *data, size_t n, size_t *pos, const char **s, size_t *k)
{
	if (!data)
		return 0;
	if (*pos == 0 && n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		*pos = 3;
	while (*pos < n) {
		const char *nl = memchr(data + *pos, '\n', n - *pos);
		if (!nl)
			return 0;
		*s = data + *pos;
		*k = (size_t)(nl - *s);
		*pos = (size_t)(nl - data) + 1;
		buf_line_trim(s, k);
		if (*k && (*s)[0] != '#')
			return 1;
	}
	return 0;
}

int buf_line_token(const char *s, size_t n, size_t *i, size_t *b)
{
	while (*i < n && is_blank(s[*i]))
		(*i)++;
	*b = *i;
	while (*i < n && !is_blank(s[*i]))
		(*i)++;
	return *i > *b;
}

/* Hand line s[0..n) over, counted, without a BOM starting line 1. */
static int hand_over(struct buf_lines *l, buf_line_fn fn, void *ctx, const char *s, size_t n)
{
	if (!l->n_lines++ && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3, n -= 3;
	return fn(ctx, s, n);
}

int buf_lines_feed(struct buf_lines *l, const char *data, size_t n, buf_line_fn on_line,
                   buf_line_fn on_long, void *ctx)
{
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		int rc = 0;
		if (l->skipping) {
			if (!nl)
				return 0;
			l->skipping = 0;
		} else if (l->carry.len + k > l->max_line) {
			size_t take = l->max_line - l->carry.len;
			if (buf_append(&l->carry, data, take) < 0)
				return -2;
			rc = hand_over(l, on_long, ctx, l->carry.data, l->carry.len);
			buf_clear(&l->carry);
			if (rc)
				return rc;
			l->skipping = 1;
			continue; /* the same bytes again, now dropping them */
		} else if (!nl) {
			return buf_append(&l->carry, data, n) < 0 ? -2 : 0;
		} else if (l->carry.len) {
			if (buf_append(&l->carry, data, k) < 0)
				return -2;
			rc = hand_over(l, on_line, ctx, l->carry.data, l->carry.len);
			buf_clear(&l->carry);
		} else {
			rc = hand_over(l, on_line, ctx, data, k);
		}
		if (rc)
			return rc;
		data += k + 1;
		n -= k + 1;
	}
	return 0;
}

int buf_lines_finish(struct buf_lines *l, buf_line_fn on_line, void *ctx)
{
	if (l->skipping || !l->carry.len)
		return 0;
	int rc = hand_over(l, on_line, ctx, l->carry.data, l->carry.len);
	buf_clear(&l->carry);
	return rc;
}
