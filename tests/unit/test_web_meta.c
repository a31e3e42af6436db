/* test_web_meta.c - the one reader of the runs' free-form meta
 * (web/json_meta.c): one run's top-level keys in stored order with their
 * text (web_meta_read, web_meta_str), two runs flattened and merged for
 * the metadata table (web_meta_rows_build) and side by side for the mail
 * (web_meta_pairs_build); missing, invalid and non-object meta read as
 * none. */
#include <string.h>

#include "check.h"
#include "web_int.h"

int main(void)
{
	const char *a = "{\"commit\":\"abc\",\"env\":{\"torch\":\"2.3\",\"cuda\":12},"
	                "\"n\":[1,2],\"x\":1.5,\"same\":{\"k\":1,\"j\":2}}";
	const char *b = "{\"commit\":\"def\",\"env\":{\"torch\":\"2.3\"},\"x\":1.5,"
	                "\"same\":{\"j\":2,\"k\":1},\"y\":null}";
	struct web_meta m;
	CHECK_INT(web_meta_read(a, &m), 0);
	CHECK_INT(m.n, 5);
	CHECK_STR(m.kv[0].key, "commit");
	CHECK(m.kv[0].is_string);
	CHECK_STR(m.kv[1].text, "{\"torch\":\"2.3\",\"cuda\":12}");
	CHECK(!m.kv[1].is_string);
	CHECK_STR(m.kv[3].text, "1.5");
	CHECK_STR(web_meta_str(&m, "commit"), "abc");
	CHECK(web_meta_str(&m, "x") == NULL); /* not a string */
	CHECK(web_meta_str(&m, "nope") == NULL);
	web_meta_free(&m);
	static const char *const none[] = {NULL, "", "not json", "[1,2]", "\"s\""};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		CHECK_INT(web_meta_read(none[i], &m), 0);
		CHECK_INT(m.n, 0);
		CHECK(web_meta_str(&m, "commit") == NULL);
		web_meta_free(&m);
	}

	/* flattened and merged: sorted dotted keys, differing rows marked */
	struct web_meta_rows r;
	CHECK_INT(web_meta_rows_build(a, b, &r), 0);
	CHECK_INT(r.n, 8);
	CHECK_STR(r.rows[0].key, "commit");
	CHECK(r.rows[0].differs);
	CHECK_STR(r.rows[1].key, "env.cuda");
	CHECK(r.rows[1].b == NULL && r.rows[1].differs);
	CHECK_STR(r.rows[2].key, "env.torch");
	CHECK(!r.rows[2].differs);
	CHECK_STR(r.rows[7].key, "y");
	CHECK_STR(r.rows[7].b, "null");
	CHECK_INT(r.n_diff, 4);
	web_meta_rows_free(&r);
	CHECK_INT(web_meta_rows_build(NULL, "[]", &r), 0);
	CHECK_INT(r.n, 0);
	web_meta_rows_free(&r);

	/* side by side (the mail): a's keys, then b's others; JSON equality */
	struct web_meta_pairs p;
	CHECK_INT(web_meta_pairs_build(a, b, &p), 0);
	CHECK_INT(p.n, 6);
	CHECK_STR(p.rows[0].key, "commit");
	CHECK(p.rows[0].differs);
	CHECK_STR(p.rows[2].key, "n");
	CHECK(p.rows[2].b == NULL && p.rows[2].differs);
	CHECK_STR(p.rows[3].key, "x");
	CHECK(!p.rows[3].differs);
	CHECK_STR(p.rows[4].key, "same"); /* equal objects, keys in another order */
	CHECK(!p.rows[4].differs);
	CHECK_STR(p.rows[5].key, "y");
	CHECK(p.rows[5].a == NULL);
	CHECK_STR(p.rows[5].b, "null");
	web_meta_pairs_free(&p);
	CHECK_INT(web_meta_pairs_build(NULL, "oops", &p), 0);
	CHECK_INT(p.n, 0);
	web_meta_pairs_free(&p);
	return check_report();
}
