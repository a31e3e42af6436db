/* mail.c - composing the email of an email-format delivery (see mail.h):
 * the HTML body of one comparison or of a whole suite (one section per
 * config: verdict, reasons, statistics, run metadata, charts, links), the
 * charts as cid: images, the PDF report and, within cfg.mail_attach_max,
 * the CSV and the raw logs as attachments (else linked).
 *
 * The body is read from the same documents the API serves
 * (srv_comparison_doc, web_suite_json) and written through web_printf, so
 * every value from a user is HTML-escaped; header text goes through
 * srv_mail_header.  Memory: the message is built in memory; attachments
 * beyond the PDF and the charts are bounded by mail_attach_max (the CSV is
 * read in pages and dropped once it would not fit). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "json_views.h"
#include "mail.h"
#include "render.h"
#include "srv.h"
#include "store.h"
#include "web.h"
#include "webhooks.h"

#define MAX_REASONS      20 /* reasons listed per comparison */
#define MAX_META_ROWS    40 /* metadata keys shown per comparison */
#define META_VALUE_MAX   200
#define MAX_CHART_METRIC 3  /* training metrics charted (values and differences) */
#define MAX_LOGS_PER_RUN 8  /* ranks attached or linked per run */
#define MAX_SECTIONS     20 /* configs of a suite given a section (the rest: matrix) */
#define MAX_IMAGES       24 /* charts per message */

/* One message being built. */
struct mail {
	struct srv *s;
	struct store *db;
	const struct srv_config *cfg;
	struct buf html;    /* the HTML document */
	struct buf related; /* image parts of the multipart/related */
	struct buf attach;  /* attachment parts of the multipart/mixed */
	char bmix[64], brel[64];
	char tag[40];    /* makes Content-IDs unique to this message */
	uint64_t budget; /* attachment bytes left (CSV and logs) */
	int n_images;
	int oom;
};

/* ---- payload ------------------------------------------------------------- */

char *srv_mail_payload(const struct srv_config *cfg, const char *event, int64_t delivery_id,
                       int64_t comparison_id, const char *suite, const char *recipients_json,
                       int64_t now_ms)
{
	const char *at = strchr(cfg->mail_from, '@');
	char mid[400];
	snprintf(mid, sizeof mid, "<parity.%lld.%lld@%s>", (long long)delivery_id,
	         (long long)now_ms, at && at[1] ? at + 1 : "parity.invalid");
	json_t *to = recipients_json ? json_loads(recipients_json, 0, NULL) : NULL;
	json_t *p = json_pack("{s:s, s:I, s:I, s:s?, s:o, s:s}", "event", event, "delivery_id",
	                      (json_int_t)delivery_id, "comparison_id", (json_int_t)comparison_id,
	                      "suite", suite, "to", to ? to : json_array(), "message_id", mid);
	char *out = p ? json_dumps(p, JSON_COMPACT) : NULL;
	json_decref(p);
	return out;
}

void srv_mail_rcpt_free(char **rcpt, size_t n)
{
	for (size_t i = 0; rcpt && i < n; i++)
		free(rcpt[i]);
	free(rcpt);
}

/* ---- parts --------------------------------------------------------------- */

/* Append one base64 part to dst: Content-Type ctype (with name= when
 * filename), Content-ID when cid, Content-Disposition disp when given.
 * Names and ids are made here (ASCII, no quotes). */
static void part(struct mail *m, struct buf *dst, const char *boundary, const char *ctype,
                 const char *disp, const char *filename, const char *cid, const void *data,
                 size_t n)
{
	int bad = buf_printf(dst, "--%s\r\nContent-Type: %s", boundary, ctype) < 0;
	if (filename)
		bad |= buf_printf(dst, "; name=\"%s\"", filename) < 0;
	bad |= buf_puts(dst, "\r\nContent-Transfer-Encoding: base64\r\n") < 0;
	if (cid)
		bad |= buf_printf(dst, "Content-ID: <%s>\r\n", cid) < 0;
	if (disp)
		bad |= buf_printf(dst, "Content-Disposition: %s%s%s%s\r\n", disp,
		                  filename ? "; filename=\"" : "", filename ? filename : "",
		                  filename ? "\"" : "") < 0;
	bad |= buf_puts(dst, "\r\n") < 0;
	bad |= srv_mail_base64(dst, data, n) < 0;
	m->oom |= bad;
}

/* Absolute link to path when --public-url is set, else the path. */
static void link_to(const struct mail *m, char *out, size_t cap, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
static void link_to(const struct mail *m, char *out, size_t cap, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	snprintf(out, cap, "%s%s", m->cfg->public_url, path);
}

static void h(struct mail *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void h(struct mail *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	m->oom |= web_vprintf(&m->html, fmt, ap) < 0;
	va_end(ap);
}

static const char *str(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));
	return v ? v : "";
}

static long long num(json_t *o, const char *k)
{
	return (long long)json_integer_value(json_object_get(o, k));
}

/* "pass" / "fail" / "error" / "pending" of a comparison document. */
static const char *verdict_of(json_t *c)
{
	const char *v = str(c, "verdict"), *st = str(c, "status");
	if (!strcmp(st, "failed"))
		return "error";
	return *v ? v : (*st ? st : "error");
}

static const char *verdict_colour(const char *v)
{
	return !strcmp(v, "pass") ? "#1a7f37" : !strcmp(v, "fail") ? "#cf222e" : "#6e7781";
}

static void upper(const char *in, char *out, size_t cap)
{
	size_t i = 0;
	for (; in[i] && i + 1 < cap; i++)
		out[i] = (in[i] >= 'a' && in[i] <= 'z') ? (char)(in[i] - 32) : in[i];
	out[i] = 0;
}

/* ---- body sections ------------------------------------------------------- */

static void reasons(struct mail *m, json_t *c)
{
	json_t *rs = json_object_get(json_object_get(c, "result"), "reasons"), *r;
	size_t i;
	if (!json_array_size(rs)) {
		if (json_is_string(json_object_get(c, "error")))
			h(m, "<p><b>Error:</b> %s</p>\n", str(c, "error"));
		return;
	}
	h(m, "<h3>Why</h3>\n<ul>\n");
	json_array_foreach(rs, i, r)
	{
		if (i == MAX_REASONS) {
			h(m, "<li>... %zu more</li>\n", json_array_size(rs) - i);
			break;
		}
		h(m, "<li>%s</li>\n", str(r, "message"));
	}
	h(m, "</ul>\n");
}

static void cell_num(struct mail *m, json_t *v)
{
	if (json_is_string(v))
		h(m, "<td>%s</td>", json_string_value(v));
	else if (json_is_number(v))
		h(m, "<td>%.6g</td>", json_number_value(v));
	else
		h(m, "<td></td>");
}

/* Training: one row per metric; activation: the summary counts. */
static void stats(struct mail *m, json_t *c)
{
	json_t *res = json_object_get(c, "result");
	json_t *metrics = json_object_get(res, "metrics"), *v;
	const char *k;
	if (json_object_size(metrics)) {
		h(m, "<h3>Statistics</h3>\n<table border=\"1\" cellpadding=\"4\" "
		     "style=\"border-collapse:collapse\">\n<tr><th>metric</th><th>max "
		     "|diff|</th><th>mean |diff|</th><th>max rel</th><th>steps over</th><th>"
		     "</th></tr>\n");
		json_object_foreach(metrics, k, v)
		{
			json_t *mx = json_object_get(v, "max_abs_exact");
			h(m, "<tr><td>%s</td>", k);
			cell_num(m, mx ? mx : json_object_get(v, "max_abs"));
			cell_num(m, json_object_get(v, "mean_abs"));
			cell_num(m, json_object_get(v, "max_rel"));
			h(m, "<td>%lld of %lld</td><td>%s</td></tr>\n", num(v, "over"),
			  num(v, "compared"),
			  json_is_true(json_object_get(v, "pass")) ? "ok" : "over");
		}
		h(m, "</table>\n");
		json_t *steps = json_object_get(res, "steps");
		if (steps)
			h(m,
			  "<p>%lld common steps, %lld only in the baseline, %lld only in the "
			  "candidate.</p>\n",
			  num(steps, "common"), num(steps, "only_baseline_count"),
			  num(steps, "only_candidate_count"));
		return;
	}
	json_t *summary = json_object_get(res, "summary");
	if (!json_object_size(summary))
		return;
	h(m, "<h3>Summary</h3>\n<table border=\"1\" cellpadding=\"4\" "
	     "style=\"border-collapse:collapse\">\n");
	json_object_foreach(summary, k, v)
	{
		if (json_is_integer(v))
			h(m, "<tr><th align=\"left\">%s</th><td>%lld</td></tr>\n", k,
			  (long long)json_integer_value(v));
		else if (json_is_string(v))
			h(m, "<tr><th align=\"left\">%s</th><td>%s</td></tr>\n", k,
			  json_string_value(v));
	}
	h(m, "</table>\n");
}

/* A metadata value as one line of text (nested values as compact JSON). */
static void meta_text(json_t *v, char *out, size_t cap)
{
	if (!v) {
		snprintf(out, cap, "-");
	} else if (json_is_string(v)) {
		snprintf(out, cap, "%s", json_string_value(v));
	} else {
		char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(out, cap, "%s", t ? t : "?");
		free(t);
	}
}

static void meta_row(struct mail *m, const char *k, json_t *a, json_t *b)
{
	char ta[META_VALUE_MAX + 1], tb[META_VALUE_MAX + 1];
	meta_text(a, ta, sizeof ta);
	meta_text(b, tb, sizeof tb);
	int differs = !a || !b || !json_equal(a, b);
	if (differs)
		h(m,
		  "<tr style=\"background:#fff8c5\"><th align=\"left\">%s</th><td>%s</td>"
		  "<td>%s</td></tr>\n",
		  k, ta, tb);
	else
		h(m, "<tr><th align=\"left\">%s</th><td>%s</td><td>%s</td></tr>\n", k, ta, tb);
}

static void meta(struct mail *m, json_t *c)
{
	json_t *runs = json_object_get(c, "runs");
	json_t *ma = json_object_get(json_object_get(runs, "baseline"), "meta");
	json_t *mb = json_object_get(json_object_get(runs, "candidate"), "meta");
	if (!json_object_size(ma) && !json_object_size(mb))
		return;
	h(m, "<h3>Run metadata</h3>\n<table border=\"1\" cellpadding=\"4\" "
	     "style=\"border-collapse:collapse\">\n<tr><th></th><th>baseline</th>"
	     "<th>candidate</th></tr>\n");
	size_t rows = 0;
	const char *k;
	json_t *v;
	json_object_foreach(ma, k, v)
	{
		if (rows++ < MAX_META_ROWS)
			meta_row(m, k, v, json_object_get(mb, k));
	}
	json_object_foreach(mb, k, v)
	{
		if (!json_object_get(ma, k) && rows++ < MAX_META_ROWS)
			meta_row(m, k, NULL, v);
	}
	if (rows > MAX_META_ROWS)
		h(m, "<tr><td colspan=\"3\">... %zu more keys</td></tr>\n", rows - MAX_META_ROWS);
	h(m, "</table>\n");
}

/* Charts of a training comparison: per metric the values and the
 * differences, as cid: images.  A chart that does not render is left out
 * with a note. */
static void charts(struct mail *m, json_t *c)
{
	json_t *metrics = json_object_get(json_object_get(c, "result"), "metrics"), *v;
	const char *k;
	int n = 0, opened = 0;
	long long id = num(c, "id");
	json_object_foreach(metrics, k, v)
	{
		if (json_is_true(json_object_get(v, "not_logged")))
			continue; /* neither run has it: nothing to draw */
		if (n++ == MAX_CHART_METRIC || m->n_images >= MAX_IMAGES)
			break;
		for (int diff = 0; diff < 2; diff++) {
			struct buf png = BUF_INIT;
			char err[200] = "", cid[96], fname[64];
			if (srv_render_chart_png(m->db, id, k, diff, &png, err, sizeof err) < 0) {
				h(m, "<p>Chart of %s not rendered: %s</p>\n", k, err);
				buf_reset(&png);
				continue;
			}
			if (!opened++)
				h(m, "<h3>Charts</h3>\n");
			m->n_images++;
			snprintf(cid, sizeof cid, "chart%d.%s@parity", m->n_images, m->tag);
			snprintf(fname, sizeof fname, "chart%d.png", m->n_images);
			part(m, &m->related, m->brel, "image/png", "inline", fname, cid, png.data,
			     png.len);
			h(m, "<p><img src=\"cid:%s\" alt=\"%s%s\" style=\"max-width:100%%\"></p>\n",
			  cid, k, diff ? " difference" : "");
			buf_reset(&png);
		}
	}
}

/* Activation rows as CSV, page by page, into out: 0, 1 when over max
 * bytes, -1 on error. */
static int act_csv(struct mail *m, int64_t id, struct buf *out, uint64_t max)
{
	char cursor[64] = "";
	if (web_act_csv_header(out) < 0)
		return -1;
	for (;;) {
		struct store_row_page page;
		int rc = store_comparison_rows_list(m->db, id, -1, NULL, NULL, NULL, -1, NULL, 1000,
		                                    cursor[0] ? cursor : NULL, &page);
		for (size_t i = 0; rc == 0 && i < page.n_rows; i++) {
			struct web_act_row wr = {(long)page.rows[i].idx, &page.rows[i].row};
			if (web_act_csv_row(out, page.rows[i].rank, &wr) < 0)
				rc = -1;
		}
		snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
		store_row_page_free(&page);
		if (rc < 0)
			return -1;
		if (out->len > max)
			return 1;
		if (!cursor[0])
			return 0;
	}
}

/* Attach data as filename when it fits the budget: 1 attached, 0 not. */
static int attach_fitting(struct mail *m, const char *ctype, const char *filename, const void *data,
                          size_t n)
{
	if (n > m->budget)
		return 0;
	m->budget -= n;
	part(m, &m->attach, m->bmix, ctype, "attachment", filename, NULL, data, n);
	return 1;
}

static void csv_file(struct mail *m, json_t *c)
{
	long long id = num(c, "id");
	int training = !strcmp(str(c, "kind"), "training");
	struct buf csv = BUF_INIT;
	char fname[64], href[1400];
	snprintf(fname, sizeof fname, "comparison_%lld_%s.csv", id, training ? "steps" : "rows");
	int rc = training ? srv_steps_csv(m->s, id, &csv, m->budget)
	                  : act_csv(m, id, &csv, m->budget);
	if (rc == 0 && attach_fitting(m, "text/csv; charset=utf-8", fname, csv.data, csv.len)) {
		h(m, "<li>%s (attached)</li>\n", fname);
	} else if (training) {
		link_to(m, href, sizeof href, "/comparisons/%lld/steps.csv", id);
		h(m, "<li><a href=\"%s\">%s</a> (%s)</li>\n", href, fname,
		  rc < 0 ? "could not be read" : "too large to attach");
	} else {
		link_to(m, href, sizeof href, "/comparisons/%lld/rows", id);
		h(m, "<li>%s %s: <a href=\"%s\">rows</a></li>\n", fname,
		  rc < 0 ? "could not be read" : "too large to attach", href);
	}
	buf_reset(&csv);
}

/* Read path whole into out when it is at most max bytes: 0, 1 too big,
 * -1 unreadable. */
static int read_small(const char *path, uint64_t max, struct buf *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	int rc = 0;
	if (fstat(fd, &st) < 0) {
		rc = -1;
	} else if ((uint64_t)st.st_size > max) {
		rc = 1;
	} else if (buf_reserve(out, (size_t)st.st_size + 1) < 0) {
		rc = -1;
	} else {
		char chunk[65536];
		ssize_t got;
		while ((got = read(fd, chunk, sizeof chunk)) > 0 && out->len <= max)
			if (buf_append(out, chunk, (size_t)got) < 0) {
				rc = -1;
				break;
			}
		if (got < 0 || out->len > max)
			rc = -1;
	}
	close(fd);
	return rc;
}

static int buf_fn(void *ctx, const void *data, size_t n)
{
	return buf_append(ctx, data, n) < 0 ? -1 : 0;
}

/* PostgreSQL: the raw log sha whole into out when it fits max bytes, as
 * SQLite's file would be: its stored gzip stream (the chunks as they
 * are), or for a log that was gzip when uploaded its content (that gzip
 * file).  *is_gz = 1 then.  0, 1 too big, -1 unreadable. */
static int read_small_pg(struct mail *m, const char *sha, uint64_t max, struct buf *out, int *is_gz)
{
	struct store_pg *pg = store_pg_of(m->db);
	int64_t bytes = 0, zbytes = 0;
	*is_gz = 1;
	if (store_pg_blob_size(pg, sha, &bytes, &zbytes) < 0)
		return -1;
	if ((uint64_t)zbytes > max)
		return 1;
	for (int64_t seq = 0; (int64_t)out->len < zbytes; seq++) {
		void *data = NULL;
		size_t n = 0;
		if (store_pg_blob_chunk(pg, sha, seq, &data, &n) < 0)
			return -1;
		int rc = buf_append(out, data, n);
		free(data);
		if (rc < 0)
			return -1;
	}
	/* the content's first bytes: a gzip upload is attached as it came */
	unsigned char magic[2] = {0, 0};
	z_stream zs = {0};
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return -1;
	zs.next_in = (unsigned char *)out->data;
	zs.avail_in = (uInt)out->len;
	zs.next_out = magic;
	zs.avail_out = 2;
	while (zs.avail_out > 0 && inflate(&zs, Z_NO_FLUSH) == Z_OK)
		;
	inflateEnd(&zs);
	if (bytes < 2 || magic[0] != 0x1f || magic[1] != 0x8b)
		return 0;
	buf_reset(out);
	if ((uint64_t)bytes > max)
		return 1;
	return store_pg_blob_read(pg, sha, buf_fn, out) < 0 ? -1 : 0;
}

/* The raw logs of one run: attached while the budget lasts, else linked. */
static void log_files(struct mail *m, const char *side, json_t *run)
{
	long long run_id = num(run, "id");
	for (int n = 0; n < MAX_LOGS_PER_RUN; n++) {
		char sha[65], path[4400], fname[96], href[1400];
		if (store_log_find(m->db, run_id, n, NULL, sha, NULL, NULL, 0) < 0)
			break;
		struct buf data = BUF_INIT;
		int gz, rc;
		if (store_is_pg(m->db)) {
			rc = read_small_pg(m, sha, m->budget, &data, &gz);
		} else {
			gz = srv_blob_find(m->s, sha, path, sizeof path);
			rc = gz < 0 ? -1 : read_small(path, m->budget, &data);
		}
		snprintf(fname, sizeof fname, "%s_run%lld_rank%d.log%s", side, run_id, n,
		         gz == 1 ? ".gz" : "");
		/* a plain file may be a gzip upload: name it by its bytes */
		int is_gz = gz == 1 || (data.len >= 2 && (unsigned char)data.data[0] == 0x1f &&
		                        (unsigned char)data.data[1] == 0x8b);
		if (is_gz && gz != 1)
			snprintf(fname, sizeof fname, "%s_run%lld_rank%d.log.gz", side, run_id, n);
		if (rc == 0 && attach_fitting(m, is_gz ? "application/gzip" : "text/plain", fname,
		                              data.data, data.len)) {
			h(m, "<li>%s (attached)</li>\n", fname);
		} else {
			link_to(m, href, sizeof href, "/runs/%lld/logs/%d", run_id, n);
			h(m, "<li><a href=\"%s\">%s</a> (%s)</li>\n", href, fname,
			  rc < 0 ? "missing" : "too large to attach");
		}
		buf_reset(&data);
	}
}

/* One comparison: heading, links, reasons, statistics, charts, metadata,
 * files.  config is the suite config label or NULL. */
static void section(struct mail *m, json_t *c, const char *config)
{
	long long id = num(c, "id");
	const char *v = verdict_of(c);
	char V[16], page[1400], report[1400], api[1400];
	upper(v, V, sizeof V);
	json_t *runs = json_object_get(c, "runs");
	json_t *ra = json_object_get(runs, "baseline"), *rb = json_object_get(runs, "candidate");
	if (config)
		h(m, "<h2>Config %s: <span style=\"color:%s\">%s</span></h2>\n", config,
		  verdict_colour(v), V);
	else
		h(m, "<h2>Comparison %lld %s: <span style=\"color:%s\">%s</span></h2>\n", id,
		  str(c, "name"), verdict_colour(v), V);
	h(m,
	  "<p>Comparison %lld (%s, policy %s): baseline run %lld <b>%s</b>, candidate run "
	  "%lld <b>%s</b>.",
	  id, str(c, "kind"), str(json_object_get(c, "policy"), "name"), num(ra, "id"),
	  str(ra, "name"), num(rb, "id"), str(rb, "name"));
	if (*str(c, "baseline_name"))
		h(m, " Golden baseline %s.", str(c, "baseline_name"));
	h(m, "</p>\n");
	link_to(m, page, sizeof page, "/ui/comparisons/%lld", id);
	link_to(m, report, sizeof report, "/comparisons/%lld/report.html", id);
	link_to(m, api, sizeof api, "/comparisons/%lld", id);
	h(m,
	  "<p><a href=\"%s\">Comparison page</a> &middot; <a href=\"%s\">HTML report</a> "
	  "&middot; <a href=\"%s\">JSON</a></p>\n",
	  page, report, api);
	reasons(m, c);
	stats(m, c);
	if (!strcmp(str(c, "kind"), "training"))
		charts(m, c);
	meta(m, c);
	h(m, "<h3>Files</h3>\n<ul>\n");
	csv_file(m, c);
	log_files(m, "baseline", ra);
	log_files(m, "candidate", rb);
	h(m, "</ul>\n");
}

static void pdf(struct mail *m, int64_t comparison_id, const char *suite)
{
	struct buf doc = BUF_INIT;
	char err[256] = "";
	int rc = suite ? srv_render_suite_pdf(m->db, suite, &doc, err, sizeof err)
	               : srv_render_comparison_pdf(m->db, comparison_id, &doc, err, sizeof err);
	if (rc == 0)
		part(m, &m->attach, m->bmix, "application/pdf", "attachment", "report.pdf", NULL,
		     doc.data, doc.len);
	else
		h(m, "<p>The PDF report could not be rendered: %s</p>\n", err);
	buf_reset(&doc);
}

/* ---- the message ---------------------------------------------------------- */

static void random_hex(char *out, size_t bytes)
{
	unsigned char r[16] = {0};
	if (bytes > sizeof r)
		bytes = sizeof r;
	if (getrandom(r, bytes, GRND_NONBLOCK) != (ssize_t)bytes) {
		uint64_t t = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)out;
		memcpy(r, &t, sizeof t < bytes ? sizeof t : bytes);
	}
	for (size_t i = 0; i < bytes; i++)
		snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* A Message-ID as we make them: "<" [A-Za-z0-9.-]+ "@" [A-Za-z0-9.-]+ ">". */
static int message_id_ok(const char *s)
{
	size_t n = strlen(s);
	if (n < 5 || n > 300 || s[0] != '<' || s[n - 1] != '>' || !strchr(s, '@'))
		return 0;
	for (size_t i = 1; i + 1 < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-@",
		            s[i]))
			return 0;
	return 1;
}

/* Recipients from the payload, each validated again. 0 or 1 (err). */
static int recipients(json_t *to, char ***rcpt, size_t *n, char *err, size_t errcap)
{
	size_t i, k = json_array_size(to);
	json_t *a;
	*rcpt = NULL;
	*n = 0;
	if (k == 0 || k > SRV_MAIL_MAX_TO) {
		snprintf(err, errcap, "the delivery has no usable recipients");
		return 1;
	}
	if (!(*rcpt = calloc(k, sizeof **rcpt)))
		return -1;
	json_array_foreach(to, i, a)
	{
		if (!srv_mail_addr_valid(json_string_value(a))) {
			snprintf(err, errcap, "recipient %zu is not a valid address", i + 1);
			return 1;
		}
		if (!((*rcpt)[(*n)++] = strdup(json_string_value(a))))
			return -1;
	}
	return 0;
}

int srv_mail_build(struct srv *s, struct store *db, const struct store_delivery *d, struct buf *msg,
                   char ***rcpt, size_t *n_rcpt, char *err, size_t errcap)
{
	struct mail m = {.s = s, .db = db, .cfg = &s->cfg, .budget = s->cfg.mail_attach_max};
	json_t *p = json_loads(d->payload ? d->payload : "", 0, NULL), *c = NULL, *sdoc = NULL;
	struct store_suite_view sv;
	memset(&sv, 0, sizeof sv);
	char subject[600], V[16];
	int rc = 1;
	*rcpt = NULL;
	*n_rcpt = 0;
	if (!json_is_object(p)) {
		snprintf(err, errcap, "the delivery payload is not a JSON object");
		goto done;
	}
	if ((rc = recipients(json_object_get(p, "to"), rcpt, n_rcpt, err, errcap)) != 0)
		goto done;
	char rnd[33];
	random_hex(rnd, 8);
	snprintf(m.bmix, sizeof m.bmix, "=_parity_%s_mixed", rnd);
	snprintf(m.brel, sizeof m.brel, "=_parity_%s_related", rnd);
	snprintf(m.tag, sizeof m.tag, "%s", rnd);
	const char *suite = json_string_value(json_object_get(p, "suite"));
	int64_t cid = num(p, "comparison_id");
	h(&m, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head>\n"
	      "<body style=\"font-family:sans-serif\">\n");
	if (suite) {
		int src = store_suite_get(db, suite, &sv);
		if (src == STORE_NOT_FOUND) {
			snprintf(err, errcap, "suite %.100s no longer exists", suite);
			rc = 1;
			goto done;
		}
		if (src < 0 || !(sdoc = web_suite_json(suite, &sv))) {
			snprintf(err, errcap, "cannot read suite %.100s: %s", suite,
			         store_errmsg(db));
			rc = -1;
			goto done;
		}
		const char *v = str(sdoc, "verdict");
		json_t *configs = json_object_get(sdoc, "configs"), *e;
		size_t i;
		upper(v, V, sizeof V);
		snprintf(subject, sizeof subject, "[parity] %s: suite %s (%zu configs)", V, suite,
		         json_array_size(configs));
		char page[1400];
		snprintf(page, sizeof page, "%s/ui/suites/%s", s->cfg.public_url, suite);
		h(&m, "<h1>Suite %s: <span style=\"color:%s\">%s</span></h1>\n", suite,
		  verdict_colour(v), V);
		h(&m,
		  "<p><a href=\"%s\">Suite page</a></p>\n<table border=\"1\" "
		  "cellpadding=\"4\" style=\"border-collapse:collapse\">\n<tr><th>config</th>"
		  "<th>comparison</th><th>verdict</th></tr>\n",
		  page);
		json_array_foreach(configs, i, e)
		{
			json_t *ce = json_object_get(e, "comparison");
			const char *cv = verdict_of(ce);
			h(&m, "<tr><td>%s</td><td>%lld</td><td style=\"color:%s\">%s</td></tr>\n",
			  str(e, "config"), num(ce, "id"), verdict_colour(cv), cv);
		}
		h(&m, "</table>\n");
		pdf(&m, 0, suite);
		if (json_array_size(configs) > MAX_SECTIONS)
			h(&m,
			  "<p>Sections follow for the first %d configs; the suite page has them "
			  "all.</p>\n",
			  MAX_SECTIONS);
		json_array_foreach(configs, i, e)
		{
			if (i == MAX_SECTIONS)
				break;
			json_t *one = srv_comparison_doc(
			        db, num(json_object_get(e, "comparison"), "id"), NULL);
			if (one)
				section(&m, one, str(e, "config"));
			json_decref(one);
		}
	} else {
		int drc = 0;
		c = srv_comparison_doc(db, cid, &drc);
		if (!c) {
			snprintf(err, errcap, "comparison %lld %s", (long long)cid,
			         drc == STORE_NOT_FOUND ? "no longer exists" : "cannot be read");
			rc = drc == STORE_NOT_FOUND ? 1 : -1;
			goto done;
		}
		const char *v = verdict_of(c);
		upper(v, V, sizeof V);
		json_t *runs = json_object_get(c, "runs");
		if (*str(c, "name"))
			snprintf(subject, sizeof subject, "[parity] %s: comparison %lld %s", V,
			         (long long)cid, str(c, "name"));
		else
			snprintf(subject, sizeof subject, "[parity] %s: comparison %lld, %s vs %s",
			         V, (long long)cid, str(json_object_get(runs, "candidate"), "name"),
			         str(json_object_get(runs, "baseline"), "name"));
		pdf(&m, cid, NULL);
		section(&m, c, NULL);
	}
	h(&m,
	  "<p style=\"color:#6e7781\">Sent by parity for webhook %lld, delivery %lld.</p>\n"
	  "</body></html>\n",
	  (long long)d->webhook_id, (long long)d->id);

	/* headers */
	const char *mid = str(p, "message_id");
	char fallback[128];
	if (!message_id_ok(mid)) {
		snprintf(fallback, sizeof fallback, "<parity.%lld.%s@parity.invalid>",
		         (long long)d->id, rnd);
		mid = fallback;
	}
	int bad = srv_mail_date(msg, (int64_t)time(NULL)) < 0;
	bad |= buf_printf(msg, "From: %s\r\nTo: ", s->cfg.mail_from) < 0;
	for (size_t i = 0; i < *n_rcpt; i++)
		bad |= buf_printf(msg, "%s%s", (*rcpt)[i], i + 1 < *n_rcpt ? ",\r\n " : "\r\n") < 0;
	bad |= srv_mail_header(msg, "Subject", subject) < 0;
	bad |= buf_printf(
	               msg,
	               "Message-ID: %s\r\nMIME-Version: 1.0\r\nAuto-Submitted: auto-generated\r\n"
	               "X-Parity-Event: %s\r\nX-Parity-Delivery: %lld\r\n"
	               "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n"
	               "This is a MIME message.\r\n--%s\r\n"
	               "Content-Type: multipart/related; boundary=\"%s\"; type=\"text/html\"\r\n"
	               "\r\n",
	               mid, suite ? SRV_EVENT_SUITE_COMPLETED : SRV_EVENT_COMPLETED,
	               (long long)d->id, m.bmix, m.bmix, m.brel) < 0;
	part(&m, msg, m.brel, "text/html; charset=utf-8", NULL, NULL, NULL, m.html.data,
	     m.html.len);
	bad |= buf_append(msg, m.related.data ? m.related.data : "", m.related.len) < 0;
	bad |= buf_printf(msg, "--%s--\r\n", m.brel) < 0;
	bad |= buf_append(msg, m.attach.data ? m.attach.data : "", m.attach.len) < 0;
	bad |= buf_printf(msg, "--%s--\r\n", m.bmix) < 0;
	if (bad || m.oom) {
		snprintf(err, errcap, "out of memory building the message");
		rc = -1;
		goto done;
	}
	rc = 0;
done:
	if (rc != 0) {
		srv_mail_rcpt_free(*rcpt, *n_rcpt);
		*rcpt = NULL;
		*n_rcpt = 0;
	}
	json_decref(p);
	json_decref(c);
	json_decref(sdoc);
	store_suite_view_free(&sv);
	buf_reset(&m.html);
	buf_reset(&m.related);
	buf_reset(&m.attach);
	return rc;
}
