/* comparison_steps.c - a training comparison's per-step rows read back,
 * with each step's metric cells, a page at a time. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comparison_int.h"

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

/* Read the cells of the page's rows rows[from, to), all of one rank (one
 * range query), into the arena.  One rank a query: the range is then an
 * equality and a step range, which bounds the index scan at both ends on
 * both engines.  A row-value range "(rank, step) <= (?, ?)" does not on
 * PostgreSQL 15: it ends the scan on its first column only, so each page
 * read every later step of the rank (20-40 ms a page of a 20k-step
 * comparison, 3 s for its page against 0.4 s on SQLite). */
static int rank_cells(struct store *st, int64_t id, struct store_step_page *p, size_t from,
                      size_t to)
{
	struct store_q *s = store_stmt(
	        st, SID_CMP_CELLS_RANGE,
	        "SELECT rank, step, metric, a, b, dec_a, dec_b, abs, rel, abs_text, over "
	        "FROM comparison_step_cells WHERE comparison_id = ?1 AND rank = ?2 "
	        "AND step >= ?3 AND step <= ?4 ORDER BY step, pos");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	store_q_bind_i64(s, 2, p->rows[from].rank);
	store_q_bind_i64(s, 3, p->rows[from].step);
	store_q_bind_i64(s, 4, p->rows[to - 1].step);
	size_t at = from, cap = 0;
	int rc, ret = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		int rank = store_q_col_int(s, 0);
		long step = (long)store_q_col_i64(s, 1);
		while (at < to && (p->rows[at].rank < rank ||
		                   (p->rows[at].rank == rank && p->rows[at].step < step))) {
			at++;
			cap = 0;
		}
		if (at == to)
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

/* Read the cells of the page's rows into the arena, a query per rank. */
static int page_cells(struct store *st, int64_t id, struct store_step_page *p)
{
	int rc = 0;
	for (size_t from = 0, to; from < p->n_rows && rc == 0; from = to) {
		for (to = from + 1; to < p->n_rows && p->rows[to].rank == p->rows[from].rank; to++)
			;
		rc = rank_cells(st, id, p, from, to);
	}
	return rc;
}

int store_comparison_steps_list(struct store *st, int64_t id, int rank, int limit,
                                const char *cursor, struct store_step_page *out)
{
	int64_t cur[2] = {INT_MIN, LLONG_MIN};
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = store_cursor_parse(st, cursor, 't', cur, 2)) < 0)
		return rc;
	if ((rc = store_cmp_exists(st, id)) < 0)
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
