/* train_prec.c - differences at the coarser precision (see train_prec.h). */
#include "train_prec.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "tfevents.h" /* matcher_format_binary */
#include "traincheck.h"
#include "train_num.h"
#include "trainlog.h"

int matcher_train_prec_rank(int prec)
{
	switch (prec) {
	case MATCHER_PREC_PRINTED: return 0;
	case MATCHER_PREC_FLOAT32: return 1;
	default: return 2;
	}
}

/* v rounded to d decimals the way printf prints it, as a value. */
static double round_printed(double v, int d)
{
	char t[400];
	double out;
	int dec;
	snprintf(t, sizeof t, "%.*f", d < 0 ? 0 : (d > 60 ? 60 : d), v);
	if (matcher_train_parse_num(t, sizeof t, &out, &dec) == 0)
		return v;
	return out;
}

static void double_diff(double a, double b, double *abs, char *text, size_t cap)
{
	*abs = fabs(b - a);
	matcher_format_binary(*abs, 0, text, cap);
	if (*abs == 0)
		snprintf(text, cap, "0");
}

void matcher_train_prec_diff(double a, int dec_a, int prec_a, double b, int dec_b, int prec_b,
                             double *abs, char *text, size_t cap)
{
	int ra = matcher_train_prec_rank(prec_a), rb = matcher_train_prec_rank(prec_b);
	double diff;
	int64_t units;
	int d;
	if (ra == 0 || rb == 0) {
		/* printed: both at the printed side's decimals */
		d = ra == 0 && rb == 0 ? (dec_a > dec_b ? dec_a : dec_b)
		                       : (ra == 0 ? dec_a : dec_b);
		if (ra != 0)
			a = round_printed(a, d);
		if (rb != 0)
			b = round_printed(b, d);
		if (matcher_train_exact_diff(a, d, b, d, &diff, &units, &d)) {
			*abs = fabs(diff);
			matcher_train_format_units(units, d, text, cap);
		} else {
			double_diff(a, b, abs, text, cap);
		}
		return;
	}
	if (ra == 1 || rb == 1) {
		double_diff((double)(float)a, (double)(float)b, abs, text, cap);
		return;
	}
	if (prec_a == MATCHER_PREC_DECIMAL && prec_b == MATCHER_PREC_DECIMAL &&
	    matcher_train_exact_diff(a, dec_a, b, dec_b, &diff, &units, &d)) {
		*abs = fabs(diff);
		matcher_train_format_units(units, d, text, cap);
		return;
	}
	double_diff(a, b, abs, text, cap);
}

/* The name of a one-precision mask ("printed" ... ), "mixed" otherwise. */
static const char *mask_name(unsigned mask)
{
	for (int p = 0; p < 4; p++)
		if (mask == 1u << p)
			return p == MATCHER_PREC_PRINTED   ? "printed (stdout)"
			       : p == MATCHER_PREC_DECIMAL ? "decimal (golden loss file)"
			       : p == MATCHER_PREC_FLOAT32 ? "float32 (TensorBoard)"
			                                   : "float64 (TensorBoard)";
	return "of mixed precision";
}

int matcher_train_prec_note(const char *metric, const unsigned seen[2], int compared, int decimals,
                            char *out, size_t cap)
{
	if (!seen[0] || !seen[1] || seen[0] == seen[1])
		return 0;
	char at[64];
	if (compared == MATCHER_PREC_PRINTED)
		snprintf(at, sizeof at, "the printed resolution (%d decimals)", decimals);
	else
		snprintf(at, sizeof at, "%s precision",
		         compared == MATCHER_PREC_FLOAT32 ? "float32" : "full (float64/decimal)");
	snprintf(out, cap,
	         "%s: the baseline's values are %s, the candidate's %s: they are compared at %s, "
	         "the coarser of the two",
	         metric, mask_name(seen[0]), mask_name(seen[1]), at);
	return 1;
}

int matcher_train_series_golden(const struct matcher_train_series *s)
{
	int any = 0;
	if (!s)
		return 0;
	for (size_t c = 0; c < s->n_cols; c++)
		for (size_t i = 0; i < s->n_steps; i++) {
			const struct matcher_train_cell *x = &s->cols[c].cells[i];
			if (!x->present)
				continue;
			if (x->prec != MATCHER_PREC_DECIMAL)
				return 0;
			any = 1;
		}
	return any;
}
