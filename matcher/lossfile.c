/* lossfile.c - golden loss file push parser (see lossfile.h).
 *
 * Lines are gathered in a buffer only when a chunk ends inside one; a
 * line wholly inside a chunk is parsed in place.  Values are read with
 * matcher_train_parse_num (train_num.h), which also gives the digits after
 * the point; the value's own text is handed on unchanged, so an exported
 * file reproduces it byte for byte. */
#include "lossfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "train_num.h"

#define LOSSFILE_LINE_DEFAULT (64u * 1024)

struct matcher_lossfile_parser {
	struct matcher_trainlog_callbacks cb;
	int rank;
	size_t max_line;
	struct buf line; /* a line split across chunks */
	unsigned long n_lines;
	int bom_checked;
	int dead;
	int finished;
	char metric[MATCHER_LOSSFILE_NAME];
	long last_step;
	unsigned long last_line;
	size_t n_steps;
	struct matcher_error err;
};

static int fail(struct matcher_lossfile_parser *p, const char *code, unsigned long line,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct matcher_lossfile_parser *p, const char *code, unsigned long line,
                const char *fmt, ...)
{
	va_list ap;
	if (p->dead)
		return -1;
	p->dead = 1;
	p->err.code = code;
	p->err.line = line;
	va_start(ap, fmt);
	vsnprintf(p->err.message, sizeof p->err.message, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* s[0..n) without surrounding blanks and a trailing CR. */
static void trim(const char **s, size_t *n)
{
	while (*n && ((*s)[*n - 1] == '\r' || is_blank((*s)[*n - 1])))
		(*n)--;
	while (*n && is_blank(**s))
		(*s)++, (*n)--;
}

/* Parse "STEP VALUE" (already trimmed): 1 and the parts, else 0. */
static int value_line(const char *s, size_t n, long *step, const char **vt, size_t *vn, double *v,
                      int *dec)
{
	size_t i = 0;
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
	while (i < n && is_blank(s[i]))
		i++;
	const char *t = s + i;
	size_t tn = n - i;
	if (!tn || memchr(t, ',', tn) || memchr(t, ' ', tn) || memchr(t, '\t', tn))
		return 0;
	if (matcher_train_parse_num(t, tn, v, dec) != tn)
		return 0;
	*step = st;
	*vt = t;
	*vn = tn;
	return 1;
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

static int handle_line(struct matcher_lossfile_parser *p, const char *s, size_t n)
{
	unsigned long ln = ++p->n_lines;
	if (memchr(s, 0, n))
		return fail(p, "binary_data", ln,
		            "line %lu holds a NUL byte: binary data, not a loss file", ln);
	trim(&s, &n);
	if (!n)
		return 0;
	if (s[0] == '#') {
		const char *c = s + 1;
		size_t cn = n - 1;
		trim(&c, &cn);
		if (cn >= 7 && memcmp(c, "metric:", 7) == 0) {
			c += 7, cn -= 7;
			trim(&c, &cn);
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
		}
		return 0;
	}
	long step;
	const char *vt;
	size_t vn;
	double v;
	int dec;
	if (!value_line(s, n, &step, &vt, &vn, &v, &dec))
		return fail(p, "not_loss_file", ln,
		            "line %lu is not `STEP VALUE` (a step number, then a decimal value): "
		            "%.*s",
		            ln, (int)(n < 60 ? n : 60), s);
	if (p->n_steps && step <= p->last_step)
		return fail(p, "step_order", ln,
		            "line %lu: step %ld does not follow step %ld (line %lu)", ln, step,
		            p->last_step, p->last_line);
	char text[64];
	if (vn >= sizeof text)
		return fail(p, "not_loss_file", ln,
		            "line %lu: the value has more than %zu characters", ln,
		            sizeof text - 1);
	memcpy(text, vt, vn);
	text[vn] = 0;
	struct matcher_metric_value mv = {p->metric, text, v, dec, MATCHER_PREC_DECIMAL};
	struct matcher_step_record rec = {p->rank, step, 0, ln, MATCHER_STEP_NEW, &mv, 1};
	p->last_step = step;
	p->last_line = ln;
	p->n_steps++;
	if (p->cb.on_step && p->cb.on_step(p->cb.ctx, &rec))
		return fail(p, "callback", ln, "stopped by the caller at line %lu", ln);
	return 0;
}

int matcher_lossfile_feed(struct matcher_lossfile_parser *p, const char *data, size_t n)
{
	if (!p || p->dead || p->finished)
		return -1;
	if (!p->bom_checked) {
		/* the BOM may itself arrive split: judge once 3 bytes are there */
		if (p->line.len + n < 3 && !memchr(data, '\n', n))
			return buf_append(&p->line, data, n) < 0
			               ? fail(p, "oom", 0, "out of memory")
			               : 0;
		p->bom_checked = 1;
		if (p->line.len) {
			if (buf_append(&p->line, data, n) < 0)
				return fail(p, "oom", 0, "out of memory");
			struct buf b = p->line;
			buf_init(&p->line);
			size_t skip = b.len >= 3 && memcmp(b.data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
			int rc = matcher_lossfile_feed(p, b.data + skip, b.len - skip);
			buf_reset(&b);
			return rc;
		}
		if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
			data += 3, n -= 3;
	}
	while (n) {
		const char *nl = memchr(data, '\n', n);
		size_t k = nl ? (size_t)(nl - data) : n;
		if (p->line.len + k > p->max_line)
			return fail(p, "line_too_long", p->n_lines + 1,
			            "line %lu is longer than %zu bytes", p->n_lines + 1,
			            p->max_line);
		if (!nl)
			return buf_append(&p->line, data, n) < 0
			               ? fail(p, "oom", 0, "out of memory")
			               : 0;
		int rc;
		if (p->line.len) {
			if (buf_append(&p->line, data, k) < 0)
				return fail(p, "oom", 0, "out of memory");
			rc = handle_line(p, p->line.data, p->line.len);
			buf_clear(&p->line);
		} else {
			rc = handle_line(p, data, k);
		}
		if (rc < 0)
			return -1;
		data += k + 1;
		n -= k + 1;
	}
	return 0;
}

int matcher_lossfile_finish(struct matcher_lossfile_parser *p, struct matcher_trainlog_summary *out)
{
	if (!p || p->dead || p->finished)
		return -1;
	if (!p->bom_checked && p->line.len >= 3 && memcmp(p->line.data, "\xEF\xBB\xBF", 3) == 0) {
		memmove(p->line.data, p->line.data + 3, p->line.len - 3);
		p->line.len -= 3;
	}
	if (p->line.len) {
		int rc = handle_line(p, p->line.data, p->line.len);
		buf_clear(&p->line);
		if (rc < 0)
			return -1;
	}
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
	p->max_line = max_line ? max_line : LOSSFILE_LINE_DEFAULT;
	buf_init(&p->line);
	snprintf(p->metric, sizeof p->metric, "loss");
	return p;
}

void matcher_lossfile_parser_free(struct matcher_lossfile_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->line);
	free(p);
}

int matcher_lossfile_detect(const char *data, size_t n)
{
	if (!data)
		return 0;
	if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		data += 3, n -= 3;
	while (n) {
		const char *nl = memchr(data, '\n', n);
		if (!nl)
			break; /* a partial line is not judged */
		const char *s = data;
		size_t k = (size_t)(nl - data);
		data = nl + 1;
		n -= k + 1;
		trim(&s, &k);
		if (!k || s[0] == '#')
			continue;
		long step;
		const char *vt;
		size_t vn;
		double v;
		int dec;
		/* the first value-or-not line decides: a later bad line is the
		 * parser's error, with its line number */
		return value_line(s, k, &step, &vt, &vn, &v, &dec);
	}
	return 0;
}
