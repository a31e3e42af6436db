/* test_base_mail_mime.c - the email primitives of server/base/mail_mime.c: which
 * addresses are accepted (table), base64 line length and round trip
 * shape, header lines that user text cannot break (CR/LF, control bytes,
 * invalid UTF-8, "=?" and long or non-ASCII text as RFC 2047 words) and
 * the Date line. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "base.h"

static void test_addresses(void)
{
	static const struct {
		const char *addr;
		int ok;
	} cases[] = {
	        {"dev@example.com", 1},
	        {"Lead.Dev+ci@example.org", 1},
	        {"a@b", 1},
	        {"o'hara{x}@mail-1.example.co", 1},
	        {"", 0},
	        {"a@", 0},
	        {"@example.com", 0},
	        {"a@b@example.com", 0},
	        {".a@example.com", 0},
	        {"a.@example.com", 0},
	        {"a..b@example.com", 0},
	        {"a b@example.com", 0},
	        {"a@example.com\r\nBcc: x@y.z", 0},
	        {"a@example.com\n", 0},
	        {"Ann <a@example.com>", 0},
	        {"\"a\"@example.com", 0},
	        {"a@-example.com", 0},
	        {"a@example-.com", 0},
	        {"a@example..com", 0},
	        {"a@example.com.", 0},
	        {"a@exa_mple.com", 0},
	        {"a(c)@example.com", 0},
	        {"用户@example.com", 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (srv_mail_addr_valid(cases[i].addr) != cases[i].ok)
			fprintf(stderr, "address case %zu: %s\n", i, cases[i].addr);
		CHECK(srv_mail_addr_valid(cases[i].addr) == cases[i].ok);
	}
	char longlocal[80], longaddr[300];
	memset(longlocal, 'a', 65);
	longlocal[65] = 0;
	snprintf(longaddr, sizeof longaddr, "%s@example.com", longlocal);
	CHECK(!srv_mail_addr_valid(longaddr)); /* local part > 64 */
	CHECK(!srv_mail_addr_valid(NULL));
}

static void test_base64(void)
{
	struct buf b = BUF_INIT;
	CHECK(srv_mail_base64(&b, "", 0) == 0 && b.len == 0);
	CHECK(srv_mail_base64(&b, "Man", 3) == 0);
	CHECK_STR(b.data, "TWFu\r\n");
	buf_clear(&b);
	CHECK(srv_mail_base64(&b, "Ma", 2) == 0);
	CHECK_STR(b.data, "TWE=\r\n");
	buf_clear(&b);
	unsigned char big[1000];
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (unsigned char)(i * 7);
	CHECK(srv_mail_base64(&b, big, sizeof big) == 0);
	/* 1000 bytes: 17 full lines of 57 bytes (76 chars) and one of 31 */
	size_t lines = 0, longest = 0, cur = 0;
	for (size_t i = 0; i < b.len; i++) {
		if (b.data[i] == '\r') {
			CHECK(b.data[i + 1] == '\n');
			lines++;
			longest = cur > longest ? cur : longest;
			cur = 0;
			i++;
		} else {
			cur++;
		}
	}
	CHECK(lines == 18);
	CHECK(longest == 76);
	CHECK(b.len == 17 * 78 + 44 + 2);
	buf_reset(&b);
}

/* Every line of a header block: CRLF-ended, <= max columns, and every
 * line after the first a continuation (starts with a space). */
static int header_shape(const char *h, size_t max)
{
	int first = 1;
	while (*h) {
		const char *end = strstr(h, "\r\n");
		if (!end || (size_t)(end - h) > max || memchr(h, '\n', (size_t)(end - h)) ||
		    memchr(h, '\r', (size_t)(end - h)))
			return 0;
		if (!first && *h != ' ')
			return 0;
		first = 0;
		h = end + 2;
	}
	return 1;
}

static void test_headers(void)
{
	struct buf b = BUF_INIT;
	CHECK(srv_mail_header(&b, "Subject", "[parity] PASS: comparison 3") == 0);
	CHECK_STR(b.data, "Subject: [parity] PASS: comparison 3\r\n");
	buf_clear(&b);
	/* CR/LF and TAB become spaces; ASCII stays readable */
	CHECK(srv_mail_header(&b, "Subject", "a\r\nBcc: evil@x.org\tz") == 0);
	CHECK_STR(b.data, "Subject: a  Bcc: evil@x.org z\r\n");
	buf_clear(&b);
	/* non-ASCII: encoded-words only */
	CHECK(srv_mail_header(&b, "Subject", "[parity] FAIL: 训练\r\nBcc: x@y.z") == 0);
	CHECK(strncmp(b.data, "Subject: =?UTF-8?B?", 19) == 0);
	CHECK(header_shape(b.data, 76));
	for (size_t i = 0; i < b.len; i++)
		CHECK((unsigned char)b.data[i] < 0x80);
	CHECK(!strstr(b.data, "Bcc"));
	buf_clear(&b);
	/* text that looks like an encoded-word is encoded itself */
	CHECK(srv_mail_header(&b, "Subject", "=?UTF-8?B?QmNj?=") == 0);
	CHECK(strncmp(b.data, "Subject: =?UTF-8?B?PT9VVEYtOD9CP1FtTmo/PQ==?=", 45) == 0);
	buf_clear(&b);
	/* invalid UTF-8 (a lone continuation byte, an overlong '/') becomes '?' */
	CHECK(srv_mail_header(&b, "X", "a\x80\xc0\xaf") == 0);
	CHECK_STR(b.data, "X: a???\r\n");
	buf_clear(&b);
	/* long text: folded, cut to 300 bytes on a character boundary */
	char longv[2000] = "";
	for (int i = 0; i < 300; i++)
		strcat(longv, "名");
	CHECK(srv_mail_header(&b, "Subject", longv) == 0);
	CHECK(header_shape(b.data, 76));
	CHECK(b.len < 600);
	buf_reset(&b);
}

static void test_date(void)
{
	struct buf b = BUF_INIT;
	CHECK(srv_mail_date(&b, 0) == 0);
	CHECK_STR(b.data, "Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n");
	buf_clear(&b);
	CHECK(srv_mail_date(&b, 1796142587) == 0);
	CHECK_STR(b.data, "Date: Tue, 01 Dec 2026 16:29:47 +0000\r\n");
	buf_reset(&b);
}

int main(void)
{
	test_addresses();
	test_base64();
	test_headers();
	test_date();
	return check_report();
}
