/* store_webhooks.h - part of store.h, which includes it (include store.h,
 * never this file alone): webhooks and their deliveries
 * (store/webhooks.c). */
#ifndef PARITY_STORE_WEBHOOKS_H
#define PARITY_STORE_WEBHOOKS_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

/* ---- webhooks and deliveries (store/webhooks.c) ------------------------- */

/* New webhook.  url non-empty (validated by the server; "mailto:..." for
 * email), secret NULL or "" = unsigned, events_json the text of a JSON
 * array of event names, format "generic"|"github-status"|"email"
 * (STORE_INVALID), token NULL or the bearer token sent with github-status
 * posts, recipients_json the text of a JSON array of addresses for email
 * (required there, NULL for the others: STORE_INVALID).  Secrets are
 * stored as given. */
int store_webhook_create(struct store *st, const char *url, const char *secret,
                         const char *events_json, const char *format, const char *token,
                         const char *recipients_json, int64_t *id);
/* The public view of a webhook, never its secret or token; strings in
 * the arena of the view or page that holds it. */
struct store_webhook_public {
	int64_t id;
	const char *url;
	const char **events; /* the subscribed event names */
	size_t n_events;
	char format[16]; /* "generic" | "github-status" | "email" */
	int has_secret, has_token;
	const char *created_at;
	const char **to; /* email recipients (n_to; 0 for the other formats) */
	size_t n_to;
};
struct store_webhook_view {
	struct store_webhook_public hook;
	struct arena arena;
};
void store_webhook_view_free(struct store_webhook_view *v);
/* One webhook into *out (zeroed first; free it whatever the result).
 * STORE_NOT_FOUND when missing. */
int store_webhook_get(struct store *st, int64_t id, struct store_webhook_view *out);
/* A page of webhooks, oldest first (a list like the others: limit,
 * cursor; the byte budget counts the text plus 256 bytes a webhook). */
struct store_webhook_page {
	struct store_webhook_public *hooks;
	size_t n_hooks;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_webhook_page_free(struct store_webhook_page *p);
int store_webhooks_list(struct store *st, int limit, const char *cursor,
                        struct store_webhook_page *out);
/* Delete a webhook with its deliveries and attempts.  STORE_NOT_FOUND. */
int store_webhook_delete(struct store *st, int64_t id);

/* A webhook with its secrets, for queueing deliveries (strings malloc'd). */
struct store_webhook {
	int64_t id;
	char *url;
	char *secret; /* "" when unsigned */
	char format[16];
	char *token;      /* NULL when none */
	char *recipients; /* email: JSON array text of addresses; else NULL */
};
/* Webhooks subscribed to event: *out malloc'd array of *n (may be 0);
 * free with store_webhooks_free. */
int store_webhooks_for_event(struct store *st, const char *event, struct store_webhook **out,
                             size_t *n);
void store_webhooks_free(struct store_webhook *v, size_t n);

/* Queue a delivery (status pending, due at due_ms epoch milliseconds) with
 * an empty url and body; set them with store_delivery_set_body in the same
 * transaction (the body quotes the delivery id).  STORE_NOT_FOUND when the
 * webhook is gone. */
int store_delivery_create(struct store *st, int64_t webhook_id, int64_t comparison_id,
                          const char *event, int64_t due_ms, int64_t *id);
int store_delivery_set_body(struct store *st, int64_t id, const char *url, const char *payload);
/* Mark a delivery failed without an attempt (it cannot be sent at all,
 * e.g. a github-status hook for a run without meta.commit). */
int store_delivery_give_up(struct store *st, int64_t id, const char *error);

/* A claimed delivery with what a sender needs (strings malloc'd; free with
 * store_delivery_free). */
struct store_delivery {
	int64_t id, webhook_id, comparison_id;
	int attempts; /* attempts made before this one */
	char event[64];
	char format[16];
	char *url;
	char *payload;
	char *secret; /* "" = unsigned */
	char *token;  /* NULL = none */
};
/* Claim the most overdue pending delivery (next_attempt_at <= now_ms, no
 * live lease) with a lease until now_ms + lease_ms.  0, or STORE_NOT_FOUND
 * when nothing is due.  Safe across threads and connections.
 * PostgreSQL with an owner name (store_set_job_owner, the daemon): the
 * claim is the engine's lease claim (store/pg/deliveries.c: server clock instead of now_ms,
 * SKIP LOCKED, claimed_by), and record / release below are owner-checked:
 * an owner whose claim was taken over writes nothing (STORE_NOT_FOUND;
 * release: 0). */
int store_delivery_claim(struct store *st, int64_t now_ms, int64_t lease_ms,
                         struct store_delivery *out);
void store_delivery_free(struct store_delivery *d);
/* Earliest time (epoch ms) a pending delivery may be claimed, counting
 * leases.  STORE_NOT_FOUND when nothing is pending. */
int store_delivery_next_due(struct store *st, int64_t *due_ms);
/* Record one attempt and its outcome in one transaction: http_status <= 0
 * = no response, error NULL on success, outcome "delivered" | "failed"
 * (final) | "pending" (retry at next_attempt_ms).  Clears the lease and
 * counts the attempt.  STORE_NOT_FOUND when the delivery was deleted with
 * its webhook meanwhile. */
int store_delivery_record(struct store *st, int64_t id, int http_status, const char *error,
                          int64_t duration_ms, const char *outcome, int64_t next_attempt_ms);
/* Drop the lease without counting an attempt (sender stopping). */
int store_delivery_release(struct store *st, int64_t id);
/* Start-up: drop every lease (a single daemon owns the file); *n may be
 * NULL.  PostgreSQL with an owner name: only that owner's claims (other
 * daemons' are live; a restarted daemon has a new name, its old claims
 * expire), which is what a clean shutdown calls. */
int store_deliveries_release_all(struct store *st, int *n);
/* Deliveries of a webhook read back, with their attempts; strings in the
 * page's arena until store_delivery_page_free (NULL where empty). */
struct store_attempt_info {
	const char *at;
	int has_http_status; /* 0: no response */
	int http_status;
	const char *error;
	int64_t duration_ms;
};
struct store_delivery_info {
	int64_t id, webhook_id, comparison_id;
	const char *event;
	const char *url;
	const char *status; /* "pending" | "delivered" | "failed" */
	int attempts;
	const char *next_attempt_at; /* RFC 3339 with ms while pending, else NULL */
	const char *last_error;
	const char *created_at, *finished_at;
	struct store_attempt_info *attempt_log; /* oldest first */
	size_t n_attempt_log;
};
struct store_delivery_page {
	struct store_delivery_info *deliveries;
	size_t n_deliveries;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_delivery_page_free(struct store_delivery_page *p);
/* Deliveries of a webhook, newest first, into *out (zeroed first; free it
 * whatever the result).  The byte budget counts the text plus 256 bytes
 * a delivery and 128 an attempt.  STORE_NOT_FOUND when the webhook does
 * not exist. */
int store_deliveries_list(struct store *st, int64_t webhook_id, int limit, const char *cursor,
                          struct store_delivery_page *out);

#endif
