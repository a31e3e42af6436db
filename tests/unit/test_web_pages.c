/* test_web_pages.c - the page renderers of web/: golden fragments (tint
 * classes on the right cells, row pairs, filters in links, profile and
 * chart SVG without non-finite numbers) and XSS: a hostile string placed
 * in every field a log or request can fill (op keys, locations, shapes,
 * stats, hashes, producers, run names, metadata, reasons, excluded ops,
 * warnings, policy, filter values, comparison errors) must come out
 * escaped on every page, in text and in attributes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "web.h"
#include "web_int.h"

#define EVIL     "x\"y'z<img src=x onerror=alert(1)>&amp;"
#define EVIL_ESC "x&quot;y&#39;z&lt;img src=x onerror=alert(1)&gt;&amp;amp;"

/* The hostile string must never appear raw; its escaped form must. */
/* 1 when s holds "nan" or "inf" other than in "dominant-baseline". */
static int has_nonfinite_text(const char *s)
{
	const char *p;

	if (strstr(s, "inf"))
		return 1;
	for (p = s; (p = strstr(p, "nan")) != NULL; p += 3)
		if (p - s < 4 || strncmp(p - 4, "domi", 4))
			return 1;
	return 0;
}

static void no_raw(const char *html, const char *what)
{
	int ok = html && !strstr(html, "<img") && !strstr(html, "x\"y") && !strstr(html, "y'z");
	if (!ok)
		fprintf(stderr, "raw hostile text in %s\n", what);
	CHECK(ok);
	CHECK(html && strstr(html, EVIL_ESC) != NULL);
}

/* A typed activation comparison with the hostile string everywhere a log
 * or request can fill (the policy's name is an enum now). */
struct evil_act {
	struct store_run ra, rb;
	struct store_comparison cmp;
	struct store_act_reason reason;
	struct store_act_rank ranks[2];
	const char *ops[1], *ex_a[1];
	struct store_act_result res;
};

static void evil_act(struct evil_act *x)
{
	memset(x, 0, sizeof *x);
	x->ra = (struct store_run){.id = 1, .name = EVIL, .kind = "activation"};
	x->rb = (struct store_run){.id = 2, .name = EVIL, .kind = "activation"};
	x->cmp = (struct store_comparison){.id = 7,
	                                   .name = EVIL,
	                                   .kind = "activation",
	                                   .status = "done",
	                                   .verdict = "fail",
	                                   .baseline_id = 1,
	                                   .candidate_id = 2,
	                                   .baseline = &x->ra,
	                                   .candidate = &x->rb,
	                                   .finished_at = "n",
	                                   .act = &x->res};
	x->reason = (struct store_act_reason){.rank = 0, .code = EVIL, .message = EVIL};
	x->ops[0] = EVIL;
	x->ex_a[0] = EVIL;
	for (int i = 0; i < 2; i++) {
		struct store_act_rank *k = &x->ranks[i];
		k->rank = i;
		k->name_a = EVIL;
		k->name_b = "n";
		k->max_hash_row = -1;
		k->max_hash_distance = -1;
		k->first_divergence[0].row = k->first_divergence[1].row = -1;
	}
	struct store_act_rank *k = &x->ranks[0];
	k->verdict = MATCHER_VERDICT_FAIL;
	k->n_rows = 3;
	k->n_status[MATCHER_MATCH] = k->n_status[MATCHER_DIFF] = k->n_status[MATCHER_A_ONLY] = 1;
	k->n_method[MATCHER_METHOD_EXACT] = 2;
	k->n_phase_status[0][MATCHER_MATCH] = k->n_phase_status[0][MATCHER_DIFF] = 1;
	k->n_origin = 1;
	k->excluded[0] = x->ex_a;
	k->n_excluded[0] = 1;
	k->first_divergence[0] =
	        (struct store_act_ref){.row = 1, .a_key = EVIL, .out_dist = -1, .in_dist = -1};
	x->res = (struct store_act_result){MATCHER_VERDICT_FAIL,
	                                   {MATCHER_POLICY_TOLERANCE, 1e-6, x->ops, 1},
	                                   &x->reason,
	                                   1,
	                                   x->ranks,
	                                   2};
}

/* Rows: a match, a diff (structural hash mismatch, shape differs, stat
 * drifts, a stat that differs fully), an a_only; keys and every entry
 * field hostile in the diff.  Typed, as the store and the matcher give
 * them. */
struct evil_rows {
	struct matcher_entry e[5];
	struct matcher_row r[3];
	struct web_act_row w[3];
};

static void evil_rows(struct evil_rows *x)
{
	memset(x, 0, sizeof *x);
	for (int i = 0; i < 2; i++) { /* the match */
		struct matcher_entry *e = &x->e[i];
		e->key = "m/op_0_mm";
		e->stats[MATCHER_STAT_SHAPE] = "[2]";
		e->stats[MATCHER_STAT_L2] = "1.0";
		e->output_hash = "1.0";
	}
	for (int i = 2; i < 4; i++) { /* the diff: hostile everywhere */
		struct matcher_entry *e = &x->e[i];
		e->key = EVIL;
		e->stats[MATCHER_STAT_SHAPE] = EVIL;
		e->output_hash = EVIL;
		e->location = EVIL;
	}
	for (int k = MATCHER_STAT_L2; k < MATCHER_N_STATS; k++)
		x->e[2].stats[k] = EVIL;
	x->e[2].input_hashes = "1, 2, 3, 4, 5";
	x->e[2].input_producers = EVIL;
	x->e[3].input_hashes = "1";
	x->e[3].input_producers = "P";
	x->e[4].key = "only";
	x->e[4].phase = MATCHER_BACKWARD;
	for (int i = 0; i < 3; i++) {
		struct matcher_row *r = &x->r[i];
		for (int k = 0; k < MATCHER_N_STATS; k++)
			r->stat_diff[k] = -1;
		r->input_hash_distance = -1;
		x->w[i] = (struct web_act_row){i, r};
	}
	x->r[0] = (struct matcher_row){&x->e[0],
	                               &x->e[1],
	                               MATCHER_MATCH,
	                               MATCHER_METHOD_EXACT,
	                               MATCHER_FORWARD,
	                               0,
	                               0,
	                               0.0,
	                               -1,
	                               {-1, -1, -1, -1, -1, -1}};
	x->r[1] = (struct matcher_row){
	        &x->e[2], &x->e[3], MATCHER_DIFF, MATCHER_METHOD_FUZZY,      MATCHER_FORWARD, 1,
	        1,        1.0,      1e-7,         {-1, -1, 1e-4, 0.5, -1, 1}};
	x->r[2] = (struct matcher_row){&x->e[4],
	                               NULL,
	                               MATCHER_A_ONLY,
	                               MATCHER_METHOD_NONE,
	                               MATCHER_BACKWARD,
	                               0,
	                               0,
	                               -1,
	                               -1,
	                               {-1, -1, -1, -1, -1, -1}};
}

static void test_act_page(void)
{
	struct evil_act act;
	struct evil_rows rows;
	struct web_act_filters f = {.status = "diff",
	                            .method = "fuzzy",
	                            .phase = "forward",
	                            .origin = 1,
	                            .q = EVIL,
	                            .limit = 200};
	struct web_act_view v;
	struct buf b = BUF_INIT;

	memset(&v, 0, sizeof v);
	evil_rows(&rows);
	evil_act(&act);
	v.cmp = &act.cmp;
	v.res = &act.res;
	v.rows = rows.w;
	v.n_rows = 3;
	v.f = &f;
	v.next_from = 3;
	v.profile_url = "/ui/comparisons/7/profile.svg?rank=0";
	v.mode = WEB_SERVER;
	CHECK(web_act_page(&b, &v) == 0);
	no_raw(b.data, "activation page");
	/* tints: structural output-hash mismatch and shape are full red, the
	 * 1e-7 input drift faint, the 1e-4 stat mid, a fully differing stat full */
	CHECK(strstr(b.data, "<td class=\"oh tint t10\" title=\"output hash distance A vs B "
	                     "(relative) = 1\">") != NULL);
	CHECK(strstr(b.data, "<td class=\"ihs tint t2\" title=\"input hash distance A vs B "
	                     "(relative) = 9.9999999999999995e-08\">") != NULL);
	CHECK(strstr(b.data, "<td class=\"shape tint t10\" title=\"the shapes of A and B "
	                     "differ\">") != NULL);
	CHECK(strstr(b.data, "<td class=\"num tint t6\" title=\"L2 norm: relative difference A "
	                     "vs B = 0.0001\">") != NULL);
	CHECK(strstr(b.data, "<td class=\"num tint t10\" title=\"Mean: relative difference A "
	                     "vs B = 1\">") != NULL);
	/* ... and show their number, shortly */
	CHECK(strstr(b.data, "<span class=\"dv\">1e-07</span></td>") != NULL);
	CHECK(strstr(b.data, "<span class=\"dv\">0.0001</span></td>") != NULL);
	CHECK(strstr(b.data, "<span class=\"dv\">0.5</span></td>") != NULL);
	CHECK(strstr(b.data, "<span class=\"dv\">\xe2\x89\xa0</span></td>") != NULL);
	/* input-hash links are out of the tab order; skip links come first */
	CHECK(strstr(b.data, "<a class=\"ih\" href=") == NULL);
	CHECK(strstr(b.data, "<a class=\"ih\" tabindex=\"-1\" href=") != NULL);
	CHECK(strstr(b.data, "<body><nav class=\"skip\" aria-label=\"skip links\"><a "
	                     "class=\"skip\" href=\"#rows\">Skip to rows</a><a class=\"skip\" "
	                     "href=\"#main\">Skip to content</a></nav>") != NULL);
	CHECK(strstr(b.data, "<main id=\"main\">") != NULL);
	/* downloads; paging: go to row (a filtered view has no last page) */
	CHECK(strstr(b.data, "<a id=\"dl-pdf\" href=\"/comparisons/7/report.pdf\"") != NULL);
	CHECK(strstr(b.data, "<a id=\"dl-csv\" href=\"/comparisons/7/rows.csv\"") != NULL);
	CHECK(strstr(b.data, "<form class=\"goto\" id=\"goto-row\" method=\"get\" "
	                     "action=\"/ui/comparisons/7\">") != NULL);
	CHECK(strstr(b.data, "id=\"page-last\"") == NULL);
	CHECK(strstr(b.data, "id=\"landed\"") == NULL);
	/* the match row and the only-row have no tint */
	{
		const char *m = strstr(b.data, "id=\"r0\""), *d = strstr(b.data, "id=\"r1\"");
		const char *o = strstr(b.data, "id=\"r2\""), *oe;
		CHECK(m && d && m < d);
		if (m && d) {
			char *seg = strndup(m, (size_t)(d - m));
			CHECK(strstr(seg, "tint") == NULL);
			free(seg);
		}
		CHECK(o != NULL);
		oe = o ? strstr(o, "</tbody>") : NULL;
		if (o && oe) {
			char *seg = strndup(o, (size_t)(oe - o));
			CHECK(strstr(seg, "tint") == NULL);
			CHECK(strstr(seg, "not in B") != NULL);
			free(seg);
		}
	}
	/* long input lists collapse; producers become tooltips */
	CHECK(strstr(b.data, "<details class=\"hl\"><summary>5 values</summary>") != NULL);
	/* (producers split at ';', and the hostile text holds one) */
	CHECK(strstr(b.data, "title=\"produced by x&quot;y&#39;z&lt;img src=x onerror=alert(1)&gt;"
	                     "&amp;amp\"") != NULL);
	/* filters survive in the links (percent-encoded, then escaped) */
	CHECK(strstr(b.data,
	             "?rank=0&amp;status=diff&amp;method=fuzzy&amp;phase=forward&amp;"
	             "origin=1&amp;q=x%22y%27z%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E"
	             "%26amp%3B&amp;case=sensitive&amp;from=3#rows\" id=\"page-next\"") != NULL);
	/* the match-case box, ticked (f.icase 0: case=sensitive) */
	CHECK(strstr(b.data, "<input type=\"checkbox\" name=\"case\" value=\"sensitive\" checked> "
	                     "match case") != NULL);
	/* sections, jumps, rank selector, profile object */
	CHECK(strstr(b.data, "<details class=\"section\" open id=\"forward\">") != NULL);
	CHECK(strstr(b.data, "<details class=\"section\" open id=\"backward\">") != NULL);
	CHECK(strstr(b.data, "id=\"jump-fwd\" href=\"/ui/comparisons/7?rank=0&amp;from=1#r1\"") !=
	      NULL);
	CHECK(strstr(b.data, "First backward divergence: none") != NULL);
	CHECK(strstr(b.data, "class=\"rank v-pass\" href=\"/ui/comparisons/7?rank=1") != NULL);
	CHECK(strstr(b.data, "<object class=\"profile\" type=\"image/svg+xml\"") != NULL);
	CHECK(strstr(b.data, "<span class=\"chip\">(none)</span>") != NULL); /* B excluded */
	CHECK(strstr(b.data, "<title>#7 fail: ") != NULL);
	/* the report link says what it weighs */
	CHECK(strstr(b.data, "<a href=\"/comparisons/7/report.html\" id=\"report-link\">"
	                     "self-contained report</a> (3 rows, about 0.1 MB)") != NULL);
	CHECK(strstr(b.data, "<script>") == NULL); /* server pages: no inline script */
	CHECK(strstr(b.data, " style=") == NULL);
	buf_reset(&b);

	/* unfiltered, landed at the first divergence: the hidden rows
	 * counted, a link to the start (an explicit from=0), the last page;
	 * a cause chain lists op keys, joined by CSS (no entity as text) */
	{
		struct web_act_filters g = {.origin = -1, .from = 1, .limit = 2};
		const long chain[2] = {1, 0};
		const char *const keys[2] = {EVIL, NULL};

		v.f = &g;
		v.landed = 1;
		v.landing_context = 5;
		v.n_total = 9;
		v.chain = chain;
		v.chain_keys = keys;
		v.n_chain = 2;
		CHECK(web_act_page(&b, &v) == 0);
		no_raw(b.data, "landed page");
		CHECK(strstr(b.data, "<p class=\"landed\" id=\"landed\">Opened at the first "
		                     "divergence (row 6): rows 0&ndash;0 above this page are "
		                     "hidden (1 row)") != NULL);
		CHECK(strstr(b.data, "href=\"/ui/comparisons/7?rank=0&amp;from=0#rows\" "
		                     "id=\"landed-start\"") != NULL);
		CHECK(strstr(b.data,
		             "href=\"/ui/comparisons/7?rank=0&amp;limit=2&amp;from=0#rows\" "
		             "id=\"page-first\"") != NULL);
		CHECK(strstr(b.data,
		             "href=\"/ui/comparisons/7?rank=0&amp;limit=2&amp;from=7#rows\" "
		             "id=\"page-last\"") != NULL);
		CHECK(strstr(b.data, " max=\"8\" required>") != NULL);
		CHECK(strstr(b.data,
		             "<li><a href=\"/ui/comparisons/7?rank=0&amp;row=1#r1\">row 1</a> "
		             "<code>" EVIL_ESC "</code></li><li><a") != NULL);
		CHECK(strstr(b.data, "&amp;larr;") == NULL);
		buf_reset(&b);
		v.f = &f;
		v.landed = 0;
		v.n_total = 0;
		v.chain = NULL;
		v.chain_keys = NULL;
		v.n_chain = 0;
	}

	/* a filter error replaces the table, keeps the page (and prints
	 * no markup as text) */
	v.filter_error = EVIL;
	CHECK(web_act_page(&b, &v) == 0);
	no_raw(b.data, "filter error");
	CHECK(strstr(b.data, "id=\"filter-error\"") != NULL);
	CHECK(strstr(b.data, "<table class=\"rows\">") == NULL);
	CHECK(strstr(b.data, "&lt;/div&gt;") == NULL);
	CHECK(strstr(b.data, "</p></div></main>") != NULL);
	buf_reset(&b);

	/* offline report: inline assets, client filters, no server links */
	{
		struct web_profile_point pts[2] = {{1, 1.0, 1, 0}, {2, -1, 2, 1}};
		struct web_profile p = {pts, 2, 3, 1, -1, NULL};
		CHECK(web_report_act_html(&b, &act.cmp, &act.res, rows.w, 3, &p, -1, EVIL) == 0);
		no_raw(b.data, "report");
		CHECK(strstr(b.data, "<style>") != NULL && strstr(b.data, "<script>") != NULL);
		CHECK(strstr(b.data, "/assets/") == NULL);
		CHECK(strstr(b.data, "href=\"/") == NULL);
		CHECK(strstr(b.data, "id=\"cfilters\"") != NULL);
		CHECK(strstr(b.data, "<svg class=\"profile\"") != NULL);
		CHECK(strstr(b.data, "<p class=\"note\" id=\"note\">" EVIL_ESC) != NULL);
		CHECK(strstr(b.data, "Content-Security-Policy") != NULL);
		buf_reset(&b);
	}
	/* the CLI's report: no comparison around the result */
	CHECK(web_report_act_html(&b, NULL, &act.res, rows.w, 3, NULL, 0, NULL) == 0);
	CHECK(strstr(b.data, "<title>fail: ") != NULL);
	CHECK(strstr(b.data, "Policy <b>tolerance</b>: hash distances up to 1e-06 tolerated") !=
	      NULL);
	buf_reset(&b);
}

/* The first data block (script.vrows) of a report, parsed (NULL when
 * there is none or it is not JSON).  Caller json_decref's. */
static json_t *report_data(const char *html)
{
	const char *p = html ? strstr(html, "class=\"vrows\"") : NULL, *e;
	json_error_t err;

	p = p ? strchr(p, '>') : NULL;
	e = p ? strstr(p, "</script>") : NULL;
	if (!e)
		return NULL;
	return json_loadb(p + 1, (size_t)(e - p - 1), 0, &err);
}

/* The report's rows are data: every row, log text escaped for JSON and
 * for <script> (no "<", "'", "&", U+2028 raw), read back unchanged. */
static void test_report_data(void)
{
	static const char nasty[] = "k</script><script>alert(1)</script><!--\xe2\x80\xa8\\\"\n";
	struct evil_act act;
	struct evil_rows rows;
	struct buf b = BUF_INIT;
	json_t *d, *r;

	evil_rows(&rows);
	evil_act(&act);
	rows.e[0].key = nasty;
	rows.e[1].key = nasty;
	CHECK(web_report_act_html(&b, NULL, &act.res, rows.w, 3, NULL, 0, NULL) == 0);
	no_raw(b.data, "report data");
	CHECK(strstr(b.data, "alert(1)</script>") == NULL);
	CHECK(strstr(b.data, "<!--") == NULL);
	CHECK(strstr(b.data, "\xe2\x80\xa8") == NULL);
	CHECK(strstr(b.data, "<tbody class=\"pair") == NULL); /* rows are rendered by report.js */
	CHECK(strstr(b.data, "<div class=\"vscroll\"") != NULL);
	d = report_data(b.data);
	CHECK(d && json_array_size(d) == 2); /* forward: the match and the diff */
	/* the match: its key, B the same in every column (1), no tints */
	r = json_array_get(d, 0);
	CHECK(json_integer_value(json_array_get(r, 0)) == 0);
	CHECK(!strcmp(json_string_value(json_array_get(r, 1)) ?: "", "match"));
	CHECK(!strcmp(json_string_value(json_array_get(json_array_get(r, 4), 0)) ?: "", nasty));
	CHECK(json_integer_value(json_array_get(r, 5)) == 1);
	CHECK(json_integer_value(json_array_get(r, 6)) == 0);
	/* the diff: hostile text read back as is, origin, tints as on the page */
	r = json_array_get(d, 1);
	CHECK(!strcmp(json_string_value(json_array_get(r, 2)) ?: "", "fuzzy"));
	CHECK(json_integer_value(json_array_get(r, 3)) == 1);
	CHECK(!strcmp(json_string_value(json_array_get(json_array_get(r, 4), 4)) ?: "", EVIL));
	CHECK(!strcmp(json_string_value(json_array_get(json_array_get(r, 4), 3)) ?: "", EVIL));
	CHECK(!strcmp(json_string_value(json_array_get(json_array_get(r, 5), 3)) ?: "", "P"));
	CHECK(json_integer_value(json_array_get(json_array_get(r, 5), 0)) == 0); /* key as A's */
	{
		/* output hash, inputs 1e-7, shape, L1 -, L2 1e-4, min 0.5, max -, mean 1 */
		static const int want[8] = {10, 2, 10, 0, 6, 10, 0, 10};
		json_t *t = json_array_get(r, 6);
		int ok = json_array_size(t) == 15;
		for (int k = 0; ok && k < 8; k++)
			ok = json_integer_value(json_array_get(t, k)) == want[k];
		CHECK(ok);
		/* then the numbers of the tinted cells (0 for an untinted one):
		 * output hash, inputs, L1, L2, min, max, mean */
		CHECK(json_number_value(json_array_get(t, 8)) > 0);
		CHECK(json_number_value(json_array_get(t, 9)) == 1e-7);
		CHECK(json_integer_value(json_array_get(t, 10)) == 0);
		CHECK(json_number_value(json_array_get(t, 11)) == 1e-4);
		CHECK(json_number_value(json_array_get(t, 12)) == 0.5);
		CHECK(json_integer_value(json_array_get(t, 13)) == 0);
		CHECK(json_number_value(json_array_get(t, 14)) == 1);
	}
	json_decref(d);
	/* the a_only row is the backward section's, B absent */
	{
		const char *bw = strstr(b.data, "id=\"backward\"");
		d = report_data(bw);
		r = json_array_get(d, 0);
		CHECK(d && json_array_size(d) == 1 &&
		      json_integer_value(json_array_get(r, 0)) == 2 &&
		      json_is_null(json_array_get(r, 2)) &&
		      json_integer_value(json_array_get(r, 5)) == 0);
		json_decref(d);
	}
	buf_reset(&b);
}

/* The report's string writer skips safe text eight bytes at a time: each
 * byte it must escape, at every position of a word (and past the first
 * word), is escaped and the text reads back unchanged. */
static void test_report_escape_positions(void)
{
	static const char *const special[] = {
	        "<", ">", "&", "'", "\"", "\\", "\n", "\x01", "\xe2\x80\xa8", "\xe2\x82\xac"};
	struct evil_act act;
	struct evil_rows rows;
	int bad = 0;

	evil_act(&act);
	for (size_t k = 0; k < sizeof special / sizeof special[0]; k++) {
		for (int pos = 0; pos < 19; pos++) {
			char key[64];
			struct buf b = BUF_INIT;
			json_t *d;

			memset(key, 'x', (size_t)pos);
			snprintf(key + pos, sizeof key - (size_t)pos, "%syyyyyyyyy", special[k]);
			evil_rows(&rows);
			rows.e[0].key = key;
			if (web_report_act_html(&b, NULL, &act.res, rows.w, 3, NULL, 0, NULL) !=
			    0) {
				bad++;
				continue;
			}
			/* the raw text never shows inside the data (U+20AC may) */
			const char *data = strstr(b.data, "class=\"vrows\"");
			d = report_data(b.data);
			if (!d || strcmp(json_string_value(json_array_get(
			                         json_array_get(json_array_get(d, 0), 4), 0))
			                         ?: "",
			                 key) != 0)
				bad++;
			/* (an escaped '"' or '\\' still holds the key's tail) */
			if (k != 4 && k != 5 && k < 9 && data && strstr(data, key))
				bad++;
			json_decref(d);
			buf_reset(&b);
		}
	}
	CHECK_INT(bad, 0);
}

/* The comparison page's report link: rows of every rank, grouped by
 * thousands, and the size it predicts. */
static void test_report_link(void)
{
	struct evil_act act;
	struct buf b = BUF_INIT;

	evil_act(&act);
	act.ranks[0].n_status[MATCHER_MATCH] = 20002;
	act.ranks[1].n_status[MATCHER_DIFF] = 66004; /* 86,008 in all */
	CHECK(web_report_link(&b, 9, &act.res) == 0);
	CHECK(b.data && !strcmp(b.data, "<a href=\"/comparisons/9/report.html\" id=\"report-link\">"
	                                "self-contained report</a> (86,008 rows, about 36 MB)"));
	buf_reset(&b);
	act.ranks[0].n_status[MATCHER_MATCH] = 0;
	act.ranks[0].n_status[MATCHER_DIFF] = act.ranks[0].n_status[MATCHER_A_ONLY] = 0;
	act.ranks[1].n_status[MATCHER_DIFF] = 1;
	CHECK(web_report_link(&b, 9, &act.res) == 0);
	CHECK(b.data && strstr(b.data, "(1 row, about 0.1 MB)") != NULL);
	buf_reset(&b);
}

static void test_act_query(void)
{
	struct web_act_filters f = {
	        .rank = 2, .origin = -1, .q = "a&b", .icase = 1, .from = 40, .limit = 200};
	struct buf b = BUF_INIT;
	CHECK(web_act_query(&b, &f, -1) == 0);
	CHECK_STR(b.data, "?rank=2&q=a%26b&from=40");
	buf_clear(&b);
	CHECK(web_act_query(&b, &f, -2) == 0);
	CHECK_STR(b.data, "?rank=2&q=a%26b");
	buf_clear(&b);
	f.limit = 50;
	f.status = "diff,a_only";
	CHECK(web_act_query(&b, &f, 7) == 0);
	CHECK_STR(b.data, "?rank=2&status=diff,a_only&q=a%26b&limit=50&from=7");
	/* case=sensitive (icase 0; insensitive is the default) rides along
	 * with q only */
	buf_clear(&b);
	f.icase = 0;
	CHECK(web_act_query(&b, &f, -2) == 0);
	CHECK_STR(b.data, "?rank=2&status=diff,a_only&q=a%26b&case=sensitive&limit=50");
	buf_clear(&b);
	f.q = NULL;
	CHECK(web_act_query(&b, &f, -2) == 0);
	CHECK_STR(b.data, "?rank=2&status=diff,a_only&limit=50");
	/* an explicit start is kept (no from: the page opens at the first
	 * divergence) */
	buf_clear(&b);
	CHECK(web_act_query(&b, &f, 0) == 0);
	CHECK_STR(b.data, "?rank=2&status=diff,a_only&limit=50&from=0");
	buf_reset(&b);
}

/* Where a page opens: context rows above the earlier first divergence
 * of the rank, the start when it diverges early or not at all. */
static void test_act_landing(void)
{
	struct store_act_rank k[2];
	struct store_act_result res;

	memset(k, 0, sizeof k);
	memset(&res, 0, sizeof res);
	res.ranks = k;
	res.n_ranks = 2;
	k[0].rank = 0;
	k[0].first_divergence[0].row = 276;
	k[0].first_divergence[1].row = 300;
	k[1].rank = 1;
	k[1].first_divergence[0].row = -1;
	k[1].first_divergence[1].row = 40;
	CHECK(web_act_landing(&res, 0, 5) == 271);
	CHECK(web_act_landing(&res, 1, 5) == 35);
	k[0].first_divergence[1].row = 100; /* backward first */
	CHECK(web_act_landing(&res, 0, 5) == 95);
	CHECK(web_act_landing(&res, 0, 100) == 0);
	CHECK(web_act_landing(&res, 0, 200) == 0);
	CHECK(web_act_landing(&res, 7, 5) == 0); /* not a rank of it */
	k[1].first_divergence[1].row = -1;
	CHECK(web_act_landing(&res, 1, 5) == 0); /* no divergence */
	CHECK(web_act_landing(NULL, 0, 5) == 0);
}

static void test_train_page(void)
{
	/* a typed comparison and result, every text field a log or request
	 * can fill hostile */
	struct store_run ra = {.id = 1, .name = EVIL, .kind = "training"};
	struct store_run rb = {.id = 2, .name = "n", .kind = "training"};
	struct store_comparison cmp = {.id = 9,
	                               .name = "",
	                               .kind = "training",
	                               .status = "done",
	                               .verdict = "fail",
	                               .baseline_id = 1,
	                               .candidate_id = 2,
	                               .baseline = &ra,
	                               .candidate = &rb};
	struct matcher_train_reason reason = {.code = "threshold_exceeded", .message = EVIL};
	struct matcher_train_metric_result m = {.name = "loss",
	                                        .max_abs = INFINITY,
	                                        .max_abs_text = EVIL,
	                                        .nan = {0, 1},
	                                        .has_resolution = 1,
	                                        .decimals = 5};
	struct matcher_warning w = {"n", 3, "n", EVIL};
	const char *notes[] = {EVIL}, *names[] = {"loss"};
	struct matcher_train_row_cell cells[3] = {
	        {{1, 1}, 2.0, 2.0, 1, 1, 0, 0, "0", 0},
	        {{1, 1}, 1.5, NAN, 1, 1, INFINITY, INFINITY, "Inf", 1},
	        {{1, 1}, 1.0, 1.1, 1, 1, 0.1, 0.1, EVIL, 1},
	};
	struct store_step_row steps[3];
	struct store_train_result res = {.verdict = MATCHER_VERDICT_FAIL,
	                                 .reasons = &reason,
	                                 .n_reasons = 1,
	                                 .metrics = &m,
	                                 .n_metrics = 1,
	                                 .notes = notes,
	                                 .n_notes = 1,
	                                 .n_common = 3,
	                                 .warnings = {&w, NULL},
	                                 .n_warnings = {1, 0}};
	struct web_train_view v;
	struct buf b = BUF_INIT;

	matcher_train_policy_preset(&res.policy, "premerge");
	m.th = res.policy.th[0];
	for (int i = 0; i < 3; i++)
		steps[i] = (struct store_step_row){0, i + 1, names, &cells[i], 1};
	cmp.train = &res;
	memset(&v, 0, sizeof v);
	v.cmp = &cmp;
	v.res = &res;
	v.steps = steps;
	v.n_steps = 3;
	v.mode = WEB_SERVER;
	CHECK(web_train_page(&b, &v) == 0);
	no_raw(b.data, "training page");
	CHECK(strstr(b.data, "<svg class=\"chart-svg\"") != NULL);
	CHECK(strstr(b.data, "class=\"hline\"") != NULL);
	/* red cells say why in their title (the metric name escaped: no_raw) */
	CHECK(strstr(b.data, "<td class=\"num over tint t10\" title=\"") != NULL);
	CHECK(strstr(b.data, "|candidate - baseline| = ") != NULL);
	CHECK(strstr(b.data, "<tr id=\"s1\"><th>1</th>") != NULL); /* not over: no class */
	CHECK(strstr(b.data, "<tr id=\"s2\" class=\"over-row\">") != NULL);
	CHECK(strstr(b.data, "href=\"/comparisons/9/steps.csv\"") != NULL);
	/* no non-finite number leaks into SVG geometry */
	{
		const char *p = b.data;
		int bad = 0;
		while ((p = strstr(p, " d=\"")) != NULL) {
			const char *end = strchr(p + 4, '"');
			for (const char *q = p + 4; end && q < end; q++)
				bad |= (*q == 'n' || *q == 'i' || *q == 'N' || *q == 'I');
			p += 4;
		}
		CHECK(!bad);
	}
	buf_reset(&b);
	v.log_y = 1;
	CHECK(web_train_page(&b, &v) == 0);
	CHECK(strstr(b.data, ">1e-") != NULL); /* log ticks */
	buf_reset(&b);
	CHECK(web_report_html(&b, &v) == 0);
	no_raw(b.data, "training report");
	CHECK(strstr(b.data, "steps.csv") == NULL);
	buf_reset(&b);
}

static void test_small_pages(void)
{
	struct buf b = BUF_INIT;
	/* runs come as the store's views, every text field hostile */
	json_t *meta_j = json_pack("{s:s,s:{s:s}}", "commit", EVIL, "config", "k", EVIL);
	char *meta = json_dumps(meta_j, JSON_COMPACT);
	const char *excluded[] = {EVIL};
	struct store_warning_view warn = {EVIL, 4, EVIL, EVIL};
	struct store_log_view log0 = {.id = 5,
	                              .rank = 0,
	                              .filename = EVIL,
	                              .bytes = 10,
	                              .sha256 = "s",
	                              .n_items = 2,
	                              .n_lines = 5,
	                              .n_warnings = 2,
	                              .has_excluded = 1,
	                              .excluded = excluded,
	                              .n_excluded = 1,
	                              .warnings = &warn,
	                              .n_warnings_listed = 1};
	struct store_run run = {.id = 1,
	                        .name = EVIL,
	                        .kind = "training",
	                        .meta_json = meta,
	                        .created_at = "t",
	                        .with_warnings = 1,
	                        .logs = &log0,
	                        .n_logs = 1};
	struct store_run list_run = {
	        .id = 1, .name = EVIL, .kind = "training", .meta_json = meta, .created_at = "t"};
	struct store_run_page runs = {.runs = &list_run, .n_runs = 1};
	struct store_run cand_run = {.id = 2, .name = "", .kind = "activation", .created_at = "t"};
	struct store_comparison cmp = {.id = 3,
	                               .name = EVIL,
	                               .kind = "activation",
	                               .status = "done",
	                               .verdict = EVIL,
	                               .baseline_id = 1,
	                               .candidate_id = 2,
	                               .baseline = &list_run,
	                               .candidate = &cand_run,
	                               .created_at = EVIL};
	struct store_comparison_page cmps = {.cmps = &cmp, .n_cmps = 1};
	struct store_step_metric m1 = {"loss", "2.5", 1, 2.5}, m2 = {"loss", "nan", 0, 0};
	struct store_run_step st[2] = {{.step = 1, .metrics = &m1, .n_metrics = 1},
	                               {.step = 2, .metrics = &m2, .n_metrics = 1}};
	struct store_run_step_page steps = {.steps = st, .n_steps = 2};
	struct store_comparison pend = {.id = 4,
	                                .name = "",
	                                .kind = "activation",
	                                .status = "failed",
	                                .baseline_id = 1,
	                                .candidate_id = 2,
	                                .baseline = &list_run,
	                                .error = EVIL,
	                                .created_at = "t"};

	CHECK(web_home(&b, &cmps, &runs, "http://h") == 0);
	CHECK(strstr(b.data, "<a href=\"/ui/runs/2\">(unnamed)</a>") != NULL);
	no_raw(b.data, "home");
	CHECK(strstr(b.data, "<a href=\"/ui/comparisons/3\">#3</a>") != NULL);
	CHECK(strstr(b.data, "id=\"empty\"") == NULL);
	buf_reset(&b);
	CHECK(web_home(&b, NULL, NULL, EVIL) == 0);
	no_raw(b.data, "home (empty)");
	CHECK(strstr(b.data, "id=\"empty\"") != NULL);
	CHECK(strstr(b.data, "curl -H 'Content-Type: application/json' "
	                     "-d '{\"baseline\":1,\"candidate\":2}' x&quot;y") != NULL);
	buf_reset(&b);
	CHECK(web_run(&b, &run, &steps, 1) == 0);
	no_raw(b.data, "run");
	CHECK(strstr(b.data, "<a href=\"/runs/1/logs/0\" download>") != NULL);
	CHECK(strstr(b.data, "<svg class=\"chart-svg\"") != NULL);
	CHECK(strstr(b.data, "class=\"nonfinite") != NULL); /* the nan step */
	CHECK(strstr(b.data, "1 more not listed") != NULL);
	/* a JSON config value is dumped, then escaped */
	CHECK(strstr(b.data, "<code>{&quot;k&quot;: &quot;" EVIL_ESC "&quot;}</code>") != NULL ||
	      strstr(b.data, "<code>{&quot;k&quot;:&quot;x\\&quot;y&#39;z&lt;img") != NULL);
	buf_reset(&b);
	CHECK(web_comparison_pending(&b, &pend) == 0);
	no_raw(b.data, "failed comparison");
	CHECK(strstr(b.data, "http-equiv=\"refresh\"") == NULL);
	CHECK(strstr(b.data, "data-status=\"failed\"") != NULL);
	/* the baseline run is linked, the missing candidate is named B */
	CHECK(strstr(b.data, "<a href=\"/ui/runs/1\">#1 ") != NULL);
	CHECK(strstr(b.data, "<b>B</b>") != NULL);
	buf_reset(&b);
	snprintf(pend.status, sizeof pend.status, "running");
	pend.started_at = "2026-12-01T10:00:00Z";
	CHECK(web_comparison_pending(&b, &pend) == 0);
	CHECK(strstr(b.data, "<meta http-equiv=\"refresh\" content=\"2\">") != NULL);
	CHECK(strstr(b.data, "Computing since 2026-12-01T10:00:00Z") != NULL);
	buf_reset(&b);
	json_decref(meta_j);
	free(meta);
}

static void test_svg(void)
{
	struct buf b = BUF_INIT;
	struct web_profile_point pts[] = {
	        {3, 1e-4, 1, 0}, {5, NAN, 1, 0},  {7, INFINITY, 1, 1},
	        {8, -1, 3, 1},   {99, 0.5, 1, 1},
	};
	struct web_profile p = {pts, 5, 10, 3, 7, NULL};
	CHECK(web_profile_svg(&b, &p, "/p?from=", "_top", 1) == 0);
	CHECK(strstr(b.data, "xmlns=\"http://www.w3.org/2000/svg\"") != NULL);
	CHECK(strstr(b.data, "href=\"/p?from=3#r3\"") != NULL);
	CHECK(strstr(b.data, "target=\"_top\"") != NULL);
	CHECK(strstr(b.data, "first forward divergence (row 3)") != NULL);
	CHECK(strstr(b.data, "first backward divergence (row 7)") != NULL);
	CHECK(strstr(b.data, "class=\"only\"") != NULL);
	CHECK(!has_nonfinite_text(b.data));
	CHECK(strstr(b.data, "#r99") == NULL); /* out of range: dropped */
	/* one tab stop for the chart (parity.js): no bar is a tab stop */
	CHECK(strstr(b.data, "<a target=") == NULL && strstr(b.data, "<a tabindex=\"-1\"") != NULL);
	/* the first-divergence labels sit above the plot (its top y = 40),
	 * where no bar is */
	{
		const char *t = b.data;
		int n = 0;

		while ((t = strstr(t, "class=\"firstl\" x=\"")) != NULL) {
			double y = -1;

			t = strstr(t, "y=\"");
			if (t && sscanf(t, "y=\"%lf\"", &y) == 1)
				CHECK(y > 0 && y + 2 < 40);
			n++;
		}
		CHECK(n == 2);
		CHECK(strstr(b.data, "class=\"plot\" x=\"48.0\" y=\"40.0\"") != NULL);
	}
	buf_reset(&b);
	CHECK(web_profile_svg(&b, &p, NULL, NULL, 0) == 0);
	CHECK(strstr(b.data, "href=\"#r3\"") != NULL);
	CHECK(strstr(b.data, "<style>") == NULL);
	buf_reset(&b);
	/* empty profile */
	{
		struct web_profile e = {NULL, 0, 0, -1, -1, NULL};
		CHECK(web_profile_svg(&b, &e, NULL, NULL, 0) == 0);
		CHECK(strstr(b.data, "</svg>") != NULL);
		buf_reset(&b);
	}
	/* chart: non-finite values and a long series */
	{
		size_t n = 10000;
		double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
		for (size_t i = 0; i < n; i++) {
			x[i] = (double)i;
			y[i] = i % 997 == 0   ? NAN
			       : i % 991 == 0 ? INFINITY
			                      : sin((double)i / 100.0);
		}
		struct web_series s = {EVIL, "s-a", x, y, n};
		struct web_chart c = {EVIL, EVIL, &s, 1, 0, 0.5, EVIL, 0, 0, NULL, 0};
		CHECK(web_chart_svg(&b, &c) == 0);
		no_raw(b.data, "chart");
		CHECK(!has_nonfinite_text(b.data));
		CHECK(b.len < 200000); /* reduced to an envelope */
		CHECK(strstr(b.data, "class=\"nonfinite s-a\"") != NULL);
		buf_reset(&b);
		c.log_y = 1;
		CHECK(web_chart_svg(&b, &c) == 0);
		CHECK(!has_nonfinite_text(b.data));
		buf_reset(&b);
		s.n = 0;
		CHECK(web_chart_svg(&b, &c) == 0);
		buf_reset(&b);
		free(x);
		free(y);
	}
}

/* A result of 6 ranks: reasons "diff_rows" on ranks 0-3 and 5 (other
 * messages) and a job-level one; the banner names diff_rows once with
 * the ranges; table#ranks badges the earliest divergence (rank 3, row 2)
 * "first", and only it. */
static void test_rank_groups(void)
{
	struct store_act_rank ranks[6];
	struct store_act_reason rs[6];
	static const int on[5] = {0, 1, 2, 3, 5};
	static const char *const msgs[5] = {"m0", "m1", "m2", "m3", "m5"};
	struct store_act_result res;
	struct web_act_view v;
	struct web_act_filters f = {.origin = -1, .limit = 200, .rank = 0};
	struct buf b = BUF_INIT;

	memset(ranks, 0, sizeof ranks);
	memset(rs, 0, sizeof rs);
	for (int i = 0; i < 6; i++) {
		ranks[i].rank = i;
		ranks[i].verdict = i == 4 ? MATCHER_VERDICT_PASS : MATCHER_VERDICT_FAIL;
		ranks[i].max_hash_distance = -1;
		ranks[i].max_hash_row = -1;
		ranks[i].first_divergence[0].row = i == 4 ? -1 : 10 - i * 2 + (i == 5) * 9;
		ranks[i].first_divergence[0].a_key = "k";
		ranks[i].first_divergence[1].row = -1;
	}
	for (int i = 0; i < 5; i++)
		rs[i] = (struct store_act_reason){
		        .rank = on[i], .in_rank = 1, .code = "diff_rows", .message = msgs[i]};
	rs[5] = (struct store_act_reason){.rank = -1, .code = "job_level", .message = "whole"};
	memset(&res, 0, sizeof res);
	res.verdict = MATCHER_VERDICT_FAIL;
	res.reasons = rs;
	res.n_reasons = 6;
	res.ranks = ranks;
	res.n_ranks = 6;
	memset(&v, 0, sizeof v);
	v.res = &res;
	v.f = &f;
	v.next_from = -1;
	v.mode = WEB_SERVER;
	CHECK(web_act_page(&b, &v) == 0);
	CHECK(strstr(b.data, "<code>diff_rows</code> on ranks <span class=\"chip ranks\">0-3,5"
	                     "</span>") != NULL);
	{
		const char *x = strstr(b.data, "<code>diff_rows</code>");
		CHECK(x && !strstr(x + 1, "<code>diff_rows</code>")); /* once */
	}
	CHECK(strstr(b.data, "<summary>5 messages") != NULL);
	CHECK(strstr(b.data, "<li><code>job_level</code> whole</li>") != NULL);
	CHECK(strstr(b.data, "<table class=\"list ranks\" id=\"ranks\">") != NULL);
	/* rank 3 diverges at row 4: the earliest, badged; no other badge */
	CHECK(strstr(b.data, "<tr class=\"v-fail first\" data-rank=\"3\">") != NULL);
	{
		const char *x = strstr(b.data, "class=\"badge first\"");
		CHECK(x && !strstr(x + 1, "class=\"badge first\""));
	}
	CHECK(strstr(b.data, "href=\"/ui/comparisons/0?rank=3&amp;from=4#r4\">row 4</a>") != NULL);
	CHECK(strstr(b.data, "<nav class=\"ranks\"") == NULL);
	buf_reset(&b);
}

/* Issue 25: the forms and list pages.  Home puts its forms before its
 * tables; form#compare marks each run's kind, lists the preselected
 * baseline's policies first with their own default, and shows
 * p#self-compare only when both selects name one run; a comparison page's
 * re-run menu holds its kind's policies only and the set-as-baseline form
 * is prefilled (escaped); the list pages escape what they show and say
 * when they are empty; the suite page gives a config's reason. */
static void test_issue25(void)
{
	struct buf b = BUF_INIT;
	struct store_run r[3] = {{.id = 3, .name = EVIL, .kind = "training", .created_at = "t"},
	                         {.id = 2, .name = "a2", .kind = "activation", .created_at = "t"},
	                         {.id = 1, .name = "t1", .kind = "training", .created_at = "t"}};
	struct store_run_page runs = {.runs = r, .n_runs = 3};
	struct store_comparison cmp = {.id = 9,
	                               .name = "",
	                               .kind = "training",
	                               .status = "done",
	                               .verdict = "fail",
	                               .baseline_id = 1,
	                               .candidate_id = 3,
	                               .baseline = &r[2],
	                               .candidate = &r[0],
	                               .first_reason = EVIL,
	                               .created_at = "t",
	                               .config = "tp"};
	struct store_comparison_page cmps = {.cmps = &cmp, .n_cmps = 1};

	CHECK(web_home(&b, &cmps, &runs, "http://h") == 0);
	const char *up = strstr(b.data, "<form id=\"upload\""),
	           *cf = strstr(b.data, "<form id=\"compare\"");
	const char *rt = strstr(b.data, "id=\"runs\""), *ct = strstr(b.data, "id=\"comparisons\"");
	CHECK(up && cf && rt && ct && up < rt && cf < rt && up < ct && cf < ct);
	CHECK(strstr(b.data, "table class=\"list sortable\" id=\"runs\"") != NULL);
	/* newest run #3 (training) the candidate, #1 (training) the baseline */
	CHECK(strstr(b.data, "<option value=\"1\" data-kind=\"training\" selected>") != NULL);
	CHECK(strstr(b.data, "<option value=\"3\" data-kind=\"training\" selected>") != NULL);
	CHECK(strstr(b.data, "<option value=\"2\" data-kind=\"activation\">") != NULL);
	const char *pol = strstr(b.data, "id=\"compare-policy\"");
	const char *tg = strstr(b.data, "data-kind=\"training\"><option value=\"\">default "
	                                "(training: premerge)");
	const char *ag = strstr(b.data, "data-kind=\"activation\"><option value=\"\">default "
	                                "(activation: bitwise)");
	CHECK(pol && tg && ag && pol < tg && tg < ag); /* the baseline's kind first */
	CHECK(strstr(b.data, "id=\"self-compare\" role=\"status\" hidden>") != NULL);
	buf_reset(&b);
	CHECK(web_compare_form(&b, &runs, 2, 2) == 0);
	CHECK(strstr(b.data, "id=\"self-compare\" role=\"status\">") != NULL);
	buf_reset(&b);

	CHECK(web_cmp_actions(&b, 9, 1, 3, "training", EVIL) == 0);
	no_raw(b.data, "comparison actions");
	CHECK(strstr(b.data, "max_hash_distance") == NULL);
	CHECK(strstr(b.data, "default (training: premerge)") != NULL);
	CHECK(strstr(b.data, "<form id=\"set-baseline\" class=\"form set-baseline\" "
	                     "data-run=\"3\">") != NULL);
	buf_reset(&b);
	CHECK(web_cmp_actions(&b, 9, 1, 3, "activation", NULL) == 0);
	CHECK(strstr(b.data, "premerge") == NULL);
	CHECK(strstr(b.data, "max_hash_distance") != NULL);
	buf_reset(&b);

	struct store_suite_summary ss = {.suite = "pr-1",
	                                 .last_at = EVIL,
	                                 .n_configs = 2,
	                                 .n_failing = 1,
	                                 .n_comparisons = 3};
	struct store_suite_list sl = {.suites = &ss, .n_suites = 1};
	CHECK(web_suites_page(&b, &sl) == 0);
	no_raw(b.data, "suites");
	CHECK(strstr(b.data, "<a href=\"/ui/suites/pr-1\">pr-1</a>") != NULL);
	CHECK(strstr(b.data, "v-fail") != NULL);
	buf_reset(&b);
	sl.n_suites = 0;
	CHECK(web_suites_page(&b, &sl) == 0);
	CHECK(strstr(b.data, "id=\"no-suites\"") != NULL);
	buf_reset(&b);

	struct store_baseline bl = {.id = 1,
	                            .name = "main/x",
	                            .run_id = 3,
	                            .run = &r[0],
	                            .created_at = "t",
	                            .updated_at = "u",
	                            .n_changes = 2};
	struct store_baseline_page bp = {.baselines = &bl, .n_baselines = 1};
	CHECK(web_baselines_page(&b, &bp) == 0);
	no_raw(b.data, "baselines");
	CHECK(strstr(b.data, "<a href=\"/ui/baselines/main/x\">main/x</a>") != NULL);
	buf_reset(&b);
	bp.n_baselines = 0;
	CHECK(web_baselines_page(&b, &bp) == 0);
	CHECK(strstr(b.data, "id=\"no-baselines\"") != NULL);
	buf_reset(&b);

	struct store_suite_view sv = {.latest = &cmp, .n_latest = 1, .n_comparisons = 1};
	CHECK(web_suite_page(&b, "pr-1", &sv, "fail") == 0);
	no_raw(b.data, "suite reasons");
	CHECK(strstr(b.data, "<td class=\"reason\">" EVIL_ESC "</td>") != NULL);
	buf_reset(&b);
}

int main(void)
{
	test_rank_groups();
	test_act_page();
	test_report_data();
	test_report_escape_positions();
	test_report_link();
	test_act_query();
	test_act_landing();
	test_train_page();
	test_small_pages();
	test_svg();
	test_issue25();
	return check_report();
}
