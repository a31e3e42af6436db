/* msprobe.c - Ascend msprobe dump.json / stack.json as activation entries
 * (msprobe.h; the mapping is matcher/spec/msprobe.md).
 *
 * The dump is buffered (bounded by max_bytes), Python's non-standard
 * NaN / Infinity / -Infinity literals are turned into strings (jansson
 * refuses them), the document is loaded with jansson, and each member of
 * "data" becomes one struct matcher_entry, in document order (jansson keeps
 * insertion order).  Numbers are printed back as the shortest text that
 * reads back to the same double, so equal values give equal text. */
#include "msprobe.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyjson.h"

/* ---- small helpers ------------------------------------------------------- */

static void set_err(struct matcher_error *e, const char *code, unsigned long line, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
static void set_err(struct matcher_error *e, const char *code, unsigned long line, const char *fmt,
                    ...)
{
	va_list ap;
	e->code = code;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Skip a UTF-8 BOM and blanks. */
static size_t skip_lead(const char *s, size_t n)
{
	size_t i = 0;
	if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < n && is_blank(s[i]))
		i++;
	return i;
}

/* Is there a member `"name"` followed by blanks and ':' (and, with
 * want_obj, blanks and '{') in s[0..n)? */
static int has_member(const char *s, size_t n, const char *name, int want_obj)
{
	size_t l = strlen(name);
	const char *p = s, *end = s + n;
	while ((p = memmem(p, (size_t)(end - p), name, l)) != NULL) {
		const char *q = p + l;
		p++;
		while (q < end && is_blank(*q))
			q++;
		if (q >= end || *q != ':')
			continue;
		if (!want_obj)
			return 1;
		q++;
		while (q < end && is_blank(*q))
			q++;
		if (q < end && *q == '{')
			return 1;
	}
	return 0;
}

int matcher_msprobe_detect(const char *data, size_t n)
{
	if (!data)
		return 0;
	size_t i = skip_lead(data, n);
	if (i >= n || data[i] != '{')
		return 0;
	data += i;
	n -= i;
	return has_member(data, n, "\"data\"", 1) &&
	       (has_member(data, n, "\"task\"", 0) || has_member(data, n, "\"framework\"", 0) ||
	        has_member(data, n, "\"dump_data_dir\"", 0) ||
	        has_member(data, n, "\"input_args\"", 0));
}

/* The shortest %g text that reads back as v ("nan", "inf", "-inf" for the
 * specials). */
static void fmt_num(double v, char *out, size_t cap)
{
	if (v != v) {
		snprintf(out, cap, "nan");
		return;
	}
	if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
		snprintf(out, cap, v > 0 ? "inf" : "-inf");
		return;
	}
	/* a decimal of at most DBL_DIG (15) digits reads back exactly and %.15g
	 * prints it without trailing zeros: start there */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, cap, "%.*g", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

/* ---- keys ------------------------------------------------------------------ */

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int seg_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(s, w, n) == 0;
}

static int is_direction(const char *s, size_t n)
{
	return seg_is(s, n, "forward") || seg_is(s, n, "backward") ||
	       seg_is(s, n, "parameters_grad");
}

int matcher_msprobe_key(const char *name, struct buf *out)
{
	size_t n = strlen(name);
	buf_clear(out);
	/* the last three dot-separated segments: s1.s2.s3 */
	const char *d3 = n ? memrchr(name, '.', n) : NULL;
	const char *d2 = d3 && d3 > name ? memrchr(name, '.', (size_t)(d3 - name)) : NULL;
	const char *d1 = d2 && d2 > name ? memrchr(name, '.', (size_t)(d2 - name)) : NULL;
	if (!d2 || !d1 || d1 == name)
		return buf_append(out, name, n);
	const char *s2 = d2 + 1, *s3 = d3 + 1;
	size_t l2 = (size_t)(d3 - s2), l3 = (size_t)(name + n - s3);
	const char *dir, *num;
	size_t ldir, lnum;
	if (all_digits(s2, l2) && is_direction(s3, l3)) { /* API: base.N.dir */
		num = s2, lnum = l2, dir = s3, ldir = l3;
	} else if (is_direction(s2, l2) && all_digits(s3, l3)) { /* module: base.dir.N */
		dir = s2, ldir = l2, num = s3, lnum = l3;
	} else {
		return buf_append(out, name, n);
	}
	const char *op = d1 + 1;
	size_t lop = (size_t)(d2 - op);
	return buf_printf(out, "%.*s.%.*s/op_%.*s_%.*s", (int)(d2 - name), name, (int)ldir, dir,
	                  (int)lnum, num, (int)lop, op);
}

/* ---- stack.json ------------------------------------------------------------ */

struct matcher_msprobe_stack {
	json_t *map; /* entry key -> location string */
};

/* Load a JSON object (NaN literals quoted).  NULL with *err set. */
static json_t *load_object(const char *data, size_t n, size_t max_bytes, const char *what,
                           struct matcher_error *err)
{
	if (!max_bytes)
		max_bytes = MATCHER_MSPROBE_MAX_BYTES_DEFAULT;
	if (n > max_bytes) {
		set_err(err, "too_large", 0, "%s is over the %zu MiB limit of a msprobe file", what,
		        max_bytes >> 20);
		return NULL;
	}
	if (n >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
		data += 3;
		n -= 3;
	}
	struct buf fixed = BUF_INIT;
	int q = matcher_pyjson_mark_specials(data, n, &fixed);
	if (q < 0) {
		set_err(err, "oom", 0, "out of memory");
		return NULL;
	}
	json_error_t je;
	json_t *root = json_loadb(q ? fixed.data : data, q ? fixed.len : n,
	                          JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &je);
	buf_reset(&fixed);
	if (!root) {
		set_err(err, "bad_json", (unsigned long)(je.line > 0 ? je.line : 0),
		        "%s is not valid JSON: line %d, column %d: %s", what, je.line, je.column,
		        je.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		set_err(err, "not_activation_log", 0, "%s is not a JSON object", what);
		return NULL;
	}
	return root;
}

/* "File /a/b.py, line 61, in fn, \n code" -> "/a/b.py:61" in out.  0, or
 * -1 when the frame is not of that form. */
static int frame_location(const char *f, char *out, size_t cap)
{
	if (strncmp(f, "File ", 5) != 0)
		return -1;
	const char *path = f + 5, *ln = strstr(path, ", line ");
	if (!ln)
		return -1;
	const char *num = ln + 7;
	size_t lnum = 0;
	while (num[lnum] >= '0' && num[lnum] <= '9')
		lnum++;
	if (!lnum)
		return -1;
	snprintf(out, cap, "%.*s:%.*s", (int)(ln - path), path, (int)lnum, num);
	return 0;
}

/* The location of a frame list: the first frame outside msprobe's hooks
 * and torch's module plumbing, else the first frame. */
static void frames_location(json_t *frames, char *out, size_t cap)
{
	size_t i;
	json_t *f;
	out[0] = 0;
	json_array_foreach(frames, i, f)
	{
		const char *s = json_string_value(f);
		char loc[512];
		if (!s || frame_location(s, loc, sizeof loc) < 0)
			continue;
		if (!out[0])
			snprintf(out, cap, "%s", loc);
		if (strstr(loc, "/msprobe/") || strstr(loc, "/torch/nn/modules/module.py") ||
		    strstr(loc, "/mindspore/nn/cell.py"))
			continue;
		snprintf(out, cap, "%s", loc);
		return;
	}
}

static int frames_are_strings(json_t *a)
{
	size_t i;
	json_t *v;
	json_array_foreach(a, i, v) if (!json_is_string(v)) return 0;
	return 1;
}

static int stack_put(struct matcher_msprobe_stack *st, const char *name, const char *loc,
                     struct buf *kb)
{
	if (!loc[0])
		return 0;
	if (matcher_msprobe_key(name, kb) < 0)
		return -1;
	return json_object_set_new(st->map, kb->data ? kb->data : "", json_string(loc));
}

int matcher_msprobe_stack_parse(const char *data, size_t n, size_t max_bytes,
                                struct matcher_msprobe_stack **out, struct matcher_error *err)
{
	*out = NULL;
	json_t *root = load_object(data, n, max_bytes, "stack.json", err);
	if (!root)
		return -1;
	struct matcher_msprobe_stack *st = calloc(1, sizeof *st);
	struct buf kb = BUF_INIT;
	if (!st || !(st->map = json_object()))
		goto oom;
	const char *k;
	json_t *v;
	json_object_foreach(root, k, v)
	{
		char loc[512];
		if (!json_is_array(v) || !frames_are_strings(v)) {
			/* {"0": [[names], [frames]]} (either order) */
			json_t *a = json_array_get(v, 0), *b = json_array_get(v, 1);
			if (json_array_size(v) != 2 || !json_is_array(a) || !json_is_array(b) ||
			    !frames_are_strings(a) || !frames_are_strings(b)) {
				set_err(err, "bad_stack", 0,
				        "stack.json: \"%.120s\": expected a list of frames or "
				        "[[op names], [frames]]",
				        k);
				goto fail;
			}
			const char *a0 = json_string_value(json_array_get(a, 0));
			json_t *names = a0 && !strncmp(a0, "File ", 5) ? b : a;
			json_t *frames = names == a ? b : a;
			size_t i;
			json_t *nm;
			frames_location(frames, loc, sizeof loc);
			json_array_foreach(names, i, nm) if (stack_put(st, json_string_value(nm),
			                                               loc, &kb) < 0) goto oom;
			continue;
		}
		frames_location(v, loc, sizeof loc);
		if (stack_put(st, k, loc, &kb) < 0)
			goto oom;
	}
	json_decref(root);
	buf_reset(&kb);
	*out = st;
	return 0;
oom:
	set_err(err, "oom", 0, "out of memory");
fail:
	json_decref(root);
	buf_reset(&kb);
	matcher_msprobe_stack_free(st);
	return -1;
}

const char *matcher_msprobe_stack_find(const struct matcher_msprobe_stack *st, const char *key)
{
	return st && key ? json_string_value(json_object_get(st->map, key)) : NULL;
}

size_t matcher_msprobe_stack_count(const struct matcher_msprobe_stack *st)
{
	return st ? json_object_size(st->map) : 0;
}

void matcher_msprobe_stack_free(struct matcher_msprobe_stack *st)
{
	if (!st)
		return;
	json_decref(st->map);
	free(st);
}

/* ---- dump.json ---------------------------------------------------------- */

struct matcher_msprobe_parser {
	struct matcher_actlog_callbacks cb;
	size_t max_bytes;
	const struct matcher_msprobe_stack *stack;
	struct buf text;
	int dead;
	struct matcher_error err;
};

struct matcher_msprobe_parser *matcher_msprobe_parser_new(const struct matcher_actlog_callbacks *cb,
                                                          size_t max_bytes,
                                                          const struct matcher_msprobe_stack *stack)
{
	struct matcher_msprobe_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->max_bytes = max_bytes ? max_bytes : MATCHER_MSPROBE_MAX_BYTES_DEFAULT;
	p->stack = stack;
	buf_init(&p->text);
	return p;
}

void matcher_msprobe_parser_free(struct matcher_msprobe_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->text);
	free(p);
}

const struct matcher_error *matcher_msprobe_error(const struct matcher_msprobe_parser *p)
{
	return &p->err;
}

int matcher_msprobe_feed(struct matcher_msprobe_parser *p, const char *data, size_t n)
{
	if (p->dead)
		return -1;
	if (n > p->max_bytes - p->text.len) {
		p->dead = 1;
		set_err(&p->err, "too_large", 0,
		        "the msprobe dump is over the %zu MiB limit of a dump.json (split the "
		        "dump by step or rank)",
		        p->max_bytes >> 20);
		return -1;
	}
	if (buf_append(&p->text, data, n) < 0) {
		p->dead = 1;
		set_err(&p->err, "oom", 0, "out of memory");
		return -1;
	}
	return 0;
}

/* The texts of one op, built while its record is walked. */
struct op_texts {
	struct buf shape, out_hash, in_hash;
	char stat[MATCHER_N_STATS][40];
	int have_stats; /* the first output tensor was seen */
	int n_out, n_in;
};

/* A stat value as text: numbers (shortest form), NaN / Infinity strings,
 * booleans; "" for null.  -1 when the value is of no stat type. */
static int stat_text(json_t *v, char *out, size_t cap)
{
	const char *s;
	double d;
	if (!v || json_is_null(v))
		out[0] = 0;
	else if (matcher_pyjson_number(v, &d)) /* also a bare NaN / Infinity */
		fmt_num(d, out, cap);
	else if (json_is_boolean(v))
		snprintf(out, cap, "%s", json_is_true(v) ? "true" : "false");
	else if ((s = json_string_value(v)) != NULL)
		snprintf(out, cap, "%s",
		         !strcmp(s, "NaN")         ? "nan"
		         : !strcmp(s, "Infinity")  ? "inf"
		         : !strcmp(s, "-Infinity") ? "-inf"
		                                   : s);
	else
		return -1;
	return 0;
}

static int is_tensor(json_t *o)
{
	return json_object_get(o, "shape") || json_object_get(o, "dtype");
}

/* A hash item: ", " between items. */
static int add_item(struct buf *b, int *count, const char *s)
{
	if ((*count)++ && buf_puts(b, ", ") < 0)
		return -1;
	return buf_puts(b, s);
}

/* One tensor of op `name`: its identity (md5 / crc, else Norm) into the
 * hash list; for outputs also its shape, and the first one's stats.  0,
 * -1 bad record (err set), -2 OOM. */
static int take_tensor(struct matcher_msprobe_parser *p, const char *name, json_t *t, int output,
                       struct op_texts *o)
{
	static const char *const stat_keys[MATCHER_N_STATS] = {NULL,  NULL,  "Norm",
	                                                       "Min", "Max", "Mean"};
	char st[MATCHER_N_STATS][40] = {{0}};
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		if (stat_keys[i] &&
		    stat_text(json_object_get(t, stat_keys[i]), st[i], sizeof st[i]) < 0) {
			set_err(&p->err, "bad_dump", 0,
			        "op \"%.150s\": tensor stat \"%s\" is not a number", name,
			        stat_keys[i]);
			return -1;
		}
	}
	json_t *md5 = json_object_get(t, "md5");
	if (!md5)
		md5 = json_object_get(t, "crc32");
	const char *id = json_string_value(md5);
	if (md5 && !json_is_null(md5) && !id) {
		set_err(&p->err, "bad_dump", 0, "op \"%.150s\": tensor \"md5\" is not a string",
		        name);
		return -1;
	}
	if (!id)
		id = st[MATCHER_STAT_L2];
	if (add_item(output ? &o->out_hash : &o->in_hash, output ? &o->n_out : &o->n_in, id) < 0)
		return -2;
	if (!output)
		return 0;
	json_t *shape = json_object_get(t, "shape");
	if (shape && !json_is_array(shape) && !json_is_null(shape)) {
		set_err(&p->err, "bad_dump", 0, "op \"%.150s\": tensor \"shape\" is not a list",
		        name);
		return -1;
	}
	if (o->shape.len && buf_puts(&o->shape, "; ") < 0)
		return -2;
	if (buf_putc(&o->shape, '[') < 0)
		return -2;
	size_t i;
	json_t *d;
	json_array_foreach(shape, i, d)
	{
		char num[40];
		if (!json_is_number(d)) {
			set_err(&p->err, "bad_dump", 0,
			        "op \"%.150s\": tensor \"shape\" holds a non-number", name);
			return -1;
		}
		fmt_num(json_number_value(d), num, sizeof num);
		if (buf_printf(&o->shape, "%s%s", i ? ", " : "", num) < 0)
			return -2;
	}
	const char *dtype = json_string_value(json_object_get(t, "dtype"));
	if (buf_printf(&o->shape, "], Dtype: %s", dtype ? dtype : "?") < 0)
		return -2;
	if (!o->have_stats) {
		o->have_stats = 1;
		memcpy(o->stat, st, sizeof st);
	}
	return 0;
}

/* Walk an argument value: tensors, scalars ({"type", "value"}), lists and
 * dicts of them; nulls and other values are skipped.  Same returns as
 * take_tensor. */
static int walk(struct matcher_msprobe_parser *p, const char *name, json_t *v, int output,
                int depth, struct op_texts *o)
{
	if (depth > MATCHER_MSPROBE_MAX_DEPTH) {
		set_err(&p->err, "bad_dump", 0,
		        "op \"%.150s\": arguments nested deeper than %d levels", name,
		        MATCHER_MSPROBE_MAX_DEPTH);
		return -1;
	}
	size_t i;
	json_t *e;
	const char *k;
	int rc;
	if (json_is_array(v)) {
		json_array_foreach(v, i, e) if ((rc = walk(p, name, e, output, depth + 1, o)) <
		                                0) return rc;
		return 0;
	}
	if (!json_is_object(v))
		return 0;
	if (is_tensor(v))
		return take_tensor(p, name, v, output, o);
	json_t *val = json_object_get(v, "value");
	if (val && json_object_get(v, "type")) {
		char txt[40];
		if (!json_is_number(val) && !json_is_boolean(val))
			return 0;
		stat_text(val, txt, sizeof txt);
		return add_item(output ? &o->out_hash : &o->in_hash, output ? &o->n_out : &o->n_in,
		                txt) < 0
		               ? -2
		               : 0;
	}
	json_object_foreach(v, k,
	                    e) if ((rc = walk(p, name, e, output, depth + 1, o)) < 0) return rc;
	return 0;
}

/* Is one of the name's dot-separated segments `backward` or
 * `parameters_grad`? */
static int is_phase_backward(const char *name)
{
	const char *s = name;
	while (*s) {
		size_t l = strcspn(s, ".");
		if (seg_is(s, l, "backward") || seg_is(s, l, "parameters_grad"))
			return 1;
		s += l + (s[l] == '.');
	}
	return 0;
}

/* The 1-based line of `"name"` in the text at or after *pos (dump order is
 * text order, so the search moves forward only); when not found (a name
 * written with escapes) the line where the search stands. */
static unsigned long name_line(const struct buf *t, const char *name, size_t *pos,
                               unsigned long *line)
{
	size_t l = strlen(name);
	const char *s = t->data, *end = s + t->len, *p = s + *pos;
	while (p < end) {
		const char *q = memchr(p, '"', (size_t)(end - p));
		if (!q)
			break;
		if ((size_t)(end - q) > l + 1 && q[l + 1] == '"' && memcmp(q + 1, name, l) == 0) {
			for (const char *c = s + *pos; c < q; c++)
				*line += *c == '\n';
			*pos = (size_t)(q - s);
			return *line;
		}
		p = q + 1;
	}
	return *line;
}

/* The members of an op record that hold its inputs and outputs. */
static const char *const INPUT_KEYS[] = {"input_args", "input_kwargs", "input", "parameters"};

static int emit_op(struct matcher_msprobe_parser *p, const char *name, json_t *rec, size_t order,
                   unsigned long line, struct buf *key)
{
	struct op_texts o;
	memset(&o, 0, sizeof o);
	int rc = 0;
	if (!json_is_object(rec)) {
		set_err(&p->err, "bad_dump", line, "op \"%.150s\": its record is not an object",
		        name);
		return -1;
	}
	for (size_t i = 0; i < sizeof INPUT_KEYS / sizeof INPUT_KEYS[0] && !rc; i++)
		rc = walk(p, name, json_object_get(rec, INPUT_KEYS[i]), 0, 0, &o);
	json_t *out = json_object_get(rec, "output");
	if (!rc && out)
		rc = walk(p, name, out, 1, 0, &o);
	else if (!rc && !json_object_get(rec, "input_args") && !json_object_get(rec, "input"))
		/* parameters_grad records: {"weight": tensor, ...} are outputs */
		rc = walk(p, name, rec, 1, 0, &o);
	if (!rc && matcher_msprobe_key(name, key) < 0)
		rc = -2;
	if (rc == 0) {
		struct matcher_entry e;
		memset(&e, 0, sizeof e);
		e.key = key->data ? key->data : "";
		if (o.shape.len)
			e.stats[MATCHER_STAT_SHAPE] = o.shape.data;
		for (int i = MATCHER_STAT_L2; i < MATCHER_N_STATS && o.have_stats; i++) {
			if (!o.stat[i][0])
				continue;
			e.stats[i] = o.stat[i];
			if (matcher_parse_number(o.stat[i], strlen(o.stat[i]), &e.stat_num[i]))
				e.stat_isnum |= 1u << i;
		}
		e.output_hash = o.n_out ? o.out_hash.data : NULL;
		e.input_hashes = o.n_in ? o.in_hash.data : NULL;
		e.location = matcher_msprobe_stack_find(p->stack, e.key);
		e.phase = is_phase_backward(name) ? MATCHER_BACKWARD : MATCHER_FORWARD;
		e.phase_text = e.phase == MATCHER_BACKWARD ? "backward" : "forward";
		e.line = line;
		e.order = order;
		if (p->cb.on_entry && p->cb.on_entry(p->cb.ctx, &e)) {
			set_err(&p->err, "callback", line, "the entry callback failed");
			rc = -1;
		}
	}
	if (rc == -2)
		set_err(&p->err, "oom", 0, "out of memory");
	else if (rc == -1 && !p->err.line)
		p->err.line = line;
	buf_reset(&o.shape);
	buf_reset(&o.out_hash);
	buf_reset(&o.in_hash);
	return rc < 0 ? -1 : 0;
}

int matcher_msprobe_finish(struct matcher_msprobe_parser *p, struct matcher_actlog_summary *out)
{
	if (p->dead)
		return -1;
	p->dead = 1; /* one finish per parser */
	json_t *root = load_object(p->text.data ? p->text.data : "", p->text.len, p->max_bytes,
	                           "dump.json", &p->err);
	if (!root)
		return -1;
	json_t *data = json_object_get(root, "data");
	if (!json_is_object(data)) {
		json_decref(root);
		set_err(&p->err, "not_activation_log", 0,
		        "not an msprobe dump: no \"data\" object of op records");
		return -1;
	}
	unsigned long n_lines = 0;
	for (size_t i = 0; i < p->text.len; i++)
		n_lines += p->text.data[i] == '\n';
	if (p->text.len && p->text.data[p->text.len - 1] != '\n')
		n_lines++;
	struct matcher_actlog_header h = {(long)json_object_size(data), 0, NULL};
	int rc = 0;
	if (p->cb.on_header && p->cb.on_header(p->cb.ctx, &h)) {
		set_err(&p->err, "callback", 0, "the header callback failed");
		rc = -1;
	}
	struct buf key = BUF_INIT;
	size_t order = 0, pos = 0;
	unsigned long line = 1;
	const char *name;
	json_t *rec;
	json_object_foreach(data, name, rec)
	{
		if (rc)
			break;
		unsigned long at = name_line(&p->text, name, &pos, &line);
		rc = emit_op(p, name, rec, order++, at, &key);
	}
	buf_reset(&key);
	json_decref(root);
	if (rc)
		return -1;
	if (out) {
		memset(out, 0, sizeof *out);
		out->n_entries = order;
		out->n_lines = n_lines;
		out->header_total = h.total;
	}
	buf_reset(&p->text);
	return 0;
}
