/* train_num.h - printed-decimal numbers for the training log: a fast
 * prefix parser that also reports the printed resolution, and exact
 * differences of two printed values.
 *
 * Why exact: 2.00001 - 2.0 in doubles is 1.0000000000065512e-05 (and
 * 11.09833 - 11.09832 is 1.000000000139778e-05), which fails a 1e-5
 * threshold although the printed values differ by exactly one unit of the
 * fifth decimal.  Both values were printed with a
 * known number of decimals, so scaling each to an integer at the larger
 * resolution recovers the printed digits exactly; the integer difference
 * divided by 10^d is then the double nearest the true decimal difference,
 * which compares correctly against a threshold parsed from the same
 * decimal text.  Internal to matcher/ (and its tests). */
#ifndef PARITY_TRAIN_NUM_H
#define PARITY_TRAIN_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Parse a number at the start of s[0,n): optional sign, digits with
 * optional "," thousands separators, optional fraction, optional exponent;
 * or nan / inf / infinity (any case, optional sign).  Returns the number of
 * bytes consumed (0 = no number) and sets *out and *decimals (digits after
 * the point minus the exponent, never below 0; 0 for nan/inf).  Pure. */
size_t matcher_train_parse_num(const char *s, size_t n, double *out, int *decimals);

/* v in the shortest `%.*e` form that reads back to v ("2.5e-03"): the
 * digits of its shortest round-trip decimal.  cap >= 32.  Pure. */
void matcher_format_shortest_e(double v, char *out, size_t cap);

/* Exact difference b - a of two printed values given their decimals.
 * Returns 1 when computed exactly: *units = (b - a) * 10^*d as an integer
 * (d = max(da, db)) and *diff its double value.  Values whose scaled
 * digits pass 2^53 (17-19 significant digits, as Python's repr writes a
 * float64) are taken from their shortest round-trip decimal text, which
 * is the text a repr wrote.  Returns 0 (and *diff = b - a in doubles)
 * when a value is not finite or its digits do not fit 10^-d units. */
int matcher_train_exact_diff(double a, int da, double b, int db, double *diff, int64_t *units,
                             int *d);

/* Write |units| * 10^-d as decimal text with exactly d decimals ("0.00228",
 * "0.0010"); "0" when units is 0.  Always NUL-terminates. */
void matcher_train_format_units(int64_t units, int d, char *out, size_t cap);

/* 10^-d as a double (the resolution of d printed decimals). */
double matcher_train_resolution(int d);

#endif
