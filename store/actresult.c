/* actresult.c - the typed summary of an activation comparison (migration
 * 007): store_act_result_put writes it inside the job's transaction;
 * store_act_result_read (store_comparison_get) reads it back into an
 * arena.  Row references are row indexes; on read each is joined with
 * its stored row and entries (comparison_rows), which hold the keys,
 * status and distances the document shows. */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

sqlite3_stmt *store_result_prep(struct store *st, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK) {
		store_sqlfail(st, rc, "preparing a result statement");
		sqlite3_finalize(s);
		return NULL;
	}
	return s;
}

int store_result_head(struct store *st, struct arena *a, const char *sql, int64_t id,
                      const char *what, size_t sz, sqlite3_stmt **sp, void **obj)
{
	sqlite3_stmt *s = store_result_prep(st, sql);
	*sp = NULL;
	*obj = NULL;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(s);
		return rc == SQLITE_DONE ? 0 : store_sqlfail(st, rc, what);
	}
	if (!(*obj = arena_alloc(a, sz))) {
		sqlite3_finalize(s);
		return store_fail(st, STORE_ERROR, "out of memory");
	}
	memset(*obj, 0, sz);
	*sp = s;
	return 1;
}

static void bind_dist(sqlite3_stmt *s, int i, double d)
{
	if (d >= 0 && d <= 1e308)
		sqlite3_bind_double(s, i, d);
	else
		sqlite3_bind_null(s, i);
}

static void bind_row(sqlite3_stmt *s, int i, const struct store_act_ref *f)
{
	if (f->row >= 0)
		sqlite3_bind_int64(s, i, f->row);
	else
		sqlite3_bind_null(s, i);
}

int store_result_step(struct store *st, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? 0 : store_sqlfail(st, rc, "storing the result");
}

static const char *const clear_sql[] = {
        "DELETE FROM act_results WHERE comparison_id = ?",
        "DELETE FROM act_result_policy_ops WHERE comparison_id = ?",
        "DELETE FROM act_result_ranks WHERE comparison_id = ?",
        "DELETE FROM act_result_reasons WHERE comparison_id = ?",
        "DELETE FROM act_result_excluded WHERE comparison_id = ?",
        "DELETE FROM act_result_unused WHERE comparison_id = ?",
        "DELETE FROM act_result_warnings WHERE comparison_id = ?",
};

int store_act_result_clear(struct store *st, int64_t id)
{
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof clear_sql / sizeof *clear_sql; i++) {
		sqlite3_stmt *s = store_result_prep(st, clear_sql[i]);
		if (!s)
			return STORE_ERROR;
		sqlite3_bind_int64(s, 1, id);
		rc = store_result_step(st, s);
		sqlite3_finalize(s);
	}
	return rc;
}

enum { P_TOP, P_OPS, P_RANK, P_REASON, P_EXCL, P_UNUSED, P_WARN, P_N };
static const char *const put_sql[P_N] = {
        "INSERT INTO act_results VALUES (?1, ?2, ?3, ?4)",
        "INSERT INTO act_result_policy_ops VALUES (?1, ?2, ?3)",
        "INSERT INTO act_result_ranks VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
        "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, "
        "?28, ?29, ?30, ?31, ?32)",
        "INSERT INTO act_result_reasons VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
        "?12)",
        "INSERT INTO act_result_excluded VALUES (?1, ?2, ?3, ?4, ?5)",
        "INSERT INTO act_result_unused VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        "INSERT INTO act_result_warnings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
};

static int put_rank(struct store *st, sqlite3_stmt **p, int64_t id, const struct store_act_rank *k)
{
	sqlite3_stmt *s = p[P_RANK];
	int c = 1, rc;
	sqlite3_bind_int64(s, c++, id);
	sqlite3_bind_int(s, c++, k->rank);
	sqlite3_bind_int(s, c++, (int)k->verdict);
	sqlite3_bind_text(s, c++, k->name_a ? k->name_a : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, k->name_b ? k->name_b : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, c++, k->n_rows);
	for (int i = 0; i < MATCHER_N_STATUS; i++)
		sqlite3_bind_int64(s, c++, k->n_status[i]);
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		sqlite3_bind_int64(s, c++, k->n_method[i]);
	for (int ph = 0; ph < 2; ph++)
		for (int i = 0; i < MATCHER_N_STATUS; i++)
			sqlite3_bind_int64(s, c++, k->n_phase_status[ph][i]);
	sqlite3_bind_int64(s, c++, k->n_origin);
	sqlite3_bind_int64(s, c++, k->n_propagated);
	bind_dist(s, c++, k->max_hash_distance);
	if (k->max_hash_row >= 0)
		sqlite3_bind_int64(s, c, k->max_hash_row);
	c++;
	sqlite3_bind_int64(s, c++, k->n_tolerated);
	sqlite3_bind_int64(s, c++, k->n_entries[0]);
	sqlite3_bind_int64(s, c++, k->n_entries[1]);
	sqlite3_bind_int64(s, c++, k->overrides_used);
	bind_row(s, c++, &k->first_divergence[0]);
	bind_row(s, c++, &k->first_divergence[1]);
	if ((rc = store_result_step(st, s)) != 0)
		return rc;
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < k->n_excluded[side]; i++) {
			s = p[P_EXCL];
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int(s, 2, k->rank);
			sqlite3_bind_int(s, 3, side);
			sqlite3_bind_int64(s, 4, (int64_t)i);
			sqlite3_bind_text(s, 5, k->excluded[side][i], -1, SQLITE_STATIC);
			if ((rc = store_result_step(st, s)) != 0)
				return rc;
		}
	}
	for (size_t i = 0; i < k->n_unused; i++) {
		const struct store_act_unused *u = &k->unused[i];
		s = p[P_UNUSED];
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int(s, 2, k->rank);
		sqlite3_bind_int64(s, 3, (int64_t)i);
		sqlite3_bind_text(s, 4, u->a_key ? u->a_key : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, u->b_key ? u->b_key : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 6, u->line);
		sqlite3_bind_text(s, 7, u->reason ? u->reason : "", -1, SQLITE_STATIC);
		if ((rc = store_result_step(st, s)) != 0)
			return rc;
	}
	for (int src = 0; src < STORE_N_WARN; src++) {
		for (size_t i = 0; i < k->n_warnings[src]; i++) {
			const struct store_act_warning *w = &k->warnings[src][i];
			s = p[P_WARN];
			sqlite3_bind_int64(s, 1, id);
			sqlite3_bind_int(s, 2, k->rank);
			sqlite3_bind_int(s, 3, src);
			sqlite3_bind_int64(s, 4, (int64_t)i);
			sqlite3_bind_text(s, 5, w->code ? w->code : "", -1, SQLITE_STATIC);
			sqlite3_bind_int64(s, 6, w->line);
			sqlite3_bind_text(s, 7, w->message ? w->message : "", -1, SQLITE_STATIC);
			store_bind_text(s, 8, w->excerpt);
			if ((rc = store_result_step(st, s)) != 0)
				return rc;
		}
	}
	return 0;
}

int store_act_result_put(struct store *st, int64_t id, const struct store_act_result *r)
{
	sqlite3_stmt *p[P_N] = {0};
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = store_act_result_clear(st, id);
	for (int i = 0; rc == 0 && i < P_N; i++)
		if (!(p[i] = store_result_prep(st, put_sql[i])))
			rc = STORE_ERROR;
	if (rc == 0) {
		sqlite3_stmt *s = p[P_TOP];
		int tol = r->policy.kind == MATCHER_POLICY_TOLERANCE;
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int(s, 2, (int)r->verdict);
		sqlite3_bind_int(s, 3, tol);
		if (tol)
			bind_dist(s, 4, r->policy.max_hash_distance);
		rc = store_result_step(st, s);
	}
	for (size_t i = 0; rc == 0 && i < r->policy.n_allow_only_ops; i++) {
		sqlite3_stmt *s = p[P_OPS];
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		sqlite3_bind_text(s, 3, r->policy.allow_only_ops[i], -1, SQLITE_STATIC);
		rc = store_result_step(st, s);
	}
	for (size_t i = 0; rc == 0 && i < r->n_ranks; i++)
		rc = put_rank(st, p, id, &r->ranks[i]);
	for (size_t i = 0; rc == 0 && i < r->n_reasons; i++) {
		const struct store_act_reason *x = &r->reasons[i];
		sqlite3_stmt *s = p[P_REASON];
		sqlite3_bind_int64(s, 1, id);
		sqlite3_bind_int64(s, 2, (int64_t)i);
		if (x->rank >= 0)
			sqlite3_bind_int(s, 3, x->rank);
		sqlite3_bind_int(s, 4, x->in_rank ? 1 : 0);
		sqlite3_bind_text(s, 5, x->code ? x->code : "", -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 6, x->message ? x->message : "", -1, SQLITE_STATIC);
		if (x->in_rank) {
			sqlite3_bind_int64(s, 7, x->count);
			sqlite3_bind_int64(s, 8, x->tolerated);
			bind_row(s, 9, &x->first);
			bind_row(s, 10, &x->first_phase[0]);
			bind_row(s, 11, &x->first_phase[1]);
			bind_dist(s, 12, x->max_hash_distance);
		}
		rc = store_result_step(st, s);
	}
	for (int i = 0; i < P_N; i++)
		sqlite3_finalize(p[i]);
	return store_tx_end_owned(st, owned, rc);
}

/* ---- read ------------------------------------------------------------------ */

struct rd {
	struct store *st;
	struct arena *a;
	int64_t id;
	size_t *bytes;
	int bad;
	sqlite3_stmt *ref; /* one row reference */
};

static const char *col_str(struct rd *d, sqlite3_stmt *s, int c)
{
	return store_col_dup(d->a, s, c, d->bytes, &d->bad);
}

static double col_dist(sqlite3_stmt *s, int c)
{
	return sqlite3_column_type(s, c) == SQLITE_NULL ? -1 : sqlite3_column_double(s, c);
}

/* Fill ref from row index column c of s (NULL: none). */
static int load_ref(struct rd *d, int rank, sqlite3_stmt *s, int c, struct store_act_ref *f)
{
	memset(f, 0, sizeof *f);
	f->row = -1;
	if (sqlite3_column_type(s, c) == SQLITE_NULL)
		return 0;
	f->row = sqlite3_column_int64(s, c);
	if (!d->ref &&
	    !(d->ref = store_result_prep(
	              d->st, "SELECT r.status, r.method, r.phase, r.origin, r.shape_differs, "
	                     "r.out_dist, r.in_dist, ea.key, eb.key FROM comparison_rows r "
	                     "LEFT JOIN entries ea ON ea.id = r.a_entry_id "
	                     "LEFT JOIN entries eb ON eb.id = r.b_entry_id "
	                     "WHERE r.comparison_id = ? AND r.rank = ? AND r.idx = ?")))
		return STORE_ERROR;
	sqlite3_stmt *q = d->ref;
	sqlite3_bind_int64(q, 1, d->id);
	sqlite3_bind_int(q, 2, rank);
	sqlite3_bind_int64(q, 3, f->row);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		f->status = (enum matcher_status)sqlite3_column_int(q, 0);
		f->method = sqlite3_column_type(q, 1) == SQLITE_NULL
		                    ? MATCHER_METHOD_NONE
		                    : (enum matcher_method)sqlite3_column_int(q, 1);
		f->phase = (enum matcher_phase)sqlite3_column_int(q, 2);
		f->origin = sqlite3_column_int(q, 3) != 0;
		f->shape_differs = sqlite3_column_int(q, 4) != 0;
		f->out_dist = col_dist(q, 5);
		f->in_dist = col_dist(q, 6);
		f->a_key = col_str(d, q, 7);
		f->b_key = col_str(d, q, 8);
		rc = 0;
	} else if (rc == SQLITE_DONE) {
		rc = store_fail(d->st, STORE_ERROR, "comparison %lld: result row %lld is missing",
		                (long long)d->id, (long long)f->row);
	} else {
		rc = store_sqlfail(d->st, rc, "reading a result row");
	}
	sqlite3_reset(q);
	return rc;
}

/* Per-rank lists: the rank with this number in ranks[0..n). */
static struct store_act_rank *find_rank(struct store_act_rank *ranks, size_t n, int rank)
{
	for (size_t i = 0; i < n; i++)
		if (ranks[i].rank == rank)
			return &ranks[i];
	return NULL;
}

static int read_ranks(struct rd *d, struct store_act_result *r, struct store_act_rank **out)
{
	sqlite3_stmt *s =
	        store_result_prep(d->st, "SELECT * FROM act_result_ranks WHERE comparison_id = ? "
	                                 "ORDER BY rank");
	struct store_act_rank *v = NULL;
	size_t n = 0, cap = 0;
	int rc;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, d->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_act_rank *nv = store_arena_grow(d->a, v, n, &cap, sizeof *v);
		if (!nv) {
			rc = store_fail(d->st, STORE_ERROR, "out of memory");
			break;
		}
		v = nv;
		struct store_act_rank *k = &v[n++];
		memset(k, 0, sizeof *k);
		int c = 1;
		k->rank = sqlite3_column_int(s, c++);
		k->verdict = (enum matcher_verdict)sqlite3_column_int(s, c++);
		k->name_a = col_str(d, s, c++);
		k->name_b = col_str(d, s, c++);
		k->n_rows = sqlite3_column_int64(s, c++);
		for (int i = 0; i < MATCHER_N_STATUS; i++)
			k->n_status[i] = sqlite3_column_int64(s, c++);
		for (int i = 0; i < MATCHER_N_METHODS; i++)
			k->n_method[i] = sqlite3_column_int64(s, c++);
		for (int ph = 0; ph < 2; ph++)
			for (int i = 0; i < MATCHER_N_STATUS; i++)
				k->n_phase_status[ph][i] = sqlite3_column_int64(s, c++);
		k->n_origin = sqlite3_column_int64(s, c++);
		k->n_propagated = sqlite3_column_int64(s, c++);
		k->max_hash_distance = col_dist(s, c++);
		k->max_hash_row =
		        sqlite3_column_type(s, c) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, c);
		c++;
		k->n_tolerated = sqlite3_column_int64(s, c++);
		k->n_entries[0] = sqlite3_column_int64(s, c++);
		k->n_entries[1] = sqlite3_column_int64(s, c++);
		k->overrides_used = sqlite3_column_int64(s, c++);
		if ((rc = load_ref(d, k->rank, s, c++, &k->first_divergence[0])) != 0 ||
		    (rc = load_ref(d, k->rank, s, c++, &k->first_divergence[1])) != 0)
			break;
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = store_sqlfail(d->st, rc, "reading the result ranks");
	sqlite3_finalize(s);
	r->ranks = v;
	r->n_ranks = n;
	*out = v;
	return rc;
}

static int read_reasons(struct rd *d, struct store_act_result *r, struct store_act_rank *ranks)
{
	sqlite3_stmt *s =
	        store_result_prep(d->st, "SELECT seq, rank, in_rank, code, message, count, "
	                                 "tolerated, first_row, first_forward, first_backward, "
	                                 "max_dist FROM act_result_reasons WHERE comparison_id = ? "
	                                 "ORDER BY seq");
	struct store_act_reason *v = NULL;
	size_t n = 0, cap = 0;
	int rc;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, d->id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_act_reason *nv = store_arena_grow(d->a, v, n, &cap, sizeof *v);
		if (!nv) {
			rc = store_fail(d->st, STORE_ERROR, "out of memory");
			break;
		}
		v = nv;
		struct store_act_reason *x = &v[n];
		memset(x, 0, sizeof *x);
		x->rank = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 1);
		x->in_rank = sqlite3_column_int(s, 2) != 0;
		x->code = col_str(d, s, 3);
		x->message = col_str(d, s, 4);
		x->count = sqlite3_column_int64(s, 5);
		x->tolerated = sqlite3_column_int64(s, 6);
		x->max_hash_distance = col_dist(s, 10);
		if ((rc = load_ref(d, x->rank, s, 7, &x->first)) != 0 ||
		    (rc = load_ref(d, x->rank, s, 8, &x->first_phase[0])) != 0 ||
		    (rc = load_ref(d, x->rank, s, 9, &x->first_phase[1])) != 0)
			break;
		struct store_act_rank *k =
		        x->in_rank ? find_rank(ranks, r->n_ranks, x->rank) : NULL;
		if (k) {
			if (!k->n_reasons)
				k->reasons_at = n;
			k->n_reasons++;
		}
		n++;
	}
	if (rc == SQLITE_DONE)
		rc = 0;
	else if (rc > 0)
		rc = store_sqlfail(d->st, rc, "reading the result reasons");
	sqlite3_finalize(s);
	r->reasons = v;
	r->n_reasons = n;
	return rc;
}

/* Excluded ops, unused overrides and warnings: rows ordered by (rank,
 * list, idx), each list one contiguous arena array. */
static int read_lists(struct rd *d, struct store_act_rank *ranks, size_t n_ranks)
{
	static const char *const sql[3] = {
	        "SELECT rank, side, op FROM act_result_excluded WHERE comparison_id = ? "
	        "ORDER BY rank, side, idx",
	        "SELECT rank, 0, a_key, b_key, line, reason FROM act_result_unused "
	        "WHERE comparison_id = ? ORDER BY rank, idx",
	        "SELECT rank, source, code, line, message, excerpt FROM act_result_warnings "
	        "WHERE comparison_id = ? ORDER BY rank, source, idx",
	};
	int rc = 0;
	for (int q = 0; rc == 0 && q < 3; q++) {
		sqlite3_stmt *s = store_result_prep(d->st, sql[q]);
		size_t cap = 0;
		void *cur = NULL;
		int cur_rank = -1, cur_list = -1;
		if (!s)
			return STORE_ERROR;
		sqlite3_bind_int64(s, 1, d->id);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			int rank = sqlite3_column_int(s, 0), list = sqlite3_column_int(s, 1);
			struct store_act_rank *k = find_rank(ranks, n_ranks, rank);
			if (!k || list < 0 || list >= (q == 0 ? 2 : q == 1 ? 1 : STORE_N_WARN))
				continue; /* a list of no rank: nothing shows it */
			if (rank != cur_rank || list != cur_list) {
				cur = NULL;
				cap = 0;
				cur_rank = rank;
				cur_list = list;
			}
			size_t *np = q == 0   ? &k->n_excluded[list]
			             : q == 1 ? &k->n_unused
			                      : &k->n_warnings[list];
			size_t sz = q == 0   ? sizeof(const char *)
			            : q == 1 ? sizeof(struct store_act_unused)
			                     : sizeof(struct store_act_warning);
			void *nv = store_arena_grow(d->a, cur, *np, &cap, sz);
			if (!nv) {
				rc = store_fail(d->st, STORE_ERROR, "out of memory");
				break;
			}
			cur = nv;
			if (q == 0) {
				const char **o = nv;
				o[*np] = col_str(d, s, 2);
				k->excluded[list] = o;
			} else if (q == 1) {
				struct store_act_unused *u = (struct store_act_unused *)nv + *np;
				u->a_key = col_str(d, s, 2);
				u->b_key = col_str(d, s, 3);
				u->line = sqlite3_column_int64(s, 4);
				u->reason = col_str(d, s, 5);
				k->unused = nv;
			} else {
				struct store_act_warning *w = (struct store_act_warning *)nv + *np;
				w->code = col_str(d, s, 2);
				w->line = sqlite3_column_int64(s, 3);
				w->message = col_str(d, s, 4);
				w->excerpt = col_str(d, s, 5);
				k->warnings[list] = nv;
			}
			(*np)++;
		}
		if (rc == SQLITE_DONE)
			rc = 0;
		else if (rc > 0)
			rc = store_sqlfail(d->st, rc, "reading the result lists");
		sqlite3_finalize(s);
	}
	return rc;
}

int store_act_result_read(struct store *st, struct arena *a, int64_t id,
                          const struct store_act_result **out, size_t *bytes)
{
	struct rd d = {st, a, id, bytes, 0, NULL};
	struct store_act_result *r;
	struct store_act_rank *ranks = NULL;
	*out = NULL;
	sqlite3_stmt *s;
	void *obj;
	int rc = store_result_head(st, a,
	                           "SELECT verdict, policy, policy_max_dist FROM act_results "
	                           "WHERE comparison_id = ?",
	                           id, "reading the result", sizeof *r, &s, &obj);
	if (rc <= 0)
		return rc;
	r = obj;
	r->verdict = (enum matcher_verdict)sqlite3_column_int(s, 0);
	matcher_act_policy_init(&r->policy);
	if (sqlite3_column_int(s, 1) == 1) {
		r->policy.kind = MATCHER_POLICY_TOLERANCE;
		r->policy.max_hash_distance = col_dist(s, 2);
	}
	sqlite3_finalize(s);
	rc = 0;
	if (r->policy.kind == MATCHER_POLICY_TOLERANCE) {
		s = store_result_prep(
		        st, "SELECT op FROM act_result_policy_ops WHERE comparison_id = ? "
		            "ORDER BY idx");
		const char **ops = NULL;
		size_t n = 0, cap = 0;
		if (!s)
			return STORE_ERROR;
		sqlite3_bind_int64(s, 1, id);
		while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
			const char **nv = store_arena_grow(a, ops, n, &cap, sizeof *ops);
			if (!nv) {
				rc = store_fail(st, STORE_ERROR, "out of memory");
				break;
			}
			ops = nv;
			ops[n++] = col_str(&d, s, 0);
		}
		rc = rc == SQLITE_DONE ? 0
		     : rc > 0          ? store_sqlfail(st, rc, "reading the policy")
		                       : rc;
		sqlite3_finalize(s);
		r->policy.allow_only_ops = ops;
		r->policy.n_allow_only_ops = n;
	}
	if (rc == 0)
		rc = read_ranks(&d, r, &ranks);
	if (rc == 0)
		rc = read_reasons(&d, r, ranks);
	if (rc == 0)
		rc = read_lists(&d, ranks, r->n_ranks);
	sqlite3_finalize(d.ref);
	if (rc == 0 && d.bad)
		rc = store_fail(st, STORE_ERROR, "out of memory");
	if (rc == 0)
		*out = r;
	return rc;
}
