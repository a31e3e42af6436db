/* test_web_train_groups.c - a training result of many series (issue 27,
 * web/train_groups.c): when a result counts as "all common", its first
 * difference (earliest step, then order), the charted series (the failing
 * ones, at most WEB_TRAIN_CHARTS_MAX, once there are more series than
 * that), and the grouped table: one row per layer and tensor with its
 * stats, verdict and first differing iteration, every log text escaped. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "store.h"
#include "web.h"
#include "web_int.h"

#define N 12

static struct matcher_train_metric_result ms[N];
static struct matcher_train_reason rs[2];

/* Series i: layer "L<i/3>" with a tag that needs escaping, tensor
 * activation or gradient, stat max/min/l1_norm; series 4 and 7 fail. */
static void fill(struct store_train_result *r)
{
	static const char *const stats[] = {"max", "min", "l1_norm"};
	memset(r, 0, sizeof *r);
	memset(ms, 0, sizeof ms);
	memset(rs, 0, sizeof rs);
	matcher_train_policy_preset(&r->policy, "premerge");
	for (int i = 0; i < N; i++) {
		snprintf(ms[i].name, sizeof ms[i].name, "m.<b>L%d</b>_%s_%s", i / 6,
		         i % 6 < 3 ? "activation" : "gradient", stats[i % 3]);
		ms[i].pass = i != 4 && i != 7;
	}
	/* series 7 differs first (step 20), series 4 from step 30 */
	rs[0] = (struct matcher_train_reason){
	        .code = "threshold_exceeded", .step = 30, .has_step = 1};
	snprintf(rs[0].metric, sizeof rs[0].metric, "%s", ms[4].name);
	rs[1] = (struct matcher_train_reason){
	        .code = "threshold_exceeded", .step = 20, .has_step = 1};
	snprintf(rs[1].metric, sizeof rs[1].metric, "%s", ms[7].name);
	r->metrics = ms;
	r->n_metrics = N;
	r->reasons = rs;
	r->n_reasons = 2;
	r->verdict = MATCHER_VERDICT_FAIL;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

int main(void)
{
	struct store_train_result r;
	fill(&r);
	CHECK(web_train_all_common(&r) == 1);
	size_t k = 99;
	long step = 0;
	CHECK(web_train_first_diff(&r, &k, &step) == 1);
	CHECK_INT(k, 7);
	CHECK_INT(step, 20);
	/* 12 series > WEB_TRAIN_CHARTS_MAX: only the failing ones are charted */
	for (size_t i = 0; i < N; i++)
		CHECK_INT(web_train_charted(&r, i), i == 4 || i == 7);

	struct buf out = BUF_INIT;
	CHECK(web_train_groups(&out, &r) == 0);
	/* 2 layers x 2 tensors */
	CHECK_INT(count(out.data, "<tr class=\"group"), 4);
	CHECK_INT(count(out.data, "<tr class=\"group fail\">"), 2);
	CHECK(strstr(out.data, "First difference: <code>m.&lt;b&gt;L1&lt;/b&gt;_activation_min"
	                       "</code> at iteration 20") != NULL);
	CHECK(strstr(out.data,
	             "<td>m.&lt;b&gt;L0&lt;/b&gt;</td><td>gradient</td><td><span "
	             "class=\"s-pass\">max</span>, <span class=\"s-fail\">min</span>, "
	             "<span class=\"s-pass\">l1_norm</span></td><td class=\"num\">3</td>") != NULL);
	CHECK(strstr(out.data, "<td class=\"num\">30</td></tr>") != NULL);
	CHECK(strstr(out.data, "<b>") == NULL); /* every log text escaped */
	CHECK(strstr(out.data, "12 series in 4 groups") != NULL);
	buf_reset(&out);

	/* a result of the policy's own metrics is not "all common": every metric
	 * charted */
	r.n_metrics = 0;
	CHECK(web_train_all_common(&r) == 0);
	struct matcher_train_metric_result loss = {.name = "loss", .pass = 0};
	r.metrics = &loss;
	r.n_metrics = 1;
	CHECK(web_train_all_common(&r) == 0);
	CHECK(web_train_charted(&r, 0) == 1);
	/* few series, all common: every one charted */
	fill(&r);
	r.n_metrics = WEB_TRAIN_CHARTS_MAX;
	for (size_t i = 0; i < WEB_TRAIN_CHARTS_MAX; i++)
		CHECK(web_train_charted(&r, i) == 1);
	/* nothing differs: no first difference, the table says so */
	r.n_reasons = 0;
	CHECK(web_train_first_diff(&r, &k, &step) == 0);
	CHECK(web_train_groups(&out, &r) == 0);
	CHECK(strstr(out.data, "No series differs beyond its threshold.") != NULL);
	buf_reset(&out);
	return check_report();
}
