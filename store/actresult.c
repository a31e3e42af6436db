/* actresult.c - the typed summary of an activation comparison (migration
 * 007): store_act_result_put writes it inside the job's transaction;
 * store_act_result_read (store_comparison_get) reads it back into an
 * arena.  Row references are row indexes; on read each is joined with
 * its stored row and entries (comparison_rows), which hold the keys,
 * status and distances the document shows.  A distance outside
 * [0, 1e308] (none: < 0, NaN, Inf) is stored as NULL and read back as -1.
 * Also the typed results' shared helpers (store_result_*, store_int.h),
 * used by trainresult.c.  Every statement goes through the statement
 * layer (stmt.h), in the cached slot SID_ACT_RESULT + enum act_q, so the
 * same SQL runs on SQLite and PostgreSQL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* ---- shared by the typed results ----------------------------------------- */

int store_result_step(struct store *st, struct store_q *q)
{
	int rc = store_q_step(q);
	store_q_done(q);
	return rc >= 0 ? 0 : store_q_fail(st, rc, "storing the result");
}

int store_result_clear(struct store *st, int sid0, const char *const *tables, size_t n, int64_t id)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char sql[96]; /* the slot's text: only read when it is first prepared */
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE comparison_id = ?", tables[i]);
		struct store_q *q = store_stmt(st, sid0 + (int)i, sql);
		if (!q)
			return STORE_ERROR;
		store_q_bind_i64(q, 1, id);
		rc = store_result_step(st, q);
	}
	return rc;
}

int store_result_rows(struct store_result_rd *d, int sid, const char *sql, const int64_t *arg,
                      const char *what,
                      int (*each)(struct store_result_rd *d, struct store_q *q, void *ctx),
                      void *ctx)
{
	struct store_q *q = store_stmt(d->st, sid, sql);
	int rc, stopped = 0;
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, d->id);
	if (arg)
		store_q_bind_i64(q, 2, *arg);
	while ((rc = store_q_step(q)) == STORE_Q_ROW)
		if ((rc = each(d, q, ctx)) != 0) {
			stopped = 1;
			break;
		}
	store_q_done(q);
	if (rc < 0 && !stopped)
		rc = store_q_fail(d->st, rc, what);
	return rc;
}

struct list_ctx {
	size_t sz, n, cap;
	void *v;
	int (*fill)(struct store_result_rd *d, struct store_q *q, void *e);
};

static int list_each(struct store_result_rd *d, struct store_q *q, void *ctx)
{
	struct list_ctx *l = ctx;
	void *nv = store_arena_grow(d->a, l->v, l->n, &l->cap, l->sz);
	if (!nv)
		return store_fail(d->st, STORE_ERROR, "out of memory");
	l->v = nv;
	char *e = (char *)nv + l->n * l->sz;
	memset(e, 0, l->sz);
	l->n++; /* counted before fill: fill may read the array (rank lookups) */
	return l->fill(d, q, e);
}

int store_result_list(struct store_result_rd *d, int sid, const char *sql, const int64_t *arg,
                      const char *what, size_t sz,
                      int (*fill)(struct store_result_rd *d, struct store_q *q, void *e),
                      void **out, size_t *n)
{
	struct list_ctx l = {sz, 0, 0, NULL, fill};
	int rc = store_result_rows(d, sid, sql, arg, what, list_each, &l);
	*out = l.v;
	*n = l.n;
	return rc;
}

int store_result_head(struct store_result_rd *d, int sid, const char *sql, const char *what,
                      size_t sz, int (*fill)(struct store_result_rd *d, struct store_q *q, void *e),
                      void **obj)
{
	struct store_q *q = store_stmt(d->st, sid, sql);
	int rc;
	*obj = NULL;
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, d->id);
	rc = store_q_step(q);
	if (rc == STORE_Q_ROW) {
		if (!(*obj = arena_alloc(d->a, sz))) {
			rc = store_fail(d->st, STORE_ERROR, "out of memory");
		} else {
			memset(*obj, 0, sz);
			rc = fill(d, q, *obj);
			rc = rc == 0 ? 1 : rc;
		}
	} else if (rc < 0) {
		rc = store_q_fail(d->st, rc, what);
	}
	store_q_done(q);
	if (rc < 0)
		*obj = NULL;
	return rc;
}

/* ---- write ----------------------------------------------------------------- */

/* The statements: slot SID_ACT_RESULT + A_* */
enum act_q {
	A_CLEAR, /* A_CLEAR .. A_CLEAR + N_CLEAR - 1: a DELETE per table */
	A_TOP = A_CLEAR + 7,
	A_OPS,
	A_RANK,
	A_REASON,
	A_EXCL,
	A_UNUSED,
	A_WARN,
	A_HEAD,
	A_POLICY_OPS,
	A_RANKS,
	A_REASONS,
	A_REF,
	A_LIST, /* A_LIST .. A_LIST + 2: list_sql */
	A_N = A_LIST + 3
};
_Static_assert(SID_ACT_RESULT + A_N - 1 == SID_ACT_RESULT_LAST,
               "store_int.h reserves one slot per statement of actresult.c");
#define SID(x) (SID_ACT_RESULT + (x))

static const char *const tables[] = {
        "act_results",         "act_result_policy_ops", "act_result_ranks",    "act_result_reasons",
        "act_result_excluded", "act_result_unused",     "act_result_warnings",
};
#define N_CLEAR (sizeof tables / sizeof *tables)
_Static_assert(N_CLEAR == A_TOP - A_CLEAR, "one clear slot per table");

static void bind_dist(struct store_q *q, int i, double d)
{
	if (d >= 0 && d <= 1e308)
		store_q_bind_double(q, i, d);
	else
		store_q_bind_null(q, i);
}

static void bind_row(struct store_q *q, int i, const struct store_act_ref *f)
{
	if (f->row >= 0)
		store_q_bind_i64(q, i, f->row);
	else
		store_q_bind_null(q, i);
}

/* The slot x (its SQL text sql), NULL with errmsg set. */
static struct store_q *put_q(struct store *st, int x, const char *sql)
{
	return store_stmt(st, SID(x), sql);
}

static int put_rank_row(struct store *st, int64_t id, const struct store_act_rank *k)
{
	struct store_q *q = put_q(
	        st, A_RANK,
	        "INSERT INTO act_result_ranks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	        "?11, "
	        "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, "
	        "?28, ?29, ?30, ?31, ?32)");
	int c = 1;
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, c++, id);
	store_q_bind_i64(q, c++, k->rank);
	store_q_bind_i64(q, c++, (int)k->verdict);
	store_q_bind_text(q, c++, k->name_a ? k->name_a : "");
	store_q_bind_text(q, c++, k->name_b ? k->name_b : "");
	store_q_bind_i64(q, c++, k->n_rows);
	for (int i = 0; i < MATCHER_N_STATUS; i++)
		store_q_bind_i64(q, c++, k->n_status[i]);
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		store_q_bind_i64(q, c++, k->n_method[i]);
	for (int ph = 0; ph < 2; ph++)
		for (int i = 0; i < MATCHER_N_STATUS; i++)
			store_q_bind_i64(q, c++, k->n_phase_status[ph][i]);
	store_q_bind_i64(q, c++, k->n_origin);
	store_q_bind_i64(q, c++, k->n_propagated);
	bind_dist(q, c++, k->max_hash_distance);
	if (k->max_hash_row >= 0)
		store_q_bind_i64(q, c, k->max_hash_row);
	c++;
	store_q_bind_i64(q, c++, k->n_tolerated);
	store_q_bind_i64(q, c++, k->n_entries[0]);
	store_q_bind_i64(q, c++, k->n_entries[1]);
	store_q_bind_i64(q, c++, k->overrides_used);
	bind_row(q, c++, &k->first_divergence[0]);
	bind_row(q, c++, &k->first_divergence[1]);
	return store_result_step(st, q);
}

static int put_rank(struct store *st, int64_t id, const struct store_act_rank *k)
{
	int rc = put_rank_row(st, id, k);
	for (int side = 0; rc == 0 && side < 2; side++) {
		for (size_t i = 0; rc == 0 && i < k->n_excluded[side]; i++) {
			struct store_q *q = put_q(
			        st, A_EXCL,
			        "INSERT INTO act_result_excluded VALUES (?1, ?2, ?3, ?4, ?5)");
			if (!q)
				return STORE_ERROR;
			store_q_bind_i64(q, 1, id);
			store_q_bind_i64(q, 2, k->rank);
			store_q_bind_i64(q, 3, side);
			store_q_bind_i64(q, 4, (int64_t)i);
			store_q_bind_text(q, 5, k->excluded[side][i]);
			rc = store_result_step(st, q);
		}
	}
	for (size_t i = 0; rc == 0 && i < k->n_unused; i++) {
		const struct store_act_unused *u = &k->unused[i];
		struct store_q *q =
		        put_q(st, A_UNUSED,
		              "INSERT INTO act_result_unused VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
		if (!q)
			return STORE_ERROR;
		store_q_bind_i64(q, 1, id);
		store_q_bind_i64(q, 2, k->rank);
		store_q_bind_i64(q, 3, (int64_t)i);
		store_q_bind_text(q, 4, u->a_key ? u->a_key : "");
		store_q_bind_text(q, 5, u->b_key ? u->b_key : "");
		store_q_bind_i64(q, 6, u->line);
		store_q_bind_text(q, 7, u->reason ? u->reason : "");
		rc = store_result_step(st, q);
	}
	for (int src = 0; rc == 0 && src < STORE_N_WARN; src++) {
		for (size_t i = 0; rc == 0 && i < k->n_warnings[src]; i++) {
			const struct store_act_warning *w = &k->warnings[src][i];
			struct store_q *q =
			        put_q(st, A_WARN,
			              "INSERT INTO act_result_warnings VALUES (?1, ?2, ?3, ?4, "
			              "?5, ?6, ?7, ?8)");
			if (!q)
				return STORE_ERROR;
			store_q_bind_i64(q, 1, id);
			store_q_bind_i64(q, 2, k->rank);
			store_q_bind_i64(q, 3, src);
			store_q_bind_i64(q, 4, (int64_t)i);
			store_q_bind_text(q, 5, w->code ? w->code : "");
			store_q_bind_i64(q, 6, w->line);
			store_q_bind_text(q, 7, w->message ? w->message : "");
			store_q_bind_text(q, 8, w->excerpt);
			rc = store_result_step(st, q);
		}
	}
	return rc;
}

static int put_reason(struct store *st, int64_t id, size_t i, const struct store_act_reason *x)
{
	struct store_q *q = put_q(st, A_REASON,
	                          "INSERT INTO act_result_reasons VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	                          "?7, ?8, ?9, ?10, ?11, ?12)");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, id);
	store_q_bind_i64(q, 2, (int64_t)i);
	if (x->rank >= 0)
		store_q_bind_i64(q, 3, x->rank);
	store_q_bind_i64(q, 4, x->in_rank ? 1 : 0);
	store_q_bind_text(q, 5, x->code ? x->code : "");
	store_q_bind_text(q, 6, x->message ? x->message : "");
	if (x->in_rank) {
		store_q_bind_i64(q, 7, x->count);
		store_q_bind_i64(q, 8, x->tolerated);
		bind_row(q, 9, &x->first);
		bind_row(q, 10, &x->first_phase[0]);
		bind_row(q, 11, &x->first_phase[1]);
		bind_dist(q, 12, x->max_hash_distance);
	}
	return store_result_step(st, q);
}

int store_act_result_clear(struct store *st, int64_t id)
{
	return store_result_clear(st, SID(A_CLEAR), tables, N_CLEAR, id);
}

int store_act_result_put(struct store *st, int64_t id, const struct store_act_result *r)
{
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = store_act_result_clear(st, id);
	if (rc == 0) {
		struct store_q *q =
		        put_q(st, A_TOP, "INSERT INTO act_results VALUES (?1, ?2, ?3, ?4)");
		int tol = r->policy.kind == MATCHER_POLICY_TOLERANCE;
		if (!q) {
			rc = STORE_ERROR;
		} else {
			store_q_bind_i64(q, 1, id);
			store_q_bind_i64(q, 2, (int)r->verdict);
			store_q_bind_i64(q, 3, tol);
			if (tol)
				bind_dist(q, 4, r->policy.max_hash_distance);
			rc = store_result_step(st, q);
		}
	}
	for (size_t i = 0; rc == 0 && i < r->policy.n_allow_only_ops; i++) {
		struct store_q *q =
		        put_q(st, A_OPS, "INSERT INTO act_result_policy_ops VALUES (?1, ?2, ?3)");
		if (!q) {
			rc = STORE_ERROR;
			break;
		}
		store_q_bind_i64(q, 1, id);
		store_q_bind_i64(q, 2, (int64_t)i);
		store_q_bind_text(q, 3, r->policy.allow_only_ops[i]);
		rc = store_result_step(st, q);
	}
	for (size_t i = 0; rc == 0 && i < r->n_ranks; i++)
		rc = put_rank(st, id, &r->ranks[i]);
	for (size_t i = 0; rc == 0 && i < r->n_reasons; i++)
		rc = put_reason(st, id, i, &r->reasons[i]);
	return store_tx_end_owned(st, owned, rc);
}

/* ---- read ------------------------------------------------------------------ */

static const char *col_str(struct store_result_rd *d, struct store_q *q, int c)
{
	return store_q_col_dup(d->a, q, c, d->bytes, &d->bad);
}

static double col_dist(struct store_q *q, int c)
{
	return store_q_col_isnull(q, c) ? -1 : store_q_col_double(q, c);
}

/* Fill ref from row index column c of q (NULL: none) of rank. */
static int load_ref(struct store_result_rd *d, int rank, struct store_q *q, int c,
                    struct store_act_ref *f)
{
	memset(f, 0, sizeof *f);
	f->row = -1;
	if (store_q_col_isnull(q, c))
		return 0;
	f->row = store_q_col_i64(q, c);
	struct store_q *r =
	        store_stmt(d->st, SID(A_REF),
	                   "SELECT r.status, r.method, r.phase, r.origin, r.shape_differs, "
	                   "r.out_dist, r.in_dist, ea.key, eb.key FROM comparison_rows r "
	                   "LEFT JOIN entries ea ON ea.id = r.a_entry_id "
	                   "LEFT JOIN entries eb ON eb.id = r.b_entry_id "
	                   "WHERE r.comparison_id = ? AND r.rank = ? AND r.idx = ?");
	if (!r)
		return STORE_ERROR;
	store_q_bind_i64(r, 1, d->id);
	store_q_bind_i64(r, 2, rank);
	store_q_bind_i64(r, 3, f->row);
	int rc = store_q_step(r);
	if (rc == STORE_Q_ROW) {
		f->status = (enum matcher_status)store_q_col_int(r, 0);
		f->method = store_q_col_isnull(r, 1) ? MATCHER_METHOD_NONE
		                                     : (enum matcher_method)store_q_col_int(r, 1);
		f->phase = (enum matcher_phase)store_q_col_int(r, 2);
		f->origin = store_q_col_int(r, 3) != 0;
		f->shape_differs = store_q_col_int(r, 4) != 0;
		f->out_dist = col_dist(r, 5);
		f->in_dist = col_dist(r, 6);
		f->a_key = col_str(d, r, 7);
		f->b_key = col_str(d, r, 8);
		rc = 0;
	} else if (rc == STORE_Q_DONE) {
		rc = store_fail(d->st, STORE_ERROR, "comparison %lld: result row %lld is missing",
		                (long long)d->id, (long long)f->row);
	} else {
		rc = store_q_fail(d->st, rc, "reading a result row");
	}
	store_q_done(r);
	return rc;
}

/* The rank with this number in ranks[0..n). */
static struct store_act_rank *find_rank(struct store_act_rank *ranks, size_t n, int rank)
{
	for (size_t i = 0; i < n; i++)
		if (ranks[i].rank == rank)
			return &ranks[i];
	return NULL;
}

static int fill_head(struct store_result_rd *d, struct store_q *q, void *e)
{
	(void)d;
	struct store_act_result *r = e;
	r->verdict = (enum matcher_verdict)store_q_col_int(q, 0);
	matcher_act_policy_init(&r->policy);
	if (store_q_col_int(q, 1) == 1) {
		r->policy.kind = MATCHER_POLICY_TOLERANCE;
		r->policy.max_hash_distance = col_dist(q, 2);
	}
	return 0;
}

static int fill_op(struct store_result_rd *d, struct store_q *q, void *e)
{
	*(const char **)e = col_str(d, q, 0);
	return 0;
}

static int fill_rank(struct store_result_rd *d, struct store_q *q, void *e)
{
	struct store_act_rank *k = e;
	int c = 1, rc;
	k->rank = store_q_col_int(q, c++);
	k->verdict = (enum matcher_verdict)store_q_col_int(q, c++);
	k->name_a = col_str(d, q, c++);
	k->name_b = col_str(d, q, c++);
	k->n_rows = store_q_col_i64(q, c++);
	for (int i = 0; i < MATCHER_N_STATUS; i++)
		k->n_status[i] = store_q_col_i64(q, c++);
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		k->n_method[i] = store_q_col_i64(q, c++);
	for (int ph = 0; ph < 2; ph++)
		for (int i = 0; i < MATCHER_N_STATUS; i++)
			k->n_phase_status[ph][i] = store_q_col_i64(q, c++);
	k->n_origin = store_q_col_i64(q, c++);
	k->n_propagated = store_q_col_i64(q, c++);
	k->max_hash_distance = col_dist(q, c++);
	k->max_hash_row = store_q_col_isnull(q, c) ? -1 : store_q_col_i64(q, c);
	c++;
	k->n_tolerated = store_q_col_i64(q, c++);
	k->n_entries[0] = store_q_col_i64(q, c++);
	k->n_entries[1] = store_q_col_i64(q, c++);
	k->overrides_used = store_q_col_i64(q, c++);
	if ((rc = load_ref(d, k->rank, q, c++, &k->first_divergence[0])) != 0)
		return rc;
	return load_ref(d, k->rank, q, c, &k->first_divergence[1]);
}

static int fill_reason(struct store_result_rd *d, struct store_q *q, void *e)
{
	struct store_act_reason *x = e;
	int rc;
	x->rank = store_q_col_isnull(q, 1) ? -1 : store_q_col_int(q, 1);
	x->in_rank = store_q_col_int(q, 2) != 0;
	x->code = col_str(d, q, 3);
	x->message = col_str(d, q, 4);
	x->count = store_q_col_i64(q, 5);
	x->tolerated = store_q_col_i64(q, 6);
	x->max_hash_distance = col_dist(q, 10);
	if ((rc = load_ref(d, x->rank, q, 7, &x->first)) != 0 ||
	    (rc = load_ref(d, x->rank, q, 8, &x->first_phase[0])) != 0)
		return rc;
	return load_ref(d, x->rank, q, 9, &x->first_phase[1]);
}

/* Excluded ops, unused overrides and warnings: rows ordered by (rank,
 * list, idx), each (rank, list) one contiguous arena array. */
struct lists_ctx {
	int which; /* 0 excluded, 1 unused, 2 warnings */
	struct store_act_rank *ranks;
	size_t n_ranks, cap;
	void *cur;
	int cur_rank, cur_list;
};

static const char *const list_sql[3] = {
        "SELECT rank, side, op FROM act_result_excluded WHERE comparison_id = ? "
        "ORDER BY rank, side, idx",
        "SELECT rank, 0, a_key, b_key, line, reason FROM act_result_unused "
        "WHERE comparison_id = ? ORDER BY rank, idx",
        "SELECT rank, source, code, line, message, excerpt FROM act_result_warnings "
        "WHERE comparison_id = ? ORDER BY rank, source, idx",
};

static int lists_each(struct store_result_rd *d, struct store_q *q, void *ctx)
{
	struct lists_ctx *l = ctx;
	int rank = store_q_col_int(q, 0), list = store_q_col_int(q, 1), w = l->which;
	struct store_act_rank *k = find_rank(l->ranks, l->n_ranks, rank);
	if (!k || list < 0 || list >= (w == 0 ? 2 : w == 1 ? 1 : STORE_N_WARN))
		return 0; /* a list of no rank: nothing shows it */
	if (rank != l->cur_rank || list != l->cur_list) {
		l->cur = NULL;
		l->cap = 0;
		l->cur_rank = rank;
		l->cur_list = list;
	}
	size_t *np = w == 0 ? &k->n_excluded[list] : w == 1 ? &k->n_unused : &k->n_warnings[list];
	size_t sz = w == 0   ? sizeof(const char *)
	            : w == 1 ? sizeof(struct store_act_unused)
	                     : sizeof(struct store_act_warning);
	void *nv = store_arena_grow(d->a, l->cur, *np, &l->cap, sz);
	if (!nv)
		return store_fail(d->st, STORE_ERROR, "out of memory");
	l->cur = nv;
	if (w == 0) {
		const char **o = nv;
		o[*np] = col_str(d, q, 2);
		k->excluded[list] = o;
	} else if (w == 1) {
		struct store_act_unused *u = (struct store_act_unused *)nv + *np;
		u->a_key = col_str(d, q, 2);
		u->b_key = col_str(d, q, 3);
		u->line = store_q_col_i64(q, 4);
		u->reason = col_str(d, q, 5);
		k->unused = nv;
	} else {
		struct store_act_warning *x = (struct store_act_warning *)nv + *np;
		x->code = col_str(d, q, 2);
		x->line = store_q_col_i64(q, 3);
		x->message = col_str(d, q, 4);
		x->excerpt = col_str(d, q, 5);
		k->warnings[list] = nv;
	}
	(*np)++;
	return 0;
}

static int read_body(struct store_result_rd *d, struct store_act_result *r)
{
	void *v;
	size_t n;
	int rc = 0;
	if (r->policy.kind == MATCHER_POLICY_TOLERANCE) {
		rc = store_result_list(
		        d, SID(A_POLICY_OPS),
		        "SELECT op FROM act_result_policy_ops WHERE comparison_id = ? "
		        "ORDER BY idx",
		        NULL, "reading the policy", sizeof(const char *), fill_op, &v, &n);
		r->policy.allow_only_ops = v;
		r->policy.n_allow_only_ops = n;
	}
	if (rc == 0) {
		rc = store_result_list(d, SID(A_RANKS),
		                       "SELECT * FROM act_result_ranks WHERE comparison_id = ? "
		                       "ORDER BY rank",
		                       NULL, "reading the result ranks", sizeof *r->ranks,
		                       fill_rank, &v, &r->n_ranks);
		r->ranks = v;
	}
	if (rc == 0) {
		rc = store_result_list(
		        d, SID(A_REASONS),
		        "SELECT seq, rank, in_rank, code, message, count, tolerated, "
		        "first_row, first_forward, first_backward, max_dist FROM "
		        "act_result_reasons WHERE comparison_id = ? ORDER BY seq",
		        NULL, "reading the result reasons", sizeof *r->reasons, fill_reason, &v,
		        &r->n_reasons);
		r->reasons = v;
	}
	struct store_act_rank *ranks = (struct store_act_rank *)r->ranks;
	for (size_t i = 0; rc == 0 && i < r->n_reasons; i++) {
		const struct store_act_reason *x = &r->reasons[i];
		struct store_act_rank *k =
		        x->in_rank ? find_rank(ranks, r->n_ranks, x->rank) : NULL;
		if (k) {
			if (!k->n_reasons)
				k->reasons_at = i;
			k->n_reasons++;
		}
	}
	for (int w = 0; rc == 0 && w < 3; w++) {
		struct lists_ctx l = {w, ranks, r->n_ranks, 0, NULL, -1, -1};
		rc = store_result_rows(d, SID(A_LIST + w), list_sql[w], NULL,
		                       "reading the result lists", lists_each, &l);
	}
	return rc;
}

int store_act_result_read(struct store *st, struct arena *a, int64_t id,
                          const struct store_act_result **out, size_t *bytes)
{
	struct store_result_rd d = {st, a, id, bytes, 0};
	void *obj;
	*out = NULL;
	int rc = store_result_head(&d, SID(A_HEAD),
	                           "SELECT verdict, policy, policy_max_dist FROM act_results "
	                           "WHERE comparison_id = ?",
	                           "reading the result", sizeof(struct store_act_result), fill_head,
	                           &obj);
	if (rc <= 0)
		return rc;
	rc = read_body(&d, obj);
	if (rc == 0 && d.bad)
		rc = store_fail(st, STORE_ERROR, "out of memory");
	if (rc == 0)
		*out = obj;
	return rc;
}
