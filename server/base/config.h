/* config.h - daemon configuration: defaults, PARITY_* environment
 * variables, then command-line flags (later wins).  Read-only once the
 * daemon starts; every thread reads it freely. */
#ifndef PARITY_CONFIG_H
#define PARITY_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Connections per client address when listening beyond loopback and
 * --max-per-ip is not given. */
#define SRV_DEFAULT_MAX_PER_IP 64

struct srv_config {
	char listen_host[256];      /* "127.0.0.1" */
	unsigned listen_port;       /* 8080; 0 = pick a free port (tests) */
	char data_dir[4096];        /* "./parity-data" */
	char db_url[4096];          /* --db postgresql://... ("" = SQLite in data_dir) */
	uint64_t max_upload;        /* bytes per request body, default 2 GiB */
	unsigned workers;           /* comparison worker threads, default 2 */
	unsigned http_threads;      /* libmicrohttpd thread pool, default 4 */
	size_t max_line;            /* longest accepted log line, default 16 MiB */
	size_t max_json_body;       /* JSON / form bodies, default 8 MiB */
	size_t max_override_bytes;  /* override file text, default 4 MiB */
	uint64_t max_inflate_ratio; /* gzip bomb guard, default 100 */
	char port_file[4096];       /* write the bound port here once listening ("" = no) */
	char public_url[1024];      /* absolute base for links; "" = relative links */
	/* authentication (server/http/auth.c) */
	int open_writes;    /* --open-writes given: writes need no token */
	int require_tokens; /* --require-tokens: writes need one even on loopback */
	int private_reads;  /* --private-reads: reads need a token too */
	int writes_open;    /* derived: open_writes, or listening on loopback */
	/* Host names accepted besides loopback, the listen address and
	 * --public-url's (server/http/csrf.c): "a,b"; "*" = any */
	char allowed_hosts[1024];
	/* webhook deliveries (server/delivery/webhooks.c) */
	unsigned webhook_retry_base_ms; /* first retry delay, default 1000 */
	unsigned webhook_max_attempts;  /* attempts before giving up, default 8 */
	unsigned webhook_timeout_ms;    /* total time per attempt, default 10000 */
	unsigned webhook_workers;       /* sender threads, default 2 */
	int webhook_allow_private;      /* reach internal addresses (server/delivery/delivery.h) */
	/* email subscriptions (server/delivery/mail.c): sent through one SMTP server */
	char smtp_url[1024];      /* smtp://host:port or smtps://...; "" = no email */
	char mail_from[320];      /* envelope and From: address; required with smtp_url */
	uint64_t mail_attach_max; /* attachment bytes per message, default 5 MiB */
	char smtp_user[256];      /* PARITY_SMTP_USER only (never a flag, never logged) */
	char smtp_password[256];  /* PARITY_SMTP_PASSWORD only */
	/* limits and logging (server/http/http.c, serve.c) */
	unsigned max_connections;     /* open connections in total, default 1000 */
	unsigned max_per_ip;          /* per client address, 0 = off; default
	                               * SRV_DEFAULT_MAX_PER_IP beyond loopback, 0 on it */
	int max_per_ip_set;           /* given by flag or environment */
	unsigned idle_timeout_s;      /* close a connection idle this long, default 60 */
	unsigned header_timeout_s;    /* headers complete within this, default 30 */
	unsigned request_timeout_s;   /* total time to receive a request body, default 3600 */
	uint64_t min_upload_rate;     /* body bytes/s over a window, default 16 KiB; 0 = off */
	unsigned min_upload_window_s; /* that window, default 30 */
	unsigned max_ingests;         /* uploads at once, default 4 (server/http/slots.c) */
	unsigned ingest_wait_s;       /* an upload waits this long for a slot, default 30 */
	char log_file[4096];          /* append logs here ("" = stderr); SIGHUP reopens */
	/* the database pool (server/http/dbpool.c): SQLite connections open at
	 * once, default 32; past it requests wait briefly, then get 503 */
	unsigned max_db_connections;
	/* PostgreSQL: lease of a claimed comparison in seconds (3..86400,
	 * default 60), renewed every third of it (serve.c) */
	unsigned job_lease_s;
};

/* Fill defaults, apply the PARITY_* environment variables, then flags from
 * argv (argv[0] is the subcommand name), all described once in the table
 * srv_serve_cmd (config.c; the SMTP credentials PARITY_SMTP_USER and
 * PARITY_SMTP_PASSWORD are environment only), then derive writes_open
 * and, unless given, max_per_ip from the listen address.
 * Returns 0, 1 when --help was printed, or -1 with a message on stderr. */
int srv_config_load(struct srv_config *cfg, int argc, char **argv);

/* Parse "host:port" / ":port" / "port" into cfg; 0 or -1. */
int srv_config_parse_listen(struct srv_config *cfg, const char *s);

/* Parse a byte size: "1024", "64K", "512M", "2G" (binary units).  0 or -1. */
int srv_config_parse_bytes(const char *s, uint64_t *out);

void srv_config_usage(FILE *out);

/* The option table of `parity serve` (options.h): --help and the
 * reference (server/OPTIONS.md) come from it. */
struct srv_optcmd;
extern const struct srv_optcmd srv_serve_cmd;

/* 1 when host is loopback (localhost, 127.0.0.0/8, ::1), else 0.  Writes
 * are open by default only there. */
int srv_config_host_is_loopback(const char *host);

#endif
