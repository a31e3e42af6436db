/* train_groups.c - training comparisons of many series (issue 27: DL
 * Framework Inspect statistics logs, matcher/nvinspect.h): the first
 * difference, the series grouped by layer and tensor, and which series get
 * charts, so that hundreds of series make a page of a readable size.
 *
 * A result compares "all common" series when its policy says so (the
 * CLI's check) or when it holds a metric its policy does not name (a
 * stored result: the policy's thresholds are the named ones only).  Every
 * value from a log goes through web_printf's escaping %s. */
#include <stdlib.h>
#include <string.h>

#include "nvinspect.h"
#include "strmap.h"
#include "web.h"
#include "web_int.h"

int web_train_all_common(const struct store_train_result *r)
{
	if (r->policy.all_common)
		return 1;
	for (size_t i = 0; i < r->n_metrics; i++) {
		size_t k = 0;
		while (k < r->policy.n_th && strcmp(r->policy.th[k].metric, r->metrics[i].name))
			k++;
		if (k == r->policy.n_th)
			return 1;
	}
	return 0;
}

int web_train_first_diff(const struct store_train_result *r, size_t *metric, long *step)
{
	int found = 0;
	for (size_t i = 0; i < r->n_reasons; i++) {
		const struct matcher_train_reason *x = &r->reasons[i];
		size_t k = 0;
		if (x->is_error || !x->has_step || !x->metric[0])
			continue;
		while (k < r->n_metrics && strcmp(r->metrics[k].name, x->metric))
			k++;
		if (k == r->n_metrics)
			continue;
		if (!found || x->step < *step || (x->step == *step && k < *metric)) {
			*metric = k;
			*step = x->step;
			found = 1;
		}
	}
	return found;
}

int web_train_charted(const struct store_train_result *r, size_t k)
{
	if (!web_train_all_common(r) || r->n_metrics <= WEB_TRAIN_CHARTS_MAX)
		return 1;
	size_t n_fail = 0;
	for (size_t i = 0; i < r->n_metrics; i++) {
		int fails = !r->metrics[i].pass && !r->metrics[i].not_logged;
		if (i == k)
			return fails ? n_fail < WEB_TRAIN_CHARTS_MAX : 0;
		n_fail += fails;
	}
	return 0;
}

unsigned char *web_train_charted_map(const struct store_train_result *r)
{
	unsigned char *m = malloc(r->n_metrics ? r->n_metrics : 1);
	int many = m && web_train_all_common(r) && r->n_metrics > WEB_TRAIN_CHARTS_MAX;
	size_t n_fail = 0;
	for (size_t i = 0; m && i < r->n_metrics; i++) {
		int fails = !r->metrics[i].pass && !r->metrics[i].not_logged;
		m[i] = !many || (fails && n_fail < WEB_TRAIN_CHARTS_MAX);
		n_fail += fails;
	}
	return m;
}

/* One group of series: a layer and a tensor role. */
struct group {
	const char *name; /* the first series' name: layer = [0, layer_len) */
	size_t layer_len;
	const char *tensor;
	size_t tensor_len;
	size_t first; /* its first series (index into metrics) */
	size_t n, n_fail;
	long first_diff;
	int has_diff;
};

/* The step a series first differs at (its first reason with a step). */
static int series_diff(const struct store_train_result *r, size_t k, long *step)
{
	int found = 0;
	for (size_t i = 0; i < r->n_reasons; i++) {
		const struct matcher_train_reason *x = &r->reasons[i];
		if (!x->is_error && x->has_step && !strcmp(x->metric, r->metrics[k].name) &&
		    (!found || x->step < *step)) {
			*step = x->step;
			found = 1;
		}
	}
	return found;
}

int web_train_groups(struct buf *out, const struct store_train_result *r)
{
	struct group *g = calloc(r->n_metrics ? r->n_metrics : 1, sizeof *g);
	size_t *of = calloc(r->n_metrics ? r->n_metrics : 1, sizeof *of); /* series -> group */
	struct matcher_strmap map;
	size_t n = 0, mk;
	long st;
	int bad = !g || !of;

	matcher_strmap_init(&map);
	for (size_t k = 0; !bad && k < r->n_metrics; k++) {
		const char *name = r->metrics[k].name, *tensor, *stat;
		size_t ll, tl;
		int inserted = 0;
		matcher_nvinspect_split(name, &ll, &tensor, &tl, &stat);
		/* the key: `<layer>_<tensor>`, a prefix of the series' own name */
		struct matcher_strmap_slot *sl =
		        matcher_strmap_upsert(&map, name, tl ? ll + 1 + tl : ll, n, &inserted);
		if (!sl) {
			bad = 1;
			break;
		}
		if (inserted)
			g[n++] = (struct group){name, ll, tensor, tl, k, 0, 0, 0, 0};
		struct group *x = &g[sl->value];
		of[k] = sl->value;
		x->n++;
		x->n_fail += !r->metrics[k].pass && !r->metrics[k].not_logged;
		if (series_diff(r, k, &st) && (!x->has_diff || st < x->first_diff)) {
			x->first_diff = st;
			x->has_diff = 1;
		}
	}
	if (bad)
		goto done;
	bad |= buf_puts(out, "<section class=\"series-groups\" id=\"groups\"><h2>Series by layer "
	                     "and tensor</h2>");
	if (web_train_first_diff(r, &mk, &st))
		bad |= web_printf(out,
		                  "<p class=\"first-diff\">First difference: <code>%s</code> at "
		                  "iteration %ld</p>",
		                  r->metrics[mk].name, st);
	else
		bad |= buf_puts(out, "<p class=\"first-diff\">No series differs beyond its "
		                     "threshold.</p>");
	bad |= web_printf(out,
	                  "<p class=\"muted\">Compared: every series both runs logged (%zu series "
	                  "in %zu groups); charts only for the failing series (at most %d), the "
	                  "others are rows of the tables below; the CSV has every series.</p>",
	                  r->n_metrics, n, WEB_TRAIN_CHARTS_MAX);
	bad |= buf_puts(out, "<div class=\"scroll\"><table class=\"series-groups\"><thead><tr>"
	                     "<th>Layer</th><th>Tensor</th><th>Stats</th><th>Series</th>"
	                     "<th>Verdict</th><th>First differing iteration</th></tr></thead>"
	                     "<tbody>");
	for (size_t i = 0; i < n; i++) {
		const struct group *x = &g[i];
		const char *v = x->n_fail ? "fail" : "pass";
		bad |= web_printf(out, "<tr class=\"group %s\"><td>%.*s</td><td>%.*s</td><td>", v,
		                  (int)x->layer_len, x->name, (int)x->tensor_len, x->tensor);
		for (size_t k = x->first, c = 0; k < r->n_metrics; k++) {
			if (of[k] != i)
				continue;
			const char *tensor, *stat;
			size_t ll, tl;
			matcher_nvinspect_split(r->metrics[k].name, &ll, &tensor, &tl, &stat);
			bad |= web_printf(out, "%s<span class=\"%s\">%s</span>", c++ ? ", " : "",
			                  r->metrics[k].pass || r->metrics[k].not_logged ? "s-pass"
			                                                                 : "s-fail",
			                  tl ? stat : r->metrics[k].name);
		}
		bad |= web_printf(out, "</td><td class=\"num\">%zu</td><td>", x->n);
		bad |= web_badge(out, v);
		bad |= buf_puts(out, "</td>");
		if (x->has_diff)
			bad |= web_printf(out, "<td class=\"num\">%ld</td></tr>", x->first_diff);
		else
			bad |= buf_puts(out, "<td class=\"num muted\">&ndash;</td></tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div></section>");
done:
	matcher_strmap_reset(&map);
	free(g);
	free(of);
	return bad ? -1 : 0;
}
