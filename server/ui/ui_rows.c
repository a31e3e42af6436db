/* ui_rows.c - the cause chain of the comparison page: an input hash's
 * producer row (GET /ui/comparisons/{id}/producer) and the walk back from
 * a diff row to its origin (GET /ui/comparisons/{id}/origin), both
 * answered with a 303 to the page that holds the row (?row=N#rN), and
 * the op keys the page lists beside the chain's rows.
 *
 * The walk follows, from each row, the producer of a differing input; a
 * row whose differing inputs have no producer in the log (the optimizer
 * step: parameters and gradients) or a walk longer than WALK_MAX steps
 * or WALK_BUDGET_MS goes on to the nearest origin row before it, so a
 * chain from any diff row ends at an origin whenever the rank has one
 * before it, in bounded time (each producer lookup scans the rows above
 * the row). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "web.h"
#include "ui.h"

#define WALK_MAX       512  /* producer steps of a cause chain at most */
#define WALK_BUDGET_MS 1000 /* time for the producer steps, then the origin */
#define WALK_TRIES     8    /* differing inputs tried per row for a producer */
#define CHAIN_SHOWN    64   /* rows listed on the page (h_ui.c UI_CHAIN_MAX) */
#define ORIGINS_MAX    1000 /* origin rows read to find the nearest one */

/* The rank (required, >= 0) and row (>= 0; -1 when absent and optional)
 * of a cause-chain request; -1 with an error page queued. */
static int rank_row_or_page(struct srv_req *r, int need_row, long long *rank, long long *row)
{
	const char *rk = srv_query(r, "rank"), *rw = srv_query(r, "row");
	char *end;
	*row = -1;
	*rank = rk && *rk ? strtoll(rk, &end, 10) : -1;
	if (!rk || !*rk || *end || *rank < 0 || *rank > 1000000)
		return srv_ui_page_error(r, 400, "rank must be a rank of the comparison."), -1;
	if (rw && *rw) {
		*row = strtoll(rw, &end, 10);
		if (*end || *row < 0)
			return srv_ui_page_error(r, 400, "row must be a row index."), -1;
	} else if (need_row) {
		return srv_ui_page_error(r, 400, "row must be a row index."), -1;
	}
	return 0;
}

/* 303 to the comparison page holding row idx of rank, with the chain
 * (n_chain row indexes, may be 0) listed on it: a chain longer than
 * CHAIN_SHOWN lists its first rows and its last, which reach the origin. */
static int see_row(struct srv_req *r, long long rank, int64_t idx, const int64_t *chain,
                   size_t n_chain)
{
	struct buf loc = BUF_INIT;
	buf_printf(&loc, "/ui/comparisons/%lld?rank=%lld&row=%lld", (long long)r->id, rank,
	           (long long)idx);
	for (size_t i = 0, k = 0; i < n_chain; i++) {
		if (n_chain > CHAIN_SHOWN && i >= CHAIN_SHOWN / 4 &&
		    i < n_chain - (CHAIN_SHOWN - CHAIN_SHOWN / 4))
			continue;
		buf_printf(&loc, "%s%lld", k++ ? "," : "&chain=", (long long)chain[i]);
	}
	buf_printf(&loc, "#r%lld", (long long)idx);
	int rc = loc.data ? srv_form_see_other(r, loc.data)
	                  : srv_ui_page_error(r, 500, "Out of memory.");
	buf_reset(&loc);
	return rc;
}

static int store_page_error(struct srv_req *r, struct store *db, int rc, const char *missing)
{
	if (rc == STORE_NOT_FOUND)
		return srv_ui_page_error(r, 404, missing);
	if (rc == STORE_INVALID)
		return srv_ui_page_error(r, 400, store_errmsg(db));
	return srv_ui_page_error(r, 500, store_errmsg(db));
}

int srv_ui_producer(struct srv_req *r)
{
	long long rank, row;
	if (rank_row_or_page(r, 0, &rank, &row) < 0)
		return MHD_YES;
	const char *side = srv_query(r, "side");
	if (!side || (strcmp(side, "a") && strcmp(side, "b")))
		return srv_ui_page_error(r, 400, "side must be a or b.");
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	int64_t idx;
	int rc =
	        store_comparison_row_producer(db, r->id, (int)rank, side[0] == 'b',
	                                      srv_query(r, "key"), srv_query(r, "hash"), row, &idx);
	if (rc < 0)
		return store_page_error(r, db, rc, "No row of this rank produced that input.");
	return see_row(r, rank, idx, NULL, 0);
}

/* Item i (0-based) of a sep-separated list, trimmed, into out (cap
 * bytes); 0, or -1 when the list has no item i. */
static int list_item(const char *list, char sep, size_t i, char *out, size_t cap)
{
	const char *p = list;
	if (!p)
		return -1;
	for (; i; i--) {
		p = strchr(p, sep);
		if (!p)
			return -1;
		p++;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strcspn(p, sep == ',' ? "," : ";");
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

/* The first input position from `from` on where the two sides disagree
 * (matching.md's item distance > MATCHER_HASH_EPS, or one side lacks the
 * item); -1 when every input agrees or a side is missing. */
static long differing_input(const struct matcher_row *row, size_t from)
{
	if (!row->a || !row->b)
		return -1;
	for (size_t i = from;; i++) {
		char ha[128], hb[128];
		int has_a = list_item(row->a->input_hashes, ',', i, ha, sizeof ha) == 0 && ha[0];
		int has_b = list_item(row->b->input_hashes, ',', i, hb, sizeof hb) == 0 && hb[0];
		if (!has_a && !has_b)
			return -1;
		if (has_a != has_b || matcher_hash_distance(ha, hb) > MATCHER_HASH_EPS)
			return (long)i;
	}
}

/* Read row idx of rank into *page (one row; free it whatever the result):
 * 0, or a STORE_* code (STORE_NOT_FOUND: no such row). */
static int read_row(struct store *db, int64_t id, int rank, int64_t idx,
                    struct store_row_page *page)
{
	char cursor[64];
	snprintf(cursor, sizeof cursor, "w%d.%lld", rank, (long long)idx - 1);
	int rc = store_comparison_rows_list(db, id, rank, NULL, NULL, NULL, -1, NULL, 1,
	                                    idx > 0 ? cursor : NULL, page);
	if (rc == 0 && (!page->n_rows || page->rows[0].idx != idx))
		rc = STORE_NOT_FOUND;
	return rc;
}

/* The nearest origin row of rank before row `before` into *idx: 0,
 * STORE_NOT_FOUND (none among the first ORIGINS_MAX origins), or a
 * STORE_* code. */
static int nearest_origin(struct store *db, int64_t id, int rank, int64_t before, int64_t *idx)
{
	struct store_row_page page;
	int rc = store_comparison_rows_list(db, id, rank, "diff", NULL, NULL, 1, NULL, ORIGINS_MAX,
	                                    NULL, &page);
	*idx = -1;
	for (size_t i = 0; rc == 0 && i < page.n_rows && page.rows[i].idx < before; i++)
		*idx = page.rows[i].idx;
	store_row_page_free(&page);
	return rc < 0 ? rc : *idx < 0 ? STORE_NOT_FOUND : 0;
}

/* The producer row (before row at) of a differing input of mr, trying
 * the first WALK_TRIES differing inputs: 0 with *prev, STORE_NOT_FOUND
 * when the inputs agree or none has a producer in the log, or a STORE_*
 * code. */
static int producer_of(struct store *db, int64_t id, int rank, const struct matcher_row *mr,
                       int64_t at, int64_t *prev)
{
	long i = -1;
	for (int t = 0; t < WALK_TRIES && (i = differing_input(mr, (size_t)(i + 1))) >= 0; t++) {
		char key[1024] = "", hash[128] = "";
		/* the A side's producer, or B's when A lacks the input */
		int side_b =
		        list_item(mr->a->input_hashes, ',', (size_t)i, hash, sizeof hash) < 0 ||
		        !hash[0];
		const struct matcher_entry *e = side_b ? mr->b : mr->a;
		list_item(e->input_hashes, ',', (size_t)i, hash, sizeof hash);
		if (list_item(e->input_producers, ';', (size_t)i, key, sizeof key) < 0)
			key[0] = '\0';
		int rc = store_comparison_row_producer(db, id, rank, side_b, key, hash, at, prev);
		if (rc != STORE_NOT_FOUND && rc != STORE_INVALID)
			return rc;
	}
	return STORE_NOT_FOUND;
}

int srv_ui_origin_walk(struct srv_req *r)
{
	long long rank, row;
	if (rank_row_or_page(r, 1, &rank, &row) < 0)
		return MHD_YES;
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	int64_t *chain = malloc((WALK_MAX + 2) * sizeof *chain);
	if (!chain)
		return srv_ui_page_error(r, 500, "Out of memory.");
	size_t n = 0;
	int64_t at = row, t_end = srv_now_ms() + WALK_BUDGET_MS;
	int ret = -1;
	for (;;) {
		struct store_row_page page;
		int rc = read_row(db, r->id, (int)rank, at, &page);
		if (rc < 0) {
			store_row_page_free(&page);
			ret = store_page_error(r, db, rc, "No such row.");
			goto done;
		}
		chain[n++] = at;
		const struct matcher_row *mr = &page.rows[0].row;
		/* an origin, or not a diff row (nothing to walk back from) */
		int stop = mr->origin || mr->status != MATCHER_DIFF;
		int64_t prev = -1;
		if (!stop)
			rc = n > WALK_MAX || srv_now_ms() > t_end
			             ? STORE_NOT_FOUND
			             : producer_of(db, r->id, (int)rank, mr, at, &prev);
		store_row_page_free(&page);
		if (stop)
			break;
		if (rc == STORE_NOT_FOUND) {
			/* no producer in the log: on to the nearest origin before */
			rc = nearest_origin(db, r->id, (int)rank, at, &prev);
			if (rc == 0)
				chain[n++] = prev;
		}
		if (rc < 0 && rc != STORE_NOT_FOUND) {
			ret = store_page_error(r, db, rc, "No such row.");
			goto done;
		}
		if (rc < 0 || n == WALK_MAX + 2 || chain[n - 1] == prev)
			break;
		at = prev;
	}
	ret = see_row(r, rank, chain[n - 1], chain, n);
done:
	free(chain);
	return ret;
}

int srv_ui_chain_keys(struct srv_req *r, int rank, const long *chain, size_t n, char **keys)
{
	for (size_t i = 0; i < n; i++) {
		struct store_row_page page;
		int rc = read_row(r->db, r->id, rank, chain[i], &page);
		const struct matcher_row *mr = rc == 0 ? &page.rows[0].row : NULL;
		const char *k = mr ? (mr->a ? mr->a->key : mr->b ? mr->b->key : NULL) : NULL;
		keys[i] = k ? strdup(k) : NULL;
		store_row_page_free(&page);
		if (rc < 0 && rc != STORE_NOT_FOUND)
			return -1;
	}
	return 0;
}
