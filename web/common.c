/* common.c - page pieces both comparison kinds share: the verdict banners
 * (verdict, every reason, the policy) of both result types and the
 * baseline/candidate line, all from typed results. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "web_int.h"

/* The verdict section's head: class and word by verdict. */
static int verdict_head(struct buf *out, const char *v)
{
	return web_printf(out,
	                  "<section class=\"verdict v-%s\" id=\"verdict\" data-verdict=\"%s\">"
	                  "<div class=\"verdict-word\">%s</div><div class=\"verdict-body\">",
	                  v, v, v);
}

static const char pass_sentence[] = "<p>The candidate agrees with the baseline under the "
                                    "policy.</p>";

/* A training policy as a short sentence. */
static int train_policy_line(struct buf *out, const struct matcher_train_policy *p)
{
	int bad = 0;

	bad |= web_printf(out, "<p class=\"policy\">Policy <b>%s</b>", p->name);
	if (strcmp(p->base, p->name) != 0)
		bad |= web_printf(out, " (from %s)", p->base);
	for (size_t i = 0; i < p->n_th; i++) {
		const struct matcher_train_threshold *t = &p->th[i];

		bad |= web_printf(out, "%s%s", i ? "; " : ": ", t->metric);
		if (isfinite(t->abs))
			bad |= web_printf(out, " |diff| &le; %g", t->abs);
		if (t->has_rel && isfinite(t->rel))
			bad |= web_printf(out, ", rel &le; %g", t->rel);
	}
	bad |= web_printf(out, "; at least %lld common steps", (long long)p->min_steps);
	if (p->allow_warnings)
		bad |= web_printf(out, "; parse warnings allowed");
	bad |= buf_puts(out, "</p>");
	return bad ? -1 : 0;
}

int web_train_verdict_banner(struct buf *out, const struct store_train_result *res)
{
	const char *v = matcher_verdict_name(res->verdict);
	struct buf t = BUF_INIT;
	int bad = verdict_head(out, v);

	if (res->n_reasons) {
		bad |= buf_puts(out, "<ul class=\"reasons\">");
		for (size_t i = 0; i < res->n_reasons; i++)
			bad |= web_printf(out, "<li><code>%s</code> %s</li>", res->reasons[i].code,
			                  web_utf8(&t, res->reasons[i].message));
		bad |= buf_puts(out, "</ul>");
	} else if (res->verdict == MATCHER_VERDICT_PASS) {
		bad |= buf_puts(out, pass_sentence);
	}
	bad |= train_policy_line(out, &res->policy);
	bad |= buf_puts(out, "</div></section>");
	buf_reset(&t);
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
	int bad = verdict_head(out, v);

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
		bad |= buf_puts(out, pass_sentence);
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

int web_cmp_runs_line(struct buf *out, const struct store_comparison *cmp, const char *name_a,
                      const char *name_b, enum web_mode mode)
{
	struct web_run_ref a = {0, name_a, 0}, b = {0, name_b, 0};

	if (cmp && cmp->baseline)
		a = (struct web_run_ref){cmp->baseline->id, name_a, 1};
	if (cmp && cmp->candidate)
		b = (struct web_run_ref){cmp->candidate->id, name_b, 1};
	int bad = web_runs_line_of(out, &a, &b, cmp ? cmp->finished_at : NULL, mode);
	if (!cmp)
		return bad ? -1 : 0;
	bad |= web_cmp_labels(out, cmp->baseline_name, cmp->suite, cmp->config, mode);
	bad |= web_meta_table(out, cmp->baseline ? cmp->baseline->meta_json : NULL,
	                      cmp->candidate ? cmp->candidate->meta_json : NULL);
	return bad ? -1 : 0;
}

int web_cmp_downloads(struct buf *out, long long id, const char *const *metrics, size_t n_metrics)
{
	struct buf m = BUF_INIT;
	int bad = 0;

	bad |= web_printf(out,
	                  "<nav class=\"downloads\" id=\"downloads\" aria-label=\"downloads\">"
	                  "Download: <a id=\"dl-pdf\" href=\"/comparisons/%lld/report.pdf\" "
	                  "type=\"application/pdf\">PDF report</a> &middot; <a id=\"dl-csv\" "
	                  "href=\"/comparisons/%lld/%s.csv\" type=\"text/csv\" download>%s (CSV)"
	                  "</a>",
	                  id, id, metrics ? "steps" : "rows", metrics ? "every step" : "every row");
	for (size_t k = 0; metrics && k < n_metrics; k++) {
		buf_clear(&m);
		bad |= web_urlenc(&m, metrics[k]);
		bad |= web_printf(
		        out,
		        " &middot; <span class=\"dl-png\">%s: <a class=\"dl-png\" "
		        "href=\"/comparisons/%lld/charts/%s.png\" type=\"image/png\">chart "
		        "(PNG)</a>, <a class=\"dl-png\" href=\"/comparisons/%lld/charts/"
		        "%s-diff.png\" type=\"image/png\">difference (PNG)</a></span>",
		        metrics[k], id, m.data ? m.data : "", id, m.data ? m.data : "");
	}
	bad |= buf_puts(out, "</nav>");
	buf_reset(&m);
	return bad ? -1 : 0;
}

const unsigned char web_json_byte[256] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 3, 3, 0, 3, 3, 3, 1, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
        3, 3, 1, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
        3, 3, 3, 3, 3, 0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
        3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2,
        2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};
