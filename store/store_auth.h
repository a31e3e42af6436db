/* store_auth.h - part of store.h, which includes it (include store.h,
 * never this file alone): API tokens (store/auth.c). */
#ifndef PARITY_STORE_AUTH_H
#define PARITY_STORE_AUTH_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- API tokens (store/auth.c) ----------------------------------------- */

/* New token row.  name: 1-128 bytes, unique for ever (a revoked name is
 * not reused: STORE_DUPLICATE); sha256_hex: 64 lower-case hex digits of
 * the token text (STORE_INVALID otherwise).  The token itself is never
 * stored.  *id (may be NULL) gets the row id. */
int store_token_create(struct store *st, const char *name, const char *sha256_hex, int64_t *id);
/* Look a token up by its digest.  On 0: stored_hex (65 bytes) holds the
 * stored digest (for the caller's constant-time confirmation), name_out
 * (may be NULL) its name, *revoked (may be NULL) 1 when revoked.
 * STORE_NOT_FOUND when no token has that digest. */
int store_token_find(struct store *st, const char *sha256_hex, char stored_hex[65], char *name_out,
                     size_t name_cap, int *revoked);
/* The API tokens, oldest first, without their digests; strings in the
 * list's arena until store_token_list_free. */
struct store_token_info {
	int64_t id;
	const char *name;
	const char *created_at;
	const char *revoked_at; /* NULL while active */
};
struct store_token_list {
	struct store_token_info *tokens;
	size_t n_tokens;
	struct arena arena;
};
void store_token_list_free(struct store_token_list *l);
/* Every token into *out (zeroed first; free it whatever the result). */
int store_tokens_list(struct store *st, struct store_token_list *out);
/* Mark the named token revoked (idempotent).  STORE_NOT_FOUND. */
int store_token_revoke(struct store *st, const char *name);
/* Number of tokens not revoked. */
int store_tokens_active(struct store *st, int *n);

#endif
