/* test_store_results.c - the typed results on either backend: an
 * activation result (two ranks, job and rank reasons, first divergences
 * joined with their stored rows and entries, excluded ops, the override
 * report, warnings of every source, a tolerance policy) and a training
 * result (metric statistics with ±Inf, NaN, denormal and extreme doubles,
 * reasons with and without details, notes, only-steps, warnings) are
 * stored with store_act_result_put / store_train_result_put and read back
 * field by field; the text byte count of a read, lists past the arena's
 * growth steps, a 100 KB text, replacing and deleting a result, the
 * distance rule (outside [0, 1e308] reads as none) and a failed put that
 * leaves nothing behind.
 * The parent rows (runs, logs, entries, comparisons, comparison_rows) are
 * inserted with SQL through the statement layer, so the test does not
 * depend on runs.c / comparisons.c.  Reads: store_act_result_read /
 * store_train_result_read (with the byte count) and store_comparison_get,
 * which calls them. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store_int.h"
#include "storetest.h"

/* ---- parent rows ------------------------------------------------------------ */

/* Run sql with the values of types ('i' int64_t, 't' text, 'd' double,
 * 'n' NULL, no argument); the id of a RETURNING row, else 0; -1 on error. */
static int64_t sql_run(struct store *st, const char *sql, const char *types, ...)
{
	struct store_q *q = store_prep(st, sql);
	CHECK(q != NULL);
	if (!q) {
		fprintf(stderr, "prepare: %s\n", store_errmsg(st));
		return -1;
	}
	va_list ap;
	va_start(ap, types);
	for (int i = 0; types[i]; i++) {
		if (types[i] == 'i')
			store_q_bind_i64(q, i + 1, va_arg(ap, int64_t));
		else if (types[i] == 't')
			store_q_bind_text(q, i + 1, va_arg(ap, const char *));
		else if (types[i] == 'd')
			store_q_bind_double(q, i + 1, va_arg(ap, double));
		else
			store_q_bind_null(q, i + 1);
	}
	va_end(ap);
	int64_t id = 0;
	int rc = store_q_run_id(q, &id);
	CHECK(rc >= 0);
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", sql, store_errmsg(st));
	return rc < 0 ? -1 : id;
}

static int64_t add_run(struct store *st, const char *name, const char *kind)
{
	return sql_run(st,
	               "INSERT INTO runs (name, kind, meta, created_at) VALUES (?, ?, NULL, ?) "
	               "RETURNING id",
	               "ttt", name, kind, "2026-12-01T00:00:00Z");
}

static int64_t add_log(struct store *st, int64_t run, int64_t rank)
{
	return sql_run(
	        st,
	        "INSERT INTO logs (run_id, rank, filename, bytes, sha256) VALUES (?, ?, ?, ?, "
	        "?) RETURNING id",
	        "iitit", run, rank, "x.log", (int64_t)10,
	        "0000000000000000000000000000000000000000000000000000000000000000");
}

static int64_t add_entry(struct store *st, int64_t log, int64_t ord, const char *key)
{
	return sql_run(st,
	               "INSERT INTO entries (log_id, ord, line, key, phase) VALUES (?, ?, ?, ?, ?) "
	               "RETURNING id",
	               "iiiti", log, ord, ord + 1, key, (int64_t)0);
}

static int64_t add_cmp(struct store *st, const char *kind, int64_t a, int64_t b)
{
	return sql_run(st,
	               "INSERT INTO comparisons (name, kind, baseline_id, candidate_id, status, "
	               "created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
	               "ttiitt", "c", kind, a, b, "done", "2026-12-01T00:00:00Z");
}

/* A stored row: entry ids 0 = none, method -1 = NULL, dist < 0 = NULL. */
static void add_row(struct store *st, int64_t cmp, int rank, int64_t idx, int64_t ea, int64_t eb,
                    int status, int method, int phase, int origin, int shape, double out_dist,
                    double in_dist)
{
	struct store_q *q =
	        store_prep(st, "INSERT INTO comparison_rows (comparison_id, rank, idx, "
	                       "a_entry_id, b_entry_id, status, method, phase, origin, "
	                       "shape_differs, out_dist, in_dist) VALUES (?, ?, ?, ?, ?, "
	                       "?, ?, ?, ?, ?, ?, ?)");
	CHECK(q != NULL);
	if (!q)
		return;
	store_q_bind_i64(q, 1, cmp);
	store_q_bind_i64(q, 2, rank);
	store_q_bind_i64(q, 3, idx);
	if (ea)
		store_q_bind_i64(q, 4, ea);
	if (eb)
		store_q_bind_i64(q, 5, eb);
	store_q_bind_i64(q, 6, status);
	if (method >= 0)
		store_q_bind_i64(q, 7, method);
	store_q_bind_i64(q, 8, phase);
	store_q_bind_i64(q, 9, origin);
	store_q_bind_i64(q, 10, shape);
	if (out_dist >= 0)
		store_q_bind_double(q, 11, out_dist);
	if (in_dist >= 0)
		store_q_bind_double(q, 12, in_dist);
	int64_t n = -1;
	CHECK_INT(store_q_run_changes(q, &n), STORE_Q_DONE);
	CHECK_INT(n, 1);
}

/* ---- comparing -------------------------------------------------------------- */

/* Doubles bit for bit (NaN: any NaN). */
#define CHECK_BITS(got, want)                                                                      \
	do {                                                                                       \
		double g2_ = (got), w2_ = (want);                                                  \
		CHECK((isnan(g2_) && isnan(w2_)) || memcmp(&g2_, &w2_, sizeof g2_) == 0);          \
		if (!((isnan(g2_) && isnan(w2_)) || memcmp(&g2_, &w2_, sizeof g2_) == 0))          \
			fprintf(stderr, "  %s = %.17g, want %.17g\n", #got, g2_, w2_);             \
	} while (0)

static void check_ref(const struct store_act_ref *g, const struct store_act_ref *w)
{
	CHECK_INT(g->row, w->row);
	CHECK_STR(g->a_key, w->a_key);
	CHECK_STR(g->b_key, w->b_key);
	CHECK_INT(g->status, w->status);
	CHECK_INT(g->phase, w->phase);
	CHECK_INT(g->method, w->method);
	CHECK_INT(g->origin, w->origin);
	CHECK_INT(g->shape_differs, w->shape_differs);
	CHECK_BITS(g->out_dist, w->out_dist);
	CHECK_BITS(g->in_dist, w->in_dist);
}

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

static size_t ref_bytes(const struct store_act_ref *f)
{
	return slen(f->a_key) + slen(f->b_key);
}

/* The text bytes a read counts (every string copied from a column). */
static size_t act_bytes(const struct store_act_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->policy.n_allow_only_ops; i++)
		n += slen(r->policy.allow_only_ops[i]);
	for (size_t i = 0; i < r->n_reasons; i++) {
		const struct store_act_reason *x = &r->reasons[i];
		n += slen(x->code) + slen(x->message) + ref_bytes(&x->first) +
		     ref_bytes(&x->first_phase[0]) + ref_bytes(&x->first_phase[1]);
	}
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct store_act_rank *k = &r->ranks[i];
		n += slen(k->name_a) + slen(k->name_b) + ref_bytes(&k->first_divergence[0]) +
		     ref_bytes(&k->first_divergence[1]);
		for (int s = 0; s < 2; s++)
			for (size_t j = 0; j < k->n_excluded[s]; j++)
				n += slen(k->excluded[s][j]);
		for (size_t j = 0; j < k->n_unused; j++)
			n += slen(k->unused[j].a_key) + slen(k->unused[j].b_key) +
			     slen(k->unused[j].reason);
		for (int s = 0; s < STORE_N_WARN; s++)
			for (size_t j = 0; j < k->n_warnings[s]; j++)
				n += slen(k->warnings[s][j].code) +
				     slen(k->warnings[s][j].message) +
				     slen(k->warnings[s][j].excerpt);
	}
	return n;
}

static void check_act(const struct store_act_result *g, const struct store_act_result *w)
{
	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_INT(g->verdict, w->verdict);
	CHECK_INT(g->policy.kind, w->policy.kind);
	CHECK_BITS(g->policy.max_hash_distance, w->policy.max_hash_distance);
	CHECK_INT(g->policy.n_allow_only_ops, w->policy.n_allow_only_ops);
	for (size_t i = 0; i < g->policy.n_allow_only_ops && i < w->policy.n_allow_only_ops; i++)
		CHECK_STR(g->policy.allow_only_ops[i], w->policy.allow_only_ops[i]);
	CHECK_INT(g->n_reasons, w->n_reasons);
	for (size_t i = 0; i < g->n_reasons && i < w->n_reasons; i++) {
		const struct store_act_reason *a = &g->reasons[i], *b = &w->reasons[i];
		CHECK_INT(a->rank, b->rank);
		CHECK_INT(a->in_rank, b->in_rank);
		CHECK_STR(a->code, b->code);
		CHECK_STR(a->message, b->message);
		CHECK_INT(a->count, b->count);
		CHECK_INT(a->tolerated, b->tolerated);
		check_ref(&a->first, &b->first);
		check_ref(&a->first_phase[0], &b->first_phase[0]);
		check_ref(&a->first_phase[1], &b->first_phase[1]);
		CHECK_BITS(a->max_hash_distance, b->max_hash_distance);
	}
	CHECK_INT(g->n_ranks, w->n_ranks);
	for (size_t i = 0; i < g->n_ranks && i < w->n_ranks; i++) {
		const struct store_act_rank *a = &g->ranks[i], *b = &w->ranks[i];
		CHECK_INT(a->rank, b->rank);
		CHECK_INT(a->verdict, b->verdict);
		CHECK_STR(a->name_a, b->name_a);
		CHECK_STR(a->name_b, b->name_b);
		CHECK_INT(a->reasons_at, b->reasons_at);
		CHECK_INT(a->n_reasons, b->n_reasons);
		CHECK_INT(a->n_rows, b->n_rows);
		CHECK(memcmp(a->n_status, b->n_status, sizeof a->n_status) == 0);
		CHECK(memcmp(a->n_method, b->n_method, sizeof a->n_method) == 0);
		CHECK(memcmp(a->n_phase_status, b->n_phase_status, sizeof a->n_phase_status) == 0);
		CHECK_INT(a->n_origin, b->n_origin);
		CHECK_INT(a->n_propagated, b->n_propagated);
		CHECK_BITS(a->max_hash_distance, b->max_hash_distance);
		CHECK_INT(a->max_hash_row, b->max_hash_row);
		CHECK_INT(a->n_tolerated, b->n_tolerated);
		CHECK_INT(a->n_entries[0], b->n_entries[0]);
		CHECK_INT(a->n_entries[1], b->n_entries[1]);
		CHECK_INT(a->overrides_used, b->overrides_used);
		for (int s = 0; s < 2; s++) {
			CHECK_INT(a->n_excluded[s], b->n_excluded[s]);
			for (size_t j = 0; j < a->n_excluded[s] && j < b->n_excluded[s]; j++)
				CHECK_STR(a->excluded[s][j], b->excluded[s][j]);
			check_ref(&a->first_divergence[s], &b->first_divergence[s]);
		}
		CHECK_INT(a->n_unused, b->n_unused);
		for (size_t j = 0; j < a->n_unused && j < b->n_unused; j++) {
			CHECK_STR(a->unused[j].a_key, b->unused[j].a_key);
			CHECK_STR(a->unused[j].b_key, b->unused[j].b_key);
			CHECK_INT(a->unused[j].line, b->unused[j].line);
			CHECK_STR(a->unused[j].reason, b->unused[j].reason);
		}
		for (int s = 0; s < STORE_N_WARN; s++) {
			CHECK_INT(a->n_warnings[s], b->n_warnings[s]);
			for (size_t j = 0; j < a->n_warnings[s] && j < b->n_warnings[s]; j++) {
				const struct store_act_warning *x = &a->warnings[s][j],
				                               *y = &b->warnings[s][j];
				CHECK_STR(x->code, y->code);
				CHECK_INT(x->line, y->line);
				CHECK_STR(x->message, y->message);
				CHECK_STR(x->excerpt, y->excerpt);
			}
		}
	}
}

/* ---- activation ------------------------------------------------------------- */

static const struct store_act_ref NO_REF = {.row = -1};

static char big[100 * 1024 + 1]; /* a 100 KB text */
static char names[2][40][24];    /* excluded ops */
static const char *excl0[40], *excl3[1];

/* The result the test stores: want carries every field a read fills
 * (row references with their stored rows' details). */
static void build_act(struct store_act_result *r, struct store_act_rank *k,
                      struct store_act_reason *x, const struct store_act_ref *fwd,
                      const struct store_act_ref *bwd)
{
	static const char *ops[] = {"aten::add", "aten::matmul", "aten::softmax"};
	static struct store_act_unused unused[2] = {
	        {"layer.0/override", "layer.0/b", 12, "no such key in baseline"},
	        {"", "layer.9", 13, "ambiguous: 2 candidates"},
	};
	static struct store_act_warning wa[2], wb[1], wo[1];
	wa[0] = (struct store_act_warning){"unknown_line", 7, "an unrecognised line", NULL};
	wa[1] = (struct store_act_warning){"long_line", 9, "a long line (ünïcode ✓)", big};
	wb[0] = (struct store_act_warning){"unknown_phase", 0, "Phase: sideways",
	                                   "Phase: sideways"};
	wo[0] = (struct store_act_warning){"override_unused", 3, "1 override unused", ""};
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < 40; i++)
			snprintf(names[s][i], sizeof names[s][i], "op_%d_%s", i, s ? "b" : "a");
	for (int i = 0; i < 40; i++)
		excl0[i] = names[0][i];
	excl3[0] = names[1][0];

	memset(r, 0, sizeof *r);
	r->verdict = MATCHER_VERDICT_FAIL;
	matcher_act_policy_init(&r->policy);
	r->policy.kind = MATCHER_POLICY_TOLERANCE;
	r->policy.max_hash_distance = 0.1; /* not exact in binary: printed and parsed back */
	r->policy.allow_only_ops = ops;
	r->policy.n_allow_only_ops = 3;

	memset(k, 0, 2 * sizeof *k);
	k[0].rank = 0;
	k[0].verdict = MATCHER_VERDICT_FAIL;
	k[0].name_a = "base.log";
	k[0].name_b = "cand.log";
	k[0].reasons_at = 1;
	k[0].n_reasons = 2;
	k[0].n_rows = INT64_MAX;
	for (int i = 0; i < MATCHER_N_STATUS; i++) {
		k[0].n_status[i] = 100 + i;
		k[0].n_phase_status[0][i] = 200 + i;
		k[0].n_phase_status[1][i] = 300 + i;
	}
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		k[0].n_method[i] = 400 + i;
	k[0].n_origin = 3;
	k[0].n_propagated = 4;
	k[0].max_hash_distance = 5e-324;
	k[0].max_hash_row = 7;
	k[0].n_tolerated = 5;
	k[0].n_entries[0] = 1000;
	k[0].n_entries[1] = 1001;
	k[0].excluded[0] = excl0;
	k[0].n_excluded[0] = 40; /* past the arena array's growth steps (8, 16, 32) */
	k[0].overrides_used = 2;
	k[0].unused = unused;
	k[0].n_unused = 2;
	k[0].warnings[STORE_WARN_LOG_A] = wa;
	k[0].n_warnings[STORE_WARN_LOG_A] = 2;
	k[0].warnings[STORE_WARN_OVERRIDES] = wo;
	k[0].n_warnings[STORE_WARN_OVERRIDES] = 1;
	k[0].first_divergence[0] = *fwd;
	k[0].first_divergence[1] = *bwd;

	k[1].rank = 3;
	k[1].verdict = MATCHER_VERDICT_PASS;
	k[1].name_a = "";
	k[1].name_b = "r3 ✓";
	k[1].reasons_at = 3;
	k[1].n_reasons = 1;
	k[1].n_rows = 0;
	k[1].n_status[0] = -1;
	k[1].max_hash_distance = 1e308; /* the largest distance kept */
	k[1].max_hash_row = -1;
	k[1].excluded[1] = excl3;
	k[1].n_excluded[1] = 1;
	k[1].warnings[STORE_WARN_LOG_B] = wb;
	k[1].n_warnings[STORE_WARN_LOG_B] = 1;
	k[1].first_divergence[0] = NO_REF;
	k[1].first_divergence[1] = NO_REF;
	r->ranks = k;
	r->n_ranks = 2;

	memset(x, 0, 4 * sizeof *x);
	x[0] = (struct store_act_reason){.rank = -1,
	                                 .code = "rank_missing",
	                                 .message = "rank 1 is missing",
	                                 .first = NO_REF,
	                                 .first_phase = {NO_REF, NO_REF},
	                                 .max_hash_distance = -1};
	x[1] = (struct store_act_reason){.rank = 0,
	                                 .in_rank = 1,
	                                 .code = "diff_rows",
	                                 .message = "2 rows differ",
	                                 .count = 2,
	                                 .tolerated = INT64_MIN,
	                                 .first = *fwd,
	                                 .first_phase = {*fwd, *bwd},
	                                 .max_hash_distance = 0.25};
	x[2] = (struct store_act_reason){.rank = 0,
	                                 .in_rank = 1,
	                                 .code = "b_only",
	                                 .message = "",
	                                 .count = 1,
	                                 .first = *bwd,
	                                 .first_phase = {NO_REF, *bwd},
	                                 .max_hash_distance = -1};
	x[3] = (struct store_act_reason){.rank = 3,
	                                 .in_rank = 1,
	                                 .code = "excluded",
	                                 .message = "1 op excluded",
	                                 .first = NO_REF,
	                                 .first_phase = {NO_REF, NO_REF},
	                                 .max_hash_distance = 0};
	r->reasons = x;
	r->n_reasons = 4;
}

static void test_act(struct store *st)
{
	memset(big, 'x', sizeof big - 1);
	big[0] = '\'';
	big[1] = '\\';
	int64_t ra = add_run(st, "a", "activation"), rb = add_run(st, "b", "activation");
	int64_t la = add_log(st, ra, 0), lb = add_log(st, rb, 0);
	int64_t ea = add_entry(st, la, 0, "model/layer.1"),
	        eb = add_entry(st, lb, 0, "model/layer.1'");
	int64_t cmp = add_cmp(st, "activation", ra, rb), other = add_cmp(st, "activation", ra, rb);
	CHECK(ea > 0 && eb > 0 && cmp > 0 && other > 0);
	/* rank 0: row 1 a diff (both entries, fuzzy), row 2 b-only (no method) */
	add_row(st, cmp, 0, 1, ea, eb, MATCHER_DIFF, MATCHER_METHOD_FUZZY, MATCHER_FORWARD, 1, 1,
	        0.3333333333333333, -1);
	add_row(st, cmp, 0, 2, 0, eb, MATCHER_B_ONLY, -1, MATCHER_BACKWARD, 0, 0, -1, 2.5e-300);
	struct store_act_ref fwd = {.row = 1,
	                            .a_key = "model/layer.1",
	                            .b_key = "model/layer.1'",
	                            .status = MATCHER_DIFF,
	                            .phase = MATCHER_FORWARD,
	                            .method = MATCHER_METHOD_FUZZY,
	                            .origin = 1,
	                            .shape_differs = 1,
	                            .out_dist = 0.3333333333333333,
	                            .in_dist = -1};
	struct store_act_ref bwd = {.row = 2,
	                            .b_key = "model/layer.1'",
	                            .status = MATCHER_B_ONLY,
	                            .phase = MATCHER_BACKWARD,
	                            .method = MATCHER_METHOD_NONE,
	                            .out_dist = -1,
	                            .in_dist = 2.5e-300};
	struct store_act_result r;
	struct store_act_rank k[2];
	struct store_act_reason x[4];
	build_act(&r, k, x, &fwd, &bwd);

	CHECK_INT(store_act_result_put(st, cmp, &r), 0);
	CHECK_INT(store_in_tx(st), 0); /* its own transaction, committed */

	struct arena a;
	arena_init(&a);
	const struct store_act_result *got = NULL;
	size_t bytes = 0;
	CHECK_INT(store_act_result_read(st, &a, cmp, &got, &bytes), 0);
	check_act(got, &r);
	CHECK_INT(bytes, act_bytes(&r));
	CHECK(bytes > sizeof big - 1);
	/* a comparison without a result: none, nothing counted */
	const struct store_act_result *none = &r;
	size_t b0 = 0;
	CHECK_INT(store_act_result_read(st, &a, other, &none, &b0), 0);
	CHECK(none == NULL);
	CHECK_INT(b0, 0);
	arena_reset(&a);

	struct store_comparison_view v;
	CHECK_INT(store_comparison_get(st, cmp, &v), 0);
	check_act(v.cmp.act, &r);
	store_comparison_view_free(&v);

	/* replaced: a bitwise result, one rank, distances outside [0, 1e308]
	 * stored as none; inside a caller's transaction, rolled back */
	struct store_act_result r2 = r;
	struct store_act_rank k2 = k[1];
	matcher_act_policy_init(&r2.policy);
	r2.verdict = MATCHER_VERDICT_PASS;
	r2.ranks = &k2;
	r2.n_ranks = 1;
	r2.reasons = NULL;
	r2.n_reasons = 0;
	k2.reasons_at = 0;
	k2.n_reasons = 0;
	double odd[] = {NAN, INFINITY, -INFINITY, -0.5, 1.5e308};
	for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
		k2.max_hash_distance = odd[i];
		CHECK_INT(store_act_result_put(st, cmp, &r2), 0);
		k2.max_hash_distance = -1;
		arena_init(&a);
		CHECK_INT(store_act_result_read(st, &a, cmp, &got, NULL), 0);
		check_act(got, &r2);
		arena_reset(&a);
	}
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_act_result_put(st, cmp, &r), 0);
	CHECK_INT(store_in_tx(st), 1);
	CHECK_INT(store_tx_rollback(st), 0);
	arena_init(&a);
	CHECK_INT(store_act_result_read(st, &a, cmp, &got, NULL), 0);
	check_act(got, &r2);
	arena_reset(&a);

	/* a put on a missing comparison fails and leaves nothing behind */
	CHECK_INT(store_act_result_put(st, other + 1000, &r), STORE_ERROR);
	CHECK_INT(store_in_tx(st), 0);
	arena_init(&a);
	CHECK_INT(store_act_result_read(st, &a, other + 1000, &got, NULL), 0);
	CHECK(got == NULL);
	/* a first divergence whose row is not stored is an error, not a guess */
	struct store_act_ref lost = {.row = 99};
	k2.first_divergence[0] = lost;
	CHECK_INT(store_act_result_put(st, other, &r2), 0);
	CHECK_INT(store_act_result_read(st, &a, other, &got, NULL), STORE_ERROR);
	CHECK(strstr(store_errmsg(st), "result row 99 is missing") != NULL);
	CHECK(got == NULL);
	/* cleared */
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_act_result_clear(st, other), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_act_result_read(st, &a, other, &got, NULL), 0);
	CHECK(got == NULL);
	arena_reset(&a);
}

/* ---- training --------------------------------------------------------------- */

static void check_reason(const struct matcher_train_reason *g, const struct matcher_train_reason *w)
{
	CHECK_STR(g->code, w->code);
	CHECK_INT(g->is_error, w->is_error);
	CHECK_STR(g->message, w->message);
	CHECK_STR(g->metric, w->metric);
	CHECK_STR(g->side, w->side);
	CHECK_INT(g->has_step, w->has_step);
	CHECK_INT(g->step, w->step);
	CHECK_INT(g->has_abs, w->has_abs);
	CHECK_BITS(g->abs, w->abs);
	CHECK_STR(g->abs_text, w->abs_text);
	CHECK_INT(g->has_threshold, w->has_threshold);
	CHECK_BITS(g->threshold, w->threshold);
	CHECK_INT(g->has_count, w->has_count);
	CHECK_INT(g->count, w->count);
	CHECK_INT(g->has_line, w->has_line);
	CHECK_INT(g->line, w->line);
}

static void check_metric(const struct matcher_train_metric_result *g,
                         const struct matcher_train_metric_result *w)
{
	CHECK_STR(g->name, w->name);
	CHECK_STR(g->th.metric, w->th.metric);
	CHECK_BITS(g->th.abs, w->th.abs);
	CHECK_BITS(g->th.rel, w->th.rel);
	CHECK_INT(g->th.has_rel, w->th.has_rel);
	CHECK_INT(g->present[0], w->present[0]);
	CHECK_INT(g->present[1], w->present[1]);
	CHECK_INT(g->has_resolution, w->has_resolution);
	CHECK_INT(g->decimals, w->decimals);
	CHECK_BITS(g->resolution, w->resolution);
	CHECK_INT(g->below_resolution, w->below_resolution);
	CHECK_INT(g->n_compared, w->n_compared);
	CHECK_BITS(g->max_abs, w->max_abs);
	CHECK_STR(g->max_abs_text, w->max_abs_text);
	CHECK_BITS(g->mean_abs, w->mean_abs);
	CHECK_BITS(g->max_rel, w->max_rel);
	CHECK_BITS(g->mean_rel, w->mean_rel);
	CHECK_INT(g->has_max_step, w->has_max_step);
	CHECK_INT(g->max_abs_step, w->max_abs_step);
	CHECK_INT(g->has_first_over, w->has_first_over);
	CHECK_INT(g->first_over, w->first_over);
	CHECK_INT(g->n_over, w->n_over);
	for (int i = 0; i < 2; i++) {
		CHECK_INT(g->nan[i], w->nan[i]);
		CHECK_INT(g->inf[i], w->inf[i]);
	}
	CHECK_INT(g->pass, w->pass);
	CHECK_INT(g->not_logged, w->not_logged);
}

static void check_train(const struct store_train_result *g, const struct store_train_result *w)
{
	CHECK(g != NULL);
	if (!g)
		return;
	CHECK_INT(g->verdict, w->verdict);
	CHECK_INT(g->rank, w->rank);
	CHECK_STR(g->policy.name, w->policy.name);
	CHECK_STR(g->policy.base, w->policy.base);
	CHECK_INT(g->policy.min_steps, w->policy.min_steps);
	CHECK_INT(g->policy.allow_warnings, w->policy.allow_warnings);
	CHECK_INT(g->policy.rank, w->policy.rank);
	CHECK_INT(g->policy.n_th, w->policy.n_th);
	for (size_t i = 0; i < g->policy.n_th && i < w->policy.n_th; i++) {
		const struct matcher_train_threshold *a = &g->policy.th[i], *b = &w->policy.th[i];
		CHECK_STR(a->metric, b->metric);
		CHECK_BITS(a->abs, b->abs);
		CHECK_BITS(a->rel, b->rel);
		CHECK_INT(a->has_rel, b->has_rel);
		CHECK_INT(a->if_logged, b->if_logged);
	}
	CHECK_INT(g->n_reasons, w->n_reasons);
	for (size_t i = 0; i < g->n_reasons && i < w->n_reasons; i++)
		check_reason(&g->reasons[i], &w->reasons[i]);
	CHECK_INT(g->n_metrics, w->n_metrics);
	for (size_t i = 0; i < g->n_metrics && i < w->n_metrics; i++)
		check_metric(&g->metrics[i], &w->metrics[i]);
	CHECK_INT(g->n_notes, w->n_notes);
	for (size_t i = 0; i < g->n_notes && i < w->n_notes; i++)
		CHECK_STR(g->notes[i], w->notes[i]);
	CHECK_INT(g->n_common, w->n_common);
	for (int s = 0; s < 2; s++) {
		CHECK_INT(g->n_only[s], w->n_only[s]);
		CHECK_INT(g->n_only_listed[s], w->n_only_listed[s]);
		for (size_t i = 0; i < g->n_only_listed[s] && i < w->n_only_listed[s]; i++)
			CHECK_INT(g->only[s][i], w->only[s][i]);
		CHECK_INT(g->n_warnings[s], w->n_warnings[s]);
		for (size_t i = 0; i < g->n_warnings[s] && i < w->n_warnings[s]; i++) {
			CHECK_STR(g->warnings[s][i].code, w->warnings[s][i].code);
			CHECK_INT(g->warnings[s][i].line, w->warnings[s][i].line);
			CHECK_STR(g->warnings[s][i].message, w->warnings[s][i].message);
			CHECK_STR(g->warnings[s][i].excerpt, w->warnings[s][i].excerpt);
		}
	}
}

static size_t train_bytes(const struct store_train_result *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_reasons; i++)
		n += slen(r->reasons[i].code);
	for (size_t i = 0; i < r->n_notes; i++)
		n += slen(r->notes[i]);
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < r->n_warnings[s]; i++)
			n += slen(r->warnings[s][i].code) + slen(r->warnings[s][i].message) +
			     slen(r->warnings[s][i].excerpt);
	return n;
}

static void test_train(struct store *st)
{
	int64_t ra = add_run(st, "ta", "training"), rb = add_run(st, "tb", "training");
	int64_t cmp = add_cmp(st, "training", ra, rb);
	CHECK(cmp > 0);
	struct store_train_result r;
	memset(&r, 0, sizeof r);
	r.verdict = MATCHER_VERDICT_ERROR;
	r.rank = 2;
	CHECK_INT(matcher_train_policy_preset(&r.policy, "premerge"), 0);
	CHECK_INT(matcher_train_policy_set(&r.policy, "validation/loss", 1e-300, 5e-324, 1), 0);
	r.policy.min_steps = 1L << 40;
	r.policy.allow_warnings = 1;
	r.policy.rank = -1;

	static struct matcher_train_reason x[3];
	memset(x, 0, sizeof x);
	x[0].code = "threshold_exceeded";
	snprintf(x[0].message, sizeof x[0].message, "loss: |diff| 0.5 > 0.001 at step 12 ✓");
	snprintf(x[0].metric, sizeof x[0].metric, "loss");
	x[0].side = "candidate";
	x[0].step = 12;
	x[0].has_step = 1;
	x[0].abs = INFINITY;
	snprintf(x[0].abs_text, sizeof x[0].abs_text, "Inf");
	x[0].has_abs = 1;
	x[0].threshold = 0.001;
	x[0].has_threshold = 1;
	x[0].count = LONG_MAX;
	x[0].has_count = 1;
	x[0].line = 4000000000UL;
	x[0].has_line = 1;
	x[1].code = "warnings";
	x[1].is_error = 1;
	snprintf(x[1].message, sizeof x[1].message, "3 warnings");
	x[1].side = "baseline";
	x[2].code = "nan_inf_mismatch";
	snprintf(x[2].message, sizeof x[2].message, "%s", "'quoted' \\ and \"double\"");
	x[2].abs = NAN; /* has_abs: the text kept, the value NULL, read back NaN */
	snprintf(x[2].abs_text, sizeof x[2].abs_text, "NaN");
	x[2].has_abs = 1;
	r.reasons = x;
	r.n_reasons = 3;

	static struct matcher_train_metric_result m[3];
	memset(m, 0, sizeof m);
	const double vals[][5] = {
	        /* max_abs, mean_abs, max_rel, mean_rel, resolution */
	        {INFINITY, NAN, -INFINITY, DBL_MAX, 1e-7},
	        {5e-324, DBL_MIN, -DBL_MAX, 0.1, 0.30000000000000004},
	        {1.0 / 3.0, -1e-300, 123456789.123456789, 2.2250738585072009e-308, 1e22},
	};
	for (int i = 0; i < 3; i++) {
		snprintf(m[i].name, sizeof m[i].name, "%s",
		         i == 0   ? "loss"
		         : i == 1 ? "grad_norm"
		                  : "lr");
		snprintf(m[i].th.metric, sizeof m[i].th.metric, "%s", m[i].name);
		m[i].th.abs = i == 2 ? NAN : 0.001 * (i + 1);
		m[i].th.has_rel = i != 1;
		m[i].th.rel = m[i].th.has_rel ? (i == 0 ? INFINITY : 1e-12) : 0;
		m[i].present[0] = 1;
		m[i].present[1] = i != 2;
		m[i].has_resolution = i != 1;
		m[i].decimals = m[i].has_resolution ? 7 - i : 0;
		m[i].resolution = m[i].has_resolution ? vals[i][4] : NAN;
		m[i].below_resolution = i == 0;
		m[i].n_compared = (size_t)1 << (40 + i);
		m[i].max_abs = vals[i][0];
		snprintf(m[i].max_abs_text, sizeof m[i].max_abs_text, "%s",
		         i == 0   ? "Inf"
		         : i == 1 ? ""
		                  : "0.333333333333333314829616256247");
		m[i].mean_abs = vals[i][1];
		m[i].max_rel = vals[i][2];
		m[i].mean_rel = vals[i][3];
		m[i].has_max_step = i != 2;
		m[i].max_abs_step = m[i].has_max_step ? -5 + i : 0;
		m[i].has_first_over = i == 0;
		m[i].first_over = i == 0 ? LONG_MIN : 0;
		m[i].n_over = 3;
		m[i].nan[0] = 1;
		m[i].nan[1] = 2;
		m[i].inf[0] = 3;
		m[i].inf[1] = 4;
		m[i].pass = i == 1;
		m[i].not_logged = i == 2;
	}
	r.metrics = m;
	r.n_metrics = 3;
	static const char *notes[] = {"loss: resolution 1e-07", "", "ünïcode ✓ note"};
	r.notes = notes;
	r.n_notes = 3;
	r.n_common = 12345;
	static long only_a[3] = {0, 1, LONG_MAX}, only_b[20];
	for (int i = 0; i < 20; i++)
		only_b[i] = 1000 + i;
	r.only[0] = only_a;
	r.only[1] = only_b;
	r.n_only_listed[0] = 3;
	r.n_only_listed[1] = 20;
	r.n_only[0] = 3;
	r.n_only[1] = 5000000000LL; /* more than listed */
	static struct matcher_warning w0[2], w1[1];
	w0[0] = (struct matcher_warning){"unknown_line", 1, "an unrecognised line", "junk"};
	w0[1] = (struct matcher_warning){"duplicate_step", 0, "step 3 twice", ""};
	w1[0] = (struct matcher_warning){"long_line", 9, "a long line", big};
	r.warnings[0] = w0;
	r.warnings[1] = w1;
	r.n_warnings[0] = 2;
	r.n_warnings[1] = 1;

	CHECK_INT(store_train_result_put(st, cmp, &r), 0);
	struct arena a;
	arena_init(&a);
	const struct store_train_result *got = NULL;
	size_t bytes = 0;
	CHECK_INT(store_train_result_read(st, &a, cmp, &got, &bytes), 0);
	/* what does not survive by design: NaN thresholds/values come back as
	 * NaN (stored NULL); a metric without rel reads rel 0 */
	check_train(got, &r);
	CHECK_INT(bytes, train_bytes(&r));
	arena_reset(&a);
	struct store_comparison_view v;
	CHECK_INT(store_comparison_get(st, cmp, &v), 0);
	check_train(v.cmp.train, &r);
	CHECK(v.cmp.result_json == NULL);
	store_comparison_view_free(&v);

	/* replaced by a smaller result: no leftover rows of the first */
	struct store_train_result r2;
	memset(&r2, 0, sizeof r2);
	r2.verdict = MATCHER_VERDICT_PASS;
	CHECK_INT(matcher_train_policy_preset(&r2.policy, "bitwise"), 0);
	r2.policy.rank = 5;
	CHECK_INT(store_train_result_put(st, cmp, &r2), 0);
	arena_init(&a);
	CHECK_INT(store_train_result_read(st, &a, cmp, &got, NULL), 0);
	check_train(got, &r2);
	/* a missing comparison: refused, nothing stored */
	CHECK_INT(store_train_result_put(st, cmp + 1000, &r), STORE_ERROR);
	CHECK_INT(store_in_tx(st), 0);
	CHECK_INT(store_train_result_read(st, &a, cmp + 1000, &got, NULL), 0);
	CHECK(got == NULL);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_train_result_clear(st, cmp), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_train_result_read(st, &a, cmp, &got, NULL), 0);
	CHECK(got == NULL);
	arena_reset(&a);
}

int main(void)
{
	char target[512], err[256];
	struct store *st = NULL;
	if (storetest_target("results", target, sizeof target) != 0)
		return 1;
	CHECK_INT(store_open(target, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "open: %s\n", err);
		storetest_cleanup("results");
		return check_report();
	}
	test_act(st);
	test_train(st);
	/* a second connection reads what the first stored (prepared slots are
	 * per connection) */
	struct store *st2 = NULL;
	CHECK_INT(store_open(target, &st2, err, sizeof err), 0);
	if (st2) {
		test_train(st2);
		store_close(st2);
	}
	store_close(st);
	storetest_cleanup("results");
	return check_report();
}
