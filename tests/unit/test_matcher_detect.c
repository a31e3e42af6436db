/* test_matcher_detect.c - matcher_detect_kind: the activation and training
 * fixtures, generated logs (legacy, no colour, no rank prefix), ANSI
 * colours (real and rendered as U+241B), BOM, CRLF, validation-only lines
 * and garbage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trainlog.h"

static enum matcher_kind detect_str(const char *s)
{
	return matcher_detect_kind(s, strlen(s));
}

static void detect_file(const char *rel, enum matcher_kind want)
{
	char path[512];
	size_t n = 0;
	char *data = check_slurp(check_testfile(rel, path, sizeof path), &n);
	CHECK(data != NULL);
	if (!data)
		return;
	enum matcher_kind got = matcher_detect_kind(data, n);
	CHECK_STR(matcher_kind_name(got), matcher_kind_name(want));
	/* the first 64 KiB (what the server passes) is enough */
	if (n > 65536)
		CHECK_INT(matcher_detect_kind(data, 65536), want);
	free(data);
}

static void test_fixtures(void)
{
	static const char *const act[] = {"p1_a", "p1_b", "p2_a", "p2_b",
	                                  "p3_a", "p3_b", "p4_a", "p4_b"};
	static const char *const train[] = {"q1_a", "q1_b", "q2_a", "q2_b",
	                                    "q3_a", "q3_b", "q4_a", "q4_b"};
	char rel[64];
	for (size_t i = 0; i < 8; i++) {
		snprintf(rel, sizeof rel, "data/match/%s.log", act[i]);
		detect_file(rel, MATCHER_KIND_ACTIVATION);
		snprintf(rel, sizeof rel, "data/train/%s.log", train[i]);
		detect_file(rel, MATCHER_KIND_TRAINING);
	}
	detect_file("data/match/p4_overrides.csv", MATCHER_KIND_UNKNOWN);
	detect_file("data/README.md", MATCHER_KIND_UNKNOWN);
}

static void test_generated(void)
{
	if (system("python3 -c '' >/dev/null 2>&1") != 0) {
		fprintf(stderr, "FAIL: python3 is missing: the generated-log detection needs it\n");
		CHECK(0);
		return;
	}
	char dir[] = "/tmp/test_detect_......";
	memset(dir + sizeof dir - 7, 'X', 6); /* mkdtemp template */
	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	char tools[512], cmd[2048], path[600];
	check_testfile("tools", tools, sizeof tools);
	static const struct {
		const char *args;
		enum matcher_kind kind;
	} gens[] = {
	        {"gen_actlog.py --layers 1", MATCHER_KIND_ACTIVATION},
	        {"gen_actlog.py --layers 1 --legacy", MATCHER_KIND_ACTIVATION},
	        {"gen_trainlog.py --steps 20", MATCHER_KIND_TRAINING},
	        {"gen_trainlog.py --steps 20 --no-color", MATCHER_KIND_TRAINING},
	        {"gen_trainlog.py --steps 20 --no-rank-prefix", MATCHER_KIND_TRAINING},
	        {"gen_trainlog.py --steps 20 --scenario crash --at 3", MATCHER_KIND_TRAINING},
	};
	for (size_t i = 0; i < sizeof gens / sizeof gens[0]; i++) {
		snprintf(cmd, sizeof cmd, "python3 '%s'/%s --out-a '%s/a.log' --out-b '%s/b.log'",
		         tools, gens[i].args, dir, dir);
		int rc = system(cmd);
		CHECK_INT(rc, 0);
		if (rc)
			continue;
		for (int side = 0; side < 2; side++) {
			snprintf(path, sizeof path, "%s/%c.log", dir, side ? 'b' : 'a');
			size_t n = 0;
			char *data = check_slurp(path, &n);
			CHECK(data != NULL);
			if (!data)
				continue;
			CHECK_INT(matcher_detect_kind(data, n < 65536 ? n : 65536), gens[i].kind);
			free(data);
		}
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void test_training_lines(void)
{
	/* colours as escape bytes */
	CHECK_INT(detect_str("[rank0]:[titan] 2026-11-29 10:00:02,731 - root - INFO - "
	                     "\x1b[31mstep:  1  \x1b[32mloss: 11.09833  "
	                     "\x1b[38;2;180;60;0mgrad_norm:  4.9806\x1b[39m\n"),
	          MATCHER_KIND_TRAINING);
	/* colours rendered as U+241B "␛[" by a viewer */
	CHECK_INT(detect_str("\xE2\x90\x9B[31mstep:  1  \xE2\x90\x9B[32mloss: 11.09\n"),
	          MATCHER_KIND_TRAINING);
	/* escape directly glued to the token: step: only visible once cleaned */
	CHECK_INT(detect_str("-\x1b[31mstep:1 \x1b[0mloss:2"), MATCHER_KIND_TRAINING);
	/* plain, BOM, CRLF */
	CHECK_INT(detect_str("step: 1  loss: 2.5\n"), MATCHER_KIND_TRAINING);
	CHECK_INT(detect_str("\xEF\xBB\xBFstep: 1  loss: 2.5\r\n"), MATCHER_KIND_TRAINING);
	CHECK_INT(detect_str("chatter\r\nmore chatter\r\n[rank1]: step: 3 loss: 1\r\n"),
	          MATCHER_KIND_TRAINING);
	/* validation lines alone do not make a training log */
	CHECK_INT(detect_str("validate step: 10  loss: 2.5\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("validate  step: 10  loss: 2.5\nvalidate step: 20 loss: 2\n"),
	          MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("validate step: 10  loss: 2.5\nstep: 11 loss: 2\n"),
	          MATCHER_KIND_TRAINING);
	/* both tokens are needed, as tokens */
	CHECK_INT(detect_str("step: 1 grad_norm: 2\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("loss: 1\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("substep: 1 val_loss: 2\n"), MATCHER_KIND_UNKNOWN);
	/* a line without a newline (truncated sample) still counts */
	CHECK_INT(detect_str("boot\nstep: 1  loss: 9"), MATCHER_KIND_TRAINING);
}

static void test_activation_lines(void)
{
	CHECK_INT(detect_str("Total captured activations: 3\n"), MATCHER_KIND_ACTIVATION);
	CHECK_INT(detect_str("\xEF\xBB\xBFTotal captured activations: 3\r\n"),
	          MATCHER_KIND_ACTIVATION);
	CHECK_INT(detect_str("Excluded ops dispatched: (none)\n"), MATCHER_KIND_ACTIVATION);
	/* headerless: an op key followed by an indented field line */
	CHECK_INT(detect_str("[m.layers.0/op_0_mm]\n  Shape: torch.Size([2])\n"),
	          MATCHER_KIND_ACTIVATION);
	CHECK_INT(detect_str("\r\n[<none>/op_0__fused_adamw_]\r\n\r\n"
	                     "\t Input hashes: 1.0, 2.0\r\n"),
	          MATCHER_KIND_ACTIVATION);
	CHECK_INT(detect_str("[m/op_0_mm]\n  L1 norm:  1.0\n"), MATCHER_KIND_ACTIVATION);
	/* a key line alone, an unindented field, or no /op_ are not enough */
	CHECK_INT(detect_str("[m/op_0_mm]\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("[m/op_0_mm]\nShape: x\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("[m.layers.0]\n  Shape: x\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("[m/op_0_mm]\n  Dtype: x\n"), MATCHER_KIND_UNKNOWN);
	/* the first evidence decides */
	CHECK_INT(detect_str("Total captured activations: 1\nstep: 1 loss: 2\n"),
	          MATCHER_KIND_ACTIVATION);
	CHECK_INT(detect_str("step: 1 loss: 2\nTotal captured activations: 1\n"),
	          MATCHER_KIND_TRAINING);
}

static void test_garbage(void)
{
	static const char bin[] = "\x00\x01\x02\xff\xfe\n\x1b\x1b[\n\xE2\x90";
	CHECK_INT(matcher_detect_kind(bin, sizeof bin - 1), MATCHER_KIND_UNKNOWN);
	CHECK_INT(matcher_detect_kind("", 0), MATCHER_KIND_UNKNOWN);
	CHECK_INT(matcher_detect_kind(NULL, 0), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("hello world\n\n\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("{\"json\": true}\n"), MATCHER_KIND_UNKNOWN);
	CHECK_INT(detect_str("\x1b[31m\x1b["), MATCHER_KIND_UNKNOWN);
	/* a very long line is examined without overflowing anything */
	size_t n = 200000;
	char *big = malloc(n);
	memset(big, 'a', n);
	memcpy(big + n - 20, " step: 1 loss: 2", 16);
	CHECK_INT(matcher_detect_kind(big, n), MATCHER_KIND_UNKNOWN); /* past 4 KiB */
	memcpy(big + 10, " step: 1 loss: 2", 16);
	CHECK_INT(matcher_detect_kind(big, n), MATCHER_KIND_TRAINING);
	free(big);

	CHECK_STR(matcher_kind_name(MATCHER_KIND_ACTIVATION), "activation");
	CHECK_STR(matcher_kind_name(MATCHER_KIND_TRAINING), "training");
	CHECK_STR(matcher_kind_name(MATCHER_KIND_UNKNOWN), "unknown");
	CHECK_STR(matcher_kind_name((enum matcher_kind)42), "unknown");
}

int main(void)
{
	test_fixtures();
	test_generated();
	test_training_lines();
	test_activation_lines();
	test_garbage();
	return check_report();
}
