/* serve.c - `parity serve`: set up the data directory and the database,
 * start the HTTP daemon and the job workers, and run until SIGTERM/SIGINT.
 *
 * Signals are blocked in every thread and taken synchronously with
 * sigwait() in the main thread, so no handler runs in async context and no
 * global flag is needed.  Shutdown: stop accepting, let in-flight requests
 * finish (bounded grace period), stop workers (a job in progress is left
 * 'running' and resumed at the next start), close the database.
 * PostgreSQL (--db): several daemons share the database; each names
 * itself for its claims, listens for the others' wake-ups and renews its
 * leases (pgwake.c); nothing is requeued at start (leases expire). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crypto_lib.h"
#include "curl_lib.h"

#include "store.h"
#include "delivery.h"
#include "http.h"
#include "ingest.h"
#include "jobs.h"
#include "serve.h"

#define GRACE_SECONDS 10

static int make_dir(const char *path)
{
	if (mkdir(path, 0750) == 0 || errno == EEXIST)
		return 0;
	fprintf(stderr, "parity serve: cannot create %s: %s\n", path, strerror(errno));
	return -1;
}

/* Point stderr (where every log line goes) at the log file, appending.
 * Called at start and on SIGHUP, after logrotate moved the old file. */
static int open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0) {
		srv_log("cannot open log file %s: %s", path, strerror(errno));
		return -1;
	}
	dup2(fd, STDERR_FILENO);
	close(fd);
	return 0;
}

static void write_port_file(const char *path, unsigned port)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%u\n", port);
	fclose(f);
	rename(tmp, path);
}

/* The daemon's state: struct srv and the state of the rooms above http,
 * which it reaches through its pointers. */
struct daemon_state {
	struct srv srv;
	struct srv_jobs jobs;
	struct srv_hooks hooks;
	struct srv_pgwake pgwake;
};

int srv_cli_serve(int argc, char **argv)
{
	struct daemon_state *ds = calloc(1, sizeof *ds);
	int status = 1;
	if (!ds)
		return 1;
	struct srv *s = &ds->srv;
	s->jobs = &ds->jobs;
	s->hooks = &ds->hooks;
	s->pgwake = &ds->pgwake;
	s->routes = srv_routes();
	int rc = srv_config_load(&s->cfg, argc, argv);
	if (rc != 0) {
		free(ds);
		return rc > 0 ? 0 : 2;
	}
	pthread_mutex_init(&s->jobs->mu, NULL);
	pthread_cond_init(&s->jobs->jobs_cv, NULL);
	pthread_cond_init(&s->jobs->done_cv, NULL);

	signal(SIGPIPE, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	if (s->cfg.log_file[0] && open_log(s->cfg.log_file) < 0) {
		fprintf(stderr, "parity serve: cannot open --log-file %s\n", s->cfg.log_file);
		goto done;
	}
	if (make_dir(s->cfg.data_dir) < 0)
		goto done;
	if (!(s->raw = srv_rawlog_new(s->cfg.data_dir)) ||
	    make_dir(store_rawlog_dir(s->raw, STORE_RAWLOG_RAW)) < 0 ||
	    make_dir(store_rawlog_dir(s->raw, STORE_RAWLOG_TMP)) < 0)
		goto done;
	/* the database: <data>/parity.db, or the PostgreSQL URL (the data
	 * directory then only holds the upload spool; one per daemon) */
	char db_path[4200], shown[4200];
	if (s->cfg.db_url[0])
		snprintf(db_path, sizeof db_path, "%s", s->cfg.db_url);
	else
		snprintf(db_path, sizeof db_path, "%s/parity.db", s->cfg.data_dir);
	srv_url_redact(db_path, shown, sizeof shown);
	/* what the database asks of this daemon (store.h, enum store_trait) */
	int shared = store_target_has(db_path, STORE_TRAIT_SHARED);
	int local_file = store_target_has(db_path, STORE_TRAIT_LOCAL_FILE);
	if (srv_db_pool_init(&s->db, db_path, s->cfg.max_db_connections) < 0) {
		fprintf(stderr, "parity serve: cannot set up the database pool\n");
		goto done;
	}
	if (shared) {
		srv_db_pool_owner(&s->db, (int64_t)s->cfg.job_lease_s * 1000);
		s->pgwake->hook_lease_ms =
		        (int64_t)s->cfg.webhook_timeout_ms + SRV_WEBHOOK_LEASE_MARGIN_MS;
	}
	char err[512];
	/* refuse to run where an upload could not be stored */
	if (srv_storage_writable(s, err, sizeof err) < 0) {
		fprintf(stderr, "parity serve: the data directory %s is not writable: %s\n",
		        s->cfg.data_dir, err);
		goto done;
	}

	/* the daemon's libraries are loaded at their first call
	 * (store/dynlib.h): load them now, so a missing one stops the start
	 * with its name instead of the first request or webhook */
	if (!srv_mhd_get(err, sizeof err) || !srv_curl_get(err, sizeof err) ||
	    !srv_crypto_get(err, sizeof err)) {
		fprintf(stderr, "parity serve: %s\n", err);
		goto done;
	}
	json_object_seed(0);
	curl_global_init(CURL_GLOBAL_DEFAULT); /* once, before any thread */
	/* first connection applies the migrations (or refuses a newer DB) */
	struct store *db;
	if (store_open(s->db.path, &db, err, sizeof err) < 0) {
		fprintf(stderr, "parity serve: %s\n", err);
		goto done;
	}
	if (store_check_writable(db) < 0) {
		fprintf(stderr, "parity serve: the database %s is not writable: %s\n", shown,
		        store_errmsg(db));
		store_close(db);
		goto done;
	}
	if (local_file && srv_db_pool_pin(&s->db, db) < 0) {
		fprintf(stderr, "parity serve: cannot identify the database file %s\n", s->db.path);
		store_close(db);
		goto done;
	}
	if (shared)
		srv_log("PostgreSQL schema at version %d; claims owned as %s, job lease %u s",
		        store_schema_version(db), s->db.owner, s->cfg.job_lease_s);
	store_close(db); /* the pool opens its own (counted) connections */
	/* PostgreSQL checkpoints itself */
	if (local_file && srv_db_ckpt_start(&s->db) < 0)
		srv_log("cannot start the checkpointer thread: commits checkpoint the WAL "
		        "themselves");
	struct store *sweep_db = srv_db_acquire(s);
	store_rawlog_sweep(s->raw, sweep_db);
	if (sweep_db)
		srv_db_release(s, sweep_db);

	if (srv_webhooks_start(s) < 0) {
		fprintf(stderr, "parity serve: cannot start webhook sender threads\n");
		srv_webhooks_stop(s);
		goto done;
	}
	if (srv_workers_start(s) < 0) {
		fprintf(stderr, "parity serve: cannot start worker threads\n");
		srv_webhooks_stop(s);
		goto done;
	}
	if (shared && srv_pgwake_start(s) < 0) {
		fprintf(stderr, "parity serve: cannot start the wake-up and heartbeat threads\n");
		srv_pgwake_stop(s);
		srv_workers_stop(s);
		srv_webhooks_stop(s);
		goto done;
	}
	if (srv_offload_start(s) < 0) {
		fprintf(stderr, "parity serve: cannot start the reader and render threads\n");
		srv_pgwake_stop(s);
		srv_workers_stop(s);
		srv_webhooks_stop(s);
		goto done;
	}
	if (!s->cfg.writes_open)
		srv_log("writes need an API token (listening beyond loopback; --open-writes to "
		        "allow anonymous writes)");
	if (s->cfg.max_per_ip && !s->cfg.max_per_ip_set)
		srv_log("at most %u connections per client address (--max-per-ip; set 0 when a "
		        "proxy or NAT hides client addresses)",
		        s->cfg.max_per_ip);
	/* before the HTTP daemon: its connection callbacks use the guard */
	if (srv_guard_start(&s->guard, &s->cfg, &s->metrics) < 0) {
		fprintf(stderr, "parity serve: cannot start the connection guard thread\n");
		srv_pgwake_stop(s);
		srv_workers_stop(s);
		srv_webhooks_stop(s);
		goto done;
	}
	unsigned port = 0;
	s->daemon = srv_http_start(s, &port);
	if (!s->daemon) {
		fprintf(stderr, "parity serve: cannot listen on %s:%u\n", s->cfg.listen_host,
		        s->cfg.listen_port);
		srv_guard_stop(&s->guard);
		srv_offload_free(s);
		srv_pgwake_stop(s);
		srv_workers_stop(s);
		srv_webhooks_stop(s);
		goto done;
	}
	if (s->cfg.port_file[0])
		write_port_file(s->cfg.port_file, port);
	printf("PORT=%u\n", port);
	fflush(stdout);
	srv_log("parity listening on %s:%u, database %s", s->cfg.listen_host, port, shown);

	for (;;) {
		int sig = 0;
		if (sigwait(&set, &sig) != 0)
			continue;
		if (sig == SIGHUP) {
			if (s->cfg.log_file[0] && open_log(s->cfg.log_file) == 0)
				srv_log("SIGHUP: reopened %s", s->cfg.log_file);
			continue;
		}
		srv_log("signal %d: shutting down", sig);
		break;
	}

	MHD_socket fd = MHD_quiesce_daemon(s->daemon);
	srv_pgwake_stop_listen(s); /* nothing is woken from here on */
	srv_workers_stop(s);       /* answers suspended long-polls, joins the workers */
	srv_offload_stop(s);       /* finishes handed-over reads, refuses queued renders */
	srv_slots_expire(&s->slots, INT64_MAX); /* uploads waiting for a slot: 503 */
	time_t deadline = time(NULL) + GRACE_SECONDS;
	while (time(NULL) < deadline) {
		const union MHD_DaemonInfo *info =
		        MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
		if (!info || info->num_connections == 0)
			break;
		usleep(50 * 1000);
	}
	MHD_stop_daemon(s->daemon);
	srv_guard_stop(&s->guard); /* every connection has left its registry */
	srv_slots_free(&s->slots); /* after the guard: its tick expires waiters */
	srv_offload_free(s);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	srv_webhooks_stop(s); /* after the workers: they may still queue deliveries */
	srv_db_ckpt_stop(&s->db);
	/* leave a compact database: fold the WAL back in (PostgreSQL: a
	 * no-op); give back any delivery claim of this daemon at once */
	struct store *last = srv_db_acquire(s);
	if (last && store_checkpoint(last) < 0)
		srv_log("shutdown: %s", store_errmsg(last));
	int n_released = 0;
	if (last && shared && store_deliveries_release_all(last, &n_released) < 0)
		srv_log("shutdown: %s", store_errmsg(last));
	srv_db_release(s, last);
	srv_pgwake_stop(s); /* the leases were renewed until every job ended */
	srv_log("stopped");
	status = 0;
done:
	srv_db_pool_destroy(&s->db);
	store_rawlog_free(s->raw);
	free(ds);
	return status;
}
