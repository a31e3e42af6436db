/* train_csv.c - steps.csv of a training comparison (GET
 * /comparisons/{id}/steps.csv and the mail attachment): the header line,
 * then one line per stored per-step row, written from the typed rows
 * (struct store_step_row) a page at a time by the caller.  Text cells go
 * through web_csv_cell (quoted, formulas neutralised); numbers as the
 * steps document gives them (web/json_train.h number policy: finite
 * doubles shortest round-trip "%.17g", else NaN / Inf / -Inf). */
#include <math.h>
#include <string.h>

#include "noisecheck.h"
#include "tfevents.h" /* matcher_format_binary */
#include "web.h"

static const char *const suffix[] = {"_baseline", "_candidate", "_abs", "_rel", "_over"};

int web_train_csv_header(struct buf *out, const char *const *names, size_t n)
{
	int bad = buf_puts(out, "step");
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < 5; k++) {
			struct buf cell = BUF_INIT;
			bad |= buf_printf(&cell, "%s%s", names[i], suffix[k]);
			bad |= buf_putc(out, ',');
			bad |= web_csv_cell(out, cell.data ? cell.data : "", cell.len);
			buf_reset(&cell);
		}
	}
	bad |= buf_putc(out, '\n');
	return bad ? -1 : 0;
}

static int text_cell(struct buf *out, const char *s)
{
	return web_csv_cell(out, s, strlen(s));
}

/* A difference: "NaN" for a one-sided NaN (exact text "NaN"), else the
 * number. */
static int diff_cell(struct buf *out, double v, const char *exact)
{
	if (!strcmp(exact, "NaN") || isnan(v))
		return text_cell(out, "NaN");
	if (isinf(v))
		return text_cell(out, v < 0 ? "-Inf" : "Inf");
	return buf_printf(out, "%.17g", v);
}

int web_train_csv_row(struct buf *out, const char *const *names, size_t n,
                      const struct store_step_row *row)
{
	int bad = buf_printf(out, "%ld", row->step);
	for (size_t i = 0; i < n; i++) {
		const char *name = names[i];
		const struct matcher_train_row_cell *c =
		        strncmp(name, "validation/", 11) ? store_step_row_cell(row, name, i) : NULL;
		if (!c) {
			bad |= buf_puts(out, ",,,,,");
			continue;
		}
		int both = c->present[0] && c->present[1];
		for (int side = 0; side < 2; side++) {
			bad |= buf_putc(out, ',');
			if (c->present[side]) {
				char t[64];
				matcher_train_format_value(side ? c->b : c->a,
				                           side ? c->dec_b : c->dec_a, t, sizeof t);
				bad |= text_cell(out, t);
			}
		}
		bad |= buf_putc(out, ',');
		if (both)
			bad |= text_cell(out, c->abs_text);
		bad |= buf_putc(out, ',');
		if (both)
			bad |= diff_cell(out, c->rel, c->abs_text);
		bad |= buf_printf(out, ",%d", c->over ? 1 : 0);
	}
	bad |= buf_putc(out, '\n');
	return bad ? -1 : 0;
}

/* ---- a candidate against a baseline set (matcher/noisecheck.h) ---------- */

static const char *const noise_suffix[] = {"_candidate", "_mean",          "_sd", "_h", "_z",
                                           "_outside",   "_change_outside"};
#define N_NOISE_COLS (sizeof noise_suffix / sizeof noise_suffix[0])

static int noise_compared(const struct matcher_noise_metric *m)
{
	return !m->not_logged && m->y;
}

int web_noise_csv_header(struct buf *out, const struct matcher_noise_result *r)
{
	int bad = buf_puts(out, "step");
	for (size_t i = 0; i < r->n_metrics; i++) {
		if (!noise_compared(&r->metrics[i]))
			continue;
		for (size_t k = 0; k < N_NOISE_COLS; k++) {
			struct buf cell = BUF_INIT;
			bad |= buf_printf(&cell, "%s%s", r->metrics[i].name, noise_suffix[k]);
			bad |= buf_putc(out, ',');
			bad |= web_csv_cell(out, cell.data ? cell.data : "", cell.len);
			buf_reset(&cell);
		}
	}
	bad |= buf_putc(out, '\n');
	return bad ? -1 : 0;
}

/* A statistic: empty when not computed (NaN), else the shortest text that
 * reads back to the double. */
static int stat_cell(struct buf *out, double v)
{
	char t[40];
	if (isnan(v))
		return 0;
	matcher_format_binary(v, 0, t, sizeof t);
	return text_cell(out, t);
}

int web_noise_csv_row(struct buf *out, const struct matcher_noise_result *r, size_t i)
{
	int bad = buf_printf(out, "%ld", r->steps[i]);
	for (size_t k = 0; k < r->n_metrics; k++) {
		const struct matcher_noise_metric *m = &r->metrics[k];
		if (!noise_compared(m))
			continue;
		int done = !isnan(m->mean[i]);
		const double v[] = {m->y[i], m->mean[i], m->sd[i], m->h[i], m->z[i]};
		for (size_t c = 0; c < sizeof v / sizeof v[0]; c++) {
			bad |= buf_putc(out, ',');
			if (c == 0 && done && !isfinite(v[c]))
				bad |= text_cell(out, isnan(v[c]) ? "NaN"
				                      : v[c] < 0  ? "-Inf"
				                                  : "Inf");
			else
				bad |= stat_cell(out, v[c]);
		}
		if (done)
			bad |= buf_printf(out, ",%d,%d", m->outside[i] & 1,
			                  (m->outside[i] >> 1) & 1);
		else
			bad |= buf_puts(out, ",,");
	}
	bad |= buf_putc(out, '\n');
	return bad ? -1 : 0;
}

const char *web_lane_text(const char *lane)
{
	if (!lane)
		return NULL;
	if (!strcmp(lane, "identical"))
		return "identical";
	if (!strcmp(lane, "within_noise"))
		return "within noise";
	if (!strcmp(lane, "regression"))
		return "regression";
	return NULL;
}
