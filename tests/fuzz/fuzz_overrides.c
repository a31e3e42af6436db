/* fuzz_overrides.c - libFuzzer target for the override-file parser
 * (matcher/match.h matcher_overrides_parse).
 *
 * The whole input is the file.  The parser may only fail on OOM, so any
 * input must give 0 and a result whose items obey the contract: both keys
 * present and trimmed, the A key comma-free, not a comment and unique,
 * line numbers inside the file, warnings of the one documented code.
 * When the input holds no NUL byte (keys are C strings, so a NUL would cut
 * them) the result must also survive a round trip: rendering the items as
 * "a, b" lines (once with LF, once with CRLF and a BOM) and parsing that
 * gives the same items and no warning. */
#include <stdio.h>
#include <string.h>

#include "fuzz_common.h"
#include "match.h"

static int is_trim_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void check_trimmed(const char *s)
{
	size_t n = strlen(s);

	FUZZ_CHECK(memchr(s, '\n', n) == NULL);
	if (n == 0)
		return;
	FUZZ_CHECK(!is_trim_space(s[0]));
	FUZZ_CHECK(!is_trim_space(s[n - 1]));
}

static void round_trip(const struct matcher_overrides *ov, int crlf_bom)
{
	struct buf text = BUF_INIT;
	struct matcher_overrides *again = NULL;
	const char *eol = crlf_bom ? "\r\n" : "\n";

	if (crlf_bom)
		FUZZ_CHECK(buf_puts(&text, "\xEF\xBB\xBF") == 0);
	/* a first comment line keeps a BOM-like key away from offset 0 */
	FUZZ_CHECK(buf_printf(&text, "# round trip%s", eol) == 0);
	for (size_t i = 0; i < ov->n_items; i++)
		FUZZ_CHECK(buf_printf(&text, "%s, %s%s", ov->items[i].a_key, ov->items[i].b_key,
		                      eol) == 0);
	FUZZ_CHECK(matcher_overrides_parse(text.data, text.len, &again) == 0);
	FUZZ_CHECK(again != NULL);
	FUZZ_CHECK(again->n_warnings == 0);
	FUZZ_CHECK(again->n_items == ov->n_items);
	for (size_t i = 0; i < ov->n_items; i++) {
		FUZZ_CHECK(strcmp(again->items[i].a_key, ov->items[i].a_key) == 0);
		FUZZ_CHECK(strcmp(again->items[i].b_key, ov->items[i].b_key) == 0);
		FUZZ_CHECK(again->items[i].line == i + 2);
	}
	matcher_overrides_free(again);
	buf_reset(&text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct matcher_overrides *ov = NULL;
	const char *text = (const char *)data;
	unsigned long n_lines = 1;
	int has_nul = memchr(data, 0, size) != NULL;

	for (size_t i = 0; i < size; i++)
		n_lines += data[i] == '\n';
	FUZZ_CHECK(matcher_overrides_parse(text, size, &ov) == 0);
	FUZZ_CHECK(ov != NULL);
	for (size_t i = 0; i < ov->n_items; i++) {
		const struct matcher_override *it = &ov->items[i];

		FUZZ_CHECK(it->a_key != NULL && it->b_key != NULL);
		FUZZ_CHECK(it->line >= 1 && it->line <= n_lines);
		if (has_nul)
			continue;
		check_trimmed(it->a_key);
		check_trimmed(it->b_key);
		FUZZ_CHECK(strchr(it->a_key, ',') == NULL);
		FUZZ_CHECK(it->a_key[0] != '#');
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(ov->items[j].a_key, it->a_key) != 0);
	}
	for (size_t i = 0; i < ov->n_warnings; i++) {
		const struct matcher_warning *w = &ov->warnings[i];

		FUZZ_CHECK(w->code != NULL && strcmp(w->code, "override_no_comma") == 0);
		FUZZ_CHECK(w->line >= 1 && w->line <= n_lines);
		FUZZ_CHECK(w->message != NULL && w->excerpt != NULL);
		FUZZ_CHECK(strlen(w->excerpt) <= 200);
		if (i > 0)
			FUZZ_CHECK(w->line > ov->warnings[i - 1].line);
	}
	if (!has_nul) {
		round_trip(ov, 0);
		round_trip(ov, 1);
	}
	matcher_overrides_free(ov);
	return 0;
}
