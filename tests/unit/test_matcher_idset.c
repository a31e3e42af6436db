/* test_matcher_idset.c - the interning index of matcher/idset.h: ids are
 * found by their text in the caller's table, texts whose hashes share the
 * tag (or the whole hash) are told apart by their bytes, nothing is lost
 * when the table grows or was reserved, and an empty set answers -1. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "idset.h"
#include "strmap.h"

#define N 5000

static char text[N][16];
static const char *str[N];
static uint32_t len[N];

int main(void)
{
	struct matcher_idset s;

	matcher_idset_init(&s);
	CHECK_INT(matcher_idset_get(&s, 1, "x", 1, str, len), -1);
	for (int i = 0; i < N; i++) {
		snprintf(text[i], sizeof text[i], "op_%d", i);
		str[i] = text[i];
		len[i] = (uint32_t)strlen(text[i]);
	}
	/* real hashes: every id back by its text, through several growths */
	for (uint32_t i = 0; i < N; i++)
		CHECK_INT(matcher_idset_add(&s, matcher_strmap_hash(str[i], len[i]), i), 0);
	int found = 0;
	for (uint32_t i = 0; i < N; i++)
		found += matcher_idset_get(&s, matcher_strmap_hash(str[i], len[i]), str[i], len[i],
		                           str, len) == (int64_t)i;
	CHECK_INT(found, N);
	CHECK_INT(matcher_idset_get(&s, matcher_strmap_hash("op_x", 4), "op_x", 4, str, len), -1);
	CHECK(s.cap >= 2 * s.n);
	matcher_idset_reset(&s);

	/* one hash for every text (a crafted collision): the bytes decide,
	 * and a prefix or a longer text is not a match */
	CHECK_INT(matcher_idset_reserve(&s, 64), 0);
	size_t cap = s.cap;
	const uint64_t same = 0xABCDEF0123456789ull;
	for (uint32_t i = 0; i < 64; i++)
		CHECK_INT(matcher_idset_add(&s, same, i), 0);
	CHECK_INT((long)s.cap, (long)cap); /* reserved: no growth */
	found = 0;
	for (uint32_t i = 0; i < 64; i++)
		found += matcher_idset_get(&s, same, str[i], len[i], str, len) == (int64_t)i;
	CHECK_INT(found, 64);
	CHECK_INT(matcher_idset_get(&s, same, "op_1", 3, str, len), -1);
	CHECK_INT(matcher_idset_get(&s, same, "op_10x", 6, str, len), -1);
	/* the tag alone (upper half) equal, the lower half not */
	CHECK_INT(matcher_idset_add(&s, same ^ 1, 100), 0);
	CHECK_INT(matcher_idset_get(&s, same ^ 1, str[100], len[100], str, len), 100);
	CHECK_INT(matcher_idset_get(&s, same, str[100], len[100], str, len), 100);
	/* the last id is refused: id + 1 must fit the slot */
	CHECK_INT(matcher_idset_add(&s, same, UINT32_MAX), -1);
	matcher_idset_reset(&s);
	CHECK(s.slots == NULL && s.cap == 0 && s.n == 0);
	return check_report();
}
