/* retention.c - what `parity gc` and `parity backup` need from the
 * database: the ids that fall out of retention, an online copy, and the
 * raw-file clock that tells which unreferenced raw files may be deleted.
 * PostgreSQL: raw logs are raw_blobs rows (store_raw_blobs_gc, one gc at a
 * time under an advisory lock) and backups are pg_dump's.
 *
 * These run rarely (from the command line, or once per upload or delete
 * next to far larger statements), so their statements are prepared per
 * call instead of living in the connection's cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_int.h"

/* Collect the first column of every row of a one-parameter query. */
static int collect_ids(struct store *st, const char *sql, const char *param, int64_t **out,
                       size_t *n)
{
	*out = NULL;
	*n = 0;
	struct store_q *q = store_prep_as(st, sql, "preparing the retention query");
	if (!q)
		return STORE_ERROR;
	store_q_bind_text(q, 1, param);
	size_t cap = 0;
	int rc;
	while ((rc = store_q_step(q)) == STORE_Q_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			int64_t *p = realloc(*out, cap * sizeof *p);
			if (!p) {
				store_q_done(q);
				free(*out);
				*out = NULL;
				*n = 0;
				return store_fail(st, STORE_ERROR, "out of memory");
			}
			*out = p;
		}
		(*out)[(*n)++] = store_q_col_i64(q, 0);
	}
	store_q_done(q);
	if (rc != STORE_Q_DONE) {
		free(*out);
		*out = NULL;
		*n = 0;
		return store_q_fail(st, rc, "running the retention query");
	}
	return 0;
}

int store_gc_candidates(struct store *st, const char *cutoff, int64_t **cmp_ids, size_t *n_cmp,
                        int64_t **run_ids, size_t *n_runs)
{
	/* finished comparisons older than the cutoff */
	int rc = collect_ids(st,
	                     "SELECT id FROM comparisons WHERE created_at < ?1 "
	                     "AND status IN ('done', 'failed') ORDER BY id",
	                     cutoff, cmp_ids, n_cmp);
	if (rc < 0)
		return rc;
	/* runs older than the cutoff that no kept comparison references and
	 * no golden baseline names (now or in its history: kept for ever) */
	rc = collect_ids(
	        st,
	        "SELECT r.id FROM runs r WHERE r.created_at < ?1 AND NOT EXISTS ("
	        " SELECT 1 FROM comparisons c WHERE (c.baseline_id = r.id OR c.candidate_id = r.id)"
	        " AND NOT (c.created_at < ?1 AND c.status IN ('done', 'failed')))"
	        " AND NOT EXISTS (SELECT 1 FROM baselines b WHERE b.run_id = r.id)"
	        " AND NOT EXISTS (SELECT 1 FROM baseline_history h WHERE h.run_id = r.id)"
	        " AND NOT EXISTS (SELECT 1 FROM baseline_history_members hm WHERE hm.run_id = r.id)"
	        " AND NOT EXISTS (SELECT 1 FROM comparison_set_members m JOIN comparisons c ON"
	        " c.id = m.comparison_id WHERE m.run_id = r.id"
	        " AND NOT (c.created_at < ?1 AND c.status IN ('done', 'failed')))"
	        " ORDER BY r.id",
	        cutoff, run_ids, n_runs);
	if (rc < 0) {
		free(*cmp_ids);
		*cmp_ids = NULL;
		*n_cmp = 0;
	}
	return rc;
}

int store_run_raw_bytes(struct store *st, int64_t run_id, int64_t *bytes)
{
	struct store_q *q =
	        store_prep_as(st, "SELECT coalesce(sum(bytes), 0) FROM logs WHERE run_id = ?",
	                      "preparing the size query");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, run_id);
	int rc = store_q_step(q);
	*bytes = rc == STORE_Q_ROW ? store_q_col_i64(q, 0) : 0;
	store_q_done(q);
	return rc == STORE_Q_ROW ? 0 : store_q_fail(st, rc, "reading log sizes");
}

int store_raw_clock(struct store *st, int64_t *born_at_ms, int64_t *stored_at_ms)
{
	*born_at_ms = 0;
	*stored_at_ms = -1;
	struct store_q *q =
	        store_prep_as(st, "SELECT born_at_ms, stored_at_ms FROM raw_clock WHERE id = 1",
	                      "preparing the raw-file clock query");
	if (!q)
		return STORE_ERROR;
	int rc = store_q_step(q);
	if (rc == STORE_Q_ROW) {
		*born_at_ms = store_q_col_i64(q, 0);
		if (!store_q_col_isnull(q, 1))
			*stored_at_ms = store_q_col_i64(q, 1);
	}
	store_q_done(q);
	if (rc != STORE_Q_ROW && rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "reading the raw-file clock");
	return 0;
}

int store_raw_clock_stored(struct store *st, int64_t at_ms)
{
	/* the larger time: SQLite's scalar max(), PostgreSQL's greatest() */
	struct store_q *q = store_prep_as(
	        st,
	        STORE_SQL(
	                "UPDATE raw_clock SET stored_at_ms = max(coalesce(stored_at_ms, ?1), ?1) "
	                "WHERE id = 1",
	                "UPDATE raw_clock SET stored_at_ms = greatest(coalesce(stored_at_ms, ?1), "
	                "?1) WHERE id = 1"),
	        "preparing the raw-file clock update");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, at_ms);
	int rc = store_q_step(q);
	store_q_done(q);
	return rc == STORE_Q_DONE ? 0 : store_q_fail(st, rc, "recording the raw-file clock");
}

int store_gc_lock(struct store *st)
{
	if (st->backend != STORE_BACKEND_PG)
		return 1;
	struct store_q *q =
	        store_prep_as(st, "SELECT pg_try_advisory_lock(?)", "taking the gc lock");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, STORE_PG_GC_LOCK);
	int rc = store_q_step(q), got = rc == STORE_Q_ROW && store_q_col_int(q, 0);
	store_q_done(q);
	if (rc != STORE_Q_ROW)
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "taking the gc lock");
	return got;
}

int store_raw_blobs_gc(struct store *st, int dry_run, int64_t *n, int64_t *bytes)
{
	*n = *bytes = 0;
	if (st->backend != STORE_BACKEND_PG)
		return 0;
	/* a blob is referenced by the logs of its sha256; an upload stores
	 * its blob and its log row in one transaction, so a blob with no
	 * committed log is garbage.  The exclusive STORE_PG_BLOB_GC_XLOCK
	 * waits for the uploads holding it shared: the DELETE's snapshot
	 * (taken after the lock) sees their logs. */
	int rc = store_tx_begin(st);
	if (rc < 0)
		return rc;
	struct store_q *l =
	        store_prep_as(st, "SELECT pg_advisory_xact_lock(?)", "collecting raw logs");
	if (!l) {
		store_tx_rollback(st);
		return STORE_ERROR;
	}
	store_q_bind_i64(l, 1, STORE_PG_BLOB_GC_XLOCK);
	rc = store_q_step(l);
	store_q_done(l);
	if (rc != STORE_Q_ROW) {
		store_tx_rollback(st);
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "collecting raw logs");
	}
	struct store_q *q = store_prep_as(
	        st,
	        dry_run ? "SELECT count(*), coalesce(sum(b.zbytes), 0) FROM raw_blobs b "
	                  "WHERE NOT EXISTS (SELECT 1 FROM logs l WHERE l.sha256 = b.sha256)"
	                : "WITH gone AS (DELETE FROM raw_blobs b WHERE NOT EXISTS (SELECT 1 FROM "
	                  "logs l WHERE l.sha256 = b.sha256) RETURNING b.zbytes) "
	                  "SELECT count(*), coalesce(sum(zbytes), 0) FROM gone",
	        "collecting raw logs");
	if (!q) {
		store_tx_rollback(st);
		return STORE_ERROR;
	}
	rc = store_q_step(q);
	if (rc == STORE_Q_ROW) {
		*n = store_q_col_i64(q, 0);
		*bytes = store_q_col_i64(q, 1);
	}
	store_q_done(q);
	if (rc != STORE_Q_ROW) {
		store_tx_rollback(st);
		return store_q_fail(st, rc < 0 ? rc : STORE_ERROR, "collecting raw logs");
	}
	return store_tx_commit(st);
}

int store_backup(struct store *st, const char *dest_path)
{
	if (st->backend == STORE_BACKEND_PG)
		return store_fail(st, STORE_INVALID, "%s", STORE_PG_BACKUP_HINT);
	char tmp[4200];
	if (snprintf(tmp, sizeof tmp, "%s.partial", dest_path) >= (int)sizeof tmp)
		return store_fail(st, STORE_INVALID, "backup path too long");
	unlink(tmp);
	sqlite3 *dest = NULL;
	int rc = sqlite3_open_v2(tmp, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		rc = store_fail(st, STORE_ERROR, "cannot create %s: %s", tmp,
		                dest ? sqlite3_errmsg(dest) : "out of memory");
		sqlite3_close(dest);
		return rc;
	}
	sqlite3_backup *b = sqlite3_backup_init(dest, "main", st->db, "main");
	if (!b) {
		rc = store_fail(st, STORE_ERROR, "cannot start the backup: %s",
		                sqlite3_errmsg(dest));
		sqlite3_close(dest);
		unlink(tmp);
		return rc;
	}
	/* Copy in slices so the daemon's writers are never blocked for long;
	 * a write by another connection restarts the copy, which is what
	 * makes the result consistent. */
	do {
		rc = sqlite3_backup_step(b, 1024);
		if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
			sqlite3_sleep(20);
	} while (rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		int code = store_fail(st, STORE_ERROR, "backup failed: %s", sqlite3_errstr(rc));
		sqlite3_close(dest);
		unlink(tmp);
		return code;
	}
	/* a standalone copy: no -wal/-shm next to it */
	sqlite3_exec(dest, "PRAGMA journal_mode=DELETE", NULL, NULL, NULL);
	rc = sqlite3_close(dest);
	if (rc != SQLITE_OK || rename(tmp, dest_path) < 0) {
		unlink(tmp);
		return store_fail(st, STORE_ERROR, "cannot write %s", dest_path);
	}
	return 0;
}
