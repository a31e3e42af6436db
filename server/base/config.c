/* config.c - `parity serve` options: defaults < environment < flags. */
#include "base.h"
#include "store.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void srv_config_usage(FILE *out)
{
	fputs("usage: parity serve [options]\n"
	      "\n"
	      "Run the parity HTTP daemon: ingest activation and training logs, run\n"
	      "comparisons as background jobs, serve the REST API and the HTML pages.\n"
	      "\n"
	      "options (each also settable as an environment variable):\n"
	      "  --listen HOST:PORT   address to listen on           [PARITY_LISTEN]\n"
	      "                       default 127.0.0.1:8080; port 0 picks a free port\n"
	      "  --data DIR           state directory: parity.db + raw uploads\n"
	      "                       default ./parity-data            [PARITY_DATA]\n"
	      "  --db URL             postgresql://user@host/dbname: keep the state in\n"
	      "                       PostgreSQL instead; several daemons may share one\n"
	      "                       database (the database must exist: UTF8, C locale;\n"
	      "                       --data then only holds temporary files) [PARITY_DB]\n"
	      "  --job-lease S        PostgreSQL: a claimed comparison stays this daemon's\n"
	      "                       for S seconds, renewed every S/3 while it lives; a\n"
	      "                       daemon that died loses its jobs to the others after\n"
	      "                       at most S, default 60               [PARITY_JOB_LEASE]\n"
	      "  --max-upload BYTES   largest request body; K/M/G suffixes allowed\n"
	      "                       default 2G; larger uploads get 413 [PARITY_MAX_UPLOAD]\n"
	      "  --workers N          comparison worker threads, default 2 [PARITY_WORKERS]\n"
	      "  --http-threads N     HTTP event-loop threads, default 4 [PARITY_HTTP_THREADS]\n"
	      "  --port-file FILE     write the bound port number to FILE once listening\n"
	      "                                                        [PARITY_PORT_FILE]\n"
	      "  --public-url URL     absolute base URL used in links  [PARITY_PUBLIC_URL]\n"
	      "  --open-writes        accept writes without a token even when listening\n"
	      "                       beyond loopback                  [PARITY_OPEN_WRITES=1]\n"
	      "                       (writes are open by default only on 127.0.0.0/8, ::1)\n"
	      "  --require-tokens     writes need a token even on loopback (use it behind a\n"
	      "                       reverse proxy on the same host) [PARITY_REQUIRE_TOKENS=1]\n"
	      "  --private-reads      reads need a token too (and so do writes, unless\n"
	      "                       --open-writes)                   [PARITY_PRIVATE_READS=1]\n"
	      "  --webhook-retry-base-ms MS  first webhook retry delay, doubled per attempt\n"
	      "                       with jitter; default 1000   [PARITY_WEBHOOK_RETRY_BASE_MS]\n"
	      "  --webhook-max-attempts N  attempts before a delivery fails, default 8\n"
	      "                                                [PARITY_WEBHOOK_MAX_ATTEMPTS]\n"
	      "  --webhook-timeout-ms MS  total time of one attempt, default 10000\n"
	      "                                                [PARITY_WEBHOOK_TIMEOUT_MS]\n"
	      "  --webhook-workers N  webhook sender threads, default 2 [PARITY_WEBHOOK_WORKERS]\n"
	      "  --webhook-allow-private  let webhooks reach loopback, private, link-local,\n"
	      "                       CGNAT, multicast and cloud-metadata addresses (refused\n"
	      "                       by default)             [PARITY_WEBHOOK_ALLOW_PRIVATE=1]\n"
	      "  --smtp-url URL       SMTP server for email subscriptions: smtp://host:port\n"
	      "                       (STARTTLS when offered; required with credentials) or\n"
	      "                       smtps://host:port; credentials come from\n"
	      "                       PARITY_SMTP_USER / PARITY_SMTP_PASSWORD only\n"
	      "                                                        [PARITY_SMTP_URL]\n"
	      "  --mail-from ADDR     envelope and From: address of emails (required with\n"
	      "                       --smtp-url)                      [PARITY_MAIL_FROM]\n"
	      "  --mail-attach-max BYTES  attachments per email (CSV, raw logs; the PDF and\n"
	      "                       charts always go) beyond which files are linked\n"
	      "                       instead, default 5M         [PARITY_MAIL_ATTACH_MAX]\n"
	      "  --max-connections N  open connections in total, default 1000\n"
	      "                                                [PARITY_MAX_CONNECTIONS]\n"
	      "  --max-per-ip N       connections per client address (more are closed\n"
	      "                       unanswered); default 64 when listening beyond\n"
	      "                       loopback, 0 (no limit) on loopback; set 0 when a\n"
	      "                       proxy or NAT hides client addresses [PARITY_MAX_PER_IP]\n"
	      "  --idle-timeout S     close connections idle for S seconds, default 60\n"
	      "                                                [PARITY_IDLE_TIMEOUT]\n"
	      "  --header-timeout S   a request's headers must be complete within S seconds\n"
	      "                       of the connection opening or of the previous\n"
	      "                       response, default 30          [PARITY_HEADER_TIMEOUT]\n"
	      "  --request-timeout S  total time allowed to send a request body, default 3600\n"
	      "                       (slow clients are cut off)  [PARITY_REQUEST_TIMEOUT]\n"
	      "  --min-upload-rate BYTES  a request body slower than this (bytes per second,\n"
	      "                       K/M suffixes) over a window is cut off, default 16K;\n"
	      "                       0 = no minimum              [PARITY_MIN_UPLOAD_RATE]\n"
	      "  --min-upload-window S  the window of --min-upload-rate, default 30\n"
	      "                                                [PARITY_MIN_UPLOAD_WINDOW]\n"
	      "  --max-ingests N      uploads processed at once; more get 503 with\n"
	      "                       Retry-After, default 4          [PARITY_MAX_INGESTS]\n"
	      "  --max-db-connections N  database connections open at once (requests, workers,\n"
	      "                       webhook senders); a request that finds none free\n"
	      "                       within 300 ms gets 503 with Retry-After, default 32\n"
	      "                                                [PARITY_MAX_DB_CONNECTIONS]\n"
	      "                       PostgreSQL: daemons x (N + 2) must stay below the\n"
	      "                       server's max_connections\n"
	      "  --log-file FILE      append logs (one JSON line per request) to FILE\n"
	      "                       instead of stderr; SIGHUP reopens it [PARITY_LOG_FILE]\n"
	      "  -h, --help           this text\n"
	      "\n"
	      "The daemon prints \"PORT=<n>\" on stdout once it accepts connections and\n"
	      "stops cleanly (exit 0) on SIGTERM or SIGINT.\n",
	      out);
}

int srv_config_parse_bytes(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (end == s || errno || s[0] == '-')
		return -1;
	unsigned long long mul = 1;
	switch (toupper((unsigned char)*end)) {
	case 0: break;
	case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	case 'T':
		mul = 1ULL << 40;
		end++;
		break;
	default: return -1;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
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

/* Flags given on the command line carry no value ("1"); environment
 * variables say 1/0, true/false, yes/no. */
static int parse_bool(const char *s, int *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes"))
		*out = 1;
	else if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	if (n >= cap)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

/* Apply one setting by name; shared by env and flags so both validate the
 * same way.  Returns 0 or -1 (message printed). */
static int apply(struct srv_config *cfg, const char *name, const char *val)
{
	int rc = 0;
	uint64_t bytes;
	if (!strcmp(name, "listen"))
		rc = srv_config_parse_listen(cfg, val);
	else if (!strcmp(name, "data"))
		rc = copy_str(cfg->data_dir, sizeof cfg->data_dir, val);
	else if (!strcmp(name, "db")) {
		/* the value may hold a password: never echo it */
		if (!store_is_url(val)) {
			fprintf(stderr, "parity serve: --db takes a postgresql:// URL (the SQLite "
			                "store is chosen with --data DIR)\n");
			return -1;
		}
		if (copy_str(cfg->db_url, sizeof cfg->db_url, val) < 0) {
			fprintf(stderr, "parity serve: --db URL is too long\n");
			return -1;
		}
	} else if (!strcmp(name, "max-upload")) {
		rc = srv_config_parse_bytes(val, &bytes);
		if (rc == 0)
			cfg->max_upload = bytes;
	} else if (!strcmp(name, "workers"))
		rc = parse_uint(val, 1, 256, &cfg->workers);
	else if (!strcmp(name, "http-threads"))
		rc = parse_uint(val, 1, 256, &cfg->http_threads);
	else if (!strcmp(name, "port-file"))
		rc = copy_str(cfg->port_file, sizeof cfg->port_file, val);
	else if (!strcmp(name, "public-url")) {
		rc = copy_str(cfg->public_url, sizeof cfg->public_url, val);
		size_t n = strlen(cfg->public_url);
		while (n && cfg->public_url[n - 1] == '/')
			cfg->public_url[--n] = 0;
	} else if (!strcmp(name, "open-writes"))
		rc = parse_bool(val, &cfg->open_writes);
	else if (!strcmp(name, "require-tokens"))
		rc = parse_bool(val, &cfg->require_tokens);
	else if (!strcmp(name, "private-reads"))
		rc = parse_bool(val, &cfg->private_reads);
	else if (!strcmp(name, "webhook-retry-base-ms"))
		rc = parse_uint(val, 1, 3600000, &cfg->webhook_retry_base_ms);
	else if (!strcmp(name, "webhook-max-attempts"))
		rc = parse_uint(val, 1, 100, &cfg->webhook_max_attempts);
	else if (!strcmp(name, "webhook-timeout-ms"))
		rc = parse_uint(val, 100, 600000, &cfg->webhook_timeout_ms);
	else if (!strcmp(name, "max-connections"))
		rc = parse_uint(val, 1, 1000000, &cfg->max_connections);
	else if (!strcmp(name, "max-per-ip")) {
		rc = parse_uint(val, 0, 1000000, &cfg->max_per_ip);
		cfg->max_per_ip_set = rc == 0;
	} else if (!strcmp(name, "header-timeout"))
		rc = parse_uint(val, 1, 86400, &cfg->header_timeout_s);
	else if (!strcmp(name, "min-upload-rate")) {
		rc = srv_config_parse_bytes(val, &bytes);
		if (rc == 0 && bytes > (1ULL << 30))
			rc = -1;
		if (rc == 0)
			cfg->min_upload_rate = bytes;
	} else if (!strcmp(name, "min-upload-window"))
		rc = parse_uint(val, 1, 3600, &cfg->min_upload_window_s);
	else if (!strcmp(name, "idle-timeout"))
		rc = parse_uint(val, 1, 86400, &cfg->idle_timeout_s);
	else if (!strcmp(name, "request-timeout"))
		rc = parse_uint(val, 1, 7 * 86400, &cfg->request_timeout_s);
	else if (!strcmp(name, "max-ingests"))
		rc = parse_uint(val, 1, 10000, &cfg->max_ingests);
	else if (!strcmp(name, "job-lease"))
		rc = parse_uint(val, 3, 86400, &cfg->job_lease_s);
	else if (!strcmp(name, "max-db-connections"))
		rc = parse_uint(val, 1, 10000, &cfg->max_db_connections);
	else if (!strcmp(name, "log-file"))
		rc = copy_str(cfg->log_file, sizeof cfg->log_file, val);
	else if (!strcmp(name, "webhook-workers"))
		rc = parse_uint(val, 1, 64, &cfg->webhook_workers);
	else if (!strcmp(name, "webhook-allow-private"))
		rc = parse_bool(val, &cfg->webhook_allow_private);
	else if (!strcmp(name, "smtp-url")) {
		rc = copy_str(cfg->smtp_url, sizeof cfg->smtp_url, val);
		if (rc == 0 && strncasecmp(val, "smtp://", 7) && strncasecmp(val, "smtps://", 8))
			rc = -1;
		/* no user:password@ (credentials come from the environment) */
		for (const char *p = val; rc == 0 && *p; p++)
			if ((unsigned char)*p <= 0x20 || *p == 0x7f || *p == '@')
				rc = -1;
	} else if (!strcmp(name, "mail-from")) {
		rc = copy_str(cfg->mail_from, sizeof cfg->mail_from, val);
		if (rc == 0 && !srv_mail_addr_valid(val))
			rc = -1;
	} else if (!strcmp(name, "mail-attach-max")) {
		rc = srv_config_parse_bytes(val, &bytes);
		if (rc == 0 && bytes > (1ULL << 30))
			rc = -1;
		if (rc == 0)
			cfg->mail_attach_max = bytes;
	}
	if (rc < 0)
		fprintf(stderr, "parity serve: invalid --%s value '%s'\n", name, val);
	return rc;
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
	strcpy(cfg->listen_host, "127.0.0.1");
	cfg->listen_port = 8080;
	strcpy(cfg->data_dir, "./parity-data");
	cfg->max_upload = 2ULL << 30;
	cfg->workers = 2;
	cfg->http_threads = 4;
	cfg->max_line = 16u << 20;
	cfg->max_json_body = 8u << 20;
	cfg->max_override_bytes = 4u << 20;
	cfg->max_inflate_ratio = 100;
	cfg->webhook_retry_base_ms = 1000;
	cfg->webhook_max_attempts = 8;
	cfg->webhook_timeout_ms = 10000;
	cfg->webhook_workers = 2;
	cfg->max_connections = 1000;
	cfg->max_per_ip = 0; /* resolved from the listen address below */
	cfg->idle_timeout_s = 60;
	cfg->header_timeout_s = 30;
	cfg->request_timeout_s = 3600;
	cfg->min_upload_rate = 16u << 10;
	cfg->min_upload_window_s = 30;
	cfg->max_ingests = 4;
	cfg->max_db_connections = 32;
	cfg->job_lease_s = 60;
	cfg->mail_attach_max = 5u << 20;

	static const struct {
		const char *env, *name;
	} envs[] = {
	        {"PARITY_LISTEN", "listen"},
	        {"PARITY_DATA", "data"},
	        {"PARITY_DB", "db"},
	        {"PARITY_MAX_UPLOAD", "max-upload"},
	        {"PARITY_WORKERS", "workers"},
	        {"PARITY_HTTP_THREADS", "http-threads"},
	        {"PARITY_PORT_FILE", "port-file"},
	        {"PARITY_PUBLIC_URL", "public-url"},
	        {"PARITY_OPEN_WRITES", "open-writes"},
	        {"PARITY_PRIVATE_READS", "private-reads"},
	        {"PARITY_REQUIRE_TOKENS", "require-tokens"},
	        {"PARITY_WEBHOOK_RETRY_BASE_MS", "webhook-retry-base-ms"},
	        {"PARITY_WEBHOOK_MAX_ATTEMPTS", "webhook-max-attempts"},
	        {"PARITY_WEBHOOK_TIMEOUT_MS", "webhook-timeout-ms"},
	        {"PARITY_WEBHOOK_WORKERS", "webhook-workers"},
	        {"PARITY_WEBHOOK_ALLOW_PRIVATE", "webhook-allow-private"},
	        {"PARITY_MAX_CONNECTIONS", "max-connections"},
	        {"PARITY_MAX_PER_IP", "max-per-ip"},
	        {"PARITY_IDLE_TIMEOUT", "idle-timeout"},
	        {"PARITY_HEADER_TIMEOUT", "header-timeout"},
	        {"PARITY_REQUEST_TIMEOUT", "request-timeout"},
	        {"PARITY_MIN_UPLOAD_RATE", "min-upload-rate"},
	        {"PARITY_MIN_UPLOAD_WINDOW", "min-upload-window"},
	        {"PARITY_MAX_INGESTS", "max-ingests"},
	        {"PARITY_MAX_DB_CONNECTIONS", "max-db-connections"},
	        {"PARITY_JOB_LEASE", "job-lease"},
	        {"PARITY_LOG_FILE", "log-file"},
	        {"PARITY_SMTP_URL", "smtp-url"},
	        {"PARITY_MAIL_FROM", "mail-from"},
	        {"PARITY_MAIL_ATTACH_MAX", "mail-attach-max"},
	};
	for (size_t i = 0; i < sizeof envs / sizeof envs[0]; i++) {
		const char *v = getenv(envs[i].env);
		if (v && *v && apply(cfg, envs[i].name, v) < 0)
			return -1;
	}

	static const struct option opts[] = {
	        {"listen", required_argument, NULL, 'l'},
	        {"data", required_argument, NULL, 'd'},
	        {"db", required_argument, NULL, 'b'},
	        {"max-upload", required_argument, NULL, 'm'},
	        {"workers", required_argument, NULL, 'w'},
	        {"http-threads", required_argument, NULL, 't'},
	        {"port-file", required_argument, NULL, 'p'},
	        {"public-url", required_argument, NULL, 'u'},
	        {"open-writes", no_argument, NULL, 'O'},
	        {"private-reads", no_argument, NULL, 'R'},
	        {"require-tokens", no_argument, NULL, 'Q'},
	        {"webhook-retry-base-ms", required_argument, NULL, 'B'},
	        {"webhook-max-attempts", required_argument, NULL, 'A'},
	        {"webhook-timeout-ms", required_argument, NULL, 'T'},
	        {"webhook-workers", required_argument, NULL, 'W'},
	        {"webhook-allow-private", no_argument, NULL, 'P'},
	        {"max-connections", required_argument, NULL, 'C'},
	        {"max-per-ip", required_argument, NULL, 'I'},
	        {"idle-timeout", required_argument, NULL, 'i'},
	        {"header-timeout", required_argument, NULL, 'H'},
	        {"request-timeout", required_argument, NULL, 'r'},
	        {"min-upload-rate", required_argument, NULL, 'M'},
	        {"min-upload-window", required_argument, NULL, 'N'},
	        {"max-ingests", required_argument, NULL, 'g'},
	        {"max-db-connections", required_argument, NULL, 'D'},
	        {"job-lease", required_argument, NULL, 'J'},
	        {"log-file", required_argument, NULL, 'L'},
	        {"smtp-url", required_argument, NULL, 'S'},
	        {"mail-from", required_argument, NULL, 'F'},
	        {"mail-attach-max", required_argument, NULL, 'X'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 1;
	int c, idx;
	while ((c = getopt_long(argc, argv, "h", opts, &idx)) != -1) {
		if (c == 'h') {
			srv_config_usage(stdout);
			return 1;
		}
		if (c == '?') {
			srv_config_usage(stderr);
			return -1;
		}
		const char *name = NULL;
		for (const struct option *o = opts; o->name; o++)
			if (o->val == c)
				name = o->name;
		if (apply(cfg, name, optarg ? optarg : "1") < 0)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "parity serve: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	/* SMTP credentials: environment only, so they never show in ps or a
	 * unit file's command line; never logged */
	const struct {
		const char *env;
		char *dst;
		size_t cap;
	} secrets[] = {
	        {"PARITY_SMTP_USER", cfg->smtp_user, sizeof cfg->smtp_user},
	        {"PARITY_SMTP_PASSWORD", cfg->smtp_password, sizeof cfg->smtp_password},
	};
	for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
		const char *v = getenv(secrets[i].env);
		if (v && *v &&
		    (copy_str(secrets[i].dst, secrets[i].cap, v) < 0 || strpbrk(v, "\r\n"))) {
			fprintf(stderr, "parity serve: %s is too long or not one line\n",
			        secrets[i].env);
			return -1;
		}
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
