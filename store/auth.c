/* auth.c - API tokens: create, look up by digest, list, revoke.
 *
 * The store only ever sees the SHA-256 hex digest of a token; generating
 * tokens, hashing them and comparing in constant time is the server's job
 * (server/http/auth.c).  Token operations are rare (one lookup per authenticated
 * request, a few administrative commands), so the statements here are
 * prepared per call instead of taking slots in the shared statement cache
 * (store_int.h), which keeps this feature self-contained. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

static int valid_hex64(const char *h)
{
	if (!h || strlen(h) != 64)
		return 0;
	for (const char *p = h; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

int store_token_create(struct store *st, const char *name, const char *sha256_hex, int64_t *id)
{
	if (!name || !*name || strlen(name) > 128)
		return store_fail(st, STORE_INVALID, "a token name must be 1 to 128 characters");
	if (!valid_hex64(sha256_hex))
		return store_fail(st, STORE_INVALID,
		                  "token digest must be 64 lower-case hex digits");
	struct store_q *q = store_prep(st, STORE_SQL_NOW("INSERT INTO api_tokens(name, sha256, "
	                                                 "created_at) VALUES (?, ?, ",
	                                                 ") RETURNING id"));
	if (!q)
		return STORE_ERROR;
	store_q_bind_text(q, 1, name);
	store_q_bind_text(q, 2, sha256_hex);
	int64_t new_id;
	int rc = store_q_run_id(q, &new_id);
	if (rc != STORE_Q_ROW) {
		int code = store_q_fail(st, rc, "creating the token");
		if (code == STORE_DUPLICATE)
			return store_fail(
			        st, STORE_DUPLICATE,
			        "a token named '%s' exists already (names are never reused, "
			        "even after revoking)",
			        name);
		return code;
	}
	if (id)
		*id = new_id;
	return 0;
}

int store_token_find(struct store *st, const char *sha256_hex, char stored_hex[65], char *name_out,
                     size_t name_cap, int *revoked)
{
	if (!valid_hex64(sha256_hex))
		return store_fail(st, STORE_NOT_FOUND, "no such token");
	struct store_q *q =
	        store_prep(st, "SELECT sha256, name, revoked_at IS NOT NULL FROM api_tokens "
	                       "WHERE sha256 = ?");
	if (!q)
		return STORE_ERROR;
	store_q_bind_text(q, 1, sha256_hex);
	int rc = store_q_step(q);
	int out = 0;
	if (rc == STORE_Q_ROW) {
		const char *h = store_q_col_text(q, 0);
		const char *n = store_q_col_text(q, 1);
		snprintf(stored_hex, 65, "%s", h ? h : "");
		if (name_out && name_cap)
			snprintf(name_out, name_cap, "%s", n ? n : "");
		if (revoked)
			*revoked = store_q_col_int(q, 2);
	} else if (rc == STORE_Q_DONE) {
		out = store_fail(st, STORE_NOT_FOUND, "no such token");
	} else {
		out = store_q_fail(st, rc, "looking up the token");
	}
	store_q_done(q);
	return out;
}

void store_token_list_free(struct store_token_list *l)
{
	if (!l)
		return;
	free(l->tokens);
	arena_reset(&l->arena);
	memset(l, 0, sizeof *l);
}

int store_tokens_list(struct store *st, struct store_token_list *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *q =
	        store_prep(st, "SELECT id, name, created_at, revoked_at FROM api_tokens "
	                       "ORDER BY id");
	if (!q)
		return STORE_ERROR;
	int rc, bad = 0;
	while (!bad && (rc = store_q_step(q)) == STORE_Q_ROW) {
		struct store_token_info *nv =
		        realloc(out->tokens, (out->n_tokens + 1) * sizeof *nv);
		if ((bad = !nv))
			break;
		out->tokens = nv;
		struct store_token_info *t = &out->tokens[out->n_tokens++];
		t->id = store_q_col_i64(q, 0);
		t->name = store_q_col_dup(&out->arena, q, 1, NULL, &bad);
		t->created_at = store_q_col_dup(&out->arena, q, 2, NULL, &bad);
		t->revoked_at = store_q_col_dup(&out->arena, q, 3, NULL, &bad);
	}
	store_q_done(q);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "listing tokens");
	return 0;
}

int store_token_revoke(struct store *st, const char *name)
{
	struct store_q *q = store_prep(
	        st, STORE_SQL_NOW("UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, ",
	                          ") WHERE name = ?"));
	if (!q)
		return STORE_ERROR;
	store_q_bind_text(q, 1, name ? name : "");
	int64_t changed;
	int rc = store_q_run_changes(q, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "revoking the token");
	if (changed == 0)
		return store_fail(st, STORE_NOT_FOUND, "no token named '%s'", name ? name : "");
	return 0;
}

int store_tokens_active(struct store *st, int *n)
{
	struct store_q *q =
	        store_prep(st, "SELECT count(*) FROM api_tokens WHERE revoked_at IS NULL");
	if (!q)
		return STORE_ERROR;
	int rc = store_q_step(q);
	if (rc == STORE_Q_ROW)
		*n = store_q_col_int(q, 0);
	store_q_done(q);
	return rc == STORE_Q_ROW ? 0 : store_q_fail(st, rc, "counting tokens");
}
