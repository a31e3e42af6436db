/* rawlog_files.c - the raw-log store on SQLite (store_rawlog.h): raw
 * uploads under <data>/raw/<aa>/<sha256>[.gz], content-
 * addressed by the SHA-256 of the bytes the client sent, so two uploads of
 * one file share it.  A blob is written to <data>/tmp first and renamed
 * into place only after fsync; the directory is fsync'ed too, so an
 * acknowledged upload survives a crash.
 *
 * Two forms, one address.  <sha256>.gz holds the original bytes gzip-
 * compressed (one member, written by the upload as the body streams in:
 * server/ingest/upload.c); <sha256> holds them as they are (uploads that
 * were gzip already, and every file stored before compression existed).
 * Either form serves a digest: whatever is found is re-used, released,
 * swept and quarantined alike (a quarantined file keeps its name, so
 * moving it back restores it).  Downloads inflate .gz files on the fly
 * (server/api/h_runs.c).
 *
 * The rule for a file's lifetime.  One raw file serves every log with its
 * digest, so "nothing references it, remove it" and "it is there, re-use
 * it" must never interleave: a remover that decided before an upload
 * re-used the file would take it from an acknowledged run.  Both happen
 * only while holding the database's write lock, i.e. inside a BEGIN
 * IMMEDIATE transaction.  SQLite grants that lock to one connection at a
 * time across threads AND processes, so the daemon's request threads and
 * a `parity gc` running next to it are serialised by the same lock:
 *   - an upload renames its file into place, or finds it there and re-uses
 *     it, inside the transaction that inserts its logs, and keeps the lock
 *     until that transaction has committed (store_rawlog_put_file);
 *   - a file is removed only by store_rawlog_release, which takes the lock,
 *     checks in the database that no log references the digest, removes
 *     (or quarantines) the file, and only then lets the lock go.
 * A removal therefore comes wholly before such an upload (which then finds
 * no file and renames its own copy in) or wholly after its commit (and
 * then sees the new reference and keeps the file).  Deleting a run commits
 * first and releases its files in a second, short transaction: a crash in
 * between leaves an unreferenced file, never a run without its file.
 *
 * Deleted or quarantined.  A database can only vouch for files written
 * while it recorded the uploads: born_at (its creation) and stored_at (the
 * last commit that stored or re-used a raw file, raised in that commit;
 * re-using a file refreshes its mtime first) are kept in the database
 * (store_raw_clock, milliseconds).  An unreferenced file is deleted only
 * when its mtime lies in [born_at, stored_at].  Otherwise the database does not know
 * about it (the database files were deleted and a new one created, an
 * older backup was restored, the raw directory came from elsewhere) and
 * the file is moved to <data>/quarantine/<aa>/<sha256> and logged, for an
 * operator to restore or delete.  The one exception is an upload undoing
 * its own failed commit: a file it renamed in moments ago is deleted if
 * nothing took a reference meanwhile.
 *
 * PostgreSQL keeps raw logs as rows instead (pg/rawlog.c); release, sweep,
 * quarantine and the raw-file clock do not apply there (rawlog.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "rawlog_int.h"

/* Unreferenced files released per write transaction by a sweep: keeps the
 * lock short for uploads waiting behind it. */
#define SWEEP_BATCH 64

/* The suffix of the compressed form. */
#define GZ_SUFFIX ".gz"

/* The digest a file name in raw/<aa>/ stands for ("<sha>" or
 * "<sha>.gz"), copied to out (65 bytes); 0, or -1 for any other name. */
static int name_sha(const char *name, char *out)
{
	size_t n = strlen(name);
	if (n == 64 + sizeof GZ_SUFFIX - 1 && !strcmp(name + 64, GZ_SUFFIX))
		n = 64;
	if (n != 64)
		return -1;
	memcpy(out, name, 64);
	out[64] = 0;
	return rawlog_valid_sha(out) ? 0 : -1;
}

/* The path of sha's raw file in form gz (<raw>/<aa>/<sha>[.gz]). */
static void blob_path(const struct store_rawlog *rl, const char *sha256, int gz, char *out,
                      size_t cap)
{
	snprintf(out, cap, "%s/%.2s/%s%s", rl->raw, sha256, sha256, gz ? GZ_SUFFIX : "");
}

/* The path of sha's raw file, whichever form exists (.gz first), into
 * out: 1 compressed, 0 as it came, -1 when there is none. */
static int blob_find(const struct store_rawlog *rl, const char *sha256, char *out, size_t cap)
{
	struct stat st;
	for (int gz = 1; gz >= 0; gz--) {
		blob_path(rl, sha256, gz, out, cap);
		if (lstat(out, &st) == 0 && S_ISREG(st.st_mode))
			return gz;
	}
	return -1;
}

/* Milliseconds since the epoch, rounded down (so mtime <= now keeps). */
static int64_t ms_of(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000 + ts->tv_nsec / 1000000;
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int rawlog_files_put(const struct store_rawlog *rl, struct store *db, const char *sha256,
                     const char *tmp_path, int gz, int *created)
{
	char dir[4400], path[4400];
	*created = 0;
	if (!rawlog_valid_sha(sha256))
		return STORE_IO;
	snprintf(dir, sizeof dir, "%s/%.2s", rl->raw, sha256);
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return STORE_IO;
	if (blob_find(rl, sha256, path, sizeof path) >= 0) {
		/* same bytes already stored (in either form): re-use the file,
		 * and date it now so the raw-file clock raised below covers it */
		if (utimensat(AT_FDCWD, path, NULL, 0) < 0) {
			rawlog_log(rl, "cannot refresh %s: %s", path, strerror(errno));
			return STORE_IO;
		}
		unlink(tmp_path);
	} else {
		blob_path(rl, sha256, gz, path, sizeof path);
		if (rename(tmp_path, path) < 0)
			return STORE_IO;
		*created = 1;
		fsync_dir(dir);
	}
	/* the same clock as the file's mtime, read after it was set */
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (store_raw_clock_stored(db, ms_of(&now)) < 0) {
		rawlog_log(rl, "cannot record the raw-file clock: %s", store_errmsg(db));
		return STORE_IO;
	}
	return 0;
}

int rawlog_files_open(const struct store_rawlog *rl, const char *sha256,
                      struct store_rawlog_info *info, struct store_rawlog_reader **out)
{
	int gz = blob_find(rl, sha256, info->path, sizeof info->path);
	if (gz < 0)
		return STORE_NOT_FOUND;
	int fd = open(info->path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return STORE_IO;
	}
	info->gz = gz;
	info->zbytes = (int64_t)st.st_size;
	info->bytes = gz ? -1 : (int64_t)st.st_size;
	/* the content's first bytes: a gzip upload is stored as it came */
	unsigned char head[2];
	if (!gz && pread(fd, head, 2, 0) == 2)
		info->content_gzip = head[0] == 0x1f && head[1] == 0x8b;
	if (!out) {
		close(fd);
		return 0;
	}
	struct store_rawlog_reader *r = calloc(1, sizeof *r);
	if (!r) {
		close(fd);
		return STORE_ERROR;
	}
	r->rl = rl;
	r->fd = fd;
	*out = r;
	return 0;
}

int rawlog_files_read(struct store_rawlog_reader *r, const void **data, size_t *n)
{
	ssize_t got;
	while ((got = read(r->fd, r->in, sizeof r->in)) < 0 && errno == EINTR)
		;
	if (got < 0)
		return STORE_IO;
	*data = r->in;
	*n = (size_t)got;
	return got > 0;
}

int rawlog_files_get(const struct store_rawlog *rl, const char *sha256, uint64_t max,
                     struct buf *out, int *gz)
{
	char path[4400];
	int form = blob_find(rl, sha256, path, sizeof path);
	if (form < 0)
		return -1;
	*gz = form;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return -1;
	int rc = 0;
	if (fstat(fd, &st) < 0) {
		rc = -1;
	} else if ((uint64_t)st.st_size > max) {
		rc = 1;
	} else if (buf_reserve(out, (size_t)st.st_size + 1) < 0) {
		rc = -1;
	} else {
		char chunk[65536];
		ssize_t got;
		while ((got = read(fd, chunk, sizeof chunk)) > 0 && out->len <= max)
			if (buf_append(out, chunk, (size_t)got) < 0) {
				rc = -1;
				break;
			}
		if (got < 0 || out->len > max)
			rc = -1;
	}
	close(fd);
	return rc;
}

static void utc_text(int64_t ms, char *out, size_t cap)
{
	time_t tt = (time_t)(ms / 1000);
	struct tm tm;
	char sec[24];
	gmtime_r(&tt, &tm);
	strftime(sec, sizeof sec, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, cap, "%s.%03dZ", sec, (int)(ms % 1000));
}

/* Why the database cannot vouch for an unreferenced file with this mtime
 * (into why), or NULL when it may be deleted. */
static const char *unaccounted(int64_t mtime, int64_t born_at, int64_t stored_at, char *why,
                               size_t cap)
{
	char when[48];
	if (stored_at < 0)
		return "the database has recorded no upload (a new, emptied or replaced database)";
	if (mtime > stored_at) {
		utc_text(stored_at, when, sizeof when);
		snprintf(
		        why, cap,
		        "it is newer than the last upload the database recorded (%s): the database "
		        "may be older than the raw files",
		        when);
		return why;
	}
	if (mtime < born_at) {
		utc_text(born_at, when, sizeof when);
		snprintf(why, cap, "it is older than the database (created %s)", when);
		return why;
	}
	return NULL;
}

/* Move the raw file of sha in form gz to <data>/quarantine/<aa>/ under
 * its own name (<sha> or <sha>.gz).  0 or -1. */
static int quarantine(const struct store_rawlog *rl, const char *sha, int gz, int64_t bytes,
                      const char *why)
{
	char dir[4400], dest[4500], src[4400];
	snprintf(dir, sizeof dir, "%s/%.2s", rl->quarantine, sha);
	snprintf(dest, sizeof dest, "%s/%s%s", dir, sha, gz ? GZ_SUFFIX : "");
	blob_path(rl, sha, gz, src, sizeof src);
	if ((mkdir(rl->quarantine, 0750) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0750) < 0 && errno != EEXIST) || rename(src, dest) < 0) {
		rawlog_log(rl, "cannot quarantine raw file %s (left in place): %s", src,
		           strerror(errno));
		return -1;
	}
	fsync_dir(dir);
	rawlog_log(rl, "quarantined raw file %s (%lld bytes) to %s: no run references it and %s",
	           sha, (long long)bytes, dest, why);
	return 0;
}

/* Delete or quarantine the file of one digest in one form (the caller
 * holds the write lock unless dry_run, which only counts). */
static void dispose_form(const struct store_rawlog *rl, const char *sha, int gz, int64_t born_at,
                         int64_t stored_at, int own, int dry_run, struct store_rawlog_tally *t)
{
	char path[4400], whybuf[300];
	struct stat st;
	blob_path(rl, sha, gz, path, sizeof path);
	if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	const char *why =
	        own ? NULL
	            : unaccounted(ms_of(&st.st_mtim), born_at, stored_at, whybuf, sizeof whybuf);
	if (!why) {
		if (!dry_run && unlink(path) < 0) {
			rawlog_log(rl, "cannot remove %s: %s", path, strerror(errno));
			return;
		}
		t->removed++;
		t->removed_bytes += st.st_size;
		return;
	}
	if (!dry_run && quarantine(rl, sha, gz, (int64_t)st.st_size, why) < 0)
		return;
	t->quarantined++;
	t->quarantined_bytes += st.st_size;
}

/* Delete or quarantine the file(s) of one digest no log references: both
 * forms, should a digest have both (a .gz one and an older plain one). */
static void dispose(const struct store_rawlog *rl, const char *sha, int64_t born_at,
                    int64_t stored_at, int own, int dry_run, struct store_rawlog_tally *t)
{
	for (int gz = 0; gz <= 1; gz++)
		dispose_form(rl, sha, gz, born_at, stored_at, own, dry_run, t);
}

/* store_rawlog_release, and its dry run for the sweep (no lock, no
 * change). */
int rawlog_files_release(const struct store_rawlog *rl, struct store *db, char *const *shas,
                         int own, int dry_run, struct store_rawlog_tally *t)
{
	struct store_rawlog_tally ignored = {0};
	int64_t born_at, stored_at;
	int rc = -1;
	if (!t)
		t = &ignored;
	if (!shas || !shas[0])
		return 0;
	if (!dry_run && store_tx_begin(db) < 0) {
		rawlog_log(rl, "raw files not released, left for the next sweep: %s",
		           store_errmsg(db));
		return -1;
	}
	if (store_raw_clock(db, &born_at, &stored_at) < 0)
		goto done;
	for (size_t i = 0; shas[i]; i++) {
		if (!rawlog_valid_sha(shas[i]))
			continue;
		int ref = store_sha256_referenced(db, shas[i]);
		if (ref < 0)
			goto done;
		if (ref == 0)
			dispose(rl, shas[i], born_at, stored_at, own, dry_run, t);
	}
	rc = 0;
done:
	if (rc < 0)
		rawlog_log(rl, "raw files not released, left for the next sweep: %s",
		           store_errmsg(db));
	/* nothing was written: the transaction only held the lock */
	if (!dry_run)
		store_tx_rollback(db);
	return rc;
}

static void free_batch(char **batch, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		free(batch[i]);
	*n = 0;
	batch[0] = NULL;
}

int rawlog_files_sweep_unreferenced(const struct store_rawlog *rl, struct store *db, int dry_run,
                                    struct store_rawlog_tally *t)
{
	char *batch[SWEEP_BATCH + 1] = {NULL};
	size_t n = 0;
	int rc = 0;
	DIR *top = opendir(rl->raw);
	struct dirent *de;
	while (top && rc == 0 && (de = readdir(top))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) != 2)
			continue;
		char sub[4400];
		snprintf(sub, sizeof sub, "%s/%s", rl->raw, de->d_name);
		DIR *dd = opendir(sub);
		struct dirent *fe;
		while (dd && rc == 0 && (fe = readdir(dd))) {
			char sha[65];
			if (name_sha(fe->d_name, sha) < 0)
				continue;
			/* a cheap read first: most files are referenced */
			int ref = store_sha256_referenced(db, sha);
			if (ref != 0) {
				rc = ref < 0 ? -1 : 0;
				continue;
			}
			/* a digest stored in both forms comes twice: disposing of
			 * it takes both files, and the repeat finds none left */
			if (!(batch[n] = strdup(sha))) {
				rc = -1;
				continue;
			}
			batch[++n] = NULL;
			if (n == SWEEP_BATCH) {
				rc = rawlog_files_release(rl, db, batch, 0, dry_run, t);
				free_batch(batch, &n);
			}
		}
		if (dd)
			closedir(dd);
	}
	if (top)
		closedir(top);
	if (rc == 0 && n)
		rc = rawlog_files_release(rl, db, batch, 0, dry_run, t);
	free_batch(batch, &n);
	return rc;
}
