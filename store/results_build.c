/* results_build.c - the typed results (store.h struct store_act_result,
 * struct store_train_result) built from the matcher's: the layer below
 * web/ that the daemon's jobs and the CLI share, so both store and
 * serialize the same structs (store_views.h).  Pure: no I/O, no SQL. */
#include <string.h>

#include "store.h"

/* ---- the activation result ---------------------------------------------- */

void store_act_build_init(struct store_act_build *b, const struct matcher_act_policy *pol)
{
	memset(b, 0, sizeof *b);
	arena_init(&b->arena);
	b->res.verdict = MATCHER_VERDICT_PASS;
	if (pol)
		b->res.policy = *pol;
	else
		matcher_act_policy_init(&b->res.policy);
	b->res.policy.allow_only_ops = NULL;
	b->res.policy.n_allow_only_ops = 0;
	if (pol && pol->n_allow_only_ops) {
		const char **ops = arena_alloc(&b->arena, pol->n_allow_only_ops * sizeof *ops);

		b->bad |= !ops;
		for (size_t i = 0; ops && i < pol->n_allow_only_ops; i++) {
			ops[i] = arena_strdup(&b->arena, pol->allow_only_ops[i]);
			b->bad |= !ops[i];
		}
		if (ops) {
			b->res.policy.allow_only_ops = ops;
			b->res.policy.n_allow_only_ops = pol->n_allow_only_ops;
		}
	}
}

void store_act_build_free(struct store_act_build *b)
{
	arena_reset(&b->arena);
	memset(b, 0, sizeof *b);
}

/* Room for one more item in an arena array (doubling, old copy left). */
static void *grow(struct arena *a, void *v, size_t n, size_t *cap, size_t sz)
{
	void *nv;

	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 4;
	nv = arena_alloc(a, *cap * sz);
	if (nv && n)
		memcpy(nv, v, n * sz);
	return nv;
}

static struct store_act_reason *new_reason(struct store_act_build *b)
{
	struct store_act_reason *v =
	        grow(&b->arena, b->reasons, b->res.n_reasons, &b->cap_reasons, sizeof *v);

	if (!v) {
		b->bad = 1;
		return NULL;
	}
	b->reasons = v;
	b->res.reasons = v;
	v = &v[b->res.n_reasons++];
	memset(v, 0, sizeof *v);
	v->rank = -1;
	v->first.row = v->first_phase[0].row = v->first_phase[1].row = -1;
	v->max_hash_distance = -1;
	return v;
}

int store_act_build_reason(struct store_act_build *b, const char *code, int rank,
                           const char *message)
{
	struct store_act_reason *rs = new_reason(b);

	if (!rs)
		return -1;
	rs->rank = rank;
	rs->code = arena_strdup(&b->arena, code);
	rs->message = arena_strdup(&b->arena, message);
	b->bad |= !rs->code || !rs->message;
	return b->bad ? -1 : 0;
}

static const char *dup(struct store_act_build *b, const char *s)
{
	const char *d = arena_strdup(&b->arena, s);

	b->bad |= s && !d;
	return d;
}

/* Entry idx's key of log, copied (NULL for MATCHER_REC_NONE). */
static const char *key_dup(struct store_act_build *b, const struct matcher_actlog *log,
                           uint32_t idx)
{
	struct buf k = BUF_INIT;
	const char *d;

	if (idx == MATCHER_REC_NONE)
		return NULL;
	if (matcher_actlog_key(log, idx, &k) < 0 || buf_reserve(&k, 0) < 0) {
		b->bad = 1;
		buf_reset(&k);
		return NULL;
	}
	d = dup(b, k.data);
	buf_reset(&k);
	return d;
}

static void ref_from(struct store_act_build *b, struct store_act_ref *f,
                     const struct matcher_match_result *r, size_t i)
{
	const struct matcher_row_rec *row;

	memset(f, 0, sizeof *f);
	f->row = -1;
	if (!r || i == MATCHER_NO_ROW || i >= r->n_rows)
		return;
	row = &r->recs[i];
	f->row = (int64_t)i;
	f->a_key = key_dup(b, r->log_a, row->a);
	f->b_key = key_dup(b, r->log_b, row->b);
	f->status = row->status;
	f->phase = row->phase;
	f->method = row->method;
	f->origin = !!row->origin;
	f->shape_differs = !!row->shape_differs;
	f->out_dist = row->output_hash_distance;
	f->in_dist = row->input_hash_distance;
}

static const struct store_act_warning *warnings_from(struct store_act_build *b,
                                                     const struct matcher_warning *w, size_t n)
{
	struct store_act_warning *v = n ? arena_alloc(&b->arena, n * sizeof *v) : NULL;

	b->bad |= n && !v;
	for (size_t i = 0; v && i < n; i++) {
		v[i].code = dup(b, w[i].code);
		v[i].line = (int64_t)w[i].line;
		v[i].message = dup(b, w[i].message);
		v[i].excerpt = dup(b, w[i].excerpt);
	}
	return v;
}

static const char *const *strings_from(struct store_act_build *b, char *const *s, size_t n)
{
	const char **v = n ? arena_alloc(&b->arena, n * sizeof *v) : NULL;

	b->bad |= n && !v;
	for (size_t i = 0; v && i < n; i++)
		v[i] = dup(b, s[i]);
	return v;
}

int store_act_build_rank(struct store_act_build *b, const struct store_act_input *d, int rank)
{
	const struct matcher_match_result *r = d->result;
	const struct matcher_match_summary *s = &r->summary;
	struct store_act_rank *k;
	size_t i;
	int p, j;

	k = grow(&b->arena, b->ranks, b->res.n_ranks, &b->cap_ranks, sizeof *k);
	if (!k) {
		b->bad = 1;
		return -1;
	}
	b->ranks = k;
	b->res.ranks = k;
	k = &k[b->res.n_ranks++];
	memset(k, 0, sizeof *k);
	k->rank = rank;
	k->verdict = d->verdict ? d->verdict->verdict : MATCHER_VERDICT_ERROR;
	k->name_a = dup(b, d->name_a);
	k->name_b = dup(b, d->name_b);
	k->reasons_at = b->res.n_reasons;
	for (i = 0; d->verdict && i < d->verdict->n_reasons; i++) {
		const struct matcher_act_reason *mr = &d->verdict->reasons[i];
		struct store_act_reason *rs = new_reason(b);

		if (!rs)
			return -1;
		rs->rank = rank;
		rs->in_rank = 1;
		rs->code = dup(b, mr->code);
		rs->message = dup(b, mr->message);
		rs->count = (int64_t)mr->count;
		rs->tolerated = (int64_t)mr->tolerated;
		ref_from(b, &rs->first, r, mr->first_row);
		for (p = 0; p < 2; p++)
			ref_from(b, &rs->first_phase[p], r, mr->first_row_phase[p]);
		rs->max_hash_distance = mr->max_hash_distance;
		k->n_reasons++;
	}
	k->n_rows = (int64_t)s->n_rows;
	for (j = 0; j < MATCHER_N_STATUS; j++) {
		k->n_status[j] = (int64_t)s->n_status[j];
		for (p = 0; p < 2; p++)
			k->n_phase_status[p][j] = (int64_t)s->n_phase_status[p][j];
	}
	for (j = 0; j < MATCHER_N_METHODS; j++)
		k->n_method[j] = (int64_t)s->n_method[j];
	k->n_origin = (int64_t)s->n_origin;
	k->n_propagated = (int64_t)s->n_propagated;
	k->max_hash_distance = s->max_hash_distance;
	k->max_hash_row = s->max_hash_row == MATCHER_NO_ROW ? -1 : (int64_t)s->max_hash_row;
	k->n_tolerated = (int64_t)(d->verdict ? d->verdict->n_tolerated : 0);
	k->n_entries[0] = (int64_t)(d->a ? d->a->n_entries : 0);
	k->n_entries[1] = (int64_t)(d->b ? d->b->n_entries : 0);
	if (d->a) {
		k->excluded[0] = strings_from(b, d->a->excluded, d->a->n_excluded);
		k->n_excluded[0] = d->a->n_excluded;
		k->warnings[STORE_WARN_LOG_A] = warnings_from(b, d->a->warnings, d->a->n_warnings);
		k->n_warnings[STORE_WARN_LOG_A] = d->a->n_warnings;
	}
	if (d->b) {
		k->excluded[1] = strings_from(b, d->b->excluded, d->b->n_excluded);
		k->n_excluded[1] = d->b->n_excluded;
		k->warnings[STORE_WARN_LOG_B] = warnings_from(b, d->b->warnings, d->b->n_warnings);
		k->n_warnings[STORE_WARN_LOG_B] = d->b->n_warnings;
	}
	if (d->ov) {
		k->warnings[STORE_WARN_OVERRIDES] =
		        warnings_from(b, d->ov->warnings, d->ov->n_warnings);
		k->n_warnings[STORE_WARN_OVERRIDES] = d->ov->n_warnings;
	}
	k->overrides_used = (int64_t)r->n_overrides_used;
	if (r->n_unused) {
		struct store_act_unused *u = arena_alloc(&b->arena, r->n_unused * sizeof *u);

		b->bad |= !u;
		for (i = 0; u && i < r->n_unused; i++) {
			u[i].a_key = dup(b, r->unused[i].a_key);
			u[i].b_key = dup(b, r->unused[i].b_key);
			u[i].line = (int64_t)r->unused[i].line;
			u[i].reason = dup(b, r->unused[i].reason);
		}
		k->unused = u;
		k->n_unused = u ? r->n_unused : 0;
	}
	for (p = 0; p < 2; p++)
		ref_from(b, &k->first_divergence[p], r, s->first_divergence[p]);
	return b->bad ? -1 : 0;
}

/* ---- the training result ------------------------------------------------ */

int store_train_result_of_check(struct store_train_result *out, struct arena *arena,
                                const struct matcher_train_result *r,
                                const struct matcher_trainrun *a, const struct matcher_trainrun *b)
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
		        n < STORE_TRAIN_MAX_LISTED_STEPS ? n : STORE_TRAIN_MAX_LISTED_STEPS;
		out->warnings[k] = run[k] ? run[k]->warnings : NULL;
		out->n_warnings[k] = run[k] ? run[k]->n_warnings : 0;
	}
	return 0;
}
