/* delivery.h - the delivery room of server/: webhook deliveries
 * (webhooks.c: queue, signed POSTs, retries), email subscriptions
 * (mail.c: MIME messages over SMTP) and the outbound address guard
 * (netguard.c).  Uses views (the documents it sends), ingest (raw logs
 * attached to mail), http and base. */
#ifndef PARITY_SRV_DELIVERY_H
#define PARITY_SRV_DELIVERY_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "buf.h"
#include "http.h"

struct srv;
struct srv_config;
struct store;
struct store_delivery;

/* The webhook senders' state (webhooks.c; storage in serve.c): they
 * sleep on cv until a delivery is due, one is queued (generation bumped)
 * or they are stopping. */
struct srv_hooks {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t generation;
	int stopping;
	pthread_t *threads;
	size_t n_threads;
};

/* webhooks.c: comparison.completed notifications: queueing deliveries when
 * a comparison ends, building their bodies, and the sender threads that
 * POST them with libcurl, retrying with exponential backoff.
 *
 * Durability: deliveries are rows written in the same transaction that
 * finishes the comparison; the senders claim them with a lease and record
 * every attempt, so a restart (or a crash) loses nothing and at worst
 * sends one delivery twice (receivers dedupe on X-Parity-Delivery).
 *
 * Formats:
 *  - generic: a JSON document (see srv_webhook_generic_payload) signed
 *    with X-Parity-Signature-256: sha256=<hex HMAC-SHA256(secret, body)>.
 *  - github-status: the body of GitHub's "create a commit status" call,
 *    POSTed to the hook URL with {sha} replaced by the candidate run's
 *    meta.commit and `Authorization: Bearer <token>`.
 *  - email: not POSTed; the payload is srv_mail_payload's small document
 *    and the sender builds a MIME message from the store and sends it
 *    through cfg.smtp_url (delivery.h).  SMTP 5xx is final, other SMTP and
 *    transport failures follow the retry policy below.
 * Retry policy: transport errors, timeouts, 429 and 5xx are retried after
 * base * 2^(n-1) ms (n = attempts so far, jitter +-25%, capped at one
 * hour; a longer Retry-After wins) up to cfg.webhook_max_attempts; any
 * other status is final (2xx delivered, else failed). */

/* A sender's claim of a delivery lasts --webhook-timeout-ms plus this, so
 * no other sender (or daemon) takes it within one attempt. */
#define SRV_WEBHOOK_LEASE_MARGIN_MS 30000

#define SRV_EVENT_COMPLETED       "comparison.completed"
#define SRV_EVENT_SUITE_COMPLETED "suite.completed"

/* Start cfg.webhook_workers sender threads after dropping leases left by
 * a previous process.  0, or -1 when no thread could start. */
int srv_webhooks_start(struct srv *s);
/* Stop and join the senders.  An attempt in flight is aborted and its
 * delivery left pending (not counted).  Call before the db pool goes. */
void srv_webhooks_stop(struct srv *s);
/* Deliveries were committed: wake a sender.  Cheap; safe from any thread. */
void srv_webhooks_notify(struct srv *s);

/* Queue one comparison.completed delivery per subscribed webhook for the
 * comparison (which must be done or failed), with its body, on db —
 * inside the caller's transaction so it commits with the result.  A
 * github-status hook that cannot be addressed (no valid meta.commit) gets
 * a delivery marked failed with the reason.  When the comparison is filed
 * in a suite and it was the suite's last queued or running one, also one
 * suite.completed delivery per hook subscribed to that event (generic:
 * {"event","delivery_id"} + the GET /suites/{suite} document + "url" of
 * its page; email: one message for the suite; github-status: failed); the count returned is of
 * comparison.completed.  Returns the number queued, or a negative STORE_* code (store_errmsg(db)
 * says why). */
int srv_webhooks_enqueue_completed(const struct srv_config *cfg, struct store *db,
                                   int64_t comparison_id);

/* The generic body (new reference): {"event","delivery_id","comparison_id",
 * "name","kind","status","verdict","policy","reasons","summary","error",
 * "urls":{"page","report","api"},"runs":{"baseline":{"id","name","kind",
 * "meta"},"candidate":{..}},"created_at","finished_at"}.  comparison is
 * srv_comparison_doc's document (borrowed).  URLs are absolute when
 * cfg.public_url is set, else relative. */
json_t *srv_webhook_generic_payload(const struct srv_config *cfg, json_t *comparison,
                                    const char *event, int64_t delivery_id);
/* GitHub commit-status body (new reference): {"state","description",
 * "target_url" (only when absolute),"context":"parity/<policy name>"}. */
json_t *srv_webhook_github_payload(const struct srv_config *cfg, json_t *comparison);
/* Copy url into out replacing every "{sha}" with sha.  0, or -1 when it
 * does not fit. */
int srv_webhook_url_subst(const char *url, const char *sha, char *out, size_t cap);
/* Whether a webhook may be created with this url under cfg: 0 yes
 * (always with cfg.webhook_allow_private; no lookup then), else
 * SRV_NETGUARD_REFUSED (the host resolves to an internal address) or
 * SRV_NETGUARD_UNRESOLVED (no usable host, or it does not resolve), with
 * why a one-line reason.  Blocks for the DNS lookup. */
int srv_webhook_url_allowed(const struct srv_config *cfg, const char *url, char *why,
                            size_t why_cap);
/* The url for a reader without a token: scheme, host and explicit port
 * kept; userinfo (user:password@) becomes "***@"; any path, query or
 * fragment becomes the one path segment "***" (so a Slack hook URL shows
 * as https://hooks.slack.com/ followed by "***").  "***" alone when url
 * does not parse. */
void srv_webhook_url_mask(const char *url, char *out, size_t cap);
/* An attempt's error text for a reader without a token: a refused
 * response ("HTTP 500: <start of its body>") loses the body ("HTTP 500"),
 * which may be an internal service's reply; other errors are kept. */
void srv_webhook_error_public(const char *err, char *out, size_t cap);
/* Delay before the next attempt after `attempts` failed ones (>= 1); rnd
 * is uniform random bits for the jitter. */
int64_t srv_webhook_backoff_ms(unsigned base_ms, int attempts, uint32_t rnd);
/* 1 when an attempt that ended with this HTTP status (0 = no response)
 * should be retried, 0 when it is final. */
int srv_webhook_retryable(long http_status);

/* netguard.c: which network addresses an outgoing webhook may reach.
 *
 * A webhook URL is given by whoever can write to the daemon; without a
 * guard it makes the daemon a proxy into the network it sits in (the
 * loopback daemon itself, a database on 10.x, the cloud metadata service
 * at 169.254.169.254).  Every address is classified here; everything but
 * SRV_ADDR_PUBLIC is refused unless the operator passed
 * --webhook-allow-private.  The check runs on resolved addresses: once
 * when a webhook is created (srv_netguard_host) and again on the address
 * libcurl is about to connect to (webhooks.c), so a name that resolves to
 * something else later (DNS rebinding) is still refused.
 *
 * Pure functions, no state: thread-safe. */

enum srv_addr_class {
	SRV_ADDR_PUBLIC = 0,  /* globally routable: allowed */
	SRV_ADDR_LOOPBACK,    /* 127.0.0.0/8, ::1 */
	SRV_ADDR_PRIVATE,     /* 10/8, 172.16/12, 192.168/16, fc00::/7, fec0::/10 */
	SRV_ADDR_CGNAT,       /* 100.64.0.0/10 (shared address space) */
	SRV_ADDR_LINK_LOCAL,  /* 169.254.0.0/16, fe80::/10 */
	SRV_ADDR_METADATA,    /* cloud metadata: 169.254.169.254, 169.254.170.2, fd00:ec2::254 */
	SRV_ADDR_UNSPECIFIED, /* 0.0.0.0/8, :: */
	SRV_ADDR_MULTICAST,   /* 224.0.0.0/4, ff00::/8 */
	SRV_ADDR_RESERVED,    /* 240/4, broadcast, 192.0.0/24, 198.18/15, ::/96, 100::/64 */
	SRV_ADDR_NOT_INET     /* not an IPv4 or IPv6 socket address */
};

/* Class of an IPv4 or IPv6 socket address (len bytes at sa).  IPv6 forms
 * that carry an IPv4 address (::ffff:a.b.c.d mapped, 64:ff9b::/96 NAT64,
 * 2002::/16 6to4) are classified by the IPv4 address inside. */
enum srv_addr_class srv_addr_classify(const struct sockaddr *sa, size_t len);

/* Class of a numeric address in text ("10.0.0.1", "::ffff:127.0.0.1",
 * "fe80::1"; no brackets, no zone).  0 with *out set, -1 when the text is
 * not a numeric IPv4 or IPv6 address.  Never resolves a name. */
int srv_addr_classify_text(const char *text, enum srv_addr_class *out);

/* "public", "loopback", "private", "carrier-grade NAT", "link-local",
 * "cloud metadata", "unspecified", "multicast", "reserved", "not IP". */
const char *srv_addr_class_name(enum srv_addr_class c);

/* Outcome of srv_netguard_host. */
enum srv_netguard {
	SRV_NETGUARD_OK = 0,    /* every address the name resolves to is public */
	SRV_NETGUARD_REFUSED,   /* one of them is not (why names it) */
	SRV_NETGUARD_UNRESOLVED /* the name does not resolve (why says so) */
};

/* Resolve host (a name or a numeric address; IPv6 without brackets) with
 * getaddrinfo and classify every address; a single internal address is
 * enough to refuse.  why gets a one-line reason ("127.0.0.1 is a loopback
 * address").  Blocks for the duration of the lookup. */
enum srv_netguard srv_netguard_host(const char *host, char *why, size_t why_cap);

/* mail.c: email subscriptions: webhooks of format "email" are sent as
 * MIME messages through the daemon's SMTP server (--smtp-url, libcurl's
 * SMTP; credentials from PARITY_SMTP_USER / PARITY_SMTP_PASSWORD only).
 *
 * They share the webhook delivery queue (webhooks.c): a delivery's
 * payload is a small JSON document ({"event","delivery_id",
 * "comparison_id","suite","to","message_id"}) written when the comparison
 * finishes; the sender builds the message from the store when it claims
 * the delivery, so retries send the current pages with the same
 * Message-ID.  An SMTP failure is a failed attempt with libcurl's error
 * recorded; 5xx replies are final, the rest retried like HTTP.
 *
 * The message (srv_mail_build): multipart/mixed holding a
 * multipart/related (the HTML body, its charts as cid: images) and the
 * attachments: report.pdf (always), the CSV (per-step for training, rows
 * for activation) and the runs' raw logs while they fit in
 * cfg.mail_attach_max bytes, else linked.  Bodies are base64 in 76-column
 * lines; header text from users (run names, suite labels) is sanitised
 * and RFC 2047 encoded, so it can never add or break a header line.
 *
 * Primitives live in mail_mime.c, composition in mail.c. */

/* ---- messages (mail.c) ------------------------------------------------- */

/* The payload of an email delivery (malloc'd JSON text, NULL on OOM):
 * event, delivery id, the comparison, the suite (NULL for a comparison
 * event), the recipients (the webhook's JSON array text) and a
 * Message-ID made from the delivery id, now_ms and cfg.mail_from's
 * domain. */
char *srv_mail_payload(const struct srv_config *cfg, const char *event, int64_t delivery_id,
                       int64_t comparison_id, const char *suite, const char *recipients_json,
                       int64_t now_ms);
/* The whole message for a claimed email delivery into msg (appended), its
 * envelope recipients into *rcpt (malloc'd array of malloc'd strings, *n;
 * free with srv_mail_rcpt_free).  Reads the comparison or suite through db
 * and more pool connections of s (CSV pages), raw logs from the data
 * directory.  0; 1 when it can never be sent (the comparison is gone, the
 * payload is broken: err says why); -1 on a transient error (err). */
int srv_mail_build(struct srv *s, struct store *db, const struct store_delivery *d, struct buf *msg,
                   char ***rcpt, size_t *n_rcpt, char *err, size_t errcap);
void srv_mail_rcpt_free(char **rcpt, size_t n);

#endif
