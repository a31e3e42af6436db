/* test_api_runs.c - the run resources of the api room driven without
 * libmicrohttpd (srvtest.h): POST /runs through the ingest room's body
 * sink, then GET /runs/{id}, GET /runs, the raw log download, the ops,
 * DELETE; refused uploads store nothing.  Links the api room (and the
 * rooms below it) only. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api.h"
#include "check.h"
#include "ingest.h"
#include "srvtest.h"

static long long run_count(struct srvtest *t, struct srv_capture *c)
{
	srvtest_call(t, srv_h_runs_list, "GET", "/runs", -1, NULL, NULL, NULL, c);
	json_t *j = srvtest_json(c);
	long long n = (long long)json_array_size(json_object_get(j, "runs"));
	json_decref(j);
	return n;
}

int main(void)
{
	struct srvtest t;
	struct srv_capture c;
	memset(&c, 0, sizeof c);
	CHECK(srvtest_open(&t, NULL) == 0);
	CHECK(srvtest_ingest_dirs(&t) == 0);

	size_t n = 0;
	char *log = check_slurp(PARITY_TESTS_DIR "/data/match/p1_a.log", &n);
	CHECK(log && n > 1000);

	/* a refused upload stores nothing: an empty body, a name over the limit */
	const char *const q_empty[] = {"name", "empty", NULL};
	srvtest_upload(&t, q_empty, "", 0, 1, srv_h_runs_create, &c);
	CHECK_INT(c.status, 400);
	char *long_name = malloc(SRV_NAME_MAX + 2);
	memset(long_name, 'n', SRV_NAME_MAX + 1);
	long_name[SRV_NAME_MAX + 1] = 0;
	const char *const q_long[] = {"name", long_name, NULL};
	srvtest_upload(&t, q_long, log, n, 4096, srv_h_runs_create, &c);
	CHECK_INT(c.status, 400);
	CHECK_INT(run_count(&t, &c), 0);

	/* an activation log in odd-sized chunks: 201 with the run */
	const char *const q[] = {"name", "eager <b>", NULL};
	srvtest_upload(&t, q, log, n, 777, srv_h_runs_create, &c);
	CHECK_INT(c.status, 201);
	json_t *run = srvtest_json(&c);
	long long id = (long long)json_integer_value(json_object_get(run, "id"));
	CHECK(id > 0);
	CHECK_STR(json_string_value(json_object_get(run, "name")), "eager <b>");
	CHECK_STR(json_string_value(json_object_get(run, "kind")), "activation");
	char loc[64];
	snprintf(loc, sizeof loc, "/runs/%lld", id);
	CHECK_STR(srv_capture_header(&c, "Location"), loc);
	json_decref(run);

	/* read back, listed, the raw log byte for byte, its ops */
	srvtest_call(&t, srv_h_run_get, "GET", loc, id, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	run = srvtest_json(&c);
	CHECK_STR(json_string_value(json_object_get(run, "name")), "eager <b>");
	json_decref(run);
	CHECK_INT(run_count(&t, &c), 1);
	srvtest_call_n(&t, srv_h_run_log, "GET", "/runs/1/logs/0", id, 0, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK_INT(c.body.len, n);
	CHECK(c.body.data && memcmp(c.body.data, log, n) == 0);
	CHECK_INT(c.broken, 0);
	const char *const q_ops[] = {"limit", "5", NULL};
	srvtest_call(&t, srv_h_run_ops, "GET", "/runs/1/ops", id, q_ops, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	json_t *ops = srvtest_json(&c);
	CHECK_INT(json_array_size(json_object_get(ops, "ops")), 5);
	json_decref(ops);
	/* a rank that does not exist, a run that does not exist */
	srvtest_call_n(&t, srv_h_run_log, "GET", "/runs/1/logs/9", id, 9, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);
	srvtest_call(&t, srv_h_run_get, "GET", "/runs/999", 999, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);

	/* delete: gone, and its raw file with it */
	srvtest_call(&t, srv_h_run_delete, "DELETE", loc, id, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	srvtest_call(&t, srv_h_run_get, "GET", loc, id, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);
	CHECK_INT(run_count(&t, &c), 0);

	free(long_name);
	free(log);
	srv_capture_reset(&c);
	srvtest_close(&t);
	return check_report();
}
