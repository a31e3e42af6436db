/* lists.c - a list that pages forward by row id (the webhooks and
 * golden baselines lists). */
#include <stdint.h>

#include "store_int.h"

int store_q_list_after_id(
        struct store *st, const char *sql, const char *cursor, char tag, int limit,
        int (*item_fn)(struct store *st, struct store_q *q, void *ctx, size_t *bytes),
        void (*drop_fn)(void *ctx), void *ctx, const char *what, char next_cursor[64])
{
	int64_t after = 0;
	int rc = store_cursor_parse(st, cursor, tag, &after, 1);
	if (rc < 0)
		return rc;
	limit = store_clamp_limit(limit);
	struct store_q *q = store_prep(st, sql);
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, after);
	store_q_bind_i64(q, 2, limit + 1);
	static const int keys[] = {0};
	/* the walk ends with store_q_done, which frees q */
	return store_q_page_walk(st, q, limit, tag, keys, 1, item_fn, drop_fn, ctx, what,
	                         next_cursor);
}
