/* actcheck.h - the verdict of an activation comparison: policies (bitwise
 * and tolerance), which rows count against the candidate, and the reasons a
 * CI job and a user read.
 *
 * Contract: the activation part of matcher/spec/checks.md.  Works on one
 * rank pair's match result; matcher_verdict_worst combines ranks (the worst
 * rank's verdict wins).  Pure C, no I/O, no globals, no jansson: server/
 * turns the structs into JSON.  Thread-safe on distinct objects. */
#ifndef PARITY_ACTCHECK_H
#define PARITY_ACTCHECK_H

#include <stddef.h>

#include "match.h"
#include "verdict.h"

enum matcher_act_policy_kind {
	MATCHER_POLICY_BITWISE = 0, /* pass iff no diff, a_only or b_only row */
	MATCHER_POLICY_TOLERANCE    /* see struct matcher_act_policy */
};

/* A policy.  The tolerance form tolerates diff rows whose shapes agree and
 * whose output and input hash distances are both <= max_hash_distance (a
 * missing distance counts as 0), and only-rows whose op type (the ATen op
 * name, e.g. "wait_tensor" of ".../op_3_wait_tensor") is listed.  Strings
 * are borrowed from the caller for as long as the policy is used. */
struct matcher_act_policy {
	enum matcher_act_policy_kind kind;
	double max_hash_distance; /* tolerance only; finite, >= 0 */
	const char *const *allow_only_ops;
	size_t n_allow_only_ops;
};

/* Limits of a policy (issue 23 F4): allow_only_ops names at most
 * MATCHER_ACT_MAX_OPS ops of at most MATCHER_ACT_MAX_OP_BYTES bytes each. */
#define MATCHER_ACT_MAX_OPS      1000
#define MATCHER_ACT_MAX_OP_BYTES 256

/* Bitwise policy (the default). */
void matcher_act_policy_init(struct matcher_act_policy *p);
/* 0 when p is well-formed and within the limits above, else -1 with a
 * message in msg (cap bytes) naming the rule or limit broken. */
int matcher_act_policy_validate(const struct matcher_act_policy *p, char *msg, size_t cap);
/* "bitwise" or "tolerance". */
const char *matcher_act_policy_name(const struct matcher_act_policy *p);

/* One reason behind a verdict.  Codes (static strings):
 *   diff_rows     paired rows that differ, beyond the policy
 *   a_only_rows   ops only in run A, not allowed by the policy
 *   b_only_rows   ops only in run B, not allowed by the policy
 * Details: `count` rows counted against the verdict, `tolerated` rows of
 * the same kind the policy forgave, and the first counted row (row order;
 * first_row indexes the match result's rows, or MATCHER_NO_ROW).  For
 * diff_rows also the first counted diff per phase and the largest counted
 * hash distance (< 0 none). */
struct matcher_act_reason {
	const char *code;
	char message[1024];
	size_t count;
	size_t tolerated;
	size_t first_row;
	size_t first_row_phase[2]; /* diff_rows: per phase; else NO_ROW */
	double max_hash_distance;  /* diff_rows: largest counted; else -1 */
};

#define MATCHER_ACT_MAX_REASONS 3

struct matcher_act_verdict {
	enum matcher_verdict verdict;
	struct matcher_act_reason reasons[MATCHER_ACT_MAX_REASONS];
	size_t n_reasons;   /* 0 when the verdict is pass */
	size_t n_tolerated; /* rows forgiven by a tolerance policy */
};

/* Apply policy p (NULL = bitwise) to one rank's match result.  Fills *out
 * (caller's struct; rows are re-derived into a scratch view, freed before
 * it returns).  Returns 0, or -1 when the policy is invalid (out->verdict
 * is then ERROR with one reason "bad_policy") or memory ran out (one
 * reason "oom"). */
int matcher_act_check(const struct matcher_match_result *r, const struct matcher_act_policy *p,
                      struct matcher_act_verdict *out);

/* 1 when the policy forgives this row (match rows: always 1). */
int matcher_act_row_tolerated(const struct matcher_row *row, const struct matcher_act_policy *p);

#endif
