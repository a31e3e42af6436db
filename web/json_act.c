/* json_act.c - activation result and row JSON through jansson (see
 * json_act.h for the shapes and the NaN / UTF-8 policy).
 *
 * Every builder collects set/append failures in one flag and returns NULL
 * (dropping the half-built value) instead of emitting an object with a
 * silently missing field.  Rows are written by a direct writer
 * (web_act_row_append) for speed: the one row serializer. */
#include "json_act.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	unsigned lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xE0)
		lo = 0xA0; /* overlong */
	else if (c == 0xED)
		hi = 0x9F; /* surrogates */
	else if (c == 0xF0)
		lo = 0x90; /* overlong */
	else if (c == 0xF4)
		hi = 0x8F; /* > U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	}
	return len;
}

/* A JSON string for s (null for NULL); invalid bytes become U+FFFD. */
static json_t *jstr(const char *s)
{
	struct buf b = BUF_INIT;
	size_t n, i = 0;
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	n = strlen(s);
	while (i < n) {
		size_t k = utf8_seq((const unsigned char *)s + i, n - i);

		if (k == 0) {
			if (buf_append(&b, "\xEF\xBF\xBD", 3) < 0)
				goto done;
			i++;
		} else {
			if (buf_append(&b, s + i, k) < 0)
				goto done;
			i += k;
		}
	}
	j = json_stringn(b.data ? b.data : "", b.len);
done:
	buf_reset(&b);
	return j;
}

static json_t *jdist(double d)
{
	return d < 0 || !isfinite(d) ? json_null() : json_real(d);
}

static json_t *jrow(size_t i)
{
	return i == MATCHER_NO_ROW ? json_null() : json_integer((json_int_t)i);
}

/* set: steals v; returns non-zero on failure (also when v is NULL). */
static int set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v) != 0;
}

static int push(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) != 0;
}

static json_t *finish(json_t *o, int bad)
{
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *web_act_policy_json(const struct matcher_act_policy *p)
{
	json_t *o = json_object(), *ops;
	int bad = !o;
	size_t i;

	if (bad)
		return NULL;
	bad |= set(o, "name", json_string(matcher_act_policy_name(p)));
	if (!p || p->kind != MATCHER_POLICY_TOLERANCE)
		return finish(o, bad);
	bad |= set(o, "max_hash_distance", jdist(p->max_hash_distance));
	ops = json_array();
	bad |= !ops;
	for (i = 0; ops && i < p->n_allow_only_ops; i++)
		bad |= push(ops, jstr(p->allow_only_ops[i]));
	bad |= set(o, "allow_only_ops", ops);
	return finish(o, bad);
}

/* {"row","a_key","b_key","phase",...} for one row index, or null. */
static json_t *row_ref(const struct matcher_match_result *r, size_t i)
{
	const struct matcher_row *row;
	json_t *o;
	int bad;

	if (!r || i == MATCHER_NO_ROW || i >= r->n_rows)
		return json_null();
	row = &r->rows[i];
	o = json_object();
	if (!o)
		return NULL;
	bad = set(o, "row", json_integer((json_int_t)i));
	bad |= set(o, "a_key", row->a ? jstr(row->a->key) : json_null());
	bad |= set(o, "b_key", row->b ? jstr(row->b->key) : json_null());
	bad |= set(o, "status", json_string(matcher_status_name(row->status)));
	bad |= set(o, "phase", json_string(matcher_phase_name(row->phase)));
	if (row->a && row->b) {
		bad |= set(o, "method", json_string(matcher_method_name(row->method)));
		bad |= set(o, "origin", json_boolean(row->origin));
		bad |= set(o, "shape_differs", json_boolean(row->shape_differs));
		bad |= set(o, "output_hash_distance", jdist(row->output_hash_distance));
		bad |= set(o, "input_hash_distance", jdist(row->input_hash_distance));
	}
	return finish(o, bad);
}

json_t *web_act_reasons_json(const struct matcher_act_verdict *v,
                             const struct matcher_match_result *r)
{
	json_t *arr = json_array();
	int bad = !arr;
	size_t i;

	for (i = 0; arr && v && i < v->n_reasons; i++) {
		const struct matcher_act_reason *rs = &v->reasons[i];
		json_t *o = json_object(), *det = json_object();

		if (!o || !det) {
			json_decref(o);
			json_decref(det);
			bad = 1;
			break;
		}
		bad |= set(o, "code", json_string(rs->code));
		bad |= set(o, "message", jstr(rs->message));
		bad |= set(det, "count", json_integer((json_int_t)rs->count));
		bad |= set(det, "tolerated", json_integer((json_int_t)rs->tolerated));
		bad |= set(det, "first", row_ref(r, rs->first_row));
		if (strcmp(rs->code, "diff_rows") == 0) {
			bad |= set(det, "first_forward", row_ref(r, rs->first_row_phase[0]));
			bad |= set(det, "first_backward", row_ref(r, rs->first_row_phase[1]));
			bad |= set(det, "max_hash_distance", jdist(rs->max_hash_distance));
		}
		bad |= set(o, "details", det);
		bad |= push(arr, o);
	}
	return finish(arr, bad);
}

static json_t *status_counts(const size_t *n)
{
	json_t *o = json_object();
	int bad = !o;
	int s;

	for (s = 0; o && s < MATCHER_N_STATUS; s++)
		bad |= set(o, matcher_status_name((enum matcher_status)s),
		           json_integer((json_int_t)n[s]));
	return finish(o, bad);
}

static json_t *summary_json(const struct web_act_doc *d)
{
	const struct matcher_match_summary *s = &d->result->summary;
	json_t *o = json_object(), *m, *ph, *x;
	int bad = !o;
	int i;

	if (bad)
		return NULL;
	bad |= set(o, "rows", json_integer((json_int_t)s->n_rows));
	for (i = 0; i < MATCHER_N_STATUS; i++)
		bad |= set(o, matcher_status_name((enum matcher_status)i),
		           json_integer((json_int_t)s->n_status[i]));
	m = json_object();
	bad |= !m;
	for (i = 0; m && i < MATCHER_N_METHODS; i++)
		bad |= set(m, matcher_method_name((enum matcher_method)i),
		           json_integer((json_int_t)s->n_method[i]));
	bad |= set(o, "methods", m);
	ph = json_object();
	bad |= !ph;
	if (ph) {
		bad |= set(ph, "forward", status_counts(s->n_phase_status[0]));
		bad |= set(ph, "backward", status_counts(s->n_phase_status[1]));
	}
	bad |= set(o, "phases", ph);
	bad |= set(o, "origins", json_integer((json_int_t)s->n_origin));
	bad |= set(o, "propagated", json_integer((json_int_t)s->n_propagated));
	bad |= set(o, "max_hash_distance", jdist(s->max_hash_distance));
	bad |= set(o, "max_hash_row", jrow(s->max_hash_row));
	bad |= set(o, "tolerated",
	           json_integer((json_int_t)(d->verdict ? d->verdict->n_tolerated : 0)));
	x = json_pack("{s:I,s:I}", "a", (json_int_t)(d->a ? d->a->n_entries : 0), "b",
	              (json_int_t)(d->b ? d->b->n_entries : 0));
	bad |= set(o, "entries", x);
	return finish(o, bad);
}

static json_t *excluded_json(const struct matcher_actlog *log)
{
	json_t *a = json_array();
	int bad = !a;
	size_t i;

	for (i = 0; a && log && i < log->n_excluded; i++)
		bad |= push(a, jstr(log->excluded[i]));
	return finish(a, bad);
}

static json_t *warnings_json(const struct matcher_warning *w, size_t n)
{
	json_t *a = json_array();
	int bad = !a;
	size_t i;

	for (i = 0; a && i < n; i++) {
		json_t *o = json_object();

		if (!o) {
			bad = 1;
			break;
		}
		bad |= set(o, "code", json_string(w[i].code));
		bad |= set(o, "line", json_integer((json_int_t)w[i].line));
		bad |= set(o, "message", jstr(w[i].message));
		if (w[i].excerpt)
			bad |= set(o, "excerpt", jstr(w[i].excerpt));
		bad |= push(a, o);
	}
	return finish(a, bad);
}

static json_t *overrides_json(const struct web_act_doc *d)
{
	const struct matcher_match_result *r = d->result;
	json_t *o = json_object(), *un = json_array();
	int bad = !o || !un;
	size_t i;

	if (bad) {
		json_decref(un);
		return finish(o, bad);
	}
	bad |= set(o, "used", json_integer((json_int_t)r->n_overrides_used));
	for (i = 0; i < r->n_unused; i++) {
		const struct matcher_unused_override *u = &r->unused[i];

		bad |= push(un, json_pack("{s:o,s:o,s:I,s:s}", "a_key", jstr(u->a_key), "b_key",
		                          jstr(u->b_key), "line", (json_int_t)u->line, "reason",
		                          u->reason));
	}
	bad |= set(o, "unused", un);
	bad |= set(o, "warnings",
	           d->ov ? warnings_json(d->ov->warnings, d->ov->n_warnings) : json_array());
	return finish(o, bad);
}

json_t *web_act_result_json(const struct web_act_doc *d)
{
	const struct matcher_match_result *r = d->result;
	enum matcher_verdict v = d->verdict ? d->verdict->verdict : MATCHER_VERDICT_ERROR;
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= set(o, "kind", json_string("activation"));
	bad |= set(o, "verdict", json_string(matcher_verdict_name(v)));
	bad |= set(o, "reasons", web_act_reasons_json(d->verdict, r));
	bad |= set(o, "policy", web_act_policy_json(d->policy));
	bad |= set(o, "names", json_pack("{s:o,s:o}", "a", jstr(d->name_a), "b", jstr(d->name_b)));
	bad |= set(o, "summary", summary_json(d));
	bad |= set(o, "excluded_ops",
	           json_pack("{s:o,s:o}", "a", excluded_json(d->a), "b", excluded_json(d->b)));
	bad |= set(o, "overrides", overrides_json(d));
	bad |= set(
	        o, "log_warnings",
	        json_pack("{s:o,s:o}", "a",
	                  d->a ? warnings_json(d->a->warnings, d->a->n_warnings) : json_array(),
	                  "b",
	                  d->b ? warnings_json(d->b->warnings, d->b->n_warnings) : json_array()));
	bad |= set(o, "first_divergence",
	           json_pack("{s:o,s:o}", "forward", row_ref(r, r->summary.first_divergence[0]),
	                     "backward", row_ref(r, r->summary.first_divergence[1])));
	return finish(o, bad);
}

/* ---- direct writer (see web_act_row_append) ---------------------------- */

static int put_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end;
	int bad = 0;

	if (!s)
		return buf_append(b, "null", 4);
	end = p + strlen(s);
	bad |= buf_putc(b, '"');
	while (*p) {
		const unsigned char *run = p;
		size_t k;

		/* copy the longest run of plain ASCII in one go */
		while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (p > run)
			bad |= buf_append(b, run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			char esc[2] = {'\\', (char)*p};

			bad |= buf_append(b, esc, 2);
			p++;
		} else if (*p < 0x20) {
			/* short forms where JSON (and jansson) have them */
			static const char shorts[] = "\bb\ff\nn\rr\tt";
			const char *sh = memchr(shorts, *p, sizeof(shorts) - 1);
			char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};

			if (sh && (sh - shorts) % 2 == 0) {
				esc[1] = sh[1];
				bad |= buf_append(b, esc, 2);
			} else {
				bad |= buf_append(b, esc, 6);
			}
			p++;
		} else if ((k = utf8_seq(p, (size_t)(end - p))) != 0) {
			bad |= buf_append(b, p, k);
			p += k;
		} else {
			bad |= buf_append(b, "\xEF\xBF\xBD", 3);
			p++;
		}
	}
	bad |= buf_putc(b, '"');
	return bad ? -1 : 0;
}

/* A distance: finite number or null (same text as jansson's "%.17g"). */
static int put_dist(struct buf *b, double d)
{
	char tmp[40];
	int n;

	if (d < 0 || !isfinite(d))
		return buf_append(b, "null", 4);
	n = snprintf(tmp, sizeof(tmp), "%.17g", d);
	if (n < 0 || (size_t)n >= sizeof(tmp) - 2)
		return -1;
	if (!strpbrk(tmp, ".eE")) {
		tmp[n++] = '.';
		tmp[n++] = '0';
		tmp[n] = 0;
	} else {
		/* like jansson: no '+' and no leading zeros in the exponent */
		char *e = strchr(tmp, 'e'), *src, *dst;

		if (e) {
			dst = src = e + 1;
			if (*src == '-')
				dst = ++src;
			if (*src == '+')
				src++;
			while (*src == '0' && src[1])
				src++;
			memmove(dst, src, strlen(src) + 1);
			n = (int)strlen(tmp);
		}
	}
	return buf_append(b, tmp, (size_t)n);
}

static int put_key(struct buf *b, int *first, const char *k)
{
	int bad = 0;

	if (!*first)
		bad |= buf_putc(b, ',');
	*first = 0;
	bad |= put_str(b, k);
	bad |= buf_putc(b, ':');
	return bad;
}

static int put_entry(struct buf *b, const struct matcher_entry *e)
{
	int bad = 0, first = 1, sfirst = 1;
	int i;

	if (!e)
		return buf_append(b, "null", 4);
	bad |= buf_putc(b, '{');
	bad |= put_key(b, &first, "key");
	bad |= put_str(b, e->key);
	bad |= put_key(b, &first, "line");
	bad |= buf_printf(b, "%lu", e->line);
	bad |= put_key(b, &first, "order");
	bad |= buf_printf(b, "%zu", e->order);
	bad |= put_key(b, &first, "phase");
	bad |= put_str(b, matcher_phase_name(e->phase));
	bad |= put_key(b, &first, "stats");
	bad |= buf_putc(b, '{');
	for (i = 0; i < MATCHER_N_STATS; i++) {
		if (!e->stats[i])
			continue;
		bad |= put_key(b, &sfirst, matcher_stat_names[i]);
		bad |= put_str(b, e->stats[i]);
	}
	bad |= buf_putc(b, '}');
	if (e->output_hash) {
		bad |= put_key(b, &first, "output_hash");
		bad |= put_str(b, e->output_hash);
	}
	if (e->input_hashes) {
		bad |= put_key(b, &first, "input_hashes");
		bad |= put_str(b, e->input_hashes);
	}
	if (e->input_producers) {
		bad |= put_key(b, &first, "input_producers");
		bad |= put_str(b, e->input_producers);
	}
	if (e->location) {
		bad |= put_key(b, &first, "location");
		bad |= put_str(b, e->location);
	}
	bad |= buf_putc(b, '}');
	return bad ? -1 : 0;
}

int web_act_row_append(struct buf *b, const struct matcher_row *row)
{
	int bad = 0, first = 1, sfirst = 1;
	int i;

	bad |= buf_putc(b, '{');
	bad |= put_key(b, &first, "a_key");
	bad |= put_str(b, row->a ? row->a->key : NULL);
	bad |= put_key(b, &first, "b_key");
	bad |= put_str(b, row->b ? row->b->key : NULL);
	bad |= put_key(b, &first, "status");
	bad |= put_str(b, matcher_status_name(row->status));
	bad |= put_key(b, &first, "method");
	bad |= put_str(b, matcher_method_name(row->method));
	bad |= put_key(b, &first, "phase");
	bad |= put_str(b, matcher_phase_name(row->phase));
	bad |= put_key(b, &first, "origin");
	bad |= buf_puts(b, row->origin ? "true" : "false");
	bad |= put_key(b, &first, "shape_differs");
	bad |= buf_puts(b, row->a && row->b && row->shape_differs ? "true" : "false");
	bad |= put_key(b, &first, "output_hash_distance");
	bad |= put_dist(b, row->output_hash_distance);
	bad |= put_key(b, &first, "input_hash_distance");
	bad |= put_dist(b, row->input_hash_distance);
	bad |= put_key(b, &first, "stat_diffs");
	bad |= buf_putc(b, '{');
	for (i = 0; i < MATCHER_N_STATS; i++) {
		if (!(row->stat_diff[i] >= 0))
			continue;
		bad |= put_key(b, &sfirst, matcher_stat_names[i]);
		bad |= put_dist(b, row->stat_diff[i]);
	}
	bad |= buf_putc(b, '}');
	bad |= put_key(b, &first, "a");
	bad |= put_entry(b, row->a);
	bad |= put_key(b, &first, "b");
	bad |= put_entry(b, row->b);
	bad |= buf_putc(b, '}');
	return bad ? -1 : 0;
}

int web_act_rows_page_append(struct buf *b, const struct store_row_page *p)
{
	int bad = 0;
	size_t i;

	bad |= buf_puts(b, "{\"rows\":[");
	for (i = 0; !bad && i < p->n_rows; i++) {
		const struct store_act_row *r = &p->rows[i];

		if (i)
			bad |= buf_putc(b, ',');
		bad |= web_act_row_append(b, &r->row);
		/* reopen the row object for its place in the comparison */
		if (!bad && b->len && b->data[b->len - 1] == '}')
			b->len--;
		bad |= buf_printf(b, ",\"rank\":%d,\"idx\":%lld}", r->rank, (long long)r->idx);
	}
	bad |= buf_puts(b, "],\"next_cursor\":");
	bad |= put_str(b, p->next_cursor[0] ? p->next_cursor : NULL);
	bad |= buf_putc(b, '}');
	return bad ? -1 : 0;
}

int web_act_write_json(FILE *f, const struct web_act_doc *d)
{
	json_t *head = web_act_result_json(d);
	char *text = NULL;
	struct buf b = BUF_INIT;
	size_t i, len;
	int rc = -1;

	if (!head || !(text = json_dumps(head, JSON_COMPACT)))
		goto done;
	len = strlen(text);
	/* the head object ends in '}': reopen it and append the rows */
	if (len < 2 || text[len - 1] != '}' || fwrite(text, 1, len - 1, f) != len - 1 ||
	    fputs(",\"rows\":[", f) == EOF)
		goto done;
	for (i = 0; i < d->result->n_rows; i++) {
		if ((i && buf_putc(&b, ',') < 0) || web_act_row_append(&b, &d->result->rows[i]) < 0)
			goto done;
		/* flush in ~1 MiB pieces */
		if (b.len >= (1u << 20)) {
			if (fwrite(b.data, 1, b.len, f) != b.len)
				goto done;
			buf_clear(&b);
		}
	}
	if (buf_puts(&b, "]}\n") < 0 || fwrite(b.data, 1, b.len, f) != b.len)
		goto done;
	rc = 0;
done:
	free(text);
	json_decref(head);
	buf_reset(&b);
	return rc;
}
