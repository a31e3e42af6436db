/* dynlib.h - optional shared libraries, loaded at their first use.
 *
 * `parity compare` needs neither cairo/pango (PNG, PDF), nor libcurl
 * (webhooks, submit), nor libpq (PostgreSQL), nor libmicrohttpd (the
 * daemon); linked as DT_NEEDED they cost every run ~10 MB of resident
 * library pages before main() (tests/README.md, "the floor").  So these
 * libraries are not linked: each has a table of function pointers that is
 * filled by dlopen/dlsym the first time any of its functions is called.
 *
 * A library table is declared in one header (web/gfx.h, store/pg/pq_lib.h,
 * server/http/mhd_lib.h, server/base/curl_lib.h, server/base/crypto_lib.h)
 * as an X-macro list of its functions:
 *
 *     #define WEB_GFX_FUNCS(X) X(cairo_create) X(cairo_destroy) ...
 *     DYNLIB_DECLARE(web_gfx, WEB_GFX_FUNCS)
 *     #define cairo_create DYNLIB_CALL(web_gfx, cairo_create)
 *
 * after the library's own headers, so call sites keep their natural form
 * and the compiler still checks every call against the real prototype
 * (DYNLIB_MEMBER takes the type of the declared function).  One .c per
 * table defines it: `DYNLIB_DEFINE(web_gfx, WEB_GFX_FUNCS,
 * "libpangocairo-1.0.so.0");`.
 *
 * The .c of a table includes the same header: DYNLIB_DEFINE only
 * stringizes the names, which the redirects do not touch.
 *
 * dynlib_get() is for callers that can report a missing library (a PNG or
 * PDF renderer returns its error, store_pg_open says which library);
 * dynlib_need() is what a redirected call uses and ends the process
 * (status 70) with the loader's message when the library cannot be loaded
 * (Debian installs them with the package: deploy/install.sh). */
#ifndef PARITY_STORE_DYNLIB_H
#define PARITY_STORE_DYNLIB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

/* One struct member per function: a pointer of the declared function's
 * own type, named as the function. */
#define DYNLIB_MEMBER(f) __typeof__(&f) f;
/* The function's name as a string (the table's dlsym order). */
#define DYNLIB_NAME(f) #f,

struct dynlib {
	const char *soname;       /* what dlopen is given, e.g. "libpq.so.5" */
	const char *const *names; /* the n functions, in the table's order */
	size_t n;
	void *table;           /* a struct of n function pointers, no padding */
	_Atomic(void *) ready; /* table, once every function is in it */
	pthread_mutex_t lock;  /* held while loading */
	int tried;             /* under lock: loading was attempted */
	char err[256];         /* under lock: why loading failed */
};

/* Declare the table `struct name` of the functions FUNCS lists, its
 * `struct dynlib name_lib` and `name_get(err, cap)`: the table, loaded now
 * if need be, or NULL with the reason in err (cap bytes). */
#define DYNLIB_DECLARE(name, FUNCS)                                                                \
	struct name {                                                                              \
		FUNCS(DYNLIB_MEMBER)                                                               \
	};                                                                                         \
	extern struct dynlib name##_lib;                                                           \
	static inline const struct name *name##_get(char *err, size_t cap)                         \
	{                                                                                          \
		return dynlib_get(&name##_lib, err, cap);                                          \
	}
/* Function f of table name, loading it first if need be: what a header
 * #defines each function's name to. */
#define DYNLIB_CALL(name, f) (((const struct name *)dynlib_need(&name##_lib))->f)
/* Define name_lib (DYNLIB_DECLARE) for the library so (its soname), in
 * the one .c of the table. */
#define DYNLIB_DEFINE(name, FUNCS, so)                                                             \
	static const char *const name##_names[] = {FUNCS(DYNLIB_NAME)};                            \
	static struct name name##_fns;                                                             \
	_Static_assert(sizeof(struct name) ==                                                      \
	                       sizeof name##_names / sizeof name##_names[0] * sizeof(void *),      \
	               "one pointer per function, no padding");                                    \
	struct dynlib name##_lib = {.soname = (so),                                                \
	                            .names = name##_names,                                         \
	                            .n = sizeof name##_names / sizeof name##_names[0],             \
	                            .table = &name##_fns,                                          \
	                            .lock = PTHREAD_MUTEX_INITIALIZER}

/* The table of d, loading the library at the first call (thread-safe;
 * an attempt that failed is not repeated).  NULL when the library or one
 * of its functions is missing: then err (cap bytes, may be NULL) holds the
 * loader's message. */
void *dynlib_get(struct dynlib *d, char *err, size_t cap);

/* dynlib_get, or the process ends (exit status 70) with the message on
 * stderr: for calls whose caller did not check dynlib_get first. */
void *dynlib_need_slow(struct dynlib *d);
static inline void *dynlib_need(struct dynlib *d)
{
	void *t = atomic_load_explicit(&d->ready, memory_order_acquire);
	return t ? t : dynlib_need_slow(d);
}

#endif
