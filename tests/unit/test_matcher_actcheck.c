/* test_matcher_actcheck.c - activation verdicts: the bitwise policy, the
 * tolerance policy (hash distance bound, shapes must agree, allowed
 * only-ops by ATen op name), reasons with counts and first divergence,
 * policy validation, and combining ranks (worst wins). */
#include <stdlib.h>
#include <string.h>

#include "actview.h"
#include "actcheck.h"
#include "actlog.h"
#include "check.h"
#include "match.h"

#define HDR "Total captured activations: 0\n====\n\n"

static struct matcher_actlog *logs[16];
static size_t n_logs;

static struct matcher_match_result *match2(const char *ta, const char *tb)
{
	struct matcher_actlog *a = NULL, *b = NULL;
	struct matcher_match_result *r = NULL;
	struct matcher_error err;

	CHECK(matcher_actlog_parse_buffer(ta, strlen(ta), &a, &err) == 0);
	CHECK(matcher_actlog_parse_buffer(tb, strlen(tb), &b, &err) == 0);
	if (a && b)
		CHECK(matcher_match(a, b, NULL, &r) == 0);
	logs[n_logs++] = a;
	logs[n_logs++] = b;
	return r;
}

static const char *const A_LOG =
        HDR "[m/op_0_mm]\n  Shape: S\n  Output hash: 1.0\n"
            "[m/op_1_mm]\n  Shape: S\n  Output hash: 100.0\n  Input hashes: 1.0\n"
            "[m/op_2_mm]\n  Shape: S\n  Output hash: 5\n  Phase: backward\n"
            "[<none>/op_3_wait_tensor]\n  Output hash: 7\n"
            "[m/op_4_relu]\n  Output hash: 77\n";
static const char *const B_LOG =
        HDR "[m/op_0_mm]\n  Shape: S\n  Output hash: 1.0\n"
            "[m/op_1_mm]\n  Shape: S\n  Output hash: 100.00001\n  Input hashes: 1.0\n"
            "[m/op_2_mm]\n  Shape: T\n  Output hash: 5\n  Phase: backward\n"
            "[<none>/op_0_all_gather_into_tensor_out]\n  Output hash: 3\n";

static void test_bitwise(void)
{
	struct matcher_match_result *same = match2(A_LOG, A_LOG), *r = match2(A_LOG, B_LOG);
	struct matcher_act_verdict v;
	struct matcher_act_policy p;

	CHECK(same && r);
	if (!same || !r) {
		matcher_match_result_free(same);
		matcher_match_result_free(r);
		return;
	}
	matcher_act_policy_init(&p);
	CHECK_STR(matcher_act_policy_name(&p), "bitwise");
	CHECK(matcher_act_check(same, &p, &v) == 0);
	CHECK_INT(v.verdict, MATCHER_VERDICT_PASS);
	CHECK_INT(v.n_reasons, 0);
	CHECK(matcher_act_check(same, NULL, &v) == 0); /* NULL = bitwise */
	CHECK_INT(v.verdict, MATCHER_VERDICT_PASS);

	/* rows: 0 match, 1 diff (ulp), 2 diff (shape, backward), 3 a_only
	 * wait_tensor, 4 a_only relu, 5 b_only all_gather */
	CHECK_INT(r->n_rows, 6);
	CHECK(matcher_act_check(r, &p, &v) == 0);
	CHECK_INT(v.verdict, MATCHER_VERDICT_FAIL);
	CHECK_INT(v.n_reasons, 3);
	CHECK_STR(v.reasons[0].code, "diff_rows");
	CHECK_INT(v.reasons[0].count, 2);
	CHECK_INT(v.reasons[0].first_row, 1);
	CHECK_INT(v.reasons[0].first_row_phase[MATCHER_FORWARD], 1);
	CHECK_INT(v.reasons[0].first_row_phase[MATCHER_BACKWARD], 2);
	CHECK(strstr(v.reasons[0].message, "2 paired ops differ") != NULL);
	CHECK(strstr(v.reasons[0].message, "row 1 m/op_1_mm") != NULL);
	CHECK(strstr(v.reasons[0].message, "shape differs") != NULL);
	CHECK_STR(v.reasons[1].code, "a_only_rows");
	CHECK_INT(v.reasons[1].count, 2);
	CHECK_INT(v.reasons[1].first_row, 3);
	CHECK_STR(v.reasons[2].code, "b_only_rows");
	CHECK_INT(v.reasons[2].count, 1);
	CHECK(strstr(v.reasons[2].message, "all_gather_into_tensor_out") != NULL);
	CHECK_INT(v.n_tolerated, 0);
	matcher_match_result_free(same);
	matcher_match_result_free(r);
}

static void test_tolerance(void)
{
	struct matcher_match_result *r = match2(A_LOG, B_LOG);
	static const char *const ops[] = {"wait_tensor", "all_gather_into_tensor_out"};
	struct matcher_act_policy p;
	struct matcher_act_verdict v;

	if (!r)
		return;
	matcher_act_policy_init(&p);
	p.kind = MATCHER_POLICY_TOLERANCE;
	p.max_hash_distance = 1e-6;
	p.allow_only_ops = ops;
	p.n_allow_only_ops = 2;
	CHECK_STR(matcher_act_policy_name(&p), "tolerance");
	/* ulp diff (1e-7) forgiven; shape diff never; wait_tensor and
	 * all_gather forgiven; relu a_only not */
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 0), &p), 1);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 1), &p), 1);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 2), &p), 0);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 3), &p), 1);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 4), &p), 0);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 5), &p), 1);
	CHECK(matcher_act_check(r, &p, &v) == 0);
	CHECK_INT(v.verdict, MATCHER_VERDICT_FAIL);
	CHECK_INT(v.n_tolerated, 3);
	CHECK_INT(v.n_reasons, 2);
	CHECK_STR(v.reasons[0].code, "diff_rows");
	CHECK_INT(v.reasons[0].count, 1);
	CHECK_INT(v.reasons[0].tolerated, 1);
	CHECK_INT(v.reasons[0].first_row, 2);
	CHECK_STR(v.reasons[1].code, "a_only_rows");
	CHECK_INT(v.reasons[1].count, 1);
	CHECK_INT(v.reasons[1].first_row, 4);

	/* a bound below the drift: the ulp diff counts again */
	p.max_hash_distance = 1e-8;
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 1), &p), 0);
	/* bitwise forgives nothing */
	p.kind = MATCHER_POLICY_BITWISE;
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 1), &p), 0);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 3), &p), 0);
	CHECK_INT(matcher_act_row_tolerated(ROW(r, 0), &p), 1);

	/* everything forgiven -> pass */
	{
		struct matcher_match_result *r2 =
		        match2(HDR "[m/op_0_mm]\n  Output hash: 1.0\n[x/op_1_wait_tensor]\n",
		               HDR "[m/op_0_mm]\n  Output hash: 1.0000001\n");

		p.kind = MATCHER_POLICY_TOLERANCE;
		p.max_hash_distance = 1e-6;
		CHECK(r2 && matcher_act_check(r2, &p, &v) == 0);
		CHECK_INT(v.verdict, MATCHER_VERDICT_PASS);
		CHECK_INT(v.n_tolerated, 2);
		CHECK(r2 && matcher_act_check(r2, NULL, &v) == 0);
		CHECK_INT(v.verdict, MATCHER_VERDICT_FAIL);
		matcher_match_result_free(r2);
	}
	matcher_match_result_free(r);
}

static void test_validate_and_combine(void)
{
	struct matcher_act_policy p;
	struct matcher_act_verdict v;
	struct matcher_match_result *r = match2(HDR, HDR);
	static const char *const bad_ops[] = {""};
	char msg[128];

	matcher_act_policy_init(&p);
	p.kind = MATCHER_POLICY_TOLERANCE;
	p.max_hash_distance = NAN;
	CHECK(matcher_act_policy_validate(&p, msg, sizeof(msg)) == -1);
	if (r) {
		CHECK(matcher_act_check(r, &p, &v) == -1);
		CHECK_INT(v.verdict, MATCHER_VERDICT_ERROR);
		CHECK_STR(v.reasons[0].code, "bad_policy");
	}
	p.max_hash_distance = -1;
	CHECK(matcher_act_policy_validate(&p, msg, sizeof(msg)) == -1);
	p.max_hash_distance = 0;
	p.allow_only_ops = bad_ops;
	p.n_allow_only_ops = 1;
	CHECK(matcher_act_policy_validate(&p, msg, sizeof(msg)) == -1);
	p.n_allow_only_ops = 0;
	CHECK(matcher_act_policy_validate(&p, msg, sizeof(msg)) == 0);

	CHECK_INT(matcher_verdict_worst(MATCHER_VERDICT_PASS, MATCHER_VERDICT_FAIL),
	          MATCHER_VERDICT_FAIL);
	CHECK_INT(matcher_verdict_worst(MATCHER_VERDICT_ERROR, MATCHER_VERDICT_FAIL),
	          MATCHER_VERDICT_ERROR);
	CHECK_INT(matcher_verdict_worst(MATCHER_VERDICT_PASS, MATCHER_VERDICT_PASS),
	          MATCHER_VERDICT_PASS);
	CHECK_STR(matcher_verdict_name(MATCHER_VERDICT_PASS), "pass");
	CHECK_STR(matcher_verdict_name(MATCHER_VERDICT_FAIL), "fail");
	CHECK_STR(matcher_verdict_name(MATCHER_VERDICT_ERROR), "error");
	matcher_match_result_free(r);
}

int main(void)
{
	size_t i;

	test_bitwise();
	test_tolerance();
	test_validate_and_combine();
	for (i = 0; i < n_logs; i++)
		matcher_actlog_free(logs[i]);
	return check_report();
}
