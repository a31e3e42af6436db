/* health.c - can the daemon still keep what it acknowledges?  GET /healthz
 * and start-up ask: the data directory and its raw/ and tmp/ take new
 * files (a read-only mount, an immutable directory or a read-only remount
 * after disk errors all fail here), the database file at <data>/parity.db
 * is the one the daemon opened (deleted or replaced database files: every
 * later commit would land in a file nobody will find; dbpool.c), and the
 * database takes the write lock.  Each check is a few syscalls; nothing is
 * written to the database. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store.h"
#include "http.h"
#include "ingest.h"

/* Create and remove a file in dir.  0, or -1 with why set. */
static int probe_dir(const char *dir, char *why, size_t cap)
{
	char path[4400];
	/* mkostemp template: the last six characters become X's */
	snprintf(path, sizeof path, "%s/.parity-probe-______", dir);
	memset(path + strlen(path) - 6, 'X', 6);
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, cap, "cannot create a file in %s: %s", dir, strerror(errno));
		return -1;
	}
	close(fd);
	if (unlink(path) < 0) {
		snprintf(why, cap, "cannot remove a file in %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

int srv_storage_writable(const struct srv *s, char *why, size_t cap)
{
	if (probe_dir(s->cfg.data_dir, why, cap) < 0 ||
	    probe_dir(store_rawlog_dir(s->raw, STORE_RAWLOG_RAW), why, cap) < 0 ||
	    probe_dir(store_rawlog_dir(s->raw, STORE_RAWLOG_TMP), why, cap) < 0)
		return -1;
	return 0;
}

int srv_health_check(struct srv *s, const char **code, char *why, size_t cap)
{
	if (srv_storage_writable(s, why, cap) < 0) {
		*code = "storage_unwritable";
		return -1;
	}
	if (srv_db_pool_check(&s->db, code, why, cap) < 0)
		return -1;
	struct store *db = srv_db_acquire(s);
	if (!db) {
		*code = "database";
		snprintf(why, cap, "the database cannot be opened");
		return -1;
	}
	int rc = 0;
	if (store_check_writable(db) < 0) {
		*code = "database_unwritable";
		snprintf(why, cap, "the database cannot be written: %s", store_errmsg(db));
		rc = -1;
	}
	srv_db_release(s, db);
	return rc;
}
