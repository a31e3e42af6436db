/* h_webhooks.c - the webhook resources: create (validated completely
 * here), list, delete, and the deliveries of one webhook with every
 * attempt.  The secret and the github-status token are write-only: no
 * response ever contains them (has_secret / has_token say whether set).
 *
 * Reads may be open (the default), and a hook URL often is a credential
 * itself (user:password@, a Slack or Teams path), while a receiver's
 * reply may be an internal service's: a reader without a valid token sees
 * URLs masked (srv_webhook_url_mask) and attempt errors without the
 * response body (srv_webhook_error_public).  Destinations resolving to
 * internal addresses are refused at creation (and again at send time in
 * webhooks.c) unless --webhook-allow-private. */
#include "curl_lib.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "json_views.h"
#include "store.h"
#include "api.h"
#include "delivery.h"
#include "http.h"

#define URL_MAX    2048
#define SECRET_MAX 1024

/* Replace the string member key of o by its masked URL. */
static void mask_url_member(json_t *o, const char *key)
{
	const char *u = json_string_value(json_object_get(o, key));
	if (!u || !*u) /* "" = a delivery never addressed */
		return;
	char masked[URL_MAX + 64];
	srv_webhook_url_mask(u, masked, sizeof masked);
	json_object_set_new(o, key, json_string(masked));
}

/* Email recipients for a reader without a token: "***@domain" each. */
static void mask_to_member(json_t *o)
{
	json_t *to = json_object_get(o, "to"), *a;
	size_t i;
	json_array_foreach(to, i, a)
	{
		const char *at = strchr(json_string_value(a) ? json_string_value(a) : "", '@');
		char masked[300];
		snprintf(masked, sizeof masked, "***%s", at ? at : "");
		json_array_set_new(to, i, json_string(masked));
	}
}

/* The recipients of an email webhook: 1 to SRV_MAIL_MAX_TO valid
 * addresses (duplicates collapse, case-insensitively) into *out as JSON
 * text (malloc'd) and "mailto:a,b" into url.  0, or -1 with msg. */
static int email_recipients(json_t *to, char **out, char *url, size_t url_cap, char *msg,
                            size_t cap)
{
	size_t i, k;
	json_t *a, *seen;
	*out = NULL;
	if (!json_is_array(to) || json_array_size(to) == 0 ||
	    json_array_size(to) > SRV_MAIL_MAX_TO) {
		snprintf(msg, cap, "to must be an array of 1 to %d email addresses",
		         SRV_MAIL_MAX_TO);
		return -1;
	}
	json_t *list = json_array();
	size_t o = (size_t)snprintf(url, url_cap, "mailto:");
	json_array_foreach(to, i, a)
	{
		const char *addr = json_string_value(a);
		if (!addr || memchr(addr, 0, json_string_length(a)) || !srv_mail_addr_valid(addr)) {
			/* the address itself is not echoed: it may hold CR/LF */
			snprintf(msg, cap,
			         "to[%zu] is not a plain email address (local@domain, no name, "
			         "spaces or control characters)",
			         i);
			json_decref(list);
			return -1;
		}
		int dup = 0;
		json_array_foreach(list, k, seen) dup |= !strcasecmp(json_string_value(seen), addr);
		if (dup)
			continue;
		json_array_append(list, a);
		o += (size_t)snprintf(url + o, o < url_cap ? url_cap - o : 0, "%s%s",
		                      json_array_size(list) > 1 ? "," : "", addr);
	}
	*out = json_dumps(list, JSON_COMPACT);
	json_decref(list);
	if (!*out || o >= url_cap) {
		free(*out);
		*out = NULL;
		snprintf(msg, cap, "out of memory");
		return -1;
	}
	return 0;
}

/* Replace the string member key of o by its public form (no body). */
static void redact_error_member(json_t *o, const char *key)
{
	const char *e = json_string_value(json_object_get(o, key));
	if (!e)
		return;
	size_t n = strlen(e) + 1;
	char *out = malloc(n);
	if (!out) {
		json_object_set_new(o, key, json_null());
		return;
	}
	srv_webhook_error_public(e, out, n);
	json_t *v = json_string(out);
	json_object_set_new(o, key, v ? v : json_null());
	free(out);
}

/* An absolute http(s) URL with a host, no whitespace or control bytes.
 * "{sha}" is allowed (github-status) and checked with a stand-in. */
static int valid_url(const char *u, char *msg, size_t cap)
{
	size_t n = strlen(u);
	if (n == 0 || n > URL_MAX) {
		snprintf(msg, cap, "url must be 1 to %d characters", URL_MAX);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)u[i] <= 0x20 || u[i] == 0x7f) {
			snprintf(msg, cap, "url must not contain spaces or control characters");
			return 0;
		}
	if (strncasecmp(u, "http://", 7) && strncasecmp(u, "https://", 8)) {
		snprintf(msg, cap, "url must start with http:// or https://");
		return 0;
	}
	char probe[URL_MAX + 64];
	if (srv_webhook_url_subst(u, "0123456789abcdef", probe, sizeof probe) < 0) {
		snprintf(msg, cap, "url is too long");
		return 0;
	}
	CURLU *h = curl_url();
	char *host = NULL;
	int ok = h && curl_url_set(h, CURLUPART_URL, probe, 0) == CURLUE_OK &&
	         curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && *host;
	curl_free(host);
	curl_url_cleanup(h);
	if (!ok)
		snprintf(msg, cap, "url is not a valid absolute URL");
	return ok;
}

int srv_h_webhooks_create(struct srv_req *r)
{
	char msg[256];
	int rc = MHD_YES;
	char *events_text = NULL, *recipients = NULL;
	json_t *req = srv_body_json_or_reply(r);
	if (!req)
		return MHD_YES;
	const char *key;
	json_t *val;
	json_object_foreach(req, key, val)
	{
		if (strcmp(key, "url") && strcmp(key, "secret") && strcmp(key, "events") &&
		    strcmp(key, "format") && strcmp(key, "token") && strcmp(key, "to")) {
			rc = srv_reply_error(
			        r, 400, "unknown_field",
			        "unknown field '%.60s' (url, secret, events, format, token, to)",
			        key);
			goto done;
		}
	}
	json_t *url = json_object_get(req, "url"), *secret = json_object_get(req, "secret");
	json_t *events = json_object_get(req, "events"), *format = json_object_get(req, "format");
	json_t *token = json_object_get(req, "token"), *to = json_object_get(req, "to");
	const char *fmt = "generic";
	if (format && !json_is_null(format)) {
		fmt = json_string_value(format);
		if (!fmt || (strcmp(fmt, "generic") && strcmp(fmt, "github-status") &&
		             strcmp(fmt, "email"))) {
			rc = srv_reply_error(r, 400, "bad_parameter",
			                     "format must be \"generic\", \"github-status\" or "
			                     "\"email\"");
			goto done;
		}
	}
	int email = !strcmp(fmt, "email"), github = !strcmp(fmt, "github-status");
	const char *sec = NULL, *tok = NULL;
	char mailto[SRV_MAIL_MAX_TO * 256 + 16];
	if (email) {
		if (url && !json_is_null(url)) {
			rc = srv_reply_error(r, 400, "bad_parameter",
			                     "url does not apply to email (the daemon's --smtp-url "
			                     "sends it to the addresses in to)");
			goto done;
		}
		if ((secret && !json_is_null(secret)) || (token && !json_is_null(token))) {
			rc = srv_reply_error(r, 400, "bad_parameter",
			                     "secret and token do not apply to email");
			goto done;
		}
		if (email_recipients(to, &recipients, mailto, sizeof mailto, msg, sizeof msg) < 0) {
			rc = srv_reply_error(r, 400, "bad_parameter", "%s", msg);
			goto done;
		}
		if (!r->srv->cfg.smtp_url[0]) {
			rc = srv_reply_error(r, 400, "mail_not_configured",
			                     "the daemon has no --smtp-url: email subscriptions "
			                     "cannot be sent");
			goto done;
		}
		goto events;
	}
	if (to && !json_is_null(to)) {
		rc = srv_reply_error(r, 400, "bad_parameter", "to applies to email only");
		goto done;
	}
	if (!json_is_string(url)) {
		rc = srv_reply_error(r, 400, "bad_parameter", "url is required (a string)");
		goto done;
	}
	if (!valid_url(json_string_value(url), msg, sizeof msg)) {
		rc = srv_reply_error(r, 400, "bad_parameter", "%s", msg);
		goto done;
	}
	char why[512];
	int guard = srv_webhook_url_allowed(&r->srv->cfg, json_string_value(url), why, sizeof why);
	if (guard == SRV_NETGUARD_REFUSED) {
		rc = srv_reply_error(r, 400, "destination_not_allowed",
		                     "%s: webhooks may not reach internal addresses (the daemon "
		                     "runs with --webhook-allow-private to allow them)",
		                     why);
		goto done;
	}
	if (guard != SRV_NETGUARD_OK) {
		rc = srv_reply_error(r, 400, "unresolved_host",
		                     "%s: the destination is checked when the webhook is "
		                     "created",
		                     why);
		goto done;
	}
	if (secret && !json_is_null(secret) &&
	    (!json_is_string(secret) || json_string_length(secret) > SECRET_MAX)) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "secret must be a string of at most %d "
		                     "bytes",
		                     SECRET_MAX);
		goto done;
	}
	sec = json_string_value(secret);
	if (!github && (!sec || !*sec)) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "secret is required: receivers verify X-Parity-Signature-256 "
		                     "with it");
		goto done;
	}
	if (sec && memchr(sec, 0, json_string_length(secret))) {
		rc = srv_reply_error(r, 400, "bad_parameter", "secret must not contain NUL");
		goto done;
	}
	tok = json_string_value(token);
	if (github) {
		if (!tok || !*tok || strlen(tok) > SECRET_MAX || strpbrk(tok, "\r\n") ||
		    memchr(tok, 0, json_string_length(token))) {
			rc = srv_reply_error(
			        r, 400, "bad_parameter",
			        "token is required for github-status (the bearer token "
			        "GitHub accepts, one line)");
			goto done;
		}
	} else if (token && !json_is_null(token)) {
		rc = srv_reply_error(r, 400, "bad_parameter",
		                     "token applies to github-status only");
		goto done;
	}
events:;
	json_t *ev = json_array();
	if (!events || json_is_null(events)) {
		json_array_append_new(ev, json_string(SRV_EVENT_COMPLETED));
	} else {
		size_t i;
		json_t *e;
		if (!json_is_array(events) || json_array_size(events) == 0) {
			json_decref(ev);
			rc = srv_reply_error(r, 400, "bad_parameter",
			                     "events must be a non-empty array of event names");
			goto done;
		}
		json_array_foreach(events, i, e)
		{
			const char *en = json_string_value(e);
			if (!en || (strcmp(en, SRV_EVENT_COMPLETED) &&
			            strcmp(en, SRV_EVENT_SUITE_COMPLETED))) {
				json_decref(ev);
				rc = srv_reply_error(r, 400, "bad_parameter",
				                     "unknown event (known: " SRV_EVENT_COMPLETED
				                     ", " SRV_EVENT_SUITE_COMPLETED ")");
				goto done;
			}
			size_t k;
			json_t *seen;
			int dup = 0;
			json_array_foreach(ev, k, seen) dup |= json_equal(seen, e);
			if (!dup) /* duplicates collapse */
				json_array_append(ev, e);
		}
	}
	events_text = json_dumps(ev, JSON_COMPACT);
	json_decref(ev);
	struct store *db = srv_db_or_reply(r);
	if (!db)
		goto done;
	int64_t id;
	int src = store_webhook_create(db, email ? mailto : json_string_value(url), sec ? sec : "",
	                               events_text, fmt, github ? tok : NULL, recipients, &id);
	if (src < 0) {
		rc = srv_reply_store_error(r, src);
		goto done;
	}
	struct store_webhook_view hv;
	json_t *h = store_webhook_get(db, id, &hv) < 0 ? NULL : web_webhook_json(&hv.hook);
	store_webhook_view_free(&hv);
	if (!h) {
		rc = srv_reply_error(r, 500, "database", "cannot read the webhook back");
		goto done;
	}
	if (!srv_auth_has_token(r)) {
		mask_url_member(h, "url");
		mask_to_member(h);
	}
	if (github && !r->srv->cfg.public_url[0])
		json_object_set_new(h, "warning",
		                    json_string("the daemon has no --public-url: statuses are "
		                                "sent without target_url"));
	rc = srv_reply_json(r, 201, h);
done:
	free(events_text);
	free(recipients);
	json_decref(req);
	return rc;
}

int srv_h_webhooks_list(struct srv_req *r)
{
	long long limit;
	const char *cursor;
	if (srv_page_params_or_reply(r, 100, &limit, &cursor) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_webhook_page page;
	int rc = store_webhooks_list(db, (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_webhooks_page_json(&page);
	store_webhook_page_free(&page);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	if (!srv_auth_has_token(r)) {
		size_t i;
		json_t *h;
		json_array_foreach(json_object_get(out, "webhooks"), i, h)
		{
			mask_url_member(h, "url");
			mask_to_member(h);
		}
	}
	return srv_reply_json(r, 200, out);
}

int srv_h_webhook_delete(struct srv_req *r)
{
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	int rc = store_webhook_delete(db, r->id);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	return srv_reply_deleted(r);
}

int srv_h_webhook_deliveries(struct srv_req *r)
{
	long long limit;
	const char *cursor;
	if (srv_page_params_or_reply(r, 50, &limit, &cursor) < 0)
		return MHD_YES;
	struct store *db = srv_db_or_reply(r);
	if (!db)
		return MHD_YES;
	struct store_delivery_page page;
	int rc = store_deliveries_list(db, r->id, (int)limit, cursor, &page);
	json_t *out = rc < 0 ? NULL : web_deliveries_page_json(&page);
	store_delivery_page_free(&page);
	if (rc < 0)
		return srv_reply_store_error(r, rc);
	if (!out)
		return srv_reply_error(r, 500, "internal", "out of memory");
	if (!srv_auth_has_token(r)) {
		size_t i, j;
		json_t *d, *a;
		json_array_foreach(json_object_get(out, "deliveries"), i, d)
		{
			mask_url_member(d, "url");
			redact_error_member(d, "last_error");
			json_array_foreach(json_object_get(d, "attempt_log"), j, a)
			{
				redact_error_member(a, "error");
			}
		}
	}
	return srv_reply_json(r, 200, out);
}
