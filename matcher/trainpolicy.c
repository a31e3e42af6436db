/* trainpolicy.c - resolving a training policy as a request states it
 * (trainpolicy.h): presets, overrides and the API's error sentences. */
#include "trainpolicy.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Default threshold for a metric the request adds without one. */
static double default_abs(const struct matcher_train_policy *p)
{
	return strcmp(p->base[0] ? p->base : p->name, "bitwise") == 0 ? 0.0 : 1e-5;
}

int matcher_train_policy_names(struct matcher_train_policy *p, const struct matcher_train_names *l,
                               int add, char *msg, size_t cap)
{
	const char *field = add ? "extra_metrics" : "metrics";
	size_t n = l->names ? l->n : 0;
	if (!l->names || (!add && !n) || n > MATCHER_TRAIN_MAX_METRICS) {
		snprintf(msg, cap, "%s must be a%s array of at most %d metric names", field,
		         add ? "n" : " non-empty", MATCHER_TRAIN_MAX_METRICS);
		return -1;
	}
	double abs = default_abs(p);
	for (size_t i = 0; i < n; i++) {
		const char *m = l->names[i];
		if (!m || !*m) {
			snprintf(msg, cap, "%s must be an array of metric names", field);
			return -1;
		}
		int known = 0;
		for (size_t k = 0; k < p->n_th; k++)
			known |= !strcmp(p->th[k].metric, m);
		if (add && !known && matcher_train_policy_set(p, m, abs, 0, 0) < 0) {
			snprintf(msg, cap, "cannot add metric '%.60s'", m);
			return -1;
		}
	}
	if (!add && matcher_train_policy_select(p, l->names, n, abs) < 0) {
		snprintf(msg, cap, "metrics: a metric name is repeated or too long");
		return -1;
	}
	return 0;
}

/* The policy object's "if_logged": the preset's flags replaced by the list. */
static int if_logged(struct matcher_train_policy *p, const struct matcher_train_names *l, char *msg,
                     size_t cap)
{
	if (!l->names) {
		snprintf(msg, cap, "if_logged must be an array of compared metric names");
		return -1;
	}
	for (size_t k = 0; k < p->n_th; k++)
		p->th[k].if_logged = 0;
	for (size_t i = 0; i < l->n; i++)
		if (!l->names[i] || matcher_train_policy_if_logged(p, l->names[i]) < 0) {
			snprintf(msg, cap,
			         "if_logged names a metric that is not compared (or loss)");
			return -1;
		}
	return 0;
}

/* A policy object's "thresholds". */
static int policy_thresholds(struct matcher_train_policy *p, const struct matcher_train_ths *t,
                             char *msg, size_t cap)
{
	if (!t->th) {
		snprintf(msg, cap, "thresholds must be an object of metric: {abs, rel}");
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct matcher_train_th_spec *x = &t->th[i];
		double abs = x->abs;
		if (x->abs_state == MATCHER_SPEC_BAD) {
			snprintf(msg, cap, "threshold of %.48s: abs must be a number", x->metric);
			return -1;
		}
		if (x->abs_state == MATCHER_SPEC_ABSENT) {
			/* only rel given: keep the preset abs, or unlimited */
			abs = INFINITY;
			for (size_t k = 0; k < p->n_th; k++)
				if (!strcmp(p->th[k].metric, x->metric))
					abs = p->th[k].abs;
		}
		if (x->rel_state == MATCHER_SPEC_BAD) {
			snprintf(msg, cap, "threshold of %.48s: rel must be a number", x->metric);
			return -1;
		}
		int has_rel = x->rel_state == MATCHER_SPEC_SET;
		if (matcher_train_policy_set(p, x->metric, abs, has_rel ? x->rel : 0, has_rel) <
		    0) {
			snprintf(msg, cap, "bad threshold for metric '%.48s'", x->metric);
			return -1;
		}
	}
	return 0;
}

/* The scalars: policy form (request 0: a min_steps other than 1 or
 * allow_warnings true makes it custom, rank null is absent) or request
 * form (request 1: a change makes it custom). */
static int scalars(struct matcher_train_policy *p, const struct matcher_train_scalars *s,
                   int request, char *msg, size_t cap)
{
	if (s->min_steps_state != MATCHER_SPEC_ABSENT) {
		if (s->min_steps_state == MATCHER_SPEC_BAD || s->min_steps < 0) {
			snprintf(msg, cap, "min_steps must be a non-negative integer");
			return -1;
		}
		if (request ? p->min_steps != (long)s->min_steps : s->min_steps != 1)
			matcher_train_policy_customise(p);
		p->min_steps = (long)s->min_steps;
	}
	if (s->allow_warnings_state != MATCHER_SPEC_ABSENT) {
		if (s->allow_warnings_state == MATCHER_SPEC_BAD) {
			snprintf(msg, cap, "allow_warnings must be true or false");
			return -1;
		}
		if (request ? p->allow_warnings != s->allow_warnings : s->allow_warnings)
			matcher_train_policy_customise(p);
		p->allow_warnings = s->allow_warnings;
	}
	if (s->rank_state != MATCHER_SPEC_ABSENT) {
		if (s->rank_state == MATCHER_SPEC_BAD || s->rank < 0 || s->rank > 1000000) {
			snprintf(msg, cap, "rank must be a non-negative integer");
			return -1;
		}
		p->rank = (int)s->rank;
	}
	return 0;
}

int matcher_train_policy_resolve(const struct matcher_train_policy_spec *s,
                                 struct matcher_train_policy *p, char *msg, size_t cap)
{
	if (!s || !s->given) {
		matcher_train_policy_preset(p, "premerge");
		return 0;
	}
	if (!s->is_name && !s->is_object) {
		snprintf(msg, cap, "policy must be a name or an object");
		return -1;
	}
	const char *name = s->name;
	if (name && !strcmp(name, "custom"))
		name = s->base ? s->base : "premerge";
	if (matcher_train_policy_preset(p, name) < 0) {
		snprintf(msg, cap, "unknown training policy '%.64s' (premerge, bitwise)", name);
		return -1;
	}
	if (!s->is_object)
		return 0;
	if (s->metrics.given && matcher_train_policy_names(p, &s->metrics, 0, msg, cap) < 0)
		return -1;
	if (s->if_logged.given && if_logged(p, &s->if_logged, msg, cap) < 0)
		return -1;
	/* a stored preset read back (its own metrics and flags) keeps its name */
	struct matcher_train_policy pre;
	matcher_train_policy_preset(&pre, p->base);
	int same = pre.n_th == p->n_th;
	for (size_t k = 0; same && k < p->n_th; k++)
		same = !strcmp(pre.th[k].metric, p->th[k].metric) &&
		       pre.th[k].abs == p->th[k].abs && pre.th[k].has_rel == p->th[k].has_rel &&
		       pre.th[k].if_logged == p->th[k].if_logged;
	if (same)
		snprintf(p->name, sizeof p->name, "%s", pre.name);
	else if (s->metrics.given || s->if_logged.given)
		matcher_train_policy_customise(p);
	if (s->thresholds.given && policy_thresholds(p, &s->thresholds, msg, cap) < 0)
		return -1;
	return scalars(p, &s->s, 0, msg, cap);
}

int matcher_train_request_resolve(const struct matcher_train_request *r,
                                  struct matcher_train_policy *p, char *msg, size_t cap)
{
	if (matcher_train_policy_resolve(&r->policy, p, msg, cap) < 0)
		return -1;
	/* metrics: the exact compared set; extra_metrics: added to it */
	if (r->metrics.given && matcher_train_policy_names(p, &r->metrics, 0, msg, cap) < 0)
		return -1;
	if (r->extra_metrics.given &&
	    matcher_train_policy_names(p, &r->extra_metrics, 1, msg, cap) < 0)
		return -1;
	if (r->thresholds.given) {
		if (!r->thresholds.th) {
			snprintf(msg, cap,
			         "thresholds must be an object like {\"loss\": 1e-5} or "
			         "{\"loss\": {\"abs\": 1e-5, \"rel\": 1e-3}}");
			return -1;
		}
		for (size_t i = 0; i < r->thresholds.n; i++) {
			const struct matcher_train_th_spec *x = &r->thresholds.th[i];
			double abs = x->abs_state == MATCHER_SPEC_SET      ? x->abs
			             : x->abs_state == MATCHER_SPEC_ABSENT ? default_abs(p)
			                                                   : -1;
			if (x->rel_state == MATCHER_SPEC_BAD) {
				snprintf(msg, cap, "threshold rel of '%.60s' must be a number",
				         x->metric);
				return -1;
			}
			int has_rel = x->rel_state == MATCHER_SPEC_SET;
			if (matcher_train_policy_set(p, x->metric, abs, has_rel ? x->rel : 0,
			                             has_rel) < 0) {
				snprintf(msg, cap,
				         "bad threshold for '%.60s' (a non-negative number)",
				         x->metric);
				return -1;
			}
		}
	}
	return scalars(p, &r->s, 1, msg, cap);
}
