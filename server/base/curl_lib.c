/* curl_lib.c - the libcurl table of curl_lib.h, and the two variadic
 * calls as functions. */
#include <stdarg.h>

#include "curl_lib.h"

DYNLIB_DEFINE(srv_curl, SRV_CURL_FUNCS, "libcurl.so.4");

typedef void (*curl_fn)(void);

/* The one argument after opt, read by the option's type as libcurl reads
 * it (curl.h, CURLOPTTYPE_*): long, object pointer, function pointer,
 * curl_off_t, struct curl_blob pointer.  (t->f)(...): in parentheses the
 * member is not taken for curl.h's type-checking macro of the same name. */
CURLcode(curl_easy_setopt)(CURL *h, CURLoption opt, ...)
{
	const struct srv_curl *t = dynlib_need(&srv_curl_lib);
	va_list ap;
	va_start(ap, opt);
	CURLcode rc;
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = (t->curl_easy_setopt)(h, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
		rc = (t->curl_easy_setopt)(h, opt, va_arg(ap, void *));
	else if (opt < CURLOPTTYPE_OFF_T)
		rc = (t->curl_easy_setopt)(h, opt, va_arg(ap, curl_fn));
	else if (opt < CURLOPTTYPE_BLOB)
		rc = (t->curl_easy_setopt)(h, opt, va_arg(ap, curl_off_t));
	else
		rc = (t->curl_easy_setopt)(h, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

/* Every CURLINFO_* takes a pointer to where the value goes. */
CURLcode(curl_easy_getinfo)(CURL *h, CURLINFO info, ...)
{
	const struct srv_curl *t = dynlib_need(&srv_curl_lib);
	va_list ap;
	va_start(ap, info);
	CURLcode rc = (t->curl_easy_getinfo)(h, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}
