/* strmap.h - an open-addressing hash table from byte strings to size_t,
 * the matcher's only index structure (grouping ~100k keys per pass in
 * linear time).
 *
 * Keys are borrowed (pointer + length), never copied: the caller keeps them
 * alive and unchanged while the map is used.  Linear probing over a
 * power-of-two table kept at most half full; no deletion (the matcher
 * builds a map per pass and throws it away).  Not thread-safe per object;
 * never aborts: insertion returns -1 on allocation failure. */
#ifndef PARITY_STRMAP_H
#define PARITY_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct matcher_strmap_slot {
	const char *key; /* NULL: empty slot */
	size_t len;
	uint64_t hash;
	size_t value;
};

struct matcher_strmap {
	struct matcher_strmap_slot *slots; /* owned */
	size_t cap;                        /* power of two, or 0 */
	size_t n;
};

/* Empty map, no allocation. */
void matcher_strmap_init(struct matcher_strmap *m);
/* Free the table; the map is empty and reusable. */
void matcher_strmap_reset(struct matcher_strmap *m);
/* Remove every entry but keep the table (no allocation): the matcher's
 * passes reuse one table instead of faulting in a fresh one each. */
void matcher_strmap_clear(struct matcher_strmap *m);
/* The capacity of a table that holds n keys at most half full: a power
 * of two, at least 16; 0 when n is too large.  (strmap and idset.) */
size_t matcher_table_cap(size_t n);
/* Pre-size for about n keys (optional).  0 or -1 on OOM. */
int matcher_strmap_reserve(struct matcher_strmap *m, size_t n);
/* The slot of key, inserting it with `value` when absent (*inserted = 1).
 * The returned pointer is valid until the next insertion.  NULL on OOM. */
struct matcher_strmap_slot *matcher_strmap_upsert(struct matcher_strmap *m, const char *key,
                                                  size_t len, size_t value, int *inserted);
/* The slot of key or NULL when absent.  No allocation. */
struct matcher_strmap_slot *matcher_strmap_get(const struct matcher_strmap *m, const char *key,
                                               size_t len);
/* The 64-bit string hash used by the map (eight bytes a step, folded
 * 128-bit multiplies); also the parser's duplicate-key hash.  Not keyed:
 * crafted keys can collide (slower lookups, never wrong answers). */
uint64_t matcher_strmap_hash(const char *key, size_t len);
/* calloc for tables that are probed (read) before they are written: the
 * memory is zeroed by writing it (see strmap.c).  NULL on OOM/overflow. */
void *matcher_zalloc(size_t n, size_t size);

#endif
