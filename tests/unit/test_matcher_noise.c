/* test_matcher_noise.c - noise-calibrated verdicts (matcher/noisecheck.h,
 * matcher/spec/noise.md) on synthetic baseline sets where the truth is
 * known, and the rules one by one.
 *
 * The simulation follows the spec's "What it must show": K = 5 members,
 * 500 steps, a loss curve with noise that grows with the step, either
 * independent per step or a random walk across steps, printed with 5
 * decimals as TorchTitan prints loss; candidates drawn from the members'
 * own process (false regressions, at most 5 %) and candidates shifted by
 * 6 standard deviations from 60 % of the steps on (caught, at least 95 %).
 * The rates are printed, so the figures in the spec can be re-measured.
 * A fixed-seed generator keeps the test deterministic. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "check.h"
#include "noisecheck.h"
#include "traincheck.h"

#define K     5
#define STEPS 500

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static double curve(long s)
{
	return 2.0 + 8.0 / (1.0 + 0.02 * (double)s);
}

/* the noise's standard deviation at step s (both kinds grow with s) */
static double sigma_indep(long s)
{
	return 2e-4 * (1.0 + (double)s / 100.0);
}
static double tau_walk(long s)
{
	(void)s;
	return 4e-5; /* increment sd: the walk's sd at s is tau sqrt(s) */
}
static double sigma_walk(long s)
{
	return tau_walk(s) * sqrt((double)s);
}

/* One run's loss values: walk 0 independent noise, 1 random walk; shift
 * (in sd) added from step shift_from on; nan_at > 0 puts a NaN there. */
static void draw(int walk, double shift, long shift_from, long nan_at, double *v)
{
	double w = 0;
	for (long s = 1; s <= STEPS; s++) {
		double noise;
		if (walk) {
			w += tau_walk(s) * gauss();
			noise = w;
		} else {
			noise = sigma_indep(s) * gauss();
		}
		double sd = walk ? sigma_walk(s) : sigma_indep(s);
		v[s - 1] = curve(s) + noise + (s >= shift_from ? shift * sd : 0);
		if (s == nan_at)
			v[s - 1] = NAN;
	}
}

/* The values as TorchTitan stdout, parsed into a run. */
static struct matcher_trainrun *run_of(const double *v)
{
	struct buf b;
	buf_init(&b);
	for (long s = 1; s <= STEPS; s++) {
		if (isnan(v[s - 1]))
			buf_printf(&b, "step: %ld  loss:     nan  grad_norm:  1.0000\n", s);
		else
			buf_printf(&b, "step: %ld  loss: %8.5f  grad_norm:  1.0000\n", s, v[s - 1]);
	}
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	if (matcher_trainrun_parse_buffer(b.data, b.len, NULL, 0, &r, &err) < 0)
		r = NULL;
	buf_reset(&b);
	return r;
}

static struct matcher_noise_result *check(struct matcher_trainrun **m, size_t k,
                                          struct matcher_trainrun *c)
{
	struct matcher_noise_result *res = NULL;
	if (matcher_noise_check((const struct matcher_trainrun *const *)m, k, c, NULL, &res) < 0)
		return NULL;
	return res;
}

/* Share of trials whose verdict is a regression. */
static double rate(int walk, double shift, int trials)
{
	double v[STEPS];
	int reg = 0, errors = 0;
	for (int t = 0; t < trials; t++) {
		struct matcher_trainrun *m[K], *c;
		for (int j = 0; j < K; j++) {
			draw(walk, 0, 0, 0, v);
			m[j] = run_of(v);
		}
		draw(walk, shift, (long)(STEPS * 0.6), 0, v);
		c = run_of(v);
		struct matcher_noise_result *res = check(m, K, c);
		if (!res || res->verdict == MATCHER_VERDICT_ERROR)
			errors++;
		else
			reg += res->lane == MATCHER_LANE_REGRESSION;
		matcher_noise_result_free(res);
		for (int j = 0; j < K; j++)
			matcher_trainrun_free(m[j]);
		matcher_trainrun_free(c);
	}
	CHECK_INT(errors, 0);
	return (double)reg / trials;
}

static void rules(void)
{
	double v[STEPS];
	struct matcher_trainrun *m[K], *c;
	for (int j = 0; j < K; j++) {
		draw(0, 0, 0, 0, v);
		m[j] = run_of(v);
	}
	/* a member's copy is identical */
	draw(0, 0, 0, 0, v);
	rng = 12345;
	double copy[STEPS];
	for (int j = 0; j < K; j++)
		matcher_trainrun_free(m[j]);
	for (int j = 0; j < K; j++) {
		draw(0, 0, 0, 0, v);
		if (j == 2)
			memcpy(copy, v, sizeof copy);
		m[j] = run_of(v);
	}
	c = run_of(copy);
	struct matcher_noise_result *r = check(m, K, c);
	CHECK(r != NULL);
	CHECK_INT(r->verdict, MATCHER_VERDICT_PASS);
	CHECK_INT(r->lane, MATCHER_LANE_IDENTICAL);
	CHECK_INT(r->identical_to, 2);
	CHECK_INT(r->n_steps, STEPS);
	CHECK_STR(matcher_noise_lane_name(r->lane), "identical");
	matcher_noise_result_free(r);
	matcher_trainrun_free(c);

	/* one NaN step in the candidate is a regression, naming the step */
	memcpy(v, copy, sizeof v);
	v[99] = NAN;
	c = run_of(v);
	r = check(m, K, c);
	CHECK_INT(r->verdict, MATCHER_VERDICT_FAIL);
	CHECK_INT(r->lane, MATCHER_LANE_REGRESSION);
	CHECK(r->n_reasons >= 1 && !strcmp(r->reasons[0].code, "outside_noise_band"));
	CHECK_INT(r->reasons[0].step, 100);
	CHECK_STR(r->reasons[0].metric, "loss");
	/* the NaN's missing decimals do not widen the band there: h at step
	 * 100 is of the order of its neighbours' */
	CHECK(r->metrics[0].h[99] < 3 * r->metrics[0].h[98] + 1e-12);
	matcher_noise_result_free(r);
	matcher_trainrun_free(c);

	/* a fresh draw: within noise (a false regression has a chance of
	 * about 2 %: of three draws at least one passes), with its bias and p
	 * reported */
	r = NULL;
	c = NULL;
	for (int tries = 0; tries < 3; tries++) {
		matcher_noise_result_free(r);
		matcher_trainrun_free(c);
		draw(0, 0, 0, 0, v);
		c = run_of(v);
		r = check(m, K, c);
		if (r->lane == MATCHER_LANE_WITHIN_NOISE)
			break;
	}
	CHECK_INT(r->lane, MATCHER_LANE_WITHIN_NOISE);
	CHECK_INT(r->verdict, MATCHER_VERDICT_PASS);
	CHECK_INT(r->n_reasons, 0);
	CHECK_INT(r->metrics[0].n, STEPS);
	CHECK_INT(r->metrics[0].allowed, 3); /* the spec: 500 steps -> c = 3 */
	CHECK(r->metrics[0].p > 0 && r->metrics[0].p <= 1);
	CHECK(fabs(r->metrics[0].bias) < 3);
	CHECK(r->metrics[0].share_above > 0.2 && r->metrics[0].share_above < 0.8);
	/* grad_norm printed the same everywhere: the precision floor keeps a
	 * band (1.0000 +- a few units of the 4th decimal) */
	CHECK(r->metrics[1].h[0] > 0);
	CHECK(r->metrics[1].n_outside == 0);
	matcher_noise_result_free(r);

	/* a member with NaN: baseline_nonfinite, verdict error, no lane */
	matcher_trainrun_free(m[1]);
	draw(0, 0, 0, 50, v);
	m[1] = run_of(v);
	draw(0, 0, 0, 0, v);
	struct matcher_trainrun *c2 = run_of(v);
	r = check(m, K, c2);
	CHECK_INT(r->verdict, MATCHER_VERDICT_ERROR);
	CHECK_INT(r->lane, MATCHER_LANE_NONE);
	CHECK(r->n_reasons >= 1 && !strcmp(r->reasons[0].code, "baseline_nonfinite"));
	CHECK_INT(r->reasons[0].step, 50);
	CHECK(strstr(r->reasons[0].message, "member 2") != NULL);
	matcher_noise_result_free(r);

	/* one member is not a set */
	r = check(m, 1, c2);
	CHECK_INT(r->verdict, MATCHER_VERDICT_ERROR);
	CHECK_STR(r->reasons[0].code, "baseline_set_too_small");
	matcher_noise_result_free(r);
	matcher_trainrun_free(c2);
	matcher_trainrun_free(c);
	for (int j = 0; j < K; j++)
		matcher_trainrun_free(m[j]);
}

int main(void)
{
	rules();
	/* PARITY_NOISE_TRIALS=N re-measures with more candidates */
	int trials = getenv("PARITY_NOISE_TRIALS") ? atoi(getenv("PARITY_NOISE_TRIALS")) : 200;
	if (trials < 200)
		trials = 200;
	double f_ind = rate(0, 0, trials);
	double f_walk = rate(1, 0, trials);
	double d_ind = rate(0, 6, 100);
	double d_walk = rate(1, 6, 100);
	printf("false regressions: independent %.1f %%, random walk %.1f %% (%d candidates each)\n",
	       100 * f_ind, 100 * f_walk, trials);
	printf("6-sd shifts from 60 %% of the steps caught: independent %.1f %%, random walk %.1f "
	       "%% (100 each)\n",
	       100 * d_ind, 100 * d_walk);
	CHECK(f_ind <= 0.05);
	CHECK(f_walk <= 0.05);
	CHECK(d_ind >= 0.95);
	CHECK(d_walk >= 0.95);
	return check_report();
}
