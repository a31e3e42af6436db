/* test_web_html.c - the HTML writer and its helpers: web_printf (every
 * special character through %s, %.*s and %c; numeric conversions with
 * flags, widths, precisions and '*'; refusal of %n/%p), the escaper, URL
 * query encoding, safe SVG numbers, the colour-scale quantiser, badges and
 * the embedded assets. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "web.h"

/* Render through web_vprintf into a fresh buffer; returns malloc'd text
 * or NULL when it failed. */
static char *FMT(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *FMT(const char *fmt, ...)
{
	struct buf b = BUF_INIT;
	va_list ap;
	char *r;
	va_start(ap, fmt);
	r = web_vprintf(&b, fmt, ap) == 0 ? buf_take(&b) : NULL;
	va_end(ap);
	buf_reset(&b);
	return r;
}

static void expect(char *got, const char *want)
{
	CHECK_STR(got, want);
	free(got);
}

/* Call web_vprintf with a format the compiler cannot check (refusals). */
static int raw_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;
	va_start(ap, fmt);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	rc = web_vprintf(b, fmt, ap);
#pragma GCC diagnostic pop
	va_end(ap);
	return rc;
}

static void test_escaping(void)
{
	expect(FMT("%s", "&<>\"'"), "&amp;&lt;&gt;&quot;&#39;");
	expect(FMT("<a title=\"%s\">%s</a>", "x\"onmouseover='1'", "<b>"),
	       "<a title=\"x&quot;onmouseover=&#39;1&#39;\">&lt;b&gt;</a>");
	expect(FMT("[%.*s]", 3, "<&>tail"), "[&lt;&amp;&gt;]");
	expect(FMT("[%.2s]", "'\"x"), "[&#39;&quot;]");
	expect(FMT("%c%c%c", '<', 'a', '\''), "&lt;a&#39;");
	{
		const char *volatile nul = NULL; /* hidden from -Wformat-overflow */
		expect(FMT("[%s]", nul), "[]");
	}
	expect(FMT("plain %s text", "ok"), "plain ok text");
	/* already-escaped text is escaped again: no raw verb exists */
	expect(FMT("%s", "&amp;"), "&amp;amp;");
	/* bytes above 0x7f pass through untouched (UTF-8) */
	expect(FMT("%s", "\xc3\xa9\xe2\x80\x94"), "\xc3\xa9\xe2\x80\x94");
	/* every special char, in every position */
	{
		const char *sp = "&<>\"'";
		for (int i = 0; i < 5; i++) {
			char in[4] = {'a', sp[i], 'b', 0};
			struct buf b = BUF_INIT;
			CHECK(web_printf(&b, "%s", in) == 0);
			CHECK(strchr(b.data + 1, sp[i]) == NULL || sp[i] == '&');
			CHECK(b.data[0] == 'a' && b.data[b.len - 1] == 'b');
			buf_reset(&b);
		}
	}
	{
		struct buf b = BUF_INIT;
		CHECK(web_escape(&b, "a<b", 3) == 0);
		CHECK_STR(b.data, "a&lt;b");
		buf_clear(&b);
		CHECK(web_escape(&b, "", 0) == 0);
		CHECK(b.data != NULL && b.len == 0);
		buf_reset(&b);
	}
}

static void test_numbers(void)
{
	expect(FMT("%d|%i|%u|%x|%X|%o", -5, 7, 9u, 255u, 255u, 8u), "-5|7|9|ff|FF|10");
	expect(FMT("%ld|%lld|%zu|%lu", -123456789L, -1234567890123LL, (size_t)42, 7ul),
	       "-123456789|-1234567890123|42|7");
	expect(FMT("%5d|%-5d|%05d|%+d", 42, 42, 42, 42), "   42|42   |00042|+42");
	expect(FMT("%*d|%.*f", 4, 7, 2, 3.14159), "   7|3.14");
	expect(FMT("%.3g|%g|%e|%.1f", 0.000123456, 1e-7, 2.5, -0.06),
	       "0.000123|1e-07|2.500000e+00|-0.1");
	expect(FMT("100%% %s", "<done>"), "100% &lt;done&gt;");
	expect(FMT("%hd|%hhu", (short)-3, (unsigned char)200), "-3|200");
	expect(FMT("%jd|%td", (intmax_t)-9, (ptrdiff_t)11), "-9|11");
	expect(FMT("%Lg", (long double)0.5), "0.5");
	{
		struct buf b = BUF_INIT;
		int n = 0;
		CHECK(raw_printf(&b, "x%n", &n) < 0);
		CHECK(raw_printf(&b, "x%p", (void *)&n) < 0);
		CHECK(raw_printf(&b, "x%ls", L"w") < 0);
		CHECK(raw_printf(&b, "x%q") < 0);
		CHECK(raw_printf(&b, "trailing %") < 0);
		buf_reset(&b);
	}
}

static void test_urlenc_num_tint(void)
{
	struct buf b = BUF_INIT;
	CHECK(web_urlenc(&b, "a b&c=d/<\"'>#%,.-_~") == 0);
	CHECK_STR(b.data, "a%20b%26c%3Dd%2F%3C%22%27%3E%23%25,.-_~");
	buf_clear(&b);
	CHECK(web_urlenc(&b, "\xc3\xa9") == 0);
	CHECK_STR(b.data, "%C3%A9");
	buf_clear(&b);
	CHECK(web_num(&b, 1.5, 6) == 0);
	CHECK(web_num(&b, NAN, 6) == 1);
	CHECK(web_num(&b, INFINITY, 6) == 1);
	CHECK(web_num(&b, -0.0, 6) == 0);
	CHECK_STR(b.data, "1.5000");
	buf_reset(&b);

	CHECK_INT(web_tint_level(-1), 0);
	CHECK_INT(web_tint_level(NAN), 0);
	CHECK_INT(web_tint_level(0), 0);
	CHECK_INT(web_tint_level(1e-9), 0);
	CHECK_INT(web_tint_level(1e-8), 0);
	CHECK_INT(web_tint_level(1e-7), 2); /* float32 noise: faint */
	CHECK_INT(web_tint_level(1e-4), 6);
	CHECK_INT(web_tint_level(0.05), 10);
	CHECK_INT(web_tint_level(0.1), 10); /* 10 %: full red */
	CHECK_INT(web_tint_level(1.0), 10);
	CHECK(web_tint_level(2e-8) >= 1);
	for (double rd = 1e-8; rd < 1; rd *= 1.7)
		CHECK(web_tint_level(rd) <= web_tint_level(rd * 1.7));
}

static void test_badges_assets(void)
{
	struct buf b = BUF_INIT;
	CHECK(web_badge(&b, "pass") == 0);
	CHECK_STR(b.data,
	          "<span class=\"badge verdict v-pass\" title=\"verdict pass\">pass</span>");
	buf_clear(&b);
	/* a failed job and a failing verdict: different classes */
	CHECK(web_badge(&b, "fail") == 0);
	CHECK_STR(b.data,
	          "<span class=\"badge verdict v-fail\" title=\"verdict fail\">fail</span>");
	buf_clear(&b);
	CHECK(web_badge(&b, "failed") == 0);
	CHECK_STR(b.data,
	          "<span class=\"badge job v-failed\" title=\"job status failed\">failed</span>");
	buf_clear(&b);
	CHECK(web_badge(&b, "x\"><script>") == 0);
	CHECK_STR(b.data, "<span class=\"badge job v-other\" title=\"job status "
	                  "x&quot;&gt;&lt;script&gt;\">x&quot;&gt;&lt;script&gt;</span>");
	buf_clear(&b);
	CHECK(web_badge(&b, NULL) == 0);
	CHECK_STR(b.data,
	          "<span class=\"badge job v-other\" title=\"job status pending\">pending</span>");
	buf_reset(&b);

	const unsigned char *d;
	size_t n;
	const char *ct;
	CHECK(web_asset("parity.css", &d, &n, &ct) == 0);
	CHECK(n > 1000 && strstr((const char *)d, ".t10") != NULL);
	CHECK_STR(ct, "text/css; charset=utf-8");
	CHECK(web_asset("parity.js", &d, &n, &ct) == 0);
	CHECK_STR(ct, "text/javascript; charset=utf-8");
	CHECK(web_asset("favicon.svg", &d, &n, &ct) == 0);
	CHECK(web_asset("nope.css", &d, &n, &ct) < 0);
	CHECK(web_asset(NULL, &d, &n, &ct) < 0);
	CHECK(strstr(web_csp_page, "unsafe-inline") == NULL);
	CHECK(strstr(web_csp_page, "script-src 'self'") != NULL);
	CHECK(strstr(web_csp_report, "default-src 'none'") != NULL);
}

int main(void)
{
	test_escaping();
	test_numbers();
	test_urlenc_num_tint();
	test_badges_assets();
	return check_report();
}
