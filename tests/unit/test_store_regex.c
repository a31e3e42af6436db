/* test_store_regex.c - key filters (store/regex.c) on a run of 2,000
 * entries and a comparison: PCRE2 syntax and results (\d, anchors,
 * (?i) and the icase flag, UTF-8 keys, keys with invalid bytes), invalid
 * patterns (STORE_BAD_REGEX with PCRE2's offset), the limits
 * (STORE_TOO_COSTLY: pattern length, nesting, backtracking steps even when
 * the pattern asks for more, the time budget), the cancel callback
 * (STORE_CANCELLED, polled only while a regex read runs), the glibc
 * killers answered quickly, the budget and cancel callback holding
 * inside one long key, and the connection staying usable after a
 * stopped read. */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

#define N_KEYS 2000

/* A pattern that stays under the per-key step limit but costs ~1 ms per
 * key in the interpreter: 2,000 keys take seconds without a budget. */
#define SLOW_PATTERN "(*NO_JIT)(*NO_START_OPT)^(.{0,30})(.{0,30})(.{0,30})Z"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Number of ops the filter keeps (all pages of 1000), or the STORE_* code. */
static long ops_n(struct store *st, int64_t run, const struct store_key_filter *kf)
{
	struct store_op_page page;
	int rc = store_ops_list(st, run, -1, NULL, kf, 1000, NULL, &page);
	long n = rc < 0 ? rc : (long)page.n_ops;
	if (rc == 0 && page.next_cursor[0]) {
		struct store_op_page more;
		rc = store_ops_list(st, run, -1, NULL, kf, 1000, page.next_cursor, &more);
		n = rc < 0 ? rc : n + (long)more.n_ops;
		store_op_page_free(&more);
	}
	store_op_page_free(&page);
	return n;
}

static long re_n(struct store *st, int64_t run, const char *re, int icase)
{
	struct store_key_filter kf = {.regex = re, .icase = icase};
	return ops_n(st, run, &kf);
}

/* Add the forward entry i (line i + 1) keyed key to log. */
static void add_key(struct store *st, int64_t log, const char *key, int i)
{
	struct matcher_entry e;
	memset(&e, 0, sizeof e);
	e.key = key;
	e.line = (unsigned long)i + 1;
	e.order = (size_t)i;
	e.phase = MATCHER_FORWARD;
	CHECK_INT(store_entry_add(st, log, &e), 0);
}

static int64_t make_run(struct store *st)
{
	int64_t run = 0, log = 0;
	char key[128];
	CHECK_INT(store_run_create(st, "regex", "activation", NULL, &run), 0);
	CHECK_INT(store_log_create(st, run, 0, NULL, 1, "regex-0", &log), 0);
	CHECK_INT(store_tx_begin(st), 0);
	for (int i = 0; i < N_KEYS; i++) {
		if (i == 0)
			snprintf(key, sizeof key, "Embedding/op_0_Lookup");
		else if (i == 1)
			snprintf(key, sizeof key, "mod\xff\xfe/op_1_caf\xc3\xa9");
		else /* op 7 is a softmax: the back-reference killer needs an x */
			snprintf(key, sizeof key, "FSDPLlama3Model.layers.%d.attention.wq/op_%d_%s",
			         i / 20, i % 20, i % 20 == 7 ? "softmax" : "mm");
		add_key(st, log, key, i);
	}
	CHECK_INT(store_tx_commit(st), 0);
	return run;
}

static void test_syntax(struct store *st, int64_t run)
{
	/* layers 10..19, 20 ops each (key 0 and 1 are not layer keys) */
	CHECK_INT(re_n(st, run, "layers\\.1\\d\\.", 0), 200);
	CHECK_INT(re_n(st, run, "^FSDP.*layers\\.(?:5|7)\\.attention\\.wq/op_1[0-9]_mm$", 0), 20);
	CHECK_INT(re_n(st, run, "op_\\d+_mm$", 0), N_KEYS - 2 - N_KEYS / 20);
	CHECK_INT(re_n(st, run, "softmax$", 0), N_KEYS / 20);
	CHECK_INT(re_n(st, run, "(?<=layers\\.)99\\b", 0), 20);
	CHECK_INT(re_n(st, run, "no-such-key", 0), 0);
	/* case: sensitive by default, (?i) and the flag agree */
	CHECK_INT(re_n(st, run, "LAYERS\\.1\\d\\.", 0), 0);
	CHECK_INT(re_n(st, run, "(?i)LAYERS\\.1\\d\\.", 0), 200);
	CHECK_INT(re_n(st, run, "LAYERS\\.1\\d\\.", 1), 200);
	CHECK_INT(re_n(st, run, "embedding/OP_0_lookup", 1), 1);
	CHECK_INT(re_n(st, run, "embedding/OP_0_lookup|layers\\.3\\.", 1), 21);
	/* UTF-8: "." is one character; invalid key bytes match nothing */
	CHECK_INT(re_n(st, run, "op_1_caf.$", 0), 1);
	CHECK_INT(re_n(st, run, "op_1_caf\\u00e9$", 0), 1);
	/* both stores keep each invalid byte as U+FFFD (issue 23), which "."
	 * matches */
	CHECK_INT(re_n(st, run, "^mod../op_1", 0), 1);
	CHECK_INT(re_n(st, run, "^mod\xef\xbf\xbd{2}/op_1", 0), 1);
	CHECK_INT(re_n(st, run, "/op_1_caf", 0), 1);
	/* JavaScript readings: [^] any character, $ only at the end */
	CHECK_INT(re_n(st, run, "^Embedding[^]op_0", 0), 1);
	/* no filter */
	CHECK_INT(re_n(st, run, NULL, 0), N_KEYS);
	CHECK_INT(re_n(st, run, "", 1), N_KEYS);
	CHECK_INT(ops_n(st, run, NULL), N_KEYS);
}

static void test_invalid(struct store *st, int64_t run)
{
	const char *bad[] = {"(", "layers.(", "[", "a{2,1}", "\\", "(?<n>a)(?<n>b)", "\xff"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct store_op_page page;
		struct store_key_filter kf = {.regex = bad[i]};
		CHECK_INT(store_ops_list(st, run, -1, NULL, &kf, 10, NULL, &page), STORE_BAD_REGEX);
		CHECK_INT(page.n_ops, 0);
		store_op_page_free(&page);
		CHECK(strstr(store_errmsg(st), "invalid regular expression") != NULL);
	}
	CHECK_INT(re_n(st, run, "layers.(", 0), STORE_BAD_REGEX);
	CHECK(strstr(store_errmsg(st), "missing closing parenthesis at offset 8") != NULL);
	printf("invalid: %s\n", store_errmsg(st));
}

static void test_limits(struct store *st, int64_t run)
{
	char pat[1200];
	/* length: 1000 bytes compile, 1001 do not */
	memset(pat, 'a', 1000);
	pat[1000] = 0;
	CHECK_INT(re_n(st, run, pat, 0), 0);
	memset(pat, 'a', 1001);
	pat[1001] = 0;
	CHECK_INT(re_n(st, run, pat, 0), STORE_TOO_COSTLY);
	CHECK(strstr(store_errmsg(st), "1001 bytes") != NULL);
	/* nesting over PCRE2's limit: too costly, not invalid */
	memset(pat, '(', 300);
	pat[300] = 'a';
	memset(pat + 301, ')', 300);
	pat[601] = 0;
	CHECK_INT(re_n(st, run, pat, 0), STORE_TOO_COSTLY);
	printf("nesting: %s\n", store_errmsg(st));

	/* the patterns that crashed or hung glibc: answered at once */
	const char *hostile[] = {"(|a)(\\1\\1)*",
	                         "(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x",
	                         "(.{1,1000}){1,1000}",
	                         "^(\\w+\\.?)+$",
	                         "(*LIMIT_MATCH=1000000000)(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x",
	                         "(*NO_JIT)(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x"};
	const long want[] = {N_KEYS,           STORE_TOO_COSTLY, N_KEYS,
	                     STORE_TOO_COSTLY, STORE_TOO_COSTLY, STORE_TOO_COSTLY};
	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		double t0 = now_ms();
		long n = re_n(st, run, hostile[i], 0);
		double ms = now_ms() - t0;
		CHECK_INT(n, want[i]);
		CHECK(ms < 1000);
		printf("%-60s -> %ld in %.1f ms%s%s\n", hostile[i], n, ms, n < 0 ? ": " : "",
		       n < 0 ? store_errmsg(st) : "");
		if (n == STORE_TOO_COSTLY)
			CHECK(strstr(store_errmsg(st), "too costly") != NULL);
	}
}

struct poll_count {
	int calls;
	int stop_at; /* return 1 on this call (0 = never) */
	int sleep_ms;
};

static int count_cancel(void *ctx)
{
	struct poll_count *p = ctx;
	p->calls++;
	if (p->sleep_ms) {
		struct timespec ts = {0, (long)p->sleep_ms * 1000000L};
		nanosleep(&ts, NULL);
	}
	return p->stop_at && p->calls >= p->stop_at;
}

static void test_budget(struct store *st, int64_t run)
{
	/* the time budget stops a read that no single key stops */
	struct store_key_filter kf = {.regex = SLOW_PATTERN, .budget_ms = 50};
	double t0 = now_ms();
	CHECK_INT(ops_n(st, run, &kf), STORE_TOO_COSTLY);
	double ms = now_ms() - t0;
	CHECK(ms >= 45 && ms < 5000); /* ms clock; the upper bound is loose for loaded machines */
	CHECK(strstr(store_errmsg(st), "budget of 50 ms") != NULL);
	printf("budget 50 ms: stopped after %.1f ms: %s\n", ms, store_errmsg(st));

	/* a slow cancel poll uses up the budget: the deadline is wall-clock */
	struct poll_count pc = {.sleep_ms = 30};
	kf = (struct store_key_filter){
	        .regex = "layers", .budget_ms = 1, .cancelled = count_cancel, .cancel_ctx = &pc};
	CHECK_INT(ops_n(st, run, &kf), STORE_TOO_COSTLY);
	/* (no check on pc.calls: on a loaded machine the 1 ms can run out
	 * before the first poll, which is the same verdict) */

	/* cancel: polled every ~20 ms while the read runs; stops it */
	pc = (struct poll_count){.stop_at = 3};
	kf = (struct store_key_filter){.regex = SLOW_PATTERN,
	                               .budget_ms = -1,
	                               .cancelled = count_cancel,
	                               .cancel_ctx = &pc};
	t0 = now_ms();
	CHECK_INT(ops_n(st, run, &kf), STORE_CANCELLED);
	ms = now_ms() - t0;
	CHECK_INT(pc.calls, 3);
	CHECK(ms >= 35 && ms < 5000); /* two 20 ms intervals (ms clock); loose upper bound */
	printf("cancelled on the 3rd poll after %.1f ms: %s\n", ms, store_errmsg(st));

	/* a cheap read with a callback: polled, never told to stop */
	pc = (struct poll_count){0};
	kf = (struct store_key_filter){
	        .regex = "layers\\.1\\d\\.", .cancelled = count_cancel, .cancel_ctx = &pc};
	CHECK_INT(ops_n(st, run, &kf), 200);
	CHECK(pc.calls >= 1);
	/* no regex: no budget, no polls */
	pc = (struct poll_count){.stop_at = 1};
	kf = (struct store_key_filter){
	        .cancelled = count_cancel, .cancel_ctx = &pc, .budget_ms = 1};
	CHECK_INT(ops_n(st, run, &kf), N_KEYS);
	CHECK_INT(pc.calls, 0);

	/* the connection is fine after stopped reads: no handler left */
	CHECK_INT(re_n(st, run, "layers\\.1\\d\\.", 0), 200);
	CHECK_INT(ops_n(st, run, NULL), N_KEYS);
	CHECK_INT(pc.calls, 0);
}

/* Keys of LONG_KEY_BYTES: PCRE2's match limit counts per start position,
 * so (?=.*z) on such a key is quadratic (26 s for 200 KB before the
 * budget was checked inside a key). */
#define LONG_KEY_BYTES 120000

/* A run of three keys: "short", LONG_KEY_BYTES of 'a', and the same
 * ending in "z". */
static int64_t long_key_run(struct store *st)
{
	int64_t run = 0, log = 0;
	char *key = malloc(LONG_KEY_BYTES + 1);
	CHECK(key != NULL);
	if (!key)
		return 0;
	CHECK_INT(store_run_create(st, "long-keys", "activation", NULL, &run), 0);
	CHECK_INT(store_log_create(st, run, 0, NULL, 1, "long-0", &log), 0);
	CHECK_INT(store_tx_begin(st), 0);
	for (int i = 0; i < 3; i++) {
		memset(key, 'a', LONG_KEY_BYTES);
		key[LONG_KEY_BYTES] = 0;
		if (i == 0)
			snprintf(key, LONG_KEY_BYTES, "short");
		else if (i == 2)
			key[LONG_KEY_BYTES - 1] = 'z';
		add_key(st, log, key, i);
	}
	CHECK_INT(store_tx_commit(st), 0);
	free(key);
	return run;
}

/* The budget and the cancel callback hold inside one long key (issue 23
 * F2), and long keys are still matched as a whole. */
static void test_long_keys(struct store *st)
{
	int64_t run = long_key_run(st);
	/* whole-key answers on the callout path */
	const struct {
		const char *re;
		long want;
	} cases[] = {{"a{10}z$", 1},  {"^a+z$", 1}, {"(?<=a)z", 1}, {"^a+$", 1},
	             {"short|z$", 2}, {"^b", 0},    {"a{2000}", 2}, {"^A+Z$", 1}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double t0 = now_ms();
		long n = re_n(st, run, cases[i].re, i == 7);
		if (n != cases[i].want)
			fprintf(stderr, "long key case %s: %s\n", cases[i].re, store_errmsg(st));
		CHECK_INT(n, cases[i].want);
		printf("long keys %-10s -> %ld in %.1f ms\n", cases[i].re, n, now_ms() - t0);
	}
	/* the budget inside one key: the first long key has no z */
	struct store_key_filter kf = {.regex = "(?=.*z)", .icase = 0, .budget_ms = 300};
	double t0 = now_ms();
	CHECK_INT(ops_n(st, run, &kf), STORE_TOO_COSTLY);
	double ms = now_ms() - t0;
	if (!strstr(store_errmsg(st), "budget of 300 ms"))
		fprintf(stderr, "long key: %s\n", store_errmsg(st));
	CHECK(strstr(store_errmsg(st), "budget of 300 ms") != NULL);
	CHECK(ms >= 250 && ms < 1500);
	printf("(?=.*z) on a %d-byte key, budget 300 ms: stopped after %.1f ms\n", LONG_KEY_BYTES,
	       ms);
	/* the default budget too */
	kf.budget_ms = 0;
	t0 = now_ms();
	CHECK_INT(ops_n(st, run, &kf), STORE_TOO_COSTLY);
	ms = now_ms() - t0;
	CHECK(ms < STORE_REGEX_BUDGET_MS + 1000);
	printf("default budget: stopped after %.1f ms\n", ms);
	/* the cancel callback inside one key */
	struct poll_count pc = {.stop_at = 3};
	kf = (struct store_key_filter){
	        .regex = "(?=.*z)", .budget_ms = -1, .cancelled = count_cancel, .cancel_ctx = &pc};
	t0 = now_ms();
	CHECK_INT(ops_n(st, run, &kf), STORE_CANCELLED);
	ms = now_ms() - t0;
	CHECK_INT(pc.calls, 3);
	CHECK(ms >= 35 && ms < 1500);
	printf("cancelled inside a key on the 3rd poll after %.1f ms\n", ms);
	/* the connection is fine afterwards */
	CHECK_INT(re_n(st, run, "short", 0), 1);
}

/* A run of 300 entries (layer i / 10, op i % 10) keyed like an eager run
 * ("layers.N...") or, with model, a traced one ("Model.Layers.N..."). */
static int64_t keyed_run(struct store *st, const char *name, int model, int64_t *log)
{
	int64_t run = 0;
	char key[128];
	CHECK_INT(store_run_create(st, name, "activation", NULL, &run), 0);
	CHECK_INT(store_log_create(st, run, 0, NULL, 1, name, log), 0);
	CHECK_INT(store_tx_begin(st), 0);
	for (int i = 0; i < 300; i++) {
		if (model)
			snprintf(key, sizeof key, "Model.Layers.%d.attention.wq/op_%d_softmax",
			         i / 10, i % 10);
		else
			snprintf(key, sizeof key, "layers.%d.attention.wq/op_%d_softmax", i / 10,
			         i % 10);
		add_key(st, *log, key, i);
	}
	CHECK_INT(store_tx_commit(st), 0);
	return run;
}

static void test_rows(struct store *st)
{
	int64_t cmp = 0, claimed = 0, log_a = 0, log_b = 0;
	int64_t run_a = keyed_run(st, "rows-a", 0, &log_a);
	int64_t run_b = keyed_run(st, "rows-b", 1, &log_b);
	CHECK_INT(store_comparison_create(st, run_a, run_b, "activation", NULL, NULL, NULL, &cmp),
	          0);
	CHECK_INT(store_comparison_claim(st, &claimed), 0);
	int64_t *ids_a = NULL, *ids_b = NULL;
	size_t n_a = 0, n_b = 0;
	CHECK_INT(store_log_entry_ids(st, log_a, &ids_a, &n_a), 0);
	CHECK_INT(store_log_entry_ids(st, log_b, &ids_b, &n_b), 0);
	struct store_row_rec recs[300];
	for (int i = 0; i < 300; i++) {
		/* the a key missing when i % 3 == 0, the b key when 1 */
		struct store_row_rec *r = &recs[i];
		memset(r, 0, sizeof *r);
		r->a_ord = i % 3 == 0 ? -1 : i;
		r->b_ord = i % 3 == 1 ? -1 : i;
		r->status = i % 3 == 0   ? MATCHER_B_ONLY
		            : i % 3 == 1 ? MATCHER_A_ONLY
		                         : MATCHER_MATCH;
		r->method = i % 3 == 2 ? MATCHER_METHOD_EXACT : MATCHER_METHOD_NONE;
		r->phase = MATCHER_FORWARD;
		r->output_hash_distance = r->input_hash_distance = -1;
		for (int k = 0; k < MATCHER_N_STATS; k++)
			r->stat_diff[k] = -1;
	}
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_comparison_rows_add(st, cmp, 0, ids_a, n_a, ids_b, n_b, recs, 300), 0);
	CHECK_INT(store_tx_commit(st), 0);
	free(ids_a);
	free(ids_b);
	struct {
		const char *re;
		int icase;
		long want;
	} cases[] = {
	        /* rows 200..299; a_key missing when i % 3 == 0, b_key when 1 */
	        {"^layers\\.2\\d\\.", 0, 67},
	        {"^Model\\.Layers\\.2\\d\\.", 0, 67},
	        {"^Model\\.layers\\.2\\d\\.", 0, 0},
	        {"layers\\.2\\d\\.", 1, 100},
	        {"(?i)^model\\.layers\\.2\\d\\.", 0, 67},
	        {"(.*)(.*)(.*)(.*)(.*)\\5\\4\\3\\2\\1x", 0, STORE_TOO_COSTLY},
	        {"(", 0, STORE_BAD_REGEX},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct store_row_page page;
		struct store_key_filter kf = {.regex = cases[i].re, .icase = cases[i].icase};
		int rc = store_comparison_rows_list(st, cmp, -1, NULL, NULL, NULL, -1, &kf, 1000,
		                                    NULL, &page);
		long n = rc < 0 ? rc : (long)page.n_rows;
		if (n != cases[i].want)
			fprintf(stderr, "rows case %zu (%s): %s\n", i, cases[i].re,
			        store_errmsg(st));
		CHECK_INT(n, cases[i].want);
		store_row_page_free(&page);
	}
	/* 2 rows a page: the 67 matches (rows 200..299) come page by page in
	 * order, whatever chunks the read takes (on PostgreSQL the keys are
	 * tested in C on chunks growing from limit + 1 rows: the first pages
	 * scan 200 rows that all fail) */
	struct store_key_filter kf = {.regex = "^layers\\.2\\d\\."};
	char cur[64] = "";
	long got = 0, pages = 0, prev = -1, in_order = 1, page_ok = 1;
	do {
		struct store_row_page page;
		CHECK_INT(store_comparison_rows_list(st, cmp, -1, NULL, NULL, NULL, -1, &kf, 2,
		                                     cur[0] ? cur : NULL, &page),
		          0);
		page_ok &= page.n_rows == 2 || (page.n_rows == 1 && !page.next_cursor[0]);
		for (size_t i = 0; i < page.n_rows; i++) {
			in_order &= page.rows[i].idx > prev && page.rows[i].idx >= 200;
			prev = (long)page.rows[i].idx;
		}
		got += (long)page.n_rows;
		snprintf(cur, sizeof cur, "%s", page.next_cursor);
		store_row_page_free(&page);
	} while (cur[0] && ++pages < 100);
	CHECK_INT(got, 67);
	CHECK_INT(pages, 33);
	CHECK(in_order);
	CHECK(page_ok);
}

int main(void)
{
	char path[512], err[512];
	struct store *st = NULL;
	CHECK_INT(storetest_target("regex", path, sizeof path), 0);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	if (!st) {
		fprintf(stderr, "%s\n", err);
		return check_report();
	}
	int64_t run = make_run(st);
	test_syntax(st, run);
	test_invalid(st, run);
	test_limits(st, run);
	test_budget(st, run);
	test_rows(st);
	test_long_keys(st);
	store_close(st);
	storetest_cleanup("regex");
	return check_report();
}
