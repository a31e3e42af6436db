/* fmt17.h - "%.17g" of a double, byte for byte as printf writes it, fast
 * for the values the comparison documents print by the hundred thousand:
 * hash distances and relative differences, in [1e-12, 1].
 *
 * 17 significant digits identify every double, so this is the text that
 * reads back as the same value (JSON, CSV, the report's tooltips).  glibc's
 * printf takes ~1 us a number through its general multi-precision path;
 * here the digits come from one 192-bit product (m * 10^p, shifted by the
 * binary exponent, rounded half-even as printf rounds), ~6x faster.
 * Values outside [1e-12, 1], and NaN / inf, go to snprintf.  Pure. */
#ifndef PARITY_FMT17_H
#define PARITY_FMT17_H

#include <stddef.h>

/* Buffer size that holds any "%.17g" text and its NUL. */
#define MATCHER_FMT17_CAP 32

/* Write "%.17g" of v to out (MATCHER_FMT17_CAP bytes), NUL-terminated;
 * returns its length. */
size_t matcher_fmt17(double v, char *out);

#endif
