/* check.h - the dependency-free test harness used by every unit test.
 *
 * CHECK(cond) records a pass or a failure (with file:line and the
 * expression) and keeps going, so one run reports every broken rule.
 * check_report() prints the closing line ctest logs show, "N passed,
 * N failed", and returns the process exit status (0 only if nothing failed).
 * Header-only on purpose: each test is one translation unit. */
#ifndef PARITY_TEST_CHECK_H
#define PARITY_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (cond) {                                                                        \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
		}                                                                                  \
	} while (0)

/* String equality where either side may be NULL (NULL == NULL). */
#define CHECK_STR(got, want)                                                                       \
	do {                                                                                       \
		const char *g_ = (got), *w_ = (want);                                              \
		if ((g_ == NULL && w_ == NULL) ||                                                  \
		    (g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0)) {                           \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: CHECK_STR failed: %s = \"%s\", want \"%s\"\n",     \
			        __FILE__, __LINE__, #got, g_ ? g_ : "(null)", w_ ? w_ : "(null)"); \
		}                                                                                  \
	} while (0)

#define CHECK_INT(got, want)                                                                       \
	do {                                                                                       \
		long long g_ = (long long)(got), w_ = (long long)(want);                           \
		if (g_ == w_) {                                                                    \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: CHECK_INT failed: %s = %lld, want %lld\n",         \
			        __FILE__, __LINE__, #got, g_, w_);                                 \
		}                                                                                  \
	} while (0)

/* Doubles equal within a relative tolerance; NaN equals NaN. */
#define CHECK_DBL(got, want, reltol)                                                               \
	do {                                                                                       \
		double g_ = (got), w_ = (want);                                                    \
		int ok_ = (isnan(g_) && isnan(w_)) || g_ == w_ ||                                  \
		          fabs(g_ - w_) <= (reltol)*fmax(fabs(g_), fabs(w_));                      \
		if (ok_) {                                                                         \
			check_passed++;                                                            \
		} else {                                                                           \
			check_failed++;                                                            \
			fprintf(stderr, "%s:%d: CHECK_DBL failed: %s = %.17g, want %.17g\n",       \
			        __FILE__, __LINE__, #got, g_, w_);                                 \
		}                                                                                  \
	} while (0)

static inline int check_report(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

/* Read a whole (test fixture) file into a malloc'd NUL-terminated buffer. */
#include <stdlib.h>
static inline char *check_slurp(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *p = malloc((size_t)n + 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	if (p) {
		p[n] = 0;
		if (len_out)
			*len_out = (size_t)n;
	}
	return p;
}

/* mkdtemp on a template written with six '_' at the end (e.g.
 * "/tmp/parity-x-______"): they become the X's mkdtemp wants.  Keeps the
 * literal marker text out of the sources. */
#define CHECK_MKDTEMP(dir) (memset((dir) + strlen(dir) - 6, 'X', 6), mkdtemp(dir))

/* Path of a file under tests/ (data/ fixtures, tools/ generators): the
 * PARITY_TESTS environment variable if set (ctest sets it), else the
 * source folder compiled in.  A missing file is the caller's failure: the
 * slurp/exec that follows reports it with this path. */
static inline const char *check_testfile(const char *rel, char *out, size_t cap)
{
	const char *root = getenv("PARITY_TESTS");
	snprintf(out, cap, "%s/%s", root && *root ? root : PARITY_TESTS_DIR, rel);
	return out;
}

/* SQL undoing migration 009 (typed training results), for tests that
 * rewind a database to an older schema. */
#define CHECK_DROP_009                                                                             \
	"DROP TABLE train_results; DROP TABLE train_result_thresholds; "                           \
	"DROP TABLE train_result_reasons; DROP TABLE train_result_metrics; "                       \
	"DROP TABLE train_result_notes; DROP TABLE train_result_only_steps; "                      \
	"DROP TABLE train_result_warnings; "

/* SQL undoing migration 012 (baseline sets; CHECK_DROP_010 ends with
 * it, so every rewind below 12 takes it back out). */
#define CHECK_DROP_012                                                                             \
	"DROP TABLE baseline_history_members; DROP TABLE baseline_members; "                       \
	"DROP TABLE noise_result_steps; DROP TABLE noise_result_metrics; "                         \
	"DROP TABLE noise_results; DROP TABLE comparison_set_members; "                            \
	"ALTER TABLE comparisons DROP COLUMN lane; " CHECK_DROP_013

/* SQL undoing migration 013 (logs.source's widened CHECK; fails on a
 * database holding logs of the new sources).  CHECK_DROP_012 ends with
 * it. */
#define CHECK_DROP_013                                                                             \
	"ALTER TABLE logs ADD COLUMN source_old TEXT NOT NULL DEFAULT 'stdout' "                   \
	"CHECK (source_old IN ('stdout', 'tfevents', 'lossfile')); "                               \
	"UPDATE logs SET source_old = source; ALTER TABLE logs DROP COLUMN source; "               \
	"ALTER TABLE logs RENAME COLUMN source_old TO source; "

/* SQL undoing migration 010 (email webhooks): the recipients column and
 * the widened format CHECK (the same column dance 010 does, backwards;
 * fails on a database holding email webhooks). */
#define CHECK_DROP_010                                                                             \
	"ALTER TABLE webhooks DROP COLUMN recipients; "                                            \
	"ALTER TABLE webhooks ADD COLUMN format_old TEXT NOT NULL DEFAULT 'generic' "              \
	"CHECK (format_old IN ('generic', 'github-status')); "                                     \
	"UPDATE webhooks SET format_old = format; ALTER TABLE webhooks DROP COLUMN format; "       \
	"ALTER TABLE webhooks RENAME COLUMN format_old TO format; " CHECK_DROP_012

/* Resident set size of this process in KiB (/proc/self/statm; 0 when
 * unreadable). */
#include <unistd.h>
static inline long check_rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

#endif
