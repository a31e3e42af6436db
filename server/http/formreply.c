/* formreply.c - how a write that came from an HTML form is answered (the
 * contract is in http.h, "formreply.c"): a 303 to the new resource's page
 * on success, an HTML page with the message and a link back on error. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "web.h"
#include "http.h"

int srv_form_wants_html(struct srv_req *r)
{
	if (!r || (!r->conn && !r->capture) || strcmp(r->method, "POST"))
		return 0;
	const char *h = srv_query(r, "html");
	if (h && !strcmp(h, "1"))
		return 1;
	const char *accept = srv_header(r, "Accept");
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
const char *srv_form_back(struct srv_req *r)
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

int srv_reply_html(struct srv_req *r, unsigned status, struct buf *b)
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
	                        json_string_value(json_object_get(e, "message")), srv_form_back(r));
	json_decref(err);
	if (rc < 0) {
		buf_reset(&b);
		buf_puts(&b, "error\n");
	}
	return srv_reply_html(r, status, &b);
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
