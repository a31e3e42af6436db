/* http.c - the libmicrohttpd glue: the access handler that drives one
 * request through route lookup, same-origin and token checks, body
 * intake (buffered, or the route's sink) and its handler, the completion
 * callback that frees everything, the access log, and the daemon's start.
 * The reply helpers are reply.c, the request's inputs request.c.
 *
 * Replies are never queued in the first callback (that would cost the
 * keep-alive, see engineering-notes §1) except the early 413, where closing
 * is the point.  Errors found while a body streams in are remembered and
 * answered once the body is drained; a body over its limit, or one that
 * goes on for more than max_json_body bytes after an error, is answered at
 * once and the connection closed (answer_now).  Slow clients (headers,
 * body rate, request deadline) are cut by the guard thread (guard.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "store.h"
#include "http.h"

/* Remember an error for the final callback (first one wins). */
static void fail_later(struct srv_req *r, unsigned status, json_t *err)
{
	if (r->error_status) {
		json_decref(err);
		return;
	}
	r->error_status = (int)status;
	r->error_json = err;
}

static int content_length_over(struct srv_req *r, uint64_t limit)
{
	const char *cl = srv_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (!cl)
		return 0;
	char *end;
	unsigned long long v = strtoull(cl, &end, 10);
	return end != cl && v > limit;
}

/* Refuse a request in its first callback: a large declared body at once
 * (the connection is closed, the body never sent), a small one once it is
 * drained, like the other early errors (keeps the keep-alive). */
static enum MHD_Result refuse_first(struct srv_req *r, unsigned status, json_t *err)
{
	if (content_length_over(r, r->srv->cfg.max_json_body))
		return (enum MHD_Result)srv_reply_error_json(r, status, err);
	fail_later(r, status, err);
	return MHD_YES;
}

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Echo a sane incoming X-Request-Id ([A-Za-z0-9._:-], 1..64 bytes), else
 * make one from getrandom(). */
static void set_request_id(struct srv_req *r)
{
	const char *in = srv_header(r, "X-Request-Id");
	if (in) {
		size_t n = strlen(in);
		int ok = n > 0 && n <= 64;
		for (size_t i = 0; ok && i < n; i++)
			ok = isalnum((unsigned char)in[i]) || strchr("._:-", in[i]);
		if (ok) {
			memcpy(r->request_id, in, n + 1);
			return;
		}
	}
	unsigned char rnd[8] = {0};
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
		/* never fatal: fall back to something unique enough for logs */
		int64_t t = now_us();
		memcpy(rnd, &t, sizeof rnd);
	}
	for (size_t i = 0; i < sizeof rnd; i++)
		snprintf(r->request_id + 2 * i, 3, "%02x", rnd[i]);
}

/* One structured line per request (JSON, so paths with quotes or control
 * bytes stay one line), and the request metrics. */
static void access_log(struct srv *s, struct srv_req *r, enum MHD_RequestTerminationCode toe)
{
	int64_t dur = now_us() - r->start_us;
	unsigned status = r->responded ? r->status : 0;
	srv_metrics_request(&s->metrics, r->route ? srv_route_index(s, r->route) : -1, status, dur,
	                    r->body_bytes, r->bytes_out);
	char ts[40];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	struct tm tm;
	gmtime_r(&now.tv_sec, &tm);
	size_t n = strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ts + n, sizeof ts - n, ".%03ldZ", now.tv_nsec / 1000000);
	json_t *o = json_object();
	json_object_set_new(o, "time", json_string(ts));
	json_object_set_new(o, "request_id", json_string(r->request_id));
	json_object_set_new(o, "method", json_string(r->method));
	json_t *path = json_string(r->url);
	json_object_set_new(o, "path", path ? path : json_string("(invalid UTF-8)"));
	json_object_set_new(o, "route", r->route ? json_string(r->route->pattern) : json_null());
	json_object_set_new(o, "status", status ? json_integer(status) : json_null());
	json_object_set_new(o, "bytes_in", json_integer((json_int_t)r->body_bytes));
	json_object_set_new(o, "bytes_out", json_integer((json_int_t)r->bytes_out));
	json_object_set_new(o, "duration_ms", json_real((double)dur / 1000.0));
	const char *cut = r->cut_reason;
	if (!cut)
		cut = srv_guard_cut_name(srv_guard_cut_reason(&s->guard, r->guard));
	if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
		json_object_set_new(
		        o, "terminated",
		        json_string(cut                                             ? cut
		                    : r->client_gone                                ? "client_gone"
		                    : toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? "idle_timeout"
		                    : toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT    ? "client_abort"
		                    : toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN ? "shutdown"
		                                                                    : "error"));
	char *line = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(o);
	if (line) {
		fprintf(stderr, "%s\n", line);
		free(line);
	}
}

/* Answer now, while the body is still arriving, and close the connection:
 * for a body over its limit, and for a request whose error is known but
 * whose body goes on past what is worth draining.  libmicrohttpd 0.9.75
 * refuses MHD_queue_response between the first and the final callback
 * (engineering notes §1), and the final callback comes only after the
 * whole body has been read.  So the reply (the pending error) is written
 * to the socket here: nothing else is in flight on it at this point
 * (libmicrohttpd writes only a 100 Continue before the body, and that has
 * gone out before the first body byte is read), a short reply fits in the
 * empty send buffer, and returning MHD_NO makes libmicrohttpd close the
 * connection without reading further.  The client sees the reply, then the
 * connection end (a reset if it was still sending).  Returns MHD_NO. */
static enum MHD_Result answer_now(struct srv_req *r)
{
	struct srv *s = r->srv;
	r->cut_reason = "answered_early";
	atomic_fetch_add(&s->metrics.cut_answered_early, 1);
	if (r->responded || !r->error_status)
		return MHD_NO;
	char *body = json_dumps(r->error_json, JSON_COMPACT);
	if (!body)
		return MHD_NO;
	unsigned status = (unsigned)r->error_status;
	const char *phrase = MHD_get_reason_phrase_for(status);
	char retry[48] = "";
	if (status == 503 && r->retry_after_s > 0)
		snprintf(retry, sizeof retry, "Retry-After: %d\r\n", r->retry_after_s);
	size_t body_len = strlen(body) + 1; /* with the newline of srv_reply_json */
	char head[512];
	int hn = snprintf(head, sizeof head,
	                  "HTTP/1.1 %u %s\r\nContent-Type: application/json\r\n"
	                  "Content-Length: %zu\r\nConnection: close\r\nX-Request-Id: %s\r\n"
	                  "X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n%s\r\n",
	                  status, phrase && *phrase ? phrase : "Error", body_len, r->request_id,
	                  retry);
	struct buf out = BUF_INIT;
	int ok = hn > 0 && (size_t)hn < sizeof head && buf_append(&out, head, (size_t)hn) == 0 &&
	         buf_append(&out, body, body_len - 1) == 0 && buf_append(&out, "\n", 1) == 0;
	free(body);
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (size_t off = 0; ok && ci && off < out.len;) {
		ssize_t w = send(ci->connect_fd, out.data + off, out.len - off,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* the client is gone or not reading: just close */
		off += (size_t)w;
	}
	buf_reset(&out);
	r->responded = 1;
	r->status = status;
	r->bytes_out = body_len;
	return MHD_NO;
}

static void slot_key(struct srv_req *r, char *key, size_t cap);
static void suspend_waiter(struct srv_slot_wait *w);
static enum MHD_Result slot_taken(struct srv_req *r, unsigned slot);
static enum MHD_Result slot_refused(struct srv_req *r, unsigned waited);

/* The first callback: headers are complete.  Route, auth, declared size
 * and the ingest cap; errors are answered at once only where closing is
 * the point (a large declared body), else remembered for the final call. */
static enum MHD_Result start_request(struct srv *s, struct srv_req *r, const char *version)
{
	const char *method = r->method, *url = r->url;
	/* DNS rebinding (csrf.c): only a Host naming this daemon is served;
	 * HTTP/1.0 may omit it */
	const char *host = srv_header(r, MHD_HTTP_HEADER_HOST);
	if (host ? !srv_host_allowed(&s->cfg, host) : strcmp(version, MHD_HTTP_VERSION_1_0) != 0)
		return refuse_first(r, 421,
		                    srv_error_json("misdirected_request", 0,
		                                   "Host '%.200s' is not a name of this daemon (it "
		                                   "answers loopback names, its listen address, "
		                                   "--public-url's host and --allowed-hosts)",
		                                   host ? host : "(none)"));
	/* libmicrohttpd hands over the path decoded, so %00 would end it
	 * early: /baselines/a%00b would name "a" (raw_path, below) */
	if (r->path_has_nul)
		return refuse_first(
		        r, 400,
		        srv_error_json("bad_path", 0, "the path holds an encoded NUL byte (%%00)"));
	int rc = srv_route_find(r, method, url);
	if (rc == 404) {
		fail_later(r, 404, srv_error_json("not_found", 0, "no such resource: %s", url));
		return MHD_YES;
	}
	if (rc == 405) {
		fail_later(r, 405,
		           srv_error_json("method_not_allowed", 0, "%s is not allowed on %s",
		                          method, url));
		return MHD_YES;
	}
	/* cross-origin writes and non-JSON bodies on JSON routes: the one
	 * place every route (and every future browser form) goes through */
	json_t *guard_err = NULL;
	int guard_status = srv_csrf_check(r, &guard_err);
	if (guard_status)
		return refuse_first(r, (unsigned)guard_status, guard_err);
	json_t *auth_err = NULL;
	int auth_status = srv_auth_check(r, &auth_err);
	/* a token check may have borrowed a connection: never hold one while
	 * a body streams in */
	srv_db_release(s, r->db);
	r->db = NULL;
	if (auth_status)
		return refuse_first(r, (unsigned)auth_status, auth_err);
	uint64_t limit =
	        r->route->body == SRV_BODY_UPLOAD ? s->cfg.max_upload : s->cfg.max_json_body;
	if (content_length_over(r, limit)) {
		/* Early 413: libmicrohttpd skips 100-continue, discards the
		 * body and closes, so the client never sends the bytes. */
		return (enum MHD_Result)srv_reply_json(
		        r, 413,
		        srv_error_json("too_large", 0, "request body over the limit of %llu bytes",
		                       (unsigned long long)limit));
	}
	if (r->route->body == SRV_BODY_UPLOAD) {
		/* cap concurrent ingests, fairly per client (slots.c): each
		 * holds temp files, parsers and, at the end, the write lock */
		char key[SRV_SLOT_KEY];
		slot_key(r, key, sizeof key);
		r->slot_wait.ctx = r;
		int64_t deadline = s->cfg.ingest_wait_s
		                           ? now_us() + (int64_t)s->cfg.ingest_wait_s * 1000000
		                           : 0;
		long got =
		        srv_slots_acquire(&s->slots, &r->slot_wait, key, deadline, suspend_waiter);
		if (got > 0)
			return slot_taken(r, (unsigned)got);
		if (got == 0) /* suspended until a slot is free or the wait is over */
			return MHD_YES;
		return slot_refused(r, 0);
	}
	return MHD_YES;
}

/* The key an upload's slot is counted by: its valid token's name, else
 * its client address. */
static void slot_key(struct srv_req *r, char *key, size_t cap)
{
	if (srv_header(r, MHD_HTTP_HEADER_AUTHORIZATION) && srv_auth_has_token(r)) {
		srv_db_release(r->srv, r->db); /* no connection while a body streams in */
		r->db = NULL;
		snprintf(key, cap, "token:%s", r->token_name);
		return;
	}
	char addr[INET6_ADDRSTRLEN] = "?";
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr, sizeof addr);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr,
		          sizeof addr);
	snprintf(key, cap, "addr:%s", addr);
}

/* srv_slots_acquire's suspend callback (under the slots mutex). */
static void suspend_waiter(struct srv_slot_wait *w)
{
	struct srv_req *r = w->ctx;
	r->slot_waiting = 1;
	MHD_suspend_connection(r->conn);
}

/* The slots' wake callback: granted or expired, the request goes on. */
static void wake_waiter(struct srv_slot_wait *w)
{
	struct srv_req *r = w->ctx;
	MHD_resume_connection(r->conn);
}

static void slot_tick(void *arg, int64_t now)
{
	srv_slots_expire(arg, now);
}

/* The upload has slot: count it and open its sink. */
static enum MHD_Result slot_taken(struct srv_req *r, unsigned slot)
{
	r->slot = slot;
	atomic_fetch_add(&r->srv->metrics.uploads_active, 1);
	json_t *err = NULL;
	unsigned status = 0;
	r->upload = r->route->sink->open(r, &status, &err);
	if (!r->upload)
		fail_later(r, status, err);
	return MHD_YES;
}

/* No slot (at once, or after waited seconds): 503 with Retry-After.  It
 * holds no slot while its body is drained. */
static enum MHD_Result slot_refused(struct srv_req *r, unsigned waited)
{
	struct srv *s = r->srv;
	atomic_fetch_add(&s->metrics.uploads_refused_busy, 1);
	r->retry_after_s = 5;
	json_t *err = srv_error_json("busy", 0,
	                             "no upload slot free for this client (%u at once, at most %u "
	                             "per client)%s; retry later",
	                             s->slots.max, s->slots.share,
	                             waited ? ": none came free in time" : "");
	if (waited) { /* its body may be arriving: answer now and close */
		fail_later(r, 503, err);
		return answer_now(r);
	}
	if (content_length_over(r, s->cfg.max_json_body))
		return (enum MHD_Result)srv_reply_error_json(r, 503, err);
	fail_later(r, 503, err);
	return MHD_YES;
}

/* Back from waiting for a slot (the connection was resumed): go on with
 * the slot granted, or refuse; from now the body is timed by the guard. */
static enum MHD_Result slot_wait_over(struct srv *s, struct srv_req *r)
{
	r->slot_waiting = 0;
	srv_guard_body_start(&s->guard, r->guard);
	if (r->slot_wait.state == SRV_SLOT_GRANTED)
		return slot_taken(r, r->slot_wait.slot);
	return slot_refused(r, 1);
}

/* One chunk of the request body (already counted by the guard). */
static enum MHD_Result body_chunk(struct srv *s, struct srv_req *r, const char *data, size_t n)
{
	/* The guard thread enforces this deadline even when no byte comes;
	 * checking it here too cuts a trickling client at once. */
	if (s->cfg.request_timeout_s &&
	    now_us() - r->start_us > (int64_t)s->cfg.request_timeout_s * 1000000) {
		r->cut_reason = "request_timeout";
		atomic_fetch_add(&s->metrics.cut_request_timeout, 1);
		if (r->upload)
			r->route->sink->abort(r->upload);
		return MHD_NO;
	}
	if (r->responded)
		return MHD_YES;
	if (r->error_status) {
		/* Draining after an error keeps the connection usable, but only
		 * for a bounded amount: past it, answer now and close (a chunked
		 * body could otherwise go on until the request deadline). */
		return r->body_bytes > s->cfg.max_json_body ? answer_now(r) : MHD_YES;
	}
	switch (r->route->body) {
	case SRV_BODY_NONE:
		fail_later(r, 400,
		           srv_error_json("unexpected_body", 0, "%s %s takes no request body",
		                          r->method, r->url));
		break;
	case SRV_BODY_BUFFER:
	case SRV_BODY_BUFFER_FORM:
		if (r->body_bytes > s->cfg.max_json_body) {
			/* over the limit without a Content-Length (chunked) */
			fail_later(r, 413,
			           srv_error_json("too_large", 0,
			                          "request body over the limit of %zu bytes",
			                          s->cfg.max_json_body));
			return answer_now(r);
		}
		if (buf_append(&r->body, data, n) < 0)
			fail_later(r, 503, srv_error_json("out_of_memory", 0, "out of memory"));
		break;
	case SRV_BODY_UPLOAD:
		if (r->body_bytes > s->cfg.max_upload) {
			fail_later(r, 413,
			           srv_error_json("too_large", 0,
			                          "upload over the limit of %llu bytes",
			                          (unsigned long long)s->cfg.max_upload));
			r->route->sink->abort(r->upload);
			return answer_now(r);
		} else {
			json_t *err = NULL;
			unsigned status = 0;
			if (r->route->sink->feed(r->upload, data, n, &status, &err) < 0) {
				fail_later(r, status, err);
				r->route->sink->abort(r->upload);
			}
		}
		break;
	}
	return MHD_YES;
}

/* MHD_OPTION_URI_LOG_CALLBACK: the request line's URI before decoding.
 * Its return value is the request's first *con_cls: a mark when the path
 * (up to '?') holds %00, else NULL.  Nothing is allocated here: a request
 * whose headers never complete gets no completion callback. */
static char nul_mark;

static void *raw_path(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls, (void)conn;
	for (const char *p = uri; *p && *p != '?'; p++)
		if (p[0] == '%' && p[1] == '0' && p[2] == '0')
			return &nul_mark;
	return NULL;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
	struct srv *s = cls;
	struct srv_req *r = *con_cls;

	if (!r || (void *)r == &nul_mark) {
		int nul = r != NULL;
		r = calloc(1, sizeof *r);
		if (!r)
			return MHD_NO;
		r->path_has_nul = nul;
		r->srv = s;
		r->conn = conn;
		r->method = method;
		r->url = url;
		r->start_us = now_us();
		r->guard = srv_guard_of(conn);
		set_request_id(r);
		*con_cls = r;
		enum MHD_Result rc = start_request(s, r, version);
		/* from here the body must keep the guard's rate and deadline,
		 * unless a reply is already queued (libmicrohttpd then closes)
		 * or the upload waits for a slot (its body is not read) */
		if (r->responded || r->slot_waiting)
			srv_guard_busy(&s->guard, r->guard);
		else
			srv_guard_body_start(&s->guard, r->guard);
		return rc;
	}

	if (r->slot_waiting) {
		/* resumed: a slot was granted, or the wait is over */
		enum MHD_Result rc = slot_wait_over(s, r);
		if (rc == MHD_NO || r->responded)
			return rc;
		/* libmicrohttpd calls once with no data on resuming, body
		 * complete or not: the body (or the final call) comes next */
		if (!*upload_data_size)
			return MHD_YES;
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;
		*upload_data_size = 0;
		r->body_bytes += n;
		if (srv_guard_body_bytes(&s->guard, r->guard, n) != SRV_GUARD_OK) {
			/* cut by the guard: stop here, libmicrohttpd closes */
			if (r->upload)
				r->route->sink->abort(r->upload);
			return MHD_NO;
		}
		enum MHD_Result rc = body_chunk(s, r, upload_data, n);
		srv_guard_body_handled(&s->guard, r->guard);
		return rc;
	}

	srv_guard_busy(&s->guard, r->guard); /* body complete */
	if (r->deferred) {                   /* made by a reader thread while suspended */
		struct MHD_Response *resp = r->deferred;
		r->deferred = NULL;
		enum MHD_Result qrc = MHD_queue_response(conn, r->deferred_status, resp);
		MHD_destroy_response(resp);
		return qrc;
	}
	if (r->deferred_close)
		return MHD_NO;
	if (r->responded)
		return MHD_YES;
	if (r->error_status) {
		json_t *err = r->error_json;
		r->error_json = NULL;
		return (enum MHD_Result)srv_reply_error_json(r, (unsigned)r->error_status, err);
	}
	enum MHD_Result rc = (enum MHD_Result)r->route->handler(r);
	/* Handed to a reader thread (keyfilter.c): r is that thread's now,
	 * it releases the connection itself.  Offloading happens only on a
	 * handler's first run here, and this thread wrote the flag. */
	if (r->offloaded)
		return rc;
	/* the reply is queued (or the request suspended, which released its
	 * connection first): the connection goes back to the pool now, not
	 * when the client has read the response */
	srv_db_release(s, r->db);
	r->db = NULL;
	return rc;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
	struct srv *s = cls;
	struct srv_req *r = *con_cls;
	(void)conn;
	(void)toe;
	if (!r || (void *)r == &nul_mark)
		return;
	if (r->slot_waiting) /* ended while waiting, or granted and gone */
		srv_slots_leave(&s->slots, &r->slot_wait);
	if (r->slot) {
		atomic_fetch_sub(&s->metrics.uploads_active, 1);
		srv_slots_release(&s->slots, r->slot);
	}
	access_log(s, r, toe);
	/* keep-alive: the next request's headers are awaited from now */
	srv_guard_request_done(&s->guard, r->guard);
	if (r->upload)
		r->route->sink->free(r->upload); /* removes temp files of unfinished uploads */
	if (r->db)
		srv_db_release(s, r->db);
	srv_shared_reply_unref(r->wait_reply);
	if (r->deferred)
		MHD_destroy_response(r->deferred);
	json_decref(r->error_json);
	buf_reset(&r->body);
	free(r);
	*con_cls = NULL;
}

struct MHD_Daemon *srv_http_start(struct srv *s, unsigned *bound_port)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	unsigned flags =
	        MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	const char *host = s->cfg.listen_host;
	if (!strcmp(host, "localhost"))
		host = "127.0.0.1";
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)s->cfg.listen_port);
	} else if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)s->cfg.listen_port);
		flags |= MHD_USE_IPv6;
	} else {
		srv_log("cannot use listen address '%s' (give an IP address)", host);
		return NULL;
	}
	/* ingest slots: as many waiters as uploads at once, times 8 */
	if (srv_slots_init(&s->slots, s->cfg.max_ingests, s->cfg.max_ingests * 8, wake_waiter) < 0)
		return NULL;
	srv_guard_on_tick(&s->guard, slot_tick, &s->slots);
	struct MHD_Daemon *d = MHD_start_daemon(
	        flags, (uint16_t)s->cfg.listen_port, NULL, NULL, on_request, s,
	        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE,
	        (unsigned)s->cfg.http_threads, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	        (size_t)(128 * 1024), MHD_OPTION_CONNECTION_TIMEOUT,
	        (unsigned)s->cfg.idle_timeout_s, MHD_OPTION_CONNECTION_LIMIT,
	        (unsigned)s->cfg.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
	        (unsigned)s->cfg.max_per_ip, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
	        MHD_OPTION_NOTIFY_CONNECTION, srv_guard_notify, &s->guard,
	        MHD_OPTION_URI_LOG_CALLBACK, raw_path, NULL, MHD_OPTION_END);
	if (!d) {
		srv_guard_on_tick(&s->guard, NULL, NULL);
		srv_slots_free(&s->slots);
		return NULL;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	*bound_port = info ? info->port : s->cfg.listen_port;
	return d;
}
