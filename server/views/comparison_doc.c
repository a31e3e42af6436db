/* comparison_doc.c - the comparison document (GET /comparisons/{id}): read
 * from the store, serialized by web/, with its URLs; and the same document
 * as a shared reply for the long-poll waiters of the jobs room. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_views.h"
#include "store.h"
#include "views.h"

void srv_comparison_add_urls(struct srv *s, json_t *c)
{
	json_int_t id = json_integer_value(json_object_get(c, "id"));
	const char *base = s->cfg.public_url;
	char u[1300];
	json_t *urls = json_object();
	snprintf(u, sizeof u, "%s/comparisons/%lld", base, (long long)id);
	json_object_set_new(urls, "self", json_string(u));
	snprintf(u, sizeof u, "%s/ui/comparisons/%lld", base, (long long)id);
	json_object_set_new(urls, "ui", json_string(u));
	snprintf(u, sizeof u, "%s/comparisons/%lld/report.html", base, (long long)id);
	json_object_set_new(urls, "report", json_string(u));
	snprintf(u, sizeof u, "%s/comparisons/%lld/rows", base, (long long)id);
	json_object_set_new(urls, "rows", json_string(u));
	json_object_set_new(c, "urls", urls);
}

static int finished(json_t *c)
{
	const char *st = json_string_value(json_object_get(c, "status"));
	return st && (!strcmp(st, "done") || !strcmp(st, "failed"));
}

json_t *srv_comparison_doc(struct store *db, int64_t id, int *rc)
{
	struct store_comparison_view v;
	int code = store_comparison_get(db, id, &v);
	json_t *c = code < 0 ? NULL : web_comparison_json(&v.cmp, 1);
	store_comparison_view_free(&v);
	if (!c && code == 0)
		code = STORE_ERROR;
	if (rc)
		*rc = code;
	return c;
}

struct srv_shared_reply *srv_comparison_reply(struct srv *s, struct store *db, int64_t id)
{
	json_t *c = srv_comparison_doc(db, id, NULL);
	unsigned status = 200;
	int final = 0;
	if (c) {
		final = finished(c);
		srv_comparison_add_urls(s, c);
	} else {
		status = 404;
		c = srv_error_json("not_found", 0, "no comparison %lld", (long long)id);
	}
	char *text = json_dumps(c, JSON_COMPACT);
	json_decref(c);
	if (!text)
		return NULL;
	size_t n = strlen(text);
	struct srv_shared_reply *sr = NULL;
	char *line = realloc(text, n + 2);
	if (line) {
		line[n] = '\n';
		sr = srv_shared_reply_new(status, final, line, n + 1);
		text = line;
	}
	free(text);
	return sr;
}
