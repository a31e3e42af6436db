/* comparisons.c - comparisons as jobs: queue, claim (one atomic UPDATE ...
 * RETURNING, so any number of worker connections can race safely),
 * start-up requeue, finish; their stored result rows and per-step rows
 * with the filters pages use; JSON reads and deletion.
 *
 * Activation result rows are typed (migration 005): codes, distances and
 * per-stat differences, with the two entries referenced by id; reads join
 * the entries back into matcher rows.  Training per-step rows are JSON
 * text written by the worker.
 *
 * One implementation on both engines through the statement layer
 * (stmt.h).  On PostgreSQL (store/BACKENDS.md sections 2, 4, 5): claims
 * hold a lease of the connection's owner (store/pg/jobs.c) and finishes
 * are owner-checked; queueing and finishing wake other daemons (NOTIFY in
 * the same transaction); key filters run in C over keyset chunks
 * (rows_walk); result rows go in batches of array parameters. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store_int.h"

#define NOW      "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"
#define CMP_COLS STORE_CMP_COLS

static int not_found(struct store *st, int64_t id)
{
	return store_fail(st, STORE_NOT_FOUND, "comparison %lld not found", (long long)id);
}

static int cmp_exists(struct store *st, int64_t id);

/* ---- jobs ---------------------------------------------------------------- */

/* The copy of a store_pg_* error into st (they report on the connection's
 * own message buffer); returns rc. */
static int pg_err(struct store *st, int rc)
{
	if (rc < 0)
		snprintf(st->errmsg, sizeof st->errmsg, "%s", store_pg_errmsg(st->pg));
	return rc;
}

/* The lease of this connection's claims (store_set_job_owner), or 60 s. */
static int64_t job_lease_ms(const struct store *st)
{
	return st->lease_ms > 0 ? st->lease_ms : 60000;
}

static pthread_once_t owner_once = PTHREAD_ONCE_INIT;
static char default_owner[128];

static void default_owner_init(void)
{
	char host[64] = "";
	unsigned rnd = 0;
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "host");
	FILE *f = fopen("/dev/urandom", "rb");
	if (!f || fread(&rnd, sizeof rnd, 1, f) != 1)
		rnd = (unsigned)time(NULL) ^ (unsigned)getpid();
	if (f)
		fclose(f);
	snprintf(default_owner, sizeof default_owner, "%s:%ld:%08x", host, (long)getpid(), rnd);
}

/* The owner name of this connection's claims: store_set_job_owner's, else
 * one per process ("host:pid:random", as the daemon names itself), so
 * that a store used without a daemon still claims with a lease. */
static const char *job_owner(struct store *st)
{
	if (st->owner[0])
		return st->owner;
	pthread_once(&owner_once, default_owner_init);
	return default_owner;
}

/* PostgreSQL: wake the other daemons' waiters on ev when the current
 * transaction commits (payload: the comparison id). */
static int notify(struct store *st, enum store_pg_event ev, int64_t id)
{
	if (st->backend != STORE_BACKEND_PG)
		return 0;
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)id);
	return pg_err(st, store_pg_notify(st->pg, ev, buf));
}

int store_comparison_create(struct store *st, int64_t baseline_id, int64_t candidate_id,
                            const char *kind, const char *name, const char *policy_json,
                            const char *overrides_text, int64_t *id)
{
	char kb[16], kc[16];
	int owned = 0, rc;
	int64_t got = 0;
	if (!kind || (strcmp(kind, "activation") != 0 && strcmp(kind, "training") != 0))
		return store_fail(st, STORE_INVALID, "kind must be \"activation\" or \"training\"");
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if ((rc = store_run_kind(st, baseline_id, kb, sizeof kb)) < 0 ||
	    (rc = store_run_kind(st, candidate_id, kc, sizeof kc)) < 0)
		goto done;
	if (strcmp(kb, kind) != 0 || strcmp(kc, kind) != 0) {
		rc = store_fail(
		        st, STORE_INVALID,
		        "a %s comparison needs two %s runs (baseline is %s, candidate is %s)", kind,
		        kind, kb, kc);
		goto done;
	}
	struct store_q *s = store_stmt(
	        st, SID_CMP_INSERT,
	        STORE_SQL_NOW("INSERT INTO comparisons(name, kind, baseline_id, candidate_id, "
	                      "policy, overrides, created_at) VALUES (?, ?, ?, ?, ?, ?, ",
	                      ") RETURNING id"));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_text(s, 1, name ? name : "");
	store_q_bind_text(s, 2, kind);
	store_q_bind_i64(s, 3, baseline_id);
	store_q_bind_i64(s, 4, candidate_id);
	store_q_bind_text(s, 5, policy_json);
	store_q_bind_text(s, 6, overrides_text);
	if ((rc = store_q_run_id(s, &got)) != STORE_Q_ROW) {
		rc = store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "creating the comparison");
		goto done;
	}
	if (id)
		*id = got;
	rc = notify(st, STORE_PG_EV_QUEUED, got);
done:
	return store_tx_end_owned(st, owned, rc);
}

int store_comparison_claim(struct store *st, int64_t *id)
{
	int64_t got = -1;
	int rc;
	if (st->backend == STORE_BACKEND_PG) {
		/* several daemons: SKIP LOCKED, a lease, expired ones taken over */
		rc = store_pg_job_claim(st->pg, job_owner(st), job_lease_ms(st), &got);
		if (rc == STORE_NOT_FOUND)
			return store_fail(st, STORE_NOT_FOUND, "no queued comparison");
		if (rc < 0)
			return pg_err(st, rc);
	} else {
		struct store_q *s = store_stmt(
		        st, SID_CMP_CLAIM,
		        "UPDATE comparisons SET status = 'running', started_at = " NOW
		        " WHERE id = (SELECT id FROM comparisons WHERE status = 'queued' "
		        "ORDER BY id LIMIT 1) RETURNING id");
		if (!s)
			return STORE_ERROR;
		while ((rc = store_q_step(s)) == STORE_Q_ROW)
			got = store_q_col_i64(s, 0);
		store_q_done(s);
		if (rc != STORE_Q_DONE)
			return store_q_fail(st, rc, "claiming a comparison");
		if (got < 0)
			return store_fail(st, STORE_NOT_FOUND, "no queued comparison");
	}
	if (id)
		*id = got;
	return 0;
}

int store_comparisons_requeue_running(struct store *st, int *n)
{
	if (n)
		*n = 0;
	/* PostgreSQL: the running jobs may be other daemons' live ones; an
	 * expired lease makes a job claimable again (BACKENDS.md section 5) */
	if (st->backend == STORE_BACKEND_PG)
		return 0;
	struct store_q *s =
	        store_stmt(st, SID_CMP_REQUEUE,
	                   "UPDATE comparisons SET status = 'queued', started_at = NULL "
	                   "WHERE status = 'running'");
	if (!s)
		return STORE_ERROR;
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "requeueing comparisons");
	if (n)
		*n = (int)changed;
	return 0;
}

int store_comparison_requeue(struct store *st, int64_t id)
{
	if (st->backend == STORE_BACKEND_PG) {
		/* only the lease's owner gives it back; else as on SQLite: 0 when
		 * it is no longer (this worker's) running job, NOT_FOUND if gone */
		int rc = store_pg_job_release(st->pg, id, job_owner(st));
		if (rc == STORE_NOT_FOUND)
			return cmp_exists(st, id);
		return pg_err(st, rc);
	}
	struct store_q *s =
	        store_stmt(st, SID_CMP_REQUEUE_ONE,
	                   "UPDATE comparisons SET status = 'queued', started_at = NULL "
	                   "WHERE id = ? AND status = 'running'");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "requeueing the comparison");
	if (changed == 0)
		return cmp_exists(st, id);
	return 0;
}

static char *col_strdup(struct store_q *s, int col, int *oom)
{
	if (store_q_col_isnull(s, col))
		return NULL;
	char *p = strdup(store_q_col_text(s, col));
	if (!p)
		*oom = 1;
	return p;
}

int store_comparison_job(struct store *st, int64_t id, struct store_comparison_job *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *s =
	        store_stmt(st, SID_CMP_JOB,
	                   "SELECT kind, status, baseline_id, candidate_id, name, policy, "
	                   "overrides FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s), ret = 0, oom = 0;
	if (rc == STORE_Q_ROW) {
		out->id = id;
		snprintf(out->kind, sizeof out->kind, "%s", store_q_col_text(s, 0));
		snprintf(out->status, sizeof out->status, "%s", store_q_col_text(s, 1));
		out->baseline_id = store_q_col_i64(s, 2);
		out->candidate_id = store_q_col_i64(s, 3);
		out->name = col_strdup(s, 4, &oom);
		out->policy_json = col_strdup(s, 5, &oom);
		out->overrides = col_strdup(s, 6, &oom);
		if (oom) {
			store_comparison_job_free(out);
			ret = store_fail(st, STORE_ERROR, "out of memory");
		}
	} else if (rc == STORE_Q_DONE) {
		ret = not_found(st, id);
	} else {
		ret = store_q_fail(st, rc, "reading the comparison");
	}
	store_q_done(s);
	return ret;
}

void store_comparison_job_free(struct store_comparison_job *job)
{
	if (!job)
		return;
	free(job->name);
	free(job->policy_json);
	free(job->overrides);
	job->name = job->policy_json = job->overrides = NULL;
}

int store_comparison_status(struct store *st, int64_t id, char *status_out, size_t cap)
{
	struct store_q *s =
	        store_stmt(st, SID_CMP_STATUS, "SELECT status FROM comparisons WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		if (status_out && cap)
			snprintf(status_out, cap, "%s", store_q_col_text(s, 0));
	} else if (rc == STORE_Q_DONE) {
		ret = not_found(st, id);
	} else {
		ret = store_q_fail(st, rc, "reading the comparison");
	}
	store_q_done(s);
	return ret;
}

int store_run_in_comparison(struct store *st, int64_t run_id, int64_t *cmp_id)
{
	struct store_q *s =
	        store_stmt(st, SID_CMP_RUNREF,
	                   "SELECT id FROM comparisons WHERE baseline_id = ?1 "
	                   "UNION ALL SELECT id FROM comparisons WHERE candidate_id = ?1 "
	                   "LIMIT 1");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int rc = store_q_step(s), ret;
	if (rc == STORE_Q_ROW) {
		if (cmp_id)
			*cmp_id = store_q_col_i64(s, 0);
		ret = 1;
	} else if (rc == STORE_Q_DONE) {
		ret = 0;
	} else {
		ret = store_q_fail(st, rc, "checking comparisons of the run");
	}
	store_q_done(s);
	return ret;
}

/* ---- results ------------------------------------------------------------- */

static void bind_num(struct store_q *s, int idx, double v);

/* Run a bound INSERT of a result row or step (the statement is done
 * after); a missing comparison (foreign key) is STORE_NOT_FOUND.  On
 * PostgreSQL the callers checked that it exists first (cmp_exists): a
 * failed statement would abort the caller's transaction. */
static int insert_result_row(struct store *st, struct store_q *s, int64_t comparison_id,
                             const char *what)
{
	int rc = store_q_step(s);
	store_q_done(s);
	if (rc < 0 && store_q_fk_violation(st))
		return not_found(st, comparison_id);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, what);
	return 0;
}

/* PostgreSQL: STORE_NOT_FOUND (the caller's transaction still usable)
 * when the comparison the rows would reference is missing. */
static int pg_check_cmp(struct store *st, int64_t id)
{
	return st->backend == STORE_BACKEND_PG ? cmp_exists(st, id) : 0;
}

void store_row_rec_from(struct store_row_rec *rec, const struct matcher_row *row)
{
	rec->a_ord = row->a ? (int64_t)row->a->order : -1;
	rec->b_ord = row->b ? (int64_t)row->b->order : -1;
	rec->status = row->status;
	rec->method = row->method;
	rec->phase = row->phase;
	rec->origin = row->origin ? 1 : 0;
	rec->shape_differs = row->a && row->b && row->shape_differs;
	rec->output_hash_distance = row->output_hash_distance;
	rec->input_hash_distance = row->input_hash_distance;
	for (int i = 0; i < MATCHER_N_STATS; i++)
		rec->stat_diff[i] = row->stat_diff[i];
}

int store_log_entry_ids(struct store *st, int64_t log_id, int64_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	struct store_q *s = store_stmt(st, SID_CMP_LOG_EXISTS, "SELECT 1 FROM logs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, log_id);
	int rc = store_q_step(s), ret = 0;
	store_q_done(s);
	if (rc == STORE_Q_DONE)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc != STORE_Q_ROW)
		return store_q_fail(st, rc, "reading the log");
	s = store_stmt(st, SID_CMP_ENTRY_IDS,
	               "SELECT ord, id FROM entries WHERE log_id = ? ORDER BY ord");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, log_id);
	store_q_stream(s); /* every entry of the log: one row in memory at a time */
	size_t cap = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		if ((uint64_t)store_q_col_i64(s, 0) != *n) {
			ret = store_fail(st, STORE_ERROR, "log %lld: entry orders are not 0..n-1",
			                 (long long)log_id);
			break;
		}
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 1024;
			int64_t *nv = realloc(*ids, ncap * sizeof *nv);
			if (!nv) {
				ret = store_fail(st, STORE_ERROR, "out of memory");
				break;
			}
			*ids = nv;
			cap = ncap;
		}
		(*ids)[(*n)++] = store_q_col_i64(s, 1);
	}
	if (ret == 0 && rc < 0)
		ret = store_q_fail(st, rc, "reading entry ids");
	store_q_done(s);
	if (ret < 0) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

/* The values of one comparison_rows row after (comparison_id, rank):
 * idx, a_entry_id, b_entry_id, status, method, phase, origin,
 * shape_differs as integers (null[k]: NULL), then out_dist, in_dist and
 * the stat differences as REALs (NAN: NULL). */
enum { RV_INTS = 8, RV_REALS = 2 + MATCHER_N_STATS };
struct row_vals {
	int64_t i[RV_INTS];
	int null[RV_INTS];
	double d[RV_REALS];
};

/* The entry id of an order (null for -1); -1 when out of range. */
static int entry_id(int64_t ord, const int64_t *ids, size_t n, int64_t *id, int *null)
{
	*null = ord < 0;
	*id = 0;
	if (ord < 0)
		return 0;
	if ((uint64_t)ord >= n)
		return -1;
	*id = ids[ord];
	return 0;
}

/* A distance-like value: itself, or NAN (NULL) when none (< 0 or NaN). */
static double dist_val(double d)
{
	return d >= 0 && !isnan(d) ? d : NAN;
}

/* Row i of rank's records as values; STORE_INVALID (errmsg) when it is
 * not storable. */
static int row_vals(struct store *st, const struct store_row_rec *r, size_t i, int rank,
                    const int64_t *ids_a, size_t n_a, const int64_t *ids_b, size_t n_b,
                    struct row_vals *v)
{
	memset(v, 0, sizeof *v);
	if ((unsigned)r->status >= MATCHER_N_STATUS || (unsigned)r->method > MATCHER_N_METHODS)
		return store_fail(st, STORE_INVALID, "row %zu: bad status or method", i);
	if (entry_id(r->a_ord, ids_a, n_a, &v->i[1], &v->null[1]) < 0 ||
	    entry_id(r->b_ord, ids_b, n_b, &v->i[2], &v->null[2]) < 0)
		return store_fail(st, STORE_INVALID,
		                  "row %zu of rank %d names an entry its log does not have", i,
		                  rank);
	v->i[0] = (int64_t)i;
	v->i[3] = (int)r->status;
	v->i[4] = (int)r->method;
	v->null[4] = r->method == MATCHER_METHOD_NONE;
	v->i[5] = r->phase == MATCHER_BACKWARD;
	v->i[6] = r->origin ? 1 : 0;
	v->i[7] = r->shape_differs ? 1 : 0;
	v->d[0] = dist_val(r->output_hash_distance);
	v->d[1] = dist_val(r->input_hash_distance);
	for (int k = 0; k < MATCHER_N_STATS; k++)
		v->d[2 + k] = dist_val(r->stat_diff[k]);
	return 0;
}

/* PostgreSQL: rows in batches of ROWS_BATCH, one statement each: every
 * column travels as one array literal (?3..?18) that unnest() turns back
 * into rows (a round trip per row took ~3 to 5 s for 43k rows). */
#define ROWS_BATCH 4096
#define ROWS_INSERT_PG                                                                             \
	"INSERT INTO comparison_rows(comparison_id, rank, idx, a_entry_id, b_entry_id, "           \
	"status, method, phase, origin, shape_differs, out_dist, in_dist, d_shape, d_l1, "         \
	"d_l2, d_min, d_max, d_mean) SELECT ?1, ?2, u.* FROM unnest(?3::bigint[], "                \
	"?4::bigint[], ?5::bigint[], ?6::bigint[], ?7::bigint[], ?8::bigint[], ?9::bigint[], "     \
	"?10::bigint[], ?11::float8[], ?12::float8[], ?13::float8[], ?14::float8[], "              \
	"?15::float8[], ?16::float8[], ?17::float8[], ?18::float8[]) AS u "                        \
	"ON CONFLICT DO NOTHING"

/* Append v to the array literal a ("{v,v,...", closed at the flush). */
static int arr_put(struct buf *a, const char *v)
{
	return buf_putc(a, a->len ? ',' : '{') < 0 ? -1 : buf_puts(a, v);
}

/* Send the batch in lits (n rows); 0 or a STORE_* code. */
static int pg_rows_flush(struct store *st, int64_t comparison_id, int rank, struct buf *lits,
                         size_t n)
{
	struct store_q *s = store_stmt(st, SID_CMP_ROW_INSERT, ROWS_INSERT_PG);
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, comparison_id);
	store_q_bind_i64(s, 2, rank);
	for (int k = 0; k < RV_INTS + RV_REALS; k++) {
		if (buf_putc(&lits[k], '}') < 0) {
			store_q_done(s);
			return store_fail(st, STORE_ERROR, "out of memory");
		}
		store_q_bind_text(s, 3 + k, lits[k].data);
		buf_clear(&lits[k]);
	}
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "storing comparison rows");
	if ((size_t)changed != n)
		return store_fail(st, STORE_DUPLICATE,
		                  "storing comparison rows: a row of rank %d was stored before",
		                  rank);
	return 0;
}

static int pg_rows_add(struct store *st, int64_t comparison_id, int rank, const int64_t *ids_a,
                       size_t n_a, const int64_t *ids_b, size_t n_b,
                       const struct store_row_rec *recs, size_t n)
{
	struct buf lits[RV_INTS + RV_REALS];
	for (int k = 0; k < RV_INTS + RV_REALS; k++)
		buf_init(&lits[k]);
	int rc = 0;
	size_t in_batch = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct row_vals v;
		if ((rc = row_vals(st, &recs[i], i, rank, ids_a, n_a, ids_b, n_b, &v)) < 0)
			break;
		char buf[32];
		for (int k = 0; k < RV_INTS + RV_REALS && rc == 0; k++) {
			if (k < RV_INTS ? v.null[k] : isnan(v.d[k - RV_INTS]))
				snprintf(buf, sizeof buf, "NULL");
			else if (k < RV_INTS)
				snprintf(buf, sizeof buf, "%lld", (long long)v.i[k]);
			else if (isinf(v.d[k - RV_INTS]))
				snprintf(buf, sizeof buf, "Infinity"); /* distances are >= 0 */
			else
				snprintf(buf, sizeof buf, "%.17g", v.d[k - RV_INTS]);
			if (arr_put(&lits[k], buf) < 0)
				rc = store_fail(st, STORE_ERROR, "out of memory");
		}
		if (rc == 0 && ++in_batch == ROWS_BATCH) {
			rc = pg_rows_flush(st, comparison_id, rank, lits, in_batch);
			in_batch = 0;
		}
	}
	if (rc == 0 && in_batch)
		rc = pg_rows_flush(st, comparison_id, rank, lits, in_batch);
	for (int k = 0; k < RV_INTS + RV_REALS; k++)
		buf_reset(&lits[k]);
	return rc;
}

int store_comparison_rows_add(struct store *st, int64_t comparison_id, int rank,
                              const int64_t *ids_a, size_t n_a, const int64_t *ids_b, size_t n_b,
                              const struct store_row_rec *recs, size_t n)
{
	int rc;
	if (st->backend == STORE_BACKEND_PG) {
		if ((rc = cmp_exists(st, comparison_id)) < 0)
			return rc;
		return pg_rows_add(st, comparison_id, rank, ids_a, n_a, ids_b, n_b, recs, n);
	}
	struct store_q *s = store_stmt(
	        st, SID_CMP_ROW_INSERT,
	        "INSERT INTO comparison_rows(comparison_id, rank, idx, a_entry_id, b_entry_id, "
	        "status, method, phase, origin, shape_differs, out_dist, in_dist, d_shape, d_l1, "
	        "d_l2, d_min, d_max, d_mean) "
	        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	for (size_t i = 0; i < n; i++) {
		struct row_vals v;
		if ((rc = row_vals(st, &recs[i], i, rank, ids_a, n_a, ids_b, n_b, &v)) < 0)
			return rc;
		store_q_bind_i64(s, 1, comparison_id);
		store_q_bind_i64(s, 2, rank);
		for (int k = 0; k < RV_INTS; k++)
			if (v.null[k])
				store_q_bind_null(s, 3 + k);
			else
				store_q_bind_i64(s, 3 + k, v.i[k]);
		for (int k = 0; k < RV_REALS; k++)
			bind_num(s, 3 + RV_INTS + k, v.d[k]);
		rc = insert_result_row(st, s, comparison_id, "storing a comparison row");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Bind a value that may be NaN (NULL) or infinite (kept). */
static void bind_num(struct store_q *s, int idx, double v)
{
	if (isnan(v))
		store_q_bind_null(s, idx);
	else
		store_q_bind_double(s, idx, v);
}

int store_comparison_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                              const char *const *metrics,
                              const struct matcher_train_row_cell *cells, size_t n)
{
	int rc;
	if ((rc = pg_check_cmp(st, comparison_id)) < 0)
		return rc;
	struct store_q *s = store_stmt(st, SID_CMP_STEP_INSERT,
	                               "INSERT INTO comparison_steps(comparison_id, rank, step) "
	                               "VALUES (?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, comparison_id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, step);
	rc = insert_result_row(st, s, comparison_id, "storing a comparison step");
	if (rc < 0)
		return rc;
	s = store_stmt(st, SID_CMP_CELL_INSERT,
	               "INSERT INTO comparison_step_cells(comparison_id, rank, step, pos, metric, "
	               "a, b, dec_a, dec_b, abs, rel, abs_text, over) "
	               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	for (size_t k = 0; k < n; k++) {
		const struct matcher_train_row_cell *c = &cells[k];
		int both = c->present[0] && c->present[1];
		store_q_bind_i64(s, 1, comparison_id);
		store_q_bind_i64(s, 2, rank);
		store_q_bind_i64(s, 3, step);
		store_q_bind_i64(s, 4, (int64_t)k);
		store_q_bind_text(s, 5, metrics[k]);
		if (c->present[0]) {
			bind_num(s, 6, c->a);
			store_q_bind_i64(s, 8, c->dec_a);
		}
		if (c->present[1]) {
			bind_num(s, 7, c->b);
			store_q_bind_i64(s, 9, c->dec_b);
		}
		if (both) {
			bind_num(s, 10, c->abs);
			bind_num(s, 11, c->rel);
			store_q_bind_text(s, 12, c->abs_text);
		}
		store_q_bind_i64(s, 13, c->over ? 1 : 0);
		if ((rc = insert_result_row(st, s, comparison_id, "storing a comparison step")) < 0)
			return rc;
	}
	return 0;
}

/* Run a statement on one id (?); *changed (may be NULL) = rows changed. */
static int exec_id(struct store *st, enum store_sid sid, const char *sql, int64_t id,
                   const char *what, int64_t *changed)
{
	struct store_q *s = store_stmt(st, sid, sql);
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int64_t ch = 0;
	int rc = store_q_run_changes(s, &ch);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, what);
	if (changed)
		*changed = ch;
	return 0;
}

int store_comparison_rows_clear(struct store *st, int64_t comparison_id)
{
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	rc = exec_id(st, SID_CMP_ROWS_CLEAR, "DELETE FROM comparison_rows WHERE comparison_id = ?",
	             comparison_id, "clearing comparison rows", NULL);
	if (rc == 0)
		rc = exec_id(st, SID_CMP_STEPS_CLEAR,
		             "DELETE FROM comparison_steps WHERE comparison_id = ?", comparison_id,
		             "clearing comparison steps", NULL);
	if (rc == 0)
		rc = exec_id(st, SID_CMP_CELLS_CLEAR,
		             "DELETE FROM comparison_step_cells WHERE comparison_id = ?",
		             comparison_id, "clearing comparison steps", NULL);
	if (rc == 0)
		rc = store_act_result_clear(st, comparison_id);
	if (rc == 0)
		rc = store_train_result_clear(st, comparison_id);
	return store_tx_end_owned(st, owned, rc);
}

/* PostgreSQL: the finish of a job the lease's owner holds.  A job
 * without a lease (never claimed, or requeued) may be finished by anyone,
 * as on SQLite; the finisher's name stays in lease_owner, so that a worker
 * whose lease expired and was taken over (by the one that finished it, or
 * still runs it) writes nothing. */
#define FINISH_SQL_PG                                                                              \
	"UPDATE comparisons SET status = ?1, verdict = ?2, result = ?3, error = ?4, "              \
	"finished_at = " PG_NOW_TEXT ", lease_owner = ?6, lease_until_ms = NULL "                  \
	"WHERE id = ?5 AND (lease_owner IS NULL OR lease_owner = ?6)"

int store_comparison_finish(struct store *st, int64_t id, const char *status, const char *verdict,
                            const char *result_json, const char *error)
{
	int owned = 0, rc;
	if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0))
		return store_fail(st, STORE_INVALID, "status must be \"done\" or \"failed\"");
	/* PostgreSQL: the status and its wake-up commit together */
	if (st->backend == STORE_BACKEND_PG && (rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	struct store_q *s =
	        store_stmt(st, SID_CMP_FINISH,
	                   STORE_SQL("UPDATE comparisons SET status = ?, verdict = ?, result = ?, "
	                             "error = ?, finished_at = " NOW " WHERE id = ?",
	                             FINISH_SQL_PG));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_text(s, 1, status);
	store_q_bind_text(s, 2, verdict);
	store_q_bind_text(s, 3, result_json);
	store_q_bind_text(s, 4, error);
	store_q_bind_i64(s, 5, id);
	if (st->backend == STORE_BACKEND_PG)
		store_q_bind_text(s, 6, job_owner(st));
	int64_t changed = 0;
	rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE) {
		rc = store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "finishing the comparison");
		goto done;
	}
	if (changed == 0) {
		rc = cmp_exists(st, id);
		if (rc == 0)
			rc = store_fail(
			        st, STORE_NOT_FOUND,
			        "comparison %lld: lease lost (another worker holds or finished "
			        "it), result discarded",
			        (long long)id);
		goto done;
	}
	rc = notify(st, STORE_PG_EV_DONE, id);
done:
	return store_tx_end_owned(st, owned, rc);
}

int store_comparison_delete(struct store *st, int64_t id)
{
	int64_t changed = 0;
	int rc = exec_id(st, SID_CMP_DELETE, "DELETE FROM comparisons WHERE id = ?", id,
	                 "deleting the comparison", &changed);
	if (rc == 0 && changed == 0)
		return not_found(st, id);
	return rc;
}

/* ---- comparison views ------------------------------------------------------ */

/* The summary of a run (no logs) in the arena; *out NULL if it is gone. */
int store_run_summary(struct store *st, struct arena *a, int64_t run_id,
                      const struct store_run **out, size_t *bytes)
{
	struct store_q *s =
	        store_stmt(st, SID_CMP_RUN_ROW,
	                   "SELECT id, name, kind, meta, created_at FROM runs WHERE id = ?");
	int rc = 0;
	*out = NULL;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int src = store_q_step(s);
	if (src == STORE_Q_ROW) {
		struct store_run *r = arena_alloc(a, sizeof *r);
		if (!r || store_run_from_cols(a, s, r, bytes) < 0)
			rc = store_fail(st, STORE_ERROR, "out of memory");
		*out = r;
	} else if (src < 0) {
		rc = store_q_fail(st, src, "reading a run of the comparison");
	}
	store_q_done(s);
	return rc;
}

int store_cmp_from_q(struct store *st, struct arena *a, struct store_q *s, int with_result,
                     struct store_comparison *c, size_t *bytes)
{
	int bad = 0;
	memset(c, 0, sizeof *c);
	c->id = store_q_col_i64(s, 0);
	c->name = store_q_col_dup(a, s, 1, bytes, &bad);
	if (!c->name)
		c->name = "";
	snprintf(c->kind, sizeof c->kind, "%s", store_q_col_text(s, 2));
	snprintf(c->status, sizeof c->status, "%s", store_q_col_text(s, 3));
	c->verdict = store_q_col_dup(a, s, 4, bytes, &bad);
	c->baseline_id = store_q_col_i64(s, 5);
	c->candidate_id = store_q_col_i64(s, 6);
	c->policy_json = store_q_col_dup(a, s, 7, bytes, &bad);
	if (with_result)
		c->result_json = store_q_col_dup(a, s, 8, bytes, &bad);
	c->error = store_q_col_dup(a, s, 9, bytes, &bad);
	c->created_at = store_q_col_dup(a, s, 10, bytes, &bad);
	c->started_at = store_q_col_dup(a, s, 11, bytes, &bad);
	c->finished_at = store_q_col_dup(a, s, 12, bytes, &bad);
	c->baseline_name = store_q_col_dup(a, s, 13, bytes, &bad);
	c->suite = store_q_col_dup(a, s, 14, bytes, &bad);
	c->config = store_q_col_dup(a, s, 15, bytes, &bad);
	c->suite_size = store_q_col_int(s, 16);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	int rc = store_run_summary(st, a, c->baseline_id, &c->baseline, bytes);
	if (rc == 0)
		rc = store_run_summary(st, a, c->candidate_id, &c->candidate, bytes);
	return rc;
}

void store_comparison_view_free(struct store_comparison_view *v)
{
	if (!v)
		return;
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

int store_comparison_get(struct store *st, int64_t id, struct store_comparison_view *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *s = store_stmt(st, SID_CMP_GET,
	                               "SELECT " CMP_COLS " FROM comparisons c WHERE c.id = ?");
	size_t bytes = 0;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s);
	if (rc == STORE_Q_ROW)
		rc = store_cmp_from_q(st, &out->arena, s, 1, &out->cmp, &bytes);
	else if (rc == STORE_Q_DONE)
		rc = not_found(st, id);
	else
		rc = store_q_fail(st, rc, "reading the comparison");
	store_q_done(s);
	if (rc == 0 && !strcmp(out->cmp.kind, "activation") && !strcmp(out->cmp.status, "done"))
		rc = store_act_result_read(st, &out->arena, id, &out->cmp.act, &bytes);
	if (rc == 0 && !strcmp(out->cmp.kind, "training") && !strcmp(out->cmp.status, "done")) {
		rc = store_train_result_read(st, &out->arena, id, &out->cmp.train, &bytes);
		if (out->cmp.train)
			out->cmp.result_json = NULL;
	}
	return rc;
}

void store_comparison_page_free(struct store_comparison_page *p)
{
	if (!p)
		return;
	free(p->cmps);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* A list item with its runs (the page counts their bytes too); the
 * result text with with_result, else the first reason (column 17, after
 * STORE_CMP_COLS, of store_comparisons_find). */
static int cmp_add(struct store *st, struct store_q *s, struct store_comparison_page *p,
                   int with_result, size_t *bytes)
{
	struct store_comparison *nv = realloc(p->cmps, (p->n_cmps + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->cmps = nv;
	*bytes += 512;
	struct store_comparison *c = &p->cmps[p->n_cmps++];
	int rc = store_cmp_from_q(st, &p->arena, s, with_result, c, bytes);
	int bad = 0;
	if (rc >= 0 && !with_result)
		c->first_reason = store_q_col_dup(&p->arena, s, 17, bytes, &bad);
	return rc < 0 ? rc : bad ? store_fail(st, STORE_ERROR, "out of memory") : rc;
}

static int cmp_item(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	return cmp_add(st, s, ctx, 0, bytes);
}

int store_comparison_set_labels(struct store *st, int64_t id, const char *baseline_name,
                                const char *suite, const char *config, int suite_size)
{
	struct store_q *s = store_prep_as(st,
	                                  "UPDATE comparisons SET baseline_name = ?, suite = ?, "
	                                  "config = ?, suite_size = ? WHERE id = ?",
	                                  "labelling the comparison");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, baseline_name);
	store_q_bind_text(s, 2, suite);
	store_q_bind_text(s, 3, config);
	if (suite_size > 0)
		store_q_bind_i64(s, 4, suite_size);
	else
		store_q_bind_null(s, 4);
	store_q_bind_i64(s, 5, id);
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "labelling the comparison");
	if (changed == 0)
		return not_found(st, id);
	return 0;
}

int store_cmp_q_item_with_result(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	return cmp_add(st, s, ctx, 1, bytes);
}

void store_cmp_drop(void *ctx)
{
	((struct store_comparison_page *)ctx)->n_cmps--;
}

int store_comparisons_list(struct store *st, int limit, const char *cursor,
                           struct store_comparison_page *out)
{
	return store_comparisons_find(st, NULL, limit, cursor, out);
}

/* A text parameter where PostgreSQL first meets it (IS NULL leaves its
 * type open: "could not determine data type"). */
#define TXT_LITE(p) p
#define TXT_PG(p)   "CAST(" p " AS text)"
/* The list search of store_comparisons_find: ?7 in the comparison's name
 * or its runs' (name, meta commit / branch). */
#define FIND_Q_LITE                                                                                \
	"instr(lower(c.name), lower(?7)) > 0 OR EXISTS (SELECT 1 FROM runs r WHERE r.id IN "       \
	"(c.baseline_id, c.candidate_id) AND " STORE_RUN_MATCHES_Q("r", "?7") ")"
#define FIND_Q_PG                                                                                  \
	"strpos(lower(c.name), lower(?7)) > 0 OR EXISTS (SELECT 1 FROM runs r WHERE r.id IN "      \
	"(c.baseline_id, c.candidate_id) AND " STORE_RUN_MATCHES_Q_PG("r", "?7") ")"
#define FIND_WHERE(d)                                                                              \
	"WHERE c.id < ?1 AND (" TXT_##d(                                                           \
	        "?3") " IS NULL OR c.kind = ?3) "                                                  \
	              "AND (" TXT_##d("?4") " IS NULL OR c.verdict = ?4) "                         \
	                                    "AND (" TXT_##d(                                       \
	                                            "?5") " IS NULL OR c.status = ?5) "            \
	                                                  "AND (?6 = 0 OR c.baseline_id = ?6 OR "  \
	                                                  "c.candidate_id = ?6) "                  \
	                                                  "AND (" TXT_##d(                         \
	                                                          "?7") " IS NULL OR " FIND_Q_##d  \
	        ") "
#define FIND_SQL(d)                                                                                \
	"SELECT " CMP_COLS ", COALESCE((SELECT x.message FROM act_result_reasons x WHERE "         \
	"x.comparison_id = c.id ORDER BY x.seq LIMIT 1), (SELECT y.message FROM "                  \
	"train_result_reasons y WHERE y.comparison_id = c.id ORDER BY y.seq LIMIT 1)) "            \
	"FROM comparisons c " FIND_WHERE(d) "ORDER BY c.id DESC LIMIT ?2"

int store_comparisons_find(struct store *st, const struct store_list_filter *f, int limit,
                           const char *cursor, struct store_comparison_page *out)
{
	static const struct store_list_filter none;
	int64_t before = INT64_MAX;
	int rc;
	memset(out, 0, sizeof *out);
	if (!f)
		f = &none;
	if ((rc = store_cursor_parse(st, cursor, 'c', &before, 1)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = store_stmt(st, SID_CMP_PAGE, STORE_SQL_D(FIND_SQL));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, before);
	store_q_bind_i64(s, 2, limit + 1);
	store_q_bind_text(s, 3, f->kind && f->kind[0] ? f->kind : NULL);
	store_q_bind_text(s, 4, f->verdict && f->verdict[0] ? f->verdict : NULL);
	store_q_bind_text(s, 5, f->status && f->status[0] ? f->status : NULL);
	store_q_bind_i64(s, 6, f->run_id > 0 ? f->run_id : 0);
	store_q_bind_text(s, 7, f->q && f->q[0] ? f->q : NULL);
	static const int keys[] = {0};
	return store_q_page_walk(st, s, limit, 'c', keys, 1, cmp_item, store_cmp_drop, out,
	                         "listing comparisons", out->next_cursor);
}

static int cmp_exists(struct store *st, int64_t id)
{
	char status[16];
	return store_comparison_status(st, id, status, sizeof status);
}

void store_row_page_free(struct store_row_page *p)
{
	if (!p)
		return;
	free(p->rows);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* Bit mask of the names in a comma-separated list (names[i] -> bit i);
 * -1 when list is NULL (any).  Unknown names add no bit. */
static int64_t name_mask(const char *list, const char *const *names, int n)
{
	if (!list)
		return -1;
	int64_t mask = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		for (int i = 0; i < n; i++)
			if (names[i] && strlen(names[i]) == len && !strncmp(p, names[i], len))
				mask |= (int64_t)1 << i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return mask;
}

int store_entry_keep(struct arena *a, struct matcher_entry *e, size_t *bytes)
{
	const char **strs[] = {&e->key, &e->output_hash, &e->input_hashes, &e->input_producers,
	                       &e->location};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		if (!*strs[i])
			continue;
		*bytes += strlen(*strs[i]);
		if (!(*strs[i] = arena_strdup(a, *strs[i])))
			return -1;
	}
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		if (!e->stats[i])
			continue;
		*bytes += strlen(e->stats[i]);
		if (!(e->stats[i] = arena_strdup(a, e->stats[i])))
			return -1;
	}
	return 0;
}

/* A REAL column as a distance: the value, or -1 when NULL. */
static double col_dist(struct store_q *s, int col)
{
	return store_q_col_isnull(s, col) ? -1 : store_q_col_double(s, col);
}

#define ROW_COLS                                                                                   \
	"r.rank, r.idx, r.status, r.method, r.phase, r.origin, r.shape_differs, r.out_dist, "      \
	"r.in_dist, r.d_shape, r.d_l1, r.d_l2, r.d_min, r.d_max, r.d_mean, "
#define ROW_NCOLS 15
/* the key columns of a page row: ea.key and eb.key (STORE_ENTRY_COLS) */
#define ROW_KEY_A (ROW_NCOLS + 2)
#define ROW_KEY_B (ROW_NCOLS + STORE_ENTRY_NCOLS + 2)
/* Rough JSON size of a row beyond its strings (keys, numbers, flags). */
#define ROW_FIXED_BYTES 512

/* Fill one page row from the current result row of s. */
static int page_row(struct store_row_page *p, struct store_q *s, size_t *bytes)
{
	struct store_act_row *r = &p->rows[p->n_rows];
	memset(r, 0, sizeof *r);
	r->rank = store_q_col_int(s, 0);
	r->idx = store_q_col_i64(s, 1);
	r->row.status = (enum matcher_status)store_q_col_int(s, 2);
	r->row.method = store_q_col_isnull(s, 3) ? MATCHER_METHOD_NONE
	                                         : (enum matcher_method)store_q_col_int(s, 3);
	r->row.phase = store_q_col_int(s, 4) ? MATCHER_BACKWARD : MATCHER_FORWARD;
	r->row.origin = store_q_col_int(s, 5);
	r->row.shape_differs = store_q_col_int(s, 6);
	r->row.output_hash_distance = col_dist(s, 7);
	r->row.input_hash_distance = col_dist(s, 8);
	for (int i = 0; i < MATCHER_N_STATS; i++)
		r->row.stat_diff[i] = col_dist(s, 9 + i);
	*bytes = ROW_FIXED_BYTES;
	store_entry_from_cols(s, ROW_NCOLS, &r->a);
	store_entry_from_cols(s, ROW_NCOLS + STORE_ENTRY_NCOLS, &r->b);
	if ((r->a.key && store_entry_keep(&p->arena, &r->a, bytes) < 0) ||
	    (r->b.key && store_entry_keep(&p->arena, &r->b, bytes) < 0))
		return -1;
	/* the array never moves once allocated: these pointers stay valid */
	r->row.a = r->a.key ? &r->a : NULL;
	r->row.b = r->b.key ? &r->b : NULL;
	return 0;
}

/* The filters of a row read (parameters ?1-?7, bound by bind_row_filters),
 * shared by the page and the count so both select the same rows.  BIT(m,
 * v): bit v of mask m is set (PostgreSQL: bigint >> integer, a boolean). */
#define BIT_LITE(m, v) "(" m " >> " v ") & 1"
#define BIT_PG(m, v)   "((" m " >> CAST(" v " AS integer)) & 1) <> 0"
/* a mask parameter (PostgreSQL would type it integer from "< 0") */
#define MASK_LITE(m)   m
#define MASK_PG(m)     "CAST(" m " AS bigint)"
#define ROWS_STATUS(d) "AND (" MASK_##d("?3") " < 0 OR " BIT_##d(MASK_##d("?3"), "r.status") ") "
#define ROWS_METHOD(d)                                                                             \
	"AND (" MASK_##d("?4") " < 0 OR (r.method IS NOT NULL AND " BIT_##d(MASK_##d("?4"),        \
	                                                                    "r.method") ")) "
#define ROWS_WHERE_NOKEY(d)                                                                        \
	"WHERE r.comparison_id = ?1 AND (?2 < 0 OR r.rank = ?2) " ROWS_STATUS(d)                   \
	        ROWS_METHOD(d) "AND (?5 < 0 OR r.phase = ?5) AND (?6 < 0 OR r.origin = ?6) "
/* The key filter: REGEXP on SQLite; on PostgreSQL the keys are tested in
 * C (rows_walk, BACKENDS.md section 2) and ?7 only gets its type here. */
#define ROWS_KEY_LITE "AND (?7 IS NULL OR ea.key REGEXP ?7 OR eb.key REGEXP ?7) "
#define ROWS_KEY_PG   "AND (" TXT_PG("?7") " IS NULL OR TRUE) "
#define ROWS_WHERE(d) ROWS_WHERE_NOKEY(d) ROWS_KEY_##d
/* the rows after the cursor (?8, ?9), in page order, at most ?10 */
#define ROWS_AFTER                                                                                 \
	"AND (r.rank > ?8 OR (r.rank = ?8 AND r.idx > ?9)) ORDER BY r.rank, r.idx LIMIT ?10"
#define ROWS_ENTRIES                                                                               \
	"LEFT JOIN entries ea ON ea.id = r.a_entry_id LEFT JOIN entries eb ON eb.id = "            \
	"r.b_entry_id "
#define ROWS_JOIN "FROM comparison_rows r " ROWS_ENTRIES
/* PostgreSQL (its key filter is in C: no condition on the entries): the
 * rows after the cursor are chosen and limited on comparison_rows alone,
 * then joined to their entries.  The planner cannot be trusted with the
 * joined form: without statistics (a comparison just written, before
 * autovacuum's first ANALYZE) it expects a dozen rows and joins every row
 * of the comparison before its top-N sort, ~50 ms for 8k rows instead of
 * ~0.3 ms.  The cursor is a row comparison, an index range of the
 * primary key (comparison_id, rank, idx). */
#define ROWS_AFTER_PG(cols)                                                                        \
	"SELECT " cols " FROM (SELECT * FROM comparison_rows r " ROWS_WHERE(                       \
	        PG) "AND (r.rank, r.idx) > (?8, ?9) ORDER BY r.rank, r.idx LIMIT ?10) "            \
	            "r " ROWS_ENTRIES "ORDER BY r.rank, r.idx"

struct row_filter {
	int64_t id;
	int rank;
	int64_t status_mask, method_mask;
	int phase, origin;
	const char *regex;
};

/* The filter of a row read (phase already checked, "" taken as NULL). */
static void row_filter_init(struct row_filter *f, int64_t id, int rank, const char *status,
                            const char *method, const char *phase, int origin, const char *regex)
{
	const char *status_names[MATCHER_N_STATUS], *method_names[MATCHER_N_METHODS];
	for (int i = 0; i < MATCHER_N_STATUS; i++)
		status_names[i] = matcher_status_name((enum matcher_status)i);
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		method_names[i] = matcher_method_name((enum matcher_method)i);
	f->id = id;
	f->rank = rank;
	f->status_mask =
	        name_mask(status && *status ? status : NULL, status_names, MATCHER_N_STATUS);
	f->method_mask =
	        name_mask(method && *method ? method : NULL, method_names, MATCHER_N_METHODS);
	f->phase = !phase || !*phase ? -1 : !strcmp(phase, "backward");
	f->origin = origin < 0 ? -1 : (origin ? 1 : 0);
	f->regex = regex;
}

/* Bind ?1-?6 of ROWS_WHERE_NOKEY, and ?7 when the statement has it. */
static void bind_row_filters(struct store_q *s, const struct row_filter *f, int with_key)
{
	store_q_bind_i64(s, 1, f->id);
	store_q_bind_i64(s, 2, f->rank);
	store_q_bind_i64(s, 3, f->status_mask);
	store_q_bind_i64(s, 4, f->method_mask);
	store_q_bind_i64(s, 5, f->phase);
	store_q_bind_i64(s, 6, f->origin);
	if (with_key)
		store_q_bind_text(s, 7, f->regex);
}

/* The key filter in C on one row: key columns ka and kb (NULL: no
 * entry); 1 match, 0 none, -1 stop (store_keymatch_end says why). */
static int row_keys_match(struct store *st, struct store_q *s, int ka, int kb)
{
	const char *k = store_q_col_text(s, ka);
	int m = store_keymatch_key(st, k, k ? store_q_col_bytes(s, ka) : 0);
	if (m == 0) {
		k = store_q_col_text(s, kb);
		m = store_keymatch_key(st, k, k ? store_q_col_bytes(s, kb) : 0);
	}
	return m;
}

/* Rows a PostgreSQL key-filtered read fetches per statement run, at most. */
#define KEY_CHUNK 1000

/* Step s (a row read of f with ?7; with a cursor when cur is non-NULL:
 * ROWS_AFTER with rank and idx in columns 0 and 1, at most limit rows)
 * and call fn for each row that passes.  PostgreSQL with a regex: the
 * SQL has no key condition; the rows are read in keyset chunks from the
 * cursor on, and the keys (columns ka, kb) tested here until fn stops,
 * the rows end or the filter's budget does.  The first chunk is limit
 * rows (what a filter passing every row needs), each next one 4 times
 * the last, up to KEY_CHUNK: a page of 50 costs ~100 rows read, not
 * 1000 (each row brings both entries' columns), while a rare key still
 * scans in few round trips.  limit 0 (a count): KEY_CHUNK from the
 * start.  fn: 0 go on, 1 stop, < 0 a STORE_* code.  0, or a STORE_*
 * code (what in the message). */
static int rows_walk(struct store *st, struct store_q *s, const struct row_filter *f,
                     const int64_t *cur, int64_t limit, int ka, int kb,
                     int (*fn)(struct store_q *s, void *ctx), void *ctx, const char *what)
{
	int in_c = f->regex && st->backend == STORE_BACKEND_PG;
	int64_t at[2] = {cur ? cur[0] : 0, cur ? cur[1] : 0};
	int64_t chunk = limit > 0 && limit < KEY_CHUNK ? limit : KEY_CHUNK;
	for (;;) {
		bind_row_filters(s, f, 1);
		if (cur) {
			store_q_bind_i64(s, 8, at[0]);
			store_q_bind_i64(s, 9, at[1]);
			store_q_bind_i64(s, 10, in_c ? chunk : limit);
		}
		int rc, ret = 0, stop = 0, n = 0;
		while ((rc = store_q_step(s)) == STORE_Q_ROW) {
			n++;
			if (cur) {
				at[0] = store_q_col_i64(s, 0);
				at[1] = store_q_col_i64(s, 1);
			}
			int m = in_c ? row_keys_match(st, s, ka, kb) : 1;
			if (m < 0) {
				ret = STORE_ERROR; /* store_keymatch_end has the reason */
				break;
			}
			if (m == 0)
				continue;
			if ((m = fn(s, ctx)) != 0) {
				ret = m < 0 ? m : 0;
				stop = 1;
				break;
			}
		}
		store_q_done(s);
		if (ret < 0)
			return ret;
		if (rc < 0)
			return store_q_fail(st, rc, what);
		if (!in_c || stop || n < chunk)
			return 0;
		chunk = chunk < KEY_CHUNK / 4 ? chunk * 4 : KEY_CHUNK;
	}
}

static int check_phase(struct store *st, const char *phase)
{
	if (phase && phase[0] && strcmp(phase, "forward") != 0 && strcmp(phase, "backward") != 0)
		return store_fail(st, STORE_INVALID, "phase must be \"forward\" or \"backward\"");
	return 0;
}

static int count_row(struct store_q *s, void *ctx)
{
	(void)s;
	++*(int64_t *)ctx;
	return 0;
}

#define COUNT_KEY_LITE "SELECT 1 " ROWS_JOIN ROWS_WHERE(LITE)
#define COUNT_KEY_PG   ROWS_AFTER_PG("r.rank, r.idx, ea.key, eb.key")
#define COUNT_NOKEY(d) "SELECT count(*) FROM comparison_rows r " ROWS_WHERE_NOKEY(d)

int store_comparison_rows_count(struct store *st, int64_t id, int rank, const char *status,
                                const char *method, const char *phase, int origin,
                                const struct store_key_filter *keys, int64_t *matched, int *partial)
{
	const char *regex = NULL;
	int rc;
	*matched = 0;
	*partial = 0;
	if ((rc = check_phase(st, phase)) < 0)
		return rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	struct row_filter f;
	row_filter_init(&f, id, rank, status, method, phase, origin, regex);
	/* without a regex: count(*) on the rows alone (no entry joins: 43k
	 * rows in ~5 ms instead of ~150); with one: stepped, so a read
	 * stopped by the regex budget still knows how many rows passed */
	if (regex) {
		static const int64_t from[2] = {INT_MIN, -1};
		int pg = st->backend == STORE_BACKEND_PG;
		struct store_q *s =
		        store_stmt(st, SID_CMP_ROWS_COUNT, STORE_SQL(COUNT_KEY_LITE, COUNT_KEY_PG));
		rc = s ? rows_walk(st, s, &f, pg ? from : NULL, 0, 2, 3, count_row, matched,
		                   "counting comparison rows")
		       : STORE_ERROR;
	} else {
		struct store_q *s =
		        store_stmt(st, SID_CMP_ROWS_COUNT_NOKEY, STORE_SQL_D(COUNT_NOKEY));
		if (!s) {
			rc = STORE_ERROR;
			goto done;
		}
		bind_row_filters(s, &f, 0);
		rc = store_q_step(s);
		if (rc == STORE_Q_ROW)
			*matched = store_q_col_i64(s, 0);
		store_q_done(s);
		rc = rc == STORE_Q_ROW ? 0
		                       : store_q_fail(st, rc < 0 ? rc : STORE_ERROR,
		                                      "counting comparison rows");
	}
done:
	rc = store_keymatch_end(st, rc);
	if (rc == STORE_TOO_COSTLY && regex) {
		*partial = 1; /* a lower bound: the budget ran out */
		rc = 0;
	}
	return rc;
}

/* The producer row: the key first (exact), else a row whose output hash
 * list holds the hash; the nearest such row before ?6. */
#define PRODUCER_HAS(d, instr)                                                                     \
	instr "(',' || replace(e.output_hash, ' ', '') || ',', ',' || ?5 || ',') > 0"
#define PRODUCER_HAS_LITE PRODUCER_HAS(LITE, "instr")
#define PRODUCER_HAS_PG   PRODUCER_HAS(PG, "strpos")
#define PRODUCER_IS_LITE  "IS"
#define PRODUCER_IS_PG    "IS NOT DISTINCT FROM"
#define PRODUCER_MATCH(d)                                                                          \
	"AND (e.key = ?4 OR (" TXT_##d("?5") " IS NOT NULL AND " PRODUCER_HAS_##d "))"
#define PRODUCER_SQL(d)                                                                            \
	"SELECT r.idx FROM comparison_rows r JOIN entries e ON e.id = "                            \
	"CASE WHEN ?3 THEN r.b_entry_id ELSE r.a_entry_id END "                                    \
	"WHERE r.comparison_id = ?1 AND r.rank = ?2 AND r.idx < ?6 " PRODUCER_MATCH(               \
	        d) " ORDER BY (e.key " PRODUCER_IS_##d " ?4) DESC, r.idx DESC LIMIT 1"

int store_comparison_row_producer(struct store *st, int64_t id, int rank, int side_b,
                                  const char *key, const char *hash, int64_t before_idx,
                                  int64_t *idx)
{
	int rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	if ((!key || !*key) && (!hash || !*hash))
		return store_fail(st, STORE_INVALID, "give the producer's key or the hash");
	struct store_q *s = store_stmt(st, SID_CMP_ROW_PRODUCER, STORE_SQL_D(PRODUCER_SQL));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, side_b ? 1 : 0);
	store_q_bind_text(s, 4, key && *key ? key : NULL);
	store_q_bind_text(s, 5, hash && *hash ? hash : NULL);
	store_q_bind_i64(s, 6, before_idx < 0 ? INT64_MAX : before_idx);
	rc = store_q_step(s);
	if (rc == STORE_Q_ROW) {
		*idx = store_q_col_i64(s, 0);
		rc = 0;
	} else if (rc == STORE_Q_DONE) {
		rc = store_fail(st, STORE_NOT_FOUND, "no row of rank %d produced that input", rank);
	} else {
		rc = store_q_fail(st, rc, "finding the producer row");
	}
	store_q_done(s);
	return rc;
}

struct page_walk {
	struct store *st;
	struct store_row_page *out;
	int limit;
	int more;
	size_t total;
};

/* rows_walk: one page row; stops past the limit or the byte budget. */
static int page_add(struct store_q *s, void *ctx)
{
	struct page_walk *w = ctx;
	size_t bytes = 0;
	if (w->out->n_rows == (size_t)w->limit) {
		w->more = 1;
		return 1;
	}
	if (page_row(w->out, s, &bytes) < 0)
		return store_fail(w->st, STORE_ERROR, "out of memory");
	if (w->out->n_rows > 0 && w->total + bytes > STORE_PAGE_BYTES) {
		w->more = 1;
		return 1;
	}
	w->total += bytes;
	w->out->n_rows++;
	return 0;
}

#define PAGE_COLS     ROW_COLS STORE_ENTRY_COLS("ea") ", " STORE_ENTRY_COLS("eb")
#define PAGE_SQL_LITE "SELECT " PAGE_COLS " " ROWS_JOIN ROWS_WHERE(LITE) ROWS_AFTER
#define PAGE_SQL_PG   ROWS_AFTER_PG(PAGE_COLS)

int store_comparison_rows_list(struct store *st, int64_t id, int rank, const char *status,
                               const char *method, const char *phase, int origin,
                               const struct store_key_filter *keys, int limit, const char *cursor,
                               struct store_row_page *out)
{
	int64_t cur[2] = {INT_MIN, -1};
	int rc;
	const char *regex = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = check_phase(st, phase)) < 0)
		return rc;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	if ((rc = store_cursor_parse(st, cursor, 'w', cur, 2)) < 0)
		goto done;
	if ((rc = cmp_exists(st, id)) < 0)
		goto done;
	limit = store_clamp_limit(limit);
	struct store_q *s =
	        store_stmt(st, SID_CMP_ROWS_PAGE, STORE_SQL(PAGE_SQL_LITE, PAGE_SQL_PG));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	out->rows = malloc(((size_t)limit + 1) * sizeof *out->rows);
	if (!out->rows) {
		rc = store_fail(st, STORE_ERROR, "out of memory");
		goto done;
	}
	struct row_filter f;
	row_filter_init(&f, id, rank, status, method, phase, origin, regex);
	struct page_walk w = {st, out, limit, 0, 0};
	rc = rows_walk(st, s, &f, cur, limit + 1, ROW_KEY_A, ROW_KEY_B, page_add, &w,
	               "listing comparison rows");
	if (rc == 0 && w.more && out->n_rows) {
		const struct store_act_row *last = &out->rows[out->n_rows - 1];
		snprintf(out->next_cursor, sizeof out->next_cursor, "w%d.%lld", last->rank,
		         (long long)last->idx);
	}
done:
	rc = store_keymatch_end(st, rc);
	if (rc < 0)
		store_row_page_free(out);
	return rc;
}

void store_step_page_free(struct store_step_page *p)
{
	if (!p)
		return;
	free(p->rows);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* A REAL column that may hold NaN (NULL). */
static double col_num(struct store_q *s, int col)
{
	return store_q_col_isnull(s, col) ? NAN : store_q_col_double(s, col);
}

/* Cells per row this page can hold before its arrays grow. */
#define CELLS_GUESS 8
/* Rough JSON size of one cell. */
#define CELL_BYTES 256

/* Read the cells of the page's rows (one range query) into the arena. */
static int page_cells(struct store *st, int64_t id, struct store_step_page *p)
{
	if (!p->n_rows)
		return 0;
	struct store_q *s = store_stmt(
	        st, SID_CMP_CELLS_RANGE,
	        "SELECT rank, step, metric, a, b, dec_a, dec_b, abs, rel, abs_text, over "
	        "FROM comparison_step_cells WHERE comparison_id = ?1 "
	        /* row values: an index range, not a scan from the first step */
	        "AND (rank, step) >= (?2, ?3) AND (rank, step) <= (?4, ?5) "
	        "ORDER BY rank, step, pos");
	if (!s)
		return STORE_ERROR;
	const struct store_step_row *first = &p->rows[0], *last = &p->rows[p->n_rows - 1];
	store_q_bind_i64(s, 1, id);
	store_q_bind_i64(s, 2, first->rank);
	store_q_bind_i64(s, 3, first->step);
	store_q_bind_i64(s, 4, last->rank);
	store_q_bind_i64(s, 5, last->step);
	size_t at = 0, cap = 0;
	int rc, ret = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		int rank = store_q_col_int(s, 0);
		long step = (long)store_q_col_i64(s, 1);
		while (at < p->n_rows && (p->rows[at].rank < rank ||
		                          (p->rows[at].rank == rank && p->rows[at].step < step))) {
			at++;
			cap = 0;
		}
		if (at == p->n_rows)
			break;
		struct store_step_row *r = &p->rows[at];
		if (r->rank != rank || r->step != step)
			continue;
		if (r->n_cells == cap) {
			/* grow by copying into a bigger arena block (old ones stay) */
			size_t ncap = cap ? cap * 2 : CELLS_GUESS;
			struct matcher_train_row_cell *nc =
			        arena_alloc(&p->arena, ncap * sizeof *nc);
			const char **nm = arena_alloc(&p->arena, ncap * sizeof *nm);
			if (!nc || !nm) {
				ret = store_fail(st, STORE_ERROR, "out of memory");
				break;
			}
			if (r->n_cells) {
				memcpy(nc, r->cells, r->n_cells * sizeof *nc);
				memcpy(nm, r->metrics, r->n_cells * sizeof *nm);
			}
			r->cells = nc;
			r->metrics = nm;
			cap = ncap;
		}
		struct matcher_train_row_cell *c = &r->cells[r->n_cells];
		memset(c, 0, sizeof *c);
		c->present[0] = !store_q_col_isnull(s, 5);
		c->present[1] = !store_q_col_isnull(s, 6);
		c->a = c->present[0] ? col_num(s, 3) : 0;
		c->b = c->present[1] ? col_num(s, 4) : 0;
		c->dec_a = store_q_col_int(s, 5);
		c->dec_b = store_q_col_int(s, 6);
		c->abs = c->present[0] && c->present[1] ? col_num(s, 7) : 0;
		c->rel = c->present[0] && c->present[1] ? col_num(s, 8) : 0;
		snprintf(c->abs_text, sizeof c->abs_text, "%s",
		         store_q_col_isnull(s, 9) ? "0" : store_q_col_text(s, 9));
		c->over = store_q_col_int(s, 10);
		const char *name = arena_strdup(&p->arena, store_q_col_text(s, 2));
		if (!name) {
			ret = store_fail(st, STORE_ERROR, "out of memory");
			break;
		}
		r->metrics[r->n_cells++] = name;
	}
	if (ret == 0 && rc < 0)
		ret = store_q_fail(st, rc, "reading comparison steps");
	store_q_done(s);
	return ret;
}

int store_comparison_steps_list(struct store *st, int64_t id, int rank, int limit,
                                const char *cursor, struct store_step_page *out)
{
	int64_t cur[2] = {INT_MIN, LLONG_MIN};
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = store_cursor_parse(st, cursor, 't', cur, 2)) < 0)
		return rc;
	if ((rc = cmp_exists(st, id)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = store_stmt(
	        st, SID_CMP_STEPS_PAGE,
	        "SELECT s.rank, s.step, (SELECT count(*) FROM comparison_step_cells c "
	        "WHERE c.comparison_id = s.comparison_id AND c.rank = s.rank AND c.step = s.step) "
	        "FROM comparison_steps s WHERE s.comparison_id = ?1 AND (?2 < 0 OR s.rank = ?2) "
	        "AND (s.rank, s.step) > (?3, ?4) "
	        "ORDER BY s.rank, s.step LIMIT ?5");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, cur[0]);
	store_q_bind_i64(s, 4, cur[1]);
	store_q_bind_i64(s, 5, limit + 1);
	out->rows = calloc((size_t)limit + 1, sizeof *out->rows);
	if (!out->rows) {
		store_q_done(s);
		return store_fail(st, STORE_ERROR, "out of memory");
	}
	size_t total = 0;
	int more = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		size_t bytes = 64 + CELL_BYTES * (size_t)store_q_col_i64(s, 2);
		if (out->n_rows == (size_t)limit ||
		    (out->n_rows > 0 && total + bytes > STORE_PAGE_BYTES)) {
			more = 1;
			break;
		}
		out->rows[out->n_rows].rank = store_q_col_int(s, 0);
		out->rows[out->n_rows].step = (long)store_q_col_i64(s, 1);
		out->n_rows++;
		total += bytes;
	}
	store_q_done(s);
	if (rc < 0) {
		store_step_page_free(out);
		return store_q_fail(st, rc, "listing comparison steps");
	}
	if ((rc = page_cells(st, id, out)) < 0) {
		store_step_page_free(out);
		return rc;
	}
	if (more && out->n_rows) {
		const struct store_step_row *last = &out->rows[out->n_rows - 1];
		snprintf(out->next_cursor, sizeof out->next_cursor, "t%d.%ld", last->rank,
		         last->step);
	}
	return 0;
}
