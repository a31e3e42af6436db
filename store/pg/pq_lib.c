/* pq_lib.c - the libpq table of pq_lib.h. */
#include "pq_lib.h"

DYNLIB_DEFINE(store_pq, STORE_PQ_FUNCS, "libpq.so.5");
