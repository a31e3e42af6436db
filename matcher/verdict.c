/* verdict.c - verdict names and combination (see verdict.h). */
#include "verdict.h"

const char *matcher_verdict_name(enum matcher_verdict v)
{
	switch (v) {
	case MATCHER_VERDICT_PASS: return "pass";
	case MATCHER_VERDICT_FAIL: return "fail";
	default: return "error";
	}
}

enum matcher_verdict matcher_verdict_worst(enum matcher_verdict a, enum matcher_verdict b)
{
	return a > b ? a : b;
}
