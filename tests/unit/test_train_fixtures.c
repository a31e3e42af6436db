/* test_train_fixtures.c - the training result JSON against the fixtures'
 * expected.json (verdict, reason codes, first_over, exact max_abs), plus
 * the per-step row JSON, policy JSON round trips, the fatal-error document
 * and the non-finite / bad UTF-8 number and text policies. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_train.h"
#include "traincheck.h"

static struct matcher_trainrun *load(const char *rel)
{
	char path[512];
	size_t n;
	char *d = check_slurp(check_testfile(rel, path, sizeof path), &n);
	struct matcher_trainrun *r = NULL;
	struct matcher_error err;
	const char *keep[] = {"loss", "grad_norm"};
	if (d && matcher_trainrun_parse_buffer(d, n, keep, 2, &r, &err) < 0)
		fprintf(stderr, "%s: %s\n", rel, err.message);
	free(d);
	return r;
}

static json_t *first_over_json(json_t *m)
{
	return json_object_get(m, "first_over");
}

static void test_fixture(const char *q)
{
	char rel[128], path[512];
	snprintf(rel, sizeof rel, "data/train/%s_a.log", q);
	struct matcher_trainrun *a = load(rel);
	snprintf(rel, sizeof rel, "data/train/%s_b.log", q);
	struct matcher_trainrun *b = load(rel);
	snprintf(rel, sizeof rel, "data/train/%s.expected.json", q);
	json_error_t jerr;
	json_t *want = json_load_file(check_testfile(rel, path, sizeof path), 0, &jerr);
	CHECK(a && b && want);
	if (!a || !b || !want)
		goto done;
	struct matcher_train_result *r = NULL;
	CHECK_INT(matcher_train_check(a, b, NULL, &r), 0);
	json_t *doc = web_train_result_json(r, a, b);
	CHECK(doc != NULL);
	if (doc) {
		CHECK_STR(json_string_value(json_object_get(doc, "kind")), "training");
		CHECK_STR(json_string_value(json_object_get(doc, "verdict")),
		          json_string_value(json_object_get(want, "verdict")));
		/* reason codes: unique, in order of first appearance */
		json_t *codes = json_array(), *x;
		size_t i;
		json_array_foreach(json_object_get(doc, "reasons"), i, x)
		{
			json_t *c = json_object_get(x, "code");
			int seen = 0;
			size_t k;
			json_t *y;
			json_array_foreach(codes, k, y) seen |= json_equal(y, c);
			if (!seen)
				json_array_append(codes, c);
			CHECK(json_is_string(json_object_get(x, "message")));
		}
		CHECK(json_equal(codes, json_object_get(want, "reason_codes")));
		json_decref(codes);
		const char *mname[] = {"loss", "grad_norm"};
		for (int k = 0; k < 2; k++) {
			json_t *m = json_object_get(json_object_get(doc, "metrics"), mname[k]);
			CHECK(m != NULL);
			CHECK(json_equal(
			        first_over_json(m),
			        json_object_get(json_object_get(want, "first_over"), mname[k])));
			CHECK_STR(json_string_value(json_object_get(m, "max_abs_exact")),
			          json_string_value(json_object_get(
			                  json_object_get(want, "max_abs"), mname[k])));
			CHECK(json_is_array(json_object_get(m, "nan")));
			CHECK(json_is_boolean(json_object_get(m, "pass")));
		}
		json_t *res = json_object_get(doc, "resolution");
		CHECK_DBL(json_real_value(json_object_get(res, "loss")), 1e-5, 1e-12);
		CHECK_DBL(json_real_value(json_object_get(res, "grad_norm")), 1e-4, 1e-12);
		json_t *steps = json_object_get(doc, "steps");
		CHECK(json_is_integer(json_object_get(steps, "common")));
		CHECK(json_is_array(json_object_get(steps, "only_baseline")));
		CHECK(json_is_array(
		        json_object_get(json_object_get(doc, "warnings"), "candidate")));
		CHECK_STR(
		        json_string_value(json_object_get(json_object_get(doc, "policy"), "name")),
		        "premerge");
		/* must serialise (no non-finite reals) */
		char *s = json_dumps(doc, JSON_COMPACT);
		CHECK(s != NULL);
		free(s);
		json_decref(doc);
	}
	matcher_train_result_free(r);
done:
	json_decref(want);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
}

static void test_rows_and_numbers(void)
{
	struct matcher_trainrun *a = load("data/train/q3_a.log");
	struct matcher_trainrun *b = load("data/train/q3_b.log");
	struct matcher_train_result *r = NULL;
	CHECK(a && b);
	if (!a || !b)
		goto done;
	CHECK_INT(matcher_train_check(a, b, NULL, &r), 0);
	json_t *doc = web_train_result_json(r, a, b);
	json_t *loss = json_object_get(json_object_get(doc, "metrics"), "loss");
	CHECK_STR(json_string_value(json_object_get(loss, "max_abs")), "NaN");
	CHECK_INT(json_integer_value(json_array_get(json_object_get(loss, "nan"), 1)), 31);
	json_decref(doc);
	json_t *row = web_train_row_json(r, 69); /* step 70: nan in the candidate */
	CHECK(row != NULL);
	CHECK_INT(json_integer_value(json_object_get(row, "step")), 70);
	json_t *l = json_object_get(row, "loss");
	CHECK_STR(json_string_value(json_object_get(l, "b")), "NaN");
	CHECK_STR(json_string_value(json_object_get(l, "b_text")), "NaN");
	CHECK(json_is_true(json_object_get(l, "over")));
	CHECK_STR(json_string_value(json_object_get(l, "abs_exact")), "NaN");
	CHECK_STR(json_string_value(json_object_get(l, "abs")), "NaN");
	CHECK_STR(json_string_value(json_object_get(l, "rel")), "NaN");
	json_decref(row);
	row = web_train_row_json(r, 0);
	l = json_object_get(row, "loss");
	CHECK(json_is_real(json_object_get(l, "a")));
	CHECK_STR(json_string_value(json_object_get(l, "abs_exact")), "0");
	CHECK(json_is_false(json_object_get(l, "over")));
	CHECK(strchr(json_string_value(json_object_get(l, "a_text")), '.') != NULL);
	json_decref(row);
	CHECK(web_train_row_json(r, 100000) == NULL);
done:
	matcher_train_result_free(r);
	matcher_trainrun_free(a);
	matcher_trainrun_free(b);
}

static void test_policy_json(void)
{
	struct matcher_train_policy p;
	char msg[200];
	json_error_t e;
	CHECK_INT(web_train_policy_from_json(NULL, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "premerge");
	json_t *v = json_string("bitwise");
	CHECK_INT(web_train_policy_from_json(v, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "bitwise");
	json_decref(v);
	v = json_loads(
	        "{\"name\":\"premerge\",\"thresholds\":{\"loss\":{\"abs\":1e-4,\"rel\":1e-3},"
	        "\"validation/loss\":2e-4},\"min_steps\":10,\"allow_warnings\":true,"
	        "\"rank\":1}",
	        0, &e);
	CHECK_INT(web_train_policy_from_json(v, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "custom");
	CHECK_STR(p.base, "premerge");
	CHECK_INT(p.n_th, 3);
	CHECK(p.th[0].abs == 1e-4 && p.th[0].has_rel && p.th[0].rel == 1e-3);
	CHECK_STR(p.th[2].metric, "validation/loss");
	CHECK_INT(p.min_steps, 10);
	CHECK_INT(p.allow_warnings, 1);
	CHECK_INT(p.rank, 1);
	json_decref(v);
	/* round trip */
	json_t *pj = web_train_policy_json(&p);
	struct matcher_train_policy q;
	CHECK_INT(web_train_policy_from_json(pj, &q, msg, sizeof msg), 0);
	CHECK_INT(q.n_th, 3);
	CHECK(q.th[0].abs == 1e-4 && q.th[0].rel == 1e-3);
	CHECK_INT(q.min_steps, 10);
	CHECK_INT(q.rank, 1);
	json_decref(pj);
	v = json_string("fuzzy");
	CHECK_INT(web_train_policy_from_json(v, &p, msg, sizeof msg), -1);
	CHECK(strstr(msg, "fuzzy") != NULL);
	json_decref(v);
	v = json_loads("{\"thresholds\":{\"loss\":{\"abs\":\"x\"}}}", 0, &e);
	CHECK_INT(web_train_policy_from_json(v, &p, msg, sizeof msg), -1);
	json_decref(v);
	v = json_loads("{\"thresholds\":{\"loss\":-1}}", 0, &e);
	CHECK_INT(web_train_policy_from_json(v, &p, msg, sizeof msg), -1);
	json_decref(v);
}

static void test_fatal_and_text(void)
{
	struct matcher_error e;
	memset(&e, 0, sizeof e);
	e.code = "binary_data";
	e.line = 7;
	snprintf(e.message, sizeof e.message, "NUL byte at line 7");
	json_t *d = web_train_fatal_json(&e, "candidate");
	CHECK_STR(json_string_value(json_object_get(d, "verdict")), "error");
	json_t *x = json_array_get(json_object_get(d, "reasons"), 0);
	CHECK_STR(json_string_value(json_object_get(x, "code")), "binary_data");
	CHECK_INT(json_integer_value(json_object_get(x, "line")), 7);
	CHECK_STR(json_string_value(json_object_get(x, "side")), "candidate");
	json_decref(d);
	json_t *t = web_train_json_text("ok \xff\xfe end \xE2\x90\x9B");
	CHECK(t != NULL);
	CHECK_STR(json_string_value(t), "ok \xEF\xBF\xBD\xEF\xBF\xBD end \xE2\x90\x9B");
	json_decref(t);
	t = web_train_json_num(-INFINITY);
	CHECK_STR(json_string_value(t), "-Inf");
	json_decref(t);
	t = web_train_json_num(NAN);
	CHECK_STR(json_string_value(t), "NaN");
	json_decref(t);
	/* a warning excerpt with bad UTF-8 survives */
	struct matcher_warning w = {"error_line", 3, "msg", "Killed \xc3"};
	json_t *wj = web_train_warning_json(&w);
	CHECK(wj != NULL);
	CHECK_STR(json_string_value(json_object_get(wj, "excerpt")), "Killed \xEF\xBF\xBD");
	json_decref(wj);
}

int main(void)
{
	test_fixture("q1");
	test_fixture("q2");
	test_fixture("q3");
	test_fixture("q4");
	test_rows_and_numbers();
	test_policy_json();
	test_fatal_and_text();
	return check_report();
}
