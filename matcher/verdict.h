/* verdict.h - the verdict every comparison ends in (spec: checks.md),
 * shared by the activation check (actcheck.h) and the training check
 * (traincheck.h).  Ordered so that combining ranks is a max. */
#ifndef PARITY_VERDICT_H
#define PARITY_VERDICT_H

enum matcher_verdict {
	MATCHER_VERDICT_PASS = 0, /* consistent under the policy */
	MATCHER_VERDICT_FAIL = 1, /* not consistent: a reason names where */
	MATCHER_VERDICT_ERROR = 2 /* the comparison cannot be trusted */
};

/* "pass", "fail", "error" (static strings; anything else -> "error"). */
const char *matcher_verdict_name(enum matcher_verdict v);
/* The worse of two verdicts (error > fail > pass). */
enum matcher_verdict matcher_verdict_worst(enum matcher_verdict a, enum matcher_verdict b);

#endif
