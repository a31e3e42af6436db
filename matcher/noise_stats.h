/* noise_stats.h - the distributions behind noise-calibrated verdicts
 * (matcher/spec/noise.md): Student's t quantile for the band's half-width
 * and the binomial tail for the count of outside steps.
 *
 * Nothing in our libraries computes these (libm has lgamma, not the
 * incomplete beta function), so they are here, pure and small: the t
 * distribution through the regularized incomplete beta function
 * (continued fraction, modified Lentz), inverted by bisection; binomial
 * probabilities summed from lgamma-based terms.  Accuracy: about 1e-12
 * relative on the t quantile, 1e-13 absolute on probabilities; checked
 * against tabulated values in tests/unit/test_matcher_noise_stats.c.
 * No globals, no allocation. */
#ifndef PARITY_NOISE_STATS_H
#define PARITY_NOISE_STATS_H

/* I_x(a, b), the regularized incomplete beta function, for a, b > 0 and
 * 0 <= x <= 1 (NaN otherwise). */
double matcher_ibeta(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 degrees of freedom. */
double matcher_t_cdf(double t, double df);

/* The quantile t with P(T <= t) = p, 0 < p < 1, df > 0 (NaN otherwise). */
double matcher_t_quantile(double p, double df);

/* P(X >= k) for X ~ Binomial(n, a), 0 <= a <= 1 (1 for k <= 0, 0 for
 * k > n). */
double matcher_binom_sf(long n, double a, long k);

/* The allowed count: the smallest c >= 0 with P(X > c) <= alpha_run for
 * X ~ Binomial(n, a).  n = 0 gives 0. */
long matcher_binom_allowance(long n, double a, double alpha_run);

#endif
