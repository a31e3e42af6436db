/* lossfile.c - golden loss file push parser (see lossfile.h).
 *
 * Lines come from buf_lines_feed (buf.h): gathered in a buffer only when
 * a chunk ends inside one, parsed in place when wholly inside a chunk.
 * Values are read with matcher_train_parse_num (train_num.h), which also
 * gives the digits after the point; the value's own text is handed on
 * unchanged, so an exported file reproduces it byte for byte. */
#include "lossfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "train_num.h"

#define LOSSFILE_LINE_DEFAULT (64u * 1024)

struct matcher_lossfile_parser {
	struct matcher_trainlog_callbacks cb;
	int rank;
	struct buf_lines lines; /* max_line; a line split across chunks */
	unsigned long n_lines;
	int dead;
	int finished;
	char metric[MATCHER_LOSSFILE_NAME];
	/* a `# step NAME ...` header: the value columns (0: one, metric) */
	char cols[MATCHER_LOSSFILE_COLS][MATCHER_LOSSFILE_NAME];
	size_t n_cols;
	/* the other `# key: value` lines before the first value */
	char meta_key[MATCHER_LOSSFILE_META][MATCHER_LOSSFILE_NAME];
	char meta_val[MATCHER_LOSSFILE_META][MATCHER_LOSSFILE_META_VALUE];
	size_t n_meta;
	long last_step;
	unsigned long last_line;
	size_t n_steps;
	struct matcher_error err;
};

/* The first fatal error stands (matcher_error_fail). */
#define fail(p, code, line, ...) matcher_error_fail(&(p)->err, &(p)->dead, code, line, __VA_ARGS__)

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One value of a line: its text, value and decimals. */
struct lf_value {
	const char *t;
	size_t n;
	double v;
	int dec;
};

/* Parse "STEP VALUE [VALUE ...]" (already trimmed): the number of values
 * (1..cap) and the parts, else 0 (not such a line, or more than cap
 * values). */
static size_t value_line(const char *s, size_t n, long *step, struct lf_value *vals, size_t cap)
{
	size_t i = 0, nv = 0;
	long st = 0;
	if (!n || s[0] < '0' || s[0] > '9')
		return 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		if (st > 0x7fffffffL / 10)
			return 0;
		st = st * 10 + (s[i] - '0');
		if (st > 0x7fffffffL)
			return 0;
		i++;
	}
	if (i == n || !is_blank(s[i]))
		return 0;
	size_t b;
	while (buf_line_token(s, n, &i, &b)) {
		if (nv == cap || memchr(s + b, ',', i - b))
			return 0;
		struct lf_value *x = &vals[nv];
		x->t = s + b;
		x->n = i - b;
		if (matcher_train_parse_num(x->t, x->n, &x->v, &x->dec) != x->n)
			return 0;
		nv++;
	}
	*step = st;
	return nv;
}

static int metric_name_ok(const char *s, size_t n)
{
	if (!n || n >= MATCHER_LOSSFILE_NAME)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '/' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* `# step NAME NAME ...` (the text after "step "): the value columns. */
static int column_header(struct matcher_lossfile_parser *p, const char *s, size_t n,
                         unsigned long ln)
{
	size_t i = 0;
	p->n_cols = 0;
	size_t b;
	while (buf_line_token(s, n, &i, &b)) {
		if (p->n_cols == MATCHER_LOSSFILE_COLS || !metric_name_ok(s + b, i - b))
			return fail(
			        p, "bad_metric", ln,
			        "line %lu: `# step NAME ...` names at most %d metrics (letters, "
			        "digits, _ / . -, at most %d characters each)",
			        ln, MATCHER_LOSSFILE_COLS, MATCHER_LOSSFILE_NAME - 1);
		for (size_t k = 0; k < p->n_cols; k++)
			if (strlen(p->cols[k]) == i - b && !memcmp(p->cols[k], s + b, i - b))
				return fail(p, "bad_metric", ln, "line %lu names metric %.*s twice",
				            ln, (int)(i - b), s + b);
		memcpy(p->cols[p->n_cols], s + b, i - b);
		p->cols[p->n_cols][i - b] = 0;
		p->n_cols++;
	}
	return 0;
}

/* `# key: value` before the first value: kept as the file's meta (a key
 * of letters, digits, _ - .; the first MATCHER_LOSSFILE_META; values cut
 * to MATCHER_LOSSFILE_META_VALUE - 1 bytes).  Other comments are text. */
static void header_meta(struct matcher_lossfile_parser *p, const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t kn = colon ? (size_t)(colon - s) : 0;
	if (!kn || kn >= MATCHER_LOSSFILE_NAME || p->n_meta == MATCHER_LOSSFILE_META)
		return;
	for (size_t i = 0; i < kn; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return;
	}
	const char *v = colon + 1;
	size_t vn = n - kn - 1;
	buf_line_trim(&v, &vn);
	if (vn >= MATCHER_LOSSFILE_META_VALUE)
		vn = MATCHER_LOSSFILE_META_VALUE - 1;
	memcpy(p->meta_key[p->n_meta], s, kn);
	p->meta_key[p->n_meta][kn] = 0;
	memcpy(p->meta_val[p->n_meta], v, vn);
	p->meta_val[p->n_meta][vn] = 0;
	p->n_meta++;
}

static int handle_line(struct matcher_lossfile_parser *p, const char *s, size_t n)
{
	unsigned long ln = ++p->n_lines;
	if (memchr(s, 0, n))
		return fail(p, "binary_data", ln,
		            "line %lu holds a NUL byte: binary data, not a loss file", ln);
	buf_line_trim(&s, &n);
	if (!n)
		return 0;
	if (s[0] == '#') {
		const char *c = s + 1;
		size_t cn = n - 1;
		buf_line_trim(&c, &cn);
		if (cn >= 7 && memcmp(c, "metric:", 7) == 0) {
			c += 7, cn -= 7;
			buf_line_trim(&c, &cn);
			if (p->n_steps || !metric_name_ok(c, cn))
				return fail(
				        p, "bad_metric", ln,
				        "line %lu: `# metric: NAME` must come before the first "
				        "value "
				        "and name a metric (letters, digits, _ / . -, at most %d "
				        "characters)",
				        ln, MATCHER_LOSSFILE_NAME - 1);
			memcpy(p->metric, c, cn);
			p->metric[cn] = 0;
		} else if (!p->n_steps && cn > 5 && memcmp(c, "step", 4) == 0 && is_blank(c[4])) {
			return column_header(p, c + 5, cn - 5, ln);
		} else if (!p->n_steps) {
			header_meta(p, c, cn);
		}
		return 0;
	}
	long step;
	struct lf_value vals[MATCHER_LOSSFILE_COLS];
	size_t want = p->n_cols ? p->n_cols : 1;
	size_t nv = value_line(s, n, &step, vals, MATCHER_LOSSFILE_COLS);
	if (!nv)
		return fail(p, "not_loss_file", ln,
		            "line %lu is not `STEP VALUE` (a step number, then a decimal value): "
		            "%.*s",
		            ln, (int)(n < 60 ? n : 60), s);
	if (nv != want && p->n_cols)
		return fail(
		        p, "not_loss_file", ln,
		        "line %lu has %zu value(s); the header `# step ...` names %zu column(s)",
		        ln, nv, want);
	if (nv != want)
		return fail(
		        p, "not_loss_file", ln,
		        "line %lu has %zu values: a file of several metrics names them first in "
		        "a `# step NAME1 NAME2 ...` header line",
		        ln, nv);
	if (p->n_steps && step <= p->last_step)
		return fail(p, "step_order", ln,
		            "line %lu: step %ld does not follow step %ld (line %lu)", ln, step,
		            p->last_step, p->last_line);
	char text[MATCHER_LOSSFILE_COLS][64];
	struct matcher_metric_value mv[MATCHER_LOSSFILE_COLS];
	for (size_t k = 0; k < nv; k++) {
		if (vals[k].n >= sizeof text[k])
			return fail(p, "not_loss_file", ln,
			            "line %lu: a value has more than %zu characters", ln,
			            sizeof text[k] - 1);
		memcpy(text[k], vals[k].t, vals[k].n);
		text[k][vals[k].n] = 0;
		mv[k] = (struct matcher_metric_value){p->n_cols ? p->cols[k] : p->metric, text[k],
		                                      vals[k].v, vals[k].dec, MATCHER_PREC_DECIMAL};
	}
	struct matcher_step_record rec = {p->rank, step, 0, ln, MATCHER_STEP_NEW, mv, nv};
	p->last_step = step;
	p->last_line = ln;
	p->n_steps++;
	if (p->cb.on_step && p->cb.on_step(p->cb.ctx, &rec))
		return fail(p, "callback", ln, "stopped by the caller at line %lu", ln);
	return 0;
}

static int on_line(void *ctx, const char *s, size_t n)
{
	return handle_line(ctx, s, n);
}

static int on_long(void *ctx, const char *s, size_t n)
{
	struct matcher_lossfile_parser *p = ctx;
	(void)s, (void)n;
	return fail(p, "line_too_long", p->n_lines + 1, "line %lu is longer than %zu bytes",
	            p->n_lines + 1, p->lines.max_line);
}

int matcher_lossfile_feed(struct matcher_lossfile_parser *p, const char *data, size_t n)
{
	if (!p || p->dead || p->finished)
		return -1;
	int rc = buf_lines_feed(&p->lines, data, n, on_line, on_long, p);
	return rc == -2 ? fail(p, "oom", 0, "out of memory") : rc ? -1 : 0;
}

int matcher_lossfile_finish(struct matcher_lossfile_parser *p, struct matcher_trainlog_summary *out)
{
	if (!p || p->dead || p->finished)
		return -1;
	if (buf_lines_finish(&p->lines, on_line, p))
		return -1;
	if (!p->n_steps)
		return fail(p, "no_values", 0, "no `STEP VALUE` line in %lu lines: not a loss file",
		            p->n_lines);
	p->finished = 1;
	if (out) {
		memset(out, 0, sizeof *out);
		out->n_steps = p->n_steps;
		out->n_lines = p->n_lines;
		out->n_ranks = 1;
	}
	return 0;
}

const struct matcher_error *matcher_lossfile_error(const struct matcher_lossfile_parser *p)
{
	return p && p->dead ? &p->err : NULL;
}

struct matcher_lossfile_parser *
matcher_lossfile_parser_new(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line)
{
	struct matcher_lossfile_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->rank = rank;
	p->lines.max_line = max_line ? max_line : LOSSFILE_LINE_DEFAULT;
	buf_init(&p->lines.carry);
	snprintf(p->metric, sizeof p->metric, "loss");
	return p;
}

void matcher_lossfile_parser_free(struct matcher_lossfile_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->lines.carry);
	free(p);
}

int matcher_lossfile_detect(const char *data, size_t n)
{
	size_t pos = 0, k;
	const char *s;

	while (buf_sample_line(data, n, &pos, &s, &k)) {
		long step;
		struct lf_value vals[MATCHER_LOSSFILE_COLS];
		/* the first value-or-not line decides: a later bad line is the
		 * parser's error, with its line number */
		return value_line(s, k, &step, vals, MATCHER_LOSSFILE_COLS) > 0;
	}
	return 0;
}

size_t matcher_lossfile_meta(const struct matcher_lossfile_parser *p, size_t i, const char **key,
                             const char **value)
{
	if (!p || i >= p->n_meta)
		return p ? p->n_meta : 0;
	*key = p->meta_key[i];
	*value = p->meta_val[i];
	return p->n_meta;
}
