/* store_filter.h - part of store.h, which includes it (include store.h,
 * never this file alone): key filters: the regex and limits every key-
 * filtered read takes (store/regex.c). */
#ifndef PARITY_STORE_FILTER_H
#define PARITY_STORE_FILTER_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- key filters (store/regex.c) ---------------------------------------- */

/* Limits of a key regex (the same on every backend). */
#define STORE_REGEX_MAX_LEN     1000   /* pattern bytes */
#define STORE_REGEX_MATCH_LIMIT 100000 /* backtracking steps per key */
#define STORE_REGEX_DEPTH_LIMIT 10000  /* backtracking depth per key */
#define STORE_REGEX_HEAP_KIB    4096   /* matcher heap per key */
#define STORE_REGEX_BUDGET_MS   1500   /* default time budget of one filtered read */

/* A filter on op keys for the list reads (store_ops_list,
 * store_comparison_rows_list).  The regex is PCRE2 syntax (Perl- and
 * JavaScript-like: \d, \w, (?i), lookarounds, backreferences), searched
 * anywhere in the key (anchor with ^ and $), UTF-8 with invalid bytes in
 * keys never matching a character; \uHHHH and \u{H..} as in JavaScript,
 * "$" only at the very end, [] never and [^] any character.  It is
 * compiled once per read.  Limits: STORE_REGEX_MAX_LEN bytes (longer:
 * STORE_TOO_COSTLY), a compiled-size and nesting limit (STORE_TOO_COSTLY),
 * STORE_REGEX_MATCH_LIMIT steps, STORE_REGEX_DEPTH_LIMIT backtracking
 * depth and STORE_REGEX_HEAP_KIB per key (the
 * first key over them stops the read: STORE_TOO_COSTLY; a key over 1 KiB
 * gets 4 more steps a byte), and a wall-clock budget for the whole read,
 * checked inside a long key too (STORE_TOO_COSTLY when over).  A pattern that
 * does not compile is STORE_BAD_REGEX (errmsg: PCRE2's reason and offset).
 * Budget and cancel callback apply only when regex is set. */
struct store_key_filter {
	const char *regex; /* NULL or "" = every key */
	int icase;         /* non-zero: case-insensitive (like a leading (?i)); the daemon
	                    * sets it unless case=sensitive / icase=0 (srv_key_icase) */
	int budget_ms;     /* 0 = STORE_REGEX_BUDGET_MS, < 0 = no time limit */
	/* NULL, or polled about every 20 ms while the read runs (on the
	 * calling thread): non-zero stops it with STORE_CANCELLED. */
	int (*cancelled)(void *ctx);
	void *cancel_ctx;
};

#endif
