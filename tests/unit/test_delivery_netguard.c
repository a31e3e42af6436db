/* test_delivery_netguard.c - the hostile-client guards without a network: the
 * webhook address classifier on addresses given as text and as socket
 * addresses (IPv4, IPv6, IPv4-mapped, NAT64, 6to4; classification only,
 * nothing is ever connected to), the resolver check on numeric hosts and
 * on "localhost", the Origin / Host / --public-url comparison and the
 * media-type test of the CSRF rule, webhook URL masking and the public
 * form of an attempt's error. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "check.h"
#include "http.h"
#include "delivery.h"

static enum srv_addr_class cls(const char *text)
{
	enum srv_addr_class c = SRV_ADDR_NOT_INET;
	if (srv_addr_classify_text(text, &c) < 0)
		fprintf(stderr, "not an address: %s\n", text);
	return c;
}

static void test_classify_text(void)
{
	static const struct {
		const char *addr;
		enum srv_addr_class want;
	} cases[] = {
	        /* IPv4 */
	        {"127.0.0.1", SRV_ADDR_LOOPBACK},
	        {"127.255.255.254", SRV_ADDR_LOOPBACK},
	        {"10.0.0.1", SRV_ADDR_PRIVATE},
	        {"10.255.255.255", SRV_ADDR_PRIVATE},
	        {"172.16.0.1", SRV_ADDR_PRIVATE},
	        {"172.31.255.255", SRV_ADDR_PRIVATE},
	        {"172.15.255.255", SRV_ADDR_PUBLIC},
	        {"172.32.0.1", SRV_ADDR_PUBLIC},
	        {"192.168.1.1", SRV_ADDR_PRIVATE},
	        {"192.169.0.1", SRV_ADDR_PUBLIC},
	        {"100.64.0.1", SRV_ADDR_CGNAT},
	        {"100.127.255.255", SRV_ADDR_CGNAT},
	        {"100.100.100.200", SRV_ADDR_CGNAT},
	        {"100.63.255.255", SRV_ADDR_PUBLIC},
	        {"100.128.0.1", SRV_ADDR_PUBLIC},
	        {"169.254.169.254", SRV_ADDR_METADATA},
	        {"169.254.170.2", SRV_ADDR_METADATA},
	        {"169.254.1.1", SRV_ADDR_LINK_LOCAL},
	        {"0.0.0.0", SRV_ADDR_UNSPECIFIED},
	        {"0.1.2.3", SRV_ADDR_UNSPECIFIED},
	        {"224.0.0.1", SRV_ADDR_MULTICAST},
	        {"239.255.255.250", SRV_ADDR_MULTICAST},
	        {"240.0.0.1", SRV_ADDR_RESERVED},
	        {"255.255.255.255", SRV_ADDR_RESERVED},
	        {"192.0.0.170", SRV_ADDR_RESERVED},
	        {"198.18.0.1", SRV_ADDR_RESERVED},
	        {"198.19.255.255", SRV_ADDR_RESERVED},
	        {"198.20.0.1", SRV_ADDR_PUBLIC},
	        {"8.8.8.8", SRV_ADDR_PUBLIC},
	        {"1.1.1.1", SRV_ADDR_PUBLIC},
	        {"93.184.216.34", SRV_ADDR_PUBLIC},
	        {"11.0.0.1", SRV_ADDR_PUBLIC},
	        {"126.255.255.255", SRV_ADDR_PUBLIC},
	        {"128.0.0.1", SRV_ADDR_PUBLIC},
	        {"223.255.255.255", SRV_ADDR_PUBLIC},
	        /* IPv6 */
	        {"::1", SRV_ADDR_LOOPBACK},
	        {"::", SRV_ADDR_UNSPECIFIED},
	        {"::2", SRV_ADDR_RESERVED},
	        {"::7f00:1", SRV_ADDR_RESERVED}, /* IPv4-compatible 127.0.0.1 */
	        {"fe80::1", SRV_ADDR_LINK_LOCAL},
	        {"febf:ffff::1", SRV_ADDR_LINK_LOCAL},
	        {"fec0::1", SRV_ADDR_PRIVATE},
	        {"fd00::1", SRV_ADDR_PRIVATE},
	        {"fc00::1", SRV_ADDR_PRIVATE},
	        {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", SRV_ADDR_PRIVATE},
	        {"fd00:ec2::254", SRV_ADDR_METADATA},
	        {"ff02::1", SRV_ADDR_MULTICAST},
	        {"ff05::2", SRV_ADDR_MULTICAST},
	        {"100::1", SRV_ADDR_RESERVED},
	        {"64:ff9b:1::1", SRV_ADDR_PRIVATE},
	        {"2001:4860:4860::8888", SRV_ADDR_PUBLIC},
	        {"2606:4700:4700::1111", SRV_ADDR_PUBLIC},
	        {"fbff::1", SRV_ADDR_PUBLIC},
	        /* IPv6 forms carrying an IPv4 address */
	        {"::ffff:127.0.0.1", SRV_ADDR_LOOPBACK},
	        {"::ffff:7f00:1", SRV_ADDR_LOOPBACK},
	        {"::ffff:10.0.0.1", SRV_ADDR_PRIVATE},
	        {"::ffff:169.254.169.254", SRV_ADDR_METADATA},
	        {"::ffff:192.168.1.1", SRV_ADDR_PRIVATE},
	        {"::ffff:0.0.0.0", SRV_ADDR_UNSPECIFIED},
	        {"::ffff:8.8.8.8", SRV_ADDR_PUBLIC},
	        {"64:ff9b::127.0.0.1", SRV_ADDR_LOOPBACK},
	        {"64:ff9b::a9fe:a9fe", SRV_ADDR_METADATA},
	        {"64:ff9b::8.8.8.8", SRV_ADDR_PUBLIC},
	        {"2002:7f00:1::", SRV_ADDR_LOOPBACK},
	        {"2002:c0a8:101::1", SRV_ADDR_PRIVATE},
	        {"2002:808:808::1", SRV_ADDR_PUBLIC},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum srv_addr_class got = cls(cases[i].addr);
		if (got != cases[i].want)
			fprintf(stderr, "%s: got %s, want %s\n", cases[i].addr,
			        srv_addr_class_name(got), srv_addr_class_name(cases[i].want));
		CHECK_INT(got, cases[i].want);
	}
	/* not numeric addresses: never resolved here */
	enum srv_addr_class c;
	CHECK_INT(srv_addr_classify_text("localhost", &c), -1);
	CHECK_INT(srv_addr_classify_text("[::1]", &c), -1);
	CHECK_INT(srv_addr_classify_text("", &c), -1);
	CHECK_INT(srv_addr_classify_text("1.2.3.4.5", &c), -1);
	CHECK_STR(srv_addr_class_name(SRV_ADDR_METADATA), "cloud metadata");
	CHECK_STR(srv_addr_class_name(SRV_ADDR_PUBLIC), "public");
}

/* the same through socket addresses, as libcurl hands them over */
static void test_classify_sockaddr(void)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;
	memset(&s4, 0, sizeof s4);
	s4.sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &s4.sin_addr);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s4, sizeof s4), SRV_ADDR_LOOPBACK);
	inet_pton(AF_INET, "169.254.169.254", &s4.sin_addr);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s4, sizeof s4), SRV_ADDR_METADATA);
	inet_pton(AF_INET, "9.9.9.9", &s4.sin_addr);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s4, sizeof s4), SRV_ADDR_PUBLIC);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s4, 4), SRV_ADDR_NOT_INET); /* short */
	memset(&s6, 0, sizeof s6);
	s6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &s6.sin6_addr);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s6, sizeof s6), SRV_ADDR_LOOPBACK);
	inet_pton(AF_INET6, "fe80::1", &s6.sin6_addr);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s6, sizeof s6), SRV_ADDR_LINK_LOCAL);
	inet_pton(AF_INET6, "2001:4860:4860::8888", &s6.sin6_addr);
	CHECK_INT(srv_addr_classify((struct sockaddr *)&s6, sizeof s6), SRV_ADDR_PUBLIC);
	struct sockaddr other = {.sa_family = AF_UNIX};
	CHECK_INT(srv_addr_classify(&other, sizeof other), SRV_ADDR_NOT_INET);
	CHECK_INT(srv_addr_classify(NULL, 0), SRV_ADDR_NOT_INET);
}

/* getaddrinfo on numeric hosts and on localhost (/etc/hosts): no DNS
 * query leaves the machine, nothing is connected to */
static void test_host_check(void)
{
	char why[256];
	CHECK_INT(srv_netguard_host("127.0.0.1", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK(strstr(why, "loopback") != NULL);
	CHECK_INT(srv_netguard_host("::1", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_netguard_host("localhost", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_netguard_host("169.254.169.254", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK(strstr(why, "cloud metadata") != NULL);
	CHECK_INT(srv_netguard_host("::ffff:10.0.0.1", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_netguard_host("2130706433", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_netguard_host("0x7f.1", why, sizeof why), SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_netguard_host("8.8.8.8", why, sizeof why), SRV_NETGUARD_OK);
	CHECK_INT(srv_netguard_host("2001:4860:4860::8888", why, sizeof why), SRV_NETGUARD_OK);
	CHECK_INT(srv_netguard_host("", why, sizeof why), SRV_NETGUARD_UNRESOLVED);

	/* through the webhook URL: brackets, userinfo, {sha}; the flag skips it */
	struct srv_config cfg;
	memset(&cfg, 0, sizeof cfg);
	CHECK_INT(srv_webhook_url_allowed(&cfg, "http://[::1]:9/h", why, sizeof why),
	          SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_webhook_url_allowed(&cfg, "http://u:p@127.0.0.1:9/{sha}", why, sizeof why),
	          SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_webhook_url_allowed(&cfg, "https://[fe80::1%25lo]/", why, sizeof why),
	          SRV_NETGUARD_REFUSED);
	CHECK_INT(srv_webhook_url_allowed(&cfg, "https://8.8.8.8/hook", why, sizeof why),
	          SRV_NETGUARD_OK);
	cfg.webhook_allow_private = 1;
	CHECK_INT(srv_webhook_url_allowed(&cfg, "http://127.0.0.1:9/h", why, sizeof why),
	          SRV_NETGUARD_OK);
}

static void test_origin(void)
{
	const char *own = "127.0.0.1:8080";
	CHECK(srv_origin_is_own("http://127.0.0.1:8080", own, ""));
	CHECK(srv_origin_is_own("HTTP://127.0.0.1:8080", own, ""));
	CHECK(!srv_origin_is_own("http://127.0.0.1:8081", own, ""));
	CHECK(!srv_origin_is_own("http://127.0.0.1", own, ""));
	CHECK(!srv_origin_is_own("http://localhost:8080", own, ""));
	CHECK(!srv_origin_is_own("http://evil.example", own, ""));
	CHECK(!srv_origin_is_own("null", own, ""));
	CHECK(!srv_origin_is_own("", own, ""));
	CHECK(!srv_origin_is_own("file://", own, ""));
	CHECK(!srv_origin_is_own("http://127.0.0.1:8080/", own, ""));  /* never sent so */
	CHECK(!srv_origin_is_own("http://u@127.0.0.1:8080", own, "")); /* userinfo */
	CHECK(!srv_origin_is_own("http://127.0.0.1:8080", NULL, ""));
	CHECK(!srv_origin_is_own(NULL, own, ""));
	/* a Host without a port: the origin scheme's default */
	CHECK(srv_origin_is_own("http://Parity.Example", "parity.example", ""));
	CHECK(!srv_origin_is_own("https://parity.example", "parity.example", "")); /* http daemon */
	CHECK(srv_origin_is_own("http://parity.example:80", "parity.example", ""));
	CHECK(!srv_origin_is_own("http://parity.example:8080", "parity.example", ""));
	CHECK(!srv_origin_is_own("http://parity.example.evil", "parity.example", ""));
	CHECK(srv_origin_is_own("http://[::1]:8080", "[::1]:8080", ""));
	CHECK(!srv_origin_is_own("http://[::1]:8080", "[::2]:8080", ""));
	/* --public-url: scheme, host and port must all agree; a path is fine */
	const char *pub = "https://parity.example.org/base";
	CHECK(srv_origin_is_own("https://parity.example.org", "127.0.0.1:8080", pub));
	CHECK(srv_origin_is_own("https://parity.example.org:443", "127.0.0.1:8080", pub));
	CHECK(!srv_origin_is_own("http://parity.example.org", "127.0.0.1:8080", pub));
	CHECK(!srv_origin_is_own("https://parity.example.org:8443", "127.0.0.1:8080", pub));
	CHECK(!srv_origin_is_own("https://evil.example", "127.0.0.1:8080", pub));
	CHECK(srv_origin_is_own("http://h:81", "x", "http://h:81"));
}

static void test_media_type(void)
{
	CHECK(srv_media_type_is("application/json", "application/json"));
	CHECK(srv_media_type_is("Application/JSON; charset=utf-8", "application/json"));
	CHECK(srv_media_type_is(" application/json ;charset=utf-8", "application/json"));
	CHECK(!srv_media_type_is("application/jsonx", "application/json"));
	CHECK(!srv_media_type_is("text/plain", "application/json"));
	CHECK(!srv_media_type_is("application/x-www-form-urlencoded", "application/json"));
	CHECK(!srv_media_type_is("", "application/json"));
	CHECK(!srv_media_type_is(NULL, "application/json"));
	CHECK(srv_media_type_is("multipart/form-data; boundary=x", "multipart/form-data"));
}

static void masked(const char *url, const char *want)
{
	char out[512];
	srv_webhook_url_mask(url, out, sizeof out);
	CHECK_STR(out, want);
}

static void test_mask(void)
{
	masked("https://hooks.slack.com/services/T000/B000/ZZZZ", "https://hooks.slack.com/***");
	masked("http://user:pass@10.0.0.1:81/", "http://***@10.0.0.1:81/");
	masked("http://user@ci.example/hook?token=abc", "http://***@ci.example/***");
	masked("https://ci.example", "https://ci.example/");
	masked("https://ci.example/", "https://ci.example/");
	masked("https://ci.example/?k=v", "https://ci.example/***");
	masked("https://ci.example/#frag", "https://ci.example/***");
	masked("https://api.github.com/repos/o/r/statuses/{sha}", "https://api.github.com/***");
	masked("http://[::1]:9/x", "http://[::1]:9/***");
	masked("not a url", "***");

	char out[300];
	srv_webhook_error_public("HTTP 500: internal secret reply", out, sizeof out);
	CHECK_STR(out, "HTTP 500");
	srv_webhook_error_public("HTTP 404", out, sizeof out);
	CHECK_STR(out, "HTTP 404");
	srv_webhook_error_public("Failed to connect to x port 9: Connection refused", out,
	                         sizeof out);
	CHECK_STR(out, "Failed to connect to x port 9: Connection refused");
	srv_webhook_error_public("HTTP x: y", out, sizeof out);
	CHECK_STR(out, "HTTP x: y");
}

int main(void)
{
	test_classify_text();
	test_classify_sockaddr();
	test_host_check();
	test_origin();
	test_media_type();
	test_mask();
	return check_report();
}
