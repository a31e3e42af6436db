/* test_base_json_depth.c - srv_json_depth_ok (base/limits.c), the one
 * nesting check of every JSON document a client sends (issue 23, F12):
 * scalars are depth 0, {} and [] depth 1; 32 levels of objects, arrays
 * or both pass, 33 do not, wherever the deep branch sits (first or last
 * member); a document far deeper than jansson's parser allows (built in
 * memory, 10000 levels) is refused without walking it all. */
#include "check.h"
#include "base.h"

/* depth levels: arrays when arr, else objects {"k": ...}, around 1; the
 * deep branch after a shallow sibling when late. */
static json_t *nest(int depth, int arr, int late)
{
	json_t *v = json_integer(1);
	for (int i = 0; i < depth; i++) {
		json_t *c = arr ? json_array() : json_object();
		if (arr) {
			if (late)
				json_array_append_new(c, json_string("x"));
			json_array_append_new(c, v);
		} else {
			if (late)
				json_object_set_new(c, "a", json_string("x"));
			json_object_set_new(c, "k", v);
		}
		v = c;
	}
	return v;
}

static int ok(json_t *v)
{
	int r = srv_json_depth_ok(v);
	json_decref(v);
	return r;
}

int main(void)
{
	CHECK_INT(srv_json_depth_ok(NULL), 1);
	CHECK_INT(ok(json_integer(3)), 1);
	CHECK_INT(ok(json_object()), 1);
	for (int arr = 0; arr <= 1; arr++)
		for (int late = 0; late <= 1; late++) {
			CHECK_INT(ok(nest(SRV_JSON_DEPTH_MAX - 1, arr, late)), 1);
			CHECK_INT(ok(nest(SRV_JSON_DEPTH_MAX, arr, late)), 1);
			CHECK_INT(ok(nest(SRV_JSON_DEPTH_MAX + 1, arr, late)), 0);
		}
	/* mixed: an object holding an array holding ... */
	json_t *v = json_integer(0);
	for (int i = 0; i < SRV_JSON_DEPTH_MAX; i++) {
		json_t *c = i % 2 ? json_array() : json_object();
		if (i % 2)
			json_array_append_new(c, v);
		else
			json_object_set_new(c, "m", v);
		v = c;
	}
	CHECK_INT(srv_json_depth_ok(v), 1);
	json_t *top = json_array();
	json_array_append_new(top, v);
	CHECK_INT(ok(top), 0);
	CHECK_INT(ok(nest(10000, 1, 0)), 0);
	/* parsed text, as the handlers get it */
	json_t *p = json_loads("{\"a\":[{\"b\":{}}],\"c\":1}", 0, NULL);
	CHECK(p != NULL);
	CHECK_INT(ok(p), 1);
	return check_report();
}
