/* test_ingest_upload_pg.c - an upload's commit on PostgreSQL (server/ingest/upload.c),
 * driven directly (srv_upload_start / _feed / _commit, no daemon) with the
 * request's connection on a fresh database of PARITY_TEST_DB (pgtest.h),
 * and the same uploads on SQLite for comparison:
 *   - a plain activation log: the entries are the rows SQLite's upload
 *     stores (column for column, in order), the log's counts the same,
 *     and the raw log is a blob that reads back byte-exact, with its
 *     chunks (store_pg_blob_chunk) a gzip stream; no raw file on disk;
 *   - a gzip upload: the blob is the uploaded gzip bytes as they came;
 *   - the same bytes again: a second run, still one blob;
 *   - a commit that fails after its entries went out (a trigger refuses
 *     the raw chunk): a 5xx, and nothing of it stays: no run, no log, no
 *     entry, no blob, no chunk;
 *   - a log that is not UTF-8: stored on both; the entries have U+FFFD
 *     in place of the bad byte, the raw log keeps it;
 *   - the temp directory is empty after each upload is freed. */
#include <dirent.h>
#include <sqlite3.h>
#include <stdint.h>
#include <sys/stat.h>
#include <zlib.h>

#include "check.h"
#include "pgtest.h"
#include "store.h"
#include "ingest.h"

#define LOG_PATH PARITY_TESTS_DIR "/data/match/p1_a.log"

static char url[1024];

/* The entries of the (only) log of run_id as text, one row a line. */
#define ENTRY_ROW                                                                                  \
	"ord || '|' || line || '|' || key || '|' || phase || '|' || coalesce(shape, '~') || '|' "  \
	"|| coalesce(l1_text, '~') || '|' || coalesce(l2_text, '~') || '|' || "                    \
	"coalesce(min_text, '~') || '|' || coalesce(max_text, '~') || '|' || "                     \
	"coalesce(mean_text, '~') || '|' || stat_isnum || '|' || coalesce(output_hash, '~') || "   \
	"'|' || coalesce(input_hashes, '~') || '|' || coalesce(input_producers, '~') || '|' || "   \
	"coalesce(location, '~')"

static char *rows_sqlite(const char *path, int64_t run_id)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	char *out = NULL;
	sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
	sqlite3_prepare_v2(db,
	                   "SELECT group_concat(r, char(10)) FROM (SELECT " ENTRY_ROW
	                   " AS r FROM entries e JOIN logs l ON l.id = e.log_id "
	                   "WHERE l.run_id = ? ORDER BY ord)",
	                   -1, &s, NULL);
	sqlite3_bind_int64(s, 1, run_id);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		out = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return out ? out : strdup("");
}

static char *rows_pg(int64_t run_id)
{
	PGconn *c = PQconnectdb(url);
	char sql[2048], id[24];
	snprintf(id, sizeof id, "%lld", (long long)run_id);
	snprintf(sql, sizeof sql,
	         "SELECT string_agg(" ENTRY_ROW ", E'\\n' ORDER BY ord) FROM entries e "
	         "JOIN logs l ON l.id = e.log_id WHERE l.run_id = $1::bigint");
	const char *params[] = {id};
	PGresult *r = PQexecParams(c, sql, 1, NULL, params, NULL, NULL, 0);
	char *out = strdup(PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
	                           ? PQgetvalue(r, 0, 0)
	                           : "<error>");
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		fprintf(stderr, "rows_pg: %s", PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	return out;
}

/* Upload data as one raw-body log into s's store db; the run id, or -1
 * with *status set. */
static int64_t upload(struct srv *s, struct store *db, const char *data, size_t n, unsigned *status)
{
	struct srv_req req;
	memset(&req, 0, sizeof req);
	req.srv = s;
	req.db = db;
	json_t *err = NULL;
	*status = 0;
	struct srv_upload_fields f = {"up", NULL, "activation", "0", "a.log"};
	struct upload *u = srv_upload_start(s, &req, 0, &f, status, &err);
	int64_t run = -1;
	/* in pieces, as a body arrives */
	for (size_t off = 0; u && off < n; off += 65536)
		if (srv_upload_feed(u, data + off, n - off < 65536 ? n - off : 65536, status,
		                    &err) < 0)
			break;
	if (u && !err && srv_upload_commit(u, &run, status, &err) < 0)
		run = -1;
	if (err) {
		char *t = json_dumps(err, 0);
		fprintf(stderr, "upload: %u %s\n", *status, t ? t : "");
		free(t);
		json_decref(err);
	}
	srv_upload_free(u);
	return run;
}

struct collect {
	char *data;
	size_t len;
};

static int collect_fn(void *ctx, const void *data, size_t n)
{
	struct collect *c = ctx;
	c->data = realloc(c->data, c->len + n + 1);
	memcpy(c->data + c->len, data, n);
	c->len += n;
	return 0;
}

/* 1 when blob sha reads back as exactly want (n bytes). */
static int blob_is(struct store *db, const char *sha, const char *want, size_t n)
{
	struct collect c = {NULL, 0};
	int rc = store_pg_blob_read(store_pg_of(db), sha, collect_fn, &c);
	int same = rc == 0 && c.len == n && memcmp(c.data, want, n) == 0;
	free(c.data);
	return same;
}

static int dir_entries(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/* data (n bytes) as one gzip member at level; *out_n its size. */
static unsigned char *gzip_of(const char *data, size_t n, int level, size_t *out_n)
{
	size_t cap = compressBound((uLong)n) + 64;
	unsigned char *gz = malloc(cap);
	z_stream z = {0};
	CHECK(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)n;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return gz;
}

static void sha_of(struct store *db, int64_t run, char sha[65])
{
	sha[0] = 0;
	CHECK_INT(store_log_find(db, run, 0, NULL, sha, NULL, NULL, 0), 0);
}

int main(void)
{
	const char *base = pgtest_base_url();
	CHECK(pgtest_fresh_db(base, "upload", url, sizeof url) == 0);
	char dir[] = "/tmp/parity-uploadpg.XXXXXX", lite_path[128], err[256];
	CHECK(mkdtemp(dir) != NULL);
	struct srv s;
	memset(&s, 0, sizeof s);
	s.raw = srv_rawlog_new(dir);
	const char *raw_dir = store_rawlog_dir(s.raw, STORE_RAWLOG_RAW);
	const char *tmp_dir = store_rawlog_dir(s.raw, STORE_RAWLOG_TMP);
	CHECK(mkdir(tmp_dir, 0700) == 0 && mkdir(raw_dir, 0700) == 0);
	s.cfg.max_upload = 1 << 30;
	s.cfg.max_line = 1 << 20;
	s.cfg.max_inflate_ratio = 100;
	snprintf(lite_path, sizeof lite_path, "%s/parity.db", dir);
	struct store *pg = NULL, *lite = NULL;
	CHECK_INT(store_open(url, &pg, err, sizeof err), 0);
	CHECK_INT(store_open(lite_path, &lite, err, sizeof err), 0);
	if (!pg || !lite)
		return check_report();
	CHECK(store_is_pg(pg) && !store_is_pg(lite));
	CHECK(store_pg_of(lite) == NULL && store_pg_of(pg) != NULL);
	size_t n = 0;
	char *log = check_slurp(LOG_PATH, &n);
	CHECK(log != NULL);
	if (!log)
		return check_report();
	unsigned status = 0;

	/* a plain log: SQLite's rows, a byte-exact blob, no raw file */
	int64_t run_lite = upload(&s, lite, log, n, &status);
	CHECK(run_lite > 0);
	CHECK_INT(dir_entries(raw_dir), 1); /* SQLite: <aa>/<sha256>.gz */
	snprintf(s.cfg.db_url, sizeof s.cfg.db_url, "%s", url);
	int64_t run_pg = upload(&s, pg, log, n, &status);
	CHECK(run_pg > 0);
	char *a = rows_sqlite(lite_path, run_lite), *b = rows_pg(run_pg);
	CHECK(strlen(a) > 1000);
	CHECK(strcmp(a, b) == 0); /* (not printed: a few hundred KB) */
	if (strcmp(a, b) != 0)
		fprintf(stderr, "entries differ: SQLite %zu bytes, PostgreSQL %zu bytes\n",
		        strlen(a), strlen(b));
	free(a);
	free(b);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM logs WHERE n_items > 0 AND n_lines > 0"),
	          1);
	char sha[65];
	sha_of(pg, run_pg, sha);
	CHECK(blob_is(pg, sha, log, n));
	int64_t bytes = 0, zbytes = 0;
	CHECK_INT(store_pg_blob_size(store_pg_of(pg), sha, &bytes, &zbytes), 0);
	CHECK_INT(bytes, (long long)n);
	CHECK(zbytes > 0 && zbytes < bytes);
	void *chunk = NULL;
	size_t cn = 0;
	CHECK_INT(store_pg_blob_chunk(store_pg_of(pg), sha, 0, &chunk, &cn), 0);
	CHECK(cn >= 2 && ((unsigned char *)chunk)[0] == 0x1f &&
	      ((unsigned char *)chunk)[1] == 0x8b);
	free(chunk);
	CHECK_INT(dir_entries(raw_dir), 1); /* nothing new on disk */
	CHECK_INT(dir_entries(tmp_dir), 0);

	/* the same bytes again: a new run, the same blob */
	CHECK(upload(&s, pg, log, n, &status) > run_pg);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 1);

	/* a gzip upload: stored as it came */
	size_t gz_n = 0, gz1_n = 0;
	unsigned char *gz = gzip_of(log, n, 6, &gz_n), *gz1 = gzip_of(log, n, 1, &gz1_n);
	CHECK(gz1_n != gz_n || memcmp(gz, gz1, gz_n) != 0);
	int64_t run_gz = upload(&s, pg, (const char *)gz, gz_n, &status);
	CHECK(run_gz > 0);
	char sha_gz[65];
	sha_of(pg, run_gz, sha_gz);
	CHECK(strcmp(sha_gz, sha) != 0);
	CHECK(blob_is(pg, sha_gz, (const char *)gz, gz_n));
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 2);

	/* a commit that fails after its entries went out: nothing stays */
	long long runs = pgtest_num(url, "SELECT count(*) FROM runs");
	long long entries = pgtest_num(url, "SELECT count(*) FROM entries");
	CHECK(pgtest_exec(url, "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ "
	                       "BEGIN RAISE EXCEPTION 'refused by the test'; END $$; "
	                       "CREATE TRIGGER refuse BEFORE INSERT ON raw_chunks "
	                       "FOR EACH ROW EXECUTE FUNCTION refuse()") == 0);
	CHECK_INT(upload(&s, pg, (const char *)gz1, gz1_n, &status), -1); /* a new blob */
	CHECK(status >= 500);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM runs"), runs);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM logs WHERE run_id > 0"), runs);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries"), entries);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 2);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_chunks"),
	          pgtest_num(url, "SELECT sum(n_chunks) FROM raw_blobs"));
	CHECK_INT(dir_entries(tmp_dir), 0);
	/* the connection is usable again afterwards */
	CHECK(pgtest_exec(url, "DROP TRIGGER refuse ON raw_chunks") == 0);
	CHECK(upload(&s, pg, (const char *)gz1, gz1_n, &status) > 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 3);

	/* a log that is not UTF-8: both stores keep U+FFFD in place of the
	 * bad bytes (store_utf8_repair); the raw log keeps them */
	char *bad = malloc(n);
	memcpy(bad, log, n);
	char *at = strstr(bad, "op_0_embedding");
	CHECK(at != NULL);
	if (at)
		at[3] = (char)0xff;
	CHECK(upload(&s, lite, bad, n, &status) > 0);
	int64_t run_bad = upload(&s, pg, bad, n, &status);
	CHECK(run_bad > 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM entries WHERE key LIKE "
	                          "'%op_' || U&'\\FFFD' || '_embedding'"),
	          1);
	char sha_bad[65];
	sha_of(pg, run_bad, sha_bad);
	CHECK(blob_is(pg, sha_bad, bad, n));
	free(bad);

	free(gz);
	free(gz1);
	free(log);
	store_close(pg);
	store_close(lite);
	store_rawlog_free(s.raw);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	pgtest_drop_db(base, "upload");
	return check_report();
}
