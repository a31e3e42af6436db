/* actload.h - tests: parse an activation log under tests/ (rel, e.g.
 * "data/match/p1_a.log") with the matcher; CHECKs that it parses and
 * returns the log (matcher_actlog_free) or NULL. */
#ifndef PARITY_TEST_ACTLOAD_H
#define PARITY_TEST_ACTLOAD_H

#include <stdio.h>
#include <stdlib.h>

#include "actlog.h"
#include "check.h"

static inline struct matcher_actlog *load(const char *rel)
{
	char p[4096];
	size_t n = 0;
	char *text = check_slurp(check_testfile(rel, p, sizeof(p)), &n);
	struct matcher_actlog *log = NULL;
	struct matcher_error err;

	CHECK(text != NULL);
	if (text && matcher_actlog_parse_buffer(text, n, &log, &err) < 0)
		fprintf(stderr, "%s: %s\n", p, err.message);
	CHECK(log != NULL);
	free(text);
	return log;
}

#endif
