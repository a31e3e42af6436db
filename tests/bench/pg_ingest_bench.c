/* pg_ingest_bench.c - store-side ingest throughput of one activation log
 * on both backends (tests/bench/pg_ingest.sh drives it):
 *   bench_pg_ingest LOG URL DIR [ROUNDS [LOG_GZ]]
 * URL: an empty PostgreSQL database (migrated here); DIR: an empty
 * directory for the SQLite file.  Per round, the log is parsed from disk
 * (1 MiB pieces, the streaming parser) and its entries stored in one
 * transaction: SQLite with store_entry_add (store_tx_begin_bulk), as an
 * upload does; PostgreSQL with COPY (store/pg/load.c).  Also the raw log
 * written as a PostgreSQL blob (store/pg/blobs.c), deflated by the blob
 * writer, and (LOG_GZ given) as the upload's commit writes it: the log
 * already gzip-compressed while its body streamed in, stored as it is.  Prints each round and
 * the medians in MB/s of the log's size, and PG/SQLite ratios.  HTTP,
 * sha256 and the SQLite raw file are not included (tests/bench/ingest.sh
 * measures the full upload on SQLite).  PG_BENCH_WITH_FK=1 puts back the
 * entries -> logs foreign key (dropped by migrations/postgresql/011) to
 * measure its cost. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <libpq-fe.h>

#include "ingest_both.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* CPU seconds this process used so far (user + system) */
static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Run the bench's own setup SQL on url (a run and a log row, made
 * directly: the bench times the entries alone).  0, or -1 (printed). */
static int setup_sql(const char *url, const char *sql)
{
	PGconn *c = PQconnectdb(url);
	PGresult *r = PQexec(c, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	if (!ok)
		fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
	return ok ? 0 : -1;
}

/* Write the raw log at path as blob sha (fake, per round) in one
 * transaction.  raw_bytes >= 0: path is that log already gzip-compressed
 * (as the upload's compression thread writes it while the body streams
 * in), stored as it is (store_pg_blob_write_gz: the upload's commit). */
static int blob_round(struct store_pg *pg, const char *path, int64_t raw_bytes, int round,
                      int64_t *zbytes)
{
	char sha[65];
	snprintf(sha, sizeof sha, "%064d", raw_bytes >= 0 ? 100 + round : round + 1);
	FILE *f = fopen(path, "rb");
	static char piece[1 << 20];
	struct store_pg_blob_writer *w = NULL;
	int rc = f ? store_pg_tx_begin(pg) : -1;
	if (rc == 0)
		rc = store_pg_blob_create(pg, sha, &w);
	size_t n;
	while (rc == 0 && (n = fread(piece, 1, sizeof piece, f)) > 0)
		rc = raw_bytes >= 0 ? store_pg_blob_write_gz(w, piece, n)
		                    : store_pg_blob_write(w, piece, n);
	if (w && rc != 0)
		store_pg_blob_abort(w);
	else if (w)
		rc = raw_bytes >= 0 ? store_pg_blob_finish_gz(w, raw_bytes, zbytes)
		                    : store_pg_blob_finish(w, zbytes);
	if (rc == 0)
		rc = store_pg_tx_commit(pg);
	if (f)
		fclose(f);
	if (rc != 0)
		fprintf(stderr, "blob: %s\n", store_pg_errmsg(pg));
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s LOG URL DIR [ROUNDS [LOG_GZ]]\n", argv[0]);
		return 2;
	}
	const char *log = argv[1], *url = argv[2], *dir = argv[3];
	const char *log_gz = argc > 5 ? argv[5] : NULL; /* the log gzip'ed (level 1) */
	int rounds = argc > 4 ? atoi(argv[4]) : 3;
	if (rounds < 1 || rounds > 20)
		rounds = 3;
	struct stat sb;
	if (stat(log, &sb) != 0) {
		perror(log);
		return 2;
	}
	double mb = (double)sb.st_size / 1e6;
	char db_path[1024], err[512];
	snprintf(db_path, sizeof db_path, "%s/parity.db", dir);
	struct store *st = NULL;
	struct store_pg *pg = NULL;
	if (store_open(db_path, &st, err, sizeof err) != 0) {
		fprintf(stderr, "sqlite: %s\n", err);
		return 1;
	}
	if (store_pg_open(url, &pg, err, sizeof err) != 0 || store_pg_migrate(pg, NULL) != 0) {
		fprintf(stderr, "postgresql: %s\n", pg ? store_pg_errmsg(pg) : err);
		return 1;
	}
	const char *with_fk = getenv("PG_BENCH_WITH_FK");
	if (with_fk && strcmp(with_fk, "1") == 0) {
		if (setup_sql(url,
		              "ALTER TABLE entries ADD CONSTRAINT entries_log_id_fkey FOREIGN KEY "
		              "(log_id) REFERENCES logs(id) ON DELETE CASCADE") != 0)
			return 1;
		printf("(PG_BENCH_WITH_FK=1: the entries -> logs foreign key that migration 011 "
		       "dropped is back, to measure its cost)\n");
	}
	double lite[20], copy[20], blob[20], client[20], pre[20];
	size_t n_entries = 0;
	int64_t zbytes = 0;
	printf("log: %s, %.1f MB\n", log, mb);
	for (int r = 0; r < rounds; r++) {
		double t0 = now_s();
		if (ingest_sqlite(st, log, &n_entries) != 0)
			return 1;
		lite[r] = mb / (now_s() - t0);
		char sql[512];
		snprintf(sql, sizeof sql,
		         "INSERT INTO runs(id, name, kind, created_at) VALUES (%d, 'bench', "
		         "'activation', 'now'); INSERT INTO logs(id, run_id, rank, bytes, sha256) "
		         "VALUES (%d, %d, 0, %lld, 'x')",
		         r + 1, r + 1, r + 1, (long long)sb.st_size);
		if (setup_sql(url, sql) != 0)
			return 1;
		t0 = now_s();
		double c0 = cpu_s();
		if (ingest_pg(pg, r + 1, log, &n_entries) != 0)
			return 1;
		double wall = now_s() - t0;
		copy[r] = mb / wall;
		client[r] = (cpu_s() - c0) / wall;
		t0 = now_s();
		if (blob_round(pg, log, -1, r, &zbytes) != 0)
			return 1;
		blob[r] = mb / (now_s() - t0);
		t0 = now_s();
		pre[r] = 0;
		if (log_gz && blob_round(pg, log_gz, (int64_t)sb.st_size, r, NULL) != 0)
			return 1;
		if (log_gz)
			pre[r] = mb / (now_s() - t0);
		printf("round %d: %zu entries; SQLite %.1f MB/s, PostgreSQL COPY %.1f MB/s (client "
		       "busy %.0f %% of it: parse + escape), PostgreSQL raw blob %.1f MB/s (%lld "
		       "bytes stored), precompressed blob %.1f MB/s\n",
		       r + 1, n_entries, lite[r], copy[r], 100 * client[r], blob[r],
		       (long long)zbytes, pre[r]);
		fflush(stdout);
	}
	double ml = median(lite, rounds), mc = median(copy, rounds), mbl = median(blob, rounds);
	printf("median: SQLite entries %.1f MB/s; PostgreSQL entries (COPY) %.1f MB/s "
	       "(%.2fx SQLite); PostgreSQL raw blob %.1f MB/s; PostgreSQL entries + blob %.1f "
	       "MB/s\n",
	       ml, mc, mc / ml, mbl, 1 / (1 / mc + 1 / mbl));
	if (log_gz) {
		double mp = median(pre, rounds);
		printf("median: precompressed blob %.1f MB/s; the upload's PostgreSQL commit "
		       "(entries COPY + precompressed blob) %.1f MB/s\n",
		       mp, 1 / (1 / mc + 1 / mp));
	}
	printf("target: PostgreSQL ingest >= 30 MB/s (issue 17): %s\n",
	       mc >= 30 ? "met (entries)" : "NOT met (entries)");
	store_close(st);
	store_pg_close(pg);
	return 0;
}
