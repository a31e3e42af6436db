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

/* The insert: on PostgreSQL entries.log_id has no foreign key (migration
 * 011), so the row is inserted only while the log exists, which it then
 * keeps locked (FOR KEY SHARE, as the COPY of store/pg/load.c) until the
 * transaction ends: no row -> STORE_NOT_FOUND, as SQLite's foreign key. */
#define ENTRY_COLS_INSERT                                                                          \
	"INSERT INTO entries(log_id, ord, line, key, phase, shape, l1_text, l2_text, min_text, "   \
	"max_text, mean_text, stat_isnum, output_hash, input_hashes, input_producers, location) "
#define ENTRY_INSERT_LITE                                                                          \
	ENTRY_COLS_INSERT "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
#define ENTRY_INSERT_PG                                                                            \
	ENTRY_COLS_INSERT                                                                          \
	"SELECT l.id, CAST(?2 AS BIGINT), CAST(?3 AS BIGINT), CAST(?4 AS TEXT), "                  \
	"CAST(?5 AS BIGINT), CAST(?6 AS TEXT), CAST(?7 AS TEXT), CAST(?8 AS TEXT), "               \
	"CAST(?9 AS TEXT), CAST(?10 AS TEXT), CAST(?11 AS TEXT), CAST(?12 AS BIGINT), "            \
	"CAST(?13 AS TEXT), CAST(?14 AS TEXT), CAST(?15 AS TEXT), CAST(?16 AS TEXT) "              \
	"FROM logs l WHERE l.id = CAST(?1 AS BIGINT) FOR KEY SHARE"

int store_entry_add(struct store *st, int64_t log_id, const struct matcher_entry *e)
{
	struct store_q *q =
	        store_stmt(st, SID_ENTRY_INSERT, STORE_SQL(ENTRY_INSERT_LITE, ENTRY_INSERT_PG));
	if (!q)
		return STORE_ERROR;
	if (!e->key)
		return store_fail(st, STORE_INVALID, "entry without a key");
	store_q_bind_i64(q, 1, log_id);
	store_q_bind_i64(q, 2, (int64_t)e->order);
	store_q_bind_i64(q, 3, (int64_t)e->line);
	store_q_bind_text(q, 4, e->key);
	store_q_bind_i64(q, 5, e->phase == MATCHER_BACKWARD ? 1 : 0);
	store_q_bind_text(q, 6, e->stats[MATCHER_STAT_SHAPE]);
	unsigned isnum = 0;
	for (int i = MATCHER_STAT_L1; i < MATCHER_N_STATS; i++) {
		store_q_bind_text(q, 7 + (i - MATCHER_STAT_L1), e->stats[i]);
		if (e->stats[i] && (e->stat_isnum & (1u << i)))
			isnum |= 1u << i;
	}
	store_q_bind_i64(q, 12, (int64_t)isnum);
	store_q_bind_text(q, 13, e->output_hash);
	store_q_bind_text(q, 14, e->input_hashes);
	store_q_bind_text(q, 15, e->input_producers);
	store_q_bind_text(q, 16, e->location);
	int rc = store_q_step(q);
	int64_t changed = store_q_changes(q);
	/* every parameter is bound on each call: reset only (clearing the
	 * 16 bindings too costs ~3 % of this insert) */
	store_q_reset(q);
	if ((rc < 0 && store_q_fk_violation(st)) || (rc == STORE_Q_DONE && changed == 0))
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc < 0)
		return store_q_fail(st, rc, "storing an entry");
	return 0;
}

/* A bulk of entries (store.h): a COPY on PostgreSQL, the prepared insert
 * (store_entry_add) per entry on SQLite. */
struct store_entries {
	struct store *st;
	int64_t log_id, n;
	struct store_pg_copy *copy; /* PostgreSQL */
};

int store_entries_begin(struct store *st, int64_t log_id, struct store_entries **out)
{
	*out = NULL;
	struct store_entries *b = calloc(1, sizeof *b);
	if (!b)
		return store_fail(st, STORE_ERROR, "out of memory");
	b->st = st;
	b->log_id = log_id;
	if (st->backend == STORE_BACKEND_PG) {
		int rc = store_pg_error(st, store_pg_entries_begin(st->pg, log_id, &b->copy));
		if (rc < 0) {
			free(b);
			return rc;
		}
	}
	*out = b;
	return 0;
}

int store_entries_add(struct store_entries *b, const struct matcher_entry *e)
{
	int rc = b->copy ? store_pg_error(b->st, store_pg_entries_add(b->copy, e))
	                 : store_entry_add(b->st, b->log_id, e);
	if (rc == 0)
		b->n++;
	return rc;
}

int store_entries_end(struct store_entries *b, int fail, int64_t *n_rows)
{
	int rc = 0;
	if (n_rows)
		*n_rows = b->n;
	if (b->copy)
		rc = store_pg_error(b->st, store_pg_entries_end(b->copy, fail, n_rows));
	free(b);
	return rc;
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
static int op_item(struct store *st, struct store_q *q, void *ctx, size_t *bytes)
{
	struct store_op_page *p = ctx;
	struct store_op *nv = realloc(p->ops, (p->n_ops + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->ops = nv;
	struct store_op *o = &p->ops[p->n_ops++];
	memset(o, 0, sizeof *o);
	o->rank = store_q_col_int(q, 0);
	store_entry_from_cols(q, 1, &o->e);
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

/* The ops page: ?1 run, ?2 rank (< 0 all), ?3 phase (< 0 both), ?4 the
 * key regex (NULL none), ?5/?6 the cursor (rank, ord), ?7 the LIMIT.  On
 * PostgreSQL the regex is matched in C (store_q_key_filter): the SQL only
 * names ?4 (with its type), and the cursor's ord is a bigint. */
#define OPS_KEY_LITE "(?4 IS NULL OR e.key REGEXP ?4)"
#define OPS_KEY_PG   "(CAST(?4 AS TEXT) IS NULL OR TRUE)"
#define OPS_ORD_LITE "?6"
#define OPS_ORD_PG   "CAST(?6 AS BIGINT)"
#define OPS_PAGE(d)                                                                                \
	"SELECT l.rank, " STORE_ENTRY_COLS(                                                        \
	        "e") " FROM logs l JOIN entries e ON e.log_id = l.id "                             \
	             "WHERE l.run_id = ?1 AND (?2 < 0 OR l.rank = ?2) "                            \
	             "AND l.rank >= ?5 "                                                           \
	             "AND e.ord > CASE WHEN l.rank = ?5 THEN " OPS_ORD_##d                         \
	        " ELSE -1 END AND (?3 < 0 OR e.phase = ?3) AND " OPS_KEY_##d                       \
	        " ORDER BY l.rank, e.ord LIMIT ?7"

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
	struct store_q *q = store_stmt(st, SID_OPS_PAGE, STORE_SQL_D(OPS_PAGE));
	if (!q) {
		rc = STORE_ERROR;
		goto done;
	}
	/* PostgreSQL with a key filter: every row of the run may have to be
	 * read for limit + 1 matches, so no LIMIT (NULL), streamed, the key
	 * (column 3) tested in C */
	int in_c = regex && st->backend == STORE_BACKEND_PG;
	store_q_bind_i64(q, 1, run_id);
	store_q_bind_i64(q, 2, rank);
	store_q_bind_i64(q, 3, phase_v);
	store_q_bind_text(q, 4, regex);
	store_q_bind_i64(q, 5, cur[0]);
	store_q_bind_i64(q, 6, cur[1]);
	if (in_c) {
		store_q_bind_null(q, 7);
		store_q_stream(q);
		store_q_key_filter(q, 3);
	} else {
		store_q_bind_i64(q, 7, limit + 1);
	}
	static const int keys_cols[] = {0, 1};
	rc = store_q_page_walk(st, q, limit, 'o', keys_cols, 2, op_item, op_drop, out,
	                       "listing ops", out->next_cursor);
done:
	return store_keymatch_end(st, rc);
}
