/* layout.c - the frame every page shares: head (title, CSP-friendly asset
 * links or, offline, the inlined assets), the top bar, the footer, the
 * embedded-asset table and verdict badges.
 *
 * Server pages link /assets/parity.css and /assets/parity.js (deferred),
 * so the Content-Security-Policy can forbid inline script and style.  The
 * offline report cannot fetch anything, so it inlines both; its policy is
 * web_csp_report. */
#include "web.h"

#include <string.h>

extern const struct parity_embedded {
	const char *name;
	const unsigned char *data;
	size_t len;
} parity_web_assets[];

const char web_csp_page[] =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "object-src 'self'; connect-src 'self'; frame-src 'self'; base-uri 'none'; "
        "form-action 'self'; frame-ancestors 'self'";

const char web_csp_report[] =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        "img-src data:; base-uri 'none'; form-action 'none'";

int web_asset(const char *name, const unsigned char **data, size_t *len, const char **ctype)
{
	const struct parity_embedded *e;
	const char *dot;

	if (!name)
		return -1;
	for (e = parity_web_assets; e->name; e++) {
		if (strcmp(e->name, name) != 0)
			continue;
		*data = e->data;
		*len = e->len;
		dot = strrchr(name, '.');
		*ctype = "application/octet-stream";
		if (dot && !strcmp(dot, ".css"))
			*ctype = "text/css; charset=utf-8";
		else if (dot && !strcmp(dot, ".js"))
			*ctype = "text/javascript; charset=utf-8";
		else if (dot && !strcmp(dot, ".svg"))
			*ctype = "image/svg+xml";
		else if (dot && !strcmp(dot, ".json"))
			*ctype = "application/json";
		return 0;
	}
	return -1;
}

/* Append an embedded text asset as is (it is ours, not user data). */
static int inline_asset(struct buf *out, const char *name)
{
	const unsigned char *d;
	size_t n;
	const char *ct;

	if (web_asset(name, &d, &n, &ct) < 0)
		return 0;
	return buf_append(out, d, n);
}

int web_page_begin(struct buf *out, enum web_mode mode, const char *title, int refresh_s)
{
	return web_page_begin_skip(out, mode, title, refresh_s, NULL, NULL);
}

int web_page_begin_skip(struct buf *out, enum web_mode mode, const char *title, int refresh_s,
                        const char *skip_id, const char *skip_label)
{
	int bad = 0;

	bad |= web_printf(out,
	                  "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	                  "<meta name=\"viewport\" content=\"width=device-width, "
	                  "initial-scale=1\"><meta name=\"color-scheme\" "
	                  "content=\"light dark\"><title>%s</title>",
	                  title);
	if (refresh_s > 0)
		bad |= web_printf(out, "<meta http-equiv=\"refresh\" content=\"%d\">", refresh_s);
	if (mode == WEB_OFFLINE) {
		/* also enforced when the file is opened from disk */
		bad |= web_printf(out,
		                  "<meta http-equiv=\"Content-Security-Policy\" "
		                  "content=\"%s\">",
		                  web_csp_report);
		bad |= buf_puts(out, "<style>");
		bad |= inline_asset(out, "parity.css");
		bad |= buf_puts(out, "</style>");
	} else {
		bad |= buf_puts(out, "<link rel=\"stylesheet\" href=\"/assets/parity.css\">"
		                     "<link rel=\"icon\" href=\"/assets/favicon.svg\" "
		                     "type=\"image/svg+xml\">"
		                     "<script src=\"/assets/parity.js\" defer></script>");
	}
	bad |= buf_puts(out, "</head><body><nav class=\"skip\" aria-label=\"skip links\">");
	if (skip_id && skip_label)
		bad |= web_printf(out, "<a class=\"skip\" href=\"#%s\">%s</a>", skip_id,
		                  skip_label);
	bad |= buf_puts(out, "<a class=\"skip\" href=\"#main\">Skip to content</a></nav>"
	                     "<header class=\"top\">");
	if (mode == WEB_OFFLINE)
		bad |= buf_puts(out, "<span class=\"brand\">parity</span>"
		                     "<span class=\"muted\">offline report</span>");
	else
		bad |= buf_puts(
		        out,
		        "<a class=\"brand\" href=\"/\">parity</a>"
		        "<nav><a href=\"/\">Home</a> <a href=\"/ui/runs\">Runs</a> <a "
		        "href=\"/ui/comparisons\">Comparisons</a> <a "
		        "href=\"/ui/suites\">Suites</a> "
		        "<a href=\"/ui/baselines\">Baselines</a> <a href=\"/openapi.json\">API</a>"
		        "</nav>");
	bad |= buf_puts(out, "</header><main id=\"main\">");
	return bad ? -1 : 0;
}

int web_page_end(struct buf *out, enum web_mode mode)
{
	int bad = 0;

	bad |= buf_puts(out, "</main><footer class=\"muted\">parity &middot; numerics diff "
	                     "viewer</footer>");
	if (mode == WEB_OFFLINE) {
		bad |= buf_puts(out, "<script>");
		bad |= inline_asset(out, "parity.js");
		bad |= buf_puts(out, "</script>");
	}
	bad |= buf_puts(out, "</body></html>\n");
	return bad ? -1 : 0;
}

int web_badge(struct buf *out, const char *v)
{
	/* verdicts are filled, job statuses outlined (and a failed job is not
	 * the red of a failing verdict): class "verdict" or "job" */
	static const char *const verdicts[] = {"pass", "fail", "error", NULL};
	static const char *const statuses[] = {"queued", "running", "done", "failed", NULL};
	const char *cls = "other", *group = "job";
	size_t i;

	if (!v)
		v = "pending";
	for (i = 0; verdicts[i]; i++) {
		if (!strcmp(v, verdicts[i]))
			cls = verdicts[i], group = "verdict";
	}
	for (i = 0; statuses[i]; i++) {
		if (!strcmp(v, statuses[i]))
			cls = statuses[i];
	}
	return web_printf(out, "<span class=\"badge %s v-%s\" title=\"%s %s\">%s</span>", group,
	                  cls, !strcmp(group, "job") ? "job status" : "verdict", v, v);
}

const char *web_train_source_precision(const char *source)
{
	if (source && strcmp(source, "tfevents") == 0)
		return "float32";
	if (source && (strcmp(source, "lossfile") == 0 || strcmp(source, "megatron") == 0))
		return "decimal";
	if (source && strcmp(source, "mllog") == 0)
		return "decimal";
	return "printed";
}

const char *web_act_source_label(const char *source)
{
	if (source && strcmp(source, "msprobe") == 0)
		return "Ascend msprobe dump (dump.json)";
	return "numerics tracer log";
}

const char *web_train_source_label(const char *source)
{
	if (source && strcmp(source, "tfevents") == 0)
		return "TensorBoard event file";
	if (source && strcmp(source, "lossfile") == 0)
		return "golden loss file";
	if (source && strcmp(source, "nvdlfw_inspect") == 0)
		return "DL Framework Inspect statistics log";
	if (source && strcmp(source, "megatron") == 0)
		return "Megatron-LM golden values";
	if (source && strcmp(source, "mllog") == 0)
		return "MLPerf MLLOG file";
	return "stdout log";
}
