/* test_compare_fixtures.c - the four activation fixtures (tests/data/
 * match/pN) reproduce exactly: every row [a_key, b_key, status,
 * method] in order and the excluded-ops sets, read from the streamed JSON
 * document (web_act_write_json), whose every row holds its matcher row's
 * values (rowdoc.h) and whose head is web_act_result_json's document. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "actview.h"
#include "json_act.h"
#include "actcheck.h"
#include "actlog.h"
#include "actload.h"
#include "check.h"
#include "match.h"
#include "rowdoc.h"

/* The row writer's document of every row holds exactly that row's values
 * (tests/unit/rowdoc.h parses it and compares field by field). */
static void check_rows_bytes(const char *label, const struct matcher_match_result *r)
{
	struct buf b = BUF_INIT;
	size_t i, n_bad = 0;

	for (i = 0; i < r->n_rows; i++) {
		buf_clear(&b);
		if (web_act_row_append(&b, ROW(r, i)) < 0 ||
		    !rowdoc_check(b.data, b.len, ROW(r, i), 0)) {
			if (n_bad++ < 3)
				fprintf(stderr, "%s row %zu: %s\n", label, i,
				        b.data ? b.data : "(null)");
		}
	}
	CHECK_INT(n_bad, 0);
	buf_reset(&b);
}

/* Row i's document as the row writer gives it, parsed (NULL on failure). */
static json_t *row_doc(const struct matcher_match_result *r, size_t i)
{
	struct buf b = BUF_INIT;
	json_t *j = NULL;

	if (web_act_row_append(&b, ROW(r, i)) == 0)
		j = json_loadb(b.data, b.len, JSON_REJECT_DUPLICATES, NULL);
	buf_reset(&b);
	return j;
}

/* Compare two JSON values that may be strings or null. */
static int same_str_or_null(json_t *want, json_t *got)
{
	if (json_is_null(want))
		return json_is_null(got);
	return json_is_string(got) && strcmp(json_string_value(want), json_string_value(got)) == 0;
}

static void check_fixture(const char *name, int with_overrides)
{
	char rel[256], path[4096];
	struct matcher_actlog *a, *b;
	struct matcher_overrides *ov = NULL;
	struct matcher_match_result *r = NULL;
	struct matcher_act_verdict v;
	struct store_act_input doc;
	json_t *want = NULL, *got = NULL, *wrows, *grows, *head = NULL;
	json_error_t jerr;
	size_t i, n_bad = 0;
	char *buf = NULL;
	size_t buf_len = 0;
	FILE *mem;

	snprintf(rel, sizeof(rel), "data/match/%s_a.log", name);
	a = load(rel);
	snprintf(rel, sizeof(rel), "data/match/%s_b.log", name);
	b = load(rel);
	if (with_overrides) {
		size_t n = 0;
		char *text;

		snprintf(rel, sizeof(rel), "data/match/%s_overrides.csv", name);
		text = check_slurp(check_testfile(rel, path, sizeof(path)), &n);
		CHECK(text != NULL);
		if (text)
			CHECK(matcher_overrides_parse(text, n, &ov) == 0);
		free(text);
	}
	snprintf(rel, sizeof(rel), "data/match/%s.expected.json", name);
	want = json_load_file(check_testfile(rel, path, sizeof(path)), 0, &jerr);
	CHECK(want != NULL);
	if (!a || !b || !want)
		goto done;
	CHECK(matcher_match(a, b, ov, &r) == 0);
	if (!r)
		goto done;
	matcher_act_check(r, NULL, &v);
	memset(&doc, 0, sizeof(doc));
	doc.name_a = "A";
	doc.name_b = "B";
	doc.a = a;
	doc.b = b;
	doc.ov = ov;
	doc.result = r;
	doc.verdict = &v;
	/* the streamed document: the head plus every row */
	mem = open_memstream(&buf, &buf_len);
	CHECK(mem != NULL);
	if (!mem)
		goto done;
	CHECK(web_act_write_json(mem, &doc) == 0);
	fclose(mem);
	got = json_loadb(buf, buf_len, JSON_REJECT_DUPLICATES, &jerr);
	CHECK(got != NULL);
	if (!got)
		goto done;
	CHECK_STR(json_string_value(json_object_get(got, "kind")), "activation");
	/* excluded ops, both sides, sorted */
	CHECK(json_equal(json_object_get(want, "excluded_ops"),
	                 json_object_get(got, "excluded_ops")));
	wrows = json_object_get(want, "rows");
	grows = json_object_get(got, "rows");
	CHECK_INT(json_array_size(grows), json_array_size(wrows));
	for (i = 0; i < json_array_size(wrows) && i < json_array_size(grows); i++) {
		json_t *w = json_array_get(wrows, i), *g = json_array_get(grows, i);
		int ok = same_str_or_null(json_array_get(w, 0), json_object_get(g, "a_key")) &&
		         same_str_or_null(json_array_get(w, 1), json_object_get(g, "b_key")) &&
		         same_str_or_null(json_array_get(w, 2), json_object_get(g, "status")) &&
		         same_str_or_null(json_array_get(w, 3), json_object_get(g, "method"));

		if (!ok && n_bad++ < 5) {
			char *ws = json_dumps(w, JSON_COMPACT);

			fprintf(stderr, "%s row %zu differs; want %s\n", name, i, ws);
			free(ws);
		}
	}
	CHECK(n_bad == 0);
	printf("%s: %zu rows, %zu mismatches, verdict %s\n", name, json_array_size(grows), n_bad,
	       matcher_verdict_name(v.verdict));

	check_rows_bytes(name, r);
	/* the head of the streamed document is the result document */
	head = web_act_result_json(&doc);
	CHECK(head != NULL);
	CHECK(json_object_del(got, "rows") == 0);
	CHECK(head && json_equal(head, got));
done:
	free(buf);
	json_decref(head);
	json_decref(want);
	json_decref(got);
	matcher_match_result_free(r);
	matcher_overrides_free(ov);
	matcher_actlog_free(a);
	matcher_actlog_free(b);
}

/* Row JSON: self-contained, null distances, stat values as text, NaN and
 * invalid UTF-8 never break it. */
static void check_row_json(void)
{
	static const char ta[] = "Total captured activations: 2\n===\n\n"
	                         "[m/op_0_mm\xff]\n  Shape: S\n  L2 norm: nan\n  Min: 1.0\n"
	                         "  Output hash: inf, nan\n"
	                         "[m/op_1_relu]\n  Output hash: 1\n";
	static const char tb[] =
	        "Total captured activations: 1\n===\n\n"
	        "[m/op_0_mm\xff]\n  Shape: S\n  L2 norm: 2.0\n  Min: 1.5\n"
	        "  Output hash: 1.0, nan\n"
	        "[q\"u\\o\te\x01/op_0_\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80]\n"
	        "  Location: x\"y\n  Min: 1e-300\n";
	struct matcher_actlog *a = NULL, *b = NULL;
	struct matcher_match_result *r = NULL;
	struct matcher_error err;
	json_t *row = NULL, *only = NULL, *sd;

	CHECK(matcher_actlog_parse_buffer(ta, sizeof(ta) - 1, &a, &err) == 0);
	CHECK(matcher_actlog_parse_buffer(tb, sizeof(tb) - 1, &b, &err) == 0);
	if (!a || !b)
		goto done;
	CHECK(matcher_match(a, b, NULL, &r) == 0);
	CHECK(r && r->n_rows == 3);
	if (!r || r->n_rows != 3)
		goto done;
	check_rows_bytes("escapes", r);
	{
		/* the checker itself tells a document from another row's */
		struct buf doc = BUF_INIT;
		struct matcher_row other = *ROW(r, 0);

		CHECK_INT(web_act_row_append(&doc, ROW(r, 0)), 0);
		CHECK(rowdoc_check(doc.data, doc.len, ROW(r, 0), 0));
		other.status = MATCHER_MATCH;
		CHECK(!rowdoc_check(doc.data, doc.len, &other, 0));
		other = *ROW(r, 0);
		other.output_hash_distance = 0.5;
		CHECK(!rowdoc_check(doc.data, doc.len, &other, 0));
		CHECK(!rowdoc_check(doc.data, doc.len, ROW(r, 1), 0));
		CHECK(!rowdoc_check(doc.data, doc.len - 1, ROW(r, 0), 0)); /* truncated */
		buf_reset(&doc);
	}
	row = row_doc(r, 0);
	only = row_doc(r, 1);
	CHECK(row && only);
	if (!row || !only)
		goto done;
	CHECK_STR(json_string_value(json_object_get(row, "a_key")), "m/op_0_mm\xEF\xBF\xBD");
	CHECK_STR(json_string_value(json_object_get(row, "status")), "diff");
	CHECK_STR(json_string_value(json_object_get(row, "method")), "exact");
	CHECK_STR(json_string_value(json_object_get(row, "phase")), "forward");
	CHECK(json_is_true(json_object_get(row, "origin")));
	CHECK_DBL(json_real_value(json_object_get(row, "output_hash_distance")), 1.0, 0);
	CHECK(json_is_null(json_object_get(row, "input_hash_distance")));
	sd = json_object_get(row, "stat_diffs");
	CHECK_DBL(json_real_value(json_object_get(sd, "L2 norm")), 1.0, 0);
	CHECK_DBL(json_real_value(json_object_get(sd, "Min")), 0.5 / 1.5, 1e-12);
	CHECK(json_object_get(sd, "Shape") == NULL);
	CHECK_STR(json_string_value(json_object_get(
	                  json_object_get(json_object_get(row, "a"), "stats"), "L2 norm")),
	          "nan");
	CHECK_STR(json_string_value(json_object_get(json_object_get(row, "a"), "output_hash")),
	          "inf, nan");
	CHECK(json_is_null(json_object_get(only, "b_key")));
	CHECK(json_is_null(json_object_get(only, "method")));
	CHECK(json_is_null(json_object_get(only, "b")));
	CHECK(json_is_null(json_object_get(only, "output_hash_distance")));
	CHECK_STR(json_string_value(json_object_get(only, "status")), "a_only");
	{
		char *s = json_dumps(row, JSON_COMPACT);

		CHECK(s != NULL);
		free(s);
	}
done:
	json_decref(row);
	json_decref(only);
	matcher_match_result_free(r);
	matcher_actlog_free(a);
	matcher_actlog_free(b);
}

int main(void)
{
	check_fixture("p1", 0);
	check_fixture("p2", 0);
	check_fixture("p3", 0);
	check_fixture("p4", 1);
	check_row_json();
	return check_report();
}
