/* test_store_webhooks.c - tokens (create, unique names, find by digest,
 * revoke, list) and the webhook delivery queue (subscription by event,
 * claim with leases, due times, attempts recorded with outcomes, cascade
 * on webhook delete, paging of the webhooks and deliveries lists, by count
 * and by bytes) on a fresh database after all migrations; a missing
 * webhook leaves the caller's transaction usable; PostgreSQL: claims of
 * two owners (daemons) are owner-checked and taken over after expiry. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "storetest.h"
#include "store.h"

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
	struct store_token_list list;
	CHECK_INT(store_tokens_list(st, &list), 0);
	CHECK(list.n_tokens >= 1);
	if (list.n_tokens >= 1) {
		CHECK_STR(list.tokens[0].name, "ci");
		CHECK(list.tokens[0].revoked_at != NULL);
		CHECK(list.tokens[0].created_at != NULL);
		CHECK(list.tokens[0].id > 0);
	}
	store_token_list_free(&list);
}

static void test_webhooks(struct store *st)
{
	int64_t h1, h2, h3;
	CHECK_INT(store_webhook_create(st, "http://a/x", "s3cret", "[\"comparison.completed\"]",
	                               "generic", NULL, NULL, &h1),
	          0);
	CHECK_INT(store_webhook_create(st, "http://b/{sha}", "", "[\"comparison.completed\"]",
	                               "github-status", "ghp_x", NULL, &h2),
	          0);
	CHECK_INT(store_webhook_create(st, "http://c/", "k", "[\"other.event\"]", "generic", NULL,
	                               NULL, &h3),
	          0);
	CHECK_INT(store_webhook_create(st, "http://c/", "k", "[]", "slack", NULL, NULL, NULL),
	          STORE_INVALID);
	/* email needs recipients, the others take none */
	int64_t h4;
	CHECK_INT(store_webhook_create(st, "mailto:a@x.org", "", "[\"suite.completed\"]", "email",
	                               NULL, NULL, NULL),
	          STORE_INVALID);
	CHECK_INT(store_webhook_create(st, "http://c/", "k", "[]", "generic", NULL, "[\"a@x.org\"]",
	                               NULL),
	          STORE_INVALID);
	CHECK_INT(store_webhook_create(st, "mailto:a@x.org,b@y.org", "", "[\"suite.completed\"]",
	                               "email", NULL, "[\"a@x.org\",\"b@y.org\"]", &h4),
	          0);
	struct store_webhook_view ev;
	CHECK_INT(store_webhook_get(st, h4, &ev), 0);
	CHECK_STR(ev.hook.format, "email");
	CHECK_INT(ev.hook.n_to, 2);
	CHECK_STR(ev.hook.to[1], "b@y.org");
	store_webhook_view_free(&ev);
	struct store_webhook *eh = NULL;
	size_t n_eh = 0;
	CHECK_INT(store_webhooks_for_event(st, "suite.completed", &eh, &n_eh), 0);
	CHECK_INT(n_eh, 1);
	CHECK_STR(eh[0].recipients, "[\"a@x.org\",\"b@y.org\"]");
	store_webhooks_free(eh, n_eh);
	CHECK_INT(store_webhook_delete(st, h4), 0);
	struct store_webhook_view hv;
	CHECK_INT(store_webhook_get(st, h1, &hv), 0);
	CHECK_INT(hv.hook.id, h1);
	CHECK_STR(hv.hook.url, "http://a/x");
	CHECK_STR(hv.hook.format, "generic");
	CHECK_INT(hv.hook.has_secret, 1);
	CHECK_INT(hv.hook.has_token, 0);
	CHECK_INT(hv.hook.n_events, 1);
	CHECK_STR(hv.hook.n_events ? hv.hook.events[0] : NULL, "comparison.completed");
	CHECK(hv.hook.created_at != NULL);
	store_webhook_view_free(&hv);
	CHECK_INT(store_webhook_get(st, h2, &hv), 0);
	CHECK_INT(hv.hook.has_secret, 0);
	CHECK_INT(hv.hook.has_token, 1);
	CHECK_STR(hv.hook.format, "github-status");
	store_webhook_view_free(&hv);
	CHECK_INT(store_webhook_get(st, 999, &hv), STORE_NOT_FOUND);
	store_webhook_view_free(&hv);

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

	struct store_delivery_page list, page2;
	CHECK_INT(store_deliveries_list(st, h1, 1, NULL, &list), 0);
	CHECK_INT(list.n_deliveries, 1);
	const struct store_delivery_info *first = list.n_deliveries ? &list.deliveries[0] : NULL;
	CHECK_INT(first ? first->id : 0, d2); /* newest first */
	CHECK_STR(first ? first->status : NULL, "delivered");
	CHECK(first && first->next_attempt_at == NULL);
	CHECK(first && first->webhook_id == h1);
	CHECK(list.next_cursor[0] != 0);
	CHECK_INT(store_deliveries_list(st, h1, 1, list.next_cursor, &page2), 0);
	const struct store_delivery_info *second = page2.n_deliveries ? &page2.deliveries[0] : NULL;
	CHECK_INT(second ? second->id : 0, d1);
	CHECK_STR(second ? second->status : NULL, "failed");
	CHECK_INT(second ? second->attempts : 0, 2);
	CHECK_INT(second ? second->n_attempt_log : 0, 2);
	if (second && second->n_attempt_log == 2) {
		CHECK_INT(second->attempt_log[0].has_http_status, 1);
		CHECK_INT(second->attempt_log[0].http_status, 500);
		CHECK_INT(second->attempt_log[1].has_http_status, 0);
		CHECK_STR(second->attempt_log[1].error, "connection refused");
	}
	CHECK_STR(page2.next_cursor, "");
	store_delivery_page_free(&page2);
	store_delivery_page_free(&list);
	CHECK_INT(store_deliveries_list(st, 999, 0, NULL, &list), STORE_NOT_FOUND);
	store_delivery_page_free(&list);
	CHECK_INT(store_deliveries_list(st, h1, 0, "garbage", &list), STORE_BAD_CURSOR);
	store_delivery_page_free(&list);

	struct store_webhook_page hooks, rest;
	CHECK_INT(store_webhooks_list(st, 0, NULL, &hooks), 0);
	CHECK_INT(hooks.n_hooks, 3);
	CHECK_STR(hooks.next_cursor, "");
	store_webhook_page_free(&hooks);
	/* paged like every list: oldest first, the cursor continues after */
	CHECK_INT(store_webhooks_list(st, 2, NULL, &hooks), 0);
	CHECK_INT(hooks.n_hooks, 2);
	CHECK(hooks.next_cursor[0] != 0);
	CHECK_INT(store_webhooks_list(st, 2, hooks.next_cursor, &rest), 0);
	CHECK_INT(rest.n_hooks, 1);
	CHECK_INT(rest.n_hooks ? rest.hooks[0].id : 0, h3);
	CHECK_STR(rest.n_hooks ? rest.hooks[0].events[0] : NULL, "other.event");
	CHECK_STR(rest.next_cursor, "");
	store_webhook_page_free(&rest);
	store_webhook_page_free(&hooks);
	CHECK_INT(store_webhooks_list(st, 2, "c5", &hooks), STORE_BAD_CURSOR);
	store_webhook_page_free(&hooks);
	/* deleting the webhook takes its deliveries and attempts along */
	CHECK_INT(store_webhook_delete(st, h1), 0);
	CHECK_INT(store_webhook_delete(st, h1), STORE_NOT_FOUND);
	CHECK_INT(store_delivery_record(st, d1, 200, NULL, 1, "delivered", 0), STORE_NOT_FOUND);
	CHECK_INT(store_deliveries_list(st, h1, 0, NULL, &list), STORE_NOT_FOUND);
	store_delivery_page_free(&list);
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
	                               "generic", NULL, NULL, &h),
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
		struct store_delivery_page page;
		CHECK_INT(store_deliveries_list(st, h, 1000, cursor[0] ? cursor : NULL, &page), 0);
		size_t bytes = 0;
		CHECK(page.n_deliveries >= 1);
		/* the documented estimate: text + 256 a delivery (no attempts here) */
		for (size_t i = 0; i < page.n_deliveries; i++) {
			const struct store_delivery_info *x = &page.deliveries[i];
			bytes += 1 + 256 + strlen(x->event) + strlen(x->url) + strlen(x->status) +
			         (x->last_error ? strlen(x->last_error) : 0) +
			         strlen(x->created_at) +
			         (x->finished_at ? strlen(x->finished_at) : 0);
			CHECK_STR(x->last_error, error);
		}
		CHECK(bytes <= STORE_PAGE_BYTES);
		total += page.n_deliveries;
		pages++;
		snprintf(cursor, sizeof cursor, "%s", page.next_cursor);
		store_delivery_page_free(&page);
		if (!cursor[0] || pages > 100)
			break;
	}
	CHECK_INT(total, 30);
	CHECK(pages >= 2);
	free(error);
}

/* A delivery queued for a missing webhook inside the caller's transaction
 * is STORE_NOT_FOUND and leaves the transaction usable on both engines (on
 * PostgreSQL a failed INSERT would abort it): the next delivery and the
 * COMMIT go through. */
static void test_create_in_tx(struct store *st)
{
	int64_t h = 0, d = 0, d2 = 0;
	CHECK_INT(store_webhook_create(st, "http://tx/", "k", "[\"comparison.completed\"]",
	                               "generic", NULL, NULL, &h),
	          0);
	CHECK_INT(store_tx_begin(st), 0);
	CHECK_INT(store_delivery_create(st, h + 1000, 70, "comparison.completed", 1, &d),
	          STORE_NOT_FOUND);
	CHECK_INT(store_delivery_create(st, h, 70, "comparison.completed", 1, &d), 0);
	CHECK_INT(store_tx_commit(st), 0);
	CHECK_INT(store_delivery_give_up(st, d, "test"), 0);
	CHECK_INT(store_delivery_create(st, h, 71, "comparison.completed", 1, &d2), 0);
	CHECK(d2 > d);
	CHECK_INT(store_delivery_give_up(st, d2, "test"), 0);
	CHECK_INT(store_webhook_delete(st, h), 0);
}

/* PostgreSQL, two daemons (store_set_job_owner): a claim is the owner's;
 * the other owner finds nothing due; record, release and release_all are
 * owner-checked; an expired claim is taken over, and the old owner then
 * records nothing.  The record writes the attempt with it. */
static void test_pg_owners(const char *target)
{
	char err[512];
	struct store *a = NULL, *b = NULL;
	if (store_open(target, &a, err, sizeof err) < 0 ||
	    store_open(target, &b, err, sizeof err) < 0) {
		CHECK(!"open two connections");
		store_close(a);
		return;
	}
	store_set_job_owner(a, "host:1:aaaaaaaa", 60000);
	store_set_job_owner(b, "host:2:bbbbbbbb", 60000);
	int64_t h = 0, d = 0, n_att = -1;
	CHECK_INT(store_webhook_create(a, "http://own/", "k", "[\"comparison.completed\"]",
	                               "generic", NULL, NULL, &h),
	          0);
	CHECK_INT(store_delivery_create(a, h, 80, "comparison.completed", 0, &d), 0);
	CHECK_INT(store_delivery_set_body(a, d, "http://own/", "{}"), 0);
	struct store_delivery da, db;
	CHECK_INT(store_delivery_claim(a, 0, 60000, &da), 0);
	CHECK_INT(da.id, d);
	CHECK_STR(da.url, "http://own/");
	CHECK_STR(da.secret, "k");
	CHECK_INT(store_delivery_claim(b, 0, 60000, &db), STORE_NOT_FOUND);
	/* b's release_all and release leave a's claim */
	int n = -1;
	CHECK_INT(store_deliveries_release_all(b, &n), 0);
	CHECK_INT(n, 0);
	CHECK_INT(store_delivery_release(b, d), 0);
	CHECK_INT(store_delivery_claim(b, 0, 60000, &db), STORE_NOT_FOUND);
	CHECK_INT(store_delivery_record(b, d, 200, NULL, 1, "delivered", 0), STORE_NOT_FOUND);
	/* a retry: recorded pending, due at once, claimable again */
	CHECK_INT(store_delivery_record(a, d, 500, "HTTP 500", 3, "pending", 0), 0);
	store_delivery_free(&da);
	/* b takes it with a 1 ms lease, which expires: a takes it over */
	CHECK_INT(store_delivery_claim(b, 0, 1, &db), 0);
	CHECK_INT(db.id, d);
	CHECK_INT(db.attempts, 1);
	struct timespec pause = {0, 20 * 1000 * 1000};
	nanosleep(&pause, NULL);
	CHECK_INT(store_delivery_claim(a, 0, 60000, &da), 0);
	CHECK_INT(da.id, d);
	CHECK_INT(store_delivery_record(b, d, 200, NULL, 1, "delivered", 0), STORE_NOT_FOUND);
	CHECK_INT(store_deliveries_release_all(a, &n), 0);
	CHECK_INT(n, 1);
	store_delivery_free(&db);
	CHECK_INT(store_delivery_claim(b, 0, 60000, &db), 0); /* released: claimable */
	CHECK_INT(store_delivery_record(b, d, 200, NULL, 2, "delivered", 0), 0);
	store_delivery_free(&da);
	store_delivery_free(&db);
	struct store_delivery_page page;
	CHECK_INT(store_deliveries_list(a, h, 10, NULL, &page), 0);
	if (page.n_deliveries == 1) {
		CHECK_STR(page.deliveries[0].status, "delivered");
		CHECK_INT(page.deliveries[0].attempts, 2);
		n_att = (int64_t)page.deliveries[0].n_attempt_log;
	}
	CHECK_INT(n_att, 2); /* each record wrote its attempt row */
	store_delivery_page_free(&page);
	store_close(a);
	store_close(b);
}

int main(void)
{
	char target[512], err[512];
	if (storetest_target("webhooks", target, sizeof target) < 0)
		return 1;
	struct store *st = NULL;
	if (store_open(target, &st, err, sizeof err) < 0) {
		fprintf(stderr, "open: %s\n", err);
		return 1;
	}
	test_tokens(st);
	test_webhooks(st);
	test_deliveries_page_bytes(st);
	test_create_in_tx(st);
	store_close(st);
	if (storetest_is_pg())
		test_pg_owners(target);
	storetest_cleanup("webhooks");
	return check_report();
}
