/* test_web_views.c - the API documents of the store's views
 * (web/json_views.h) byte for byte: key order, null for absent values,
 * activation vs training log fields, warnings only when read, meta and
 * policy parsed from their stored text (unreadable meta: {}), cursors
 * null on the last page, invalid UTF-8 repaired with U+FFFD; the ops page
 * (numbers only where finite) and the typed activation result
 * (web_act_result_doc: per-rank documents, summed summary, reasons with
 * their ranks, row references paired or one-sided) and the typed training
 * result (web_train_result_doc: metric order kept, NaN/Inf as strings, a
 * one-sided NaN shown "NaN", absent optional fields left out, not-logged
 * metrics with pass null, bad UTF-8 in warnings repaired). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_act.h"
#include "json_train.h"
#include "json_views.h"
#include "trainpolicy.h"

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
	                             .finished_at = "t2",
	                             .baseline_name = "main/x",
	                             .suite = "pr-1",
	                             .config = "fsdp",
	                             .suite_size = 2};
	check_dump(web_comparison_json(&c, 1),
	           "{\"id\":9,\"name\":\"pr\",\"kind\":\"activation\",\"status\":\"done\","
	           "\"verdict\":\"fail\",\"baseline\":1,\"candidate\":2,\"policy\":{\"name\":"
	           "\"bitwise\"},\"result\":{\"verdict\":\"fail\"},\"error\":null,\"created_at\":"
	           "\"t0\",\"started_at\":\"t1\",\"finished_at\":\"t2\",\"baseline_name\":"
	           "\"main/x\",\"suite\":\"pr-1\",\"config\":\"fsdp\",\"suite_size\":2,"
	           "\"runs\":{\"baseline\":"
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
	           "\"baseline_name\":null,\"suite\":null,\"config\":null,\"suite_size\":null,"
	           "\"runs\":{\"baseline\":null,\"candidate\":null}}],\"next_cursor\":null}");
	/* issue 26: a comparison against a baseline set, its members and lane */
	const int64_t set[] = {3, 4, 5};
	struct store_comparison n = {.id = 11,
	                             .name = "",
	                             .kind = "training",
	                             .status = "done",
	                             .verdict = "pass",
	                             .baseline_id = 3,
	                             .candidate_id = 6,
	                             .created_at = "t",
	                             .lane = "within_noise",
	                             .baseline_set = set,
	                             .n_baseline_set = 3};
	check_dump(web_comparison_json(&n, 0),
	           "{\"id\":11,\"name\":\"\",\"kind\":\"training\",\"status\":\"done\","
	           "\"verdict\":\"pass\",\"baseline\":3,\"candidate\":6,\"policy\":null,"
	           "\"baseline_set\":[3,4,5],\"lane\":\"within_noise\",\"error\":null,"
	           "\"created_at\":\"t\",\"started_at\":null,\"finished_at\":null,"
	           "\"baseline_name\":null,\"suite\":null,\"config\":null,\"suite_size\":null,"
	           "\"runs\":{\"baseline\":null,\"candidate\":null}}");
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

/* issue 16: the baseline document ("open" for a change without a token)
 * and the suite verdict (pending, worst of the configs, suite_size). */
static void test_baselines_suites(void)
{
	struct store_baseline_change h[2] = {{1, 5, "t1", NULL, "first", 0, NULL, 0},
	                                     {2, 6, "t2", "ci-bot", "", 9, NULL, 0}};
	struct store_baseline b = {.id = 1,
	                           .name = "main/x",
	                           .run_id = 6,
	                           .created_at = "t1",
	                           .updated_at = "t2",
	                           .n_changes = 2,
	                           .history = h,
	                           .n_history = 2};
	check_dump(web_baseline_json(&b),
	           "{\"name\":\"main/x\",\"run\":6,\"run_doc\":null,\"created_at\":\"t1\","
	           "\"updated_at\":\"t2\",\"changes\":2,\"history\":[{\"run\":5,\"time\":"
	           "\"t1\",\"token\":\"open\",\"note\":\"first\",\"comparison\":null},{\"run\":"
	           "6,\"time\":\"t2\",\"token\":\"ci-bot\",\"note\":\"\",\"comparison\":9}]}");
	struct store_comparison c[2] = {{.id = 1,
	                                 .name = "",
	                                 .kind = "training",
	                                 .status = "done",
	                                 .verdict = "pass",
	                                 .config = "fsdp"},
	                                {.id = 2,
	                                 .name = "",
	                                 .kind = "training",
	                                 .status = "done",
	                                 .verdict = "fail",
	                                 .config = "tp"}};
	struct store_suite_view v = {.latest = c, .n_latest = 2, .n_comparisons = 2};
	CHECK_STR(web_suite_verdict(&v), "fail");
	v.n_pending = 1;
	CHECK_STR(web_suite_verdict(&v), "pending");
	v.n_pending = 0;
	v.expected = 3; /* fewer configs than the suite_size given */
	CHECK_STR(web_suite_verdict(&v), "pending");
	v.expected = 2;
	snprintf(c[1].status, sizeof c[1].status, "failed");
	CHECK_STR(web_suite_verdict(&v), "error");
	v.n_latest = 1;
	json_t *doc = web_suite_json("pr-1", &v);
	CHECK_STR(json_string_value(json_object_get(doc, "verdict")), "pending");
	CHECK(json_is_false(json_object_get(doc, "complete"))); /* 1 of 2 configs */
	CHECK_INT(json_integer_value(json_object_get(doc, "expected_configs")), 2);
	json_decref(doc);
	v.expected = 0;
	CHECK_STR(web_suite_verdict(&v), "pass");
}

static void test_ops(void)
{
	struct store_op op[2];
	memset(op, 0, sizeof op);
	op[0].rank = 1;
	op[0].e.key = "mod\xff/op_2_mm";
	op[0].e.order = 4;
	op[0].e.line = 30;
	op[0].e.phase = MATCHER_BACKWARD;
	op[0].e.stats[MATCHER_STAT_SHAPE] = "[2, 3]";
	op[0].e.stats[MATCHER_STAT_L1] = "nan";
	op[0].e.stat_num[MATCHER_STAT_L1] = NAN;
	op[0].e.stats[MATCHER_STAT_L2] = "2.5e+00";
	op[0].e.stat_num[MATCHER_STAT_L2] = 2.5;
	op[0].e.stats[MATCHER_STAT_MEAN] = "n/a";
	op[0].e.stat_isnum = (1u << MATCHER_STAT_L1) | (1u << MATCHER_STAT_L2);
	op[0].e.output_hash = "1.0";
	op[0].module = "mod\xff";
	op[0].op_index = 2;
	op[0].op_name = "mm";
	op[1].e.key = "loose";
	op[1].op_index = -1;
	struct store_op_page p = {.ops = op, .n_ops = 2, .next_cursor = ""};
	check_dump(web_ops_page_json(&p),
	           "{\"ops\":[{\"rank\":1,\"order\":4,\"line\":30,\"key\":\"mod\xef\xbf\xbd/"
	           "op_2_mm\","
	           "\"module\":\"mod\xef\xbf\xbd\",\"op_index\":2,\"op_name\":\"mm\","
	           "\"phase\":"
	           "\"backward\",\"stats\":{\"Shape\":\"[2, 3]\",\"L1 "
	           "norm\":{\"text\":\"nan\","
	           "\"value\":null},\"L2 norm\":{\"text\":\"2.5e+00\",\"value\":2.5},\"Mean\":"
	           "{\"text\":\"n/"
	           "a\",\"value\":null}},\"output_hash\":\"1.0\",\"input_hashes\":null,"
	           "\"input_producers\":null,\"location\":null},{\"rank\":0,\"order\":0,"
	           "\"line\":0,"
	           "\"key\":\"loose\",\"module\":null,\"op_index\":null,\"op_name\":null,"
	           "\"phase\":"
	           "\"forward\",\"stats\":{},\"output_hash\":null,\"input_hashes\":null,"
	           "\"input_producers\":null,\"location\":null}],\"next_cursor\":null}");
}

static void test_act_result(void)
{
	static const char *const allow[] = {"add"};
	static const char *const ex_a[] = {"view"};
	struct store_act_ref none = {.row = -1};
	struct store_act_ref paired = {
	        7, "a/op_1_mm", "b/op_1_mm", MATCHER_DIFF, MATCHER_FORWARD, MATCHER_METHOD_EXACT, 1,
	        0, 0.5,         -1};
	struct store_act_ref only = {.row = 9,
	                             .a_key = "a/op_2_add",
	                             .status = MATCHER_A_ONLY,
	                             .phase = MATCHER_BACKWARD,
	                             .out_dist = -1,
	                             .in_dist = -1};
	struct store_act_reason rs[3] = {{.rank = 0,
	                                  .in_rank = 1,
	                                  .code = "diff_rows",
	                                  .message = "1 diff",
	                                  .count = 1,
	                                  .first = paired,
	                                  .first_phase = {paired, none},
	                                  .max_hash_distance = 0.5},
	                                 {.rank = 1,
	                                  .in_rank = 1,
	                                  .code = "a_only_rows",
	                                  .message = "1 only",
	                                  .count = 1,
	                                  .tolerated = 0,
	                                  .first = only,
	                                  .first_phase = {none, none},
	                                  .max_hash_distance = -1},
	                                 {.rank = 2,
	                                  .code = "rank_missing",
	                                  .message = "rank 2 exists in the baseline only"}};
	struct store_act_warning w[2] = {{"bad_number", 12, "Mean?", "  Mean: x"},
	                                 {"override_no_comma", 3, "no comma", NULL}};
	struct store_act_unused un = {"x", "y", 2, "a_key_not_found"};
	struct store_act_rank k[2];
	memset(k, 0, sizeof k);
	for (int i = 0; i < 2; i++) {
		k[i].rank = i;
		k[i].name_a = "A";
		k[i].name_b = "B";
		k[i].reasons_at = (size_t)i;
		k[i].n_reasons = 1;
		k[i].n_rows = 10 + i;
		k[i].n_status[MATCHER_MATCH] = 9;
		k[i].n_status[MATCHER_DIFF] = 1 - i;
		k[i].n_status[MATCHER_A_ONLY] = i;
		k[i].n_method[MATCHER_METHOD_EXACT] = 10;
		k[i].n_phase_status[0][MATCHER_MATCH] = 9;
		k[i].max_hash_distance = i ? -1 : 0.5;
		k[i].max_hash_row = i ? -1 : 7;
		k[i].n_entries[0] = 10 + i;
		k[i].n_entries[1] = 10;
		k[i].first_divergence[0] = i ? none : paired;
		k[i].first_divergence[1] = i ? only : none;
	}
	k[0].excluded[0] = ex_a;
	k[0].n_excluded[0] = 1;
	k[0].warnings[STORE_WARN_LOG_A] = &w[0];
	k[0].n_warnings[STORE_WARN_LOG_A] = 1;
	k[1].warnings[STORE_WARN_OVERRIDES] = &w[1];
	k[1].n_warnings[STORE_WARN_OVERRIDES] = 1;
	k[1].overrides_used = 2;
	k[1].unused = &un;
	k[1].n_unused = 1;
	struct store_act_result r = {
	        MATCHER_VERDICT_ERROR, {MATCHER_POLICY_TOLERANCE, 0.25, allow, 1}, rs, 3, k, 2};
	check_dump(web_act_rank_doc(&r, 1),
	           "{\"kind\":\"activation\",\"verdict\":\"pass\",\"reasons\":[{\"code\":\"a_"
	           "only_"
	           "rows\""
	           ",\"message\":\"1 "
	           "only\",\"details\":{\"count\":1,\"tolerated\":0,\"first\":{\"row\":"
	           "9,\"a_key\":\"a/"
	           "op_2_add\",\"b_key\":null,\"status\":\"a_only\",\"phase\":\"backward"
	           "\"}}}],\"policy\":{\"name\":\"tolerance\",\"max_hash_distance\":0.25,"
	           "\"allow_"
	           "only_op"
	           "s\":[\"add\"]},\"names\":{\"a\":\"A\",\"b\":\"B\"},\"summary\":{\"rows\":"
	           "11,"
	           "\"match\""
	           ":9,\"diff\":0,\"a_only\":1,\"b_only\":0,\"methods\":{\"override\":0,"
	           "\"exact\":"
	           "10,\"f"
	           "uzzy\":0,\"stats\":0},\"phases\":{\"forward\":{\"match\":9,\"diff\":0,\"a_"
	           "only\":0,\""
	           "b_only\":0},\"backward\":{\"match\":0,\"diff\":0,\"a_only\":0,\"b_only\":"
	           "0}},"
	           "\"origi"
	           "ns\":0,\"propagated\":0,\"max_hash_distance\":null,\"max_hash_row\":null,"
	           "\"tolerated"
	           "\":0,\"entries\":{\"a\":11,\"b\":10}},\"excluded_ops\":{\"a\":[],\"b\":[]}"
	           ","
	           "\"overrid"
	           "es\":{\"used\":2,\"unused\":[{\"a_key\":\"x\",\"b_key\":\"y\",\"line\":2,"
	           "\"reason\":"
	           "\"a_key_not_found\"}],\"warnings\":[{\"code\":\"override_no_comma\","
	           "\"line\":3,"
	           "\"mes"
	           "sage\":\"no "
	           "comma\"}]},\"log_warnings\":{\"a\":[],\"b\":[]},\"first_divergence\":{\""
	           "forward\":null,\"backward\":{\"row\":9,\"a_key\":\"a/"
	           "op_2_add\",\"b_key\":null,\"sta"
	           "tus\":\"a_only\",\"phase\":\"backward\"}},\"rank\":1}");
	/* the top: rank 0's document without "rank", every reason with its
	 * rank, the integer members of the summaries summed */
	check_dump(web_act_result_doc(&r),
	           "{\"kind\":\"activation\",\"verdict\":\"error\",\"reasons\":[{\"code\":"
	           "\"diff_"
	           "rows\","
	           "\"message\":\"1 "
	           "diff\",\"details\":{\"count\":1,\"tolerated\":0,\"first\":{\"row\":7"
	           ",\"a_key\":\"a/op_1_mm\",\"b_key\":\"b/"
	           "op_1_mm\",\"status\":\"diff\",\"phase\":\"for"
	           "ward\",\"method\":\"exact\",\"origin\":true,\"shape_differs\":false,"
	           "\"output_"
	           "hash_di"
	           "stance\":0.5,\"input_hash_distance\":null},\"first_forward\":{\"row\":7,"
	           "\"a_"
	           "key\":\""
	           "a/op_1_mm\",\"b_key\":\"b/"
	           "op_1_mm\",\"status\":\"diff\",\"phase\":\"forward\",\"meth"
	           "od\":\"exact\",\"origin\":true,\"shape_differs\":false,\"output_hash_"
	           "distance\":0.5,"
	           "\"input_hash_distance\":null},\"first_backward\":null,\"max_hash_"
	           "distance\":0."
	           "5},\"r"
	           "ank\":0},{\"code\":\"a_only_rows\",\"message\":\"1 "
	           "only\",\"details\":{\"count\":1,\""
	           "tolerated\":0,\"first\":{\"row\":9,\"a_key\":\"a/"
	           "op_2_add\",\"b_key\":null,\"status\""
	           ":\"a_only\",\"phase\":\"backward\"}},\"rank\":1},{\"code\":\"rank_"
	           "missing\","
	           "\"messag"
	           "e\":\"rank 2 exists in the baseline "
	           "only\",\"rank\":2}],\"policy\":{\"name\":\"toler"
	           "ance\",\"max_hash_distance\":0.25,\"allow_only_ops\":[\"add\"]},\"names\":"
	           "{"
	           "\"a\":\"A"
	           "\",\"b\":\"B\"},\"summary\":{\"rows\":21,\"match\":18,\"diff\":1,\"a_"
	           "only\":1,"
	           "\"b_on"
	           "ly\":0,\"methods\":{\"override\":0,\"exact\":20,\"fuzzy\":0,\"stats\":0},"
	           "\"phases\":"
	           "{\"forward\":{\"match\":18,\"diff\":0,\"a_only\":0,\"b_only\":0},"
	           "\"backward\":{"
	           "\"mat"
	           "ch\":0,\"diff\":0,\"a_only\":0,\"b_only\":0}},\"origins\":0,"
	           "\"propagated\":0,"
	           "\"max_h"
	           "ash_row\":7,\"tolerated\":0,\"entries\":{\"a\":21,\"b\":20}},\"excluded_"
	           "ops\":{"
	           "\"a\""
	           ":[\"view\"],\"b\":[]},\"overrides\":{\"used\":0,\"unused\":[],"
	           "\"warnings\":[]},"
	           "\"log"
	           "_warnings\":{\"a\":[{\"code\":\"bad_number\",\"line\":12,\"message\":"
	           "\"Mean?\","
	           "\"exc"
	           "erpt\":\"  Mean: "
	           "x\"}],\"b\":[]},\"first_divergence\":{\"forward\":{\"row\":7,\"a_ke"
	           "y\":\"a/op_1_mm\",\"b_key\":\"b/"
	           "op_1_mm\",\"status\":\"diff\",\"phase\":\"forward\","
	           "\"method\":\"exact\",\"origin\":true,\"shape_differs\":false,\"output_"
	           "hash_"
	           "distance\""
	           ":0.5,\"input_hash_distance\":null},\"backward\":null},\"ranks\":[{"
	           "\"kind\":"
	           "\"activat"
	           "ion\",\"verdict\":\"pass\",\"reasons\":[{\"code\":\"diff_rows\","
	           "\"message\":"
	           "\"1 diff"
	           "\",\"details\":{\"count\":1,\"tolerated\":0,\"first\":{\"row\":7,\"a_"
	           "key\":\"a/"
	           "op_1_"
	           "mm\",\"b_key\":\"b/"
	           "op_1_mm\",\"status\":\"diff\",\"phase\":\"forward\",\"method\":\""
	           "exact\",\"origin\":true,\"shape_differs\":false,\"output_hash_distance\":"
	           "0.5,"
	           "\"input"
	           "_hash_distance\":null},\"first_forward\":{\"row\":7,\"a_key\":\"a/"
	           "op_1_mm\",\"b_key\""
	           ":\"b/"
	           "op_1_mm\",\"status\":\"diff\",\"phase\":\"forward\",\"method\":\"exact\","
	           "\"orig"
	           "in\":true,\"shape_differs\":false,\"output_hash_distance\":0.5,\"input_"
	           "hash_"
	           "distance"
	           "\":null},\"first_backward\":null,\"max_hash_distance\":0.5}}],\"policy\":{"
	           "\"name\":\""
	           "tolerance\",\"max_hash_distance\":0.25,\"allow_only_ops\":[\"add\"]},"
	           "\"names\":"
	           "{\"a\""
	           ":\"A\",\"b\":\"B\"},\"summary\":{\"rows\":10,\"match\":9,\"diff\":1,\"a_"
	           "only\":"
	           "0,\"b"
	           "_only\":0,\"methods\":{\"override\":0,\"exact\":10,\"fuzzy\":0,\"stats\":"
	           "0},"
	           "\"phases"
	           "\":{\"forward\":{\"match\":9,\"diff\":0,\"a_only\":0,\"b_only\":0},"
	           "\"backward\":{\"m"
	           "atch\":0,\"diff\":0,\"a_only\":0,\"b_only\":0}},\"origins\":0,"
	           "\"propagated\":0,"
	           "\"max"
	           "_hash_distance\":0.5,\"max_hash_row\":7,\"tolerated\":0,\"entries\":{"
	           "\"a\":10,"
	           "\"b\":"
	           "10}},\"excluded_ops\":{\"a\":[\"view\"],\"b\":[]},\"overrides\":{\"used\":"
	           "0,"
	           "\"unused"
	           "\":[],\"warnings\":[]},\"log_warnings\":{\"a\":[{\"code\":\"bad_number\","
	           "\"line\":12"
	           ",\"message\":\"Mean?\",\"excerpt\":\"  Mean: "
	           "x\"}],\"b\":[]},\"first_divergence\":{\""
	           "forward\":{\"row\":7,\"a_key\":\"a/op_1_mm\",\"b_key\":\"b/"
	           "op_1_mm\",\"status\":\"di"
	           "ff\",\"phase\":\"forward\",\"method\":\"exact\",\"origin\":true,\"shape_"
	           "differs\":fa"
	           "lse,\"output_hash_distance\":0.5,\"input_hash_distance\":null},"
	           "\"backward\":"
	           "null},\""
	           "rank\":0},{\"kind\":\"activation\",\"verdict\":\"pass\",\"reasons\":[{"
	           "\"code\":"
	           "\"a_o"
	           "nly_rows\",\"message\":\"1 "
	           "only\",\"details\":{\"count\":1,\"tolerated\":0,\"first\""
	           ":{\"row\":9,\"a_key\":\"a/"
	           "op_2_add\",\"b_key\":null,\"status\":\"a_only\",\"phase\":"
	           "\"backward\"}}}],\"policy\":{\"name\":\"tolerance\",\"max_hash_distance\":"
	           "0.25,"
	           "\"all"
	           "ow_only_ops\":[\"add\"]},\"names\":{\"a\":\"A\",\"b\":\"B\"},\"summary\":{"
	           "\"rows\":1"
	           "1,\"match\":9,\"diff\":0,\"a_only\":1,\"b_only\":0,\"methods\":{"
	           "\"override\":0,"
	           "\"exa"
	           "ct\":10,\"fuzzy\":0,\"stats\":0},\"phases\":{\"forward\":{\"match\":9,"
	           "\"diff\":"
	           "0,\"a"
	           "_only\":0,\"b_only\":0},\"backward\":{\"match\":0,\"diff\":0,\"a_only\":0,"
	           "\"b_"
	           "only\""
	           ":0}},\"origins\":0,\"propagated\":0,\"max_hash_distance\":null,\"max_hash_"
	           "row\":null"
	           ",\"tolerated\":0,\"entries\":{\"a\":11,\"b\":10}},\"excluded_ops\":{\"a\":"
	           "[],"
	           "\"b\":["
	           "]},\"overrides\":{\"used\":2,\"unused\":[{\"a_key\":\"x\",\"b_key\":\"y\","
	           "\"line\":2"
	           ",\"reason\":\"a_key_not_found\"}],\"warnings\":[{\"code\":\"override_no_"
	           "comma\",\"li"
	           "ne\":3,\"message\":\"no "
	           "comma\"}]},\"log_warnings\":{\"a\":[],\"b\":[]},\"first_dive"
	           "rgence\":{\"forward\":null,\"backward\":{\"row\":9,\"a_key\":\"a/"
	           "op_2_add\",\"b_key\""
	           ":null,\"status\":\"a_only\",\"phase\":\"backward\"}},\"rank\":1}]}");
}

static void test_train_result(void)
{
	struct store_train_result r;
	struct matcher_train_reason rs[2];
	struct matcher_train_metric_result ms[2];
	static const char *const notes[] = {"loss printed with 5 decimals"};
	static const long only_b[] = {7, 9};
	struct matcher_warning w[1] = {{"truncated_line", 12, "cut", "loss: 1.2\xff"}};
	memset(&r, 0, sizeof r);
	memset(rs, 0, sizeof rs);
	memset(ms, 0, sizeof ms);
	matcher_train_policy_preset(&r.policy, "premerge");
	r.verdict = MATCHER_VERDICT_FAIL;
	r.rank = 0;
	rs[0].code = "threshold_exceeded";
	snprintf(rs[0].message, sizeof rs[0].message, "loss differs");
	snprintf(rs[0].metric, sizeof rs[0].metric, "loss");
	rs[0].has_step = 1;
	rs[0].step = 3;
	rs[0].has_abs = 1;
	rs[0].abs = INFINITY;
	snprintf(rs[0].abs_text, sizeof rs[0].abs_text, "NaN");
	rs[0].has_threshold = 1;
	rs[0].threshold = 1e-5;
	rs[0].has_count = 1;
	rs[0].count = 2;
	rs[1].code = "warnings";
	rs[1].is_error = 1;
	snprintf(rs[1].message, sizeof rs[1].message, "1 warning");
	rs[1].side = "candidate";
	rs[1].has_line = 1;
	rs[1].line = 12;
	snprintf(ms[0].name, sizeof ms[0].name, "loss");
	ms[0].th = r.policy.th[0];
	ms[0].present[0] = ms[0].present[1] = 1;
	ms[0].has_resolution = 1;
	ms[0].decimals = 5;
	ms[0].resolution = 1e-5;
	ms[0].n_compared = 4;
	ms[0].max_abs = INFINITY;
	snprintf(ms[0].max_abs_text, sizeof ms[0].max_abs_text, "NaN");
	ms[0].mean_abs = 0.5;
	ms[0].max_rel = NAN;
	ms[0].mean_rel = -INFINITY;
	ms[0].has_max_step = 1;
	ms[0].max_abs_step = 3;
	ms[0].has_first_over = 1;
	ms[0].first_over = 3;
	ms[0].n_over = 2;
	ms[0].nan[1] = 1;
	snprintf(ms[1].name, sizeof ms[1].name, "grad_norm");
	ms[1].th = r.policy.th[1];
	snprintf(ms[1].max_abs_text, sizeof ms[1].max_abs_text, "0");
	ms[1].not_logged = 1;
	r.reasons = rs;
	r.n_reasons = 2;
	r.metrics = ms;
	r.n_metrics = 2;
	r.notes = notes;
	r.n_notes = 1;
	r.n_common = 4;
	r.only[1] = only_b;
	r.n_only_listed[1] = 2;
	r.n_only[1] = 2;
	r.warnings[1] = w;
	r.n_warnings[1] = 1;
	check_dump(
	        web_train_result_doc(&r),
	        "{\"kind\":\"training\",\"verdict\":\"fail\",\"reasons\":[{\"code\":\"threshold_e"
	        "xceeded\",\"message\":\"loss differs\",\"metric\":\"loss\",\"step\":3,\"max_abs\""
	        ":\"NaN\",\"max_abs_exact\":\"NaN\",\"threshold\":1.0000000000000001e-5,\"count\""
	        ":2},{\"code\":\"warnings\",\"message\":\"1 warning\",\"side\":\"candidate\",\"li"
	        "ne\":12}],\"policy\":{\"name\":\"premerge\",\"base\":\"premerge\",\"min_steps\":"
	        "1,\"allow_warnings\":false,\"rank\":null,\"thresholds\":{\"loss\":{\"abs\":1.000"
	        "0000000000001e-5,\"rel\":null},\"grad_norm\":{\"abs\":1.0000000000000001e-5,\"re"
	        "l\":null}},\"metrics\":[\"loss\",\"grad_norm\"],\"if_logged\":[\"grad_norm\"]},\""
	        "rank\":0,\"resolution\":{\"loss\":1.0000000000000001e-5,\"grad_norm\":null},\"no"
	        "tes\":[\"loss printed with 5 decimals\"],\"steps\":{\"common\":4,\"only_baseline"
	        "\":[],\"only_candidate\":[7,9],\"only_baseline_count\":0,\"only_candidate_count\""
	        ":2},\"metrics\":{\"loss\":{\"max_abs\":\"NaN\",\"max_abs_exact\":\"NaN\",\"mean_"
	        "abs\":0.5,\"max_rel\":\"NaN\",\"mean_rel\":\"-Inf\",\"max_abs_step\":3,\"first_o"
	        "ver\":3,\"over\":2,\"compared\":4,\"nan\":[0,1],\"inf\":[0,0],\"present\":[true,"
	        "true],\"threshold\":{\"abs\":1.0000000000000001e-5,\"rel\":null},\"resolution\":"
	        "1.0000000000000001e-5,\"decimals\":5,\"below_resolution\":false,\"pass\":false,\""
	        "not_logged\":false},\"grad_norm\":{\"max_abs\":0.0,\"max_abs_exact\":\"0\",\"mea"
	        "n_abs\":0.0,\"max_rel\":0.0,\"mean_rel\":0.0,\"max_abs_step\":null,\"first_over\""
	        ":null,\"over\":0,\"compared\":0,\"nan\":[0,0],\"inf\":[0,0],\"present\":[false,f"
	        "alse],\"threshold\":{\"abs\":1.0000000000000001e-5,\"rel\":null},\"resolution\":"
	        "null,\"decimals\":null,\"below_resolution\":false,\"pass\":null,\"not_logged\":t"
	        "rue}},\"warnings\":{\"baseline\":[],\"candidate\":[{\"code\":\"truncated_line\","
	        "\"line\":12,\"message\":\"cut\",\"excerpt\":\"loss: 1.2\xEF\xBF\xBD\"}]}}");
}

/* A training comparison's stored policy form (matcher/trainpolicy.h) is
 * served as the policy JSON the API always gave: web_train_policy_json of
 * the same policy, byte for byte; a stored JSON text (older comparisons)
 * as it is; the mail's policy name from either. */
static void test_stored_policy(void)
{
	struct matcher_train_policy p;
	struct buf text = BUF_INIT;
	char name[64];
	CHECK_INT(matcher_train_policy_preset(&p, "premerge"), 0);
	CHECK_INT(matcher_train_policy_set(&p, "loss", 1e-3, 0.25, 1), 0);
	p.rank = 2;
	CHECK_INT(matcher_train_policy_format(&p, &text), 0);
	struct store_comparison c = {.id = 4, .name = "", .kind = "training", .status = "queued"};
	c.policy_json = text.data;
	json_t *doc = web_comparison_json(&c, 0), *want = web_train_policy_json(&p);
	char *a = json_dumps(json_object_get(doc, "policy"), JSON_COMPACT);
	char *b = json_dumps(want, JSON_COMPACT);
	CHECK(a && b);
	if (a && b)
		CHECK_STR(a, b);
	web_stored_policy_name(c.policy_json, name, sizeof name);
	CHECK_STR(name, "custom");
	free(a);
	json_decref(doc);
	/* an older comparison's JSON text */
	c.policy_json = b;
	doc = web_comparison_json(&c, 0);
	a = json_dumps(json_object_get(doc, "policy"), JSON_COMPACT);
	if (a && b)
		CHECK_STR(a, b);
	web_stored_policy_name(c.policy_json, name, sizeof name);
	CHECK_STR(name, "custom");
	free(a);
	free(b);
	json_decref(doc);
	json_decref(want);
	buf_reset(&text);
}

int main(void)
{
	test_stored_policy();
	test_baselines_suites();
	test_train_result();
	test_steps();
	test_ops();
	test_act_result();
	test_runs();
	test_comparisons();
	test_webhooks_tokens();
	return check_report();
}
