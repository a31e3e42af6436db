/* dynlib.c - dlopen/dlsym behind the library tables (dynlib.h). */
#include "dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Fill d's table; 0, or -1 with d->err set.  Under d->lock. */
static int dynlib_open(struct dynlib *d)
{
	/* RTLD_LOCAL: the library's symbols stay out of the global scope,
	 * dlsym on its handle still finds those of its dependencies (pango
	 * finds cairo's, pangocairo's handle glib's) */
	void *h = dlopen(d->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(d->err, sizeof d->err, "cannot load %s: %s", d->soname, e ? e : "?");
		return -1;
	}
	for (size_t i = 0; i < d->n; i++) {
		dlerror();
		void *p = dlsym(h, d->names[i]);
		if (!p) {
			snprintf(d->err, sizeof d->err, "%s has no function %s", d->soname,
			         d->names[i]);
			dlclose(h);
			return -1;
		}
		/* POSIX: a function pointer has an object pointer's size and
		 * representation; memcpy keeps the member's own type */
		memcpy((char *)d->table + i * sizeof p, &p, sizeof p);
	}
	return 0; /* the handle stays open for the process's life */
}

void *dynlib_get(struct dynlib *d, char *err, size_t cap)
{
	void *t = atomic_load_explicit(&d->ready, memory_order_acquire);
	if (t)
		return t;
	pthread_mutex_lock(&d->lock);
	if (!d->tried) {
		d->tried = 1;
		if (dynlib_open(d) == 0)
			atomic_store_explicit(&d->ready, d->table, memory_order_release);
	}
	t = atomic_load_explicit(&d->ready, memory_order_relaxed);
	if (!t && err && cap)
		snprintf(err, cap, "%s", d->err);
	pthread_mutex_unlock(&d->lock);
	return t;
}

void *dynlib_need_slow(struct dynlib *d)
{
	char err[256];
	void *t = dynlib_get(d, err, sizeof err);
	if (!t) {
		fprintf(stderr, "parity: %s (install the package that provides it)\n", err);
		_exit(70); /* not exit(): other threads may be running */
	}
	return t;
}
