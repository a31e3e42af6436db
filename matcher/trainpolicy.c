/* trainpolicy.c - resolving a training policy as a request states it
 * (trainpolicy.h): presets, overrides and the API's error sentences. */
#include "trainpolicy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int based_on(const struct matcher_train_policy *p, const char *preset)
{
	return strcmp(p->base[0] ? p->base : p->name, preset) == 0;
}

/* Default threshold for a metric the request adds without one (megatron:
 * no absolute bound, see megatron_defaults). */
static double default_abs(const struct matcher_train_policy *p)
{
	return based_on(p, "megatron") ? INFINITY : based_on(p, "bitwise") ? 0.0 : 1e-5;
}

/* A policy based on megatron: a metric added without any bound gets the
 * preset's rule (rel 0.05, its allowance of failing steps). */
static void megatron_defaults(struct matcher_train_policy *p)
{
	if (!based_on(p, "megatron"))
		return;
	for (size_t k = 0; k < p->n_th; k++) {
		struct matcher_train_threshold *t = &p->th[k];
		if (isinf(t->abs) && !t->has_rel) {
			t->rel = 0.05;
			t->has_rel = 1;
			t->allow_pct = t->median_window ? 0 : 1;
		}
	}
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
	megatron_defaults(p);
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
	if (t->n > MATCHER_TRAIN_MAX_METRICS) {
		snprintf(msg, cap, "thresholds: at most %d metrics", MATCHER_TRAIN_MAX_METRICS);
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
		snprintf(msg, cap, "unknown training policy '%.64s' (premerge, bitwise, megatron)",
		         name);
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
	megatron_defaults(p);
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
		if (r->thresholds.n > MATCHER_TRAIN_MAX_METRICS) {
			snprintf(msg, cap, "thresholds: at most %d metrics",
			         MATCHER_TRAIN_MAX_METRICS);
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
		megatron_defaults(p);
	}
	return scalars(p, &r->s, 1, msg, cap);
}

/* ---- the stored form -------------------------------------------------- */

static int put_name(struct buf *out, const char *s)
{
	int bad = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= 0x20 || *p == '%' || *p == 0x7f)
			bad |= buf_printf(out, "%%%02X", *p);
		else
			bad |= buf_putc(out, (char)*p);
	}
	return bad ? -1 : 0;
}

int matcher_train_policy_format(const struct matcher_train_policy *p, struct buf *out)
{
	int bad = buf_puts(out, MATCHER_TRAIN_POLICY_TEXT "name ");
	bad |= put_name(out, p->name);
	bad |= buf_puts(out, "\nbase ");
	bad |= put_name(out, p->base);
	bad |= buf_printf(out, "\nmin_steps %ld\nallow_warnings %d\nrank %d\n", p->min_steps,
	                  p->allow_warnings ? 1 : 0, p->rank);
	if (matcher_train_policy_is_noise(p))
		bad |= buf_printf(out, "noise %a %a %ld\n", p->noise.alpha_step, p->noise.alpha_run,
		                  p->noise.min_runs);
	for (size_t i = 0; i < p->n_th; i++) {
		const struct matcher_train_threshold *t = &p->th[i];
		bad |= buf_puts(out, "th ");
		bad |= put_name(out, t->metric);
		bad |= buf_printf(out, " %a ", t->abs);
		if (t->has_rel)
			bad |= buf_printf(out, "%a", t->rel);
		else
			bad |= buf_putc(out, '-');
		bad |= buf_printf(out, " %d", t->if_logged ? 1 : 0);
		if (t->allow_pct || t->median_window)
			bad |= buf_printf(out, " %d %d", t->allow_pct, t->median_window ? 1 : 0);
		bad |= buf_putc(out, '\n');
	}
	return bad ? -1 : 0;
}

int matcher_train_policy_is_noise(const struct matcher_train_policy *p)
{
	return !strcmp(p->name, "noise") || !strcmp(p->base, "noise");
}

int matcher_train_policy_is_text(const char *s)
{
	return s && !strncmp(s, MATCHER_TRAIN_POLICY_TEXT, strlen(MATCHER_TRAIN_POLICY_TEXT));
}

/* A %XX-encoded name at *s up to the next space or LF into out (cap
 * bytes with its NUL); *s moves past it.  0, or -1. */
static int get_name(const char **s, char *out, size_t cap)
{
	size_t n = 0;
	const char *p = *s;
	while (*p && *p != ' ' && *p != '\n') {
		unsigned c = (unsigned char)*p;
		if (c == '%') {
			char hex[3] = {p[1], p[2], 0}, *end;
			if (!p[1] || !p[2])
				return -1;
			c = (unsigned)strtoul(hex, &end, 16);
			if (*end)
				return -1;
			p += 2;
		}
		if (n + 1 >= cap)
			return -1;
		out[n++] = (char)c;
		p++;
	}
	out[n] = 0;
	*s = p;
	return 0;
}

/* "KEY " at *s: *s moves past it.  0, or -1. */
static int key(const char **s, const char *k)
{
	size_t n = strlen(k);
	if (strncmp(*s, k, n) || (*s)[n] != ' ')
		return -1;
	*s += n + 1;
	return 0;
}

/* The character c at *s: *s moves past it.  0, or -1. */
static int skip(const char **s, char c)
{
	if (**s != c)
		return -1;
	(*s)++;
	return 0;
}

static int eol(const char **s)
{
	return skip(s, '\n');
}

static int get_long(const char **s, long *v)
{
	char *end;
	*v = strtol(*s, &end, 10);
	if (end == *s)
		return -1;
	*s = end;
	return 0;
}

static int get_double(const char **s, double *v)
{
	char *end;
	*v = strtod(*s, &end);
	if (end == *s)
		return -1;
	*s = end;
	return 0;
}

int matcher_train_policy_parse(const char *s, struct matcher_train_policy *p)
{
	long v;
	matcher_train_policy_preset(p, "premerge");
	if (!matcher_train_policy_is_text(s))
		return -1;
	struct matcher_train_policy q;
	memset(&q, 0, sizeof q);
	s += strlen(MATCHER_TRAIN_POLICY_TEXT);
	if (key(&s, "name") || get_name(&s, q.name, sizeof q.name) || eol(&s) || key(&s, "base") ||
	    get_name(&s, q.base, sizeof q.base) || eol(&s) || key(&s, "min_steps") ||
	    get_long(&s, &q.min_steps) || eol(&s) || key(&s, "allow_warnings") ||
	    get_long(&s, &v) || eol(&s))
		return -1;
	q.allow_warnings = v != 0;
	if (key(&s, "rank") || get_long(&s, &v) || eol(&s))
		return -1;
	q.rank = (int)v;
	struct matcher_train_policy pre;
	matcher_train_policy_preset(&pre, "noise");
	q.noise = pre.noise;
	if (!strncmp(s, "noise ", 6) &&
	    (key(&s, "noise") || get_double(&s, &q.noise.alpha_step) || skip(&s, ' ') ||
	     get_double(&s, &q.noise.alpha_run) || skip(&s, ' ') ||
	     get_long(&s, &q.noise.min_runs) || eol(&s)))
		return -1;
	while (*s) {
		struct matcher_train_threshold *t = &q.th[q.n_th];
		if (q.n_th == MATCHER_TRAIN_MAX_METRICS || key(&s, "th") ||
		    get_name(&s, t->metric, sizeof t->metric) || skip(&s, ' ') ||
		    get_double(&s, &t->abs) || skip(&s, ' '))
			return -1;
		if (*s == '-') {
			s++;
		} else {
			if (get_double(&s, &t->rel))
				return -1;
			t->has_rel = 1;
		}
		if (skip(&s, ' ') || get_long(&s, &v))
			return -1;
		t->if_logged = v != 0;
		if (*s == ' ') { /* Megatron's allowance and window median */
			long pct, med;
			if (skip(&s, ' ') || get_long(&s, &pct) || skip(&s, ' ') ||
			    get_long(&s, &med) || pct < 0 || pct > 100)
				return -1;
			t->allow_pct = (int)pct;
			t->median_window = med != 0;
		}
		if (eol(&s))
			return -1;
		q.n_th++;
	}
	*p = q;
	return 0;
}
