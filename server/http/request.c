/* request.c - what a handler reads of its request besides the path: query
 * parameters and headers, from libmicrohttpd or, for a request driven
 * without it (struct srv_capture, handler tests), from the capture's
 * lists; and the capture's own accessors. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http.h"

static const char *capture_lookup(const char *const *list, const char *name, int icase)
{
	for (size_t i = 0; list && list[i]; i += 2)
		if (icase ? !strcasecmp(list[i], name) : !strcmp(list[i], name))
			return list[i + 1];
	return NULL;
}

const char *srv_header(struct srv_req *r, const char *name)
{
	if (r->capture)
		return capture_lookup(r->capture->request_headers, name, 1);
	return r->conn ? MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, name) : NULL;
}

const char *srv_query(struct srv_req *r, const char *name)
{
	if (r->capture)
		return capture_lookup(r->capture->query, name, 0);
	return MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);
}

json_t *srv_multipart_end(struct MHD_PostProcessor *pp)
{
	/* libmicrohttpd: MHD_NO when it did not end in its final state */
	if (!pp || MHD_destroy_post_processor(pp) == MHD_YES)
		return NULL;
	return srv_error_json("bad_multipart", 0,
	                      "the multipart body ends without its closing boundary "
	                      "(--BOUNDARY--): nothing was stored");
}

const char *srv_capture_header(const struct srv_capture *c, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = c->headers.data; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (!strncasecmp(p, name, n) && p[n] == ':' && p[n + 1] == ' ') {
			static __thread char value[1024];
			size_t len = (size_t)((nl ? nl : p + strlen(p)) - (p + n + 2));
			snprintf(value, sizeof value, "%.*s", (int)len, p + n + 2);
			return value;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	return NULL;
}

void srv_capture_reset(struct srv_capture *c)
{
	buf_reset(&c->body);
	buf_reset(&c->headers);
	c->status = 0;
}
