/* test_http_hosts.c - the http room alone (links parity_srv_http only),
 * issue 23: the Host allow-list against DNS rebinding (F14), the
 * same-origin compare with the daemon's scheme and without leading-zero
 * ports, and error messages repaired to valid UTF-8 (F15). */
#include <jansson.h>
#include <string.h>

#include "check.h"
#include "http.h"

static void load(struct srv_config *cfg, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	CHECK_INT(srv_config_load(cfg, argc, argv), 0);
}

static void test_hosts_loopback(void)
{
	struct srv_config cfg;
	char *argv[] = {"serve", "--listen", "127.0.0.1:8080", NULL};
	load(&cfg, argv);
	CHECK(srv_host_allowed(&cfg, "127.0.0.1:8080"));
	CHECK(srv_host_allowed(&cfg, "127.0.0.1"));
	CHECK(srv_host_allowed(&cfg, "127.3.2.1:99"));
	CHECK(srv_host_allowed(&cfg, "localhost:8080"));
	CHECK(srv_host_allowed(&cfg, "LocalHost"));
	CHECK(srv_host_allowed(&cfg, "[::1]:8080"));
	CHECK(srv_host_allowed(&cfg, "[::1]"));
	/* a rebinding name, whatever it resolves to */
	CHECK(!srv_host_allowed(&cfg, "evil.example:8080"));
	CHECK(!srv_host_allowed(&cfg, "localhost.evil.example"));
	CHECK(!srv_host_allowed(&cfg, "127.0.0.1.evil.example"));
	CHECK(!srv_host_allowed(&cfg, "10.0.0.1:8080"));
	CHECK(!srv_host_allowed(&cfg, "[::2]:8080"));
	CHECK(!srv_host_allowed(&cfg, ""));
	CHECK(!srv_host_allowed(&cfg, NULL));
	CHECK(!srv_host_allowed(&cfg, "u@127.0.0.1"));
	CHECK(!srv_host_allowed(&cfg, "127.0.0.1:"));
	CHECK(!srv_host_allowed(&cfg, "127.0.0.1:08080"));
	CHECK(!srv_host_allowed(&cfg, "[::1"));
}

static void test_hosts_configured(void)
{
	struct srv_config cfg;
	char *argv1[] = {"serve",
	                 "--listen",
	                 "10.1.2.3:8080",
	                 "--public-url",
	                 "https://Parity.Example.org/base/",
	                 "--allowed-hosts",
	                 "ci.internal,Other.Example",
	                 NULL};
	load(&cfg, argv1);
	CHECK(srv_host_allowed(&cfg, "10.1.2.3:8080"));
	CHECK(srv_host_allowed(&cfg, "parity.example.org"));
	CHECK(srv_host_allowed(&cfg, "PARITY.example.org:443"));
	CHECK(srv_host_allowed(&cfg, "ci.internal:8080"));
	CHECK(srv_host_allowed(&cfg, "other.example"));
	CHECK(srv_host_allowed(&cfg, "localhost"));
	CHECK(!srv_host_allowed(&cfg, "10.1.2.4:8080"));
	CHECK(!srv_host_allowed(&cfg, "ci.internal.evil"));
	CHECK(!srv_host_allowed(&cfg, "internal"));
	CHECK(!srv_host_allowed(&cfg, "example.org"));
	/* a wildcard listen address: every IP literal of the machine */
	char *argv2[] = {"serve", "--listen", "0.0.0.0:8080", NULL};
	load(&cfg, argv2);
	CHECK(srv_host_allowed(&cfg, "192.168.1.20:8080"));
	CHECK(srv_host_allowed(&cfg, "[fe80::1]:8080"));
	CHECK(!srv_host_allowed(&cfg, "parity.example.org"));
	char *argv3[] = {"serve", "--listen", "[::]:8080", NULL};
	load(&cfg, argv3);
	CHECK(srv_host_allowed(&cfg, "[2001:db8::1]:8080"));
	CHECK(!srv_host_allowed(&cfg, "2001:db8::1"));
	char *argv4[] = {"serve", "--listen", "[2001:db8::5]:8080", NULL};
	load(&cfg, argv4);
	CHECK(srv_host_allowed(&cfg, "[2001:DB8::5]:8080"));
	CHECK(!srv_host_allowed(&cfg, "[2001:db8::6]:8080"));
	char *argv5[] = {"serve", "--allowed-hosts", "*", NULL};
	load(&cfg, argv5);
	CHECK(srv_host_allowed(&cfg, "anything.example"));
	char *argv6[] = {"serve", "--allowed-hosts", "", NULL}; /* "" = none (compose) */
	load(&cfg, argv6);
	CHECK(!srv_host_allowed(&cfg, "anything.example"));
	/* the flag takes names, not ports or spaces */
	char *bad1[] = {"serve", "--allowed-hosts", "a.example:80", NULL};
	char *bad2[] = {"serve", "--allowed-hosts", "a, b", NULL};
	char *bad3[] = {"serve", "--allowed-hosts", "a,,b", NULL};
	FILE *keep = stderr;
	stderr = fopen("/dev/null", "w");
	CHECK_INT(srv_config_load(&cfg, 3, bad1), -1);
	CHECK_INT(srv_config_load(&cfg, 3, bad2), -1);
	CHECK_INT(srv_config_load(&cfg, 3, bad3), -1);
	fclose(stderr);
	stderr = keep;
}

static void test_origin_scheme_and_port(void)
{
	/* without --public-url the daemon speaks http: an https Origin with
	 * the same host and port is another origin */
	CHECK(srv_origin_is_own("http://127.0.0.1:8080", "127.0.0.1:8080", ""));
	CHECK(!srv_origin_is_own("https://127.0.0.1:8080", "127.0.0.1:8080", ""));
	CHECK(!srv_origin_is_own("https://parity.example", "parity.example", ""));
	/* with an https --public-url the Host is reached over https */
	const char *pub = "https://parity.example.org";
	CHECK(srv_origin_is_own("https://parity.example.org", "parity.example.org", pub));
	CHECK(!srv_origin_is_own("http://parity.example.org", "parity.example.org", pub));
	CHECK(srv_origin_is_own("https://ci.internal", "ci.internal", pub));
	CHECK(!srv_origin_is_own("http://ci.internal", "ci.internal", pub));
	/* leading zeros name the same number, but no browser sends them */
	CHECK(!srv_origin_is_own("http://127.0.0.1:08080", "127.0.0.1:8080", ""));
	CHECK(!srv_origin_is_own("http://127.0.0.1:8080", "127.0.0.1:08080", ""));
	CHECK(!srv_origin_is_own("http://127.0.0.1:00080", "127.0.0.1", ""));
	CHECK(!srv_origin_is_own("https://parity.example.org:0443", "x", pub));
	CHECK(srv_origin_is_own("http://127.0.0.1:80", "127.0.0.1", ""));
}

static const char *message(json_t *e)
{
	return json_string_value(json_object_get(json_object_get(e, "error"), "message"));
}

static void test_error_utf8(void)
{
	json_t *e = srv_error_json("bad_name", 0, "no run named '%s'", "caf\xe9 \xff\xfe ok");
	CHECK_STR(message(e), "no run named 'caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd ok'");
	json_decref(e);
	/* valid text is kept byte for byte; overlong forms and surrogates are not */
	e = srv_error_json("x", 0, "%s", "\xe4\xb8\xad\xe6\x96\x87 \xc0\xaf \xed\xa0\x80");
	CHECK_STR(message(e), "\xe4\xb8\xad\xe6\x96\x87 \xef\xbf\xbd\xef\xbf\xbd "
	                      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	json_decref(e);
	/* a sequence cut short at the end */
	char out[16];
	CHECK_STR(srv_utf8_repair("ab\xe4\xb8", out, sizeof out), "ab\xef\xbf\xbd\xef\xbf\xbd");
	/* a full buffer ends at a character boundary */
	CHECK_STR(srv_utf8_repair("abc\xe4\xb8\xad", out, 6), "abc");
	CHECK_STR(srv_utf8_repair("", out, 4), "");
}

int main(void)
{
	test_hosts_loopback();
	test_hosts_configured();
	test_origin_scheme_and_port();
	test_error_utf8();
	return check_report();
}
