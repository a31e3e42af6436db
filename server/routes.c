/* routes.c - the route table: every URL the daemon answers, in one place
 * you can grep.  {id} and {n} segments match non-negative decimal integers
 * ({id} up to INT64_MAX, {n} up to INT_MAX; larger ones match nothing, so
 * they are 404s, never truncated) and land in srv_req.id / srv_req.n;
 * {name} matches one file-name segment ([A-Za-z0-9._-]+, no leading dot)
 * that the handler reads from the URL; {path} (last in a pattern) matches
 * the rest of the path, slashes included, non-empty, which the handler
 * reads from the URL and validates (a baseline name: 400 when bad). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "forms.h"
#include "srv.h"
#include "ui.h"

static const struct srv_route routes[] = {
        {"GET", "/healthz", SRV_BODY_NONE, srv_h_healthz},
        {"GET", "/metrics", SRV_BODY_NONE, srv_h_metrics},
        /* the API description (web/assets/openapi.json, served like an asset) */
        {"GET", "/openapi.json", SRV_BODY_NONE, srv_ui_asset},
        {"POST", "/runs", SRV_BODY_UPLOAD, srv_h_runs_create},
        {"GET", "/runs", SRV_BODY_NONE, srv_h_runs_list},
        {"GET", "/runs/{id}", SRV_BODY_NONE, srv_h_run_get},
        {"DELETE", "/runs/{id}", SRV_BODY_NONE, srv_h_run_delete},
        {"GET", "/runs/{id}/logs/{n}", SRV_BODY_NONE, srv_h_run_log},
        {"GET", "/runs/{id}/ops", SRV_BODY_NONE, srv_h_run_ops},
        {"GET", "/runs/{id}/steps", SRV_BODY_NONE, srv_h_run_steps},
        {"GET", "/runs/{id}/losses.txt", SRV_BODY_NONE, srv_h_run_losses},
        {"POST", "/comparisons", SRV_BODY_BUFFER_FORM, srv_h_comparisons_create},
        {"GET", "/comparisons", SRV_BODY_NONE, srv_h_comparisons_list},
        {"GET", "/comparisons/{id}", SRV_BODY_NONE, srv_h_comparison_get},
        {"DELETE", "/comparisons/{id}", SRV_BODY_NONE, srv_h_comparison_delete},
        {"GET", "/comparisons/{id}/rows", SRV_BODY_NONE, srv_h_comparison_rows},
        {"GET", "/comparisons/{id}/rows.csv", SRV_BODY_NONE, srv_h_comparison_rows_csv},
        {"GET", "/comparisons/{id}/steps", SRV_BODY_NONE, srv_h_comparison_steps},
        {"GET", "/comparisons/{id}/steps.csv", SRV_BODY_NONE, srv_h_comparison_steps_csv},
        /* PNG charts and PDF reports (h_render.c, issue 16) */
        {"GET", "/comparisons/{id}/charts/{path}", SRV_BODY_NONE, srv_h_comparison_chart},
        {"GET", "/comparisons/{id}/report.pdf", SRV_BODY_NONE, srv_h_comparison_pdf},
        {"GET", "/suites/{name}/report.pdf", SRV_BODY_NONE, srv_h_suite_pdf},
        {"POST", "/webhooks", SRV_BODY_BUFFER, srv_h_webhooks_create},
        {"GET", "/webhooks", SRV_BODY_NONE, srv_h_webhooks_list},
        {"DELETE", "/webhooks/{id}", SRV_BODY_NONE, srv_h_webhook_delete},
        /* golden baselines and suites (h_baselines.c, issue 16) */
        {"GET", "/baselines", SRV_BODY_NONE, srv_h_baselines_list},
        {"GET", "/baselines/{path}", SRV_BODY_NONE, srv_h_baseline_get},
        {"PUT", "/baselines/{path}", SRV_BODY_BUFFER, srv_h_baseline_put},
        {"GET", "/suites/{name}", SRV_BODY_NONE, srv_h_suite_get},
        {"GET", "/webhooks/{id}/deliveries", SRV_BODY_NONE, srv_h_webhook_deliveries},
        /* pages (h_ui.c) */
        {"GET", "/", SRV_BODY_NONE, srv_ui_home},
        {"GET", "/ui/runs", SRV_BODY_NONE, srv_ui_runs},
        {"GET", "/ui/runs/{id}", SRV_BODY_NONE, srv_ui_run},
        {"GET", "/ui/runs/{id}/delete", SRV_BODY_NONE, srv_ui_run_delete_page},
        {"POST", "/ui/runs/{id}/delete", SRV_BODY_NONE, srv_ui_run_delete_post},
        {"GET", "/ui/comparisons", SRV_BODY_NONE, srv_ui_comparisons},
        {"GET", "/ui/comparisons/{id}/delete", SRV_BODY_NONE, srv_ui_comparison_delete_page},
        {"POST", "/ui/comparisons/{id}/delete", SRV_BODY_NONE, srv_ui_comparison_delete_post},
        {"GET", "/ui/comparisons/{id}", SRV_BODY_NONE, srv_ui_comparison},
        {"GET", "/ui/comparisons/{id}/profile.svg", SRV_BODY_NONE, srv_ui_profile},
        {"GET", "/ui/comparisons/{id}/producer", SRV_BODY_NONE, srv_ui_producer},
        {"GET", "/ui/comparisons/{id}/origin", SRV_BODY_NONE, srv_ui_origin_walk},
        {"GET", "/comparisons/{id}/report.html", SRV_BODY_NONE, srv_ui_report},
        {"GET", "/assets/{name}", SRV_BODY_NONE, srv_ui_asset},
        {"GET", "/ui/suites/{name}", SRV_BODY_NONE, srv_ui_suite},
        {"GET", "/ui/baselines/{path}", SRV_BODY_NONE, srv_ui_baseline},
        /* end pages */
        {NULL, NULL, SRV_BODY_NONE, NULL},
};

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
	for (const struct srv_route *rt = routes; rt->method; rt++) {
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

void srv_route_allow(const char *path, char *out, size_t cap)
{
	out[0] = 0;
	for (const struct srv_route *rt = routes; rt->method; rt++) {
		int64_t id, n;
		if (!match(rt->pattern, path, &id, &n) || strstr(out, rt->method))
			continue;
		size_t len = strlen(out);
		snprintf(out + len, cap - len, "%s%s", len ? ", " : "", rt->method);
	}
}

int srv_route_index(const struct srv_route *rt)
{
	return (int)(rt - routes);
}

const struct srv_route *srv_route_at(size_t i)
{
	return i < sizeof routes / sizeof routes[0] - 1 ? &routes[i] : NULL;
}
