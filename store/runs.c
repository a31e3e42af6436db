/* runs.c - runs and their per-rank logs: creation during an upload, the
 * run JSON (with log summaries and warnings), the newest-first run list,
 * raw-download lookup, deletion with the list of digests that became
 * unreferenced, and warnings.
 *
 * Limits: name filtering is a case-sensitive substring test (instr), which
 * scans the runs table; fine for the thousands of runs one machine holds. */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

#define RUN_COLS "r.id, r.name, r.kind, r.meta, r.created_at"
#define LOG_COLS                                                                                   \
	"l.id, l.rank, l.filename, l.bytes, l.sha256, l.n_items, l.n_validation, "                 \
	"l.n_lines, l.n_warnings, l.header_total, l.excluded, l.source"

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
	sqlite3_stmt *s = store_stmt(st, SID_RUN_INSERT,
	                             "INSERT INTO runs(name, kind, meta, created_at) "
	                             "VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))");
	if (!s)
		return STORE_ERROR;
	store_bind_text(s, 1, name ? name : "");
	store_bind_text(s, 2, kind);
	store_bind_text(s, 3, meta_json);
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "creating the run");
	if (run_id)
		*run_id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_log_create(struct store *st, int64_t run_id, int rank, const char *filename,
                     int64_t bytes, const char *sha256_hex, int64_t *log_id)
{
	if (!sha256_hex)
		return store_fail(st, STORE_INVALID, "sha256 missing");
	sqlite3_stmt *s = store_stmt(st, SID_LOG_INSERT,
	                             "INSERT INTO logs(run_id, rank, filename, bytes, sha256) "
	                             "VALUES (?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int(s, 2, rank);
	store_bind_text(s, 3, filename);
	sqlite3_bind_int64(s, 4, bytes);
	store_bind_text(s, 5, sha256_hex);
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	if (rc != SQLITE_DONE) {
		int code = store_sqlfail(st, rc, "creating the log");
		if (code == STORE_DUPLICATE)
			store_fail(st, code, "run %lld already has a log for rank %d",
			           (long long)run_id, rank);
		return code;
	}
	int64_t id = sqlite3_last_insert_rowid(st->db);
	st->rank_log_id = id;
	st->rank_of_log = rank;
	if (log_id)
		*log_id = id;
	return 0;
}

/* Run an UPDATE of one log row; STORE_NOT_FOUND when no row changed. */
static int update_log(struct store *st, sqlite3_stmt *s, int64_t log_id, const char *what)
{
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, what);
	if (sqlite3_changes(st->db) == 0)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	return 0;
}

int store_log_set_header(struct store *st, int64_t log_id, long header_total,
                         const char *excluded_text)
{
	sqlite3_stmt *s = store_stmt(st, SID_LOG_SET_HEADER,
	                             "UPDATE logs SET header_total = ?, excluded = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	if (header_total >= 0)
		sqlite3_bind_int64(s, 1, header_total);
	else
		sqlite3_bind_null(s, 1);
	store_bind_text(s, 2, excluded_text);
	sqlite3_bind_int64(s, 3, log_id);
	return update_log(st, s, log_id, "storing the log header");
}

int store_log_set_counts(struct store *st, int64_t log_id, int64_t n_items, int64_t n_validation,
                         int64_t n_lines, int64_t n_warnings)
{
	sqlite3_stmt *s = store_stmt(st, SID_LOG_SET_COUNTS,
	                             "UPDATE logs SET n_items = ?, n_validation = ?, n_lines = ?, "
	                             "n_warnings = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, n_items);
	sqlite3_bind_int64(s, 2, n_validation);
	sqlite3_bind_int64(s, 3, n_lines);
	sqlite3_bind_int64(s, 4, n_warnings);
	sqlite3_bind_int64(s, 5, log_id);
	return update_log(st, s, log_id, "storing the log counts");
}

int store_warning_add(struct store *st, int64_t log_id, const struct matcher_warning *w)
{
	sqlite3_stmt *s = store_stmt(st, SID_WARNING_INSERT,
	                             "INSERT INTO warnings(log_id, code, line, message, excerpt) "
	                             "VALUES (?, ?, ?, ?, ?)");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, log_id);
	store_bind_text(s, 2, w->code ? w->code : "");
	sqlite3_bind_int64(s, 3, (sqlite3_int64)w->line);
	store_bind_text(s, 4, w->message ? w->message : "");
	store_bind_text(s, 5, w->excerpt ? w->excerpt : "");
	int rc = sqlite3_step(s);
	store_stmt_done(s);
	if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc != SQLITE_DONE)
		return store_sqlfail(st, rc, "storing a warning");
	return 0;
}

/* ---- run JSON ------------------------------------------------------------ */

json_t *store_run_row_json(sqlite3_stmt *s)
{
	json_t *run = json_object();
	if (!run)
		return NULL;
	json_object_set_new(run, "id", json_integer(sqlite3_column_int64(s, 0)));
	json_object_set_new(run, "name", store_json_col_text(s, 1));
	json_object_set_new(run, "kind", store_json_col_text(s, 2));
	json_t *meta = NULL;
	if (sqlite3_column_type(s, 3) != SQLITE_NULL)
		meta = json_loadb((const char *)sqlite3_column_text(s, 3),
		                  (size_t)sqlite3_column_bytes(s, 3), 0, NULL);
	json_object_set_new(run, "meta", meta ? meta : json_object());
	json_object_set_new(run, "created_at", store_json_col_text(s, 4));
	return run;
}

/* Split the raw excluded-ops text ("a, b" / "(none)") into a JSON array. */
static json_t *excluded_json(const char *text)
{
	json_t *arr = json_array();
	if (!arr || !text)
		return arr;
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
		if (n > 0 && !(n == 6 && memcmp(p, "(none)", 6) == 0))
			json_array_append_new(arr, store_json_text(p, n));
		p = *e ? e + 1 : e;
	}
	return arr;
}

static json_t *warnings_json(struct store *st, int64_t log_id, int *rc)
{
	sqlite3_stmt *s = store_stmt(st, SID_LOG_WARNINGS,
	                             "SELECT code, line, message, excerpt FROM warnings "
	                             "WHERE log_id = ? ORDER BY id");
	json_t *arr = json_array();
	*rc = 0;
	if (!s || !arr) {
		json_decref(arr);
		*rc = STORE_ERROR;
		return NULL;
	}
	sqlite3_bind_int64(s, 1, log_id);
	int src;
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *w = json_object();
		json_object_set_new(w, "code", store_json_col_text(s, 0));
		json_object_set_new(w, "line", json_integer(sqlite3_column_int64(s, 1)));
		json_object_set_new(w, "message", store_json_col_text(s, 2));
		json_object_set_new(w, "excerpt", store_json_col_text(s, 3));
		json_array_append_new(arr, w);
	}
	store_stmt_done(s);
	if (src != SQLITE_DONE) {
		*rc = store_sqlfail(st, src, "reading warnings");
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* The logs array of a run (with warnings when with_warnings). */
static int logs_json(struct store *st, int64_t run_id, int training, int with_warnings,
                     json_t **out)
{
	int rc = 0, src;
	json_t *arr = json_array();
	sqlite3_stmt *s = store_stmt(st, SID_RUN_LOGS_FULL,
	                             "SELECT " LOG_COLS " FROM logs l WHERE l.run_id = ? "
	                             "ORDER BY l.rank");
	*out = NULL;
	if (!s || !arr) {
		json_decref(arr);
		return STORE_ERROR;
	}
	sqlite3_bind_int64(s, 1, run_id);
	/* collect ids first: warnings use another statement; keep rows simple */
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
		json_t *l = json_object();
		json_object_set_new(l, "id", json_integer(sqlite3_column_int64(s, 0)));
		json_object_set_new(l, "rank", json_integer(sqlite3_column_int64(s, 1)));
		json_object_set_new(l, "filename", store_json_col_text(s, 2));
		json_object_set_new(l, "bytes", json_integer(sqlite3_column_int64(s, 3)));
		json_object_set_new(l, "sha256", store_json_col_text(s, 4));
		if (training) {
			json_object_set_new(l, "steps", json_integer(sqlite3_column_int64(s, 5)));
			json_object_set_new(l, "validation_steps",
			                    json_integer(sqlite3_column_int64(s, 6)));
			/* issue 14: where the series came from and how precise it is */
			const char *source = (const char *)sqlite3_column_text(s, 11);
			source = source ? source : "stdout";
			json_object_set_new(l, "source", json_string(source));
			json_object_set_new(l, "precision",
			                    json_string(!strcmp(source, "tfevents")   ? "float32"
			                                : !strcmp(source, "lossfile") ? "decimal"
			                                                              : "printed"));
		} else {
			json_object_set_new(l, "entries", json_integer(sqlite3_column_int64(s, 5)));
		}
		json_object_set_new(l, "lines", json_integer(sqlite3_column_int64(s, 7)));
		json_object_set_new(l, "n_warnings", json_integer(sqlite3_column_int64(s, 8)));
		if (!training) {
			json_object_set_new(l, "header_total",
			                    sqlite3_column_type(s, 9) == SQLITE_NULL
			                            ? json_null()
			                            : json_integer(sqlite3_column_int64(s, 9)));
			json_object_set_new(
			        l, "excluded_ops",
			        sqlite3_column_type(s, 10) == SQLITE_NULL
			                ? json_null()
			                : excluded_json((const char *)sqlite3_column_text(s, 10)));
		}
		json_array_append_new(arr, l);
	}
	store_stmt_done(s);
	if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "reading logs");
		goto done;
	}
	if (with_warnings) {
		size_t i;
		json_t *l;
		json_array_foreach(arr, i, l)
		{
			json_t *w = warnings_json(st, json_integer_value(json_object_get(l, "id")),
			                          &rc);
			if (!w)
				goto done;
			json_object_set_new(l, "warnings", w);
		}
	}
	*out = arr;
	arr = NULL;
done:
	json_decref(arr);
	return rc;
}

json_t *store_run_json(struct store *st, int64_t run_id)
{
	json_t *run = NULL, *logs = NULL;
	sqlite3_stmt *s =
	        store_stmt(st, SID_RUN_GET, "SELECT " RUN_COLS " FROM runs r WHERE r.id = ?");
	if (!s)
		return NULL;
	sqlite3_bind_int64(s, 1, run_id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		run = store_run_row_json(s);
	else if (rc == SQLITE_DONE)
		store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	else
		store_sqlfail(st, rc, "reading the run");
	store_stmt_done(s);
	if (!run)
		return NULL;
	int training = strcmp(json_string_value(json_object_get(run, "kind")), "training") == 0;
	if (logs_json(st, run_id, training, 1, &logs) < 0) {
		json_decref(run);
		return NULL;
	}
	json_object_set_new(run, "logs", logs);
	return run;
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
	sqlite3_stmt *s = store_stmt(st, SID_RUN_KIND, "SELECT kind FROM runs WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	int rc = sqlite3_step(s), ret = 0;
	if (rc == SQLITE_ROW) {
		if (kind_out && cap)
			snprintf(kind_out, cap, "%s", (const char *)sqlite3_column_text(s, 0));
	} else if (rc == SQLITE_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "run %lld not found", (long long)run_id);
	} else {
		ret = store_sqlfail(st, rc, "reading the run");
	}
	store_stmt_done(s);
	return ret;
}

static json_t *run_row(struct store *st, sqlite3_stmt *s, void *ctx, int *rc)
{
	(void)st, (void)ctx, (void)rc;
	return store_run_row_json(s);
}

int store_runs_list(struct store *st, const char *kind, const char *name, int limit,
                    const char *cursor, json_t **out)
{
	int64_t before = INT64_MAX;
	int rc;
	*out = NULL;
	if (kind && !valid_kind(kind))
		return store_fail(st, STORE_INVALID, "kind must be \"activation\" or \"training\"");
	if ((rc = store_cursor_parse(st, cursor, 'r', &before, 1)) < 0)
		return rc;
	limit = store_clamp_limit(limit);
	sqlite3_stmt *s = store_stmt(st, SID_RUNS_PAGE,
	                             "SELECT " RUN_COLS " FROM runs r "
	                             "WHERE r.id < ?1 AND (?2 IS NULL OR r.kind = ?2) "
	                             "AND (?3 IS NULL OR instr(r.name, ?3) > 0) "
	                             "ORDER BY r.id DESC LIMIT ?4");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, before);
	store_bind_text(s, 2, kind);
	store_bind_text(s, 3, name && name[0] ? name : NULL);
	sqlite3_bind_int(s, 4, limit + 1);
	static const int keys[] = {0};
	json_t *res;
	if ((rc = store_page_collect(st, s, limit, "runs", 'r', keys, 1, run_row, NULL,
	                             "listing runs", &res)) < 0)
		return rc;
	size_t i;
	json_t *run;
	json_array_foreach(json_object_get(res, "runs"), i, run)
	{
		json_t *logs;
		int training =
		        strcmp(json_string_value(json_object_get(run, "kind")), "training") == 0;
		if ((rc = logs_json(st, json_integer_value(json_object_get(run, "id")), training, 0,
		                    &logs)) < 0) {
			json_decref(res);
			return rc;
		}
		json_object_set_new(run, "logs", logs);
	}
	*out = res;
	return 0;
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
	sqlite3_stmt *s = store_stmt(st, SID_RUN_LOGS,
	                             "SELECT id, rank, n_items, n_validation FROM logs "
	                             "WHERE run_id = ? ORDER BY rank");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	rc = 0;
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
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
		v[len].log_id = sqlite3_column_int64(s, 0);
		v[len].rank = sqlite3_column_int(s, 1);
		v[len].n_items = sqlite3_column_int64(s, 2);
		v[len].n_validation = sqlite3_column_int64(s, 3);
		len++;
	}
	if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "listing logs");
		goto done;
	}
	*out = v;
	*n = len;
	v = NULL;
done:
	store_stmt_done(s);
	free(v);
	return rc;
}

int store_log_find(struct store *st, int64_t run_id, int rank, int64_t *log_id, char sha256_out[65],
                   int64_t *bytes, char *filename_out, size_t filename_cap)
{
	sqlite3_stmt *s = store_stmt(st, SID_LOG_FIND,
	                             "SELECT id, sha256, bytes, filename FROM logs "
	                             "WHERE run_id = ? AND rank = ?");
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int(s, 2, rank);
	int rc = sqlite3_step(s), ret = 0;
	if (rc == SQLITE_ROW) {
		if (log_id)
			*log_id = sqlite3_column_int64(s, 0);
		if (sha256_out)
			snprintf(sha256_out, 65, "%s", (const char *)sqlite3_column_text(s, 1));
		if (bytes)
			*bytes = sqlite3_column_int64(s, 2);
		if (filename_out && filename_cap) {
			const char *f = (const char *)sqlite3_column_text(s, 3);
			snprintf(filename_out, filename_cap, "%s", f ? f : "");
		}
	} else if (rc == SQLITE_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "run %lld has no log for rank %d",
		                 (long long)run_id, rank);
	} else {
		ret = store_sqlfail(st, rc, "finding the log");
	}
	store_stmt_done(s);
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
	sqlite3_stmt *s =
	        store_stmt(st, SID_SHA_REFERENCED, "SELECT 1 FROM logs WHERE sha256 = ? LIMIT 1");
	if (!s)
		return STORE_ERROR;
	store_bind_text(s, 1, sha256_hex);
	int rc = sqlite3_step(s), ret;
	if (rc == SQLITE_ROW)
		ret = 1;
	else if (rc == SQLITE_DONE)
		ret = 0;
	else
		ret = store_sqlfail(st, rc, "looking up a digest");
	store_stmt_done(s);
	return ret;
}

/* Digests of the run's logs into a NULL-terminated malloc'd array. */
static int run_shas(struct store *st, int64_t run_id, char ***out)
{
	char **v = NULL;
	size_t len = 0, cap = 0;
	int rc = 0, src;
	sqlite3_stmt *s =
	        store_stmt(st, SID_RUN_SHAS, "SELECT DISTINCT sha256 FROM logs WHERE run_id = ?");
	*out = NULL;
	if (!s)
		return STORE_ERROR;
	sqlite3_bind_int64(s, 1, run_id);
	while ((src = sqlite3_step(s)) == SQLITE_ROW) {
		if (len + 1 >= cap) {
			size_t ncap = cap ? cap * 2 : 8;
			char **nv = realloc(v, ncap * sizeof *nv);
			if (!nv)
				goto oom;
			v = nv;
			cap = ncap;
		}
		v[len] = strdup((const char *)sqlite3_column_text(s, 0));
		if (!v[len])
			goto oom;
		v[++len] = NULL;
	}
	if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "reading digests");
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
	store_stmt_done(s);
	store_strv_free(v);
	return rc;
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
	if ((rc = store_run_exists(st, run_id)) <= 0) {
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
	if ((rc = run_shas(st, run_id, &shas)) < 0)
		goto done;
	sqlite3_stmt *s = store_stmt(st, SID_RUN_DELETE, "DELETE FROM runs WHERE id = ?");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	sqlite3_bind_int64(s, 1, run_id);
	src = sqlite3_step(s);
	store_stmt_done(s);
	if (src != SQLITE_DONE) {
		rc = store_sqlfail(st, src, "deleting the run");
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
