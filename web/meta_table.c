/* meta_table.c - the baseline-vs-candidate metadata table of comparison
 * pages and reports (issue 16): the two runs' free-form meta objects
 * flattened to dotted keys ("env.torch"), one row per key of either side
 * in key order, rows whose values differ (or that one side lacks) marked
 * class="differs".  Bounded: at most WEB_META_KEYS keys a side (deeper
 * or later keys are counted and named in a note), values clipped to
 * WEB_META_VALUE bytes on a UTF-8 boundary.  Every key and value goes
 * through web_printf's escaping %s.  The merged key list is also handed
 * out typed (web_meta_rows_build) for the PDF reports (web/pdf_report.c). */
#include <stdlib.h>
#include <string.h>

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

static int cell(struct buf *out, const char *val)
{
	if (!val)
		return buf_puts(out, "<td class=\"missing\">&mdash;</td>");
	return web_printf(out, "<td>%s</td>", val);
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

int web_meta_rows_build(json_t *meta_a, json_t *meta_b, struct web_meta_rows *out)
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

int web_meta_table(struct buf *out, json_t *meta_a, json_t *meta_b)
{
	struct web_meta_rows m;
	int bad = 0;
	if (web_meta_rows_build(meta_a, meta_b, &m) < 0)
		return -1;
	if (!m.n)
		goto done;
	size_t n_diff = m.n_diff;
	bad |= web_printf(out,
	                  "<h2>Metadata</h2><p class=\"muted\">%zu key%s differ%s between "
	                  "baseline and candidate.</p>",
	                  n_diff, n_diff == 1 ? "" : "s", n_diff == 1 ? "s" : "");
	bad |= buf_puts(out, "<table class=\"kv meta\" id=\"meta\"><thead><tr><th>Key</th>"
	                     "<th>Baseline (A)</th><th>Candidate (B)</th></tr></thead><tbody>");
	for (size_t i = 0; i < m.n; i++) {
		const struct web_meta_row *r = &m.rows[i];
		bad |= web_printf(
		        out, r->differs ? "<tr class=\"differs\"><th>%s</th>" : "<tr><th>%s</th>",
		        r->key);
		bad |= cell(out, r->a);
		bad |= cell(out, r->b);
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</tbody></table>");
	if (m.dropped)
		bad |= web_printf(
		        out, "<p class=\"muted\">%zu more key%s not shown (over %d a run).</p>",
		        m.dropped, m.dropped == 1 ? "" : "s", WEB_META_KEYS);
done:
	web_meta_rows_free(&m);
	return bad ? -1 : 0;
}

/* "<what> NAME": a link to prefix + NAME in server mode, bold otherwise. */
static int label(struct buf *out, const char *what, const char *prefix, const char *name,
                 enum web_mode mode)
{
	if (mode == WEB_SERVER)
		return web_printf(out, "%s <a href=\"%s%s\">%s</a>", what, prefix, name, name);
	return web_printf(out, "%s <b>%s</b>", what, name);
}

int web_cmp_labels(struct buf *out, const char *baseline_name, const char *suite,
                   const char *config, enum web_mode mode)
{
	int bad = 0;
	if (!baseline_name && !suite)
		return 0;
	bad |= buf_puts(out, "<p class=\"labels\" id=\"labels\">");
	if (baseline_name)
		bad |= label(out, "Golden baseline", "/ui/baselines/", baseline_name, mode);
	if (baseline_name && suite)
		bad |= buf_puts(out, " &middot; ");
	if (suite)
		bad |= label(out, "Suite", "/ui/suites/", suite, mode);
	if (suite && config)
		bad |= web_printf(out, ", config <b>%s</b>", config);
	bad |= buf_puts(out, "</p>");
	return bad ? -1 : 0;
}
