/* limits.c - the size limits on what clients store, shared by every
 * endpoint that accepts the value (runs: upload.c; comparisons:
 * h_comparisons.c), so one rule and one message apply everywhere.
 * Lists are bounded separately, per page, by STORE_PAGE_BYTES. */
#include <string.h>
#include "base.h"

int srv_name_ok(const char *name, size_t n)
{
	return n <= SRV_NAME_MAX && (!n || !memchr(name, 0, n));
}
