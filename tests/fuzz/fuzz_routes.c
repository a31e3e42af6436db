/* fuzz_routes.c - libFuzzer target for the daemon's route matcher
 * (server/http/router.c srv_route_find and srv_route_allow over the table
 * of server/routes.c), called directly on a zeroed struct srv_req whose
 * struct srv holds only the table: no daemon, no sockets, no database.
 *
 * Input: byte 0 picks the method from a small table (the real ones, HEAD,
 * two that no route uses, and an empty string), byte 1 the capacity of the
 * Allow buffer (1..64), the rest up to a NUL is the path.  Checks: the
 * result is 0, 404 or 405; a 0 sets a route whose method is the one asked
 * (GET for HEAD) and whose {id}/{n} parameters are non-negative exactly
 * when the pattern has them; 405 and the Allow list agree (non-empty for
 * 405, empty for 404); the Allow text always fits its buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "http.h"
#include "serve.h"

static const char *const methods[] = {
        "GET", "POST", "DELETE", "HEAD", "PUT", "OPTIONS", "",
};
#define N_METHODS (sizeof methods / sizeof methods[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct srv srv;
	struct srv_req req;
	const char *method;
	char *path;
	char allow[64 + 16];
	size_t cap, n;
	int rc;

	if (size < 2)
		return 0;
	method = methods[data[0] % N_METHODS];
	cap = (size_t)(data[1] % 64) + 1;
	n = size - 2;
	path = malloc(n + 1);
	FUZZ_CHECK(path != NULL);
	memcpy(path, data + 2, n);
	path[n] = 0;

	memset(&srv, 0, sizeof srv);
	srv.routes = srv_routes();
	memset(&req, 0, sizeof req);
	req.srv = &srv;
	req.id = req.n = -7;
	rc = srv_route_find(&req, method, path);
	FUZZ_CHECK(rc == 0 || rc == 404 || rc == 405);
	if (rc == 0) {
		const char *want = strcmp(method, "HEAD") == 0 ? "GET" : method;

		FUZZ_CHECK(req.route != NULL && req.route->pattern != NULL);
		FUZZ_CHECK(strcmp(req.route->method, want) == 0);
		FUZZ_CHECK(req.route->handler != NULL);
		FUZZ_CHECK((strstr(req.route->pattern, "{id}") != NULL) == (req.id >= 0));
		FUZZ_CHECK((strstr(req.route->pattern, "{n}") != NULL) == (req.n >= 0));
	} else {
		FUZZ_CHECK(req.route == NULL);
	}

	/* guard bytes past cap must survive */
	memset(allow, 0x5a, sizeof allow);
	srv_route_allow(&srv, path, allow, cap);
	FUZZ_CHECK(memchr(allow, 0, cap) != NULL);
	for (size_t i = cap; i < sizeof allow; i++)
		FUZZ_CHECK(allow[i] == 0x5a);
	if (rc == 404)
		FUZZ_CHECK(allow[0] == 0);
	else
		FUZZ_CHECK(cap < 4 || allow[0] != 0);
	free(path);
	return 0;
}
