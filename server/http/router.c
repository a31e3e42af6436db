/* router.c - route lookup in the table the composition root registers
 * (struct srv.routes, written in routes.c).  {id} and {n} segments match
 * non-negative decimal integers ({id} up to INT64_MAX, {n} up to INT_MAX;
 * larger ones match nothing, so they are 404s, never truncated) and land
 * in srv_req.id / srv_req.n; {name} matches one file-name segment
 * ([A-Za-z0-9._-]+, no leading dot) that the handler reads from the URL;
 * {path} (last in a pattern) matches the rest of the path, slashes
 * included, non-empty, which the handler reads from the URL and
 * validates. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http.h"

/* Match one path against a pattern; fills id/n.  1 match, 0 not. */
static int match(const char *pattern, const char *path, int64_t *id, int64_t *n)
{
	const char *p = pattern, *u = path;
	while (*p && *u) {
		if (*p == '{') {
			const char *close = strchr(p, '}');
			if (!close)
				return 0;
			if (!strncmp(p, "{path}", 6))
				return close[1] == 0; /* the rest of the path, non-empty */
			if (!strncmp(p, "{name}", 6)) {
				/* one file-name segment: [A-Za-z0-9._-]+, not starting
				 * with '.'; the handler reads it from the URL */
				const char *s = u;
				while ((*u >= 'a' && *u <= 'z') || (*u >= 'A' && *u <= 'Z') ||
				       (*u >= '0' && *u <= '9') || *u == '.' || *u == '_' ||
				       *u == '-')
					u++;
				if (u == s || *s == '.' || (*u && *u != '/'))
					return 0;
				p = close + 1;
				continue;
			}
			if (*u < '0' || *u > '9')
				return 0;
			char *end;
			errno = 0;
			long long v = strtoll(u, &end, 10);
			if (errno || v < 0 || (*end && *end != '/'))
				return 0; /* not digits, or past INT64_MAX: no such path */
			/* {n} is a rank (an int everywhere): a larger number names
			 * nothing, rather than wrapping around to another rank */
			if (strncmp(p, "{id}", 4) && v > INT_MAX)
				return 0;
			if (!strncmp(p, "{id}", 4))
				*id = v;
			else
				*n = v;
			p = close + 1;
			u = end;
			continue;
		}
		if (*p != *u)
			return 0;
		p++;
		u++;
	}
	/* tolerate one trailing slash */
	if (!*p && u[0] == '/' && u[1] == 0)
		return 1;
	return !*p && !*u;
}

int srv_route_find(struct srv_req *r, const char *method, const char *path)
{
	int path_known = 0;
	/* HEAD is answered like GET (libmicrohttpd drops the body). */
	const char *m = strcmp(method, "HEAD") == 0 ? "GET" : method;
	for (const struct srv_route *rt = r->srv->routes; rt->method; rt++) {
		int64_t id = -1, n = -1;
		if (!match(rt->pattern, path, &id, &n))
			continue;
		path_known = 1;
		if (strcmp(rt->method, m) != 0)
			continue;
		r->route = rt;
		r->id = id;
		r->n = n;
		return 0;
	}
	return path_known ? 405 : 404;
}

void srv_route_allow(const struct srv *s, const char *path, char *out, size_t cap)
{
	out[0] = 0;
	for (const struct srv_route *rt = s->routes; rt->method; rt++) {
		int64_t id, n;
		if (!match(rt->pattern, path, &id, &n) || strstr(out, rt->method))
			continue;
		size_t len = strlen(out);
		snprintf(out + len, cap - len, "%s%s", len ? ", " : "", rt->method);
	}
}

int srv_route_index(const struct srv *s, const struct srv_route *rt)
{
	return (int)(rt - s->routes);
}

const struct srv_route *srv_route_at(const struct srv *s, size_t i)
{
	for (size_t k = 0; k <= i; k++)
		if (!s->routes[k].method)
			return NULL;
	return &s->routes[i];
}

/* The URL after prefix, one trailing '/' dropped, into out (cap bytes);
 * "" when it does not fit (which no valid name fills). */
void srv_url_tail(struct srv_req *r, const char *prefix, char *out, size_t cap)
{
	const char *t = r->url + strlen(prefix);
	size_t n = strlen(t);
	if (n && t[n - 1] == '/')
		n--;
	if (n >= cap)
		n = 0;
	memcpy(out, t, n);
	out[n] = 0;
}
