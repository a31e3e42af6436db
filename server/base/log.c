/* log.c - the daemon's log lines (stderr, UTC timestamp), the JSON error
 * object every room replies with, and URL redaction for messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "base.h"
#include "buf.h"
#include "store.h"

void srv_log(const char *fmt, ...)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
	va_list ap;
	va_start(ap, fmt);
	char line[2048];
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s %s\n", ts, line);
}

static void rawlog_log(void *ctx, const char *msg)
{
	(void)ctx;
	srv_log("%s", msg);
}

struct store_rawlog *srv_rawlog_new(const char *data_dir)
{
	return store_rawlog_new(data_dir, rawlog_log, NULL);
}

char *srv_utf8_repair(const char *s, char *out, size_t cap)
{
	struct buf b = BUF_INIT;
	size_t o = 0;
	if (buf_append_utf8(&b, s, strlen(s)) == 0 && b.len) {
		o = b.len < cap ? b.len : cap - 1;
		while (o && o < b.len && ((unsigned char)b.data[o] & 0xc0) == 0x80)
			o--; /* cut on a character boundary */
		memcpy(out, b.data, o);
	}
	out[o] = 0;
	buf_reset(&b);
	return out;
}

json_t *srv_error_json(const char *code, unsigned long line, const char *fmt, ...)
{
	char msg[1024], utf8[3 * sizeof msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_t *err = json_object();
	json_object_set_new(err, "code", json_string(code));
	/* a message may quote input that is not UTF-8: keep its text */
	json_object_set_new(err, "message", json_string(srv_utf8_repair(msg, utf8, sizeof utf8)));
	if (line)
		json_object_set_new(err, "line", json_integer((json_int_t)line));
	json_t *root = json_object();
	json_object_set_new(root, "error", err);
	return root;
}

void srv_url_redact(const char *url, char *out, size_t cap)
{
	const char *scheme = strstr(url, "://");
	const char *at = scheme ? strchr(scheme + 3, '@') : NULL;
	const char *colon = at ? memchr(scheme + 3, ':', (size_t)(at - scheme - 3)) : NULL;
	if (colon)
		snprintf(out, cap, "%.*s:PASSWORD%s", (int)(colon - url), url, at);
	else
		snprintf(out, cap, "%s", url);
	/* a password in the query: ...?password=x&... */
	char *p = strstr(out, "password=");
	if (p && p > out && (p[-1] == '?' || p[-1] == '&')) {
		char *end = p + strlen("password="), *amp = strchr(end, '&');
		char tail[4200];
		snprintf(tail, sizeof tail, "%s", amp ? amp : "");
		snprintf(end, cap - (size_t)(end - out), "PASSWORD%s", tail);
	}
}
