/* pyjson.c - Python's bare NaN / Infinity in JSON (see pyjson.h). */
#include "pyjson.h"

#include <math.h>
#include <string.h>

/* The tokens and their markers (JSON strings, quotes included; "\u0001"
 * decodes to the byte 0x01 that starts the decoded marker). */
static const struct {
	const char *token, *mark, *decoded;
	double value;
} SPECIALS[] = {
        {"-Infinity", "\"\\u0001-inf\"", "\x01-inf", -INFINITY},
        {"Infinity", "\"\\u0001inf\"", "\x01inf", INFINITY},
        {"NaN", "\"\\u0001nan\"", "\x01nan", NAN},
};
#define N_SPECIALS (sizeof SPECIALS / sizeof SPECIALS[0])

int matcher_pyjson_mark_specials(const char *s, size_t n, struct buf *out)
{
	int in_str = 0, changed = 0;
	size_t from = 0;
	buf_clear(out);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
			continue;
		}
		if (c != 'N' && c != 'I' && c != '-')
			continue;
		for (size_t k = 0; k < N_SPECIALS; k++) {
			size_t len = strlen(SPECIALS[k].token);
			if (n - i < len || memcmp(s + i, SPECIALS[k].token, len) != 0)
				continue;
			if (buf_append(out, s + from, i - from) < 0 ||
			    buf_puts(out, SPECIALS[k].mark) < 0)
				return -1;
			changed = 1;
			i += len - 1;
			from = i + 1;
			break;
		}
	}
	if (!changed) {
		buf_clear(out);
		return 0;
	}
	return buf_append(out, s + from, n - from) < 0 ? -1 : 1;
}

int matcher_pyjson_number(const json_t *j, double *v)
{
	if (json_is_integer(j)) {
		*v = (double)json_integer_value(j);
		return 1;
	}
	if (json_is_real(j)) {
		*v = json_real_value(j);
		return 1;
	}
	const char *s = json_string_value(j);
	if (!s || s[0] != '\x01')
		return 0;
	for (size_t k = 0; k < N_SPECIALS; k++)
		if (!strcmp(s, SPECIALS[k].decoded)) {
			*v = SPECIALS[k].value;
			return 1;
		}
	return 0;
}
