/* limits.c - the size limits on what clients store, shared by every
 * endpoint that accepts the value (runs: upload.c; comparisons:
 * h_comparisons.c), so one rule and one message apply everywhere; and
 * the nesting limit of every JSON document a client sends.
 * Lists are bounded separately, per page, by STORE_PAGE_BYTES. */
#include <string.h>
#include "base.h"

int srv_name_ok(const char *name, size_t n)
{
	return n <= SRV_NAME_MAX && (!n || !memchr(name, 0, n));
}

/* 1 when v is at most max levels deep (see srv_json_depth_ok). */
static int depth_within(const json_t *v, int max)
{
	if (!json_is_object(v) && !json_is_array(v))
		return 1;
	if (max <= 0)
		return 0;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			if (!depth_within(json_array_get(v, i), max - 1))
				return 0;
		return 1;
	}
	const char *key;
	json_t *child;
	/* json_object_foreach needs a non-const object; nothing is changed */
	json_object_foreach((json_t *)v, key, child)
	{
		(void)key;
		if (!depth_within(child, max - 1))
			return 0;
	}
	return 1;
}

int srv_json_depth_ok(const json_t *v)
{
	return depth_within(v, SRV_JSON_DEPTH_MAX);
}
