/* test_store_pages.c - the byte budget of list pages (store_q_page_walk,
 * STORE_PAGE_BYTES): pages of large items end early with a cursor, every
 * page's items stay within the budget (or are one item when a single item
 * is larger), and following the cursors returns every item exactly once,
 * for runs and for comparisons (whose items embed both runs). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

/* The documented size estimate of a run (its text + 256, + 256 a log). */
static size_t run_bytes(const struct store_run *r)
{
	return 256 + strlen(r->name) + strlen(r->created_at) +
	       (r->meta_json ? strlen(r->meta_json) : 0) + 256 * r->n_logs;
}

/* Walk the run list to its end: each page within the budget by the
 * documented estimate or a single run. */
static size_t walk_runs(struct store *st, size_t *pages, int64_t *ids, size_t cap)
{
	char cursor[64] = "";
	size_t n = 0;
	*pages = 0;
	for (;;) {
		struct store_run_page page;
		CHECK_INT(store_runs_list(st, NULL, NULL, 1000, cursor[0] ? cursor : NULL, &page),
		          0);
		size_t bytes = 0;
		CHECK(page.n_runs >= 1);
		for (size_t i = 0; i < page.n_runs; i++) {
			const struct store_run *r = &page.runs[i];
			bytes += 1 + run_bytes(r);
			if (n < cap)
				ids[n] = r->id;
			n++;
		}
		CHECK(bytes <= STORE_PAGE_BYTES || page.n_runs == 1);
		(*pages)++;
		snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
		store_run_page_free(&page);
		if (!cursor[0] || *pages > 1000)
			return n;
	}
}

/* The same for comparisons: text + 512, with both runs' estimates. */
static size_t walk_cmps(struct store *st, size_t *pages, int64_t *ids, size_t cap)
{
	char cursor[64] = "";
	size_t n = 0;
	*pages = 0;
	for (;;) {
		struct store_comparison_page page;
		CHECK_INT(store_comparisons_list(st, 1000, cursor[0] ? cursor : NULL, &page), 0);
		size_t bytes = 0;
		CHECK(page.n_cmps >= 1);
		for (size_t i = 0; i < page.n_cmps; i++) {
			const struct store_comparison *c = &page.cmps[i];
			bytes += 1 + 512 + strlen(c->name) + strlen(c->created_at) +
			         (c->baseline ? run_bytes(c->baseline) - 256 : 0) +
			         (c->candidate ? run_bytes(c->candidate) - 256 : 0);
			if (n < cap)
				ids[n] = c->id;
			n++;
		}
		CHECK(bytes <= STORE_PAGE_BYTES || page.n_cmps == 1);
		(*pages)++;
		snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
		store_comparison_page_free(&page);
		if (!cursor[0] || *pages > 1000)
			return n;
	}
}

static int distinct(const int64_t *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (ids[i] == ids[j])
				return 0;
	return 1;
}

int main(void)
{
	char path[512], err[256];
	if (storetest_target("pages", path, sizeof path) < 0)
		return 1;
	struct store *st = NULL;
	if (store_open(path, &st, err, sizeof err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	/* 40 runs with 60 KiB of meta each: 2.4 MB, more than two pages */
	size_t meta_len = 60 * 1024;
	char *meta = malloc(meta_len + 16);
	memcpy(meta, "{\"pad\":\"", 8);
	memset(meta + 8, 'm', meta_len);
	memcpy(meta + 8 + meta_len, "\"}", 3);
	int64_t run_ids[41];
	CHECK_INT(store_tx_begin(st), 0);
	for (int i = 0; i < 40; i++)
		CHECK_INT(store_run_create(st, "fat", "training", meta, &run_ids[i]), 0);
	/* one item larger than a whole page (an old, unlimited name) */
	char *huge = malloc(STORE_PAGE_BYTES + 2);
	memset(huge, 'n', STORE_PAGE_BYTES + 1);
	huge[STORE_PAGE_BYTES + 1] = 0;
	CHECK_INT(store_run_create(st, huge, "training", NULL, &run_ids[40]), 0);
	CHECK_INT(store_tx_commit(st), 0);

	int64_t seen[64];
	size_t pages = 0;
	size_t n = walk_runs(st, &pages, seen, 64);
	CHECK_INT(n, 41);
	CHECK(distinct(seen, n < 64 ? n : 64));
	CHECK(pages >= 4); /* the huge one alone, then >= 3 pages of 2.4 MB */

	/* comparisons embed both runs: 20 of them weigh as much as 40 runs */
	int64_t cmp;
	for (int i = 0; i < 40; i += 2)
		CHECK_INT(store_comparison_create(st, run_ids[i], run_ids[i + 1], "training", "c",
		                                  NULL, NULL, &cmp),
		          0);
	n = walk_cmps(st, &pages, seen, 64);
	CHECK_INT(n, 20);
	CHECK(distinct(seen, n < 64 ? n : 64));
	CHECK(pages >= 3);

	/* small items: the count limit still rules */
	struct store_comparison_page page;
	CHECK_INT(store_comparisons_list(st, 5, NULL, &page), 0);
	CHECK_INT(page.n_cmps, 5);
	store_comparison_page_free(&page);

	free(meta);
	free(huge);
	store_close(st);
	storetest_cleanup("pages");
	return check_report();
}
