/* test_ui_pages.c - the ui room's pages driven without libmicrohttpd
 * (srvtest.h): a run whose name is markup is shown escaped on its page and
 * in the run list, missing runs are HTML 404 pages, the delete
 * confirmation names the run, assets are cacheable.  Links the ui room
 * (and the rooms below it) only. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "ingest.h"
#include "ui.h"
#include "srvtest.h"

#define XSS "<script>alert(1)</script>"

int main(void)
{
	struct srvtest t;
	struct srv_capture c;
	memset(&c, 0, sizeof c);
	CHECK(srvtest_open(&t, NULL) == 0);
	CHECK(srvtest_ingest_dirs(&t) == 0);
	size_t n = 0;
	char *log = check_slurp(PARITY_TESTS_DIR "/data/train/q1_a.log", &n);
	CHECK(log && n > 1000);
	const char *const q[] = {"name", XSS, NULL};
	srvtest_upload(&t, q, log, n, 4096, NULL, &c);
	CHECK_INT(c.status, 201);
	json_t *run = srvtest_json(&c);
	long long id = (long long)json_integer_value(json_object_get(run, "id"));
	CHECK(id > 0);
	json_decref(run);

	/* the run's page: HTML with the page CSP, the name escaped */
	srvtest_call(&t, srv_ui_run, "GET", "/ui/runs/1", id, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK(strncmp(srv_capture_header(&c, "Content-Type"), "text/html", 9) == 0);
	CHECK(srv_capture_header(&c, "Content-Security-Policy") != NULL);
	CHECK(srvtest_body_has(&c, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(!srvtest_body_has(&c, XSS));
	/* the run list and the home page */
	srvtest_call(&t, srv_ui_runs, "GET", "/ui/runs", -1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK(srvtest_body_has(&c, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(!srvtest_body_has(&c, XSS));
	srvtest_call(&t, srv_ui_home, "GET", "/", -1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK(!srvtest_body_has(&c, XSS));
	/* a filter that matches nothing, one that matches */
	const char *const q_none[] = {"q", "no-such-run", NULL};
	srvtest_call(&t, srv_ui_runs, "GET", "/ui/runs", -1, q_none, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK(!srvtest_body_has(&c, "&lt;script&gt;alert(1)"));
	const char *const q_some[] = {"q", "alert", NULL};
	srvtest_call(&t, srv_ui_runs, "GET", "/ui/runs", -1, q_some, NULL, NULL, &c);
	CHECK(srvtest_body_has(&c, "&lt;script&gt;alert(1)"));

	/* missing things are HTML pages with their status */
	srvtest_call(&t, srv_ui_run, "GET", "/ui/runs/999", 999, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);
	CHECK(strncmp(srv_capture_header(&c, "Content-Type"), "text/html", 9) == 0);
	srvtest_call(&t, srv_ui_comparison, "GET", "/ui/comparisons/5", 5, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);

	/* the delete confirmation names the run (escaped) and posts to itself */
	srvtest_call(&t, srv_ui_run_delete_page, "GET", "/ui/runs/1/delete", id, NULL, NULL, NULL,
	             &c);
	CHECK_INT(c.status, 200);
	CHECK(srvtest_body_has(&c, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	CHECK(srvtest_body_has(&c, "method=\"post\""));

	/* an embedded asset: cacheable, typed; an unknown one is 404 */
	srvtest_call(&t, srv_ui_asset, "GET", "/assets/parity.css", -1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 200);
	CHECK(strncmp(srv_capture_header(&c, "Content-Type"), "text/css", 8) == 0);
	CHECK_STR(srv_capture_header(&c, "Cache-Control"), "public, max-age=300");
	CHECK(c.body.len > 100);
	srvtest_call(&t, srv_ui_asset, "GET", "/assets/nope.css", -1, NULL, NULL, NULL, &c);
	CHECK_INT(c.status, 404);

	free(log);
	srv_capture_reset(&c);
	srvtest_close(&t);
	return check_report();
}
