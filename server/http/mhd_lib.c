/* mhd_lib.c - the libmicrohttpd table of mhd_lib.h. */
#include "mhd_lib.h"

DYNLIB_DEFINE(srv_mhd, SRV_MHD_FUNCS, "libmicrohttpd.so.12");
