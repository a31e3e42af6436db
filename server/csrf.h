/* csrf.h - refusing writes a browser was tricked into sending.
 *
 * The daemon has no cookies, but its default deployment (writes open on
 * loopback) makes every browser on the machine a client: a page on any
 * origin could POST to http://127.0.0.1:8080 (a text/plain body or a form
 * is a CORS "simple request", sent without a preflight).  Two rules, both
 * applied in one place of the dispatch (http.c, first callback, before
 * authentication) so every route, present and future, gets them:
 *
 *  - a write (any method but GET, HEAD, OPTIONS) whose Origin header names
 *    another origin than the daemon's own (the Host header it was reached
 *    by, or --public-url), whose Origin is "null", or that carries
 *    Sec-Fetch-Site: cross-site is refused with 403 cross_origin.  Requests
 *    without Origin (curl, scripts, `parity submit`) are not affected;
 *  - a route that buffers a JSON body requires Content-Type:
 *    application/json (SRV_BODY_BUFFER_FORM, whose handler reads forms, also
 *    multipart/form-data and application/x-www-form-urlencoded),
 *    else 415 unsupported_media_type: no form a browser can send without
 *    a preflight is accepted as JSON.  Uploads (SRV_BODY_UPLOAD) take any
 *    content type (raw logs).
 *
 * Thread-safe: no state of its own. */
#ifndef PARITY_CSRF_H
#define PARITY_CSRF_H

#include <jansson.h>

struct srv_req;

/* 1 when origin (an Origin header value, "scheme://host[:port]") is the
 * daemon's own: the same host and port as the Host header (host may be
 * NULL; a Host without a port means the origin scheme's default port) or
 * the scheme, host and port of public_url ("" = none).  Host names compare
 * case-insensitively.  "null", a path, a scheme other than http/https or
 * anything unparsable gives 0. */
int srv_origin_is_own(const char *origin, const char *host, const char *public_url);

/* 1 when the Content-Type value names media type `type` (case-insensitive,
 * parameters such as "; charset=utf-8" allowed), 0 otherwise or when NULL. */
int srv_media_type_is(const char *content_type, const char *type);

/* The decision for one routed request (r->route set): 0 allowed, else 403
 * or 415 with *err a new error object for the reply. */
int srv_csrf_check(struct srv_req *r, json_t **err);

#endif
