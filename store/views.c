/* views.c - the typed views of store_views.h, gathered from the
 * per-resource verbs (no SQL here, so both backends serve them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

const struct matcher_train_row_cell *store_step_row_cell(const struct store_step_row *row,
                                                         const char *name, size_t hint)
{
	if (hint < row->n_cells && !strcmp(row->metrics[hint], name))
		return &row->cells[hint];
	for (size_t j = 0; j < row->n_cells; j++)
		if (!strcmp(row->metrics[j], name))
			return &row->cells[j];
	return NULL;
}

void store_step_rows_free(struct store_step_rows *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n_pages; i++)
		store_step_page_free(&v->pages[i]);
	free(v->pages);
	free((void *)v->rows);
	memset(v, 0, sizeof *v);
}

int store_comparison_steps_all(struct store *st, int64_t id, int rank, size_t max,
                               struct store_step_rows *out)
{
	struct store_step_row *rows = NULL;
	char cursor[64] = "";
	int rc = 0;

	memset(out, 0, sizeof *out);
	do {
		struct store_step_page *pages =
		        realloc(out->pages, (out->n_pages + 1) * sizeof *out->pages);
		if (!pages)
			return STORE_ERROR;
		out->pages = pages;
		struct store_step_page *p = &out->pages[out->n_pages++];
		rc = store_comparison_steps_list(st, id, rank, 1000, cursor[0] ? cursor : NULL, p);
		if (rc < 0)
			return rc;
		struct store_step_row *grown =
		        realloc(rows, (out->n + p->n_rows + 1) * sizeof *rows);
		if (!grown)
			return STORE_ERROR;
		rows = grown;
		out->rows = rows;
		memcpy(rows + out->n, p->rows, p->n_rows * sizeof *rows);
		out->n += p->n_rows;
		snprintf(cursor, sizeof cursor, "%s", p->next_cursor);
	} while (cursor[0] && (!max || out->n < max));
	out->more = cursor[0] != 0;
	return 0;
}

int store_comparison_steps_each(struct store *st, int64_t id, int rank,
                                int (*each)(void *ctx, const struct store_step_row *row), void *ctx)
{
	char cursor[64] = "";
	int rc;

	do {
		struct store_step_page p;
		rc = store_comparison_steps_list(st, id, rank, 1000, cursor[0] ? cursor : NULL, &p);
		for (size_t i = 0; rc == 0 && i < p.n_rows; i++)
			rc = each(ctx, &p.rows[i]);
		snprintf(cursor, sizeof cursor, "%s", rc == 0 ? p.next_cursor : "");
		store_step_page_free(&p);
	} while (rc == 0 && cursor[0]);
	return rc;
}
