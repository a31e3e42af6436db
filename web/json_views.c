/* json_views.c - JSON documents of the store's views (see json_views.h).
 * Keys are set in the API's order (jansson keeps insertion order), so the
 * dumped bytes are the documented shapes. */
#include "json_views.h"
#include "trainpolicy.h"

#include "json_act.h"

#include <math.h>
#include <string.h>

#include "json_train.h"
#include "web.h"

/* set: steals v; *bad on failure (also when v is NULL). */
static void set(json_t *o, const char *k, json_t *v, int *bad)
{
	*bad |= json_object_set_new(o, k, v) != 0;
}

static void push(json_t *a, json_t *v, int *bad)
{
	*bad |= json_array_append_new(a, v) != 0;
}

static json_t *finish(json_t *o, int bad)
{
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Text or null, repaired to UTF-8. */
static json_t *text(const char *s)
{
	return web_train_json_text(s);
}

static json_t *cursor(const char *c)
{
	return c && c[0] ? json_string(c) : json_null();
}

/* {"<items>":a,"next_cursor":..} (no cursor key when next is NULL); a is
 * stolen, bad carries the caller's failures. */
static json_t *page_doc(const char *items, json_t *a, int bad, const char *next)
{
	json_t *o = a ? json_object() : NULL;

	if (!o) {
		json_decref(a);
		return NULL;
	}
	set(o, items, a, &bad);
	if (next)
		set(o, "next_cursor", cursor(next), &bad);
	return finish(o, bad);
}

json_t *web_run_meta(const struct store_run *r)
{
	json_t *m = NULL;
	if (r->meta_json)
		m = json_loads(r->meta_json, 0, NULL);
	if (m && !json_is_object(m)) {
		json_decref(m);
		m = NULL;
	}
	return m ? m : json_object();
}

static json_t *log_json(const struct store_log_view *l, int training, int with_warnings)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	set(o, "id", json_integer(l->id), &bad);
	set(o, "rank", json_integer(l->rank), &bad);
	set(o, "filename", text(l->filename), &bad);
	set(o, "bytes", json_integer(l->bytes), &bad);
	set(o, "sha256", text(l->sha256), &bad);
	if (training) {
		set(o, "steps", json_integer(l->n_items), &bad);
		set(o, "validation_steps", json_integer(l->n_validation), &bad);
		set(o, "source", json_string(l->source ? l->source : "stdout"), &bad);
		set(o, "precision", json_string(web_train_source_precision(l->source)), &bad);
	} else {
		set(o, "entries", json_integer(l->n_items), &bad);
		/* another tool's activation format (issue 27): its name */
		if (l->source && strcmp(l->source, "stdout") != 0)
			set(o, "source", json_string(l->source), &bad);
	}
	set(o, "lines", json_integer(l->n_lines), &bad);
	set(o, "n_warnings", json_integer(l->n_warnings), &bad);
	if (!training) {
		json_t *ex = json_null();
		set(o, "header_total",
		    l->has_header_total ? json_integer(l->header_total) : json_null(), &bad);
		if (l->has_excluded) {
			ex = json_array();
			bad |= !ex;
			for (size_t i = 0; ex && i < l->n_excluded; i++)
				push(ex, text(l->excluded[i]), &bad);
		}
		set(o, "excluded_ops", ex, &bad);
	}
	if (with_warnings) {
		json_t *ws = json_array();
		bad |= !ws;
		for (size_t i = 0; ws && i < l->n_warnings_listed; i++) {
			const struct store_warning_view *w = &l->warnings[i];
			json_t *x = json_object();
			if (!x) {
				bad = 1;
				break;
			}
			set(x, "code", text(w->code), &bad);
			set(x, "line", json_integer(w->line), &bad);
			set(x, "message", text(w->message), &bad);
			set(x, "excerpt", text(w->excerpt), &bad);
			push(ws, x, &bad);
		}
		set(o, "warnings", ws, &bad);
	}
	return finish(o, bad);
}

/* The run without its logs (also the comparison's run summaries). */
static json_t *run_head(const struct store_run *r)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	set(o, "id", json_integer(r->id), &bad);
	set(o, "name", text(r->name), &bad);
	set(o, "kind", json_string(r->kind), &bad);
	set(o, "meta", web_run_meta(r), &bad);
	set(o, "created_at", text(r->created_at), &bad);
	return finish(o, bad);
}

json_t *web_run_json(const struct store_run *r)
{
	json_t *o = run_head(r), *logs = json_array();
	int bad = !o || !logs;
	int training = strcmp(r->kind, "training") == 0;

	for (size_t i = 0; !bad && i < r->n_logs; i++)
		push(logs, log_json(&r->logs[i], training, r->with_warnings), &bad);
	if (!o) {
		json_decref(logs);
		return NULL;
	}
	set(o, "logs", logs, &bad);
	return finish(o, bad);
}

json_t *web_runs_page_json(const struct store_run_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < p->n_runs; i++)
		push(a, web_run_json(&p->runs[i]), &bad);
	return page_doc("runs", a, bad, p->next_cursor);
}

static json_t *run_step_json(const struct store_run_step *x)
{
	json_t *o = json_object(), *ms = json_object();
	int bad = !o || !ms;

	for (size_t i = 0; !bad && i < x->n_metrics; i++) {
		const struct store_step_metric *m = &x->metrics[i];
		json_t *v = json_object();

		if (!v) {
			bad = 1;
			break;
		}
		set(v, "text", text(m->text), &bad);
		set(v, "value", m->has_value ? json_real(m->value) : json_null(), &bad);
		set(ms, m->name, v, &bad);
	}
	if (!o) {
		json_decref(ms);
		return NULL;
	}
	set(o, "step", json_integer(x->step), &bad);
	set(o, "rank", json_integer(x->rank), &bad);
	set(o, "line", json_integer(x->line), &bad);
	set(o, "copies", json_integer(x->copies), &bad);
	set(o, "metrics", ms, &bad);
	return finish(o, bad);
}

json_t *web_run_steps_page_json(const struct store_run_step_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < p->n_steps; i++)
		push(a, run_step_json(&p->steps[i]), &bad);
	return page_doc("steps", a, bad, p->next_cursor);
}

/* One op of GET /runs/{id}/ops (key order as documented in json_views.h). */
static json_t *op_json(const struct store_op *op)
{
	const struct matcher_entry *e = &op->e;
	json_t *o = json_object(), *stats = json_object();
	int bad = !o || !stats;

	if (bad) {
		json_decref(stats);
		return finish(o, bad);
	}
	set(o, "rank", json_integer(op->rank), &bad);
	set(o, "order", json_integer((json_int_t)e->order), &bad);
	set(o, "line", json_integer((json_int_t)e->line), &bad);
	set(o, "key", text(e->key), &bad);
	set(o, "module", text(op->module), &bad);
	set(o, "op_index", op->op_index >= 0 ? json_integer(op->op_index) : json_null(), &bad);
	set(o, "op_name", text(op->op_name), &bad);
	set(o, "phase", json_string(matcher_phase_name(e->phase)), &bad);
	if (e->stats[MATCHER_STAT_SHAPE])
		set(stats, matcher_stat_names[MATCHER_STAT_SHAPE],
		    text(e->stats[MATCHER_STAT_SHAPE]), &bad);
	for (int i = MATCHER_STAT_L1; i < MATCHER_N_STATS; i++) {
		json_t *sj;
		if (!e->stats[i])
			continue;
		sj = json_object();
		bad |= !sj;
		if (sj) {
			int num = (e->stat_isnum & (1u << i)) && isfinite(e->stat_num[i]);
			set(sj, "text", text(e->stats[i]), &bad);
			set(sj, "value", num ? json_real(e->stat_num[i]) : json_null(), &bad);
		}
		set(stats, matcher_stat_names[i], sj, &bad);
	}
	set(o, "stats", stats, &bad);
	set(o, "output_hash", text(e->output_hash), &bad);
	set(o, "input_hashes", text(e->input_hashes), &bad);
	set(o, "input_producers", text(e->input_producers), &bad);
	set(o, "location", text(e->location), &bad);
	return finish(o, bad);
}

json_t *web_ops_page_json(const struct store_op_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; a && i < p->n_ops; i++)
		push(a, op_json(&p->ops[i]), &bad);
	return page_doc("ops", a, bad, p->next_cursor);
}

json_t *web_stored_json(const char *t)
{
	json_t *j = t ? json_loads(t, JSON_DECODE_ANY, NULL) : NULL;
	return j ? j : json_null();
}

/* The "policy" of a comparison document: a training comparison's stored
 * form (matcher/trainpolicy.h) as web_train_policy_json writes it, or the
 * stored JSON text (activation, and comparisons created before it). */
static json_t *policy_doc(const char *text)
{
	struct matcher_train_policy p;
	if (!matcher_train_policy_is_text(text))
		return web_stored_json(text);
	return matcher_train_policy_parse(text, &p) == 0 ? web_train_policy_json(&p) : json_null();
}

void web_stored_policy_name(const char *text, char *out, size_t cap)
{
	struct matcher_train_policy p;
	if (matcher_train_policy_is_text(text)) {
		snprintf(out, cap, "%s", matcher_train_policy_parse(text, &p) == 0 ? p.name : "");
		return;
	}
	json_t *j = web_stored_json(text);
	const char *n = json_string_value(json_object_get(j, "name"));
	snprintf(out, cap, "%s", n ? n : "");
	json_decref(j);
}

static json_t *run_or_null(const struct store_run *r)
{
	return r ? run_head(r) : json_null();
}

/* A run in a summary (the suite document): no meta. */
static json_t *run_summary_or_null(const struct store_run *r)
{
	json_t *o = r ? run_head(r) : json_null();
	if (r && o)
		json_object_del(o, "meta");
	return o;
}

/* A policy in a summary: {"name"} only. */
static json_t *policy_summary(const char *text)
{
	char name[64];
	web_stored_policy_name(text, name, sizeof name);
	return json_pack("{s:s}", "name", name);
}

/* The comparison document; summary: the policy's name and the runs
 * without meta (bounded whatever the policy and meta sizes). */
/* [ids...] (issue 26: a baseline set), or NULL on OOM. */
static json_t *id_array(const int64_t *ids, size_t n)
{
	json_t *a = json_array();
	int bad = !a;
	for (size_t i = 0; !bad && i < n; i++)
		push(a, json_integer(ids[i]), &bad);
	if (bad) {
		json_decref(a);
		return NULL;
	}
	return a;
}

static json_t *comparison_json(const struct store_comparison *c, int with_result, int summary)
{
	json_t *o = json_object(), *runs = json_object();
	int bad = !o || !runs;

	if (bad) {
		json_decref(runs);
		return finish(o, bad);
	}
	set(o, "id", json_integer(c->id), &bad);
	set(o, "name", text(c->name), &bad);
	set(o, "kind", json_string(c->kind), &bad);
	set(o, "status", json_string(c->status), &bad);
	set(o, "verdict", text(c->verdict), &bad);
	set(o, "baseline", json_integer(c->baseline_id), &bad);
	set(o, "candidate", json_integer(c->candidate_id), &bad);
	set(o, "policy", summary ? policy_summary(c->policy_json) : policy_doc(c->policy_json),
	    &bad);
	if (c->n_baseline_set)
		set(o, "baseline_set", id_array(c->baseline_set, c->n_baseline_set), &bad);
	if (c->lane) /* issue 26: noise comparisons only (other documents unchanged) */
		set(o, "lane", json_string(c->lane), &bad);
	if (with_result)
		set(o, "result",
		    c->act     ? web_act_result_doc(c->act)
		    : c->noise ? web_noise_result_json(c->noise)
		    : c->train ? web_train_result_doc(c->train)
		               : web_stored_json(c->result_json),
		    &bad);
	set(o, "error", text(c->error), &bad);
	set(o, "created_at", text(c->created_at), &bad);
	set(o, "started_at", text(c->started_at), &bad);
	set(o, "finished_at", text(c->finished_at), &bad);
	set(o, "baseline_name", text(c->baseline_name), &bad);
	set(o, "suite", text(c->suite), &bad);
	set(o, "config", text(c->config), &bad);
	set(o, "suite_size", c->suite_size ? json_integer(c->suite_size) : json_null(), &bad);
	set(runs, "baseline", summary ? run_summary_or_null(c->baseline) : run_or_null(c->baseline),
	    &bad);
	set(runs, "candidate",
	    summary ? run_summary_or_null(c->candidate) : run_or_null(c->candidate), &bad);
	set(o, "runs", runs, &bad);
	return finish(o, bad);
}

json_t *web_comparison_json(const struct store_comparison *c, int with_result)
{
	return comparison_json(c, with_result, 0);
}

json_t *web_comparisons_page_json(const struct store_comparison_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < p->n_cmps; i++)
		push(a, web_comparison_json(&p->cmps[i], 0), &bad);
	return page_doc("comparisons", a, bad, p->next_cursor);
}

json_t *web_webhook_json(const struct store_webhook_public *h)
{
	json_t *o = json_object(), *ev = json_array();
	int bad = !o || !ev;

	for (size_t i = 0; !bad && i < h->n_events; i++)
		push(ev, text(h->events[i]), &bad);
	if (!o) {
		json_decref(ev);
		return NULL;
	}
	set(o, "id", json_integer(h->id), &bad);
	set(o, "url", text(h->url), &bad);
	set(o, "events", ev, &bad);
	set(o, "format", json_string(h->format), &bad);
	set(o, "has_secret", json_boolean(h->has_secret), &bad);
	set(o, "has_token", json_boolean(h->has_token), &bad);
	set(o, "created_at", text(h->created_at), &bad);
	if (!strcmp(h->format, "email")) {
		json_t *to = json_array();
		bad |= !to;
		for (size_t i = 0; !bad && i < h->n_to; i++)
			push(to, text(h->to[i]), &bad);
		set(o, "to", to, &bad);
	}
	return finish(o, bad);
}

json_t *web_webhooks_page_json(const struct store_webhook_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < p->n_hooks; i++)
		push(a, web_webhook_json(&p->hooks[i]), &bad);
	return page_doc("webhooks", a, bad, p->next_cursor);
}

static json_t *delivery_json(const struct store_delivery_info *d)
{
	json_t *o = json_object(), *log = json_array();
	int bad = !o || !log;

	for (size_t i = 0; !bad && i < d->n_attempt_log; i++) {
		const struct store_attempt_info *t = &d->attempt_log[i];
		json_t *x = json_object();

		if (!x) {
			bad = 1;
			break;
		}
		set(x, "at", text(t->at), &bad);
		set(x, "http_status",
		    t->has_http_status ? json_integer(t->http_status) : json_null(), &bad);
		set(x, "error", text(t->error), &bad);
		set(x, "duration_ms", json_integer(t->duration_ms), &bad);
		push(log, x, &bad);
	}
	if (!o) {
		json_decref(log);
		return NULL;
	}
	set(o, "id", json_integer(d->id), &bad);
	set(o, "webhook_id", json_integer(d->webhook_id), &bad);
	set(o, "comparison_id", json_integer(d->comparison_id), &bad);
	set(o, "event", text(d->event), &bad);
	set(o, "url", text(d->url), &bad);
	set(o, "status", text(d->status), &bad);
	set(o, "attempts", json_integer(d->attempts), &bad);
	set(o, "next_attempt_at", text(d->next_attempt_at), &bad);
	set(o, "last_error", text(d->last_error), &bad);
	set(o, "created_at", text(d->created_at), &bad);
	set(o, "finished_at", text(d->finished_at), &bad);
	set(o, "attempt_log", log, &bad);
	return finish(o, bad);
}

json_t *web_deliveries_page_json(const struct store_delivery_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < p->n_deliveries; i++)
		push(a, delivery_json(&p->deliveries[i]), &bad);
	return page_doc("deliveries", a, bad, p->next_cursor);
}

static json_t *token_json(const struct store_token_info *t)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	set(o, "id", json_integer(t->id), &bad);
	set(o, "name", text(t->name), &bad);
	set(o, "created_at", text(t->created_at), &bad);
	set(o, "revoked_at", text(t->revoked_at), &bad);
	return finish(o, bad);
}

json_t *web_tokens_json(const struct store_token_list *l)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < l->n_tokens; i++)
		push(a, token_json(&l->tokens[i]), &bad);
	return page_doc("tokens", a, bad, NULL);
}

/* ---- golden baselines and suites (issue 16) ------------------------------ */

static json_t *baseline_json(const struct store_baseline *b, int with_history)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	set(o, "name", text(b->name), &bad);
	set(o, "run", json_integer(b->run_id), &bad);
	if (b->n_members) /* issue 26: a set entry */
		set(o, "runs", id_array(b->members, b->n_members), &bad);
	set(o, "run_doc", run_or_null(b->run), &bad);
	set(o, "created_at", text(b->created_at), &bad);
	set(o, "updated_at", text(b->updated_at), &bad);
	set(o, "changes", json_integer(b->n_changes), &bad);
	if (with_history) {
		json_t *h = json_array();

		bad |= !h;
		for (size_t i = 0; !bad && i < b->n_history; i++) {
			const struct store_baseline_change *c = &b->history[i];
			json_t *x = json_object();

			if (!x) {
				bad = 1;
				break;
			}
			set(x, "run", json_integer(c->run_id), &bad);
			if (c->n_runs)
				set(x, "runs", id_array(c->runs, c->n_runs), &bad);
			set(x, "time", text(c->set_at), &bad);
			set(x, "token", text(c->token_name ? c->token_name : "open"), &bad);
			set(x, "note", text(c->note), &bad);
			set(x, "comparison",
			    c->comparison_id > 0 ? json_integer(c->comparison_id) : json_null(),
			    &bad);
			push(h, x, &bad);
		}
		set(o, "history", h, &bad);
	}
	return finish(o, bad);
}

json_t *web_baseline_json(const struct store_baseline *b)
{
	return baseline_json(b, 1);
}

json_t *web_baselines_page_json(const struct store_baseline_page *p)
{
	json_t *a = json_array();
	int bad = !a;

	for (size_t i = 0; !bad && i < p->n_baselines; i++)
		push(a, baseline_json(&p->baselines[i], 0), &bad);
	return page_doc("baselines", a, bad, p->next_cursor);
}

const char *web_suite_verdict(const struct store_suite_view *v)
{
	static const char *const order[] = {"pass", "fail", "error"};
	int worst = 0;

	if (v->n_pending > 0 || (int64_t)v->n_latest < v->expected)
		return "pending";
	for (size_t i = 0; i < v->n_latest; i++) {
		const struct store_comparison *c = &v->latest[i];
		int rank = 2; /* failed, or a verdict parity does not know: error */

		if (!strcmp(c->status, "done") && c->verdict)
			for (int k = 0; k < 3; k++)
				if (!strcmp(c->verdict, order[k]))
					rank = k;
		if (rank > worst)
			worst = rank;
	}
	return order[worst];
}

const char *web_suite_lane(const struct store_suite_view *v)
{
	static const char *const order[] = {"identical", "within_noise", "regression"};
	int worst = -1;

	for (size_t i = 0; i < v->n_latest; i++)
		for (int k = 0; v->latest[i].lane && k < 3; k++)
			if (!strcmp(v->latest[i].lane, order[k]) && k > worst)
				worst = k;
	return worst < 0 ? NULL : order[worst];
}

json_t *web_suite_json(const char *suite, const struct store_suite_view *v)
{
	json_t *o = json_object(), *cfgs = json_array();
	int bad = !o || !cfgs;

	if (!o) {
		json_decref(cfgs);
		return NULL;
	}
	set(o, "suite", text(suite), &bad);
	set(o, "verdict", json_string(web_suite_verdict(v)), &bad);
	if (web_suite_lane(v)) /* a suite with noise configs only */
		set(o, "lane", json_string(web_suite_lane(v)), &bad);
	set(o, "comparisons", json_integer(v->n_comparisons), &bad);
	set(o, "pending", json_integer(v->n_pending), &bad);
	set(o, "expected_configs", v->expected ? json_integer(v->expected) : json_null(), &bad);
	set(o, "complete", json_boolean(strcmp(web_suite_verdict(v), "pending") != 0), &bad);
	set(o, "truncated", json_boolean(v->truncated), &bad);
	for (size_t i = 0; !bad && i < v->n_latest; i++) {
		const struct store_comparison *c = &v->latest[i];
		json_t *x = json_object();

		if (!x) {
			bad = 1;
			break;
		}
		set(x, "config", text(c->config ? c->config : ""), &bad);
		set(x, "comparison", comparison_json(c, 0, 1), &bad);
		push(cfgs, x, &bad);
	}
	set(o, "configs", cfgs, &bad);
	return finish(o, bad);
}
