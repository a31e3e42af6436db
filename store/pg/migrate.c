/* migrate.c - the PostgreSQL schema: migrations/postgresql/NNN_name.sql,
 * embedded by CMake as parity_pg_migrations[] (same numbering as the
 * SQLite set, PostgreSQL dialect), applied at start-up.
 *
 * Several daemons may start at once against one database: the whole run
 * holds a session advisory lock (pg_advisory_lock(STORE_PG_MIGRATE_LOCK)),
 * so the first applies what is missing while the others wait, then find
 * nothing to do.  The version is re-read under the lock.  Each migration
 * runs in its own transaction together with its schema_migrations row, so
 * a failed one leaves the database at the previous version.  The lock is
 * released on every path (and by the server if the connection dies).
 * Limit: a waiting daemon waits as long as the migrating one takes (the
 * session's lock_timeout applies, by default none). */
#include <stdio.h>
#include <string.h>

#include "pg_int.h"
#include "store_int.h"

extern const struct parity_embedded parity_pg_migrations[];

int store_pg_schema_version(struct store_pg *pg, int *version)
{
	/* before 001 there is no schema_migrations table: version 0 (asked
	 * first: a statement naming a missing table does not even parse) */
	PGresult *res = NULL;
	int64_t has = 0, v = 0;
	int rc = pg_stmt_exec(pg, PG_SID_HAS_VERSIONS,
	                      "SELECT (to_regclass('schema_migrations') IS NOT NULL)::int", 0, NULL,
	                      "reading the schema version", &res);
	if (rc == 0)
		rc = pg_col_i64(pg, res, 0, 0, &has);
	PQclear(res);
	res = NULL;
	if (rc == 0 && has)
		rc = pg_stmt_exec(pg, PG_SID_VERSION,
		                  "SELECT COALESCE(max(version), 0) FROM schema_migrations", 0,
		                  NULL, "reading the schema version", &res);
	if (rc == 0 && has)
		rc = pg_col_i64(pg, res, 0, 0, &v);
	PQclear(res);
	if (rc < 0)
		return rc;
	*version = (int)v;
	return 0;
}

/* One migration and its record in one transaction. */
static int apply_one(struct store_pg *pg, const struct parity_embedded *m, int version)
{
	char vbuf[24];
	const char *params[] = {pg_i64(vbuf, version), m->name};
	PGresult *res = NULL;
	int rc = pg_exec(pg, "BEGIN", "starting a migration");
	if (rc < 0)
		return rc;
	/* a simple-protocol query may hold many statements: the file as is */
	if ((rc = pg_exec(pg, (const char *)m->data, m->name)) < 0)
		goto fail;
	if ((rc = pg_stmt_exec(pg, PG_SID_RECORD,
	                       "INSERT INTO schema_migrations(version, name, applied_at) "
	                       "VALUES ($1::bigint, $2, " PG_NOW_TEXT ")",
	                       2, params, "recording the migration", &res)) < 0)
		goto fail;
	PQclear(res);
	if ((rc = pg_exec(pg, "COMMIT", "committing a migration")) < 0)
		goto fail;
	return 0;
fail:
	/* a prepared statement outlives the rollback; PostgreSQL re-plans it
	 * should the tables it names be dropped and made again */
	PQclear(PQexec(pg->conn, "ROLLBACK"));
	return rc;
}

/* The store's text semantics are SQLite's: UTF-8, bytewise order, ASCII-only
 * lower() (ORDER BY config, name searches).  PostgreSQL gives exactly that
 * with the C (or POSIX) locale and UTF8, and not otherwise: refuse any
 * other database with how to make a right one. */
static int check_database(struct store_pg *pg)
{
	PGresult *res =
	        PQexec(pg->conn, "SELECT current_database(), pg_encoding_to_char(encoding), "
	                         "datcollate, datctype FROM pg_database "
	                         "WHERE datname = current_database()");
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		return pg_resfail(pg, res, "reading the database's locale");
	const char *name = PQgetvalue(res, 0, 0), *enc = PQgetvalue(res, 0, 1);
	const char *coll = PQgetvalue(res, 0, 2), *ctype = PQgetvalue(res, 0, 3);
	int ok = strcmp(enc, "UTF8") == 0 &&
	         (strcmp(coll, "C") == 0 || strcmp(coll, "POSIX") == 0) &&
	         (strcmp(ctype, "C") == 0 || strcmp(ctype, "POSIX") == 0);
	int rc = 0;
	if (!ok)
		rc = pg_fail(
		        pg, STORE_INVALID,
		        "database %.64s has encoding %.32s, LC_COLLATE '%.64s', LC_CTYPE '%.64s'; "
		        "parity needs UTF8 with the C locale (text in byte order, as on "
		        "SQLite): CREATE DATABASE %.64s TEMPLATE template0 ENCODING 'UTF8' "
		        "LC_COLLATE 'C' LC_CTYPE 'C'",
		        name, enc, coll, ctype, name);
	PQclear(res);
	return rc;
}

int store_pg_migrate(struct store_pg *pg, int *n_applied)
{
	int applied = 0, cur = 0, rc;
	char lockbuf[24];
	const char *lockparam[] = {pg_i64(lockbuf, STORE_PG_MIGRATE_LOCK)};
	if (n_applied)
		*n_applied = 0;
	int max = store_migrations_max(parity_pg_migrations, pg->errmsg, sizeof pg->errmsg);
	if (max < 0)
		return STORE_ERROR;
	if ((rc = check_database(pg)) < 0)
		return rc;
	PGresult *res = PQexecParams(pg->conn, "SELECT pg_advisory_lock($1::bigint)", 1, NULL,
	                             lockparam, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return pg_resfail(pg, res, "taking the migration lock");
	PQclear(res);
	if ((rc = store_pg_schema_version(pg, &cur)) < 0)
		goto done;
	if (cur > max) {
		rc = pg_fail(pg, STORE_TOO_NEW,
		             "database schema version %d is newer than this binary supports (%d): "
		             "use a newer parity or another database",
		             cur, max);
		goto done;
	}
	for (const struct parity_embedded *m = parity_pg_migrations; m->name; m++) {
		int v = store_migration_version(m->name);
		if (v <= cur)
			continue;
		if ((rc = apply_one(pg, m, v)) < 0)
			goto done;
		applied++;
	}
	rc = 0;
done:;
	/* keep the first error's text: unlocking must not overwrite it */
	res = PQexecParams(pg->conn, "SELECT pg_advisory_unlock($1::bigint)", 1, NULL, lockparam,
	                   NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK && rc == 0)
		return pg_resfail(pg, res, "releasing the migration lock");
	PQclear(res);
	if (n_applied)
		*n_applied = applied;
	return rc;
}
