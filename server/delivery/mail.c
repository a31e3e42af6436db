/* mail.c - composing the email of an email-format delivery (see delivery.h):
 * the HTML body of one comparison or of a whole suite (one section per
 * config: verdict, reasons, statistics, run metadata, charts, links), the
 * charts as cid: images, the PDF report and, within cfg.mail_attach_max,
 * the CSV and the raw logs as attachments (else linked).
 *
 * The body is rendered from the typed comparison (store_comparison_get:
 * its act / train result) and suite (store_suite_get) and written through
 * web_printf, so every value from a user is HTML-escaped (log text
 * UTF-8-repaired as the API documents give it, web_utf8); only the
 * delivery payload is JSON.  Header text goes through srv_mail_header.  Memory: the message is
 * built in memory; attachments beyond the PDF and the charts are bounded by mail_attach_max (the
 * CSV is read in pages and dropped once it would not fit). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "json_views.h"
#include "store.h"
#include "web.h"
#include "delivery.h"
#include "http.h"
#include "views.h"

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
	struct buf u8[2]; /* web_utf8 scratch */
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

/* "pass" / "fail" / "error" / "pending" of a comparison. */
static const char *verdict_of(const struct store_comparison *c)
{
	const char *v = c->verdict ? c->verdict : "", *st = c->status;
	if (!strcmp(st, "failed"))
		return "error";
	return *v ? v : (*st ? st : "error");
}

/* Text from a log or a user as the documents give it (UTF-8-repaired;
 * "" for NULL), in scratch k (0 or 1) until its next use. */
static const char *txt(struct mail *m, int k, const char *s)
{
	const char *t = s ? web_utf8(&m->u8[k], s) : "";
	m->oom |= s && !t;
	return t ? t : "";
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

static void reasons(struct mail *m, const struct store_comparison *c)
{
	size_t n = c->act ? c->act->n_reasons : c->train ? c->train->n_reasons : 0;
	if (!n) {
		if (c->error)
			h(m, "<p><b>Error:</b> %s</p>\n", txt(m, 0, c->error));
		return;
	}
	h(m, "<h3>Why</h3>\n<ul>\n");
	for (size_t i = 0; i < n; i++) {
		if (i == MAX_REASONS) {
			h(m, "<li>... %zu more</li>\n", n - i);
			break;
		}
		h(m, "<li>%s</li>\n",
		  txt(m, 0, c->act ? c->act->reasons[i].message : c->train->reasons[i].message));
	}
	h(m, "</ul>\n");
}

/* A statistic as the result document gives it: NaN / Inf / -Inf, or the
 * number. */
static void cell_num(struct mail *m, double v)
{
	if (isnan(v))
		h(m, "<td>NaN</td>");
	else if (isinf(v))
		h(m, "<td>%s</td>", v < 0 ? "-Inf" : "Inf");
	else
		h(m, "<td>%.6g</td>", v);
}

/* An activation result's per-rank sums, in the order of the document's
 * "summary" (its integer members; max_hash_row, a sum of the ranks that
 * have one, sits where the first rank puts it). */
static void act_summary(struct mail *m, const struct store_act_result *r)
{
	int64_t rows = 0, st[MATCHER_N_STATUS] = {0}, origins = 0, prop = 0, tol = 0, mhr = 0;
	int has_mhr = 0;
	if (!r->n_ranks)
		return;
	for (size_t i = 0; i < r->n_ranks; i++) {
		const struct store_act_rank *k = &r->ranks[i];
		rows += k->n_rows;
		for (int j = 0; j < MATCHER_N_STATUS; j++)
			st[j] += k->n_status[j];
		origins += k->n_origin;
		prop += k->n_propagated;
		tol += k->n_tolerated;
		if (k->max_hash_row >= 0) {
			mhr += k->max_hash_row;
			has_mhr = 1;
		}
	}
	h(m, "<h3>Summary</h3>\n<table border=\"1\" cellpadding=\"4\" "
	     "style=\"border-collapse:collapse\">\n");
	static const char row[] = "<tr><th align=\"left\">%s</th><td>%lld</td></tr>\n";
	h(m, row, "rows", (long long)rows);
	for (int j = 0; j < MATCHER_N_STATUS; j++)
		h(m, row, matcher_status_name((enum matcher_status)j), (long long)st[j]);
	h(m, row, "origins", (long long)origins);
	h(m, row, "propagated", (long long)prop);
	int first = r->ranks[0].max_hash_row >= 0;
	if (has_mhr && first)
		h(m, row, "max_hash_row", (long long)mhr);
	h(m, row, "tolerated", (long long)tol);
	if (has_mhr && !first)
		h(m, row, "max_hash_row", (long long)mhr);
	h(m, "</table>\n");
}

/* Training: one row per metric; activation: the summary counts. */
static void stats(struct mail *m, const struct store_comparison *c)
{
	const struct store_train_result *r = c->train;
	if (r && r->n_metrics) {
		h(m, "<h3>Statistics</h3>\n<table border=\"1\" cellpadding=\"4\" "
		     "style=\"border-collapse:collapse\">\n<tr><th>metric</th><th>max "
		     "|diff|</th><th>mean |diff|</th><th>max rel</th><th>steps over</th><th>"
		     "</th></tr>\n");
		for (size_t i = 0; i < r->n_metrics; i++) {
			const struct matcher_train_metric_result *x = &r->metrics[i];
			h(m, "<tr><td>%s</td><td>%s</td>", x->name, x->max_abs_text);
			cell_num(m, x->mean_abs);
			cell_num(m, x->max_rel);
			h(m, "<td>%lld of %lld</td><td>%s</td></tr>\n", (long long)x->n_over,
			  (long long)x->n_compared, x->pass && !x->not_logged ? "ok" : "over");
		}
		h(m, "</table>\n");
		h(m,
		  "<p>%lld common steps, %lld only in the baseline, %lld only in the "
		  "candidate.</p>\n",
		  (long long)r->n_common, (long long)r->n_only[0], (long long)r->n_only[1]);
		return;
	}
	if (c->act)
		act_summary(m, c->act);
}

static void meta_row(struct mail *m, const struct web_meta_pair *r)
{
	char ta[META_VALUE_MAX + 1], tb[META_VALUE_MAX + 1];
	snprintf(ta, sizeof ta, "%s", r->a ? r->a : "-");
	snprintf(tb, sizeof tb, "%s", r->b ? r->b : "-");
	if (r->differs)
		h(m,
		  "<tr style=\"background:#fff8c5\"><th align=\"left\">%s</th><td>%s</td>"
		  "<td>%s</td></tr>\n",
		  r->key, ta, tb);
	else
		h(m, "<tr><th align=\"left\">%s</th><td>%s</td><td>%s</td></tr>\n", r->key, ta, tb);
}

static void meta(struct mail *m, const struct store_comparison *c)
{
	struct web_meta_pairs mp;
	if (web_meta_pairs_build(c->baseline ? c->baseline->meta_json : NULL,
	                         c->candidate ? c->candidate->meta_json : NULL, &mp) < 0) {
		m->oom = 1;
		return;
	}
	if (mp.n) {
		h(m, "<h3>Run metadata</h3>\n<table border=\"1\" cellpadding=\"4\" "
		     "style=\"border-collapse:collapse\">\n<tr><th></th><th>baseline</th>"
		     "<th>candidate</th></tr>\n");
		for (size_t i = 0; i < mp.n && i < MAX_META_ROWS; i++)
			meta_row(m, &mp.rows[i]);
		if (mp.n > MAX_META_ROWS)
			h(m, "<tr><td colspan=\"3\">... %zu more keys</td></tr>\n",
			  mp.n - MAX_META_ROWS);
		h(m, "</table>\n");
	}
	web_meta_pairs_free(&mp);
}

/* Charts of a training comparison: per metric the values and the
 * differences, as cid: images.  A chart that does not render is left out
 * with a note. */
static void charts(struct mail *m, const struct store_comparison *c)
{
	int n = 0, opened = 0;
	long long id = (long long)c->id;
	for (size_t i = 0; c->train && i < c->train->n_metrics; i++) {
		const char *k = c->train->metrics[i].name;
		if (c->train->metrics[i].not_logged)
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

static void csv_file(struct mail *m, const struct store_comparison *c)
{
	long long id = (long long)c->id;
	int training = !strcmp(c->kind, "training");
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
/* The raw logs of one run: attached while the budget lasts, else linked. */
static void log_files(struct mail *m, const char *side, const struct store_run *run)
{
	long long run_id = run ? (long long)run->id : 0;
	for (int n = 0; n < MAX_LOGS_PER_RUN; n++) {
		char sha[65], fname[96], href[1400];
		if (store_log_find(m->db, run_id, n, NULL, sha, NULL, NULL, 0) < 0)
			break;
		struct buf data = BUF_INIT;
		int gz;
		int rc = store_rawlog_get(m->s->raw, m->db, sha, m->budget, &data, &gz);
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
static void section(struct mail *m, const struct store_comparison *c, const char *config)
{
	long long id = (long long)c->id;
	const char *v = verdict_of(c);
	char V[16], page[1400], report[1400], api[1400], policy[64];
	upper(v, V, sizeof V);
	const struct store_run *ra = c->baseline, *rb = c->candidate;
	char vl[64];
	web_verdict_lane(V, c->lane, vl, sizeof vl); /* issue 26: "PASS (within noise)" */
	if (config)
		h(m, "<h2>Config %s: <span style=\"color:%s\">%s</span></h2>\n", config,
		  verdict_colour(v), vl);
	else
		h(m, "<h2>Comparison %lld %s: <span style=\"color:%s\">%s</span></h2>\n", id,
		  txt(m, 0, c->name), verdict_colour(v), vl);
	web_stored_policy_name(c->policy_json, policy, sizeof policy);
	h(m,
	  "<p>Comparison %lld (%s, policy %s): baseline run %lld <b>%s</b>, candidate run "
	  "%lld <b>%s</b>.",
	  id, c->kind, policy, ra ? (long long)ra->id : 0, txt(m, 0, ra ? ra->name : NULL),
	  rb ? (long long)rb->id : 0, txt(m, 1, rb ? rb->name : NULL));
	if (c->baseline_name && *c->baseline_name)
		h(m, " Golden baseline %s.", txt(m, 0, c->baseline_name));
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
	if (!strcmp(c->kind, "training"))
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
	json_t *p = json_loads(d->payload ? d->payload : "", 0, NULL);
	struct store_suite_view sv;
	struct store_comparison_view cv;
	memset(&sv, 0, sizeof sv);
	memset(&cv, 0, sizeof cv);
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
		if (src < 0) {
			snprintf(err, errcap, "cannot read suite %.100s: %s", suite,
			         store_errmsg(db));
			rc = -1;
			goto done;
		}
		const char *v = web_suite_verdict(&sv);
		upper(v, V, sizeof V);
		snprintf(subject, sizeof subject, "[parity] %s: suite %s (%zu configs)", V, suite,
		         sv.n_latest);
		char page[1400];
		snprintf(page, sizeof page, "%s/ui/suites/%s", s->cfg.public_url, suite);
		h(&m, "<h1>Suite %s: <span style=\"color:%s\">%s</span></h1>\n", suite,
		  verdict_colour(v), V);
		if (web_suite_lane(&sv))
			h(&m, "<p>Worst lane: <b>%s</b></p>\n", web_lane_text(web_suite_lane(&sv)));
		h(&m,
		  "<p><a href=\"%s\">Suite page</a></p>\n<table border=\"1\" "
		  "cellpadding=\"4\" style=\"border-collapse:collapse\">\n<tr><th>config</th>"
		  "<th>comparison</th><th>verdict</th></tr>\n",
		  page);
		for (size_t i = 0; i < sv.n_latest; i++) {
			const struct store_comparison *ce = &sv.latest[i];
			const char *cvd = verdict_of(ce);
			char vl[64];
			h(&m, "<tr><td>%s</td><td>%lld</td><td style=\"color:%s\">%s</td></tr>\n",
			  txt(&m, 0, ce->config), (long long)ce->id, verdict_colour(cvd),
			  web_verdict_lane(cvd, ce->lane, vl, sizeof vl));
		}
		h(&m, "</table>\n");
		pdf(&m, 0, suite);
		if (sv.n_latest > MAX_SECTIONS)
			h(&m,
			  "<p>Sections follow for the first %d configs; the suite page has them "
			  "all.</p>\n",
			  MAX_SECTIONS);
		for (size_t i = 0; i < sv.n_latest && i < MAX_SECTIONS; i++) {
			struct store_comparison_view one;
			char config[STORE_LABEL_MAX + 1];
			snprintf(config, sizeof config, "%s", txt(&m, 0, sv.latest[i].config));
			if (store_comparison_get(db, sv.latest[i].id, &one) == 0)
				section(&m, &one.cmp, config);
			store_comparison_view_free(&one);
		}
	} else {
		int drc = store_comparison_get(db, cid, &cv);
		if (drc < 0) {
			snprintf(err, errcap, "comparison %lld %s", (long long)cid,
			         drc == STORE_NOT_FOUND ? "no longer exists" : "cannot be read");
			rc = drc == STORE_NOT_FOUND ? 1 : -1;
			goto done;
		}
		const struct store_comparison *c = &cv.cmp;
		const char *v = verdict_of(c);
		upper(v, V, sizeof V);
		if (c->name && *c->name)
			snprintf(subject, sizeof subject, "[parity] %s: comparison %lld %s", V,
			         (long long)cid, txt(&m, 0, c->name));
		else
			snprintf(subject, sizeof subject, "[parity] %s: comparison %lld, %s vs %s",
			         V, (long long)cid,
			         txt(&m, 0, c->candidate ? c->candidate->name : NULL),
			         txt(&m, 1, c->baseline ? c->baseline->name : NULL));
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
	store_comparison_view_free(&cv);
	store_suite_view_free(&sv);
	buf_reset(&m.u8[0]);
	buf_reset(&m.u8[1]);
	buf_reset(&m.html);
	buf_reset(&m.related);
	buf_reset(&m.attach);
	return rc;
}
