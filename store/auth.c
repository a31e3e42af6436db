/* auth.c - API tokens: create, look up by digest, list, revoke.
 *
 * The store only ever sees the SHA-256 hex digest of a token; generating
 * tokens, hashing them and comparing in constant time is the server's job
 * (server/auth.c).  Token operations are rare (one lookup per authenticated
 * request, a few administrative commands), so the statements here are
 * prepared per call instead of taking slots in the shared statement cache
 * (store_int.h), which keeps this feature self-contained. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

/* Prepare sql on st; NULL with errmsg set on failure. */
#define prep store_raw_prep

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
	sqlite3_stmt *s = prep(st, "INSERT INTO api_tokens(name, sha256, created_at) "
	                           "VALUES (?, ?, " NOW ")");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, sha256_hex, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		int code = store_sqlfail(st, rc, "creating the token");
		if (code == STORE_DUPLICATE)
			return store_fail(
			        st, STORE_DUPLICATE,
			        "a token named '%s' exists already (names are never reused, "
			        "even after revoking)",
			        name);
		return code;
	}
	if (id)
		*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_token_find(struct store *st, const char *sha256_hex, char stored_hex[65], char *name_out,
                     size_t name_cap, int *revoked)
{
	if (!valid_hex64(sha256_hex))
		return store_fail(st, STORE_NOT_FOUND, "no such token");
	sqlite3_stmt *s = prep(st, "SELECT sha256, name, revoked_at IS NOT NULL FROM api_tokens "
	                           "WHERE sha256 = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, sha256_hex, -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	int out = 0;
	if (rc == SQLITE_ROW) {
		const char *h = (const char *)sqlite3_column_text(s, 0);
		const char *n = (const char *)sqlite3_column_text(s, 1);
		snprintf(stored_hex, 65, "%s", h ? h : "");
		if (name_out && name_cap)
			snprintf(name_out, name_cap, "%s", n ? n : "");
		if (revoked)
			*revoked = sqlite3_column_int(s, 2);
	} else if (rc == SQLITE_DONE) {
		out = store_fail(st, STORE_NOT_FOUND, "no such token");
	} else {
		out = store_sqlfail(st, rc, "looking up the token");
	}
	sqlite3_finalize(s);
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
	sqlite3_stmt *s = prep(st, "SELECT id, name, created_at, revoked_at FROM api_tokens "
	                           "ORDER BY id");
	if (!s)
		return STORE_ERROR;
	int rc, bad = 0;
	while (!bad && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct store_token_info *nv =
		        realloc(out->tokens, (out->n_tokens + 1) * sizeof *nv);
		if ((bad = !nv))
			break;
		out->tokens = nv;
		struct store_token_info *t = &out->tokens[out->n_tokens++];
		t->id = sqlite3_column_int64(s, 0);
		t->name = store_col_dup(&out->arena, s, 1, NULL, &bad);
		t->created_at = store_col_dup(&out->arena, s, 2, NULL, &bad);
		t->revoked_at = store_col_dup(&out->arena, s, 3, NULL, &bad);
	}
	sqlite3_finalize(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "listing tokens");
	return 0;
}

int store_token_revoke(struct store *st, const char *name)
{
	sqlite3_stmt *s = prep(st, "UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, " NOW
	                           ") WHERE name = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_text(s, 1, name ? name : "", -1, SQLITE_STATIC);
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "revoking the token");
	if (sqlite3_changes(st->db) == 0)
		return store_fail(st, STORE_NOT_FOUND, "no token named '%s'", name ? name : "");
	return 0;
}

int store_tokens_active(struct store *st, int *n)
{
	sqlite3_stmt *s = prep(st, "SELECT count(*) FROM api_tokens WHERE revoked_at IS NULL");
	if (!s)
		return STORE_ERROR;
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_sqlfail(st, rc, "counting tokens");
}
