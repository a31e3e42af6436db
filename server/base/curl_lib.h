/* curl_lib.h - libcurl as server/ calls it (webhooks, mail, the submit
 * and export clients), loaded at the first call (store/dynlib.h): the
 * offline compare never loads it, nor what it links (OpenSSL's libssl,
 * nghttp2, Kerberos, LDAP).  Include this instead of <curl/curl.h>; every
 * call goes through the table and is checked against libcurl's own
 * prototype.  curl_easy_setopt and curl_easy_getinfo keep curl.h's
 * type-checking macros: those call them by name, so they are functions
 * (curl_lib.c) that forward their one argument. */
#ifndef PARITY_SRV_CURL_LIB_H
#define PARITY_SRV_CURL_LIB_H

#include <curl/curl.h>

#include "dynlib.h"

#define SRV_CURL_FUNCS(X)                                                                          \
	X(curl_easy_cleanup)                                                                       \
	X(curl_easy_escape)                                                                        \
	X(curl_easy_getinfo)                                                                       \
	X(curl_easy_init)                                                                          \
	X(curl_easy_perform)                                                                       \
	X(curl_easy_setopt)                                                                        \
	X(curl_easy_strerror)                                                                      \
	X(curl_free)                                                                               \
	X(curl_global_cleanup)                                                                     \
	X(curl_global_init)                                                                        \
	X(curl_mime_addpart)                                                                       \
	X(curl_mime_data)                                                                          \
	X(curl_mime_filedata)                                                                      \
	X(curl_mime_filename)                                                                      \
	X(curl_mime_free)                                                                          \
	X(curl_mime_init)                                                                          \
	X(curl_mime_name)                                                                          \
	X(curl_slist_append)                                                                       \
	X(curl_slist_free_all)                                                                     \
	X(curl_url)                                                                                \
	X(curl_url_cleanup)                                                                        \
	X(curl_url_get)                                                                            \
	X(curl_url_set)

DYNLIB_DECLARE(srv_curl, SRV_CURL_FUNCS)

#define curl_easy_cleanup   DYNLIB_CALL(srv_curl, curl_easy_cleanup)
#define curl_easy_escape    DYNLIB_CALL(srv_curl, curl_easy_escape)
#define curl_easy_init      DYNLIB_CALL(srv_curl, curl_easy_init)
#define curl_easy_perform   DYNLIB_CALL(srv_curl, curl_easy_perform)
#define curl_easy_strerror  DYNLIB_CALL(srv_curl, curl_easy_strerror)
#define curl_free           DYNLIB_CALL(srv_curl, curl_free)
#define curl_global_cleanup DYNLIB_CALL(srv_curl, curl_global_cleanup)
#define curl_global_init    DYNLIB_CALL(srv_curl, curl_global_init)
#define curl_mime_addpart   DYNLIB_CALL(srv_curl, curl_mime_addpart)
#define curl_mime_data      DYNLIB_CALL(srv_curl, curl_mime_data)
#define curl_mime_filedata  DYNLIB_CALL(srv_curl, curl_mime_filedata)
#define curl_mime_filename  DYNLIB_CALL(srv_curl, curl_mime_filename)
#define curl_mime_free      DYNLIB_CALL(srv_curl, curl_mime_free)
#define curl_mime_init      DYNLIB_CALL(srv_curl, curl_mime_init)
#define curl_mime_name      DYNLIB_CALL(srv_curl, curl_mime_name)
#define curl_slist_append   DYNLIB_CALL(srv_curl, curl_slist_append)
#define curl_slist_free_all DYNLIB_CALL(srv_curl, curl_slist_free_all)
#define curl_url            DYNLIB_CALL(srv_curl, curl_url)
#define curl_url_cleanup    DYNLIB_CALL(srv_curl, curl_url_cleanup)
#define curl_url_get        DYNLIB_CALL(srv_curl, curl_url_get)
#define curl_url_set        DYNLIB_CALL(srv_curl, curl_url_set)
#endif
