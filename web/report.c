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

int web_report_html(struct buf *out, json_t *cmp, const struct web_act_row *rows, size_t n_rows,
                    json_t *steps, const struct web_profile *profile, int rank, const char *note)
{
	json_t *result = json_object_get(cmp, "result");
	const char *kind;

	if (!result)
		result = cmp;
	kind = wj_str(result, "kind");
	if (!kind)
		kind = wj_str(cmp, "kind");
	if (kind && !strcmp(kind, "training")) {
		struct web_train_view v;

		memset(&v, 0, sizeof v);
		v.cmp = cmp;
		v.steps_all = steps;
		v.steps_page = steps;
		v.mode = WEB_OFFLINE;
		v.note = note;
		return web_train_page(out, &v);
	} else {
		struct web_act_view v;
		struct web_act_filters f = {.origin = -1, .limit = WEB_ACT_LIMIT};
		json_t *ranks = json_object_get(result, "ranks");

		if (rank >= 0)
			f.rank = rank;
		else if (json_array_size(ranks))
			f.rank = (int)wj_int(json_array_get(ranks, 0), "rank", 0);
		memset(&v, 0, sizeof v);
		v.cmp = cmp;
		v.rows = rows;
		v.n_rows = n_rows;
		v.f = &f;
		v.next_from = -1;
		v.profile = profile;
		v.mode = WEB_OFFLINE;
		v.note = note;
		return web_act_page(out, &v);
	}
}
