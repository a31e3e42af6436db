/* blobs.c - raw logs stored in PostgreSQL (migrations/postgresql/011):
 * raw_blobs holds one row per sha256 (sizes, chunk count); raw_chunks the
 * gzip stream of the content cut into STORE_PG_CHUNK-byte rows, sent as
 * binary parameters.  Writing deflates as it goes and sends each chunk
 * when full; reading fetches one chunk row at a time (single-row mode) and
 * inflates it into 64 KiB pieces.  So memory is one chunk plus zlib's
 * state (~300 KiB) on either side, whatever the log's size.
 * Idempotence: the writer first inserts the raw_blobs row with ON
 * CONFLICT DO NOTHING; a concurrent writer of the same sha256 blocks on
 * that key until the first transaction ends, then skips (committed) or
 * writes (rolled back).  Limits: the sha256 is the caller's (not
 * recomputed here); one writer or reader per connection at a time. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pg_int.h"
#include "rawlog_int.h"

#define PIECE (64 * 1024)

struct store_pg_blob_writer {
	struct store_pg *pg;
	char sha[65];
	z_stream z;
	int z_live;
	unsigned char *chunk; /* STORE_PG_CHUNK bytes; fill bytes used */
	size_t fill;
	int64_t seq, bytes, zbytes;
	int precompressed; /* store_pg_blob_write_gz was used */
};

static int check_sha(struct store_pg *pg, const char *sha)
{
	if (!rawlog_valid_sha(sha))
		return pg_fail(pg, STORE_INVALID, "a raw blob is named by 64 lowercase hex digits");
	return 0;
}

void store_pg_blob_abort(struct store_pg_blob_writer *w)
{
	if (!w)
		return;
	if (w->z_live)
		deflateEnd(&w->z);
	free(w->chunk);
	free(w);
}

int store_pg_blob_create(struct store_pg *pg, const char *sha256, struct store_pg_blob_writer **w)
{
	*w = NULL;
	int rc = check_sha(pg, sha256);
	if (rc < 0)
		return rc;
	/* the gc waits for this transaction (STORE_PG_BLOB_GC_XLOCK) */
	char key[24];
	snprintf(key, sizeof key, "%lld", (long long)STORE_PG_BLOB_GC_XLOCK);
	const char *kparams[] = {key};
	PGresult *res = NULL;
	rc = pg_stmt_exec(pg, PG_SID_BLOB_GC_SHARED,
	                  "SELECT pg_advisory_xact_lock_shared($1::bigint)", 1, kparams,
	                  "storing a raw log", &res);
	if (rc < 0)
		return rc;
	PQclear(res);
	res = NULL;
	/* sizes 0 until finish: the row is only visible at commit, final */
	const char *params[] = {sha256};
	rc = pg_stmt_exec(pg, PG_SID_BLOB_CLAIM,
	                  "INSERT INTO raw_blobs(sha256, bytes, zbytes, n_chunks, stored_at_ms) "
	                  "VALUES ($1, 0, 0, 0, " PG_NOW_MS ") ON CONFLICT (sha256) DO NOTHING "
	                  "RETURNING sha256",
	                  1, params, "storing a raw log", &res);
	if (rc < 0)
		return rc;
	int exists = PQntuples(res) == 0;
	PQclear(res);
	if (exists)
		return 1;
	struct store_pg_blob_writer *b = calloc(1, sizeof *b);
	if (!b || !(b->chunk = malloc(STORE_PG_CHUNK))) {
		free(b);
		return pg_fail(pg, STORE_ERROR, "out of memory");
	}
	b->pg = pg;
	memcpy(b->sha, sha256, 65);
	/* windowBits 15 + 16: a gzip member, at level 1, as the SQLite
	 * store's raw files (server/ingest/upload.c RAW_GZ_LEVEL: ~3x the speed of
	 * level 6 for 4 points of ratio) */
	if (deflateInit2(&b->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		store_pg_blob_abort(b);
		return pg_fail(pg, STORE_ERROR, "out of memory (zlib)");
	}
	b->z_live = 1;
	*w = b;
	return 0;
}

/* Send the filled part of the chunk buffer as row seq. */
static int send_chunk(struct store_pg_blob_writer *w)
{
	if (w->fill == 0)
		return 0;
	char sbuf[24];
	const char *values[] = {w->sha, pg_i64(sbuf, w->seq), (const char *)w->chunk};
	int lengths[] = {0, 0, (int)w->fill};
	int formats[] = {0, 0, 1};
	PGresult *res = NULL;
	int rc = pg_stmt_exec_bin(w->pg, PG_SID_BLOB_CHUNK,
	                          "INSERT INTO raw_chunks(sha256, seq, data) VALUES ($1, $2, $3)",
	                          3, values, lengths, formats, "storing a raw log chunk", &res);
	PQclear(res);
	if (rc < 0)
		return rc;
	w->zbytes += (int64_t)w->fill;
	w->seq++;
	w->fill = 0;
	return 0;
}

/* Run deflate over the pending input with flush; send chunks as they fill. */
static int pump(struct store_pg_blob_writer *w, int flush)
{
	for (;;) {
		w->z.next_out = w->chunk + w->fill;
		w->z.avail_out = (uInt)(STORE_PG_CHUNK - w->fill);
		int zr = deflate(&w->z, flush);
		w->fill = STORE_PG_CHUNK - w->z.avail_out;
		if (zr == Z_STREAM_ERROR)
			return pg_fail(w->pg, STORE_ERROR, "compressing a raw log failed");
		if (w->fill == STORE_PG_CHUNK) {
			int rc = send_chunk(w);
			if (rc < 0)
				return rc;
			continue;
		}
		/* output space left: deflate consumed everything it could */
		if (flush == Z_FINISH ? zr == Z_STREAM_END : w->z.avail_in == 0)
			return 0;
	}
}

int store_pg_blob_write(struct store_pg_blob_writer *w, const void *data, size_t n)
{
	const unsigned char *p = data;
	while (n > 0) {
		uInt take = n > (1u << 30) ? (1u << 30) : (uInt)n;
		w->z.next_in = (unsigned char *)p;
		w->z.avail_in = take;
		int rc = pump(w, Z_NO_FLUSH);
		if (rc < 0)
			return rc;
		w->bytes += take;
		p += take;
		n -= take;
	}
	return 0;
}

int store_pg_blob_write_gz(struct store_pg_blob_writer *w, const void *gz, size_t n)
{
	const unsigned char *p = gz;
	w->precompressed = 1;
	while (n > 0) {
		size_t take = STORE_PG_CHUNK - w->fill < n ? STORE_PG_CHUNK - w->fill : n;
		memcpy(w->chunk + w->fill, p, take);
		w->fill += take;
		p += take;
		n -= take;
		if (w->fill == STORE_PG_CHUNK) {
			int rc = send_chunk(w);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* Send the last chunk, record the sizes, free w. */
static int finish(struct store_pg_blob_writer *w, int rc, int64_t *zbytes)
{
	if (rc == 0)
		rc = send_chunk(w);
	if (rc == 0) {
		char b1[24], b2[24], b3[24];
		const char *params[] = {w->sha, pg_i64(b1, w->bytes), pg_i64(b2, w->zbytes),
		                        pg_i64(b3, w->seq)};
		PGresult *res = NULL;
		rc = pg_stmt_exec(w->pg, PG_SID_BLOB_DONE,
		                  "UPDATE raw_blobs SET bytes = $2, zbytes = $3, n_chunks = $4 "
		                  "WHERE sha256 = $1",
		                  4, params, "recording a raw log", &res);
		PQclear(res);
	}
	if (rc == 0 && zbytes)
		*zbytes = w->zbytes;
	store_pg_blob_abort(w);
	return rc;
}

int store_pg_blob_finish(struct store_pg_blob_writer *w, int64_t *zbytes)
{
	if (w->precompressed) {
		store_pg_blob_abort(w);
		return STORE_INVALID;
	}
	w->z.next_in = NULL;
	w->z.avail_in = 0;
	return finish(w, pump(w, Z_FINISH), zbytes);
}

int store_pg_blob_finish_gz(struct store_pg_blob_writer *w, int64_t bytes, int64_t *zbytes)
{
	if (bytes < 0 || (w->bytes > 0 && !w->precompressed)) {
		int rc = pg_fail(w->pg, STORE_INVALID,
		                 "a raw log is written compressed or not, not both");
		store_pg_blob_abort(w);
		return rc;
	}
	w->bytes = bytes;
	return finish(w, 0, zbytes);
}

int store_pg_blob_size(struct store_pg *pg, const char *sha256, int64_t *bytes, int64_t *zbytes)
{
	int rc = check_sha(pg, sha256);
	if (rc < 0)
		return rc;
	const char *params[] = {sha256};
	PGresult *res = NULL;
	rc = pg_stmt_exec(pg, PG_SID_BLOB_INFO,
	                  "SELECT bytes, zbytes, n_chunks FROM raw_blobs WHERE sha256 = $1", 1,
	                  params, "reading a raw log's size", &res);
	if (rc < 0)
		return rc;
	int64_t b = 0, z = 0;
	if (PQntuples(res) == 0)
		rc = pg_fail(pg, STORE_NOT_FOUND, "raw log %.12s... not found", sha256);
	else if ((rc = pg_col_i64(pg, res, 0, 0, &b)) == 0)
		rc = pg_col_i64(pg, res, 0, 1, &z);
	PQclear(res);
	if (rc == 0 && bytes)
		*bytes = b;
	if (rc == 0 && zbytes)
		*zbytes = z;
	return rc;
}

struct reader {
	struct store_pg *pg;
	z_stream z;
	int ended; /* the gzip stream's end was seen */
	int64_t seq, out_bytes;
	int (*fn)(void *ctx, const void *data, size_t n);
	void *ctx;
	unsigned char piece[PIECE];
};

/* Inflate one chunk row, handing output to fn. */
static int inflate_chunk(struct reader *r, const unsigned char *data, size_t n)
{
	if (r->ended)
		return n ? pg_fail(r->pg, STORE_ERROR, "raw log: data after the end of its stream")
		         : 0;
	r->z.next_in = (unsigned char *)data;
	r->z.avail_in = (uInt)n;
	while (r->z.avail_in > 0 || !r->ended) {
		r->z.next_out = r->piece;
		r->z.avail_out = PIECE;
		int zr = inflate(&r->z, Z_NO_FLUSH);
		size_t got = PIECE - r->z.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && !(zr == Z_BUF_ERROR && got == 0))
			return pg_fail(r->pg, STORE_ERROR, "raw log: corrupt stream (%s)",
			               r->z.msg ? r->z.msg : "zlib");
		if (got) {
			r->out_bytes += (int64_t)got;
			int frc = r->fn(r->ctx, r->piece, got);
			if (frc)
				return frc;
		}
		if (zr == Z_STREAM_END) {
			r->ended = 1;
			if (r->z.avail_in)
				return pg_fail(r->pg, STORE_ERROR,
				               "raw log: data after the end of its stream");
			break;
		}
		if (got == 0 && r->z.avail_in == 0)
			break; /* needs the next chunk */
	}
	return 0;
}

/* Finish a single-row-mode query after an early stop: read and drop the
 * remaining results so the connection is usable again. */
static void drain(struct store_pg *pg)
{
	PGresult *res;
	while ((res = PQgetResult(pg->conn)))
		PQclear(res);
}

int store_pg_blob_read(struct store_pg *pg, const char *sha256,
                       int (*fn)(void *ctx, const void *data, size_t n), void *ctx)
{
	int64_t bytes = 0;
	int rc = store_pg_blob_size(pg, sha256, &bytes, NULL);
	if (rc < 0)
		return rc;
	struct reader *r = calloc(1, sizeof *r);
	if (!r)
		return pg_fail(pg, STORE_ERROR, "out of memory");
	r->pg = pg;
	r->fn = fn;
	r->ctx = ctx;
	if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
		free(r);
		return pg_fail(pg, STORE_ERROR, "out of memory (zlib)");
	}
	char name[16];
	const char *params[] = {sha256};
	int formats[] = {0};
	rc = pg_stmt_prepare(pg, PG_SID_BLOB_READ,
	                     "SELECT seq, data FROM raw_chunks WHERE sha256 = $1 ORDER BY seq", 1,
	                     "reading a raw log", name);
	if (rc == 0 && (!PQsendQueryPrepared(pg->conn, name, 1, params, NULL, formats, 1) ||
	                !PQsetSingleRowMode(pg->conn))) {
		rc = pg_fail(pg, STORE_ERROR, "reading a raw log: %s", PQerrorMessage(pg->conn));
		drain(pg);
	}
	/* result format 1 (binary): seq is an 8-byte big-endian bigint, data
	 * the raw bytes */
	PGresult *res;
	int sent = rc == 0;
	while (sent && (res = PQgetResult(pg->conn))) {
		ExecStatusType t = PQresultStatus(res);
		if (t == PGRES_SINGLE_TUPLE && rc == 0) {
			const unsigned char *sq = (const unsigned char *)PQgetvalue(res, 0, 0);
			int64_t seq = 0;
			for (int i = 0; i < 8 && PQgetlength(res, 0, 0) == 8; i++)
				seq = (seq << 8) | sq[i];
			if (seq != r->seq)
				rc = pg_fail(pg, STORE_ERROR,
				             "raw log %.12s...: chunk %lld is missing", sha256,
				             (long long)r->seq);
			else
				rc = inflate_chunk(r, (const unsigned char *)PQgetvalue(res, 0, 1),
				                   (size_t)PQgetlength(res, 0, 1));
			r->seq++;
			PQclear(res);
		} else if (t == PGRES_TUPLES_OK || t == PGRES_SINGLE_TUPLE) {
			PQclear(res); /* the end (or rows after a stop: dropped) */
		} else {
			if (rc == 0)
				rc = pg_resfail(pg, res, "reading a raw log");
			else
				PQclear(res);
		}
	}
	if (rc == 0 && (!r->ended || r->out_bytes != bytes))
		rc = pg_fail(pg, STORE_ERROR,
		             "raw log %.12s...: stored stream is incomplete (%lld of %lld bytes)",
		             sha256, (long long)r->out_bytes, (long long)bytes);
	inflateEnd(&r->z);
	free(r);
	return rc;
}

int store_pg_blob_chunk(struct store_pg *pg, const char *sha256, int64_t seq, void **data,
                        size_t *n)
{
	*data = NULL;
	*n = 0;
	int rc = check_sha(pg, sha256);
	if (rc < 0)
		return rc;
	char sbuf[24];
	const char *values[] = {sha256, pg_i64(sbuf, seq)};
	char name[16];
	rc = pg_stmt_prepare(pg, PG_SID_BLOB_GET,
	                     "SELECT data FROM raw_chunks WHERE sha256 = $1 AND seq = $2::bigint",
	                     2, "reading a raw log chunk", name);
	if (rc < 0)
		return rc;
	/* binary result: the bytes as stored, no bytea text escaping */
	PGresult *res = PQexecPrepared(pg->conn, name, 2, values, NULL, NULL, 1);
	if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
		return pg_resfail(pg, res, "reading a raw log chunk");
	if (PQntuples(res) == 0) {
		PQclear(res);
		return pg_fail(pg, STORE_NOT_FOUND, "raw log %.12s...: no chunk %lld", sha256,
		               (long long)seq);
	}
	size_t len = (size_t)PQgetlength(res, 0, 0);
	void *copy = malloc(len ? len : 1);
	if (!copy) {
		PQclear(res);
		return pg_fail(pg, STORE_ERROR, "out of memory");
	}
	memcpy(copy, PQgetvalue(res, 0, 0), len);
	PQclear(res);
	*data = copy;
	*n = len;
	return 0;
}
