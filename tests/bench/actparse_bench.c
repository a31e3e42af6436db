/* actparse_bench.c - parse-only throughput of the activation-log parser.
 *
 * Reads a file with read(2) in 1 MiB chunks and feeds each chunk to the
 * push parser with counting callbacks (no collection, no storage), the way
 * an upload handler streams a body.  Runs the whole file `repeat` times
 * (default 3) and reports the best pass, so the page cache, not the disk,
 * is measured.  Output, one line a pass then a summary:
 *   pass 1: 31.4 MB in 0.110 s = 285.2 MB/s
 *   entries=... warnings=... lines=...
 *   MBps=285.2
 * With BENCH_COLLECT=1 in the environment the entries go to the collector
 * (matcher_actlog_collector: the compact records `parity compare` and the
 * jobs match on) instead, so parse + collect is measured.
 * Exit status 0, or 1 on a usage/I/O error, 2 on a parse error. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "actlog.h"

struct counts {
	size_t entries;
	size_t warnings;
	size_t fields;
};

static int count_entry(void *ctx, const struct matcher_entry *e)
{
	struct counts *c = ctx;
	c->entries++;
	c->fields += e->output_hash != NULL;
	return 0;
}

static int count_warning(void *ctx, const struct matcher_warning *w)
{
	struct counts *c = ctx;
	(void)w;
	c->warnings++;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass over the file; 0, 1 (I/O) or 2 (parse error). */
static int one_pass(const char *path, char *chunk, size_t chunk_size, double *secs, size_t *bytes,
                    struct counts *c, struct matcher_actlog_summary *s)
{
	int rc = 1;
	struct matcher_actlog_parser *p = NULL;
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "bench_actparse: %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(c, 0, sizeof *c);
	struct matcher_actlog_callbacks cb = {c, NULL, count_entry, count_warning};
	const char *collect = getenv("BENCH_COLLECT");
	struct matcher_actlog *log = NULL;
	double t0 = now_s();
	if (collect && strcmp(collect, "1") == 0) {
		if (!(log = matcher_actlog_new()))
			goto done;
		cb = matcher_actlog_collector(log);
	}
	p = matcher_actlog_parser_new(&cb, 0);
	if (!p)
		goto done;
	*bytes = 0;
	for (;;) {
		ssize_t n = read(fd, chunk, chunk_size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "bench_actparse: read: %s\n", strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		*bytes += (size_t)n;
		if (matcher_actlog_feed(p, chunk, (size_t)n) < 0) {
			rc = 2;
			goto parse_error;
		}
	}
	if (matcher_actlog_finish(p, s) < 0) {
		rc = 2;
		goto parse_error;
	}
	*secs = now_s() - t0;
	if (log)
		c->entries = log->n_entries;
	rc = 0;
	goto done;
parse_error:
	fprintf(stderr, "bench_actparse: %s (line %lu): %s\n", matcher_actlog_error(p)->code,
	        matcher_actlog_error(p)->line, matcher_actlog_error(p)->message);
done:
	matcher_actlog_parser_free(p);
	matcher_actlog_free(log);
	close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_actparse FILE [REPEAT]\n");
		return 1;
	}
	int repeat = argc == 3 ? atoi(argv[2]) : 3;
	if (repeat < 1)
		repeat = 1;
	size_t chunk_size = 1u << 20;
	char *chunk = malloc(chunk_size);
	if (!chunk)
		return 1;
	double best = 0;
	struct counts c;
	struct matcher_actlog_summary s;
	memset(&s, 0, sizeof s);
	int rc = 0;
	for (int i = 0; i < repeat && rc == 0; i++) {
		double secs = 0;
		size_t bytes = 0;
		rc = one_pass(argv[1], chunk, chunk_size, &secs, &bytes, &c, &s);
		if (rc)
			break;
		double mbps = secs > 0 ? (double)bytes / 1e6 / secs : 0;
		printf("pass %d: %.1f MB in %.3f s = %.1f MB/s\n", i + 1, (double)bytes / 1e6, secs,
		       mbps);
		if (mbps > best)
			best = mbps;
	}
	free(chunk);
	if (rc)
		return rc;
	printf("entries=%zu warnings=%zu lines=%lu\n", c.entries, c.warnings, s.n_lines);
	printf("MBps=%.1f\n", best);
	return 0;
}
