/* megatron.c - Megatron-LM golden values push parser (see megatron.h).
 *
 * The bytes are buffered up to the cap and read with jansson at
 * finish(): the whole tree is checked first (every refusal before the
 * first record), then the metrics are merged by step with one cursor per
 * metric, so a record carries every metric logged at its step and steps
 * arrive increasing across metrics, as the trainlog consumers expect.
 *
 * Why the values are DECIMAL with Python's repr as their text: jansson
 * hands out doubles, not the digits written.  Megatron writes these files
 * with Python's json module, whose float text is repr(), the shortest
 * decimal that reads back to the same double; its values are rounded to
 * 5 decimals before that (common.py's round(x.value, 5)).  So the
 * shortest round-trip text of the double, laid out as repr lays it out
 * (matcher_format_pyfloat), is exactly the text in the file ("10.85678",
 * "1654.0", "1e-05"), and the exact decimal differences of train_num.h
 * apply to it like to a golden loss file's values. */
#include "megatron.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "train_num.h"

#define STEP_MAX 0x7fffffffL

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && is_ws(s[i]))
		i++;
	return i;
}

/* One metric of the file: its JSON value and where emission stands. */
struct series {
	char name[MATCHER_MEGATRON_NAME];
	const char *key;      /* the file's name (borrowed from the tree) */
	json_t *values;       /* object or array (borrowed) */
	long start, interval; /* the list form's steps */
	size_t i, n;          /* list form: next index, count */
	void *it;             /* object form: next member */
};

struct matcher_megatron_parser {
	struct matcher_trainlog_callbacks cb;
	int rank;
	struct buf data;
	int dead;
	int finished;
	char meta_key[MATCHER_MEGATRON_META][MATCHER_MEGATRON_NAME];
	char meta_val[MATCHER_MEGATRON_META][MATCHER_MEGATRON_META_VALUE];
	size_t n_meta;
	struct matcher_error err;
};

/* The first fatal error stands (matcher_error_fail). */
#define fail(p, code, line, ...) matcher_error_fail(&(p)->err, &(p)->dead, code, line, __VA_ARGS__)

void matcher_format_pyfloat(double v, char *out, size_t cap)
{
	if (!cap)
		return;
	if (isnan(v) || isinf(v)) {
		snprintf(out, cap, "%s", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
		return;
	}
	/* the shortest %e that reads back: its digits and exponent */
	char e[40];
	for (int prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof e, "%.*e", prec, v);
		if (strtod(e, NULL) == v)
			break;
	}
	const char *s = e;
	int neg = *s == '-';
	s += neg;
	char dig[24];
	size_t nd = 0;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9' && nd < sizeof dig - 1)
			dig[nd++] = *s;
	int exp = *s == 'e' ? atoi(s + 1) : 0;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	dig[nd] = 0;
	char t[48];
	size_t o = 0;
	if (neg)
		t[o++] = '-';
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			t[o++] = '0';
			t[o++] = '.';
			for (int k = 0; k < -exp - 1; k++)
				t[o++] = '0';
			for (size_t k = 0; k < nd; k++)
				t[o++] = dig[k];
		} else {
			for (int k = 0; k <= exp; k++)
				t[o++] = (size_t)k < nd ? dig[k] : '0';
			t[o++] = '.';
			if ((size_t)exp + 1 >= nd)
				t[o++] = '0';
			for (size_t k = (size_t)exp + 1; k < nd; k++)
				t[o++] = dig[k];
		}
		t[o] = 0;
	} else {
		t[o++] = dig[0];
		if (nd > 1) {
			t[o++] = '.';
			for (size_t k = 1; k < nd; k++)
				t[o++] = dig[k];
		}
		snprintf(t + o, sizeof t - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	}
	snprintf(out, cap, "%s", t);
}

void matcher_megatron_metric(const char *key, char *out, size_t cap)
{
	size_t o = 0;
	if (cap < 2)
		return;
	if (!strcmp(key, "lm loss")) {
		snprintf(out, cap, "loss");
		return;
	}
	for (const char *s = key; *s && o + 1 < cap; s++) {
		char c = *s;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '/' || c == '-';
		out[o++] = ok ? c : '_';
	}
	if (!o)
		out[o++] = '_';
	out[o] = 0;
}

/* A step key: decimal digits, at most STEP_MAX.  1 and *step, or 0. */
static int step_key(const char *k, long *step)
{
	long st = 0;
	if (!*k)
		return 0;
	for (; *k; k++) {
		if (*k < '0' || *k > '9' || st > STEP_MAX / 10)
			return 0;
		st = st * 10 + (*k - '0');
		if (st > STEP_MAX)
			return 0;
	}
	*step = st;
	return 1;
}

/* A value's text, number and decimals: a JSON number (an integer as
 * written, a real as Python's repr) or a nan / inf / -inf string.
 * 0, or -1 when it is neither. */
static int value_of(const json_t *v, char *text, size_t cap, double *num, int *dec)
{
	if (json_is_integer(v)) {
		snprintf(text, cap, "%lld", (long long)json_integer_value(v));
		*num = (double)json_integer_value(v);
		*dec = 0;
		return 0;
	}
	if (json_is_real(v)) {
		matcher_format_pyfloat(json_real_value(v), text, cap);
	} else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		const char *t = !strcasecmp(s, "nan")                                   ? "nan"
		                : !strcasecmp(s, "inf") || !strcasecmp(s, "infinity")   ? "inf"
		                : !strcasecmp(s, "-inf") || !strcasecmp(s, "-infinity") ? "-inf"
		                                                                        : NULL;
		if (!t)
			return -1;
		snprintf(text, cap, "%s", t);
	} else {
		return -1;
	}
	size_t n = strlen(text);
	return matcher_train_parse_num(text, n, num, dec) == n ? 0 : -1;
}

/* An integer member `field` of metric key m: 0 and *out, or -1 (failed). */
static int int_field(struct matcher_megatron_parser *p, const char *key, json_t *m,
                     const char *field, long *out)
{
	json_t *v = json_object_get(m, field);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > STEP_MAX)
		return fail(p, "bad_metric", 0,
		            "\"%.60s\": %s must be a non-negative integer (the golden values' "
		            "steps)",
		            key, field);
	*out = (long)json_integer_value(v);
	return 0;
}

/* Check metric key -> m and set up its cursor in *s.  0, or -1. */
static int check_metric(struct matcher_megatron_parser *p, const char *key, json_t *m,
                        struct series *s)
{
	long start, end, interval;
	json_t *vals = json_object_get(m, "values");
	if (!vals)
		return fail(p, "bad_metric", 0, "\"%.60s\" has no \"values\"", key);
	if (int_field(p, key, m, "start_step", &start) < 0 ||
	    int_field(p, key, m, "end_step", &end) < 0 ||
	    int_field(p, key, m, "step_interval", &interval) < 0)
		return -1;
	if (interval < 1 || end < start)
		return fail(p, "bad_metric", 0,
		            "\"%.60s\": start_step %ld, end_step %ld, step_interval %ld are "
		            "inconsistent (start <= end, interval >= 1)",
		            key, start, end, interval);
	s->key = key;
	s->values = vals;
	s->start = start;
	s->interval = interval;
	char text[48];
	double num;
	int dec;
	if (json_is_array(vals)) {
		size_t n = json_array_size(vals);
		if (!n)
			return fail(p, "bad_metric", 0, "\"%.60s\": \"values\" is empty", key);
		if ((n - 1) > (size_t)((end - start) / interval))
			return fail(p, "bad_metric", 0,
			            "\"%.60s\": %zu values do not fit start_step %ld, end_step "
			            "%ld, step_interval %ld",
			            key, n, start, end, interval);
		for (size_t i = 0; i < n; i++)
			if (value_of(json_array_get(vals, i), text, sizeof text, &num, &dec) < 0)
				return fail(p, "bad_value", 0,
				            "\"%.60s\": \"values\"[%zu] (step %ld) is not a number "
				            "or \"nan\"",
				            key, i, start + (long)i * interval);
		s->n = n;
		return 0;
	}
	if (!json_is_object(vals))
		return fail(p, "bad_metric", 0,
		            "\"%.60s\": \"values\" must be an object of \"<step>\": value or a "
		            "list",
		            key);
	if (!json_object_size(vals))
		return fail(p, "bad_metric", 0, "\"%.60s\": \"values\" is empty", key);
	long last = -1, step = 0;
	const char *k;
	json_t *v;
	json_object_foreach(vals, k, v)
	{
		if (!step_key(k, &step))
			return fail(p, "bad_metric", 0,
			            "\"%.60s\": \"values\" key \"%.40s\" is not a step number", key,
			            k);
		if (step <= last)
			return fail(p, "step_order", 0,
			            "\"%.60s\": step \"%s\" does not follow step %ld", key, k,
			            last);
		if (step < start || step > end || (last < 0 && step != start))
			return fail(
			        p, "bad_metric", 0,
			        "\"%.60s\": step \"%s\" is inconsistent with start_step %ld and "
			        "end_step %ld",
			        key, k, start, end);
		if (value_of(v, text, sizeof text, &num, &dec) < 0)
			return fail(p, "bad_value", 0,
			            "\"%.60s\": \"values\".\"%s\" is not a number or \"nan\"", key,
			            k);
		last = step;
	}
	if (last != end)
		return fail(p, "bad_metric", 0, "\"%.60s\": the last step %ld is not end_step %ld",
		            key, last, end);
	s->it = json_object_iter(vals);
	return 0;
}

/* A top-level scalar kept as meta (the first MATCHER_MEGATRON_META). */
static void keep_meta(struct matcher_megatron_parser *p, const char *key, const json_t *v)
{
	if (p->n_meta == MATCHER_MEGATRON_META)
		return;
	char *val = p->meta_val[p->n_meta];
	if (json_is_string(v))
		snprintf(val, MATCHER_MEGATRON_META_VALUE, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(val, MATCHER_MEGATRON_META_VALUE, "%lld",
		         (long long)json_integer_value(v));
	else if (json_is_real(v))
		matcher_format_pyfloat(json_real_value(v), val, MATCHER_MEGATRON_META_VALUE);
	else
		snprintf(val, MATCHER_MEGATRON_META_VALUE, "%s",
		         json_is_true(v) ? "true" : "false");
	snprintf(p->meta_key[p->n_meta], MATCHER_MEGATRON_NAME, "%s", key);
	p->n_meta++;
}

/* The next step of series s, or -1 when it has no more. */
static long next_step(const struct series *s)
{
	long step;
	if (json_is_array(s->values))
		return s->i < s->n ? s->start + (long)s->i * s->interval : -1;
	return s->it && step_key(json_object_iter_key(s->it), &step) ? step : -1;
}

/* Emit the merged records: the smallest next step of all series, with
 * every series' value at it.  0, or -1 (callback). */
static int emit(struct matcher_megatron_parser *p, struct series *ser, size_t n_ser,
                size_t *n_steps)
{
	struct matcher_metric_value mv[MATCHER_MEGATRON_METRICS];
	char text[MATCHER_MEGATRON_METRICS][48];
	for (;;) {
		long step = -1;
		for (size_t i = 0; i < n_ser; i++) {
			long s = next_step(&ser[i]);
			if (s >= 0 && (step < 0 || s < step))
				step = s;
		}
		if (step < 0)
			return 0;
		size_t nm = 0;
		for (size_t i = 0; i < n_ser; i++) {
			struct series *s = &ser[i];
			if (next_step(s) != step)
				continue;
			json_t *v;
			if (json_is_array(s->values)) {
				v = json_array_get(s->values, s->i++);
			} else {
				v = json_object_iter_value(s->it);
				s->it = json_object_iter_next(s->values, s->it);
			}
			struct matcher_metric_value *m = &mv[nm];
			(void)value_of(v, text[nm], sizeof text[nm], &m->value, &m->decimals);
			m->name = s->name;
			m->text = text[nm];
			m->prec = MATCHER_PREC_DECIMAL;
			nm++;
		}
		struct matcher_step_record rec = {p->rank, step, 0, 0, MATCHER_STEP_NEW, mv, nm};
		(*n_steps)++;
		if (p->cb.on_step && p->cb.on_step(p->cb.ctx, &rec))
			return fail(p, "callback", 0, "stopped by the caller at step %ld", step);
	}
}

/* Check the tree and emit.  0, or -1. */
static int read_tree(struct matcher_megatron_parser *p, json_t *root, size_t *n_steps)
{
	struct series ser[MATCHER_MEGATRON_METRICS];
	size_t n_ser = 0;
	const char *key;
	json_t *v;
	if (!json_is_object(root))
		return fail(p, "not_megatron", 0,
		            "golden values must be a JSON object of metric name -> {start_step, "
		            "end_step, step_interval, values}");
	json_object_foreach(root, key, v)
	{
		if (json_is_number(v) || json_is_string(v) || json_is_boolean(v)) {
			keep_meta(p, key, v);
			continue;
		}
		if (!json_is_object(v))
			return fail(p, "not_megatron", 0,
			            "\"%.60s\" is neither a metric {start_step, end_step, "
			            "step_interval, values} nor a number or string",
			            key);
		if (n_ser == MATCHER_MEGATRON_METRICS)
			return fail(p, "bad_metric", 0,
			            "\"%.60s\": more than %d metrics in one file", key,
			            MATCHER_MEGATRON_METRICS);
		struct series *s = &ser[n_ser];
		memset(s, 0, sizeof *s);
		matcher_megatron_metric(key, s->name, sizeof s->name);
		for (size_t i = 0; i < n_ser; i++)
			if (!strcmp(ser[i].name, s->name))
				return fail(p, "bad_metric", 0,
				            "\"%.60s\" and \"%.60s\" are both metric %s",
				            ser[i].key, key, s->name);
		if (check_metric(p, key, v, s) < 0)
			return -1;
		n_ser++;
	}
	if (!n_ser)
		return fail(p, "no_metrics", 0,
		            "no metric in the golden values (%zu members): nothing to compare",
		            json_object_size(root));
	return emit(p, ser, n_ser, n_steps);
}

int matcher_megatron_feed(struct matcher_megatron_parser *p, const char *data, size_t n)
{
	if (!p || p->dead || p->finished)
		return -1;
	if (n > MATCHER_MEGATRON_MAX_BYTES - p->data.len)
		return fail(p, "too_large", 0, "golden values over %u MiB",
		            MATCHER_MEGATRON_MAX_BYTES >> 20);
	return buf_append(&p->data, data, n) < 0 ? fail(p, "oom", 0, "out of memory") : 0;
}

int matcher_megatron_finish(struct matcher_megatron_parser *p, struct matcher_trainlog_summary *out)
{
	if (!p || p->dead || p->finished)
		return -1;
	const char *s = p->data.data;
	size_t n = p->data.len;
	if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		s += 3, n -= 3;
	if (skip_ws(s, n, 0) == n)
		return fail(p, "no_metrics", 0, "empty golden values file: nothing to compare");
	json_error_t jerr;
	json_t *root = json_loadb(s, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!root)
		return fail(p, "json_syntax", jerr.line > 0 ? (unsigned long)jerr.line : 0,
		            "golden values are not JSON: %s (line %d, column %d)", jerr.text,
		            jerr.line, jerr.column);
	size_t n_steps = 0;
	int rc = read_tree(p, root, &n_steps);
	json_decref(root);
	if (rc < 0)
		return -1;
	p->finished = 1;
	if (out) {
		unsigned long lines = 0;
		for (size_t i = 0; i < p->data.len; i++)
			lines += p->data.data[i] == '\n';
		if (p->data.len && p->data.data[p->data.len - 1] != '\n')
			lines++;
		memset(out, 0, sizeof *out);
		out->n_steps = n_steps;
		out->n_lines = lines;
		out->n_ranks = 1;
	}
	buf_reset(&p->data);
	return 0;
}

size_t matcher_megatron_meta(const struct matcher_megatron_parser *p, size_t i, const char **key,
                             const char **value)
{
	if (!p || i >= p->n_meta)
		return p ? p->n_meta : 0;
	*key = p->meta_key[i];
	*value = p->meta_val[i];
	return p->n_meta;
}

const struct matcher_error *matcher_megatron_error(const struct matcher_megatron_parser *p)
{
	return p && p->dead ? &p->err : NULL;
}

struct matcher_megatron_parser *
matcher_megatron_parser_new(const struct matcher_trainlog_callbacks *cb, int rank, size_t max_line)
{
	(void)max_line;
	struct matcher_megatron_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->rank = rank;
	buf_init(&p->data);
	return p;
}

void matcher_megatron_parser_free(struct matcher_megatron_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->data);
	free(p);
}

/* ---- detection ------------------------------------------------------------ */

/* A JSON string at s[i]: the index past its closing quote, or 0 (not a
 * string, or cut).  Its content s[i+1 .. end-1) raw (escapes kept). */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	if (i >= n || s[i] != '"')
		return 0;
	for (i++; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
		else if ((unsigned char)s[i] < 0x20)
			return 0;
	}
	return 0;
}

int matcher_megatron_detect(const char *data, size_t n)
{
	static const char *const first[] = {"\"start_step\"", "\"end_step\"", "\"step_interval\"",
	                                    "\"values\""};
	size_t i = 0, e;
	if (!data)
		return 0;
	if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	i = skip_ws(data, n, i);
	if (i >= n || data[i] != '{')
		return 0;
	i = skip_ws(data, n, i + 1);
	if (i < n && data[i] == '}')
		return skip_ws(data, n, i + 1) == n; /* `{}`: nothing to compare */
	if (!(e = skip_string(data, n, i)))
		return 0;
	i = skip_ws(data, n, e);
	if (i >= n || data[i] != ':')
		return 0;
	i = skip_ws(data, n, i + 1);
	if (i >= n || data[i] != '{')
		return 0;
	i = skip_ws(data, n, i + 1);
	if (!(e = skip_string(data, n, i)))
		return 0;
	for (size_t k = 0; k < sizeof first / sizeof first[0]; k++)
		if (e - i == strlen(first[k]) && !memcmp(data + i, first[k], e - i))
			return 1;
	return 0;
}
