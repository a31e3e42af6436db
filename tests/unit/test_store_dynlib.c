/* test_store_dynlib.c - the library tables of store/dynlib.h on zlib (a
 * library parity links anyway): a table loads once and its calls reach
 * the library; a missing library or function gives NULL and a message
 * naming it, is not retried, and leaves the table unloaded; dynlib_need
 * on a library that cannot load ends the process with status 70 and the
 * message; and parity itself links none of the libraries it loads at
 * their first use. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "dynlib.h"

#define Z_FUNCS(X) X(zlibVersion) X(crc32)
DYNLIB_DECLARE(z, Z_FUNCS)
DYNLIB_DEFINE(z, Z_FUNCS, "libz.so.1");
DYNLIB_DECLARE(gone, Z_FUNCS)
DYNLIB_DEFINE(gone, Z_FUNCS, "libparity-no-such-library.so.9");
DYNLIB_DECLARE(gone2, Z_FUNCS)
DYNLIB_DEFINE(gone2, Z_FUNCS, "libparity-no-such-library.so.9");
#define BAD_FUNCS(X) X(zlibVersion) X(parity_no_such_function)
static int parity_no_such_function(void)
{
	return 0;
}
DYNLIB_DECLARE(bad, BAD_FUNCS)
DYNLIB_DEFINE(bad, BAD_FUNCS, "libz.so.1");

static void test_loads(void)
{
	char err[256] = "";
	const struct z *z = z_get(err, sizeof err);
	CHECK(z != NULL);
	if (!z)
		return;
	CHECK_STR(z->zlibVersion(), zlibVersion());
	const unsigned char abc[] = "abc";
	CHECK_INT((long)z->crc32(0, abc, 3), (long)crc32(0, abc, 3));
	CHECK(dynlib_get(&z_lib, NULL, 0) == z); /* once */
	CHECK(dynlib_need(&z_lib) == z);
}

static void test_missing(void)
{
	(void)parity_no_such_function;
	char err[256] = "";
	CHECK(dynlib_get(&gone_lib, err, sizeof err) == NULL);
	CHECK(strstr(err, "libparity-no-such-library.so.9") != NULL);
	err[0] = 0;
	CHECK(dynlib_get(&gone_lib, err, sizeof err) == NULL); /* the same answer */
	CHECK(strstr(err, "cannot load") != NULL);
	CHECK(dynlib_get(&bad_lib, err, sizeof err) == NULL);
	CHECK(strstr(err, "parity_no_such_function") != NULL);
	CHECK(atomic_load(&bad_lib.ready) == NULL); /* no half-filled table */
}

static void test_need_ends_process(void)
{
	int fd[2];
	CHECK(pipe(fd) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], 2);
		dynlib_need(&gone2_lib);
		_exit(0); /* not reached */
	}
	close(fd[1]);
	char msg[512] = "";
	ssize_t n = read(fd[0], msg, sizeof msg - 1);
	msg[n > 0 ? n : 0] = 0;
	close(fd[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 70);
	CHECK(strstr(msg, "libparity-no-such-library.so.9") != NULL);
}

/* The optional libraries are not DT_NEEDED by the parity binary
 * (PARITY_BIN, set by CTest): readelf would show them otherwise. */
static void test_binary_links_none(void)
{
	const char *bin = getenv("PARITY_BIN");
	if (!bin)
		return;
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "readelf -d '%s'", bin);
	FILE *p = popen(cmd, "r");
	CHECK(p != NULL);
	if (!p)
		return;
	char line[512];
	int needed = 0, optional = 0;
	while (fgets(line, sizeof line, p)) {
		if (!strstr(line, "(NEEDED)"))
			continue;
		needed++;
		if (strstr(line, "cairo") || strstr(line, "pango") || strstr(line, "glib") ||
		    strstr(line, "libpq") || strstr(line, "libcurl") || strstr(line, "libcrypto") ||
		    strstr(line, "libmicrohttpd"))
			optional++, fprintf(stderr, "linked: %s", line);
	}
	CHECK(pclose(p) == 0);
	CHECK(needed > 0);
	CHECK_INT(optional, 0);
}

int main(void)
{
	test_loads();
	test_missing();
	test_need_ends_process();
	test_binary_links_none();
	return check_report();
}
