/* test_store_pages.c - the byte budget of list pages (store_page_collect,
 * STORE_PAGE_BYTES): pages of large items end early with a cursor, every
 * page's items stay within the budget (or are one item when a single item
 * is larger), and following the cursors returns every item exactly once,
 * for runs and for comparisons (whose items embed both runs). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/parity-store-pages-______";

/* Walk a list to its end; checks each page; returns the number of items. */
static size_t walk(struct store *st, const char *items,
                   int (*list)(struct store *, int, const char *, json_t **), size_t *pages,
                   int64_t *ids, size_t cap)
{
	char cursor[64] = "";
	size_t n = 0;
	*pages = 0;
	for (;;) {
		json_t *page = NULL;
		CHECK_INT(list(st, 1000, cursor[0] ? cursor : NULL, &page), 0);
		if (!page)
			return n;
		json_t *arr = json_object_get(page, items);
		size_t bytes = 0, i;
		json_t *it;
		CHECK(json_array_size(arr) >= 1);
		json_array_foreach(arr, i, it)
		{
			bytes += json_dumpb(it, NULL, 0, JSON_COMPACT) + 1;
			if (n < cap)
				ids[n] = json_integer_value(json_object_get(it, "id"));
			n++;
		}
		CHECK(bytes <= STORE_PAGE_BYTES || json_array_size(arr) == 1);
		(*pages)++;
		const char *next = json_string_value(json_object_get(page, "next_cursor"));
		if (next)
			snprintf(cursor, sizeof cursor, "%s", next);
		json_decref(page);
		if (!next || *pages > 1000)
			return n;
	}
}

static int runs_list(struct store *st, int limit, const char *cursor, json_t **out)
{
	return store_runs_list(st, NULL, NULL, limit, cursor, out);
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
	if (!CHECK_MKDTEMP(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char path[256], err[256];
	snprintf(path, sizeof path, "%s/parity.db", dir);
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
	size_t n = walk(st, "runs", runs_list, &pages, seen, 64);
	CHECK_INT(n, 41);
	CHECK(distinct(seen, n < 64 ? n : 64));
	CHECK(pages >= 4); /* the huge one alone, then >= 3 pages of 2.4 MB */

	/* comparisons embed both runs: 20 of them weigh as much as 40 runs */
	int64_t cmp;
	for (int i = 0; i < 40; i += 2)
		CHECK_INT(store_comparison_create(st, run_ids[i], run_ids[i + 1], "training", "c",
		                                  NULL, NULL, &cmp),
		          0);
	n = walk(st, "comparisons", store_comparisons_list, &pages, seen, 64);
	CHECK_INT(n, 20);
	CHECK(distinct(seen, n < 64 ? n : 64));
	CHECK(pages >= 3);

	/* small items: the count limit still rules */
	json_t *page = NULL;
	CHECK_INT(store_comparisons_list(st, 5, NULL, &page), 0);
	CHECK_INT(json_array_size(json_object_get(page, "comparisons")), 5);
	json_decref(page);

	free(meta);
	free(huge);
	store_close(st);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return check_report();
}
