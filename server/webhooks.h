/* webhooks.h - comparison.completed notifications: queueing deliveries when
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
 *    through cfg.smtp_url (mail.h).  SMTP 5xx is final, other SMTP and
 *    transport failures follow the retry policy below.
 * Retry policy: transport errors, timeouts, 429 and 5xx are retried after
 * base * 2^(n-1) ms (n = attempts so far, jitter +-25%, capped at one
 * hour; a longer Retry-After wins) up to cfg.webhook_max_attempts; any
 * other status is final (2xx delivered, else failed). */
#ifndef PARITY_WEBHOOKS_H
#define PARITY_WEBHOOKS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "netguard.h"

struct srv;
struct srv_config;
struct store;

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

#endif
