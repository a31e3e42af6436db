/* blobs.c - raw uploads kept byte for byte under <data>/raw/<aa>/<sha256>,
 * content-addressed so two uploads of one file share it.  A blob is
 * written to <data>/tmp first and renamed into place only after fsync; the
 * directory is fsync'ed too, so an acknowledged upload survives a crash. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "srv.h"
#include "store.h"

static int valid_sha(const char *sha)
{
	size_t n = strlen(sha);
	if (n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((sha[i] >= '0' && sha[i] <= '9') || (sha[i] >= 'a' && sha[i] <= 'f')))
			return 0;
	return 1;
}

void srv_blob_path(const struct srv *s, const char *sha256, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%.2s/%s", s->raw_dir, sha256, sha256);
}

static void fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int srv_blob_commit(const struct srv *s, const char *tmp_path, const char *sha256, int *created)
{
	char dir[4400], path[4400];
	*created = 0;
	if (!valid_sha(sha256))
		return -1;
	snprintf(dir, sizeof dir, "%s/%.2s", s->raw_dir, sha256);
	if (mkdir(dir, 0750) < 0 && errno != EEXIST)
		return -1;
	srv_blob_path(s, sha256, path, sizeof path);
	struct stat st;
	if (stat(path, &st) == 0) {
		unlink(tmp_path); /* same bytes already stored */
		return 0;
	}
	if (rename(tmp_path, path) < 0)
		return -1;
	*created = 1;
	fsync_dir(dir);
	return 0;
}

void srv_blob_unlink(const struct srv *s, const char *sha256)
{
	char path[4400];
	if (!valid_sha(sha256))
		return;
	srv_blob_path(s, sha256, path, sizeof path);
	if (unlink(path) < 0 && errno != ENOENT)
		srv_log("cannot remove %s: %s", path, strerror(errno));
}

/* Remove raw files no log references and older than min_age_s (an upload
 * renames its file just before its transaction commits: a young
 * unreferenced file may be one in flight).  Counts what it removed (or,
 * with dry_run, would remove).  Errors are logged, not returned. */
void srv_blob_sweep_unreferenced(const struct srv *s, struct store *db, long min_age_s, int dry_run,
                                 size_t *files, int64_t *bytes)
{
	DIR *top = opendir(s->raw_dir);
	struct dirent *de;
	time_t now = time(NULL);
	while (top && (de = readdir(top))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) != 2)
			continue;
		char sub[4400];
		snprintf(sub, sizeof sub, "%s/%s", s->raw_dir, de->d_name);
		DIR *dd = opendir(sub);
		struct dirent *fe;
		while (dd && (fe = readdir(dd))) {
			if (!valid_sha(fe->d_name))
				continue;
			char path[4400 + 2 + sizeof fe->d_name];
			struct stat st;
			snprintf(path, sizeof path, "%s/%s", sub, fe->d_name);
			if (stat(path, &st) < 0 || now - st.st_mtime < min_age_s)
				continue;
			if (store_sha256_referenced(db, fe->d_name) != 0)
				continue;
			(*files)++;
			*bytes += st.st_size;
			if (!dry_run)
				srv_blob_unlink(s, fe->d_name);
		}
		if (dd)
			closedir(dd);
	}
	if (top)
		closedir(top);
}

/* Start-up: empty <data>/tmp (uploads that never finished) and remove raw
 * files that no log references (a crash between rename and commit); no
 * upload is in flight yet, so any age goes. */
void srv_blob_sweep(struct srv *s)
{
	DIR *d = opendir(s->tmp_dir);
	struct dirent *de;
	char path[4600];
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", s->tmp_dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	struct store *db = srv_db_acquire(s);
	if (!db)
		return;
	size_t removed = 0;
	int64_t bytes = 0;
	srv_blob_sweep_unreferenced(s, db, 0, 0, &removed, &bytes);
	srv_db_release(s, db);
	if (removed)
		srv_log("removed %zu unreferenced raw file(s), %lld bytes", removed,
		        (long long)bytes);
}
