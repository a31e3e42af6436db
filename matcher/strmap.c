/* strmap.c - open-addressing string -> size_t map (see strmap.h). */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

void matcher_strmap_init(struct matcher_strmap *m)
{
	m->slots = NULL;
	m->cap = 0;
	m->n = 0;
}

void matcher_strmap_reset(struct matcher_strmap *m)
{
	free(m->slots);
	matcher_strmap_init(m);
}

uint64_t matcher_strmap_hash(const char *key, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 1099511628211ull;
	}
	/* final avalanche so the low bits used for the index are well mixed */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

/* Rehash into a table of new_cap slots (power of two). */
static int grow(struct matcher_strmap *m, size_t new_cap)
{
	struct matcher_strmap_slot *slots = calloc(new_cap, sizeof(*slots));
	size_t i;

	if (!slots)
		return -1;
	for (i = 0; i < m->cap; i++) {
		struct matcher_strmap_slot *s = &m->slots[i];
		size_t j;

		if (!s->key)
			continue;
		j = (size_t)s->hash & (new_cap - 1);
		while (slots[j].key)
			j = (j + 1) & (new_cap - 1);
		slots[j] = *s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = new_cap;
	return 0;
}

int matcher_strmap_reserve(struct matcher_strmap *m, size_t n)
{
	size_t cap = 16;

	if (n > ((size_t)-1) / 4)
		return -1;
	while (cap < 2 * n)
		cap *= 2;
	if (cap <= m->cap)
		return 0;
	return grow(m, cap);
}

static struct matcher_strmap_slot *find(const struct matcher_strmap *m, const char *key, size_t len,
                                        uint64_t h)
{
	size_t j = (size_t)h & (m->cap - 1);

	for (;;) {
		struct matcher_strmap_slot *s = &m->slots[j];

		if (!s->key)
			return s;
		if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
			return s;
		j = (j + 1) & (m->cap - 1);
	}
}

struct matcher_strmap_slot *matcher_strmap_upsert(struct matcher_strmap *m, const char *key,
                                                  size_t len, size_t value, int *inserted)
{
	uint64_t h = matcher_strmap_hash(key, len);
	struct matcher_strmap_slot *s;

	if (inserted)
		*inserted = 0;
	if (2 * (m->n + 1) > m->cap && grow(m, m->cap ? 2 * m->cap : 16) < 0)
		return NULL;
	s = find(m, key, len, h);
	if (!s->key) {
		/* an empty key still needs a non-NULL pointer to mark the slot */
		s->key = key ? key : "";
		s->len = len;
		s->hash = h;
		s->value = value;
		m->n++;
		if (inserted)
			*inserted = 1;
	}
	return s;
}

struct matcher_strmap_slot *matcher_strmap_get(const struct matcher_strmap *m, const char *key,
                                               size_t len)
{
	struct matcher_strmap_slot *s;

	if (m->cap == 0)
		return NULL;
	s = find(m, key, len, matcher_strmap_hash(key, len));
	return s->key ? s : NULL;
}
