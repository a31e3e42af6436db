/* pdf_report.c - the comparison reports as PDF sections (web/pdf.h), on
 * the flowing document of pdf_doc.c:
 *   training    title, runs, labels, verdict with every reason and note,
 *               the steps line, the metadata table (meta_table.c's merged
 *               key list, differing rows shaded), the statistics table
 *               (max |diff|, threshold, first offending step per metric),
 *               the two charts of each metric and the per-step table of
 *               up to two metrics (loss, grad_norm), capped by the caller
 *               with the rest counted in a note;
 *   activation  the same head, counts per status overall and per rank,
 *               a divergence profile per rank, then the non-matching rows
 *               streamed by the caller (web_pdf_act_row).
 * Every text is plain (pango draws it as given); invalid UTF-8 from logs
 * is repaired by pango's own validation (drawn as replacement boxes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdf_int.h"
#include "web_int.h"

/* The title, runs, labels, finish line and verdict of either kind. */
static int head(struct web_pdf *p, const char *kind, const struct store_comparison *cmp,
                const char *name_a, const char *name_b, int level, enum matcher_verdict verdict,
                size_t n_reasons)
{
	char t[2600];
	int bad = 0;
	if (cmp)
		snprintf(t, sizeof t, "%s comparison #%lld%s%s", kind, (long long)cmp->id,
		         cmp->name && *cmp->name ? ": " : "", cmp->name ? cmp->name : "");
	else
		snprintf(t, sizeof t, "%s comparison", kind);
	bad |= web_pdf_heading(p, level, t);
	if (cmp) {
		const char *na = cmp->baseline ? cmp->baseline->name : NULL;
		const char *nb = cmp->candidate ? cmp->candidate->name : NULL;
		snprintf(t, sizeof t,
		         "Baseline (A): run #%lld %s \xc2\xb7 Candidate (B): run #%lld %s",
		         (long long)cmp->baseline_id, na && *na ? na : "(unnamed)",
		         (long long)cmp->candidate_id, nb && *nb ? nb : "(unnamed)");
	} else {
		snprintf(t, sizeof t, "Baseline (A): %s \xc2\xb7 Candidate (B): %s",
		         name_a ? name_a : "?", name_b ? name_b : "?");
	}
	bad |= web_pdf_para(p, t);
	if (cmp && (cmp->baseline_name || cmp->suite)) {
		snprintf(t, sizeof t, "%s%s%s%s%s%s%s",
		         cmp->baseline_name ? "Golden baseline " : "",
		         cmp->baseline_name ? cmp->baseline_name : "",
		         cmp->baseline_name && cmp->suite ? " \xc2\xb7 " : "",
		         cmp->suite ? "Suite " : "", cmp->suite ? cmp->suite : "",
		         cmp->suite && cmp->config ? ", config " : "",
		         cmp->suite && cmp->config ? cmp->config : "");
		bad |= web_pdf_para(p, t);
	}
	if (cmp && cmp->finished_at) {
		snprintf(t, sizeof t, "Created %s \xc2\xb7 finished %s", cmp->created_at,
		         cmp->finished_at);
		bad |= web_pdf_note(p, t);
	}
	snprintf(t, sizeof t, "%zu reason%s", n_reasons, n_reasons == 1 ? "" : "s");
	bad |= web_pdf_verdict(p, matcher_verdict_name(verdict), n_reasons ? t : NULL);
	return bad ? -1 : 0;
}

/* The metadata table of two meta JSON texts (nothing when both have
 * none). */
static int meta(struct web_pdf *p, const char *meta_a, const char *meta_b, int level)
{
	struct web_meta_rows m;
	int bad = web_meta_rows_build(meta_a, meta_b, &m) < 0;
	char t[160];
	if (!bad && m.n) {
		static const double w[4] = {2.2, 3.4, 3.4, 0.7};
		static const char *const hd[4] = {"Key", "Baseline (A)", "Candidate (B)", ""};
		bad |= web_pdf_heading(p, level, "Metadata");
		snprintf(t, sizeof t, "%zu key%s differ%s between baseline and candidate (shaded).",
		         m.n_diff, m.n_diff == 1 ? "" : "s", m.n_diff == 1 ? "s" : "");
		bad |= web_pdf_note(p, t);
		bad |= web_pdf_table_begin(p, 4, w, hd);
		for (size_t i = 0; i < m.n; i++) {
			const char *cells[4] = {m.rows[i].key, m.rows[i].a, m.rows[i].b,
			                        m.rows[i].differs ? "\xe2\x89\xa0" : "="};
			bad |= web_pdf_table_row(p, cells, m.rows[i].differs ? 1 : 0);
		}
		bad |= web_pdf_table_end(p);
		if (m.dropped) {
			snprintf(t, sizeof t, "%zu more keys not shown (over %d a run).", m.dropped,
			         WEB_META_KEYS);
			bad |= web_pdf_note(p, t);
		}
	}
	web_meta_rows_free(&m);
	return bad ? -1 : 0;
}

/* A double as the statistics print it: "%.6g", or NaN / Inf. */
static void num(char *out, size_t cap, double v)
{
	if (isnan(v))
		snprintf(out, cap, "NaN");
	else if (isinf(v))
		snprintf(out, cap, "%sInf", v < 0 ? "-" : "");
	else
		snprintf(out, cap, "%.6g", v);
}

static int train_stats(struct web_pdf *p, const struct store_train_result *r, int level)
{
	static const double w[8] = {2.2, 0.9, 1.6, 1.0, 1.4, 1.3, 0.9, 1.0};
	static const char *const hd[8] = {"Metric",    "Result",     "max |diff|", "at step",
	                                  "threshold", "first over", "steps over", "compared"};
	int bad = web_pdf_heading(p, level, "Statistics");
	bad |= web_pdf_table_begin(p, 8, w, hd);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];
		char at[32] = "", th[64], first[32] = "", over[32], cmpd[32];
		if (m->has_max_step)
			snprintf(at, sizeof at, "%ld", m->max_abs_step);
		num(th, sizeof th, m->th.abs);
		if (m->th.has_rel) {
			size_t l = strlen(th);
			snprintf(th + l, sizeof th - l, " (rel %g)", m->th.rel);
		}
		if (m->has_first_over)
			snprintf(first, sizeof first, "%ld", m->first_over);
		snprintf(over, sizeof over, "%zu", m->n_over);
		snprintf(cmpd, sizeof cmpd, "%zu", m->n_compared);
		const char *cells[8] = {m->name,
		                        m->not_logged ? "not logged"
		                        : m->pass     ? "pass"
		                                      : "fail",
		                        m->not_logged ? NULL : m->max_abs_text,
		                        at[0] ? at : NULL,
		                        th,
		                        first[0] ? first : NULL,
		                        over,
		                        cmpd};
		bad |= web_pdf_table_row(p, cells, m->not_logged ? 0 : m->pass ? 2 : 1);
	}
	bad |= web_pdf_table_end(p);
	return bad ? -1 : 0;
}

/* One value of a step cell as printed (its decimals), or NULL. */
static const char *cell_value(char *out, size_t cap, const struct matcher_train_row_cell *c,
                              int side)
{
	if (!c->present[side])
		return NULL;
	matcher_train_format_value(side ? c->b : c->a, side ? c->dec_b : c->dec_a, out, cap);
	return out;
}

static int train_steps(struct web_pdf *p, const struct web_pdf_train *t, int level)
{
	char hdr[7][80], v[6][64], more[400];
	const char *hd[7], *cells[7];
	double w[7];
	size_t n = 1 + 3 * (size_t)t->n_table_metrics;
	int bad = web_pdf_heading(p, level, "Per-step values");

	snprintf(hdr[0], sizeof hdr[0], "step");
	hd[0] = hdr[0];
	w[0] = 1;
	for (int k = 0; k < t->n_table_metrics; k++) {
		snprintf(hdr[1 + 3 * k], sizeof hdr[0], "%s A", t->table_metric[k]);
		snprintf(hdr[2 + 3 * k], sizeof hdr[0], "%s B", t->table_metric[k]);
		snprintf(hdr[3 + 3 * k], sizeof hdr[0], "|diff|");
		for (int j = 1; j <= 3; j++) {
			hd[j + 3 * k] = hdr[j + 3 * k];
			w[j + 3 * k] = 1.5;
		}
	}
	if (t->n_steps_before > 0 && t->n_steps) {
		/* a window around the first offending step: say which */
		long first = -1;
		for (size_t i = 0; i < t->res->n_metrics; i++) {
			const struct matcher_train_metric_result *m = &t->res->metrics[i];
			if (m->has_first_over && (first < 0 || m->first_over < first))
				first = m->first_over;
		}
		snprintf(more, sizeof more,
		         "Steps %ld to %ld of %lld: the rows around the first offending step "
		         "(%ld); %lld earlier step%s not listed.",
		         t->steps[0].step, t->steps[t->n_steps - 1].step,
		         (long long)t->n_steps_total, first, (long long)t->n_steps_before,
		         t->n_steps_before == 1 ? "" : "s");
		bad |= web_pdf_para(p, more);
	}
	bad |= web_pdf_note(p, "Rows with a difference over its threshold are shaded.");
	bad |= web_pdf_table_begin(p, n, w, hd);
	for (size_t i = 0; i < t->n_steps && !bad; i++) {
		const struct web_pdf_step *s = &t->steps[i];
		int over = 0;
		snprintf(v[0], sizeof v[0], "%ld", s->step);
		cells[0] = v[0];
		for (int k = 0; k < t->n_table_metrics; k++) {
			const struct matcher_train_row_cell *c = &s->cell[k];
			cells[1 + 3 * k] = cell_value(v[1 + 2 * k], sizeof v[0], c, 0);
			cells[2 + 3 * k] = cell_value(v[2 + 2 * k], sizeof v[0], c, 1);
			cells[3 + 3 * k] = c->present[0] && c->present[1] ? c->abs_text : NULL;
			over |= c->over;
		}
		bad |= web_pdf_table_row(p, cells, over ? 1 : 0);
	}
	bad |= web_pdf_table_end(p);
	if (t->n_steps_total > (int64_t)t->n_steps + t->n_steps_before) {
		snprintf(more, sizeof more, "%lld more steps in the CSV%s%s%s.",
		         (long long)(t->n_steps_total - (int64_t)t->n_steps - t->n_steps_before),
		         t->csv_hint ? " (" : "", t->csv_hint ? t->csv_hint : "",
		         t->csv_hint ? ")" : "");
		bad |= web_pdf_para(p, more);
	}
	return bad ? -1 : 0;
}

int web_pdf_table_metrics(const struct store_train_result *r, const char *name[2], int idx[2])
{
	static const char *const pref[2] = {"loss", "grad_norm"};
	int n = 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < r->n_metrics; i++)
			if (!strcmp(r->metrics[i].name, pref[k])) {
				name[n] = r->metrics[i].name;
				idx[n++] = (int)i;
			}
	/* many series (web_train_charted): the failing ones first */
	for (size_t i = 0; i < r->n_metrics && n < 2 && web_train_all_common(r); i++)
		if (web_train_charted(r, i) && (!n || idx[0] != (int)i)) {
			name[n] = r->metrics[i].name;
			idx[n++] = (int)i;
		}
	for (size_t i = 0; i < r->n_metrics && n < 2; i++)
		if (strncmp(r->metrics[i].name, "validation/", 11) && (!n || idx[0] != (int)i)) {
			name[n] = r->metrics[i].name;
			idx[n++] = (int)i;
		}
	return n;
}

int web_pdf_train_report(struct web_pdf *p, const struct web_pdf_train *t, int level)
{
	const struct store_train_result *r = t->res;
	char s[600];
	int bad =
	        head(p, "Training", t->cmp, t->name_a, t->name_b, level, r->verdict, r->n_reasons);
	for (size_t i = 0; i < r->n_reasons; i++) {
		snprintf(s, sizeof s, "\xe2\x80\xa2 %s (%s)", r->reasons[i].message,
		         r->reasons[i].code);
		bad |= web_pdf_para(p, s);
	}
	for (size_t i = 0; i < r->n_notes; i++)
		bad |= web_pdf_note(p, r->notes[i]);
	snprintf(s, sizeof s, "Policy %s \xc2\xb7 rank %d \xc2\xb7 %lld common steps",
	         r->policy.name, r->rank, (long long)r->n_common);
	if (r->n_only[0] || r->n_only[1]) {
		size_t l = strlen(s);
		snprintf(s + l, sizeof s - l,
		         "; %lld only in the baseline, %lld only in the candidate",
		         (long long)r->n_only[0], (long long)r->n_only[1]);
	}
	bad |= web_pdf_para(p, s);
	if (web_train_all_common(r)) {
		/* many series: the first difference; charts of the failing ones */
		size_t k;
		long step;
		if (web_train_first_diff(r, &k, &step))
			snprintf(s, sizeof s, "First difference: %.400s at iteration %ld",
			         r->metrics[k].name, step);
		else
			snprintf(s, sizeof s, "No series differs beyond its threshold.");
		bad |= web_pdf_para(p, s);
		snprintf(s, sizeof s,
		         "Compared: every series both runs logged (%zu); charts only for the "
		         "failing series (at most %d); the CSV has every series.",
		         r->n_metrics, WEB_TRAIN_CHARTS_MAX);
		bad |= web_pdf_para(p, s);
	}
	bad |= meta(p, t->meta_a, t->meta_b, level + 1);
	if (r->n_metrics)
		bad |= train_stats(p, r, level + 1);
	int charts = 0;
	for (size_t i = 0; t->env && i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];
		if (!t->env[i].n_points || !web_train_charted(r, i))
			continue;
		if (!charts++)
			bad |= web_pdf_heading(p, level + 1, "Charts");
		struct web_metric_chart c = {
		        .metric = m->name,
		        .name_a = t->cmp && t->cmp->baseline ? t->cmp->baseline->name : t->name_a,
		        .name_b = t->cmp && t->cmp->candidate ? t->cmp->candidate->name : t->name_b,
		        .env = &t->env[i],
		        .threshold = m->th.abs,
		        .has_first_over = m->has_first_over,
		        .first_over = m->first_over};
		bad |= web_pdf_chart(p, &c, 0);
		bad |= web_pdf_chart(p, &c, 1);
	}
	if (t->n_table_metrics > 0)
		bad |= train_steps(p, t, level + 1);
	return bad ? -1 : 0;
}

int web_pdf_act_report(struct web_pdf *p, const struct web_pdf_act *a, int level)
{
	const struct store_act_result *r = a->res;
	char s[1200];
	int bad = head(p, "Activation", a->cmp, a->name_a, a->name_b, level, r->verdict,
	               r->n_reasons);
	for (size_t i = 0; i < r->n_reasons && i < 50; i++) {
		const struct store_act_reason *x = &r->reasons[i];
		if (x->rank >= 0)
			snprintf(s, sizeof s, "\xe2\x80\xa2 rank %d: %s (%s)", x->rank, x->message,
			         x->code);
		else
			snprintf(s, sizeof s, "\xe2\x80\xa2 %s (%s)", x->message, x->code);
		bad |= web_pdf_para(p, s);
	}
	bad |= meta(p, a->meta_a, a->meta_b, level + 1);

	/* counts per status, per rank and overall */
	static const double w[8] = {1.0, 1.2, 1.2, 1.0, 1.0, 1.0, 1.0, 1.1};
	static const char *const hd[8] = {"Rank", "Verdict", "rows",   "match",
	                                  "diff", "a_only",  "b_only", "tolerated"};
	int64_t tot[MATCHER_N_STATUS] = {0}, tot_rows = 0, tot_tol = 0;
	char v[8][32];
	bad |= web_pdf_heading(p, level + 1, "Counts");
	bad |= web_pdf_table_begin(p, 8, w, hd);
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct store_act_rank *k = &r->ranks[i];
		const char *cells[8];
		snprintf(v[0], sizeof v[0], "%d", k->rank < 0 ? 0 : k->rank);
		snprintf(v[2], sizeof v[2], "%lld", (long long)k->n_rows);
		for (int st = 0; st < MATCHER_N_STATUS; st++) {
			snprintf(v[3 + st], sizeof v[0], "%lld", (long long)k->n_status[st]);
			tot[st] += k->n_status[st];
		}
		snprintf(v[7], sizeof v[7], "%lld", (long long)k->n_tolerated);
		tot_rows += k->n_rows;
		tot_tol += k->n_tolerated;
		for (int c = 0; c < 8; c++)
			cells[c] = v[c];
		cells[1] = matcher_verdict_name(k->verdict);
		bad |= web_pdf_table_row(p, cells, k->verdict == MATCHER_VERDICT_PASS ? 2 : 1);
	}
	if (r->n_ranks > 1) {
		const char *cells[8];
		snprintf(v[2], sizeof v[2], "%lld", (long long)tot_rows);
		for (int st = 0; st < MATCHER_N_STATUS; st++)
			snprintf(v[3 + st], sizeof v[0], "%lld", (long long)tot[st]);
		snprintf(v[7], sizeof v[7], "%lld", (long long)tot_tol);
		for (int c = 0; c < 8; c++)
			cells[c] = v[c];
		cells[0] = "all";
		cells[1] = matcher_verdict_name(r->verdict);
		bad |= web_pdf_table_row(p, cells, 0);
	}
	bad |= web_pdf_table_end(p);

	for (size_t i = 0; a->profiles && i < a->n_profiles && i < r->n_ranks; i++) {
		if (!i)
			bad |= web_pdf_heading(p, level + 1, "Divergence profile");
		snprintf(s, sizeof s, "Rank %d: max hash distance per row", r->ranks[i].rank);
		bad |= web_pdf_profile(p, &a->profiles[i], s);
	}

	static const double rw[7] = {0.6, 0.8, 1.0, 0.9, 3.2, 3.2, 1.1};
	static const char *const rh[7] = {"Rank",         "Row",           "Phase",    "Status",
	                                  "Baseline key", "Candidate key", "hash dist"};
	bad |= web_pdf_heading(p, level + 1, "Rows that do not match");
	bad |= web_pdf_table_begin(p, 7, rw, rh);
	return bad ? -1 : 0;
}

int web_pdf_act_row(struct web_pdf *p, int rank, const struct web_act_row *row)
{
	char v[3][32];
	const struct matcher_row *m = row->row;
	snprintf(v[0], sizeof v[0], "%d", rank < 0 ? 0 : rank);
	snprintf(v[1], sizeof v[1], "%ld", row->idx);
	if (m->output_hash_distance >= 0)
		snprintf(v[2], sizeof v[2], "%.3g", m->output_hash_distance);
	const char *cells[7] = {v[0],
	                        v[1],
	                        matcher_phase_name(m->phase),
	                        matcher_status_name(m->status),
	                        m->a ? m->a->key : NULL,
	                        m->b ? m->b->key : NULL,
	                        m->output_hash_distance >= 0 ? v[2] : NULL};
	return web_pdf_table_row(p, cells, m->status == MATCHER_DIFF ? 1 : 0);
}

int web_pdf_act_rows_end(struct web_pdf *p, int64_t n_listed, int64_t n_more, const char *csv_hint)
{
	char t[400];
	int bad = web_pdf_table_end(p);
	if (!n_listed && !n_more)
		bad |= web_pdf_para(p, "Every row matches.");
	if (n_more > 0) {
		snprintf(t, sizeof t, "%lld more non-matching rows not listed%s%s%s.",
		         (long long)n_more, csv_hint ? " (all of them: " : "",
		         csv_hint ? csv_hint : "", csv_hint ? ")" : "");
		bad |= web_pdf_para(p, t);
	}
	return bad ? -1 : 0;
}
