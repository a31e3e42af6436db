/* test_store_webhooks.c - tokens (create, unique names, find by digest,
 * revoke, list) and the webhook delivery queue (subscription by event,
 * claim with leases, due times, attempts recorded with outcomes, cascade
 * on webhook delete, paging of the webhooks and deliveries lists, by count
 * and by bytes) on a fresh database after all migrations. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/parity-store-hooks-______";

static const char *H1 = "1111111111111111111111111111111111111111111111111111111111111111";
static const char *H2 = "2222222222222222222222222222222222222222222222222222222222222222";

static void test_tokens(struct store *st)
{
	int64_t id = 0;
	CHECK_INT(store_token_create(st, "ci", H1, &id), 0);
	CHECK(id > 0);
	CHECK_INT(store_token_create(st, "ci", H2, NULL), STORE_DUPLICATE);
	CHECK_INT(store_token_create(st, "", H2, NULL), STORE_INVALID);
	CHECK_INT(store_token_create(st, "x", "abc", NULL), STORE_INVALID);
	CHECK_INT(store_token_create(st, "other", H1, NULL), STORE_DUPLICATE); /* same digest */
	char stored[65], name[64];
	int revoked = -1;
	CHECK_INT(store_token_find(st, H1, stored, name, sizeof name, &revoked), 0);
	CHECK_STR(stored, H1);
	CHECK_STR(name, "ci");
	CHECK_INT(revoked, 0);
	CHECK_INT(store_token_find(st, H2, stored, NULL, 0, NULL), STORE_NOT_FOUND);
	CHECK_INT(store_token_find(st, "zz", stored, NULL, 0, NULL), STORE_NOT_FOUND);
	int n = -1;
	CHECK_INT(store_tokens_active(st, &n), 0);
	CHECK_INT(n, 1);
	CHECK_INT(store_token_revoke(st, "ci"), 0);
	CHECK_INT(store_token_revoke(st, "ci"), 0); /* idempotent */
	CHECK_INT(store_token_revoke(st, "nope"), STORE_NOT_FOUND);
	CHECK_INT(store_token_find(st, H1, stored, NULL, 0, &revoked), 0);
	CHECK_INT(revoked, 1);
	CHECK_INT(store_tokens_active(st, &n), 0);
	CHECK_INT(n, 0);
	json_t *list = NULL;
	CHECK_INT(store_tokens_list(st, &list), 0);
	json_t *t0 = json_array_get(json_object_get(list, "tokens"), 0);
	CHECK_STR(json_string_value(json_object_get(t0, "name")), "ci");
	CHECK(json_is_string(json_object_get(t0, "revoked_at")));
	CHECK(json_object_get(t0, "sha256") == NULL); /* digest is not listed */
	json_decref(list);
}

static void test_webhooks(struct store *st)
{
	int64_t h1, h2, h3;
	CHECK_INT(store_webhook_create(st, "http://a/x", "s3cret", "[\"comparison.completed\"]",
	                               "generic", NULL, &h1),
	          0);
	CHECK_INT(store_webhook_create(st, "http://b/{sha}", "", "[\"comparison.completed\"]",
	                               "github-status", "ghp_x", &h2),
	          0);
	CHECK_INT(store_webhook_create(st, "http://c/", "k", "[\"other.event\"]", "generic", NULL,
	                               &h3),
	          0);
	CHECK_INT(store_webhook_create(st, "http://c/", "k", "[]", "slack", NULL, NULL),
	          STORE_INVALID);
	json_t *j = store_webhook_json(st, h1);
	CHECK(j != NULL);
	CHECK_STR(json_string_value(json_object_get(j, "url")), "http://a/x");
	CHECK(json_object_get(j, "secret") == NULL);
	CHECK(json_is_true(json_object_get(j, "has_secret")));
	CHECK(json_is_false(json_object_get(j, "has_token")));
	CHECK_STR(json_string_value(json_array_get(json_object_get(j, "events"), 0)),
	          "comparison.completed");
	json_decref(j);
	CHECK(store_webhook_json(st, 999) == NULL);

	struct store_webhook *v = NULL;
	size_t n = 0;
	CHECK_INT(store_webhooks_for_event(st, "comparison.completed", &v, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_INT(v[0].id, h1);
		CHECK_STR(v[0].secret, "s3cret");
		CHECK(v[0].token == NULL);
		CHECK_STR(v[1].format, "github-status");
		CHECK_STR(v[1].token, "ghp_x");
	}
	store_webhooks_free(v, n);
	CHECK_INT(store_webhooks_for_event(st, "comparison", &v, &n), 0);
	CHECK_INT(n, 0); /* exact event names only */
	store_webhooks_free(v, n);

	/* queue: two deliveries for h1, one for h2 */
	int64_t d1, d2, d3;
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_delivery_create(st, h1, 7, "comparison.completed", 1000, &d1), 0);
	CHECK_INT(store_delivery_set_body(st, d1, "http://a/x", "{\"n\":1}"), 0);
	CHECK_INT(store_delivery_create(st, h1, 8, "comparison.completed", 2000, &d2), 0);
	CHECK_INT(store_delivery_set_body(st, d2, "http://a/x", "{\"n\":2}"), 0);
	CHECK_INT(store_delivery_create(st, h2, 8, "comparison.completed", 1500, &d3), 0);
	CHECK_INT(store_delivery_give_up(st, d3, "no commit"), 0);
	CHECK_INT(store_delivery_create(st, 999, 8, "comparison.completed", 1500, &d3),
	          STORE_NOT_FOUND);
	CHECK_INT(store_tx_commit(st), 0);

	int64_t due = 0;
	CHECK_INT(store_delivery_next_due(st, &due), 0);
	CHECK_INT(due, 1000);
	struct store_delivery d;
	CHECK_INT(store_delivery_claim(st, 999, 5000, &d), STORE_NOT_FOUND); /* not due yet */
	CHECK_INT(store_delivery_claim(st, 1000, 5000, &d), 0);
	CHECK_INT(d.id, d1);
	CHECK_INT(d.comparison_id, 7);
	CHECK_INT(d.attempts, 0);
	CHECK_STR(d.payload, "{\"n\":1}");
	CHECK_STR(d.secret, "s3cret");
	CHECK_STR(d.format, "generic");
	store_delivery_free(&d);
	/* leased: the second claimer gets nothing until d2 is due */
	CHECK_INT(store_delivery_claim(st, 1500, 5000, &d), STORE_NOT_FOUND);
	CHECK_INT(store_delivery_next_due(st, &due), 0);
	CHECK_INT(due, 2000);
	/* a 500: retry later */
	CHECK_INT(store_delivery_record(st, d1, 500, "HTTP 500", 12, "pending", 3000), 0);
	CHECK_INT(store_delivery_claim(st, 2500, 5000, &d), 0);
	CHECK_INT(d.id, d2);
	store_delivery_free(&d);
	CHECK_INT(store_delivery_record(st, d2, 200, NULL, 5, "delivered", 0), 0);
	CHECK_INT(store_delivery_claim(st, 3000, 5000, &d), 0);
	CHECK_INT(d.id, d1);
	CHECK_INT(d.attempts, 1);
	store_delivery_free(&d);
	/* lease dropped by a stopping sender: claimable again at once */
	CHECK_INT(store_delivery_release(st, d1), 0);
	CHECK_INT(store_delivery_claim(st, 3000, 5000, &d), 0);
	store_delivery_free(&d);
	int released = -1;
	CHECK_INT(store_deliveries_release_all(st, &released), 0);
	CHECK_INT(released, 1);
	CHECK_INT(store_delivery_record(st, d1, 0, "connection refused", 1, "failed", 0), 0);
	CHECK_INT(store_delivery_record(st, d1, 0, "x", 1, "bogus", 0), STORE_INVALID);
	CHECK_INT(store_delivery_next_due(st, &due), STORE_NOT_FOUND);

	json_t *list = NULL;
	CHECK_INT(store_deliveries_list(st, h1, 1, NULL, &list), 0);
	json_t *arr = json_object_get(list, "deliveries");
	CHECK_INT(json_array_size(arr), 1);
	json_t *first = json_array_get(arr, 0);
	CHECK_INT(json_integer_value(json_object_get(first, "id")), d2); /* newest first */
	CHECK_STR(json_string_value(json_object_get(first, "status")), "delivered");
	CHECK(json_is_null(json_object_get(first, "next_attempt_at")));
	const char *cursor = json_string_value(json_object_get(list, "next_cursor"));
	CHECK(cursor != NULL);
	json_t *page2 = NULL;
	CHECK_INT(store_deliveries_list(st, h1, 1, cursor, &page2), 0);
	json_t *second = json_array_get(json_object_get(page2, "deliveries"), 0);
	CHECK_INT(json_integer_value(json_object_get(second, "id")), d1);
	CHECK_STR(json_string_value(json_object_get(second, "status")), "failed");
	CHECK_INT(json_integer_value(json_object_get(second, "attempts")), 2);
	json_t *log = json_object_get(second, "attempt_log");
	CHECK_INT(json_array_size(log), 2);
	CHECK_INT(json_integer_value(json_object_get(json_array_get(log, 0), "http_status")), 500);
	CHECK(json_is_null(json_object_get(json_array_get(log, 1), "http_status")));
	CHECK_STR(json_string_value(json_object_get(json_array_get(log, 1), "error")),
	          "connection refused");
	CHECK(json_is_null(json_object_get(page2, "next_cursor")));
	json_decref(page2);
	json_decref(list);
	CHECK_INT(store_deliveries_list(st, 999, 0, NULL, &list), STORE_NOT_FOUND);
	CHECK_INT(store_deliveries_list(st, h1, 0, "garbage", &list), STORE_BAD_CURSOR);

	json_t *hooks = NULL;
	CHECK_INT(store_webhooks_list(st, 0, NULL, &hooks), 0);
	CHECK_INT(json_array_size(json_object_get(hooks, "webhooks")), 3);
	CHECK(json_is_null(json_object_get(hooks, "next_cursor")));
	json_decref(hooks);
	/* paged like every list: oldest first, the cursor continues after */
	CHECK_INT(store_webhooks_list(st, 2, NULL, &hooks), 0);
	CHECK_INT(json_array_size(json_object_get(hooks, "webhooks")), 2);
	const char *cur = json_string_value(json_object_get(hooks, "next_cursor"));
	CHECK(cur != NULL);
	json_t *rest = NULL;
	CHECK_INT(store_webhooks_list(st, 2, cur, &rest), 0);
	CHECK_INT(json_array_size(json_object_get(rest, "webhooks")), 1);
	CHECK_INT(json_integer_value(json_object_get(
	                  json_array_get(json_object_get(rest, "webhooks"), 0), "id")),
	          h3);
	CHECK(json_is_null(json_object_get(rest, "next_cursor")));
	json_decref(rest);
	json_decref(hooks);
	CHECK_INT(store_webhooks_list(st, 2, "c5", &hooks), STORE_BAD_CURSOR);
	/* deleting the webhook takes its deliveries and attempts along */
	CHECK_INT(store_webhook_delete(st, h1), 0);
	CHECK_INT(store_webhook_delete(st, h1), STORE_NOT_FOUND);
	CHECK_INT(store_delivery_record(st, d1, 200, NULL, 1, "delivered", 0), STORE_NOT_FOUND);
	CHECK_INT(store_deliveries_list(st, h1, 0, NULL, &list), STORE_NOT_FOUND);
	(void)h3;
}

/* Deliveries with large error texts: pages end at the byte budget and the
 * cursors still reach every delivery once. */
static void test_deliveries_page_bytes(struct store *st)
{
	int64_t h, d;
	size_t elen = 60 * 1024;
	char *error = malloc(elen + 1);
	memset(error, 'e', elen);
	error[elen] = 0;
	CHECK_INT(store_webhook_create(st, "http://big/", "k", "[\"comparison.completed\"]",
	                               "generic", NULL, &h),
	          0);
	CHECK_INT(store_tx_begin(st), 0);
	for (int i = 0; i < 30; i++) {
		CHECK_INT(store_delivery_create(st, h, i, "comparison.completed", 1000, &d), 0);
		CHECK_INT(store_delivery_give_up(st, d, error), 0);
	}
	CHECK_INT(store_tx_commit(st), 0);
	char cursor[64] = "";
	size_t total = 0, pages = 0;
	for (;;) {
		json_t *page = NULL;
		CHECK_INT(store_deliveries_list(st, h, 1000, cursor[0] ? cursor : NULL, &page), 0);
		if (!page)
			break;
		json_t *arr = json_object_get(page, "deliveries"), *it;
		size_t bytes = 0, i;
		CHECK(json_array_size(arr) >= 1);
		json_array_foreach(arr, i, it) bytes += json_dumpb(it, NULL, 0, JSON_COMPACT) + 1;
		CHECK(bytes <= STORE_PAGE_BYTES);
		total += json_array_size(arr);
		pages++;
		const char *next = json_string_value(json_object_get(page, "next_cursor"));
		if (next)
			snprintf(cursor, sizeof cursor, "%s", next);
		json_decref(page);
		if (!next || pages > 100)
			break;
	}
	CHECK_INT(total, 30);
	CHECK(pages >= 2);
	free(error);
}

int main(void)
{
	if (!CHECK_MKDTEMP(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char path[256], err[256];
	snprintf(path, sizeof path, "%s/parity.db", dir);
	struct store *st = NULL;
	if (store_open(path, &st, err, sizeof err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	test_tokens(st);
	test_webhooks(st);
	test_deliveries_page_bytes(st);
	store_close(st);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return check_report();
}
