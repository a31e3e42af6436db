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

void matcher_strmap_clear(struct matcher_strmap *m)
{
	if (m->slots)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->n = 0;
}

/* One 64-bit multiply-fold round: the full 128-bit product folded back,
 * so every input bit reaches every output bit within a few rounds. */
static uint64_t mix(uint64_t a, uint64_t b)
{
	unsigned __int128 p = (unsigned __int128)a * b;
	return (uint64_t)p ^ (uint64_t)(p >> 64);
}

uint64_t matcher_strmap_hash(const char *key, size_t len)
{
	/* eight bytes a step (memcpy: no alignment assumed); keys are op
	 * keys of 50-200 bytes, where a byte-at-a-time hash was the matcher's
	 * and parser's largest single cost */
	const uint64_t k0 = 0x9e3779b97f4a7c15ull, k1 = 0xbf58476d1ce4e5b9ull;
	uint64_t h = k0 ^ (uint64_t)len;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, key + i, 8);
		h = mix(h ^ w, k1);
	}
	if (i < len) {
		uint64_t w = 0;
		memcpy(&w, key + i, len - i);
		h = mix(h ^ w ^ ((uint64_t)(len - i) << 59), k1);
	}
	h = mix(h, k0);
	return h ^ (h >> 29);
}

/* A zeroed table of n slots, written rather than calloc'd: calloc's fresh
 * pages are the shared zero page until written, and the probe below reads
 * a slot before writing it, so every page took a read fault and then a
 * copy-on-write fault whose TLB flush interrupts the process's other
 * threads (measured: a third of the collector's time when `parity compare`
 * parses A and B on two threads).  Writing first takes one fault a page.
 * memset is called through a volatile pointer: GCC turns malloc + memset
 * into calloc otherwise. */
static void *(*volatile zero_fill)(void *, int, size_t) = memset;

void *matcher_zalloc(size_t n, size_t size)
{
	void *p;

	if (size && n > ((size_t)-1) / size)
		return NULL;
	p = malloc(n * size);
	if (p)
		zero_fill(p, 0, n * size);
	return p;
}

/* Rehash into a table of new_cap slots (power of two). */
static int grow(struct matcher_strmap *m, size_t new_cap)
{
	struct matcher_strmap_slot *slots = matcher_zalloc(new_cap, sizeof(*slots));
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

size_t matcher_table_cap(size_t n)
{
	size_t cap = 16;

	if (n > ((size_t)-1) / 4)
		return 0;
	while (cap < 2 * n)
		cap *= 2;
	return cap;
}

int matcher_strmap_reserve(struct matcher_strmap *m, size_t n)
{
	size_t cap = matcher_table_cap(n);

	if (!cap)
		return -1;
	return cap <= m->cap ? 0 : grow(m, cap);
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
