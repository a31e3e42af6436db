/* meta_table.c - the baseline-vs-candidate metadata table of comparison
 * pages and reports (issue 16): the two runs' free-form meta objects
 * flattened to dotted keys ("env.torch"), one row per key of either side
 * in key order, rows whose values differ (or that one side lacks) marked
 * class="differs".  Bounded: at most WEB_META_KEYS keys a side (deeper
 * or later keys are counted and named in a note), values clipped to
 * WEB_META_VALUE bytes on a UTF-8 boundary.  Every key and value goes
 * through web_printf's escaping %s. */
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

#define WEB_META_KEYS  200
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

int web_meta_table(struct buf *out, json_t *meta_a, json_t *meta_b)
{
	struct meta_list *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
	int bad = !a || !b;
	if (bad)
		goto done;
	if (json_is_object(meta_a))
		flatten(a, meta_a, "", 0);
	if (json_is_object(meta_b))
		flatten(b, meta_b, "", 0);
	if (a->oom || b->oom) {
		bad = 1;
		goto done;
	}
	if (!a->n && !b->n)
		goto done;
	qsort(a->kv, a->n, sizeof a->kv[0], kv_cmp);
	qsort(b->kv, b->n, sizeof b->kv[0], kv_cmp);
	size_t n_diff = 0;
	struct buf rows = BUF_INIT;
	/* merge the two sorted key lists */
	for (size_t i = 0, j = 0; i < a->n || j < b->n;) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->kv[i].key, b->kv[j].key);
		const char *key = c <= 0 ? a->kv[i].key : b->kv[j].key;
		const char *va = c <= 0 ? a->kv[i].val : NULL;
		const char *vb = c >= 0 ? b->kv[j].val : NULL;
		int differs = !va || !vb || strcmp(va, vb) != 0;
		n_diff += (size_t)differs;
		bad |= web_printf(&rows,
		                  differs ? "<tr class=\"differs\"><th>%s</th>" : "<tr><th>%s</th>",
		                  key);
		bad |= cell(&rows, va);
		bad |= cell(&rows, vb);
		bad |= buf_puts(&rows, "</tr>");
		i += c <= 0;
		j += c >= 0;
	}
	bad |= web_printf(out,
	                  "<h2>Metadata</h2><p class=\"muted\">%zu key%s differ%s between "
	                  "baseline and candidate.</p>",
	                  n_diff, n_diff == 1 ? "" : "s", n_diff == 1 ? "s" : "");
	bad |= buf_puts(out, "<table class=\"kv meta\" id=\"meta\"><thead><tr><th>Key</th>"
	                     "<th>Baseline (A)</th><th>Candidate (B)</th></tr></thead><tbody>");
	bad |= buf_append(out, rows.data ? rows.data : "", rows.len);
	bad |= buf_puts(out, "</tbody></table>");
	if (a->dropped || b->dropped)
		bad |= web_printf(
		        out, "<p class=\"muted\">%zu more key%s not shown (over %d a run).</p>",
		        a->dropped + b->dropped, a->dropped + b->dropped == 1 ? "" : "s",
		        WEB_META_KEYS);
	buf_reset(&rows);
done:
	if (a)
		list_free(a);
	if (b)
		list_free(b);
	free(a);
	free(b);
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
