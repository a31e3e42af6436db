/* test_pg_blobs.c - raw logs stored in PostgreSQL (store/pg/blobs.c,
 * migrations/postgresql/011) against PARITY_TEST_DB (pgtest.h):
 *   - a 16 MiB + 12345 byte log written in 64 KiB pieces reads back
 *     byte-exact; it is stored as a gzip stream in chunks of at most
 *     1 MiB; the process's peak RSS grows by far less than the log
 *     (one chunk at a time on both sides);
 *   - idempotent: a second create of the same sha256 writes nothing;
 *   - two writers of one sha256 at once: the second waits for the
 *     first's transaction; committed: it skips; rolled back: it writes;
 *     never duplicate chunks;
 *   - precompressed (store_pg_blob_write_gz / _finish_gz, the upload's
 *     path): stored as given, read back byte-exact, its chunks in order
 *     through store_pg_blob_chunk; a wrong size is an error at read; the
 *     two ways mixed are refused;
 *   - an empty log; a missing blob; a bad name; a callback that stops; a
 *     missing chunk is reported, not returned short. */
#include <pthread.h>
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

#include "check.h"
#include "pgtest.h"
#include "store.h"

static char url[1024];

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define SHA_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define SHA_F "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
#define SHA_D "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd00"
#define SHA_9 "9999999999999999999999999999999999999999999999999999999999999999"
#define SHA_8 "8888888888888888888888888888888888888888888888888888888888888888"
#define SHA_E "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

/* A deterministic, log-like byte stream (compresses about 2:1, so the
 * gzip stream spans several chunks). */
struct gen {
	unsigned long long x;
	unsigned long line;
	char pend[96];
	size_t pend_len, pend_pos;
};

static void gen_init(struct gen *g, unsigned long long seed)
{
	memset(g, 0, sizeof *g);
	g->x = seed;
}

static void gen_bytes(struct gen *g, char *out, size_t n)
{
	while (n > 0) {
		if (g->pend_pos == g->pend_len) {
			g->x ^= g->x << 13;
			g->x ^= g->x >> 7;
			g->x ^= g->x << 17;
			g->pend_len = (size_t)snprintf(g->pend, sizeof g->pend,
			                               "[layer.%lu] L1 norm: %llx\tmean %llu\n",
			                               g->line++, g->x, g->x % 100000);
			g->pend_pos = 0;
		}
		size_t take = g->pend_len - g->pend_pos < n ? g->pend_len - g->pend_pos : n;
		memcpy(out, g->pend + g->pend_pos, take);
		g->pend_pos += take;
		out += take;
		n -= take;
	}
}

/* Write total bytes of generator seed as blob sha (in pg's open
 * transaction); 0, 1 (stored already) or the error. */
static int write_blob(struct store_pg *pg, const char *sha, unsigned long long seed, size_t total)
{
	struct store_pg_blob_writer *w = NULL;
	int rc = store_pg_blob_create(pg, sha, &w);
	if (rc != 0)
		return rc;
	static char piece[65536];
	struct gen g;
	gen_init(&g, seed);
	for (size_t done = 0; done < total && rc == 0;) {
		size_t n = total - done < sizeof piece ? total - done : sizeof piece;
		gen_bytes(&g, piece, n);
		rc = store_pg_blob_write(w, piece, n);
		done += n;
	}
	if (rc != 0) {
		store_pg_blob_abort(w);
		return rc;
	}
	return store_pg_blob_finish(w, NULL);
}

/* total bytes of generator seed as one gzip member (zlib), in memory. */
struct gen_gz {
	unsigned char *data;
	size_t len;
};

static int gen_gzip(struct gen_gz *out, unsigned long long seed, size_t total)
{
	z_stream z = {0};
	if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -1;
	size_t cap = deflateBound(&z, (uLong)total) + 64;
	out->data = malloc(cap);
	out->len = 0;
	static char piece[65536];
	struct gen g;
	gen_init(&g, seed);
	z.next_out = out->data;
	z.avail_out = (uInt)cap;
	int zr = Z_OK;
	for (size_t done = 0; zr == Z_OK;) {
		size_t n = total - done < sizeof piece ? total - done : sizeof piece;
		gen_bytes(&g, piece, n);
		done += n;
		z.next_in = (unsigned char *)piece;
		z.avail_in = (uInt)n;
		zr = deflate(&z, done == total ? Z_FINISH : Z_NO_FLUSH);
	}
	out->len = cap - z.avail_out;
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : -1;
}

struct verify {
	struct gen g;
	size_t got, mismatch_at, max_piece;
	int mismatch, stop_after; /* stop_after > 0: return 7 after that many calls */
	int calls;
	char want[65536];
};

static int verify_piece(void *ctx, const void *data, size_t n)
{
	struct verify *v = ctx;
	v->calls++;
	if (n > v->max_piece)
		v->max_piece = n;
	if (n > sizeof v->want) {
		v->mismatch = 1;
		return 0;
	}
	gen_bytes(&v->g, v->want, n);
	if (!v->mismatch && memcmp(v->want, data, n) != 0) {
		v->mismatch = 1;
		v->mismatch_at = v->got;
	}
	v->got += n;
	return v->stop_after > 0 && v->calls >= v->stop_after ? 7 : 0;
}

static long max_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* The second writer of a race: waits for `go`, then creates sha in its
 * own transaction and writes seed's content if it may. */
struct racer {
	const char *sha;
	unsigned long long seed;
	volatile int go;
	int rc;
	long long returned_ms; /* when store_pg_blob_create came back */
};

static void *race_second(void *p)
{
	struct racer *r = p;
	struct store_pg *pg = pgtest_connect(url);
	if (!pg) {
		r->rc = -100;
		return NULL;
	}
	while (!r->go)
		pgtest_sleep_ms(1);
	r->rc = store_pg_tx_begin(pg);
	struct store_pg_blob_writer *w = NULL;
	if (r->rc == 0)
		r->rc = store_pg_blob_create(pg, r->sha, &w);
	r->returned_ms = pgtest_mono_ms();
	if (r->rc == 0) {
		char piece[4096];
		struct gen g;
		gen_init(&g, r->seed);
		gen_bytes(&g, piece, sizeof piece);
		r->rc = store_pg_blob_write(w, piece, sizeof piece);
		int frc = store_pg_blob_finish(w, NULL);
		if (r->rc == 0)
			r->rc = frc;
	}
	if (r->rc >= 0)
		store_pg_tx_commit(pg);
	store_pg_close(pg);
	return NULL;
}

/* Race on sha: this connection creates and writes first, the racer
 * tries meanwhile; this side then commits (commit = 1) or rolls back. */
static void race(struct store_pg *a, const char *sha, int commit, struct racer *r)
{
	memset(r, 0, sizeof *r);
	r->sha = sha;
	r->seed = 99;
	pthread_t th;
	pthread_create(&th, NULL, race_second, r);
	CHECK_INT(store_pg_tx_begin(a), 0);
	struct store_pg_blob_writer *w = NULL;
	CHECK_INT(store_pg_blob_create(a, sha, &w), 0);
	CHECK(w != NULL);
	char piece[4096];
	struct gen g;
	gen_init(&g, 5);
	gen_bytes(&g, piece, sizeof piece);
	if (w) {
		CHECK_INT(store_pg_blob_write(w, piece, sizeof piece), 0);
		CHECK_INT(store_pg_blob_finish(w, NULL), 0);
	}
	r->go = 1;
	pgtest_sleep_ms(300); /* the racer is now blocked on the sha256 key */
	long long ended = pgtest_mono_ms();
	CHECK_INT(commit ? store_pg_tx_commit(a) : store_pg_tx_rollback(a), 0);
	pthread_join(th, NULL);
	/* it did not get past the key before this transaction ended */
	CHECK(r->returned_ms >= ended);
}

/* The blob gc of a second connection while an upload that found its
 * blob already stored is still open: the gc must wait for the upload's
 * COMMIT (STORE_PG_BLOB_GC_XLOCK) and then see its log, so the blob stays.
 * Without the lock the gc deletes the blob at once and the upload commits
 * a log whose raw log is gone. */
struct gc_run {
	struct store *st;
	volatile int done;
	int rc;
	int64_t n, bytes;
};

static void *gc_thread(void *p)
{
	struct gc_run *g = p;
	g->rc = store_raw_blobs_gc(g->st, 0, &g->n, &g->bytes);
	g->done = 1;
	return NULL;
}

static void test_gc_waits_for_upload(const char *sha)
{
	struct store *up = NULL, *gc = NULL;
	char err[256];
	CHECK_INT(store_open(url, &up, err, sizeof err), 0);
	CHECK_INT(store_open(url, &gc, err, sizeof err), 0);
	if (!up || !gc) {
		store_close(up);
		store_close(gc);
		return;
	}
	long long before = pgtest_num(url, "SELECT count(*) FROM raw_blobs");
	CHECK(before >= 2);
	/* the upload: its blob is stored already (no log references it) */
	int64_t run = 0, log = 0;
	CHECK_INT(store_tx_begin(up), 0);
	struct store_pg_blob_writer *w = NULL;
	CHECK_INT(store_pg_blob_create(store_pg_of(up), sha, &w), 1);
	struct gc_run g = {.st = gc};
	pthread_t th;
	pthread_create(&th, NULL, gc_thread, &g);
	pgtest_sleep_ms(300);
	CHECK(!g.done); /* waiting for the upload */
	CHECK_INT(store_run_create(up, "gc-race", "activation", NULL, &run), 0);
	CHECK_INT(store_log_create(up, run, 0, NULL, 4096, sha, &log), 0);
	CHECK_INT(store_tx_commit(up), 0);
	pthread_join(th, NULL);
	CHECK_INT(g.rc, 0);
	/* every other blob was garbage; this one is referenced now */
	CHECK_INT(g.n, before - 1);
	CHECK_INT(store_pg_blob_size(store_pg_of(up), sha, NULL, NULL), 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 1);
	store_close(up);
	store_close(gc);
}

int main(void)
{
	const char *base = pgtest_base_url();
	CHECK(pgtest_fresh_db(base, "blobs", url, sizeof url) == 0);
	struct store_pg *a = pgtest_connect(url);
	CHECK(a != NULL);
	if (!a)
		return check_report();
	CHECK_INT(store_pg_migrate(a, NULL), 0);

	/* a 16 MiB log: round trip byte-exact, memory bounded */
	const size_t big = (16u << 20) + 12345;
	long rss0 = max_rss_kb();
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(write_blob(a, SHA_A, 42, big), 0);
	CHECK_INT(store_pg_tx_commit(a), 0);
	int64_t bytes = 0, zbytes = 0;
	CHECK_INT(store_pg_blob_size(a, SHA_A, &bytes, &zbytes), 0);
	CHECK_INT(bytes, (long long)big);
	CHECK(zbytes > 2 * STORE_PG_CHUNK && zbytes < (int64_t)big);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_chunks WHERE sha256 = '" SHA_A "'"),
	          (zbytes + STORE_PG_CHUNK - 1) / STORE_PG_CHUNK);
	CHECK_INT(pgtest_num(url, "SELECT n_chunks FROM raw_blobs WHERE sha256 = '" SHA_A "'"),
	          (zbytes + STORE_PG_CHUNK - 1) / STORE_PG_CHUNK);
	CHECK_INT(pgtest_num(url, "SELECT max(length(data)) FROM raw_chunks"), STORE_PG_CHUNK);
	CHECK_INT(pgtest_num(url, "SELECT sum(length(data)) FROM raw_chunks"), zbytes);
	/* a gzip member (what SQLite's raw files hold): magic 1f 8b */
	CHECK_INT(pgtest_num(url, "SELECT get_byte(data, 0) * 256 + get_byte(data, 1) FROM "
	                          "raw_chunks WHERE seq = 0 AND sha256 = '" SHA_A "'"),
	          0x1f8b);
	static struct verify v;
	gen_init(&v.g, 42);
	CHECK_INT(store_pg_blob_read(a, SHA_A, verify_piece, &v), 0);
	CHECK_INT(v.got, (long long)big);
	CHECK(!v.mismatch);
	if (v.mismatch)
		fprintf(stderr, "first difference at byte %zu\n", v.mismatch_at);
	CHECK(v.max_piece <= 65536);
	long grew_kb = max_rss_kb() - rss0;
	fprintf(stderr, "16 MiB log: %lld bytes stored, peak RSS grew %ld KiB\n", (long long)zbytes,
	        grew_kb);
	/* the whole log would be > 16 MiB; under ASan (PARITY_SANITIZED=1) freed
	 * memory sits in the quarantine, so RSS says nothing there */
	const char *san = getenv("PARITY_SANITIZED");
	if (!san || strcmp(san, "1") != 0)
		CHECK(grew_kb < 8 * 1024);

	/* idempotent */
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(write_blob(a, SHA_A, 42, big), 1);
	CHECK_INT(store_pg_tx_commit(a), 0);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 1);

	/* a callback that stops: its value comes back, the connection works */
	memset(&v, 0, sizeof v);
	gen_init(&v.g, 42);
	v.stop_after = 3;
	CHECK_INT(store_pg_blob_read(a, SHA_A, verify_piece, &v), 7);
	CHECK_INT(v.calls, 3);
	CHECK_INT(store_pg_blob_size(a, SHA_A, &bytes, NULL), 0);

	/* concurrent writers of one sha256 */
	struct racer r;
	race(a, SHA_B, 1, &r);
	CHECK_INT(r.rc, 1); /* stored already: skipped */
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_chunks WHERE sha256 = '" SHA_B "'"),
	          pgtest_num(url, "SELECT n_chunks FROM raw_blobs WHERE sha256 = '" SHA_B "'"));
	memset(&v, 0, sizeof v);
	gen_init(&v.g, 5); /* the first writer's content */
	CHECK_INT(store_pg_blob_read(a, SHA_B, verify_piece, &v), 0);
	CHECK(!v.mismatch && v.got == 4096);
	race(a, SHA_C, 0, &r);
	CHECK_INT(r.rc, 0); /* the first rolled back: the second wrote it */
	memset(&v, 0, sizeof v);
	gen_init(&v.g, 99); /* the second writer's content */
	CHECK_INT(store_pg_blob_read(a, SHA_C, verify_piece, &v), 0);
	CHECK(!v.mismatch && v.got == 4096);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_blobs"), 3);

	/* empty log */
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(write_blob(a, SHA_E, 1, 0), 0);
	CHECK_INT(store_pg_tx_commit(a), 0);
	memset(&v, 0, sizeof v);
	CHECK_INT(store_pg_blob_read(a, SHA_E, verify_piece, &v), 0);
	CHECK_INT(v.got, 0);
	CHECK_INT(store_pg_blob_size(a, SHA_E, &bytes, &zbytes), 0);
	CHECK(bytes == 0 && zbytes > 0);

	/* precompressed (the upload's streamed gzip copy): the chunks are the
	 * caller's stream as given, the reader inflates it byte-exact, and
	 * store_pg_blob_chunk returns the chunks in order */
	const size_t pre = 3 * STORE_PG_CHUNK + 777;
	struct gen_gz gz;
	CHECK_INT(gen_gzip(&gz, 77, pre), 0);
	CHECK(gz.len > STORE_PG_CHUNK + 1);
	struct store_pg_blob_writer *w = NULL;
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(store_pg_blob_create(a, SHA_D, &w), 0);
	/* odd piece sizes: chunks still cut at STORE_PG_CHUNK */
	for (size_t off = 0, step = 1000; off < gz.len; off += step, step = step * 3 + 1)
		CHECK_INT(store_pg_blob_write_gz(w, gz.data + off,
		                                 gz.len - off < step ? gz.len - off : step),
		          0);
	int64_t pz = 0;
	CHECK_INT(store_pg_blob_finish_gz(w, (int64_t)pre, &pz), 0);
	CHECK_INT(store_pg_tx_commit(a), 0);
	CHECK_INT(pz, (long long)gz.len);
	CHECK_INT(store_pg_blob_size(a, SHA_D, &bytes, &zbytes), 0);
	CHECK_INT(bytes, (long long)pre);
	CHECK_INT(zbytes, (long long)gz.len);
	memset(&v, 0, sizeof v);
	gen_init(&v.g, 77);
	CHECK_INT(store_pg_blob_read(a, SHA_D, verify_piece, &v), 0);
	CHECK_INT(v.got, (long long)pre);
	CHECK(!v.mismatch);
	size_t at = 0;
	int64_t seq = 0;
	for (;; seq++) {
		void *data = NULL;
		size_t n = 0;
		int crc = store_pg_blob_chunk(a, SHA_D, seq, &data, &n);
		if (crc == STORE_NOT_FOUND)
			break;
		CHECK_INT(crc, 0);
		CHECK(n <= STORE_PG_CHUNK && at + n <= gz.len);
		CHECK(at + n <= gz.len && memcmp(gz.data + at, data, n) == 0);
		at += n;
		free(data);
		if (crc < 0)
			break;
	}
	CHECK_INT(at, (long long)gz.len);
	CHECK_INT(seq, (long long)((gz.len + STORE_PG_CHUNK - 1) / STORE_PG_CHUNK));
	free(gz.data);
	/* a size that is not the stream's: the reader refuses it */
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(store_pg_blob_create(a, SHA_9, &w), 0);
	CHECK_INT(gen_gzip(&gz, 3, 5000), 0);
	CHECK_INT(store_pg_blob_write_gz(w, gz.data, gz.len), 0);
	CHECK_INT(store_pg_blob_finish_gz(w, 5001, NULL), 0);
	CHECK_INT(store_pg_tx_commit(a), 0);
	free(gz.data);
	memset(&v, 0, sizeof v);
	gen_init(&v.g, 3);
	CHECK_INT(store_pg_blob_read(a, SHA_9, verify_piece, &v), STORE_ERROR);
	CHECK(strstr(store_pg_errmsg(a), "incomplete") != NULL);
	/* both ways in one blob: refused, nothing kept */
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(store_pg_blob_create(a, SHA_8, &w), 0);
	CHECK_INT(store_pg_blob_write(w, "abc", 3), 0);
	CHECK_INT(store_pg_blob_finish_gz(w, 3, NULL), STORE_INVALID);
	CHECK_INT(store_pg_tx_rollback(a), 0);
	CHECK_INT(store_pg_blob_size(a, SHA_8, NULL, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_pg_blob_chunk(a, SHA_8, 0, &(void *){NULL}, &(size_t){0}), STORE_NOT_FOUND);

	/* errors */
	w = NULL;
	CHECK_INT(store_pg_blob_create(a, "ABC", &w), STORE_INVALID);
	CHECK_INT(store_pg_blob_create(a, SHA_A "0", &w), STORE_INVALID);
	CHECK(w == NULL);
	CHECK_INT(store_pg_blob_read(a,
	                             "dddddddddddddddddddddddddddddddddddddddddddddddddddddd"
	                             "dddddddddd",
	                             verify_piece, &v),
	          STORE_NOT_FOUND);
	/* a lost chunk: an error naming it, not a short log */
	CHECK(pgtest_exec(url, "DELETE FROM raw_chunks WHERE sha256 = '" SHA_A "' AND seq = 1") ==
	      0);
	memset(&v, 0, sizeof v);
	gen_init(&v.g, 42);
	CHECK_INT(store_pg_blob_read(a, SHA_A, verify_piece, &v), STORE_ERROR);
	CHECK(strstr(store_pg_errmsg(a), "chunk 1 is missing") != NULL);
	CHECK_INT(store_pg_blob_size(a, SHA_A, NULL, NULL), 0); /* connection still usable */
	/* a rolled-back write leaves nothing */
	CHECK_INT(store_pg_tx_begin(a), 0);
	CHECK_INT(write_blob(a, SHA_F, 1, 3 * STORE_PG_CHUNK), 0);
	CHECK_INT(store_pg_tx_rollback(a), 0);
	CHECK_INT(store_pg_blob_size(a, SHA_F, NULL, NULL), STORE_NOT_FOUND);
	CHECK_INT(pgtest_num(url, "SELECT count(*) FROM raw_chunks WHERE sha256 = '" SHA_F "'"), 0);

	test_gc_waits_for_upload(SHA_B);

	store_pg_close(a);
	pgtest_drop_db(base, "blobs");
	return check_report();
}
