/* test_web_train_csv.c - steps.csv from typed rows (web/train_csv.c)
 * equals what the steps document says: every line is checked against the
 * same row serialized by web_train_step_json (the API's per-step row) and
 * written cell by cell from that JSON, as steps.csv was before it was
 * typed.  Rows cover absent sides, one-sided NaN, +-Inf, a validation
 * metric (no cells), a metric the row lacks and a name that needs
 * quoting. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "json_train.h"
#include "web.h"

/* A JSON scalar as the JSON-era steps.csv wrote it. */
static void json_cell(struct buf *b, json_t *v)
{
	if (json_is_string(v))
		web_csv_cell(b, json_string_value(v), json_string_length(v));
	else if (json_is_integer(v))
		buf_printf(b, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		buf_printf(b, "%.17g", json_real_value(v));
	else if (json_is_true(v))
		buf_puts(b, "1");
	else if (json_is_false(v))
		buf_puts(b, "0");
}

static void json_line(struct buf *b, const struct matcher_train_policy *p, json_t *row)
{
	static const char *const cols[] = {"a_text", "b_text", "abs_exact", "rel", "over"};
	json_cell(b, json_object_get(row, "step"));
	for (size_t m = 0; m < p->n_th; m++) {
		json_t *cell = json_object_get(row, p->th[m].metric);
		for (size_t k = 0; k < 5; k++) {
			buf_putc(b, ',');
			json_cell(b, json_object_get(cell, cols[k]));
		}
	}
	buf_putc(b, '\n');
}

int main(void)
{
	struct matcher_train_policy p;
	const char *names[] = {"loss", "=grad,norm", "validation/loss"};
	struct matcher_train_row_cell cells[5][3];
	struct buf got = BUF_INIT, want = BUF_INIT;

	CHECK_INT(matcher_train_policy_preset(&p, "premerge"), 0);
	CHECK_INT(matcher_train_policy_select(&p, names, 3, 1e-5), 0);
	CHECK_INT(matcher_train_policy_set(&p, "mfu", 1, 0, 0), 0); /* in no row */
	memset(cells, 0, sizeof cells);
	cells[0][0] =
	        (struct matcher_train_row_cell){{1, 1}, 2.5, 2.25, 2, 3, 0.25, 0.1, "0.250", 1};
	cells[0][1] = (struct matcher_train_row_cell){{1, 0}, -1, 0, 1, 0, 0, 0, "", 0};
	cells[1][0] =
	        (struct matcher_train_row_cell){{1, 1}, 1, NAN, 4, 4, INFINITY, INFINITY, "NaN", 1};
	cells[1][1] = (struct matcher_train_row_cell){{1, 1},   INFINITY,  -INFINITY, 0, 0,
	                                              INFINITY, -INFINITY, "Inf",     1};
	cells[2][0] = (struct matcher_train_row_cell){{0, 1}, 0, 3, 0, 1, 0, 0, "", 0};
	cells[2][1] = (struct matcher_train_row_cell){{1, 1}, 1e-7, 1.5e-7,       8, 8,
	                                              5e-8,   0.5,  "0.00000005", 0};
	cells[3][0] = (struct matcher_train_row_cell){{1, 1}, 0, 0, 5, 5, 0, 0, "0", 0};
	for (int i = 0; i < 5; i++)
		cells[i][2] = (struct matcher_train_row_cell){{1, 1}, 9, 9, 1, 1, 0, 0, "0", 0};

	/* the columns: the compared metrics in order */
	const char *cols[MATCHER_TRAIN_MAX_METRICS];
	for (size_t i = 0; i < p.n_th; i++)
		cols[i] = p.th[i].metric;
	CHECK_INT(web_train_csv_header(&got, cols, p.n_th), 0);
	CHECK_STR(got.data, "step,loss_baseline,loss_candidate,loss_abs,loss_rel,loss_over,"
	                    "\"'=grad,norm_baseline\",\"'=grad,norm_candidate\","
	                    "\"'=grad,norm_abs\",\"'=grad,norm_rel\",\"'=grad,norm_over\","
	                    "validation/loss_baseline,validation/loss_candidate,"
	                    "validation/loss_abs,validation/loss_rel,validation/loss_over,"
	                    "mfu_baseline,mfu_candidate,mfu_abs,mfu_rel,mfu_over\n");
	buf_clear(&got);
	for (int i = 0; i < 5; i++) {
		/* row 3 names only loss; row 4 has no cells at all */
		size_t n = i == 3 ? 1 : i == 4 ? 0 : 3;
		struct store_step_row row = {0, 10L * (i + 1), names, cells[i], n};
		json_t *j = web_train_step_json(row.step, names, cells[i], n);
		CHECK(j != NULL);
		CHECK_INT(web_train_csv_row(&got, cols, p.n_th, &row), 0);
		json_line(&want, &p, j);
		json_decref(j);
	}
	CHECK_STR(got.data, want.data);
	/* and it says what it should */
	CHECK(strstr(got.data, "10,2.50,2.250,0.250,0.10000000000000001,1,-1.0,,,,0,,,,,,,,,,\n"));
	CHECK(strstr(got.data, "20,1.0000,NaN,NaN,NaN,1,Inf,-Inf,Inf,-Inf,1,"));
	CHECK(strstr(got.data, "50,,,,,,,,,,,,,,,,,,,,\n"));
	buf_reset(&got);
	buf_reset(&want);
	return check_report();
}
