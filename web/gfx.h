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

DYNLIB_DECLARE(web_gfx, WEB_GFX_FUNCS)

#define cairo_arc                     DYNLIB_CALL(web_gfx, cairo_arc)
#define cairo_clip                    DYNLIB_CALL(web_gfx, cairo_clip)
#define cairo_close_path              DYNLIB_CALL(web_gfx, cairo_close_path)
#define cairo_create                  DYNLIB_CALL(web_gfx, cairo_create)
#define cairo_debug_reset_static_data DYNLIB_CALL(web_gfx, cairo_debug_reset_static_data)
#define cairo_destroy                 DYNLIB_CALL(web_gfx, cairo_destroy)
#define cairo_fill                    DYNLIB_CALL(web_gfx, cairo_fill)
#define cairo_image_surface_create    DYNLIB_CALL(web_gfx, cairo_image_surface_create)
#define cairo_line_to                 DYNLIB_CALL(web_gfx, cairo_line_to)
#define cairo_move_to                 DYNLIB_CALL(web_gfx, cairo_move_to)
#define cairo_new_sub_path            DYNLIB_CALL(web_gfx, cairo_new_sub_path)
#define cairo_pdf_surface_create_for_stream                                                        \
	DYNLIB_CALL(web_gfx, cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata     DYNLIB_CALL(web_gfx, cairo_pdf_surface_set_metadata)
#define cairo_rectangle                    DYNLIB_CALL(web_gfx, cairo_rectangle)
#define cairo_restore                      DYNLIB_CALL(web_gfx, cairo_restore)
#define cairo_save                         DYNLIB_CALL(web_gfx, cairo_save)
#define cairo_scale                        DYNLIB_CALL(web_gfx, cairo_scale)
#define cairo_set_dash                     DYNLIB_CALL(web_gfx, cairo_set_dash)
#define cairo_set_line_join                DYNLIB_CALL(web_gfx, cairo_set_line_join)
#define cairo_set_line_width               DYNLIB_CALL(web_gfx, cairo_set_line_width)
#define cairo_set_source_rgb               DYNLIB_CALL(web_gfx, cairo_set_source_rgb)
#define cairo_show_page                    DYNLIB_CALL(web_gfx, cairo_show_page)
#define cairo_status                       DYNLIB_CALL(web_gfx, cairo_status)
#define cairo_stroke                       DYNLIB_CALL(web_gfx, cairo_stroke)
#define cairo_surface_destroy              DYNLIB_CALL(web_gfx, cairo_surface_destroy)
#define cairo_surface_finish               DYNLIB_CALL(web_gfx, cairo_surface_finish)
#define cairo_surface_status               DYNLIB_CALL(web_gfx, cairo_surface_status)
#define cairo_surface_write_to_png_stream  DYNLIB_CALL(web_gfx, cairo_surface_write_to_png_stream)
#define pango_cairo_create_layout          DYNLIB_CALL(web_gfx, pango_cairo_create_layout)
#define pango_cairo_font_map_get_default   DYNLIB_CALL(web_gfx, pango_cairo_font_map_get_default)
#define pango_cairo_font_map_set_default   DYNLIB_CALL(web_gfx, pango_cairo_font_map_set_default)
#define pango_cairo_show_layout            DYNLIB_CALL(web_gfx, pango_cairo_show_layout)
#define pango_font_description_free        DYNLIB_CALL(web_gfx, pango_font_description_free)
#define pango_font_description_from_string DYNLIB_CALL(web_gfx, pango_font_description_from_string)
#define pango_font_description_set_absolute_size                                                   \
	DYNLIB_CALL(web_gfx, pango_font_description_set_absolute_size)
#define pango_font_description_set_weight DYNLIB_CALL(web_gfx, pango_font_description_set_weight)
#define pango_layout_get_pixel_size       DYNLIB_CALL(web_gfx, pango_layout_get_pixel_size)
#define pango_layout_set_alignment        DYNLIB_CALL(web_gfx, pango_layout_set_alignment)
#define pango_layout_set_ellipsize        DYNLIB_CALL(web_gfx, pango_layout_set_ellipsize)
#define pango_layout_set_font_description DYNLIB_CALL(web_gfx, pango_layout_set_font_description)
#define pango_layout_set_height           DYNLIB_CALL(web_gfx, pango_layout_set_height)
#define pango_layout_set_text             DYNLIB_CALL(web_gfx, pango_layout_set_text)
#define pango_layout_set_width            DYNLIB_CALL(web_gfx, pango_layout_set_width)
#define pango_layout_set_wrap             DYNLIB_CALL(web_gfx, pango_layout_set_wrap)
#define g_free                            DYNLIB_CALL(web_gfx, g_free)
#define g_object_get_qdata                DYNLIB_CALL(web_gfx, g_object_get_qdata)
#define g_object_set_qdata_full           DYNLIB_CALL(web_gfx, g_object_set_qdata_full)
#define g_object_unref                    DYNLIB_CALL(web_gfx, g_object_unref)
#define g_quark_from_static_string        DYNLIB_CALL(web_gfx, g_quark_from_static_string)
#define g_type_check_instance_cast        DYNLIB_CALL(web_gfx, g_type_check_instance_cast)
#define g_utf8_make_valid                 DYNLIB_CALL(web_gfx, g_utf8_make_valid)
#define g_utf8_validate                   DYNLIB_CALL(web_gfx, g_utf8_validate)
#define FcFini                            DYNLIB_CALL(web_gfx, FcFini)
#endif
