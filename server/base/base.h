/* base.h - the lowest room of server/: what every other room may use and
 * that needs nothing of the daemon.  Logging, the JSON error object,
 * monotonic clocks, the crypto primitives (SHA-256, HMAC, tokens), the
 * limits on stored names and meta, URL redaction, the MIME primitives of
 * mail, the option tables every command parses with (options.h), and
 * the daemon's configuration values (config.h, filled by config.c from
 * `parity serve`'s table).
 *
 * Rooms of server/ (each a folder and a static library exporting only its
 * own header; arrows point down, the build enforces them):
 *   root (main.c, serve.c, routes.c: the composition root)
 *   -> cli, ui, api -> jobs -> delivery -> ingest, views -> http -> base
 * Thread-safe: nothing here keeps state. */
#ifndef PARITY_SRV_BASE_H
#define PARITY_SRV_BASE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "options.h"

/* ---- log.c ---------------------------------------------------------- */

/* Logging to stderr with a timestamp. */
void srv_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Error object {"error":{"code","message","line"?}} (new reference).  A
 * message that quotes input which is not UTF-8 keeps its text: each bad
 * byte becomes U+FFFD (srv_utf8_repair). */
json_t *srv_error_json(const char *code, unsigned long line, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* The NUL-terminated text s into out (cap >= 4 bytes) as valid UTF-8:
 * each byte that does not start a valid sequence becomes U+FFFD; cut at
 * a character boundary when out is full.  Returns out. */
char *srv_utf8_repair(const char *s, char *out, size_t cap);

/* url with its password (if any) replaced by PASSWORD, for messages. */
void srv_url_redact(const char *url, char *out, size_t cap);

/* The store's raw-log store over the data directory (store_rawlog.h:
 * <data>/raw, tmp, quarantine), its log sentences going to srv_log.  NULL
 * when out of memory; free with store_rawlog_free. */
struct store_rawlog *srv_rawlog_new(const char *data_dir);

/* ---- clock.c -------------------------------------------------------- */

/* Monotonic clock in milliseconds. */
int64_t srv_now_ms(void);
/* The CLOCK_MONOTONIC time ms milliseconds from now, for
 * pthread_cond_timedwait on a condition variable set to that clock. */
struct timespec srv_deadline_in_ms(int64_t ms);

/* ---- crypto.c ------------------------------------------------------- */

#define SRV_TOKEN_PREFIX "pty_"
#define SRV_TOKEN_LEN    47 /* prefix + 43 base64url characters */

/* Lower-case hex SHA-256 of data[0..len) into hex (65 bytes with NUL).
 * 0, or -1 when OpenSSL fails. */
int srv_sha256_hex(const void *data, size_t len, char hex[65]);

/* Lower-case hex HMAC-SHA256 of data with key into hex (65 bytes).  The
 * GitHub convention: receivers compare "sha256=" + hex with the
 * X-Parity-Signature-256 header.  0 or -1. */
int srv_hmac_sha256_hex(const void *key, size_t key_len, const void *data, size_t len,
                        char hex[65]);

/* A new random token (SRV_TOKEN_LEN chars + NUL) into out; cap must be
 * > SRV_TOKEN_LEN.  Uses getrandom(); 0, or -1 when no randomness could be
 * had (never falls back to a weak source). */
int srv_token_generate(char *out, size_t cap);

/* ---- limits.c: what a client may store ------------------------------ */

#define SRV_NAME_MAX 1000        /* run and comparison names, bytes */
#define SRV_META_MAX (64 * 1024) /* a run's meta (JSON object text), bytes */
/* 1 when a run or comparison name of n bytes may be stored: at most
 * SRV_NAME_MAX bytes and no NUL byte; else 0. */
int srv_name_ok(const char *name, size_t n);
/* How deep a client's JSON document may nest: run meta and every request
 * body (comparisons, baselines, webhooks).  Deeper documents are refused
 * (400): clients that read them back recursively (Python's json) fail on
 * a few thousand levels, and nothing we take needs more than a few. */
#define SRV_JSON_DEPTH_MAX 32
/* 1 when v nests objects and arrays at most SRV_JSON_DEPTH_MAX deep (a
 * scalar is depth 0, {} or [] depth 1, {"a":[]} depth 2), else 0.  The
 * walk stops one level past the limit, so its stack is bounded whatever
 * the document (jansson's parser allows 2048 levels).  NULL is depth 0. */
int srv_json_depth_ok(const json_t *v);

/* ---- mail_mime.c: mail primitives (no I/O) -------------------------- */

#define SRV_MAIL_MAX_TO 20 /* recipients per subscription */

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

#endif
