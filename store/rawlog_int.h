/* rawlog_int.h - private to store/: the raw-log store's configuration and
 * reader, shared by its dispatch (rawlog.c) and its two implementations,
 * files for SQLite (rawlog_files.c) and chunks for PostgreSQL
 * (pg/rawlog.c).  The interface is store_rawlog.h. */
#ifndef PARITY_STORE_RAWLOG_INT_H
#define PARITY_STORE_RAWLOG_INT_H

#include <stdarg.h>

#include "store.h"

struct store_rawlog {
	char raw[4200];        /* <data>/raw */
	char tmp[4200];        /* <data>/tmp */
	char quarantine[4200]; /* <data>/quarantine */
	void (*log)(void *ctx, const char *msg);
	void *log_ctx;
};

struct store_rawlog_reader {
	const struct store_rawlog *rl;
	int fd; /* files: the stored file; -1 for a PostgreSQL blob */
	unsigned char in[32768];
	/* PostgreSQL: where each chunk is fetched, the blob, its next chunk */
	struct store_rawlog_conns conns;
	char sha[65];
	int64_t seq;
	void *chunk;   /* the last chunk fetched (malloc'd) */
	size_t n_next; /* > 0: chunk is fetched but not handed out yet */
};

/* One sentence (printf) to rl's log callback. */
void rawlog_log(const struct store_rawlog *rl, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* 1 when sha is 64 lowercase hex digits. */
int rawlog_valid_sha(const char *sha);
/* The first two bytes of the content of a gzip stream's first n bytes
 * into magic ({0, 0} when fewer come out). */
void rawlog_gz_magic(const void *gz, size_t n, unsigned char magic[2]);

/* SQLite: raw files (rawlog_files.c) */
int rawlog_files_put(const struct store_rawlog *rl, struct store *db, const char *sha256,
                     const char *tmp_path, int gz, int *created);
int rawlog_files_open(const struct store_rawlog *rl, const char *sha256,
                      struct store_rawlog_info *info, struct store_rawlog_reader **out);
int rawlog_files_read(struct store_rawlog_reader *r, const void **data, size_t *n);
int rawlog_files_get(const struct store_rawlog *rl, const char *sha256, uint64_t max,
                     struct buf *out, int *gz);
int rawlog_files_release(const struct store_rawlog *rl, struct store *db, char *const *shas,
                         int own, int dry_run, struct store_rawlog_tally *t);
int rawlog_files_sweep_unreferenced(const struct store_rawlog *rl, struct store *db, int dry_run,
                                    struct store_rawlog_tally *t);

/* PostgreSQL: raw_blobs / raw_chunks (pg/rawlog.c) */
int rawlog_pg_put(const struct store_rawlog *rl, struct store *db, const char *sha256,
                  const char *tmp_path, int gz, int64_t bytes);
int rawlog_pg_open(const struct store_rawlog *rl, struct store *db, const char *sha256,
                   const struct store_rawlog_conns *conns, struct store_rawlog_info *info,
                   struct store_rawlog_reader **out);
int rawlog_pg_read(struct store_rawlog_reader *r, const void **data, size_t *n);
int rawlog_pg_get(struct store *db, const char *sha256, uint64_t max, struct buf *out, int *gz);

#endif
