/* csrf.c - the cross-origin and content-type rules for writes (see
 * http.h for the contract and why). */

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "http.h"

struct origin {
	char host[256]; /* lower case; IPv6 with its brackets */
	unsigned port;  /* explicit, else the scheme's default */
	unsigned default_port;
	int https;
};

/* "host[:port]" from p up to the end or the first byte of stop.  host is
 * lower-cased into host; *port is left alone when none is given.  No
 * userinfo.  0, or -1 when it does not parse. */
static int parse_authority(const char *p, const char *stop, char *host, size_t cap, unsigned *port)
{
	const char *end = p + strcspn(p, stop);
	const char *hend, *colon = NULL;
	if (memchr(p, '@', (size_t)(end - p)))
		return -1;
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(end - p));
		if (!rb)
			return -1;
		hend = rb + 1;
		if (hend < end && *hend != ':')
			return -1;
		colon = hend < end ? hend : NULL;
	} else {
		colon = memchr(p, ':', (size_t)(end - p));
		hend = colon ? colon : end;
	}
	size_t n = (size_t)(hend - p);
	if (n == 0 || n >= cap)
		return -1;
	for (size_t i = 0; i < n; i++)
		host[i] = (char)tolower((unsigned char)p[i]);
	host[n] = 0;
	if (colon) {
		unsigned long v = 0;
		const char *d = colon + 1;
		if (d == end || (*d == '0' && d + 1 < end))
			return -1; /* no port, or leading zeros ("0080") */
		for (; d < end; d++) {
			if (*d < '0' || *d > '9')
				return -1;
			v = v * 10 + (unsigned long)(*d - '0');
			if (v > 65535)
				return -1;
		}
		if (v == 0)
			return -1;
		*port = (unsigned)v;
	}
	return 0;
}

/* "http(s)://host[:port]", followed by a path only when allow_path.
 * 0, or -1 (other schemes, "null", garbage). */
static int parse_origin(const char *s, int allow_path, struct origin *o)
{
	const char *p;
	memset(o, 0, sizeof *o);
	if (!strncasecmp(s, "http://", 7)) {
		p = s + 7;
		o->default_port = 80;
	} else if (!strncasecmp(s, "https://", 8)) {
		p = s + 8;
		o->https = 1;
		o->default_port = 443;
	} else {
		return -1;
	}
	o->port = o->default_port;
	return parse_authority(p, allow_path ? "/?#" : "", o->host, sizeof o->host, &o->port);
}

int srv_origin_is_own(const char *origin, const char *host, const char *public_url)
{
	struct origin o, pub;
	if (!origin || parse_origin(origin, 0, &o) < 0)
		return 0;
	/* the daemon's own scheme: http, unless --public-url says https */
	int own_https = public_url && !strncasecmp(public_url, "https://", 8);
	if (host && *host && o.https == own_https) {
		char h[256];
		unsigned port = 0;
		if (parse_authority(host, "", h, sizeof h, &port) == 0 && !strcmp(h, o.host) &&
		    (port ? port : o.default_port) == o.port)
			return 1;
	}
	if (public_url && *public_url && parse_origin(public_url, 1, &pub) == 0 &&
	    pub.https == o.https && pub.port == o.port && !strcmp(pub.host, o.host))
		return 1;
	return 0;
}

/* 1 when h (lower case, IPv6 in brackets) is an IP address literal. */
static int is_ip_literal(const char *h)
{
	unsigned char a[sizeof(struct in6_addr)];
	char in[64];
	size_t n = strlen(h);
	if (inet_pton(AF_INET, h, a) == 1)
		return 1;
	if (n < 3 || n - 2 >= sizeof in || h[0] != '[' || h[n - 1] != ']')
		return 0;
	memcpy(in, h + 1, n - 2);
	in[n - 2] = 0;
	return inet_pton(AF_INET6, in, a) == 1;
}

/* 1 when the comma-separated list names h ("*" names every host). */
static int list_names(const char *list, const char *h)
{
	size_t hn = strlen(h);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if ((n == 1 && *p == '*') || (n == hn && !strncasecmp(p, h, n)))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

int srv_host_allowed(const struct srv_config *cfg, const char *host)
{
	char h[256], listen[260];
	unsigned port = 0;
	struct origin pub;
	if (!host || parse_authority(host, "", h, sizeof h, &port) < 0)
		return 0;
	if (srv_config_host_is_loopback(h))
		return 1;
	/* the listen address as a Host: IPv6 in brackets; a wildcard address
	 * (0.0.0.0, ::) is every address of the machine, so any IP literal */
	const char *l = cfg->listen_host;
	snprintf(listen, sizeof listen, strchr(l, ':') ? "[%s]" : "%s", l);
	if (!strcmp(l, "0.0.0.0") || !strcmp(l, "::") ? is_ip_literal(h) : !strcasecmp(listen, h))
		return 1;
	if (cfg->public_url[0] && parse_origin(cfg->public_url, 1, &pub) == 0 &&
	    !strcmp(pub.host, h))
		return 1;
	return list_names(cfg->allowed_hosts, h);
}

int srv_media_type_is(const char *content_type, const char *type)
{
	if (!content_type)
		return 0;
	const char *p = content_type;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t n = strlen(type);
	if (strncasecmp(p, type, n))
		return 0;
	p += n;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == 0 || *p == ';';
}

static const char *header(struct srv_req *r, const char *name)
{
	return srv_header(r, name);
}

int srv_csrf_check(struct srv_req *r, json_t **err)
{
	*err = NULL;
	const char *m = r->method;
	if (!strcmp(m, "GET") || !strcmp(m, "HEAD") || !strcmp(m, "OPTIONS"))
		return 0;
	const char *site = header(r, "Sec-Fetch-Site");
	if (site && !strcasecmp(site, "cross-site")) {
		*err = srv_error_json("cross_origin", 0,
		                      "cross-site %s refused (Sec-Fetch-Site: cross-site): "
		                      "a page on another site cannot write here",
		                      m);
		return 403;
	}
	const char *origin = header(r, "Origin");
	if (origin &&
	    !srv_origin_is_own(origin, header(r, MHD_HTTP_HEADER_HOST), r->srv->cfg.public_url)) {
		*err = srv_error_json("cross_origin", 0,
		                      "cross-origin %s refused: Origin '%.200s' is not this "
		                      "daemon's origin (its Host or --public-url)",
		                      m, origin);
		return 403;
	}
	enum srv_body body = r->route->body;
	if (body == SRV_BODY_BUFFER || body == SRV_BODY_BUFFER_FORM) {
		const char *ct = header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
		int form = body == SRV_BODY_BUFFER_FORM;
		if (!srv_media_type_is(ct, "application/json") &&
		    !(form && (srv_media_type_is(ct, "multipart/form-data") ||
		               srv_media_type_is(ct, "application/x-www-form-urlencoded")))) {
			*err = srv_error_json(
			        "unsupported_media_type", 0,
			        "%s %s takes a JSON body: send Content-Type: application/json%s "
			        "(got %.100s)",
			        m, r->route->pattern,
			        form ? " (or a form: multipart/form-data, "
			               "application/x-www-form-urlencoded)"
			             : "",
			        ct ? ct : "none");
			return 415;
		}
	}
	return 0;
}
