/* noise_pdf.c - the PDF report of a candidate against a baseline set
 * (issue 26, matcher/spec/noise.md) on the flowing document of
 * web/pdf_doc.c: the same content as the HTML page (web/noise_page.c),
 * typed from struct web_noise_view.  Text goes through pango (plain text,
 * no markup), so log text needs no escaping here and stays selectable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "noisecheck.h"
#include "pdf.h"
#include "web_int.h"

static int metrics_table(struct web_pdf *p, const struct matcher_noise_result *r)
{
	static const char *const head[8] = {
	        "metric",  "steps",      "outside / allowed", "p",
	        "bias sd", "above mean", "changes",           "first outside / result"};
	static const double widths[8] = {1.6, 0.8, 1.1, 0.9, 0.8, 0.8, 1, 1.6};
	int bad = web_pdf_table_begin(p, 8, widths, head) < 0;

	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_noise_metric *m = &r->metrics[i];
		char c[8][64];
		const char *cells[8];

		for (int k = 0; k < 8; k++) {
			c[k][0] = 0;
			cells[k] = c[k];
		}
		snprintf(c[0], sizeof c[0], "%.63s", m->name); /* the cell shows 63 bytes */
		if (m->not_logged) {
			snprintf(c[7], sizeof c[7], "not logged");
			bad |= web_pdf_table_row(p, cells, 0) < 0;
			continue;
		}
		snprintf(c[1], sizeof c[1], "%zu", m->n);
		snprintf(c[2], sizeof c[2], "%zu / %ld", m->n_outside, m->allowed);
		web_noise_fmt(c[3], sizeof c[3], 'e', m->p, 0);
		web_noise_fmt(c[4], sizeof c[4], 'z', m->bias, 0);
		web_noise_fmt(c[5], sizeof c[5], '%', 100 * m->share_above, 0);
		snprintf(c[6], sizeof c[6], "%zu / %ld", m->n_change_outside, m->allowed_change);
		if (m->has_first_outside)
			snprintf(c[7], sizeof c[7], "step %ld: %s", m->first_outside,
			         m->regression ? "regression" : "within noise");
		else
			snprintf(c[7], sizeof c[7], "%s",
			         m->regression ? "regression"
			         : m->n        ? "within noise"
			                       : "not compared");
		bad |= web_pdf_table_row(p, cells, m->regression ? 1 : 0) < 0;
	}
	bad |= web_pdf_table_end(p) < 0;
	return bad ? -1 : 0;
}

/* The per-step window of metric mi, as the HTML page lists it. */
static int step_table(struct web_pdf *p, const struct matcher_noise_result *r, size_t mi)
{
	static const char *const head[7] = {"step", "candidate", "mean", "sd", "h", "z", "outside"};
	const struct matcher_noise_metric *m = &r->metrics[mi];
	size_t listed = 0, i = web_noise_window_start(r, m);
	int bad = 0;

	bad |= web_pdf_table_begin(p, 7, NULL, head) < 0;
	for (; i < r->n_steps && listed < WEB_NOISE_TABLE_ROWS; i++) {
		char c[7][48];
		const char *cells[7];
		unsigned o = m->outside[i];

		if (!isfinite(m->mean[i]))
			continue;
		listed++;
		snprintf(c[0], sizeof c[0], "%ld", r->steps[i]);
		web_noise_fmt(c[1], sizeof c[1], 'g', m->y[i], 1);
		web_noise_fmt(c[2], sizeof c[2], 'g', m->mean[i], 0);
		web_noise_fmt(c[3], sizeof c[3], 'e', m->sd[i], 0);
		web_noise_fmt(c[4], sizeof c[4], 'e', m->h[i], 0);
		web_noise_fmt(c[5], sizeof c[5], 'z', m->z[i], 0);
		snprintf(c[6], sizeof c[6], "%s", web_noise_outside_text(o));
		for (int k = 0; k < 7; k++)
			cells[k] = c[k];
		bad |= web_pdf_table_row(p, cells, o ? 1 : 0) < 0;
	}
	bad |= web_pdf_table_end(p) < 0;
	return bad ? -1 : 0;
}

int web_pdf_noise_report(struct web_pdf *p, const struct web_noise_view *v, int level)
{
	const struct matcher_noise_result *r = v->res;
	const char *verdict = matcher_verdict_name(r->verdict);
	char line[512];
	int bad = 0;

	snprintf(line, sizeof line, "Training comparison against a baseline set: %s",
	         web_noise_lane_label(r->lane));
	bad |= web_pdf_heading(p, level, line) < 0;
	if (v->note)
		bad |= web_pdf_note(p, v->note) < 0;
	snprintf(line, sizeof line, "lane: %s", web_noise_lane_label(r->lane));
	bad |= web_pdf_verdict(p, verdict, line) < 0;
	bad |= web_pdf_para(p, web_noise_lane_sentence(r->lane)) < 0;
	for (size_t i = 0; i < r->n_reasons; i++) {
		snprintf(line, sizeof line, "%s: %.480s", r->reasons[i].code,
		         r->reasons[i].message);
		bad |= web_pdf_para(p, line) < 0;
	}
	snprintf(line, sizeof line,
	         "Policy %s: %zu baseline runs, rank %d; alpha_step %g, alpha_run %g, at least "
	         "%ld runs; %zu compared steps.",
	         r->policy.name, r->k, r->rank, r->policy.noise.alpha_step,
	         r->policy.noise.alpha_run, r->policy.noise.min_runs, r->n_steps);
	bad |= web_pdf_note(p, line) < 0;

	bad |= web_pdf_heading(p, level + 1, "Baseline set and candidate") < 0;
	for (size_t j = 0; j < r->k; j++) {
		const char *name =
		        v->member_names && v->member_names[j] ? v->member_names[j] : "(unnamed)";
		snprintf(line, sizeof line, "member %zu: %s%s", j + 1, name,
		         r->identical_to == (int)j ? "  (the candidate equals it)" : "");
		bad |= web_pdf_para(p, line) < 0;
	}
	snprintf(line, sizeof line, "candidate: %s",
	         v->candidate_name ? v->candidate_name : "candidate");
	bad |= web_pdf_para(p, line) < 0;

	bad |= web_pdf_heading(p, level + 1, "Metrics") < 0;
	bad |= metrics_table(p, r) < 0;
	for (size_t i = 0; i < r->n_notes; i++)
		bad |= web_pdf_note(p, r->notes[i]) < 0;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_noise_metric *m = &r->metrics[i];

		if (m->not_logged || !m->n || !m->y)
			continue;
		bad |= web_pdf_heading(p, level + 1, m->name) < 0;
		bad |= web_pdf_noise_chart(p, v, i, 0) < 0;
		bad |= web_pdf_noise_chart(p, v, i, 1) < 0;
		bad |= step_table(p, r, i) < 0;
	}
	return bad ? -1 : 0;
}
