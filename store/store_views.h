/* store_views.h - typed views the pages, reports, mail and CSVs render
 * (included by store.h; kept apart from the per-resource verbs).
 *
 * The typed rule (issue 24): the store fills structs, web/ renders them,
 * and JSON is written only at the API and webhook edge (web/json_*.c).
 * A training comparison's page, report, PDF, mail and steps.csv are all
 * drawn from struct store_comparison (its train result) and the per-step
 * rows below; the views here only gather what the per-resource verbs
 * return (no SQL of their own), so every backend serves them. */
#ifndef PARITY_STORE_VIEWS_H
#define PARITY_STORE_VIEWS_H

#include <stddef.h>
#include <stdint.h>

struct store;
struct store_step_row;
struct store_step_page;
struct matcher_train_row_cell;

/* Every per-step row of one rank (-1 all) of a training comparison in
 * (rank, step) order, read page by page (store_comparison_steps_list)
 * until the last page or at least max rows (0: no bound; the page that
 * crosses max is kept whole).  rows[0..n) point into the pages, which
 * the view owns until store_step_rows_free. */
struct store_step_rows {
	const struct store_step_row *rows;
	size_t n;
	int more; /* 1: rows were left unread (max reached) */
	struct store_step_page *pages;
	size_t n_pages;
};
/* 0 or a STORE_* code (out zeroed first; free it whatever the result). */
int store_comparison_steps_all(struct store *st, int64_t id, int rank, size_t max,
                               struct store_step_rows *out);
void store_step_rows_free(struct store_step_rows *v);
/* The cell of metric name in a per-step row, or NULL when the row has
 * none; hint: its usual position (the result's metric index), tried
 * first.  Borrowed from the row. */
const struct matcher_train_row_cell *store_step_row_cell(const struct store_step_row *row,
                                                         const char *name, size_t hint);

#endif
