/* test_store_views.c - the typed views of store/store_views.h on both
 * backends: every per-step row of a training comparison gathered across
 * pages in (rank, step) order (one rank or all, bounded by max with the
 * crossing page kept whole), the cells read back as stored, and the cell
 * lookup by metric name. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "storetest.h"

static void test_steps_all(struct store *st)
{
	int64_t t, c, id;
	const char *metrics[] = {"loss", "grad_norm"};
	struct store_step_rows v;

	CHECK_INT(store_run_create(st, "t", "training", NULL, &t), 0);
	CHECK_INT(store_comparison_create(st, t, t, "training", NULL, NULL, NULL, &c), 0);
	CHECK_INT(store_comparison_claim(st, &id), 0);
	CHECK_INT(id, c);
	CHECK_INT(store_tx_begin(st), 0);
	for (long s = 1; s <= 2500; s++) {
		struct matcher_train_row_cell cells[2];
		memset(cells, 0, sizeof cells);
		cells[0] = (struct matcher_train_row_cell){
		        {1, 1}, 1.0, 1.0 + s / 1e4, 1, 4, s / 1e4, s / 1e4, "", s % 7 == 0};
		snprintf(cells[0].abs_text, sizeof cells[0].abs_text, "%g", s / 1e4);
		cells[1] =
		        (struct matcher_train_row_cell){{1, s != 5}, 2.0, 2.0, 1, 1, 0, 0, "0", 0};
		CHECK_INT(store_comparison_step_add(st, c, 0, s, metrics, cells, 2), 0);
	}
	for (long s = 1; s <= 3; s++)
		CHECK_INT(store_comparison_step_add(st, c, 1, s, metrics, NULL, 0), 0);
	CHECK_INT(store_tx_commit(st), 0);

	/* rank 0, no bound: every row, in step order, across three pages */
	CHECK_INT(store_comparison_steps_all(st, c, 0, 0, &v), 0);
	CHECK_INT(v.n, 2500);
	CHECK_INT(v.more, 0);
	CHECK(v.n_pages >= 3);
	int in_order = 1;
	for (size_t i = 0; i < v.n; i++)
		in_order &= v.rows[i].step == (long)i + 1 && v.rows[i].rank == 0;
	CHECK(in_order);
	const struct store_step_row *r = &v.rows[1233]; /* step 1234 */
	const struct matcher_train_row_cell *cl = store_step_row_cell(r, "loss", 0);
	CHECK(cl != NULL);
	CHECK(cl && fabs(cl->b - 1.1234) < 1e-12 && cl->dec_b == 4 && cl->over == 0);
	CHECK(store_step_row_cell(r, "grad_norm", 0) == &r->cells[1]); /* hint wrong */
	CHECK(store_step_row_cell(r, "grad_norm", 1) == &r->cells[1]);
	CHECK(store_step_row_cell(r, "mfu", 0) == NULL);
	CHECK_INT(store_step_row_cell(&v.rows[4], "grad_norm", 1)->present[1], 0);
	store_step_rows_free(&v);
	CHECK_INT(v.n, 0);

	/* a bound: the page crossing it is kept whole, more set */
	CHECK_INT(store_comparison_steps_all(st, c, 0, 1500, &v), 0);
	CHECK(v.n >= 1500 && v.n < 2500);
	CHECK_INT(v.more, 1);
	store_step_rows_free(&v);

	/* every rank: rank 0 then rank 1 */
	CHECK_INT(store_comparison_steps_all(st, c, -1, 0, &v), 0);
	CHECK_INT(v.n, 2503);
	CHECK_INT(v.rows[2500].rank, 1);
	CHECK_INT(v.rows[2500].n_cells, 0);
	store_step_rows_free(&v);

	/* no such comparison */
	CHECK_INT(store_comparison_steps_all(st, c + 99, 0, 0, &v), STORE_NOT_FOUND);
	store_step_rows_free(&v);
	store_step_rows_free(&v); /* a freed view frees again as a no-op */
}

int main(void)
{
	char target[512], err[256];
	struct store *st = NULL;

	CHECK_INT(storetest_target("views", target, sizeof target), 0);
	CHECK_INT(store_open(target, &st, err, sizeof err), 0);
	if (st)
		test_steps_all(st);
	store_close(st);
	storetest_cleanup("views");
	return check_report();
}
