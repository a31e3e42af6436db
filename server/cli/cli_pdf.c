/* cli_pdf.c - the offline PDF reports of `parity compare a b -o report.pdf`
 * (API in cli_report.h): the same web/pdf.h documents the daemon serves
 * (server/views/render.c), fed from the matcher's results instead of the store.
 * Training: the typed result (store_train_result_of_check), an envelope per
 * training metric and the first WEB_PDF_STEP_ROWS rows from
 * matcher_train_row (validation metrics get no chart offline: their
 * values are not in the per-step rows).  Activation: the profile of a
 * rank and its non-matching rows from the match result, in row order. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_report.h"
#include "json_train.h"
#include "pdf.h"
#include "web.h"
#include "cli.h"

int srv_report_is_pdf_path(const char *path)
{
	size_t n = strlen(path);
	return n > 4 && !strcasecmp(path + n - 4, ".pdf");
}

/* Write the finished document's bytes; 0 or -1. */
static int write_doc(FILE *f, struct web_pdf *p, struct buf *b, int rc)
{
	if (web_pdf_finish(p) < 0)
		rc = -1;
	if (rc == 0 && b->len && fwrite(b->data, 1, b->len, f) != b->len)
		rc = -1;
	buf_reset(b);
	return rc;
}

int srv_report_train_pdf(FILE *f, const struct matcher_train_result *r,
                         const struct matcher_trainrun *a, const struct matcher_trainrun *b,
                         const char *name_a, const char *name_b)
{
	struct store_train_result view;
	struct arena arena;
	struct buf out = BUF_INIT;
	struct web_env *env = calloc(r->n_metrics ? r->n_metrics : 1, sizeof *env);
	struct web_pdf_step *steps = calloc(WEB_PDF_STEP_ROWS, sizeof *steps);
	struct matcher_train_row_cell *cells =
	        calloc(r->n_metrics ? r->n_metrics : 1, sizeof *cells);
	const char *tname[2] = {NULL, NULL};
	int tidx[2] = {0, 0}, n_table = 0, rc = 0;
	size_t n_steps = 0;

	arena_init(&arena);
	if (!env || !steps || !cells || store_train_result_of_check(&view, &arena, r, a, b) < 0) {
		rc = -1;
		goto done;
	}
	n_table = web_pdf_table_metrics(&view, tname, tidx);
	/* a failing comparison's table starts a fifth of its rows before the
	 * first offending step (as the daemon's report.pdf) */
	long first = -1;
	for (size_t k = 0; k < r->n_metrics; k++)
		if (r->metrics[k].has_first_over && (first < 0 || r->metrics[k].first_over < first))
			first = r->metrics[k].first_over;
	size_t from = 0;
	if (first >= 0) {
		size_t fi = 0;
		while (fi < r->n_common && r->common[fi] < first)
			fi++;
		from = fi > WEB_PDF_STEP_ROWS / 5 ? fi - WEB_PDF_STEP_ROWS / 5 : 0;
	}
	for (size_t i = 0; rc == 0 && i < r->n_common; i++) {
		long step;
		if (matcher_train_row(r, i, &step, cells) < 0)
			break;
		for (size_t k = 0; rc == 0 && k < r->n_metrics; k++)
			rc = web_env_add_cell(&env[k], step, &cells[k]);
		if (i >= from && n_steps < WEB_PDF_STEP_ROWS) {
			steps[n_steps].step = step;
			for (int k = 0; k < n_table; k++)
				steps[n_steps].cell[k] = cells[tidx[k]];
			n_steps++;
		}
	}
	struct web_pdf *p = web_pdf_new(&out, "parity training comparison", NULL);
	if (!p) {
		rc = -1;
		goto done;
	}
	struct web_pdf_train t = {.name_a = name_a,
	                          .name_b = name_b,
	                          .res = &view,
	                          .env = env,
	                          .table_metric = {tname[0], tname[1]},
	                          .n_table_metrics = n_table,
	                          .steps = steps,
	                          .n_steps = n_steps,
	                          .n_steps_total = (int64_t)r->n_common,
	                          .n_steps_before = (int64_t)from,
	                          .csv_hint = "parity check --format csv"};
	if (rc == 0)
		rc = web_pdf_train_report(p, &t, 0);
	rc = write_doc(f, p, &out, rc);
done:
	for (size_t k = 0; env && k < r->n_metrics; k++)
		web_env_free(&env[k]);
	free(env);
	free(steps);
	free(cells);
	arena_reset(&arena);
	buf_reset(&out);
	return rc;
}

int srv_pdf_act_profile(const struct matcher_match_result *res, struct web_profile_acc *acc)
{
	if (web_profile_acc_init(acc, (long)res->n_rows) < 0)
		return -1;
	for (size_t i = 0; i < res->n_rows; i++) {
		const struct matcher_row_rec *row = &res->recs[i];
		web_profile_acc_add(acc, (long)i, (int)row->status, row->phase == MATCHER_BACKWARD,
		                    row->output_hash_distance);
	}
	return 0;
}

int srv_pdf_act_rows(struct web_pdf *p, int rank, const struct matcher_match_result *res,
                     int64_t *listed, int64_t *more)
{
	struct matcher_row_view v;
	int rc = 0;

	matcher_row_view_init(&v);
	for (size_t i = 0; rc == 0 && i < res->n_rows; i++) {
		if (res->recs[i].status == MATCHER_MATCH)
			continue;
		if (*listed >= WEB_PDF_ACT_ROWS) {
			(*more)++;
			continue;
		}
		struct web_act_row wr = {(long)i, matcher_result_row(res, i, &v)};
		rc = wr.row ? web_pdf_act_row(p, rank, &wr) : -1;
		(*listed)++;
	}
	matcher_row_view_free(&v);
	return rc;
}

int srv_report_act_pdf(FILE *f, const struct store_act_result *top, const struct web_profile *prof,
                       size_t n_prof, const char *name_a, const char *name_b,
                       int (*rank_rows)(void *ctx, size_t i, struct web_pdf *p, int64_t *listed,
                                        int64_t *more),
                       void *ctx)
{
	struct buf out = BUF_INIT;
	struct web_pdf *p = web_pdf_new(&out, "parity activation comparison", NULL);
	int64_t listed = 0, more = 0;
	if (!p)
		return -1;
	struct web_pdf_act a = {.name_a = name_a,
	                        .name_b = name_b,
	                        .res = top,
	                        .profiles = prof,
	                        .n_profiles = n_prof};
	int rc = web_pdf_act_report(p, &a, 0);
	for (size_t i = 0; rc == 0 && i < top->n_ranks; i++)
		rc = rank_rows(ctx, i, p, &listed, &more);
	if (rc == 0)
		rc = web_pdf_act_rows_end(p, listed, more, "parity compare --format csv");
	return write_doc(f, p, &out, rc);
}
