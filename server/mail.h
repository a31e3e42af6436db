/* mail.h - email subscriptions: webhooks of format "email" are sent as
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
#ifndef PARITY_MAIL_H
#define PARITY_MAIL_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct srv;
struct srv_config;
struct store;
struct store_delivery;

#define SRV_MAIL_MAX_TO 20 /* recipients per subscription */

/* ---- primitives (mail_mime.c): no I/O, thread-safe -------------------- */

/* 1 when addr is an address we send to: local@domain, at most 254 bytes,
 * local part 1-64 of letters, digits and !#$%&'*+/=?^_`{|}~.- without a
 * leading, trailing or doubled dot; domain of dot-separated labels of
 * letters, digits and hyphens (1-63, no leading or trailing hyphen).  No
 * display names, quotes, comments, spaces or control bytes. */
int srv_mail_addr_valid(const char *addr);
/* Append data as base64 in lines of at most 76 characters, each ended by
 * CRLF.  0, or -1 on OOM. */
int srv_mail_base64(struct buf *out, const void *data, size_t n);
/* Append the header line "name: value" CRLF.  value is user text: control
 * bytes (CR, LF, TAB, ...) become spaces, invalid UTF-8 becomes '?', it
 * is cut to 300 bytes on a character boundary; printable ASCII that fits
 * in 78 columns is written as is, anything else as RFC 2047 "B"
 * encoded-words of UTF-8 folded onto continuation lines (none longer than
 * 76 columns).  name is trusted ("Subject").  0, or -1 on OOM. */
int srv_mail_header(struct buf *out, const char *name, const char *value);
/* Append "Date: <RFC 5322 date of epoch_s in UTC>" CRLF.  0 or -1. */
int srv_mail_date(struct buf *out, int64_t epoch_s);

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
