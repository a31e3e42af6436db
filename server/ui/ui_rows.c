/* ui_rows.c - the cause chain of the comparison page: an input hash's
 * producer row (GET /ui/comparisons/{id}/producer) and the walk back from
 * a diff row to its origin (GET /ui/comparisons/{id}/origin), both
 * answered with a 303 to the page that holds the row (?row=N#rN). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"
#include "web.h"
#include "ui.h"

#define WALK_MAX 64 /* rows of a cause chain at most */

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
 * (n_chain row indexes, may be 0) listed on it. */
static int see_row(struct srv_req *r, long long rank, int64_t idx, const int64_t *chain,
                   size_t n_chain)
{
	struct buf loc = BUF_INIT;
	buf_printf(&loc, "/ui/comparisons/%lld?rank=%lld&row=%lld", (long long)r->id, rank,
	           (long long)idx);
	for (size_t i = 0; i < n_chain; i++)
		buf_printf(&loc, "%s%lld", i ? "," : "&chain=", (long long)chain[i]);
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

/* The first input position where the two sides disagree (matching.md's
 * item distance > MATCHER_HASH_EPS, or one side lacks the item);
 * -1 when every input agrees or a side is missing. */
static long first_differing_input(const struct matcher_row *row)
{
	if (!row->a || !row->b)
		return -1;
	for (size_t i = 0;; i++) {
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

int srv_ui_origin_walk(struct srv_req *r)
{
	long long rank, row;
	if (rank_row_or_page(r, 1, &rank, &row) < 0)
		return MHD_YES;
	struct store *db = srv_ui_page_db(r);
	if (!db)
		return MHD_YES;
	int64_t chain[WALK_MAX];
	size_t n = 0;
	int64_t at = row;
	for (;;) {
		struct store_row_page page;
		int rc = read_row(db, r->id, (int)rank, at, &page);
		if (rc < 0) {
			store_row_page_free(&page);
			return store_page_error(r, db, rc, "No such row.");
		}
		chain[n++] = at;
		const struct matcher_row *mr = &page.rows[0].row;
		long i = first_differing_input(mr);
		char key[1024] = "", hash[128] = "";
		int side_b = 0;
		if (i >= 0) {
			/* the A side's producer, or B's when A lacks the input */
			side_b = list_item(mr->a->input_hashes, ',', (size_t)i, hash, sizeof hash) <
			                 0 ||
			         !hash[0];
			const struct matcher_entry *e = side_b ? mr->b : mr->a;
			list_item(e->input_hashes, ',', (size_t)i, hash, sizeof hash);
			if (list_item(e->input_producers, ';', (size_t)i, key, sizeof key) < 0)
				key[0] = '\0';
		}
		store_row_page_free(&page);
		if (i < 0 || n == WALK_MAX)
			break;
		int64_t prev;
		rc = store_comparison_row_producer(db, r->id, (int)rank, side_b, key, hash, at,
		                                   &prev);
		if (rc == STORE_NOT_FOUND)
			break; /* no producer row: this is as far back as it goes */
		if (rc < 0)
			return store_page_error(r, db, rc, "No such row.");
		at = prev;
	}
	return see_row(r, rank, chain[n - 1], chain, n);
}
