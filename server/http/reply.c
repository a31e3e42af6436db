/* reply.c - the reply helpers every handler answers through: buffered,
 * streamed, static, JSON, shared (long-poll) and file replies, the error
 * object and its HTML form for form posts, store errors, and the common
 * headers (request id, Retry-After, nosniff, Cache-Control, Allow).  A
 * request driven without libmicrohttpd (r->capture) has its reply kept
 * instead of queued. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http.h"
#include "store.h"

/* Content-Type, nosniff and headers (name, value, ..., NULL; a NULL
 * value skips its name) on a response made here. */
static void add_headers(struct MHD_Response *resp, const char *content_type,
                        const char *const *headers)
{
	MHD_add_response_header(resp, "Content-Type", content_type);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	for (size_t i = 0; headers && headers[i]; i += 2)
		if (headers[i + 1])
			MHD_add_response_header(resp, headers[i], headers[i + 1]);
}

/* Every response goes through here: the request id header, Retry-After
 * for 503s, and what the access log and metrics need (status, size). */
int srv_queue_response(struct srv_req *r, unsigned status, struct MHD_Response *resp, int64_t bytes)
{
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "X-Request-Id", r->request_id);
	if (status == 503 && r->retry_after_s > 0) {
		char ra[16];
		snprintf(ra, sizeof ra, "%d", r->retry_after_s);
		MHD_add_response_header(resp, "Retry-After", ra);
	}
	r->responded = 1;
	r->status = status;
	r->bytes_out = bytes > 0 ? (uint64_t)bytes : 0;
	if (r->capture) { /* a response made outside the capture paths: status only */
		r->capture->status = status;
		MHD_destroy_response(resp);
		return MHD_YES;
	}
	if (r->in_reader) {
		/* an offload thread (offload.c): the worker queues it on resume */
		r->deferred = resp;
		r->deferred_status = status;
		return MHD_YES;
	}
	int rc = MHD_queue_response(r->conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

/* The headers every buffered reply carries, then queue it. */
static int queue_buffered(struct srv_req *r, unsigned status, const char *content_type,
                          struct MHD_Response *resp, size_t len, const char *const *headers)
{
	add_headers(resp, content_type, headers);
	if (!MHD_get_response_header(resp, "Cache-Control"))
		MHD_add_response_header(resp, "Cache-Control", "no-store");
	if (status == 401)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer realm=\"parity\"");
	if (status == 405) {
		char allow[64];
		srv_route_allow(r->srv, r->url, allow, sizeof allow);
		MHD_add_response_header(resp, "Allow", allow);
	}
	return srv_queue_response(r, status, resp, (int64_t)len);
}

static void capture_header(struct srv_capture *c, const char *name, const char *value)
{
	if (value)
		buf_printf(&c->headers, "%s: %s\n", name, value);
}

/* The reply of a captured request: status, the common headers and
 * headers (name, value, ..., NULL), body[0, len). */
static int capture_reply(struct srv_req *r, unsigned status, const char *content_type,
                         const void *body, size_t len, const char *const *headers)
{
	struct srv_capture *c = r->capture;
	c->status = status;
	r->responded = 1;
	r->status = status;
	capture_header(c, "Content-Type", content_type);
	for (size_t i = 0; headers && headers[i]; i += 2)
		capture_header(c, headers[i], headers[i + 1]);
	if (status == 405) {
		char allow[64];
		srv_route_allow(r->srv, r->url, allow, sizeof allow);
		capture_header(c, "Allow", allow);
	}
	return buf_append(&c->body, body, len) < 0 ? MHD_NO : MHD_YES;
}

int srv_reply_stream(struct srv_req *r, unsigned status, uint64_t size,
                     MHD_ContentReaderCallback read, void *cls,
                     MHD_ContentReaderFreeCallback free_cls, const char *content_type,
                     const char *const *headers)
{
	if (r->capture) { /* drain the reader into the captured body */
		int rc = capture_reply(r, status, content_type, "", 0, headers);
		char chunk[32768];
		for (uint64_t pos = 0;;) {
			ssize_t n = read(cls, pos, chunk, sizeof chunk);
			if (n == MHD_CONTENT_READER_END_OF_STREAM)
				break;
			if (n < 0) { /* the transfer breaks: what a client sees cut */
				r->capture->broken = 1;
				break;
			}
			if (buf_append(&r->capture->body, chunk, (size_t)n) < 0)
				rc = MHD_NO;
			pos += (uint64_t)n;
		}
		free_cls(cls);
		return rc;
	}
	struct MHD_Response *resp =
	        MHD_create_response_from_callback(size, 32768, read, cls, free_cls);
	if (!resp) {
		free_cls(cls);
		return MHD_NO;
	}
	add_headers(resp, content_type, headers);
	return srv_queue_response(r, status, resp, size == MHD_SIZE_UNKNOWN ? -1 : (int64_t)size);
}

int srv_reply_static(struct srv_req *r, unsigned status, const char *content_type, const void *data,
                     size_t len, const char *const *headers)
{
	if (r->capture)
		return capture_reply(r, status, content_type, data, len, headers);
	struct MHD_Response *resp =
	        MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	add_headers(resp, content_type, headers);
	return srv_queue_response(r, status, resp, (int64_t)len);
}

int srv_reply_buf_headers(struct srv_req *r, unsigned status, const char *content_type,
                          struct buf *body, const char *const *headers)
{
	if (r->capture) {
		int rc = capture_reply(r, status, content_type, body->data ? body->data : "",
		                       body->len, headers);
		buf_reset(body);
		return rc;
	}
	size_t len = body->len;
	char *data = buf_take(body);
	if (!data)
		return MHD_NO;
	struct MHD_Response *resp =
	        MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(data);
		return MHD_NO;
	}
	return queue_buffered(r, status, content_type, resp, len, headers);
}

struct srv_shared_reply *srv_shared_reply_new(unsigned status, int final, const char *text,
                                              size_t len)
{
	struct srv_shared_reply *sr = malloc(sizeof *sr + len + 1);
	if (!sr)
		return NULL;
	atomic_init(&sr->refs, 1);
	sr->status = status;
	sr->final = final;
	sr->len = len;
	memcpy(sr->body, text, len);
	sr->body[len] = 0;
	return sr;
}

void srv_shared_reply_unref(struct srv_shared_reply *sr)
{
	if (sr && atomic_fetch_sub(&sr->refs, 1) == 1)
		free(sr);
}

static void shared_reply_done(void *cls)
{
	srv_shared_reply_unref(cls);
}

int srv_reply_shared(struct srv_req *r, struct srv_shared_reply *sr)
{
	if (r->capture)
		return capture_reply(r, sr->status, "application/json", sr->body, sr->len, NULL);
	atomic_fetch_add(&sr->refs, 1); /* the response's own reference */
	struct MHD_Response *resp = MHD_create_response_from_buffer_with_free_callback_cls(
	        sr->len, sr->body, shared_reply_done, sr);
	if (!resp) {
		srv_shared_reply_unref(sr);
		return MHD_NO;
	}
	return queue_buffered(r, sr->status, "application/json", resp, sr->len, NULL);
}

int srv_reply_buf(struct srv_req *r, unsigned status, const char *content_type, struct buf *body)
{
	return srv_reply_buf_headers(r, status, content_type, body, NULL);
}

int srv_reply_json_at(struct srv_req *r, unsigned status, json_t *body, const char *location)
{
	/* a form post lands on the created resource's page (http.h) */
	const char *ui = json_string_value(json_object_get(json_object_get(body, "urls"), "ui"));
	if (location && ui && (status == 201 || status == 202) && srv_form_wants_html(r)) {
		char to[1400];
		snprintf(to, sizeof to, "%s", ui);
		json_decref(body);
		return srv_form_see_other(r, to);
	}
	char *text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!text)
		return MHD_NO;
	struct buf b = {text, strlen(text), strlen(text) + 1};
	buf_append(&b, "\n", 1);
	const char *const hdrs[] = {"Location", location, NULL};
	return srv_reply_buf_headers(r, status, "application/json", &b, hdrs);
}

int srv_reply_json(struct srv_req *r, unsigned status, json_t *body)
{
	return srv_reply_json_at(r, status, body, NULL);
}

int srv_reply_deleted(struct srv_req *r)
{
	if (srv_form_wants_html(r))
		return srv_form_see_other(r, strstr(r->url, "comparisons") ? "/ui/comparisons"
		                                                           : "/ui/runs");
	json_t *o = json_object();
	json_object_set_new(o, "deleted", json_integer(r->id));
	return srv_reply_json(r, 200, o);
}

int srv_page_params_or_reply(struct srv_req *r, long long dflt, long long *limit,
                             const char **cursor)
{
	if (srv_query_int_or_reply(r, "limit", 1, 1000, dflt, limit) < 0)
		return -1;
	*cursor = srv_query(r, "cursor");
	if (*cursor && !**cursor)
		*cursor = NULL;
	return 0;
}

int srv_reply_error_json(struct srv_req *r, unsigned status, json_t *err)
{
	/* a refused cross-origin post stays JSON: no page for another site */
	const char *code =
	        json_string_value(json_object_get(json_object_get(err, "error"), "code"));
	if (srv_form_wants_html(r) && !(code && !strcmp(code, "cross_origin")))
		return srv_form_error_page(r, status, err);
	return srv_reply_json(r, status, err);
}

int srv_reply_error(struct srv_req *r, unsigned status, const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return srv_reply_error_json(r, status, srv_error_json(code, 0, "%s", msg));
}

int srv_reply_file(struct srv_req *r, const char *path, const char *content_type,
                   const char *const *headers)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return srv_reply_error(r, 404, "not_found", "the raw log file is missing");
	if (r->capture) {
		struct buf b = BUF_INIT;
		char chunk[32768];
		ssize_t n;
		while ((n = read(fd, chunk, sizeof chunk)) > 0)
			buf_append(&b, chunk, (size_t)n);
		close(fd);
		return srv_reply_buf_headers(r, 200, content_type, &b, headers);
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return srv_reply_error(r, 500, "internal", "cannot read the raw log");
	}
	/* libmicrohttpd streams from the fd (sendfile where it can) and closes it */
	struct MHD_Response *resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		return MHD_NO;
	}
	add_headers(resp, content_type, headers);
	return srv_queue_response(r, 200, resp, (int64_t)st.st_size);
}

int srv_query_int_or_reply(struct srv_req *r, const char *name, long long lo, long long hi,
                           long long dflt, long long *out)
{
	const char *v = srv_query(r, name);
	*out = dflt;
	if (!v)
		return 0;
	char *end;
	long long x = strtoll(v, &end, 10);
	if (!*v || *end || x < lo || x > hi) {
		srv_reply_error(r, 400, "bad_parameter",
		                "parameter '%s' must be an integer from %lld to %lld", name, lo,
		                hi);
		return -1;
	}
	*out = x;
	return 1;
}

int srv_reply_store_error(struct srv_req *r, int rc)
{
	const char *msg = r->db ? store_errmsg(r->db) : "database error";
	/* a conflict names the records in the way: not to a client that may
	 * not read them (private reads, no token) */
	if ((rc == STORE_DUPLICATE || rc == STORE_IN_USE) && !srv_auth_may_read(r))
		msg = rc == STORE_IN_USE
		              ? "in use by other records (reading them needs a token)"
		              : "conflicts with a stored record (reading it needs a token)";
	switch (rc) {
	case STORE_NOT_FOUND: return srv_reply_error(r, 404, "not_found", "%s", msg);
	case STORE_DUPLICATE: return srv_reply_error(r, 409, "conflict", "%s", msg);
	case STORE_IN_USE: return srv_reply_error(r, 409, "in_use", "%s", msg);
	case STORE_BAD_CURSOR: return srv_reply_error(r, 400, "bad_cursor", "%s", msg);
	case STORE_BAD_REGEX: return srv_reply_error(r, 400, "bad_regex", "%s", msg);
	case STORE_TOO_COSTLY: return srv_reply_error(r, 400, "regex_too_costly", "%s", msg);
	case STORE_CANCELLED:
		/* the client left: nobody reads a reply; close the connection */
		r->client_gone = 1;
		return MHD_NO;
	case STORE_INVALID: return srv_reply_error(r, 400, "bad_parameter", "%s", msg);
	case STORE_BUSY: return srv_reply_error(r, 503, "busy", "the database is busy, try again");
	case STORE_FULL: return srv_reply_error(r, 507, "storage", "the disk is full");
	default:
		srv_log("database error: %s", msg);
		return srv_reply_error(r, 500, "database", "internal database error");
	}
}

struct store *srv_db_or_reply(struct srv_req *r)
{
	int busy = 0;
	if (!r->db)
		r->db = srv_db_acquire_wait(r->srv, SRV_DB_WAIT_MS, &busy);
	if (!r->db && busy) {
		r->retry_after_s = 1;
		srv_reply_error(r, 503, "busy",
		                "all %u database connections are in use; retry shortly",
		                r->srv->cfg.max_db_connections);
	} else if (!r->db) {
		srv_reply_error(r, 503, "database", "database unavailable");
	}
	return r->db;
}

int srv_reply_read(struct srv_req *r, int rc, json_t *doc)
{
	if (rc < 0) {
		json_decref(doc);
		return srv_reply_store_error(r, rc);
	}
	if (!doc)
		return srv_reply_error(r, 500, "internal", "out of memory");
	return srv_reply_json(r, 200, doc);
}

void srv_json_receipt(json_t *doc, const char *const *keep)
{
	const char *key;
	json_t *val;
	void *tmp;
	json_object_foreach_safe(doc, tmp, key, val)
	{
		int kept = 0;
		for (size_t i = 0; keep[i] && !kept; i++)
			kept = !strcmp(key, keep[i]);
		if (!kept)
			json_object_del(doc, key);
	}
}

json_t *srv_body_json_or_reply(struct srv_req *r)
{
	json_error_t jerr;
	json_t *o = json_loadb(r->body.data ? r->body.data : "", r->body.len,
	                       JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		srv_reply_error_json(
		        r, 400,
		        srv_error_json("bad_json", (unsigned long)(jerr.line > 0 ? jerr.line : 0),
		                       "request body is not valid JSON: %s", jerr.text));
		return NULL;
	}
	if (!json_is_object(o)) {
		srv_reply_error(r, 400, "bad_json", "request body must be a JSON object");
		json_decref(o);
		return NULL;
	}
	if (!srv_json_depth_ok(o)) {
		srv_reply_error(r, 400, "bad_json",
		                "request body nests objects and arrays deeper than %d levels",
		                SRV_JSON_DEPTH_MAX);
		json_decref(o);
		return NULL;
	}
	return o;
}
