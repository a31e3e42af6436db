/* test_views_noise.c - srv_noise_page_load (views room, issue 26): what the
 * page, chart and PDF of a noise comparison read.  Three member logs and a
 * candidate go in through the ingest room's sink; the noise result is
 * computed from the same text and stored (store_noise_result_put, as the
 * job does); the load gives the rebuilt result and each member's values
 * per metric and step exactly as logged (a step one member lacks is not
 * one of the result's); a two-run comparison loads with no noise result.  Links the
 * views room (and ingest for the uploads) only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ingest.h"
#include "srvtest.h"
#include "trainpolicy.h"
#include "views.h"

#define STEPS 30

/* Member i's log text into b: loss 2 - 0.01 s + its noise; member 3 (i 2)
 * has no step 7, which then is not compared. */
static void log_text(struct buf *b, int i, double shift)
{
	for (long s = 1; s <= STEPS; s++) {
		if (i == 2 && s == 7)
			continue;
		double v = 2.0 - 0.01 * (double)s + 1e-3 * sin((double)(i * 5 + s)) + shift;
		buf_printf(b, "step: %ld  loss: %8.5f  grad_norm:  1.0000\n", s, v);
	}
}

static int64_t upload(struct srvtest *t, const struct buf *b)
{
	struct srv_capture c;
	memset(&c, 0, sizeof c);
	const char *const q[] = {"name", "m", NULL};
	srvtest_upload(t, q, b->data, b->len, 4096, NULL, &c);
	CHECK_INT(c.status, 201);
	json_t *j = srvtest_json(&c);
	int64_t id = (int64_t)json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	srv_capture_reset(&c);
	return id;
}

int main(void)
{
	struct srvtest t;
	CHECK(srvtest_open(&t, NULL) == 0);
	CHECK(srvtest_ingest_dirs(&t) == 0);
	struct buf text[4];
	struct matcher_trainrun *runs[4] = {0};
	int64_t ids[4];
	for (int i = 0; i < 4; i++) {
		struct matcher_error err;
		buf_init(&text[i]);
		log_text(&text[i], i, i == 3 ? 2e-4 : 0);
		ids[i] = upload(&t, &text[i]);
		CHECK_INT(matcher_trainrun_parse_buffer(text[i].data, text[i].len, NULL, 0,
		                                        &runs[i], &err),
		          0);
	}
	struct store *db = srv_db_acquire(&t.srv);
	CHECK(db != NULL);
	struct matcher_train_policy pol;
	struct buf ptext = BUF_INIT;
	CHECK_INT(matcher_train_policy_preset(&pol, "noise"), 0);
	CHECK_INT(matcher_train_policy_format(&pol, &ptext), 0);
	int64_t id = 0, two = 0;
	CHECK_INT(
	        store_comparison_create(db, ids[0], ids[3], "training", "", ptext.data, NULL, &id),
	        0);
	CHECK_INT(store_comparison_set_put(db, id, ids, 3), 0);
	struct matcher_noise_result *res = NULL;
	CHECK_INT(matcher_noise_check((const struct matcher_trainrun *const *)runs, 3, runs[3],
	                              &pol, &res),
	          0);
	CHECK(res != NULL);
	CHECK_INT(store_noise_result_put(db, id, res), 0);
	CHECK_INT(store_comparison_finish(db, id, "done", "pass", NULL, NULL), 0);

	struct srv_noise_page p;
	CHECK_INT(srv_noise_page_load(db, id, &p), 0);
	CHECK(p.view.cmp.noise != NULL);
	CHECK_INT(p.k, 3);
	if (p.view.cmp.noise && res) {
		const struct matcher_noise_result *r = p.view.cmp.noise;
		CHECK_INT(r->n_steps, res->n_steps);
		CHECK_STR(r->metrics[0].name, "loss");
		CHECK(srv_noise_page_member(&p, 3, 0) == NULL);
		int ok = 1, has7 = 0;
		for (size_t i = 0; i < r->n_steps; i++)
			has7 |= r->steps[i] == 7;
		CHECK_INT(has7, 0);
		for (size_t j = 0; j < 3; j++) {
			const double *v = srv_noise_page_member(&p, j, 0);
			for (size_t i = 0; v && i < r->n_steps; i++) {
				long s = r->steps[i];
				double want = 2.0 - 0.01 * (double)s +
				              1e-3 * sin((double)((int)j * 5 + s));
				ok &= fabs(v[i] - want) < 6e-6; /* printed with 5 decimals */
			}
			ok &= v != NULL;
		}
		CHECK(ok);
	}
	srv_noise_page_free(&p);

	/* a two-run comparison: no noise result, nothing loaded */
	CHECK_INT(
	        store_comparison_create(db, ids[0], ids[3], "training", "", ptext.data, NULL, &two),
	        0);
	CHECK_INT(srv_noise_page_load(db, two, &p), 0);
	CHECK(p.view.cmp.noise == NULL && p.k == 0);
	srv_noise_page_free(&p);
	CHECK_INT(srv_noise_page_load(db, 99999, &p), STORE_NOT_FOUND);
	srv_noise_page_free(&p);

	srv_db_release(&t.srv, db);
	matcher_noise_result_free(res);
	for (int i = 0; i < 4; i++) {
		matcher_trainrun_free(runs[i]);
		buf_reset(&text[i]);
	}
	buf_reset(&ptext);
	srvtest_close(&t);
	return check_report();
}
