/* forms.c - form posts answered for a browser, the list pages and the
 * delete confirmations (contract in forms.h). */
#include "forms.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "srv.h"
#include "store.h"
#include "web.h"

#define LIST_PAGE 50

int srv_form_wants_html(struct srv_req *r)
{
	if (!r || !r->conn || strcmp(r->method, "POST"))
		return 0;
	const char *h = srv_query(r, "html");
	if (h && !strcmp(h, "1"))
		return 1;
	const char *accept = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "Accept");
	return accept && !strncasecmp(accept, "text/html", 9);
}

int srv_form_see_other(struct srv_req *r, const char *location)
{
	struct buf b = BUF_INIT;
	web_printf(&b, "<!doctype html><title>See Other</title><a href=\"%s\">%s</a>\n", location,
	           location);
	const char *const hdrs[] = {"Location", location, NULL};
	return srv_reply_buf_headers(r, 303, "text/html; charset=utf-8", &b, hdrs);
}

/* Where "Back" goes from a refused post. */
static const char *back_of(struct srv_req *r)
{
	if (!strncmp(r->url, "/runs", 5))
		return "/ui/runs#upload";
	if (!strncmp(r->url, "/comparisons", 12))
		return "/ui/comparisons#compare";
	if (!strncmp(r->url, "/ui/runs", 8))
		return "/ui/runs";
	if (!strncmp(r->url, "/ui/comparisons", 15))
		return "/ui/comparisons";
	return "/";
}

static int html_reply(struct srv_req *r, unsigned status, struct buf *b)
{
	const char *const hdrs[] = {"Referrer-Policy", "same-origin", "Content-Security-Policy",
	                            web_csp_page, NULL};
	return srv_reply_buf_headers(r, status, "text/html; charset=utf-8", b, hdrs);
}

int srv_form_error_page(struct srv_req *r, unsigned status, json_t *err)
{
	json_t *e = json_object_get(err, "error");
	struct buf b = BUF_INIT;
	int rc = web_form_error(&b, status, json_string_value(json_object_get(e, "code")),
	                        json_string_value(json_object_get(e, "message")), back_of(r));
	json_decref(err);
	if (rc < 0) {
		buf_reset(&b);
		buf_puts(&b, "error\n");
	}
	return html_reply(r, status, &b);
}

void srv_form_drop_empty(json_t *obj)
{
	const char *key;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(obj, tmp, key, v)
	{
		if (json_is_string(v) && json_string_length(v) == 0)
			json_object_del(obj, key);
	}
}

/* s[0,n) without leading and trailing blanks. */
static void trim(const char **s, size_t *n)
{
	while (*n && isspace((unsigned char)**s))
		(*s)++, (*n)--;
	while (*n && isspace((unsigned char)(*s)[*n - 1]))
		(*n)--;
}

int srv_meta_from_lines(struct buf *meta, char *msg, size_t cap)
{
	const char *p = meta->data ? meta->data : "", *end = p + meta->len;
	const char *q = p;
	while (q < end && isspace((unsigned char)*q))
		q++;
	if (q == end || *q == '{')
		return 0; /* empty, or JSON: validated as JSON by the caller */
	json_t *o = json_object();
	if (!o) {
		snprintf(msg, cap, "out of memory");
		return -1;
	}
	unsigned long line = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		const char *s = p;
		line++;
		p = nl ? nl + 1 : end;
		trim(&s, &n);
		if (!n)
			continue;
		const char *eq = memchr(s, '=', n), *colon = memchr(s, ':', n);
		const char *sep = eq && (!colon || eq < colon) ? eq : colon;
		const char *k = s, *v = sep ? sep + 1 : NULL;
		size_t kn = sep ? (size_t)(sep - s) : 0, vn = sep ? n - kn - 1 : 0;
		if (sep) {
			trim(&k, &kn);
			trim(&v, &vn);
		}
		if (!sep || !kn) {
			snprintf(msg, cap,
			         "meta line %lu: expected key=value (one a line) or a JSON object",
			         line);
			json_decref(o);
			return -1;
		}
		char key[256];
		snprintf(key, sizeof key, "%.*s", (int)(kn < 255 ? kn : 255), k);
		json_t *js = json_stringn(v, vn);
		if (!js) {
			snprintf(msg, cap, "meta line %lu: not UTF-8 text", line);
			json_decref(o);
			return -1;
		}
		json_object_set_new(o, key, js);
	}
	char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text) {
		snprintf(msg, cap, "out of memory");
		return -1;
	}
	buf_clear(meta);
	int bad = buf_puts(meta, text);
	free(text);
	if (bad) {
		snprintf(msg, cap, "out of memory");
		return -1;
	}
	return 0;
}

/* ---- list pages ------------------------------------------------------------ */

static const char *qs(struct srv_req *r, const char *name)
{
	const char *v = srv_query(r, name);
	return v && *v ? v : NULL;
}

/* the store's refusal of a filter or cursor, as a page */
static int list_error(struct srv_req *r, struct store *db, int rc)
{
	struct buf b = BUF_INIT;
	unsigned status = rc == STORE_BAD_CURSOR || rc == STORE_INVALID ? 400 : 500;
	web_form_error(&b, status, status == 400 ? "bad_parameter" : "database", store_errmsg(db),
	               back_of(r));
	return html_reply(r, status, &b);
}

int srv_ui_runs(struct srv_req *r)
{
	struct web_list_query q = {qs(r, "q"), qs(r, "kind"), NULL, NULL, 0, 0};
	struct store_list_filter f = {q.q, q.kind, NULL, NULL, 0};
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_page page;
	struct buf b = BUF_INIT;
	int rc = store_runs_find(db, &f, LIST_PAGE, qs(r, "cursor"), &page);
	if (rc >= 0 && web_runs_list(&b, &page, &q) < 0)
		rc = STORE_ERROR;
	store_run_page_free(&page);
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return html_reply(r, 200, &b);
}

int srv_ui_comparisons(struct srv_req *r)
{
	struct web_list_query q = {qs(r, "q"), qs(r, "kind"), qs(r, "verdict"), qs(r, "status"), 0,
	                           0};
	const char *pre_b = qs(r, "baseline"), *pre_c = qs(r, "candidate");
	q.baseline = pre_b ? atoll(pre_b) : 0; /* only preselects: any value is harmless */
	q.candidate = pre_c ? atoll(pre_c) : 0;
	struct store_list_filter f = {q.q, q.kind, q.verdict, q.status, 0};
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_comparison_page page;
	struct store_run_page runs;
	struct buf b = BUF_INIT;
	memset(&runs, 0, sizeof runs);
	int rc = store_comparisons_find(db, &f, LIST_PAGE, qs(r, "cursor"), &page);
	if (rc >= 0)
		rc = store_runs_list(db, NULL, NULL, 200, NULL, &runs);
	if (rc >= 0 && web_comparisons_list(&b, &page, &q, &runs) < 0)
		rc = STORE_ERROR;
	store_comparison_page_free(&page);
	store_run_page_free(&runs);
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return html_reply(r, 200, &b);
}

/* ---- deletes ---------------------------------------------------------------- */

int srv_ui_run_delete_page(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_run_view v;
	struct store_comparison_page using;
	struct store_list_filter f = {NULL, NULL, NULL, NULL, r->id};
	struct buf b = BUF_INIT;
	memset(&using, 0, sizeof using);
	int rc = store_run_get(db, r->id, &v);
	if (rc >= 0)
		rc = store_comparisons_find(db, &f, 200, NULL, &using);
	if (rc >= 0 && web_delete_confirm(&b, "run", (long long)r->id, v.run.name, &using) < 0)
		rc = STORE_ERROR;
	store_run_view_free(&v);
	store_comparison_page_free(&using);
	if (rc == STORE_NOT_FOUND) {
		web_form_error(&b, 404, "not_found", "No such run.", "/ui/runs");
		return html_reply(r, 404, &b);
	}
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return html_reply(r, 200, &b);
}

int srv_ui_comparison_delete_page(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_comparison_view v;
	struct buf b = BUF_INIT;
	int rc = store_comparison_get(db, r->id, &v);
	if (rc >= 0 && web_delete_confirm(&b, "comparison", (long long)r->id, v.cmp.name, NULL) < 0)
		rc = STORE_ERROR;
	store_comparison_view_free(&v);
	if (rc == STORE_NOT_FOUND) {
		web_form_error(&b, 404, "not_found", "No such comparison.", "/ui/comparisons");
		return html_reply(r, 404, &b);
	}
	if (rc < 0) {
		buf_reset(&b);
		return list_error(r, db, rc);
	}
	return html_reply(r, 200, &b);
}

/* The API's delete handlers answer through srv_reply_deleted, which sees a
 * form post and answers 303 to the list (http.c). */
int srv_ui_run_delete_post(struct srv_req *r)
{
	return srv_h_run_delete(r);
}

int srv_ui_comparison_delete_post(struct srv_req *r)
{
	return srv_h_comparison_delete(r);
}
