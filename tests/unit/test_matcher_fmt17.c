/* test_matcher_fmt17.c - matcher_fmt17 writes exactly what printf's "%.17g"
 * writes: on the edges of its fast range ([1e-12, 1]: powers of ten, the
 * fixed/scientific switch at 1e-4, 1.0 and 1e-12 themselves), on values
 * whose 17th digit is a rounding tie (small multiples of powers of two),
 * on 2 million random doubles across and beyond the range, and on the
 * values it hands to snprintf (0, NaN, inf, negatives, > 1). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fmt17.h"

static size_t n_bad, n_checked;

static void same_as_printf(double v)
{
	char got[MATCHER_FMT17_CAP], want[64];
	size_t n = matcher_fmt17(v, got);

	snprintf(want, sizeof want, "%.17g", v);
	n_checked++;
	if (strcmp(got, want) != 0 || n != strlen(want)) {
		if (n_bad++ < 10)
			fprintf(stderr, "fmt17(%a) = \"%s\", printf \"%s\"\n", v, got, want);
	}
}

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

int main(void)
{
	static const double edges[] = {1.0,
	                               0.5,
	                               0.1,
	                               0.2,
	                               0.3,
	                               1e-4,
	                               1e-5,
	                               1e-12,
	                               1e-11,
	                               9.9999999999999995e-05,
	                               0.00010000000000000002,
	                               0.30000000000000004,
	                               0.99999999999999989,
	                               1e-8,
	                               1.5e-8,
	                               0.0,
	                               -0.0,
	                               1.5,
	                               2.0,
	                               -0.25,
	                               1e-13,
	                               1e300,
	                               5e-324,
	                               2.2250738585072014e-308};

	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
		same_as_printf(edges[i]);
		same_as_printf(nextafter(edges[i], 0));
		same_as_printf(nextafter(edges[i], 2));
	}
	same_as_printf((double)NAN);
	same_as_printf((double)INFINITY);
	same_as_printf(-(double)INFINITY);
	for (int d = 1; d <= 12; d++) { /* powers of ten and their neighbours */
		double p = pow(10, -d);

		same_as_printf(p);
		same_as_printf(nextafter(p, 0));
		same_as_printf(nextafter(p, 1));
	}
	/* j * 2^-k: few significant bits, so the 17th digit can be an exact
	 * tie (the half-even case) */
	for (int k = 0; k <= 45; k++)
		for (int j = 1; j < 4096; j++)
			same_as_printf(ldexp(j, -k));
	for (long i = 0; i < 2000000; i++) {
		uint64_t r = next();
		double v;

		if (i % 2 == 0) /* random mantissa, exponent 2^-1 .. 2^-44 */
			v = ldexp((double)(r >> 11), -53 - (int)(next() % 44));
		else /* a ratio, as relative differences are */
			v = (double)(r % 1000003) / (double)(1 + next() % 1000003);
		same_as_printf(v);
	}
	printf("%zu values checked\n", n_checked);
	CHECK_INT(n_bad, 0);
	return check_report();
}
