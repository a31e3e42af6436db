/* mllog.c - MLPerf MLLOG push parser (see mllog.h).
 *
 * Lines come from buf_lines_feed (buf.h): gathered only when a chunk ends
 * inside one; a long line that is not an MLLOG line is dropped.  Each
 * MLLOG line's JSON goes to jansson whole (json_loadb); Python's NaN and
 * Infinity tokens, which jansson refuses, are first rewritten into marker
 * strings (pyjson.h).  The values of the current
 * step wait in a small table until a later step, or the end, emits them
 * as one record: a record per step is what the consumers expect (a second
 * record of a step would replace the first). */
#include "mllog.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "pyjson.h"
#include "tfevents.h" /* matcher_format_binary */
#include "train_num.h"

#define MLLOG_LINE_DEFAULT (64u * 1024)
#define MLLOG_TEXT         32 /* a value's text incl. NUL */

/* The step keys, in the order the first value picks the axis. */
static const char *const AXES[] = {"samples_count", "epoch_num", "step_num"};
#define N_AXES 3

/* The pending step. */
struct group {
	int active;
	int axis;           /* index into AXES, -1 until the first value */
	long step;          /* the pending step */
	unsigned long line; /* its first value's line */
	unsigned long lines[MATCHER_MLLOG_METRICS];
	size_t n;
	char name[MATCHER_MLLOG_METRICS][MATCHER_MLLOG_NAME];
	char text[MATCHER_MLLOG_METRICS][MLLOG_TEXT];
	double value[MATCHER_MLLOG_METRICS];
	int dec[MATCHER_MLLOG_METRICS];
	size_t n_emitted; /* records so far */
};

struct matcher_mllog_parser {
	struct matcher_trainlog_callbacks cb;
	int rank;
	struct buf_lines lines;
	struct buf json; /* a line's JSON with NaN / Infinity rewritten */
	unsigned long n_lines;
	unsigned long n_events; /* MLLOG lines */
	int dead;
	int finished;
	struct group g;
	char meta_key[MATCHER_MLLOG_META][MATCHER_MLLOG_NAME];
	char meta_val[MATCHER_MLLOG_META][MATCHER_MLLOG_META_VALUE];
	size_t n_meta;
	size_t n_copies;
	size_t n_warnings;
	unsigned n_warn_emitted;
	struct matcher_error err;
};

/* The first fatal error stands (matcher_error_fail). */
#define fail(p, code, line, ...) matcher_error_fail(&(p)->err, &(p)->dead, code, line, __VA_ARGS__)

static int warn(struct matcher_mllog_parser *p, unsigned long line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int warn(struct matcher_mllog_parser *p, unsigned long line, const char *fmt, ...)
{
	char msg[200];
	va_list ap;
	p->n_warnings++;
	if (p->n_warn_emitted >= MATCHER_MAX_WARNINGS_PER_CODE || !p->cb.on_warning)
		return 0;
	p->n_warn_emitted++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	struct matcher_warning w = {"skipped_value", line, msg, ""};
	if (p->cb.on_warning(p->cb.ctx, &w))
		return fail(p, "callback", line, "stopped by the caller at line %lu", line);
	return 0;
}

int matcher_mllog_line(const char *s, size_t n, size_t *json_at)
{
	size_t lim = n < MATCHER_MLLOG_PREFIX + 8 ? n : MATCHER_MLLOG_PREFIX + 8;
	const char *m = memmem(s, lim, ":::MLLOG", 8);
	if (!m || (size_t)(m - s) >= MATCHER_MLLOG_PREFIX)
		return 0;
	size_t i = (size_t)(m - s) + 8;
	if (i == n || (s[i] != ' ' && s[i] != '\t'))
		return 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == n || s[i] != '{')
		return 0;
	if (json_at)
		*json_at = i;
	return 1;
}

/* ---- values ---------------------------------------------------------------- */

/* A number's text as the file wrote it: an integer's digits, a double's
 * shortest round-trip text (Python's repr), nan / inf / -inf. */
static void number_text(const json_t *j, double v, char *out, size_t cap)
{
	if (json_is_integer(j)) {
		snprintf(out, cap, "%lld", (long long)json_integer_value(j));
		return;
	}
	matcher_format_binary(v, 0, out, cap);
	/* repr keeps a whole float's ".0" (1.0, 1e+16 stays) */
	size_t n = strlen(out);
	if (isfinite(v) && !strpbrk(out, ".e") && n + 2 < cap)
		memcpy(out + n, ".0", 3);
}

/* A step value: a non-negative integer (or an integral real up to 2^53).
 * 1 and *step, else 0. */
static int step_of(const json_t *j, long *step)
{
	if (json_is_integer(j) && json_integer_value(j) >= 0 &&
	    json_integer_value(j) <= 0x7fffffffffffffffLL) {
		*step = (long)json_integer_value(j);
		return 1;
	}
	if (json_is_real(j)) {
		double d = json_real_value(j);
		if (d >= 0 && d <= 9007199254740992.0 && d == floor(d)) {
			*step = (long)d;
			return 1;
		}
	}
	return 0;
}

static int name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n >= MATCHER_MLLOG_NAME)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '/' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* ---- steps ------------------------------------------------------------------ */

static int emit(struct matcher_mllog_parser *p)
{
	struct group *g = &p->g;
	if (!g->active || !g->n)
		return 0;
	struct matcher_metric_value mv[MATCHER_MLLOG_METRICS];
	for (size_t i = 0; i < g->n; i++)
		mv[i] = (struct matcher_metric_value){g->name[i], g->text[i], g->value[i],
		                                      g->dec[i], MATCHER_PREC_DECIMAL};
	struct matcher_step_record rec = {p->rank, g->step, 0, g->line, MATCHER_STEP_NEW, mv, g->n};
	g->n = 0;
	g->n_emitted++;
	if (p->cb.on_step && p->cb.on_step(p->cb.ctx, &rec))
		return fail(p, "callback", rec.line, "stopped by the caller at line %lu", rec.line);
	return 0;
}

/* The record's metric name of key: train_loss is loss, every other key
 * itself. */
static const char *metric_of(const char *key)
{
	return !strcmp(key, "train_loss") ? "loss" : key;
}

/* One series value of key from the event at line ln with metadata md. */
static int add_value(struct matcher_mllog_parser *p, const char *key, const json_t *jv, double v,
                     const json_t *md, unsigned long ln)
{
	const char *name = metric_of(key);
	struct group *g = &p->g;
	long step = 0;
	if (!name_ok(name))
		return warn(p, ln,
		            "line %lu: %s is not a metric name (letters, digits, _ / . -, at most "
		            "%d characters): its value is skipped",
		            ln, key, MATCHER_MLLOG_NAME - 1);
	if (g->axis < 0) {
		for (int a = 0; a < N_AXES && g->axis < 0; a++)
			if (step_of(json_object_get(md, AXES[a]), &step))
				g->axis = a;
		if (g->axis < 0)
			return warn(p, ln,
			            "line %lu: %s has no samples_count, epoch_num or step_num that "
			            "is a whole number: its value is skipped",
			            ln, key);
	} else if (!step_of(json_object_get(md, AXES[g->axis]), &step)) {
		return warn(p, ln,
		            "line %lu: %s has no whole-number %s (the run's step): its value is "
		            "skipped",
		            ln, key, AXES[g->axis]);
	}
	if (g->active && step < g->step)
		return fail(p, "step_order", ln,
		            "line %lu: %s at %s %ld comes after %s %ld (line %lu): steps must not "
		            "go back",
		            ln, key, AXES[g->axis], step, AXES[g->axis], g->step, g->line);
	if (g->active && step > g->step && emit(p) < 0)
		return -1;
	if (!g->active || step > g->step) {
		g->active = 1;
		g->step = step;
		g->line = ln;
		g->n = 0;
	}
	char text[MLLOG_TEXT];
	number_text(jv, v, text, sizeof text);
	for (size_t i = 0; i < g->n; i++) {
		if (strcmp(g->name[i], name) != 0)
			continue;
		if (!strcmp(g->text[i], text)) {
			p->n_copies++; /* another rank's copy */
			return 0;
		}
		return fail(p, "step_order", ln,
		            "line %lu: %s at %s %ld is %s, but line %lu gave %s: one step, two "
		            "values",
		            ln, key, AXES[g->axis], step, text, g->lines[i], g->text[i]);
	}
	if (g->n == MATCHER_MLLOG_METRICS)
		return fail(p, "too_many_metrics", ln, "line %lu: more than %d values at %s %ld",
		            ln, MATCHER_MLLOG_METRICS, AXES[g->axis], step);
	size_t k = g->n++;
	snprintf(g->name[k], sizeof g->name[k], "%s", name);
	memcpy(g->text[k], text, sizeof text);
	g->value[k] = v;
	g->lines[k] = ln;
	g->dec[k] = 0;
	if (isfinite(v)) {
		double back;
		matcher_train_parse_num(text, strlen(text), &back, &g->dec[k]);
	}
	return 0;
}

/* ---- meta -------------------------------------------------------------------- */

/* Append j as text (strings bare at the top, quoted inside arrays; numbers
 * as written) to b, at most cap bytes in all.  -1 on OOM. */
static int value_text(struct buf *b, const json_t *j, int top, size_t cap)
{
	char num[MLLOG_TEXT];
	double v;
	if (b->len >= cap)
		return 0;
	if (matcher_pyjson_number(j, &v)) {
		number_text(j, v, num, sizeof num);
		return buf_puts(b, num);
	}
	if (json_is_string(j))
		return top ? buf_puts(b, json_string_value(j))
		           : buf_printf(b, "\"%s\"", json_string_value(j));
	if (json_is_boolean(j))
		return buf_puts(b, json_is_true(j) ? "true" : "false");
	if (json_is_null(j))
		return buf_puts(b, "null");
	if (json_is_array(j)) {
		if (buf_putc(b, '[') < 0)
			return -1;
		for (size_t i = 0; i < json_array_size(j) && b->len < cap; i++)
			if ((i && buf_puts(b, ", ") < 0) ||
			    value_text(b, json_array_get(j, i), 0, cap) < 0)
				return -1;
		return buf_putc(b, ']');
	}
	return buf_puts(b, "{...}");
}

static int add_meta(struct matcher_mllog_parser *p, const char *key, const json_t *v)
{
	if (p->n_meta == MATCHER_MLLOG_META || !name_ok(key) || json_is_null(v) ||
	    json_is_object(v))
		return 0;
	for (size_t i = 0; i < p->n_meta; i++)
		if (!strcmp(p->meta_key[i], key))
			return 0; /* the first occurrence stays */
	struct buf t = BUF_INIT;
	if (value_text(&t, v, 1, MATCHER_MLLOG_META_VALUE) < 0) {
		buf_reset(&t);
		return fail(p, "oom", 0, "out of memory");
	}
	size_t n = t.len;
	if (n >= MATCHER_MLLOG_META_VALUE) {
		n = MATCHER_MLLOG_META_VALUE - 1;
		while (n && ((unsigned char)t.data[n] & 0xC0) == 0x80)
			n--; /* not inside a UTF-8 sequence */
	}
	snprintf(p->meta_key[p->n_meta], sizeof p->meta_key[0], "%s", key);
	memcpy(p->meta_val[p->n_meta], t.data ? t.data : "", n);
	p->meta_val[p->n_meta][n] = 0;
	p->n_meta++;
	buf_reset(&t);
	return 0;
}

/* ---- events ------------------------------------------------------------------ */

static int has_axis(const json_t *md)
{
	for (int a = 0; a < N_AXES; a++)
		if (json_object_get(md, AXES[a]))
			return 1;
	return 0;
}

static int handle_event(struct matcher_mllog_parser *p, const json_t *ev, unsigned long ln)
{
	const char *key = json_string_value(json_object_get(ev, "key"));
	const char *type = json_string_value(json_object_get(ev, "event_type"));
	const json_t *v = json_object_get(ev, "value");
	const json_t *md = json_object_get(ev, "metadata");
	if (!json_is_object(ev) || !key)
		return fail(p, "not_mllog_event", ln,
		            "line %lu: an MLLOG event is a JSON object with a string \"key\"", ln);
	if (!json_is_object(md))
		md = NULL;
	if (type && !strcmp(type, "INTERVAL_END") && !strcmp(key, "run_stop")) {
		const json_t *st = json_object_get(md, "status");
		return json_is_string(st) ? add_meta(p, "run_stop_status", st) : 0;
	}
	if (!type || strcmp(type, "POINT_IN_TIME") != 0)
		return 0;
	if (!md || !has_axis(md))
		return add_meta(p, key, v);
	double d;
	if (matcher_pyjson_number(v, &d))
		return add_value(p, key, v, d, md, ln);
	if (!strcmp(key, "tracked_stats") && json_is_object(v)) {
		const char *k;
		const json_t *x;
		json_object_foreach((json_t *)v, k, x)
		{
			if (matcher_pyjson_number(x, &d) && add_value(p, k, x, d, md, ln) < 0)
				return -1;
		}
	}
	return 0;
}

static int handle_line(struct matcher_mllog_parser *p, const char *s, size_t n)
{
	unsigned long ln = ++p->n_lines;
	size_t at;
	if (memchr(s, 0, n))
		return fail(p, "binary_data", ln,
		            "line %lu holds a NUL byte: binary data, not an MLLOG file", ln);
	if (n && s[n - 1] == '\r')
		n--;
	if (!matcher_mllog_line(s, n, &at))
		return 0;
	p->n_events++;
	int rw = matcher_pyjson_mark_specials(s + at, n - at, &p->json);
	if (rw < 0)
		return fail(p, "oom", ln, "out of memory");
	const char *js = rw ? p->json.data : s + at;
	size_t jn = rw ? p->json.len : n - at;
	json_error_t je;
	json_t *ev = json_loadb(js, jn, JSON_REJECT_DUPLICATES, &je);
	if (!ev && json_error_code(&je) == json_error_numeric_overflow)
		ev = json_loadb(js, jn, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &je);
	/* the column: jansson's position counts the bytes read through the
	 * offending token, so it is that token's last byte (1-based) */
	if (!ev)
		return fail(p, "bad_json", ln, "line %lu, column %zu: the MLLOG JSON is broken: %s",
		            ln, at + (size_t)(je.position > 0 ? je.position : 1), je.text);
	int rc = handle_event(p, ev, ln);
	json_decref(ev);
	return rc;
}

static int on_line(void *ctx, const char *s, size_t n)
{
	return handle_line(ctx, s, n);
}

/* A line over max_line: an MLLOG line is refused, any other is dropped. */
static int on_long(void *ctx, const char *s, size_t n)
{
	struct matcher_mllog_parser *p = ctx;
	unsigned long ln = ++p->n_lines;
	if (matcher_mllog_line(s, n, NULL))
		return fail(p, "line_too_long", ln,
		            "line %lu is an MLLOG line longer than %zu bytes", ln,
		            p->lines.max_line);
	if (memchr(s, 0, n))
		return fail(p, "binary_data", ln,
		            "line %lu holds a NUL byte: binary data, not an MLLOG file", ln);
	return 0;
}

int matcher_mllog_feed(struct matcher_mllog_parser *p, const char *data, size_t n)
{
	if (!p || p->dead || p->finished)
		return -1;
	int rc = buf_lines_feed(&p->lines, data, n, on_line, on_long, p);
	return rc == -2 ? fail(p, "oom", 0, "out of memory") : rc ? -1 : 0;
}

int matcher_mllog_finish(struct matcher_mllog_parser *p, struct matcher_trainlog_summary *out)
{
	if (!p || p->dead || p->finished)
		return -1;
	if (buf_lines_finish(&p->lines, on_line, p))
		return -1;
	if (emit(p) < 0)
		return -1;
	if (!p->g.n_emitted) {
		if (!p->n_events)
			return fail(p, "no_values", 0, "no `:::MLLOG` line in %lu lines",
			            p->n_lines);
		return fail(p, "no_values", 0,
		            "no values in %lu MLLOG lines: no POINT_IN_TIME number with a "
		            "whole-number epoch_num, samples_count or step_num",
		            p->n_events);
	}
	p->finished = 1;
	if (out) {
		memset(out, 0, sizeof *out);
		out->n_steps = p->g.n_emitted;
		out->n_copies = p->n_copies;
		out->n_lines = p->n_lines;
		out->n_warnings = p->n_warnings;
		out->n_ranks = 1;
	}
	return 0;
}

const struct matcher_error *matcher_mllog_error(const struct matcher_mllog_parser *p)
{
	return p && p->dead ? &p->err : NULL;
}

size_t matcher_mllog_meta(const struct matcher_mllog_parser *p, size_t i, const char **key,
                          const char **value)
{
	if (!p || i >= p->n_meta)
		return p ? p->n_meta : 0;
	*key = p->meta_key[i];
	*value = p->meta_val[i];
	return p->n_meta;
}

struct matcher_mllog_parser *matcher_mllog_parser_new(const struct matcher_trainlog_callbacks *cb,
                                                      int rank, size_t max_line)
{
	struct matcher_mllog_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->rank = rank;
	p->lines.max_line = max_line ? max_line : MLLOG_LINE_DEFAULT;
	buf_init(&p->lines.carry);
	buf_init(&p->json);
	p->g.axis = -1;
	return p;
}

void matcher_mllog_parser_free(struct matcher_mllog_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->lines.carry);
	buf_reset(&p->json);
	free(p);
}

int matcher_mllog_event_line(const char *s, size_t n)
{
	size_t at;
	while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return matcher_mllog_line(s, n, &at) && s[n - 1] == '}' &&
	       memmem(s + at, n - at, "\"key\"", 5) != NULL;
}

/* A stdout metric line: `step:` and `loss:` both on it. */
static int stdout_metric_line(const char *s, size_t n)
{
	return memmem(s, n, "step:", 5) && memmem(s, n, "loss:", 5);
}

int matcher_mllog_detect(const char *data, size_t n)
{
	while (data && n) {
		const char *nl = memchr(data, '\n', n);
		if (!nl)
			break; /* a partial line is not judged */
		size_t k = (size_t)(nl - data);
		if (matcher_mllog_event_line(data, k))
			return 1;
		if (stdout_metric_line(data, k))
			return 0;
		data = nl + 1;
		n -= k + 1;
	}
	return 0;
}
