/* comparison_rows.c - what a comparison job writes: its activation result
 * rows (typed, migration 005: codes, distances and per-stat differences,
 * with the two entries referenced by id; on PostgreSQL in batches of
 * array parameters), its training per-step rows, clearing them for a
 * re-run, and deleting a comparison. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arraylit.h"
#include "comparison_int.h"

/* ---- results ------------------------------------------------------------- */

static void bind_num(struct store_q *s, int idx, double v);

/* Run a bound INSERT of a result row or step (the statement is done
 * after); a missing comparison (foreign key) is STORE_NOT_FOUND.  On
 * PostgreSQL the callers checked that it exists first (store_cmp_exists): a
 * failed statement would abort the caller's transaction. */
static int insert_result_row(struct store *st, struct store_q *s, int64_t comparison_id,
                             const char *what)
{
	int rc = store_q_step(s);
	store_q_done(s);
	if (rc < 0 && store_q_fk_violation(st))
		return store_cmp_not_found(st, comparison_id);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, what);
	return 0;
}

/* PostgreSQL: STORE_NOT_FOUND (the caller's transaction still usable)
 * when the comparison the rows would reference is missing. */
static int pg_check_cmp(struct store *st, int64_t id)
{
	return st->backend == STORE_BACKEND_PG ? store_cmp_exists(st, id) : 0;
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

/* Send the batch in lits (n rows); 0 or a STORE_* code. */
static int pg_rows_flush(struct store *st, int64_t comparison_id, int rank, struct buf *lits,
                         size_t n)
{
	struct store_q *s = store_stmt(st, SID_CMP_ROW_INSERT, ROWS_INSERT_PG);
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, comparison_id);
	store_q_bind_i64(s, 2, rank);
	if (arraylit_bind(s, 3, lits, RV_INTS + RV_REALS) < 0) {
		store_q_done(s);
		return store_fail(st, STORE_ERROR, "out of memory");
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
		int bad = 0;
		for (int k = 0; k < RV_INTS; k++)
			bad |= v.null[k] ? arraylit_null(&lits[k]) : arraylit_i64(&lits[k], v.i[k]);
		for (int k = 0; k < RV_REALS; k++)
			bad |= arraylit_num(&lits[RV_INTS + k], v.d[k]);
		if (bad)
			rc = store_fail(st, STORE_ERROR, "out of memory");
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
		if ((rc = store_cmp_exists(st, comparison_id)) < 0)
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

/* SQLite: one step and its cells, a statement each. */
static int lite_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                         const char *const *metrics, const struct matcher_train_row_cell *cells,
                         size_t n)
{
	struct store_q *s = store_stmt(st, SID_CMP_STEP_INSERT,
	                               "INSERT INTO comparison_steps(comparison_id, rank, step) "
	                               "VALUES (?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, comparison_id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, step);
	int rc = insert_result_row(st, s, comparison_id, "storing a comparison step");
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

/* PostgreSQL: the steps and their cells in batches of about CELLS_BATCH
 * cells, one statement each (arraylit.h): the steps' column ?3 and the
 * cells' eleven columns ?4..?14 as array literals. */
#define CELLS_BATCH 8192
#define CELL_COLS   11
/* ...or at this many bytes of literals (a metric's name is repeated in
 * every cell and may be as long as a log line) */
#define CELLS_BATCH_BYTES (4u << 20)
#define STEPS_INSERT_PG                                                                            \
	"WITH s AS (INSERT INTO comparison_steps(comparison_id, rank, step) "                      \
	"SELECT ?1, ?2, unnest(?3::bigint[])) "                                                    \
	"INSERT INTO comparison_step_cells(comparison_id, rank, step, pos, metric, a, b, dec_a, "  \
	"dec_b, abs, rel, abs_text, over) SELECT ?1, ?2, u.* FROM unnest(?4::bigint[], "           \
	"?5::bigint[], ?6::text[], ?7::float8[], ?8::float8[], ?9::bigint[], ?10::bigint[], "      \
	"?11::float8[], ?12::float8[], ?13::text[], ?14::bigint[]) AS u"

/* Append one step's cells to the cell columns col[0..CELL_COLS). */
static int pg_cells_put(struct buf *col, long step, const char *const *metrics,
                        const struct matcher_train_row_cell *cells, size_t n)
{
	int rc = 0;
	for (size_t k = 0; k < n && rc == 0; k++) {
		const struct matcher_train_row_cell *c = &cells[k];
		int both = c->present[0] && c->present[1];
		rc |= arraylit_i64(&col[0], step);
		rc |= arraylit_i64(&col[1], (int64_t)k);
		rc |= arraylit_text(&col[2], metrics[k]);
		rc |= c->present[0] ? arraylit_num(&col[3], c->a) : arraylit_null(&col[3]);
		rc |= c->present[1] ? arraylit_num(&col[4], c->b) : arraylit_null(&col[4]);
		rc |= c->present[0] ? arraylit_i64(&col[5], c->dec_a) : arraylit_null(&col[5]);
		rc |= c->present[1] ? arraylit_i64(&col[6], c->dec_b) : arraylit_null(&col[6]);
		rc |= both ? arraylit_num(&col[7], c->abs) : arraylit_null(&col[7]);
		rc |= both ? arraylit_num(&col[8], c->rel) : arraylit_null(&col[8]);
		rc |= both ? arraylit_text(&col[9], c->abs_text) : arraylit_null(&col[9]);
		rc |= arraylit_i64(&col[10], c->over ? 1 : 0);
	}
	return rc;
}

/* Send the batch: steps in col[0], cells in col[1..]; emptied after. */
static int pg_steps_flush(struct store *st, int64_t comparison_id, int rank, struct buf *col)
{
	struct store_q *s = store_stmt(st, SID_CMP_STEP_INSERT, STEPS_INSERT_PG);
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, comparison_id);
	store_q_bind_i64(s, 2, rank);
	if (arraylit_bind(s, 3, col, 1 + CELL_COLS) < 0) {
		store_q_done(s);
		return store_fail(st, STORE_ERROR, "out of memory");
	}
	return insert_result_row(st, s, comparison_id, "storing comparison steps");
}

static int pg_steps_add(struct store *st, int64_t comparison_id, int rank, const long *steps,
                        size_t n_steps, const char *const *metrics,
                        const struct matcher_train_row_cell *cells, size_t n)
{
	struct buf col[1 + CELL_COLS];
	for (int k = 0; k <= CELL_COLS; k++)
		buf_init(&col[k]);
	int rc = 0;
	size_t in_batch = 0;
	for (size_t i = 0; i < n_steps && rc == 0; i++) {
		if (arraylit_i64(&col[0], steps[i]) < 0 ||
		    pg_cells_put(&col[1], steps[i], metrics, cells ? &cells[i * n] : NULL, n) < 0) {
			rc = store_fail(st, STORE_ERROR, "out of memory");
			break;
		}
		in_batch += n + 1;
		size_t bytes = 0;
		for (int k = 0; k <= CELL_COLS; k++)
			bytes += col[k].len;
		if (in_batch >= CELLS_BATCH || bytes >= CELLS_BATCH_BYTES || i + 1 == n_steps) {
			rc = pg_steps_flush(st, comparison_id, rank, col);
			in_batch = 0;
		}
	}
	for (int k = 0; k <= CELL_COLS; k++)
		buf_reset(&col[k]);
	return rc;
}

int store_comparison_steps_add(struct store *st, int64_t comparison_id, int rank, const long *steps,
                               size_t n_steps, const char *const *metrics,
                               const struct matcher_train_row_cell *cells, size_t n)
{
	int rc;
	if ((rc = pg_check_cmp(st, comparison_id)) < 0)
		return rc;
	if (st->backend == STORE_BACKEND_PG)
		return pg_steps_add(st, comparison_id, rank, steps, n_steps, metrics, cells, n);
	for (size_t i = 0; i < n_steps; i++)
		if ((rc = lite_step_add(st, comparison_id, rank, steps[i], metrics,
		                        cells ? &cells[i * n] : NULL, n)) < 0)
			return rc;
	return 0;
}

int store_comparison_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                              const char *const *metrics,
                              const struct matcher_train_row_cell *cells, size_t n)
{
	return store_comparison_steps_add(st, comparison_id, rank, &step, 1, metrics, cells, n);
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

int store_comparison_delete(struct store *st, int64_t id)
{
	int64_t changed = 0;
	int rc = exec_id(st, SID_CMP_DELETE, "DELETE FROM comparisons WHERE id = ?", id,
	                 "deleting the comparison", &changed);
	if (rc == 0 && changed == 0)
		return store_cmp_not_found(st, id);
	return rc;
}
