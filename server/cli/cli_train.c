/* cli_train.c - `parity compare` / `parity check` for two training logs:
 * stream both files through the training parser (read(2), 1 MiB chunks,
 * only the compared metrics kept), run the threshold check and print the
 * verdict as text (default), JSON or a per-step CSV.
 * Exit 0 pass, 1 fail, 2 error (including bad usage and unreadable or
 * refused files). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_train.h"
#include "noisecheck.h"
#include "nvinspect.h"
#include "cli_report.h"
#include "traincheck.h"
#include "trainpolicy.h"
#include "trainsrc.h"
#include "web.h"
#include "cli.h"

#define READ_CHUNK (1u << 20)

struct topts {
	const char *path[2];
	/* more than two runs (or --policy noise): the baseline set, then the
	 * candidate (cli_noise.c) */
	const char *paths[MATCHER_NOISE_MAX_RUNS + 1];
	size_t n_paths;
	int noise;
	const char *format;
	const char *out; /* -o FILE.html: self-contained report (h_ui.c) */
	struct matcher_train_policy policy;
};

/* The options as given; parse_args turns them into a policy. */
struct targs {
	const char *policy, *metrics, *format, *out;
	struct srv_optlist thresholds;
	long min_steps, rank;
	int allow_warnings;
	double alpha_step, alpha_run;
	long min_runs;
};

static int check_report_path(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	if (srv_report_is_html_path(val) || srv_report_is_pdf_path(val))
		return 0;
	snprintf(err, n, "for training logs -o writes HTML (FILE.html) or PDF (FILE.pdf)");
	return -1;
}

static const char *const formats[] = {"text", "json", "csv", NULL};

#define T(field) .offset = offsetof(struct targs, field)

static const struct srv_option check_opts[] = {
        {.name = "policy",
         .type = SRV_OPT_STRING,
         T(policy),
         .metavar = "NAME",
         .help = "premerge (default: abs <= 1e-5), bitwise (abs = 0), or noise (the "
                 "candidate against a baseline set of repeats; the default with more than "
                 "two runs)."},
        {.name = "metrics",
         .type = SRV_OPT_STRING,
         T(metrics),
         .metavar = "M1,M2,...",
         .help = "the exact compared set (default loss,grad_norm; a default metric neither "
                 "run logged is skipped with a note)."},
        {.name = "threshold",
         .type = SRV_OPT_LIST,
         T(thresholds),
         .metavar = "M=ABS[,rel=X]",
         .help = "per-metric threshold; adds metrics such as validation/loss or memory_gib "
                 "(e.g. loss=1e-5,rel=1e-6)."},
        {.name = "min-steps",
         .type = SRV_OPT_INT,
         T(min_steps),
         .size = sizeof(long),
         .min = 0,
         .max = INT32_MAX,
         .metavar = "N",
         .help = "fewest common steps accepted (default 1)."},
        {.name = "allow-warnings",
         .type = SRV_OPT_BOOL,
         T(allow_warnings),
         .help = "parse warnings do not make the verdict error."},
        {.name = "rank",
         .type = SRV_OPT_INT,
         T(rank),
         .size = sizeof(long),
         .min = 0,
         .max = 1000000,
         .def = "0",
         .metavar = "N",
         .help = "compare this rank's series."},
        {.name = "alpha-step",
         .type = SRV_OPT_DOUBLE,
         T(alpha_step),
         .min = 0,
         .max = 1,
         .def = "0.001",
         .metavar = "A",
         .help = "noise policy: the band's two-sided level per step (0 < A < 1)."},
        {.name = "alpha-run",
         .type = SRV_OPT_DOUBLE,
         T(alpha_run),
         .min = 0,
         .max = 1,
         .def = "0.01",
         .metavar = "A",
         .help = "noise policy: the level of the tests over all steps (0 < A < 1)."},
        {.name = "min-runs",
         .type = SRV_OPT_INT,
         T(min_runs),
         .size = sizeof(long),
         .min = 2,
         .max = MATCHER_NOISE_MAX_RUNS,
         .def = "2",
         .metavar = "K",
         .help = "noise policy: the smallest baseline set accepted."},
        {.name = "format",
         .type = SRV_OPT_ENUM,
         T(format),
         .choices = formats,
         .def = "text",
         .metavar = "text|json|csv",
         .help = "text summary, JSON document, or the per-step table as CSV."},
        {.name = "output",
         .short_name = 'o',
         .type = SRV_OPT_STRING,
         T(out),
         .metavar = "FILE.html|FILE.pdf",
         .check = check_report_path,
         .help = "write the self-contained HTML report, or the PDF report (charts, "
                 "statistics, steps)."},
        {.name = NULL},
};

const struct srv_optcmd srv_check_cmd = {
        .name = "check",
        .synopsis = "usage: parity check BASELINE.log CANDIDATE.log [options]\n"
                    "       parity compare BASELINE.log CANDIDATE.log [options]\n"
                    "       parity compare MEMBER1.log ... MEMBERK.log CANDIDATE.log [options]\n",
        .about = "Compare two training runs' stdout logs step by step (loss, grad_norm, ...).\n"
                 "Differences are taken on the printed decimals.\n"
                 "TensorBoard event files and golden loss files (`step value` lines) are\n"
                 "read too, at full precision (compared at the coarser side's precision),\n"
                 "and MLPerf MLLOG files (`:::MLLOG {json}` lines: train_loss as loss,\n"
                 "every other key by its name, over samples_count, epoch_num or step_num).\n"
                 "With more than two runs the last is the candidate and the others a\n"
                 "baseline set of repeats: the noise policy asks whether the candidate could\n"
                 "be one more of them (lanes identical, within_noise, regression;\n"
                 "matcher/spec/noise.md).\n",
        .opts = check_opts,
        .epilog = "Exit status: 0 pass, 1 fail, 2 error.\n",
};

static void usage(FILE *out)
{
	srv_options_usage(&srv_check_cmd, out);
}

static int parse_double(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || !(*out >= 0))
		return -1;
	return 0;
}

/* "loss=1e-5", "loss=1e-5,rel=1e-3", "loss=rel=1e-3" (rel only). */
static int parse_threshold(struct matcher_train_policy *p, const char *spec)
{
	char buf[256];
	double abs = 0, rel = 0;
	int has_abs = 0, has_rel = 0;
	if (snprintf(buf, sizeof buf, "%s", spec) >= (int)sizeof buf)
		return -1;
	char *eq = strchr(buf, '=');
	if (!eq || eq == buf)
		return -1;
	*eq = 0;
	char *rest = eq + 1;
	for (char *tok = strtok(rest, ","); tok; tok = strtok(NULL, ",")) {
		if (!strncmp(tok, "rel=", 4)) {
			if (parse_double(tok + 4, &rel) < 0)
				return -1;
			has_rel = 1;
		} else {
			if (!strncmp(tok, "abs=", 4))
				tok += 4;
			if (parse_double(tok, &abs) < 0)
				return -1;
			has_abs = 1;
		}
	}
	if (!has_abs && !has_rel)
		return -1;
	if (!has_abs) {
		abs = INFINITY;
		for (size_t i = 0; i < p->n_th; i++)
			if (!strcmp(p->th[i].metric, buf))
				abs = p->th[i].abs;
	}
	return matcher_train_policy_set(p, buf, abs, rel, has_rel);
}

/* 0, SRV_OPTS_HELP, or -1 (message kept by srv_cli_fail). */
/* The policy of the options given: the preset, then the exact metric set,
 * then each threshold, then min steps, warnings and rank.  0 or -1. */
static int policy_from(const char *cmd, const struct targs *a, const struct srv_optres *res,
                       struct matcher_train_policy *p)
{
	const char *metrics = a->metrics;
	if (matcher_train_policy_preset(p, a->policy) < 0) {
		srv_cli_fail(
		        "parity %s: unknown policy '%s' (premerge, bitwise, noise, megatron)\n",
		        cmd, a->policy);
		return -1;
	}
	static const char *const noise_flags[] = {"alpha-step", "alpha-run", "min-runs"};
	for (size_t i = 0; i < 3; i++) {
		if (srv_options_source(&srv_check_cmd, res, noise_flags[i]) == SRV_OPT_FROM_FLAG &&
		    !matcher_train_policy_is_noise(p)) {
			srv_cli_fail("parity %s: --%s applies to the noise policy only (--policy "
			             "noise, or more than two runs)\n",
			             cmd, noise_flags[i]);
			return -1;
		}
	}
	p->noise.alpha_step = a->alpha_step;
	p->noise.alpha_run = a->alpha_run;
	p->noise.min_runs = a->min_runs;
	char why[160];
	if (matcher_train_policy_is_noise(p) &&
	    matcher_noise_params_check(&p->noise, why, sizeof why) < 0) {
		srv_cli_fail("parity %s: %s\n", cmd, why);
		return -1;
	}
	if (metrics) {
		/* the exact set: "loss,validation/loss" */
		char list[512], *names[MATCHER_TRAIN_MAX_METRICS + 1];
		size_t n = 0;
		snprintf(list, sizeof list, "%s", metrics);
		for (char *tok = strtok(list, ","); tok && n <= MATCHER_TRAIN_MAX_METRICS;
		     tok = strtok(NULL, ","))
			names[n++] = tok;
		if (strlen(metrics) >= sizeof list || n > MATCHER_TRAIN_MAX_METRICS ||
		    matcher_train_policy_select(p, (const char *const *)names, n, p->th[0].abs) <
		            0) {
			srv_cli_fail("parity %s: bad --metrics '%s' (want NAME,NAME,... without "
			             "repeats)\n",
			             cmd, metrics);
			return -1;
		}
	}
	if (a->thresholds.n > MATCHER_TRAIN_MAX_METRICS * 2) {
		srv_cli_fail("parity %s: too many --threshold options\n", cmd);
		return -1;
	}
	for (size_t i = 0; i < a->thresholds.n; i++) {
		if (parse_threshold(p, a->thresholds.v[i]) < 0) {
			srv_cli_fail("parity %s: bad --threshold '%s' (want METRIC=ABS[,rel=X])\n",
			             cmd, a->thresholds.v[i]);
			return -1;
		}
	}
	if (srv_options_source(&srv_check_cmd, res, "min-steps") == SRV_OPT_FROM_FLAG) {
		p->min_steps = a->min_steps;
		matcher_train_policy_customise(p);
	}
	if (a->allow_warnings) {
		p->allow_warnings = 1;
		matcher_train_policy_customise(p);
	}
	if (srv_options_source(&srv_check_cmd, res, "rank") == SRV_OPT_FROM_FLAG)
		p->rank = (int)a->rank;
	return 0;
}

/* 0, SRV_OPTS_HELP, or -1 (message kept by srv_cli_fail). */
static int parse_args(int argc, char **argv, struct topts *o)
{
	const char *cmd = argc > 0 ? argv[0] : "compare";
	struct targs a;
	struct srv_optres res = {0};
	int rc = srv_options_parse(&srv_check_cmd, &a, argc, argv, &res);
	memset(o, 0, sizeof *o);
	o->format = a.format ? a.format : "text";
	if (rc != 0) {
		if (rc < 0)
			srv_cli_fail("%s\n", res.err);
		goto done;
	}
	rc = -1;
	if (res.n_operands > MATCHER_NOISE_MAX_RUNS + 1) {
		srv_cli_fail("parity %s: too many files (at most %d runs and the candidate)\n", cmd,
		             MATCHER_NOISE_MAX_RUNS);
		goto done;
	}
	if (res.n_operands < 2) {
		srv_cli_fail("parity %s: two training logs are required\n", cmd);
		goto done;
	}
	/* more than two runs: the noise policy unless another is named */
	if (res.n_operands > 2 && !a.policy)
		a.policy = "noise";
	o->path[0] = res.operands[0];
	o->path[1] = res.operands[res.n_operands - 1];
	for (size_t i = 0; i < res.n_operands; i++)
		o->paths[i] = res.operands[i];
	o->n_paths = res.n_operands;
	o->out = a.out;
	if (policy_from(cmd, &a, &res, &o->policy) < 0)
		goto done;
	o->noise = matcher_train_policy_is_noise(&o->policy);
	if (res.n_operands > 2 && !o->noise) {
		srv_cli_fail(
		        "parity %s: more than two runs make a baseline set: use --policy noise "
		        "(or no --policy)\n",
		        cmd);
		goto done;
	}
	rc = 0;
done:
	srv_options_free(&srv_check_cmd, &a, &res);
	return rc;
}

/* Stream one file into a new run.  0, or -1 with *err set (code "io" for
 * a read failure). */
/* The run and parser of a log whose first bytes are data[0..n): a
 * statistics log (DL Framework Inspect) keeps every series and takes its
 * rank from a globalrank-N path, any other log keeps pol's metrics.  0, or
 * -1 on OOM. */
static int start_load(const char *path, const struct matcher_train_policy *pol, const char *data,
                      size_t n, struct matcher_trainrun **run,
                      struct matcher_trainlog_callbacks *cb, struct matcher_trainsrc **p,
                      int *stats)
{
	const char *keep[MATCHER_TRAIN_MAX_METRICS];
	enum matcher_source src = n ? matcher_detect_source(data, n) : MATCHER_SOURCE_STDOUT;
	int all = pol->all_common || src == MATCHER_SOURCE_NVDLFW_INSPECT;
	int rank = src == MATCHER_SOURCE_NVDLFW_INSPECT ? matcher_nvinspect_rank_of_path(path) : 0;
	for (size_t i = 0; i < pol->n_th; i++)
		keep[i] = pol->th[i].metric;
	if (stats && src == MATCHER_SOURCE_NVDLFW_INSPECT)
		*stats = 1;
	if (!(*run = matcher_trainrun_new(all ? NULL : keep, all ? 0 : pol->n_th)))
		return -1;
	*cb = matcher_trainrun_collector(*run);
	*p = matcher_trainsrc_new(src, cb, rank < 0 ? 0 : rank, 0);
	return *p ? 0 : -1;
}

int srv_cli_train_load(const char *path, const struct matcher_train_policy *pol,
                       struct matcher_trainrun **out, struct matcher_error *err, char *chunk,
                       int *stats)
{
	int rc = -1, fd = -1;
	struct matcher_trainsrc *p = NULL; /* created on the first chunk (its source) */
	struct matcher_trainlog_summary sum;
	struct matcher_trainrun *run = NULL;
	struct matcher_trainlog_callbacks cb;

	memset(err, 0, sizeof *err);
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		err->code = "io";
		snprintf(err->message, sizeof err->message, "cannot open %s: %s", path,
		         strerror(errno));
		goto done;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err->code = "io";
			snprintf(err->message, sizeof err->message, "cannot read %s: %s", path,
			         strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		if (!p && start_load(path, pol, chunk, (size_t)n, &run, &cb, &p, stats) < 0)
			goto oom;
		if (matcher_trainsrc_feed(p, chunk, (size_t)n) < 0) {
			*err = *matcher_trainsrc_error(p);
			goto done;
		}
	}
	if (!p && start_load(path, pol, chunk, 0, &run, &cb, &p, stats) < 0)
		goto oom;
	if (matcher_trainsrc_finish(p, &sum) < 0) {
		*err = *matcher_trainsrc_error(p);
		goto done;
	}
	matcher_trainrun_set_summary(run, &sum);
	*out = run;
	run = NULL;
	rc = 0;
	goto done;
oom:
	err->code = "oom";
	snprintf(err->message, sizeof err->message, "out of memory");
done:
	if (fd > 0)
		close(fd);
	matcher_trainsrc_free(p);
	matcher_trainrun_free(run);
	return rc;
}

int srv_cli_print_json(json_t *doc)
{
	if (!doc)
		return -1;
	int rc = json_dumpf(doc, stdout,
	                    JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(15));
	fputc('\n', stdout);
	json_decref(doc);
	return rc;
}

static void print_text(const struct matcher_train_result *r, const struct topts *o,
                       const struct matcher_trainrun *a, const struct matcher_trainrun *b)
{
	const char *v = matcher_verdict_name(r->verdict);
	printf("training check: %s  (policy %s, rank %d, %zu common steps)\n",
	       r->verdict == MATCHER_VERDICT_PASS   ? "PASS"
	       : r->verdict == MATCHER_VERDICT_FAIL ? "FAIL"
	                                            : "ERROR",
	       r->policy.name, r->rank, r->n_common);
	printf("  baseline:  %s\n  candidate: %s\n\n", o->path[0], o->path[1]);
	if (r->policy.all_common) {
		/* every series both runs logged (a statistics log) */
		printf("compared: every series both runs logged (%zu)\n", r->n_metrics);
		if (r->has_first_diff)
			printf("first difference: %s at iteration %ld\n",
			       r->metrics[r->first_diff_metric].name, r->first_diff_step);
		printf("\n");
	}
	printf("%-18s %-10s %-10s %-12s %-8s %-10s %-6s %-9s %-9s %s\n", "metric", "threshold",
	       "resolution", "max_abs", "at_step", "first_over", "over", "nan(a/b)", "inf(a/b)",
	       "result");
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_train_metric_result *m = &r->metrics[i];
		char thr[32], res[32] = "-", at[24] = "-", fo[24] = "-", nn[24], in[24];
		if (isinf(m->th.abs))
			snprintf(thr, sizeof thr, "Inf");
		else
			snprintf(thr, sizeof thr, "%g", m->th.abs);
		if (m->has_resolution)
			snprintf(res, sizeof res, "%g", m->resolution);
		if (m->has_max_step)
			snprintf(at, sizeof at, "%ld", m->max_abs_step);
		if (m->has_first_over)
			snprintf(fo, sizeof fo, "%ld", m->first_over);
		snprintf(nn, sizeof nn, "%zu/%zu", m->nan[0], m->nan[1]);
		snprintf(in, sizeof in, "%zu/%zu", m->inf[0], m->inf[1]);
		printf("%-18s %-10s %-10s %-12s %-8s %-10s %-6zu %-9s %-9s %s\n", m->name, thr, res,
		       m->max_abs_text, at, fo, m->n_over, nn, in,
		       m->not_logged                      ? "not logged"
		       : !m->present[0] || !m->present[1] ? "missing"
		       : m->pass                          ? "pass"
		                                          : "FAIL");
	}
	if (r->n_only_a || r->n_only_b)
		printf("\nsteps only in baseline: %zu, only in candidate: %zu\n", r->n_only_a,
		       r->n_only_b);
	if (r->n_reasons) {
		printf("\nreasons (%s):\n", v);
		for (size_t i = 0; i < r->n_reasons; i++)
			printf("  - %s: %s\n", r->reasons[i].code, r->reasons[i].message);
	}
	for (int side = 0; side < 2; side++) {
		const struct matcher_trainrun *run = side ? b : a;
		for (size_t i = 0; i < run->n_warnings && i < 10; i++)
			printf("%s  %s warning line %lu: %s: %s\n", i ? "" : "\n",
			       side ? "candidate" : "baseline", run->warnings[i].line,
			       run->warnings[i].code, run->warnings[i].message);
	}
	if (r->n_notes) {
		printf("\nnotes:\n");
		for (size_t i = 0; i < r->n_notes; i++)
			printf("  - %s\n", r->notes[i]);
	}
}

/* One CSV cell (the shared writer: quoted, formulas neutralised) after
 * a comma unless it is the first of its line. */
static void csv_cell(struct buf *line, const char *text, int first)
{
	if (!first)
		buf_putc(line, ',');
	web_csv_cell(line, text, strlen(text));
}

static void print_csv(const struct matcher_train_result *r)
{
	struct matcher_train_row_cell *cells =
	        calloc(r->n_metrics ? r->n_metrics : 1, sizeof *cells);
	static const char *const suffix[] = {"_a", "_b", "_abs", "_rel", "_over"};
	struct buf line = BUF_INIT;
	char cell[MATCHER_TRAIN_NAME + 16];
	csv_cell(&line, "step", 1);
	for (size_t k = 0; k < r->n_metrics; k++) {
		const char *n = r->metrics[k].name;
		if (!strncmp(n, "validation/", 11))
			continue;
		for (size_t j = 0; j < 5; j++) {
			snprintf(cell, sizeof cell, "%s%s", n, suffix[j]);
			csv_cell(&line, cell, 0);
		}
	}
	buf_putc(&line, '\n');
	for (size_t i = 0; cells && i < r->n_common; i++) {
		long step;
		if (matcher_train_row(r, i, &step, cells) < 0)
			break;
		snprintf(cell, sizeof cell, "%ld", step);
		csv_cell(&line, cell, 1);
		for (size_t k = 0; k < r->n_metrics; k++) {
			const struct matcher_train_row_cell *c = &cells[k];
			char ta[64] = "", tb[64] = "", rel[32] = "", over[8];
			if (!strncmp(r->metrics[k].name, "validation/", 11))
				continue;
			if (c->present[0])
				matcher_train_format_value(c->a, c->dec_a, ta, sizeof ta);
			if (c->present[1])
				matcher_train_format_value(c->b, c->dec_b, tb, sizeof tb);
			int both = c->present[0] && c->present[1];
			if (both) {
				if (!strcmp(c->abs_text, "NaN"))
					snprintf(rel, sizeof rel, "NaN");
				else if (isinf(c->rel))
					snprintf(rel, sizeof rel, "Inf");
				else
					snprintf(rel, sizeof rel, "%.6g", c->rel);
			}
			snprintf(over, sizeof over, "%d", c->over);
			csv_cell(&line, ta, 0);
			csv_cell(&line, tb, 0);
			csv_cell(&line, both ? c->abs_text : "", 0);
			csv_cell(&line, rel, 0);
			csv_cell(&line, over, 0);
		}
		buf_putc(&line, '\n');
		srv_cli_spill(&line, 0);
	}
	srv_cli_spill(&line, 1);
	buf_reset(&line);
	free(cells);
}

static void report_fatal(const struct topts *o, const struct matcher_error *e, int side)
{
	const char *sname = side ? "candidate" : "baseline";
	if (!strcmp(o->format, "json")) {
		srv_cli_print_json(web_train_fatal_json(e, sname));
		return;
	}
	if (e->line)
		fprintf(stderr, "parity: %s log %s refused (%s, line %lu): %s\n", sname,
		        o->path[side], e->code, e->line, e->message);
	else
		fprintf(stderr, "parity: %s log %s refused (%s): %s\n", sname, o->path[side],
		        e->code, e->message);
	if (!strcmp(o->format, "text"))
		printf("training check: ERROR  (%s log: %s)\n", sname, e->code);
}

int srv_cli_compare_training(int argc, char **argv)
{
	int rc = 2;
	struct topts o;
	struct matcher_trainrun *run[2] = {NULL, NULL};
	struct matcher_train_result *res = NULL;
	struct matcher_error err;
	char *chunk = NULL;
	const char *cmd = argc > 0 ? argv[0] : "compare";
	int printed = 0; /* a JSON document went to stdout */

	int prc = parse_args(argc, argv, &o);
	if (prc < 0) {
		usage(stderr);
		/* --format json: one JSON document on stdout whatever the error */
		if (srv_cli_wants_json(argc, argv))
			srv_cli_json_error("training", "usage", NULL, srv_cli_last_error());
		return 2;
	}
	if (prc == SRV_OPTS_HELP) {
		usage(stdout);
		return 0;
	}
	if (o.noise)
		return srv_cli_compare_noise(cmd, o.paths, o.n_paths, &o.policy, o.format, o.out);
	chunk = malloc(READ_CHUNK);
	if (!chunk) {
		srv_cli_fail("parity %s: out of memory\n", cmd);
		goto done;
	}
	int stats = 0; /* a statistics log: every series both runs logged */
	for (int k = 0; k < 2; k++) {
		if (srv_cli_train_load(o.path[k], &o.policy, &run[k], &err, chunk, &stats) < 0) {
			report_fatal(&o, &err, k);
			printed = 1;
			goto done;
		}
	}
	free(chunk);
	chunk = NULL;
	if (stats)
		matcher_train_policy_compare_all(&o.policy);
	if (matcher_train_check(run[0], run[1], &o.policy, &res) < 0) {
		srv_cli_fail("parity %s: out of memory\n", cmd);
		goto done;
	}
	if (o.out) {
		FILE *f = fopen(o.out, "w");
		int pdf = srv_report_is_pdf_path(o.out);
		int wrc =
		        !f    ? -1
		        : pdf ? srv_report_train_pdf(f, res, run[0], run[1], o.path[0], o.path[1])
		              : srv_report_train_file(f, res, run[0], run[1], o.path[0], o.path[1]);
		if ((f && fclose(f) != 0) || wrc < 0) {
			srv_cli_fail("parity %s: cannot write %s\n", cmd, o.out);
			goto done;
		}
	} else if (!strcmp(o.format, "json")) {
		printed = 1;
		if (srv_cli_print_json(web_train_result_json(res, run[0], run[1])) < 0) {
			fprintf(stderr, "parity %s: cannot write the JSON result\n", cmd);
			goto done;
		}
	} else if (!strcmp(o.format, "csv")) {
		print_csv(res);
	} else {
		print_text(res, &o, run[0], run[1]);
	}
	rc = srv_cli_verdict_exit(res->verdict);
	if (fflush(stdout) != 0)
		rc = 2;
done:
	if (rc == 2 && !printed && !strcmp(o.format, "json"))
		srv_cli_json_error("training", "error", NULL, srv_cli_last_error());
	free(chunk);
	matcher_train_result_free(res);
	matcher_trainrun_free(run[0]);
	matcher_trainrun_free(run[1]);
	return rc;
}
