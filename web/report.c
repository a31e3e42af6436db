/* report.c - the self-contained HTML report (GET
 * /comparisons/{id}/report.html and `parity compare ... -o diff.html`):
 * one file with inline CSS, JS and SVG that renders with the network off.
 *
 * It reuses the page renderers in WEB_OFFLINE mode for everything above
 * the rows (no links back to the server).  The rows are not HTML: each
 * phase section holds its rows as data, one JSON array per row inside
 * <script type="application/json" class="vrows">, and report.js (inlined
 * at the end) renders only the rows in view of a scroll container
 * (div.vscroll) and filters over the data in the browser.  So the file
 * holds every row of the comparison (an 86k-row comparison is about a
 * third of the HTML rows it replaces and opens in a couple of seconds)
 * and the DOM holds a screenful.
 *
 * The data block, per row:
 *   [idx, "status", "method" | null, origin (0/1), A, B, T]
 * A and B are a side's entry, 0 when the side has none:
 *   [key, output hash, input hashes, input producers, location, shape,
 *    phase (0 forward, 1 backward), L1, L2, min, max, mean]
 * (each a string, "" when absent); in B a string equal to A's is written
 * as 0 (paired rows mostly agree but for the statistics), and a B equal
 * to A in every column as 1 (a matched row).  T is 0 when no
 * cell is tinted, else the tint levels (0-10, web_tint_level) of output
 * hash, input hashes, shape, L1, L2, min, max, mean, then the numbers the
 * tinted cells show (output and input hash distance, the five relative
 * stat differences: the exact double, null for NaN, 0 when untinted).
 *
 * Log text is written by jstr, which escapes for JSON AND for the
 * <script> element: besides " \ and control characters, < > & ' and
 * U+2028/U+2029 become \uXXXX, so no log text can end the element
 * ("</script>"), open a comment, or be read as markup by any parser.
 * (Hand-written rather than jansson: a row is appended straight to the
 * streamed buffer, 86k times, and jansson cannot escape "<".) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fmt17.h"
#include "web_int.h"

/* Stat columns of a side, in the table's order (Shape has its own). */
static const enum matcher_stat report_stats[] = {MATCHER_STAT_L1, MATCHER_STAT_L2, MATCHER_STAT_MIN,
                                                 MATCHER_STAT_MAX, MATCHER_STAT_MEAN};
#define N_REPORT_STATS 5

#define LIT(out, s) buf_add((out), (s), sizeof(s) - 1)

/* 1 when none of the eight bytes of w needs escaping inside <script>
 * (web_json_byte's WEB_JSON_SCRIPT: no byte < 0x20, '"', '\\', '<', '>',
 * '&', '\'' or 0xe2), tested a word at a time (the "haszero" and
 * "hasless" bit tricks, exact as yes/no answers). */
static int script_safe8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
#define HAS_BYTE(c) (((w ^ (ones * (c))) - ones) & ~(w ^ (ones * (c))) & high)
	return !(((w - ones * 0x20) & ~w & high) | HAS_BYTE(0x22) | HAS_BYTE(0x5c) |
	         HAS_BYTE(0x3c) | HAS_BYTE(0x3e) | HAS_BYTE(0x26) | HAS_BYTE(0x27) |
	         HAS_BYTE(0xe2));
#undef HAS_BYTE
}

/* s (NULL: "") as a JSON string safe inside <script> (see the top). */
static int jstr(struct buf *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
	const unsigned char *end = p + strlen((const char *)p);
	int bad = LIT(out, "\"");

	for (;; p++) {
		unsigned char c;
		char esc[6] = {'\\', 'u', '0', '0', 0, 0};
		const char *rep = NULL;
		size_t n_rep = 6;

		for (uint64_t w; end - p >= 8 && (memcpy(&w, p, 8), script_safe8(w));)
			p += 8;
		while (web_json_byte[*p] & WEB_JSON_SCRIPT)
			p++;
		c = *p;
		if (c == 0xe2 && !(p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)))
			continue;
		bad |= buf_add(out, (const char *)run, (size_t)(p - run));
		if (!c)
			break;
		if (c == '"' || c == '\\') {
			esc[1] = (char)c;
			n_rep = 2;
		} else if (c == 0xe2) {
			rep = p[2] == 0xa8 ? "\\u2028" : "\\u2029";
			p += 2;
		} else {
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
		}
		bad |= buf_add(out, rep ? rep : esc, n_rep);
		run = p + 1;
	}
	bad |= LIT(out, "\"");
	return bad ? -1 : 0;
}

/* s, or 0 when other (A's field of a B side) holds the same text. */
static int same_str(const char *x, const char *y);

static int jstr_or_same(struct buf *out, const char *s, const char *other, int is_b)
{
	if (is_b && same_str(s, other))
		return LIT(out, "0");
	return jstr(out, s);
}

static int same_str(const char *x, const char *y)
{
	return !strcmp(x ? x : "", y ? y : "");
}

/* 1 when B's entry e shows the same as A's entry a in every column. */
static int same_entry(const struct matcher_entry *e, const struct matcher_entry *a)
{
	if (e->phase != a->phase || !same_str(e->key, a->key) ||
	    !same_str(e->output_hash, a->output_hash) ||
	    !same_str(e->input_hashes, a->input_hashes) ||
	    !same_str(e->input_producers, a->input_producers) ||
	    !same_str(e->location, a->location) ||
	    !same_str(e->stats[MATCHER_STAT_SHAPE], a->stats[MATCHER_STAT_SHAPE]))
		return 0;
	for (int k = 0; k < N_REPORT_STATS; k++) {
		if (!same_str(e->stats[report_stats[k]], a->stats[report_stats[k]]))
			return 0;
	}
	return 1;
}

/* A side's array (0 when e is NULL, 1 for a B that is A's in every
 * column); a the A side when this is B. */
static int side_json(struct buf *out, const struct matcher_entry *e, const struct matcher_entry *a,
                     int is_b)
{
	int bad = 0;

	if (!e)
		return LIT(out, "0");
	is_b = is_b && a;
	if (is_b && same_entry(e, a))
		return LIT(out, "1");
	bad |= LIT(out, "[") | jstr_or_same(out, e->key, is_b ? a->key : NULL, is_b);
	bad |= LIT(out, ",") |
	       jstr_or_same(out, e->output_hash, is_b ? a->output_hash : NULL, is_b);
	bad |= LIT(out, ",") |
	       jstr_or_same(out, e->input_hashes, is_b ? a->input_hashes : NULL, is_b);
	bad |= LIT(out, ",") |
	       jstr_or_same(out, e->input_producers, is_b ? a->input_producers : NULL, is_b);
	bad |= LIT(out, ",") | jstr_or_same(out, e->location, is_b ? a->location : NULL, is_b);
	bad |= LIT(out, ",") | jstr_or_same(out, e->stats[MATCHER_STAT_SHAPE],
	                                    is_b ? a->stats[MATCHER_STAT_SHAPE] : NULL, is_b);
	bad |= e->phase == MATCHER_BACKWARD ? LIT(out, ",1") : LIT(out, ",0");
	for (int k = 0; k < N_REPORT_STATS; k++) {
		enum matcher_stat s = report_stats[k];

		bad |= LIT(out, ",") |
		       jstr_or_same(out, e->stats[s], is_b ? a->stats[s] : NULL, is_b);
	}
	bad |= LIT(out, "]");
	return bad ? -1 : 0;
}

/* The tint levels of a row's cells (the same for both sides), or 0. */
static int tints_json(struct buf *out, const struct matcher_row *row)
{
	int lv[3 + N_REPORT_STATS] = {0}, any = 0, bad = 0;

	if (row->a && row->b) {
		lv[0] = web_tint_level(row->output_hash_distance);
		lv[1] = web_tint_level(row->input_hash_distance);
		lv[2] = row->shape_differs ? 10 : 0;
		for (int k = 0; k < N_REPORT_STATS; k++) {
			double d = row->stat_diff[report_stats[k]];

			lv[3 + k] = d >= 0 ? web_tint_level(d) : 0;
		}
	}
	for (int k = 0; k < 3 + N_REPORT_STATS; k++)
		any |= lv[k] > 0;
	if (!any)
		return LIT(out, "0");
	for (int k = 0; k < 3 + N_REPORT_STATS; k++) {
		int l = lv[k] > 0 ? lv[k] : 0; /* 0..10 */

		bad |= buf_add(out, k ? "," : "[", 1);
		bad |= l == 10 ? LIT(out, "10") : buf_add(out, &"0123456789"[l], 1);
	}
	/* the numbers the tinted cells show (the shape has none): exact for a
	 * tinted cell, null for NaN, 0 for an untinted one */
	double v[2 + N_REPORT_STATS];
	int vl[2 + N_REPORT_STATS];
	v[0] = row->output_hash_distance;
	vl[0] = lv[0];
	v[1] = row->input_hash_distance;
	vl[1] = lv[1];
	for (int k = 0; k < N_REPORT_STATS; k++) {
		v[2 + k] = row->stat_diff[report_stats[k]];
		vl[2 + k] = lv[3 + k];
	}
	for (int k = 0; k < 2 + N_REPORT_STATS; k++) {
		if (vl[k] <= 0)
			bad |= LIT(out, ",0");
		else if (!isfinite(v[k]))
			bad |= LIT(out, ",null");
		else {
			char num[MATCHER_FMT17_CAP + 1];

			num[0] = ',';
			bad |= buf_add(out, num, 1 + matcher_fmt17(v[k], num + 1));
		}
	}
	return (bad | LIT(out, "]")) ? -1 : 0;
}

/* ---- the streamed rows ---------------------------------------------------- */

static const char *const report_phases[2] = {"forward", "backward"};

int web_report_section_begin(struct buf *out, struct web_report_rows *st, int phase)
{
	st->phase = phase ? 1 : 0;
	st->n = 0;
	return web_printf(out,
	                  "<details class=\"section\" open id=\"%s%s\"><summary><h2>%s</h2>"
	                  "</summary>",
	                  st->id_prefix ? st->id_prefix : "", report_phases[st->phase],
	                  st->phase ? "Backward" : "Forward");
}

int web_report_row(struct buf *out, struct web_report_rows *st, const struct web_act_row *wr)
{
	const struct matcher_row *row = wr->row;
	const char *status = matcher_status_name(row->status);
	const char *method = matcher_method_name(row->method);
	int bad = 0;

	if (!st->n++) {
		/* report.js removes it; without script (or in a file cut
		 * short, which lacks the script at its end) it says why no
		 * rows show */
		bad |= LIT(out, "<p class=\"muted vwait\">The rows appear here when the report's "
		                "script has run (it needs JavaScript and the whole file).</p>");
		bad |= LIT(out, "<div class=\"vscroll\" tabindex=\"0\">");
		bad |= web_act_thead(out, st->show_l1);
		bad |= web_printf(out,
		                  "</table></div><script type=\"application/json\" "
		                  "class=\"vrows\" data-prefix=\"%s\">[",
		                  st->id_prefix ? st->id_prefix : "");
	} else {
		bad |= LIT(out, ",\n");
	}
	bad |= LIT(out, "[") | buf_put_uint(out, (unsigned long long)wr->idx) | LIT(out, ",");
	bad |= jstr(out, status ? status : "match") | LIT(out, ",");
	bad |= method ? jstr(out, method) : LIT(out, "null");
	bad |= row->origin ? LIT(out, ",1,") : LIT(out, ",0,");
	bad |= side_json(out, row->a, NULL, 0) | LIT(out, ",");
	bad |= side_json(out, row->b, row->a, 1) | LIT(out, ",");
	bad |= tints_json(out, row) | LIT(out, "]");
	return bad ? -1 : 0;
}

int web_report_section_end(struct buf *out, struct web_report_rows *st)
{
	if (!st->n)
		return buf_puts(out, "<p class=\"muted empty\">No rows.</p></details>");
	return web_printf(out, "]</script><p class=\"muted count\">%zu row%s</p></details>", st->n,
	                  st->n == 1 ? "" : "s");
}

int web_report_act_end(struct buf *out)
{
	const unsigned char *js;
	size_t n;
	const char *ctype;
	int bad = 0;

	/* report.js before parity.js (web_page_end): the rows are in the
	 * DOM by the time parity.js looks at the page */
	if (web_asset("report.js", &js, &n, &ctype) == 0)
		bad |= LIT(out, "<script>") | buf_add(out, (const char *)js, n) |
		       LIT(out, "</script>");
	bad |= web_page_end(out, WEB_OFFLINE);
	return bad ? -1 : 0;
}

/* What a report weighs: its head (CSS, JS, counts, profile) and a row's
 * data, measured on generated logs (86,008 rows: 35.2 MB). */
#define REPORT_HEAD_BYTES 60000.0
#define REPORT_ROW_BYTES  420.0

int web_report_link(struct buf *out, long long id, const struct store_act_result *res)
{
	long long n = 0;
	double mb;
	char num[32], grouped[48];
	size_t len, j = 0;

	for (size_t i = 0; i < res->n_ranks; i++) {
		for (int s = 0; s < MATCHER_N_STATUS; s++)
			n += (long long)res->ranks[i].n_status[s];
	}
	mb = (REPORT_HEAD_BYTES + REPORT_ROW_BYTES * (double)n) / 1e6;
	len = (size_t)snprintf(num, sizeof num, "%lld", n);
	for (size_t i = 0; i < len; i++) { /* 86,008 */
		if (i && (len - i) % 3 == 0)
			grouped[j++] = ',';
		grouped[j++] = num[i];
	}
	grouped[j] = '\0';
	return web_printf(out,
	                  "<a href=\"/comparisons/%lld/report.html\" id=\"report-link\">"
	                  "self-contained report</a> (%s row%s, about %.*f MB)",
	                  id, grouped, n == 1 ? "" : "s", mb < 10 ? 1 : 0, mb);
}

/* ---- the whole report at once --------------------------------------------- */

int web_report_act_begin(struct buf *out, const struct store_comparison *cmp,
                         const struct store_act_result *res, const struct web_profile *profile,
                         int rank, const char *note)
{
	struct web_act_view v;
	struct web_act_filters f = {.origin = -1, .limit = WEB_ACT_LIMIT};

	if (rank >= 0)
		f.rank = rank;
	else if (res->n_ranks && res->ranks[0].rank >= 0)
		f.rank = res->ranks[0].rank;
	memset(&v, 0, sizeof v);
	v.cmp = cmp;
	v.res = res;
	v.f = &f;
	v.next_from = -1;
	v.profile = profile;
	v.mode = WEB_OFFLINE;
	v.note = note;
	v.head_only = 1;
	return web_act_page(out, &v);
}

int web_report_act_html(struct buf *out, const struct store_comparison *cmp,
                        const struct store_act_result *res, const struct web_act_row *rows,
                        size_t n_rows, const struct web_profile *profile, int rank,
                        const char *note)
{
	struct web_report_rows st;
	int bad = 0;

	memset(&st, 0, sizeof st);
	st.show_l1 = web_act_rows_have_l1(rows, n_rows);
	bad |= web_report_act_begin(out, cmp, res, profile, rank, note);
	for (int ph = 0; ph < 2; ph++) {
		bad |= web_report_section_begin(out, &st, ph);
		for (size_t i = 0; i < n_rows; i++) {
			if (rows[i].row->phase == (enum matcher_phase)ph)
				bad |= web_report_row(out, &st, &rows[i]);
		}
		bad |= web_report_section_end(out, &st);
	}
	bad |= web_report_act_end(out);
	return bad ? -1 : 0;
}
