/* cli_compare.c - `parity compare A B`: offline comparison of two logs, or
 * of two rank directories.
 *
 * Detects the kind of both files from their first 64 KiB; two training logs
 * go to srv_cli_compare_training with the same argv, two activation logs
 * are streamed through the activation parser (read(2), 1 MiB chunks; A and
 * B parsed on two threads), matched, judged under the policy and written
 * as a text summary, JSON, CSV or the self-contained HTML report.  Two
 * directories holding rank_N_activations.log files are compared rank by
 * rank (a rank on one side only is an error naming it): a first pass
 * matches every rank and keeps only its summary document, the JSON and
 * HTML outputs then re-read one rank at a time to write its rows, so
 * memory is that of one rank pair whatever the rank count (the CSV and the
 * text summary need one pass).  With -o the verdict summary also goes to
 * stdout.  Exit status: the worst rank's verdict: 0 pass, 1 fail, 2 error
 * (usage, unreadable or invalid input, mixed kinds, unmatched ranks; a
 * message on stderr).  Timing of each stage goes to stderr with --timing or
 * PARITY_TIMING=1. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json_act.h"
#include "actcheck.h"
#include "actlog.h"
#include "cli_report.h"
#include "pdf.h"
#include "match.h"
#include "trainlog.h"
#include "web.h"
#include "cli.h"
#include "msprobe.h"

#define CHUNK_BYTES             (1u << 18)
#define DETECT_BYTES            (64u << 10)
#define MAX_ALLOW_OPS           64
#define MAX_OVERRIDE_FILE_BYTES (64u << 20)

struct opts {
	const char *path[2];
	const char *overrides;
	const char *name[2];
	const char *format; /* "text", "json" or "csv" */
	const char *out;
	const char *policy; /* NULL, "bitwise" or "tolerance" */
	int have_max;
	double max_hash_distance;
	const char *allow_ops[MAX_ALLOW_OPS];
	size_t n_allow_ops;
	int timing;
	struct srv_optlist allow_list; /* --allow-only-op as parsed */
};

/* One input file: fd plus the bytes already read for detection. */
struct input {
	int fd;
	char *buf; /* CHUNK_BYTES */
	size_t n;  /* bytes in buf */
	int eof;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int check_max(void *dst, const char *val, char *err, size_t n)
{
	(void)val, (void)err, (void)n;
	((struct opts *)dst)->have_max = 1;
	return 0;
}

static const char *const formats[] = {"text", "json", "csv", NULL};
static const char *const policies[] = {"bitwise", "tolerance", NULL};

#define O(field) .offset = offsetof(struct opts, field)

static const struct srv_option compare_opts[] = {
        {.name = "overrides",
         .type = SRV_OPT_STRING,
         O(overrides),
         .metavar = "FILE",
         .help = "manual pairs, one '<A key>, <B key>' per line."},
        {.name = "name1",
         .type = SRV_OPT_STRING,
         O(name[0]),
         .metavar = "N",
         .help = "name shown for run A."},
        {.name = "name2",
         .type = SRV_OPT_STRING,
         O(name[1]),
         .metavar = "N",
         .help = "name shown for run B."},
        {.name = "format",
         .type = SRV_OPT_ENUM,
         O(format),
         .choices = formats,
         .def = "text",
         .metavar = "text|json|csv",
         .help = "output format: the text summary, JSON, or CSV (one line per row with rank, "
                 "idx, keys, status, method, phase, origin, distances, stat diffs); for HTML "
                 "give -o FILE.html."},
        {.name = "output",
         .short_name = 'o',
         .type = SRV_OPT_STRING,
         O(out),
         .metavar = "FILE",
         .help = "write the output to FILE and the verdict summary to stdout; a name ending "
                 "in .html gets the self-contained HTML report (inline CSS, JS and SVG; a "
                 "section per rank for directories)."},
        {.name = "policy",
         .type = SRV_OPT_ENUM,
         O(policy),
         .choices = policies,
         .metavar = "bitwise",
         .help = "bitwise (default): pass iff no diff, a_only or b_only row; tolerance comes "
                 "with --max-hash-distance / --allow-only-op."},
        {.name = "max-hash-distance",
         .type = SRV_OPT_DOUBLE,
         O(max_hash_distance),
         .min = 0,
         .metavar = "X",
         .check = check_max,
         .help = "tolerance policy: forgive diffs with equal shapes and hash distances <= X."},
        {.name = "allow-only-op",
         .type = SRV_OPT_LIST,
         O(allow_list),
         .metavar = "NAME",
         .help = "tolerance policy: forgive ops only in one run whose op name is NAME."},
        {.name = "timing",
         .env = "PARITY_TIMING",
         .type = SRV_OPT_BOOL,
         O(timing),
         .help = "print stage timings, the memory of the logs and rows and the peak RSS after each "
                 "stage to stderr."},
        {.name = NULL},
};

const struct srv_optcmd srv_compare_cmd = {
        .name = "compare",
        .synopsis = "usage: parity compare A.log B.log [options]\n"
                    "       parity compare runA/ runB/ [options]\n"
                    "       parity compare dumpA/stepN/ dumpB/stepM/ [options]\n",
        .about = "Compares two activation logs (op by op) or two training logs (hands\n"
                 "over to the training check: its options are those of `parity check`).\n"
                 "Two directories holding rank_N_activations.log files are compared rank\n"
                 "by rank (every rank must be on both sides).  Exit 0 pass, 1 fail, 2\n"
                 "error (the worst rank).  Ascend msprobe dumps: a dump.json is a log\n"
                 "(the stack.json beside it gives locations); a step folder stepN/\n"
                 "holding rankR/dump.json folders is a run of ranks.\n",
        .opts = compare_opts,
};

static void usage(FILE *f)
{
	srv_options_usage(&srv_compare_cmd, f);
}

/* Find the two positional paths without judging the options (the training
 * check has options of its own, skipped with their values). */
static int find_paths(int argc, char **argv, const char **pa, const char **pb)
{
	struct srv_optres res = {.skip = srv_check_cmd.opts, .operands_only = 1};
	struct opts o;
	memset(&o, 0, sizeof o);
	int rc = srv_options_parse(&srv_compare_cmd, &o, argc, argv, &res);
	*pa = res.n_operands > 0 ? res.operands[0] : NULL;
	*pb = res.n_operands > 1 ? res.operands[1] : NULL;
	rc = rc == 0 && res.n_operands >= 2 ? 0 : -1;
	srv_options_free(&srv_compare_cmd, &o, &res);
	return rc;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct srv_optres res = {0};
	int rc = -1;

	memset(o, 0, sizeof(*o));
	if (srv_options_parse(&srv_compare_cmd, o, argc, argv, &res) != 0) {
		srv_cli_fail("%s\n", res.err);
		goto done;
	}
	if (res.n_operands > 2) {
		srv_cli_fail("parity compare: unexpected argument '%s'\n", res.operands[2]);
		goto done;
	}
	if (res.n_operands != 2) {
		srv_cli_fail("parity compare: two log files or rank directories are "
		             "required\n");
		goto done;
	}
	o->path[0] = res.operands[0];
	o->path[1] = res.operands[1];
	for (size_t i = 0; i < o->allow_list.n; i++) {
		if (!*o->allow_list.v[i] || o->n_allow_ops == MAX_ALLOW_OPS) {
			srv_cli_fail("parity compare: --allow-only-op needs a name "
			             "(at most %d)\n",
			             MAX_ALLOW_OPS);
			goto done;
		}
		o->allow_ops[o->n_allow_ops++] = o->allow_list.v[i];
	}
	if (o->policy && strcmp(o->policy, "bitwise") == 0 && (o->have_max || o->n_allow_ops)) {
		srv_cli_fail("parity compare: --policy bitwise cannot be combined with "
		             "--max-hash-distance or --allow-only-op\n");
		goto done;
	}
	rc = 0;
done:
	srv_options_free(&srv_compare_cmd, o, &res);
	return rc;
}

/* Open path and read up to DETECT_BYTES into a fresh chunk buffer. */
static int input_open(struct input *in, const char *path)
{
	in->fd = -1;
	in->n = 0;
	in->eof = 0;
	in->buf = malloc(CHUNK_BYTES);
	if (!in->buf) {
		srv_cli_fail("parity compare: out of memory\n");
		return -1;
	}
	in->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		srv_cli_fail("parity compare: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (in->n < DETECT_BYTES) {
		ssize_t got = read(in->fd, in->buf + in->n, DETECT_BYTES - in->n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			srv_cli_fail("parity compare: cannot read %s: %s\n", path, strerror(errno));
			return -1;
		}
		if (got == 0) {
			in->eof = 1;
			break;
		}
		in->n += (size_t)got;
	}
	return 0;
}

static void input_close(struct input *in)
{
	if (in->fd >= 0)
		close(in->fd);
	free(in->buf);
	in->fd = -1;
	in->buf = NULL;
}

/* Stream the rest of the file through the activation parser into a new
 * log.  0 and *out, or -1 with a message on stderr. */
static int load_actlog(struct input *in, const char *path, struct matcher_actlog **out)
{
	struct matcher_actlog *log = matcher_actlog_new();
	struct matcher_actlog_parser *p = NULL;
	struct matcher_actlog_callbacks cb;
	struct srv_cli_msprobe_cb located = {{0}, NULL};
	struct matcher_msprobe_stack *stack = NULL;
	int rc = -1;

	*out = NULL;
	if (!log)
		goto oom;
	/* an msprobe dump.json: the stack.json beside it gives locations */
	if (srv_cli_msprobe_stack_beside(path, "parity compare", &stack) < 0)
		goto done;
	located.inner = matcher_actlog_collector(log);
	located.stack = stack;
	cb = srv_cli_msprobe_wrap(&located);
	p = matcher_actlog_parser_new(&cb, 0);
	if (!p)
		goto oom;
	for (;;) {
		ssize_t got;

		if (in->n && matcher_actlog_feed(p, in->buf, in->n) < 0)
			goto parse_error;
		in->n = 0;
		if (in->eof)
			break;
		got = read(in->fd, in->buf, CHUNK_BYTES);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			srv_cli_fail("parity compare: cannot read %s: %s\n", path, strerror(errno));
			goto done;
		}
		if (got == 0)
			in->eof = 1;
		in->n = (size_t)got;
	}
	if (matcher_actlog_finish(p, &log->summary) < 0)
		goto parse_error;
	matcher_actlog_seal(log);
	*out = log;
	log = NULL;
	rc = 0;
	goto done;
parse_error : {
	const struct matcher_error *e = matcher_actlog_error(p);

	if (e->line)
		srv_cli_fail("parity compare: %s: line %lu: %s (%s)\n", path, e->line, e->message,
		             e->code);
	else
		srv_cli_fail("parity compare: %s: %s (%s)\n", path, e->message, e->code);
}
	goto done;
oom:
	srv_cli_fail("parity compare: out of memory\n");
done:
	matcher_actlog_parser_free(p);
	matcher_msprobe_stack_free(stack);
	matcher_actlog_free(log);
	return rc;
}

static int load_overrides(const char *path, struct matcher_overrides **out)
{
	FILE *f = fopen(path, "rb");
	struct buf b = BUF_INIT;
	char chunk[65536];
	size_t got;
	int rc = -1;

	*out = NULL;
	if (!f) {
		srv_cli_fail("parity compare: cannot open overrides %s: %s\n", path,
		             strerror(errno));
		return -1;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (b.len + got > MAX_OVERRIDE_FILE_BYTES) {
			srv_cli_fail("parity compare: overrides %s is too large\n", path);
			goto done;
		}
		if (buf_append(&b, chunk, got) < 0)
			goto oom;
	}
	if (ferror(f)) {
		srv_cli_fail("parity compare: cannot read overrides %s\n", path);
		goto done;
	}
	if (memchr(b.data ? b.data : "", 0, b.len)) {
		srv_cli_fail("parity compare: overrides %s is not a text file\n", path);
		goto done;
	}
	if (matcher_overrides_parse(b.data ? b.data : "", b.len, out) < 0)
		goto oom;
	rc = 0;
	goto done;
oom:
	srv_cli_fail("parity compare: out of memory\n");
done:
	fclose(f);
	buf_reset(&b);
	return rc;
}

static void print_row_ref(FILE *f, const char *label, const struct matcher_match_result *r,
                          size_t i)
{
	struct matcher_row_view v;
	const struct matcher_row *row;

	if (i == MATCHER_NO_ROW) {
		fprintf(f, "  %s: none\n", label);
		return;
	}
	matcher_row_view_init(&v);
	if (!(row = matcher_result_row(r, i, &v))) {
		fprintf(f, "  %s: row %zu\n", label, i);
		matcher_row_view_free(&v);
		return;
	}
	fprintf(f, "  %s: row %zu  %s  <->  %s  (%s, %s", label, i, row->a->key, row->b->key,
	        matcher_method_name(row->method), row->origin ? "origin" : "propagated");
	if (row->shape_differs)
		fputs(", shape differs", f);
	if (row->output_hash_distance >= 0)
		fprintf(f, ", output hash distance %.3g", row->output_hash_distance);
	if (row->input_hash_distance >= 0)
		fprintf(f, ", input hash distance %.3g", row->input_hash_distance);
	fputs(")\n", f);
	matcher_row_view_free(&v);
}

/* The text summary of one rank pair: a title line (title, e.g. "rank 2",
 * NULL for a single pair), then its indented lines. */
static int write_text(FILE *f, const struct store_act_input *d, const char *title)
{
	const struct matcher_match_result *r = d->result;
	const struct matcher_match_summary *s = &r->summary;
	size_t i;

	if (title)
		fprintf(f, "%s: %s\n", title, matcher_verdict_name(d->verdict->verdict));
	else
		fprintf(f, "activation comparison: %s (policy %s)\n",
		        matcher_verdict_name(d->verdict->verdict),
		        matcher_act_policy_name(d->policy));
	fprintf(f, "  A: %s (%zu ops, %zu warnings)\n", d->name_a, d->a->n_entries,
	        d->a->summary.n_warnings);
	fprintf(f, "  B: %s (%zu ops, %zu warnings)\n", d->name_b, d->b->n_entries,
	        d->b->summary.n_warnings);
	fprintf(f, "  rows: %zu  match %zu, diff %zu, a_only %zu, b_only %zu\n", s->n_rows,
	        s->n_status[MATCHER_MATCH], s->n_status[MATCHER_DIFF], s->n_status[MATCHER_A_ONLY],
	        s->n_status[MATCHER_B_ONLY]);
	fprintf(f, "  paired by: override %zu, exact %zu, fuzzy %zu, stats %zu\n",
	        s->n_method[MATCHER_METHOD_OVERRIDE], s->n_method[MATCHER_METHOD_EXACT],
	        s->n_method[MATCHER_METHOD_FUZZY], s->n_method[MATCHER_METHOD_STATS]);
	fprintf(f, "  diffs: %zu origin, %zu propagated", s->n_origin, s->n_propagated);
	if (s->max_hash_distance >= 0)
		fprintf(f, "; largest hash distance %.3g (row %zu)", s->max_hash_distance,
		        s->max_hash_row);
	fputc('\n', f);
	print_row_ref(f, "first forward divergence", r, s->first_divergence[MATCHER_FORWARD]);
	print_row_ref(f, "first backward divergence", r, s->first_divergence[MATCHER_BACKWARD]);
	if (d->ov)
		fprintf(f, "  overrides: %zu used, %zu unused, %zu warnings\n", r->n_overrides_used,
		        r->n_unused, d->ov->n_warnings);
	for (i = 0; d->ov && i < d->ov->n_warnings; i++)
		fprintf(f, "    warning: %s\n", d->ov->warnings[i].message);
	for (i = 0; i < r->n_unused; i++)
		fprintf(f, "    unused (line %lu, %s): %s, %s\n", r->unused[i].line,
		        r->unused[i].reason, r->unused[i].a_key, r->unused[i].b_key);
	if (d->verdict->n_tolerated)
		fprintf(f, "  tolerated by the policy: %zu rows\n", d->verdict->n_tolerated);
	for (i = 0; i < d->verdict->n_reasons; i++)
		fprintf(f, "  reason %s: %s\n", d->verdict->reasons[i].code,
		        d->verdict->reasons[i].message);
	return ferror(f) ? -1 : 0;
}

/* ---- rank pairs ------------------------------------------------------- */

/* One rank to compare: its number and the two files. */
struct rank_file {
	int rank;
	char *path[2]; /* owned */
};

/* The comparison under way: options, shared inputs, the ranks and the one
 * rank pair currently in memory (loaded, matched, judged). */
struct cmp {
	struct opts o;
	struct matcher_overrides *ov;
	struct matcher_act_policy policy;
	struct rank_file *ranks; /* owned, by rank */
	size_t n_ranks;
	int multi;  /* 1: two rank directories */
	size_t cur; /* index of the loaded rank, or (size_t)-1 */
	struct matcher_actlog *log[2];
	struct matcher_match_result *res;
	struct matcher_act_verdict verdict;
	double t_parse[2], t_match, t_check;
	size_t mem_log[2], mem_rows; /* largest rank's bytes, for --timing */
	long peak_kb[2];             /* peak RSS after the parse / the match */
	int printed;                 /* the result document went to stdout */
};

/* Open, detect-skip and parse one log file into *out.  0 or -1 (message on
 * stderr). */
static int load_path(const char *path, struct matcher_actlog **out)
{
	struct input in = {-1, NULL, 0, 0};
	int rc = input_open(&in, path) < 0 ? -1 : load_actlog(&in, path, out);
	input_close(&in);
	return rc;
}

struct load_job {
	const char *path;
	struct matcher_actlog *log;
	int rc;
	double secs;
};

/* The process's peak RSS so far, KiB (0 if unknown). */
static long peak_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
}

static void *load_job_run(void *arg)
{
	struct load_job *j = arg;
	double t = now_s();
	j->rc = load_path(j->path, &j->log);
	j->secs = now_s() - t;
	return NULL;
}

static void cmp_unload(struct cmp *c)
{
	matcher_match_result_free(c->res);
	matcher_actlog_free(c->log[0]);
	matcher_actlog_free(c->log[1]);
	c->res = NULL;
	c->log[0] = c->log[1] = NULL;
	c->cur = (size_t)-1;
}

/* Make rank i the loaded one: parse both logs (A on a second thread while
 * this one parses B: the two parses are independent and take most of the
 * time), match and judge.  0, or -1 with a message on stderr. */
static int cmp_load(struct cmp *c, size_t i)
{
	struct load_job job[2] = {{c->ranks[i].path[0], NULL, -1, 0},
	                          {c->ranks[i].path[1], NULL, -1, 0}};
	pthread_t th;
	int threaded, k;
	double t;

	if (c->cur == i)
		return 0;
	cmp_unload(c);
	threaded = pthread_create(&th, NULL, load_job_run, &job[0]) == 0;
	if (!threaded)
		load_job_run(&job[0]);
	load_job_run(&job[1]);
	if (threaded)
		pthread_join(th, NULL);
	for (k = 0; k < 2; k++) {
		c->log[k] = job[k].log;
		c->t_parse[k] += job[k].secs;
		if (c->log[k] && matcher_actlog_bytes(c->log[k]) > c->mem_log[k])
			c->mem_log[k] = matcher_actlog_bytes(c->log[k]);
	}
	if (job[0].rc < 0 || job[1].rc < 0)
		return -1;
	c->peak_kb[0] = peak_rss_kb();
	/* the parsers' tables are gone (two threads' heaps, ~6 MB on two
	 * 30 MB logs): give their pages back before the match allocates */
	malloc_trim(0);
	t = now_s();
	if (matcher_match(c->log[0], c->log[1], c->ov, &c->res) < 0) {
		srv_cli_fail("parity compare: out of memory while matching\n");
		return -1;
	}
	c->t_match += now_s() - t;
	c->peak_kb[1] = peak_rss_kb();
	if (c->res->n_rows * sizeof(*c->res->recs) > c->mem_rows)
		c->mem_rows = c->res->n_rows * sizeof(*c->res->recs);
	t = now_s();
	if (matcher_act_check(c->res, &c->policy, &c->verdict) < 0) {
		srv_cli_fail("parity compare: %s\n", c->verdict.reasons[0].message);
		return -1;
	}
	c->t_check += now_s() - t;
	c->cur = i;
	return 0;
}

/* The document view of the loaded rank. */
static struct store_act_input cmp_doc(struct cmp *c)
{
	struct store_act_input d;

	d.name_a = c->o.name[0] ? c->o.name[0] : c->o.path[0];
	d.name_b = c->o.name[1] ? c->o.name[1] : c->o.path[1];
	d.a = c->log[0];
	d.b = c->log[1];
	d.ov = c->ov;
	d.result = c->res;
	d.policy = &c->policy;
	d.verdict = &c->verdict;
	return d;
}

/* Rank of a file name "rank_<N>_activations.log", or -1. */
static int rank_of_name(const char *name)
{
	const char *p = name + 5, *suffix = "_activations.log";
	long v = 0;

	if (strncmp(name, "rank_", 5) != 0 || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (*p - '0');
		if (v > 1000000)
			return -1;
	}
	return strcmp(p, suffix) == 0 ? (int)v : -1;
}

static int cmp_rank(const void *x, const void *y)
{
	const struct rank_file *a = x, *b = y;
	return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The rank files of directory dir (side k of each entry), sorted by rank.
 * 0, or -1 with a message (unreadable, no rank file, a rank twice). */
static int scan_dir(const char *dir, int k, struct rank_file **out, size_t *n_out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct rank_file *list = NULL;
	size_t n = 0, cap = 0, i;
	int rc = -1;

	*out = NULL;
	*n_out = 0;
	if (!d) {
		srv_cli_fail("parity compare: cannot open directory %s: %s\n", dir,
		             strerror(errno));
		return -1;
	}
	int steps = 0;
	while ((de = readdir(d)) != NULL) {
		int rank = rank_of_name(de->d_name);
		struct rank_file *rf;
		char *dump = NULL; /* an msprobe step folder's rankR/dump.json */

		if (rank < 0)
			rank = srv_cli_msprobe_rank_dir(dir, de->d_name, &dump);
		steps += srv_cli_msprobe_is_step_dir(de->d_name);
		if (rank < 0)
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct rank_file *nl = realloc(list, ncap * sizeof *nl);
			if (!nl)
				goto oom;
			list = nl;
			cap = ncap;
		}
		rf = &list[n];
		memset(rf, 0, sizeof *rf);
		rf->rank = rank;
		rf->path[k] = dump ? dump : malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!rf->path[k])
			goto oom;
		if (!dump)
			sprintf(rf->path[k], "%s/%s", dir, de->d_name);
		n++;
	}
	if (n == 0 && steps) {
		srv_cli_fail("parity compare: %s holds msprobe step folders: name one "
		             "(e.g. %s/step0)\n",
		             dir, dir);
		goto done;
	}
	if (n == 0) {
		srv_cli_fail("parity compare: %s holds no rank_N_activations.log file and no "
		             "rankR/dump.json folder\n",
		             dir);
		goto done;
	}
	qsort(list, n, sizeof *list, cmp_rank);
	for (i = 1; i < n; i++) {
		if (list[i].rank == list[i - 1].rank) {
			srv_cli_fail("parity compare: %s holds two files for rank %d (%s, %s)\n",
			             dir, list[i].rank, list[i - 1].path[k], list[i].path[k]);
			goto done;
		}
	}
	*out = list;
	*n_out = n;
	list = NULL;
	rc = 0;
	goto done;
oom:
	srv_cli_fail("parity compare: out of memory\n");
done:
	for (i = 0; list && i < n; i++)
		free(list[i].path[k]);
	free(list);
	closedir(d);
	return rc;
}

static void ranks_free(struct rank_file *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].path[0]);
		free(r[i].path[1]);
	}
	free(r);
}

/* Pair the rank files of directories da and db by rank into c->ranks.
 * Every rank must be on both sides: else -1 naming each lone rank. */
static int pair_dirs(struct cmp *c, const char *da, const char *db)
{
	struct rank_file *ra = NULL, *rb = NULL;
	size_t na = 0, nb = 0, i = 0, j = 0, n = 0;
	int rc = -1, lone = 0;

	if (scan_dir(da, 0, &ra, &na) < 0 || scan_dir(db, 1, &rb, &nb) < 0)
		goto done;
	c->ranks = calloc(na, sizeof *c->ranks);
	if (!c->ranks) {
		srv_cli_fail("parity compare: out of memory\n");
		goto done;
	}
	while (i < na || j < nb) {
		if (j >= nb || (i < na && ra[i].rank < rb[j].rank)) {
			srv_cli_fail("parity compare: rank %d is in %s only (%s)\n", ra[i].rank, da,
			             ra[i].path[0]);
			lone = 1;
			i++;
		} else if (i >= na || rb[j].rank < ra[i].rank) {
			srv_cli_fail("parity compare: rank %d is in %s only (%s)\n", rb[j].rank, db,
			             rb[j].path[1]);
			lone = 1;
			j++;
		} else {
			c->ranks[n].rank = ra[i].rank;
			c->ranks[n].path[0] = ra[i].path[0];
			c->ranks[n].path[1] = rb[j].path[1];
			ra[i].path[0] = rb[j].path[1] = NULL;
			n++;
			i++;
			j++;
		}
	}
	c->n_ranks = n;
	rc = lone ? -1 : 0;
done:
	ranks_free(ra, na);
	ranks_free(rb, nb);
	return rc;
}

/* ---- outputs ------------------------------------------------------------ */

/* Write json_dumps(doc) without its closing '}' (the caller appends
 * members and closes it).  0 or -1. */
static int write_open_object(FILE *f, json_t *doc)
{
	char *text = json_dumps(doc, JSON_COMPACT);
	size_t len = text ? strlen(text) : 0;
	int rc =
	        len >= 2 && text[len - 1] == '}' && fwrite(text, 1, len - 1, f) == len - 1 ? 0 : -1;
	free(text);
	return rc;
}

/* The JSON of every rank: the multi-rank result document with each rank's
 * document in "ranks" carrying its "rows" (the single-pair document's row
 * shape), rank by rank.  0 or -1. */
static int write_json_ranks(FILE *f, struct cmp *c, json_t *top)
{
	json_t *head = json_copy(top), *ranks = json_object_get(top, "ranks");
	struct matcher_row_view v;
	const struct matcher_row *row;
	struct buf b = BUF_INIT;
	int rc = -1;

	matcher_row_view_init(&v);
	if (!head || json_object_del(head, "ranks") < 0 || write_open_object(f, head) < 0 ||
	    fputs(",\"ranks\":[", f) == EOF)
		goto done;
	for (size_t i = 0; i < c->n_ranks; i++) {
		if (cmp_load(c, i) < 0)
			goto done;
		if ((i && fputc(',', f) == EOF) ||
		    write_open_object(f, json_array_get(ranks, i)) < 0 ||
		    fputs(",\"rows\":[", f) == EOF)
			goto done;
		for (size_t r = 0; r < c->res->n_rows; r++) {
			if ((r && buf_putc(&b, ',') < 0) ||
			    !(row = matcher_result_row(c->res, r, &v)) ||
			    web_act_row_append(&b, row) < 0)
				goto done;
			if (b.len >= (1u << 20)) {
				if (fwrite(b.data, 1, b.len, f) != b.len)
					goto done;
				buf_clear(&b);
			}
		}
		if (buf_puts(&b, "]}") < 0 || fwrite(b.data, 1, b.len, f) != b.len)
			goto done;
		buf_clear(&b);
	}
	rc = fputs("]}\n", f) == EOF ? -1 : 0;
done:
	json_decref(head);
	buf_reset(&b);
	matcher_row_view_free(&v);
	return rc;
}

/* The CSV lines of the loaded rank (the header before rank 0's), flushed to
 * f in ~1 MiB pieces.  0 or -1. */
static int write_csv_rank(FILE *f, struct cmp *c, int header)
{
	struct matcher_row_view v;
	struct buf b = BUF_INIT;
	int rc = -1;

	matcher_row_view_init(&v);
	if (header && web_act_csv_header(&b) < 0)
		goto done;
	for (size_t r = 0; r < c->res->n_rows; r++) {
		struct web_act_row wr = {(long)r, matcher_result_row(c->res, r, &v)};
		if (!wr.row || web_act_csv_row(&b, c->ranks[c->cur].rank, &wr) < 0)
			goto done;
		if (b.len >= (1u << 20)) {
			if (fwrite(b.data, 1, b.len, f) != b.len)
				goto done;
			buf_clear(&b);
		}
	}
	rc = b.len && fwrite(b.data, 1, b.len, f) != b.len ? -1 : 0;
done:
	buf_reset(&b);
	matcher_row_view_free(&v);
	return rc;
}

/* The HTML report of every rank: the head from top, then a section per
 * rank.  0 or -1. */
static int write_html_ranks(FILE *f, struct cmp *c, const struct store_act_result *top)
{
	struct buf b = BUF_INIT;
	int rc = srv_report_act_all_begin(f, &b, top);

	for (size_t i = 0; rc == 0 && i < c->n_ranks; i++) {
		rc = cmp_load(c, i);
		if (rc == 0)
			rc = srv_report_act_rank(f, &b, top, c->ranks[i].rank, c->res);
	}
	if (rc == 0)
		rc = srv_report_act_all_end(f, &b);
	buf_reset(&b);
	return rc;
}

enum out_kind { OUT_TEXT, OUT_JSON, OUT_CSV, OUT_HTML, OUT_PDF };

/* The PDF's rows of rank i (srv_report_act_pdf's callback): a single
 * pair is still loaded, each rank of two directories is loaded again. */
static int pdf_rank_rows(void *ctx, size_t i, struct web_pdf *p, int64_t *listed, int64_t *more)
{
	struct cmp *c = ctx;
	if (c->multi && cmp_load(c, i) < 0)
		return -1;
	return srv_pdf_act_rows(p, c->multi ? c->ranks[i].rank : -1, c->res, listed, more);
}

static int compare_activation(struct cmp *c)
{
	struct opts *o = &c->o;
	enum out_kind kind = !strcmp(o->format, "json")                  ? OUT_JSON
	                     : !strcmp(o->format, "csv")                 ? OUT_CSV
	                     : o->out && srv_report_is_html_path(o->out) ? OUT_HTML
	                     : o->out && srv_report_is_pdf_path(o->out)  ? OUT_PDF
	                                                                 : OUT_TEXT;
	struct web_profile_acc *prof_acc = NULL;
	struct web_profile *prof = NULL;
	enum matcher_verdict worst = MATCHER_VERDICT_PASS;
	struct store_act_build acc;
	json_t *top = NULL;
	char *text = NULL;
	size_t text_len = 0;
	FILE *out = stdout, *tf = open_memstream(&text, &text_len);
	double t0 = now_s(), t_out = 0, t;
	int rc = 2, wrc = 0;

	store_act_build_init(&acc, &c->policy);
	if (!tf) {
		srv_cli_fail("parity compare: out of memory\n");
		goto done;
	}
	if (o->out && !(out = fopen(o->out, "w"))) {
		srv_cli_fail("parity compare: cannot write %s: %s\n", o->out, strerror(errno));
		out = stdout;
		goto done;
	}
	/* pass 1: every rank matched and judged; its summary document and text
	 * kept (and its CSV lines written: they need nothing of later ranks) */
	for (size_t i = 0; i < c->n_ranks; i++) {
		struct store_act_input d;
		char title[32];

		if (cmp_load(c, i) < 0)
			goto done;
		d = cmp_doc(c);
		worst = matcher_verdict_worst(worst, c->verdict.verdict);
		snprintf(title, sizeof title, "rank %d", c->ranks[i].rank);
		write_text(tf, &d, c->multi ? title : NULL);
		if ((c->multi || kind == OUT_PDF) &&
		    store_act_build_rank(&acc, &d, c->multi ? c->ranks[i].rank : -1) < 0) {
			srv_cli_fail("parity compare: out of memory\n");
			goto done;
		}
		if (kind == OUT_PDF) {
			if (!prof && (!(prof_acc = calloc(c->n_ranks, sizeof *prof_acc)) ||
			              !(prof = calloc(c->n_ranks, sizeof *prof)))) {
				srv_cli_fail("parity compare: out of memory\n");
				goto done;
			}
			if (srv_pdf_act_profile(c->res, &prof_acc[i]) < 0) {
				srv_cli_fail("parity compare: out of memory\n");
				goto done;
			}
			web_profile_acc_finish(&prof_acc[i], &prof[i]);
			prof[i].first_fwd = (long)acc.res.ranks[i].first_divergence[0].row;
			prof[i].first_bwd = (long)acc.res.ranks[i].first_divergence[1].row;
		}
		if (kind == OUT_CSV) {
			t = now_s();
			wrc |= write_csv_rank(out, c, i == 0);
			t_out += now_s() - t;
		}
	}
	if (fflush(tf) != 0) {
		srv_cli_fail("parity compare: out of memory\n");
		goto done;
	}
	if (c->multi) {
		acc.res.verdict = worst;
		top = web_act_result_doc(&acc.res);
		if (!top) {
			srv_cli_fail("parity compare: out of memory\n");
			goto done;
		}
	}
	/* pass 2: the outputs that need rows after the head (a single pair is
	 * still loaded: nothing is read twice) */
	t = now_s();
	c->printed = out == stdout;
	if (kind == OUT_JSON && !c->multi) {
		struct store_act_input d = cmp_doc(c);
		wrc |= web_act_write_json(out, &d);
	} else if (kind == OUT_JSON) {
		wrc |= write_json_ranks(out, c, top);
	} else if (kind == OUT_HTML && !c->multi) {
		struct store_act_input d = cmp_doc(c);
		wrc |= srv_report_act_file(out, &d);
	} else if (kind == OUT_HTML) {
		wrc |= write_html_ranks(out, c, &acc.res);
	} else if (kind == OUT_PDF) {
		acc.res.verdict = worst;
		wrc |= srv_report_act_pdf(out, &acc.res, prof, c->n_ranks, c->o.path[0],
		                          c->o.path[1], pdf_rank_rows, c);
	}
	if (kind == OUT_TEXT || (o->out && out != stdout)) {
		FILE *sf = kind == OUT_TEXT ? out : stdout;

		if (c->multi)
			fprintf(sf, "activation comparison: %s (policy %s, %zu ranks)\n",
			        matcher_verdict_name(worst), matcher_act_policy_name(&c->policy),
			        c->n_ranks);
		if (text_len && fwrite(text, 1, text_len, sf) != text_len)
			wrc = -1;
		if (kind != OUT_TEXT)
			fflush(sf);
	}
	if (fflush(out) != 0 || ferror(out))
		wrc = -1;
	t_out += now_s() - t;
	if (wrc) {
		srv_cli_fail("parity compare: cannot write the result%s%s\n", o->out ? " to " : "",
		             o->out ? o->out : "");
		goto done;
	}
	rc = srv_cli_verdict_exit(worst);
done:
	if (out != stdout && fclose(out) != 0 && rc != 2) {
		srv_cli_fail("parity compare: cannot write %s\n", o->out);
		rc = 2;
	}
	if (tf)
		fclose(tf);
	free(text);
	if (o->timing && rc != 2)
		fprintf(stderr,
		        "timing: parse A %.3f s, parse B %.3f s (in parallel), match %.3f s, "
		        "verdict %.3f s, output %.3f s, total %.3f s\n",
		        c->t_parse[0], c->t_parse[1], c->t_match, c->t_check, t_out, now_s() - t0);
	if (o->timing && rc != 2)
		fprintf(stderr,
		        "memory: log A %.1f MB, log B %.1f MB, rows %.1f MB; peak RSS %.1f MB "
		        "after the parse, %.1f MB after the match, %.1f MB at the end\n",
		        c->mem_log[0] / 1048576.0, c->mem_log[1] / 1048576.0,
		        c->mem_rows / 1048576.0, c->peak_kb[0] / 1024.0, c->peak_kb[1] / 1024.0,
		        peak_rss_kb() / 1024.0);
	json_decref(top);
	store_act_build_free(&acc);
	for (size_t i = 0; prof_acc && i < c->n_ranks; i++)
		web_profile_acc_free(&prof_acc[i]);
	free(prof_acc);
	free(prof);
	return rc;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Two rank directories, or two activation log files: set up c and run.
 * *printed: set when the result document went to stdout. */
static int run_activation(int argc, char **argv, int dirs, int *printed)
{
	struct cmp c;
	int rc = 2;

	memset(&c, 0, sizeof c);
	c.cur = (size_t)-1;
	if (parse_opts(argc, argv, &c.o) < 0) {
		usage(stderr);
		return 2;
	}
	if (dirs) {
		c.multi = 1;
		if (pair_dirs(&c, c.o.path[0], c.o.path[1]) < 0)
			goto done;
	} else {
		c.ranks = calloc(1, sizeof *c.ranks);
		if (!c.ranks || !(c.ranks[0].path[0] = strdup(c.o.path[0])) ||
		    !(c.ranks[0].path[1] = strdup(c.o.path[1]))) {
			srv_cli_fail("parity compare: out of memory\n");
			c.n_ranks = c.ranks ? 1 : 0;
			goto done;
		}
		c.n_ranks = 1;
	}
	if (c.o.overrides && load_overrides(c.o.overrides, &c.ov) < 0)
		goto done;
	matcher_act_policy_init(&c.policy);
	if (c.o.have_max || c.o.n_allow_ops ||
	    (c.o.policy && strcmp(c.o.policy, "tolerance") == 0)) {
		c.policy.kind = MATCHER_POLICY_TOLERANCE;
		c.policy.max_hash_distance = c.o.max_hash_distance;
		c.policy.allow_only_ops = c.o.allow_ops;
		c.policy.n_allow_only_ops = c.o.n_allow_ops;
	}
	rc = compare_activation(&c);
	*printed = c.printed;
done:
	cmp_unload(&c);
	matcher_overrides_free(c.ov);
	ranks_free(c.ranks, c.n_ranks);
	return rc;
}

int srv_cli_compare(int argc, char **argv)
{
	struct input in[2] = {{-1, NULL, 0, 0}, {-1, NULL, 0, 0}};
	const char *path[2];
	enum matcher_kind kind[2];
	int k, i, rc = 2, dir[2], printed = 0;
	const char *jkind = NULL, *jcode = "usage", *jside = NULL;

	/* Blocks of 256 KiB and more in their own mappings, always: glibc
	 * otherwise raises this threshold to the size of each such block
	 * freed, and the growing arrays of the logs then live in the heap,
	 * where realloc copies (old and new block resident at once) and freed
	 * pages stay resident.  Measured on two 30 MB logs: peak RSS 25.4 ->
	 * 23.5 MB, same time. */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
	}
	if (find_paths(argc, argv, &path[0], &path[1]) < 0) {
		srv_cli_fail("parity compare: two log files or rank directories are required\n");
		usage(stderr);
		goto done;
	}
	dir[0] = is_dir(path[0]);
	dir[1] = is_dir(path[1]);
	jkind = "activation";
	jcode = "input_error";
	if (dir[0] && dir[1]) {
		rc = run_activation(argc, argv, 1, &printed);
		goto done;
	}
	if (dir[0] || dir[1]) {
		srv_cli_fail("parity compare: %s is a directory and %s is not: give two log files "
		             "or two rank directories\n",
		             path[dir[0] ? 0 : 1], path[dir[0] ? 1 : 0]);
		jkind = NULL;
		jcode = "usage";
		goto done;
	}
	jkind = NULL;
	for (k = 0; k < 2; k++) {
		jcode = "io";
		jside = k ? "candidate" : "baseline";
		if (input_open(&in[k], path[k]) < 0)
			goto done;
		kind[k] = matcher_detect_kind(in[k].buf, in[k].n);
	}
	jside = NULL;
	input_close(&in[0]);
	input_close(&in[1]);
	/* A training log against a file without a metric line (a run that
	 * crashed before step 1) is a training comparison: its check names
	 * the refused side. */
	if ((kind[0] == MATCHER_KIND_TRAINING || kind[1] == MATCHER_KIND_TRAINING) &&
	    kind[0] != MATCHER_KIND_ACTIVATION && kind[1] != MATCHER_KIND_ACTIVATION)
		return srv_cli_compare_training(argc, argv);
	if (kind[0] != kind[1] || kind[0] != MATCHER_KIND_ACTIVATION) {
		jcode = "not_a_log";
		for (k = 0; k < 2; k++) {
			if (kind[k] == MATCHER_KIND_UNKNOWN) {
				jside = jside ? NULL : (k ? "candidate" : "baseline");
				srv_cli_fail("parity compare: %s is neither an activation log nor "
				             "a training log\n",
				             path[k]);
			}
		}
		if (kind[0] != MATCHER_KIND_UNKNOWN && kind[1] != MATCHER_KIND_UNKNOWN) {
			jcode = "kind_mismatch";
			srv_cli_fail("parity compare: cannot compare %s (%s log) with %s "
			             "(%s log)\n",
			             path[0], matcher_kind_name(kind[0]), path[1],
			             matcher_kind_name(kind[1]));
		} else if (kind[0] != kind[1]) {
			jkind = "activation";
		}
		goto done;
	}
	jkind = "activation";
	jcode = "input_error";
	rc = run_activation(argc, argv, 0, &printed);
done:
	input_close(&in[0]);
	input_close(&in[1]);
	/* --format json: one JSON document on stdout whatever went wrong */
	if (rc == 2 && !printed && srv_cli_wants_json(argc, argv))
		srv_cli_json_error(jkind, jcode, jside, srv_cli_last_error());
	return rc;
}
