/* test_matcher_trainpolicy.c - resolving a training policy from its
 * request form (matcher/trainpolicy.h) without JSON: presets, what makes
 * a policy custom, thresholds in policy and request form, the default
 * threshold of an added metric, ranges, and that the first error in the
 * fixed field order is the one reported. */
#include <math.h>
#include <string.h>

#include "buf.h"
#include "check.h"
#include "trainpolicy.h"

static const struct matcher_train_th_spec *th1(const char *m, enum matcher_spec_state as, double a,
                                               enum matcher_spec_state rs, double r)
{
	static struct matcher_train_th_spec t;
	t = (struct matcher_train_th_spec){m, as, rs, a, r};
	return &t;
}

int main(void)
{
	struct matcher_train_policy p;
	struct matcher_train_policy_spec s;
	struct matcher_train_request rq;
	char msg[200];

	/* none: premerge; a name: that preset */
	memset(&s, 0, sizeof s);
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "premerge");
	s = (struct matcher_train_policy_spec){.given = 1, .is_name = 1, .name = "bitwise"};
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "bitwise");
	s.name = "nope";
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "unknown training policy 'nope' (premerge, bitwise, megatron)");
	s = (struct matcher_train_policy_spec){.given = 1};
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "policy must be a name or an object");

	/* an object: custom from base, a threshold with rel only keeps abs */
	s = (struct matcher_train_policy_spec){
	        .given = 1, .is_object = 1, .name = "custom", .base = "bitwise"};
	s.thresholds = (struct matcher_train_ths){
	        1, th1("loss", MATCHER_SPEC_ABSENT, 0, MATCHER_SPEC_SET, 0.5), 1};
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "custom");
	CHECK_STR(p.base, "bitwise");
	CHECK(p.th[0].abs == 0 && p.th[0].has_rel && p.th[0].rel == 0.5);
	/* a stored preset read back keeps its name; min_steps 1 stays it */
	const char *const pm[] = {"loss", "grad_norm"}, *const il[] = {"grad_norm"};
	s = (struct matcher_train_policy_spec){.given = 1, .is_object = 1, .name = "premerge"};
	s.metrics = (struct matcher_train_names){1, pm, 2};
	s.if_logged = (struct matcher_train_names){1, il, 1};
	s.s.min_steps_state = MATCHER_SPEC_SET;
	s.s.min_steps = 1;
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "premerge");
	s.s.min_steps = 3;
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "custom");
	CHECK_INT(p.min_steps, 3);

	/* the first error in field order wins: metrics before thresholds */
	const char *const bad[] = {NULL};
	s = (struct matcher_train_policy_spec){.given = 1, .is_object = 1};
	s.metrics = (struct matcher_train_names){1, bad, 1};
	s.thresholds = (struct matcher_train_ths){1, NULL, 0};
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "metrics must be an array of metric names");
	s.metrics.given = 0;
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "thresholds must be an object of metric: {abs, rel}");
	s.thresholds.given = 0;
	s.s.rank_state = MATCHER_SPEC_SET;
	s.s.rank = 1000001;
	CHECK_INT(matcher_train_policy_resolve(&s, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "rank must be a non-negative integer");

	/* a request: bitwise plus an extra metric (threshold 0) and a request
	 * threshold without abs (the preset's default, 0) */
	memset(&rq, 0, sizeof rq);
	rq.policy = (struct matcher_train_policy_spec){.given = 1, .is_name = 1, .name = "bitwise"};
	const char *const extra[] = {"tps"};
	rq.extra_metrics = (struct matcher_train_names){1, extra, 1};
	rq.thresholds = (struct matcher_train_ths){
	        1, th1("mfu", MATCHER_SPEC_ABSENT, 0, MATCHER_SPEC_ABSENT, 0), 1};
	rq.s.allow_warnings_state = MATCHER_SPEC_SET;
	rq.s.allow_warnings = 0; /* unchanged: stays bitwise */
	CHECK_INT(matcher_train_request_resolve(&rq, &p, msg, sizeof msg), 0);
	CHECK_STR(p.name, "custom");
	size_t n = p.n_th;
	CHECK(n >= 3 && !strcmp(p.th[n - 2].metric, "tps") && p.th[n - 2].abs == 0);
	CHECK(!strcmp(p.th[n - 1].metric, "mfu") && p.th[n - 1].abs == 0);
	/* a request threshold that is not a number: a bad threshold */
	rq.thresholds = (struct matcher_train_ths){
	        1, th1("loss", MATCHER_SPEC_BAD, 0, MATCHER_SPEC_ABSENT, 0), 1};
	CHECK_INT(matcher_train_request_resolve(&rq, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "bad threshold for 'loss' (a non-negative number)");
	/* request rank null is bad (a policy's is absent) */
	memset(&rq, 0, sizeof rq);
	rq.s.rank_state = MATCHER_SPEC_BAD;
	CHECK_INT(matcher_train_request_resolve(&rq, &p, msg, sizeof msg), -1);
	CHECK_STR(msg, "rank must be a non-negative integer");
	rq.s.rank_state = MATCHER_SPEC_SET;
	rq.s.rank = 4;
	CHECK_INT(matcher_train_request_resolve(&rq, &p, msg, sizeof msg), 0);
	CHECK_INT(p.rank, 4);
	CHECK_STR(p.name, "premerge");

	/* the stored form reads back exactly, odd names and values included */
	struct matcher_train_policy q, w;
	struct buf b = BUF_INIT;
	CHECK_INT(matcher_train_policy_preset(&q, "bitwise"), 0);
	CHECK_INT(matcher_train_policy_set(&q, "a b%\nc", INFINITY, 1e-300, 1), 0);
	CHECK_INT(matcher_train_policy_set(&q, "validation/loss", 0.1, 0, 0), 0);
	CHECK_INT(matcher_train_policy_if_logged(&q, "validation/loss"), 0);
	q.min_steps = 7;
	q.allow_warnings = 1;
	q.rank = 3;
	CHECK_INT(matcher_train_policy_format(&q, &b), 0);
	CHECK(matcher_train_policy_is_text(b.data));
	CHECK(strstr(b.data, "th a%20b%25%0Ac inf 0x") != NULL);
	CHECK_INT(matcher_train_policy_parse(b.data, &w), 0);
	CHECK_STR(w.name, q.name);
	CHECK_STR(w.base, q.base);
	CHECK_INT(w.min_steps, 7);
	CHECK_INT(w.allow_warnings, 1);
	CHECK_INT(w.rank, 3);
	CHECK_INT(w.n_th, q.n_th);
	for (size_t i = 0; i < q.n_th && i < w.n_th; i++) {
		CHECK_STR(w.th[i].metric, q.th[i].metric);
		CHECK(w.th[i].abs == q.th[i].abs && w.th[i].has_rel == q.th[i].has_rel &&
		      (!q.th[i].has_rel || w.th[i].rel == q.th[i].rel) &&
		      w.th[i].if_logged == q.th[i].if_logged);
	}
	/* the noise policy keeps its parameters; other presets write none */
	CHECK(strstr(b.data, "\nnoise ") == NULL);
	buf_clear(&b);
	CHECK_INT(matcher_train_policy_preset(&q, "noise"), 0);
	CHECK_STR(q.name, "noise");
	CHECK(q.noise.alpha_step == 0.001 && q.noise.alpha_run == 0.01 && q.noise.min_runs == 2);
	q.noise.alpha_step = 0.0005;
	q.noise.alpha_run = 0.05;
	q.noise.min_runs = 4;
	CHECK(matcher_train_policy_is_noise(&q));
	CHECK_INT(matcher_train_policy_format(&q, &b), 0);
	CHECK(strstr(b.data, "\nnoise 0x") != NULL);
	CHECK_INT(matcher_train_policy_parse(b.data, &w), 0);
	CHECK_STR(w.name, "noise");
	CHECK(w.noise.alpha_step == 0.0005 && w.noise.alpha_run == 0.05 && w.noise.min_runs == 4);
	CHECK_INT(w.n_th, 2);
	CHECK(!matcher_train_policy_is_noise(&(struct matcher_train_policy){.name = "premerge"}));
	/* not a stored form, or a broken one: -1 and premerge */
	static const char *const broken[] = {
	        NULL,
	        "",
	        "{\"name\":\"premerge\"}",
	        "parity-train-policy 1\n",
	        "parity-train-policy 1\nname x\nbase y\nmin_steps 1\nallow_warnings 0\n",
	        "parity-train-policy 1\nname x\nbase y\nmin_steps 1\nallow_warnings 0\nrank "
	        "-1\nth loss 0x1p-17",
	        "parity-train-policy 1\nname x%G0\nbase y\nmin_steps 1\nallow_warnings "
	        "0\nrank -1\n",
	        "parity-train-policy 1\nname noise\nbase noise\nmin_steps 1\nallow_warnings "
	        "0\nrank -1\nnoise 0x1p-10 0x1p-7\n"};
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		CHECK_INT(matcher_train_policy_parse(broken[i], &w), -1);
		CHECK_STR(w.name, "premerge");
	}
	buf_reset(&b);
	return check_report();
}
