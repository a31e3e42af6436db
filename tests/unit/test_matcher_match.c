/* test_matcher_match.c - every rule of matching.md, one check group per
 * rule, so breaking a rule fails a named check: keys (root-class strip,
 * fuzzy counters, op type), the four passes and their order, overrides,
 * distances, statuses, colour scale and our additions (legacy L1 hash,
 * inf, origin, first divergence, unused overrides).  Logs are small texts
 * run through the real parser; a few entries are built by hand. */
#include <stdlib.h>
#include <string.h>

#include "actview.h"
#include "actlog.h"
#include "check.h"
#include "match.h"

static struct matcher_actlog *mklog(const char *text)
{
	struct matcher_actlog *log = NULL;
	struct matcher_error err;

	if (matcher_actlog_parse_buffer(text, strlen(text), &log, &err) < 0) {
		fprintf(stderr, "parse failed: %s\n", err.message);
		return NULL;
	}
	return log;
}

/* Rows as "a_key|b_key|status|method" lines, for compact comparison. */
static void check_rows(const struct matcher_match_result *r, const char *const *want, size_t n_want,
                       int line)
{
	size_t i;

	if (!r) {
		CHECK(r != NULL);
		return;
	}
	if (r->n_rows != n_want) {
		fprintf(stderr, "line %d: %zu rows, want %zu\n", line, r->n_rows, n_want);
		CHECK(r->n_rows == n_want);
		return;
	}
	for (i = 0; i < n_want; i++) {
		const struct matcher_row *row = ROW(r, i);
		char got[1024];
		const char *m = matcher_method_name(row->method);

		snprintf(got, sizeof(got), "%s|%s|%s|%s", row->a ? row->a->key : "null",
		         row->b ? row->b->key : "null", matcher_status_name(row->status),
		         m ? m : "null");
		if (strcmp(got, want[i]) != 0)
			fprintf(stderr, "line %d row %zu:\n", line, i);
		CHECK_STR(got, want[i]);
	}
}
#define CHECK_ROWS(r, ...)                                                                         \
	do {                                                                                       \
		static const char *const w_[] = {__VA_ARGS__};                                     \
		check_rows((r), w_, sizeof(w_) / sizeof(w_[0]), __LINE__);                         \
	} while (0)

#define HDR "Total captured activations: 0\n====\n\n"

static size_t root(const char *k)
{
	return matcher_key_root_len(k, strlen(k));
}

static const char *fuzzy(const char *k)
{
	static struct buf b = BUF_INIT;

	CHECK(matcher_key_fuzzy(k, strlen(k), &b) == 0);
	return b.data;
}

static const char *optype(const char *k)
{
	static struct buf b = BUF_INIT;

	CHECK(matcher_key_op_type(k, strlen(k), &b) == 0);
	return b.data;
}

static void test_keys(void)
{
	/* root-class strip */
	CHECK_INT(root("FSDPLlama3Model.layers.0.wq/op_0_mm"), 16);
	CHECK_INT(root("layers.0/op_0_mm"), 0); /* lower-case start */
	CHECK_INT(root("<none>/op_0_mm"), 0);   /* '<' */
	CHECK_INT(root("Model.x/op_0_mm"), 0);  /* only one capital */
	CHECK_INT(root("FSDP/op_0_mm"), 0);     /* no dot */
	CHECK_INT(root("FSDP"), 0);
	CHECK_INT(root("AbC.DeF.x/op_0_mm"), 4); /* once only */
	CHECK_INT(root("A_B.x"), 4);
	CHECK_INT(root("AB-c.x"), 0); /* non-word char */
	CHECK_INT(root("Ab9Z_.x"), 6);
	CHECK_INT(root(""), 0);
	/* fuzzy key */
	CHECK_STR(fuzzy("layers.0.w2/op_3_mm"), "layers.0.w2/mm");
	CHECK_STR(fuzzy("<none>/op_0__fused_adamw_"), "<none>/_fused_adamw_");
	CHECK_STR(fuzzy("FSDPLlama3Model.layers.0/op_12__allgather_base_"),
	          "layers.0/_allgather_base_");
	CHECK_STR(fuzzy("a/op_1_b/op_2_c"), "a/b/c");
	CHECK_STR(fuzzy("a/op__mm"), "a/op__mm");   /* no digits */
	CHECK_STR(fuzzy("a/op_12mm"), "a/op_12mm"); /* no '_' after digits */
	CHECK_STR(fuzzy("a/op_1"), "a/op_1");
	CHECK_STR(fuzzy("aop_1_mm"), "aop_1_mm"); /* needs the '/' */
	CHECK_STR(fuzzy("Model.x/op_1_mm"), "Model.x/mm");
	/* the strip applies after the counters are removed */
	CHECK_STR(fuzzy("FSDPModel.a/op_1_mm"), "a/mm");
	CHECK_STR(fuzzy(""), "");
	/* op type */
	CHECK_STR(optype("layers.0/op_3__fused_adamw_"), "_fused_adamw_");
	CHECK_STR(optype("FSDPM.x/op_3_wait_tensor"), "wait_tensor");
	CHECK_STR(optype("noslash_op"), "noslash_op");
	CHECK_STR(optype("a/b/op_0_mm"), "mm");
	CHECK_STR(optype("a/op_x"), "op_x");
}

static void test_distances(void)
{
	/* hash distance */
	CHECK(matcher_hash_distance(NULL, NULL) < 0);
	CHECK(matcher_hash_distance("", NULL) < 0);
	CHECK_DBL(matcher_hash_distance("", "1.0"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("1.0", NULL), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("1.0", "1.0"), 0.0, 0);
	CHECK_DBL(matcher_hash_distance("1, 2", "1,2"), 0.0, 0); /* trimmed */
	CHECK_DBL(matcher_hash_distance("1, 2", "1"), 1.0, 0);   /* counts */
	CHECK_DBL(matcher_hash_distance("1, 2", "1, 2, 3"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("nan", "nan"), 0.0, 0);
	CHECK_DBL(matcher_hash_distance("1.0, nan", "1, nan"), 0.0, 0); /* nan/nan skip */
	CHECK_DBL(matcher_hash_distance("nan", "1.0"), 1.0, 0);         /* nan/number */
	CHECK_DBL(matcher_hash_distance("2.0, 1.0", "2, nan"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("1, abc", "1.0, abc"), 0.0, 0); /* equal text */
	CHECK_DBL(matcher_hash_distance("1, abc", "1, abd"), 1.0, 0);   /* non-numeric */
	CHECK_DBL(matcher_hash_distance("1, x", "1, 2"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("100", "100.00001"), 1e-7, 1e-6);
	CHECK_DBL(matcher_hash_distance("4, 100", "4, 100.00001"), 1e-7, 1e-6); /* max */
	CHECK_DBL(matcher_hash_distance("1, 2", "1.5, 2"), 1.0 / 3.0, 1e-12);
	CHECK_DBL(matcher_hash_distance("0", "0.0"), 0.0, 0);
	CHECK_DBL(matcher_hash_distance("0", "1e-40"), 1e-10, 1e-9); /* 1e-30 floor */
	CHECK_DBL(matcher_hash_distance("-1", "1"), 1.0, 0);         /* clamped */
	/* infinities (improvement: the reference yields NaN and drops it) */
	CHECK_DBL(matcher_hash_distance("inf", "1.0"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("1.0", "-inf"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("inf", "-inf"), 1.0, 0);
	CHECK_DBL(matcher_hash_distance("inf, 1", "inf, 1.0"), 0.0, 0);
	/* relative difference */
	CHECK_DBL(matcher_rel_diff(1.0, 1.0 + 1e-7, "a", "b"), 1e-7, 1e-6);
	CHECK_DBL(matcher_rel_diff(NAN, NAN, "nan", "nan"), 0.0, 0);
	CHECK_DBL(matcher_rel_diff(NAN, NAN, "nan", "NaN"), 1.0, 0); /* text compare */
	CHECK_DBL(matcher_rel_diff(NAN, 1.0, "nan", "1.0"), 1.0, 0);
	CHECK_DBL(matcher_rel_diff(INFINITY, INFINITY, "inf", "inf"), 0.0, 0);
	CHECK_DBL(matcher_rel_diff(INFINITY, 5.0, "inf", "5"), 1.0, 0);
	CHECK_DBL(matcher_rel_diff(0.0, 0.0, "0", "0"), 0.0, 0);
	CHECK_DBL(matcher_rel_diff(2.0, 1.0, "2", "1"), 0.5, 1e-15);
	/* colour intensity */
	CHECK_DBL(matcher_colour_intensity(-1.0), 0.0, 0);
	CHECK_DBL(matcher_colour_intensity(0.0), 0.0, 0);
	CHECK_DBL(matcher_colour_intensity(1e-9), 0.0, 0);
	CHECK_DBL(matcher_colour_intensity(1e-8), 0.0, 0);
	CHECK_DBL(matcher_colour_intensity(1e-7), 1.0 / 7.0, 1e-9); /* faint */
	CHECK_DBL(matcher_colour_intensity(1e-4), 4.0 / 7.0, 1e-9);
	CHECK_DBL(matcher_colour_intensity(0.05), (log10(0.05) + 8) / 7, 1e-12);
	CHECK_DBL(matcher_colour_intensity(0.1), 1.0, 0); /* alarming */
	CHECK_DBL(matcher_colour_intensity(1.0), 1.0, 0);
}

/* Logs made in the tests are kept here and freed at the end. */
static struct matcher_actlog *kept[256];
static size_t n_kept;

static struct matcher_actlog *keep(struct matcher_actlog *l)
{
	if (l && n_kept < 256)
		kept[n_kept++] = l;
	return l;
}

static struct matcher_match_result *match2(const char *ta, const char *tb,
                                           const struct matcher_overrides *ov)
{
	struct matcher_actlog *a = keep(mklog(ta)), *b = keep(mklog(tb));
	struct matcher_match_result *r = NULL;

	CHECK(a != NULL);
	CHECK(b != NULL);
	if (a && b)
		CHECK(matcher_match(a, b, ov, &r) == 0);
	return r;
}

static void test_worked_example(void)
{
	struct matcher_match_result *r = match2(
	        HDR "[FSDPLlama3Model.layers.0.wq/op_3_mm]\n  L1 norm: 1.0\n  Phase: backward\n",
	        HDR "[layers.0.wq/op_1_mm]\n  L1 norm: 1.0\n  Phase: backward\n", NULL);

	CHECK_ROWS(r, "FSDPLlama3Model.layers.0.wq/op_3_mm|layers.0.wq/op_1_mm|match|fuzzy");
	if (r) {
		CHECK_INT(ROW(r, 0)->phase, MATCHER_BACKWARD);
		CHECK_INT(r->summary.n_method[MATCHER_METHOD_FUZZY], 1);
	}
	matcher_match_result_free(r);
}

static void test_pass_order_and_rows(void)
{
	struct matcher_match_result *r;

	/* exact beats fuzzy: the fuzzy-equal B entry earlier in file order is
	 * left for later; pass 1 uses the stripped key on both sides */
	r = match2(HDR "[Root1Model.m/op_1_mm]\n  Output hash: 1\n"
	               "[m/op_0_mm]\n  Output hash: 1\n",
	           HDR "[m/op_0_mm]\n  Output hash: 1\n"
	               "[m/op_1_mm]\n  Output hash: 1\n"
	               "[n/op_0_relu]\n  Output hash: 3\n",
	           NULL);
	CHECK_ROWS(r, "Root1Model.m/op_1_mm|m/op_1_mm|match|exact",
	           "m/op_0_mm|m/op_0_mm|match|exact", "null|n/op_0_relu|b_only|null");
	matcher_match_result_free(r);

	/* fuzzy: first unclaimed B of the group in B file order, A in A order */
	r = match2(HDR "[L/op_5_add]\n  Output hash: 1\n[L/op_6_add]\n  Output hash: 2\n"
	               "[L/op_7_add]\n  Output hash: 3\n",
	           HDR "[L/op_0_add]\n  Output hash: 1\n[L/op_1_add]\n  Output hash: 2\n", NULL);
	CHECK_ROWS(r, "L/op_5_add|L/op_0_add|match|fuzzy", "L/op_6_add|L/op_1_add|match|fuzzy",
	           "L/op_7_add|null|a_only|null");
	matcher_match_result_free(r);

	/* row order: A order (paired or A-only), then B-only in B order */
	r = match2(HDR "[x/op_0_a]\n[x/op_0_b]\n[x/op_0_c]\n",
	           HDR "[y/op_0_q]\n  Output hash: 9\n[x/op_0_c]\n[z/op_0_r]\n  Output hash: 8\n"
	               "[x/op_0_a]\n",
	           NULL);
	CHECK_ROWS(r, "x/op_0_a|x/op_0_a|match|exact", "x/op_0_b|null|a_only|null",
	           "x/op_0_c|x/op_0_c|match|exact", "null|y/op_0_q|b_only|null",
	           "null|z/op_0_r|b_only|null");
	matcher_match_result_free(r);

	/* duplicate keys in one log: each B entry claimed once, in order */
	r = match2(HDR "[d/op_0_mm]\n  Output hash: 1\n[d/op_0_mm]\n  Output hash: 2\n"
	               "[d/op_0_mm]\n  Output hash: 3\n",
	           HDR "[d/op_0_mm]\n  Output hash: 1\n[d/op_0_mm]\n  Output hash: 2\n", NULL);
	CHECK_ROWS(r, "d/op_0_mm|d/op_0_mm|match|exact", "d/op_0_mm|d/op_0_mm|match|exact",
	           "d/op_0_mm|null|a_only|null");
	if (r && r->n_rows == 3)
		CHECK(ROW(r, 0)->b != ROW(r, 1)->b);
	matcher_match_result_free(r);
	r = match2(HDR "[d/op_0_mm]\n  Output hash: 1\n",
	           HDR "[d/op_0_mm]\n  Output hash: 1\n[d/op_0_mm]\n  Output hash: 2\n", NULL);
	CHECK_ROWS(r, "d/op_0_mm|d/op_0_mm|match|exact", "null|d/op_0_mm|b_only|null");
	if (r && r->n_rows == 2)
		CHECK_INT(ROW(r, 1)->b->order, 1);
	matcher_match_result_free(r);
}

/* The exact pass groups keys by the ids of their two parts (strip(pre),
 * op) or, without a '/', strip(op): keys whose texts differ only in where
 * their parts meet, slashless keys with and without a root class, an
 * empty key, and a root that is the whole prefix all pair as their
 * stripped texts say. */
static void test_exact_parts(void)
{
	struct matcher_match_result *r;

	r = match2(HDR "[Root2Model.a/b/op_0_mm]\n  Output hash: 1\n" /* a/b/ + op_0_mm */
	               "[RootModel.solo]\n  Output hash: 2\n"         /* no '/': stripped */
	               "[]\n  Output hash: 3\n"                       /* empty key */
	               "[TopModel./op_1_mm]\n  Output hash: 4\n"      /* pre is the root + '/' */
	               "[x/y]\n  Output hash: 5\n"                    /* no pair: parts differ */
	               "[ab/c]\n  Output hash: 6\n",
	           HDR "[a/b/op_0_mm]\n  Output hash: 1\n"
	               "[solo]\n  Output hash: 2\n"
	               "[]\n  Output hash: 3\n"
	               "[/op_1_mm]\n  Output hash: 4\n"
	               "[xy]\n  Output hash: 9\n"
	               "[a/bc]\n  Output hash: 8\n",
	           NULL);
	CHECK_ROWS(r, "Root2Model.a/b/op_0_mm|a/b/op_0_mm|match|exact",
	           "RootModel.solo|solo|match|exact", "||match|exact",
	           "TopModel./op_1_mm|/op_1_mm|match|exact", "x/y|null|a_only|null",
	           "ab/c|null|a_only|null", "null|xy|b_only|null", "null|a/bc|b_only|null");
	matcher_match_result_free(r);
}

static void test_stats_pass(void)
{
	struct matcher_match_result *r;

	/* (op type, Shape, Output hash) pairs ops that moved module */
	r = match2(HDR "[FSDPM.layers.0/op_3_wait_tensor]\n  Shape: S1\n  Output hash: 5.0\n"
	               "[FSDPM.layers.1/op_4_wait_tensor]\n  Shape: S1\n  Output hash: 6.0\n",
	           HDR "[<none>/op_9_wait_tensor]\n  Shape: S1\n  Output hash: 6.0\n"
	               "[<none>/op_8_wait_tensor]\n  Shape: S1\n  Output hash: 5.0\n",
	           NULL);
	CHECK_ROWS(r, "FSDPM.layers.0/op_3_wait_tensor|<none>/op_8_wait_tensor|match|stats",
	           "FSDPM.layers.1/op_4_wait_tensor|<none>/op_9_wait_tensor|match|stats");
	matcher_match_result_free(r);

	/* the key needs all three parts equal: hash text (not value), shape
	 * text, op type */
	r = match2(HDR "[a/op_0_mm]\n  Shape: S\n  Output hash: 5.0\n"
	               "[b/op_0_mm]\n  Shape: S\n  Output hash: 5\n"
	               "[c/op_0_mm]\n  Shape: S\n  Output hash: 7\n",
	           HDR "[x/op_0_mm]\n  Shape: T\n  Output hash: 5.0\n"
	               "[y/op_0_mm]\n  Shape: S\n  Output hash: 5.0\n"
	               "[z/op_0_bmm]\n  Shape: S\n  Output hash: 7\n",
	           NULL);
	CHECK_ROWS(r, "a/op_0_mm|y/op_0_mm|match|stats", "b/op_0_mm|null|a_only|null",
	           "c/op_0_mm|null|a_only|null", "null|x/op_0_mm|b_only|null",
	           "null|z/op_0_bmm|b_only|null");
	matcher_match_result_free(r);

	/* missing Shape and hash count as empty text: in-place ops with no
	 * output pair on (op type, "", ""); a missing shape equals "" */
	r = match2(HDR "[p/op_0_copy_]\n  Input hashes: 1\n[q/op_0_foo]\n  Output hash: 2\n",
	           HDR "[r/op_5_copy_]\n  Input hashes: 1\n[s/op_0_foo]\n  Shape:\n"
	               "  Output hash: 2\n",
	           NULL);
	CHECK_ROWS(r, "p/op_0_copy_|r/op_5_copy_|match|stats", "q/op_0_foo|s/op_0_foo|match|stats");
	matcher_match_result_free(r);

	/* keys without '/': the op type is the raw key */
	r = match2(HDR "[Alpha]\n  Output hash: 1\n", HDR "[Beta]\n  Output hash: 1\n", NULL);
	CHECK_ROWS(r, "Alpha|null|a_only|null", "null|Beta|b_only|null");
	matcher_match_result_free(r);

	/* legacy: no Output hash, L1 norm stands in (pass 3 key and status) */
	r = match2(HDR "[m/op_0_relu]\n  Shape: S\n  L1 norm:   2.5\n"
	               "[k/op_0_gelu]\n  L1 norm: 1.0\n",
	           HDR "[n/op_0_relu]\n  Shape: S\n  L1 norm: 2.5\n"
	               "[k/op_0_gelu]\n  L1 norm: 1.5\n",
	           NULL);
	CHECK_ROWS(r, "m/op_0_relu|n/op_0_relu|match|stats", "k/op_0_gelu|k/op_0_gelu|diff|exact");
	if (r && r->n_rows == 2) {
		CHECK_DBL(ROW(r, 1)->output_hash_distance, 1.0 / 3.0, 1e-12);
		CHECK_DBL(ROW(r, 1)->stat_diff[MATCHER_STAT_L1], 1.0 / 3.0, 1e-12);
	}
	matcher_match_result_free(r);
}

static void test_status(void)
{
	struct matcher_match_result *r;

	r = match2(HDR
	           /* 0: stats differ, hashes agree -> match */
	           "[s/op_0_mm]\n  Shape: S\n  L2 norm: 1.0\n  Min: -1\n  Max: x\n"
	           "  Output hash: 4.0\n  Input hashes: 2.0\n"
	           /* 1: shape differs (dtype only) -> diff, origin */
	           "[s/op_1_mm]\n  Shape: S, Dtype: torch.float32\n  Output hash: 4.0\n"
	           /* 2: output differs, inputs agree -> diff, origin */
	           "[s/op_2_mm]\n  Output hash: 4.0\n  Input hashes: 2.0, 3.0\n"
	           /* 3: inputs differ -> diff, propagated */
	           "[s/op_3_mm]\n  Output hash: 4.0\n  Input hashes: 2.0\n"
	           /* 4: ULP noise below 1e-8 -> match */
	           "[s/op_4_mm]\n  Output hash: 1.0000000001e+05\n"
	           /* 5: inf vs finite -> diff */
	           "[s/op_5_mm]\n  Output hash: inf\n"
	           /* 6: nan/nan agree, list-length mismatch on inputs */
	           "[s/op_6_mm]\n  Output hash: 1.0, nan\n  Input hashes: 1, 2\n"
	           /* 7: a missing Shape on one side, "" on the other: equal */
	           "[s/op_7_mm]\n  Shape:\n  Output hash: 1\n"
	           /* 8: one side without any output hash -> 1.0 */
	           "[s/op_8_mm]\n  Output hash: 1\n",
	           HDR "[s/op_0_mm]\n  Shape: S\n  L2 norm: 1.5\n  Min: -1.0\n  Max: y\n"
	               "  Output hash: 4.0\n  Input hashes: 2\n"
	               "[s/op_1_mm]\n  Shape: S, Dtype: torch.bfloat16\n  Output hash: 4.0\n"
	               "[s/op_2_mm]\n  Output hash: 4.5\n  Input hashes: 2.0, 3.0\n"
	               "[s/op_3_mm]\n  Output hash: 4.5\n  Input hashes: 2.5\n"
	               "[s/op_4_mm]\n  Output hash: 1.0000000002e+05\n"
	               "[s/op_5_mm]\n  Output hash: 1e308\n"
	               "[s/op_6_mm]\n  Output hash: 1.0, nan\n  Input hashes: 1\n"
	               "[s/op_7_mm]\n  Output hash: 1\n"
	               "[s/op_8_mm]\n",
	           NULL);
	CHECK(r && r->n_rows == 9);
	if (!r || r->n_rows != 9)
		return;
	CHECK_INT(ROW(r, 0)->status, MATCHER_MATCH);
	CHECK_DBL(ROW(r, 0)->stat_diff[MATCHER_STAT_L2], 0.5 / 1.5, 1e-12);
	CHECK(ROW(r, 0)->stat_diff[MATCHER_STAT_MIN] == 0.0);      /* texts differ, values equal */
	CHECK_DBL(ROW(r, 0)->stat_diff[MATCHER_STAT_MAX], 1.0, 0); /* not a number */
	CHECK(ROW(r, 0)->stat_diff[MATCHER_STAT_MEAN] < 0);        /* absent */
	CHECK(ROW(r, 0)->stat_diff[MATCHER_STAT_SHAPE] < 0);       /* equal */
	CHECK_DBL(ROW(r, 0)->input_hash_distance, 0.0, 0);
	CHECK_INT(ROW(r, 0)->origin, 0);
	CHECK_INT(ROW(r, 1)->status, MATCHER_DIFF);
	CHECK_INT(ROW(r, 1)->shape_differs, 1);
	CHECK_DBL(ROW(r, 1)->stat_diff[MATCHER_STAT_SHAPE], 1.0, 0);
	CHECK_INT(ROW(r, 1)->origin, 1); /* no inputs: origin */
	CHECK(ROW(r, 1)->input_hash_distance < 0);
	CHECK_INT(ROW(r, 2)->status, MATCHER_DIFF);
	CHECK_INT(ROW(r, 2)->origin, 1);
	CHECK_DBL(ROW(r, 2)->output_hash_distance, 0.5 / 4.5, 1e-12);
	CHECK_INT(ROW(r, 3)->status, MATCHER_DIFF);
	CHECK_INT(ROW(r, 3)->origin, 0);
	CHECK_INT(ROW(r, 4)->status, MATCHER_MATCH);
	CHECK(ROW(r, 4)->output_hash_distance > 0 && ROW(r, 4)->output_hash_distance <= 1e-8);
	CHECK_INT(ROW(r, 5)->status, MATCHER_DIFF);
	CHECK_DBL(ROW(r, 5)->output_hash_distance, 1.0, 0);
	CHECK_INT(ROW(r, 6)->status, MATCHER_DIFF);
	CHECK_DBL(ROW(r, 6)->output_hash_distance, 0.0, 0);
	CHECK_DBL(ROW(r, 6)->input_hash_distance, 1.0, 0);
	CHECK_INT(ROW(r, 6)->origin, 0);
	CHECK_INT(ROW(r, 7)->status, MATCHER_MATCH);
	CHECK_INT(ROW(r, 8)->status, MATCHER_DIFF);
	CHECK_DBL(ROW(r, 8)->output_hash_distance, 1.0, 0);
	/* summary */
	CHECK_INT(r->summary.n_status[MATCHER_MATCH], 3);
	CHECK_INT(r->summary.n_status[MATCHER_DIFF], 6);
	CHECK_INT(r->summary.n_origin, 4);
	CHECK_INT(r->summary.n_propagated, 2);
	CHECK_DBL(r->summary.max_hash_distance, 1.0, 0);
	CHECK_INT(r->summary.max_hash_row, 5);
	CHECK_INT(r->summary.first_divergence[MATCHER_FORWARD], 1);
	CHECK(r->summary.first_divergence[MATCHER_BACKWARD] == MATCHER_NO_ROW);
	matcher_match_result_free(r);
}

/* Paired rows are compared on the compact records without re-deriving
 * the texts when both sides hold the same packed or interned text
 * (matcher_actlog_same_field); every other case compares the texts.  Each
 * row here takes one of those routes and must end as the texts say. */
static void test_status_on_records(void)
{
	struct matcher_match_result *r;

	r = match2(HDR
	           /* 0: equal packed lists -> 0 without texts */
	           "[r/op_0_mm]\n  Output hash: 1.000000e+00, 2.000000e+00\n"
	           "  Input hashes: 3.000000e+00\n"
	           /* 1: a packed list and a longer one: lengths differ -> 1 */
	           "[r/op_1_mm]\n  Output hash: 1.000000e+00\n"
	           /* 2: legacy A (L1 stands in) against B's Output hash, same text */
	           "[r/op_2_mm]\n  L1 norm: 4.000000e+00\n"
	           /* 3: empty hashes on both sides: no distance */
	           "[r/op_3_mm]\n  Output hash:\n  Input hashes:\n"
	           /* 4: interned (not packed) equal texts */
	           "[r/op_4_mm]\n  Shape: [2, 3]\n  Output hash: nan, 1.5\n"
	           /* 5: packed item against an equal value written otherwise */
	           "[r/op_5_mm]\n  Output hash: 1.500000e+00\n  Shape: [2]\n"
	           /* 6: one packed number each (kept in the record, not the
	            * pool): different values -> 1 */
	           "[r/op_6_mm]\n  Output hash: 1.000000e+00\n  Input hashes: 2.000000e+00\n",
	           HDR "[r/op_0_mm]\n  Output hash: 1.000000e+00, 2.000000e+00\n"
	               "  Input hashes: 3.000000e+00\n"
	               "[r/op_1_mm]\n  Output hash: 1.000000e+00, 1.000000e+00\n"
	               "[r/op_2_mm]\n  Output hash: 4.000000e+00\n"
	               "[r/op_3_mm]\n  Output hash:\n  Input hashes:\n"
	               "[r/op_4_mm]\n  Shape: [2, 3]\n  Output hash: nan, 1.5\n"
	               "[r/op_5_mm]\n  Output hash: 1.5\n  Shape: [3]\n"
	               "[r/op_6_mm]\n  Output hash: 3.000000e+00\n  Input hashes: 2.000000e+00\n",
	           NULL);
	CHECK(r && r->n_rows == 7);
	if (!r || r->n_rows != 7)
		return;
	CHECK_INT(ROW(r, 0)->status, MATCHER_MATCH);
	CHECK_DBL(ROW(r, 0)->output_hash_distance, 0.0, 0);
	CHECK_DBL(ROW(r, 0)->input_hash_distance, 0.0, 0);
	CHECK_INT(ROW(r, 1)->status, MATCHER_DIFF);
	CHECK_DBL(ROW(r, 1)->output_hash_distance, 1.0, 0);
	CHECK_INT(ROW(r, 2)->status, MATCHER_MATCH);
	CHECK_DBL(ROW(r, 2)->output_hash_distance, 0.0, 0);
	CHECK_INT(ROW(r, 3)->status, MATCHER_MATCH);
	CHECK(ROW(r, 3)->output_hash_distance < 0);
	CHECK(ROW(r, 3)->input_hash_distance < 0);
	CHECK_INT(ROW(r, 4)->status, MATCHER_MATCH);
	CHECK_INT(ROW(r, 4)->shape_differs, 0);
	CHECK_DBL(ROW(r, 4)->output_hash_distance, 0.0, 0);
	CHECK_INT(ROW(r, 5)->status, MATCHER_DIFF);
	CHECK_INT(ROW(r, 5)->shape_differs, 1);
	CHECK_DBL(ROW(r, 5)->output_hash_distance, 0.0, 0);
	CHECK_INT(ROW(r, 6)->status, MATCHER_DIFF);
	CHECK(ROW(r, 6)->output_hash_distance > 0);
	CHECK_DBL(ROW(r, 6)->input_hash_distance, 0.0, 0);
	/* and every row as matcher_row_compare says on the re-derived entries */
	for (size_t i = 0; i < r->n_rows; i++) {
		struct matcher_row want;

		memset(&want, 0, sizeof want);
		want.a = ENTRY(r->log_a, r->recs[i].a);
		want.b = ENTRY(r->log_b, r->recs[i].b);
		matcher_row_compare(&want);
		CHECK_INT(ROW(r, i)->status, want.status);
		CHECK_INT(ROW(r, i)->origin, want.origin);
		CHECK_INT(ROW(r, i)->shape_differs, want.shape_differs);
		CHECK(ROW(r, i)->output_hash_distance == want.output_hash_distance);
		CHECK(ROW(r, i)->input_hash_distance == want.input_hash_distance);
	}
	matcher_match_result_free(r);
}

static void test_first_divergence(void)
{
	struct matcher_match_result *r =
	        match2(HDR "[f/op_0_a]\n  Output hash: 1\n[f/op_1_a]\n  Output hash: 1\n"
	                   "[g/op_0_a]\n  Output hash: 1\n  Phase: backward\n"
	                   "[g/op_1_a]\n  Output hash: 1\n  Phase: backward\n"
	                   "[f/op_2_a]\n  Output hash: 1\n",
	               HDR "[f/op_0_a]\n  Output hash: 1\n[f/op_1_a]\n  Output hash: 2\n"
	                   "[g/op_0_a]\n  Output hash: 1\n  Phase: backward\n"
	                   "[g/op_1_a]\n  Output hash: 3\n  Phase: backward\n"
	                   "[f/op_2_a]\n  Output hash: 2\n"
	                   "[h/op_0_a]\n  Output hash: 1\n  Phase: backward\n",
	               NULL);

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_INT(r->summary.first_divergence[MATCHER_FORWARD], 1);
	CHECK_INT(r->summary.first_divergence[MATCHER_BACKWARD], 3);
	/* B-only rows take the phase of B; they are not divergences */
	CHECK_INT(ROW(r, 5)->status, MATCHER_B_ONLY);
	CHECK_INT(ROW(r, 5)->phase, MATCHER_BACKWARD);
	CHECK_INT(r->summary.n_phase_status[MATCHER_BACKWARD][MATCHER_B_ONLY], 1);
	CHECK_INT(r->summary.n_phase_status[MATCHER_FORWARD][MATCHER_DIFF], 2);
	matcher_match_result_free(r);
}

static void test_overrides(void)
{
	static const char text[] = "\xEF\xBB\xBF# header comment\n"
	                           "   # comment after whitespace\n"
	                           "\n"
	                           "a1, b1\r\n"
	                           "this line has no comma\n"
	                           "  a2 ,  b2, with comma  \n"
	                           "a1,b1-later\n"
	                           "missing/op_0_x, nowhere\n"
	                           "a3, gone\n"
	                           "a4, b1-later\n";
	struct matcher_overrides *ov = NULL;
	struct matcher_match_result *r;

	CHECK(matcher_overrides_parse(text, sizeof(text) - 1, &ov) == 0);
	if (!ov)
		return;
	CHECK_INT(ov->n_items, 5);
	CHECK_STR(ov->items[0].a_key, "a1");
	CHECK_STR(ov->items[0].b_key, "b1-later"); /* later line wins */
	CHECK_INT(ov->items[0].line, 7);
	CHECK_STR(ov->items[1].a_key, "a2");
	CHECK_STR(ov->items[1].b_key, "b2, with comma"); /* first comma split */
	CHECK_INT(ov->n_warnings, 1);
	if (ov->n_warnings == 1) {
		CHECK_STR(ov->warnings[0].code, "override_no_comma");
		CHECK_INT(ov->warnings[0].line, 5);
		CHECK_STR(ov->warnings[0].excerpt, "this line has no comma");
	}
	r = match2(HDR "[a1]\n  Output hash: 1\n[a2]\n  Output hash: 1\n[a3]\n[a4]\n"
	               "[feed_forward/op_7_mul]\n  Output hash: 9\n",
	           HDR "[b2, with comma]\n  Output hash: 1\n[b1]\n  Output hash: 1\n"
	               "[b1-later]\n  Output hash: 2\n[a3]\n"
	               "[layers.2.feed_forward/op_3_mul]\n  Output hash: 8\n",
	           ov);
	/* a1 -> b1-later (not b1), a3's target does not exist so it falls
	 * through to the exact pass, a4's target was taken by a1 */
	CHECK_ROWS(r, "a1|b1-later|diff|override", "a2|b2, with comma|match|override",
	           "a3|a3|match|exact", "a4|null|a_only|null",
	           "feed_forward/op_7_mul|null|a_only|null", "null|b1|b_only|null",
	           "null|layers.2.feed_forward/op_3_mul|b_only|null");
	if (r) {
		CHECK_INT(r->n_overrides_used, 2);
		CHECK_INT(r->n_unused, 3);
		if (r->n_unused == 3) {
			CHECK_STR(r->unused[0].a_key, "missing/op_0_x");
			CHECK_STR(r->unused[0].reason, "a_key_not_found");
			CHECK_STR(r->unused[1].a_key, "a3");
			CHECK_STR(r->unused[1].reason, "b_key_not_found");
			CHECK_STR(r->unused[2].a_key, "a4");
			CHECK_STR(r->unused[2].reason, "b_key_already_paired");
		}
	}
	matcher_match_result_free(r);
	matcher_overrides_free(ov);

	/* the p4 case: AC recompute, eager logs the short FQN */
	CHECK(matcher_overrides_parse("feed_forward/op_7_mul, layers.2.feed_forward/op_3_mul", 53,
	                              &ov) == 0);
	r = match2(HDR "[feed_forward/op_7_mul]\n  Output hash: 9\n",
	           HDR "[layers.2.feed_forward/op_3_mul]\n  Output hash: 9\n", ov);
	CHECK_ROWS(r, "feed_forward/op_7_mul|layers.2.feed_forward/op_3_mul|match|override");
	matcher_match_result_free(r);
	matcher_overrides_free(ov);

	/* empty file */
	CHECK(matcher_overrides_parse("", 0, &ov) == 0);
	CHECK(ov && ov->n_items == 0 && ov->n_warnings == 0);
	matcher_overrides_free(ov);
}

/* Entries built by hand (no parser), as store/ rebuilds them. */
static void test_hand_built(void)
{
	struct matcher_actlog *a = keep(matcher_actlog_new()), *b = keep(matcher_actlog_new());
	struct matcher_entry e;
	struct matcher_match_result *r = NULL;

	CHECK(a && b);
	if (!a || !b)
		return;
	memset(&e, 0, sizeof(e));
	e.key = "FSDPLlama3Model.layers.0.wq/op_3_mm";
	e.stats[MATCHER_STAT_L2] = "2.0";
	e.stat_num[MATCHER_STAT_L2] = 2.0;
	e.stat_isnum = 1u << MATCHER_STAT_L2;
	e.output_hash = "inf";
	e.phase = MATCHER_BACKWARD;
	CHECK(matcher_actlog_add_entry(a, &e) == 0);
	e.key = "layers.0.wq/op_1_mm";
	e.stats[MATCHER_STAT_L2] = "2.00";
	CHECK(matcher_actlog_add_entry(b, &e) == 0);
	CHECK(matcher_match(a, b, NULL, &r) == 0);
	CHECK_ROWS(r, "FSDPLlama3Model.layers.0.wq/op_3_mm|layers.0.wq/op_1_mm|match|fuzzy");
	if (r && r->n_rows == 1)
		CHECK_DBL(ROW(r, 0)->stat_diff[MATCHER_STAT_L2], 0.0, 0);
	matcher_match_result_free(r);

	/* empty logs */
	r = match2(HDR, HDR, NULL);
	CHECK(r && r->n_rows == 0);
	if (r)
		CHECK(r->summary.first_divergence[0] == MATCHER_NO_ROW &&
		      r->summary.max_hash_distance < 0);
	matcher_match_result_free(r);
}

int main(void)
{
	size_t i;

	test_keys();
	test_distances();
	test_worked_example();
	test_pass_order_and_rows();
	test_exact_parts();
	test_stats_pass();
	test_status();
	test_status_on_records();
	test_first_divergence();
	test_overrides();
	test_hand_built();
	for (i = 0; i < n_kept; i++)
		matcher_actlog_free(kept[i]);
	return check_report();
}
