/* config.c - `parity serve` options: defaults < environment < flags,
 * all from one table (options.h); this file holds the table, the checks
 * a type cannot express, and what is derived after parsing. */
#include "base.h"
#include "store.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"

int srv_config_parse_bytes(const char *s, uint64_t *out)
{
	unsigned long long v;
	if (srv_options_parse_bytes(s, &v) < 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (end == s || *end || errno || s[0] == '-' || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int srv_config_parse_listen(struct srv_config *cfg, const char *s)
{
	const char *colon = strrchr(s, ':');
	const char *port = colon ? colon + 1 : s;
	unsigned p;
	if (parse_uint(port, 0, 65535, &p) < 0)
		return -1;
	if (colon) {
		size_t n = (size_t)(colon - s);
		if (n >= sizeof cfg->listen_host)
			return -1;
		/* [::1]:8080 */
		if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
			s++;
			n -= 2;
		}
		if (n) {
			memcpy(cfg->listen_host, s, n);
			cfg->listen_host[n] = 0;
		}
	}
	cfg->listen_port = p;
	return 0;
}

static int check_listen(void *dst, const char *val, char *err, size_t n)
{
	if (srv_config_parse_listen(dst, val) == 0)
		return 0;
	snprintf(err, n, "takes HOST:PORT, :PORT or PORT with a port of 0 to 65535 (got '%s')",
	         val);
	return -1;
}

static int check_db(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	/* the value may hold a password: never echo it */
	if (store_is_url(val))
		return 0;
	snprintf(err, n, "takes a postgresql:// URL (the SQLite store is chosen with --data DIR)");
	return -1;
}

static int check_public_url(void *dst, const char *val, char *err, size_t n)
{
	(void)val, (void)err, (void)n;
	struct srv_config *cfg = dst;
	size_t len = strlen(cfg->public_url);
	while (len && cfg->public_url[len - 1] == '/')
		cfg->public_url[--len] = 0;
	return 0;
}

/* --allowed-hosts: comma-separated host names or IP literals ([v6]), no
 * ports, or "*". */
static int check_allowed_hosts(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	for (const char *p = val; *val;) { /* "" = none */
		size_t len = strcspn(p, ",");
		/* ':' only inside an IPv6 literal's brackets: no ports */
		int v6 = len > 2 && p[0] == '[' && p[len - 1] == ']', ok = len > 0;
		for (size_t i = v6; ok && i < len - v6; i++)
			ok = (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
			     (p[i] >= '0' && p[i] <= '9') || strchr(v6 ? ":." : ".-_*", p[i]);
		if (!ok) {
			snprintf(err, n,
			         "takes host names or IP addresses separated by commas, without "
			         "ports or spaces, or * (got '%.200s')",
			         val);
			return -1;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
	return 0;
}

static int check_max_per_ip(void *dst, const char *val, char *err, size_t n)
{
	(void)val, (void)err, (void)n;
	((struct srv_config *)dst)->max_per_ip_set = 1;
	return 0;
}

static int check_smtp_url(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	int rc = strncasecmp(val, "smtp://", 7) && strncasecmp(val, "smtps://", 8) ? -1 : 0;
	/* no user:password@ (credentials come from the environment) */
	for (const char *p = val; rc == 0 && *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '@')
			rc = -1;
	if (rc < 0)
		snprintf(err, n,
		         "takes smtp://host:port or smtps://host:port, without "
		         "credentials (PARITY_SMTP_USER / PARITY_SMTP_PASSWORD)");
	return rc;
}

static int check_mail_from(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	if (srv_mail_addr_valid(val))
		return 0;
	snprintf(err, n, "not an email address: '%s'", val);
	return -1;
}

/* SMTP credentials: environment only, so they never show in ps or a unit
 * file's command line; never logged, never echoed. */
static int check_one_line(void *dst, const char *val, char *err, size_t n)
{
	(void)dst;
	if (!strpbrk(val, "\r\n"))
		return 0;
	snprintf(err, n, "not one line");
	return -1;
}

#define CFG(field)                                                                                 \
	.offset = offsetof(struct srv_config, field),                                              \
	.size = sizeof(((struct srv_config *)0)->field)

static const struct srv_option serve_opts[] = {
        {.name = "listen",
         .env = "PARITY_LISTEN",
         .type = SRV_OPT_CUSTOM,
         .flags = SRV_OPT_COMMON,
         .def = "127.0.0.1:8080",
         .metavar = "HOST:PORT",
         .check = check_listen,
         .group = "common options",
         .help = "address to listen on; port 0 picks a free port."},
        {.name = "data",
         .env = "PARITY_DATA",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_COMMON,
         CFG(data_dir),
         .def = "./parity-data",
         .metavar = "DIR",
         .help = "state directory: parity.db and raw uploads (with --db only temporary "
                 "files)."},
        {.name = "db",
         .env = "PARITY_DB",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_SECRET | SRV_OPT_COMMON,
         CFG(db_url),
         .metavar = "URL",
         .check = check_db,
         .help = "postgresql://user@host/dbname: keep the state in PostgreSQL instead; "
                 "several daemons may share one database (it must exist: UTF8, C locale)."},
        {.name = "workers",
         .env = "PARITY_WORKERS",
         .type = SRV_OPT_INT,
         .flags = SRV_OPT_COMMON,
         CFG(workers),
         .min = 1,
         .max = 256,
         .def = "2",
         .metavar = "N",
         .help = "comparison worker threads."},
        {.name = "port-file",
         .env = "PARITY_PORT_FILE",
         .type = SRV_OPT_STRING,
         CFG(port_file),
         .metavar = "FILE",
         .help = "write the bound port number to FILE once listening."},
        {.name = "public-url",
         .env = "PARITY_PUBLIC_URL",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_COMMON,
         CFG(public_url),
         .metavar = "URL",
         .check = check_public_url,
         .help = "absolute base URL used in links (webhooks, emails); default relative "
                 "links."},
        {.name = "log-file",
         .env = "PARITY_LOG_FILE",
         .type = SRV_OPT_STRING,
         CFG(log_file),
         .metavar = "FILE",
         .help = "append logs (one JSON line per request) to FILE instead of stderr; SIGHUP "
                 "reopens it."},
        {.name = "open-writes",
         .env = "PARITY_OPEN_WRITES",
         .type = SRV_OPT_BOOL,
         .flags = SRV_OPT_COMMON,
         CFG(open_writes),
         .group = "access",
         .help = "accept writes without a token even when listening beyond loopback "
                 "(writes are open by default only on 127.0.0.0/8, ::1)."},
        {.name = "require-tokens",
         .env = "PARITY_REQUIRE_TOKENS",
         .type = SRV_OPT_BOOL,
         .flags = SRV_OPT_COMMON,
         CFG(require_tokens),
         .help = "writes need a token even on loopback (use it behind a reverse proxy on "
                 "the same host)."},
        {.name = "private-reads",
         .env = "PARITY_PRIVATE_READS",
         .type = SRV_OPT_BOOL,
         CFG(private_reads),
         .help = "reads need a token too (and so do writes, unless --open-writes)."},
        {.name = "allowed-hosts",
         .env = "PARITY_ALLOWED_HOSTS",
         .type = SRV_OPT_STRING,
         CFG(allowed_hosts),
         .metavar = "HOSTS",
         .check = check_allowed_hosts,
         .help = "host names (comma-separated, or *) accepted in the Host header besides "
                 "loopback names, the listen address and --public-url's host; any other "
                 "Host gets 421 (DNS rebinding)."},
        {.name = "job-lease",
         .env = "PARITY_JOB_LEASE",
         .type = SRV_OPT_DURATION,
         CFG(job_lease_s),
         .min = 3,
         .max = 86400,
         .def = "60",
         .metavar = "S",
         .group = "PostgreSQL",
         .help = "a claimed comparison stays this daemon's for S seconds, renewed every S/3 "
                 "while it lives; a daemon that died loses its jobs to the others after at "
                 "most S."},
        {.name = "max-upload",
         .env = "PARITY_MAX_UPLOAD",
         .type = SRV_OPT_SIZE,
         CFG(max_upload),
         .min = 0,
         .max = 1LL << 50,
         .def = "2G",
         .metavar = "BYTES",
         .group = "limits",
         .help = "largest request body; larger uploads get 413."},
        {.name = "http-threads",
         .env = "PARITY_HTTP_THREADS",
         .type = SRV_OPT_INT,
         CFG(http_threads),
         .min = 1,
         .max = 256,
         .def = "4",
         .metavar = "N",
         .help = "HTTP event-loop threads."},
        {.name = "max-connections",
         .env = "PARITY_MAX_CONNECTIONS",
         .type = SRV_OPT_INT,
         CFG(max_connections),
         .min = 1,
         .max = 1000000,
         .def = "1000",
         .metavar = "N",
         .help = "open connections in total."},
        {.name = "max-per-ip",
         .env = "PARITY_MAX_PER_IP",
         .type = SRV_OPT_INT,
         CFG(max_per_ip),
         .min = 0,
         .max = 1000000,
         .metavar = "N",
         .check = check_max_per_ip,
         .help = "connections per client address (more are closed unanswered); default 64 "
                 "when listening beyond loopback, 0 (no limit) on loopback; set 0 when a "
                 "proxy or NAT hides client addresses."},
        {.name = "idle-timeout",
         .env = "PARITY_IDLE_TIMEOUT",
         .type = SRV_OPT_DURATION,
         CFG(idle_timeout_s),
         .min = 1,
         .max = 86400,
         .def = "60",
         .metavar = "S",
         .help = "close connections idle for S seconds."},
        {.name = "header-timeout",
         .env = "PARITY_HEADER_TIMEOUT",
         .type = SRV_OPT_DURATION,
         CFG(header_timeout_s),
         .min = 1,
         .max = 86400,
         .def = "30",
         .metavar = "S",
         .help = "a request's headers must be complete within S seconds of the connection "
                 "opening or of the previous response."},
        {.name = "request-timeout",
         .env = "PARITY_REQUEST_TIMEOUT",
         .type = SRV_OPT_DURATION,
         CFG(request_timeout_s),
         .min = 1,
         .max = 7 * 86400,
         .def = "3600",
         .metavar = "S",
         .help = "total time allowed to send a request body (slow clients are cut off)."},
        {.name = "min-upload-rate",
         .env = "PARITY_MIN_UPLOAD_RATE",
         .type = SRV_OPT_SIZE,
         CFG(min_upload_rate),
         .min = 0,
         .max = 1LL << 30,
         .def = "16K",
         .metavar = "BYTES",
         .help = "a request body slower than this (bytes per second) over a window is cut "
                 "off; 0 = no minimum."},
        {.name = "min-upload-window",
         .env = "PARITY_MIN_UPLOAD_WINDOW",
         .type = SRV_OPT_DURATION,
         CFG(min_upload_window_s),
         .min = 1,
         .max = 3600,
         .def = "30",
         .metavar = "S",
         .help = "the window of --min-upload-rate."},
        {.name = "max-ingests",
         .env = "PARITY_MAX_INGESTS",
         .type = SRV_OPT_INT,
         CFG(max_ingests),
         .min = 1,
         .max = 10000,
         .def = "4",
         .metavar = "N",
         .help = "uploads processed at once; one client (address, or token) holds at most "
                 "half of them (at least 1); more wait for a slot."},
        {.name = "ingest-wait",
         .env = "PARITY_INGEST_WAIT",
         .type = SRV_OPT_DURATION,
         CFG(ingest_wait_s),
         .min = 0,
         .max = 3600,
         .def = "30",
         .metavar = "S",
         .help = "an upload that finds no free slot waits up to S seconds for one (holding "
                 "no thread), then gets 503 with Retry-After; 0 = 503 at once."},
        {.name = "max-db-connections",
         .env = "PARITY_MAX_DB_CONNECTIONS",
         .type = SRV_OPT_INT,
         CFG(max_db_connections),
         .min = 1,
         .max = 10000,
         .def = "32",
         .metavar = "N",
         .help = "database connections open at once (requests, workers, webhook senders); a "
                 "request that finds none free within 300 ms gets 503 with Retry-After. "
                 "PostgreSQL: daemons x (N + 2) must stay below the server's "
                 "max_connections."},
        {.name = "webhook-retry-base-ms",
         .env = "PARITY_WEBHOOK_RETRY_BASE_MS",
         .type = SRV_OPT_DURATION,
         .flags = SRV_OPT_MS,
         CFG(webhook_retry_base_ms),
         .min = 1,
         .max = 3600000,
         .def = "1000",
         .metavar = "MS",
         .group = "webhooks",
         .help = "first webhook retry delay, doubled per attempt with jitter."},
        {.name = "webhook-max-attempts",
         .env = "PARITY_WEBHOOK_MAX_ATTEMPTS",
         .type = SRV_OPT_INT,
         CFG(webhook_max_attempts),
         .min = 1,
         .max = 100,
         .def = "8",
         .metavar = "N",
         .help = "attempts before a delivery fails."},
        {.name = "webhook-timeout-ms",
         .env = "PARITY_WEBHOOK_TIMEOUT_MS",
         .type = SRV_OPT_DURATION,
         .flags = SRV_OPT_MS,
         CFG(webhook_timeout_ms),
         .min = 100,
         .max = 600000,
         .def = "10000",
         .metavar = "MS",
         .help = "total time of one attempt."},
        {.name = "webhook-workers",
         .env = "PARITY_WEBHOOK_WORKERS",
         .type = SRV_OPT_INT,
         CFG(webhook_workers),
         .min = 1,
         .max = 64,
         .def = "2",
         .metavar = "N",
         .help = "webhook sender threads."},
        {.name = "webhook-allow-private",
         .env = "PARITY_WEBHOOK_ALLOW_PRIVATE",
         .type = SRV_OPT_BOOL,
         CFG(webhook_allow_private),
         .help = "let webhooks reach loopback, private, link-local, CGNAT, multicast and "
                 "cloud-metadata addresses (refused by default)."},
        {.name = "smtp-url",
         .env = "PARITY_SMTP_URL",
         .type = SRV_OPT_STRING,
         CFG(smtp_url),
         .metavar = "URL",
         .check = check_smtp_url,
         .group = "email",
         .help = "SMTP server for email subscriptions: smtp://host:port (STARTTLS when "
                 "offered; required with credentials) or smtps://host:port."},
        {.name = "mail-from",
         .env = "PARITY_MAIL_FROM",
         .type = SRV_OPT_STRING,
         CFG(mail_from),
         .metavar = "ADDR",
         .check = check_mail_from,
         .help = "envelope and From: address of emails (required with --smtp-url)."},
        {.name = "mail-attach-max",
         .env = "PARITY_MAIL_ATTACH_MAX",
         .type = SRV_OPT_SIZE,
         CFG(mail_attach_max),
         .min = 0,
         .max = 1LL << 30,
         .def = "5M",
         .metavar = "BYTES",
         .help = "attachments per email (CSV, raw logs; the PDF and charts always go) beyond "
                 "which files are linked instead."},
        {.name = "smtp-user",
         .env = "PARITY_SMTP_USER",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_ENV_ONLY | SRV_OPT_SECRET,
         CFG(smtp_user),
         .check = check_one_line,
         .help = "SMTP user name (never a flag, never logged)."},
        {.name = "smtp-password",
         .env = "PARITY_SMTP_PASSWORD",
         .type = SRV_OPT_STRING,
         .flags = SRV_OPT_ENV_ONLY | SRV_OPT_SECRET,
         CFG(smtp_password),
         .check = check_one_line,
         .help = "SMTP password (never a flag, never logged)."},
        {.name = NULL},
};

const struct srv_optcmd srv_serve_cmd = {
        .name = "serve",
        .synopsis = "usage: parity serve [options]\n",
        .about = "Run the parity HTTP daemon: ingest activation and training logs, run\n"
                 "comparisons as background jobs, serve the REST API and the HTML pages.\n"
                 "Each option is also settable as the environment variable in brackets;\n"
                 "a flag wins over the environment.\n",
        .opts = serve_opts,
        .epilog = "The daemon prints \"PORT=<n>\" on stdout once it accepts connections and\n"
                  "stops cleanly (exit 0) on SIGTERM or SIGINT.\n",
};

void srv_config_usage(FILE *out)
{
	srv_options_usage(&srv_serve_cmd, out);
}

/* 1 when host names a loopback address: localhost, 127.0.0.0/8, ::1. */
int srv_config_host_is_loopback(const char *host)
{
	if (!strcmp(host, "localhost") || !strcmp(host, "::1") || !strcmp(host, "[::1]"))
		return 1;
	unsigned a, b, c, d;
	char tail;
	if (sscanf(host, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) == 4)
		return a == 127 && b < 256 && c < 256 && d < 256;
	return 0;
}

int srv_config_load(struct srv_config *cfg, int argc, char **argv)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->max_line = 16u << 20;
	cfg->max_json_body = 8u << 20;
	cfg->max_override_bytes = 4u << 20;
	cfg->max_inflate_ratio = 100;
	struct srv_optres res = {0};
	int rc = srv_options_parse(&srv_serve_cmd, cfg, argc, argv, &res);
	if (rc == 0 && res.n_operands) {
		snprintf(res.err, sizeof res.err, "parity serve: unexpected argument '%s'",
		         res.operands[0]);
		rc = -1;
	}
	srv_options_free(&srv_serve_cmd, cfg, &res);
	if (rc == SRV_OPTS_HELP) {
		/* the common flags; --help-all: every flag */
		srv_options_usage_res(&srv_serve_cmd, &res, stdout);
		return 1;
	}
	if (rc < 0) {
		fprintf(stderr, "%s\nrun `parity serve --help` for the options\n", res.err);
		return -1;
	}
	if (cfg->smtp_url[0] && !cfg->mail_from[0]) {
		fprintf(stderr, "parity serve: --smtp-url needs --mail-from\n");
		return -1;
	}
	if (cfg->open_writes && cfg->require_tokens) {
		fprintf(stderr, "parity serve: --open-writes and --require-tokens contradict\n");
		return -1;
	}
	/* private reads with anonymous writes would make no sense: they imply
	 * tokens for writes too unless --open-writes says otherwise */
	cfg->writes_open = !cfg->require_tokens &&
	                   (cfg->open_writes ||
	                    (!cfg->private_reads && srv_config_host_is_loopback(cfg->listen_host)));
	/* Beyond loopback one client must not take every connection; on
	 * loopback (where a reverse proxy on the same host makes every client
	 * one address) there is no default limit. */
	if (!cfg->max_per_ip_set)
		cfg->max_per_ip =
		        srv_config_host_is_loopback(cfg->listen_host) ? 0 : SRV_DEFAULT_MAX_PER_IP;
	return 0;
}
