/* rawlog.c - the raw-log store's front (store_rawlog.h): its
 * configuration, and each verb handed to the implementation of the
 * connection's database: raw files on SQLite (rawlog_files.c), raw_blobs
 * rows on PostgreSQL (pg/rawlog.c).  Helpers both share live here. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "rawlog_int.h"
#include "store_int.h"

struct store_rawlog *store_rawlog_new(const char *data_dir, void (*log)(void *ctx, const char *msg),
                                      void *log_ctx)
{
	struct store_rawlog *rl = calloc(1, sizeof *rl);
	if (!rl)
		return NULL;
	snprintf(rl->raw, sizeof rl->raw, "%s/raw", data_dir);
	snprintf(rl->tmp, sizeof rl->tmp, "%s/tmp", data_dir);
	snprintf(rl->quarantine, sizeof rl->quarantine, "%s/quarantine", data_dir);
	rl->log = log;
	rl->log_ctx = log_ctx;
	return rl;
}

void store_rawlog_free(struct store_rawlog *rl)
{
	free(rl);
}

const char *store_rawlog_dir(const struct store_rawlog *rl, enum store_rawlog_dir which)
{
	switch (which) {
	case STORE_RAWLOG_RAW: return rl->raw;
	case STORE_RAWLOG_TMP: return rl->tmp;
	case STORE_RAWLOG_QUARANTINE: return rl->quarantine;
	}
	return "";
}

void rawlog_log(const struct store_rawlog *rl, const char *fmt, ...)
{
	if (!rl->log)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rl->log(rl->log_ctx, msg);
}

int rawlog_valid_sha(const char *sha)
{
	if (!sha || strlen(sha) != 64)
		return 0;
	for (const char *p = sha; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return 0;
	return 1;
}

void rawlog_gz_magic(const void *gz, size_t n, unsigned char magic[2])
{
	z_stream zs = {0};
	magic[0] = magic[1] = 0;
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return;
	zs.next_in = (unsigned char *)gz;
	zs.avail_in = (uInt)n;
	zs.next_out = magic;
	zs.avail_out = 2;
	while (zs.avail_out > 0 && inflate(&zs, Z_NO_FLUSH) == Z_OK)
		;
	inflateEnd(&zs);
}

static int is_pg(const struct store *db)
{
	return db->backend == STORE_BACKEND_PG;
}

int store_rawlog_put_file(const struct store_rawlog *rl, struct store *db, const char *sha256,
                          const char *tmp_path, int gz, int64_t bytes, int *created)
{
	*created = 0;
	if (!is_pg(db))
		return rawlog_files_put(rl, db, sha256, tmp_path, gz, created);
	int rc = rawlog_pg_put(rl, db, sha256, tmp_path, gz, bytes);
	if (rc == 0)
		unlink(tmp_path); /* its bytes are rows of the transaction now */
	return rc;
}

int store_rawlog_open(const struct store_rawlog *rl, struct store *db, const char *sha256,
                      const struct store_rawlog_conns *conns, struct store_rawlog_info *info,
                      struct store_rawlog_reader **out)
{
	memset(info, 0, sizeof *info);
	if (out)
		*out = NULL;
	if (!rawlog_valid_sha(sha256))
		return store_fail(db, STORE_NOT_FOUND, "no raw log is named %.80s", sha256);
	if (is_pg(db))
		return rawlog_pg_open(rl, db, sha256, conns, info, out);
	return rawlog_files_open(rl, sha256, info, out);
}

int store_rawlog_read(struct store_rawlog_reader *r, const void **data, size_t *n)
{
	return r->fd >= 0 ? rawlog_files_read(r, data, n) : rawlog_pg_read(r, data, n);
}

void store_rawlog_reader_free(struct store_rawlog_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->chunk);
	free(r);
}

int store_rawlog_get(const struct store_rawlog *rl, struct store *db, const char *sha256,
                     uint64_t max, struct buf *out, int *gz)
{
	*gz = 0;
	if (!rawlog_valid_sha(sha256))
		return -1;
	if (is_pg(db))
		return rawlog_pg_get(db, sha256, max, out, gz);
	return rawlog_files_get(rl, sha256, max, out, gz);
}

int store_rawlog_release(const struct store_rawlog *rl, struct store *db, char *const *shas,
                         int own, struct store_rawlog_tally *t)
{
	if (is_pg(db))
		return 0; /* raw logs are rows there: `parity gc` collects them */
	return rawlog_files_release(rl, db, shas, own, 0, t);
}

int store_rawlog_sweep_unreferenced(const struct store_rawlog *rl, struct store *db, int dry_run,
                                    struct store_rawlog_tally *t)
{
	if (is_pg(db))
		return 0; /* no raw files on PostgreSQL */
	return rawlog_files_sweep_unreferenced(rl, db, dry_run, t);
}

void store_rawlog_sweep(const struct store_rawlog *rl, struct store *db)
{
	DIR *d = opendir(rl->tmp);
	struct dirent *de;
	char path[4600];
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", rl->tmp, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	if (!db)
		return;
	struct store_rawlog_tally t = {0};
	if (store_rawlog_sweep_unreferenced(rl, db, 0, &t) < 0)
		rawlog_log(rl, "start-up sweep of %s stopped: %s", rl->raw, store_errmsg(db));
	if (t.removed)
		rawlog_log(rl, "removed %zu unreferenced raw file(s), %lld bytes", t.removed,
		           (long long)t.removed_bytes);
	if (t.quarantined)
		rawlog_log(rl,
		           "quarantined %zu raw file(s), %lld bytes, that the database does not "
		           "account for: they are in %s (restore the database they belong to and "
		           "move them back to %s, or delete them)",
		           t.quarantined, (long long)t.quarantined_bytes, rl->quarantine, rl->raw);
}

int store_rawlog_gc(const struct store_rawlog *rl, struct store *db, int dry_run,
                    struct store_rawlog_tally *t)
{
	if (!is_pg(db))
		return rawlog_files_sweep_unreferenced(rl, db, dry_run, t);
	int64_t nb = 0, zb = 0;
	int rc = store_raw_blobs_gc(db, dry_run, &nb, &zb);
	t->removed += (size_t)nb;
	t->removed_bytes += zb;
	return rc;
}
