/* test_web_views.c - the API documents of the store's views
 * (web/json_views.h) byte for byte: key order, null for absent values,
 * activation vs training log fields, warnings only when read, meta and
 * policy parsed from their stored text (unreadable meta: {}), cursors
 * null on the last page, invalid UTF-8 repaired with U+FFFD. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_views.h"

/* Compact dump of a new reference (freed), compared with want. */
static void check_dump(json_t *j, const char *want)
{
	char *got = j ? json_dumps(j, JSON_COMPACT) : NULL;
	CHECK_STR(got, want);
	free(got);
	json_decref(j);
}

static void test_runs(void)
{
	const char *ex[] = {"_to_copy", "view"};
	struct store_warning_view w = {"unknown_line", 17, "unrecognised", ""};
	struct store_log_view la = {.id = 3,
	                            .rank = 0,
	                            .filename = "r0.log",
	                            .bytes = 99,
	                            .sha256 = "ab",
	                            .n_items = 5,
	                            .n_lines = 40,
	                            .n_warnings = 2,
	                            .has_header_total = 1,
	                            .header_total = 5,
	                            .has_excluded = 1,
	                            .excluded = ex,
	                            .n_excluded = 2,
	                            .warnings = &w,
	                            .n_warnings_listed = 1};
	struct store_log_view lb = {.id = 4, .rank = 1, .sha256 = "cd", .n_items = 1};
	struct store_log_view logs[2] = {la, lb};
	struct store_run run = {.id = 7,
	                        .name = "bad\xff",
	                        .kind = "activation",
	                        .meta_json = "{\"commit\":\"c0\",\"n\":2}",
	                        .created_at = "2026-12-01T00:00:00Z",
	                        .with_warnings = 1,
	                        .logs = logs,
	                        .n_logs = 2};
	check_dump(web_run_json(&run),
	           "{\"id\":7,\"name\":\"bad\xef\xbf\xbd\",\"kind\":\"activation\","
	           "\"meta\":{\"commit\":\"c0\",\"n\":2},\"created_at\":\"2026-12-01T00:00:00Z\","
	           "\"logs\":[{\"id\":3,\"rank\":0,\"filename\":\"r0.log\",\"bytes\":99,"
	           "\"sha256\":\"ab\",\"entries\":5,\"lines\":40,\"n_warnings\":2,"
	           "\"header_total\":5,\"excluded_ops\":[\"_to_copy\",\"view\"],\"warnings\":"
	           "[{\"code\":\"unknown_line\",\"line\":17,\"message\":\"unrecognised\","
	           "\"excerpt\":\"\"}]},{\"id\":4,\"rank\":1,\"filename\":null,\"bytes\":0,"
	           "\"sha256\":\"cd\",\"entries\":1,\"lines\":0,\"n_warnings\":0,"
	           "\"header_total\":null,\"excluded_ops\":null,\"warnings\":[]}]}");
	/* a training run in a list: no warnings, steps counts, broken meta */
	struct store_log_view lt = {.id = 5,
	                            .rank = 0,
	                            .filename = "out",
	                            .bytes = 1,
	                            .sha256 = "ef",
	                            .n_items = 100,
	                            .n_validation = 4,
	                            .n_lines = 500,
	                            .source = "tfevents"};
	struct store_run tr = {.id = 8,
	                       .name = "",
	                       .kind = "training",
	                       .meta_json = "[1",
	                       .created_at = "t",
	                       .logs = &lt,
	                       .n_logs = 1};
	struct store_run_page page = {.runs = &tr, .n_runs = 1};
	check_dump(web_runs_page_json(&page),
	           "{\"runs\":[{\"id\":8,\"name\":\"\",\"kind\":\"training\",\"meta\":{},"
	           "\"created_at\":\"t\",\"logs\":[{\"id\":5,\"rank\":0,\"filename\":\"out\","
	           "\"bytes\":1,\"sha256\":\"ef\",\"steps\":100,\"validation_steps\":4,"
	           "\"source\":\"tfevents\",\"precision\":\"float32\",\"lines\":500,\"n_warnings\":"
	           "0}]}],\"next_cursor\":null}");
	snprintf(page.next_cursor, sizeof page.next_cursor, "r8");
	page.n_runs = 0;
	check_dump(web_runs_page_json(&page), "{\"runs\":[],\"next_cursor\":\"r8\"}");
}

static void test_comparisons(void)
{
	struct store_run ra = {.id = 1, .name = "a", .kind = "activation", .created_at = "t1"};
	struct store_comparison c = {.id = 9,
	                             .name = "pr",
	                             .kind = "activation",
	                             .status = "done",
	                             .verdict = "fail",
	                             .baseline_id = 1,
	                             .candidate_id = 2,
	                             .baseline = &ra,
	                             .candidate = NULL,
	                             .policy_json = "{\"name\":\"bitwise\"}",
	                             .result_json = "{\"verdict\":\"fail\"}",
	                             .created_at = "t0",
	                             .started_at = "t1",
	                             .finished_at = "t2"};
	check_dump(web_comparison_json(&c, 1),
	           "{\"id\":9,\"name\":\"pr\",\"kind\":\"activation\",\"status\":\"done\","
	           "\"verdict\":\"fail\",\"baseline\":1,\"candidate\":2,\"policy\":{\"name\":"
	           "\"bitwise\"},\"result\":{\"verdict\":\"fail\"},\"error\":null,\"created_at\":"
	           "\"t0\",\"started_at\":\"t1\",\"finished_at\":\"t2\",\"runs\":{\"baseline\":"
	           "{\"id\":1,\"name\":\"a\",\"kind\":\"activation\",\"meta\":{},\"created_at\":"
	           "\"t1\"},\"candidate\":null}}");
	struct store_comparison q = {.id = 10,
	                             .name = "",
	                             .kind = "training",
	                             .status = "queued",
	                             .baseline_id = 3,
	                             .candidate_id = 3,
	                             .created_at = "t"};
	struct store_comparison_page p = {.cmps = &q, .n_cmps = 1};
	check_dump(web_comparisons_page_json(&p),
	           "{\"comparisons\":[{\"id\":10,\"name\":\"\",\"kind\":\"training\",\"status\":"
	           "\"queued\",\"verdict\":null,\"baseline\":3,\"candidate\":3,\"policy\":null,"
	           "\"error\":null,\"created_at\":\"t\",\"started_at\":null,\"finished_at\":null,"
	           "\"runs\":{\"baseline\":null,\"candidate\":null}}],\"next_cursor\":null}");
}

static void test_webhooks_tokens(void)
{
	const char *ev[] = {"comparison.completed"};
	struct store_webhook_public h = {.id = 2,
	                                 .url = "http://x/",
	                                 .events = ev,
	                                 .n_events = 1,
	                                 .format = "generic",
	                                 .has_secret = 1,
	                                 .created_at = "t"};
	struct store_webhook_page hp = {.hooks = &h, .n_hooks = 1, .next_cursor = "h2"};
	check_dump(web_webhooks_page_json(&hp),
	           "{\"webhooks\":[{\"id\":2,\"url\":\"http://x/\",\"events\":"
	           "[\"comparison.completed\"],\"format\":\"generic\",\"has_secret\":true,"
	           "\"has_token\":false,\"created_at\":\"t\"}],\"next_cursor\":\"h2\"}");
	struct store_attempt_info at[2] = {{"a1", 1, 500, "HTTP 500", 12}, {"a2", 0, 0, NULL, 3}};
	struct store_delivery_info d = {.id = 5,
	                                .webhook_id = 2,
	                                .comparison_id = 9,
	                                .event = "comparison.completed",
	                                .url = "http://x/",
	                                .status = "failed",
	                                .attempts = 2,
	                                .created_at = "c",
	                                .finished_at = "f",
	                                .attempt_log = at,
	                                .n_attempt_log = 2};
	struct store_delivery_page dp = {.deliveries = &d, .n_deliveries = 1};
	check_dump(
	        web_deliveries_page_json(&dp),
	        "{\"deliveries\":[{\"id\":5,\"webhook_id\":2,\"comparison_id\":9,\"event\":"
	        "\"comparison.completed\",\"url\":\"http://x/\",\"status\":\"failed\","
	        "\"attempts\":2,\"next_attempt_at\":null,\"last_error\":null,\"created_at\":"
	        "\"c\",\"finished_at\":\"f\",\"attempt_log\":[{\"at\":\"a1\",\"http_status\":500,"
	        "\"error\":\"HTTP 500\",\"duration_ms\":12},{\"at\":\"a2\",\"http_status\":null,"
	        "\"error\":null,\"duration_ms\":3}]}],\"next_cursor\":null}");
	struct store_token_info t[2] = {{1, "ci", "t1", "t2"}, {2, "dev", "t3", NULL}};
	struct store_token_list tl = {.tokens = t, .n_tokens = 2};
	check_dump(
	        web_tokens_json(&tl),
	        "{\"tokens\":[{\"id\":1,\"name\":\"ci\",\"created_at\":\"t1\",\"revoked_at\":"
	        "\"t2\"},{\"id\":2,\"name\":\"dev\",\"created_at\":\"t3\",\"revoked_at\":null}]}");
}

static void test_steps(void)
{
	struct store_step_metric m[2] = {{"loss", "2.5", 1, 2.5}, {"grad_norm", "nan", 0, 0}};
	struct store_run_step x = {
	        .step = 3, .rank = 1, .line = 40, .copies = 2, .metrics = m, .n_metrics = 2};
	struct store_run_step_page p = {.steps = &x, .n_steps = 1, .next_cursor = "s3.9"};
	check_dump(web_run_steps_page_json(&p),
	           "{\"steps\":[{\"step\":3,\"rank\":1,\"line\":40,\"copies\":2,\"metrics\":"
	           "{\"loss\":{\"text\":\"2.5\",\"value\":2.5},\"grad_norm\":{\"text\":\"nan\","
	           "\"value\":null}}}],\"next_cursor\":\"s3.9\"}");
}

int main(void)
{
	test_steps();
	test_runs();
	test_comparisons();
	test_webhooks_tokens();
	return check_report();
}
