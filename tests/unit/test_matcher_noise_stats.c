/* test_matcher_noise_stats.c - the distributions of matcher/noise_stats.h
 * against values computed independently: Student's t quantiles from
 * published tables (and R's qt), binomial tails from exact fractions and
 * the Poisson limit, and the allowed count the spec gives (500 steps at
 * alpha_step 0.001, alpha_run 0.01: c = 3). */
#include <math.h>

#include "check.h"
#include "noise_stats.h"

int main(void)
{
	/* t quantiles: qt(p, df) */
	CHECK_DBL(matcher_t_quantile(0.975, 1), 12.706204736174707, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.975, 2), 4.302652729749464, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.975, 4), 2.7764451051977934, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.9995, 4), 8.610301581333427, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.995, 10), 3.169272672616872, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.975, 100), 1.983971518523552, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.9995, 1), 636.6192487687196, 1e-9);
	CHECK_DBL(matcher_t_quantile(0.025, 4), -2.7764451051977934, 1e-10);
	CHECK_DBL(matcher_t_quantile(0.5, 7), 0.0, 0);
	/* df = 2 has a closed form: t = (2p - 1) sqrt(2 / (4 p (1 - p))) */
	for (double p = 0.6; p < 0.9999; p += 0.05) {
		double want = (2 * p - 1) * sqrt(2.0 / (4 * p * (1 - p)));
		CHECK_DBL(matcher_t_quantile(p, 2), want, 1e-10);
	}
	/* the cdf inverts the quantile */
	for (double df = 1; df <= 64; df *= 2)
		CHECK_DBL(matcher_t_cdf(matcher_t_quantile(0.9995, df), df), 0.9995, 1e-12);
	CHECK(isnan(matcher_t_quantile(0, 3)));
	CHECK(isnan(matcher_t_quantile(1, 3)));
	CHECK(isnan(matcher_t_quantile(0.9, 0)));

	/* binomial tails: P(Bin(10, 1/2) >= 8) = 56/1024 exactly */
	CHECK_DBL(matcher_binom_sf(10, 0.5, 8), 56.0 / 1024.0, 1e-12);
	CHECK_DBL(matcher_binom_sf(10, 0.5, 3), 1.0 - 56.0 / 1024.0, 1e-12);
	CHECK_DBL(matcher_binom_sf(10, 0.5, 0), 1.0, 0);
	CHECK_DBL(matcher_binom_sf(10, 0.5, 11), 0.0, 0);
	/* P(Bin(20, 0.1) >= 5), exact in rationals */
	CHECK_DBL(matcher_binom_sf(20, 0.1, 5), 0.043174495284463384, 1e-10);
	/* P(Bin(3, 0.2) >= 2) = 3 * 0.04 * 0.8 + 0.008 = 0.104 */
	CHECK_DBL(matcher_binom_sf(3, 0.2, 2), 0.104, 1e-12);
	/* large n, small a: P(Bin(500, 0.001) >= 4), exact in rationals
	 * (Python's fractions: 1 - sum C(500,k) a^k (1-a)^(500-k), k < 4);
	 * the Poisson(0.5) limit is 0.9 % off */
	CHECK_DBL(matcher_binom_sf(500, 0.001, 4), 0.0017358521406212108, 1e-9);
	/* the spec's figure: 500 steps, alpha_step 0.001, alpha_run 0.01 */
	CHECK_INT(matcher_binom_allowance(500, 0.001, 0.01), 3);
	/* the allowance is the smallest c with P(X > c) <= alpha_run */
	for (long n = 10; n <= 100000; n *= 10) {
		long c = matcher_binom_allowance(n, 0.001, 0.01);
		CHECK(matcher_binom_sf(n, 0.001, c + 1) <= 0.01);
		CHECK(c == 0 || matcher_binom_sf(n, 0.001, c) > 0.01);
	}
	CHECK_INT(matcher_binom_allowance(0, 0.001, 0.01), 0);
	CHECK_INT(matcher_binom_allowance(10, 0.001, 0.01), 0);
	/* 100,000 steps: mean 100, sd ~10: c a little above 123 */
	long c = matcher_binom_allowance(100000, 0.001, 0.01);
	CHECK(c > 115 && c < 130);
	return check_report();
}
