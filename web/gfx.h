/* gfx.h - cairo, pango, glib and fontconfig as web/ calls them (PNG
 * charts, PDF reports), loaded at the first call (store/dynlib.h): the
 * offline compare and the daemon's HTML pages never load them.  Include
 * this instead of the libraries' headers; every call below goes through
 * the table and is checked against the library's own prototype. */
#ifndef PARITY_WEB_GFX_H
#define PARITY_WEB_GFX_H

#include <cairo-pdf.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>

#include "dynlib.h"

/* pangocairo's handle reaches pango, cairo, glib/gobject and fontconfig */
#define WEB_GFX_SONAME "libpangocairo-1.0.so.0"
#define WEB_GFX_FUNCS(X)                                                                           \
	X(cairo_arc)                                                                               \
	X(cairo_clip)                                                                              \
	X(cairo_close_path)                                                                        \
	X(cairo_create)                                                                            \
	X(cairo_debug_reset_static_data)                                                           \
	X(cairo_destroy)                                                                           \
	X(cairo_fill)                                                                              \
	X(cairo_image_surface_create)                                                              \
	X(cairo_line_to)                                                                           \
	X(cairo_move_to)                                                                           \
	X(cairo_new_sub_path)                                                                      \
	X(cairo_pdf_surface_create_for_stream)                                                     \
	X(cairo_pdf_surface_set_metadata)                                                          \
	X(cairo_rectangle)                                                                         \
	X(cairo_restore)                                                                           \
	X(cairo_save)                                                                              \
	X(cairo_scale)                                                                             \
	X(cairo_set_dash)                                                                          \
	X(cairo_set_line_join)                                                                     \
	X(cairo_set_line_width)                                                                    \
	X(cairo_set_source_rgb)                                                                    \
	X(cairo_show_page)                                                                         \
	X(cairo_status)                                                                            \
	X(cairo_stroke)                                                                            \
	X(cairo_surface_destroy)                                                                   \
	X(cairo_surface_finish)                                                                    \
	X(cairo_surface_status)                                                                    \
	X(cairo_surface_write_to_png_stream)                                                       \
	X(pango_cairo_create_layout)                                                               \
	X(pango_cairo_font_map_get_default)                                                        \
	X(pango_cairo_font_map_set_default)                                                        \
	X(pango_cairo_show_layout)                                                                 \
	X(pango_font_description_free)                                                             \
	X(pango_font_description_from_string)                                                      \
	X(pango_font_description_set_absolute_size)                                                \
	X(pango_font_description_set_weight)                                                       \
	X(pango_layout_get_pixel_size)                                                             \
	X(pango_layout_set_alignment)                                                              \
	X(pango_layout_set_ellipsize)                                                              \
	X(pango_layout_set_font_description)                                                       \
	X(pango_layout_set_height)                                                                 \
	X(pango_layout_set_text)                                                                   \
	X(pango_layout_set_width)                                                                  \
	X(pango_layout_set_wrap)                                                                   \
	X(g_free)                                                                                  \
	X(g_object_get_qdata)                                                                      \
	X(g_object_set_qdata_full)                                                                 \
	X(g_object_unref)                                                                          \
	X(g_quark_from_static_string)                                                              \
	X(g_type_check_instance_cast)                                                              \
	X(g_utf8_make_valid)                                                                       \
	X(g_utf8_validate)                                                                         \
	X(FcFini)

struct web_gfx {
	WEB_GFX_FUNCS(DYNLIB_MEMBER)
};
extern struct dynlib web_gfx_lib;

/* The table, loaded now if need be; NULL when the libraries are missing
 * (err, cap bytes, says why): what a renderer checks before it draws. */
static inline const struct web_gfx *web_gfx_get(char *err, size_t cap)
{
	return dynlib_get(&web_gfx_lib, err, cap);
}

#ifndef WEB_GFX_DEFINE_TABLE
#define WEB_GFX_CALL(f)                     (((const struct web_gfx *)dynlib_need(&web_gfx_lib))->f)
#define cairo_arc                           WEB_GFX_CALL(cairo_arc)
#define cairo_clip                          WEB_GFX_CALL(cairo_clip)
#define cairo_close_path                    WEB_GFX_CALL(cairo_close_path)
#define cairo_create                        WEB_GFX_CALL(cairo_create)
#define cairo_debug_reset_static_data       WEB_GFX_CALL(cairo_debug_reset_static_data)
#define cairo_destroy                       WEB_GFX_CALL(cairo_destroy)
#define cairo_fill                          WEB_GFX_CALL(cairo_fill)
#define cairo_image_surface_create          WEB_GFX_CALL(cairo_image_surface_create)
#define cairo_line_to                       WEB_GFX_CALL(cairo_line_to)
#define cairo_move_to                       WEB_GFX_CALL(cairo_move_to)
#define cairo_new_sub_path                  WEB_GFX_CALL(cairo_new_sub_path)
#define cairo_pdf_surface_create_for_stream WEB_GFX_CALL(cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata      WEB_GFX_CALL(cairo_pdf_surface_set_metadata)
#define cairo_rectangle                     WEB_GFX_CALL(cairo_rectangle)
#define cairo_restore                       WEB_GFX_CALL(cairo_restore)
#define cairo_save                          WEB_GFX_CALL(cairo_save)
#define cairo_scale                         WEB_GFX_CALL(cairo_scale)
#define cairo_set_dash                      WEB_GFX_CALL(cairo_set_dash)
#define cairo_set_line_join                 WEB_GFX_CALL(cairo_set_line_join)
#define cairo_set_line_width                WEB_GFX_CALL(cairo_set_line_width)
#define cairo_set_source_rgb                WEB_GFX_CALL(cairo_set_source_rgb)
#define cairo_show_page                     WEB_GFX_CALL(cairo_show_page)
#define cairo_status                        WEB_GFX_CALL(cairo_status)
#define cairo_stroke                        WEB_GFX_CALL(cairo_stroke)
#define cairo_surface_destroy               WEB_GFX_CALL(cairo_surface_destroy)
#define cairo_surface_finish                WEB_GFX_CALL(cairo_surface_finish)
#define cairo_surface_status                WEB_GFX_CALL(cairo_surface_status)
#define cairo_surface_write_to_png_stream   WEB_GFX_CALL(cairo_surface_write_to_png_stream)
#define pango_cairo_create_layout           WEB_GFX_CALL(pango_cairo_create_layout)
#define pango_cairo_font_map_get_default    WEB_GFX_CALL(pango_cairo_font_map_get_default)
#define pango_cairo_font_map_set_default    WEB_GFX_CALL(pango_cairo_font_map_set_default)
#define pango_cairo_show_layout             WEB_GFX_CALL(pango_cairo_show_layout)
#define pango_font_description_free         WEB_GFX_CALL(pango_font_description_free)
#define pango_font_description_from_string  WEB_GFX_CALL(pango_font_description_from_string)
#define pango_font_description_set_absolute_size                                                   \
	WEB_GFX_CALL(pango_font_description_set_absolute_size)
#define pango_font_description_set_weight WEB_GFX_CALL(pango_font_description_set_weight)
#define pango_layout_get_pixel_size       WEB_GFX_CALL(pango_layout_get_pixel_size)
#define pango_layout_set_alignment        WEB_GFX_CALL(pango_layout_set_alignment)
#define pango_layout_set_ellipsize        WEB_GFX_CALL(pango_layout_set_ellipsize)
#define pango_layout_set_font_description WEB_GFX_CALL(pango_layout_set_font_description)
#define pango_layout_set_height           WEB_GFX_CALL(pango_layout_set_height)
#define pango_layout_set_text             WEB_GFX_CALL(pango_layout_set_text)
#define pango_layout_set_width            WEB_GFX_CALL(pango_layout_set_width)
#define pango_layout_set_wrap             WEB_GFX_CALL(pango_layout_set_wrap)
#define g_free                            WEB_GFX_CALL(g_free)
#define g_object_get_qdata                WEB_GFX_CALL(g_object_get_qdata)
#define g_object_set_qdata_full           WEB_GFX_CALL(g_object_set_qdata_full)
#define g_object_unref                    WEB_GFX_CALL(g_object_unref)
#define g_quark_from_static_string        WEB_GFX_CALL(g_quark_from_static_string)
#define g_type_check_instance_cast        WEB_GFX_CALL(g_type_check_instance_cast)
#define g_utf8_make_valid                 WEB_GFX_CALL(g_utf8_make_valid)
#define g_utf8_validate                   WEB_GFX_CALL(g_utf8_validate)
#define FcFini                            WEB_GFX_CALL(FcFini)
#endif

#endif
