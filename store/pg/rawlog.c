/* rawlog.c - the raw-log store on PostgreSQL (store_rawlog.h): raw logs
 * are raw_blobs rows with their gzip stream in raw_chunks (blobs.c),
 * written by the upload's own transaction and read a chunk at a time.
 * Only temp files stay in <data>; release, sweep and quarantine do not
 * apply (the caller's front, ../rawlog.c, returns at once), and `parity
 * gc` deletes the raw_blobs no log references (store_raw_blobs_gc). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "rawlog_int.h"
#include "store_int.h"

int rawlog_pg_put(const struct store_rawlog *rl, struct store *db, const char *sha256,
                  const char *tmp_path, int gz, int64_t bytes)
{
	struct store_pg *pg = store_pg_of(db);
	struct store_pg_blob_writer *w = NULL;
	int rc = store_pg_blob_create(pg, sha256, &w);
	if (rc != 0)
		return rc < 0 ? store_pg_error(db, rc) : 0; /* 1: stored already */
	size_t cap = STORE_PG_CHUNK;
	char *buf = malloc(cap);
	int fd = buf ? open(tmp_path, O_RDONLY | O_CLOEXEC) : -1, read_err = fd < 0;
	if (fd < 0) {
		rawlog_log(rl, "upload: cannot read %s back: %s", tmp_path,
		           buf ? strerror(errno) : "out of memory");
		rc = STORE_IO;
	}
	while (rc == 0) {
		ssize_t n = read(fd, buf, cap);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rawlog_log(rl, "upload: cannot read %s back: %s", tmp_path,
			           strerror(errno));
			rc = STORE_IO;
			read_err = 1;
		}
		if (n <= 0)
			break;
		rc = gz ? store_pg_blob_write_gz(w, buf, (size_t)n)
		        : store_pg_blob_write(w, buf, (size_t)n);
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	if (rc < 0) {
		store_pg_blob_abort(w);
		/* a read error was logged above; else the database's message */
		return read_err ? rc : store_pg_error(db, rc);
	}
	return store_pg_error(db, gz ? store_pg_blob_finish_gz(w, bytes, NULL)
	                             : store_pg_blob_finish(w, NULL));
}

int rawlog_pg_open(const struct store_rawlog *rl, struct store *db, const char *sha256,
                   const struct store_rawlog_conns *conns, struct store_rawlog_info *info,
                   struct store_rawlog_reader **out)
{
	struct store_pg *pg = store_pg_of(db);
	int rc = store_pg_blob_size(pg, sha256, &info->bytes, &info->zbytes);
	if (rc < 0)
		return store_pg_error(db, rc);
	/* the content's first two bytes (gzip magic?), inflated from chunk 0,
	 * which the reader then starts with */
	void *first = NULL;
	size_t n_first = 0;
	if ((rc = store_pg_blob_chunk(pg, sha256, 0, &first, &n_first)) < 0)
		return store_pg_error(db, rc);
	unsigned char magic[2];
	rawlog_gz_magic(first, n_first, magic);
	info->gz = 1;
	info->content_gzip = info->bytes >= 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	struct store_rawlog_reader *r = out ? calloc(1, sizeof *r) : NULL;
	if (!r) {
		free(first);
		return out ? store_fail(db, STORE_ERROR, "out of memory") : 0;
	}
	r->rl = rl;
	r->fd = -1;
	if (conns)
		r->conns = *conns;
	memcpy(r->sha, sha256, sizeof r->sha);
	r->chunk = first;
	r->n_next = n_first;
	r->seq = 1;
	*out = r;
	return 0;
}

int rawlog_pg_read(struct store_rawlog_reader *r, const void **data, size_t *n)
{
	if (r->n_next) {
		*data = r->chunk;
		*n = r->n_next;
		r->n_next = 0;
		return 1;
	}
	struct store *db = r->conns.acquire ? r->conns.acquire(r->conns.ctx) : NULL;
	if (!db) {
		rawlog_log(r->rl, "raw log download cut: no database connection");
		return STORE_ERROR;
	}
	void *chunk = NULL;
	size_t got = 0;
	int rc = store_pg_blob_chunk(store_pg_of(db), r->sha, r->seq, &chunk, &got);
	if (rc < 0 && rc != STORE_NOT_FOUND)
		rawlog_log(r->rl, "raw log download cut: %s", store_pg_errmsg(store_pg_of(db)));
	r->conns.release(r->conns.ctx, db);
	if (rc == STORE_NOT_FOUND)
		return 0;
	if (rc < 0)
		return rc;
	free(r->chunk);
	r->chunk = chunk;
	r->seq++;
	if (got == 0)
		return STORE_ERROR;
	*data = chunk;
	*n = got;
	return 1;
}

static int buf_fn(void *ctx, const void *data, size_t n)
{
	return buf_append(ctx, data, n) < 0 ? -1 : 0;
}

/* As SQLite's file would be: the stored gzip stream (the chunks as they
 * are), or for a log that was gzip when uploaded its content (that gzip
 * file). */
int rawlog_pg_get(struct store *db, const char *sha256, uint64_t max, struct buf *out, int *gz)
{
	struct store_pg *pg = store_pg_of(db);
	int64_t bytes = 0, zbytes = 0;
	size_t start = out->len;
	*gz = 1; /* the stored gzip stream, unless the content is gzip itself */
	if (store_pg_blob_size(pg, sha256, &bytes, &zbytes) < 0)
		return -1;
	if ((uint64_t)zbytes > max)
		return 1;
	for (int64_t seq = 0; (int64_t)(out->len - start) < zbytes; seq++) {
		void *data = NULL;
		size_t n = 0;
		if (store_pg_blob_chunk(pg, sha256, seq, &data, &n) < 0)
			return -1;
		int rc = buf_append(out, data, n);
		free(data);
		if (rc < 0)
			return -1;
	}
	/* the content's first bytes: a gzip upload is attached as it came */
	unsigned char magic[2];
	rawlog_gz_magic(out->data ? out->data + start : "", out->len - start, magic);
	if (bytes < 2 || magic[0] != 0x1f || magic[1] != 0x8b)
		return 0;
	out->len = start;
	*gz = 0;
	if ((uint64_t)bytes > max)
		return 1;
	return store_pg_blob_read(pg, sha256, buf_fn, out) < 0 ? -1 : 0;
}
