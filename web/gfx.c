/* gfx.c - the cairo/pango table of web/gfx.h. */
#include "gfx.h"

DYNLIB_DEFINE(web_gfx, WEB_GFX_FUNCS, WEB_GFX_SONAME);
