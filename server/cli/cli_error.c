/* cli_error.c - the offline commands' error path: a message goes to stderr
 * and is kept, so that with --format json the command can still print its
 * one JSON document on stdout (verdict error, the message as its reason).
 * Single-threaded CLI use only (one process-wide last message). */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "buf.h"
#include "verdict.h"
#include "cli.h"

static char last_error[512];

void srv_cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof last_error, fmt, ap);
	va_end(ap);
	size_t n = strlen(last_error);
	while (n && last_error[n - 1] == '\n')
		last_error[--n] = 0;
}

const char *srv_cli_last_error(void)
{
	return last_error[0] ? last_error : "the comparison could not be made";
}

int srv_cli_wants_json(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format=json"))
			return 1;
		if (!strcmp(argv[i], "--format") && i + 1 < argc && !strcmp(argv[i + 1], "json"))
			return 1;
	}
	return 0;
}

int srv_cli_json_error(const char *kind, const char *code, const char *side, const char *message)
{
	json_t *reason = json_pack("{s:s, s:s}", "code", code, "message", message);
	json_t *doc = json_pack("{s:o, s:s, s:[o]}", "kind", kind ? json_string(kind) : json_null(),
	                        "verdict", "error", "reasons", reason);
	if (!doc)
		return -1;
	if (side)
		json_object_set_new(reason, "side", json_string(side));
	int rc = json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	fputc('\n', stdout);
	json_decref(doc);
	return rc;
}

void srv_cli_spill(struct buf *b, int all)
{
	if (b->len && (all || b->len >= 1 << 16)) {
		fwrite(b->data, 1, b->len, stdout);
		buf_clear(b);
	}
}

int srv_cli_verdict_exit(int verdict)
{
	return verdict == MATCHER_VERDICT_PASS ? 0 : verdict == MATCHER_VERDICT_FAIL ? 1 : 2;
}
