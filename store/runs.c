/* runs.c - runs and their per-rank logs: creation during an upload, the
 * run views (with log summaries and warnings), the newest-first run list,
 * raw-download lookup, deletion with the list of digests that became
 * unreferenced, and warnings.
 *
 * Every statement goes through the statement layer (stmt.h) and runs on
 * SQLite and PostgreSQL alike; where the dialects differ, the Q_*(d)
 * macros spell both (STORE_SQL_D).  Inserts that can miss their parent
 * (a log of a deleted run, a warning of a deleted log) or hit a duplicate
 * test for it in the statement (WHERE EXISTS, ON CONFLICT DO NOTHING)
 * instead of failing: a failed statement aborts a PostgreSQL transaction,
 * and the caller's must stay usable after STORE_NOT_FOUND / DUPLICATE.
 *
 * Limits: name filtering is a case-sensitive substring test (instr /
 * strpos), which scans the runs table; fine for the thousands of runs one
 * machine holds. */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define RUN_COLS "r.id, r.name, r.kind, r.meta, r.created_at"
#define LOG_COLS                                                                                   \
	"l.id, l.rank, l.filename, l.bytes, l.sha256, l.n_items, l.n_validation, "                 \
	"l.n_lines, l.n_warnings, l.header_total, l.excluded, l.source"

/* Statement texts with per-backend fragments (STORE_SQL_D, stmt.h) */
/* a text parameter that may be NULL, tested first: PostgreSQL cannot
 * type a parameter from "? IS NULL" */
#define TEXT_NULL_LITE(p) p " IS NULL"
#define TEXT_NULL_PG(p)   "CAST(" p " AS TEXT) IS NULL"
#define INSTR_LITE        "instr"
#define INSTR_PG          "strpos"
#define Q_RUNS_PAGE(d)                                                                             \
	"SELECT " RUN_COLS " FROM runs r "                                                         \
	"WHERE r.id < ?1 AND (" TEXT_NULL_##d("?2") " OR r.kind = ?2) "                            \
	                                            "AND (" TEXT_NULL_##d("?3") " OR " INSTR_##d   \
	        "(r.name, ?3) > 0) "                                                               \
	        "AND (" TEXT_NULL_##d("?5") " OR " RUN_MATCHES_##d(                                \
	                "r", "?5") ") "                                                            \
	                           "ORDER BY r.id DESC LIMIT ?4"
#define RUN_MATCHES_LITE(r, p) STORE_RUN_MATCHES_Q(r, p)
#define RUN_MATCHES_PG(r, p)   STORE_RUN_MATCHES_Q_PG(r, p)
/* the run row locked until the transaction ends (store_run_lock); no
 * lock clause on SQLite, whose write transaction excludes other writers */
#define Q_RUN_LOCK "SELECT 1 FROM runs WHERE id = ?"

static int valid_kind(const char *kind)
{
	return kind && (strcmp(kind, "activation") == 0 || strcmp(kind, "training") == 0);
}

/* ---- ingest -------------------------------------------------------------- */

int store_run_create(struct store *st, const char *name, const char *kind, const char *meta_json,
                     int64_t *run_id)
{
	if (!valid_kind(kind))
		return store_fail(st, STORE_INVALID, "kind must be \"activation\" or \"training\"");
	struct store_q *s =
	        store_stmt(st, SID_RUN_INSERT,
	                   STORE_SQL_NOW("INSERT INTO runs(name, kind, meta, created_at) "
	                                 "VALUES (?, ?, ?, ",
	                                 ") RETURNING id"));
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, name ? name : "");
	store_q_bind_text(s, 2, kind);
	store_q_bind_text(s, 3, meta_json);
	int64_t id;
	int rc = store_q_run_id(s, &id);
	if (rc != STORE_Q_ROW)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "creating the run");
	if (run_id)
		*run_id = id;
	return 0;
}

int store_log_create(struct store *st, int64_t run_id, int rank, const char *filename,
                     int64_t bytes, const char *sha256_hex, int64_t *log_id)
{
	if (!sha256_hex)
		return store_fail(st, STORE_INVALID, "sha256 missing");
	/* no row back: the run is missing or already has the rank */
	struct store_q *s = store_stmt(
	        st, SID_LOG_INSERT,
	        "INSERT INTO logs(run_id, rank, filename, bytes, sha256) "
	        "SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM runs WHERE id = ?1) "
	        "ON CONFLICT (run_id, rank) DO NOTHING RETURNING id");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	store_q_bind_i64(s, 2, rank);
	store_q_bind_text(s, 3, filename);
	store_q_bind_i64(s, 4, bytes);
	store_q_bind_text(s, 5, sha256_hex);
	int64_t id;
	int rc = store_q_run_id(s, &id);
	if (rc < 0) {
		if (store_q_fk_violation(st)) /* the run went in a concurrent delete */
			return store_fail(st, STORE_NOT_FOUND, "run %lld not found",
			                  (long long)run_id);
		return store_q_fail(st, rc, "creating the log");
	}
	if (rc == STORE_Q_DONE) {
		if ((rc = store_run_exists(st, run_id)) < 0)
			return rc;
		if (rc == 0)
			return store_fail(st, STORE_NOT_FOUND, "run %lld not found",
			                  (long long)run_id);
		return store_fail(st, STORE_DUPLICATE, "run %lld already has a log for rank %d",
		                  (long long)run_id, rank);
	}
	st->rank_log_id = id;
	st->rank_of_log = rank;
	if (log_id)
		*log_id = id;
	return 0;
}

/* Run an UPDATE of one log row; STORE_NOT_FOUND when no row changed. */
static int update_log(struct store *st, struct store_q *s, int64_t log_id, const char *what)
{
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if (rc < 0)
		return store_q_fail(st, rc, what);
	if (changed == 0)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	return 0;
}

int store_run_set_fields(struct store *st, int64_t run_id, const char *name, const char *meta_json)
{
	struct store_q *s = store_stmt(st, SID_RUN_SET_FIELDS,
	                               "UPDATE runs SET name = ?, meta = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, name ? name : "");
	store_q_bind_text(s, 2, meta_json);
	store_q_bind_i64(s, 3, run_id);
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if (rc < 0)
		return store_q_fail(st, rc, "storing the run's fields");
	if (changed == 0)
		return store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	return 0;
}

int store_log_set_identity(struct store *st, int64_t log_id, int rank, int64_t bytes,
                           const char *sha256_hex)
{
	if (!sha256_hex)
		return store_fail(st, STORE_INVALID, "sha256 missing");
	struct store_q *s =
	        store_stmt(st, SID_LOG_SET_IDENTITY,
	                   "UPDATE logs SET rank = ?, bytes = ?, sha256 = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, rank);
	store_q_bind_i64(s, 2, bytes);
	store_q_bind_text(s, 3, sha256_hex);
	store_q_bind_i64(s, 4, log_id);
	int rc = update_log(st, s, log_id, "storing the log's identity");
	if (rc == 0) { /* the rank cache (store_step_add) follows the row */
		st->rank_log_id = log_id;
		st->rank_of_log = rank;
	}
	return rc;
}

int store_log_set_header(struct store *st, int64_t log_id, long header_total,
                         const char *excluded_text)
{
	struct store_q *s =
	        store_stmt(st, SID_LOG_SET_HEADER,
	                   "UPDATE logs SET header_total = ?, excluded = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	if (header_total >= 0)
		store_q_bind_i64(s, 1, header_total);
	else
		store_q_bind_null(s, 1);
	store_q_bind_text(s, 2, excluded_text);
	store_q_bind_i64(s, 3, log_id);
	return update_log(st, s, log_id, "storing the log header");
}

int store_log_set_counts(struct store *st, int64_t log_id, int64_t n_items, int64_t n_validation,
                         int64_t n_lines, int64_t n_warnings)
{
	struct store_q *s =
	        store_stmt(st, SID_LOG_SET_COUNTS,
	                   "UPDATE logs SET n_items = ?, n_validation = ?, n_lines = ?, "
	                   "n_warnings = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, n_items);
	store_q_bind_i64(s, 2, n_validation);
	store_q_bind_i64(s, 3, n_lines);
	store_q_bind_i64(s, 4, n_warnings);
	store_q_bind_i64(s, 5, log_id);
	return update_log(st, s, log_id, "storing the log counts");
}

int store_warning_add(struct store *st, int64_t log_id, const struct matcher_warning *w)
{
	/* no row inserted: the log is missing */
	struct store_q *s = store_stmt(
	        st, SID_WARNING_INSERT,
	        "INSERT INTO warnings(log_id, code, line, message, excerpt) "
	        "SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM logs WHERE id = ?1)");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, log_id);
	store_q_bind_text(s, 2, w->code ? w->code : "");
	store_q_bind_i64(s, 3, (int64_t)w->line);
	store_q_bind_text(s, 4, w->message ? w->message : "");
	store_q_bind_text(s, 5, w->excerpt ? w->excerpt : "");
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if ((rc < 0 && store_q_fk_violation(st)) || (rc >= 0 && changed == 0))
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc < 0)
		return store_q_fail(st, rc, "storing a warning");
	return 0;
}

/* ---- run views ----------------------------------------------------------- */

/* The run columns id, name, kind, meta, created_at (from column 0). */
int store_run_from_cols(struct arena *a, struct store_q *s, struct store_run *r, size_t *bytes)
{
	int bad = 0;
	memset(r, 0, sizeof *r);
	r->id = store_q_col_i64(s, 0);
	r->name = store_q_col_dup(a, s, 1, bytes, &bad);
	if (!r->name)
		r->name = "";
	const char *kind = store_q_col_text(s, 2);
	snprintf(r->kind, sizeof r->kind, "%s", kind ? kind : "");
	r->meta_json = store_q_col_dup(a, s, 3, bytes, &bad);
	r->created_at = store_q_col_dup(a, s, 4, bytes, &bad);
	return bad ? -1 : 0;
}

/* Split the raw excluded-ops text ("a, b" / "(none)") into names. */
static int excluded_split(struct arena *a, const char *text, struct store_log_view *l)
{
	size_t cap = 1;
	for (const char *p = text; *p; p++)
		cap += *p == ',';
	l->excluded = arena_alloc(a, cap * sizeof *l->excluded);
	if (!l->excluded)
		return -1;
	const char *p = text;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		const char *e = p;
		while (*e && *e != ',')
			e++;
		const char *t = e;
		while (t > p && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		size_t n = (size_t)(t - p);
		if (n > 0 && !(n == 6 && memcmp(p, "(none)", 6) == 0)) {
			if (!(l->excluded[l->n_excluded++] = arena_strndup(a, p, n)))
				return -1;
		}
		p = *e ? e + 1 : e;
	}
	return 0;
}

static int warnings_read(struct store *st, struct arena *a, struct store_log_view *l)
{
	struct store_q *s = store_stmt(st, SID_LOG_WARNINGS,
	                               "SELECT code, line, message, excerpt FROM warnings "
	                               "WHERE log_id = ? ORDER BY id");
	size_t cap = 0;
	int src, bad = 0;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, l->id);
	while (!bad && (src = store_q_step(s)) == STORE_Q_ROW) {
		struct store_warning_view *nv =
		        store_arena_grow(a, l->warnings, l->n_warnings_listed, &cap, sizeof *nv);
		if ((bad = !nv))
			break;
		l->warnings = nv;
		struct store_warning_view *w = &l->warnings[l->n_warnings_listed++];
		w->code = store_q_col_dup(a, s, 0, NULL, &bad);
		w->line = store_q_col_i64(s, 1);
		w->message = store_q_col_dup(a, s, 2, NULL, &bad);
		w->excerpt = store_q_col_dup(a, s, 3, NULL, &bad);
	}
	store_q_done(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (src < 0)
		return store_q_fail(st, src, "reading warnings");
	return 0;
}

/* The logs of run r (with warnings when with_warnings); *bytes (may be
 * NULL) grows by their text and 256 a log. */
static int logs_read(struct store *st, struct arena *a, struct store_run *r, int with_warnings,
                     size_t *bytes)
{
	int rc = 0, src, bad = 0;
	size_t cap = 0;
	struct store_q *s = store_stmt(st, SID_RUN_LOGS_FULL,
	                               "SELECT " LOG_COLS " FROM logs l WHERE l.run_id = ? "
	                               "ORDER BY l.rank");
	if (!s)
		return STORE_ERROR;
	r->with_warnings = with_warnings;
	store_q_bind_i64(s, 1, r->id);
	while (!bad && (src = store_q_step(s)) == STORE_Q_ROW) {
		struct store_log_view *nv =
		        store_arena_grow(a, r->logs, r->n_logs, &cap, sizeof *nv);
		if ((bad = !nv))
			break;
		r->logs = nv;
		struct store_log_view *l = &r->logs[r->n_logs++];
		memset(l, 0, sizeof *l);
		l->id = store_q_col_i64(s, 0);
		l->rank = store_q_col_int(s, 1);
		l->filename = store_q_col_dup(a, s, 2, bytes, &bad);
		l->bytes = store_q_col_i64(s, 3);
		l->sha256 = store_q_col_dup(a, s, 4, NULL, &bad);
		l->n_items = store_q_col_i64(s, 5);
		l->n_validation = store_q_col_i64(s, 6);
		l->source = store_q_col_dup(a, s, 11, bytes, &bad);
		if (!l->source)
			l->source = "stdout";
		l->n_lines = store_q_col_i64(s, 7);
		l->n_warnings = store_q_col_i64(s, 8);
		l->has_header_total = !store_q_col_isnull(s, 9);
		l->header_total = store_q_col_i64(s, 9);
		l->has_excluded = !store_q_col_isnull(s, 10);
		if (l->has_excluded) {
			const char *t = store_q_col_text(s, 10);
			bad |= excluded_split(a, t ? t : "", l) < 0;
			if (bytes)
				*bytes += store_q_col_bytes(s, 10);
		}
		if (bytes)
			*bytes += 256;
	}
	store_q_done(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (src < 0)
		return store_q_fail(st, src, "reading logs");
	for (size_t i = 0; with_warnings && rc == 0 && i < r->n_logs; i++)
		rc = warnings_read(st, a, &r->logs[i]);
	return rc;
}

void store_run_view_free(struct store_run_view *v)
{
	if (!v)
		return;
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

int store_run_get(struct store *st, int64_t run_id, struct store_run_view *out)
{
	memset(out, 0, sizeof *out);
	struct store_q *s =
	        store_stmt(st, SID_RUN_GET, "SELECT " RUN_COLS " FROM runs r WHERE r.id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int rc = store_q_step(s);
	if (rc == STORE_Q_ROW)
		rc = store_run_from_cols(&out->arena, s, &out->run, NULL) < 0
		             ? store_fail(st, STORE_ERROR, "out of memory")
		             : 0;
	else if (rc == STORE_Q_DONE)
		rc = store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	else
		rc = store_q_fail(st, rc, "reading the run");
	store_q_done(s);
	if (rc == 0)
		rc = logs_read(st, &out->arena, &out->run, 1, NULL);
	return rc;
}

int store_run_exists(struct store *st, int64_t run_id)
{
	char kind[16];
	int rc = store_run_kind(st, run_id, kind, sizeof kind);
	if (rc == STORE_NOT_FOUND)
		return 0;
	return rc < 0 ? rc : 1;
}

int store_run_kind(struct store *st, int64_t run_id, char *kind_out, size_t cap)
{
	struct store_q *s = store_stmt(st, SID_RUN_KIND, "SELECT kind FROM runs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		const char *kind = store_q_col_text(s, 0);
		if (kind_out && cap)
			snprintf(kind_out, cap, "%s", kind ? kind : "");
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	} else {
		ret = store_q_fail(st, rc, "reading the run");
	}
	store_q_done(s);
	return ret;
}

void store_run_page_free(struct store_run_page *p)
{
	if (!p)
		return;
	free(p->runs);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

/* One list item: the run and its logs, appended to the page. */
static int run_item(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	struct store_run_page *p = ctx;
	struct store_run *nv = realloc(p->runs, (p->n_runs + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->runs = nv;
	struct store_run *r = &p->runs[p->n_runs++];
	*bytes += 256;
	if (store_run_from_cols(&p->arena, s, r, bytes) < 0)
		return store_fail(st, STORE_ERROR, "out of memory");
	return logs_read(st, &p->arena, r, 0, bytes);
}

static void run_drop(void *ctx)
{
	((struct store_run_page *)ctx)->n_runs--;
}

/* The run list: kind, name (case-sensitive substring) and q (see
 * store_list_filter), NULL = any. */
static int runs_page(struct store *st, const char *kind, const char *name, const char *q, int limit,
                     const char *cursor, struct store_run_page *out)
{
	int64_t before = INT64_MAX;
	int rc;
	memset(out, 0, sizeof *out);
	if (kind && !valid_kind(kind))
		return store_fail(st, STORE_INVALID, "kind must be \"activation\" or \"training\"");
	if ((rc = store_cursor_parse(st, cursor, 'r', &before, 1)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	struct store_q *s = store_stmt(st, SID_RUNS_PAGE, STORE_SQL_D(Q_RUNS_PAGE));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, before);
	store_q_bind_text(s, 2, kind);
	store_q_bind_text(s, 3, name && name[0] ? name : NULL);
	store_q_bind_i64(s, 4, limit + 1);
	store_q_bind_text(s, 5, q && q[0] ? q : NULL);
	static const int keys[] = {0};
	return store_q_page_walk(st, s, limit, 'r', keys, 1, run_item, run_drop, out,
	                         "listing runs", out->next_cursor);
}

int store_runs_list(struct store *st, const char *kind, const char *name, int limit,
                    const char *cursor, struct store_run_page *out)
{
	return runs_page(st, kind, name, NULL, limit, cursor, out);
}

int store_runs_find(struct store *st, const struct store_list_filter *f, int limit,
                    const char *cursor, struct store_run_page *out)
{
	return runs_page(st, f ? f->kind : NULL, NULL, f ? f->q : NULL, limit, cursor, out);
}

/* ---- logs of a run ------------------------------------------------------- */

int store_run_logs(struct store *st, int64_t run_id, struct store_log_ref **out, size_t *n)
{
	struct store_log_ref *v = NULL;
	size_t len = 0, cap = 0;
	int rc, src;
	*out = NULL;
	*n = 0;
	if ((rc = store_run_exists(st, run_id)) <= 0)
		return rc == 0 ? store_fail(st, STORE_NOT_FOUND, "run %lld not found",
		                            (long long)run_id)
		               : rc;
	struct store_q *s = store_stmt(st, SID_RUN_LOGS,
	                               "SELECT id, rank, n_items, n_validation FROM logs "
	                               "WHERE run_id = ? ORDER BY rank");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	rc = 0;
	while ((src = store_q_step(s)) == STORE_Q_ROW) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct store_log_ref *nv = realloc(v, ncap * sizeof *nv);
			if (!nv) {
				rc = store_fail(st, STORE_ERROR, "out of memory");
				goto done;
			}
			v = nv;
			cap = ncap;
		}
		v[len].log_id = store_q_col_i64(s, 0);
		v[len].rank = store_q_col_int(s, 1);
		v[len].n_items = store_q_col_i64(s, 2);
		v[len].n_validation = store_q_col_i64(s, 3);
		len++;
	}
	if (src < 0) {
		rc = store_q_fail(st, src, "listing logs");
		goto done;
	}
	*out = v;
	*n = len;
	v = NULL;
done:
	store_q_done(s);
	free(v);
	return rc;
}

int store_log_find(struct store *st, int64_t run_id, int rank, int64_t *log_id, char sha256_out[65],
                   int64_t *bytes, char *filename_out, size_t filename_cap)
{
	struct store_q *s = store_stmt(st, SID_LOG_FIND,
	                               "SELECT id, sha256, bytes, filename FROM logs "
	                               "WHERE run_id = ? AND rank = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	store_q_bind_i64(s, 2, rank);
	int rc = store_q_step(s), ret = 0;
	if (rc == STORE_Q_ROW) {
		if (log_id)
			*log_id = store_q_col_i64(s, 0);
		if (sha256_out) {
			const char *h = store_q_col_text(s, 1);
			snprintf(sha256_out, 65, "%s", h ? h : "");
		}
		if (bytes)
			*bytes = store_q_col_i64(s, 2);
		if (filename_out && filename_cap) {
			const char *f = store_q_col_text(s, 3);
			snprintf(filename_out, filename_cap, "%s", f ? f : "");
		}
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "run %lld has no log for rank %d",
		                 (long long)run_id, rank);
	} else {
		ret = store_q_fail(st, rc, "finding the log");
	}
	store_q_done(s);
	return ret;
}

/* ---- deletion ------------------------------------------------------------ */

void store_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

int store_sha256_referenced(struct store *st, const char *sha256_hex)
{
	struct store_q *s =
	        store_stmt(st, SID_SHA_REFERENCED, "SELECT 1 FROM logs WHERE sha256 = ? LIMIT 1");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, sha256_hex);
	int rc = store_q_step(s), ret;
	if (rc == STORE_Q_ROW)
		ret = 1;
	else if (rc == STORE_Q_DONE)
		ret = 0;
	else
		ret = store_q_fail(st, rc, "looking up a digest");
	store_q_done(s);
	return ret;
}

/* Digests of the run's logs into a NULL-terminated malloc'd array. */
static int run_shas(struct store *st, int64_t run_id, char ***out)
{
	char **v = NULL;
	size_t len = 0, cap = 0;
	int rc = 0, src;
	struct store_q *s =
	        store_stmt(st, SID_RUN_SHAS, "SELECT DISTINCT sha256 FROM logs WHERE run_id = ?");
	*out = NULL;
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	while ((src = store_q_step(s)) == STORE_Q_ROW) {
		if (len + 1 >= cap) {
			size_t ncap = cap ? cap * 2 : 8;
			char **nv = realloc(v, ncap * sizeof *nv);
			if (!nv)
				goto oom;
			v = nv;
			cap = ncap;
		}
		const char *h = store_q_col_text(s, 0);
		v[len] = strdup(h ? h : "");
		if (!v[len])
			goto oom;
		v[++len] = NULL;
	}
	if (src < 0) {
		rc = store_q_fail(st, src, "reading digests");
		goto done;
	}
	if (!v) {
		v = calloc(1, sizeof *v);
		if (!v)
			goto oom;
	}
	*out = v;
	v = NULL;
	goto done;
oom:
	rc = store_fail(st, STORE_ERROR, "out of memory");
done:
	store_q_done(s);
	store_strv_free(v);
	return rc;
}

int store_run_lock(struct store *st, int64_t run_id, int for_delete)
{
	const char *sql = STORE_SQL(Q_RUN_LOCK, for_delete ? Q_RUN_LOCK " FOR UPDATE"
	                                                   : Q_RUN_LOCK " FOR KEY SHARE");
	struct store_q *s = store_prep_as(st, sql, "locking the run");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, run_id);
	int rc = store_q_step(s);
	store_q_done(s);
	if (rc < 0)
		return store_q_fail(st, rc, "locking the run");
	return rc == STORE_Q_ROW;
}

int store_run_delete(struct store *st, int64_t run_id, char ***unref_out)
{
	char **shas = NULL;
	int owned = 0, rc, src;
	int64_t cmp_id = 0;
	if (unref_out)
		*unref_out = NULL;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if ((rc = store_run_lock(st, run_id, 1)) <= 0) {
		if (rc == 0)
			rc = store_fail(st, STORE_NOT_FOUND, "run %lld not found",
			                (long long)run_id);
		goto done;
	}
	if ((rc = store_run_in_comparison(st, run_id, &cmp_id)) != 0) {
		if (rc > 0)
			rc = store_fail(
			        st, STORE_IN_USE,
			        "run %lld is used by comparison %lld: delete the comparison first",
			        (long long)run_id, (long long)cmp_id);
		goto done;
	}
	char bname[STORE_BASELINE_NAME_MAX + 1];
	if ((rc = store_run_in_baseline(st, run_id, bname, sizeof bname)) != 0) {
		if (rc > 0)
			rc = store_fail(
			        st, STORE_IN_USE,
			        "run %lld is (or was) baseline '%s': it stays for its history",
			        (long long)run_id, bname);
		goto done;
	}
	if ((rc = run_shas(st, run_id, &shas)) < 0)
		goto done;
	struct store_q *s = store_stmt(st, SID_RUN_DELETE, "DELETE FROM runs WHERE id = ?");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_i64(s, 1, run_id);
	src = store_q_step(s);
	store_q_done(s);
	if (src < 0) {
		/* a reference the checks above did not see (the lock makes it
		 * unlikely; a PostgreSQL transaction is aborted by now) */
		rc = store_q_fk_violation(st)
		             ? store_fail(st, STORE_IN_USE,
		                          "run %lld is still referenced (by a comparison or a "
		                          "baseline): delete those first",
		                          (long long)run_id)
		             : store_q_fail(st, src, "deleting the run");
		goto done;
	}
	/* keep only the digests nothing references any more */
	size_t w = 0;
	for (size_t i = 0; shas[i]; i++) {
		int ref = store_sha256_referenced(st, shas[i]);
		if (ref < 0) {
			rc = ref;
			goto done;
		}
		char *h = shas[i];
		shas[i] = NULL;
		if (ref)
			free(h);
		else
			shas[w++] = h;
	}
	shas[w] = NULL;
	rc = 0;
done:
	rc = store_tx_end_owned(st, owned, rc);
	if (rc == 0 && unref_out) {
		*unref_out = shas;
		shas = NULL;
	}
	store_strv_free(shas);
	return rc;
}
