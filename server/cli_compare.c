/* cli_compare.c - `parity compare A B`: offline comparison of two logs.
 *
 * Detects the kind of both files from their first 64 KiB; two training logs
 * go to srv_cli_compare_training with the same argv, two activation logs
 * are streamed through the activation parser (read(2), 1 MiB chunks),
 * matched, judged under the policy and written as a text summary or JSON.
 * Exit status: 0 pass, 1 fail, 2 error (usage, unreadable or invalid
 * input, mixed kinds; a message on stderr).  Timing of each stage goes to
 * stderr with --timing or PARITY_TIMING=1.  Single-threaded. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "act_json.h"
#include "ui.h"
#include "actcheck.h"
#include "actlog.h"
#include "cli.h"
#include "match.h"
#include "trainlog.h"

#define CHUNK_BYTES             (1u << 20)
#define DETECT_BYTES            (64u << 10)
#define MAX_ALLOW_OPS           64
#define MAX_OVERRIDE_FILE_BYTES (64u << 20)

struct opts {
	const char *path[2];
	const char *overrides;
	const char *name[2];
	const char *format; /* "text" or "json" */
	const char *out;
	const char *policy; /* NULL, "bitwise" or "tolerance" */
	int have_max;
	double max_hash_distance;
	const char *allow_ops[MAX_ALLOW_OPS];
	size_t n_allow_ops;
	int timing;
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

static void usage(FILE *f)
{
	fputs("usage: parity compare A.log B.log [options]\n"
	      "\n"
	      "Compares two activation logs (op by op) or two training logs (hands\n"
	      "over to the training check).  Exit 0 pass, 1 fail, 2 error.\n"
	      "\n"
	      "activation options:\n"
	      "  --overrides FILE          manual pairs, one '<A key>, <B key>' per line\n"
	      "  --name1 N, --name2 N      names shown for run A and run B\n"
	      "  --format text|json        output format (default: text summary)\n"
	      "  -o FILE                   write the output to FILE instead of stdout; a\n"
	      "                            name ending in .html gets the self-contained\n"
	      "                            HTML report (inline CSS, JS and SVG)\n"
	      "  --policy bitwise          pass iff no diff, a_only or b_only row (default)\n"
	      "  --max-hash-distance X     tolerance policy: forgive diffs with equal shapes\n"
	      "                            and hash distances <= X\n"
	      "  --allow-only-op NAME      tolerance policy: forgive ops only in one run\n"
	      "                            whose op name is NAME (repeatable)\n"
	      "  --timing                  print stage timings to stderr\n",
	      f);
}

/* Value of option `name` at argv[*i] ("--name V" or "--name=V"); advances
 * *i past a separate value.  NULL when argv[*i] is not this option;
 * *missing set when the value is absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != 0)
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	(*i)++;
	return argv[*i];
}

static const char *const value_opts[] = {"--overrides",
                                         "--name1",
                                         "--name2",
                                         "--format",
                                         "-o",
                                         "--policy",
                                         "--max-hash-distance",
                                         "--allow-only-op",
                                         "--threshold",
                                         "--min-steps",
                                         "--rank",
                                         NULL};

/* Find the two positional paths without judging the options (the training
 * check has options of its own): with the documented form the paths come
 * first; otherwise skip the values of the options known here. */
static int find_paths(int argc, char **argv, const char **pa, const char **pb)
{
	const char *found[2] = {NULL, NULL};
	int i, k = 0;

	for (i = 1; i < argc && k < 2; i++) {
		const char *s = argv[i];
		int j, takes = 0;

		if (s[0] != '-' || strcmp(s, "-") == 0) {
			found[k++] = s;
			continue;
		}
		for (j = 0; value_opts[j]; j++)
			takes |= strcmp(s, value_opts[j]) == 0;
		if (takes)
			i++;
	}
	*pa = found[0];
	*pb = found[1];
	return k == 2 ? 0 : -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i, k = 0;

	memset(o, 0, sizeof(*o));
	o->format = "text";
	o->timing = getenv("PARITY_TIMING") && strcmp(getenv("PARITY_TIMING"), "0") != 0;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i], *v;
		int missing = 0;

		if (s[0] != '-' || strcmp(s, "-") == 0) {
			if (k == 2) {
				srv_cli_fail("parity compare: unexpected argument '%s'\n", s);
				return -1;
			}
			o->path[k++] = s;
		} else if (strcmp(s, "--timing") == 0) {
			o->timing = 1;
		} else if ((v = opt_value(argc, argv, &i, "--overrides", &missing))) {
			o->overrides = v;
		} else if ((v = opt_value(argc, argv, &i, "--name1", &missing))) {
			o->name[0] = v;
		} else if ((v = opt_value(argc, argv, &i, "--name2", &missing))) {
			o->name[1] = v;
		} else if ((v = opt_value(argc, argv, &i, "--format", &missing))) {
			if (strcmp(v, "json") != 0 && strcmp(v, "text") != 0) {
				srv_cli_fail("parity compare: --format must be text or json "
				             "(HTML output is not available yet)\n");
				return -1;
			}
			o->format = v;
		} else if ((v = opt_value(argc, argv, &i, "-o", &missing))) {
			o->out = v;
		} else if ((v = opt_value(argc, argv, &i, "--policy", &missing))) {
			if (strcmp(v, "bitwise") != 0 && strcmp(v, "tolerance") != 0) {
				srv_cli_fail("parity compare: unknown policy '%s' (bitwise, or "
				             "tolerance via --max-hash-distance/--allow-only-op)\n",
				             v);
				return -1;
			}
			o->policy = v;
		} else if ((v = opt_value(argc, argv, &i, "--max-hash-distance", &missing))) {
			char *end;

			errno = 0;
			o->max_hash_distance = strtod(v, &end);
			if (errno || end == v || *end || !isfinite(o->max_hash_distance) ||
			    o->max_hash_distance < 0) {
				srv_cli_fail("parity compare: --max-hash-distance needs a finite "
				             "number >= 0, got '%s'\n",
				             v);
				return -1;
			}
			o->have_max = 1;
		} else if ((v = opt_value(argc, argv, &i, "--allow-only-op", &missing))) {
			if (!*v || o->n_allow_ops == MAX_ALLOW_OPS) {
				srv_cli_fail("parity compare: --allow-only-op needs a name "
				             "(at most %d)\n",
				             MAX_ALLOW_OPS);
				return -1;
			}
			o->allow_ops[o->n_allow_ops++] = v;
		} else {
			if (missing)
				srv_cli_fail("parity compare: option '%s' needs a value\n", s);
			else
				srv_cli_fail("parity compare: unknown option '%s'\n", s);
			return -1;
		}
		if (missing) {
			srv_cli_fail("parity compare: option '%s' needs a value\n", s);
			return -1;
		}
	}
	if (k != 2) {
		srv_cli_fail("parity compare: two log files are required\n");
		return -1;
	}
	if (o->policy && strcmp(o->policy, "bitwise") == 0 && (o->have_max || o->n_allow_ops)) {
		srv_cli_fail("parity compare: --policy bitwise cannot be combined with "
		             "--max-hash-distance or --allow-only-op\n");
		return -1;
	}
	return 0;
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
	int rc = -1;

	*out = NULL;
	if (!log)
		goto oom;
	cb = matcher_actlog_collector(log);
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
	const struct matcher_row *row;

	if (i == MATCHER_NO_ROW) {
		fprintf(f, "  %s: none\n", label);
		return;
	}
	row = &r->rows[i];
	fprintf(f, "  %s: row %zu  %s  <->  %s  (%s, %s", label, i, row->a->key, row->b->key,
	        matcher_method_name(row->method), row->origin ? "origin" : "propagated");
	if (row->shape_differs)
		fputs(", shape differs", f);
	if (row->output_hash_distance >= 0)
		fprintf(f, ", output hash distance %.3g", row->output_hash_distance);
	if (row->input_hash_distance >= 0)
		fprintf(f, ", input hash distance %.3g", row->input_hash_distance);
	fputs(")\n", f);
}

static int write_text(FILE *f, const struct srv_act_doc *d)
{
	const struct matcher_match_result *r = d->result;
	const struct matcher_match_summary *s = &r->summary;
	size_t i;

	fprintf(f, "activation comparison: %s (policy %s)\n",
	        matcher_verdict_name(d->verdict->verdict), matcher_act_policy_name(d->policy));
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

/* *printed: set once the result document went to stdout. */
static int compare_activation(int argc, char **argv, struct input in[2], int *printed)
{
	struct opts o;
	struct matcher_actlog *log[2] = {NULL, NULL};
	struct matcher_overrides *ov = NULL;
	struct matcher_match_result *res = NULL;
	struct matcher_act_policy policy;
	struct matcher_act_verdict verdict;
	struct srv_act_doc doc;
	FILE *out = stdout;
	double t0 = now_s(), t_parse[2] = {0, 0}, t_match = 0, t_check = 0, t_out = 0, t;
	int k, rc = 2, wrc;

	if (parse_opts(argc, argv, &o) < 0) {
		usage(stderr);
		goto done;
	}
	for (k = 0; k < 2; k++) {
		t = now_s();
		if (load_actlog(&in[k], o.path[k], &log[k]) < 0)
			goto done;
		t_parse[k] = now_s() - t;
	}
	if (o.overrides && load_overrides(o.overrides, &ov) < 0)
		goto done;
	matcher_act_policy_init(&policy);
	if (o.have_max || o.n_allow_ops || (o.policy && strcmp(o.policy, "tolerance") == 0)) {
		policy.kind = MATCHER_POLICY_TOLERANCE;
		policy.max_hash_distance = o.max_hash_distance;
		policy.allow_only_ops = o.allow_ops;
		policy.n_allow_only_ops = o.n_allow_ops;
	}
	t = now_s();
	if (matcher_match(log[0], log[1], ov, &res) < 0) {
		srv_cli_fail("parity compare: out of memory while matching\n");
		goto done;
	}
	t_match = now_s() - t;
	t = now_s();
	if (matcher_act_check(res, &policy, &verdict) < 0) {
		srv_cli_fail("parity compare: %s\n", verdict.reasons[0].message);
		goto done;
	}
	t_check = now_s() - t;
	doc.name_a = o.name[0] ? o.name[0] : o.path[0];
	doc.name_b = o.name[1] ? o.name[1] : o.path[1];
	doc.a = log[0];
	doc.b = log[1];
	doc.ov = ov;
	doc.result = res;
	doc.policy = &policy;
	doc.verdict = &verdict;
	t = now_s();
	if (o.out && !(out = fopen(o.out, "w"))) {
		srv_cli_fail("parity compare: cannot write %s: %s\n", o.out, strerror(errno));
		out = stdout;
		goto done;
	}
	*printed = out == stdout;
	if (strcmp(o.format, "json") == 0)
		wrc = srv_act_write_json(out, &doc);
	else if (o.out && srv_ui_is_html_path(o.out))
		wrc = srv_ui_act_report_file(out, &doc); /* self-contained HTML (h_ui.c) */
	else
		wrc = write_text(out, &doc);
	if (fflush(out) != 0)
		wrc = -1;
	if (wrc < 0) {
		srv_cli_fail("parity compare: cannot write the result%s%s\n", o.out ? " to " : "",
		             o.out ? o.out : "");
		goto done;
	}
	t_out = now_s() - t;
	rc = verdict.verdict == MATCHER_VERDICT_PASS   ? 0
	     : verdict.verdict == MATCHER_VERDICT_FAIL ? 1
	                                               : 2;
done:
	if (out != stdout && fclose(out) != 0 && rc != 2) {
		srv_cli_fail("parity compare: cannot write %s\n", o.out);
		rc = 2;
	}
	if (o.timing && rc != 2)
		fprintf(stderr,
		        "timing: parse A %.3f s, parse B %.3f s, match %.3f s, "
		        "verdict %.3f s, output %.3f s, total %.3f s\n",
		        t_parse[0], t_parse[1], t_match, t_check, t_out, now_s() - t0);
	matcher_match_result_free(res);
	matcher_overrides_free(ov);
	matcher_actlog_free(log[0]);
	matcher_actlog_free(log[1]);
	return rc;
}

int srv_cli_compare(int argc, char **argv)
{
	struct input in[2] = {{-1, NULL, 0, 0}, {-1, NULL, 0, 0}};
	const char *path[2];
	enum matcher_kind kind[2];
	int k, i, rc = 2, printed = 0;
	const char *jkind = NULL, *jcode = "usage", *jside = NULL;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		}
	}
	if (find_paths(argc, argv, &path[0], &path[1]) < 0) {
		srv_cli_fail("parity compare: two log files are required\n");
		usage(stderr);
		goto done;
	}
	for (k = 0; k < 2; k++) {
		jcode = "io";
		jside = k ? "candidate" : "baseline";
		if (input_open(&in[k], path[k]) < 0)
			goto done;
		kind[k] = matcher_detect_kind(in[k].buf, in[k].n);
	}
	jside = NULL;
	/* A training log against a file without a metric line (a run that
	 * crashed before step 1) is a training comparison: its check names
	 * the refused side. */
	if ((kind[0] == MATCHER_KIND_TRAINING || kind[1] == MATCHER_KIND_TRAINING) &&
	    kind[0] != MATCHER_KIND_ACTIVATION && kind[1] != MATCHER_KIND_ACTIVATION) {
		input_close(&in[0]);
		input_close(&in[1]);
		return srv_cli_compare_training(argc, argv);
	}
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
	rc = compare_activation(argc, argv, in, &printed);
done:
	input_close(&in[0]);
	input_close(&in[1]);
	/* --format json: one JSON document on stdout whatever went wrong */
	if (rc == 2 && !printed && srv_cli_wants_json(argc, argv))
		srv_cli_json_error(jkind, jcode, jside, srv_cli_last_error());
	return rc;
}
