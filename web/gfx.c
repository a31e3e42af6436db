/* gfx.c - the cairo/pango table of web/gfx.h. */
#define WEB_GFX_DEFINE_TABLE
#include "gfx.h"

DYNLIB_DEFINE(web_gfx, WEB_GFX_FUNCS, WEB_GFX_SONAME);
