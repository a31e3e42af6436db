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
#include "web.h"

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
	put(o, "thresholds", th, &ok);
	put(o, "metrics", ms, &ok);
	put(o, "if_logged", il, &ok);
	return finish(o, ok);
}

int web_train_policy_from_json(json_t *v, struct matcher_train_policy *p, char *msg, size_t cap)
{
	const char *name = NULL;
	if (!v || json_is_null(v)) {
		matcher_train_policy_preset(p, "premerge");
		return 0;
	}
	if (json_is_string(v))
		name = json_string_value(v);
	else if (json_is_object(v) && json_is_string(json_object_get(v, "name")))
		name = json_string_value(json_object_get(v, "name"));
	else if (!json_is_object(v)) {
		snprintf(msg, cap, "policy must be a name or an object");
		return -1;
	}
	if (name && !strcmp(name, "custom"))
		name = json_is_string(json_object_get(v, "base"))
		               ? json_string_value(json_object_get(v, "base"))
		               : "premerge";
	if (matcher_train_policy_preset(p, name) < 0) {
		snprintf(msg, cap, "unknown training policy '%.64s' (premerge, bitwise)", name);
		return -1;
	}
	if (!json_is_object(v))
		return 0;
	json_t *x = json_object_get(v, "metrics");
	if (x && web_train_policy_metrics(p, x, 0, msg, cap) < 0)
		return -1;
	if ((x = json_object_get(v, "if_logged"))) {
		size_t i;
		json_t *m;
		if (!json_is_array(x)) {
			snprintf(msg, cap, "if_logged must be an array of compared metric names");
			return -1;
		}
		/* the preset's own flags are replaced by the list */
		for (size_t k = 0; k < p->n_th; k++)
			p->th[k].if_logged = 0;
		json_array_foreach(x, i, m)
		{
			if (!json_is_string(m) ||
			    matcher_train_policy_if_logged(p, json_string_value(m)) < 0) {
				snprintf(msg, cap,
				         "if_logged names a metric that is not compared (or loss)");
				return -1;
			}
		}
	}
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
	else if (json_object_get(v, "metrics") || json_object_get(v, "if_logged"))
		matcher_train_policy_customise(p);
	x = json_object_get(v, "thresholds");
	if (x) {
		const char *k;
		json_t *t;
		if (!json_is_object(x)) {
			snprintf(msg, cap, "thresholds must be an object of metric: {abs, rel}");
			return -1;
		}
		json_object_foreach(x, k, t)
		{
			double abs, rel = 0;
			int has_rel = 0;
			json_t *ja = json_is_object(t) ? json_object_get(t, "abs") : t;
			json_t *jr = json_is_object(t) ? json_object_get(t, "rel") : NULL;
			if (json_is_object(t) && !ja)
				ja = NULL;
			if (ja && !json_is_number(ja)) {
				snprintf(msg, cap, "threshold of %.48s: abs must be a number", k);
				return -1;
			}
			abs = ja ? json_number_value(ja) : 0;
			if (!ja) {
				/* only rel given: keep the preset abs, or unlimited */
				abs = INFINITY;
				for (size_t i = 0; i < p->n_th; i++)
					if (!strcmp(p->th[i].metric, k))
						abs = p->th[i].abs;
			}
			if (jr && !json_is_null(jr)) {
				if (!json_is_number(jr)) {
					snprintf(msg, cap,
					         "threshold of %.48s: rel must be a number", k);
					return -1;
				}
				rel = json_number_value(jr);
				has_rel = 1;
			}
			if (matcher_train_policy_set(p, k, abs, rel, has_rel) < 0) {
				snprintf(msg, cap, "bad threshold for metric '%.48s'", k);
				return -1;
			}
		}
	}
	if ((x = json_object_get(v, "min_steps"))) {
		if (!json_is_integer(x) || json_integer_value(x) < 0) {
			snprintf(msg, cap, "min_steps must be a non-negative integer");
			return -1;
		}
		p->min_steps = (long)json_integer_value(x);
		if (p->min_steps != 1)
			matcher_train_policy_customise(p);
	}
	if ((x = json_object_get(v, "allow_warnings"))) {
		if (!json_is_boolean(x)) {
			snprintf(msg, cap, "allow_warnings must be true or false");
			return -1;
		}
		p->allow_warnings = json_is_true(x);
		if (p->allow_warnings)
			matcher_train_policy_customise(p);
	}
	if ((x = json_object_get(v, "rank")) && !json_is_null(x)) {
		if (!json_is_integer(x) || json_integer_value(x) < 0 ||
		    json_integer_value(x) > 1000000) {
			snprintf(msg, cap, "rank must be a non-negative integer");
			return -1;
		}
		p->rank = (int)json_integer_value(x);
	}
	return 0;
}

int web_train_policy_from_text(const char *text, struct matcher_train_policy *p, char *msg,
                               size_t cap)
{
	json_t *v = text ? json_loads(text, 0, NULL) : NULL;
	int rc = web_train_policy_from_json(v, p, msg, cap);
	json_decref(v);
	return rc;
}

int web_train_policy_metrics(struct matcher_train_policy *p, json_t *names, int add, char *msg,
                             size_t cap)
{
	const char *list[MATCHER_TRAIN_MAX_METRICS];
	size_t i, n = json_is_array(names) ? json_array_size(names) : 0;
	json_t *m;
	if (!json_is_array(names) || (!add && !n) || n > MATCHER_TRAIN_MAX_METRICS) {
		snprintf(msg, cap, "%s must be a%s array of at most %d metric names",
		         add ? "extra_metrics" : "metrics", add ? "n" : " non-empty",
		         MATCHER_TRAIN_MAX_METRICS);
		return -1;
	}
	/* a metric the request adds without a threshold: the preset's */
	double abs = strcmp(p->base[0] ? p->base : p->name, "bitwise") == 0 ? 0.0 : 1e-5;
	json_array_foreach(names, i, m)
	{
		if (!json_is_string(m) || !*json_string_value(m)) {
			snprintf(msg, cap, "%s must be an array of metric names",
			         add ? "extra_metrics" : "metrics");
			return -1;
		}
		list[i] = json_string_value(m);
		int known = 0;
		for (size_t k = 0; k < p->n_th; k++)
			known |= !strcmp(p->th[k].metric, list[i]);
		if (add && !known && matcher_train_policy_set(p, list[i], abs, 0, 0) < 0) {
			snprintf(msg, cap, "cannot add metric '%.60s'", list[i]);
			return -1;
		}
	}
	if (!add && matcher_train_policy_select(p, list, n, abs) < 0) {
		snprintf(msg, cap, "metrics: a metric name is repeated or too long");
		return -1;
	}
	return 0;
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

int web_train_result_view(struct store_train_result *out, struct arena *arena,
                          const struct matcher_train_result *r, const struct matcher_trainrun *a,
                          const struct matcher_trainrun *b)
{
	const struct matcher_trainrun *run[2] = {a, b};
	memset(out, 0, sizeof *out);
	out->verdict = r->verdict;
	out->policy = r->policy;
	out->rank = r->rank;
	out->reasons = r->reasons;
	out->n_reasons = r->n_reasons;
	out->metrics = r->metrics;
	out->n_metrics = r->n_metrics;
	if (r->n_notes) {
		const char **notes = arena_alloc(arena, r->n_notes * sizeof *notes);
		if (!notes)
			return -1;
		for (size_t i = 0; i < r->n_notes; i++)
			notes[i] = r->notes[i];
		out->notes = notes;
		out->n_notes = r->n_notes;
	}
	out->n_common = (int64_t)r->n_common;
	out->only[0] = r->only_a;
	out->only[1] = r->only_b;
	out->n_only[0] = (int64_t)r->n_only_a;
	out->n_only[1] = (int64_t)r->n_only_b;
	for (int k = 0; k < 2; k++) {
		size_t n = (size_t)out->n_only[k];
		out->n_only_listed[k] =
		        n < WEB_TRAIN_MAX_LISTED_STEPS ? n : WEB_TRAIN_MAX_LISTED_STEPS;
		out->warnings[k] = run[k] ? run[k]->warnings : NULL;
		out->n_warnings[k] = run[k] ? run[k]->n_warnings : 0;
	}
	return 0;
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
	put(o, "policy", web_train_policy_json(&r->policy), &ok);
	put(o, "rank", json_integer(r->rank), &ok);
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
	json_t *doc =
	        web_train_result_view(&v, &arena, r, a, b) < 0 ? NULL : web_train_result_doc(&v);
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
	struct matcher_train_row_cell cells[MATCHER_TRAIN_MAX_METRICS];
	const char *names[MATCHER_TRAIN_MAX_METRICS];
	long step;
	if (!r || r->n_metrics > MATCHER_TRAIN_MAX_METRICS ||
	    matcher_train_row(r, i, &step, cells) < 0)
		return NULL;
	for (size_t k = 0; k < r->n_metrics; k++)
		names[k] = r->metrics[k].name;
	return web_train_step_json(step, names, cells, r->n_metrics);
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
