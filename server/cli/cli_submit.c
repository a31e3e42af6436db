/* cli_submit.c - `parity submit`: the CI client.  Uploads the baseline and
 * the candidate (files, or directories whose rank_* logs form one run),
 * creates the comparison, long-polls until it ends and prints the verdict,
 * its reasons and the page URL.
 *
 * Made for CI steps: no prompts, one-line messages, `--json` for machine
 * output, `--junit` / `--markdown` files for test reports and PR comments
 * (cli_ci.c), upload progress on stderr: a live line on a terminal, else a
 * line every 10 s or 64 MB.  Before uploading anything it checks what it
 * can (precheck: the server, the baseline, the logs' kinds, the policy),
 * and the runs it uploaded for a comparison the server then refuses are
 * deleted again.
 * Exit status: 0 pass, 1 fail, 2 error (bad arguments, unreadable files,
 * the comparison failed or produced "error", timeout), 3 the server could
 * not be reached or refused a request (including 401).
 * Limits: one HTTP connection, reused; bodies are streamed from disk;
 * responses are held in memory up to RESPONSE_MAX. */
#include <ctype.h>
#include "curl_lib.h"
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <jansson.h>

#include "buf.h"
#include "cli.h"
#include "json_train.h"
#include "web.h"
#include "nvinspect.h"
#include "trainlog.h"

#define EXIT_PASS    0
#define EXIT_FAIL    1
#define EXIT_ERROR   2
#define EXIT_SERVER  3
#define RESPONSE_MAX (256u << 20)
#define WAIT_CHUNK_S 60
#define MAX_FILES    1024
/* Without a terminal (CI logs) a progress line every PROGRESS_S seconds
 * or PROGRESS_BYTES bytes of an upload, whichever comes first. */
#define PROGRESS_S     10.0
#define PROGRESS_BYTES (64 << 20)
#define HEAD_BYTES     (64 * 1024) /* of a log, for its kind (matcher_detect_kind) */

struct strv {
	char **v;
	size_t n, cap;
};

struct submit {
	const char *server;
	const char *token;
	const char *policy;
	const char *name;
	const char *meta_file;      /* --meta-file: a JSON object merged under --meta */
	const char *baseline_name;  /* --baseline-name: a golden baseline (issue 16) */
	int promote_on_pass;        /* --promote-on-pass: make the candidate that baseline */
	const char *suite, *config; /* --suite / --config labels */
	long suite_size;            /* --suite-size: configs the suite is to have */
	long baseline_run;
	long timeout_s;
	int as_json;
	const char *junit_file;    /* --junit: JUnit XML of the verdict (cli_ci.c) */
	const char *markdown_file; /* --markdown: a Markdown summary ("-": stdout) */
	uint64_t limit_rate;       /* --limit-rate: upload bytes per second, 0 = no limit */
	struct srv_optlist baseline, candidate, meta; /* --baseline-file adds to baseline */
	/* HTTP */
	CURL *curl;
	struct curl_slist *hdrs;      /* every request */
	struct curl_slist *json_hdrs; /* hdrs + Content-Type: application/json */
	struct buf resp;
	char curl_err[CURL_ERROR_SIZE];
	/* progress */
	int tty;
	const char *what;
	double last_print;
	curl_off_t last_ul;
	double t0;
	curl_off_t line_ul; /* without a terminal: bytes at the last progress line */
	/* checks before uploading: the kind of the runs (MATCHER_KIND_UNKNOWN
	 * when neither the files nor the server told) */
	enum matcher_kind kind;
};

static int strv_push(struct strv *s, char *v)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **nv = realloc(s->v, cap * sizeof *nv);
		if (!nv)
			return -1;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = v;
	return 0;
}

static void strv_free(struct strv *s, int owned)
{
	if (owned)
		for (size_t i = 0; i < s->n; i++)
			free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- arguments ------------------------------------------------------------- */

/* --baseline-file: a golden loss file is uploaded as the baseline run
 * (cli_export.c); the file is checked before anything is sent. */
static int check_golden(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	if (srv_cli_golden_file_ok(val, "parity submit") == 0)
		return 0;
	snprintf(err, n, "not a golden loss file");
	return -1;
}

#define SB(field)      .offset = offsetof(struct submit, field)
#define SB_LONG(field) SB(field), .size = sizeof(long)

static const struct srv_option submit_opts[] = {
        {.name = "server",
         .env = "PARITY_SERVER",
         .type = SRV_OPT_STRING,
         SB(server),
         .metavar = "URL",
         .help = "the daemon, e.g. http://parity:8080 (required)."},
        {.name = "token",
         .env = "PARITY_TOKEN",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_SECRET,
         SB(token),
         .metavar = "T",
         .help = "API token (Authorization: Bearer)."},
        {.name = "baseline",
         .type = SRV_OPT_LIST,
         .flags = SRV_OPT_GREEDY,
         SB(baseline),
         .metavar = "FILE_OR_DIR",
         .help = "the baseline run's logs (a directory: its rank_* logs)."},
        {.name = "baseline-run",
         .type = SRV_OPT_INT,
         SB_LONG(baseline_run),
         .min = 1,
         .max = 0x7fffffffL,
         .metavar = "ID",
         .help = "compare against a run already on the server."},
        {.name = "baseline-file",
         .type = SRV_OPT_LIST,
         SB(baseline),
         .metavar = "F",
         .check = check_golden,
         .help = "compare against a committed golden loss file (`step value` lines, as "
                 "`parity export --format losses` writes)."},
        {.name = "baseline-name",
         .type = SRV_OPT_STRING,
         SB(baseline_name),
         .metavar = "N",
         .help = "compare against the golden baseline N (GET /baselines/N)."},
        {.name = "promote-on-pass",
         .type = SRV_OPT_BOOL,
         SB(promote_on_pass),
         .help = "on a pass, make the candidate run baseline N's new run."},
        {.name = "candidate",
         .type = SRV_OPT_LIST,
         .flags = SRV_OPT_GREEDY,
         SB(candidate),
         .metavar = "FILE_OR_DIR",
         .help = "the candidate run's logs (required)."},
        {.name = "policy",
         .type = SRV_OPT_STRING,
         SB(policy),
         .metavar = "P",
         .help = "a policy name (bitwise, premerge, ...) or a JSON object."},
        {.name = "name",
         .type = SRV_OPT_STRING,
         SB(name),
         .metavar = "N",
         .help = "comparison name (runs are named after their paths)."},
        {.name = "meta",
         .type = SRV_OPT_LIST,
         .flags = SRV_OPT_GREEDY,
         SB(meta),
         .metavar = "k=v",
         .help = "metadata of the candidate run (commit=..., branch=...); dotted keys nest: "
                 "env.torch=2.3 gives {\"env\":{\"torch\":..}}."},
        {.name = "meta-file",
         .type = SRV_OPT_STRING,
         SB(meta_file),
         .metavar = "F",
         .help = "a JSON object of metadata (e.g. reproduce.json); --meta values override its "
                 "keys."},
        {.name = "suite",
         .type = SRV_OPT_STRING,
         SB(suite),
         .metavar = "S",
         .help = "file the comparison into suite S (a PR number or commit)."},
        {.name = "config",
         .type = SRV_OPT_STRING,
         SB(config),
         .metavar = "C",
         .help = "its config label in the suite (fsdp, tp, ...)."},
        {.name = "suite-size",
         .type = SRV_OPT_INT,
         SB_LONG(suite_size),
         .min = 1,
         .max = 1000,
         .metavar = "N",
         .help = "the suite has N configs: suite.completed waits for them."},
        {.name = "timeout",
         .type = SRV_OPT_DURATION,
         SB_LONG(timeout_s),
         .min = 1,
         .max = 7L * 24 * 3600,
         .def = "1800",
         .metavar = "S",
         .help = "give up waiting after S seconds."},
        {.name = "json",
         .type = SRV_OPT_BOOL,
         SB(as_json),
         .help = "print the final comparison as JSON on stdout."},
        {.name = "junit",
         .type = SRV_OPT_STRING,
         SB(junit_file),
         .metavar = "FILE",
         .help = "also write the verdict as JUnit XML to FILE (for CI test reports): one "
                 "testcase per metric (training) or per rank (activation), a failure element "
                 "with the reason for each failing one, the comparison's URL as a property; "
                 "written on fail and error too."},
        {.name = "markdown",
         .type = SRV_OPT_STRING,
         SB(markdown_file),
         .metavar = "FILE",
         .help = "also write a Markdown summary to FILE (\"-\": stdout), for a PR comment or "
                 "$GITHUB_STEP_SUMMARY: the verdict, the runs, the link, one row per metric or "
                 "rank with the failing ones marked; written on fail and error too."},
        {.name = "limit-rate",
         .type = SRV_OPT_SIZE,
         SB(limit_rate),
         .size = sizeof(uint64_t),
         .min = 0,
         .max = 1LL << 40,
         .metavar = "BYTES",
         .help = "send uploads at most this fast (bytes per second; 64K, 10M); 0 = no "
                 "limit."},
        {.name = NULL},
};

const struct srv_optcmd srv_submit_cmd = {
        .name = "submit",
        .synopsis = "usage: parity submit --server URL [--token T]\n"
                    "                     (--baseline FILE_OR_DIR... | --baseline-run ID |\n"
                    "                      --baseline-file LOSSES.txt |\n"
                    "                      --baseline-name NAME [--promote-on-pass])\n"
                    "                     --candidate FILE_OR_DIR... [--policy P] [--name N]\n"
                    "                     [--meta key=value ...] [--meta-file FILE.json]\n"
                    "                     [--suite S --config C [--suite-size N]]\n"
                    "                     [--timeout SECONDS] [--json]\n"
                    "                     [--junit FILE.xml] [--markdown FILE.md|-]\n",
        .about = "Upload two runs to a parity daemon, compare them and wait for the verdict.\n"
                 "A directory uploads every rank_* log in it as one run (a DL Framework\n"
                 "Inspect folder: its nvdlfw_inspect_globalrank-N.log files); several files\n"
                 "make one run too (their names give the ranks).  A TensorBoard folder uploads\n"
                 "its events.out.tfevents.* files (or those of its rank_N folders) by rank.\n"
                 "Before uploading anything it checks what it can: the server answers, the\n"
                 "baseline name or run exists, all logs are of one kind, the policy suits\n"
                 "that kind.  Runs it uploaded are deleted again when the comparison cannot\n"
                 "be created.  Without a terminal (CI) it prints a progress line every 10 s\n"
                 "or 64 MB of an upload.\n",
        .opts = submit_opts,
        .epilog = "exit status: 0 pass, 1 fail, 2 error (also a check before uploading: a\n"
                  "file, the kinds, the policy), 3 server unreachable or request refused\n"
                  "(also an unknown --baseline-name or --baseline-run)\n",
};

/* Returns 0, 1 for --help, -1 on a usage error (message printed). */
static int parse_args(struct submit *sb, int argc, char **argv)
{
	struct srv_optres res = {0};
	int rc = srv_options_parse(&srv_submit_cmd, sb, argc, argv, &res);
	if (rc == 0 && res.n_operands) {
		snprintf(res.err, sizeof res.err, "parity submit: unknown argument '%s'",
		         res.operands[0]);
		rc = -1;
	}
	srv_options_free(NULL, NULL, &res);
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "%s\n", res.err);
		return rc;
	}
	if (!sb->server) {
		srv_cli_fail("parity submit: --server URL is required\n");
		return -1;
	}
	if (strncmp(sb->server, "http://", 7) && strncmp(sb->server, "https://", 8)) {
		srv_cli_fail("parity submit: --server must be an http:// or https:// URL\n");
		return -1;
	}
	if (!sb->candidate.n) {
		srv_cli_fail("parity submit: --candidate is required\n");
		return -1;
	}
	if (!!sb->baseline.n + !!sb->baseline_run + !!sb->baseline_name != 1) {
		srv_cli_fail("parity submit: give one of --baseline, --baseline-run and "
		             "--baseline-name\n");
		return -1;
	}
	if ((sb->config || sb->suite_size) && !sb->suite) {
		srv_cli_fail("parity submit: --config and --suite-size need --suite\n");
		return -1;
	}
	if (sb->markdown_file && !strcmp(sb->markdown_file, "-") && sb->as_json) {
		srv_cli_fail("parity submit: --markdown - and --json both write stdout\n");
		return -1;
	}
	if (sb->promote_on_pass && !sb->baseline_name) {
		srv_cli_fail("parity submit: --promote-on-pass needs --baseline-name\n");
		return -1;
	}
	for (size_t i = 0; i < sb->meta.n; i++) {
		const char *eq = strchr(sb->meta.v[i], '=');
		if (!eq || eq == sb->meta.v[i]) {
			srv_cli_fail("parity submit: --meta takes key=value, not '%s'\n",
			             sb->meta.v[i]);
			return -1;
		}
	}
	return 0;
}

/* ---- files ------------------------------------------------------------------ */

/* rank_N..., or DL Framework Inspect's nvdlfw_inspect_globalrank-N.log */
static int rank_of(const char *name)
{
	const char *p = strstr(name, "rank_");
	if (!p)
		return matcher_nvinspect_rank_of_path(name);
	return isdigit((unsigned char)p[5]) ? atoi(p + 5) : -1;
}

static int by_rank(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	const char *bx = strrchr(x, '/'), *by = strrchr(y, '/');
	int rx = rank_of(bx ? bx + 1 : x), ry = rank_of(by ? by + 1 : y);
	return rx != ry ? (rx < ry ? -1 : 1) : strcmp(x, y);
}

/* Expand files and directories into out (malloc'd paths).  0 or -1. */
static int push_path(void *ctx, const char *path)
{
	char *d = strdup(path);
	if (!d || strv_push(ctx, d) < 0) {
		free(d);
		return -1;
	}
	return 0;
}

static int expand(const struct srv_optlist *in, struct strv *out)
{
	for (size_t i = 0; i < in->n; i++) {
		const char *p = in->v[i];
		struct stat st;
		if (stat(p, &st) < 0) {
			srv_cli_fail("parity submit: %s: %s\n", p, strerror(errno));
			return -1;
		}
		if (!S_ISDIR(st.st_mode)) {
			char *d = strdup(p);
			if (!d || strv_push(out, d) < 0) {
				free(d);
				return -1;
			}
			continue;
		}
		DIR *dir = opendir(p);
		if (!dir) {
			srv_cli_fail("parity submit: %s: %s\n", p, strerror(errno));
			return -1;
		}
		size_t before = out->n;
		struct dirent *de;
		while ((de = readdir(dir))) {
			if ((strncmp(de->d_name, "rank_", 5) &&
			     !strstr(de->d_name, "globalrank-")) ||
			    rank_of(de->d_name) < 0)
				continue;
			size_t n = strlen(p) + strlen(de->d_name) + 2;
			char *f = malloc(n);
			if (!f) {
				closedir(dir);
				return -1;
			}
			snprintf(f, n, "%s/%s", p, de->d_name);
			struct stat fs;
			if (stat(f, &fs) < 0 || !S_ISREG(fs.st_mode) || strv_push(out, f) < 0) {
				free(f);
				continue;
			}
		}
		closedir(dir);
		if (out->n == before) {
			/* a TensorBoard folder: its event files (cli_export.c) */
			if (srv_cli_tfevents_dir(p, (void *)out, push_path) < 0)
				return -1;
			/* an msprobe step folder: its rankR/dump.json (cli_msprobe.c) */
			if (out->n == before &&
			    srv_cli_msprobe_step_files(p, (void *)out, push_path) < 0)
				return -1;
			if (out->n > before)
				continue; /* in rank order already */
			srv_cli_fail("parity submit: %s has no rank_* logs, "
			             "nvdlfw_inspect_globalrank-* logs, event files or "
			             "rankR/dump.json folders\n",
			             p);
			return -1;
		}
		qsort(out->v + before, out->n - before, sizeof *out->v, by_rank);
	}
	if (out->n > MAX_FILES) {
		srv_cli_fail("parity submit: more than %d logs in one run\n", MAX_FILES);
		return -1;
	}
	return 0;
}

/* ---- HTTP ---------------------------------------------------------------------- */

static size_t on_data(char *data, size_t size, size_t nmemb, void *cls)
{
	struct submit *sb = cls;
	size_t n = size * nmemb;
	if (sb->resp.len + n > RESPONSE_MAX || buf_append(&sb->resp, data, n) < 0)
		return 0; /* curl reports a write error */
	return n;
}

static void human_bytes(double b, char *out, size_t cap)
{
	const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int i = 0;
	while (b >= 1024 && i < 4) {
		b /= 1024;
		i++;
	}
	snprintf(out, cap, i ? "%.1f %s" : "%.0f %s", b, u[i]);
}

static int on_progress(void *cls, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
	struct submit *sb = cls;
	(void)dltotal, (void)dlnow;
	if (!sb->what || ultotal <= 0)
		return 0;
	double t = now_s();
	if (!sb->tty) {
		/* a CI log: whole lines, every PROGRESS_S or PROGRESS_BYTES */
		if (ulnow >= ultotal ||
		    (t - sb->last_print < PROGRESS_S && ulnow - sb->line_ul < PROGRESS_BYTES))
			return 0;
		double el = t - sb->t0, mb = 1024.0 * 1024.0;
		fprintf(stderr, "uploading %s: %.0f MB of %.0f MB, %.0f MB/s\n", sb->what,
		        (double)ulnow / mb, (double)ultotal / mb,
		        el > 0 ? (double)ulnow / mb / el : 0.0);
		sb->last_print = t;
		sb->line_ul = ulnow;
		return 0;
	}
	int final = ulnow == ultotal && sb->last_ul != ulnow; /* show 100% once */
	if ((t - sb->last_print < 0.25 && !final) || (ulnow == sb->last_ul && sb->last_print > 0))
		return 0;
	sb->last_print = t;
	sb->last_ul = ulnow;
	char a[32], b[32], r[32];
	human_bytes((double)ulnow, a, sizeof a);
	human_bytes((double)ultotal, b, sizeof b);
	double el = t - sb->t0;
	human_bytes(el > 0 ? (double)ulnow / el : 0, r, sizeof r);
	fprintf(stderr, "\r\033[Kuploading %s: %s / %s (%s/s)", sb->what, a, b, r);
	return 0;
}

/* Perform a request prepared on sb->curl.  Returns the HTTP status, or 0
 * when no response came (message printed). */
static long perform(struct submit *sb, const char *url, long timeout_s)
{
	buf_clear(&sb->resp);
	sb->curl_err[0] = 0;
	curl_easy_setopt(sb->curl, CURLOPT_URL, url);
	curl_easy_setopt(sb->curl, CURLOPT_TIMEOUT, timeout_s);
	sb->t0 = now_s();
	sb->last_print = sb->tty ? 0 : sb->t0;
	sb->last_ul = -1;
	sb->line_ul = 0;
	CURLcode rc = curl_easy_perform(sb->curl);
	if (sb->tty && sb->what)
		fputs("\r\033[K", stderr);
	if (rc != CURLE_OK) {
		srv_cli_fail("parity submit: cannot reach %s: %s\n", sb->server,
		             sb->curl_err[0] ? sb->curl_err : curl_easy_strerror(rc));
		return 0;
	}
	long status = 0;
	curl_easy_getinfo(sb->curl, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

/* Parsed JSON response (new reference) or NULL. */
static json_t *resp_json(struct submit *sb)
{
	return json_loadb(sb->resp.data ? sb->resp.data : "", sb->resp.len, 0, NULL);
}

/* One-line report of a refused request. */
static void refused(struct submit *sb, const char *what, long status)
{
	json_t *j = resp_json(sb);
	const char *msg =
	        json_string_value(json_object_get(json_object_get(j, "error"), "message"));
	srv_cli_fail("parity submit: the server refused %s (HTTP %ld)%s%s\n", what, status,
	             msg ? ": " : "", msg ? msg : "");
	json_decref(j);
}

static void url_of(struct submit *sb, const char *path, char *out, size_t cap)
{
	size_t n = strlen(sb->server);
	while (n && sb->server[n - 1] == '/')
		n--;
	snprintf(out, cap, "%.*s%s", (int)n, sb->server, path);
}

static const char *base_name(const char *p)
{
	size_t n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		n--;
	const char *s = p + n;
	while (s > p && s[-1] != '/')
		s--;
	return s;
}

/* Set o[path] = value where path's dots nest objects ("env.torch"):
 * 0, or -1 when a part is empty or a prefix already holds a non-object. */
static int meta_set_dotted(json_t *o, const char *path, json_t *value)
{
	char part[256];
	for (;;) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);
		if (n == 0 || n >= sizeof part) {
			json_decref(value);
			return -1;
		}
		memcpy(part, path, n);
		part[n] = 0;
		if (!dot)
			return json_object_set_new(o, part, value);
		json_t *child = json_object_get(o, part);
		if (!child) {
			child = json_object();
			if (json_object_set_new(o, part, child) < 0) {
				json_decref(value);
				return -1;
			}
		} else if (!json_is_object(child)) {
			json_decref(value);
			return -1;
		}
		o = child;
		path = dot + 1;
	}
}

json_t *srv_cli_meta_build(const char *meta_file, const char *const *kv, size_t n_kv,
                           const char *prog)
{
	json_t *meta = NULL;
	if (meta_file) {
		struct stat sbuf;
		json_error_t jerr;
		if (stat(meta_file, &sbuf) < 0 || !S_ISREG(sbuf.st_mode)) {
			fprintf(stderr, "%s: --meta-file %s: cannot read it\n", prog, meta_file);
			return NULL;
		}
		if (sbuf.st_size > SRV_CLI_META_MAX) {
			fprintf(stderr, "%s: --meta-file %s: over %d bytes\n", prog, meta_file,
			        SRV_CLI_META_MAX);
			return NULL;
		}
		meta = json_load_file(meta_file, JSON_REJECT_DUPLICATES, &jerr);
		if (!meta) {
			fprintf(stderr, "%s: --meta-file %s:%d: %s\n", prog, meta_file, jerr.line,
			        jerr.text);
			return NULL;
		}
		if (!json_is_object(meta)) {
			fprintf(stderr, "%s: --meta-file %s must hold a JSON object\n", prog,
			        meta_file);
			json_decref(meta);
			return NULL;
		}
	} else {
		meta = json_object();
	}
	for (size_t i = 0; meta && i < n_kv; i++) {
		const char *eq = strchr(kv[i], '=');
		char key[256];
		if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof key) {
			fprintf(stderr, "%s: --meta takes key=value, not '%s'\n", prog, kv[i]);
			goto bad;
		}
		snprintf(key, sizeof key, "%.*s", (int)(eq - kv[i]), kv[i]);
		json_t *v = json_string(eq + 1);
		if (!v) {
			fprintf(stderr, "%s: --meta %s is not valid UTF-8\n", prog, kv[i]);
			goto bad;
		}
		if (meta_set_dotted(meta, key, v) < 0) {
			fprintf(stderr,
			        "%s: --meta %s: an empty key part, or a part of it already "
			        "holds a value\n",
			        prog, key);
			goto bad;
		}
	}
	return meta;
bad:
	json_decref(meta);
	return NULL;
}

/* msprobe dumps: the stack.json beside each dump.json as a `stack` part
 * (the k-th belongs to the k-th dump), when every dump has one.  0 or -1. */
static int add_msprobe_stacks(curl_mime *mime, const struct strv *files)
{
	size_t n_dumps = 0, n_stacks = 0;
	for (size_t i = 0; i < files->n; i++) {
		char *sp = srv_cli_msprobe_beside(files->v[i], "stack.json");
		n_dumps += !strcmp(base_name(files->v[i]), "dump.json");
		n_stacks += sp != NULL;
		free(sp);
	}
	for (size_t i = 0; n_dumps && n_stacks == n_dumps && i < files->n; i++) {
		char *sp = srv_cli_msprobe_beside(files->v[i], "stack.json");
		if (!sp)
			continue;
		curl_mimepart *part = curl_mime_addpart(mime);
		CURLcode cc = curl_mime_name(part, "stack");
		if (cc == CURLE_OK)
			cc = curl_mime_filedata(part, sp);
		if (cc != CURLE_OK) {
			srv_cli_fail("parity submit: cannot read %s\n", sp);
			free(sp);
			return -1;
		}
		free(sp);
	}
	return 0;
}

/* Upload one run; *run_id on success.  Exit-style status on failure. */
static int upload(struct submit *sb, const char *what, const struct srv_optlist *paths,
                  const struct strv *files, int with_meta, long *run_id)
{
	int rc = EXIT_ERROR;
	char url[2048], name[512];
	json_t *meta = NULL, *j = NULL;
	char *meta_text = NULL;
	curl_mime *mime = curl_mime_init(sb->curl);
	if (!mime)
		goto done;
	for (size_t i = 0; i < files->n; i++) {
		curl_mimepart *part = curl_mime_addpart(mime);
		curl_mime_name(part, "log");
		if (curl_mime_filedata(part, files->v[i]) != CURLE_OK) {
			srv_cli_fail("parity submit: cannot read %s\n", files->v[i]);
			goto done;
		}
		curl_mime_filename(part, base_name(files->v[i]));
	}
	if (add_msprobe_stacks(mime, files) < 0)
		goto done;
	const char *first = base_name(paths->v[0]);
	snprintf(name, sizeof name, "%.400s%s", first, paths->n > 1 ? " (+more)" : "");
	curl_mimepart *part = curl_mime_addpart(mime);
	curl_mime_name(part, "name");
	curl_mime_data(part, name, CURL_ZERO_TERMINATED);
	if (with_meta && (sb->meta.n || sb->meta_file)) {
		if (!(meta = srv_cli_meta_build(sb->meta_file, sb->meta.v, sb->meta.n,
		                                "parity submit")))
			goto done;
		meta_text = json_dumps(meta, JSON_COMPACT);
		part = curl_mime_addpart(mime);
		curl_mime_name(part, "meta");
		curl_mime_data(part, meta_text, CURL_ZERO_TERMINATED);
	}
	curl_easy_setopt(sb->curl, CURLOPT_MIMEPOST, mime);
	url_of(sb, "/runs", url, sizeof url);
	char label[600];
	if (files->n == 1)
		snprintf(label, sizeof label, "%s %.500s", what, base_name(files->v[0]));
	else
		snprintf(label, sizeof label, "%s (%zu logs)", what, files->n);
	sb->what = label;
	long status = perform(sb, url, 0);
	sb->what = NULL;
	curl_easy_setopt(sb->curl, CURLOPT_MIMEPOST, NULL);
	if (status == 0 || status / 100 != 2) {
		if (status)
			refused(sb, what[0] == 'b' ? "the baseline upload" : "the candidate upload",
			        status);
		rc = EXIT_SERVER;
		goto done;
	}
	j = resp_json(sb);
	json_t *id = json_object_get(j, "id");
	if (!json_is_integer(id)) {
		srv_cli_fail("parity submit: unexpected answer to the upload\n");
		rc = EXIT_SERVER;
		goto done;
	}
	*run_id = (long)json_integer_value(id);
	if (!sb->as_json)
		fprintf(stderr, "uploaded %s: run %ld (%zu log%s)\n", what, *run_id, files->n,
		        files->n == 1 ? "" : "s");
	rc = 0;
done:
	curl_mime_free(mime);
	json_decref(meta);
	json_decref(j);
	free(meta_text);
	return rc;
}

/* ---- checks before uploading ------------------------------------------------ */

/* The kind of the log at path from its first HEAD_BYTES (inflated when it
 * is gzip), detected as the daemon does (matcher_detect_kind).  UNKNOWN
 * when they do not tell (the daemon then tries both parsers); *binary = 1
 * when they hold a NUL byte and are no known log: a picture, an archive.
 * -1 (printed) when the file cannot be read. */
static int file_kind(const char *path, enum matcher_kind *kind, int *binary)
{
	int rc = -1;
	unsigned char *raw = malloc(HEAD_BYTES), *text = malloc(HEAD_BYTES);
	FILE *f = fopen(path, "rb");
	*kind = MATCHER_KIND_UNKNOWN;
	*binary = 0;
	if (!f || !raw || !text) {
		srv_cli_fail("parity submit: %s: %s\n", path,
		             f ? "out of memory" : strerror(errno));
		goto done;
	}
	size_t n = fread(raw, 1, HEAD_BYTES, f);
	if (ferror(f)) {
		srv_cli_fail("parity submit: %s: cannot read it\n", path);
		goto done;
	}
	const unsigned char *head = raw;
	if (n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
		z_stream zs;
		memset(&zs, 0, sizeof zs);
		if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
			goto done;
		zs.next_in = raw;
		zs.avail_in = (uInt)n;
		zs.next_out = text;
		zs.avail_out = HEAD_BYTES;
		inflate(&zs, Z_SYNC_FLUSH); /* as far as the head goes */
		n = HEAD_BYTES - zs.avail_out;
		inflateEnd(&zs);
		head = text;
	}
	*kind = matcher_detect_kind((const char *)head, n);
	*binary = *kind == MATCHER_KIND_UNKNOWN && memchr(head, 0, n) != NULL;
	rc = 0;
done:
	if (f)
		fclose(f);
	free(raw);
	free(text);
	return rc;
}

static const char *kind_article(enum matcher_kind k)
{
	return k == MATCHER_KIND_ACTIVATION ? "an activation" : "a training";
}

/* Every log to upload is of one kind, none is binary junk; sb->kind the
 * kind they tell (UNKNOWN if none does).  0, or EXIT_ERROR (printed). */
static int check_files(struct submit *sb, const struct strv *base, const struct strv *cand)
{
	const char *first = NULL;
	for (size_t i = 0; i < base->n + cand->n; i++) {
		const char *path = i < base->n ? base->v[i] : cand->v[i - base->n];
		enum matcher_kind k;
		int binary;
		if (file_kind(path, &k, &binary) < 0)
			return EXIT_ERROR;
		if (binary) {
			srv_cli_fail("parity submit: %s is not a log (binary data): give the "
			             "numerics tracer's log, the training stdout, a TensorBoard "
			             "event file or a golden loss file\n",
			             path);
			return EXIT_ERROR;
		}
		if (k == MATCHER_KIND_UNKNOWN)
			continue;
		if (first && k != sb->kind) {
			srv_cli_fail("parity submit: %s is %s log but %s is %s log: both runs "
			             "must be of one kind\n",
			             first, kind_article(sb->kind), path, kind_article(k));
			return EXIT_ERROR;
		}
		first = first ? first : path;
		sb->kind = k;
	}
	return 0;
}

/* GET path; the HTTP status, or 0 (unreachable, printed). */
static long get(struct submit *sb, const char *path, long timeout_s)
{
	char url[2048];
	curl_easy_setopt(sb->curl, CURLOPT_HTTPGET, 1L);
	url_of(sb, path, url, sizeof url);
	return perform(sb, url, timeout_s);
}

/* The kind ("activation", "training") of the run the server holds for the
 * baseline: of the run doc at member (NULL: the top level) of the answer
 * just received; it must agree with the logs' kind (sb->kind, set from
 * it when they did not tell).  0, or EXIT_SERVER (printed). */
static int check_server_kind(struct submit *sb, const char *member, const char *what)
{
	json_t *j = resp_json(sb);
	json_t *doc = member ? json_object_get(j, member) : j;
	const char *kind = json_string_value(json_object_get(doc, "kind"));
	enum matcher_kind k = !kind                         ? MATCHER_KIND_UNKNOWN
	                      : !strcmp(kind, "activation") ? MATCHER_KIND_ACTIVATION
	                      : !strcmp(kind, "training")   ? MATCHER_KIND_TRAINING
	                                                    : MATCHER_KIND_UNKNOWN;
	json_decref(j);
	if (k != MATCHER_KIND_UNKNOWN && sb->kind != MATCHER_KIND_UNKNOWN && k != sb->kind) {
		srv_cli_fail("parity submit: %s is %s run but the candidate logs are %s logs\n",
		             what, kind_article(k), matcher_kind_name(sb->kind));
		return EXIT_SERVER; /* as when the server refuses the comparison */
	}
	if (k != MATCHER_KIND_UNKNOWN)
		sb->kind = k;
	return 0;
}

/* path = "/baselines/" + name, each byte outside [A-Za-z0-9._~/-]
 * percent-encoded. */
static void baseline_path(const char *name, char *out, size_t cap)
{
	size_t n = (size_t)snprintf(out, cap, "/baselines/");
	for (const unsigned char *p = (const unsigned char *)name; *p && n + 4 < cap; p++) {
		if (isalnum(*p) || strchr("._~/-", *p))
			out[n++] = (char)*p;
		else
			n += (size_t)snprintf(out + n, cap - n, "%%%02X", *p);
	}
	out[n] = 0;
}

/* --policy suits the kind of the runs (when known): a training policy
 * resolves (web_train_request_policy, as the daemon does); an activation
 * run takes the name bitwise or an object (checked by the daemon).  0,
 * or EXIT_ERROR (printed). */
static int check_policy(struct submit *sb)
{
	if (!sb->policy)
		return 0;
	json_t *p =
	        sb->policy[0] == '{' ? json_loads(sb->policy, 0, NULL) : json_string(sb->policy);
	json_t *req = p ? json_pack("{s:O}", "policy", p) : NULL;
	char msg[512];
	int rc = 0;
	if (!p) {
		srv_cli_fail("parity submit: --policy is neither a name nor a JSON object\n");
		rc = EXIT_ERROR;
	} else if (sb->kind == MATCHER_KIND_TRAINING) {
		struct matcher_train_policy tp;
		if (!req || web_train_request_policy(req, &tp, msg, sizeof msg) < 0) {
			srv_cli_fail("parity submit: --policy %s does not suit training runs: %s\n",
			             sb->policy, req ? msg : "out of memory");
			rc = EXIT_ERROR;
		}
	} else if (sb->kind == MATCHER_KIND_ACTIVATION && json_is_string(p) &&
	           strcmp(json_string_value(p), "bitwise")) {
		srv_cli_fail("parity submit: --policy %s does not suit activation runs: they take "
		             "bitwise or a JSON object ({\"max_hash_distance\": 0.01}, "
		             "{\"allow_only_ops\": [...]})\n",
		             sb->policy);
		rc = EXIT_ERROR;
	}
	json_decref(req);
	json_decref(p);
	return rc;
}

/* Everything that can be checked before a byte is uploaded: the server
 * answers, the logs (one kind, no binary junk), the baseline run or name
 * exists and is of that kind, the policy suits it.  Exit-style status. */
static int precheck(struct submit *sb, const struct strv *base, const struct strv *cand)
{
	long status = get(sb, "/healthz", 30);
	if (status == 0)
		return EXIT_SERVER;
	if (status != 200) {
		srv_cli_fail("parity submit: %s does not answer as a parity daemon (GET /healthz: "
		             "HTTP %ld)\n",
		             sb->server, status);
		return EXIT_SERVER;
	}
	int rc = check_files(sb, base, cand);
	if (rc)
		return rc;
	if (sb->meta.n || sb->meta_file) { /* as upload() builds it */
		json_t *meta =
		        srv_cli_meta_build(sb->meta_file, sb->meta.v, sb->meta.n, "parity submit");
		if (!meta)
			return EXIT_ERROR;
		json_decref(meta);
	}
	char path[1200], what[1200];
	if (sb->baseline_run) {
		snprintf(path, sizeof path, "/runs/%ld", sb->baseline_run);
		snprintf(what, sizeof what, "baseline run %ld", sb->baseline_run);
		status = get(sb, path, 60);
		if (status == 404) {
			srv_cli_fail("parity submit: --baseline-run %ld: no such run on %s\n",
			             sb->baseline_run, sb->server);
			return EXIT_SERVER;
		}
		if (status != 200) {
			if (status)
				refused(sb, "the baseline run's lookup", status);
			return EXIT_SERVER;
		}
		if ((rc = check_server_kind(sb, NULL, what)) != 0)
			return rc;
	}
	if (sb->baseline_name) {
		baseline_path(sb->baseline_name, path, sizeof path);
		snprintf(what, sizeof what, "baseline %s", sb->baseline_name);
		status = get(sb, path, 60);
		if (status == 404) {
			srv_cli_fail(
			        "parity submit: --baseline-name %s: no baseline of that name on %s "
			        "(GET /baselines lists them; PUT /baselines/NAME sets one)\n",
			        sb->baseline_name, sb->server);
			return EXIT_SERVER;
		}
		if (status != 200) {
			if (status)
				refused(sb, "the baseline's lookup", status);
			return EXIT_SERVER;
		}
		if ((rc = check_server_kind(sb, "run_doc", what)) != 0)
			return rc;
	}
	return check_policy(sb);
}

/* DELETE /runs/id: a run this command uploaded for a comparison that
 * could not be made (best effort; said on stderr). */
static void discard_run(struct submit *sb, long id)
{
	char url[2048], path[64];
	snprintf(path, sizeof path, "/runs/%ld", id);
	url_of(sb, path, url, sizeof url);
	curl_easy_setopt(sb->curl, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(sb->curl, CURLOPT_CUSTOMREQUEST, "DELETE");
	long status = perform(sb, url, 60);
	curl_easy_setopt(sb->curl, CURLOPT_CUSTOMREQUEST, NULL);
	if (status / 100 == 2)
		fprintf(stderr,
		        "parity submit: deleted run %ld again (uploaded for this "
		        "comparison)\n",
		        id);
	else
		fprintf(stderr,
		        "parity submit: run %ld stays on the server (its deletion got "
		        "HTTP %ld)\n",
		        id, status);
}

/* Send req (JSON) with method to path; *out = the parsed 2xx answer.
 * Exit-style status: 0, EXIT_SERVER when refused or unreachable (what
 * names the request in the message), EXIT_ERROR on OOM. */
static int send_json(struct submit *sb, const char *method, const char *path, json_t *req,
                     const char *what, json_t **out)
{
	char url[2048];
	char *body = json_dumps(req, JSON_COMPACT);
	*out = NULL;
	if (!body)
		return EXIT_ERROR;
	curl_easy_setopt(sb->curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(sb->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	curl_easy_setopt(sb->curl, CURLOPT_CUSTOMREQUEST, strcmp(method, "POST") ? method : NULL);
	/* the daemon takes JSON bodies only as application/json (not curl's
	 * default form type) */
	curl_easy_setopt(sb->curl, CURLOPT_HTTPHEADER, sb->json_hdrs);
	url_of(sb, path, url, sizeof url);
	long status = perform(sb, url, 60);
	curl_easy_setopt(sb->curl, CURLOPT_POSTFIELDS, NULL);
	curl_easy_setopt(sb->curl, CURLOPT_CUSTOMREQUEST, NULL);
	curl_easy_setopt(sb->curl, CURLOPT_HTTPHEADER, sb->hdrs);
	free(body);
	if (status == 0 || status / 100 != 2) {
		if (status)
			refused(sb, what, status);
		return EXIT_SERVER;
	}
	*out = resp_json(sb);
	return 0;
}

/* POST /comparisons; *id on success.  Exit-style status on failure. */
static int create(struct submit *sb, long base, long cand, long *id)
{
	json_t *req = json_object(), *j = NULL;
	int rc = EXIT_ERROR;
	if (sb->baseline_name)
		json_object_set_new(req, "baseline_name", json_string(sb->baseline_name));
	else
		json_object_set_new(req, "baseline", json_integer(base));
	json_object_set_new(req, "candidate", json_integer(cand));
	if (sb->suite)
		json_object_set_new(req, "suite", json_string(sb->suite));
	if (sb->config)
		json_object_set_new(req, "config", json_string(sb->config));
	if (sb->suite_size)
		json_object_set_new(req, "suite_size", json_integer(sb->suite_size));
	if (sb->name)
		json_object_set_new(req, "name", json_string(sb->name));
	if (sb->policy) {
		json_t *p = sb->policy[0] == '{' ? json_loads(sb->policy, 0, NULL)
		                                 : json_string(sb->policy);
		if (!p) {
			srv_cli_fail(
			        "parity submit: --policy is neither a name nor a JSON object\n");
			goto done;
		}
		json_object_set_new(req, "policy", p);
	}
	if ((rc = send_json(sb, "POST", "/comparisons", req, "the comparison", &j)) != 0)
		goto done;
	if (!json_is_integer(json_object_get(j, "id"))) {
		srv_cli_fail("parity submit: unexpected answer creating the comparison\n");
		rc = EXIT_SERVER;
		goto done;
	}
	*id = (long)json_integer_value(json_object_get(j, "id"));
	rc = 0;
done:
	json_decref(req);
	json_decref(j);
	return rc;
}

/* --promote-on-pass: PUT /baselines/NAME {"run": cand, "comparison": id}
 * (the daemon checks the comparison passed against that name and keeps
 * it in the baseline's history; it refuses with 409 not_promotable when
 * the name moved on from the run the comparison was made against, and
 * that is said in a line of its own).  Exit-style status. */
static int promote(struct submit *sb, long cand, long id)
{
	char path[512], note[128];
	json_t *j = NULL;
	snprintf(path, sizeof path, "/baselines/%s", sb->baseline_name);
	snprintf(note, sizeof note, "promoted on pass of comparison %ld (parity submit)", id);
	json_t *req = json_pack("{s:I, s:I, s:s}", "run", (json_int_t)cand, "comparison",
	                        (json_int_t)id, "note", note);
	int rc = req ? send_json(sb, "PUT", path, req, "the promotion", &j) : EXIT_ERROR;
	if (rc == 0 && !sb->as_json)
		fprintf(stderr, "promoted run %ld to baseline %s\n", cand, sb->baseline_name);
	if (rc == EXIT_SERVER) {
		/* a promotion is a compare-and-swap: another one (a second
		 * pipeline) moved the baseline while this comparison ran */
		json_t *resp = resp_json(sb);
		const char *code =
		        json_string_value(json_object_get(json_object_get(resp, "error"), "code"));
		if (code && !strcmp(code, "not_promotable"))
			srv_cli_fail(
			        "parity submit: run %ld passed but was NOT promoted: baseline %s "
			        "is no longer the run comparison %ld was made against\n",
			        cand, sb->baseline_name, id);
		json_decref(resp);
	}
	json_decref(req);
	json_decref(j);
	return rc;
}

static int finished(json_t *c)
{
	const char *st = json_string_value(json_object_get(c, "status"));
	return st && (!strcmp(st, "done") || !strcmp(st, "failed"));
}

/* Long-poll until done/failed or the deadline.  *out = the comparison. */
static int await(struct submit *sb, long id, json_t **out)
{
	char url[2048], path[128];
	double deadline = now_s() + (double)sb->timeout_s;
	int transport_failures = 0;
	*out = NULL;
	curl_easy_setopt(sb->curl, CURLOPT_HTTPGET, 1L);
	for (;;) {
		long left = (long)(deadline - now_s());
		if (left <= 0)
			break;
		long wait = left < WAIT_CHUNK_S ? left : WAIT_CHUNK_S;
		snprintf(path, sizeof path, "/comparisons/%ld?wait=%ld", id, wait);
		url_of(sb, path, url, sizeof url);
		long status = perform(sb, url, wait + 30);
		if (status == 0) {
			/* a daemon restart or a blip: retry a few times, slowly */
			if (++transport_failures >= 3)
				return EXIT_SERVER;
			sleep(2);
			continue;
		}
		transport_failures = 0;
		if (status != 200) {
			refused(sb, "the status request", status);
			return EXIT_SERVER;
		}
		json_t *c = resp_json(sb);
		if (!c) {
			srv_cli_fail("parity submit: unexpected answer while waiting\n");
			return EXIT_SERVER;
		}
		if (finished(c)) {
			*out = c;
			return 0;
		}
		json_decref(c);
	}
	srv_cli_fail("parity submit: no verdict after %ld s (the comparison %ld continues on "
	             "the server)\n",
	             sb->timeout_s, id);
	return EXIT_ERROR;
}

/* Absolute page URL: the server's own when it has --public-url. */
static void page_url(struct submit *sb, json_t *c, char *out, size_t cap)
{
	const char *ui = json_string_value(json_object_get(json_object_get(c, "urls"), "ui"));
	if (ui && (!strncmp(ui, "http://", 7) || !strncmp(ui, "https://", 8)))
		snprintf(out, cap, "%s", ui);
	else if (ui)
		url_of(sb, ui, out, cap);
	else
		out[0] = 0;
}

static int report(struct submit *sb, json_t *c)
{
	const char *status = json_string_value(json_object_get(c, "status"));
	const char *verdict = json_string_value(json_object_get(c, "verdict"));
	int code = EXIT_ERROR;
	if (status && !strcmp(status, "done") && verdict)
		code = !strcmp(verdict, "pass")   ? EXIT_PASS
		       : !strcmp(verdict, "fail") ? EXIT_FAIL
		                                  : EXIT_ERROR;
	char page[2200];
	page_url(sb, c, page, sizeof page);
	if (sb->as_json) {
		json_object_set_new(c, "page_url", json_string(page));
		json_object_set_new(c, "exit_code", json_integer(code));
		char *text = json_dumps(c, JSON_COMPACT);
		if (text)
			printf("%s\n", text);
		free(text);
		return code;
	}
	long long id = (long long)json_integer_value(json_object_get(c, "id"));
	const char *pol = json_string_value(json_object_get(json_object_get(c, "policy"), "name"));
	const char *kind = json_string_value(json_object_get(c, "kind"));
	if (status && !strcmp(status, "failed")) {
		const char *e = json_string_value(json_object_get(c, "error"));
		printf("parity: ERROR: comparison %lld failed: %s\n", id, e ? e : "(no message)");
	} else {
		char up[16];
		snprintf(up, sizeof up, "%s", verdict ? verdict : "unknown");
		for (char *p = up; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		/* issue 26: a noise comparison names its lane, "PASS (within noise)" */
		char vl[64];
		web_verdict_lane(up, json_string_value(json_object_get(c, "lane")), vl, sizeof vl);
		printf("parity: %s: comparison %lld (%s, policy %s)\n", vl, id, kind ? kind : "?",
		       pol ? pol : "default");
		size_t i;
		json_t *r;
		json_array_foreach(json_object_get(json_object_get(c, "result"), "reasons"), i, r)
		{
			const char *m = json_string_value(json_object_get(r, "message"));
			json_t *rank = json_object_get(r, "rank");
			if (json_is_integer(rank))
				printf("  - rank %lld: %s\n", (long long)json_integer_value(rank),
				       m ? m : "");
			else
				printf("  - %s\n", m ? m : "");
		}
	}
	if (page[0])
		printf("page: %s\n", page);
	return code;
}

/* parity submit ...: argv[0] = "submit". */
int srv_cli_submit(int argc, char **argv)
{
	struct submit sb;
	memset(&sb, 0, sizeof sb);
	struct strv base_files = {0}, cand_files = {0};
	json_t *c = NULL;
	int parsed = 0;
	int rc = parse_args(&sb, argc, argv);
	if (rc != 0) {
		if (rc > 0)
			srv_options_usage(&srv_submit_cmd, stdout);
		else
			fputs("run `parity submit --help` for the options\n", stderr);
		rc = rc > 0 ? 0 : EXIT_ERROR;
		goto done;
	}
	rc = EXIT_ERROR;
	parsed = 1; /* from here on --junit / --markdown are written whatever happens */
	if (expand(&sb.baseline, &base_files) < 0 || expand(&sb.candidate, &cand_files) < 0)
		goto done;
	sb.tty = isatty(STDERR_FILENO);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(sb.curl = curl_easy_init())) {
		srv_cli_fail("parity submit: cannot initialise libcurl\n");
		goto done;
	}
	sb.hdrs = curl_slist_append(sb.hdrs, "Expect:");
	sb.hdrs = curl_slist_append(sb.hdrs, "Accept: application/json");
	if (sb.token) {
		char h[1200];
		if (strlen(sb.token) > 1000 || strpbrk(sb.token, "\r\n")) {
			srv_cli_fail("parity submit: the token is not a single line\n");
			goto done;
		}
		snprintf(h, sizeof h, "Authorization: Bearer %s", sb.token);
		sb.hdrs = curl_slist_append(sb.hdrs, h);
		memset(h, 0, sizeof h);
	}
	for (const struct curl_slist *l = sb.hdrs; l; l = l->next)
		sb.json_hdrs = curl_slist_append(sb.json_hdrs, l->data);
	sb.json_hdrs = curl_slist_append(sb.json_hdrs, "Content-Type: application/json");
	if (!sb.hdrs || !sb.json_hdrs) {
		srv_cli_fail("parity submit: out of memory\n");
		goto done;
	}
	CURL *cu = sb.curl;
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cu, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(cu, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, sb.hdrs);
	curl_easy_setopt(cu, CURLOPT_USERAGENT, "parity-submit/1");
	curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, sb.curl_err);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &sb);
	curl_easy_setopt(cu, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(cu, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(cu, CURLOPT_XFERINFODATA, &sb);

	if (sb.limit_rate)
		curl_easy_setopt(cu, CURLOPT_MAX_SEND_SPEED_LARGE, (curl_off_t)sb.limit_rate);

	if ((rc = precheck(&sb, &base_files, &cand_files)) != 0)
		goto done;
	long base = sb.baseline_run, cand = 0, id = 0;
	int own_base = !base && !sb.baseline_name;
	if (own_base && (rc = upload(&sb, "baseline", &sb.baseline, &base_files, 0, &base)) != 0)
		goto done;
	if ((rc = upload(&sb, "candidate", &sb.candidate, &cand_files, 1, &cand)) != 0) {
		if (own_base)
			discard_run(&sb, base);
		goto done;
	}
	if ((rc = create(&sb, base, cand, &id)) != 0) {
		/* nothing of this submit stays behind */
		discard_run(&sb, cand);
		if (own_base)
			discard_run(&sb, base);
		goto done;
	}
	if (!sb.as_json)
		fprintf(stderr, "comparison %ld queued, waiting for the verdict\n", id);
	if ((rc = await(&sb, id, &c)) != 0)
		goto done;
	rc = report(&sb, c);
	if (rc == EXIT_PASS && sb.promote_on_pass) {
		int prc = promote(&sb, cand, id);
		if (prc != 0)
			rc = prc;
	}
done:
	if (parsed && (sb.junit_file || sb.markdown_file)) {
		char page[2200] = "";
		if (c)
			page_url(&sb, c, page, sizeof page);
		struct srv_cli_ci ci = {c, page, rc, srv_cli_last_error()};
		if ((sb.junit_file && srv_cli_ci_junit(&ci, sb.junit_file) < 0) ||
		    (sb.markdown_file && srv_cli_ci_markdown(&ci, sb.markdown_file) < 0))
			rc = rc == EXIT_PASS ? EXIT_ERROR : rc;
	}
	json_decref(c);
	if (sb.curl)
		curl_easy_cleanup(sb.curl);
	curl_slist_free_all(sb.hdrs);
	curl_slist_free_all(sb.json_hdrs);
	buf_reset(&sb.resp);
	strv_free(&base_files, 1);
	strv_free(&cand_files, 1);
	srv_options_free(&srv_submit_cmd, &sb, NULL);
	if (sb.curl)
		curl_global_cleanup();
	return rc;
}
