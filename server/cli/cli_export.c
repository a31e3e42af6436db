/* cli_export.c - `parity export RUN --format losses`: write a training
 * run's metric as a golden loss file (web_losses_*), the file TorchTitan
 * commits in its tests' assets/losses/ folder and `parity submit --baseline-file`
 * compares against.
 *
 * RUN is a file (a stdout log, an event file or a loss file; parsed here
 * with matcher/trainsrc.h) or, when no such file exists, a run id on the
 * daemon given by --server / PARITY_SERVER (GET /runs/{id}/losses.txt,
 * streamed to the output).  Exit status: 0 written, 2 usage, input or
 * server error (the message names it; a bad CRC names the byte offset). */
#include "curl_lib.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "traincheck.h"
#include "lossfile.h"
#include "trainsrc.h"
#include "web.h"
#include "cli.h"

#define READ_CHUNK (1u << 20)

struct opts {
	const char *run, *format, *metric, *output, *server, *token;
	long rank;
};

static const char *const formats[] = {"losses", NULL};

static const struct srv_option export_opts[] = {
        {.name = "format",
         .type = SRV_OPT_ENUM,
         .offset = offsetof(struct opts, format),
         .choices = formats,
         .metavar = "losses",
         .help = "the golden loss file (the only format; required)."},
        {.name = "metric",
         .type = SRV_OPT_STRING,
         .offset = offsetof(struct opts, metric),
         .def = "loss",
         .metavar = "NAME[,NAME...]",
         .help = "the metric to write; several (loss,grad_norm) write TorchTitan's "
                 "multi-metric form: a `# step loss grad_norm` line, then one value per "
                 "metric on each step's line (local files)."},
        {.name = "rank",
         .type = SRV_OPT_INT,
         .offset = offsetof(struct opts, rank),
         .size = sizeof(long),
         .min = 0,
         .max = 1000000,
         .def = "0",
         .metavar = "N",
         .help = "the rank."},
        {.name = "output",
         .short_name = 'o',
         .type = SRV_OPT_STRING,
         .offset = offsetof(struct opts, output),
         .metavar = "FILE",
         .help = "write there instead of stdout."},
        {.name = "server",
         .env = "PARITY_SERVER",
         .type = SRV_OPT_STRING,
         .offset = offsetof(struct opts, server),
         .metavar = "URL",
         .help = "the daemon, for a run id."},
        {.name = "token",
         .env = "PARITY_TOKEN",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_SECRET,
         .offset = offsetof(struct opts, token),
         .metavar = "T",
         .help = "API token (Authorization: Bearer)."},
        {.name = NULL},
};

const struct srv_optcmd srv_export_cmd = {
        .name = "export",
        .synopsis = "usage: parity export RUN --format losses [options]\n",
        .about = "Write a training run's loss (or another metric) as a golden loss file:\n"
                 "comment lines, then one `step value` line per step.  RUN is a log file\n"
                 "(stdout log, TensorBoard event file, loss file) or a run id on a daemon.\n",
        .opts = export_opts,
};

/* 0, 1 after --help, -1 on a usage error (printed). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	struct srv_optres res = {0};
	int rc = srv_options_parse(&srv_export_cmd, o, argc, argv, &res);
	o->run = res.n_operands ? res.operands[0] : NULL;
	if (rc < 0)
		fprintf(stderr, "%s\n", res.err);
	else if (rc == 0 && res.n_operands > 1) {
		fprintf(stderr, "parity export: one RUN only\n");
		rc = -1;
	} else if (rc == 0 && (!o->run || !o->format)) {
		fprintf(stderr, "parity export: RUN and --format losses are required\n");
		rc = -1;
	}
	srv_options_free(&srv_export_cmd, o, &res);
	return rc;
}

/* Parse a local file into a run (the chosen metrics only) and say which
 * source it is.  0 or -1. */
static int load_file(const char *path, const char *const *metrics, size_t n_metrics,
                     struct matcher_trainrun **out, enum matcher_source *src)
{
	int rc = -1, fd = open(path, O_RDONLY | O_CLOEXEC);
	struct matcher_trainsrc *p = NULL;
	struct matcher_trainlog_summary sum;
	char *chunk = malloc(READ_CHUNK);
	struct matcher_trainrun *run = matcher_trainrun_new(metrics, n_metrics);
	struct matcher_trainlog_callbacks cb = matcher_trainrun_collector(run);
	if (fd < 0 || !chunk || !run) {
		fprintf(stderr, "parity export: cannot read %s: %s\n", path,
		        fd < 0 ? strerror(errno) : "out of memory");
		goto done;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "parity export: cannot read %s: %s\n", path,
			        strerror(errno));
			goto done;
		}
		if (!p && !(p = matcher_trainsrc_new(n ? matcher_detect_source(chunk, (size_t)n)
		                                       : MATCHER_SOURCE_STDOUT,
		                                     &cb, 0, 0)))
			goto done;
		if (n == 0)
			break;
		if (matcher_trainsrc_feed(p, chunk, (size_t)n) < 0)
			goto refused;
	}
	if (matcher_trainsrc_finish(p, &sum) < 0)
		goto refused;
	*src = matcher_trainsrc_source(p);
	*out = run;
	run = NULL;
	rc = 0;
	goto done;
refused:;
	const struct matcher_error *e = matcher_trainsrc_error(p);
	if (e->line)
		fprintf(stderr, "parity export: %s refused (%s): line %lu: %s\n", path, e->code,
		        e->line, e->message);
	else
		fprintf(stderr, "parity export: %s refused (%s): %s\n", path, e->code, e->message);
done:
	if (fd >= 0)
		close(fd);
	free(chunk);
	matcher_trainsrc_free(p);
	matcher_trainrun_free(run);
	return rc;
}

struct step_at {
	long step;
	size_t idx; /* in the series (arrival order) */
};

static int cmp_step(const void *x, const void *y)
{
	long a = ((const struct step_at *)x)->step, b = ((const struct step_at *)y)->step;
	return a < b ? -1 : a > b;
}

/* A cell's text as the golden file writes it. */
static void cell_text(const struct matcher_train_cell *x, char *text, size_t cap)
{
	if (x->prec == MATCHER_PREC_PRINTED)
		matcher_train_format_value(x->value, x->decimals, text, cap);
	else
		web_losses_value(x->value, NULL, 1, text, cap);
}

/* A log file's metrics as a golden file: one metric, the `step value`
 * form (its steps with a value); `--metric a,b,...`, the multi-metric
 * form, one line per step every metric has a value at (a step where one
 * is missing is left out and counted on stderr). */
static int export_file(const struct opts *o, const char *const *names, size_t n, FILE *fp)
{
	struct matcher_trainrun *run = NULL;
	enum matcher_source src = MATCHER_SOURCE_STDOUT;
	if (load_file(o->run, names, n, &run, &src) < 0)
		return 2;
	int rc = 2;
	const struct matcher_train_series *s = matcher_trainrun_series(run, (int)o->rank, 0);
	const struct matcher_train_column *c[MATCHER_LOSSFILE_COLS];
	struct step_at *steps = NULL;
	struct buf out = BUF_INIT;
	size_t skipped = 0;
	for (size_t k = 0; k < n; k++) {
		if (!(c[k] = matcher_train_series_column(s, names[k]))) {
			fprintf(stderr, "parity export: %s has no %s values at rank %ld\n", o->run,
			        names[k], o->rank);
			goto done;
		}
	}
	steps = malloc((s->n_steps ? s->n_steps : 1) * sizeof *steps);
	if (!steps)
		goto done;
	for (size_t i = 0; i < s->n_steps; i++)
		steps[i] = (struct step_at){s->steps[i], i};
	qsort(steps, s->n_steps, sizeof *steps, cmp_step);
	if (web_losses_header(&out, o->run, (int)o->rank, matcher_source_name(src),
	                      n == 1 ? names[0] : NULL) < 0 ||
	    (n > 1 && web_losses_columns(&out, names, n) < 0))
		goto done;
	for (size_t i = 0; i < s->n_steps; i++) {
		char text[MATCHER_LOSSFILE_COLS][64];
		const char *tv[MATCHER_LOSSFILE_COLS];
		size_t k = 0;
		for (; k < n && c[k]->cells[steps[i].idx].present; k++) {
			cell_text(&c[k]->cells[steps[i].idx], text[k], sizeof text[k]);
			tv[k] = text[k];
		}
		if (k < n) {
			skipped += n > 1;
			continue;
		}
		if (n == 1)
			web_losses_line(&out, steps[i].step, tv[0]);
		else
			web_losses_row(&out, steps[i].step, tv, n);
		if (out.len > (1u << 20)) {
			if (fwrite(out.data, 1, out.len, fp) != out.len)
				goto done;
			buf_clear(&out);
		}
	}
	if (out.len && fwrite(out.data, 1, out.len, fp) != out.len)
		goto done;
	if (skipped)
		fprintf(stderr,
		        "parity export: %zu step(s) without a value of every metric left out\n",
		        skipped);
	rc = 0;
done:
	free(steps);
	buf_reset(&out);
	matcher_trainrun_free(run);
	return rc;
}

static size_t write_body(char *data, size_t size, size_t n, void *fp)
{
	return fwrite(data, size, n, fp) * size;
}

static int export_remote(const struct opts *o, FILE *fp)
{
	char *end;
	long long id = strtoll(o->run, &end, 10);
	if (*end || end == o->run || id < 0) {
		fprintf(stderr, "parity export: %s is neither a file nor a run id\n", o->run);
		return 2;
	}
	if (!o->server) {
		fprintf(stderr, "parity export: a run id needs --server URL (or PARITY_SERVER)\n");
		return 2;
	}
	CURL *c = curl_easy_init();
	if (!c)
		return 2;
	char *metric = curl_easy_escape(c, o->metric, 0);
	struct buf url = BUF_INIT, auth = BUF_INIT;
	buf_printf(&url, "%s/runs/%lld/losses.txt?rank=%ld&metric=%s", o->server, id, o->rank,
	           metric ? metric : "loss");
	curl_free(metric);
	struct curl_slist *hdrs = NULL;
	if (o->token) {
		buf_printf(&auth, "Authorization: Bearer %s", o->token);
		hdrs = curl_slist_append(NULL, auth.data);
	}
	/* the body goes to a temporary file first: an error reply is not a loss file */
	FILE *tmp = tmpfile();
	long status = 0;
	int rc = 2;
	curl_easy_setopt(c, CURLOPT_URL, url.data);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, write_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, tmp);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 600L);
	CURLcode cc = tmp ? curl_easy_perform(c) : CURLE_WRITE_ERROR;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (cc != CURLE_OK) {
		fprintf(stderr, "parity export: %s: %s\n", o->server, curl_easy_strerror(cc));
	} else {
		char chunk[65536];
		size_t n;
		rewind(tmp);
		if (status != 200) {
			n = fread(chunk, 1, sizeof chunk - 1, tmp);
			chunk[n] = 0;
			fprintf(stderr, "parity export: run %lld: HTTP %ld: %s\n", id, status,
			        chunk);
		} else {
			rc = 0;
			while ((n = fread(chunk, 1, sizeof chunk, tmp)) > 0)
				if (fwrite(chunk, 1, n, fp) != n)
					rc = 2;
		}
	}
	if (tmp)
		fclose(tmp);
	curl_slist_free_all(hdrs);
	buf_reset(&url);
	buf_reset(&auth);
	curl_easy_cleanup(c);
	return rc;
}

int srv_cli_golden_file_ok(const char *path, const char *who)
{
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: %s is not a readable file\n", who, path);
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *chunk = malloc(READ_CHUNK);
	struct matcher_trainsrc *p = NULL;
	struct matcher_trainlog_summary sum;
	int rc = -1;
	if (fd < 0 || !chunk || !(p = matcher_trainsrc_new(MATCHER_SOURCE_LOSSFILE, NULL, 0, 0))) {
		fprintf(stderr, "%s: cannot read %s\n", who, path);
		goto done;
	}
	for (;;) {
		ssize_t n = read(fd, chunk, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (matcher_trainsrc_feed(p, chunk, (size_t)n) < 0)
			break;
	}
	if (!matcher_trainsrc_error(p) && matcher_trainsrc_finish(p, &sum) == 0) {
		rc = 0;
	} else {
		const struct matcher_error *e = matcher_trainsrc_error(p);
		fprintf(stderr, "%s: %s is not a golden loss file (%s): %s\n", who, path,
		        e ? e->code : "io", e ? e->message : "read error");
	}
done:
	if (fd >= 0)
		close(fd);
	free(chunk);
	matcher_trainsrc_free(p);
	return rc;
}

/* Names in dir matching keep(), sorted by cmp: *names (free each and
 * the array).  0 or -1. */
static int list_dir(const char *dir, int (*keep)(const char *name, const char *dir),
                    int (*cmp)(const void *, const void *), char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	*names = NULL;
	*n = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!keep(de->d_name, dir))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(*names, cap * sizeof *nv);
			if (!nv)
				break;
			*names = nv;
		}
		if (!((*names)[*n] = strdup(de->d_name)))
			break;
		(*n)++;
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof **names, cmp);
	return 0;
}

static void free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int is_event_file(const char *name, const char *dir)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return !strncmp(name, "events.out.tfevents.", 20) && stat(path, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

static long rank_dir_number(const char *name)
{
	char *end;
	if (strncmp(name, "rank_", 5) || name[5] < '0' || name[5] > '9')
		return -1;
	long r = strtol(name + 5, &end, 10);
	return *end ? -1 : r;
}

static int is_rank_dir(const char *name, const char *dir)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return rank_dir_number(name) >= 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int by_rank_dir(const void *x, const void *y)
{
	long a = rank_dir_number(*(char *const *)x), b = rank_dir_number(*(char *const *)y);
	return a < b ? -1 : a > b;
}

int srv_cli_tfevents_dir(const char *dir, void *ctx, int (*push)(void *ctx, const char *path))
{
	char **names = NULL, **ev = NULL;
	size_t n = 0, n_ev = 0;
	char path[8300];
	int rc = -1;
	if (list_dir(dir, is_event_file, by_name, &names, &n) < 0)
		return -1;
	if (n) {
		for (size_t i = 0; i < n; i++) {
			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			if (push(ctx, path) < 0)
				goto done;
		}
		rc = 0;
		goto done;
	}
	free_names(names, n);
	if (list_dir(dir, is_rank_dir, by_rank_dir, &names, &n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char sub[4096];
		snprintf(sub, sizeof sub, "%s/%s", dir, names[i]);
		if (list_dir(sub, is_event_file, by_name, &ev, &n_ev) < 0)
			goto done;
		if (n_ev) {
			/* a restarted run leaves several: the last one is the latest */
			snprintf(path, sizeof path, "%s/%s", sub, ev[n_ev - 1]);
			if (push(ctx, path) < 0)
				goto done;
		}
		free_names(ev, n_ev);
		ev = NULL;
		n_ev = 0;
	}
	rc = 0;
done:
	free_names(names, n);
	free_names(ev, n_ev);
	return rc;
}

int srv_cli_export(int argc, char **argv)
{
	struct opts o;
	struct stat st;
	int prc = parse_opts(argc, argv, &o);
	if (prc != 0) {
		srv_options_usage(&srv_export_cmd, prc > 0 ? stdout : stderr);
		return prc > 0 ? 0 : 2;
	}
	/* --metric a,b,...: the multi-metric form (local files) */
	char list[512], *names[MATCHER_LOSSFILE_COLS + 1];
	size_t n = 0;
	snprintf(list, sizeof list, "%s", o.metric ? o.metric : "loss");
	for (char *t = strtok(list, ","); t && n <= MATCHER_LOSSFILE_COLS; t = strtok(NULL, ","))
		names[n++] = t;
	int is_file = stat(o.run, &st) == 0;
	if (strchr(o.metric ? o.metric : "", ',') &&
	    (!is_file || n < 2 || n > MATCHER_LOSSFILE_COLS || strlen(o.metric) >= sizeof list)) {
		fprintf(stderr,
		        "parity export: --metric with several names (at most %d) writes the "
		        "multi-metric form of a log file; a run on a daemon exports one "
		        "metric\n",
		        MATCHER_LOSSFILE_COLS);
		return 2;
	}
	FILE *fp = o.output ? fopen(o.output, "wb") : stdout;
	if (!fp) {
		fprintf(stderr, "parity export: cannot write %s: %s\n", o.output, strerror(errno));
		return 2;
	}
	int rc = is_file ? export_file(&o, (const char *const *)names, n, fp)
	                 : export_remote(&o, fp);
	if (fp != stdout) {
		if (fclose(fp) != 0)
			rc = 2;
	} else if (fflush(stdout) != 0) {
		rc = 2;
	}
	/* a failed export leaves no partial file, but never removes what is
	 * not a regular file (`-o /dev/null` run as root) */
	struct stat out_st;
	if (rc && o.output && stat(o.output, &out_st) == 0 && S_ISREG(out_st.st_mode))
		unlink(o.output);
	return rc;
}
