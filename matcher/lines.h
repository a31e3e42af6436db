/* lines.h - split a byte stream fed in arbitrary chunks into lines, for
 * the line-oriented push parsers (nvinspect.h; the other line parsers may
 * move onto it).
 *
 * A line wholly inside a chunk is handed on in place; only a line split
 * across chunks is gathered in a buffer, so memory is one line (at most
 * max_line bytes).  Lines end at '\n' (a '\r' before it stays in the line
 * for the parser's trimming); a UTF-8 BOM at the start of line 1 is
 * removed; the last line without '\n' is handed on by matcher_lines_finish.
 * No I/O, no globals. */
#ifndef PARITY_LINES_H
#define PARITY_LINES_H

#include <stddef.h>

#include "buf.h"

/* Results besides 0 and the callback's own negative value. */
#define MATCHER_LINES_TOO_LONG (-1000) /* a line over max_line bytes */
#define MATCHER_LINES_OOM      (-1001)

/* One line: s[0..n), its 1-based number.  0 goes on; a negative value
 * stops the feed and is returned by it. */
typedef int (*matcher_line_fn)(void *ctx, const char *s, size_t n, unsigned long line);

struct matcher_lines {
	struct buf part;       /* a line split across chunks */
	size_t max_line;       /* bytes, without the '\n' */
	unsigned long n_lines; /* lines handed on */
};

void matcher_lines_init(struct matcher_lines *l, size_t max_line);
void matcher_lines_reset(struct matcher_lines *l); /* frees the buffer */
/* Hand every complete line of data[0..n) to fn.  0; fn's negative value;
 * MATCHER_LINES_TOO_LONG (line n_lines + 1 is too long) or
 * MATCHER_LINES_OOM. */
int matcher_lines_feed(struct matcher_lines *l, const char *data, size_t n, matcher_line_fn fn,
                       void *ctx);
/* End of input: the last line without '\n', if any, to fn.  As above. */
int matcher_lines_finish(struct matcher_lines *l, matcher_line_fn fn, void *ctx);

/* s[0..n) without surrounding blanks (space, tab) and a trailing CR. */
void matcher_line_trim(const char **s, size_t *n);
/* The next blank-separated token of s[0..n) from *i: 1 with it at
 * s[*b..*i), or 0 at the end. */
int matcher_line_token(const char *s, size_t n, size_t *i, size_t *b);

#endif
