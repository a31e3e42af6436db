/* report.c - the self-contained HTML report (GET
 * /comparisons/{id}/report.html and `parity compare ... -o diff.html`):
 * one file with inline CSS, JS and SVG that renders with the network off.
 *
 * It reuses the page renderers in WEB_OFFLINE mode: no links back to the
 * server, filters work in the browser over the rows the file holds.  The
 * caller decides which rows go in (every non-matching row and a capped
 * number of matched ones for large comparisons) and passes the sentence
 * saying so as the note. */
#include <string.h>

#include "web_int.h"

int web_report_act_begin(struct buf *out, const struct store_comparison *cmp,
                         const struct store_act_result *res, const struct web_profile *profile,
                         int rank, const char *note)
{
	struct web_act_view v;
	struct web_act_filters f = {.origin = -1, .limit = WEB_ACT_LIMIT};

	if (rank >= 0)
		f.rank = rank;
	else if (res->n_ranks && res->ranks[0].rank >= 0)
		f.rank = res->ranks[0].rank;
	memset(&v, 0, sizeof v);
	v.cmp = cmp;
	v.res = res;
	v.f = &f;
	v.next_from = -1;
	v.profile = profile;
	v.mode = WEB_OFFLINE;
	v.note = note;
	v.head_only = 1;
	return web_act_page(out, &v);
}

int web_report_act_html(struct buf *out, const struct store_comparison *cmp,
                        const struct store_act_result *res, const struct web_act_row *rows,
                        size_t n_rows, const struct web_profile *profile, int rank,
                        const char *note)
{
	struct web_report_rows st;
	int bad = 0;

	memset(&st, 0, sizeof st);
	st.show_l1 = web_act_rows_have_l1(rows, n_rows);
	bad |= web_report_act_begin(out, cmp, res, profile, rank, note);
	for (int ph = 0; ph < 2; ph++) {
		bad |= web_report_section_begin(out, &st, ph);
		for (size_t i = 0; i < n_rows; i++) {
			if (rows[i].row->phase == (enum matcher_phase)ph)
				bad |= web_report_row(out, &st, &rows[i]);
		}
		bad |= web_report_section_end(out, &st);
	}
	bad |= web_report_act_end(out);
	return bad ? -1 : 0;
}
