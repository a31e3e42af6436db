/* pg_replay_bench.c - the job replay's memory on either backend (issue 17):
 *   bench_pg_replay store TARGET LOG   parse LOG, store its entries in one
 *                                      bulk transaction (store_entry_add);
 *                                      prints "log_id N entries M"
 *   bench_pg_replay load TARGET LOG_ID store_actlog_load that log; prints
 *                                      the time, the RSS growth of the load
 *                                      and the peak RSS of the process
 * TARGET is a SQLite file or a postgresql:// URL (store_open).  Run "load"
 * in a fresh process so that its RSS counts the replay alone
 * (tests/bench/pg_replay.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "actlog.h"
#include "check.h"
#include "store.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int store_log(struct store *st, const char *path)
{
	size_t n = 0;
	char *text = check_slurp(path, &n);
	struct matcher_actlog *log = NULL;
	struct matcher_error err;
	if (!text || matcher_actlog_parse_buffer(text, n, &log, &err) < 0) {
		fprintf(stderr, "cannot parse %s\n", path);
		free(text);
		return 1;
	}
	free(text);
	int64_t run_id = 0, log_id = 0;
	int rc = store_tx_begin_bulk(st);
	if (rc == 0)
		rc = store_run_create(st, "replay", "activation", NULL, &run_id);
	if (rc == 0)
		rc = store_log_create(st, run_id, 0, NULL, (int64_t)n, "replay-sha", &log_id);
	struct matcher_entry_view v;
	matcher_entry_view_init(&v);
	for (size_t i = 0; rc == 0 && i < log->n_entries; i++) {
		const struct matcher_entry *e = matcher_actlog_entry(log, i, &v);
		rc = e ? store_entry_add(st, log_id, e) : -1;
	}
	matcher_entry_view_free(&v);
	if (rc == 0)
		rc = store_tx_commit(st);
	if (rc < 0) {
		fprintf(stderr, "store: %s\n", store_errmsg(st));
		matcher_actlog_free(log);
		return 1;
	}
	printf("log_id %lld entries %zu\n", (long long)log_id, log->n_entries);
	matcher_actlog_free(log);
	return 0;
}

static int load_log(struct store *st, int64_t log_id)
{
	struct matcher_actlog *log = NULL;
	long before = check_rss_kib();
	double t0 = now_s();
	int rc = store_actlog_load(st, log_id, &log);
	double dt = now_s() - t0;
	long after = check_rss_kib();
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	if (rc < 0) {
		fprintf(stderr, "load: %s\n", store_errmsg(st));
		return 1;
	}
	printf("loaded %zu entries in %.2f s; RSS %ld -> %ld KiB (growth %ld KiB), peak %ld KiB\n",
	       log->n_entries, dt, before, after, after - before, ru.ru_maxrss);
	matcher_actlog_free(log);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "store") != 0 && strcmp(argv[1], "load") != 0)) {
		fprintf(stderr, "usage: %s store TARGET LOG | load TARGET LOG_ID\n", argv[0]);
		return 2;
	}
	char err[512];
	struct store *st = NULL;
	if (store_open(argv[2], &st, err, sizeof err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	int rc = strcmp(argv[1], "store") == 0 ? store_log(st, argv[3])
	                                       : load_log(st, strtoll(argv[3], NULL, 10));
	store_close(st);
	return rc;
}
