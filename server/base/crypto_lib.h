/* crypto_lib.h - OpenSSL's libcrypto as server/ calls it (SHA-256 of
 * uploads, token hashes, HMAC of webhooks), loaded at the first call
 * (store/dynlib.h): the offline compare never loads it.  Include this
 * instead of the openssl/ headers; every call goes through the table and
 * is checked against OpenSSL's own prototype. */
#ifndef PARITY_SRV_CRYPTO_LIB_H
#define PARITY_SRV_CRYPTO_LIB_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "dynlib.h"

#define SRV_CRYPTO_FUNCS(X)                                                                        \
	X(CRYPTO_memcmp)                                                                           \
	X(EVP_DigestFinal_ex)                                                                      \
	X(EVP_DigestInit_ex)                                                                       \
	X(EVP_DigestUpdate)                                                                        \
	X(EVP_MD_CTX_free)                                                                         \
	X(EVP_MD_CTX_new)                                                                          \
	X(EVP_sha256)                                                                              \
	X(HMAC)                                                                                    \
	X(OPENSSL_cleanse)

DYNLIB_DECLARE(srv_crypto, SRV_CRYPTO_FUNCS)

#define CRYPTO_memcmp      DYNLIB_CALL(srv_crypto, CRYPTO_memcmp)
#define EVP_DigestFinal_ex DYNLIB_CALL(srv_crypto, EVP_DigestFinal_ex)
#define EVP_DigestInit_ex  DYNLIB_CALL(srv_crypto, EVP_DigestInit_ex)
#define EVP_DigestUpdate   DYNLIB_CALL(srv_crypto, EVP_DigestUpdate)
#define EVP_MD_CTX_free    DYNLIB_CALL(srv_crypto, EVP_MD_CTX_free)
#define EVP_MD_CTX_new     DYNLIB_CALL(srv_crypto, EVP_MD_CTX_new)
#define EVP_sha256         DYNLIB_CALL(srv_crypto, EVP_sha256)
#define HMAC               DYNLIB_CALL(srv_crypto, HMAC)
#define OPENSSL_cleanse    DYNLIB_CALL(srv_crypto, OPENSSL_cleanse)
#endif
