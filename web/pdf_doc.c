/* pdf_doc.c - a flowing A4 PDF document on a cairo PDF surface (web/pdf.h):
 * blocks are placed top-down at a cursor; one that does not fit what is
 * left of the page starts the next page (a footer with the title and the
 * page number closes each).  Text is laid out by pango (word wrap, CJK
 * through fontconfig's fallback to WenQuanYi Micro Hei), so it stays text in the
 * PDF: selectable and found by pdftotext.  Tables keep one reusable
 * PangoLayout per column; a cell is at most TABLE_CELL_LINES lines
 * (ellipsized), so every row fits a page.  Charts are drawn as vectors by
 * web/cairo_chart.c.  The bytes go into the caller's buf as cairo emits
 * them. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pdf_int.h"
#include "web.h"

#define PAGE_W           595.28
#define PAGE_H           841.89
#define MARGIN_X         40.0
#define MARGIN_T         44.0
#define MARGIN_B         48.0
#define CONTENT_W        (PAGE_W - 2 * MARGIN_X)
#define BOTTOM           (PAGE_H - MARGIN_B)
#define TABLE_MAX_COLS   8
#define TABLE_PAD        2.5
#define TABLE_FONT       7.5
#define TABLE_CELL_LINES 6
#define CHART_H          185.0

struct web_pdf {
	struct buf *out;
	cairo_surface_t *surf;
	cairo_t *cr;
	int failed;
	int pages; /* finished pages */
	double y;  /* cursor */
	char title[200];
	PangoLayout *layout; /* text blocks */
	/* the open table */
	int in_table;
	size_t tn;
	double tw[TABLE_MAX_COLS];
	char *th[TABLE_MAX_COLS];
	PangoLayout *cell[TABLE_MAX_COLS];
	PangoFontDescription *f_cell, *f_head;
};

static cairo_status_t pdf_write(void *closure, const unsigned char *data, unsigned int len)
{
	return buf_append(closure, data, len) < 0 ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
}

/* Mark the document failed when cairo is in an error state. */
static int check(struct web_pdf *p)
{
	if (!p->failed && cairo_status(p->cr) != CAIRO_STATUS_SUCCESS)
		p->failed = 1;
	return p->failed ? -1 : 0;
}

static PangoLayout *new_layout(struct web_pdf *p, double size, int bold, double width)
{
	PangoLayout *l = pango_cairo_create_layout(p->cr);
	PangoFontDescription *d = web_pdf_font(size, bold);
	if (!l || !d) {
		if (l)
			g_object_unref(l);
		if (d)
			pango_font_description_free(d);
		return NULL;
	}
	pango_layout_set_font_description(l, d);
	pango_font_description_free(d);
	pango_layout_set_width(l, (int)(width * PANGO_SCALE));
	pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
	return l;
}

static void footer(struct web_pdf *p)
{
	char t[260];
	PangoLayout *l = new_layout(p, 7, 0, CONTENT_W);
	if (!l) {
		p->failed = 1;
		return;
	}
	snprintf(t, sizeof t, "%s \xc2\xb7 page %d", p->title, p->pages + 1);
	web_pango_text(l, t);
	pango_layout_set_alignment(l, PANGO_ALIGN_RIGHT);
	cairo_set_source_rgb(p->cr, 0.45, 0.45, 0.45);
	cairo_move_to(p->cr, MARGIN_X, PAGE_H - MARGIN_B + 16);
	pango_cairo_show_layout(p->cr, l);
	g_object_unref(l);
}

static void table_header(struct web_pdf *p);

static int new_page(struct web_pdf *p)
{
	footer(p);
	cairo_show_page(p->cr);
	p->pages++;
	p->y = MARGIN_T;
	if (p->in_table)
		table_header(p);
	return check(p);
}

/* Room for h more points, else a new page. */
static int need(struct web_pdf *p, double h)
{
	if (p->y + h > BOTTOM && p->y > MARGIN_T + 1)
		return new_page(p);
	return 0;
}

struct web_pdf *web_pdf_new(struct buf *out, const char *title, const char *date)
{
	struct web_pdf *p = web_gfx_get(NULL, 0) ? calloc(1, sizeof *p) : NULL;
	if (!p)
		return NULL;
	p->out = out;
	snprintf(p->title, sizeof p->title, "%s", title ? title : "parity report");
	p->surf = cairo_pdf_surface_create_for_stream(pdf_write, out, PAGE_W, PAGE_H);
	p->cr = cairo_create(p->surf);
	cairo_pdf_surface_set_metadata(p->surf, CAIRO_PDF_METADATA_TITLE, p->title);
	cairo_pdf_surface_set_metadata(p->surf, CAIRO_PDF_METADATA_CREATOR, "parity");
	if (date)
		cairo_pdf_surface_set_metadata(p->surf, CAIRO_PDF_METADATA_CREATE_DATE, date);
	p->layout = new_layout(p, 9, 0, CONTENT_W);
	p->y = MARGIN_T;
	if (!p->layout)
		p->failed = 1;
	check(p);
	return p;
}

static void table_free(struct web_pdf *p)
{
	for (size_t i = 0; i < TABLE_MAX_COLS; i++) {
		free(p->th[i]);
		p->th[i] = NULL;
		if (p->cell[i])
			g_object_unref(p->cell[i]);
		p->cell[i] = NULL;
	}
	if (p->f_cell)
		pango_font_description_free(p->f_cell);
	if (p->f_head)
		pango_font_description_free(p->f_head);
	p->f_cell = p->f_head = NULL;
	p->in_table = 0;
	p->tn = 0;
}

int web_pdf_finish(struct web_pdf *p)
{
	if (!p)
		return -1;
	table_free(p);
	footer(p);
	check(p);
	if (p->layout)
		g_object_unref(p->layout);
	cairo_destroy(p->cr);
	cairo_surface_finish(p->surf);
	if (cairo_surface_status(p->surf) != CAIRO_STATUS_SUCCESS)
		p->failed = 1;
	cairo_surface_destroy(p->surf);
	int rc = p->failed ? -1 : 0;
	free(p);
	return rc;
}

int web_pdf_pages(const struct web_pdf *p)
{
	return p->pages + 1;
}

/* A text block: font size, bold, grey, space above. */
static int block(struct web_pdf *p, const char *s, double size, int bold, double grey, double above,
                 double below)
{
	if (p->failed)
		return -1;
	PangoFontDescription *d = web_pdf_font(size, bold);
	int w, h;
	if (!d)
		return p->failed = 1, -1;
	pango_layout_set_font_description(p->layout, d);
	pango_font_description_free(d);
	web_pango_text(p->layout, s ? s : "");
	pango_layout_get_pixel_size(p->layout, &w, &h);
	p->y += above;
	/* a heading keeps the next lines with it */
	if (need(p, h + (size > 10 ? 60 : 0)) < 0)
		return -1;
	cairo_set_source_rgb(p->cr, grey, grey, grey);
	cairo_move_to(p->cr, MARGIN_X, p->y);
	pango_cairo_show_layout(p->cr, p->layout);
	p->y += h + below;
	return check(p);
}

int web_pdf_heading(struct web_pdf *p, int level, const char *text)
{
	if (level <= 0)
		return block(p, text, 17, 1, 0.05, 0, 6);
	if (level == 1)
		return block(p, text, 13, 1, 0.1, 8, 4);
	return block(p, text, 10.5, 1, 0.15, 6, 3);
}

int web_pdf_para(struct web_pdf *p, const char *text)
{
	return block(p, text, 9, 0, 0, 0, 3);
}

int web_pdf_note(struct web_pdf *p, const char *text)
{
	return block(p, text, 7.5, 0, 0.4, 0, 3);
}

int web_pdf_verdict(struct web_pdf *p, const char *verdict, const char *detail)
{
	char t[400];
	if (p->failed)
		return -1;
	double r = 0.45, g = 0.45, b = 0.45;
	if (verdict && !strcmp(verdict, "pass"))
		r = 0.10, g = 0.55, b = 0.20;
	else if (verdict && !strcmp(verdict, "fail"))
		r = 0.80, g = 0.10, b = 0.10;
	else if (verdict && !strcmp(verdict, "error"))
		r = 0.75, g = 0.40, b = 0.00;
	snprintf(t, sizeof t, "Verdict: %s%s%s", verdict ? verdict : "pending",
	         detail && *detail ? " \xe2\x80\x94 " : "", detail ? detail : "");
	if (need(p, 28) < 0)
		return -1;
	cairo_set_source_rgb(p->cr, r, g, b);
	cairo_rectangle(p->cr, MARGIN_X, p->y, 5, 20);
	cairo_fill(p->cr);
	PangoFontDescription *d = web_pdf_font(13, 1);
	if (!d)
		return p->failed = 1, -1;
	pango_layout_set_font_description(p->layout, d);
	pango_font_description_free(d);
	web_pango_text(p->layout, t);
	int w, h;
	pango_layout_get_pixel_size(p->layout, &w, &h);
	cairo_move_to(p->cr, MARGIN_X + 10, p->y + 1);
	pango_cairo_show_layout(p->cr, p->layout);
	p->y += (h > 20 ? h : 20) + 6;
	return check(p);
}

int web_pdf_page_break(struct web_pdf *p)
{
	if (p->failed)
		return -1;
	return p->y > MARGIN_T + 1 ? new_page(p) : 0;
}

/* Lay out one row's cells in the column layouts; its height. */
static double row_layout(struct web_pdf *p, const char *const *cells, int head)
{
	double h = 0;
	for (size_t i = 0; i < p->tn; i++) {
		int w, ch;
		pango_layout_set_font_description(p->cell[i], head ? p->f_head : p->f_cell);
		web_pango_text(p->cell[i], cells[i] ? cells[i] : "\xe2\x80\x94");
		pango_layout_get_pixel_size(p->cell[i], &w, &ch);
		if (ch > h)
			h = ch;
	}
	return h + 2 * TABLE_PAD;
}

static void row_draw(struct web_pdf *p, double h, int mark)
{
	cairo_t *cr = p->cr;
	if (mark) {
		if (mark == 1)
			cairo_set_source_rgb(cr, 1.0, 0.87, 0.87);
		else if (mark == 2)
			cairo_set_source_rgb(cr, 0.88, 0.97, 0.88);
		else
			cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
		cairo_rectangle(cr, MARGIN_X, p->y, CONTENT_W, h);
		cairo_fill(cr);
	}
	double x = MARGIN_X;
	cairo_set_source_rgb(cr, 0, 0, 0);
	for (size_t i = 0; i < p->tn; i++) {
		cairo_move_to(cr, x + TABLE_PAD, p->y + TABLE_PAD);
		pango_cairo_show_layout(cr, p->cell[i]);
		x += p->tw[i];
	}
	cairo_set_source_rgb(cr, 0.82, 0.82, 0.82);
	cairo_set_line_width(cr, 0.4);
	cairo_move_to(cr, MARGIN_X, p->y + h);
	cairo_line_to(cr, MARGIN_X + CONTENT_W, p->y + h);
	cairo_stroke(cr);
	p->y += h;
}

static void table_header(struct web_pdf *p)
{
	double h = row_layout(p, (const char *const *)p->th, 1);
	row_draw(p, h, 3);
}

int web_pdf_table_begin(struct web_pdf *p, size_t n, const double *widths,
                        const char *const *headers)
{
	if (p->failed)
		return -1;
	table_free(p);
	if (n == 0 || n > TABLE_MAX_COLS)
		return p->failed = 1, -1;
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += widths ? widths[i] : 1;
	p->tn = n;
	p->f_cell = web_pdf_font(TABLE_FONT, 0);
	p->f_head = web_pdf_font(TABLE_FONT, 1);
	if (!p->f_cell || !p->f_head)
		return p->failed = 1, -1;
	for (size_t i = 0; i < n; i++) {
		p->tw[i] = (widths ? widths[i] : 1) / sum * CONTENT_W;
		p->th[i] = strdup(headers[i] ? headers[i] : "");
		p->cell[i] = new_layout(p, TABLE_FONT, 0, p->tw[i] - 2 * TABLE_PAD);
		if (!p->th[i] || !p->cell[i])
			return p->failed = 1, -1;
		pango_layout_set_height(p->cell[i], -TABLE_CELL_LINES);
		pango_layout_set_ellipsize(p->cell[i], PANGO_ELLIPSIZE_END);
	}
	/* the header and a row at least on this page */
	if (need(p, 40) < 0)
		return -1;
	table_header(p);
	p->in_table = 1;
	return check(p);
}

int web_pdf_table_row(struct web_pdf *p, const char *const *cells, int mark)
{
	if (p->failed || !p->in_table)
		return -1;
	double h = row_layout(p, cells, 0);
	if (p->y + h > BOTTOM) {
		if (new_page(p) < 0)
			return -1;
		h = row_layout(p, cells, 0); /* the header reused the layouts */
	}
	row_draw(p, h, mark);
	return check(p);
}

int web_pdf_table_end(struct web_pdf *p)
{
	if (p->failed)
		return -1;
	table_free(p);
	p->y += 6;
	return 0;
}

int web_pdf_chart(struct web_pdf *p, const struct web_metric_chart *c, int diff)
{
	if (p->failed || need(p, CHART_H + 6) < 0)
		return -1;
	if (web_cairo_chart(p->cr, MARGIN_X, p->y, CONTENT_W, CHART_H, c, diff) < 0)
		return p->failed = 1, -1;
	p->y += CHART_H + 6;
	return check(p);
}

int web_pdf_profile(struct web_pdf *p, const struct web_profile *prof, const char *title)
{
	if (p->failed || need(p, CHART_H + 6) < 0)
		return -1;
	if (web_cairo_profile(p->cr, MARGIN_X, p->y, CONTENT_W, CHART_H, prof, title) < 0)
		return p->failed = 1, -1;
	p->y += CHART_H + 6;
	return check(p);
}

int web_pdf_noise_chart(struct web_pdf *p, const struct web_noise_view *v, size_t m, int deviation)
{
	if (p->failed || need(p, CHART_H + 6) < 0)
		return -1;
	if (web_cairo_noise(p->cr, MARGIN_X, p->y, CONTENT_W, CHART_H, v, m, deviation) < 0)
		return p->failed = 1, -1;
	p->y += CHART_H + 6;
	return check(p);
}

/* ---- font maps and the exit-time release ---------------------------------
 *
 * Why the release waits (issue 23, F13: `parity compare -o x.pdf` aborted
 * at exit 4-12 % of the time in a cairo assertion).  pango keeps one
 * default font map per drawing thread, and its fontconfig work (font
 * sorting, initialization) runs on GLib worker threads that hold a
 * reference to the map until they end.  So the map's last reference, and
 * with it the destruction of its cairo fonts, can belong to such a
 * worker: dropping our reference does not free the map, and resetting
 * cairo's static data while that worker destroys the fonts trips cairo's
 * "live entries" assertion (or FcFini pulls the configuration from under
 * it).  Hence every font map a renderer used is counted, the count drops
 * when GObject finalizes the map (its qdata goes last, after pango freed
 * the fonts), and the release resets the static data only once nothing is
 * alive; if something still is after RELEASE_WAIT_MS it leaves the caches
 * to the process's exit (a leak report under LeakSanitizer, never an
 * abort).  The counter is the one piece of process-wide state here, as
 * the caches it guards are. */
#define RELEASE_WAIT_MS 2000

static atomic_int live_font_maps;

static void font_map_finalized(gpointer unused)
{
	(void)unused;
	atomic_fetch_sub(&live_font_maps, 1);
}

void web_fonts_track(void)
{
	PangoFontMap *map = pango_cairo_font_map_get_default();
	GQuark q = g_quark_from_static_string("parity-web-font-map");
	/* the map is this thread's: no other thread marks it */
	if (map && !g_object_get_qdata(G_OBJECT(map), q)) {
		atomic_fetch_add(&live_font_maps, 1);
		g_object_set_qdata_full(G_OBJECT(map), q, GINT_TO_POINTER(1), font_map_finalized);
	}
}

void web_fonts_release(void)
{
	if (!atomic_load(&web_gfx_lib.ready))
		return; /* no renderer ran: nothing of cairo's is loaded */
	pango_cairo_font_map_set_default(NULL);
	for (int waited_ms = 0; atomic_load(&live_font_maps) > 0; waited_ms++) {
		if (waited_ms == RELEASE_WAIT_MS)
			return; /* a map is still alive: resetting now could abort */
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	cairo_debug_reset_static_data();
	FcFini();
}
