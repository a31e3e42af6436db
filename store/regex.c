/* regex.c - key filters: user regexes on op keys, made safe for a shared
 * daemon (hostile patterns must neither crash it nor hold a CPU).
 *
 * A filter is compiled ONCE per list read with PCRE2 (JIT when the
 * platform has it), under a pattern length limit, PCRE2's compiled-size
 * and nesting limits, and a match context with match, depth and heap
 * limits, so every key costs at most a bounded number of steps.  glibc's
 * regcomp/regexec had none of that (`(|a)(\1\1)*` crashed regexec,
 * back-references ran for minutes, `(.{1,1000}){1,1000}` made regcomp
 * allocate gigabytes; engineering notes section 7).
 *
 * The SQL of a read says `key REGEXP ?n`; the REGEXP function finds the
 * compiled filter on the connection (struct store.keymatch) instead of
 * compiling its argument, and refuses to run outside such a read.  The
 * first key over a limit stops the whole read (a per-key limit alone is
 * not a per-request one: 0.4 ms x 100k keys is 40 s), and an SQLite
 * progress handler bounds the read's wall-clock time and polls the
 * caller's cancel callback (the client left: stop).
 *
 * PCRE2's match limit counts per start position, so the cost of one key
 * grows with its length times that limit (`(?=.*z)` is quadratic: a
 * 200 KB key took 26 s).  A key longer than LONG_KEY is therefore matched
 * by a second compilation of the pattern with PCRE2_AUTO_CALLOUT, run by
 * the interpreter: PCRE2 calls back before every pattern item, and every
 * CALLOUT_CHECK calls the callback checks the read's deadline and cancel
 * callback, so the budget holds inside one key.  The callouts never
 * change the answer (the callback returns 0 to go on): a key is matched
 * as a whole, and a deadline that passes mid-key fails the read as too
 * costly.  Short keys keep the JIT (the loop is at most LONG_KEY start
 * positions).  With callouts, backtracking inside a repeat (`.*`) counts
 * toward the match limit, one step per character, so a long key's limit
 * grows by LONG_KEY_STEPS per byte (its time is bounded by the budget). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_int.h"

/* SQLite VM instructions between progress checks (~10-100 us of work). */
#define PROGRESS_OPS 1000
/* Minimum time between two calls of the cancel callback. */
#define CANCEL_POLL_MS 20
/* Keys longer than this are matched with callouts (bytes). */
#define LONG_KEY 1024
/* Extra match-limit steps per byte of a long key. */
#define LONG_KEY_STEPS 4
/* Callouts between two budget checks (~10-50 us of matching). */
#define CALLOUT_CHECK 256

struct store_keymatch {
	const char *pattern; /* the caller's text (valid during the read) */
	int icase;
	pcre2_code *re;
	pcre2_code *re_long; /* with auto callouts, compiled at the first long key */
	pcre2_match_context *mctx;
	unsigned callouts; /* since the last budget check */
	pcre2_match_data *md;
	int64_t deadline_ms; /* CLOCK_MONOTONIC ms; 0 = none */
	int budget_ms;
	int64_t next_poll_ms;
	int (*cancelled)(void *ctx);
	void *cancel_ctx;
	int stop; /* 0, or the STORE_* code that stopped the read */
	char why[320];
};

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void keymatch_free(struct store_keymatch *km)
{
	if (!km)
		return;
	pcre2_match_data_free(km->md);
	pcre2_match_context_free(km->mctx);
	pcre2_code_free(km->re_long);
	pcre2_code_free(km->re);
	free(km);
}

/* Compile errors that mean "too big or too complex", not "malformed". */
static int compile_error_is_cost(int code)
{
	switch (code) {
	case PCRE2_ERROR_PARENTHESES_NEST_TOO_DEEP:
	case PCRE2_ERROR_PATTERN_TOO_LARGE:
	case PCRE2_ERROR_HEAP_FAILED:
	case PCRE2_ERROR_PARENTHESES_STACK_CHECK:
	case PCRE2_ERROR_QUERY_BARJX_NEST_TOO_DEEP:
	case PCRE2_ERROR_PATTERN_TOO_COMPLICATED:
	case PCRE2_ERROR_PATTERN_STRING_TOO_LONG:
	case PCRE2_ERROR_TOO_MANY_CAPTURES: return 1;
	default: return 0;
	}
}

/* Match errors that mean a limit was reached. */
static int match_error_is_cost(int code)
{
	return code == PCRE2_ERROR_MATCHLIMIT || code == PCRE2_ERROR_DEPTHLIMIT ||
	       code == PCRE2_ERROR_HEAPLIMIT || code == PCRE2_ERROR_JIT_STACKLIMIT ||
	       code == PCRE2_ERROR_NOMEMORY;
}

/* Compile options: PCRE2's Perl syntax, nudged toward JavaScript's reading
 * of the same text (the offline report filters with JS RegExp): \u as in
 * JS, $ only at the very end, [] and [^], unset back-references match "".
 * UTF-8 mode with invalid bytes in subjects tolerated; no \C (it can split
 * a character). */
#define COMPILE_OPTIONS                                                                            \
	(PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_NEVER_BACKSLASH_C | PCRE2_ALT_BSUX |          \
	 PCRE2_ALLOW_EMPTY_CLASS | PCRE2_MATCH_UNSET_BACKREF | PCRE2_DOLLAR_ENDONLY)

/* km's pattern compiled with COMPILE_OPTIONS, its case mode and extra
 * (0 or PCRE2_AUTO_CALLOUT); NULL with *errcode and *erroff set. */
static pcre2_code *compile_code(const struct store_keymatch *km, uint32_t extra, int *errcode,
                                PCRE2_SIZE *erroff)
{
	pcre2_compile_context *cctx = pcre2_compile_context_create(NULL);
	if (!cctx) {
		*errcode = PCRE2_ERROR_HEAP_FAILED;
		return NULL;
	}
	pcre2_set_max_pattern_length(cctx, STORE_REGEX_MAX_LEN);
	pcre2_set_compile_extra_options(cctx, PCRE2_EXTRA_ALT_BSUX);
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)km->pattern, PCRE2_ZERO_TERMINATED,
	                               COMPILE_OPTIONS | extra | (km->icase ? PCRE2_CASELESS : 0),
	                               errcode, erroff, cctx);
	pcre2_compile_context_free(cctx);
	return re;
}

static int over_budget(struct store_keymatch *km);

/* PCRE2's callout (auto callouts of re_long, and the pattern's own
 * (?C..) ones): every CALLOUT_CHECK calls, the read's budget; a negative
 * return abandons the match (km->stop says why). */
static int callout(pcre2_callout_block *cb, void *p)
{
	struct store_keymatch *km = p;
	(void)cb;
	if (++km->callouts < CALLOUT_CHECK)
		return 0;
	km->callouts = 0;
	return over_budget(km) ? PCRE2_ERROR_CALLOUT : 0;
}

static int compile(struct store *st, struct store_keymatch *km)
{
	int errcode = 0, rc = 0;
	PCRE2_SIZE erroff = 0;

	km->re = compile_code(km, 0, &errcode, &erroff);
	if (!km->re) {
		PCRE2_UCHAR msg[200];
		if (pcre2_get_error_message(errcode, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "error %d", errcode);
		if (compile_error_is_cost(errcode))
			return store_fail(st, STORE_TOO_COSTLY,
			                  "the key regex is too costly to compile: %s",
			                  (char *)msg);
		return store_fail(st, STORE_BAD_REGEX,
		                  "invalid regular expression: %s at offset %zu", (char *)msg,
		                  (size_t)erroff);
	}
	/* JIT is an optimisation: without it (no JIT support, no executable
	 * memory) the interpreter runs under the same limits */
	(void)pcre2_jit_compile(km->re, PCRE2_JIT_COMPLETE);
	km->mctx = pcre2_match_context_create(NULL);
	/* one pair is enough: only "matched or not" is used (a match with
	 * more groups than pairs still returns >= 0) */
	km->md = pcre2_match_data_create(1, NULL);
	if (!km->mctx || !km->md)
		return store_fail(st, STORE_ERROR, "out of memory");
	/* a pattern's own (*LIMIT_MATCH=..) etc. can only lower these */
	if (pcre2_set_match_limit(km->mctx, STORE_REGEX_MATCH_LIMIT) < 0 ||
	    pcre2_set_depth_limit(km->mctx, STORE_REGEX_DEPTH_LIMIT) < 0 ||
	    pcre2_set_heap_limit(km->mctx, STORE_REGEX_HEAP_KIB) < 0 ||
	    pcre2_set_callout(km->mctx, callout, km) < 0)
		rc = store_fail(st, STORE_ERROR, "cannot set the regex limits");
	return rc;
}

/* The read's budget: 1 (km->stop set) when the deadline has passed or
 * the cancel callback (at most every CANCEL_POLL_MS) says stop. */
static int over_budget(struct store_keymatch *km)
{
	if (km->stop)
		return 1;
	int64_t now = mono_ms();
	if (km->deadline_ms && now >= km->deadline_ms) {
		km->stop = STORE_TOO_COSTLY;
		snprintf(km->why, sizeof km->why,
		         "the key regex is too costly: filtering took over the budget of %d ms; "
		         "use a simpler pattern or narrow the list (rank, phase, status)",
		         km->budget_ms);
		return 1;
	}
	if (km->cancelled && now >= km->next_poll_ms) {
		km->next_poll_ms = now + CANCEL_POLL_MS;
		if (km->cancelled(km->cancel_ctx)) {
			km->stop = STORE_CANCELLED;
			snprintf(km->why, sizeof km->why, "the read was cancelled (client gone)");
			return 1;
		}
	}
	return 0;
}

/* SQLite progress handler while a filtered read runs (between rows that
 * REGEXP never sees, e.g. other filters): non-zero interrupts the
 * statement; store_keymatch_end reports why. */
static int progress(void *p)
{
	return over_budget(p);
}

int store_keymatch_begin(struct store *st, const struct store_key_filter *kf,
                         const char **regex_out)
{
	struct store_keymatch *km = NULL;
	int rc;

	*regex_out = NULL;
	if (!kf || !kf->regex || !kf->regex[0])
		return 0;
	size_t len = strlen(kf->regex);
	if (len > STORE_REGEX_MAX_LEN)
		return store_fail(st, STORE_TOO_COSTLY,
		                  "the key regex is too costly: %zu bytes long, the limit is %d",
		                  len, STORE_REGEX_MAX_LEN);
	if (st->keymatch)
		return store_fail(st, STORE_ERROR, "a key-filtered read is already running");
	km = calloc(1, sizeof *km);
	if (!km)
		return store_fail(st, STORE_ERROR, "out of memory");
	km->pattern = kf->regex;
	km->icase = kf->icase;
	if ((rc = compile(st, km)) < 0)
		goto done;
	km->budget_ms = kf->budget_ms == 0 ? STORE_REGEX_BUDGET_MS : kf->budget_ms;
	int64_t now = mono_ms();
	km->deadline_ms = km->budget_ms > 0 ? now + km->budget_ms : 0;
	km->cancelled = kf->cancelled;
	km->cancel_ctx = kf->cancel_ctx;
	km->next_poll_ms = now;
	st->keymatch = km;
	km = NULL;
	if (st->backend == STORE_BACKEND_SQLITE)
		sqlite3_progress_handler(st->db, PROGRESS_OPS, progress, st->keymatch);
	*regex_out = kf->regex;
	rc = 0;
done:
	keymatch_free(km);
	return rc;
}

int store_keymatch_end(struct store *st, int rc)
{
	struct store_keymatch *km = st->keymatch;
	if (!km)
		return rc;
	if (st->backend == STORE_BACKEND_SQLITE)
		sqlite3_progress_handler(st->db, 0, NULL, NULL);
	st->keymatch = NULL;
	if (km->stop)
		rc = store_fail(st, km->stop, "%s", km->why);
	keymatch_free(km);
	return rc;
}

/* Match one key with the current filter, under the budget: 1 match,
 * 0 no match, -1 stop (km->stop and km->why set). */
static int match_key(struct store_keymatch *km, const unsigned char *text, size_t n)
{
	/* checked per key too: one key may cost up to the match limit, so
	 * the progress handler alone (every PROGRESS_OPS instructions) would
	 * overshoot the budget by dozens of keys */
	if (over_budget(km))
		return -1;
	pcre2_code *re = km->re;
	uint32_t limit = STORE_REGEX_MATCH_LIMIT;
	if (n > LONG_KEY) {
		int errcode = 0;
		PCRE2_SIZE erroff = 0;
		if (!km->re_long)
			km->re_long = compile_code(km, PCRE2_AUTO_CALLOUT, &errcode, &erroff);
		if (!km->re_long) { /* the callouts made it too big? */
			int cost = compile_error_is_cost(errcode);
			km->stop = cost ? STORE_TOO_COSTLY : STORE_ERROR;
			snprintf(km->why, sizeof km->why,
			         "%s for keys over %d bytes (PCRE2 error %d)",
			         cost ? "the key regex is too costly"
			              : "cannot compile the key regex",
			         LONG_KEY, errcode);
			return -1;
		}
		re = km->re_long;
		limit += (uint32_t)(n < UINT32_MAX / 8 ? n * LONG_KEY_STEPS : UINT32_MAX / 2);
	}
	(void)pcre2_set_match_limit(km->mctx, limit); /* cannot fail */
	int mrc = pcre2_match(re, text, n, 0, 0, km->md, km->mctx);
	if (km->stop) /* the deadline passed or the client left inside the key */
		return -1;
	if (mrc >= 0 || mrc == PCRE2_ERROR_NOMATCH)
		return mrc >= 0;
	if (match_error_is_cost(mrc)) {
		km->stop = STORE_TOO_COSTLY;
		snprintf(km->why, sizeof km->why,
		         "the key regex is too costly: matching one key took over the limit "
		         "(%lu steps, %d KiB); simplify it (nested quantifiers and "
		         "back-references backtrack)",
		         (unsigned long)limit, STORE_REGEX_HEAP_KIB);
	} else {
		PCRE2_UCHAR msg[160];
		if (pcre2_get_error_message(mrc, msg, sizeof msg) < 0)
			snprintf((char *)msg, sizeof msg, "error %d", mrc);
		km->stop = STORE_ERROR;
		snprintf(km->why, sizeof km->why, "matching the key regex: %s", (char *)msg);
	}
	return -1;
}

int store_keymatch_key(struct store *st, const char *key, size_t len)
{
	struct store_keymatch *km = st->keymatch;
	if (!km)
		return 1;
	if (!key)
		return over_budget(km) ? -1 : 0;
	return match_key(km, (const unsigned char *)key, len);
}

/* regexp(pattern, text): `X REGEXP Y` calls regexp(Y, X).  Matches with
 * the connection's current key filter, whose text the bound pattern must
 * be; a NULL text never matches. */
static void sql_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct store *st = sqlite3_user_data(ctx);
	struct store_keymatch *km = st->keymatch;
	const char *pat = (const char *)sqlite3_value_text(argv[0]);
	(void)argc;

	if (!km || !pat || strcmp(pat, km->pattern) != 0) {
		sqlite3_result_error(ctx, "REGEXP is only available to key-filtered reads", -1);
		return;
	}
	if (over_budget(km)) {
		sqlite3_result_error(ctx, km->why, -1);
		return;
	}
	if (sqlite3_value_type(argv[1]) == SQLITE_NULL) {
		sqlite3_result_int(ctx, 0);
		return;
	}
	const unsigned char *text = sqlite3_value_text(argv[1]);
	if (!text) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	int m = match_key(km, text, (size_t)sqlite3_value_bytes(argv[1]));
	if (m < 0)
		sqlite3_result_error(ctx, km->why, -1);
	else
		sqlite3_result_int(ctx, m);
}

int store_keymatch_register(struct store *st)
{
	/* not DETERMINISTIC: the result depends on the connection's filter;
	 * DIRECTONLY: never callable from schema objects (views, triggers) */
	int src = sqlite3_create_function_v2(st->db, "regexp", 2, SQLITE_UTF8 | SQLITE_DIRECTONLY,
	                                     st, sql_regexp, NULL, NULL, NULL);
	if (src != SQLITE_OK)
		return store_sqlfail(st, src, "registering REGEXP");
	return 0;
}
