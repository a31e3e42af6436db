/* cli_noise.c - `parity compare M1 ... MK CAND`: a training candidate
 * against a baseline set of K repeats under the noise policy
 * (matcher/noisecheck.h, matcher/spec/noise.md).  The logs are read on
 * two threads (only the policy's metrics kept), checked, and the
 * verdict printed as text (the lane, one line per metric), JSON
 * (web_noise_result_json), the per-step table as CSV (mean, sd, h, z,
 * outside), or with -o the self-contained HTML report (web_noise_report_html:
 * band charts, inline CSS/JS, offline) or the PDF report
 * (web_pdf_noise_report).  Exit 0 pass (identical, within_noise), 1 fail (regression),
 * 2 error. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "json_train.h"
#include "noisecheck.h"
#include "pdf.h"
#include "traincheck.h"
#include "web.h"

#define READ_CHUNK (1u << 20)
#define LOADERS    2 /* the logs are parsed on this many threads at once */

/* The runs to read, shared by the loader threads: each takes the next
 * path until none is left or one failed. */
struct loads {
	const char *const *paths;
	size_t n;
	const struct matcher_train_policy *pol;
	struct matcher_trainrun **runs;
	pthread_mutex_t mu;
	size_t next;
	int failed; /* stop taking paths */
	size_t bad; /* the first path refused (failed) */
	struct matcher_error err;
};

static void *loader(void *arg)
{
	struct loads *l = arg;
	char *chunk = malloc(READ_CHUNK);
	for (;;) {
		pthread_mutex_lock(&l->mu);
		size_t i = l->next++;
		int stop = l->failed || i >= l->n;
		pthread_mutex_unlock(&l->mu);
		if (stop)
			break;
		struct matcher_error err;
		int rc = -1;
		if (chunk)
			rc = srv_cli_train_load(l->paths[i], l->pol, &l->runs[i], &err, chunk,
			                        NULL);
		else {
			memset(&err, 0, sizeof err);
			err.code = "oom";
			snprintf(err.message, sizeof err.message, "out of memory");
		}
		if (rc < 0) {
			pthread_mutex_lock(&l->mu);
			if (!l->failed || i < l->bad) {
				l->failed = 1;
				l->bad = i;
				l->err = err;
			}
			pthread_mutex_unlock(&l->mu);
		}
	}
	free(chunk);
	return NULL;
}

/* Read every path into runs[] on LOADERS threads.  0, or -1 with *bad the
 * first refused path's index and *err its error. */
static int load_all(const char *const *paths, size_t n, const struct matcher_train_policy *pol,
                    struct matcher_trainrun **runs, size_t *bad, struct matcher_error *err)
{
	struct loads l = {.paths = paths, .n = n, .pol = pol, .runs = runs};
	pthread_t th[LOADERS];
	size_t started = 0;
	pthread_mutex_init(&l.mu, NULL);
	for (size_t t = 1; t < LOADERS && t < n; t++)
		if (pthread_create(&th[started], NULL, loader, &l) == 0)
			started++;
	loader(&l); /* this thread loads too */
	for (size_t t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&l.mu);
	if (!l.failed)
		return 0;
	*bad = l.bad;
	*err = l.err;
	return -1;
}

static const char *upper_verdict(enum matcher_verdict v)
{
	return v == MATCHER_VERDICT_PASS ? "PASS" : v == MATCHER_VERDICT_FAIL ? "FAIL" : "ERROR";
}

static void print_text(const struct matcher_noise_result *r, const char *const *paths, size_t n)
{
	const char *lane = matcher_noise_lane_name(r->lane);
	printf("training check against a baseline set: %s%s%s%s  (policy %s, rank %d, %zu "
	       "members, %zu compared steps)\n",
	       upper_verdict(r->verdict), lane ? " (" : "", lane ? lane : "", lane ? ")" : "",
	       r->policy.name, r->rank, r->k, r->n_steps);
	for (size_t i = 0; i + 1 < n; i++)
		printf("  member %zu:  %s%s\n", i + 1, paths[i],
		       r->identical_to == (int)i ? "   (the candidate equals it)" : "");
	printf("  candidate: %s\n\n", paths[n - 1]);
	printf("%-18s %-8s %-8s %-8s %-10s %-9s %-11s %-10s %-12s %s\n", "metric", "steps",
	       "outside", "allowed", "p", "bias_sd", "above_mean", "changes", "first_out",
	       "result");
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_noise_metric *m = &r->metrics[i];
		char fo[24] = "-", ch[32];
		if (m->not_logged) {
			printf("%-18s %s\n", m->name, "not compared");
			continue;
		}
		if (m->has_first_outside)
			snprintf(fo, sizeof fo, "%ld", m->first_outside);
		snprintf(ch, sizeof ch, "%zu/%ld", m->n_change_outside, m->allowed_change);
		printf("%-18s %-8zu %-8zu %-8ld %-10.3g %-+9.2f %-11.0f %-10s %-12s %s\n", m->name,
		       m->n, m->n_outside, m->allowed, m->p, m->bias, 100 * m->share_above, ch, fo,
		       m->regression ? "REGRESSION"
		       : m->n        ? "within"
		                     : "-");
	}
	if (r->n_reasons) {
		printf("\nreasons (%s):\n", matcher_verdict_name(r->verdict));
		for (size_t i = 0; i < r->n_reasons; i++)
			printf("  - %s: %s\n", r->reasons[i].code, r->reasons[i].message);
	}
	if (r->n_notes) {
		printf("\nnotes:\n");
		for (size_t i = 0; i < r->n_notes; i++)
			printf("  - %s\n", r->notes[i]);
	}
}

static int print_csv(const struct matcher_noise_result *r)
{
	struct buf line = BUF_INIT;
	int bad = web_noise_csv_header(&line, r);
	for (size_t i = 0; i < r->n_steps && !bad; i++) {
		bad |= web_noise_csv_row(&line, r, i);
		srv_cli_spill(&line, 0);
	}
	srv_cli_spill(&line, 1);
	buf_reset(&line);
	return bad ? -1 : 0;
}

/* The report of -o path: PDF when it ends in .pdf, else the offline HTML
 * page; the members named by their paths.  0, or -1 (OOM, write error). */
static int write_report(const char *path, const struct matcher_noise_result *r,
                        struct matcher_trainrun *const *runs, const char *const *paths, size_t n)
{
	struct web_noise_values vals;
	struct buf b = BUF_INIT;
	int rc = -1;
	FILE *f = NULL;

	if (web_noise_values_build(&vals, r, (const struct matcher_trainrun *const *)runs, n - 1) <
	    0)
		return -1;
	struct web_noise_view v = {.res = r,
	                           .member_names = paths,
	                           .candidate_name = paths[n - 1],
	                           .member_values = vals.values,
	                           .mode = WEB_OFFLINE};
	if (srv_report_is_pdf_path(path)) {
		struct web_pdf *p =
		        web_pdf_new(&b, "parity comparison against a baseline set", NULL);
		if (!p)
			goto done;
		int bad = web_pdf_noise_report(p, &v, 0) < 0;
		if (web_pdf_finish(p) < 0 || bad)
			goto done;
	} else if (web_noise_report_html(&b, &v) < 0) {
		goto done;
	}
	f = fopen(path, "w");
	if (!f)
		goto done;
	rc = b.len && fwrite(b.data, 1, b.len, f) != b.len ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
done:
	web_noise_values_free(&vals);
	buf_reset(&b);
	return rc;
}

/* A log the parser refused: which run, the line, the code. */
static void report_fatal(const char *format, const char *path, size_t i, size_t n,
                         const struct matcher_error *e)
{
	char who[48];
	if (i + 1 == n)
		snprintf(who, sizeof who, "candidate");
	else
		snprintf(who, sizeof who, "baseline set member %zu", i + 1);
	if (!strcmp(format, "json")) {
		srv_cli_print_json(web_train_fatal_json(e, i + 1 == n ? "candidate" : "baseline"));
		return;
	}
	if (e->line)
		fprintf(stderr, "parity: %s log %s refused (%s, line %lu): %s\n", who, path,
		        e->code, e->line, e->message);
	else
		fprintf(stderr, "parity: %s log %s refused (%s): %s\n", who, path, e->code,
		        e->message);
	if (!strcmp(format, "text"))
		printf("training check against a baseline set: ERROR  (%s log: %s)\n", who,
		       e->code);
}

int srv_cli_compare_noise(const char *cmd, const char *const *paths, size_t n,
                          const struct matcher_train_policy *pol, const char *format,
                          const char *out)
{
	int rc = 2, printed = 0;
	struct matcher_trainrun *runs[MATCHER_NOISE_MAX_RUNS + 1] = {NULL};
	struct matcher_noise_result *res = NULL;
	struct matcher_error err;

	if (n > MATCHER_NOISE_MAX_RUNS + 1 || n < 2) {
		srv_cli_fail(
		        "parity %s: a baseline set of 1 to %d runs and a candidate are needed\n",
		        cmd, MATCHER_NOISE_MAX_RUNS);
		goto done;
	}
	size_t bad;
	if (load_all(paths, n, pol, runs, &bad, &err) < 0) {
		report_fatal(format, paths[bad], bad, n, &err);
		printed = 1;
		goto done;
	}
	if (matcher_noise_check((const struct matcher_trainrun *const *)runs, n - 1, runs[n - 1],
	                        pol, &res) < 0) {
		srv_cli_fail("parity %s: out of memory\n", cmd);
		goto done;
	}
	if (out) {
		if (write_report(out, res, runs, paths, n) < 0) {
			srv_cli_fail("parity %s: cannot write %s\n", cmd, out);
			goto done;
		}
	} else if (!strcmp(format, "json")) {
		printed = 1;
		if (srv_cli_print_json(web_noise_result_json(res)) < 0) {
			fprintf(stderr, "parity %s: cannot write the JSON result\n", cmd);
			goto done;
		}
	} else if (!strcmp(format, "csv")) {
		if (print_csv(res) < 0) {
			srv_cli_fail("parity %s: out of memory\n", cmd);
			goto done;
		}
	} else {
		print_text(res, paths, n);
	}
	rc = srv_cli_verdict_exit(res->verdict);
	if (fflush(stdout) != 0)
		rc = 2;
done:
	if (rc == 2 && !printed && !strcmp(format, "json"))
		srv_cli_json_error("training", "error", NULL, srv_cli_last_error());
	matcher_noise_result_free(res);
	for (size_t i = 0; i < n && i <= MATCHER_NOISE_MAX_RUNS; i++)
		matcher_trainrun_free(runs[i]);
	return rc;
}
