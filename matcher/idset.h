/* idset.h - an open-addressing set of string ids whose texts live in the
 * caller's table (str[id], len[id]): the interning index of an activation
 * log's string table (actlog.c), and the exact pass's map of key parts
 * (match.c).
 *
 * A slot is 8 bytes, id + 1 (0: empty) and the upper half of the text's
 * matcher_strmap_hash, against 32 for a matcher_strmap slot: a log's
 * ~26k-65k texts index in a quarter of the memory, which is what the
 * offline compare's peak holds while it parses two logs at once
 * (issue 28).  Linear probing over a power-of-two table kept at most half
 * full; no deletion.  Not thread-safe per object; never aborts. */
#ifndef PARITY_IDSET_H
#define PARITY_IDSET_H

#include <stddef.h>
#include <stdint.h>

struct matcher_idset {
	uint64_t *slots; /* owned: (hash >> 32) << 32 | (id + 1), 0 empty */
	size_t cap;      /* power of two, or 0 */
	size_t n;
};

/* Empty set, no allocation. */
void matcher_idset_init(struct matcher_idset *s);
/* Free the table; the set is empty and reusable. */
void matcher_idset_reset(struct matcher_idset *s);
/* Pre-size for about n ids.  0 or -1 on OOM. */
int matcher_idset_reserve(struct matcher_idset *s, size_t n);
/* The id whose text str[id][0..len[id]) is key[0..n), h being
 * matcher_strmap_hash(key, n); -1 when none.  No allocation. */
int64_t matcher_idset_get(const struct matcher_idset *s, uint64_t h, const char *key, size_t n,
                          const char *const *str, const uint32_t *len);
/* Add id (< 2^32 - 1) of a text with hash h that is not in the set yet.
 * 0 or -1 on OOM. */
int matcher_idset_add(struct matcher_idset *s, uint64_t h, uint32_t id);

#endif
