/* cli_admin.c - maintenance subcommands that work on a data directory
 * directly, safe while the daemon runs (SQLite WAL, one short transaction
 * per deleted object):
 *   parity gc [--older-than DAYS] [--dry-run] [--data DIR]
 *   parity backup FILE [--data DIR]
 * gc deletes finished comparisons older than DAYS, then runs older than
 * DAYS that no remaining comparison references, then the raw files nothing
 * references any more (under the raw-file rule of store_rawlog.h: files the
 * database cannot account for are quarantined, not deleted), and reports
 * what it freed.  backup writes a consistent copy of the database with
 * SQLite's backup API (raw uploads are immutable files: copy <data>/raw
 * with any file tool that keeps their times, e.g. cp -a or rsync -a). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store.h"
#include "cli.h"

/* gc shares the database's write lock with a running daemon.  SQLite's
 * busy handler polls for it (at most 100 ms apart), so back-to-back
 * transactions would starve the daemon's uploads into 503s: after every
 * YIELD_EVERY_MS of work gc leaves the lock free for longer than a poll. */
#define YIELD_EVERY_MS 500
#define YIELD_FOR_MS   120

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Between two transactions: sleep when *since is YIELD_EVERY_MS old. */
static void yield_lock(int64_t *since)
{
	if (now_ms() - *since < YIELD_EVERY_MS)
		return;
	struct timespec pause = {0, YIELD_FOR_MS * 1000000L};
	nanosleep(&pause, NULL);
	*since = now_ms();
}

static int open_url(const char *url, struct store **db)
{
	char err[512];
	if (!store_is_url(url)) {
		fprintf(stderr, "parity: --db takes a postgresql:// URL\n");
		return -1;
	}
	if (store_open_existing(url, db, err, sizeof err) < 0) {
		fprintf(stderr, "parity: %s\n", err);
		return -1;
	}
	return 0;
}

static int open_db(const char *data, struct store **db)
{
	char path[4200], err[512];
	snprintf(path, sizeof path, "%s/parity.db", data);
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "parity: no database at %s (use --data DIR)\n", path);
		return -1;
	}
	if (store_open_existing(path, db, err, sizeof err) < 0) {
		fprintf(stderr, "parity: %s\n", err);
		return -1;
	}
	return 0;
}

struct admin_opts {
	double days;
	int dry_run;
	const char *data, *db;
};

static const struct srv_option gc_opts[] = {
        {.name = "older-than",
         .type = SRV_OPT_DOUBLE,
         .offset = offsetof(struct admin_opts, days),
         .min = 0,
         .def = "30",
         .metavar = "DAYS",
         .help = "delete what was created more than DAYS days ago."},
        {.name = "dry-run",
         .type = SRV_OPT_BOOL,
         .offset = offsetof(struct admin_opts, dry_run),
         .help = "print what would be freed, delete nothing."},
        SRV_CLI_STORE_OPTIONS(struct admin_opts),
        {.name = NULL},
};

const struct srv_optcmd srv_gc_cmd = {
        .name = "gc",
        .synopsis = "usage: parity gc [--older-than DAYS] [--dry-run] [--data DIR | --db URL]\n",
        .about = "Delete finished comparisons created more than DAYS days ago (default 30),\n"
                 "then runs older than that which no remaining comparison uses, with their\n"
                 "parsed rows and the raw files nothing references any more.  Queued and\n"
                 "running comparisons, and the runs they use, are always kept.  Prints\n"
                 "what was (with --dry-run: would be) freed.  Safe while the daemon runs.\n"
                 "Unreferenced raw files that the database cannot account for (newer than\n"
                 "its last upload, older than the database) are moved to DIR/quarantine.\n"
                 "With --db, raw logs no log references any more are deleted from the\n"
                 "database; one gc at a time.\n",
        .opts = gc_opts,
};

/* Parse argv by cmd into o: 0, 1 after --help (printed), -1 after an
 * error (printed).  The operands stay in *res (srv_options_free). */
static int admin_parse(const struct srv_optcmd *cmd, struct admin_opts *o, int argc, char **argv,
                       struct srv_optres *res)
{
	int rc = srv_options_parse(cmd, o, argc, argv, res);
	if (rc == SRV_OPTS_HELP)
		srv_options_usage(cmd, stdout);
	else if (rc < 0)
		fprintf(stderr, "%s\nrun `parity %s --help` for the options\n", res->err,
		        cmd->name);
	return rc;
}

int srv_cli_gc(int argc, char **argv)
{
	struct admin_opts o;
	struct srv_optres res = {0};
	int prc = admin_parse(&srv_gc_cmd, &o, argc, argv, &res);
	const char *extra = res.n_operands ? res.operands[0] : NULL; /* argv's */
	srv_options_free(&srv_gc_cmd, &o, &res);
	if (prc != 0)
		return prc > 0 ? 0 : 2;
	if (extra) {
		fprintf(stderr, "parity gc: unexpected argument '%s'\n", extra);
		return 2;
	}
	const char *data = o.data, *url = o.db;
	double days = o.days;
	int dry_run = o.dry_run;
	struct store *db;
	if (url ? open_url(url, &db) < 0 : open_db(data, &db) < 0)
		return 2;
	int locked = store_gc_lock(db);
	if (locked <= 0) {
		if (locked < 0)
			fprintf(stderr, "parity gc: %s\n", store_errmsg(db));
		else
			fprintf(stderr, "parity gc: another gc is running on this database; "
			                "try again when it has finished\n");
		store_close(db);
		return 2;
	}
	struct store_rawlog *raw = srv_rawlog_new(url ? "" : data);
	if (!raw) {
		fprintf(stderr, "parity gc: out of memory\n");
		store_close(db);
		return 2;
	}

	time_t cut = time(NULL) - (time_t)(days * 86400);
	struct tm tm;
	gmtime_r(&cut, &tm);
	char cutoff[32];
	strftime(cutoff, sizeof cutoff, "%Y-%m-%dT%H:%M:%SZ", &tm);

	int64_t *cmps = NULL, *runs = NULL;
	size_t n_cmps = 0, n_runs = 0, n_cmp_done = 0, n_run_done = 0;
	int64_t run_bytes = 0;
	struct store_rawlog_tally files = {0};
	int status = 0;
	if (store_gc_candidates(db, cutoff, &cmps, &n_cmps, &runs, &n_runs) < 0) {
		fprintf(stderr, "parity gc: %s\n", store_errmsg(db));
		status = 2;
		goto done;
	}
	int64_t since = now_ms();
	for (size_t i = 0; i < n_cmps; i++) {
		if (dry_run || store_comparison_delete(db, cmps[i]) == 0)
			n_cmp_done++;
		if (!dry_run)
			yield_lock(&since);
	}
	for (size_t i = 0; i < n_runs; i++) {
		if (dry_run) {
			int64_t b = 0;
			store_run_raw_bytes(db, runs[i], &b);
			run_bytes += b;
			n_run_done++;
			continue;
		}
		char **freed = NULL;
		int rc = store_run_delete(db, runs[i], &freed);
		if (rc == STORE_IN_USE || rc == STORE_NOT_FOUND)
			continue; /* used again, or deleted meanwhile */
		if (rc < 0) {
			fprintf(stderr, "parity gc: run %lld: %s\n", (long long)runs[i],
			        store_errmsg(db));
			status = 2;
			continue;
		}
		n_run_done++;
		/* the same rule as the daemon's (store_rawlog.h): references
		 * re-checked under the write lock, which a concurrent upload
		 * needs too; PostgreSQL: raw_blobs below */
		store_rawlog_release(raw, db, freed, 0, &files);
		store_strv_free(freed);
		yield_lock(&since);
	}
	if (store_rawlog_gc(raw, db, dry_run, &files) < 0) {
		fprintf(stderr, "parity gc: %s\n", store_errmsg(db));
		status = 2;
	}
	printf("%s%zu comparison(s) and %zu run(s) older than %s; %zu raw file(s), %lld bytes%s\n",
	       dry_run ? "would delete " : "deleted ", n_cmp_done, n_run_done, cutoff,
	       files.removed, (long long)(files.removed_bytes + run_bytes),
	       dry_run ? " (runs' raw bytes, before sharing)" : " freed");
	if (files.quarantined)
		printf("%s %zu raw file(s), %lld bytes, that the database does not account for: "
		       "see %s\n",
		       dry_run ? "would quarantine" : "quarantined", files.quarantined,
		       (long long)files.quarantined_bytes,
		       store_rawlog_dir(raw, STORE_RAWLOG_QUARANTINE));
done:
	store_rawlog_free(raw);
	free(cmps);
	free(runs);
	store_close(db);
	return status;
}

/* PostgreSQL: no copy of our own (raw logs live in the database too):
 * say how to use pg_dump, with the password of the URL masked.  Exit 2. */
static int backup_pg_hint(const char *url)
{
	char shown[4200];
	srv_url_redact(url, shown, sizeof shown);
	fprintf(stderr,
	        "parity backup: use pg_dump: pg_dump -Fc '%s' > parity.dump (restore with "
	        "pg_restore into an empty database, then start parity: migrations bring it up "
	        "to date)\n",
	        shown);
	return 2;
}

static const struct srv_option backup_opts[] = {
        SRV_CLI_STORE_OPTIONS(struct admin_opts),
        {.name = NULL},
};

const struct srv_optcmd srv_backup_cmd = {
        .name = "backup",
        .synopsis = "usage: parity backup FILE [--data DIR]\n",
        .about = "Write a consistent copy of the database to FILE with SQLite's online\n"
                 "backup API; safe while the daemon runs.  Raw uploads (DIR/raw) are\n"
                 "immutable, content-addressed files: copy them with any file tool.\n"
                 "With --db URL (PARITY_DB), a PostgreSQL database: use pg_dump.\n",
        .opts = backup_opts,
};

int srv_cli_backup(int argc, char **argv)
{
	struct admin_opts o;
	struct srv_optres res = {0};
	int prc = admin_parse(&srv_backup_cmd, &o, argc, argv, &res);
	const char *data = o.data, *url = o.db;
	const char *dest = res.n_operands == 1 ? res.operands[0] : NULL;
	srv_options_free(&srv_backup_cmd, &o, &res);
	if (prc != 0)
		return prc > 0 ? 0 : 2;
	if (url)
		return backup_pg_hint(url);
	if (!dest) {
		fprintf(stderr, "usage: parity backup FILE [--data DIR]\n");
		return 2;
	}
	struct store *db;
	if (open_db(data, &db) < 0)
		return 2;
	int rc = store_backup(db, dest);
	if (rc < 0)
		fprintf(stderr, "parity backup: %s\n", store_errmsg(db));
	else
		printf("backed up %s/parity.db to %s\n", data, dest);
	store_close(db);
	return rc < 0 ? 2 : 0;
}
