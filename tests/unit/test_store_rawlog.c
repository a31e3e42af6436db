/* test_store_rawlog.c - the raw-log store (store_rawlog.h) on both
 * backends (storetest.h): a compressed and a plain log put inside the
 * upload's transaction, read back byte-exact through a reader that takes
 * a connection per piece, fetched whole as a mail attaches it, re-used by
 * a second put of the same bytes, gone after a rollback, and released
 * after its run is deleted (SQLite: the file at once; PostgreSQL: by the
 * gc).  SQLite only: an unreferenced file that the raw-file clock does
 * not vouch for is quarantined by the start-up sweep, which also empties
 * the tmp directory. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "storetest.h"

static char data_dir[] = "/tmp/parity-rawlog-XXXXXX";
static struct buf logged = BUF_INIT;

static void log_to(void *ctx, const char *msg)
{
	struct buf *b = ctx;
	buf_append(b, msg, strlen(msg));
	buf_append(b, "\n", 1);
}

/* n pseudo-random bytes (incompressible: a 1.5 MB log takes 2 chunks) */
static unsigned char *noise(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	for (size_t i = 0; p && i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (unsigned char)(seed >> 16);
	}
	return p;
}

/* One gzip member of data (*zn bytes; malloc'd). */
static unsigned char *gzip_of(const void *data, size_t n, size_t *zn)
{
	z_stream z = {0};
	deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	size_t cap = deflateBound(&z, n) + 64;
	unsigned char *out = malloc(cap);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	deflate(&z, Z_FINISH);
	*zn = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* The content of a gzip stream (malloc'd, *n bytes); NULL when damaged. */
static unsigned char *gunzip(const void *gz, size_t zn, size_t *n)
{
	z_stream z = {0};
	inflateInit2(&z, 15 + 16);
	size_t cap = 4 * zn + 1024;
	unsigned char *out = malloc(cap);
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)zn;
	int zr;
	do {
		if (z.total_out == cap) {
			cap *= 2;
			out = realloc(out, cap);
		}
		z.next_out = out + z.total_out;
		z.avail_out = (uInt)(cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
	} while (zr == Z_OK);
	*n = z.total_out;
	inflateEnd(&z);
	if (zr != Z_STREAM_END) {
		free(out);
		return NULL;
	}
	return out;
}

/* A new temp file in <data>/tmp holding data; its path into path. */
static void tmp_file(const char *tmp_dir, const void *data, size_t n, char *path, size_t cap)
{
	snprintf(path, cap, "%s/upload-XXXXXX", tmp_dir);
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, data, n) == (ssize_t)n);
	close(fd);
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* The reader's connections: st itself, counted. */
struct conns {
	struct store *st;
	int acquired, released;
};
static struct store *take(void *ctx)
{
	struct conns *c = ctx;
	c->acquired++;
	return c->st;
}
static void give(void *ctx, struct store *st)
{
	struct conns *c = ctx;
	(void)st;
	c->released++;
}

/* Every stored byte of sha through a reader, into out. */
static int read_stored(const struct store_rawlog *rl, struct store *st, const char *sha,
                       struct store_rawlog_info *info, struct buf *out, struct conns *c)
{
	struct store_rawlog_conns cs = {take, give, c};
	struct store_rawlog_reader *r = NULL;
	int rc = store_rawlog_open(rl, st, sha, &cs, info, &r);
	if (rc < 0)
		return rc;
	const void *data;
	size_t n;
	while ((rc = store_rawlog_read(r, &data, &n)) > 0)
		buf_append(out, data, n);
	store_rawlog_reader_free(r);
	return rc;
}

/* A run with one log of sha, its raw log put from a temp file holding
 * stored (gz: a gzip member of bytes of content), then committed (or
 * rolled back).  The put's return code; *created. */
static int put_run(const struct store_rawlog *rl, struct store *st, const char *sha,
                   const void *stored, size_t n, int gz, int64_t bytes, int commit, int *created,
                   int64_t *run_id)
{
	char path[4400];
	tmp_file(store_rawlog_dir(rl, STORE_RAWLOG_TMP), stored, n, path, sizeof path);
	int64_t log_id = 0;
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_run_create(st, "r", "activation", NULL, run_id), 0);
	CHECK_INT(store_log_create(st, *run_id, 0, NULL, bytes, sha, &log_id), 0);
	int rc = store_rawlog_put_file(rl, st, sha, path, gz, bytes, created);
	if (rc == 0)
		CHECK(!exists(path)); /* moved, or its bytes are rows now */
	if (commit && rc == 0)
		CHECK_INT(store_tx_commit(st), 0);
	else
		store_tx_rollback(st);
	unlink(path);
	return rc;
}

int main(void)
{
	char target[512], err[256];
	struct store *st = NULL;
	int pg = storetest_is_pg();
	CHECK_INT(storetest_target("rawlog", target, sizeof target), 0);
	CHECK_INT(store_open(target, &st, err, sizeof err), 0);
	CHECK(mkdtemp(data_dir) != NULL);
	if (!st)
		return check_report();
	struct store_rawlog *rl = store_rawlog_new(data_dir, log_to, &logged);
	const char *raw = store_rawlog_dir(rl, STORE_RAWLOG_RAW);
	const char *tmp = store_rawlog_dir(rl, STORE_RAWLOG_TMP);
	CHECK(mkdir(raw, 0700) == 0 && mkdir(tmp, 0700) == 0);
	CHECK(strstr(store_rawlog_dir(rl, STORE_RAWLOG_QUARANTINE), "/quarantine") != NULL);

	/* a compressed log of 1.5 MB: two chunks on PostgreSQL */
	const char *sha_a = "aa00000000000000000000000000000000000000000000000000000000000001";
	size_t n_a = 1536 * 1024, zn_a = 0;
	unsigned char *a = noise(n_a, 7), *za = gzip_of(a, n_a, &zn_a);
	int created = -1;
	int64_t run_a = 0, run_a2 = 0;
	CHECK_INT(put_run(rl, st, sha_a, za, zn_a, 1, (int64_t)n_a, 1, &created, &run_a), 0);
	CHECK_INT(created, pg ? 0 : 1);

	struct store_rawlog_info info;
	struct buf got = BUF_INIT;
	struct conns c = {st, 0, 0};
	CHECK_INT(read_stored(rl, st, sha_a, &info, &got, &c), 0);
	CHECK_INT(info.gz, 1);
	CHECK_INT(info.content_gzip, 0);
	CHECK_INT(info.bytes, pg ? (int64_t)n_a : -1);
	CHECK_INT(info.zbytes, (int64_t)got.len);
	CHECK(pg ? info.path[0] == 0 : exists(info.path));
	/* PostgreSQL: chunk 0 came with the open, chunk 1 on a connection of
	 * its own, then one more look finds the end */
	CHECK_INT(c.acquired, pg ? 2 : 0);
	CHECK_INT(c.released, c.acquired);
	size_t n_back = 0;
	unsigned char *back = gunzip(got.data, got.len, &n_back);
	CHECK(back && n_back == n_a && memcmp(back, a, n_a) == 0);
	free(back);

	/* as a mail attaches it: the stored gzip stream */
	struct buf mail = BUF_INIT;
	int gz = -1;
	CHECK_INT(store_rawlog_get(rl, st, sha_a, UINT64_MAX, &mail, &gz), 0);
	CHECK_INT(gz, 1);
	CHECK(mail.len == got.len && memcmp(mail.data, got.data, got.len) == 0);
	buf_reset(&mail);
	CHECK_INT(store_rawlog_get(rl, st, sha_a, 1000, &mail, &gz), 1); /* too large */
	CHECK_INT(mail.len, 0);
	buf_reset(&got);

	/* the same bytes again: the stored copy is re-used */
	CHECK_INT(put_run(rl, st, sha_a, za, zn_a, 1, (int64_t)n_a, 1, &created, &run_a2), 0);
	CHECK_INT(created, 0);

	/* a gzip upload stored as it came: the content is the gzip file */
	const char *sha_b = "bb00000000000000000000000000000000000000000000000000000000000002";
	size_t zn_b = 0;
	unsigned char *zb = gzip_of("hello\n", 6, &zn_b);
	int64_t run_b = 0;
	CHECK_INT(put_run(rl, st, sha_b, zb, zn_b, 0, (int64_t)zn_b, 1, &created, &run_b), 0);
	CHECK_INT(read_stored(rl, st, sha_b, &info, &got, &c), 0);
	CHECK_INT(info.content_gzip, 1);
	CHECK_INT(info.gz, pg ? 1 : 0); /* PostgreSQL compresses everything */
	if (!pg)
		CHECK(got.len == zn_b && memcmp(got.data, zb, zn_b) == 0);
	buf_reset(&got);
	CHECK_INT(store_rawlog_get(rl, st, sha_b, UINT64_MAX, &mail, &gz), 0);
	CHECK_INT(gz, 0);
	CHECK(mail.len == zn_b && memcmp(mail.data, zb, zn_b) == 0);
	buf_reset(&mail);

	/* nothing under an unknown name; nothing after a rollback */
	const char *sha_c = "cc00000000000000000000000000000000000000000000000000000000000003";
	CHECK_INT(store_rawlog_open(rl, st, sha_c, NULL, &info, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_rawlog_get(rl, st, sha_c, UINT64_MAX, &mail, &gz), -1);
	int64_t run_c = 0;
	CHECK_INT(put_run(rl, st, sha_c, zb, zn_b, 0, (int64_t)zn_b, 0, &created, &run_c), 0);
	if (created) { /* SQLite: the upload takes its own file back */
		char *own[] = {(char *)sha_c, NULL};
		struct store_rawlog_tally t = {0};
		CHECK_INT(store_rawlog_release(rl, st, own, 1, &t), 0);
		CHECK_INT(t.removed, 1);
	}
	CHECK_INT(store_rawlog_open(rl, st, sha_c, NULL, &info, NULL), STORE_NOT_FOUND);

	/* a deleted run's raw log: kept while another run uses it, then gone */
	char **freed = NULL;
	CHECK_INT(store_run_delete(st, run_a, &freed), 0);
	CHECK(!freed || !freed[0]);
	store_strv_free(freed);
	CHECK_INT(store_run_delete(st, run_a2, &freed), 0);
	CHECK(freed && freed[0] && !strcmp(freed[0], sha_a));
	struct store_rawlog_tally t = {0};
	CHECK_INT(store_rawlog_release(rl, st, freed, 0, &t), 0);
	store_strv_free(freed);
	CHECK_INT(t.removed, pg ? 0 : 1); /* PostgreSQL: the gc collects it */
	memset(&t, 0, sizeof t);
	CHECK_INT(store_rawlog_gc(rl, st, 1, &t), 0); /* dry run */
	CHECK_INT(t.removed, pg ? 1 : 0);
	CHECK_INT(store_rawlog_open(rl, st, sha_a, NULL, &info, NULL), pg ? 0 : STORE_NOT_FOUND);
	memset(&t, 0, sizeof t);
	CHECK_INT(store_rawlog_gc(rl, st, 0, &t), 0);
	CHECK_INT(t.removed, pg ? 1 : 0);
	CHECK_INT(store_rawlog_open(rl, st, sha_a, NULL, &info, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_rawlog_open(rl, st, sha_b, NULL, &info, NULL), 0); /* still used */

	/* start-up: tmp emptied; SQLite: a file the database never recorded
	 * (newer than its last upload) is quarantined, not deleted */
	char junk[4400], stray[4600], dir[4400];
	snprintf(junk, sizeof junk, "%s/upload-left", tmp);
	int fd = open(junk, O_WRONLY | O_CREAT, 0600);
	close(fd);
	const char *sha_d = "dd00000000000000000000000000000000000000000000000000000000000004";
	snprintf(dir, sizeof dir, "%s/dd", raw);
	snprintf(stray, sizeof stray, "%s/%s.gz", dir, sha_d);
	if (!pg) {
		mkdir(dir, 0700);
		fd = open(stray, O_WRONLY | O_CREAT, 0600);
		CHECK(fd >= 0 && write(fd, zb, zn_b) == (ssize_t)zn_b);
		close(fd);
		struct timespec later[2] = {{time(NULL) + 86400, 0}, {time(NULL) + 86400, 0}};
		CHECK(utimensat(AT_FDCWD, stray, later, 0) == 0);
	}
	store_rawlog_sweep(rl, st);
	CHECK(!exists(junk));
	if (!pg) {
		char moved[4600];
		snprintf(moved, sizeof moved, "%s/dd/%s.gz",
		         store_rawlog_dir(rl, STORE_RAWLOG_QUARANTINE), sha_d);
		CHECK(!exists(stray) && exists(moved));
		CHECK(logged.data && strstr(logged.data, "quarantined raw file") != NULL);
	}

	free(a);
	free(za);
	free(zb);
	buf_reset(&logged);
	store_rawlog_free(rl);
	store_close(st);
	storetest_cleanup("rawlog");
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", data_dir);
	CHECK(system(cmd) == 0);
	return check_report();
}
