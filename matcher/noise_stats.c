/* noise_stats.c - Student's t and binomial tails (see noise_stats.h). */
#include "noise_stats.h"

#include <float.h>
#include <math.h>

/* The continued fraction of I_x(a, b) (modified Lentz), converging for
 * x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1.0 + num / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-16)
			break;
	}
	return h;
}

double matcher_ibeta(double a, double b, double x)
{
	if (!(a > 0) || !(b > 0) || !(x >= 0) || !(x <= 1))
		return NAN;
	if (x == 0 || x == 1)
		return x;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lbt) * beta_cf(b, a, 1.0 - x) / b;
}

double matcher_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	/* the tail 0.5 * I_{df/(df+t^2)}(df/2, 1/2), written so that large |t|
	 * keeps its precision */
	double x = df / (df + t * t);
	double tail = 0.5 * matcher_ibeta(df / 2.0, 0.5, x);
	return t > 0 ? 1.0 - tail : tail;
}

double matcher_t_quantile(double p, double df)
{
	if (!(p > 0) || !(p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	/* solve the upper tail q = 0.5 * I_x(df/2, 1/2) for x by bisection on
	 * x in (0, 1]: the tail grows with x, and t = sqrt(df (1 - x) / x) */
	double q = p > 0.5 ? 1.0 - p : p;
	double lo = 0, hi = 1;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (mid <= lo || mid >= hi)
			break;
		if (0.5 * matcher_ibeta(df / 2.0, 0.5, mid) < q)
			lo = mid;
		else
			hi = mid;
	}
	double x = 0.5 * (lo + hi);
	double t = sqrt(df * (1.0 - x) / x);
	return p > 0.5 ? t : -t;
}

/* log P(X = k), X ~ Binomial(n, a), 0 < a < 1. */
static double log_pmf(long n, double a, long k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
	       (double)k * log(a) + (double)(n - k) * log1p(-a);
}

double matcher_binom_sf(long n, double a, long k)
{
	if (k <= 0)
		return 1.0;
	if (k > n)
		return 0.0;
	if (!(a > 0))
		return 0.0;
	if (!(a < 1))
		return 1.0;
	/* sum the smaller side: the upper tail from k when k lies above the
	 * mean (terms fall), else 1 - the lower tail up to k - 1 */
	double mean = (double)n * a;
	double s = 0;
	if ((double)k > mean) {
		for (long j = k; j <= n; j++) {
			double t = exp(log_pmf(n, a, j));
			s += t;
			if (t < s * 1e-17)
				break;
		}
		return s > 1 ? 1 : s;
	}
	for (long j = k - 1; j >= 0; j--) {
		double t = exp(log_pmf(n, a, j));
		s += t;
		if (t < s * 1e-17 && (double)j < mean)
			break;
	}
	s = 1.0 - s;
	return s < 0 ? 0 : s;
}

long matcher_binom_allowance(long n, double a, double alpha_run)
{
	if (n <= 0 || !(a > 0))
		return 0;
	/* P(X > c) = P(X >= c + 1) falls with c: walk up from the mean's
	 * neighbourhood would be faster, but n is at most a few hundred
	 * thousand steps and the tail is reached within a few sd */
	long c = 0;
	while (c < n && matcher_binom_sf(n, a, c + 1) > alpha_run)
		c++;
	return c;
}
