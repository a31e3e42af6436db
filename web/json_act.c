/* json_act.c - activation result and row JSON through jansson (see
 * json_act.h for the shapes and the NaN / UTF-8 policy).
 *
 * Every builder collects set/append failures in one flag and returns NULL
 * (dropping the half-built value) instead of emitting an object with a
 * silently missing field.  Rows are written by a direct writer
 * (web_act_row_append) for speed: the one row serializer. */
#include "json_act.h"

/* The overall summary of a multi-rank result: adds the integer members
 * of src into dst, recursively. */
static void sum_counts(json_t *dst, json_t *src)
{
	const char *k;
	json_t *v;
	json_object_foreach(src, k, v)
	{
		json_t *d = json_object_get(dst, k);
		if (json_is_integer(v)) {
			json_int_t base = json_is_integer(d) ? json_integer_value(d) : 0;
			json_object_set_new(dst, k, json_integer(base + json_integer_value(v)));
		} else if (json_is_object(v)) {
			if (!json_is_object(d)) {
				d = json_object();
				json_object_set_new(dst, k, d);
			}
			sum_counts(d, v);
		}
	}
}

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fmt17.h"
#include "web.h"
#include "web_int.h"

/* A JSON string for s (null for NULL); invalid bytes become U+FFFD. */
static json_t *jstr(const char *s)
{
	struct buf b = BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	if (buf_append_utf8(&b, s, strlen(s)) == 0)
		j = json_stringn(b.data ? b.data : "", b.len);
	buf_reset(&b);
	return j;
}

static json_t *jdist(double d)
{
	return d < 0 || !isfinite(d) ? json_null() : json_real(d);
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

/* ---- the typed result (struct store_act_result) ------------------------- */

/* {"row","a_key","b_key","status","phase",...} for a row reference, or
 * null. */
static json_t *ref_json(const struct store_act_ref *f)
{
	json_t *o;
	int bad;

	if (f->row < 0)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	bad = set(o, "row", json_integer((json_int_t)f->row));
	bad |= set(o, "a_key", jstr(f->a_key));
	bad |= set(o, "b_key", jstr(f->b_key));
	bad |= set(o, "status", json_string(matcher_status_name(f->status)));
	bad |= set(o, "phase", json_string(matcher_phase_name(f->phase)));
	if (f->a_key && f->b_key) {
		bad |= set(o, "method", json_string(matcher_method_name(f->method)));
		bad |= set(o, "origin", json_boolean(f->origin));
		bad |= set(o, "shape_differs", json_boolean(f->shape_differs));
		bad |= set(o, "output_hash_distance", jdist(f->out_dist));
		bad |= set(o, "input_hash_distance", jdist(f->in_dist));
	}
	return finish(o, bad);
}

/* One reason; with_rank: add "rank" (when it names one). */
static json_t *reason_json(const struct store_act_reason *rs, int with_rank)
{
	json_t *o = json_object(), *det;
	int bad = !o;

	if (bad)
		return NULL;
	bad |= set(o, "code", jstr(rs->code));
	bad |= set(o, "message", jstr(rs->message));
	if (rs->in_rank) {
		det = json_object();
		bad |= !det;
		if (det) {
			bad |= set(det, "count", json_integer((json_int_t)rs->count));
			bad |= set(det, "tolerated", json_integer((json_int_t)rs->tolerated));
			bad |= set(det, "first", ref_json(&rs->first));
			if (strcmp(rs->code, "diff_rows") == 0) {
				bad |= set(det, "first_forward", ref_json(&rs->first_phase[0]));
				bad |= set(det, "first_backward", ref_json(&rs->first_phase[1]));
				bad |= set(det, "max_hash_distance", jdist(rs->max_hash_distance));
			}
		}
		bad |= set(o, "details", det);
	}
	if (with_rank && rs->rank >= 0)
		bad |= set(o, "rank", json_integer(rs->rank));
	return finish(o, bad);
}

static json_t *reasons_json(const struct store_act_reason *rs, size_t n, int with_rank)
{
	json_t *arr = json_array();
	int bad = !arr;
	size_t i;

	for (i = 0; arr && i < n; i++)
		bad |= push(arr, reason_json(&rs[i], with_rank));
	return finish(arr, bad);
}

static json_t *status_counts(const int64_t *n)
{
	json_t *o = json_object();
	int bad = !o;
	int s;

	for (s = 0; o && s < MATCHER_N_STATUS; s++)
		bad |= set(o, matcher_status_name((enum matcher_status)s), json_integer(n[s]));
	return finish(o, bad);
}

static json_t *summary_json(const struct store_act_rank *k)
{
	json_t *o = json_object(), *m, *ph;
	int bad = !o;
	int i;

	if (bad)
		return NULL;
	bad |= set(o, "rows", json_integer(k->n_rows));
	for (i = 0; i < MATCHER_N_STATUS; i++)
		bad |= set(o, matcher_status_name((enum matcher_status)i),
		           json_integer(k->n_status[i]));
	m = json_object();
	bad |= !m;
	for (i = 0; m && i < MATCHER_N_METHODS; i++)
		bad |= set(m, matcher_method_name((enum matcher_method)i),
		           json_integer(k->n_method[i]));
	bad |= set(o, "methods", m);
	ph = json_object();
	bad |= !ph;
	if (ph) {
		bad |= set(ph, "forward", status_counts(k->n_phase_status[0]));
		bad |= set(ph, "backward", status_counts(k->n_phase_status[1]));
	}
	bad |= set(o, "phases", ph);
	bad |= set(o, "origins", json_integer(k->n_origin));
	bad |= set(o, "propagated", json_integer(k->n_propagated));
	bad |= set(o, "max_hash_distance", jdist(k->max_hash_distance));
	bad |= set(o, "max_hash_row",
	           k->max_hash_row < 0 ? json_null() : json_integer(k->max_hash_row));
	bad |= set(o, "tolerated", json_integer(k->n_tolerated));
	bad |= set(o, "entries",
	           json_pack("{s:I,s:I}", "a", (json_int_t)k->n_entries[0], "b",
	                     (json_int_t)k->n_entries[1]));
	return finish(o, bad);
}

static json_t *strings_json(const char *const *v, size_t n)
{
	json_t *a = json_array();
	int bad = !a;
	size_t i;

	for (i = 0; a && i < n; i++)
		bad |= push(a, jstr(v[i]));
	return finish(a, bad);
}

static json_t *warnings_json(const struct store_act_warning *w, size_t n)
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
		bad |= set(o, "code", jstr(w[i].code));
		bad |= set(o, "line", json_integer(w[i].line));
		bad |= set(o, "message", jstr(w[i].message));
		if (w[i].excerpt)
			bad |= set(o, "excerpt", jstr(w[i].excerpt));
		bad |= push(a, o);
	}
	return finish(a, bad);
}

static json_t *overrides_json(const struct store_act_rank *k)
{
	json_t *o = json_object(), *un = json_array();
	int bad = !o || !un;
	size_t i;

	if (bad) {
		json_decref(un);
		return finish(o, bad);
	}
	bad |= set(o, "used", json_integer(k->overrides_used));
	for (i = 0; i < k->n_unused; i++) {
		const struct store_act_unused *u = &k->unused[i];

		bad |= push(un, json_pack("{s:o,s:o,s:I,s:o}", "a_key", jstr(u->a_key), "b_key",
		                          jstr(u->b_key), "line", (json_int_t)u->line, "reason",
		                          jstr(u->reason)));
	}
	bad |= set(o, "unused", un);
	bad |= set(o, "warnings",
	           warnings_json(k->warnings[STORE_WARN_OVERRIDES],
	                         k->n_warnings[STORE_WARN_OVERRIDES]));
	return finish(o, bad);
}

json_t *web_act_rank_doc(const struct store_act_result *r, size_t i)
{
	const struct store_act_rank *k = &r->ranks[i];
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= set(o, "kind", json_string("activation"));
	bad |= set(o, "verdict", json_string(matcher_verdict_name(k->verdict)));
	bad |= set(o, "reasons", reasons_json(r->reasons + k->reasons_at, k->n_reasons, 0));
	bad |= set(o, "policy", web_act_policy_json(&r->policy));
	bad |= set(o, "names", json_pack("{s:o,s:o}", "a", jstr(k->name_a), "b", jstr(k->name_b)));
	bad |= set(o, "summary", summary_json(k));
	bad |= set(o, "excluded_ops",
	           json_pack("{s:o,s:o}", "a", strings_json(k->excluded[0], k->n_excluded[0]), "b",
	                     strings_json(k->excluded[1], k->n_excluded[1])));
	bad |= set(o, "overrides", overrides_json(k));
	bad |= set(o, "log_warnings",
	           json_pack("{s:o,s:o}", "a",
	                     warnings_json(k->warnings[STORE_WARN_LOG_A],
	                                   k->n_warnings[STORE_WARN_LOG_A]),
	                     "b",
	                     warnings_json(k->warnings[STORE_WARN_LOG_B],
	                                   k->n_warnings[STORE_WARN_LOG_B])));
	bad |= set(o, "first_divergence",
	           json_pack("{s:o,s:o}", "forward", ref_json(&k->first_divergence[0]), "backward",
	                     ref_json(&k->first_divergence[1])));
	if (k->rank >= 0)
		bad |= set(o, "rank", json_integer(k->rank));
	return finish(o, bad);
}

json_t *web_act_result_doc(const struct store_act_result *r)
{
	json_t *top = NULL, *ranks = json_array(), *summary = json_object();
	int bad = !ranks || !summary;
	size_t i;

	for (i = 0; !bad && i < r->n_ranks; i++) {
		json_t *d = web_act_rank_doc(r, i);

		bad |= !d;
		if (d)
			sum_counts(summary, json_object_get(d, "summary"));
		bad |= push(ranks, d);
	}
	/* the lowest rank's document without "rank", the whole comparison's
	 * verdict, reasons, policy and per-rank sums on top */
	if (!bad)
		top = r->n_ranks ? json_deep_copy(json_array_get(ranks, 0)) : json_object();
	bad |= !top;
	if (!bad) {
		json_object_del(top, "rank");
		bad |= set(top, "kind", json_string("activation"));
		bad |= set(top, "verdict", json_string(matcher_verdict_name(r->verdict)));
		bad |= set(top, "reasons", reasons_json(r->reasons, r->n_reasons, 1));
		bad |= set(top, "policy", web_act_policy_json(&r->policy));
		bad |= json_object_set(top, "summary", summary) != 0;
		bad |= json_object_set(top, "ranks", ranks) != 0;
	}
	json_decref(ranks);
	json_decref(summary);
	return finish(top, bad);
}

json_t *web_act_result_json(const struct store_act_input *d)
{
	struct store_act_build b;
	json_t *o = NULL;

	store_act_build_init(&b, d->policy);
	if (store_act_build_rank(&b, d, -1) == 0)
		o = web_act_rank_doc(&b.res, 0);
	store_act_build_free(&b);
	return o;
}

/* ---- direct writer (see web_act_row_append) ---------------------------- */

static int put_c(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

static int put_str(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end;
	int bad = 0;

	if (!s)
		return buf_add(b, "null", 4);
	bad |= buf_add(b, "\"", 1);
	end = NULL; /* found only when a non-ASCII byte needs it */
	while (*p) {
		const unsigned char *run = p;
		size_t k;

		/* copy the longest run of plain ASCII in one go */
		while (web_json_byte[*p] & WEB_JSON_PLAIN)
			p++;
		if (p > run)
			bad |= buf_add(b, run, (size_t)(p - run));
		if (!*p)
			break;
		if (*p == '"' || *p == '\\') {
			char esc[2] = {'\\', (char)*p};

			bad |= buf_add(b, esc, 2);
			p++;
		} else if (*p < 0x20) {
			/* short forms where JSON (and jansson) have them */
			static const char shorts[] = "\bb\ff\nn\rr\tt";
			const char *sh = memchr(shorts, *p, sizeof(shorts) - 1);
			char esc[6] = {'\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15]};

			if (sh && (sh - shorts) % 2 == 0) {
				esc[1] = sh[1];
				bad |= buf_add(b, esc, 2);
			} else {
				bad |= buf_add(b, esc, 6);
			}
			p++;
		} else {
			if (!end)
				end = p + strlen((const char *)p);
			if ((k = buf_utf8_len(p, (size_t)(end - p))) != 0) {
				bad |= buf_add(b, p, k);
				p += k;
			} else {
				bad |= buf_add(b, "\xEF\xBF\xBD", 3);
				p++;
			}
		}
	}
	bad |= buf_add(b, "\"", 1);
	return bad ? -1 : 0;
}

/* A distance: finite number or null (same text as jansson's "%.17g"). */
static int put_dist(struct buf *b, double d)
{
	char tmp[40];
	int n;

	if (d < 0 || !isfinite(d))
		return buf_add(b, "null", 4);
	/* the two most common distances, as "%.17g" and the rule below print them */
	if (d == 0.0 && !signbit(d))
		return buf_add(b, "0.0", 3);
	if (d == 1.0)
		return buf_add(b, "1.0", 3);
	n = (int)matcher_fmt17(d, tmp);
	if (n <= 0 || (size_t)n >= sizeof(tmp) - 2)
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
		bad |= put_c(b, ',');
	*first = 0;
	bad |= put_str(b, k);
	bad |= put_c(b, ':');
	return bad;
}

static int put_entry(struct buf *b, const struct matcher_entry *e)
{
	int bad = 0, first = 1, sfirst = 1;
	int i;

	if (!e)
		return buf_append(b, "null", 4);
	bad |= put_c(b, '{');
	bad |= put_key(b, &first, "key");
	bad |= put_str(b, e->key);
	bad |= put_key(b, &first, "line");
	bad |= buf_put_uint(b, e->line);
	bad |= put_key(b, &first, "order");
	bad |= buf_put_uint(b, e->order);
	bad |= put_key(b, &first, "phase");
	bad |= put_str(b, matcher_phase_name(e->phase));
	bad |= put_key(b, &first, "stats");
	bad |= put_c(b, '{');
	for (i = 0; i < MATCHER_N_STATS; i++) {
		if (!e->stats[i])
			continue;
		bad |= put_key(b, &sfirst, matcher_stat_names[i]);
		bad |= put_str(b, e->stats[i]);
	}
	bad |= put_c(b, '}');
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
	bad |= put_c(b, '}');
	return bad ? -1 : 0;
}

int web_act_row_append(struct buf *b, const struct matcher_row *row)
{
	int bad = 0, first = 1, sfirst = 1;
	int i;

	bad |= put_c(b, '{');
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
	bad |= put_c(b, '{');
	for (i = 0; i < MATCHER_N_STATS; i++) {
		if (!(row->stat_diff[i] >= 0))
			continue;
		bad |= put_key(b, &sfirst, matcher_stat_names[i]);
		bad |= put_dist(b, row->stat_diff[i]);
	}
	bad |= put_c(b, '}');
	bad |= put_key(b, &first, "a");
	bad |= put_entry(b, row->a);
	bad |= put_key(b, &first, "b");
	bad |= put_entry(b, row->b);
	bad |= put_c(b, '}');
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

/* Double-buffered output: the caller fills one buffer while a second
 * thread writes the other, so formatting the rows and the kernel's copy of
 * the bytes (about as long, for a 1 GB document) overlap on two cores. */
struct async_out {
	FILE *f;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct buf bufs[2];
	struct buf *pending; /* handed to the writer, NULL when it is idle */
	int stop;
	int failed;
	int started;
};

static void *async_out_main(void *arg)
{
	struct async_out *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->pending && !w->stop)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->pending)
			break;
		struct buf *b = w->pending;

		pthread_mutex_unlock(&w->mu);
		int bad = b->len && fwrite(b->data, 1, b->len, w->f) != b->len;

		pthread_mutex_lock(&w->mu);
		w->failed |= bad;
		buf_clear(b);
		w->pending = NULL;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void async_out_init(struct async_out *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	buf_init(&w->bufs[0]);
	buf_init(&w->bufs[1]);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->started = pthread_create(&w->thread, NULL, async_out_main, w) == 0;
}

/* Hand *cur to the writer (waiting until it is idle) and return the other
 * buffer, empty.  Without a thread, writes *cur here.  NULL on a write
 * error. */
static struct buf *async_out_swap(struct async_out *w, struct buf *cur)
{
	struct buf *next;

	if (!w->started) {
		if (cur->len && fwrite(cur->data, 1, cur->len, w->f) != cur->len)
			return NULL;
		buf_clear(cur);
		return cur;
	}
	pthread_mutex_lock(&w->mu);
	while (w->pending)
		pthread_cond_wait(&w->cv, &w->mu);
	w->pending = cur;
	next = cur == &w->bufs[0] ? &w->bufs[1] : &w->bufs[0];
	pthread_cond_broadcast(&w->cv);
	int failed = w->failed;

	pthread_mutex_unlock(&w->mu);
	return failed ? NULL : next;
}

/* Stop the writer after it wrote what it holds; 0, or -1 after a write
 * error. */
static int async_out_finish(struct async_out *w)
{
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		while (w->pending)
			pthread_cond_wait(&w->cv, &w->mu);
		w->stop = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thread, NULL);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	buf_reset(&w->bufs[0]);
	buf_reset(&w->bufs[1]);
	return w->failed ? -1 : 0;
}

/* Rows [from, to) of a result as JSON array items (a ',' before each but
 * the first row), for web_act_write_json and its helper thread. */
struct rows_job {
	const struct matcher_match_result *res;
	struct matcher_row_view v; /* the renderer's own */
};

static int rows_json(void *ctx, size_t from, size_t to, struct buf *b)
{
	struct rows_job *j = ctx;
	const struct matcher_row *row;

	for (size_t i = from; i < to; i++) {
		if ((i && put_c(b, ',') < 0) || !(row = matcher_result_row(j->res, i, &j->v)) ||
		    web_act_row_append(b, row) < 0)
			return -1;
	}
	return 0;
}

/* Rows a chunk: ~2 MB of JSON. */
#define JSON_CHUNK 2048

int web_act_write_json(FILE *f, const struct store_act_input *d)
{
	json_t *head = web_act_result_json(d);
	char *text = NULL;
	struct async_out w;
	struct web_chunker ch;
	struct rows_job mine, theirs_job;
	struct buf *b, *theirs;
	size_t i, len, n = d->result->n_rows;
	int rc = -1;

	mine.res = theirs_job.res = d->result;
	matcher_row_view_init(&mine.v);
	matcher_row_view_init(&theirs_job.v);
	web_chunker_init(&ch, rows_json);
	async_out_init(&w, f);
	b = &w.bufs[0];
	if (!head || !(text = json_dumps(head, JSON_COMPACT)))
		goto done;
	len = strlen(text);
	/* the head object ends in '}': reopen it and append the rows */
	if (len < 2 || text[len - 1] != '}' || buf_append(b, text, len - 1) < 0 ||
	    buf_puts(b, ",\"rows\":[") < 0)
		goto done;
	/* chunk k here while the helper renders chunk k+1; the writer thread
	 * writes what both rendered, in order */
	for (i = 0; i < n; i += 2 * JSON_CHUNK) {
		size_t na = n - i < JSON_CHUNK ? n - i : JSON_CHUNK;
		size_t nb = n - i - na < JSON_CHUNK ? n - i - na : JSON_CHUNK;

		if (nb)
			web_chunker_post(&ch, &theirs_job, i + na, i + na + nb);
		if (rows_json(&mine, i, i + na, b) < 0)
			goto done;
		if (nb && (web_chunker_collect(&ch, &theirs) < 0 ||
		           (theirs->len && buf_add(b, theirs->data, theirs->len) < 0)))
			goto done;
		if (b->len >= (1u << 20) && !(b = async_out_swap(&w, b)))
			goto done;
	}
	if (buf_puts(b, "]}\n") < 0 || !async_out_swap(&w, b))
		goto done;
	rc = 0;
done:
	web_chunker_free(&ch);
	if (async_out_finish(&w) < 0)
		rc = -1;
	matcher_row_view_free(&mine.v);
	matcher_row_view_free(&theirs_job.v);
	free(text);
	json_decref(head);
	return rc;
}
