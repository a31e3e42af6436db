/* test_delivery_auth.c - the CI building blocks without a network: SHA-256 and
 * HMAC-SHA256 against published vectors (GitHub's webhook example), token
 * shape and randomness, the loopback rule and who needs a token, token
 * verification against a real store (valid, wrong, revoked), webhook
 * backoff and retry classification, {sha} substitution, and the generic
 * and github-status payloads built from a comparison document. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "check.h"
#include "store.h"
#include "delivery.h"

static void test_hashes(void)
{
	char hex[65];
	const char *body = "Hello, World!", *key = "It's a Secret to Everybody";
	CHECK_INT(srv_hmac_sha256_hex(key, strlen(key), body, strlen(body), hex), 0);
	CHECK_STR(hex, "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
	CHECK_INT(srv_hmac_sha256_hex("other", 5, body, strlen(body), hex), 0);
	CHECK(strcmp(hex, "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"));
	CHECK_INT(srv_sha256_hex("abc", 3, hex), 0);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_INT(srv_sha256_hex("", 0, hex), 0);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_tokens(void)
{
	char a[SRV_TOKEN_LEN + 1], b[SRV_TOKEN_LEN + 1];
	CHECK_INT(srv_token_generate(a, sizeof a), 0);
	CHECK_INT(srv_token_generate(b, sizeof b), 0);
	CHECK_INT(strlen(a), SRV_TOKEN_LEN);
	CHECK(!strncmp(a, SRV_TOKEN_PREFIX, strlen(SRV_TOKEN_PREFIX)));
	CHECK(strcmp(a, b) != 0);
	CHECK(strspn(a + 4, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
	      SRV_TOKEN_LEN - 4);
	CHECK_INT(srv_token_generate(a, SRV_TOKEN_LEN), -1); /* no room for the NUL */
}

static void test_rules(void)
{
	CHECK(srv_config_host_is_loopback("127.0.0.1"));
	CHECK(srv_config_host_is_loopback("127.1.2.3"));
	CHECK(srv_config_host_is_loopback("localhost"));
	CHECK(srv_config_host_is_loopback("::1"));
	CHECK(!srv_config_host_is_loopback("0.0.0.0"));
	CHECK(!srv_config_host_is_loopback("10.0.0.1"));
	CHECK(!srv_config_host_is_loopback("::"));
	CHECK(!srv_config_host_is_loopback("127.0.0.1.evil"));
	CHECK(!srv_config_host_is_loopback("128.0.0.1"));

	struct srv_config cfg;
	char *argv1[] = {"serve", "--listen", "127.0.0.1:0", NULL};
	CHECK_INT(srv_config_load(&cfg, 3, argv1), 0);
	CHECK_INT(cfg.writes_open, 1);
	CHECK_INT(cfg.webhook_retry_base_ms, 1000);
	CHECK_INT(cfg.webhook_max_attempts, 8);
	CHECK_INT(srv_auth_required(&cfg, "POST", "/runs"), 0);
	CHECK_INT(srv_auth_required(&cfg, "GET", "/runs"), 0);
	char *argv2[] = {"serve", "--listen", "0.0.0.0:8080", NULL};
	CHECK_INT(srv_config_load(&cfg, 3, argv2), 0);
	CHECK_INT(cfg.writes_open, 0);
	CHECK_INT(srv_auth_required(&cfg, "POST", "/runs"), 1);
	CHECK_INT(srv_auth_required(&cfg, "DELETE", "/runs/1"), 1);
	CHECK_INT(srv_auth_required(&cfg, "GET", "/runs"), 0);
	CHECK_INT(srv_auth_required(&cfg, "POST", "/webhooks"), 1);
	char *argv3[] = {"serve",
	                 "--listen",
	                 "0.0.0.0:8080",
	                 "--open-writes",
	                 "--private-reads",
	                 "--webhook-retry-base-ms",
	                 "50",
	                 NULL};
	CHECK_INT(srv_config_load(&cfg, 7, argv3), 0);
	CHECK_INT(cfg.writes_open, 1);
	CHECK_INT(cfg.webhook_retry_base_ms, 50);
	CHECK_INT(srv_auth_required(&cfg, "POST", "/runs"), 0);
	CHECK_INT(srv_auth_required(&cfg, "GET", "/runs"), 1);
	CHECK_INT(srv_auth_required(&cfg, "GET", "/healthz"), 0);
	CHECK_INT(srv_auth_required(&cfg, "GET", "/assets/parity.css"), 0);
	CHECK_INT(srv_auth_required(&cfg, "GET", "/ui/runs/1"), 1);
	/* issue 23 F7: a subscription is a standing read */
	CHECK_INT(srv_auth_required(&cfg, "POST", "/webhooks"), 1);
	CHECK_INT(srv_auth_required(&cfg, "DELETE", "/webhooks/1"), 0);
	CHECK_INT(srv_auth_required(&cfg, "PUT", "/baselines/main"), 0);
	char *argv4[] = {"serve", "--private-reads", NULL};
	CHECK_INT(srv_config_load(&cfg, 2, argv4), 0);
	CHECK_INT(cfg.writes_open, 0); /* private reads imply token writes */
	char *argv5[] = {"serve", "--require-tokens", NULL};
	CHECK_INT(srv_config_load(&cfg, 2, argv5), 0);
	CHECK_INT(cfg.writes_open, 0);
}

static void test_verify(void)
{
	char dir[] = "/tmp/parity-auth-______", path[128], err[256], why[128], name[64];
	if (!CHECK_MKDTEMP(dir)) {
		CHECK(0);
		return;
	}
	snprintf(path, sizeof path, "%s/parity.db", dir);
	struct store *db = NULL;
	CHECK_INT(store_open(path, &db, err, sizeof err), 0);
	if (!db)
		return;
	char tok[SRV_TOKEN_LEN + 1], hex[65];
	srv_token_generate(tok, sizeof tok);
	srv_sha256_hex(tok, strlen(tok), hex);
	CHECK_INT(store_token_create(db, "ci", hex, NULL), 0);
	CHECK_INT(srv_token_verify(db, tok, name, sizeof name, why, sizeof why), 0);
	CHECK_STR(name, "ci");
	CHECK_INT(srv_token_verify(db, "pty_nope", NULL, 0, why, sizeof why), -1);
	CHECK_STR(why, "invalid token");
	CHECK_INT(srv_token_verify(db, "", NULL, 0, why, sizeof why), -1);
	CHECK_INT(store_token_revoke(db, "ci"), 0);
	CHECK_INT(srv_token_verify(db, tok, NULL, 0, why, sizeof why), -1);
	CHECK_STR(why, "the token was revoked");
	store_close(db);
	snprintf(path, sizeof path, "rm -rf %s", dir);
	CHECK_INT(system(path), 0);
}

static void test_retry_policy(void)
{
	/* first retry ~base (+-25%), then doubling, capped at an hour */
	for (uint32_t r = 0; r < 2000; r += 97) {
		int64_t d1 = srv_webhook_backoff_ms(1000, 1, r);
		CHECK(d1 >= 750 && d1 <= 1250);
		int64_t d3 = srv_webhook_backoff_ms(1000, 3, r);
		CHECK(d3 >= 3000 && d3 <= 5000);
		int64_t dmax = srv_webhook_backoff_ms(1000, 60, r);
		CHECK(dmax >= 2700000 && dmax <= 4500000);
	}
	CHECK(srv_webhook_backoff_ms(1000, 1, 0) != srv_webhook_backoff_ms(1000, 1, 400));
	CHECK_INT(srv_webhook_retryable(0), 1);
	CHECK_INT(srv_webhook_retryable(500), 1);
	CHECK_INT(srv_webhook_retryable(503), 1);
	CHECK_INT(srv_webhook_retryable(429), 1);
	CHECK_INT(srv_webhook_retryable(400), 0);
	CHECK_INT(srv_webhook_retryable(404), 0);
	CHECK_INT(srv_webhook_retryable(301), 0);
	char out[64];
	CHECK_INT(srv_webhook_url_subst("https://h/r/{sha}?x={sha}", "abc", out, sizeof out), 0);
	CHECK_STR(out, "https://h/r/abc?x=abc");
	CHECK_INT(srv_webhook_url_subst("https://h/{sha}", "0123456789", out, 20), -1);
	CHECK_INT(srv_webhook_url_subst("{sha", "x", out, sizeof out), 0);
	CHECK_STR(out, "{sha");
}

static void test_payloads(void)
{
	struct srv_config cfg;
	char *argv[] = {"serve", "--public-url", "https://parity.example/", NULL};
	CHECK_INT(srv_config_load(&cfg, 3, argv), 0);
	json_error_t e;
	json_t *c = json_loads(
	        "{\"id\":7,\"name\":\"pr\",\"kind\":\"activation\",\"status\":\"done\","
	        "\"verdict\":\"fail\",\"policy\":{\"name\":\"bitwise\"},\"error\":null,"
	        "\"created_at\":\"t0\",\"finished_at\":\"t1\","
	        "\"runs\":{\"baseline\":{\"id\":1,\"name\":\"a\",\"kind\":\"activation\","
	        "\"meta\":{\"commit\":\"aaa\"},\"created_at\":\"x\"},"
	        "\"candidate\":{\"id\":2,\"name\":\"b\",\"kind\":\"activation\","
	        "\"meta\":{\"commit\":\"bbb\",\"branch\":\"pr-1\"}}},"
	        "\"result\":{\"reasons\":[{\"code\":\"diff_rows\",\"message\":\"3 ops differ\"}],"
	        "\"summary\":{\"diff\":3}}}",
	        0, &e);
	CHECK(c != NULL);
	json_t *p = srv_webhook_generic_payload(&cfg, c, SRV_EVENT_COMPLETED, 42);
	CHECK_STR(json_string_value(json_object_get(p, "event")), "comparison.completed");
	CHECK_INT(json_integer_value(json_object_get(p, "delivery_id")), 42);
	CHECK_INT(json_integer_value(json_object_get(p, "comparison_id")), 7);
	CHECK_STR(json_string_value(json_object_get(p, "verdict")), "fail");
	json_t *urls = json_object_get(p, "urls");
	CHECK_STR(json_string_value(json_object_get(urls, "page")),
	          "https://parity.example/ui/comparisons/7");
	CHECK_STR(json_string_value(json_object_get(urls, "report")),
	          "https://parity.example/comparisons/7/report.html");
	CHECK_STR(json_string_value(json_object_get(urls, "api")),
	          "https://parity.example/comparisons/7");
	json_t *cand = json_object_get(json_object_get(p, "runs"), "candidate");
	CHECK_STR(json_string_value(json_object_get(json_object_get(cand, "meta"), "branch")),
	          "pr-1");
	CHECK(json_object_get(cand, "created_at") == NULL);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(p, "summary"), "diff")), 3);
	CHECK(json_object_get(p, "result") == NULL);
	CHECK(json_object_get(p, "lane") == NULL); /* only noise comparisons have one */
	json_decref(p);

	p = srv_webhook_github_payload(&cfg, c);
	CHECK_STR(json_string_value(json_object_get(p, "state")), "failure");
	CHECK_STR(json_string_value(json_object_get(p, "description")), "fail: 3 ops differ");
	json_decref(p);
	/* issue 26: the lane in the payload and the status text */
	json_object_set_new(c, "lane", json_string("regression"));
	p = srv_webhook_generic_payload(&cfg, c, SRV_EVENT_COMPLETED, 43);
	CHECK_STR(json_string_value(json_object_get(p, "lane")), "regression");
	json_decref(p);
	p = srv_webhook_github_payload(&cfg, c);
	CHECK_STR(json_string_value(json_object_get(p, "description")),
	          "fail (regression): 3 ops differ");
	json_decref(p);
	json_object_set_new(c, "lane", json_string("within_noise"));
	json_object_set_new(c, "verdict", json_string("pass"));
	json_t *rs = json_object_get(json_object_get(c, "result"), "reasons");
	json_t *saved = json_deep_copy(rs);
	json_array_clear(rs);
	p = srv_webhook_github_payload(&cfg, c);
	CHECK_STR(json_string_value(json_object_get(p, "description")), "pass (within noise)");
	json_decref(p);
	json_array_extend(rs, saved);
	json_decref(saved);
	json_object_del(c, "lane");
	json_object_set_new(c, "verdict", json_string("fail"));
	p = srv_webhook_github_payload(&cfg, c);
	CHECK_STR(json_string_value(json_object_get(p, "context")), "parity/bitwise");
	CHECK_STR(json_string_value(json_object_get(p, "target_url")),
	          "https://parity.example/ui/comparisons/7");
	json_decref(p);

	/* a long multi-byte reason is cut to 140 bytes on a character boundary */
	struct buf b = BUF_INIT;
	for (int i = 0; i < 100; i++)
		buf_puts(&b, "\xc3\xa9");
	json_t *r0 = json_array_get(json_object_get(json_object_get(c, "result"), "reasons"), 0);
	json_object_set_new(r0, "message", json_stringn(b.data, b.len));
	buf_reset(&b);
	json_object_set_new(c, "verdict", json_string("pass"));
	p = srv_webhook_github_payload(&cfg, c);
	const char *d = json_string_value(json_object_get(p, "description"));
	CHECK(d != NULL && strlen(d) <= 140);
	CHECK_STR(json_string_value(json_object_get(p, "state")), "success");
	json_decref(p);

	json_object_set_new(c, "status", json_string("failed"));
	json_object_set_new(c, "verdict", json_null());
	json_object_set_new(c, "error", json_string("cannot load rank 0"));
	json_object_set_new(c, "policy", json_null());
	cfg.public_url[0] = 0;
	p = srv_webhook_github_payload(&cfg, c);
	CHECK_STR(json_string_value(json_object_get(p, "state")), "error");
	CHECK_STR(json_string_value(json_object_get(p, "description")),
	          "error: cannot load rank 0");
	CHECK_STR(json_string_value(json_object_get(p, "context")), "parity/default");
	CHECK(json_object_get(p, "target_url") == NULL); /* relative is useless to GitHub */
	json_decref(p);
	p = srv_webhook_generic_payload(&cfg, c, SRV_EVENT_COMPLETED, 1);
	CHECK_STR(json_string_value(json_object_get(json_object_get(p, "urls"), "page")),
	          "/ui/comparisons/7");
	CHECK_STR(json_string_value(json_object_get(p, "error")), "cannot load rank 0");
	json_decref(p);
	json_decref(c);
}

int main(void)
{
	test_hashes();
	test_tokens();
	test_rules();
	test_verify();
	test_retry_policy();
	test_payloads();
	return check_report();
}
