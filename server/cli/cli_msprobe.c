/* cli_msprobe.c - msprobe dump trees for `parity compare`: a step folder
 * `stepN/` holds one `rankR/` folder per rank with its dump.json (and
 * stack.json, construct.json beside it).  The dumps read as activation
 * logs (actlog.h hands them to msprobe.h); the stack.json beside a dump
 * gives its entries their source locations. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "msprobe.h"

int srv_cli_msprobe_rank_dir(const char *dir, const char *name, char **path)
{
	const char *p = name + 4;
	long v = 0;
	struct stat st;
	*path = NULL;
	if (strncmp(name, "rank", 4) != 0 || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > 1000000)
			return -1;
	if (*p)
		return -1;
	size_t n = strlen(dir) + strlen(name) + sizeof "//dump.json";
	char *f = malloc(n);
	if (!f)
		return -1;
	snprintf(f, n, "%s/%s/dump.json", dir, name);
	if (stat(f, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(f);
		return -1;
	}
	*path = f;
	return (int)v;
}

int srv_cli_msprobe_is_step_dir(const char *name)
{
	const char *p = name + 4;
	if (strncmp(name, "step", 4) != 0 || !*p)
		return 0;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

char *srv_cli_msprobe_beside(const char *path, const char *name)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t dl = (size_t)(base - path), n = dl + strlen(name) + 1;
	struct stat st;
	if (strcmp(base, "dump.json") != 0)
		return NULL;
	char *sp = malloc(n);
	if (!sp)
		return NULL;
	snprintf(sp, n, "%.*s%s", (int)dl, path, name);
	if (stat(sp, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(sp);
		return NULL;
	}
	return sp;
}

int srv_cli_msprobe_step_files(const char *dir, void *ctx, int (*push)(void *ctx, const char *path))
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct {
		int rank;
		char *path;
	} *list = NULL;
	size_t n = 0;
	int rc = 0;
	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		char *path;
		int rank = srv_cli_msprobe_rank_dir(dir, de->d_name, &path);
		if (rank < 0)
			continue;
		void *nl = realloc(list, (n + 1) * sizeof *list);
		if (!nl) {
			free(path);
			rc = -1;
			break;
		}
		list = nl;
		list[n].rank = rank;
		list[n++].path = path;
	}
	closedir(d);
	/* rank order (a few ranks: insertion sort) */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && list[j - 1].rank > list[j].rank; j--) {
			int r = list[j].rank;
			char *p = list[j].path;
			list[j] = list[j - 1];
			list[j - 1].rank = r;
			list[j - 1].path = p;
		}
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && push(ctx, list[i].path) < 0)
			rc = -1;
		free(list[i].path);
	}
	free(list);
	return rc;
}

int srv_cli_msprobe_stack_beside(const char *path, const char *who,
                                 struct matcher_msprobe_stack **out)
{
	*out = NULL;
	char *sp = srv_cli_msprobe_beside(path, "stack.json");
	FILE *f = sp ? fopen(sp, "rb") : NULL;
	if (!f) {
		free(sp);
		return 0; /* no stack.json: no locations */
	}
	struct buf text = BUF_INIT;
	char chunk[65536];
	size_t k;
	int rc = 0;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (text.len + k > MATCHER_MSPROBE_MAX_BYTES_DEFAULT ||
		    buf_append(&text, chunk, k) < 0) {
			srv_cli_fail("%s: %s: over the %zu MiB limit\n", who, sp,
			             MATCHER_MSPROBE_MAX_BYTES_DEFAULT >> 20);
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(f)) {
		srv_cli_fail("%s: cannot read %s: %s\n", who, sp, strerror(errno));
		rc = -1;
	}
	fclose(f);
	struct matcher_error e;
	if (!rc &&
	    matcher_msprobe_stack_parse(text.data ? text.data : "", text.len, 0, out, &e) < 0) {
		srv_cli_fail("%s: %s: %s (%s)\n", who, sp, e.message, e.code);
		rc = -1;
	}
	buf_reset(&text);
	free(sp);
	return rc;
}

/* The collector's callbacks behind a location-filling on_entry. */
static int located_entry(void *ctx, const struct matcher_entry *e)
{
	struct srv_cli_msprobe_cb *w = ctx;
	const char *loc = e->location ? NULL : matcher_msprobe_stack_find(w->stack, e->key);
	if (!loc)
		return w->inner.on_entry(w->inner.ctx, e);
	struct matcher_entry c = *e;
	c.location = loc;
	return w->inner.on_entry(w->inner.ctx, &c);
}

static int pass_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct srv_cli_msprobe_cb *w = ctx;
	return w->inner.on_header ? w->inner.on_header(w->inner.ctx, h) : 0;
}

static int pass_warning(void *ctx, const struct matcher_warning *x)
{
	struct srv_cli_msprobe_cb *w = ctx;
	return w->inner.on_warning ? w->inner.on_warning(w->inner.ctx, x) : 0;
}

struct matcher_actlog_callbacks srv_cli_msprobe_wrap(struct srv_cli_msprobe_cb *w)
{
	struct matcher_actlog_callbacks cb = {w, pass_header, located_entry, pass_warning};
	return w->stack && w->inner.on_entry ? cb : w->inner;
}
