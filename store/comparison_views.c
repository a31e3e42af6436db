/* comparison_views.c - comparisons read back: one comparison with its runs
 * and typed result (store_comparison_get), the pages of the API list and
 * the browser's filtered list, and the labels of issue 16. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comparison_int.h"

/* ---- comparison views ------------------------------------------------------ */

/* The summary of a run (no logs) in the arena; *out NULL if it is gone. */
int store_run_summary(struct store *st, struct arena *a, int64_t run_id,
                      const struct store_run **out, size_t *bytes)
{
	struct store_q *s =
	        store_stmt(st, SID_CMP_RUN_ROW,
	                   "SELECT id, name, kind, meta, created_at FROM runs WHERE id = ?");
	int rc = 0;
	*out = NULL;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int src = store_q_step(s);
	if (src == STORE_Q_ROW) {
		struct store_run *r = arena_alloc(a, sizeof *r);
		if (!r || store_run_from_cols(a, s, r, bytes) < 0)
			rc = store_fail(st, STORE_ERROR, "out of memory");
		*out = r;
	} else if (src < 0) {
		rc = store_q_fail(st, src, "reading a run of the comparison");
	}
	store_q_done(s);
	return rc;
}

int store_cmp_from_q(struct store *st, struct arena *a, struct store_q *s, int with_result,
                     struct store_comparison *c, size_t *bytes)
{
	int bad = 0;
	memset(c, 0, sizeof *c);
	c->id = store_q_col_i64(s, 0);
	c->name = store_q_col_dup(a, s, 1, bytes, &bad);
	if (!c->name)
		c->name = "";
	snprintf(c->kind, sizeof c->kind, "%s", store_q_col_text(s, 2));
	snprintf(c->status, sizeof c->status, "%s", store_q_col_text(s, 3));
	c->verdict = store_q_col_dup(a, s, 4, bytes, &bad);
	c->baseline_id = store_q_col_i64(s, 5);
	c->candidate_id = store_q_col_i64(s, 6);
	c->policy_json = store_q_col_dup(a, s, 7, bytes, &bad);
	if (with_result)
		c->result_json = store_q_col_dup(a, s, 8, bytes, &bad);
	c->error = store_q_col_dup(a, s, 9, bytes, &bad);
	c->created_at = store_q_col_dup(a, s, 10, bytes, &bad);
	c->started_at = store_q_col_dup(a, s, 11, bytes, &bad);
	c->finished_at = store_q_col_dup(a, s, 12, bytes, &bad);
	c->baseline_name = store_q_col_dup(a, s, 13, bytes, &bad);
	c->suite = store_q_col_dup(a, s, 14, bytes, &bad);
	c->config = store_q_col_dup(a, s, 15, bytes, &bad);
	c->suite_size = store_q_col_int(s, 16);
	c->lane = store_q_col_dup(a, s, 17, bytes, &bad);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	int rc = store_run_summary(st, a, c->baseline_id, &c->baseline, bytes);
	if (rc == 0)
		rc = store_run_summary(st, a, c->candidate_id, &c->candidate, bytes);
	return rc;
}

void store_comparison_view_free(struct store_comparison_view *v)
{
	if (!v)
		return;
	matcher_noise_result_free(v->noise);
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

int store_comparison_get(struct store *st, int64_t id, struct store_comparison_view *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *s = store_stmt(st, SID_CMP_GET,
	                               "SELECT " CMP_COLS " FROM comparisons c WHERE c.id = ?");
	size_t bytes = 0;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s);
	if (rc == STORE_Q_ROW)
		rc = store_cmp_from_q(st, &out->arena, s, 1, &out->cmp, &bytes);
	else if (rc == STORE_Q_DONE)
		rc = store_cmp_not_found(st, id);
	else
		rc = store_q_fail(st, rc, "reading the comparison");
	store_q_done(s);
	if (rc == 0 && !strcmp(out->cmp.kind, "activation") && !strcmp(out->cmp.status, "done"))
		rc = store_act_result_read(st, &out->arena, id, &out->cmp.act, &bytes);
	if (rc == 0 && !strcmp(out->cmp.kind, "training") && !strcmp(out->cmp.status, "done")) {
		rc = store_train_result_read(st, &out->arena, id, &out->cmp.train, &bytes);
		if (out->cmp.train)
			out->cmp.result_json = NULL;
	}
	if (rc == 0 && !strcmp(out->cmp.kind, "training"))
		rc = store_comparison_set_read(st, &out->arena, id, &out->cmp.baseline_set,
		                               &out->cmp.n_baseline_set);
	if (rc == 0 && out->cmp.n_baseline_set && !strcmp(out->cmp.status, "done")) {
		rc = store_noise_result_read(st, &out->arena, id, out->cmp.policy_json, &out->noise,
		                             &bytes);
		out->cmp.noise = out->noise;
		if (out->noise)
			out->cmp.result_json = NULL;
	}
	return rc;
}

void store_comparison_page_free(struct store_comparison_page *p)
{
	if (!p)
		return;
	free(p->cmps);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* A list item with its runs (the page counts their bytes too); the
 * result text with with_result, else the first reason (column 18, after
 * STORE_CMP_COLS, of store_comparisons_find). */
static int cmp_add(struct store *st, struct store_q *s, struct store_comparison_page *p,
                   int with_result, size_t *bytes)
{
	struct store_comparison *nv = realloc(p->cmps, (p->n_cmps + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->cmps = nv;
	*bytes += 512;
	struct store_comparison *c = &p->cmps[p->n_cmps++];
	int rc = store_cmp_from_q(st, &p->arena, s, with_result, c, bytes);
	int bad = 0;
	if (rc >= 0 && !with_result)
		c->first_reason = store_q_col_dup(&p->arena, s, 18, bytes, &bad);
	return rc < 0 ? rc : bad ? store_fail(st, STORE_ERROR, "out of memory") : rc;
}

static int cmp_item(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	return cmp_add(st, s, ctx, 0, bytes);
}

int store_comparison_set_labels(struct store *st, int64_t id, const char *baseline_name,
                                const char *suite, const char *config, int suite_size)
{
	struct store_q *s = store_prep_as(st,
	                                  "UPDATE comparisons SET baseline_name = ?, suite = ?, "
	                                  "config = ?, suite_size = ? WHERE id = ?",
	                                  "labelling the comparison");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, baseline_name);
	store_q_bind_text(s, 2, suite);
	store_q_bind_text(s, 3, config);
	if (suite_size > 0)
		store_q_bind_i64(s, 4, suite_size);
	else
		store_q_bind_null(s, 4);
	store_q_bind_i64(s, 5, id);
	int64_t changed = 0;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "labelling the comparison");
	if (changed == 0)
		return store_cmp_not_found(st, id);
	return 0;
}

int store_cmp_q_item_with_result(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	return cmp_add(st, s, ctx, 1, bytes);
}

void store_cmp_drop(void *ctx)
{
	((struct store_comparison_page *)ctx)->n_cmps--;
}

int store_comparisons_list(struct store *st, int limit, const char *cursor,
                           struct store_comparison_page *out)
{
	return store_comparisons_find(st, NULL, limit, cursor, out);
}

/* A text parameter where PostgreSQL first meets it (IS NULL leaves its
 * type open: "could not determine data type"). */
/* The list search of store_comparisons_find: ?7 in the comparison's name
 * or its runs' (name, meta commit / branch). */
#define FIND_Q_LITE                                                                                \
	"instr(lower(c.name), lower(?7)) > 0 OR EXISTS (SELECT 1 FROM runs r WHERE r.id IN "       \
	"(c.baseline_id, c.candidate_id) AND " STORE_RUN_MATCHES_Q("r", "?7") ")"
#define FIND_Q_PG                                                                                  \
	"strpos(lower(c.name), lower(?7)) > 0 OR EXISTS (SELECT 1 FROM runs r WHERE r.id IN "      \
	"(c.baseline_id, c.candidate_id) AND " STORE_RUN_MATCHES_Q_PG("r", "?7") ")"
#define FIND_WHERE(d)                                                                              \
	"WHERE c.id < ?1 AND (" TXT_##d(                                                           \
	        "?3") " IS NULL OR c.kind = ?3) "                                                  \
	              "AND (" TXT_##d("?4") " IS NULL OR c.verdict = ?4) "                         \
	                                    "AND (" TXT_##d(                                       \
	                                            "?5") " IS NULL OR c.status = ?5) "            \
	                                                  "AND (?6 = 0 OR c.baseline_id = ?6 OR "  \
	                                                  "c.candidate_id = ?6) "                  \
	                                                  "AND (" TXT_##d(                         \
	                                                          "?7") " IS NULL OR " FIND_Q_##d  \
	        ") "
#define FIND_SQL(d)                                                                                \
	"SELECT " CMP_COLS ", " STORE_CMP_FIRST_REASON                                             \
	" FROM comparisons c " FIND_WHERE(d) "ORDER BY c.id DESC LIMIT ?2"

int store_comparisons_find(struct store *st, const struct store_list_filter *f, int limit,
                           const char *cursor, struct store_comparison_page *out)
{
	static const struct store_list_filter none;
	int64_t before = INT64_MAX;
	int rc;
	memset(out, 0, sizeof *out);
	if (!f)
		f = &none;
	if ((rc = store_cursor_parse(st, cursor, 'c', &before, 1)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = store_stmt(st, SID_CMP_PAGE, STORE_SQL_D(FIND_SQL));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, before);
	store_q_bind_i64(s, 2, limit + 1);
	store_q_bind_text(s, 3, f->kind && f->kind[0] ? f->kind : NULL);
	store_q_bind_text(s, 4, f->verdict && f->verdict[0] ? f->verdict : NULL);
	store_q_bind_text(s, 5, f->status && f->status[0] ? f->status : NULL);
	store_q_bind_i64(s, 6, f->run_id > 0 ? f->run_id : 0);
	store_q_bind_text(s, 7, f->q && f->q[0] ? f->q : NULL);
	static const int keys[] = {0};
	return store_q_page_walk(st, s, limit, 'c', keys, 1, cmp_item, store_cmp_drop, out,
	                         "listing comparisons", out->next_cursor);
}
