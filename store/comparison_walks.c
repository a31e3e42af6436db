/* comparison_walks.c - activation result rows read back as matcher rows
 * (the entries joined back), with the filters pages use (rank, status,
 * method, phase, key regex): the page walk, the count, and the row that
 * produced an input.  On PostgreSQL a key regex runs in C over keyset
 * chunks (rows_walk). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comparison_int.h"

void store_row_page_free(struct store_row_page *p)
{
	if (!p)
		return;
	free(p->rows);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* Bit mask of the names in a comma-separated list (names[i] -> bit i);
 * -1 when list is NULL (any).  Unknown names add no bit. */
static int64_t name_mask(const char *list, const char *const *names, int n)
{
	if (!list)
		return -1;
	int64_t mask = 0;
	const char *p = list;
	for (;;) {
		size_t len = strcspn(p, ",");
		for (int i = 0; i < n; i++)
			if (names[i] && strlen(names[i]) == len && !strncmp(p, names[i], len))
				mask |= (int64_t)1 << i;
		if (!p[len])
			break;
		p += len + 1;
	}
	return mask;
}

int store_entry_keep(struct arena *a, struct matcher_entry *e, size_t *bytes)
{
	const char **strs[] = {&e->key, &e->output_hash, &e->input_hashes, &e->input_producers,
	                       &e->location};
	for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
		if (!*strs[i])
			continue;
		*bytes += strlen(*strs[i]);
		if (!(*strs[i] = arena_strdup(a, *strs[i])))
			return -1;
	}
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		if (!e->stats[i])
			continue;
		*bytes += strlen(e->stats[i]);
		if (!(e->stats[i] = arena_strdup(a, e->stats[i])))
			return -1;
	}
	return 0;
}

/* A REAL column as a distance: the value, or -1 when NULL. */
static double col_dist(struct store_q *s, int col)
{
	return store_q_col_isnull(s, col) ? -1 : store_q_col_double(s, col);
}

#define ROW_COLS                                                                                   \
	"r.rank, r.idx, r.status, r.method, r.phase, r.origin, r.shape_differs, r.out_dist, "      \
	"r.in_dist, r.d_shape, r.d_l1, r.d_l2, r.d_min, r.d_max, r.d_mean, "
#define ROW_NCOLS 15
/* the key columns of a page row: ea.key and eb.key (STORE_ENTRY_COLS) */
#define ROW_KEY_A (ROW_NCOLS + 2)
#define ROW_KEY_B (ROW_NCOLS + STORE_ENTRY_NCOLS + 2)
/* Rough JSON size of a row beyond its strings (keys, numbers, flags). */
#define ROW_FIXED_BYTES 512

/* Fill one page row from the current result row of s. */
static int page_row(struct store_row_page *p, struct store_q *s, size_t *bytes)
{
	struct store_act_row *r = &p->rows[p->n_rows];
	memset(r, 0, sizeof *r);
	r->rank = store_q_col_int(s, 0);
	r->idx = store_q_col_i64(s, 1);
	r->row.status = (enum matcher_status)store_q_col_int(s, 2);
	r->row.method = store_q_col_isnull(s, 3) ? MATCHER_METHOD_NONE
	                                         : (enum matcher_method)store_q_col_int(s, 3);
	r->row.phase = store_q_col_int(s, 4) ? MATCHER_BACKWARD : MATCHER_FORWARD;
	r->row.origin = store_q_col_int(s, 5);
	r->row.shape_differs = store_q_col_int(s, 6);
	r->row.output_hash_distance = col_dist(s, 7);
	r->row.input_hash_distance = col_dist(s, 8);
	for (int i = 0; i < MATCHER_N_STATS; i++)
		r->row.stat_diff[i] = col_dist(s, 9 + i);
	*bytes = ROW_FIXED_BYTES;
	store_entry_from_cols(s, ROW_NCOLS, &r->a);
	store_entry_from_cols(s, ROW_NCOLS + STORE_ENTRY_NCOLS, &r->b);
	if ((r->a.key && store_entry_keep(&p->arena, &r->a, bytes) < 0) ||
	    (r->b.key && store_entry_keep(&p->arena, &r->b, bytes) < 0))
		return -1;
	/* the array never moves once allocated: these pointers stay valid */
	r->row.a = r->a.key ? &r->a : NULL;
	r->row.b = r->b.key ? &r->b : NULL;
	return 0;
}

/* The filters of a row read (parameters ?1-?7, bound by bind_row_filters),
 * shared by the page and the count so both select the same rows.  BIT(m,
 * v): bit v of mask m is set (PostgreSQL: bigint >> integer, a boolean). */
#define BIT_LITE(m, v) "(" m " >> " v ") & 1"
#define BIT_PG(m, v)   "((" m " >> CAST(" v " AS integer)) & 1) <> 0"
/* a mask parameter (PostgreSQL would type it integer from "< 0") */
#define MASK_LITE(m)   m
#define MASK_PG(m)     "CAST(" m " AS bigint)"
#define ROWS_STATUS(d) "AND (" MASK_##d("?3") " < 0 OR " BIT_##d(MASK_##d("?3"), "r.status") ") "
#define ROWS_METHOD(d)                                                                             \
	"AND (" MASK_##d("?4") " < 0 OR (r.method IS NOT NULL AND " BIT_##d(MASK_##d("?4"),        \
	                                                                    "r.method") ")) "
#define ROWS_WHERE_NOKEY(d)                                                                        \
	"WHERE r.comparison_id = ?1 AND (?2 < 0 OR r.rank = ?2) " ROWS_STATUS(d)                   \
	        ROWS_METHOD(d) "AND (?5 < 0 OR r.phase = ?5) AND (?6 < 0 OR r.origin = ?6) "
/* The key filter: REGEXP on SQLite; on PostgreSQL the keys are tested in
 * C (rows_walk, BACKENDS.md section 2) and ?7 only gets its type here. */
#define ROWS_KEY_LITE "AND (?7 IS NULL OR ea.key REGEXP ?7 OR eb.key REGEXP ?7) "
#define ROWS_KEY_PG   "AND (" TXT_PG("?7") " IS NULL OR TRUE) "
#define ROWS_WHERE(d) ROWS_WHERE_NOKEY(d) ROWS_KEY_##d
/* the rows after the cursor (?8, ?9), in page order, at most ?10 */
#define ROWS_AFTER                                                                                 \
	"AND (r.rank > ?8 OR (r.rank = ?8 AND r.idx > ?9)) ORDER BY r.rank, r.idx LIMIT ?10"
#define ROWS_ENTRIES                                                                               \
	"LEFT JOIN entries ea ON ea.id = r.a_entry_id LEFT JOIN entries eb ON eb.id = "            \
	"r.b_entry_id "
#define ROWS_JOIN "FROM comparison_rows r " ROWS_ENTRIES
/* PostgreSQL (its key filter is in C: no condition on the entries): the
 * rows after the cursor are chosen and limited on comparison_rows alone,
 * then joined to their entries.  The planner cannot be trusted with the
 * joined form: without statistics (a comparison just written, before
 * autovacuum's first ANALYZE) it expects a dozen rows and joins every row
 * of the comparison before its top-N sort, ~50 ms for 8k rows instead of
 * ~0.3 ms.  The cursor is a row comparison, an index range of the
 * primary key (comparison_id, rank, idx). */
#define ROWS_AFTER_PG(cols)                                                                        \
	"SELECT " cols " FROM (SELECT * FROM comparison_rows r " ROWS_WHERE(                       \
	        PG) "AND (r.rank, r.idx) > (?8, ?9) ORDER BY r.rank, r.idx LIMIT ?10) "            \
	            "r " ROWS_ENTRIES "ORDER BY r.rank, r.idx"

struct row_filter {
	int64_t id;
	int rank;
	int64_t status_mask, method_mask;
	int phase, origin;
	const char *regex;
};

/* The filter of a row read (phase already checked, "" taken as NULL). */
static void row_filter_init(struct row_filter *f, int64_t id, int rank, const char *status,
                            const char *method, const char *phase, int origin, const char *regex)
{
	const char *status_names[MATCHER_N_STATUS], *method_names[MATCHER_N_METHODS];
	for (int i = 0; i < MATCHER_N_STATUS; i++)
		status_names[i] = matcher_status_name((enum matcher_status)i);
	for (int i = 0; i < MATCHER_N_METHODS; i++)
		method_names[i] = matcher_method_name((enum matcher_method)i);
	f->id = id;
	f->rank = rank;
	f->status_mask =
	        name_mask(status && *status ? status : NULL, status_names, MATCHER_N_STATUS);
	f->method_mask =
	        name_mask(method && *method ? method : NULL, method_names, MATCHER_N_METHODS);
	f->phase = !phase || !*phase ? -1 : !strcmp(phase, "backward");
	f->origin = origin < 0 ? -1 : (origin ? 1 : 0);
	f->regex = regex;
}

/* Bind ?1-?6 of ROWS_WHERE_NOKEY, and ?7 when the statement has it. */
static void bind_row_filters(struct store_q *s, const struct row_filter *f, int with_key)
{
	store_q_bind_i64(s, 1, f->id);
	store_q_bind_i64(s, 2, f->rank);
	store_q_bind_i64(s, 3, f->status_mask);
	store_q_bind_i64(s, 4, f->method_mask);
	store_q_bind_i64(s, 5, f->phase);
	store_q_bind_i64(s, 6, f->origin);
	if (with_key)
		store_q_bind_text(s, 7, f->regex);
}

/* The key filter in C on one row: key columns ka and kb (NULL: no
 * entry); 1 match, 0 none, -1 stop (store_keymatch_end says why). */
static int row_keys_match(struct store *st, struct store_q *s, int ka, int kb)
{
	const char *k = store_q_col_text(s, ka);
	int m = store_keymatch_key(st, k, k ? store_q_col_bytes(s, ka) : 0);
	if (m == 0) {
		k = store_q_col_text(s, kb);
		m = store_keymatch_key(st, k, k ? store_q_col_bytes(s, kb) : 0);
	}
	return m;
}

/* Rows a PostgreSQL key-filtered read fetches per statement run, at most. */
#define KEY_CHUNK 1000

/* Step s (a row read of f with ?7; with a cursor when cur is non-NULL:
 * ROWS_AFTER with rank and idx in columns 0 and 1, at most limit rows)
 * and call fn for each row that passes.  PostgreSQL with a regex: the
 * SQL has no key condition; the rows are read in keyset chunks from the
 * cursor on, and the keys (columns ka, kb) tested here until fn stops,
 * the rows end or the filter's budget does.  The first chunk is limit
 * rows (what a filter passing every row needs), each next one 4 times
 * the last, up to KEY_CHUNK: a page of 50 costs ~100 rows read, not
 * 1000 (each row brings both entries' columns), while a rare key still
 * scans in few round trips.  limit 0 (a count): KEY_CHUNK from the
 * start.  fn: 0 go on, 1 stop, < 0 a STORE_* code.  0, or a STORE_*
 * code (what in the message). */
static int rows_walk(struct store *st, struct store_q *s, const struct row_filter *f,
                     const int64_t *cur, int64_t limit, int ka, int kb,
                     int (*fn)(struct store_q *s, void *ctx), void *ctx, const char *what)
{
	int in_c = f->regex && st->backend == STORE_BACKEND_PG;
	int64_t at[2] = {cur ? cur[0] : 0, cur ? cur[1] : 0};
	int64_t chunk = limit > 0 && limit < KEY_CHUNK ? limit : KEY_CHUNK;
	for (;;) {
		bind_row_filters(s, f, 1);
		if (cur) {
			store_q_bind_i64(s, 8, at[0]);
			store_q_bind_i64(s, 9, at[1]);
			store_q_bind_i64(s, 10, in_c ? chunk : limit);
		}
		int rc, ret = 0, stop = 0, n = 0;
		while ((rc = store_q_step(s)) == STORE_Q_ROW) {
			n++;
			if (cur) {
				at[0] = store_q_col_i64(s, 0);
				at[1] = store_q_col_i64(s, 1);
			}
			int m = in_c ? row_keys_match(st, s, ka, kb) : 1;
			if (m < 0) {
				ret = STORE_ERROR; /* store_keymatch_end has the reason */
				break;
			}
			if (m == 0)
				continue;
			if ((m = fn(s, ctx)) != 0) {
				ret = m < 0 ? m : 0;
				stop = 1;
				break;
			}
		}
		store_q_done(s);
		if (ret < 0)
			return ret;
		if (rc < 0)
			return store_q_fail(st, rc, what);
		if (!in_c || stop || n < chunk)
			return 0;
		chunk = chunk < KEY_CHUNK / 4 ? chunk * 4 : KEY_CHUNK;
	}
}

static int check_phase(struct store *st, const char *phase)
{
	if (phase && phase[0] && strcmp(phase, "forward") != 0 && strcmp(phase, "backward") != 0)
		return store_fail(st, STORE_INVALID, "phase must be \"forward\" or \"backward\"");
	return 0;
}

static int count_row(struct store_q *s, void *ctx)
{
	(void)s;
	++*(int64_t *)ctx;
	return 0;
}

#define COUNT_KEY_LITE "SELECT 1 " ROWS_JOIN ROWS_WHERE(LITE)
#define COUNT_KEY_PG   ROWS_AFTER_PG("r.rank, r.idx, ea.key, eb.key")
#define COUNT_NOKEY(d) "SELECT count(*) FROM comparison_rows r " ROWS_WHERE_NOKEY(d)

int store_comparison_rows_count(struct store *st, int64_t id, int rank, const char *status,
                                const char *method, const char *phase, int origin,
                                const struct store_key_filter *keys, int64_t *matched, int *partial)
{
	const char *regex = NULL;
	int rc;
	*matched = 0;
	*partial = 0;
	if ((rc = check_phase(st, phase)) < 0)
		return rc;
	if ((rc = store_cmp_exists(st, id)) < 0)
		return rc;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	struct row_filter f;
	row_filter_init(&f, id, rank, status, method, phase, origin, regex);
	/* without a regex: count(*) on the rows alone (no entry joins: 43k
	 * rows in ~5 ms instead of ~150); with one: stepped, so a read
	 * stopped by the regex budget still knows how many rows passed */
	if (regex) {
		static const int64_t from[2] = {INT_MIN, -1};
		int pg = st->backend == STORE_BACKEND_PG;
		struct store_q *s =
		        store_stmt(st, SID_CMP_ROWS_COUNT, STORE_SQL(COUNT_KEY_LITE, COUNT_KEY_PG));
		rc = s ? rows_walk(st, s, &f, pg ? from : NULL, 0, 2, 3, count_row, matched,
		                   "counting comparison rows")
		       : STORE_ERROR;
	} else {
		struct store_q *s =
		        store_stmt(st, SID_CMP_ROWS_COUNT_NOKEY, STORE_SQL_D(COUNT_NOKEY));
		if (!s) {
			rc = STORE_ERROR;
			goto done;
		}
		bind_row_filters(s, &f, 0);
		rc = store_q_step(s);
		if (rc == STORE_Q_ROW)
			*matched = store_q_col_i64(s, 0);
		store_q_done(s);
		rc = rc == STORE_Q_ROW ? 0
		                       : store_q_fail(st, rc < 0 ? rc : STORE_ERROR,
		                                      "counting comparison rows");
	}
done:
	rc = store_keymatch_end(st, rc);
	if (rc == STORE_TOO_COSTLY && regex) {
		*partial = 1; /* a lower bound: the budget ran out */
		rc = 0;
	}
	return rc;
}

/* The producer row: the key first (exact), else a row whose output hash
 * list holds the hash; the nearest such row before ?6. */
#define PRODUCER_HAS(d, instr)                                                                     \
	instr "(',' || replace(e.output_hash, ' ', '') || ',', ',' || ?5 || ',') > 0"
#define PRODUCER_HAS_LITE PRODUCER_HAS(LITE, "instr")
#define PRODUCER_HAS_PG   PRODUCER_HAS(PG, "strpos")
#define PRODUCER_IS_LITE  "IS"
#define PRODUCER_IS_PG    "IS NOT DISTINCT FROM"
#define PRODUCER_MATCH(d)                                                                          \
	"AND (e.key = ?4 OR (" TXT_##d("?5") " IS NOT NULL AND " PRODUCER_HAS_##d "))"
#define PRODUCER_SQL(d)                                                                            \
	"SELECT r.idx FROM comparison_rows r JOIN entries e ON e.id = "                            \
	"CASE WHEN ?3 THEN r.b_entry_id ELSE r.a_entry_id END "                                    \
	"WHERE r.comparison_id = ?1 AND r.rank = ?2 AND r.idx < ?6 " PRODUCER_MATCH(               \
	        d) " ORDER BY (e.key " PRODUCER_IS_##d " ?4) DESC, r.idx DESC LIMIT 1"

int store_comparison_row_producer(struct store *st, int64_t id, int rank, int side_b,
                                  const char *key, const char *hash, int64_t before_idx,
                                  int64_t *idx)
{
	int rc;
	if ((rc = store_cmp_exists(st, id)) < 0)
		return rc;
	if ((!key || !*key) && (!hash || !*hash))
		return store_fail(st, STORE_INVALID, "give the producer's key or the hash");
	struct store_q *s = store_stmt(st, SID_CMP_ROW_PRODUCER, STORE_SQL_D(PRODUCER_SQL));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, side_b ? 1 : 0);
	store_q_bind_text(s, 4, key && *key ? key : NULL);
	store_q_bind_text(s, 5, hash && *hash ? hash : NULL);
	store_q_bind_i64(s, 6, before_idx < 0 ? INT64_MAX : before_idx);
	rc = store_q_step(s);
	if (rc == STORE_Q_ROW) {
		*idx = store_q_col_i64(s, 0);
		rc = 0;
	} else if (rc == STORE_Q_DONE) {
		rc = store_fail(st, STORE_NOT_FOUND, "no row of rank %d produced that input", rank);
	} else {
		rc = store_q_fail(st, rc, "finding the producer row");
	}
	store_q_done(s);
	return rc;
}

struct page_walk {
	struct store *st;
	struct store_row_page *out;
	int limit;
	int more;
	size_t total;
};

/* rows_walk: one page row; stops past the limit or the byte budget. */
static int page_add(struct store_q *s, void *ctx)
{
	struct page_walk *w = ctx;
	size_t bytes = 0;
	if (w->out->n_rows == (size_t)w->limit) {
		w->more = 1;
		return 1;
	}
	if (page_row(w->out, s, &bytes) < 0)
		return store_fail(w->st, STORE_ERROR, "out of memory");
	if (w->out->n_rows > 0 && w->total + bytes > STORE_PAGE_BYTES) {
		w->more = 1;
		return 1;
	}
	w->total += bytes;
	w->out->n_rows++;
	return 0;
}

#define PAGE_COLS     ROW_COLS STORE_ENTRY_COLS("ea") ", " STORE_ENTRY_COLS("eb")
#define PAGE_SQL_LITE "SELECT " PAGE_COLS " " ROWS_JOIN ROWS_WHERE(LITE) ROWS_AFTER
#define PAGE_SQL_PG   ROWS_AFTER_PG(PAGE_COLS)

int store_comparison_rows_list(struct store *st, int64_t id, int rank, const char *status,
                               const char *method, const char *phase, int origin,
                               const struct store_key_filter *keys, int limit, const char *cursor,
                               struct store_row_page *out)
{
	int64_t cur[2] = {INT_MIN, -1};
	int rc;
	const char *regex = NULL;
	memset(out, 0, sizeof *out);
	if ((rc = check_phase(st, phase)) < 0)
		return rc;
	if ((rc = store_keymatch_begin(st, keys, &regex)) < 0)
		return rc;
	if ((rc = store_cursor_parse(st, cursor, 'w', cur, 2)) < 0)
		goto done;
	if ((rc = store_cmp_exists(st, id)) < 0)
		goto done;
	limit = store_clamp_limit(limit);
	struct store_q *s =
	        store_stmt(st, SID_CMP_ROWS_PAGE, STORE_SQL(PAGE_SQL_LITE, PAGE_SQL_PG));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	out->rows = malloc(((size_t)limit + 1) * sizeof *out->rows);
	if (!out->rows) {
		rc = store_fail(st, STORE_ERROR, "out of memory");
		goto done;
	}
	struct row_filter f;
	row_filter_init(&f, id, rank, status, method, phase, origin, regex);
	struct page_walk w = {st, out, limit, 0, 0};
	rc = rows_walk(st, s, &f, cur, limit + 1, ROW_KEY_A, ROW_KEY_B, page_add, &w,
	               "listing comparison rows");
	if (rc == 0 && w.more && out->n_rows) {
		const struct store_act_row *last = &out->rows[out->n_rows - 1];
		snprintf(out->next_cursor, sizeof out->next_cursor, "w%d.%lld", last->rank,
		         (long long)last->idx);
	}
done:
	rc = store_keymatch_end(st, rc);
	if (rc < 0)
		store_row_page_free(out);
	return rc;
}
