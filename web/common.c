/* common.c - page pieces both comparison kinds share: the verdict banner
 * (verdict, every reason, the policy) and the baseline/candidate line,
 * plus the lenient number reader for the API's JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

double wj_num(json_t *v, int *missing)
{
	const char *s;

	if (missing)
		*missing = 0;
	if (json_is_number(v))
		return json_number_value(v);
	s = json_string_value(v);
	/* "Inf"; "Infinity" in results stored before issue 13 */
	if (s && (!strcmp(s, "Inf") || !strcmp(s, "Infinity")))
		return INFINITY;
	if (s && (!strcmp(s, "-Inf") || !strcmp(s, "-Infinity")))
		return -INFINITY;
	if (s && (!strcmp(s, "NaN") || !strcmp(s, "nan")))
		return NAN;
	if (missing)
		*missing = 1;
	return NAN;
}

/* One policy as a short sentence. */
static int policy_line(struct buf *out, json_t *pol)
{
	const char *name = wj_str(pol, "name");
	json_t *th = json_object_get(pol, "thresholds"), *v;
	const char *k;
	int bad = 0;

	bad |= web_printf(out, "<p class=\"policy\">Policy <b>%s</b>", name ? name : "default");
	if (wj_str(pol, "base") && name && strcmp(wj_str(pol, "base"), name) != 0)
		bad |= web_printf(out, " (from %s)", wj_str(pol, "base"));
	if (json_is_number(json_object_get(pol, "max_hash_distance"))) {
		bad |= web_printf(out, ": hash distances up to %g tolerated",
		                  json_number_value(json_object_get(pol, "max_hash_distance")));
	}
	if (json_array_size(json_object_get(pol, "allow_only_ops"))) {
		size_t i;
		json_t *op;

		bad |= web_printf(out, "; only-rows allowed for ");
		json_array_foreach(json_object_get(pol, "allow_only_ops"), i, op) bad |=
		        web_printf(out, "%s<code>%s</code>", i ? ", " : "", json_string_value(op));
	}
	if (json_is_object(th)) {
		int first = 1;

		json_object_foreach(th, k, v)
		{
			double a = wj_num(json_object_get(v, "abs"), NULL);
			double r = wj_num(json_object_get(v, "rel"), NULL);

			bad |= web_printf(out, "%s%s", first ? ": " : "; ", k);
			if (isfinite(a))
				bad |= web_printf(out, " |diff| &le; %g", a);
			if (isfinite(r))
				bad |= web_printf(out, ", rel &le; %g", r);
			first = 0;
		}
	}
	if (json_is_integer(json_object_get(pol, "min_steps")))
		bad |= web_printf(out, "; at least %lld common steps", wj_int(pol, "min_steps", 1));
	if (json_is_true(json_object_get(pol, "allow_warnings")))
		bad |= web_printf(out, "; parse warnings allowed");
	bad |= buf_puts(out, "</p>");
	return bad ? -1 : 0;
}

int web_verdict_banner(struct buf *out, json_t *cmp, json_t *result)
{
	const char *v = wj_str(result, "verdict");
	json_t *reasons = json_object_get(result, "reasons"), *r;
	json_t *pol = json_object_get(result, "policy");
	size_t i;
	int bad = 0;
	const char *cls = "other";

	if (!v)
		v = wj_str(cmp, "verdict");
	if (v && (!strcmp(v, "pass") || !strcmp(v, "fail") || !strcmp(v, "error")))
		cls = v;
	bad |= web_printf(out,
	                  "<section class=\"verdict v-%s\" id=\"verdict\" data-verdict=\"%s\">"
	                  "<div class=\"verdict-word\">%s</div><div class=\"verdict-body\">",
	                  cls, v ? v : "", v ? v : "no verdict");
	if (json_array_size(reasons)) {
		bad |= buf_puts(out, "<ul class=\"reasons\">");
		json_array_foreach(reasons, i, r)
		{
			bad |= web_printf(out, "<li><code>%s</code> ", wj_str(r, "code"));
			if (json_is_integer(json_object_get(r, "rank")))
				bad |= web_printf(out, "<span class=\"chip\">rank %lld</span> ",
				                  wj_int(r, "rank", 0));
			bad |= web_printf(out, "%s</li>", wj_str(r, "message"));
		}
		bad |= buf_puts(out, "</ul>");
	} else if (v && !strcmp(v, "pass")) {
		bad |= buf_puts(out, "<p>The candidate agrees with the baseline under the "
		                     "policy.</p>");
	}
	if (!pol)
		pol = json_object_get(cmp, "policy");
	if (json_is_object(pol))
		bad |= policy_line(out, pol);
	bad |= buf_puts(out, "</div></section>");
	return bad ? -1 : 0;
}

/* ---- reasons of a multi-rank result, grouped by code ---------------------- */

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return a < b ? -1 : a > b;
}

/* "0-3,5": the ranks (sorted here, duplicates folded) as ranges. */
static int rank_ranges(struct buf *out, int *ranks, size_t n)
{
	size_t i = 0, k = 0;
	int bad = 0;

	qsort(ranks, n, sizeof *ranks, cmp_int);
	while (i < n) {
		size_t j = i;

		while (j + 1 < n && ranks[j + 1] <= ranks[j] + 1)
			j++;
		bad |= buf_printf(out, "%s%d", k++ ? "," : "", ranks[i]);
		if (ranks[j] != ranks[i])
			bad |= buf_printf(out, "-%d", ranks[j]);
		i = j + 1;
	}
	return bad ? -1 : 0;
}

/* The reasons of res with reasons[at]'s code that name a rank, as one
 * item: "code on ranks 1-3,5" and the message when every rank has the
 * same one, else the per-rank messages folded in a <details>.  Writes
 * nothing when an earlier reason had the code (its item holds this one).
 * Allocates the rank list (freed here). */
static int reason_group(struct buf *out, const struct store_act_result *res, size_t at)
{
	const struct store_act_reason *r = &res->reasons[at];
	int *ranks = NULL, bad = 0, same = 1;
	size_t i, n = 0;

	for (i = 0; i < at; i++) {
		if (res->reasons[i].rank >= 0 && !strcmp(res->reasons[i].code, r->code))
			return 0;
	}
	ranks = malloc((res->n_reasons - at) * sizeof *ranks);
	if (!ranks)
		return -1;
	for (i = at; i < res->n_reasons; i++) {
		const struct store_act_reason *x = &res->reasons[i];

		if (x->rank < 0 || strcmp(x->code, r->code))
			continue;
		ranks[n++] = x->rank;
		same &= !strcmp(x->message, r->message);
	}
	bad |= web_printf(out, "<li class=\"rgroup\" data-code=\"%s\"><code>%s</code> on rank%s ",
	                  r->code, r->code, n == 1 ? "" : "s");
	bad |= buf_puts(out, "<span class=\"chip ranks\">");
	bad |= rank_ranges(out, ranks, n);
	bad |= buf_puts(out, "</span> ");
	if (same || n == 1) {
		bad |= web_printf(out, "%s</li>", r->message);
	} else {
		bad |= web_printf(out,
		                  "<details><summary>%zu messages (see the rank table)</summary>"
		                  "<ul>",
		                  n);
		for (i = at; i < res->n_reasons; i++) {
			const struct store_act_reason *x = &res->reasons[i];

			if (x->rank >= 0 && !strcmp(x->code, r->code))
				bad |= web_printf(out,
				                  "<li><span class=\"chip\">rank %d</span> %s</li>",
				                  x->rank, x->message);
		}
		bad |= buf_puts(out, "</ul></details></li>");
	}
	free(ranks);
	return bad ? -1 : 0;
}

int web_act_verdict_banner(struct buf *out, const struct store_act_result *res)
{
	const char *v = matcher_verdict_name(res->verdict);
	const struct matcher_act_policy *p = &res->policy;
	int bad = 0;

	bad |= web_printf(out,
	                  "<section class=\"verdict v-%s\" id=\"verdict\" data-verdict=\"%s\">"
	                  "<div class=\"verdict-word\">%s</div><div class=\"verdict-body\">",
	                  v, v, v);
	if (res->n_reasons) {
		bad |= buf_puts(out, "<ul class=\"reasons\">");
		for (size_t i = 0; i < res->n_reasons; i++) {
			const struct store_act_reason *r = &res->reasons[i];

			if (res->n_ranks > 1 && r->rank >= 0) {
				bad |= reason_group(out, res, i);
				continue;
			}
			bad |= web_printf(out, "<li><code>%s</code> ", r->code);
			if (r->rank >= 0)
				bad |= web_printf(out, "<span class=\"chip\">rank %lld</span> ",
				                  (long long)r->rank);
			bad |= web_printf(out, "%s</li>", r->message);
		}
		bad |= buf_puts(out, "</ul>");
	} else if (res->verdict == MATCHER_VERDICT_PASS) {
		bad |= buf_puts(out, "<p>The candidate agrees with the baseline under the "
		                     "policy.</p>");
	}
	bad |= web_printf(out, "<p class=\"policy\">Policy <b>%s</b>", matcher_act_policy_name(p));
	if (p->kind == MATCHER_POLICY_TOLERANCE && p->max_hash_distance >= 0 &&
	    isfinite(p->max_hash_distance))
		bad |= web_printf(out, ": hash distances up to %g tolerated", p->max_hash_distance);
	if (p->kind == MATCHER_POLICY_TOLERANCE && p->n_allow_only_ops) {
		bad |= web_printf(out, "; only-rows allowed for ");
		for (size_t i = 0; i < p->n_allow_only_ops; i++)
			bad |= web_printf(out, "%s<code>%s</code>", i ? ", " : "",
			                  p->allow_only_ops[i]);
	}
	bad |= buf_puts(out, "</p></div></section>");
	return bad ? -1 : 0;
}

int web_runs_line_of(struct buf *out, const struct web_run_ref *a, const struct web_run_ref *b,
                     const char *finished_at, enum web_mode mode)
{
	const struct web_run_ref *side[2] = {a, b};
	static const char *const label[2] = {"A", "B"};
	int bad = 0;

	bad |= buf_puts(out, "<p class=\"runs\">Baseline (A) ");
	for (int k = 0; k < 2; k++) {
		const char *n = side[k]->name;

		if (k)
			bad |= buf_puts(out, " &nbsp;vs&nbsp; candidate (B) ");
		if (mode == WEB_SERVER && side[k]->linked)
			bad |= web_printf(out, "<a href=\"/ui/runs/%lld\">#%lld %s</a>",
			                  side[k]->id, side[k]->id, n ? n : "");
		else
			bad |= web_printf(out, "<b>%s</b>", n && *n ? n : label[k]);
	}
	if (finished_at)
		bad |= web_printf(out, " <span class=\"muted\">&middot; finished %s</span>",
		                  finished_at);
	bad |= buf_puts(out, "</p>");
	return bad ? -1 : 0;
}

int web_runs_line(struct buf *out, json_t *cmp, enum web_mode mode)
{
	json_t *runs = json_object_get(cmp, "runs");
	json_t *ra = json_object_get(runs, "baseline"), *rb = json_object_get(runs, "candidate");
	json_t *names = json_object_get(json_object_get(cmp, "result"), "names");
	struct web_run_ref a = {wj_int(ra, "id", 0), wj_str(ra, "name"), ra != NULL};
	struct web_run_ref b = {wj_int(rb, "id", 0), wj_str(rb, "name"), rb != NULL};

	if (!a.name)
		a.name = wj_str(names, "a");
	if (!b.name)
		b.name = wj_str(names, "b");
	if (!names)
		names = json_object_get(cmp, "names");
	if (!a.name)
		a.name = wj_str(names, "a");
	if (!b.name)
		b.name = wj_str(names, "b");
	int bad = web_runs_line_of(out, &a, &b, wj_str(cmp, "finished_at"), mode);
	bad |= web_cmp_labels(out, wj_str(cmp, "baseline_name"), wj_str(cmp, "suite"),
	                      wj_str(cmp, "config"), mode);
	return web_meta_table(out, json_object_get(ra, "meta"), json_object_get(rb, "meta")) | bad;
}
