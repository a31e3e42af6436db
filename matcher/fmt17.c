/* fmt17.c - "%.17g" without printf for v in [1e-12, 1] (see fmt17.h).
 *
 * v = m * 2^-q exactly (m < 2^53, from the bits).  With E = floor(log10 v),
 * the 17 digits are N = round(v * 10^(16 - E)) = round(m * 10^p / 2^q),
 * p = 16 - E in [16, 30]: 10^p < 2^100 and m < 2^53, so the product fits
 * 192 bits (hi:lo, hi < 2^90), and its quotient and remainder by 2^q give
 * N and the rounding exactly (half-even, as glibc rounds).  E is
 * estimated from the binary exponent and corrected while the truncated N
 * has 16 or 18 digits.  The text is %g's:
 * fixed for E >= -4 ("0.00012345678901234567", trailing zeros removed),
 * else scientific ("1.2345678901234567e-05"). */
#include "fmt17.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

#define TEN16 10000000000000000ull
#define TEN17 100000000000000000ull

/* 10^0 .. 10^30 */
static const u128 pow10_u128[31] = {
        (u128)1ull,
        (u128)10ull,
        (u128)100ull,
        (u128)1000ull,
        (u128)10000ull,
        (u128)100000ull,
        (u128)1000000ull,
        (u128)10000000ull,
        (u128)100000000ull,
        (u128)1000000000ull,
        (u128)10000000000ull,
        (u128)100000000000ull,
        (u128)1000000000000ull,
        (u128)10000000000000ull,
        (u128)100000000000000ull,
        (u128)1000000000000000ull,
        (u128)10000000000000000ull,
        (u128)100000000000000000ull,
        (u128)1000000000000000000ull,
        (u128)10000000000000000000ull,
        (u128)10000000000000000000ull * 10ull,
        (u128)10000000000000000000ull * 100ull,
        (u128)10000000000000000000ull * 1000ull,
        (u128)10000000000000000000ull * 10000ull,
        (u128)10000000000000000000ull * 100000ull,
        (u128)10000000000000000000ull * 1000000ull,
        (u128)10000000000000000000ull * 10000000ull,
        (u128)10000000000000000000ull * 100000000ull,
        (u128)10000000000000000000ull * 1000000000ull,
        (u128)10000000000000000000ull * 10000000000ull,
        (u128)10000000000000000000ull * 100000000000ull,
};

/* round(m * 10^p / 2^q), half-even, and *trunc its floor; 0 when q is
 * out of reach. */
static uint64_t scaled(uint64_t m, int p, int q, uint64_t *trunc)
{
	u128 P = pow10_u128[p];
	u128 lo_prod = (u128)m * (uint64_t)P;
	u128 hi = (u128)m * (uint64_t)(P >> 64) + (lo_prod >> 64);
	uint64_t lo = (uint64_t)lo_prod;
	uint64_t n;
	int up;

	if (q < 1 || q >= 64 + 100)
		return *trunc = 0;
	if (q >= 64) {
		/* remainder (rh:lo), half 2^(q-1) = (half_h:0), or lo and 2^63 */
		int s = q - 64;
		u128 rh = hi & (((u128)1 << s) - 1), half_h = s ? (u128)1 << (s - 1) : 0;
		int gt, eq;

		n = (uint64_t)(hi >> s);
		if (s == 0) {
			gt = lo > (1ull << 63);
			eq = lo == (1ull << 63);
		} else {
			gt = rh > half_h || (rh == half_h && lo > 0);
			eq = rh == half_h && lo == 0;
		}
		up = gt || (eq && (n & 1));
	} else {
		uint64_t mask = (1ull << q) - 1, rem = lo & mask, half = 1ull << (q - 1);

		n = (uint64_t)((hi << (64 - q)) | (lo >> q));
		up = rem > half || (rem == half && (n & 1));
	}
	*trunc = n;
	return n + (uint64_t)up;
}

/* The 17 digits of v and its decimal exponent; 0 when v is out of the
 * fast range. */
static int digits17(double v, uint64_t *out, int *exp10)
{
	int e2, E, tries;
	uint64_t bits, m, n;

	/* v = m * 2^(e2 - 53), m in [2^52, 2^53) (v is normal here) */
	memcpy(&bits, &v, sizeof bits);
	m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
	e2 = (int)((bits >> 52) & 0x7FF) - 1022;
	/* v >= 2^(e2-1): log10 v >= (e2-1) log10(2); one low at most */
	E = (int)floor((e2 - 1) * 0.30102999566398120);
	for (tries = 0; tries < 3; tries++) {
		uint64_t t;

		if (16 - E < 16 || 16 - E > 30)
			return 0;
		n = scaled(m, 16 - E, 53 - e2, &t);
		if (t >= TEN17) {
			E++;
		} else if (t < TEN16) {
			E--;
		} else if (n == TEN17) { /* rounded up to the next power of ten */
			*out = TEN16;
			*exp10 = E + 1;
			return 1;
		} else {
			*out = n;
			*exp10 = E;
			return 1;
		}
	}
	return 0;
}

size_t matcher_fmt17(double v, char *out)
{
	uint64_t n;
	int E, k, nd = 17;
	char dig[17];
	size_t len = 0;

	if (!(v >= 1e-12 && v <= 1.0) || !digits17(v, &n, &E)) {
		int w = snprintf(out, MATCHER_FMT17_CAP, "%.17g", v);
		return w < 0 ? 0 : (size_t)w;
	}
	for (k = 16; k >= 0; k--) {
		dig[k] = (char)('0' + n % 10);
		n /= 10;
	}
	while (nd > 1 && dig[nd - 1] == '0') /* %g drops trailing zeros */
		nd--;
	if (E >= -4) {
		/* fixed: E is 0 (v = 1) or negative */
		if (E >= 0) {
			/* E + 1 integer digits, then the rest */
			for (k = 0; k <= E; k++)
				out[len++] = k < nd ? dig[k] : '0';
			if (nd > E + 1) {
				out[len++] = '.';
				for (; k < nd; k++)
					out[len++] = dig[k];
			}
		} else {
			out[len++] = '0';
			out[len++] = '.';
			for (k = 0; k < -E - 1; k++)
				out[len++] = '0';
			memcpy(out + len, dig, (size_t)nd);
			len += (size_t)nd;
		}
	} else {
		out[len++] = dig[0];
		if (nd > 1) {
			out[len++] = '.';
			memcpy(out + len, dig + 1, (size_t)nd - 1);
			len += (size_t)nd - 1;
		}
		out[len++] = 'e';
		out[len++] = '-';
		E = -E;
		out[len++] = (char)('0' + E / 10);
		out[len++] = (char)('0' + E % 10);
	}
	out[len] = 0;
	return len;
}
