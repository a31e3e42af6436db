/* auth.c - API tokens and the authentication decision (see http.h).
 *
 * Why the lookup is by digest: the database is searched for
 * SHA-256(presented token), so the timing of the index lookup can at most
 * reveal something about a digest, never about a stored token's text; the
 * row found is then confirmed with CRYPTO_memcmp so no early-exit string
 * compare touches secret material.  Tokens carry 256 bits of getrandom()
 * output, so a fast unsalted hash is the right tool (no password
 * stretching needed). */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "crypto_lib.h"
#include "store.h"
#include "http.h"

int srv_token_verify(struct store *db, const char *token, char *name_out, size_t name_cap,
                     char *why, size_t why_cap)
{
	char hex[65], stored[65];
	int revoked = 0;
	if (!token || !*token || strlen(token) > 512) {
		snprintf(why, why_cap, "invalid token");
		return -1;
	}
	if (srv_sha256_hex(token, strlen(token), hex) < 0) {
		snprintf(why, why_cap, "cannot hash the token");
		return -2;
	}
	int rc = store_token_find(db, hex, stored, name_out, name_cap, &revoked);
	if (rc == STORE_NOT_FOUND || (rc == 0 && CRYPTO_memcmp(stored, hex, 64) != 0)) {
		snprintf(why, why_cap, "invalid token");
		return -1;
	}
	if (rc < 0) {
		snprintf(why, why_cap, "database: %s", store_errmsg(db));
		return -2;
	}
	if (revoked) {
		snprintf(why, why_cap, "the token was revoked");
		return -1;
	}
	return 0;
}

/* Writes that are reads too: a subscription (a webhook, an email) is a
 * standing read of every comparison's results, so under --private-reads
 * it needs a token even when writes are open. */
static const char *const subscriptions[] = {"/webhooks"};

int srv_auth_required(const struct srv_config *cfg, const char *method, const char *path)
{
	if (cfg->private_reads && !strcmp(method, "POST"))
		for (size_t i = 0; i < sizeof subscriptions / sizeof subscriptions[0]; i++)
			if (!strcmp(path, subscriptions[i]))
				return 1;
	if (!strcmp(method, "GET") || !strcmp(method, "HEAD") || !strcmp(method, "OPTIONS")) {
		/* health checks and static CSS/JS (no secrets; a browser cannot
		 * send a bearer token for them) stay open */
		if (!strcmp(path, "/healthz") || !strncmp(path, "/assets/", 8))
			return 0;
		return cfg->private_reads;
	}
	return !cfg->writes_open;
}

/* The token of an "Authorization: Bearer <token>" header, or NULL. */
static const char *bearer(const char *h)
{
	if (!h)
		return NULL;
	while (*h == ' ')
		h++;
	if (strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\t'))
		return NULL;
	h += 6;
	while (*h == ' ' || *h == '\t')
		h++;
	return *h ? h : NULL;
}

/* The request's bearer token against the database: 0 valid (token_state
 * 1), else 401 (absent, malformed, unknown or revoked; token_state -1) or
 * 503 (database unavailable), with *err a new error object. */
static int verify_bearer(struct srv_req *r, json_t **err)
{
	r->token_state = -1;
	const char *h = srv_header(r, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *tok = bearer(h);
	if (!tok) {
		*err = srv_error_json(
		        "unauthorized", 0,
		        h ? "the Authorization header must be \"Bearer <token>\""
		          : "this request needs an API token: send "
		            "\"Authorization: Bearer <token>\" (parity token create)");
		return 401;
	}
	/* trailing whitespace some clients add */
	char buf[520];
	size_t n = strlen(tok);
	while (n && (tok[n - 1] == ' ' || tok[n - 1] == '\t'))
		n--;
	if (n >= sizeof buf) {
		*err = srv_error_json("unauthorized", 0, "invalid token");
		return 401;
	}
	memcpy(buf, tok, n);
	buf[n] = 0;
	if (!r->db)
		r->db = srv_db_acquire(r->srv);
	if (!r->db) {
		*err = srv_error_json("database", 0, "database unavailable");
		return 503;
	}
	char why[256];
	int rc = srv_token_verify(r->db, buf, r->token_name, sizeof r->token_name, why, sizeof why);
	OPENSSL_cleanse(buf, sizeof buf);
	if (rc == -1) {
		*err = srv_error_json("unauthorized", 0, "%s", why);
		return 401;
	}
	if (rc < 0) {
		srv_log("token check: %s", why);
		*err = srv_error_json("database", 0, "cannot check the token");
		return 503;
	}
	r->token_state = 1;
	return 0;
}

int srv_auth_check(struct srv_req *r, json_t **err)
{
	*err = NULL;
	if (!srv_auth_required(&r->srv->cfg, r->method, r->url))
		return 0;
	return verify_bearer(r, err);
}

int srv_auth_has_token(struct srv_req *r)
{
	if (r->token_state == 0) {
		json_t *err = NULL;
		verify_bearer(r, &err);
		json_decref(err);
	}
	return r->token_state == 1;
}

int srv_auth_may_read(struct srv_req *r)
{
	return !r->srv->cfg.private_reads || srv_auth_has_token(r);
}
