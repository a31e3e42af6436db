/* meta.c - a run's meta as the upload form writes it (key=value lines),
 * turned into the JSON object text the API takes (contract in ingest.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingest.h"

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
