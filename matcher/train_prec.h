/* train_prec.h - differences of full-precision training values (issue
 * 14): TensorBoard float32/float64 scalars and golden-file decimals, alone
 * or against printed stdout values.  Internal to matcher/ (traincheck.c
 * and its tests).
 *
 * Two values are compared at the coarser of their precisions:
 *   - a printed value (stdout, d decimals) against anything: the other
 *     value is rounded to d decimals first (printf's %.*f), then the
 *     printed digits are subtracted exactly (train_num.h);
 *   - float32 against a decimal or float64 value: the other value is
 *     rounded to float32 first, then subtracted in doubles (the
 *     difference of two float32 is exact in a double);
 *   - two float32, two float64, float64 and decimal: subtracted in doubles
 *     (exact whenever the values are within a factor of two, Sterbenz);
 *   - two decimals: subtracted exactly on their digits when they scale to
 *     integers (train_num.h), else as doubles like the line above.
 * So identical stored values always differ by exactly 0 (`bitwise`), and
 * one float32 ulp is never lost. */
#ifndef PARITY_TRAIN_PREC_H
#define PARITY_TRAIN_PREC_H

#include <stddef.h>

/* The coarseness order used above: 0 printed, 1 float32, 2 decimal or
 * float64 (enum matcher_precision in, rank out). */
int matcher_train_prec_rank(int prec);

/* |b - a| of two finite values with their precisions and decimals, at the
 * coarser precision: *abs and its exact text (cap >= 48).  Pure. */
void matcher_train_prec_diff(double a, int dec_a, int prec_a, double b, int dec_b, int prec_b,
                             double *abs, char *text, size_t cap);

/* The note a result carries when the two sides of a metric were recorded
 * at different precisions (seen: per side, bit 1 << precision; compared:
 * the coarser precision; decimals: the printed resolution when that is
 * printed): "loss: the baseline's values are decimal (golden loss file),
 * the candidate's float32 (TensorBoard): they are compared at float32
 * precision, the coarser of the two".  1 and out written, else 0. */
int matcher_train_prec_note(const char *metric, const unsigned seen[2], int compared, int decimals,
                            char *out, size_t cap);

struct matcher_train_series;
/* Is s a golden loss file's series: every value it holds has decimal
 * precision (and it holds one)?  Such a series holds only the metrics the
 * file names (`loss` by default), so the check compares the metrics the
 * golden side has and notes the others instead of calling them missing.
 * NULL -> 0.  Pure. */
int matcher_train_series_golden(const struct matcher_train_series *s);

#endif
