/* idset.c - the string-id set of idset.h. */
#include "idset.h"

#include <stdlib.h>
#include <string.h>

#include "strmap.h" /* matcher_zalloc, matcher_table_cap */

/* The slot's tag is the hash's upper half; the table is indexed by it too,
 * so a rehash needs no text. */
#define TAG(h) ((uint64_t)(h) >> 32)

void matcher_idset_init(struct matcher_idset *s)
{
	s->slots = NULL;
	s->cap = 0;
	s->n = 0;
}

void matcher_idset_reset(struct matcher_idset *s)
{
	free(s->slots);
	matcher_idset_init(s);
}

static void place(uint64_t *slots, size_t cap, uint64_t v)
{
	size_t j = (size_t)(v >> 32) & (cap - 1);

	while (slots[j])
		j = (j + 1) & (cap - 1);
	slots[j] = v;
}

static int grow(struct matcher_idset *s, size_t cap)
{
	/* index bits come from the 32-bit tag */
	if (cap > ((size_t)1 << 32))
		return -1;
	uint64_t *slots = matcher_zalloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slots[i])
			place(slots, cap, s->slots[i]);
	free(s->slots);
	s->slots = slots;
	s->cap = cap;
	return 0;
}

int matcher_idset_reserve(struct matcher_idset *s, size_t n)
{
	size_t cap = matcher_table_cap(n);

	if (!cap)
		return -1;
	return cap <= s->cap ? 0 : grow(s, cap);
}

int64_t matcher_idset_get(const struct matcher_idset *s, uint64_t h, const char *key, size_t n,
                          const char *const *str, const uint32_t *len)
{
	if (!s->cap)
		return -1;
	uint64_t tag = TAG(h);

	for (size_t j = (size_t)tag & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
		uint64_t v = s->slots[j];

		if (!v)
			return -1;
		if (v >> 32 == tag) {
			uint32_t id = (uint32_t)v - 1;

			if (len[id] == n && memcmp(str[id], key, n) == 0)
				return id;
		}
	}
}

int matcher_idset_add(struct matcher_idset *s, uint64_t h, uint32_t id)
{
	if (id == UINT32_MAX || (2 * (s->n + 1) > s->cap && grow(s, s->cap ? 2 * s->cap : 16) < 0))
		return -1;
	place(s->slots, s->cap, TAG(h) << 32 | ((uint64_t)id + 1));
	s->n++;
	return 0;
}
