/* json_train.c - the JSON forms of training comparisons (see json_train.h
 * for the document shapes and the number policy).  Builders record any
 * failed set in a flag and return NULL at the end, so a half-built
 * document never escapes on OOM. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json_train.h"
#include "noisecheck.h"
#include "trainpolicy.h"
#include "web.h"
#include "web_int.h"

/* Set o[k] = v (stolen); clears *ok when v is NULL or the set fails. */
static void put(json_t *o, const char *k, json_t *v, int *ok)
{
	if (!v || json_object_set_new(o, k, v) != 0)
		*ok = 0;
}

static void push(json_t *a, json_t *v, int *ok)
{
	if (!v || json_array_append_new(a, v) != 0)
		*ok = 0;
}

static json_t *finish(json_t *o, int ok)
{
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *web_train_json_num(double v)
{
	if (isnan(v))
		return json_string("NaN");
	if (isinf(v))
		return json_string(v < 0 ? "-Inf" : "Inf");
	return json_real(v);
}

/* A difference with its exact text: a one-sided NaN is ordered as +inf
 * but shown as "NaN". */
static json_t *diff_num(double v, const char *exact)
{
	return strcmp(exact, "NaN") == 0 ? json_string("NaN") : web_train_json_num(v);
}

json_t *web_train_json_text(const char *s)
{
	struct buf b = BUF_INIT;
	if (!s)
		return json_null();
	const char *t = web_utf8(&b, s);
	json_t *j = t ? json_string(t) : NULL;
	buf_reset(&b);
	return j;
}

json_t *web_train_reason_json(const struct matcher_train_reason *x)
{
	json_t *o = json_object();
	int ok = o != NULL;
	if (!o)
		return NULL;
	put(o, "code", json_string(x->code), &ok);
	put(o, "message", web_train_json_text(x->message), &ok);
	if (x->metric[0])
		put(o, "metric", web_train_json_text(x->metric), &ok);
	if (x->side)
		put(o, "side", json_string(x->side), &ok);
	if (x->has_step)
		put(o, "step", json_integer(x->step), &ok);
	if (x->has_abs) {
		put(o, "max_abs", diff_num(x->abs, x->abs_text), &ok);
		put(o, "max_abs_exact", json_string(x->abs_text), &ok);
	}
	if (x->has_threshold)
		put(o, "threshold", web_train_json_num(x->threshold), &ok);
	if (x->has_count)
		put(o, "count", json_integer(x->count), &ok);
	if (x->has_line)
		put(o, "line", json_integer((json_int_t)x->line), &ok);
	return finish(o, ok);
}

static json_t *threshold_json(const struct matcher_train_threshold *t)
{
	json_t *o = json_object();
	int ok = o != NULL;
	if (!o)
		return NULL;
	put(o, "abs", web_train_json_num(t->abs), &ok);
	put(o, "rel", t->has_rel ? web_train_json_num(t->rel) : json_null(), &ok);
	/* policy megatron only (absent elsewhere: those documents unchanged) */
	if (t->allow_pct)
		put(o, "allow_over_pct", json_integer(t->allow_pct), &ok);
	if (t->median_window)
		put(o, "median_window", json_true(), &ok);
	return finish(o, ok);
}

json_t *web_train_policy_json(const struct matcher_train_policy *p)
{
	json_t *o = json_object(), *th = json_object(), *ms = json_array(), *il = json_array();
	int ok = o && th && ms && il;
	if (!ok) {
		json_decref(o);
		json_decref(th);
		json_decref(ms);
		json_decref(il);
		return NULL;
	}
	put(o, "name", json_string(p->name), &ok);
	put(o, "base", json_string(p->base), &ok);
	put(o, "min_steps", json_integer(p->min_steps), &ok);
	put(o, "allow_warnings", json_boolean(p->allow_warnings), &ok);
	put(o, "rank", p->rank >= 0 ? json_integer(p->rank) : json_null(), &ok);
	for (size_t i = 0; i < p->n_th; i++) {
		put(th, p->th[i].metric, threshold_json(&p->th[i]), &ok);
		push(ms, json_string(p->th[i].metric), &ok);
		if (p->th[i].if_logged)
			push(il, json_string(p->th[i].metric), &ok);
	}
	if (matcher_train_policy_is_noise(p)) {
		/* a baseline set's band: its parameters, no thresholds */
		json_decref(th);
		put(o, "alpha_step", json_real(p->noise.alpha_step), &ok);
		put(o, "alpha_run", json_real(p->noise.alpha_run), &ok);
		put(o, "min_runs", json_integer(p->noise.min_runs), &ok);
	} else {
		put(o, "thresholds", th, &ok);
	}
	put(o, "metrics", ms, &ok);
	put(o, "if_logged", il, &ok);
	return finish(o, ok);
}

/* ---- the policy adapter: JSON into the specs of matcher/trainpolicy.h --
 * Only copies what the request holds and marks its types; every rule and
 * error sentence is matcher_train_policy_resolve's. */

/* The arrays an adapted spec points to (freed together). */
struct adapt {
	void *mem[8];
	size_t n;
	int oom;
};

static void *adapt_alloc(struct adapt *a, size_t sz)
{
	void *p = a->n < 8 ? malloc(sz ? sz : 1) : NULL;
	if (!p) {
		a->oom = 1;
		return NULL;
	}
	a->mem[a->n++] = p;
	return p;
}

static void adapt_free(struct adapt *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->mem[i]);
	a->n = 0;
}

static void names_from(struct adapt *a, json_t *v, struct matcher_train_names *l)
{
	memset(l, 0, sizeof *l);
	if (!v)
		return;
	l->given = 1;
	if (!json_is_array(v))
		return;
	size_t n = json_array_size(v);
	const char **names = adapt_alloc(a, n * sizeof *names);
	if (!names)
		return;
	for (size_t i = 0; i < n; i++)
		names[i] = json_string_value(json_array_get(v, i)); /* NULL: not a name */
	l->names = names;
	l->n = n;
}

/* A number's state: SET, or BAD (null_absent: null is ABSENT). */
static enum matcher_spec_state num_state(json_t *v, int null_absent, double *out)
{
	if (!v || (null_absent && json_is_null(v)))
		return MATCHER_SPEC_ABSENT;
	if (!json_is_number(v))
		return MATCHER_SPEC_BAD;
	*out = json_number_value(v);
	return MATCHER_SPEC_SET;
}

/* Thresholds: {"metric": {abs, rel} or a bare abs}; anything else is a
 * bad abs (the resolver words it for a policy or a request). */
static void thresholds_from(struct adapt *a, json_t *v, struct matcher_train_ths *t)
{
	memset(t, 0, sizeof *t);
	if (!v)
		return;
	t->given = 1;
	if (!json_is_object(v))
		return;
	struct matcher_train_th_spec *th = adapt_alloc(a, json_object_size(v) * sizeof *th);
	const char *k;
	json_t *x;
	if (!th)
		return;
	json_object_foreach(v, k, x)
	{
		struct matcher_train_th_spec *y = &th[t->n++];
		memset(y, 0, sizeof *y);
		y->metric = k;
		if (json_is_object(x)) {
			y->abs_state = num_state(json_object_get(x, "abs"), 0, &y->abs);
			y->rel_state = num_state(json_object_get(x, "rel"), 1, &y->rel);
		} else {
			y->abs_state = num_state(x, 0, &y->abs);
		}
	}
	t->th = th;
}

/* min_steps, allow_warnings, rank of object o (request 0: rank null is
 * absent). */
static void scalars_from(json_t *o, int request, struct matcher_train_scalars *s)
{
	json_t *x;
	memset(s, 0, sizeof *s);
	if ((x = json_object_get(o, "min_steps"))) {
		s->min_steps_state = json_is_integer(x) ? MATCHER_SPEC_SET : MATCHER_SPEC_BAD;
		s->min_steps = json_integer_value(x);
	}
	if ((x = json_object_get(o, "allow_warnings"))) {
		s->allow_warnings_state = json_is_boolean(x) ? MATCHER_SPEC_SET : MATCHER_SPEC_BAD;
		s->allow_warnings = json_is_true(x);
	}
	if ((x = json_object_get(o, "rank")) && (request || !json_is_null(x))) {
		s->rank_state = json_is_integer(x) ? MATCHER_SPEC_SET : MATCHER_SPEC_BAD;
		s->rank = json_integer_value(x);
	}
}

static void policy_from(struct adapt *a, json_t *v, struct matcher_train_policy_spec *s)
{
	memset(s, 0, sizeof *s);
	if (!v || json_is_null(v))
		return;
	s->given = 1;
	s->is_name = json_is_string(v);
	s->is_object = json_is_object(v);
	s->name = s->is_name ? json_string_value(v) : json_string_value(json_object_get(v, "name"));
	s->base = json_string_value(json_object_get(v, "base"));
	if (!s->is_object)
		return;
	names_from(a, json_object_get(v, "metrics"), &s->metrics);
	names_from(a, json_object_get(v, "if_logged"), &s->if_logged);
	thresholds_from(a, json_object_get(v, "thresholds"), &s->thresholds);
	scalars_from(v, 0, &s->s);
}

int web_train_policy_from_json(json_t *v, struct matcher_train_policy *p, char *msg, size_t cap)
{
	struct adapt a = {.n = 0};
	struct matcher_train_policy_spec s;
	policy_from(&a, v, &s);
	int rc = a.oom ? (snprintf(msg, cap, "out of memory"), -1)
	               : matcher_train_policy_resolve(&s, p, msg, cap);
	adapt_free(&a);
	return rc;
}

int web_train_request_policy(json_t *req, struct matcher_train_policy *p, char *msg, size_t cap)
{
	struct adapt a = {.n = 0};
	struct matcher_train_request r;
	policy_from(&a, json_object_get(req, "policy"), &r.policy);
	names_from(&a, json_object_get(req, "metrics"), &r.metrics);
	names_from(&a, json_object_get(req, "extra_metrics"), &r.extra_metrics);
	thresholds_from(&a, json_object_get(req, "thresholds"), &r.thresholds);
	scalars_from(req, 1, &r.s);
	int rc = a.oom ? (snprintf(msg, cap, "out of memory"), -1)
	               : matcher_train_request_resolve(&r, p, msg, cap);
	adapt_free(&a);
	return rc;
}

int web_train_stored_policy(const char *text, struct matcher_train_policy *p, char *msg, size_t cap)
{
	if (!matcher_train_policy_is_text(text))
		return web_train_policy_from_text(text, p, msg, cap);
	if (matcher_train_policy_parse(text, p) == 0)
		return 0;
	snprintf(msg, cap, "the stored policy is not readable");
	return -1;
}

int web_train_policy_from_text(const char *text, struct matcher_train_policy *p, char *msg,
                               size_t cap)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;
	int rc = web_train_policy_from_json(v, p, msg, cap);
	json_decref(v);
	return rc;
}

json_t *web_train_warning_json(const struct matcher_warning *w)
{
	json_t *o = json_object();
	int ok = o != NULL;
	if (!o)
		return NULL;
	put(o, "code", web_train_json_text(w->code), &ok);
	put(o, "line", json_integer((json_int_t)w->line), &ok);
	put(o, "message", web_train_json_text(w->message), &ok);
	put(o, "excerpt", web_train_json_text(w->excerpt ? w->excerpt : ""), &ok);
	return finish(o, ok);
}

static json_t *warnings_json(const struct matcher_warning *w, size_t n)
{
	json_t *a = json_array();
	int ok = a != NULL;
	if (!a)
		return NULL;
	for (size_t i = 0; i < n; i++)
		push(a, web_train_warning_json(&w[i]), &ok);
	return finish(a, ok);
}

static json_t *steps_list(const long *v, size_t n)
{
	json_t *a = json_array();
	int ok = a != NULL;
	if (!a)
		return NULL;
	for (size_t i = 0; i < n && i < WEB_TRAIN_MAX_LISTED_STEPS; i++)
		push(a, json_integer(v[i]), &ok);
	return finish(a, ok);
}

static json_t *pair_json(size_t x, size_t y)
{
	return json_pack("[II]", (json_int_t)x, (json_int_t)y);
}

static json_t *metric_json(const struct matcher_train_metric_result *m)
{
	json_t *o = json_object();
	int ok = o != NULL;
	if (!o)
		return NULL;
	put(o, "max_abs", diff_num(m->max_abs, m->max_abs_text), &ok);
	put(o, "max_abs_exact", json_string(m->max_abs_text), &ok);
	put(o, "mean_abs", web_train_json_num(m->mean_abs), &ok);
	put(o, "max_rel", web_train_json_num(m->max_rel), &ok);
	put(o, "mean_rel", web_train_json_num(m->mean_rel), &ok);
	put(o, "max_abs_step", m->has_max_step ? json_integer(m->max_abs_step) : json_null(), &ok);
	put(o, "first_over", m->has_first_over ? json_integer(m->first_over) : json_null(), &ok);
	put(o, "over", json_integer((json_int_t)m->n_over), &ok);
	put(o, "compared", json_integer((json_int_t)m->n_compared), &ok);
	put(o, "nan", pair_json(m->nan[0], m->nan[1]), &ok);
	put(o, "inf", pair_json(m->inf[0], m->inf[1]), &ok);
	put(o, "present", json_pack("[bb]", m->present[0], m->present[1]), &ok);
	put(o, "threshold", threshold_json(&m->th), &ok);
	put(o, "resolution", m->has_resolution ? web_train_json_num(m->resolution) : json_null(),
	    &ok);
	put(o, "decimals", m->has_resolution ? json_integer(m->decimals) : json_null(), &ok);
	put(o, "below_resolution", json_boolean(m->below_resolution), &ok);
	put(o, "pass", m->not_logged ? json_null() : json_boolean(m->pass), &ok);
	put(o, "not_logged", json_boolean(m->not_logged), &ok);
	return finish(o, ok);
}

/* The policy; a result comparing all common series (issue 27) says so
 * ("all_common": true; its "metrics" are the named thresholds only). */
static json_t *many_policy_json(const struct store_train_result *r)
{
	json_t *o = web_train_policy_json(&r->policy);
	if (o && web_train_all_common(r) && json_object_set_new(o, "all_common", json_true()) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* {"metric": ..., "step": ...} of the first difference, or null. */
static json_t *first_difference_json(const struct store_train_result *r)
{
	size_t k;
	long step;
	if (!web_train_first_diff(r, &k, &step))
		return json_null();
	json_t *o = json_object();
	int ok = o != NULL;
	put(o, "metric", web_train_json_text(r->metrics[k].name), &ok);
	put(o, "step", json_integer(step), &ok);
	return finish(o, ok);
}

json_t *web_train_result_doc(const struct store_train_result *r)
{
	json_t *o = json_object();
	json_t *reasons = json_array(), *res = json_object(), *notes = json_array();
	json_t *steps = json_object(), *metrics = json_object(), *warn = json_object();
	int ok = o && reasons && res && notes && steps && metrics && warn;
	if (!ok) {
		json_decref(o);
		json_decref(reasons);
		json_decref(res);
		json_decref(notes);
		json_decref(steps);
		json_decref(metrics);
		json_decref(warn);
		return NULL;
	}
	put(o, "kind", json_string("training"), &ok);
	put(o, "verdict", json_string(matcher_verdict_name(r->verdict)), &ok);
	for (size_t i = 0; i < r->n_reasons; i++)
		push(reasons, web_train_reason_json(&r->reasons[i]), &ok);
	put(o, "reasons", reasons, &ok);
	put(o, "policy", many_policy_json(r), &ok);
	put(o, "rank", json_integer(r->rank), &ok);
	if (web_train_all_common(r))
		put(o, "first_difference", first_difference_json(r), &ok);
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];
		put(res, m->name,
		    m->has_resolution ? web_train_json_num(m->resolution) : json_null(), &ok);
		put(metrics, m->name, metric_json(m), &ok);
	}
	put(o, "resolution", res, &ok);
	for (size_t i = 0; i < r->n_notes; i++)
		push(notes, web_train_json_text(r->notes[i]), &ok);
	put(o, "notes", notes, &ok);
	put(steps, "common", json_integer((json_int_t)r->n_common), &ok);
	put(steps, "only_baseline", steps_list(r->only[0], r->n_only_listed[0]), &ok);
	put(steps, "only_candidate", steps_list(r->only[1], r->n_only_listed[1]), &ok);
	put(steps, "only_baseline_count", json_integer((json_int_t)r->n_only[0]), &ok);
	put(steps, "only_candidate_count", json_integer((json_int_t)r->n_only[1]), &ok);
	put(o, "steps", steps, &ok);
	put(o, "metrics", metrics, &ok);
	put(warn, "baseline", warnings_json(r->warnings[0], r->n_warnings[0]), &ok);
	put(warn, "candidate", warnings_json(r->warnings[1], r->n_warnings[1]), &ok);
	put(o, "warnings", warn, &ok);
	return finish(o, ok);
}

json_t *web_train_result_json(const struct matcher_train_result *r,
                              const struct matcher_trainrun *a, const struct matcher_trainrun *b)
{
	struct store_train_result v;
	struct arena arena;
	arena_init(&arena);
	json_t *doc = store_train_result_of_check(&v, &arena, r, a, b) < 0
	                      ? NULL
	                      : web_train_result_doc(&v);
	arena_reset(&arena);
	return doc;
}

static json_t *value_text(int present, double v, int dec)
{
	char t[64];
	if (!present)
		return json_null();
	matcher_train_format_value(v, dec, t, sizeof t);
	return json_string(t);
}

json_t *web_train_step_json(long step, const char *const *metrics,
                            const struct matcher_train_row_cell *cells, size_t n)
{
	json_t *o = json_object();
	int ok = o != NULL;
	if (!o)
		return NULL;
	put(o, "step", json_integer(step), &ok);
	for (size_t k = 0; k < n; k++) {
		const struct matcher_train_row_cell *c = &cells[k];
		if (!strncmp(metrics[k], "validation/", 11))
			continue; /* a different step series */
		json_t *m = json_object();
		if (!m) {
			ok = 0;
			break;
		}
		int both = c->present[0] && c->present[1];
		put(m, "a", c->present[0] ? web_train_json_num(c->a) : json_null(), &ok);
		put(m, "b", c->present[1] ? web_train_json_num(c->b) : json_null(), &ok);
		put(m, "a_text", value_text(c->present[0], c->a, c->dec_a), &ok);
		put(m, "b_text", value_text(c->present[1], c->b, c->dec_b), &ok);
		put(m, "abs", both ? diff_num(c->abs, c->abs_text) : json_null(), &ok);
		put(m, "abs_exact", both ? json_string(c->abs_text) : json_null(), &ok);
		put(m, "rel", both ? diff_num(c->rel, c->abs_text) : json_null(), &ok);
		put(m, "over", json_boolean(c->over), &ok);
		put(o, metrics[k], m, &ok);
	}
	return finish(o, ok);
}

json_t *web_train_steps_page_json(const struct store_step_page *p)
{
	json_t *o = json_object(), *steps = json_array();
	int ok = o && steps;
	if (!ok) {
		json_decref(steps);
		return finish(o, ok);
	}
	for (size_t i = 0; ok && i < p->n_rows; i++) {
		const struct store_step_row *r = &p->rows[i];
		json_t *row = web_train_step_json(r->step, r->metrics, r->cells, r->n_cells);
		if (row)
			put(row, "rank", json_integer(r->rank), &ok);
		else
			ok = 0;
		if (ok && json_array_append_new(steps, row) < 0)
			ok = 0;
	}
	put(o, "steps", steps, &ok);
	put(o, "next_cursor", p->next_cursor[0] ? json_string(p->next_cursor) : json_null(), &ok);
	return finish(o, ok);
}

json_t *web_train_row_json(const struct matcher_train_result *r, size_t i)
{
	long step;
	size_t nm = r ? r->n_metrics : 0;
	struct matcher_train_row_cell *cells = calloc(nm ? nm : 1, sizeof *cells);
	const char **names = calloc(nm ? nm : 1, sizeof *names);
	json_t *o = NULL;
	if (r && cells && names && matcher_train_row(r, i, &step, cells) == 0) {
		for (size_t k = 0; k < nm; k++)
			names[k] = r->metrics[k].name;
		o = web_train_step_json(step, names, cells, nm);
	}
	free(cells);
	free(names);
	return o;
}

json_t *web_train_fatal_json(const struct matcher_error *e, const char *side)
{
	json_t *o = json_object(), *reasons = json_array(), *x = json_object();
	int ok = o && reasons && x;
	if (!ok) {
		json_decref(o);
		json_decref(reasons);
		json_decref(x);
		return NULL;
	}
	put(x, "code", json_string(e->code ? e->code : "error"), &ok);
	put(x, "message", web_train_json_text(e->message), &ok);
	if (side)
		put(x, "side", json_string(side), &ok);
	put(x, "line", e->line ? json_integer((json_int_t)e->line) : json_null(), &ok);
	push(reasons, x, &ok);
	put(o, "kind", json_string("training"), &ok);
	put(o, "verdict", json_string("error"), &ok);
	put(o, "reasons", reasons, &ok);
	return finish(o, ok);
}

/* ---- a candidate against a baseline set -------------------------------- */

static json_t *step_or_null(int has, long step)
{
	return has ? json_integer(step) : json_null();
}

static json_t *noise_metric_json(const struct matcher_noise_metric *m)
{
	json_t *o = json_object(), *ch = json_object();
	int ok = o && ch;
	if (!ok) {
		json_decref(o);
		json_decref(ch);
		return NULL;
	}
	put(o, "compared", json_integer((json_int_t)m->n), &ok);
	put(o, "outside", json_integer((json_int_t)m->n_outside), &ok);
	put(o, "allowed", json_integer(m->allowed), &ok);
	put(o, "p", web_train_json_num(m->p), &ok);
	put(o, "bias", web_train_json_num(m->bias), &ok);
	put(o, "share_above", web_train_json_num(m->share_above), &ok);
	put(o, "first_outside", step_or_null(m->has_first_outside, m->first_outside), &ok);
	put(o, "max_ratio", m->has_max_ratio ? web_train_json_num(m->max_ratio) : json_null(), &ok);
	put(o, "max_ratio_step", step_or_null(m->has_max_ratio, m->max_ratio_step), &ok);
	put(ch, "compared", json_integer((json_int_t)m->n_change), &ok);
	put(ch, "outside", json_integer((json_int_t)m->n_change_outside), &ok);
	put(ch, "allowed", json_integer(m->allowed_change), &ok);
	put(ch, "first_outside", step_or_null(m->n_change_outside > 0, m->first_change_outside),
	    &ok);
	put(o, "changes", ch, &ok);
	put(o, "extreme_step", step_or_null(m->has_extreme, m->extreme_step), &ok);
	put(o, "nonfinite_step", step_or_null(m->has_nonfinite, m->first_nonfinite), &ok);
	put(o, "regression", json_boolean(m->regression), &ok);
	put(o, "not_logged", json_boolean(m->not_logged), &ok);
	return finish(o, ok);
}

json_t *web_noise_result_json(const struct matcher_noise_result *r)
{
	json_t *o = json_object(), *rs = json_array(), *ns = json_array(), *ms = json_object(),
	       *st = json_object();
	int ok = o && rs && ns && ms && st;
	if (!ok) {
		json_decref(o);
		json_decref(rs);
		json_decref(ns);
		json_decref(ms);
		json_decref(st);
		return NULL;
	}
	const char *lane = matcher_noise_lane_name(r->lane);
	put(o, "kind", json_string("training"), &ok);
	put(o, "verdict", json_string(matcher_verdict_name(r->verdict)), &ok);
	put(o, "lane", lane ? json_string(lane) : json_null(), &ok);
	put(o, "identical_to",
	    r->identical_to >= 0 ? json_integer(r->identical_to + 1) : json_null(), &ok);
	for (size_t i = 0; i < r->n_reasons; i++)
		push(rs, web_train_reason_json(&r->reasons[i]), &ok);
	put(o, "reasons", rs, &ok);
	put(o, "policy", web_train_policy_json(&r->policy), &ok);
	put(o, "rank", json_integer(r->rank), &ok);
	put(o, "members", json_integer((json_int_t)r->k), &ok);
	put(o, "t_quantile", web_train_json_num(r->t_quantile), &ok);
	put(st, "compared", json_integer((json_int_t)r->n_steps), &ok);
	put(st, "skipped", json_integer((json_int_t)r->n_skipped), &ok);
	put(st, "first_skipped", step_or_null(r->n_skipped > 0, r->first_skipped), &ok);
	put(o, "steps", st, &ok);
	for (size_t i = 0; i < r->n_notes; i++)
		push(ns, web_train_json_text(r->notes[i]), &ok);
	put(o, "notes", ns, &ok);
	for (size_t i = 0; i < r->n_metrics; i++)
		put(ms, r->metrics[i].name, noise_metric_json(&r->metrics[i]), &ok);
	put(o, "metrics", ms, &ok);
	return finish(o, ok);
}

json_t *web_noise_steps_page_json(const struct matcher_noise_result *r, size_t from, size_t n,
                                  const char *next_cursor)
{
	json_t *o = json_object(), *steps = json_array();
	int ok = o && steps;
	if (!ok) {
		json_decref(steps);
		return finish(o, ok);
	}
	for (size_t i = from; ok && i < from + n && i < r->n_steps; i++) {
		json_t *row = json_object(), *ms = json_object();
		ok = row && ms;
		if (!ok) {
			json_decref(row);
			json_decref(ms);
			break;
		}
		put(row, "step", json_integer(r->steps[i]), &ok);
		for (size_t k = 0; ok && k < r->n_metrics; k++) {
			const struct matcher_noise_metric *m = &r->metrics[k];
			if (m->not_logged || !m->y || isnan(m->mean[i]))
				continue;
			json_t *c = json_object();
			ok = c != NULL;
			put(c, "y", web_train_json_num(m->y[i]), &ok);
			put(c, "mean", web_train_json_num(m->mean[i]), &ok);
			put(c, "sd", web_train_json_num(m->sd[i]), &ok);
			put(c, "h", web_train_json_num(m->h[i]), &ok);
			put(c, "z", web_train_json_num(m->z[i]), &ok);
			put(c, "outside", json_boolean(m->outside[i] & 1), &ok);
			put(c, "change_outside", json_boolean((m->outside[i] >> 1) & 1), &ok);
			put(ms, m->name, c, &ok);
		}
		put(row, "metrics", ms, &ok);
		push(steps, row, &ok);
	}
	put(o, "steps", steps, &ok);
	put(o, "next_cursor",
	    next_cursor && next_cursor[0] ? json_string(next_cursor) : json_null(), &ok);
	return finish(o, ok);
}
