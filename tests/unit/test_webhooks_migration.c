/* test_webhooks_migration.c - migration 010 (email webhooks) on a
 * database that has webhooks, deliveries and attempts: rewound to schema
 * 9 (CHECK_DROP_010) and re-opened, every row survives (the format column
 * is replaced in place, no table rebuild could cascade-delete the
 * deliveries), the old formats read back, the format CHECK takes 'email'
 * and still refuses unknown formats. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "store.h"

static char dir[] = "/tmp/parity-hookmig-XXXXXX";
static char path[512];

int main(void)
{
	char err[512];
	struct store *st = NULL;
	sqlite3 *db = NULL;
	int64_t h1, h2, d1;
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/parity.db", dir);
	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	CHECK_INT(store_webhook_create(st, "http://a/x", "s", "[\"comparison.completed\"]",
	                               "generic", NULL, NULL, &h1),
	          0);
	CHECK_INT(store_webhook_create(st, "http://b/{sha}", "", "[\"comparison.completed\"]",
	                               "github-status", "tok", NULL, &h2),
	          0);
	CHECK_INT(store_delivery_create(st, h1, 7, "comparison.completed", 0, &d1), 0);
	CHECK_INT(store_delivery_set_body(st, d1, "http://a/x", "{}"), 0);
	CHECK_INT(store_delivery_record(st, d1, 500, "HTTP 500", 3, "pending", 1000), 0);
	store_close(st);

	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db,
	                       "BEGIN; " CHECK_DROP_010
	                       "DELETE FROM schema_migrations WHERE version >= 10; "
	                       "PRAGMA user_version=9; COMMIT;",
	                       NULL, NULL, NULL),
	          SQLITE_OK);
	CHECK_INT(sqlite3_exec(db,
	                       "INSERT INTO webhooks(url, events, format, created_at) "
	                       "VALUES ('m', '[]', 'email', 'x')",
	                       NULL, NULL, NULL),
	          SQLITE_CONSTRAINT); /* the rewind restored the old CHECK */
	sqlite3_close(db);

	CHECK_INT(store_open(path, &st, err, sizeof err), 0);
	struct store_webhook_view v;
	CHECK_INT(store_webhook_get(st, h1, &v), 0);
	CHECK_STR(v.hook.format, "generic");
	CHECK(v.hook.has_secret);
	CHECK_INT(v.hook.n_to, 0);
	store_webhook_view_free(&v);
	CHECK_INT(store_webhook_get(st, h2, &v), 0);
	CHECK_STR(v.hook.format, "github-status");
	CHECK(v.hook.has_token);
	store_webhook_view_free(&v);
	struct store_delivery_page page;
	CHECK_INT(store_deliveries_list(st, h1, 10, NULL, &page), 0);
	CHECK_INT(page.n_deliveries, 1);
	if (page.n_deliveries == 1) {
		CHECK_INT(page.deliveries[0].id, d1);
		CHECK_INT(page.deliveries[0].n_attempt_log, 1);
		CHECK_STR(page.deliveries[0].last_error, "HTTP 500");
	}
	store_delivery_page_free(&page);
	int64_t h3;
	CHECK_INT(store_webhook_create(st, "mailto:a@x.org", "", "[\"suite.completed\"]", "email",
	                               NULL, "[\"a@x.org\"]", &h3),
	          0);
	store_close(st);
	CHECK_INT(sqlite3_open(path, &db), SQLITE_OK);
	CHECK_INT(sqlite3_exec(db,
	                       "INSERT INTO webhooks(url, events, format, created_at) "
	                       "VALUES ('m', '[]', 'slack', 'x')",
	                       NULL, NULL, NULL),
	          SQLITE_CONSTRAINT);
	sqlite3_close(db);

	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_report();
}
