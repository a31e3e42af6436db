/* act_csv.c - activation comparison rows as CSV (`parity compare --format
 * csv`; the daemon's rows.csv can take the same writer): one header line,
 * then one line per result row, written as the rows are iterated so memory
 * does not grow with the row count.
 *
 * Columns (web_act_csv_header): rank, idx, a_key, b_key, status, method,
 * phase, origin, shape_differs, output_hash_distance, input_hash_distance,
 * then one "<stat>_diff" column per matcher stat (Shape, L1 norm, L2 norm,
 * Min, Max, Mean: the relative difference that colours the cell).  A
 * missing side's key, an only-row's method and a distance or stat
 * difference that does not exist are empty cells; booleans are 0/1;
 * numbers are finite and printed with %.17g (round-trip exact).  Every
 * text cell goes through web_csv_cell (quoting, formula neutralisation). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt17.h"
#include "web.h"

static int text_cell(struct buf *out, const char *s)
{
	return s ? web_csv_cell(out, s, strlen(s)) : 0;
}

/* A distance or difference: empty when < 0 (none) or not finite. */
static int num_cell(struct buf *out, double v)
{
	char tmp[MATCHER_FMT17_CAP];
	if (!(v >= 0) || !isfinite(v))
		return 0;
	return buf_append(out, tmp, matcher_fmt17(v, tmp));
}

int web_act_csv_header(struct buf *out)
{
	int bad = buf_puts(out, "rank,idx,a_key,b_key,status,method,phase,origin,shape_differs,"
	                        "output_hash_distance,input_hash_distance");
	for (int k = 0; k < MATCHER_N_STATS; k++) {
		char name[32];
		snprintf(name, sizeof name, "%s_diff", matcher_stat_names[k]);
		bad |= buf_putc(out, ',');
		bad |= web_csv_cell(out, name, strlen(name));
	}
	bad |= buf_putc(out, '\n');
	return bad ? -1 : 0;
}

int web_act_csv_row(struct buf *out, int rank, const struct web_act_row *wr)
{
	const struct matcher_row *r = wr->row;
	int paired = r->a && r->b;
	int bad = buf_printf(out, "%d,%ld,", rank, wr->idx);

	bad |= text_cell(out, r->a ? r->a->key : NULL);
	bad |= buf_putc(out, ',');
	bad |= text_cell(out, r->b ? r->b->key : NULL);
	bad |= buf_printf(out, ",%s,%s,%s,%d,%d,", matcher_status_name(r->status),
	                  paired ? matcher_method_name(r->method) : "",
	                  matcher_phase_name(r->phase), r->origin ? 1 : 0,
	                  paired && r->shape_differs ? 1 : 0);
	bad |= num_cell(out, paired ? r->output_hash_distance : -1);
	bad |= buf_putc(out, ',');
	bad |= num_cell(out, paired ? r->input_hash_distance : -1);
	for (int k = 0; k < MATCHER_N_STATS; k++) {
		bad |= buf_putc(out, ',');
		bad |= num_cell(out, paired ? r->stat_diff[k] : -1);
	}
	bad |= buf_putc(out, '\n');
	return bad ? -1 : 0;
}
