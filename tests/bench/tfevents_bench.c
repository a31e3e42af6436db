/* tfevents_bench.c - parse time of a TensorBoard event file with STEPS
 * steps (default 100000), each written as add_scalar does: one event per
 * tag (loss_metrics/global_avg_loss, grad_norm, lr) after the
 * file_version record, by tests/tools/tfevents_writer.h.
 *
 * The file is built in memory, then parsed `repeat` times (default 5) fed
 * in 1 MiB chunks the way an upload streams it, twice per pass: counting
 * callbacks only (the parser), and collected into a struct
 * matcher_trainrun (what `parity compare` does).  Times are CPU seconds
 * of the process (the best pass):
 *   file: 100000 steps, 23.6 MB
 *   parse: 0.081 s (291.0 MB/s)   collect: 0.095 s
 * Exit status 0; 3 when the best parse is over the budget (--budget S,
 * default 0.2 s, the issue-14 requirement); 2 on a parse error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tfevents.h"
#include "tfevents_writer.h"
#include "traincheck.h"

static int count_step(void *ctx, const struct matcher_step_record *r)
{
	*(size_t *)ctx += r->n_metrics;
	return 0;
}

/* CPU time of this process: the machine the tests run on is shared, and
 * wall time there measures the neighbours as much as the parser. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse(const struct buf *f, struct matcher_trainlog_callbacks cb)
{
	struct matcher_tfevents_parser *p = matcher_tfevents_parser_new(&cb, 0, 0);
	struct matcher_tfevents_summary s;
	int rc = 0;
	for (size_t off = 0; rc == 0 && off < f->len; off += 1u << 20) {
		size_t k = f->len - off < (1u << 20) ? f->len - off : 1u << 20;
		rc = matcher_tfevents_feed(p, f->data + off, k);
	}
	if (rc == 0)
		rc = matcher_tfevents_finish(p, &s);
	if (rc)
		fprintf(stderr, "parse error: %s\n", matcher_tfevents_error(p)->message);
	matcher_tfevents_parser_free(p);
	return rc;
}

int main(int argc, char **argv)
{
	long steps = 100000;
	int repeat = 5;
	double budget = 0.2;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--steps"))
			steps = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--repeat"))
			repeat = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--budget"))
			budget = atof(argv[i + 1]);
	}
	struct buf f = BUF_INIT;
	tfw_file_version(&f, 1.7e9);
	for (long s = 1; s <= steps; s++) {
		tfw_scalar(&f, 1.7e9 + (double)s, s, MATCHER_TFEVENTS_LOSS_TAG,
		           10.0 / (1.0 + (double)s * 1e-3), TFW_SIMPLE);
		tfw_scalar(&f, 1.7e9 + (double)s, s, "grad_norm", 1.0 + (double)(s % 97) / 50,
		           TFW_SIMPLE);
		tfw_scalar(&f, 1.7e9 + (double)s, s, "lr", 8e-5, TFW_SIMPLE);
	}
	printf("file: %ld steps, %.1f MB\n", steps, (double)f.len / 1e6);
	double best_parse = 1e9, best_collect = 1e9;
	for (int r = 0; r < repeat; r++) {
		size_t n_values = 0;
		struct matcher_trainlog_callbacks cb = {&n_values, count_step, NULL};
		double t0 = now();
		if (parse(&f, cb))
			return 2;
		double t1 = now();
		struct matcher_trainrun *run = matcher_trainrun_new(NULL, 0);
		if (!run || parse(&f, matcher_trainrun_collector(run)))
			return 2;
		double t2 = now();
		matcher_trainrun_free(run);
		if ((long)n_values != 3 * steps)
			return 2;
		if (t1 - t0 < best_parse)
			best_parse = t1 - t0;
		if (t2 - t1 < best_collect)
			best_collect = t2 - t1;
	}
	printf("parse: %.3f s (%.1f MB/s)   collect: %.3f s\n", best_parse,
	       (double)f.len / 1e6 / best_parse, best_collect);
	buf_reset(&f);
	if (best_parse > budget) {
		printf("over budget: %.3f s > %.3f s\n", best_parse, budget);
		return 3;
	}
	return 0;
}
