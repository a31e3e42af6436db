/* trainpolicy.h - a training policy as a request states it, and the pure
 * function that resolves it into a struct matcher_train_policy.
 *
 * The request's policy (a preset name, or an object of overrides) and the
 * request-level overrides of POST /comparisons (metrics, extra_metrics,
 * thresholds, min_steps, allow_warnings, rank) arrive as JSON at the API
 * edge; the edge's thin adapter (web/json_train.c) only copies them into
 * the specs below, marking what it saw (absent, a value, or a value of the
 * wrong type), and every rule - presets, which override makes the policy
 * custom, the default threshold of an added metric, ranges, and the error
 * sentences the API returns - lives here.  Fields are checked in a fixed
 * order (name, metrics, if_logged, thresholds, min_steps, allow_warnings,
 * rank; then the request's metrics, extra_metrics, thresholds, min_steps,
 * allow_warnings, rank), so the first error reported does not depend on
 * the adapter.  No I/O, no allocation; strings are borrowed. */
#ifndef PARITY_TRAINPOLICY_H
#define PARITY_TRAINPOLICY_H

#include <stddef.h>

#include "traincheck.h"

/* What a request gave for one field. */
enum matcher_spec_state {
	MATCHER_SPEC_ABSENT = 0, /* not given (or JSON null where null means absent) */
	MATCHER_SPEC_SET,        /* a value of the right type */
	MATCHER_SPEC_BAD         /* a value of the wrong type */
};

/* A list of metric names: given 0 = absent; names NULL = given but not a
 * list; an entry NULL = not a name (not a string). */
struct matcher_train_names {
	int given;
	const char *const *names;
	size_t n;
};

/* One threshold override.  Policy form ("thresholds" of a policy object):
 * {"abs":X,"rel":Y} or a bare number = abs; abs absent keeps the preset's
 * (or no bound), rel absent/null = none.  Request form ("thresholds" of
 * the request): the same, but abs absent is the preset's default for an
 * added metric, and anything else that is not a number is a bad
 * threshold. */
struct matcher_train_th_spec {
	const char *metric;
	enum matcher_spec_state abs_state, rel_state;
	double abs, rel;
};

/* A set of threshold overrides: given 0 = absent; th NULL = given but
 * not an object of metric: threshold. */
struct matcher_train_ths {
	int given;
	const struct matcher_train_th_spec *th;
	size_t n;
};

/* The scalar overrides (min_steps, allow_warnings, rank): state and value
 * (SET only for an integer / a boolean; ranges are checked here). */
struct matcher_train_scalars {
	enum matcher_spec_state min_steps_state, allow_warnings_state, rank_state;
	long long min_steps, rank;
	int allow_warnings;
};

/* A policy: given 0 = none (premerge); is_name / is_object what it was
 * (neither: an error); name NULL = none given (premerge), "custom" starts
 * from base (NULL = premerge). */
struct matcher_train_policy_spec {
	int given, is_name, is_object;
	const char *name, *base;
	struct matcher_train_names metrics, if_logged;
	struct matcher_train_ths thresholds;
	struct matcher_train_scalars s; /* rank: null = absent */
};

/* POST /comparisons's training fields: the policy, then the request-level
 * overrides applied to it. */
struct matcher_train_request {
	struct matcher_train_policy_spec policy;
	struct matcher_train_names metrics, extra_metrics;
	struct matcher_train_ths thresholds;
	struct matcher_train_scalars s; /* rank: null is bad */
};

/* Resolve a policy spec into *p.  0, or -1 with a sentence in msg. */
int matcher_train_policy_resolve(const struct matcher_train_policy_spec *s,
                                 struct matcher_train_policy *p, char *msg, size_t cap);
/* Resolve a request: its policy, then metrics (the exact compared set),
 * extra_metrics (added), thresholds, min_steps, allow_warnings, rank.
 * 0, or -1 with a sentence in msg. */
int matcher_train_request_resolve(const struct matcher_train_request *r,
                                  struct matcher_train_policy *p, char *msg, size_t cap);
/* Apply a list of metric names: add 0 = the exact compared set (every
 * one explicit), add 1 = added to the policy's set; a metric new to the
 * policy gets the preset's threshold.  Errors name the list "metrics"
 * (add 0) or "extra_metrics" (add 1).  0, or -1 with a sentence in msg. */
int matcher_train_policy_names(struct matcher_train_policy *p, const struct matcher_train_names *l,
                               int add, char *msg, size_t cap);

/* ---- the stored form ----------------------------------------------------
 * A resolved policy as text, what the service stores with a training
 * comparison and its job reads back without JSON: a first line
 * "parity-train-policy 1", then "name N", "base B", "min_steps K",
 * "allow_warnings 0|1", "rank R" (-1: default), for the noise policy
 * "noise ALPHA_STEP ALPHA_RUN MIN_RUNS" (hexadecimal floats), and one line per compared
 * metric in order, "th METRIC ABS REL IF_LOGGED" (ABS and REL as C99
 * hexadecimal floats, exact; REL "-" when none; inf as "inf"), followed
 * by " ALLOW_PCT MEDIAN_WINDOW" when either is set (policy megatron).  Names are
 * written with bytes <= 0x20, '%' and 0x7f as %XX.  Lines end in LF. */
#define MATCHER_TRAIN_POLICY_TEXT "parity-train-policy 1\n"
/* Append the stored form of p to out.  0, or -1 on OOM. */
int matcher_train_policy_format(const struct matcher_train_policy *p, struct buf *out);
/* 1 when p is the noise policy or a custom policy based on it. */
int matcher_train_policy_is_noise(const struct matcher_train_policy *p);
/* 1 when s is a stored form (starts with its first line), else 0. */
int matcher_train_policy_is_text(const char *s);
/* Read a stored form back into *p (exactly the policy formatted).  0, or
 * -1 when s is not a well-formed stored form (*p then premerge). */
int matcher_train_policy_parse(const char *s, struct matcher_train_policy *p);

#endif
