/* crypto_lib.c - the libcrypto table of crypto_lib.h. */
#include "crypto_lib.h"

DYNLIB_DEFINE(srv_crypto, SRV_CRYPTO_FUNCS, "libcrypto.so.3");
