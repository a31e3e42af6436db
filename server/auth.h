/* auth.h - API tokens and the authentication decision for HTTP requests,
 * plus the two keyed-hash primitives the CI features share (token digests,
 * webhook signatures).
 *
 * Tokens are "pty_" + 43 base64url characters (32 bytes from getrandom).
 * Only SHA-256(token text) is stored.  A request proves itself with
 * `Authorization: Bearer <token>`; the digest is looked up and the stored
 * digest confirmed with CRYPTO_memcmp.  Writes (POST, DELETE) need a token
 * unless cfg.writes_open; reads need one only with cfg.private_reads;
 * GET /healthz and everything under /assets/ are always open.
 * Thread-safe: no state of its own. */
#ifndef PARITY_AUTH_H
#define PARITY_AUTH_H

#include <jansson.h>
#include <stddef.h>

struct srv_config;
struct srv_req;
struct store;

#define SRV_TOKEN_PREFIX "pty_"
#define SRV_TOKEN_LEN    47 /* prefix + 43 base64url characters */

/* Lower-case hex SHA-256 of data[0..len) into hex (65 bytes with NUL).
 * 0, or -1 when OpenSSL fails. */
int srv_sha256_hex(const void *data, size_t len, char hex[65]);

/* Lower-case hex HMAC-SHA256 of data with key into hex (65 bytes).  The
 * GitHub convention: receivers compare "sha256=" + hex with the
 * X-Parity-Signature-256 header.  0 or -1. */
int srv_hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len,
                        char hex[65]);

/* A new random token (SRV_TOKEN_LEN chars + NUL) into out; cap must be
 * > SRV_TOKEN_LEN.  Uses getrandom(); 0, or -1 when no randomness could be
 * had (never falls back to a weak source). */
int srv_token_generate(char *out, size_t cap);

/* Check a presented token against the database: 0 valid and not revoked
 * (name_out, when not NULL, gets its name), -1 unknown or revoked (reason
 * in why, a short sentence), -2 database error.  Constant-time confirm. */
int srv_token_verify(struct store *db, const char *token, char *name_out, size_t name_cap,
                     char *why, size_t why_cap);

/* 1 when a request with this method and path must carry a token under cfg. */
int srv_auth_required(const struct srv_config *cfg, const char *method, const char *path);

/* The decision for one request (first libmicrohttpd callback, after route
 * lookup): 0 allowed; otherwise the HTTP status (401, or 503 when the
 * database is unavailable) with *err a new error object for the reply.
 * May borrow r->db from the pool (released with the request). */
int srv_auth_check(struct srv_req *r, json_t **err);

/* 1 when the request carries a valid, unrevoked bearer token, whether or
 * not its route needs one (open reads use it to decide what to show: see
 * h_webhooks.c), else 0; a bad token is not an error here.  Checked once
 * per request (cached in r->token_state); may borrow r->db. */
int srv_auth_has_token(struct srv_req *r);

#endif
