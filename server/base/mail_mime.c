/* mail_mime.c - the byte-level pieces of an email: address validation,
 * base64 bodies in 76-column lines, header lines that user text cannot
 * break (sanitised, RFC 2047 encoded-words, folded) and the Date header.
 * Pure functions over a buf; see delivery.h for the contracts.  Limits: no
 * display names or internationalised addresses (SMTPUTF8) are accepted. */
#include <string.h>
#include <time.h>
#include "base.h"

#define HEADER_VALUE_MAX 300 /* bytes of user text kept in one header */
#define WORD_BYTES       39  /* UTF-8 bytes per encoded-word: 52 base64 chars */

static int is_atext(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+/=?^_`{|}~-", c));
}

static int is_label_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-';
}

int srv_mail_addr_valid(const char *addr)
{
	if (!addr)
		return 0;
	size_t n = strlen(addr);
	const char *at = strchr(addr, '@');
	if (n < 3 || n > 254 || !at || strchr(at + 1, '@'))
		return 0;
	size_t local = (size_t)(at - addr);
	if (local < 1 || local > 64 || addr[0] == '.' || at[-1] == '.')
		return 0;
	for (size_t i = 0; i < local; i++) {
		unsigned char c = (unsigned char)addr[i];
		if (c == '.' ? addr[i + 1] == '.' : !is_atext(c))
			return 0;
	}
	const char *d = at + 1;
	if (!*d)
		return 0;
	for (;;) {
		size_t len = 0;
		while (is_label_char((unsigned char)d[len]))
			len++;
		if (len < 1 || len > 63 || d[0] == '-' || d[len - 1] == '-')
			return 0;
		if (d[len] == 0)
			return 1;
		if (d[len] != '.')
			return 0;
		d += len + 1;
	}
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of n <= 57 bytes, no line end. */
static int b64_chunk(struct buf *out, const unsigned char *p, size_t n)
{
	char tmp[80];
	size_t o = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		tmp[o++] = b64[(v >> 18) & 63];
		tmp[o++] = b64[(v >> 12) & 63];
		tmp[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
		tmp[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	return buf_append(out, tmp, o);
}

int srv_mail_base64(struct buf *out, const void *data, size_t n)
{
	const unsigned char *p = data;
	/* 57 input bytes make one 76-character line */
	if (buf_reserve(out, (n + 56) / 57 * 78) < 0)
		return -1;
	for (size_t i = 0; i < n; i += 57) {
		size_t take = n - i < 57 ? n - i : 57;
		if (b64_chunk(out, p + i, take) < 0 || buf_append(out, "\r\n", 2) < 0)
			return -1;
	}
	return 0;
}

int srv_mail_header(struct buf *out, const char *name, const char *value)
{
	unsigned char clean[HEADER_VALUE_MAX + 4];
	size_t n = 0, vlen = value ? strlen(value) : 0;
	int ascii = 1;
	const unsigned char *v = (const unsigned char *)(value ? value : "");
	for (size_t i = 0; i < vlen;) {
		size_t len = buf_utf8_len(v + i, vlen - i);
		if (n + (len ? len : 1) > HEADER_VALUE_MAX)
			break;
		if (len == 0) { /* not UTF-8 */
			clean[n++] = '?';
			i++;
		} else if (len == 1) {
			clean[n++] = (v[i] < 0x20 || v[i] == 0x7f) ? ' ' : v[i];
			i++;
		} else {
			memcpy(clean + n, v + i, len);
			n += len;
			i += len;
			ascii = 0;
		}
	}
	clean[n] = 0;
	size_t name_len = strlen(name);
	/* "=?" could be read as an encoded-word: encode such text too */
	if (ascii && name_len + 2 + n <= 78 && !strstr((char *)clean, "=?"))
		return buf_printf(out, "%s: %s\r\n", name, (char *)clean);
	if (buf_printf(out, "%s:", name) < 0)
		return -1;
	size_t i = 0;
	do {
		size_t take = 0;
		while (i + take < n) {
			size_t len = buf_utf8_len(clean + i + take, n - i - take);
			if (take + len > WORD_BYTES)
				break;
			take += len;
		}
		if (buf_puts(out, i ? "\r\n =?UTF-8?B?" : " =?UTF-8?B?") < 0 ||
		    b64_chunk(out, clean + i, take) < 0 || buf_puts(out, "?=") < 0)
			return -1;
		i += take;
	} while (i < n);
	return buf_puts(out, "\r\n");
}

int srv_mail_date(struct buf *out, int64_t epoch_s)
{
	static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	time_t t = (time_t)epoch_s;
	struct tm tm;
	if (!gmtime_r(&t, &tm))
		return -1;
	return buf_printf(out, "Date: %s, %02d %s %04d %02d:%02d:%02d +0000\r\n", days[tm.tm_wday],
	                  tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
	                  tm.tm_sec);
}
