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
