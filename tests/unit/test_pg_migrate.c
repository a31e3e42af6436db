/* test_pg_migrate.c - the PostgreSQL migrations runner (store/pg/migrate.c)
 * against the server of PARITY_TEST_DB (pgtest.h: fails without it):
 *   - two processes started at once on a fresh database both succeed and
 *     each version is applied exactly once (several rounds);
 *   - a second run applies nothing; the advisory lock is released;
 *   - a database newer than the binary is refused (STORE_TOO_NEW), and
 *     so is one whose encoding or locale is not UTF8 + C (STORE_INVALID);
 *   - the final schema has the same tables, columns (type class, NOT NULL)
 *     and indexes as the SQLite store's, plus only the documented
 *     PostgreSQL-only lease columns. */
#include <dirent.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "pgtest.h"
#include "store.h"

/* The PostgreSQL migration files of the source tree (what CMake embeds):
 * how many, and the highest version into *max.  Versions need not be
 * contiguous (a branch may hold 011 before 010 is merged). */
static int migration_files(int *max)
{
	int n = 0;
	*max = 0;
	DIR *d = opendir(PARITY_TESTS_DIR "/../migrations/postgresql");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 5 || strcmp(de->d_name + len - 4, ".sql") != 0)
			continue;
		n++;
		if (atoi(de->d_name) > *max)
			*max = atoi(de->d_name);
	}
	if (d)
		closedir(d);
	return n;
}

/* Child: wait for the start signal, migrate, exit with how many versions
 * it applied (100 + code on failure). */
static void child_migrate(const char *url, int go_fd)
{
	char c;
	if (read(go_fd, &c, 1) < 0)
		_exit(120);
	struct store_pg *pg = NULL;
	char err[256];
	if (store_pg_open(url, &pg, err, sizeof err) != 0) {
		fprintf(stderr, "child open: %s\n", err);
		_exit(101);
	}
	int n = -1;
	int rc = store_pg_migrate(pg, &n);
	if (rc != 0)
		fprintf(stderr, "child migrate: %s\n", store_pg_errmsg(pg));
	store_pg_close(pg);
	_exit(rc == 0 ? n : 100 - rc);
}

/* Race two migrating processes on url; their applied counts into n[2]
 * (-1: the process failed). */
static void race(const char *url, int n[2])
{
	int go[2];
	pid_t pid[2];
	CHECK(pipe(go) == 0);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0) {
			close(go[1]);
			child_migrate(url, go[0]);
		}
	}
	close(go[0]);
	close(go[1]); /* EOF: both children start now */
	for (int i = 0; i < 2; i++) {
		int status = 0;
		n[i] = -1;
		if (pid[i] > 0 && waitpid(pid[i], &status, 0) == pid[i] && WIFEXITED(status) &&
		    WEXITSTATUS(status) < 100)
			n[i] = WEXITSTATUS(status);
	}
}

/* "table.column type notnull" lines of the SQLite store's final schema,
 * one per column, sorted; then index names as "index name". */
static void sqlite_schema(const char *path, char *out, size_t cap)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	size_t len = 0;
	out[0] = 0;
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	const char *sql = "SELECT line FROM ("
	                  " SELECT m.name || '.' || p.name || ' ' ||"
	                  "  CASE upper(p.type) WHEN 'INTEGER' THEN 'int' WHEN 'REAL' THEN 'real'"
	                  "   ELSE lower(p.type) END || ' ' || (p.\"notnull\" OR p.pk > 0) AS line"
	                  " FROM sqlite_master m, pragma_table_info(m.name) p"
	                  " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'"
	                  " UNION ALL SELECT 'index ' || name FROM sqlite_master"
	                  " WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%')"
	                  " ORDER BY line";
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK)
		while (sqlite3_step(s) == SQLITE_ROW && len + 200 < cap)
			len += (size_t)snprintf(out + len, cap - len, "%s\n",
			                        sqlite3_column_text(s, 0));
	else
		fprintf(stderr, "sqlite schema: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(s);
	sqlite3_close(db);
}

/* The same lines for the PostgreSQL database at url, leaving out the
 * lease columns migrations/postgresql/002 documents as PostgreSQL-only,
 * the raw log tables and delivery owner of 011 (PostgreSQL-only as well),
 * primary-key / unique-constraint indexes (SQLite's are autoindexes) and
 * PostgreSQL-only indexes (named in skip_index). */
static void pg_schema(const char *url, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = 0;
	PGconn *c = PQconnectdb(url);
	PGresult *r = PQexec(
	        c, "SELECT line FROM ("
	           " SELECT table_name || '.' || column_name || ' ' ||"
	           "  CASE data_type WHEN 'bigint' THEN 'int' WHEN 'double precision' THEN 'real'"
	           "   ELSE data_type END || ' ' || CASE is_nullable WHEN 'NO' THEN 1 ELSE 0 END"
	           "  AS line"
	           " FROM information_schema.columns WHERE table_schema = 'public'"
	           "  AND NOT (table_name = 'comparisons'"
	           "           AND column_name IN ('lease_owner', 'lease_until_ms'))"
	           "  AND table_name NOT IN ('raw_blobs', 'raw_chunks')"
	           "  AND NOT (table_name = 'webhook_deliveries' AND column_name = 'claimed_by')"
	           " UNION ALL SELECT 'index ' || indexname FROM pg_indexes"
	           " WHERE schemaname = 'public' AND indexname NOT LIKE '%\\_pkey'"
	           "  AND indexname NOT LIKE '%\\_key' AND indexname <> 'comparisons_lease') q"
	           " ORDER BY line COLLATE \"C\"");
	if (PQresultStatus(r) == PGRES_TUPLES_OK)
		for (int i = 0; i < PQntuples(r) && len + 200 < cap; i++)
			len += (size_t)snprintf(out + len, cap - len, "%s\n", PQgetvalue(r, i, 0));
	else
		fprintf(stderr, "pg schema: %s", PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}

/* Print the first differing line of two schema listings. */
static void show_diff(const char *a, const char *b)
{
	while (*a && *b) {
		const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
		if (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) {
			fprintf(stderr, "sqlite: %.*s\npg:     %.*s\n", (int)(ea - a), a,
			        (int)(eb - b), b);
			return;
		}
		a = ea + 1;
		b = eb + 1;
	}
	fprintf(stderr, "one listing ends early:\nsqlite rest: %.200s\npg rest: %.200s\n", a, b);
}

int main(void)
{
	const char *base = pgtest_base_url();
	char url[1024], tag[32];
	int last = 0, max_file = 0, count = migration_files(&max_file);

	/* concurrent start on fresh databases */
	for (int round = 0; round < 3; round++) {
		snprintf(tag, sizeof tag, "mig%d", round);
		CHECK(pgtest_fresh_db(base, tag, url, sizeof url) == 0);
		int n[2];
		race(url, n);
		CHECK(n[0] >= 0 && n[1] >= 0);
		long long versions = pgtest_num(url, "SELECT count(*) FROM schema_migrations");
		long long distinct = pgtest_num(url, "SELECT count(DISTINCT version) FROM "
		                                     "schema_migrations");
		last = (int)pgtest_num(url, "SELECT max(version) FROM schema_migrations");
		CHECK(last >= 9 && count >= 9);
		CHECK_INT(last, max_file);
		CHECK_INT(versions, count);
		CHECK_INT(distinct, count);
		/* each version applied by exactly one of the two */
		CHECK_INT(n[0] + n[1], count);
		if (round < 2)
			pgtest_drop_db(base, tag);
	}

	/* a restart applies nothing; the lock is not left behind */
	struct store_pg *pg = NULL;
	char err[256];
	CHECK(store_pg_open(url, &pg, err, sizeof err) == 0);
	int n = -1, v = -1;
	CHECK(store_pg_migrate(pg, &n) == 0);
	CHECK_INT(n, 0);
	CHECK(store_pg_schema_version(pg, &v) == 0);
	CHECK_INT(v, last);
	CHECK_INT(
	        pgtest_num(url,
	                   "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database "
	                   "= (SELECT oid FROM pg_database WHERE datname = current_database())"),
	        0);
	/* the database's own clock wrote applied_at as RFC 3339 UTC */
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM schema_migrations WHERE applied_at ~ "
	                          "'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'"),
	          count);

	/* the schema matches the SQLite store's */
	char dir[] = "/tmp/parity-pg-migrate-XXXXXX", path[512];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/parity.db", dir);
	struct store *st = NULL;
	CHECK(store_open(path, &st, err, sizeof err) == 0);
	store_close(st);
	static char lite[64 * 1024], pgs[64 * 1024];
	sqlite_schema(path, lite, sizeof lite);
	pg_schema(url, pgs, sizeof pgs);
	CHECK(strlen(lite) > 2000);
	CHECK(strstr(lite, "comparisons.suite_size int 0\n") != NULL);
	CHECK(strstr(pgs, "train_result_metrics.max_abs_text text 1\n") != NULL);
	CHECK_STR(pgs, lite);
	if (strcmp(pgs, lite) != 0)
		show_diff(lite, pgs);
	CHECK(strstr(pgs, "lease_owner") == NULL); /* left out above, present below */
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM information_schema.columns WHERE "
	                          "table_name = 'comparisons' AND column_name LIKE 'lease_%'"),
	          2);
	unlink(path);
	char wal[600];
	snprintf(wal, sizeof wal, "%s-wal", path);
	unlink(wal);
	snprintf(wal, sizeof wal, "%s-shm", path);
	unlink(wal);
	rmdir(dir);

	/* a newer database is refused, and not touched */
	CHECK(pgtest_exec(url, "INSERT INTO schema_migrations VALUES (999, '999_future.sql', "
	                       "'2030-01-01T00:00:00Z')") == 0);
	CHECK_INT(store_pg_migrate(pg, &n), STORE_TOO_NEW);
	CHECK(strstr(store_pg_errmsg(pg), "999") != NULL);
	CHECK_INT(
	        pgtest_num(url,
	                   "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database "
	                   "= (SELECT oid FROM pg_database WHERE datname = current_database())"),
	        0);
	store_pg_close(pg);

	/* a database whose text semantics differ from SQLite's is refused,
	 * untouched: another collation, another encoding */
	char bad_url[1024];
	/* made for its URL, then made again with the locale under test */
	CHECK(pgtest_fresh_db(base, "coll", bad_url, sizeof bad_url) == 0);
	pgtest_drop_db(base, "coll");
	char sql[256];
	snprintf(sql, sizeof sql,
	         "CREATE DATABASE parity_t_coll_%ld TEMPLATE template0 ENCODING 'UTF8' "
	         "LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8'",
	         (long)getpid());
	CHECK(pgtest_exec(base, sql) == 0);
	CHECK(store_pg_open(bad_url, &pg, err, sizeof err) == 0);
	CHECK_INT(store_pg_migrate(pg, &n), STORE_INVALID);
	CHECK(strstr(store_pg_errmsg(pg), "LC_COLLATE 'C.UTF-8'") != NULL);
	CHECK(strstr(store_pg_errmsg(pg), "TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C'") !=
	      NULL);
	store_pg_close(pg);
	CHECK_INT(pgtest_num(bad_url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"),
	          0);
	pgtest_drop_db(base, "coll");
	snprintf(sql, sizeof sql,
	         "CREATE DATABASE parity_t_coll_%ld TEMPLATE template0 ENCODING 'SQL_ASCII' "
	         "LC_COLLATE 'C' LC_CTYPE 'C'",
	         (long)getpid());
	CHECK(pgtest_exec(base, sql) == 0);
	CHECK(store_pg_open(bad_url, &pg, err, sizeof err) == 0);
	CHECK_INT(store_pg_migrate(pg, &n), STORE_INVALID);
	CHECK(strstr(store_pg_errmsg(pg), "encoding SQL_ASCII") != NULL);
	store_pg_close(pg);
	pgtest_drop_db(base, "coll");
	/* POSIX is C by another name: accepted */
	snprintf(sql, sizeof sql,
	         "CREATE DATABASE parity_t_coll_%ld TEMPLATE template0 ENCODING 'UTF8' "
	         "LC_COLLATE 'POSIX' LC_CTYPE 'POSIX'",
	         (long)getpid());
	CHECK(pgtest_exec(base, sql) == 0);
	CHECK(store_pg_open(bad_url, &pg, err, sizeof err) == 0);
	CHECK_INT(store_pg_migrate(pg, &n), 0);
	CHECK_INT(n, count);
	store_pg_close(pg);
	pgtest_drop_db(base, "coll");

	/* a bad URL is an error with a sentence, not a crash */
	CHECK_INT(store_pg_open("postgresql://parity@127.0.0.1:1/none", &pg, err, sizeof err),
	          STORE_ERROR);
	CHECK(pg == NULL);
	CHECK(strstr(err, "connecting to PostgreSQL") != NULL);

	pgtest_drop_db(base, "mig2");
	return check_report();
}
