/* buf.h - growable byte buffers and a bump arena, the two memory helpers
 * every module uses.
 *
 * struct buf: a heap byte string that grows geometrically; data is always
 * NUL-terminated (not counted in len) once anything was appended, so text
 * can be handed to C string functions.  struct arena: many small
 * allocations freed together (parsed logs keep their strings in one).
 * Neither is thread-safe; neither aborts on allocation failure: functions
 * return -1 / NULL and leave the object usable. */
#ifndef PARITY_BUF_H
#define PARITY_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

struct buf {
	char *data; /* owned; NULL until the first append */
	size_t len;
	size_t cap;
};

#define BUF_INIT                                                                                   \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

void buf_init(struct buf *b);
/* Free the storage; the buffer is empty and reusable afterwards. */
void buf_reset(struct buf *b);
/* Keep the storage, set len to 0. */
void buf_clear(struct buf *b);
/* Make room for at least n more bytes (+ NUL).  0 or -1. */
int buf_reserve(struct buf *b, size_t n);
int buf_append(struct buf *b, const void *p, size_t n);
/* buf_append with the common case (the room is already there) inlined:
 * for writers that append millions of small pieces (report rows). */
static inline int buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->data && n < b->cap - b->len) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = 0;
		return 0;
	}
	return buf_append(b, p, n);
}
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
/* v in decimal, as "%llu" prints it (no printf: row writers call it per
 * row). */
int buf_put_uint(struct buf *b, unsigned long long v);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Hand the storage to the caller (who frees it); the buffer becomes empty.
 * Returns "" allocated when nothing was appended; NULL on OOM. */
char *buf_take(struct buf *b);

/* Length (1-4) of the valid UTF-8 sequence at s with n >= 1 bytes left,
 * 0 when it is not one (stray continuation, overlong form, surrogate,
 * above U+10FFFF, cut short). */
size_t buf_utf8_len(const unsigned char *s, size_t n);
/* Length of the longest prefix of s[0, n) that is valid UTF-8 without a
 * NUL byte (n: all of it). */
size_t buf_utf8_valid(const char *s, size_t n);
/* Append s[0, n) with every byte that starts no valid UTF-8 sequence (and
 * every NUL byte) replaced by U+FFFD: the one repair of text that must be
 * UTF-8 (JSON, HTML, PostgreSQL text, error messages).  0, or -1 on OOM. */
int buf_append_utf8(struct buf *b, const char *s, size_t n);

/* Lines of a push parser's input: each whole line handed over without its
 * '\n' (in place when a chunk holds all of it, else gathered in carry), a
 * partial last line kept for the next chunk; a '\r' before the '\n' stays
 * for the parser's trimming, a UTF-8 BOM starting line 1 is removed.  A
 * line over max_line bytes goes to on_long with its first max_line bytes:
 * -1 stops, 0 drops the rest of that line.  n_lines counts the lines
 * handed over (to either), so line n_lines is the current one inside a
 * callback.  Memory: one line (at most max_line bytes, plus one chunk's
 * part).  Zero-initialised plus max_line is ready; buf_reset(&carry)
 * frees it. */
struct buf_lines {
	struct buf carry;
	size_t max_line;
	int skipping; /* dropping the rest of a long line */
	unsigned long n_lines;
};
typedef int (*buf_line_fn)(void *ctx, const char *s, size_t n);
/* Feed n bytes.  0; the first non-zero return of on_line / on_long; or -2
 * on OOM. */
int buf_lines_feed(struct buf_lines *l, const char *data, size_t n, buf_line_fn on_line,
                   buf_line_fn on_long, void *ctx);
/* End of input: a last line without newline goes to on_line.  As above. */
int buf_lines_finish(struct buf_lines *l, buf_line_fn on_line, void *ctx);

/* s[0..n) without surrounding blanks (space, tab) and a trailing CR. */
void buf_line_trim(const char **s, size_t *n);
/* The format detectors' walk over a sample's complete lines: from *pos (0
 * at the start, where a UTF-8 BOM is skipped), the next line that is not
 * blank or a '#' comment, trimmed, into *s / *k: 1, or 0 when no complete
 * line is left (a partial last line is not judged). */
int buf_sample_line(const char *data, size_t n, size_t *pos, const char **s, size_t *k);
/* The next blank-separated token of s[0..n) from *i: 1 with it at
 * s[*b..*i), or 0 at the end. */
int buf_line_token(const char *s, size_t n, size_t *i, size_t *b);

/* Bump allocator: blocks of at least 64 KiB, freed all at once. */
struct arena_block;
struct arena {
	struct arena_block *head;
	size_t used; /* bytes handed out, for accounting */
};

void arena_init(struct arena *a);
void arena_reset(struct arena *a); /* frees every block */
/* Aligned (16) allocation valid until arena_reset; NULL on OOM. */
void *arena_alloc(struct arena *a, size_t n);
/* Unaligned allocation (text), valid until arena_reset; NULL on OOM. */
char *arena_alloc_bytes(struct arena *a, size_t n);
/* Copy n bytes and add a NUL; NULL on OOM. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s); /* NULL in -> NULL out */

#endif
