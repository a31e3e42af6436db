/* test_pg_load.c - bulk entry ingest on PostgreSQL (store/pg/load.c)
 * against PARITY_TEST_DB (pgtest.h): every activation fixture of
 * tests/data/match, and a log with backslashes, tabs, UTF-8 and a 300 KB
 * field (longer than one COPY message), is stored through COPY and
 * through SQLite's store_entry_add; the entries rows are the same, column
 * for column (NULLs included).  A missing log is STORE_NOT_FOUND, a
 * repeated log STORE_DUPLICATE, an aborted COPY stores nothing, and the
 * connection stays usable after each.  The log is locked during its COPY;
 * deleting a log or a run deletes its entries (a trigger: entries.log_id
 * has no foreign key on PostgreSQL, migration 011).  An upload's
 * transaction (raw blob + entry COPY) that fails or rolls back leaves no
 * blob, no chunk and no entry. */
#include <dirent.h>
#include <sqlite3.h>
#include <unistd.h>

#include "check.h"
#include "ingest_both.h"
#include "pgtest.h"

static char url[1024];

#define UPLOAD_SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

#define ENTRY_COLS                                                                                 \
	"ord, line, key, phase, shape, l1_text, l2_text, min_text, max_text, mean_text, "          \
	"stat_isnum, output_hash, input_hashes, input_producers, location"
#define N_COLS 15

/* Append one field (NULL as a marker no log holds) to a growing string. */
static void dump_add(char **s, size_t *len, const char *v, int last)
{
	size_t n = v ? strlen(v) : 6;
	*s = realloc(*s, *len + n + 2);
	memcpy(*s + *len, v ? v : "<NULL>", n);
	*len += n;
	(*s)[(*len)++] = last ? '\n' : '\x1f';
	(*s)[*len] = 0;
}

static char *dump_sqlite(struct store *st, const char *db_path, int64_t log_id)
{
	(void)st;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char *out = calloc(1, 1);
	size_t len = 0;
	sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL);
	sqlite3_prepare_v2(db, "SELECT " ENTRY_COLS " FROM entries WHERE log_id = ? ORDER BY ord",
	                   -1, &s, NULL);
	sqlite3_bind_int64(s, 1, log_id);
	while (sqlite3_step(s) == SQLITE_ROW)
		for (int i = 0; i < N_COLS; i++)
			dump_add(&out, &len, (const char *)sqlite3_column_text(s, i),
			         i == N_COLS - 1);
	sqlite3_finalize(s);
	sqlite3_close(db);
	return out;
}

static char *dump_pg(int64_t log_id)
{
	char sql[512];
	snprintf(sql, sizeof sql,
	         "SELECT " ENTRY_COLS " FROM entries WHERE log_id = %lld ORDER BY ord",
	         (long long)log_id);
	PGconn *c = PQconnectdb(url);
	PGresult *r = PQexec(c, sql);
	char *out = calloc(1, 1);
	size_t len = 0;
	for (int row = 0; row < PQntuples(r); row++)
		for (int i = 0; i < N_COLS; i++)
			dump_add(&out, &len, PQgetisnull(r, row, i) ? NULL : PQgetvalue(r, row, i),
			         i == N_COLS - 1);
	PQclear(r);
	PQfinish(c);
	return out;
}

/* A log with what COPY's text format must escape, and a field longer
 * than one 256 KiB message. */
static void write_special(const char *path)
{
	FILE *f = fopen(path, "w");
	fputs("Total captured activations: 3\n"
	      "==============================\n\n"
	      "[mod\\a.b/op_0_x\\\\y]\n"
	      "  Shape: torch.Size([2]), Dtype: torch.float32\n"
	      "  L2 norm: 1.5e+00\n"
	      "  Min: nan\n"
	      "  Output hash: 7.0e+00\n"
	      "  Location: C:\\dir\\file.py:1\tafter a tab \xc3\xa9\\N\n\n"
	      "[m\xc3\xa9/op_1_y]\n"
	      "  Phase: backward\n"
	      "  Max: -inf\n"
	      "  Input producers: a;b\\c\n"
	      "  Location: ",
	      f);
	for (int i = 0; i < 300000; i++)
		fputc('a' + i % 26, f);
	fputs("\n\n[m/op_2_z]\n  Mean: 1.0\n", f);
	fclose(f);
}

static int64_t next_log = 1;

/* Ingest path on both backends; CHECK the rows are the same. */
static void both(struct store *st, const char *db_path, struct store_pg *pg, const char *path)
{
	size_t n_lite = 0, n_pg = 0;
	CHECK_INT(ingest_sqlite(st, path, &n_lite), 0);
	int64_t lite_log = next_log++;
	char sql[256];
	snprintf(sql, sizeof sql,
	         "INSERT INTO logs(id, run_id, rank, bytes, sha256) VALUES (%lld, 1, %lld, 0, 'x')",
	         (long long)lite_log, (long long)lite_log);
	CHECK(pgtest_exec(url, sql) == 0);
	CHECK_INT(ingest_pg(pg, lite_log, path, &n_pg), 0);
	CHECK(n_lite > 0);
	CHECK_INT(n_pg, n_lite);
	char *a = dump_sqlite(st, db_path, lite_log), *b = dump_pg(lite_log);
	CHECK(strlen(a) > 0);
	CHECK_STR(b, a);
	if (strcmp(a, b) != 0)
		fprintf(stderr, "rows differ for %s\n", path);
	free(a);
	free(b);
}

int main(void)
{
	const char *base = pgtest_base_url();
	CHECK(pgtest_fresh_db(base, "load", url, sizeof url) == 0);
	struct store_pg *pg = pgtest_connect(url);
	CHECK(pg != NULL);
	if (!pg)
		return check_report();
	CHECK_INT(store_pg_migrate(pg, NULL), 0);
	CHECK(pgtest_exec(url, "INSERT INTO runs(id, name, kind, created_at) VALUES "
	                       "(1, 'a', 'activation', '2026-01-01T00:00:00Z')") == 0);
	char dir[] = "/tmp/parity-pgload.XXXXXX", db_path[128], special[128];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(db_path, sizeof db_path, "%s/parity.db", dir);
	snprintf(special, sizeof special, "%s/special.log", dir);
	struct store *st = NULL;
	char err[256];
	CHECK_INT(store_open(db_path, &st, err, sizeof err), 0);
	if (!st)
		return check_report();

	/* the fixtures: same rows on both backends */
	int n_files = 0;
	DIR *d = opendir(PARITY_TESTS_DIR "/data/match");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (n < 4 || strcmp(de->d_name + n - 4, ".log") != 0)
			continue;
		char path[512];
		snprintf(path, sizeof path, "%s/data/match/%s", PARITY_TESTS_DIR, de->d_name);
		both(st, db_path, pg, path);
		n_files++;
	}
	if (d)
		closedir(d);
	CHECK(n_files >= 4);
	write_special(special);
	both(st, db_path, pg, special);
	int64_t special_log = next_log - 1;
	char sql[512];
	snprintf(sql, sizeof sql,
	         "SELECT count(*) FROM entries WHERE log_id = %lld AND (key = E'mod\\\\a.b/"
	         "op_0_x\\\\\\\\y' AND location LIKE E'C:\\\\\\\\dir%%\\tafter a tab "
	         "\\u00e9\\\\\\\\N' OR ord = 1 AND length(location) = 300000 AND phase = 1)",
	         (long long)special_log);
	CHECK_INT(pgtest_num(url, sql), 2); /* the escapes really went through */

	/* errors: the COPY ends failed, the connection stays usable */
	size_t n = 0;
	CHECK_INT(ingest_pg(pg, 999, special, &n), STORE_NOT_FOUND);
	CHECK_INT(ingest_pg(pg, special_log, special, &n), STORE_DUPLICATE);
	struct store_pg_copy *c = NULL;
	CHECK_INT(store_pg_tx_begin(pg), 0);
	CHECK(pgtest_exec(url, "INSERT INTO logs(id, run_id, rank, bytes, sha256) "
	                       "VALUES (500, 1, 500, 0, 'x')") == 0);
	CHECK_INT(store_pg_entries_begin(pg, 500, &c), 0);
	struct matcher_entry e = {.key = "k", .order = 0, .line = 1};
	CHECK_INT(store_pg_entries_add(c, &e), 0);
	struct matcher_entry nokey = {.key = NULL};
	CHECK_INT(store_pg_entries_add(c, &nokey), STORE_INVALID);
	int64_t rows = -1;
	CHECK_INT(store_pg_entries_end(c, 1, &rows), 0); /* aborted on purpose */
	CHECK_INT(rows, 0);
	CHECK_INT(store_pg_tx_rollback(pg), 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries WHERE log_id = 500"), 0);
	/* a plain COPY of one row works afterwards, and counts it */
	CHECK_INT(store_pg_tx_begin(pg), 0);
	CHECK_INT(store_pg_entries_begin(pg, 500, &c), 0);
	CHECK_INT(store_pg_entries_add(c, &e), 0);
	/* the log is locked until commit: a delete waits (here: times out) */
	CHECK(pgtest_exec(url, "SET lock_timeout = '200ms'; DELETE FROM logs WHERE id = 500") < 0);
	CHECK_INT(store_pg_entries_end(c, 0, &rows), 0);
	CHECK_INT(rows, 1);
	CHECK_INT(store_pg_tx_commit(pg), 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries WHERE log_id = 500 AND key = 'k' "
	                          "AND shape IS NULL AND stat_isnum = 0 AND phase = 0"),
	          1);

	/* an upload's transaction (server/ingest/upload.c on PostgreSQL): raw blob
	 * and entries COPY together; a failure at any point rolls both back,
	 * leaving no blob, no chunk and no entry */
	CHECK(pgtest_exec(url, "INSERT INTO logs(id, run_id, rank, bytes, sha256) "
	                       "VALUES (501, 1, 501, 0, 'x')") == 0);
	for (int how = 0; how < 2; how++) {
		CHECK_INT(store_pg_tx_begin(pg), 0);
		struct store_pg_blob_writer *w = NULL;
		CHECK_INT(store_pg_blob_create(pg, UPLOAD_SHA, &w), 0);
		static char text[3 << 20];
		for (size_t i = 0; i < sizeof text; i++)
			text[i] = (char)('a' + (i * 7919 + i / 13) % 26); /* > 1 chunk compressed */
		CHECK_INT(store_pg_blob_write(w, text, sizeof text), 0);
		CHECK_INT(store_pg_blob_finish(w, NULL), 0);
		CHECK_INT(store_pg_entries_begin(pg, 501, &c), 0);
		for (int i = 0; i < 1000; i++) {
			struct matcher_entry ei = {
			        .key = "k", .order = (unsigned long)i, .line = 1};
			CHECK_INT(store_pg_entries_add(c, &ei), 0);
		}
		if (how == 1) { /* a repeated ord: the COPY fails at its end */
			struct matcher_entry dup = {.key = "k", .order = 3, .line = 1};
			CHECK_INT(store_pg_entries_add(c, &dup), 0);
		}
		CHECK_INT(store_pg_entries_end(c, 0, &rows), how == 1 ? STORE_DUPLICATE : 0);
		CHECK_INT(store_pg_tx_rollback(pg), 0);
		CHECK_INT(store_pg_blob_size(pg, UPLOAD_SHA, NULL, NULL), STORE_NOT_FOUND);
		CHECK_INT(pgtest_num(url,
		                     "SELECT count(*) FROM raw_chunks WHERE sha256 = '" UPLOAD_SHA
		                     "'"),
		          0);
		CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries WHERE log_id = 501"), 0);
	}
	/* the same committed: all of it is there */
	CHECK_INT(store_pg_tx_begin(pg), 0);
	{
		struct store_pg_blob_writer *w = NULL;
		CHECK_INT(store_pg_blob_create(pg, UPLOAD_SHA, &w), 0);
		CHECK_INT(store_pg_blob_write(w, "log text\n", 9), 0);
		CHECK_INT(store_pg_blob_finish(w, NULL), 0);
		CHECK_INT(store_pg_entries_begin(pg, 501, &c), 0);
		CHECK_INT(store_pg_entries_add(c, &e), 0);
		CHECK_INT(store_pg_entries_end(c, 0, &rows), 0);
	}
	CHECK_INT(store_pg_tx_commit(pg), 0);
	CHECK_INT(
	        pgtest_num(url, "SELECT count(*) FROM raw_chunks WHERE sha256 = '" UPLOAD_SHA "'"),
	        1);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries WHERE log_id = 501"), 1);
	CHECK(pgtest_exec(url, "DELETE FROM logs WHERE id = 501") == 0);

	/* no foreign key on entries.log_id (migration 011), but deleting a
	 * log, or a run (cascading to its logs), deletes their entries */
	long long total = pgtest_num(url, "SELECT count(*) FROM entries");
	long long of_500 = pgtest_num(url, "SELECT count(*) FROM entries WHERE log_id = 500");
	CHECK_INT(of_500, 1);
	CHECK(pgtest_exec(url, "DELETE FROM logs WHERE id = 500") == 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries"), total - of_500);
	CHECK(pgtest_exec(url, "DELETE FROM runs WHERE id = 1") == 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries"), 0);

	store_close(st);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	store_pg_close(pg);
	pgtest_drop_db(base, "load");
	return check_report();
}
