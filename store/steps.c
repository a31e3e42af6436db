/* steps.c - training and validation steps: applying parser records
 * (NEW / COPY / REPLACE) and the paged per-rank step listing.
 *
 * Metrics live in a narrow table (step_id, pos, name, text, value,
 * decimals) so every printed value keeps its text and number whatever its
 * name.  The stored rank is the record's "[rankN]:" rank, or the log's own
 * rank when the record says 0 (a per-rank file has no prefix).  Records
 * that contradict what is stored (COPY/REPLACE of an unknown step, NEW of
 * a known one) are applied as the nearest sensible thing instead of
 * failing an upload: unknown -> inserted, known NEW -> replaced. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arraylit.h"
#include "store_int.h"

/* Rank of a log, cached for the log being ingested. */
static int log_rank(struct store *st, int64_t log_id, int *rank)
{
	if (st->rank_log_id == log_id) {
		*rank = st->rank_of_log;
		return 0;
	}
	struct store_q *s = store_stmt(st, SID_LOG_RANK, "SELECT rank FROM logs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, log_id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		*rank = store_q_col_int(s, 0);
		st->rank_log_id = log_id;
		st->rank_of_log = *rank;
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	} else {
		ret = store_q_fail(st, rc, "reading the log rank");
	}
	store_q_done(s);
	return ret;
}

static int insert_metrics(struct store *st, int64_t step_id, const struct matcher_step_record *r)
{
	struct store_q *s = store_stmt(st, SID_METRIC_INSERT,
	                               "INSERT INTO step_metrics(step_id, pos, name, text, value, "
	                               "decimals, prec) VALUES (?, ?, ?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_metric_value *m = &r->metrics[i];
		store_q_bind_i64(s, 1, step_id);
		store_q_bind_i64(s, 2, (int64_t)i);
		store_q_bind_text(s, 3, m->name ? m->name : "");
		store_q_bind_text(s, 4, m->text ? m->text : "");
		if (isnan(m->value))
			store_q_bind_null(s, 5);
		else
			store_q_bind_double(s, 5, m->value);
		store_q_bind_i64(s, 6, m->decimals);
		store_q_bind_i64(s, 7, m->prec);
		int rc = store_q_step(s);
		store_q_done(s);
		if (rc != STORE_Q_DONE)
			return store_q_fail(st, rc, "storing a metric");
	}
	return 0;
}

/* Bind log_id, rank, validation, step at first..first+3. */
static void bind_step_key(struct store_q *s, int first, int64_t log_id, int rank,
                          const struct matcher_step_record *r)
{
	store_q_bind_i64(s, first, log_id);
	store_q_bind_i64(s, first + 1, rank);
	store_q_bind_i64(s, first + 2, r->validation ? 1 : 0);
	store_q_bind_i64(s, first + 3, r->step);
}

/* Insert the step; 1 when it already exists (nothing done). */
static int step_new(struct store *st, int64_t log_id, int rank, const struct matcher_step_record *r)
{
	struct store_q *s =
	        store_stmt(st, SID_STEP_INSERT,
	                   "INSERT INTO steps(log_id, rank, validation, step, line) "
	                   "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
	if (!s)
		return STORE_ERROR;
	bind_step_key(s, 1, log_id, rank, r);
	store_q_bind_i64(s, 5, (int64_t)r->line);
	int64_t id;
	int rc = store_q_run_id(s, &id);
	if (rc < 0 && store_q_fk_violation(st))
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc < 0)
		return store_q_fail(st, rc, "storing a step");
	if (rc == STORE_Q_DONE)
		return 1;
	return insert_metrics(st, id, r);
}

/* Replace line and metrics of an existing step; 1 when there is none. */
static int step_replace(struct store *st, int64_t log_id, int rank,
                        const struct matcher_step_record *r)
{
	struct store_q *s = store_stmt(st, SID_STEP_REPLACE,
	                               "UPDATE steps SET line = ? WHERE log_id = ? AND rank = ? "
	                               "AND validation = ? AND step = ? RETURNING id");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, (int64_t)r->line);
	bind_step_key(s, 2, log_id, rank, r);
	int64_t id = -1;
	int rc;
	while ((rc = store_q_step(s)) == STORE_Q_ROW)
		id = store_q_col_i64(s, 0);
	store_q_done(s);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "replacing a step");
	if (id < 0)
		return 1;
	struct store_q *d =
	        store_stmt(st, SID_METRICS_DELETE, "DELETE FROM step_metrics WHERE step_id = ?");
	if (!d)
		return STORE_ERROR;
	store_q_bind_i64(d, 1, id);
	rc = store_q_step(d);
	store_q_done(d);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "replacing a step");
	return insert_metrics(st, id, r);
}

/* Count one more copy; 1 when the step is unknown. */
static int step_copy(struct store *st, int64_t log_id, int rank,
                     const struct matcher_step_record *r)
{
	struct store_q *s = store_stmt(st, SID_STEP_COPY,
	                               "UPDATE steps SET copies = copies + 1 WHERE log_id = ? "
	                               "AND rank = ? AND validation = ? AND step = ?");
	if (!s)
		return STORE_ERROR;
	bind_step_key(s, 1, log_id, rank, r);
	int rc = store_q_step(s);
	store_q_done(s);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "counting a step copy");
	return store_q_changes(s) == 0 ? 1 : 0;
}

int store_step_add(struct store *st, int64_t log_id, const struct matcher_step_record *r)
{
	int rank = 0, rc;
	if ((rc = log_rank(st, log_id, &rank)) < 0)
		return rc;
	if (r->rank != 0)
		rank = r->rank;
	switch (r->kind) {
	case MATCHER_STEP_COPY:
		rc = step_copy(st, log_id, rank, r);
		if (rc == 1)
			rc = step_new(st, log_id, rank, r);
		break;
	case MATCHER_STEP_REPLACE:
		rc = step_replace(st, log_id, rank, r);
		if (rc == 1)
			rc = step_new(st, log_id, rank, r);
		break;
	default:
		rc = step_new(st, log_id, rank, r);
		if (rc == 1)
			rc = step_replace(st, log_id, rank, r);
		break;
	}
	return rc == 1 ? store_fail(st, STORE_ERROR, "step %ld could not be stored", r->step) : rc;
}

/* ---- bulk ---------------------------------------------------------------- */

/* PostgreSQL: a batch of NEW records in one statement.  u: the records
 * (ord = position in the batch, 1-based); s: the steps inserted (a known
 * key is skipped); m: the metrics of the inserted ones.  Returns the ords
 * of the skipped records, which store_step_add's NEW path then replaces
 * one by one as before.  A batch never holds a key twice (the bulk sends
 * it first), so a key of s names one record of u. */
#define STEPS_BATCH_PG                                                                             \
	"WITH u AS (SELECT * FROM unnest(?2::bigint[], ?3::bigint[], ?4::bigint[], ?5::bigint[]) " \
	"WITH ORDINALITY AS u(rank, validation, step, line, ord)), "                               \
	"s AS (INSERT INTO steps(log_id, rank, validation, step, line) "                           \
	"SELECT ?1, rank, validation, step, line FROM u ORDER BY ord ON CONFLICT DO NOTHING "      \
	"RETURNING id, rank, validation, step), "                                                  \
	"m AS (INSERT INTO step_metrics(step_id, pos, name, text, value, decimals, prec) "         \
	"SELECT s.id, v.pos, v.name, v.text, v.value, v.dec, v.prec FROM unnest(?6::bigint[], "    \
	"?7::bigint[], ?8::text[], ?9::text[], ?10::float8[], ?11::bigint[], ?12::bigint[]) "      \
	"AS v(ord, pos, name, text, value, dec, prec) JOIN u ON u.ord = v.ord JOIN s ON "          \
	"(s.rank, s.validation, s.step) = (u.rank, u.validation, u.step)) "                        \
	"SELECT u.ord FROM u WHERE NOT EXISTS (SELECT 1 FROM s WHERE (s.rank, s.validation, "      \
	"s.step) = (u.rank, u.validation, u.step)) ORDER BY u.ord"
/* a batch is sent at this many records, metric values or bytes of its
 * literals (a metric's text may be as long as a line: the bytes bound the
 * batch's memory, about twice BATCH_BYTES, literals and copies) */
#define BATCH_RECORDS 2048
#define BATCH_VALUES  8192
#define BATCH_BYTES   (4u << 20)
#define KEY_SLOTS     (2 * BATCH_RECORDS) /* power of two */
enum {
	C_RANK,
	C_VAL,
	C_STEP,
	C_LINE,
	C_ORD,
	C_POS,
	C_NAME,
	C_TEXT,
	C_VALUE,
	C_DEC,
	C_PREC,
	N_COLS
};

struct store_steps {
	struct store *st;
	int64_t log_id;
	int rank; /* the log's */
	/* PostgreSQL: the batch, as array literals, and its records (kept for
	 * a record whose step is stored already) */
	struct buf col[N_COLS];
	struct matcher_step_record *recs;
	size_t n, n_values;
	struct arena arena;
	int32_t key_slot[KEY_SLOTS]; /* index + 1 into recs, 0 = free */
};

int store_steps_begin(struct store *st, int64_t log_id, struct store_steps **out)
{
	*out = NULL;
	struct store_steps *b = calloc(1, sizeof *b);
	if (!b)
		return store_fail(st, STORE_ERROR, "out of memory");
	b->st = st;
	b->log_id = log_id;
	for (int k = 0; k < N_COLS; k++)
		buf_init(&b->col[k]);
	arena_init(&b->arena);
	int rc = st->backend == STORE_BACKEND_PG ? log_rank(st, log_id, &b->rank) : 0;
	if (rc == 0 && st->backend == STORE_BACKEND_PG &&
	    !(b->recs = malloc(BATCH_RECORDS * sizeof *b->recs)))
		rc = store_fail(st, STORE_ERROR, "out of memory");
	if (rc < 0) {
		store_steps_end(b, 1);
		return rc;
	}
	*out = b;
	return 0;
}

static uint32_t key_hash(int rank, int validation, long step)
{
	uint64_t h =
	        ((uint64_t)(uint32_t)rank << 33) ^ ((uint64_t)validation << 32) ^ (uint64_t)step;
	h *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40);
}

/* The key's slot: the record holding it, or the free slot to take. */
static int32_t *key_find(struct store_steps *b, int rank, const struct matcher_step_record *r)
{
	uint32_t i = key_hash(rank, r->validation, r->step) & (KEY_SLOTS - 1);
	for (;; i = (i + 1) & (KEY_SLOTS - 1)) {
		int32_t *slot = &b->key_slot[i];
		if (!*slot)
			return slot;
		const struct matcher_step_record *x = &b->recs[*slot - 1];
		if (x->rank == rank && x->validation == r->validation && x->step == r->step)
			return slot;
	}
}

/* Send the batch; the records whose step is stored already go through
 * store_step_add (NEW of a known step: replaced). */
static int batch_flush(struct store_steps *b)
{
	struct store *st = b->st;
	if (!b->n)
		return 0;
	int rc = 0;
	struct store_q *s = store_stmt(st, SID_STEPS_BATCH, STEPS_BATCH_PG);
	if (!s) {
		rc = STORE_ERROR;
	} else {
		store_q_bind_i64(s, 1, b->log_id);
		if (arraylit_bind(s, 2, b->col, N_COLS) < 0) { /* ?2..?12 */
			store_q_done(s);
			rc = store_fail(st, STORE_ERROR, "out of memory");
		}
	}
	if (rc == 0) {
		size_t cap = 0, n_known = 0;
		int64_t *known = NULL;
		while ((rc = store_q_step(s)) == STORE_Q_ROW) {
			if (n_known == cap) {
				cap = cap ? 2 * cap : 16;
				int64_t *nv = realloc(known, cap * sizeof *nv);
				if (!nv)
					break;
				known = nv;
			}
			known[n_known++] = store_q_col_i64(s, 0);
		}
		store_q_done(s);
		if (rc == STORE_Q_ROW)
			rc = store_fail(st, STORE_ERROR, "out of memory");
		else if (rc < 0 && store_q_fk_violation(st))
			rc = store_fail(st, STORE_NOT_FOUND, "log %lld not found",
			                (long long)b->log_id);
		else if (rc < 0)
			rc = store_q_fail(st, rc, "storing steps");
		for (size_t i = 0; i < n_known && rc == 0; i++) {
			int64_t ord = known[i];
			if (ord < 1 || (size_t)ord > b->n)
				rc = store_fail(st, STORE_ERROR, "storing steps: bad record %lld",
				                (long long)ord);
			else
				rc = store_step_add(st, b->log_id, &b->recs[ord - 1]);
		}
		free(known);
	}
	for (int k = 0; k < N_COLS; k++)
		buf_clear(&b->col[k]);
	memset(b->key_slot, 0, sizeof b->key_slot);
	arena_reset(&b->arena);
	b->n = b->n_values = 0;
	return rc;
}

/* Keep r (its metrics copied) in the batch at its free key slot. */
static int batch_put(struct store_steps *b, int rank, const struct matcher_step_record *r,
                     int32_t *slot)
{
	struct matcher_step_record *x = &b->recs[b->n];
	*x = *r;
	x->rank = rank;
	struct matcher_metric_value *m =
	        r->n_metrics ? arena_alloc(&b->arena, r->n_metrics * sizeof *m) : NULL;
	if (r->n_metrics && !m)
		return -1;
	int bad = 0;
	for (size_t i = 0; i < r->n_metrics; i++) {
		m[i] = r->metrics[i];
		m[i].name = arena_strdup(&b->arena, m[i].name ? m[i].name : "");
		m[i].text = arena_strdup(&b->arena, m[i].text ? m[i].text : "");
		bad |= !m[i].name || !m[i].text;
	}
	x->metrics = m;
	int64_t ord = (int64_t)++b->n;
	*slot = (int32_t)ord;
	struct buf *c = b->col;
	bad |= arraylit_i64(&c[C_RANK], rank) | arraylit_i64(&c[C_VAL], r->validation ? 1 : 0) |
	       arraylit_i64(&c[C_STEP], r->step) | arraylit_i64(&c[C_LINE], (int64_t)r->line);
	for (size_t i = 0; i < r->n_metrics; i++)
		bad |= arraylit_i64(&c[C_ORD], ord) | arraylit_i64(&c[C_POS], (int64_t)i) |
		       arraylit_text(&c[C_NAME], m[i].name) | arraylit_text(&c[C_TEXT], m[i].text) |
		       arraylit_num(&c[C_VALUE], m[i].value) |
		       arraylit_i64(&c[C_DEC], m[i].decimals) | arraylit_i64(&c[C_PREC], m[i].prec);
	b->n_values += r->n_metrics;
	return bad ? -1 : 0;
}

int store_steps_add(struct store_steps *b, const struct matcher_step_record *r)
{
	struct store *st = b->st;
	if (st->backend != STORE_BACKEND_PG)
		return store_step_add(st, b->log_id, r);
	int rc, rank = r->rank != 0 ? r->rank : b->rank;
	if (r->kind != MATCHER_STEP_NEW) {
		/* it acts on a step the batch may hold: the batch goes first */
		if ((rc = batch_flush(b)) < 0)
			return rc;
		return store_step_add(st, b->log_id, r);
	}
	int32_t *slot = key_find(b, rank, r);
	if (*slot || b->n == BATCH_RECORDS || b->n_values + r->n_metrics > BATCH_VALUES) {
		if ((rc = batch_flush(b)) < 0)
			return rc;
		slot = key_find(b, rank, r);
	}
	if (batch_put(b, rank, r, slot) < 0)
		return store_fail(st, STORE_ERROR, "out of memory");
	size_t bytes = 0;
	for (int k = 0; k < N_COLS; k++)
		bytes += b->col[k].len;
	return bytes >= BATCH_BYTES ? batch_flush(b) : 0;
}

int store_steps_end(struct store_steps *b, int fail)
{
	if (!b)
		return 0;
	int rc = fail ? 0 : batch_flush(b);
	for (int k = 0; k < N_COLS; k++)
		buf_reset(&b->col[k]);
	arena_reset(&b->arena);
	free(b->recs);
	free(b);
	return rc;
}

/* ---- listing ------------------------------------------------------------- */

void store_run_step_page_free(struct store_run_step_page *p)
{
	if (!p)
		return;
	free(p->steps);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* The page's steps from the cursor (?4 step, ?5 id), ?6 of them, in (step,
 * id) order.  A rank's steps may come from several logs of the run (an
 * interleaved file and per-rank files), so the order is over the run's
 * logs.  SQLite walks each log's (log_id, rank, validation, step) range.
 * PostgreSQL: the same keyed range per log (LATERAL), then the merge: the
 * plain join, planned without statistics (a fresh run before autovacuum's
 * ANALYZE) or generically (a prepared statement), scanned and sorted every
 * step of the run from the cursor on, each page (issue 23, F6). */
#define STEP_RANGE_LITE                                                                            \
	"SELECT s.id, s.step, s.rank, s.line, s.copies FROM logs l JOIN steps s "                  \
	"ON s.log_id = l.id WHERE l.run_id = ?1 AND s.rank = ?2 AND s.validation = ?3 "            \
	"AND s.step >= ?4 AND (s.step > ?4 OR s.id > ?5) ORDER BY s.step, s.id LIMIT ?6"
#define STEP_RANGE_PG                                                                              \
	"SELECT x.id, x.step, x.rank, x.line, x.copies FROM logs l CROSS JOIN LATERAL "            \
	"(SELECT s.id, s.step, s.rank, s.line, s.copies FROM steps s WHERE s.log_id = l.id "       \
	"AND s.rank = ?2 AND s.validation = ?3 AND s.step >= ?4 AND (s.step > ?4 OR s.id > ?5) "   \
	"ORDER BY s.step LIMIT ?6) x WHERE l.run_id = ?1 ORDER BY x.step, x.id LIMIT ?6"
/* The page's steps with their metrics, one row per metric in printed order
 * (a step without metrics: one row, name NULL): one statement per page. */
#define STEPS_PAGE_Q(d)                                                                            \
	"SELECT p.id, p.step, p.rank, p.line, p.copies, m.name, m.text, m.value FROM "             \
	"(" STEP_RANGE_##d ") p LEFT JOIN step_metrics m ON m.step_id = p.id "                     \
	                   "ORDER BY p.step, p.id, m.pos"

/* A new step of the page from the current row (columns 0..4). */
static struct store_run_step *step_start(struct store_q *s, struct store_run_step_page *p)
{
	struct store_run_step *nv = realloc(p->steps, (p->n_steps + 1) * sizeof *nv);
	if (!nv)
		return NULL;
	p->steps = nv;
	struct store_run_step *x = &p->steps[p->n_steps++];
	memset(x, 0, sizeof *x);
	x->step = (long)store_q_col_i64(s, 1);
	x->rank = store_q_col_int(s, 2);
	x->line = store_q_col_i64(s, 3);
	x->copies = store_q_col_i64(s, 4);
	return x;
}

/* The metric of the current row (columns 5..7) appended to x. */
static int metric_add(struct store_q *s, struct arena *a, struct store_run_step *x, size_t *cap,
                      size_t *bytes)
{
	int bad = 0;
	struct store_step_metric *nv =
	        store_arena_grow(a, x->metrics, x->n_metrics, cap, sizeof *nv);
	if (!nv)
		return -1;
	x->metrics = nv;
	struct store_step_metric *m = &x->metrics[x->n_metrics++];
	m->name = store_q_col_dup(a, s, 5, bytes, &bad);
	if (!m->name)
		m->name = "";
	m->text = store_q_col_dup(a, s, 6, bytes, &bad);
	m->value = store_q_col_double(s, 7);
	m->has_value = !store_q_col_isnull(s, 7) && isfinite(m->value);
	*bytes += 64;
	return bad ? -1 : 0;
}

/* Read the page's rows (STEPS_PAGE_Q) into out: limit steps, or fewer
 * when the next would take the page past STORE_PAGE_BYTES (the first is
 * always kept); next_cursor after the last kept when more follow.  Rows
 * past the page are read and dropped (a streamed read ends idle, without
 * a cancel).  Ends with store_q_done(s). */
static int steps_walk(struct store *st, struct store_q *s, int limit,
                      struct store_run_step_page *out)
{
	struct store_run_step *x = NULL;
	int64_t id = 0, last[2] = {0, 0};
	size_t bytes = 0, sz = 0, cap = 0;
	int src, rc = 0, more = 0, full = 0;
	for (;;) {
		src = store_q_step(s);
		int row = src == STORE_Q_ROW;
		/* a step ends at the next one's first row or at the end */
		if (!full && x && (!row || store_q_col_i64(s, 0) != id)) {
			if (out->n_steps > 1 && bytes + sz > STORE_PAGE_BYTES) {
				out->n_steps--;
				more = full = 1;
			} else {
				bytes += sz;
				last[0] = x->step;
				last[1] = id;
			}
			x = NULL;
		}
		if (!row)
			break;
		if (full)
			continue;
		if (!x) {
			if ((int)out->n_steps == limit) {
				more = full = 1;
				continue;
			}
			if (!(x = step_start(s, out)))
				goto oom;
			id = store_q_col_i64(s, 0);
			cap = 0;
			sz = 1 + 128; /* its share, plus its separating comma */
		}
		if (!store_q_col_isnull(s, 5) && metric_add(s, &out->arena, x, &cap, &sz) < 0)
			goto oom;
	}
	if (src != STORE_Q_DONE)
		rc = store_q_fail(st, src, "listing steps");
	else if (more)
		store_cursor_text('s', last, 2, out->next_cursor);
	store_q_done(s);
	return rc;
oom:
	store_q_done(s);
	return store_fail(st, STORE_ERROR, "out of memory");
}

int store_steps_list(struct store *st, int64_t run_id, int rank, int validation, int limit,
                     const char *cursor, struct store_run_step_page *out)
{
	int64_t cur[2] = {LLONG_MIN, -1};
	int rc;
	memset(out, 0, sizeof *out);
	if ((rc = store_cursor_parse(st, cursor, 's', cur, 2)) < 0)
		return rc;
	if ((rc = store_run_exists(st, run_id)) <= 0)
		return rc == 0 ? store_fail(st, STORE_NOT_FOUND, "run %lld not found",
		                            (long long)run_id)
		               : rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = store_stmt(st, SID_STEPS_PAGE, STORE_SQL_D(STEPS_PAGE_Q));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_i64(s, 3, validation ? 1 : 0);
	store_q_bind_i64(s, 4, cur[0]);
	store_q_bind_i64(s, 5, cur[1]);
	store_q_bind_i64(s, 6, limit + 1);
	store_q_stream(s); /* up to 1001 steps of every metric */
	return steps_walk(st, s, limit, out);
}
