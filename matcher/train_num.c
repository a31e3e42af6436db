/* train_num.c - printed-decimal parsing and exact differences (see
 * train_num.h for why doubles alone are not enough).  The parser has a
 * fast path for plain decimals of up to 15 significant digits (an exact
 * integer divided by an exact power of ten is correctly rounded); anything
 * else goes through strtod on a comma-free copy. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_num.h"

static const double pow10_tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static size_t match_word(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w);
	if (n < k)
		return 0;
	for (size_t i = 0; i < k; i++)
		if (lower((unsigned char)s[i]) != w[i])
			return 0;
	return k;
}

size_t matcher_train_parse_num(const char *s, size_t n, double *out, int *decimals)
{
	size_t i = 0;
	int neg = 0;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	size_t k;
	if ((k = match_word(s + i, n - i, "nan")) && !(i + k < n && is_alpha(s[i + k]))) {
		*out = NAN;
		*decimals = 0;
		return i + k;
	}
	if ((k = match_word(s + i, n - i, "infinity")) || (k = match_word(s + i, n - i, "inf"))) {
		if (i + k < n && is_alpha(s[i + k]) && k == 3)
			return 0;
		*out = neg ? -INFINITY : INFINITY;
		*decimals = 0;
		return i + k;
	}
	uint64_t mant = 0;
	int sig = 0, frac = 0, ndig = 0, commas = 0;
	while (i < n) {
		char c = s[i];
		if (c >= '0' && c <= '9') {
			if (mant || c != '0')
				sig++;
			if (sig <= 19)
				mant = mant * 10 + (uint64_t)(c - '0');
			ndig++;
			i++;
		} else if (c == ',' && ndig && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') {
			commas = 1;
			i++;
		} else {
			break;
		}
	}
	if (i < n && s[i] == '.') {
		size_t j = i + 1;
		while (j < n && s[j] >= '0' && s[j] <= '9') {
			if (mant || s[j] != '0')
				sig++;
			if (sig <= 19)
				mant = mant * 10 + (uint64_t)(s[j] - '0');
			frac++;
			j++;
		}
		if (ndig || frac)
			i = j;
		ndig += frac;
	}
	if (!ndig)
		return 0;
	long ex = 0;
	int has_exp = 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		int eneg = 0;
		if (j < n && (s[j] == '+' || s[j] == '-'))
			eneg = s[j++] == '-';
		if (j < n && s[j] >= '0' && s[j] <= '9') {
			while (j < n && s[j] >= '0' && s[j] <= '9') {
				if (ex < 100000)
					ex = ex * 10 + (s[j] - '0');
				j++;
			}
			if (eneg)
				ex = -ex;
			has_exp = 1;
			i = j;
		}
	}
	long d = (long)frac - ex;
	*decimals = d < 0 ? 0 : (d > 400 ? 400 : (int)d);
	if (!has_exp && sig <= 15 && frac <= 22) {
		double v = (double)mant / pow10_tab[frac];
		*out = neg ? -v : v;
		return i;
	}
	/* Slow path: strtod on a comma-free copy. */
	char tmp[128];
	size_t o = 0;
	for (size_t j = 0; j < i && o + 1 < sizeof tmp; j++)
		if (!(commas && s[j] == ','))
			tmp[o++] = s[j];
	tmp[o] = 0;
	*out = strtod(tmp, NULL);
	return i;
}

/* Scale v (printed with `dec` decimals) to an integer at d decimals.
 * Rounding v * 10^d recovers the printed digits: v is the double nearest
 * the printed decimal, so v * 10^d is within a few ulps of an integer as
 * long as it stays well under 2^53. */
static int scale(double v, int d, int64_t *out)
{
	if (!isfinite(v) || d > 22)
		return 0;
	double x = v * pow10_tab[d];
	if (fabs(x) >= 4.0e15)
		return 0;
	*out = (int64_t)llround(x);
	return 1;
}

void matcher_format_shortest_e(double v, char *out, size_t cap)
{
	for (int prec = 0; prec <= 17; prec++) {
		snprintf(out, cap, "%.*e", prec, v);
		if (strtod(out, NULL) == v)
			return;
	}
}

/* Beyond scale()'s reach (17-19 significant digits, as Python's repr
 * writes float64 values): the value's shortest round-trip decimal text
 * (the text the file holds when it was written as the double's repr) as
 * an integer at d decimals, in 128 bits.  0 when that text has more than
 * d decimals or the integer would not fit. */
__extension__ typedef __int128 i128;
static int scale_text(double v, int d, i128 *out)
{
	if (!isfinite(v) || d > 22)
		return 0;
	char e[40];
	matcher_format_shortest_e(v, e, sizeof e);
	const char *t = e;
	int neg = *t == '-';
	t += neg;
	i128 m = 0;
	int nd = 0;
	for (; *t && *t != 'e'; t++)
		if (*t >= '0' && *t <= '9') {
			m = m * 10 + (*t - '0');
			nd++;
		}
	/* v = m * 10^(exp - (nd - 1)) */
	int shift = d + (*t == 'e' ? atoi(t + 1) : 0) - (nd - 1);
	for (; shift < 0 && m % 10 == 0; shift++)
		m /= 10;
	if (shift < 0 || shift > 20)
		return 0;
	while (shift--)
		m *= 10;
	*out = neg ? -m : m;
	return 1;
}

int matcher_train_exact_diff(double a, int da, double b, int db, double *diff, int64_t *units,
                             int *d)
{
	int dd = da > db ? da : db;
	int64_t ia, ib;
	i128 wa, wb;
	if (dd < 0)
		dd = 0;
	*d = dd;
	if (scale(a, dd, &ia) && scale(b, dd, &ib)) {
		*units = ib - ia;
	} else if (scale_text(a, dd, &wa) && scale_text(b, dd, &wb) && wb - wa <= INT64_MAX &&
	           wb - wa >= -INT64_MAX) {
		*units = (int64_t)(wb - wa);
	} else {
		*diff = b - a;
		*units = 0;
		return 0;
	}
	*diff = (double)*units / pow10_tab[dd];
	return 1;
}

void matcher_train_format_units(int64_t units, int d, char *out, size_t cap)
{
	if (!cap)
		return;
	uint64_t u = units < 0 ? (uint64_t)0 - (uint64_t)units : (uint64_t)units;
	if (u == 0 || d <= 0) {
		snprintf(out, cap, "%llu", (unsigned long long)u);
		return;
	}
	char digits[32];
	int nd = snprintf(digits, sizeof digits, "%0*llu", d + 1, (unsigned long long)u);
	if (nd < 0)
		nd = 0;
	int ip = nd - d; /* integer-part digits, >= 1 */
	snprintf(out, cap, "%.*s.%s", ip, digits, digits + ip);
}

double matcher_train_resolution(int d)
{
	if (d <= 0)
		return 1.0;
	if (d <= 22)
		return 1.0 / pow10_tab[d];
	return pow(10.0, -d);
}
