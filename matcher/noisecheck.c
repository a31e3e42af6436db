/* noisecheck.c - a candidate against a baseline set (see noisecheck.h and
 * matcher/spec/noise.md). */
#include "noisecheck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise_stats.h"
#include "train_num.h"
#include "train_prec.h"
#include "trainlog.h"

int matcher_noise_params_check(const struct matcher_noise_params *np, char *msg, size_t cap)
{
	if (!(np->alpha_step > 0 && np->alpha_step < 1)) {
		snprintf(msg, cap, "alpha_step must be a number between 0 and 1 (exclusive)");
		return -1;
	}
	if (!(np->alpha_run > 0 && np->alpha_run < 1)) {
		snprintf(msg, cap, "alpha_run must be a number between 0 and 1 (exclusive)");
		return -1;
	}
	if (np->min_runs < 2 || np->min_runs > MATCHER_NOISE_MAX_RUNS) {
		snprintf(msg, cap, "min_runs must be an integer from 2 to %d",
		         MATCHER_NOISE_MAX_RUNS);
		return -1;
	}
	return 0;
}

const char *matcher_noise_lane_name(enum matcher_noise_lane lane)
{
	switch (lane) {
	case MATCHER_LANE_IDENTICAL: return "identical";
	case MATCHER_LANE_WITHIN_NOISE: return "within_noise";
	case MATCHER_LANE_REGRESSION: return "regression";
	default: return NULL;
	}
}

static struct matcher_train_reason *add_reason(struct matcher_noise_result *r, const char *code,
                                               int is_error)
{
	return matcher_train_reason_add(&r->reasons, &r->n_reasons, code, is_error);
}

static int add_note(struct matcher_noise_result *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static int add_note(struct matcher_noise_result *r, const char *fmt, ...)
{
	char(*nn)[384] = realloc(r->notes, (r->n_notes + 1) * sizeof *nn);
	if (!nn)
		return -1;
	r->notes = nn;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(nn[r->n_notes++], sizeof nn[0], fmt, ap);
	va_end(ap);
	return 0;
}

static int cmp_long(const void *x, const void *y)
{
	long a = *(const long *)x, b = *(const long *)y;
	return a < b ? -1 : a > b;
}

/* "member 3" (1-based, as people count runs) */
static void member_label(size_t j, char *out, size_t cap)
{
	snprintf(out, cap, "member %zu", j + 1);
}

/* The compared steps: candidate steps every member logged, ascending.
 * Candidate steps some member lacks are counted (n_skipped); steps every
 * member logged and the candidate lacks make step_sets_differ. */
static int compared_steps(struct matcher_noise_result *res,
                          const struct matcher_train_series *const *ms, size_t k,
                          const struct matcher_train_series *cs)
{
	size_t n = cs->n_steps;
	res->steps = malloc((n ? n : 1) * sizeof *res->steps);
	if (!res->steps)
		return -1;
	for (size_t i = 0; i < n; i++) {
		long s = cs->steps[i];
		size_t j = 0;
		while (j < k && matcher_train_series_find(ms[j], s) != (size_t)-1)
			j++;
		if (j == k) {
			res->steps[res->n_steps++] = s;
		} else {
			if (!res->n_skipped || s < res->first_skipped)
				res->first_skipped = s;
			res->n_skipped++;
		}
	}
	if (!cs->sorted)
		qsort(res->steps, res->n_steps, sizeof *res->steps, cmp_long);
	/* steps of the whole set the candidate did not log */
	size_t missing = 0;
	long first = 0;
	for (size_t i = 0; i < ms[0]->n_steps; i++) {
		long s = ms[0]->steps[i];
		if (matcher_train_series_find(cs, s) != (size_t)-1)
			continue;
		size_t j = 1;
		while (j < k && matcher_train_series_find(ms[j], s) != (size_t)-1)
			j++;
		if (j < k)
			continue;
		if (!missing || s < first)
			first = s;
		missing++;
	}
	if (missing) {
		struct matcher_train_reason *x = add_reason(res, "step_sets_differ", 1);
		if (!x)
			return -1;
		x->side = "candidate";
		x->step = first;
		x->has_step = 1;
		x->count = (long)missing;
		x->has_count = 1;
		snprintf(x->message, sizeof x->message,
		         "the candidate did not log %zu step(s) that every member of the baseline "
		         "set "
		         "logged (first: step %ld)",
		         missing, first);
	}
	if (res->n_skipped &&
	    add_note(res,
	             "%zu candidate step(s) are not in every member of the baseline set and are "
	             "not compared (first: step %ld)",
	             res->n_skipped, res->first_skipped) < 0)
		return -1;
	return 0;
}

/* One unit of the value's precision (the spec's u): a printed or decimal
 * value's last digit, a float32 or float64 ulp at mean's magnitude. */
static double unit_of(const struct matcher_train_cell *c, double mean)
{
	double m = fabs(mean);
	switch (c->prec) {
	case MATCHER_PREC_FLOAT32: {
		float f = (float)m;
		return (double)(nextafterf(f, INFINITY) - f);
	}
	case MATCHER_PREC_FLOAT64: return nextafter(m, INFINITY) - m;
	default: return matcher_train_resolution(c->decimals);
	}
}

/* One step beyond the extreme bound: remembered (the first one). */
static void note_extreme(struct matcher_noise_metric *m, long step, int change)
{
	if (!m->has_extreme) {
		m->has_extreme = 1;
		m->extreme_step = step;
		m->extreme_change = change;
	}
}

/* The change test at compared step i: the candidate's step-to-step change
 * against the members' changes between the same two steps, with the same
 * band (a difference of two rounded values has floor q sqrt(2)).  It sees
 * what the level band cannot when noise accumulates (a random walk: the
 * members' spread persists, so a level band is as wide as the set happens
 * to be, while the changes are fresh draws at every step). */
static void change_test(struct matcher_noise_metric *m, size_t i, long s,
                        const struct matcher_train_cell *const *cm, size_t k, const double *prev_x,
                        double prev_y, double y, double q, double tq, double t_ext, double grow)
{
	double mean = 0, ss = 0;
	for (size_t j = 0; j < k; j++)
		mean += cm[j]->value - prev_x[j];
	mean /= (double)k;
	for (size_t j = 0; j < k; j++) {
		double d = cm[j]->value - prev_x[j] - mean;
		ss += d * d;
	}
	double sd = sqrt(ss / (double)(k - 1));
	double qd = q * sqrt(2.0);
	double sds = sqrt(sd * sd + qd * qd);
	double dev = fabs(y - prev_y - mean);
	m->n_change++;
	if (dev > tq * sds * grow) {
		m->outside[i] |= 2;
		if (!m->n_change_outside++)
			m->first_change_outside = s;
	}
	if (dev > t_ext * sds * grow)
		note_extreme(m, s, 1);
}

struct metric_ctx {
	const struct matcher_train_column *mc[MATCHER_NOISE_MAX_RUNS];
	const struct matcher_train_series *ms[MATCHER_NOISE_MAX_RUNS];
	const struct matcher_train_column *cc;
	const struct matcher_train_series *cs;
};

static int check_metric(struct matcher_noise_result *res, size_t mi, const struct metric_ctx *x,
                        unsigned char *alive)
{
	struct matcher_noise_metric *m = &res->metrics[mi];
	const size_t k = res->k, n = res->n_steps;
	const double tq = res->t_quantile, grow = sqrt(1.0 + 1.0 / (double)k);
	double sum_z = 0;
	size_t n_z = 0, n_above = 0;
	int prec_rank = -1;
	long nonfinite_member_step = 0;
	size_t nonfinite_member = 0;
	int has_nonfinite_member = 0;
	/* the change test: the previous compared step's values */
	double prev_x[MATCHER_NOISE_MAX_RUNS], prev_y = 0;
	int prev_ok = 0;
	/* the extreme-step test: one level or one change beyond the Bonferroni
	 * bound, alpha_run / 2 for each of the two families over the steps */
	double t_ext = matcher_t_quantile(
	        1.0 - res->policy.noise.alpha_run / (4.0 * (double)(n ? n : 1)), (double)(k - 1));
	m->t_extreme = t_ext;

	m->y = malloc(n * sizeof *m->y);
	m->mean = malloc(n * sizeof *m->mean);
	m->sd = malloc(n * sizeof *m->sd);
	m->h = malloc(n * sizeof *m->h);
	m->z = malloc(n * sizeof *m->z);
	m->outside = calloc(n ? n : 1, 1);
	if (n && (!m->y || !m->mean || !m->sd || !m->h || !m->z))
		return -1;
	if (!m->outside)
		return -1;
	for (size_t i = 0; i < n; i++) {
		long s = res->steps[i];
		const struct matcher_train_cell *cy =
		        &x->cc->cells[matcher_train_series_find(x->cs, s)];
		const struct matcher_train_cell *cm[MATCHER_NOISE_MAX_RUNS];
		int skip = !cy->present;
		m->y[i] = m->mean[i] = m->sd[i] = m->h[i] = m->z[i] = NAN;
		for (size_t j = 0; j < k && !skip; j++) {
			cm[j] = &x->mc[j]->cells[matcher_train_series_find(x->ms[j], s)];
			skip = !cm[j]->present;
		}
		if (skip) {
			prev_ok = 0;
			continue; /* not printed at this step by someone (mfu: N/A) */
		}
		/* the set must be finite here */
		int finite = 1;
		for (size_t j = 0; j < k; j++) {
			if (!isfinite(cm[j]->value)) {
				if (!has_nonfinite_member) {
					has_nonfinite_member = 1;
					nonfinite_member = j;
					nonfinite_member_step = s;
				}
				finite = 0;
			}
		}
		if (!finite) {
			prev_ok = 0;
			continue;
		}
		/* identical: which members the candidate still equals */
		for (size_t j = 0; j < k; j++)
			if (alive[j] && !matcher_train_cells_equal(cy, cm[j]))
				alive[j] = 0;
		double mean = 0;
		for (size_t j = 0; j < k; j++)
			mean += cm[j]->value;
		mean /= (double)k;
		/* the floor's unit: the members' precision, and the candidate's
		 * when it has a value (a printed "nan" has no decimals) */
		double ss = 0, u = isfinite(cy->value) ? unit_of(cy, mean) : 0;
		int pr = matcher_train_prec_rank(cy->prec);
		for (size_t j = 0; j < k; j++) {
			double d = cm[j]->value - mean;
			ss += d * d;
			double uj = unit_of(cm[j], mean);
			if (uj > u)
				u = uj;
			if (matcher_train_prec_rank(cm[j]->prec) < pr)
				pr = matcher_train_prec_rank(cm[j]->prec);
		}
		if (prec_rank < 0 || pr < prec_rank) {
			prec_rank = pr;
			m->prec = pr == 0 ? MATCHER_PREC_PRINTED
			                  : (pr == 1 ? MATCHER_PREC_FLOAT32 : cy->prec);
		}
		double sd = sqrt(ss / (double)(k - 1));
		double q = u / sqrt(12.0);
		double sds = sqrt(sd * sd + q * q);
		double h = tq * sds * grow;
		double y = cy->value;
		m->n++;
		m->y[i] = y;
		m->mean[i] = mean;
		m->sd[i] = sd;
		m->h[i] = h;
		double ratio;
		if (!isfinite(y)) {
			m->outside[i] = 1;
			ratio = INFINITY;
			if (!m->has_nonfinite) {
				m->has_nonfinite = 1;
				m->first_nonfinite = s;
			}
		} else {
			double z = (y - mean) / sds;
			m->z[i] = z;
			sum_z += z;
			n_z++;
			n_above += y > mean;
			m->outside[i] = fabs(y - mean) > h;
			ratio = h > 0 ? fabs(y - mean) / h : (y == mean ? 0 : INFINITY);
			if (fabs(y - mean) > t_ext * sds * grow)
				note_extreme(m, s, 0);
			if (prev_ok)
				change_test(m, i, s, cm, k, prev_x, prev_y, y, q, tq, t_ext, grow);
		}
		prev_ok = isfinite(y);
		for (size_t j = 0; j < k; j++)
			prev_x[j] = cm[j]->value;
		prev_y = y;
		if (!m->has_max_ratio || ratio > m->max_ratio) {
			m->max_ratio = ratio;
			m->max_ratio_step = s;
			m->has_max_ratio = 1;
		}
		if (m->outside[i] & 1) {
			if (!m->has_first_outside) {
				m->first_outside = s;
				m->has_first_outside = 1;
			}
			m->n_outside++;
		}
	}
	m->bias = n_z ? sum_z / (double)n_z : 0;
	m->share_above = m->n ? (double)n_above / (double)m->n : 0;
	m->allowed = matcher_binom_allowance((long)m->n, res->policy.noise.alpha_step,
	                                     res->policy.noise.alpha_run);
	m->p = matcher_binom_sf((long)m->n, res->policy.noise.alpha_step, (long)m->n_outside);
	m->allowed_change = matcher_binom_allowance((long)m->n_change, res->policy.noise.alpha_step,
	                                            res->policy.noise.alpha_run);
	m->regression = (long)m->n_outside > m->allowed || m->has_nonfinite ||
	                (long)m->n_change_outside > m->allowed_change || m->has_extreme;

	char who[32];
	if (has_nonfinite_member) {
		struct matcher_train_reason *r = add_reason(res, "baseline_nonfinite", 1);
		if (!r)
			return -1;
		member_label(nonfinite_member, who, sizeof who);
		snprintf(r->metric, sizeof r->metric, "%s", m->name);
		r->side = "baseline";
		r->step = nonfinite_member_step;
		r->has_step = 1;
		snprintf(r->message, sizeof r->message,
		         "%s: %s of the baseline set is NaN or Inf at step %ld: the set cannot "
		         "give a "
		         "band there",
		         m->name, who, nonfinite_member_step);
	}
	if (m->n == 0 && n > 0 && !has_nonfinite_member) {
		struct matcher_train_reason *r = add_reason(res, "metric_missing", 1);
		if (!r)
			return -1;
		snprintf(r->metric, sizeof r->metric, "%s", m->name);
		snprintf(r->message, sizeof r->message,
		         "metric %s has no value in every run at any compared step", m->name);
	}
	if (m->regression) {
		struct matcher_train_reason *r = add_reason(res, "outside_noise_band", 0);
		if (!r)
			return -1;
		snprintf(r->metric, sizeof r->metric, "%s", m->name);
		r->side = "candidate";
		r->count = (long)m->n_outside;
		r->has_count = 1;
		r->threshold = (double)m->allowed;
		r->has_threshold = 1;
		r->has_step = 1;
		if (m->has_nonfinite) {
			r->step = m->first_nonfinite;
			snprintf(r->message, sizeof r->message,
			         "%s is NaN or Inf in the candidate at step %ld where every member "
			         "of "
			         "the baseline set is finite (%zu of %zu steps outside the noise "
			         "band)",
			         m->name, m->first_nonfinite, m->n_outside, m->n);
		} else if ((long)m->n_outside > m->allowed) {
			r->step = m->first_outside;
			snprintf(r->message, sizeof r->message,
			         "%s leaves the noise band of the baseline set from step %ld: %zu "
			         "of %zu "
			         "steps outside, %ld allowed (p = %.3g); largest |candidate - "
			         "mean| is "
			         "%.3g band half-widths at step %ld",
			         m->name, m->first_outside, m->n_outside, m->n, m->allowed, m->p,
			         m->max_ratio, m->max_ratio_step);
		} else if (m->has_extreme) {
			r->step = m->extreme_step;
			snprintf(r->message, sizeof r->message,
			         "%s %s at step %ld far beyond what the baseline set's noise "
			         "allows (more "
			         "than %.3g sd from the members' mean, a chance below %.2g over "
			         "%zu steps); "
			         "%zu of %zu steps outside the band, %ld allowed",
			         m->name,
			         m->extreme_change ? "changes from the previous step" : "is",
			         m->extreme_step, m->t_extreme * sqrt(1.0 + 1.0 / (double)res->k),
			         res->policy.noise.alpha_run / 2, res->n_steps, m->n_outside, m->n,
			         m->allowed);
		} else {
			r->step = m->first_change_outside;
			snprintf(r->message, sizeof r->message,
			         "%s changes from step to step unlike the baseline set from step "
			         "%ld: %zu "
			         "of %zu changes outside the members' band, %ld allowed",
			         m->name, m->first_change_outside, m->n_change_outside, m->n_change,
			         m->allowed_change);
		}
	}
	return 0;
}

int matcher_noise_check(const struct matcher_trainrun *const *members, size_t k,
                        const struct matcher_trainrun *cand, const struct matcher_train_policy *pol,
                        struct matcher_noise_result **out)
{
	struct matcher_noise_result *res = calloc(1, sizeof *res);
	unsigned char alive[MATCHER_NOISE_MAX_RUNS];
	*out = NULL;
	if (!res)
		return -1;
	res->identical_to = -1;
	res->k = k;
	if (pol)
		res->policy = *pol;
	else
		matcher_train_policy_preset(&res->policy, "noise");
	const struct matcher_train_policy *p = &res->policy;
	long need = res->policy.noise.min_runs < 2 ? 2 : res->policy.noise.min_runs;

	if ((long)k < need || k > MATCHER_NOISE_MAX_RUNS) {
		struct matcher_train_reason *x = add_reason(res, "baseline_set_too_small", 1);
		if (!x)
			goto oom;
		x->side = "baseline";
		x->count = (long)k;
		x->has_count = 1;
		if (k > MATCHER_NOISE_MAX_RUNS) {
			x->code = "baseline_set_too_large";
			snprintf(x->message, sizeof x->message,
			         "the baseline set has %zu runs; at most %d are supported", k,
			         MATCHER_NOISE_MAX_RUNS);
		} else {
			snprintf(x->message, sizeof x->message,
			         "the baseline set has %zu run(s); the noise policy needs at least "
			         "%ld",
			         k, need);
		}
		goto verdict;
	}
	res->t_quantile =
	        matcher_t_quantile(1.0 - res->policy.noise.alpha_step / 2.0, (double)(k - 1));
	res->rank = p->rank >= 0 ? p->rank : matcher_trainrun_default_rank(members[0]);

	if (!p->allow_warnings) {
		for (size_t j = 0; j < k; j++) {
			char who[48];
			snprintf(who, sizeof who, "baseline set member %zu", j + 1);
			if (matcher_train_warnings_reason(&res->reasons, &res->n_reasons,
			                                  members[j], who) < 0)
				goto oom;
		}
		if (matcher_train_warnings_reason(&res->reasons, &res->n_reasons, cand,
		                                  "candidate") < 0)
			goto oom;
	}
	const struct matcher_train_series *ms[MATCHER_NOISE_MAX_RUNS], *cs;
	cs = matcher_trainrun_series(cand, res->rank, 0);
	for (size_t j = 0; j < k; j++) {
		ms[j] = matcher_trainrun_series(members[j], res->rank, 0);
		if (!ms[j] || !cs) {
			struct matcher_train_reason *x = add_reason(res, "rank_missing", 1);
			char who[32];
			if (!x)
				goto oom;
			member_label(j, who, sizeof who);
			x->side = !cs ? "candidate" : "baseline";
			snprintf(x->message, sizeof x->message,
			         "no training steps for rank %d in the %s", res->rank,
			         !cs ? "candidate" : who);
			goto verdict;
		}
	}
	if (compared_steps(res, ms, k, cs) < 0)
		goto oom;
	if (res->n_steps == 0) {
		struct matcher_train_reason *x = add_reason(res, "no_common_steps", 1);
		if (!x)
			goto oom;
		snprintf(x->message, sizeof x->message,
		         "the candidate and the baseline set have no training step in common");
	} else if ((long)res->n_steps < p->min_steps) {
		struct matcher_train_reason *x = add_reason(res, "too_few_steps", 1);
		if (!x)
			goto oom;
		x->count = (long)res->n_steps;
		x->has_count = 1;
		snprintf(x->message, sizeof x->message,
		         "only %zu compared steps; the policy needs at least %ld", res->n_steps,
		         p->min_steps);
	}

	res->metrics = calloc(p->n_th ? p->n_th : 1, sizeof *res->metrics);
	if (!res->metrics)
		goto oom;
	res->n_metrics = p->n_th;
	memset(alive, 1, sizeof alive);
	size_t compared = 0;
	for (size_t i = 0; i < p->n_th; i++) {
		struct matcher_noise_metric *m = &res->metrics[i];
		struct metric_ctx x;
		snprintf(m->name, sizeof m->name, "%s", p->th[i].metric);
		if (!strncmp(m->name, "validation/", 11)) {
			if (add_note(res,
			             "%s: validation metrics are not compared against a baseline "
			             "set",
			             m->name) < 0)
				goto oom;
			m->not_logged = 1;
			continue;
		}
		size_t have = 0;
		x.cs = cs;
		x.cc = matcher_train_series_column(cs, m->name);
		have += x.cc != NULL;
		for (size_t j = 0; j < k; j++) {
			x.ms[j] = ms[j];
			x.mc[j] = matcher_train_series_column(ms[j], m->name);
			have += x.mc[j] != NULL;
		}
		if (!have && p->th[i].if_logged && strcmp(m->name, "loss") != 0) {
			m->not_logged = 1;
			if (add_note(res,
			             "%s was not logged by any run (metric_not_logged): not "
			             "compared; the "
			             "verdict rests on the other metrics",
			             m->name) < 0)
				goto oom;
			continue;
		}
		if (have < k + 1) {
			struct matcher_train_reason *r = add_reason(res, "metric_missing", 1);
			char who[32] = "candidate";
			if (!r)
				goto oom;
			if (x.cc)
				for (size_t j = 0; j < k; j++)
					if (!x.mc[j]) {
						member_label(j, who, sizeof who);
						break;
					}
			snprintf(r->metric, sizeof r->metric, "%s", m->name);
			r->side = x.cc ? "baseline" : "candidate";
			snprintf(r->message, sizeof r->message,
			         "metric %s is missing from %zu of the %zu runs (first: %s%s)",
			         m->name, k + 1 - have, k + 1, x.cc ? "baseline set " : "", who);
			continue;
		}
		if (res->n_steps && check_metric(res, i, &x, alive) < 0)
			goto oom;
		compared++;
	}
	if (compared)
		for (size_t j = 0; j < k && res->identical_to < 0; j++)
			if (alive[j])
				res->identical_to = (int)j;

verdict:
	res->verdict = matcher_train_reasons_verdict(res->reasons, res->n_reasons);
	if (res->verdict == MATCHER_VERDICT_ERROR)
		res->lane = MATCHER_LANE_NONE;
	else if (res->verdict == MATCHER_VERDICT_FAIL)
		res->lane = MATCHER_LANE_REGRESSION;
	else
		res->lane =
		        res->identical_to >= 0 ? MATCHER_LANE_IDENTICAL : MATCHER_LANE_WITHIN_NOISE;
	*out = res;
	return 0;
oom:
	matcher_noise_result_free(res);
	return -1;
}

void matcher_noise_result_free(struct matcher_noise_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_metrics; i++) {
		struct matcher_noise_metric *m = &r->metrics[i];
		free(m->y);
		free(m->mean);
		free(m->sd);
		free(m->h);
		free(m->z);
		free(m->outside);
	}
	free(r->metrics);
	free(r->reasons);
	free(r->notes);
	free(r->steps);
	free(r);
}
