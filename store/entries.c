/* entries.c - activation entries: the hot ingest INSERT (one prepared
 * statement, no lookups: hundreds of thousands of rows a second inside one
 * transaction) and the paged, filterable ops listing of a run.
 *
 * Compact rows (issue 12: a run's rows and its raw file together should
 * take no more room than its log).  Only the text is stored: the module,
 * op_index and op_name columns (the key "module.fqn/op_N_name" split) and
 * the REAL columns l1..mean are left NULL by this INSERT, and readers
 * derive them: the split from the key (split_key), each number from its
 * text and the stat_isnum bitmask (matcher_parse_number, the parser's own
 * function, so the double is the one the parser produced; "nan" gives NaN).
 * That saves ~77 bytes an entry (~20 % of the rows).  Rows stored before
 * (with those columns filled) read the same, since the derivation is what
 * filled them.  Any new SQL over these columns must derive them too. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Split key into module (length *mod_len; NULL when no '/') and the op
 * counter / name of an "op_N_name" tail (op_index -1 when not that shape). */
static void split_key(const char *key, const char **module, size_t *mod_len, long *op_index,
                      const char **op_name)
{
	const char *slash = strrchr(key, '/');
	const char *tail = key;
	*module = NULL;
	*mod_len = 0;
	*op_index = -1;
	*op_name = NULL;
	if (slash) {
		*module = key;
		*mod_len = (size_t)(slash - key);
		tail = slash + 1;
	}
	if (strncmp(tail, "op_", 3) != 0)
		return;
	const char *p = tail + 3;
	long n = 0;
	int digits = 0;
	while (*p >= '0' && *p <= '9' && digits < 12) {
		n = n * 10 + (*p - '0');
		p++;
		digits++;
	}
	if (digits == 0 || *p != '_')
		return;
	*op_index = n;
	*op_name = p + 1;
}

int store_entry_add(struct store *st, int64_t log_id, const struct matcher_entry *e)
{
	sqlite3_stmt *s =
	        store_raw_stmt(st, SID_ENTRY_INSERT,
	                       "INSERT INTO entries(log_id, ord, line, key, phase, shape, l1_text, "
	                       "l2_text, min_text, max_text, mean_text, stat_isnum, output_hash, "
	                       "input_hashes, input_producers, location) VALUES (?, ?, ?, ?, ?, ?, "
	                       "?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	if (!e->key)
		return store_fail(st, STORE_INVALID, "entry without a key");
	sqlite3_bind_int64(s, 1, log_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)e->order);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)e->line);
	sqlite3_bind_text(s, 4, e->key, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 5, e->phase == MATCHER_BACKWARD ? 1 : 0);
	store_bind_text(s, 6, e->stats[MATCHER_STAT_SHAPE]);
	unsigned isnum = 0;
	for (int i = MATCHER_STAT_L1; i < MATCHER_N_STATS; i++) {
		store_bind_text(s, 7 + (i - MATCHER_STAT_L1), e->stats[i]);
		if (e->stats[i] && (e->stat_isnum & (1u << i)))
			isnum |= 1u << i;
	}
	sqlite3_bind_int(s, 12, (int)isnum);
	store_bind_text(s, 13, e->output_hash);
	store_bind_text(s, 14, e->input_hashes);
	store_bind_text(s, 15, e->input_producers);
	store_bind_text(s, 16, e->location);
	int rc = sqlite3_step(s);
	/* every parameter is bound on each call: reset only (clearing the
	 * 16 bindings too costs ~3 % of this insert) */
	sqlite3_reset(s);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "storing an entry");
	return 0;
}

/* ---- listing ------------------------------------------------------------- */

void store_op_page_free(struct store_op_page *p)
{
	if (!p)
		return;
	free(p->ops);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* One op from (l.rank, STORE_ENTRY_COLS) into the page. */
static int op_item(struct store *st, sqlite3_stmt *s, void *ctx, size_t *bytes)
{
	struct store_op_page *p = ctx;
	struct store_op *nv = realloc(p->ops, (p->n_ops + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->ops = nv;
	struct store_op *o = &p->ops[p->n_ops++];
	memset(o, 0, sizeof *o);
	o->rank = sqlite3_column_int(s, 0);
	store_entry_from_raw(s, 1, &o->e);
	*bytes += 256;
	if (!o->e.key)
		o->e.key = "";
	if (store_entry_keep(&p->arena, &o->e, bytes) < 0)
		return store_fail(st, STORE_ERROR, "out of memory");
	/* module and op from the key (see the top of this file) */
	const char *module = NULL, *op_name = NULL;
	size_t mod_len = 0;
	split_key(o->e.key, &module, &mod_len, &o->op_index, &op_name);
	o->op_name = op_name;
	if (module && !(o->module = arena_strndup(&p->arena, module, mod_len)))
		return store_fail(st, STORE_ERROR, "out of memory");
	return 0;
}

static void op_drop(void *ctx)
{
	((struct store_op_page *)ctx)->n_ops--;
}

int store_ops_list(struct store *st, int64_t run_id, int rank, const char *phase,
                   const struct store_key_filter *keys, int limit, const char *cursor,
                   struct store_op_page *out)
{
	int64_t cur[2] = {INT_MIN, -1};
	int phase_v = -1, rc;
	const char *regex = NULL;
	memset(out, 0, sizeof *out);
	if (phase && phase[0]) {
		if (strcmp(phase, "forward") == 0)
			phase_v = 0;
		else if (strcmp(phase, "backward") == 0)
			phase_v = 1;
		else
			return store_fail(st, STORE_INVALID,
			                  "phase must be \"forward\" or \"backward\"");
	}
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	if ((rc = store_cursor_parse(st, cursor, 'o', cur, 2)) < 0)
		goto done;
	if ((rc = store_run_exists(st, run_id)) <= 0) {
		if (rc == 0)
			rc = store_fail(st, STORE_NOT_FOUND, "run %lld not found",
			                (long long)run_id);
		goto done;
	}
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_raw_stmt(
	        st, SID_OPS_PAGE,
	        "SELECT l.rank, " STORE_ENTRY_COLS(
	                "e") " FROM logs l JOIN entries e ON e.log_id = l.id "
	                     "WHERE l.run_id = ?1 AND (?2 < 0 OR l.rank = ?2) AND l.rank >= ?5 "
	                     "AND e.ord > CASE WHEN l.rank = ?5 THEN ?6 ELSE -1 END "
	                     "AND (?3 < 0 OR e.phase = ?3) AND (?4 IS NULL OR e.key REGEXP ?4) "
	                     "ORDER BY l.rank, e.ord LIMIT ?7");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int(s, 2, rank);
	sqlite3_bind_int(s, 3, phase_v);
	store_bind_text(s, 4, regex);
	sqlite3_bind_int64(s, 5, cur[0]);
	sqlite3_bind_int64(s, 6, cur[1]);
	sqlite3_bind_int(s, 7, limit + 1);
	static const int keys_cols[] = {0, 1};
	rc = store_page_walk(st, s, limit, 'o', keys_cols, 2, op_item, op_drop, out, "listing ops",
	                     out->next_cursor);
done:
	return store_keymatch_end(st, rc);
}
