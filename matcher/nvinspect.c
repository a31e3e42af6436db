/* nvinspect.c - DL Framework Inspect statistics log push parser (see
 * nvinspect.h).
 *
 * Lines come from buf_lines_feed (buf.h: gathered only when a chunk ends
 * inside one; counted; a BOM removed).
 * The values of the current iteration live in an arena (names and texts) and
 * an entry array, with a name -> entry map for the duplicate check; all
 * three are emptied, not freed, when the iteration is handed on, so memory
 * stays at one iteration's worth.  Values are read with
 * matcher_train_parse_num (train_num.h), which gives the printed decimals
 * (the resolution: 4 for the logger's f"{value:.4f}"). */
#include "nvinspect.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "strmap.h"
#include "train_num.h"

#define NVINSPECT_LINE_DEFAULT (64u * 1024)
#define NVINSPECT_TEXT         64 /* a value's text incl. NUL */

struct entry {
	const char *name; /* in the arena */
	const char *text; /* in the arena */
	double value;
	int decimals;
};

struct matcher_nvinspect_parser {
	struct matcher_trainlog_callbacks cb;
	int rank;
	size_t max_series;
	struct buf_lines lines; /* line limit, count, a line split across chunks */
	int dead;
	int finished;
	/* the current iteration */
	long iter;
	unsigned long iter_line; /* its first line */
	int has_iter;
	struct entry *ents;
	size_t n_ents, cap_ents;
	struct arena strs;
	struct matcher_strmap names;
	struct matcher_metric_value *mv; /* handed to on_step */
	size_t cap_mv;
	/* totals */
	size_t n_steps;
	size_t most_series;
	struct matcher_error err;
};

/* The first fatal error stands (matcher_error_fail). */
#define fail(p, code, line, ...) matcher_error_fail(&(p)->err, &(p)->dead, code, line, __VA_ARGS__)

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Skip `[blanks]-[blanks]` at s[*i]: 1 when there, else 0. */
static int dash(const char *s, size_t n, size_t *i)
{
	size_t k = *i;
	while (k < n && is_blank(s[k]))
		k++;
	if (k == n || s[k] != '-' || k == *i)
		return 0;
	k++;
	if (k == n || !is_blank(s[k]))
		return 0;
	while (k < n && is_blank(s[k]))
		k++;
	*i = k;
	return 1;
}

/* The logger prefix `[time - ]LEVEL - ` of a trimmed line: 1 with *msg at
 * the message, else 0.  The time (Python logging's asctime, present when
 * NVDLFW_INSPECT_ENABLE_LOG_TIMESTAMP is set) is digits and - : , . T
 * and blanks; the level an upper-case word. */
static int logger_line(const char *s, size_t n, size_t *msg)
{
	size_t i = 0;
	if (n && s[0] >= '0' && s[0] <= '9') {
		/* `2025-01-15 10:00:00,123 - `: the time ends at " - " */
		while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '-' || s[i] == ':' ||
		                 s[i] == ',' || s[i] == '.' || s[i] == 'T' || s[i] == ' ')) {
			if (s[i] == ' ' && i + 2 < n && s[i + 1] == '-' && is_blank(s[i + 2]))
				break;
			i++;
		}
		if (!dash(s, n, &i))
			return 0;
	}
	size_t b = i;
	while (i < n && s[i] >= 'A' && s[i] <= 'Z')
		i++;
	if (i - b < 4 || i - b > 8 || !dash(s, n, &i))
		return 0;
	*msg = i;
	return 1;
}

/* A statistics message `<series> iteration=N value=X` (no more tokens). */
struct stat_line {
	const char *name, *text;
	size_t name_n, text_n;
	long iter;
	double value;
	int decimals;
};

/* 1 for a statistics message, 0 for another logger message (no
 * ` iteration=` token), -1 for a message with ` iteration=` that is not a
 * statistics line. */
static int stat_message(const char *s, size_t n, struct stat_line *st)
{
	size_t i = 0, b;
	const char *it = NULL;
	for (size_t k = 0; k + 10 <= n; k++)
		if ((!k || is_blank(s[k - 1])) && !memcmp(s + k, "iteration=", 10)) {
			it = s + k;
			break;
		}
	if (!it)
		return 0;
	if (!buf_line_token(s, n, &i, &b) || s + b == it)
		return -1;
	st->name = s + b;
	st->name_n = i - b;
	for (size_t k = b; k < i; k++) /* printable ASCII: names end up in JSON and HTML */
		if ((unsigned char)s[k] < 0x21 || (unsigned char)s[k] > 0x7e)
			return -1;
	if (!buf_line_token(s, n, &i, &b) || s + b != it || i - b <= 10)
		return -1;
	long v = 0;
	for (size_t k = b + 10; k < i; k++) {
		if (s[k] < '0' || s[k] > '9' || v > 0x7fffffffL / 10)
			return -1;
		v = v * 10 + (s[k] - '0');
	}
	if (v > 0x7fffffffL)
		return -1;
	st->iter = v;
	if (!buf_line_token(s, n, &i, &b) || i - b <= 6 || memcmp(s + b, "value=", 6))
		return -1;
	st->text = s + b + 6;
	st->text_n = i - b - 6;
	if (st->text_n >= NVINSPECT_TEXT ||
	    matcher_train_parse_num(st->text, st->text_n, &st->value, &st->decimals) !=
	            st->text_n ||
	    memchr(st->text, ',', st->text_n))
		return -1;
	if (buf_line_token(s, n, &i, &b))
		return -1;
	return 1;
}

/* Hand the buffered iteration on as one record and empty the buffer. */
static int flush_iteration(struct matcher_nvinspect_parser *p)
{
	if (!p->has_iter)
		return 0;
	if (p->n_ents > p->cap_mv) {
		struct matcher_metric_value *mv = realloc(p->mv, p->n_ents * sizeof *mv);
		if (!mv)
			return fail(p, "oom", 0, "out of memory");
		p->mv = mv;
		p->cap_mv = p->n_ents;
	}
	for (size_t i = 0; i < p->n_ents; i++)
		p->mv[i] = (struct matcher_metric_value){p->ents[i].name, p->ents[i].text,
		                                         p->ents[i].value, p->ents[i].decimals,
		                                         MATCHER_PREC_PRINTED};
	struct matcher_step_record rec = {p->rank,          p->iter, 0,        p->iter_line,
	                                  MATCHER_STEP_NEW, p->mv,   p->n_ents};
	if (p->n_ents > p->most_series)
		p->most_series = p->n_ents;
	p->n_steps++;
	p->has_iter = 0;
	int rc = p->cb.on_step ? p->cb.on_step(p->cb.ctx, &rec) : 0;
	p->n_ents = 0;
	matcher_strmap_clear(&p->names);
	arena_reset(&p->strs);
	arena_init(&p->strs);
	if (rc)
		return fail(p, "callback", p->iter_line, "stopped by the caller at line %lu",
		            p->iter_line);
	return 0;
}

static int add_value(struct matcher_nvinspect_parser *p, const struct stat_line *st,
                     unsigned long ln)
{
	if (p->has_iter && st->iter < p->iter)
		return fail(p, "step_order", ln,
		            "line %lu: iteration %ld follows iteration %ld (line %lu): iterations "
		            "must not go back",
		            ln, st->iter, p->iter, p->iter_line);
	if (p->has_iter && st->iter != p->iter && flush_iteration(p) < 0)
		return -1;
	if (!p->has_iter) {
		p->has_iter = 1;
		p->iter = st->iter;
		p->iter_line = ln;
	}
	if (p->n_ents == p->max_series)
		return fail(p, "too_many_series", ln,
		            "line %lu: more than %zu series in iteration %ld (the limit of values "
		            "in one iteration)",
		            ln, p->max_series, p->iter);
	char *name = arena_strndup(&p->strs, st->name, st->name_n);
	char *text = arena_strndup(&p->strs, st->text, st->text_n);
	if (!name || !text)
		return fail(p, "oom", 0, "out of memory");
	int inserted = 0;
	if (!matcher_strmap_upsert(&p->names, name, st->name_n, p->n_ents, &inserted))
		return fail(p, "oom", 0, "out of memory");
	if (!inserted)
		return fail(p, "duplicate_value", ln,
		            "line %lu: series %.*s twice in iteration %ld", ln,
		            (int)(st->name_n < 120 ? st->name_n : 120), st->name, p->iter);
	if (p->n_ents == p->cap_ents) {
		size_t cap = p->cap_ents ? 2 * p->cap_ents : 64;
		struct entry *e = realloc(p->ents, cap * sizeof *e);
		if (!e)
			return fail(p, "oom", 0, "out of memory");
		p->ents = e;
		p->cap_ents = cap;
	}
	p->ents[p->n_ents++] = (struct entry){name, text, st->value, st->decimals};
	return 0;
}

static int handle_line(void *ctx, const char *s, size_t n)
{
	struct matcher_nvinspect_parser *p = ctx;
	unsigned long ln = p->lines.n_lines;
	if (memchr(s, 0, n))
		return fail(p, "binary_data", ln,
		            "line %lu holds a NUL byte: binary data, not a statistics log", ln);
	buf_line_trim(&s, &n);
	if (!n || s[0] == '#')
		return 0;
	size_t m;
	if (!logger_line(s, n, &m))
		return fail(p, "not_nvinspect_log", ln,
		            "line %lu is not a logger line `[time - ]LEVEL - message`: %.*s", ln,
		            (int)(n < 60 ? n : 60), s);
	struct stat_line st;
	int k = stat_message(s + m, n - m, &st);
	if (k < 0)
		return fail(p, "not_nvinspect_log", ln,
		            "line %lu is not `<layer>_<tensor>_<stat> iteration=N value=X`: %.*s",
		            ln, (int)(n < 80 ? n : 80), s);
	if (!k)
		return 0; /* another logger message */
	if (st.name_n >= MATCHER_NVINSPECT_NAME)
		return fail(p, "not_nvinspect_log", ln,
		            "line %lu: the series name is longer than %d characters", ln,
		            MATCHER_NVINSPECT_NAME - 1);
	return add_value(p, &st, ln);
}

static int on_long(void *ctx, const char *s, size_t n)
{
	struct matcher_nvinspect_parser *p = ctx;
	(void)s, (void)n;
	return fail(p, "line_too_long", p->lines.n_lines, "line %lu is longer than %zu bytes",
	            p->lines.n_lines, p->lines.max_line);
}

/* The lines' verdict on a feed or finish: 0, or -1 with the error set. */
static int lines_rc(struct matcher_nvinspect_parser *p, int rc)
{
	return rc == -2 ? fail(p, "oom", 0, "out of memory") : rc ? -1 : 0;
}

int matcher_nvinspect_feed(struct matcher_nvinspect_parser *p, const char *data, size_t n)
{
	if (!p || p->dead || p->finished)
		return -1;
	return lines_rc(p, buf_lines_feed(&p->lines, data, n, handle_line, on_long, p));
}

int matcher_nvinspect_finish(struct matcher_nvinspect_parser *p,
                             struct matcher_trainlog_summary *out)
{
	if (!p || p->dead || p->finished)
		return -1;
	if (lines_rc(p, buf_lines_finish(&p->lines, handle_line, p)) < 0 || flush_iteration(p) < 0)
		return -1;
	if (!p->n_steps)
		return fail(p, "no_values", 0,
		            "no `<series> iteration=N value=X` line in %lu lines: not a statistics "
		            "log",
		            p->lines.n_lines);
	p->finished = 1;
	if (out) {
		memset(out, 0, sizeof *out);
		out->n_steps = p->n_steps;
		out->n_lines = p->lines.n_lines;
		out->n_ranks = 1;
	}
	return 0;
}

const struct matcher_error *matcher_nvinspect_error(const struct matcher_nvinspect_parser *p)
{
	return p && p->dead ? &p->err : NULL;
}

size_t matcher_nvinspect_series_count(const struct matcher_nvinspect_parser *p)
{
	if (!p)
		return 0;
	return p->n_ents > p->most_series ? p->n_ents : p->most_series;
}

struct matcher_nvinspect_parser *
matcher_nvinspect_parser_new(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line)
{
	struct matcher_nvinspect_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->rank = rank;
	p->lines.max_line = max_line ? max_line : NVINSPECT_LINE_DEFAULT;
	buf_init(&p->lines.carry);
	p->max_series = MATCHER_NVINSPECT_MAX_SERIES;
	arena_init(&p->strs);
	matcher_strmap_init(&p->names);
	return p;
}

void matcher_nvinspect_set_limit(struct matcher_nvinspect_parser *p, size_t max_series)
{
	if (p)
		p->max_series = max_series ? max_series : MATCHER_NVINSPECT_MAX_SERIES;
}

void matcher_nvinspect_parser_free(struct matcher_nvinspect_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->lines.carry);
	arena_reset(&p->strs);
	matcher_strmap_reset(&p->names);
	free(p->ents);
	free(p->mv);
	free(p);
}

int matcher_nvinspect_detect(const char *data, size_t n)
{
	size_t pos = 0, k, m;
	const char *s;

	while (buf_sample_line(data, n, &pos, &s, &k)) {
		struct stat_line st;
		if (!logger_line(s, k, &m))
			return 0;
		int r = stat_message(s + m, k - m, &st);
		if (r == 0)
			continue; /* another logger message: the parser skips it too */
		return r == 1;
	}
	return 0;
}

int matcher_nvinspect_split(const char *name, size_t *layer_len, const char **tensor,
                            size_t *tensor_len, const char **stat)
{
	static const char *const roles[] = {"activation", "gradient", "weight",
	                                    "output",     "wgrad",    "dgrad"};
	size_t n = strlen(name), best = 0, best_len = 0;
	int found = 0;
	for (size_t i = 0; i < n; i++) {
		if (name[i] != '_')
			continue;
		for (size_t r = 0; r < sizeof roles / sizeof roles[0]; r++) {
			size_t rl = strlen(roles[r]);
			if (i + 1 + rl < n && name[i + 1 + rl] == '_' &&
			    !memcmp(name + i + 1, roles[r], rl) && i > 0) {
				best = i;
				best_len = rl;
				found = 1;
			}
		}
	}
	if (!found) {
		*layer_len = n;
		*tensor = name + n;
		*tensor_len = 0;
		*stat = name + n;
		return 0;
	}
	*layer_len = best;
	*tensor = name + best + 1;
	*tensor_len = best_len;
	*stat = name + best + 2 + best_len;
	return 1;
}

int matcher_nvinspect_rank_of_path(const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;
	base = base ? base + 1 : path;
	const char *g = base ? strstr(base, "globalrank-") : NULL;
	long v = 0;
	if (!g || g[11] < '0' || g[11] > '9')
		return -1;
	for (g += 11; *g >= '0' && *g <= '9'; g++)
		if ((v = v * 10 + (*g - '0')) > 1000000)
			return -1;
	return (int)v;
}
