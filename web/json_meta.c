/* json_meta.c - the one reader of the runs' free-form meta (a JSON object
 * the upload gave, stored as text): turned here into typed rows, so the
 * pages and reports render structs and never read JSON by key.
 *   web_meta_rows_build  two runs' meta flattened to dotted keys and
 *                        merged (the comparison pages' and reports'
 *                        metadata table, web/meta_table.c);
 *   web_meta_read        one run's top-level keys in order with their
 *                        text (the run page, lists, forms);
 *   web_meta_pairs_build two runs' top-level keys side by side (the mail).
 * Bounded: at most WEB_META_KEYS keys a side, values clipped to
 * WEB_META_VALUE bytes on a UTF-8 boundary. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "web_int.h"

#define WEB_META_VALUE 2000
#define WEB_META_DEPTH 4

struct meta_kv {
	char *key;
	char *val;
};

struct meta_list {
	struct meta_kv kv[WEB_META_KEYS];
	size_t n;
	size_t dropped; /* keys past the bound */
	int oom;
};

static void list_free(struct meta_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->kv[i].key);
		free(l->kv[i].val);
	}
	l->n = 0;
}

/* The text a value shows: a string as is, anything else as compact JSON;
 * clipped to WEB_META_VALUE bytes on a UTF-8 boundary. */
static char *value_text(json_t *v)
{
	char *t = json_is_string(v)
	                  ? strdup(json_string_value(v))
	                  : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
	if (t && strlen(t) > WEB_META_VALUE) {
		size_t cut = WEB_META_VALUE - 3;
		while (cut > 0 && ((unsigned char)t[cut] & 0xc0) == 0x80)
			cut--;
		memcpy(t + cut, "...", 4);
	}
	return t;
}

static void flatten(struct meta_list *l, json_t *o, const char *prefix, int depth)
{
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v)
	{
		size_t need = strlen(prefix) + strlen(k) + 2;
		char *key = malloc(need);
		if (!key) {
			l->oom = 1;
			return;
		}
		snprintf(key, need, "%s%s%s", prefix, *prefix ? "." : "", k);
		if (json_is_object(v) && json_object_size(v) && depth < WEB_META_DEPTH) {
			flatten(l, v, key, depth + 1);
			free(key);
			continue;
		}
		if (l->n == WEB_META_KEYS) {
			l->dropped++;
			free(key);
			continue;
		}
		char *val = value_text(v);
		if (!val) {
			l->oom = 1;
			free(key);
			return;
		}
		l->kv[l->n].key = key;
		l->kv[l->n].val = val;
		l->n++;
	}
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct meta_kv *)a)->key, ((const struct meta_kv *)b)->key);
}

void web_meta_rows_free(struct web_meta_rows *m)
{
	struct meta_list **l = m->priv;
	if (l) {
		list_free(l[0]);
		list_free(l[1]);
		free(l[0]);
		free(l[1]);
		free(l);
	}
	free(m->rows);
	memset(m, 0, sizeof *m);
}

static int rows_build(json_t *meta_a, json_t *meta_b, struct web_meta_rows *out)
{
	memset(out, 0, sizeof *out);
	struct meta_list **l = calloc(2, sizeof *l);
	if (!l)
		return -1;
	out->priv = l;
	struct meta_list *a = l[0] = calloc(1, sizeof *a), *b = l[1] = calloc(1, sizeof *b);
	if (!a || !b)
		goto oom;
	if (json_is_object(meta_a))
		flatten(a, meta_a, "", 0);
	if (json_is_object(meta_b))
		flatten(b, meta_b, "", 0);
	if (a->oom || b->oom)
		goto oom;
	out->dropped = a->dropped + b->dropped;
	if (!(out->rows = calloc(a->n + b->n + 1, sizeof *out->rows)))
		goto oom;
	qsort(a->kv, a->n, sizeof a->kv[0], kv_cmp);
	qsort(b->kv, b->n, sizeof b->kv[0], kv_cmp);
	/* merge the two sorted key lists */
	for (size_t i = 0, j = 0; i < a->n || j < b->n;) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->kv[i].key, b->kv[j].key);
		struct web_meta_row *r = &out->rows[out->n++];
		r->key = c <= 0 ? a->kv[i].key : b->kv[j].key;
		r->a = c <= 0 ? a->kv[i].val : NULL;
		r->b = c >= 0 ? b->kv[j].val : NULL;
		r->differs = !r->a || !r->b || strcmp(r->a, r->b) != 0;
		out->n_diff += (size_t)r->differs;
		i += c <= 0;
		j += c >= 0;
	}
	return 0;
oom:
	web_meta_rows_free(out);
	return -1;
}

/* The meta object of a stored meta text: a new reference, NULL when the
 * text is missing, not JSON or not an object. */
static json_t *meta_object(const char *text)
{
	json_t *m = text ? json_loads(text, 0, NULL) : NULL;
	if (m && !json_is_object(m)) {
		json_decref(m);
		m = NULL;
	}
	return m;
}

int web_meta_rows_build(const char *meta_a_json, const char *meta_b_json, struct web_meta_rows *out)
{
	json_t *meta_a = meta_object(meta_a_json), *meta_b = meta_object(meta_b_json);
	int rc = rows_build(meta_a, meta_b, out);
	json_decref(meta_a);
	json_decref(meta_b);
	return rc;
}

void web_meta_free(struct web_meta *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free((char *)m->kv[i].key);
		free((char *)m->kv[i].text);
	}
	free(m->kv);
	memset(m, 0, sizeof *m);
}

int web_meta_read(const char *meta_json, struct web_meta *out)
{
	json_t *m = meta_object(meta_json), *v;
	const char *k;

	memset(out, 0, sizeof *out);
	if (!m)
		return 0;
	out->kv = calloc(json_object_size(m) + 1, sizeof *out->kv);
	if (!out->kv)
		goto oom;
	json_object_foreach(m, k, v)
	{
		struct web_meta_kv *x = &out->kv[out->n];
		x->is_string = json_is_string(v);
		x->key = strdup(k);
		x->text = x->is_string ? strdup(json_string_value(v))
		                       : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
		                                               JSON_REAL_PRECISION(15));
		out->n++;
		if (!x->key || !x->text)
			goto oom;
	}
	json_decref(m);
	return 0;
oom:
	json_decref(m);
	web_meta_free(out);
	return -1;
}

const char *web_meta_str(const struct web_meta *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->kv[i].is_string && !strcmp(m->kv[i].key, key))
			return m->kv[i].text;
	return NULL;
}

void web_meta_pairs_free(struct web_meta_pairs *p)
{
	for (size_t i = 0; p->rows && i < p->n; i++) {
		free((char *)p->rows[i].a);
		free((char *)p->rows[i].b);
		free((char *)p->rows[i].key);
	}
	free(p->rows);
	memset(p, 0, sizeof *p);
}

/* A top-level meta value as one line: a string as is, else compact JSON. */
static char *pair_text(json_t *v)
{
	if (!v)
		return NULL;
	if (json_is_string(v))
		return strdup(json_string_value(v));
	char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	return t ? t : strdup("?");
}

int web_meta_pairs_build(const char *meta_a, const char *meta_b, struct web_meta_pairs *out)
{
	json_t *ma = meta_object(meta_a), *mb = meta_object(meta_b), *v;
	const char *k;
	int bad = 0;

	memset(out, 0, sizeof *out);
	out->rows = calloc(json_object_size(ma) + json_object_size(mb) + 1, sizeof *out->rows);
	bad = !out->rows;
	json_object_foreach(ma, k, v)
	{
		if (bad)
			break;
		struct web_meta_pair *r = &out->rows[out->n++];
		json_t *w = json_object_get(mb, k);
		r->key = strdup(k);
		r->a = pair_text(v);
		r->b = pair_text(w);
		r->differs = !w || !json_equal(v, w);
		bad |= !r->key || !r->a || (w && !r->b);
	}
	json_object_foreach(mb, k, v)
	{
		if (bad)
			break;
		if (json_object_get(ma, k))
			continue;
		struct web_meta_pair *r = &out->rows[out->n++];
		r->key = strdup(k);
		r->b = pair_text(v);
		r->differs = 1;
		bad |= !r->key || !r->b;
	}
	json_decref(ma);
	json_decref(mb);
	if (bad)
		web_meta_pairs_free(out);
	return bad ? -1 : 0;
}
