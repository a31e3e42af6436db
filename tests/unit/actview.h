/* actview.h - test shorthands for the matcher's compact records: entry i
 * of a collected log and row i of a match result, re-derived into one of
 * a ring of views (valid for the next ACTVIEW_RING calls of the same
 * kind; the views live until exit). */
#ifndef PARITY_TEST_ACTVIEW_H
#define PARITY_TEST_ACTVIEW_H

#include "actlog.h"
#include "match.h"

#define ACTVIEW_RING 8

static inline const struct matcher_entry *ENTRY(const struct matcher_actlog *log, size_t i)
{
	static struct matcher_entry_view v[ACTVIEW_RING];
	static unsigned k;
	struct matcher_entry_view *x = &v[k++ % ACTVIEW_RING];

	return matcher_actlog_entry(log, i, x);
}

static inline const struct matcher_row *ROW(const struct matcher_match_result *r, size_t i)
{
	static struct matcher_row_view v[ACTVIEW_RING];
	static unsigned k;
	struct matcher_row_view *x = &v[k++ % ACTVIEW_RING];

	return matcher_result_row(r, i, x);
}

#endif
