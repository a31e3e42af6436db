/* test_http_reply.c - the http room alone (links parity_srv_http only):
 * replies, errors, form posts, query parameters, route lookup and streamed
 * bodies, each driven without libmicrohttpd through srvtest.h. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http.h"
#include "srvtest.h"

static int h_not_found(struct srv_req *r)
{
	return srv_reply_error(r, 404, "not_found", "no thing %s", "<script>x</script>");
}

static int h_limit(struct srv_req *r)
{
	long long v;
	if (srv_query_int_or_reply(r, "limit", 1, 1000, 50, &v) < 0)
		return MHD_YES;
	json_t *o = json_object();
	json_object_set_new(o, "limit", json_integer(v));
	return srv_reply_json(r, 200, o);
}

static int h_echo_header(struct srv_req *r)
{
	json_t *o = json_object();
	const char *v = srv_header(r, "x-thing");
	json_object_set_new(o, "thing", v ? json_string(v) : json_null());
	return srv_reply_json(r, 200, o);
}

static int h_created(struct srv_req *r)
{
	json_t *o = json_pack("{s:i,s:{s:s}}", "id", 7, "urls", "ui", "/ui/runs/7");
	return srv_reply_json_at(r, 201, o, "/runs/7");
}

static int h_deleted(struct srv_req *r)
{
	return srv_reply_deleted(r);
}

static int h_405(struct srv_req *r)
{
	return srv_reply_error(r, 405, "method_not_allowed", "no");
}

/* a streamed body of three chunks: "ab", "cd", "e" */
struct chunks {
	int next;
	int freed;
};
static ssize_t chunk_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct chunks *c = cls;
	static const char *const parts[] = {"ab", "cd", "e"};
	(void)pos;
	if (c->next == 3)
		return MHD_CONTENT_READER_END_OF_STREAM;
	size_t n = strlen(parts[c->next]);
	if (n > max)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	memcpy(out, parts[c->next++], n);
	return (ssize_t)n;
}
static void chunk_free(void *cls)
{
	((struct chunks *)cls)->freed = 1;
}
static struct chunks the_chunks;
static int h_stream(struct srv_req *r)
{
	const char *const hdrs[] = {"Content-Disposition", "attachment", NULL};
	return srv_reply_stream(r, 200, MHD_SIZE_UNKNOWN, chunk_read, &the_chunks, chunk_free,
	                        "text/plain", hdrs);
}

static const struct srv_route test_routes[] = {
        {"GET", "/things/{id}", SRV_BODY_NONE, h_echo_header, NULL},
        {"DELETE", "/things/{id}", SRV_BODY_NONE, h_deleted, NULL},
        {"GET", "/things/{id}/parts/{n}", SRV_BODY_NONE, h_echo_header, NULL},
        {NULL, NULL, SRV_BODY_NONE, NULL, NULL},
};

int main(void)
{
	struct srvtest t;
	struct srv_capture c;
	memset(&c, 0, sizeof c);
	CHECK(srvtest_open(&t, NULL) == 0);
	t.srv.routes = test_routes;

	/* an error is {"error":{"code","message"}} with its status, JSON */
	srvtest_call(&t, h_not_found, "GET", "/things/1", 1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);
	CHECK_STR(srv_capture_header(&c, "Content-Type"), "application/json");
	json_t *j = srvtest_json(&c);
	CHECK_STR(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
	          "not_found");
	CHECK_STR(json_string_value(json_object_get(json_object_get(j, "error"), "message")),
	          "no thing <script>x</script>");
	json_decref(j);

	/* the same error for a form post is an HTML page, the message escaped */
	const char *const html[] = {"html", "1", NULL};
	srvtest_call(&t, h_not_found, "POST", "/things", -1, html, NULL, NULL, &c);
	CHECK_INT(c.status, 404);
	CHECK(strncmp(srv_capture_header(&c, "Content-Type"), "text/html", 9) == 0);
	CHECK(srvtest_body_has(&c, "&lt;script&gt;x&lt;/script&gt;"));
	CHECK(!srvtest_body_has(&c, "<script>x"));
	/* a browser's Accept header makes a POST a form post too */
	const char *const accept[] = {"Accept", "text/html,application/xhtml+xml", NULL};
	srvtest_call(&t, h_not_found, "POST", "/things", -1, NULL, accept, NULL, &c);
	CHECK(strncmp(srv_capture_header(&c, "Content-Type"), "text/html", 9) == 0);
	/* ... but not a GET */
	srvtest_call(&t, h_not_found, "GET", "/things/1", 1, html, accept, NULL, &c);
	CHECK_STR(srv_capture_header(&c, "Content-Type"), "application/json");

	/* integer parameters: default, value, refusal with 400 */
	srvtest_call(&t, h_limit, "GET", "/x", -1, NULL, NULL, NULL, &c);
	j = srvtest_json(&c);
	CHECK_INT(json_integer_value(json_object_get(j, "limit")), 50);
	json_decref(j);
	const char *const q7[] = {"limit", "7", NULL};
	srvtest_call(&t, h_limit, "GET", "/x", -1, q7, NULL, NULL, &c);
	j = srvtest_json(&c);
	CHECK_INT(json_integer_value(json_object_get(j, "limit")), 7);
	json_decref(j);
	const char *const bad[][3] = {{"limit", "abc", NULL},
	                              {"limit", "0", NULL},
	                              {"limit", "1001", NULL},
	                              {"limit", "", NULL},
	                              {"limit", "5x", NULL}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		srvtest_call(&t, h_limit, "GET", "/x", -1, bad[i], NULL, NULL, &c);
		CHECK_INT(c.status, 400);
		j = srvtest_json(&c);
		CHECK_STR(json_string_value(json_object_get(json_object_get(j, "error"), "code")),
		          "bad_parameter");
		json_decref(j);
	}

	/* request headers compare case-insensitively */
	const char *const hx[] = {"X-Thing", "v1", NULL};
	srvtest_call(&t, h_echo_header, "GET", "/things/1", 1, NULL, hx, NULL, &c);
	j = srvtest_json(&c);
	CHECK_STR(json_string_value(json_object_get(j, "thing")), "v1");
	json_decref(j);

	/* created: JSON with Location; a form post gets 303 to its page */
	srvtest_call(&t, h_created, "POST", "/runs", -1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 201);
	CHECK_STR(srv_capture_header(&c, "Location"), "/runs/7");
	srvtest_call(&t, h_created, "POST", "/runs", -1, html, NULL, NULL, &c);
	CHECK_INT(c.status, 303);
	CHECK_STR(srv_capture_header(&c, "Location"), "/ui/runs/7");
	/* deleted: {"deleted":id}, or 303 to the list for a form */
	srvtest_call(&t, h_deleted, "DELETE", "/comparisons/3", 3, NULL, NULL, NULL, &c);
	j = srvtest_json(&c);
	CHECK_INT(json_integer_value(json_object_get(j, "deleted")), 3);
	json_decref(j);
	srvtest_call(&t, h_deleted, "POST", "/ui/comparisons/3/delete", 3, html, NULL, NULL, &c);
	CHECK_INT(c.status, 303);
	CHECK_STR(srv_capture_header(&c, "Location"), "/ui/comparisons");

	/* the registered table: lookup with {id}/{n}, 404, 405 + Allow */
	struct srv_req r;
	memset(&r, 0, sizeof r);
	r.srv = &t.srv;
	CHECK_INT(srv_route_find(&r, "GET", "/things/42/parts/3"), 0);
	CHECK_INT(r.id, 42);
	CHECK_INT(r.n, 3);
	CHECK(r.route == &test_routes[2]);
	CHECK_INT(srv_route_find(&r, "HEAD", "/things/42"), 0); /* HEAD is GET */
	CHECK(r.route == &test_routes[0]);
	CHECK_INT(srv_route_find(&r, "POST", "/things/42"), 405);
	CHECK_INT(srv_route_find(&r, "GET", "/nothing"), 404);
	CHECK_INT(srv_route_find(&r, "GET", "/things/99999999999999999999"), 404);
	CHECK_INT(srv_route_index(&t.srv, &test_routes[1]), 1);
	CHECK(srv_route_at(&t.srv, 2) == &test_routes[2]);
	CHECK(srv_route_at(&t.srv, 3) == NULL);
	srvtest_call(&t, h_405, "POST", "/things/42", 42, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 405);
	CHECK_STR(srv_capture_header(&c, "Allow"), "GET, DELETE");

	/* a streamed body is read to its end and its state freed */
	srvtest_call(&t, h_stream, "GET", "/s", -1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK_INT(c.body.len, 5);
	CHECK(c.body.data && memcmp(c.body.data, "abcde", 5) == 0);
	CHECK_INT(the_chunks.freed, 1);
	CHECK_STR(srv_capture_header(&c, "Content-Disposition"), "attachment");
	CHECK_INT(c.broken, 0);

	srv_capture_reset(&c);
	srvtest_close(&t);
	return check_report();
}
