/* act_page.c - the activation comparison page: verdict banner, counts,
 * rank selector, divergence profile, excluded ops, jumps, filters and the
 * Forward/Backward tables of row pairs with cells tinted on the log
 * colour scale of matching.md.
 *
 * The page shows one window of rows (server-side filtering and paging);
 * every filter lives in the query string, so a filtered view can be
 * shared and reloaded and paging keeps the filters.  The same table
 * renderer serves the offline report, where filtering happens in the
 * browser over the rows the file holds.  Without JS everything reads:
 * sections are <details>, long hash lists are <details>, input-hash
 * producers are title tooltips, the pair highlight is CSS.  Each input
 * hash links to its producer row and a propagated diff row to the walk
 * back to its origin (server: the h_rows.c redirects; offline: parity.js
 * in the document); the filter bar shows "N of M rows" and links to
 * rows.csv with the current filters.
 *
 * Layout: the filter bar and the tables' header rows are sticky (CSS);
 * filter, paging and rank links land at #rows, the start of the rows
 * area, so a reader stays at the table.  A multi-rank result gets one
 * table#ranks (here and in the every-rank report) instead of a banner
 * line per rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt17.h"
#include "web_int.h"

/* Stat columns shown (Shape has its own column). */
static const enum matcher_stat stat_cols[] = {MATCHER_STAT_L1, MATCHER_STAT_L2, MATCHER_STAT_MIN,
                                              MATCHER_STAT_MAX, MATCHER_STAT_MEAN};
#define N_STAT_COLS 5
/* What a tinted stat cell's colour stands for (its title), per column. */
static const char *const stat_what[N_STAT_COLS] = {
        "L1 norm: relative difference A vs B", "L2 norm: relative difference A vs B",
        "Min: relative difference A vs B", "Max: relative difference A vs B",
        "Mean: relative difference A vs B"};

int web_act_query(struct buf *out, const struct web_act_filters *f, long from_idx)
{
	int bad = 0;
	long from = from_idx == -1 ? f->from : from_idx;

	bad |= buf_printf(out, "?rank=%d", f->rank);
	if (f->status && *f->status) {
		bad |= buf_puts(out, "&status=");
		bad |= web_urlenc(out, f->status);
	}
	if (f->method && *f->method) {
		bad |= buf_puts(out, "&method=");
		bad |= web_urlenc(out, f->method);
	}
	if (f->phase && *f->phase) {
		bad |= buf_puts(out, "&phase=");
		bad |= web_urlenc(out, f->phase);
	}
	if (f->origin == 1)
		bad |= buf_puts(out, "&origin=1");
	if (f->q && *f->q) {
		bad |= buf_puts(out, "&q=");
		bad |= web_urlenc(out, f->q);
		if (f->icase == 0) /* insensitive is the default */
			bad |= buf_puts(out, "&case=sensitive");
	}
	if (f->limit > 0 && f->limit != WEB_ACT_LIMIT)
		bad |= buf_printf(out, "&limit=%d", f->limit);
	if (from_idx != -2 && (from > 0 || from_idx == 0))
		bad |= buf_printf(out, "&from=%ld", from);
	return bad ? -1 : 0;
}

static const struct store_act_rank *rank_of(const struct store_act_result *res, int rank);

long web_act_landing(const struct store_act_result *res, int rank, long context)
{
	const struct store_act_rank *rd = res ? rank_of(res, rank) : NULL;
	int64_t first = -1;

	for (int ph = 0; rd && ph < 2; ph++) {
		int64_t r = rd->first_divergence[ph].row;

		if (r >= 0 && (first < 0 || r < first))
			first = r;
	}
	return first > context ? (long)(first - context) : 0;
}

/* ---- one row pair ------------------------------------------------------- */

/* The row writers below run once per row of an 86k-row report, so they
 * append trusted literals with LIT and user text with esc (web_escape)
 * instead of going through web_printf's format parsing; the HTML is the
 * same byte for byte (test_web_pages, test_offline_report). */
#define LIT(out, s) buf_add((out), (s), sizeof(s) - 1)

static int esc(struct buf *out, const char *s)
{
	return web_escape(out, s ? s : "", s ? strlen(s) : 0);
}

/* Where the input hashes of a row link to (struct pair_ctx): the server
 * page's producer redirect, or the offline report's script. */
struct ih_link {
	enum web_mode mode;
	long long cmp_id; /* server: the comparison (0: no links) */
	int rank;
	long long idx;    /* the row */
	const char *side; /* "a" or "b" */
};

/* The opening tag of input hash h (hlen bytes) whose producer key is
 * pk (plen bytes, may be 0): a link to its producer row, with a
 * "produced by" tooltip.  Server: /ui/comparisons/ID/producer?... (the
 * handler answers 303 to the page holding the row); offline: href="#"
 * with data-side, resolved in the document by parity.js. */
static int ih_open(struct buf *out, const struct ih_link *l, const char *h, size_t hlen,
                   const char *pk, size_t plen)
{
	int bad = 0;

	if (l && l->mode == WEB_SERVER && l->cmp_id) {
		struct buf href = BUF_INIT;
		char *hs = strndup(h, hlen), *ps = strndup(pk ? pk : "", plen);

		bad |= !hs || !ps;
		bad |= buf_printf(&href, "/ui/comparisons/%lld/producer?rank=%d&side=%s&row=%lld",
		                  l->cmp_id, l->rank, l->side, l->idx);
		if (plen && ps) {
			bad |= buf_puts(&href, "&key=");
			bad |= web_urlenc(&href, ps);
		}
		bad |= buf_puts(&href, "&hash=");
		bad |= web_urlenc(&href, hs ? hs : "");
		bad |= LIT(out, "<a class=\"ih\" tabindex=\"-1\" href=\"") | esc(out, href.data) |
		       LIT(out, "\"");
		free(hs);
		free(ps);
		buf_reset(&href);
	} else if (l && l->mode == WEB_OFFLINE) {
		bad |= LIT(out, "<a class=\"ih\" tabindex=\"-1\" href=\"#\" data-side=\"") |
		       buf_puts(out, l->side) | LIT(out, "\"");
	} else if (plen) {
		bad |= LIT(out, "<span class=\"ih\"");
	} else {
		return LIT(out, "<span class=\"h\">");
	}
	if (plen) {
		bad |= LIT(out, " title=\"produced by ");
		bad |= web_escape(out, pk, plen);
		bad |= LIT(out, "\"");
	}
	bad |= LIT(out, ">");
	return bad ? -1 : 0;
}

/* A comma-separated hash list; with l (inputs), each item links to the
 * row that produced it (ih_open), its producer from the ';'-separated
 * producers as tooltip.  Lists over 4 items collapse. */
static int hash_list(struct buf *out, const char *text, const char *producers,
                     const struct ih_link *l)
{
	const char *p = text, *pp = producers;
	size_t n_items = 1, i = 0;
	int bad = 0, collapsed;

	if (!text || !*text)
		return LIT(out, "<span class=\"muted\">&ndash;</span>");
	for (const char *c = text; *c; c++)
		n_items += *c == ',';
	collapsed = n_items > 4;
	if (collapsed)
		bad |= web_printf(out, "<details class=\"hl\"><summary>%zu values</summary>",
		                  n_items);
	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		const char *pe = NULL;
		size_t plen = 0;
		int linked;

		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (pp) {
			pe = strchr(pp, ';');
			plen = strnlen(pp, pe ? (size_t)(pe - pp) : strlen(pp));
		}
		if (i)
			bad |= LIT(out, ", ");
		linked = l && (l->mode == WEB_OFFLINE || l->cmp_id);
		bad |= ih_open(out, l, p, strnlen(p, len), pp, plen);
		bad |= web_escape(out, p, strnlen(p, len));
		bad |= linked ? LIT(out, "</a>") : LIT(out, "</span>");
		pp = pp && pe ? pe + 1 : NULL;
		p = comma ? comma + 1 : NULL;
		i++;
	}
	if (collapsed)
		bad |= LIT(out, "</details>");
	return bad ? -1 : 0;
}

/* <td> with an optional tint class (cls: a trusted class name).  A
 * tinted cell says what its colour stands for in its title: what (a
 * trusted literal) and the exact value v (NaN: what alone). */
static int td_open(struct buf *out, const char *cls, int level, const char *what, double v)
{
	int bad = LIT(out, "<td class=\"") | buf_puts(out, cls);

	if (level > 0) {
		bad |= LIT(out, " tint t") | buf_put_uint(out, (unsigned long long)level);
		if (what) {
			char t[MATCHER_FMT17_CAP] = "";

			bad |= LIT(out, "\" title=\"") | buf_puts(out, what);
			if (isfinite(v))
				bad |= LIT(out, " = ") | buf_add(out, t, matcher_fmt17(v, t));
		}
	}
	return (bad | LIT(out, "\">")) ? -1 : 0;
}

/* </td> of a cell opened by td_open; a tinted one shows its number,
 * shortly (2 significant digits; NaN: "\u2260", differs), as span.dv. */
static int td_close(struct buf *out, int level, double v)
{
	int bad = 0;

	if (level > 0) {
		char t[40];

		if (isfinite(v))
			snprintf(t, sizeof t, "%.2g", v);
		else
			snprintf(t, sizeof t, "\xe2\x89\xa0");
		bad |= LIT(out, "<span class=\"dv\">") | buf_puts(out, t) | LIT(out, "</span>");
	}
	return (bad | LIT(out, "</td>")) ? -1 : 0;
}

struct pair_ctx {
	int show_l1;
	enum web_mode mode;
	const char *id_prefix; /* NULL or the report's rank section prefix */
	long long cmp_id;      /* server: the comparison (producer/origin links), 0: none */
	int rank;              /* server: the shown rank */
};

/* The cells of one side (e: its entry, NULL when missing) from "Side" on. */
static int side_cells(struct buf *out, const struct matcher_row *row, const struct matcher_entry *e,
                      const char *side, const struct pair_ctx *c, long long idx)
{
	int paired = row->a && row->b;
	int bad = 0, k, lvl;

	bad |= LIT(out, "<td class=\"side\">") | esc(out, side) | LIT(out, "</td>");
	if (!e) {
		return web_printf(out, "<td class=\"absent\" colspan=\"%d\">not in %s</td>",
		                  6 + (c->show_l1 ? 5 : 4), side);
	}
	lvl = paired ? web_tint_level(row->output_hash_distance) : 0;
	bad |= td_open(out, "oh", lvl, "output hash distance A vs B (relative)",
	               row->output_hash_distance);
	bad |= hash_list(out, e->output_hash, NULL, NULL);
	bad |= td_close(out, lvl, row->output_hash_distance);
	{
		struct ih_link l = {c->mode, c->cmp_id, c->rank, idx, e == row->b ? "b" : "a"};

		lvl = paired ? web_tint_level(row->input_hash_distance) : 0;
		bad |= td_open(out, "ihs", lvl, "input hash distance A vs B (relative)",
		               row->input_hash_distance);
		bad |= hash_list(out, e->input_hashes, e->input_producers, &l);
		bad |= td_close(out, lvl, row->input_hash_distance);
	}
	bad |= LIT(out, "<td class=\"loc\">") | esc(out, e->location) | LIT(out, "</td>");
	lvl = paired && row->shape_differs ? 10 : 0;
	bad |= td_open(out, "shape", lvl, "the shapes of A and B differ", NAN);
	bad |= esc(out, e->stats[MATCHER_STAT_SHAPE]) | td_close(out, lvl, NAN);
	bad |= LIT(out, "<td class=\"phase\">");
	bad |= esc(out, matcher_phase_name(e->phase)) | LIT(out, "</td>");
	for (k = 0; k < N_STAT_COLS; k++) {
		double d = row->stat_diff[stat_cols[k]];

		if (k == 0 && !c->show_l1)
			continue;
		lvl = paired && d >= 0 ? web_tint_level(d) : 0;
		bad |= td_open(out, "num", lvl, stat_what[k], d);
		bad |= esc(out, e->stats[stat_cols[k]]) | td_close(out, lvl, d);
	}
	return bad ? -1 : 0;
}

/* ---- rows: cause chain (producer links, walk to the origin) ----------- */

/* "walk back to the origin" from a propagated diff row: the server's
 * /ui/comparisons/ID/origin redirect, or (offline) parity.js walking the
 * document's rows. */
static int walk_link(struct buf *out, const struct pair_ctx *c, long long idx)
{
	if (c->mode == WEB_SERVER && !c->cmp_id)
		return 0;
	if (c->mode == WEB_SERVER)
		return web_printf(out,
		                  "<a class=\"walk\" href=\"/ui/comparisons/%lld/origin?rank=%d"
		                  "&amp;row=%lld\" title=\"walk back to the origin\">&#8630; "
		                  "origin</a>",
		                  c->cmp_id, c->rank, idx);
	return LIT(out, "<a class=\"walk\" href=\"#\" title=\"walk back to the origin\">&#8630; "
	                "origin</a>");
}

static int pair(struct buf *out, const struct web_act_row *wr, const struct pair_ctx *c)
{
	const struct matcher_row *row = wr->row;
	const char *ak = row->a ? row->a->key : NULL, *bk = row->b ? row->b->key : NULL;
	const char *status = matcher_status_name(row->status);
	const char *method = matcher_method_name(row->method);
	long long idx = wr->idx;
	int same_key = !ak || !bk || !strcmp(ak, bk);
	int origin = row->origin;
	int bad = 0;

	if (!status)
		status = "match";
	bad |= LIT(out, "<tbody class=\"pair st-") | buf_puts(out, status);
	if (origin)
		bad |= LIT(out, " origin");
	bad |= LIT(out, "\" id=\"") | esc(out, c->id_prefix) | LIT(out, "r") |
	       buf_put_uint(out, (unsigned long long)idx);
	bad |= LIT(out, "\" data-idx=\"") | buf_put_uint(out, (unsigned long long)idx);
	bad |= LIT(out, "\" data-status=\"") | buf_puts(out, status);
	bad |= LIT(out, "\" data-method=\"") | esc(out, method) | LIT(out, "\" data-keys=\"");
	bad |= esc(out, ak) | LIT(out, " ") | esc(out, bk) | LIT(out, "\">");
	bad |= LIT(out, "<tr class=\"sa\"><td class=\"idx\" rowspan=\"2\">") |
	       buf_put_uint(out, (unsigned long long)idx);
	bad |= LIT(out, "<div class=\"st st-") | buf_puts(out, status) | LIT(out, "\">");
	bad |= buf_puts(out, row->status == MATCHER_A_ONLY   ? "only A"
	                     : row->status == MATCHER_B_ONLY ? "only B"
	                                                     : status);
	bad |= LIT(out, "</div>");
	if (origin)
		bad |= LIT(out, "<div class=\"chip origin\">origin</div>");
	else if (row->status == MATCHER_DIFF && row->a && row->b)
		bad |= walk_link(out, c, idx);
	bad |= LIT(out, "</td>");
	if (same_key)
		bad |= LIT(out, "<td class=\"key\" rowspan=\"2\">") | esc(out, ak ? ak : bk);
	else
		bad |= LIT(out, "<td class=\"key\">") | esc(out, ak);
	bad |= LIT(out, "</td>");
	if (method)
		bad |= LIT(out, "<td class=\"method\" rowspan=\"2\"><span class=\"chip m-") |
		       buf_puts(out, method) | LIT(out, "\">") | buf_puts(out, method) |
		       LIT(out, "</span></td>");
	else
		bad |= LIT(out, "<td class=\"method\" rowspan=\"2\"></td>");
	bad |= side_cells(out, row, row->a, "A", c, idx);
	bad |= LIT(out, "</tr><tr class=\"sb\">");
	if (!same_key)
		bad |= LIT(out, "<td class=\"key\">") | esc(out, bk) | LIT(out, "</td>");
	bad |= side_cells(out, row, row->b, "B", c, idx);
	bad |= LIT(out, "</tr></tbody>");
	return bad ? -1 : 0;
}

int web_act_rows_have_l1(const struct web_act_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct matcher_row *r = rows[i].row;

		if ((r->a && r->a->stats[MATCHER_STAT_L1]) ||
		    (r->b && r->b->stats[MATCHER_STAT_L1]))
			return 1;
	}
	return 0;
}

/* <div><table> and the header row of a Forward/Backward table. */
static int table_head(struct buf *out, int show_l1)
{
	return (buf_puts(out, "<div class=\"scroll\">") | web_act_thead(out, show_l1)) ? -1 : 0;
}

int web_act_thead(struct buf *out, int show_l1)
{
	int bad = 0;

	bad |= buf_puts(out, "<table class=\"rows\"><thead><tr>"
	                     "<th>Row</th><th>Op key</th><th>Method</th><th>Side</th>"
	                     "<th>Output hash</th><th>Input hashes</th><th>Location</th>"
	                     "<th>Shape</th><th>Phase</th>");
	for (int k = show_l1 ? 0 : 1; k < N_STAT_COLS; k++)
		bad |= web_printf(out, "<th>%s</th>", matcher_stat_names[stat_cols[k]]);
	bad |= buf_puts(out, "</tr></thead>");
	return bad ? -1 : 0;
}

static int tables(struct buf *out, const struct web_act_row *rows, size_t n_rows,
                  const struct pair_ctx *ctx)
{
	static const char *const phases[2] = {"forward", "backward"};
	struct pair_ctx c = *ctx;
	enum web_mode mode = c.mode;
	int bad = 0, ph;

	for (ph = 0; ph < 2; ph++) {
		size_t i, n = 0;

		for (i = 0; i < n_rows; i++)
			n += rows[i].row->phase == (enum matcher_phase)ph;
		bad |= web_printf(out,
		                  "<details class=\"section\" open id=\"%s\"><summary><h2>%s</h2> "
		                  "<span class=\"muted\">%zu row%s%s</span></summary>",
		                  phases[ph], ph ? "Backward" : "Forward", n, n == 1 ? "" : "s",
		                  mode == WEB_SERVER ? " on this page" : "");
		if (!n) {
			bad |= buf_puts(out, "<p class=\"muted empty\">No rows.</p></details>");
			continue;
		}
		bad |= table_head(out, c.show_l1);
		for (i = 0; i < n_rows; i++) {
			if (rows[i].row->phase == (enum matcher_phase)ph)
				bad |= pair(out, &rows[i], &c);
		}
		bad |= buf_puts(out, "</table></div></details>");
	}
	return bad ? -1 : 0;
}

/* ---- the page ----------------------------------------------------------- */

/* The rank's part of the result: a single pair's (rank -1) whatever
 * rank is asked, else the rank's, NULL when it is not part of it. */
static const struct store_act_rank *rank_of(const struct store_act_result *res, int rank)
{
	size_t i;

	if (res->n_ranks == 1 && res->ranks[0].rank < 0)
		return &res->ranks[0];
	for (i = 0; i < res->n_ranks; i++) {
		if (res->ranks[i].rank == rank)
			return &res->ranks[i];
	}
	return NULL;
}

/* The counts of every rank summed (the result's "summary"). */
static void sum_ranks(const struct store_act_result *res, struct store_act_rank *t)
{
	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < res->n_ranks; i++) {
		const struct store_act_rank *k = &res->ranks[i];

		for (int s = 0; s < MATCHER_N_STATUS; s++) {
			t->n_status[s] += k->n_status[s];
			t->n_phase_status[0][s] += k->n_phase_status[0][s];
			t->n_phase_status[1][s] += k->n_phase_status[1][s];
		}
		for (int m = 0; m < MATCHER_N_METHODS; m++)
			t->n_method[m] += k->n_method[m];
		t->n_origin += k->n_origin;
		t->n_propagated += k->n_propagated;
	}
}

/* Counts of k; NULL (a result without ranks): zeros, no phase or method
 * lines. */
static int counts(struct buf *out, const struct store_act_rank *k, const char *title)
{
	static const char *const st_label[] = {"matched", "diffs", "only A", "only B"};
	static const char *const phases[2] = {"forward", "backward"};
	int bad = 0, i, ph;

	bad |= web_printf(out, "<div class=\"counts\"><h3>%s</h3><table class=\"kv\"><tr><th></th>",
	                  title);
	for (i = 0; i < MATCHER_N_STATUS; i++)
		bad |= web_printf(out, "<th>%s</th>", st_label[i]);
	bad |= buf_puts(out, "</tr><tr><th>all</th>");
	for (i = 0; i < MATCHER_N_STATUS; i++)
		bad |= web_printf(out, "<td class=\"c-%s\">%lld</td>",
		                  matcher_status_name((enum matcher_status)i),
		                  k ? (long long)k->n_status[i] : 0LL);
	bad |= buf_puts(out, "</tr>");
	for (ph = 0; k && ph < 2; ph++) {
		bad |= web_printf(out, "<tr><th>%s</th>", phases[ph]);
		for (i = 0; i < MATCHER_N_STATUS; i++)
			bad |= web_printf(out, "<td class=\"c-%s\">%lld</td>",
			                  matcher_status_name((enum matcher_status)i),
			                  (long long)k->n_phase_status[ph][i]);
		bad |= buf_puts(out, "</tr>");
	}
	bad |= buf_puts(out, "</table><p class=\"methods\">");
	for (i = 0; k && i < MATCHER_N_METHODS; i++) {
		const char *m = matcher_method_name((enum matcher_method)i);

		bad |= web_printf(out, "<span class=\"chip m-%s\">%s %lld</span> ", m, m,
		                  (long long)k->n_method[i]);
	}
	long long no = k ? (long long)k->n_origin : 0, np = k ? (long long)k->n_propagated : 0;
	bad |= web_printf(out,
	                  "</p><p class=\"muted\">%lld origin%s, %lld propagated diff%s</p></div>",
	                  no, no == 1 ? "" : "s", np, np == 1 ? "" : "s");
	return bad ? -1 : 0;
}

/* The excluded ops of k (NULL: none known). */
static int excluded(struct buf *out, const struct store_act_rank *k)
{
	int bad = 0, s;

	bad |= buf_puts(out, "<div class=\"excluded\"><h3>Excluded ops dispatched</h3>");
	for (s = 0; s < 2; s++) {
		size_t n = k ? k->n_excluded[s] : 0;

		bad |= web_printf(out, "<p><span class=\"side\">%s</span> ", s ? "B" : "A");
		if (!n)
			bad |= buf_puts(out, "<span class=\"chip\">(none)</span>");
		for (size_t i = 0; i < n; i++)
			bad |= web_printf(out, "<span class=\"chip\">%s</span> ",
			                  k->excluded[s][i]);
		bad |= buf_puts(out, "</p>");
	}
	bad |= buf_puts(out, "</div>");
	return bad ? -1 : 0;
}

/* The names of the two runs as the result gives them (NULL: unknown). */
static void result_names(const struct store_act_result *res, const char **na, const char **nb)
{
	*na = res->n_ranks ? res->ranks[0].name_a : NULL;
	*nb = res->n_ranks ? res->ranks[0].name_b : NULL;
}

/* The verdict banner and the runs line of an activation comparison. */
static int act_banner(struct buf *out, const struct store_comparison *cmp,
                      const struct store_act_result *res, enum web_mode mode)
{
	const char *na, *nb;
	struct web_run_ref a = {0, NULL, 0}, b = {0, NULL, 0};
	int bad = 0;

	result_names(res, &na, &nb);
	if (cmp && cmp->baseline)
		a = (struct web_run_ref){cmp->baseline->id, cmp->baseline->name, 1};
	if (cmp && cmp->candidate)
		b = (struct web_run_ref){cmp->candidate->id, cmp->candidate->name, 1};
	if (!a.name)
		a.name = na;
	if (!b.name)
		b.name = nb;
	bad |= web_runs_line_of(out, &a, &b, cmp ? cmp->finished_at : NULL, mode);
	bad |= web_act_verdict_banner(out, res);
	return bad ? -1 : 0;
}

static int count_and_csv(struct buf *out, const struct web_act_view *v, long long id);
/* ---- the per-rank summary (multi-rank results) ----------------------------- */

/* The rank(s) that diverge earliest: the smallest first forward divergence
 * row over the ranks, or, when no rank diverges forward, the smallest
 * backward one; -1 when no rank diverges.  *phase gets the phase used. */
static int64_t earliest_row(const struct store_act_result *res, int *phase)
{
	for (int ph = 0; ph < 2; ph++) {
		int64_t best = -1;

		for (size_t i = 0; i < res->n_ranks; i++) {
			int64_t r = res->ranks[i].first_divergence[ph].row;

			if (r >= 0 && (best < 0 || r < best))
				best = r;
		}
		if (best >= 0) {
			*phase = ph;
			return best;
		}
	}
	*phase = 0;
	return -1;
}

/* A link to row `row` of rank `rank`: on the server its page of rows
 * (unfiltered), offline the row's anchor in the rank's section. */
static int rank_row_link(struct buf *out, int rank, int64_t row, const char *path,
                         enum web_mode mode)
{
	if (mode == WEB_OFFLINE) {
		char pre[WEB_RANK_PREFIX];

		web_report_rank_prefix(pre, rank);
		return web_printf(out, "<a href=\"#%sr%lld\">row %lld</a>", pre, (long long)row,
		                  (long long)row);
	}
	return web_printf(out, "<a href=\"%s?rank=%d&amp;from=%lld#r%lld\">row %lld</a>", path,
	                  rank, (long long)row, (long long)row, (long long)row);
}

/* table#ranks: a line per rank (verdict, counts, first divergences, the
 * largest distance); the earliest-diverging rank(s) carry a "first"
 * badge, the rank shown (server) is "current".  Replaces a banner line
 * per rank: the banner groups the reasons, this holds the specifics. */
static int rank_table(struct buf *out, const struct store_act_result *res,
                      const struct web_act_filters *f, const char *path, enum web_mode mode)
{
	static const char *const st_label[] = {"matched", "diffs", "only A", "only B"};
	int ph0, bad = 0;
	int64_t first = earliest_row(res, &ph0);
	struct buf q = BUF_INIT;

	bad |= buf_puts(out, "<section class=\"rank-summary\" id=\"rank-summary\"><h2>Ranks</h2>"
	                     "<div class=\"scroll\"><table class=\"list ranks\" id=\"ranks\">"
	                     "<thead><tr><th>Rank</th><th>Verdict</th>");
	for (int s = 0; s < MATCHER_N_STATUS; s++)
		bad |= web_printf(out, "<th>%s</th>", st_label[s]);
	bad |= buf_puts(out, "<th>First forward divergence</th><th>First backward divergence</th>"
	                     "<th>Max distance</th></tr></thead><tbody>");
	for (size_t i = 0; i < res->n_ranks; i++) {
		const struct store_act_rank *k = &res->ranks[i];
		const char *vd = matcher_verdict_name(k->verdict);
		int cur = mode == WEB_SERVER && k->rank == f->rank;
		int is_first = first >= 0 && k->first_divergence[ph0].row == first;

		bad |= web_printf(out, "<tr class=\"v-%s%s%s\" data-rank=\"%d\"%s><th>", vd,
		                  cur ? " current" : "", is_first ? " first" : "", k->rank,
		                  cur ? " aria-current=\"true\"" : "");
		if (mode == WEB_SERVER) {
			struct web_act_filters g = *f;

			buf_clear(&q);
			g.rank = k->rank;
			bad |= web_act_query(&q, &g, -2);
			bad |= web_printf(out, "<a class=\"rank v-%s%s\" href=\"%s%s#rows\">%d</a>",
			                  vd, cur ? " current" : "", path, q.data ? q.data : "",
			                  k->rank);
		} else {
			char pre[WEB_RANK_PREFIX];

			web_report_rank_prefix(pre, k->rank);
			bad |= web_printf(out, "<a class=\"rank v-%s\" href=\"#%srank\">%d</a>", vd,
			                  pre, k->rank);
		}
		if (is_first)
			bad |= web_printf(out,
			                  " <span class=\"badge first\" title=\"diverges earliest "
			                  "(first %s divergence at row %lld)\">first</span>",
			                  ph0 ? "backward" : "forward", (long long)first);
		bad |= web_printf(out, "</th><td><span class=\"badge verdict v-%s\">%s</span></td>",
		                  vd, vd);
		for (int s = 0; s < MATCHER_N_STATUS; s++)
			bad |= web_printf(out, "<td class=\"num c-%s\">%lld</td>",
			                  matcher_status_name((enum matcher_status)s),
			                  (long long)k->n_status[s]);
		for (int ph = 0; ph < 2; ph++) {
			const struct store_act_ref *fd = &k->first_divergence[ph];

			bad |= web_printf(out, "<td class=\"fd fd-%s\">", ph ? "bwd" : "fwd");
			if (fd->row < 0) {
				bad |= buf_puts(out, "<span class=\"muted\">none</span>");
			} else {
				bad |= rank_row_link(out, k->rank, fd->row, path, mode);
				bad |= web_printf(out, " <code>%s</code>",
				                  fd->a_key   ? fd->a_key
				                  : fd->b_key ? fd->b_key
				                              : "");
			}
			bad |= buf_puts(out, "</td>");
		}
		bad |= buf_puts(out, "<td class=\"maxd\">");
		if (k->max_hash_distance >= 0 && isfinite(k->max_hash_distance)) {
			bad |= web_printf(out, "%.3g", k->max_hash_distance);
			if (k->max_hash_row >= 0 && k->max_hash_distance > 0) {
				bad |= buf_puts(out, " <span class=\"muted\">(");
				bad |= rank_row_link(out, k->rank, k->max_hash_row, path, mode);
				bad |= buf_puts(out, ")</span>");
			}
		} else {
			bad |= buf_puts(out, "<span class=\"muted\">&ndash;</span>");
		}
		bad |= buf_puts(out, "</td></tr>");
	}
	bad |= buf_puts(out, "</tbody></table></div></section>");
	buf_reset(&q);
	return bad ? -1 : 0;
}

/* <option> with selected when equal. */
static int option(struct buf *out, const char *value, const char *label, const char *cur)
{
	int sel = (cur ? cur : "")[0] ? !strcmp(cur, value) : !value[0];

	return web_printf(out, "<option value=\"%s\"%s>%s</option>", value, sel ? " selected" : "",
	                  label);
}

static int filter_form(struct buf *out, const struct web_act_filters *f, const char *path,
                       const struct web_act_view *v)
{
	int bad = 0;

	bad |= web_printf(
	        out,
	        "<form class=\"filters\" method=\"get\" action=\"%s#rows\" id=\"filters\">"
	        "<input type=\"hidden\" name=\"rank\" value=\"%d\">",
	        path, f->rank);
	bad |= buf_puts(out, "<label>Status <select name=\"status\" class=\"autosubmit\">");
	bad |= option(out, "", "any", f->status);
	bad |= option(out, "diff,a_only,b_only", "not matching", f->status);
	bad |= option(out, "diff", "diff", f->status);
	bad |= option(out, "match", "match", f->status);
	bad |= option(out, "a_only", "only A", f->status);
	bad |= option(out, "b_only", "only B", f->status);
	bad |= buf_puts(out, "</select></label><label>Method <select name=\"method\" "
	                     "class=\"autosubmit\">");
	bad |= option(out, "", "any", f->method);
	bad |= option(out, "exact", "exact", f->method);
	bad |= option(out, "fuzzy", "fuzzy", f->method);
	bad |= option(out, "stats", "stats", f->method);
	bad |= option(out, "override", "override", f->method);
	bad |= buf_puts(out, "</select></label><label>Phase <select name=\"phase\" "
	                     "class=\"autosubmit\">");
	bad |= option(out, "", "both", f->phase);
	bad |= option(out, "forward", "forward", f->phase);
	bad |= option(out, "backward", "backward", f->phase);
	bad |= web_printf(out,
	                  "</select></label><label><input type=\"checkbox\" name=\"origin\" "
	                  "value=\"1\" class=\"autosubmit\"%s> origins only</label>"
	                  "<label>Op key regex <input type=\"search\" name=\"q\" value=\"%s\" "
	                  "placeholder=\"e.g. layers\\.1\\..*mm\"></label>"
	                  "<label title=\"the regex ignores case unless this is ticked\">"
	                  "<input type=\"checkbox\" name=\"case\" value=\"sensitive\"%s> "
	                  "match case</label>",
	                  f->origin == 1 ? " checked" : "", f->q ? f->q : "",
	                  f->icase == 0 ? " checked" : "");
	if (f->limit != WEB_ACT_LIMIT)
		bad |= web_printf(out, "<input type=\"hidden\" name=\"limit\" value=\"%d\">",
		                  f->limit);
	bad |= web_printf(out,
	                  "<button type=\"submit\">Apply</button> "
	                  "<a href=\"%s?rank=%d#rows\">Clear</a> ",
	                  path, f->rank);
	bad |= count_and_csv(out, v, v->cmp ? (long long)v->cmp->id : 0);
	bad |= buf_puts(out, "</form>");
	return bad ? -1 : 0;
}

/* Client-side filter bar for the offline report: the served page's
 * filters (status, method, phase, origins, key regex), applied by
 * report.js over the rows the file holds. */
static int client_filters(struct buf *out)
{
	return buf_puts(out, "<form class=\"filters\" id=\"cfilters\" data-client-filter=\"1\">"
	                     "<label>Status <select name=\"status\"><option value=\"\">any</option>"
	                     "<option value=\"diff,a_only,b_only\">not matching</option>"
	                     "<option value=\"diff\">diff</option><option value=\"match\">match"
	                     "</option><option value=\"a_only\">only A</option><option "
	                     "value=\"b_only\">only B</option></select></label>"
	                     "<label>Method <select name=\"method\"><option value=\"\">any</option>"
	                     "<option value=\"exact\">exact</option><option value=\"fuzzy\">fuzzy"
	                     "</option><option value=\"stats\">stats</option><option "
	                     "value=\"override\">override</option></select></label>"
	                     "<label>Phase <select name=\"phase\"><option value=\"\">both</option>"
	                     "<option value=\"forward\">forward</option><option value=\"backward\">"
	                     "backward</option></select></label>"
	                     "<label><input type=\"checkbox\" name=\"origin\" value=\"1\"> origins "
	                     "only</label><label>Op key regex <input type=\"search\" name=\"q\">"
	                     "</label><label title=\"the regex ignores case unless this is "
	                     "ticked\"><input type=\"checkbox\" name=\"case\" "
	                     "value=\"sensitive\"> match case</label>"
	                     "<span class=\"row-count\" id=\"cfcount\"></span>"
	                     "<span class=\"error\" id=\"cferr\"></span></form>");
}

/* Link to a row, keeping the filters when it is on the server. */
static int jump(struct buf *out, const char *label, const struct store_act_ref *fd,
                const struct web_act_filters *f, const char *path, enum web_mode mode,
                const char *pre)
{
	long long row = fd ? (long long)fd->row : -1;
	struct buf q = BUF_INIT;
	int bad = 0;

	if (row < 0)
		return web_printf(out, "<span class=\"jump none\">%s: none</span>", label);
	if (mode == WEB_OFFLINE) {
		bad |= web_printf(
		        out, "<a class=\"jump\" id=\"%sjump-%s\" href=\"#%sr%lld\">%s: row %lld",
		        pre, label[6] == 'f' ? "fwd" : "bwd", pre, row, label, row);
	} else {
		struct web_act_filters g = *f;

		/* the target row must pass the filters: drop the ones that
		 * could hide it */
		g.status = NULL;
		g.method = NULL;
		g.phase = NULL;
		g.origin = -1;
		g.q = NULL;
		g.icase = 0;
		bad |= web_act_query(&q, &g, (long)row);
		bad |= web_printf(
		        out, "<a class=\"jump\" id=\"jump-%s\" href=\"%s%s#r%lld\">%s: row %lld",
		        label[6] == 'f' ? "fwd" : "bwd", path, q.data ? q.data : "", row, label,
		        row);
	}
	bad |= web_printf(out, " <code>%s</code></a>", fd->a_key ? fd->a_key : fd->b_key);
	buf_reset(&q);
	return bad ? -1 : 0;
}

/* "Cause chain: row 402 key <- 398 key <- 390 key" of a walk (?chain=),
 * each row linked, with its op key when v->chain_keys has it. */
static int chain_nav(struct buf *out, const struct web_act_view *v, const char *path)
{
	int bad = 0;

	if (!v->n_chain)
		return 0;
	bad |= buf_puts(out, "<nav class=\"chain\" id=\"chain\">Cause chain: <ol>");
	for (size_t i = 0; i < v->n_chain; i++) {
		long r = v->chain[i];
		const char *key = v->chain_keys ? v->chain_keys[i] : NULL;

		bad |= web_printf(out, "<li><a href=\"%s?rank=%d&amp;row=%ld#r%ld\">row %ld</a>",
		                  path, v->f->rank, r, r, r);
		if (key)
			bad |= web_printf(out, " <code>%s</code>", key);
		bad |= buf_puts(out, "</li>");
	}
	bad |= web_printf(out,
	                  "</ol> <span class=\"muted\">(%s; each row is the producer of the "
	                  "previous one's first differing input, or the nearest origin before "
	                  "it when the log names no producer)</span></nav>",
	                  v->n_chain > 1 ? "the last is where it starts" : "no producer differs");
	return bad ? -1 : 0;
}

/* True when f filters rows (status, method, phase, origins, regex): page
 * starts are then not row counts. */
static int filtered(const struct web_act_filters *f)
{
	return f->status || f->method || f->phase || f->origin == 1 || (f->q && *f->q);
}

/* The landing note (v->landed): the rows above the page are hidden, a
 * link to the start. */
static int landed_note(struct buf *out, const struct web_act_view *v, const char *path)
{
	const struct web_act_filters *f = v->f;
	long long n = f->from; /* unfiltered: the page's first row */

	return web_printf(out,
	                  "<p class=\"landed\" id=\"landed\">Opened at the first divergence "
	                  "(row %lld): rows 0&ndash;%lld above this page are hidden (%lld "
	                  "row%s). <a href=\"%s?rank=%d&amp;from=0#rows\" id=\"landed-start\">"
	                  "Show from the start</a></p>",
	                  n + v->landing_context, n - 1, n, n == 1 ? "" : "s", path, f->rank);
}

/* nav#pager-top: the rows shown, first/previous/next/last page links
 * (previous and last only without filters, where a page start is a row
 * index) and form#goto-row, the page holding a row (?row=N). */
static int pager(struct buf *out, const struct web_act_view *v, const char *path)
{
	const struct web_act_filters *f = v->f;
	size_t n = v->n_rows;
	long long first = n ? v->rows[0].idx : 0;
	long long last = n ? v->rows[n - 1].idx : 0;
	struct buf q = BUF_INIT;
	int bad = 0;

	if (v->landed)
		bad |= landed_note(out, v, path);
	bad |= buf_puts(out, "<nav class=\"pager\" id=\"pager-top\" aria-label=\"pages\">");
	if (n)
		bad |= web_printf(out, "<span>%zu row%s shown (rows %lld&ndash;%lld)</span> ", n,
		                  n == 1 ? "" : "s", first, last);
	else
		bad |= buf_puts(out, "<span>No rows match the filters.</span> ");
	if (f->from > 0) {
		bad |= web_act_query(&q, f, 0);
		bad |= web_printf(out,
		                  "<a href=\"%s%s#rows\" id=\"page-first\">&laquo; first page</a> ",
		                  path, q.data);
		buf_clear(&q);
		bad |= web_act_query(&q, f, f->from > f->limit ? f->from - f->limit : 0);
		if (!filtered(f))
			bad |= web_printf(out,
			                  "<a href=\"%s%s#rows\" id=\"page-prev\">&lsaquo; previous"
			                  "</a> ",
			                  path, q.data);
	}
	if (v->next_from >= 0) {
		buf_clear(&q);
		bad |= web_act_query(&q, f, v->next_from);
		bad |= web_printf(out,
		                  "<a href=\"%s%s#rows\" id=\"page-next\">next page &rsaquo;</a> ",
		                  path, q.data);
		if (!filtered(f) && v->n_total > 0) {
			long long from = v->n_total > f->limit ? v->n_total - f->limit : 0;

			buf_clear(&q);
			bad |= web_act_query(&q, f,
			                     (long)(from > v->next_from ? from : v->next_from));
			bad |= web_printf(
			        out, "<a href=\"%s%s#rows\" id=\"page-last\">last page &raquo;</a>",
			        path, q.data);
		}
	}
	bad |= web_printf(out,
	                  "<form class=\"goto\" id=\"goto-row\" method=\"get\" "
	                  "action=\"%s\"><input type=\"hidden\" name=\"rank\" value=\"%d\">"
	                  "<label>Go to row <input type=\"number\" name=\"row\" min=\"0\"",
	                  path, f->rank);
	if (v->n_total > 0)
		bad |= web_printf(out, " max=\"%lld\"", v->n_total - 1);
	bad |= buf_puts(out, " required></label> <button type=\"submit\">Go</button></form></nav>");
	buf_reset(&q);
	return bad ? -1 : 0;
}

/* "N of M rows" and the CSV download of the filtered rows (server). */
static int count_and_csv(struct buf *out, const struct web_act_view *v, long long id)
{
	struct buf q = BUF_INIT;
	int bad = 0;

	if (v->n_total > 0)
		bad |= web_printf(out,
		                  "<span class=\"row-count\" id=\"row-count\">%s%lld of %lld "
		                  "rows</span>",
		                  v->count_partial ? "at least " : "", v->n_matched, v->n_total);
	{
		struct web_act_filters g = *v->f;

		g.limit = WEB_ACT_LIMIT; /* rows.csv has every matching row */
		bad |= web_act_query(&q, &g, -2);
	}
	bad |= web_printf(out,
	                  " <a class=\"csv\" id=\"rows-csv\" href=\"/comparisons/%lld/rows.csv%s\" "
	                  "download>CSV</a>",
	                  id, q.data ? q.data : "");
	buf_reset(&q);
	return bad ? -1 : 0;
}

int web_act_page(struct buf *out, const struct web_act_view *v)
{
	const struct store_comparison *cmp = v->cmp;
	const struct store_act_result *res = v->res;
	const struct store_act_rank *rd;
	struct store_act_rank all;
	const struct web_act_filters *f = v->f;
	struct web_act_filters dflt = {.origin = -1, .limit = WEB_ACT_LIMIT};
	struct buf title = BUF_INIT, path = BUF_INIT, q = BUF_INIT;
	long long id = cmp ? (long long)cmp->id : 0;
	int bad = 0, multi = res->n_ranks > 1;

	if (!f)
		f = &dflt;
	rd = rank_of(res, f->rank);
	sum_ranks(res, &all);
	buf_printf(&path, "/ui/comparisons/%lld", id);
	{
		const char *na, *nb;
		const char *verdict = matcher_verdict_name(res->verdict);

		result_names(res, &na, &nb);
		if (id)
			buf_printf(&title, "#%lld ", id);
		buf_printf(&title, "%s: %s vs %s", verdict, na && *na ? na : "A",
		           nb && *nb ? nb : "B");
		buf_puts(&title, " \xe2\x80\x94 activation comparison \xe2\x80\x94 parity");
	}
	if (v->mode == WEB_SERVER)
		bad |= web_page_begin_skip(out, v->mode, title.data, 0, "rows", "Skip to rows");
	else
		bad |= web_page_begin(out, v->mode, title.data, 0);
	bad |= web_printf(out, "<h1>Activation comparison%s", id ? " " : "");
	if (id)
		bad |= web_printf(out, "#%lld", id);
	if (cmp && cmp->name && *cmp->name)
		bad |= web_printf(out, " <span class=\"muted\">%s</span>", cmp->name);
	bad |= buf_puts(out, "</h1>");
	if (v->note)
		bad |= web_printf(out, "<p class=\"note\" id=\"note\">%s</p>", v->note);
	bad |= act_banner(out, cmp, res, v->mode);
	if (v->mode == WEB_SERVER && id)
		bad |= web_cmp_actions(out, id,
		                       cmp && cmp->baseline ? (long long)cmp->baseline_id : 0,
		                       cmp && cmp->candidate ? (long long)cmp->candidate_id : 0,
		                       "activation", cmp ? cmp->baseline_name : NULL);

	/* rank summary (and selector) */
	if (multi)
		bad |= rank_table(out, res, f, path.data, v->mode);
	if (!rd && res->n_ranks) {
		bad |= web_printf(out,
		                  "<p class=\"error\">Rank %d is not part of this comparison."
		                  "</p>",
		                  f->rank);
		goto end;
	}
	bad |= buf_puts(out, "<div class=\"grid2\">");
	bad |= counts(out, res->n_ranks ? &all : NULL, multi ? "All ranks" : "Counts");
	if (multi) {
		char t[32];

		snprintf(t, sizeof t, "Rank %d", f->rank);
		bad |= counts(out, rd, t);
	}
	bad |= excluded(out, rd);
	bad |= buf_puts(out, "</div>");

	/* divergence profile */
	bad |= buf_puts(out, "<section class=\"profile-box\"><h2>Divergence profile</h2>"
	                     "<p class=\"muted\">Hash distance of each row (log scale, 1e-8 to 1) "
	                     "in row order; <span class=\"k-fwd\">forward</span>, "
	                     "<span class=\"k-bwd\">backward</span>, "
	                     "<span class=\"k-only\">&#9660; only-rows</span>; per column the "
	                     "largest (light) and the median (solid) distance of its rows. Click "
	                     "a column to jump to its row.</p>");
	if (v->profile) {
		buf_clear(&q);
		if (v->mode == WEB_SERVER) {
			struct web_act_filters g = dflt;

			g.rank = f->rank;
			bad |= web_act_query(&q, &g, -2);
			buf_puts(&q, "&from=");
		}
		{
			struct buf pre = BUF_INIT;

			if (v->mode == WEB_SERVER)
				buf_printf(&pre, "%s%s", path.data, q.data ? q.data : "");
			bad |= web_profile_svg(out, v->profile,
			                       v->mode == WEB_SERVER ? pre.data : NULL, NULL, 0);
			buf_reset(&pre);
		}
	} else if (v->profile_url) {
		bad |= web_printf(out,
		                  "<object class=\"profile\" type=\"image/svg+xml\" data=\"%s\">"
		                  "<a href=\"%s\">Divergence profile (SVG)</a></object>",
		                  v->profile_url, v->profile_url);
	}
	bad |= buf_puts(out, "</section>");

	/* jumps */
	{
		bad |= buf_puts(out, "<nav class=\"jumps\">");
		bad |= jump(out, "First forward divergence", rd ? &rd->first_divergence[0] : NULL,
		            f, path.data, v->mode, "");
		bad |= jump(out, "First backward divergence", rd ? &rd->first_divergence[1] : NULL,
		            f, path.data, v->mode, "");
		if (v->mode == WEB_SERVER) {
			struct web_act_filters g = *f;

			buf_clear(&q);
			g.origin = 1;
			g.status = "diff";
			g.from = 0;
			bad |= web_act_query(&q, &g, -2);
			bad |= web_printf(
			        out,
			        "<a class=\"jump\" id=\"origins-only\" href=\"%s%s#rows\">"
			        "Origins only</a>",
			        path.data, q.data);
		}
		bad |= buf_puts(out, "</nav>");
	}
	/* downloads (after the jumps: the tab order reaches those first) */
	if (v->mode == WEB_SERVER && id)
		bad |= web_cmp_downloads(out, id, NULL, 0);

	/* filters: the rows area (#rows, where filter, page and rank links
	 * land) starts with the filter bar, which sticks to the top of the
	 * viewport while the tables scroll under it */
	if (v->mode == WEB_SERVER)
		bad |= buf_puts(out, "<div class=\"rows-area\" id=\"rows\">") |
		       filter_form(out, f, path.data, v);
	else
		bad |= client_filters(out);
	if (v->filter_error) {
		bad |= web_printf(out,
		                  "<p class=\"error\" id=\"filter-error\">Filter error: %s</p>",
		                  v->filter_error);
		if (v->mode == WEB_SERVER)
			bad |= buf_puts(out, "</div>");
		goto end;
	}

	if (v->head_only) {
		buf_reset(&title);
		buf_reset(&path);
		buf_reset(&q);
		return bad ? -1 : 0;
	}

	/* paging summary */
	if (v->mode == WEB_SERVER)
		bad |= pager(out, v, path.data);
	if (v->mode == WEB_SERVER)
		bad |= chain_nav(out, v, path.data);
	{
		struct pair_ctx c = {web_act_rows_have_l1(v->rows, v->n_rows), v->mode, NULL, id,
		                     f->rank};

		bad |= tables(out, v->rows, v->n_rows, &c);
	}
	if (v->mode == WEB_SERVER && v->next_from >= 0) {
		buf_clear(&q);
		bad |= web_act_query(&q, f, v->next_from);
		bad |= web_printf(
		        out,
		        "<nav class=\"pager\"><a href=\"%s%s#rows\">next page &rsaquo;</a>"
		        "</nav>",
		        path.data, q.data);
	}
	if (v->mode == WEB_SERVER)
		bad |= buf_puts(out, "</div>");
	if (v->mode == WEB_SERVER)
		bad |= web_printf(out,
		                  "<p class=\"muted\">API: <a href=\"/comparisons/%lld\">JSON</a> "
		                  "&middot; <a href=\"/comparisons/%lld/rows\">rows</a> &middot; ",
		                  id, id) |
		       web_report_link(out, id, res) | buf_puts(out, "</p>");
end:
	if (!v->head_only) /* else the caller writes the rest and the end */
		bad |= web_page_end(out, v->mode);
	buf_reset(&title);
	buf_reset(&path);
	buf_reset(&q);
	return bad ? -1 : 0;
}

/* ---- the every-rank report -------------------------------------------------- */

void web_report_rank_prefix(char prefix[WEB_RANK_PREFIX], int rank)
{
	snprintf(prefix, WEB_RANK_PREFIX, "k%d-", rank);
}

int web_report_act_begin_all(struct buf *out, const struct store_comparison *cmp,
                             const struct store_act_result *res, const char *note)
{
	struct buf title = BUF_INIT;
	struct store_act_rank all;
	const char *na, *nb, *verdict = matcher_verdict_name(res->verdict);
	long long id = cmp ? (long long)cmp->id : 0;
	int bad = 0;

	result_names(res, &na, &nb);
	sum_ranks(res, &all);
	if (id)
		buf_printf(&title, "#%lld ", id);
	buf_printf(&title, "%s: %s vs %s", verdict, na && *na ? na : "A", nb && *nb ? nb : "B");
	buf_puts(&title, " \xe2\x80\x94 activation comparison \xe2\x80\x94 parity");
	bad |= web_page_begin(out, WEB_OFFLINE, title.data, 0);
	buf_reset(&title);
	bad |= buf_puts(out, "<h1>Activation comparison");
	if (id)
		bad |= web_printf(out, " #%lld", id);
	if (cmp && cmp->name && *cmp->name)
		bad |= web_printf(out, " <span class=\"muted\">%s</span>", cmp->name);
	bad |= buf_puts(out, "</h1>");
	if (note)
		bad |= web_printf(out, "<p class=\"note\" id=\"note\">%s</p>", note);
	bad |= act_banner(out, cmp, res, WEB_OFFLINE);
	bad |= rank_table(out, res, NULL, "", WEB_OFFLINE);
	bad |= buf_puts(out, "<div class=\"grid2\">");
	bad |= counts(out, res->n_ranks ? &all : NULL, "All ranks");
	bad |= buf_puts(out, "</div>");
	bad |= client_filters(out);
	return bad ? -1 : 0;
}

int web_report_rank_begin(struct buf *out, const struct store_act_result *res, int rank,
                          const struct web_profile *profile, const char *note)
{
	const struct store_act_rank *rd = rank_of(res, rank);
	struct web_act_filters f = {.origin = -1, .limit = WEB_ACT_LIMIT, .rank = rank};
	const char *vd = rd ? matcher_verdict_name(rd->verdict) : "";
	char pre[WEB_RANK_PREFIX], t[32];
	int bad = 0;

	web_report_rank_prefix(pre, rank);
	bad |= web_printf(out,
	                  "<section class=\"rank-report\" id=\"%srank\" data-rank=\"%d\">"
	                  "<h2>Rank %d <span class=\"badge v-%s\">%s</span></h2>",
	                  pre, rank, rank, vd, vd);
	if (note)
		bad |= web_printf(out, "<p class=\"note\">%s</p>", note);
	snprintf(t, sizeof t, "Rank %d", rank);
	bad |= buf_puts(out, "<div class=\"grid2\">");
	bad |= counts(out, rd, t);
	bad |= excluded(out, rd);
	bad |= buf_puts(out, "</div><section class=\"profile-box\"><h3>Divergence profile</h3>");
	if (profile)
		bad |= web_profile_svg(out, profile, NULL, NULL, 0);
	bad |= buf_puts(out, "</section><nav class=\"jumps\">");
	bad |= jump(out, "First forward divergence", rd ? &rd->first_divergence[0] : NULL, &f, "",
	            WEB_OFFLINE, pre);
	bad |= jump(out, "First backward divergence", rd ? &rd->first_divergence[1] : NULL, &f, "",
	            WEB_OFFLINE, pre);
	bad |= buf_puts(out, "</nav>");
	return bad ? -1 : 0;
}

int web_report_rank_end(struct buf *out)
{
	return buf_puts(out, "</section>");
}
