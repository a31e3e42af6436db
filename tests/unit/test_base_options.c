/* test_base_options.c - the option engine (server/base/options.h): defaults, the
 * environment under the flags, bounds with one error wording, size and
 * duration suffixes, enums, repeatable and greedy options, operands and
 * "--", --help, and the generated help and Markdown text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "options.h"

struct conf {
	unsigned workers;
	uint64_t max_upload;
	unsigned timeout_s;
	unsigned retry_ms;
	int verbose;
	double ratio;
	char dir[16];
	const char *format;
	const char *output;
	struct srv_optlist tags;
	struct srv_optlist files;
	int checked;
};

static int check_dir(void *dst, const char *val, char *err, size_t n)
{
	struct conf *c = dst;
	c->checked++;
	if (val[0] == '!') {
		snprintf(err, n, "must not start with '!'");
		return -1;
	}
	return 0;
}

static const char *const formats[] = {"text", "json", "csv", NULL};

#define C(field) .offset = offsetof(struct conf, field), .size = sizeof(((struct conf *)0)->field)
#define P(field) .offset = offsetof(struct conf, field)

static const struct srv_option opts[] = {
        {.name = "workers",
         .env = "T_OPT_WORKERS",
         .type = SRV_OPT_INT,
         C(workers),
         .min = 1,
         .max = 64,
         .def = "2",
         .metavar = "N",
         .help = "worker threads.",
         .group = "main"},
        {.name = "max-upload",
         .env = "T_OPT_MAX_UPLOAD",
         .type = SRV_OPT_SIZE,
         C(max_upload),
         .min = 0,
         .max = 1LL << 30,
         .def = "16M",
         .metavar = "BYTES",
         .help = "largest body."},
        {.name = "timeout",
         .type = SRV_OPT_DURATION,
         C(timeout_s),
         .min = 1,
         .max = 86400,
         .def = "30",
         .metavar = "S",
         .help = "deadline."},
        {.name = "retry",
         .type = SRV_OPT_DURATION,
         .flags = SRV_OPT_MS,
         C(retry_ms),
         .min = 1,
         .max = 60000,
         .def = "1000",
         .metavar = "MS",
         .help = "retry delay."},
        {.name = "verbose",
         .short_name = 'v',
         .env = "T_OPT_VERBOSE",
         .type = SRV_OPT_BOOL,
         C(verbose),
         .help = "say more.",
         .group = "output"},
        {.name = "ratio",
         .type = SRV_OPT_DOUBLE,
         C(ratio),
         .min = 0,
         .def = "0.5",
         .metavar = "X",
         .help = "a ratio."},
        {.name = "dir",
         .env = "T_OPT_DIR",
         .type = SRV_OPT_STRING,
         C(dir),
         .def = "./d",
         .metavar = "DIR",
         .check = check_dir,
         .help = "a directory."},
        {.name = "format",
         .type = SRV_OPT_ENUM,
         P(format),
         .choices = formats,
         .def = "text",
         .metavar = "F",
         .help = "output format."},
        {.name = "output",
         .short_name = 'o',
         .type = SRV_OPT_STRING,
         P(output),
         .metavar = "FILE",
         .help = "write there | not stdout."},
        {.name = "tag", .type = SRV_OPT_LIST, C(tags), .metavar = "T", .help = "a tag."},
        {.name = "file",
         .type = SRV_OPT_LIST,
         .flags = SRV_OPT_GREEDY,
         C(files),
         .metavar = "F",
         .help = "files."},
        {.name = "secret",
         .env = "T_OPT_SECRET",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_ENV_ONLY | SRV_OPT_SECRET,
         P(output),
         .help = "a secret."},
        {.name = NULL},
};

static const struct srv_optcmd cmd = {
        .name = "demo",
        .synopsis = "usage: parity demo [options] FILE...\n",
        .about = "A demo command.\n",
        .opts = opts,
        .epilog = "exit status: 0.\n",
};

static const struct srv_option sibling[] = {
        {.name = "threshold", .type = SRV_OPT_STRING, .offset = 0, .metavar = "T", .help = "x"},
        {.name = "allow", .type = SRV_OPT_BOOL, .offset = 0, .help = "y"},
        {.name = NULL},
};

static void clear_env(void)
{
	unsetenv("T_OPT_WORKERS");
	unsetenv("T_OPT_MAX_UPLOAD");
	unsetenv("T_OPT_VERBOSE");
	unsetenv("T_OPT_DIR");
	unsetenv("T_OPT_SECRET");
}

/* parse {"demo", args...}; the result code; res->err kept for checks */
static int parse(struct conf *c, struct srv_optres *res, const char *const *args)
{
	char *argv[32] = {"demo"};
	int argc = 1;
	for (; args && args[argc - 1] && argc < 31; argc++)
		argv[argc] = (char *)args[argc - 1];
	memset(c, 0x5a, sizeof *c);
	c->checked = 0;
	const struct srv_option *skip = res->skip;
	int operands_only = res->operands_only;
	memset(res, 0, sizeof *res);
	res->skip = skip;
	res->operands_only = operands_only;
	return srv_options_parse(&cmd, c, argc, argv, res);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_defaults(void)
{
	struct conf c;
	struct srv_optres r = {0};
	clear_env();
	CHECK_INT(parse(&c, &r, NULL), 0);
	CHECK_INT(c.workers, 2);
	CHECK(c.max_upload == 16u << 20);
	CHECK_INT(c.timeout_s, 30);
	CHECK_INT(c.retry_ms, 1000);
	CHECK_INT(c.verbose, 0);
	CHECK(c.ratio == 0.5);
	CHECK_STR(c.dir, "./d");
	CHECK_STR(c.format, "text");
	CHECK(c.output == NULL);
	CHECK_INT(c.tags.n, 0);
	CHECK_INT(r.n_operands, 0);
	CHECK_INT(srv_options_source(&cmd, &r, "workers"), SRV_OPT_FROM_DEFAULT);
	srv_options_free(&cmd, &c, &r);
}

static void test_flags_and_env(void)
{
	struct conf c;
	struct srv_optres r = {0};
	clear_env();
	CHECK_INT(parse(&c, &r,
	                ARGS("--workers", "8", "--max-upload=2M", "-v", "a", "-o", "out", "--dir",
	                     "x", "b")),
	          0);
	CHECK_INT(c.workers, 8);
	CHECK(c.max_upload == 2u << 20);
	CHECK_INT(c.verbose, 1);
	CHECK_STR(c.output, "out");
	CHECK_STR(c.dir, "x");
	CHECK_INT(c.checked, 2); /* the default, then the flag */
	CHECK_INT(r.n_operands, 2);
	CHECK_STR(r.operands[0], "a");
	CHECK_STR(r.operands[1], "b");
	CHECK_INT(srv_options_source(&cmd, &r, "workers"), SRV_OPT_FROM_FLAG);
	srv_options_free(&cmd, &c, &r);

	/* the environment fills what no flag gives; a flag wins over it */
	setenv("T_OPT_WORKERS", "5", 1);
	setenv("T_OPT_MAX_UPLOAD", "1G", 1);
	setenv("T_OPT_VERBOSE", "yes", 1);
	CHECK_INT(parse(&c, &r, ARGS("--workers", "3")), 0);
	CHECK_INT(c.workers, 3);
	CHECK(c.max_upload == 1u << 30);
	CHECK_INT(c.verbose, 1);
	CHECK_INT(srv_options_source(&cmd, &r, "workers"), SRV_OPT_FROM_FLAG);
	CHECK_INT(srv_options_source(&cmd, &r, "max-upload"), SRV_OPT_FROM_ENV);
	srv_options_free(&cmd, &c, &r);
	setenv("T_OPT_VERBOSE", "false", 1);
	CHECK_INT(parse(&c, &r, NULL), 0);
	CHECK_INT(c.verbose, 0);
	srv_options_free(&cmd, &c, &r);
	/* an empty variable is unset */
	setenv("T_OPT_WORKERS", "", 1);
	CHECK_INT(parse(&c, &r, NULL), 0);
	CHECK_INT(c.workers, 2);
	srv_options_free(&cmd, &c, &r);
	/* a bad variable names itself */
	setenv("T_OPT_WORKERS", "lots", 1);
	CHECK_INT(parse(&c, &r, NULL), -1);
	CHECK_STR(r.err, "parity demo: T_OPT_WORKERS: takes a whole number (got 'lots')");
	srv_options_free(&cmd, &c, &r);
	/* environment-only options: no flag, a secret never echoed */
	clear_env();
	setenv("T_OPT_SECRET", "hunter2", 1);
	CHECK_INT(parse(&c, &r, NULL), 0);
	CHECK_STR(c.output, "hunter2");
	srv_options_free(&cmd, &c, &r);
	CHECK_INT(parse(&c, &r, ARGS("--secret", "x")), -1);
	CHECK_STR(r.err, "parity demo: unknown option '--secret'");
	srv_options_free(&cmd, &c, &r);
	clear_env();
}

static void test_bounds_and_errors(void)
{
	struct conf c;
	struct srv_optres r = {0};
	static const struct {
		const char *a, *b, *err;
	} cases[] = {
	        {"--workers", "0", "parity demo: --workers: must be between 1 and 64 (got 0)"},
	        {"--workers", "65", "parity demo: --workers: must be between 1 and 64 (got 65)"},
	        {"--workers", "2x", "parity demo: --workers: takes a whole number (got '2x')"},
	        {"--max-upload", "2G",
	         "parity demo: --max-upload: must be between 0 and 1G (got 2G)"},
	        {"--max-upload", "fast",
	         "parity demo: --max-upload: takes a size (a number with an optional K, M, G or T "
	         "suffix) (got 'fast')"},
	        {"--timeout", "0", "parity demo: --timeout: must be between 1 and 86400 (got 0)"},
	        {"--timeout", "1500ms",
	         "parity demo: --timeout: takes a duration in seconds (or s/m/h/d) (got '1500ms')"},
	        {"--ratio", "-1", "parity demo: --ratio: takes a finite number >= 0 (got '-1')"},
	        {"--ratio", "nan", "parity demo: --ratio: takes a finite number >= 0 (got 'nan')"},
	        {"--format", "xml",
	         "parity demo: --format: must be one of text, json, csv (got 'xml')"},
	        {"--dir", "0123456789abcdef", "parity demo: --dir: too long (at most 15 bytes)"},
	        {"--dir", "!x", "parity demo: --dir: must not start with '!'"},
	        {"--frob", "1", "parity demo: unknown option '--frob'"},
	        {"-x", "1", "parity demo: unknown option '-x'"},
	        {"a", "--workers", "parity demo: --workers needs a value"},
	        {"--file", "--tag", "parity demo: --file needs at least one value"},
	};
	clear_env();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		CHECK_INT(parse(&c, &r, ARGS(cases[i].a, cases[i].b)), -1);
		CHECK_STR(r.err, cases[i].err);
		srv_options_free(&cmd, &c, &r);
	}
}

static void test_suffixes(void)
{
	struct conf c;
	struct srv_optres r = {0};
	unsigned long long v = 0;
	CHECK_INT(srv_options_parse_bytes("1024", &v), 0);
	CHECK(v == 1024);
	CHECK_INT(srv_options_parse_bytes("64k", &v), 0);
	CHECK(v == 64u << 10);
	CHECK_INT(srv_options_parse_bytes("512MiB", &v), 0);
	CHECK(v == 512u << 20);
	CHECK_INT(srv_options_parse_bytes("2G", &v), 0);
	CHECK(v == 2ULL << 30);
	CHECK_INT(srv_options_parse_bytes("1TB", &v), 0);
	CHECK(v == 1ULL << 40);
	CHECK_INT(srv_options_parse_bytes("-1", &v), -1);
	CHECK_INT(srv_options_parse_bytes("1X", &v), -1);
	CHECK_INT(srv_options_parse_bytes("", &v), -1);
	CHECK_INT(srv_options_parse_bytes("99999999999T", &v), -1);
	clear_env();
	CHECK_INT(parse(&c, &r, ARGS("--timeout", "5m", "--retry", "2s")), 0);
	CHECK_INT(c.timeout_s, 300);
	CHECK_INT(c.retry_ms, 2000);
	srv_options_free(&cmd, &c, &r);
	CHECK_INT(parse(&c, &r, ARGS("--timeout", "1h", "--retry", "250")), 0);
	CHECK_INT(c.timeout_s, 3600);
	CHECK_INT(c.retry_ms, 250);
	srv_options_free(&cmd, &c, &r);
	CHECK_INT(parse(&c, &r, ARGS("--timeout", "2d")), -1);
	srv_options_free(&cmd, &c, &r);
}

static void test_lists_and_operands(void)
{
	struct conf c;
	struct srv_optres r = {0};
	clear_env();
	CHECK_INT(parse(&c, &r,
	                ARGS("--tag", "a", "--file", "f1", "f2", "-o", "x", "--tag=b", "--file=f3",
	                     "op", "--", "--workers", "-")),
	          0);
	CHECK_INT(c.tags.n, 2);
	CHECK_STR(c.tags.v[0], "a");
	CHECK_STR(c.tags.v[1], "b");
	/* greedy: values up to the next "--" option ("-o" is a value) */
	CHECK_INT(c.files.n, 5);
	CHECK_STR(c.files.v[0], "f1");
	CHECK_STR(c.files.v[2], "-o");
	CHECK_STR(c.files.v[4], "f3");
	CHECK_INT(r.n_operands, 3); /* "op", then after "--" */
	CHECK_STR(r.operands[0], "op");
	CHECK_STR(r.operands[1], "--workers");
	CHECK_STR(r.operands[2], "-");
	srv_options_free(&cmd, &c, &r);
	CHECK(c.tags.v == NULL);
	/* short option with an attached value; --flag=value for a bool */
	CHECK_INT(parse(&c, &r, ARGS("-ofile", "--verbose=0")), 0);
	CHECK_STR(c.output, "file");
	CHECK_INT(c.verbose, 0);
	srv_options_free(&cmd, &c, &r);
	/* a sibling's options are accepted and skipped with their values */
	r.skip = sibling;
	CHECK_INT(parse(&c, &r, ARGS("--threshold", "loss=1", "A", "--allow", "B")), 0);
	CHECK_INT(r.n_operands, 2);
	CHECK_STR(r.operands[1], "B");
	srv_options_free(&cmd, &c, &r);
	r.skip = NULL;
	CHECK_INT(parse(&c, &r, ARGS("--threshold", "loss=1")), -1);
	srv_options_free(&cmd, &c, &r);
	/* operands only: nothing validated, unknown options skipped as flags */
	r.skip = sibling;
	r.operands_only = 1;
	CHECK_INT(parse(&c, &r, ARGS("--workers", "0", "A", "--bogus", "--threshold", "x", "B")),
	          0);
	CHECK_INT(r.n_operands, 2);
	CHECK_STR(r.operands[0], "A");
	CHECK_STR(r.operands[1], "B");
	CHECK_INT(c.workers, 2);
	srv_options_free(&cmd, &c, &r);
	r.skip = NULL;
	r.operands_only = 0;
}

static void test_help(void)
{
	struct conf c;
	struct srv_optres r = {0};
	clear_env();
	/* --help anywhere before "--" wins over errors after it */
	CHECK_INT(parse(&c, &r, ARGS("--workers", "1", "-h", "--frob")), SRV_OPTS_HELP);
	srv_options_free(&cmd, &c, &r);
	CHECK_INT(parse(&c, &r, ARGS("--help")), SRV_OPTS_HELP);
	srv_options_free(&cmd, &c, &r);
	CHECK_INT(parse(&c, &r, ARGS("--", "--help")), 0);
	srv_options_free(&cmd, &c, &r);

	struct buf b = BUF_INIT;
	CHECK_INT(srv_options_help(&cmd, 0, &b), 0);
	CHECK(!strncmp(b.data, "usage: parity demo [options] FILE...\n\nA demo command.\n", 54));
	CHECK(strstr(b.data, "\nmain:\n  --workers N             worker threads. Default 2. "
	                     "[T_OPT_WORKERS]\n") != NULL);
	CHECK(strstr(b.data,
	             "\noutput:\n  -v, --verbose           say more. [T_OPT_VERBOSE=1]\n") != NULL);
	CHECK(strstr(b.data, "  --file F ...            files.\n") != NULL);
	CHECK(strstr(b.data, "  --tag T (repeatable)    a tag.\n") != NULL);
	CHECK(strstr(b.data, "  T_OPT_SECRET            a secret. (environment only)\n") != NULL);
	CHECK(strstr(b.data, "\nexit status: 0.\n") != NULL);
	/* no line beyond 79 columns unless one word is that long */
	for (const char *p = b.data; *p;) {
		size_t len = strcspn(p, "\n");
		CHECK(len <= 79);
		p += len + (p[len] == '\n');
	}
	buf_clear(&b);
	CHECK_INT(srv_options_markdown(&cmd, &b), 0);
	CHECK(!strncmp(b.data, "## parity demo\n\n```\nusage: parity demo", 38));
	CHECK(strstr(b.data, "### main\n\n| option | environment | type | default | description |\n"
	                     "|---|---|---|---|---|\n"
	                     "| `--workers N` | `T_OPT_WORKERS` | integer 1..64 | `2` | worker "
	                     "threads. |\n") != NULL);
	CHECK(strstr(b.data,
	             "| `--max-upload BYTES` | `T_OPT_MAX_UPLOAD` | bytes 0..1G | `16M` |") !=
	      NULL);
	CHECK(strstr(b.data, "| `--format F` |  | text \\| json \\| csv | `text` |") != NULL);
	CHECK(strstr(b.data, "write there \\| not stdout.") != NULL);
	CHECK(strstr(b.data, "| `T_OPT_SECRET` | `T_OPT_SECRET` | text |  | a secret. |") != NULL);
	buf_reset(&b);
}

/* A table that marks options SRV_OPT_COMMON: --help lists those only and
 * names --help-all; --help-all (res.help_all) and the reference list all. */
static void test_help_common(void)
{
	struct conf c;
	struct srv_optres r = {0};
	static const struct srv_option copts[] = {
	        {.name = "alpha", .type = SRV_OPT_BOOL, .flags = SRV_OPT_COMMON, .help = "first."},
	        {.name = "beta", .type = SRV_OPT_BOOL, .help = "second.", .group = "more"},
	        {.name = "gamma", .type = SRV_OPT_BOOL, .help = "third."},
	        {.name = NULL},
	};
	static const struct srv_optcmd cc = {
	        .name = "demo2", .synopsis = "usage: x\n", .opts = copts};
	clear_env();
	char *argv_all[] = {"demo2", "--help-all", NULL}, *argv_h[] = {"demo2", "--help", NULL};
	CHECK_INT(srv_options_parse(&cc, &c, 2, argv_all, &r), SRV_OPTS_HELP);
	CHECK_INT(r.help_all, 1);
	srv_options_free(&cc, &c, &r);
	CHECK_INT(srv_options_parse(&cc, &c, 2, argv_h, &r), SRV_OPTS_HELP);
	CHECK_INT(r.help_all, 0);
	srv_options_free(&cc, &c, &r);
	struct buf b = BUF_INIT;
	CHECK_INT(srv_options_help(&cc, 0, &b), 0);
	CHECK(strstr(b.data, "\ncommon options:\n  --alpha") != NULL);
	CHECK(strstr(b.data, "--beta") == NULL && strstr(b.data, "--gamma") == NULL);
	CHECK(strstr(b.data, "2 more options: `parity demo2 --help-all` shows every flag") != NULL);
	buf_clear(&b);
	CHECK_INT(srv_options_help(&cc, 1, &b), 0);
	CHECK(strstr(b.data, "--alpha") && strstr(b.data, "\nmore:\n  --beta") &&
	      strstr(b.data, "--gamma") && !strstr(b.data, "--help-all"));
	buf_clear(&b);
	CHECK_INT(srv_options_markdown(&cc, &b), 0);
	CHECK(strstr(b.data, "`--beta`") && strstr(b.data, "`--gamma`"));
	buf_reset(&b);
}

int main(void)
{
	test_defaults();
	test_flags_and_env();
	test_bounds_and_errors();
	test_suffixes();
	test_lists_and_operands();
	test_help();
	test_help_common();
	return check_report();
}
