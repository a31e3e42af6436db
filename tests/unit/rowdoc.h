/* rowdoc.h - checks one activation row document (the text
 * web_act_row_append writes) against the matcher row it was written from:
 * the text must parse as strict JSON and every field must hold the row's
 * value (keys, stats and hashes as text with invalid UTF-8 bytes as
 * U+FFFD, distances as numbers or null, absent entry fields omitted).
 * Header-only, for the unit tests that include check.h. */
#ifndef PARITY_TEST_ROWDOC_H
#define PARITY_TEST_ROWDOC_H

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"

/* s with each byte that does not start a valid UTF-8 sequence replaced by
 * U+FFFD, as the serializer promises (malloc'd).  Written independently of
 * the serializer: it asks jansson whether each prefix is valid. */
static inline char *rowdoc_repair(const char *s)
{
	size_t n = strlen(s), i = 0, o = 0;
	char *out = malloc(3 * n + 1);

	if (!out)
		return NULL;
	while (i < n) {
		size_t k;
		json_t *t = NULL;

		/* the longest valid sequence starting here (1..4 bytes) */
		for (k = 4; k >= 1; k--) {
			if (i + k <= n && (t = json_stringn(s + i, k)) != NULL)
				break;
		}
		if (t && (unsigned char)s[i] != 0) {
			json_decref(t);
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(out + o, "\xEF\xBF\xBD", 3);
			o += 3;
			i++;
		}
	}
	out[o] = 0;
	return out;
}

/* 1 when v is the JSON text of s (NULL s: v must be null). */
static inline int rowdoc_text(json_t *v, const char *s)
{
	char *want;
	int ok;

	if (!s)
		return json_is_null(v);
	if (!json_is_string(v) || !(want = rowdoc_repair(s)))
		return 0;
	ok = strcmp(json_string_value(v), want) == 0;
	free(want);
	return ok;
}

/* 1 when v is the distance d (< 0 or non-finite: null). */
static inline int rowdoc_dist(json_t *v, double d)
{
	if (d < 0 || !isfinite(d))
		return json_is_null(v);
	return json_is_number(v) && json_number_value(v) == d;
}

/* 1 when v is entry e's document (NULL e: null). */
static inline int rowdoc_entry(json_t *v, const struct matcher_entry *e)
{
	json_t *stats = json_object_get(v, "stats");
	size_t want_keys = 5, n_stats = 0;
	int ok = 1;

	if (!e)
		return json_is_null(v);
	ok &= json_is_object(v) && json_is_object(stats);
	ok &= rowdoc_text(json_object_get(v, "key"), e->key);
	ok &= json_integer_value(json_object_get(v, "line")) == (json_int_t)e->line;
	ok &= json_integer_value(json_object_get(v, "order")) == (json_int_t)e->order;
	ok &= rowdoc_text(json_object_get(v, "phase"), matcher_phase_name(e->phase));
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		json_t *s = json_object_get(stats, matcher_stat_names[i]);

		if (e->stats[i])
			n_stats++;
		ok &= e->stats[i] ? rowdoc_text(s, e->stats[i]) : s == NULL;
	}
	ok &= json_object_size(stats) == n_stats;
	const char *opt[4] = {e->output_hash, e->input_hashes, e->input_producers, e->location};
	const char *names[4] = {"output_hash", "input_hashes", "input_producers", "location"};
	for (int i = 0; i < 4; i++) {
		json_t *f = json_object_get(v, names[i]);

		want_keys += opt[i] != NULL;
		ok &= opt[i] ? rowdoc_text(f, opt[i]) : f == NULL;
	}
	return ok && json_object_size(v) == want_keys;
}

/* 1 when text (len bytes) is row's document: strict JSON, exactly the
 * row's fields.  extra = how many more top-level keys are allowed (the
 * rows list adds "rank" and "idx"). */
static inline int rowdoc_check(const char *text, size_t len, const struct matcher_row *row,
                               size_t extra)
{
	json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *sd = json_object_get(v, "stat_diffs");
	const char *method = matcher_method_name(row->method);
	size_t n_sd = 0;
	int ok = v != NULL && json_is_object(sd);

	ok = ok && json_object_size(v) == 12 + extra;
	ok = ok && rowdoc_text(json_object_get(v, "a_key"), row->a ? row->a->key : NULL);
	ok = ok && rowdoc_text(json_object_get(v, "b_key"), row->b ? row->b->key : NULL);
	ok = ok && rowdoc_text(json_object_get(v, "status"), matcher_status_name(row->status));
	ok = ok && rowdoc_text(json_object_get(v, "method"), method);
	ok = ok && rowdoc_text(json_object_get(v, "phase"), matcher_phase_name(row->phase));
	ok = ok && json_is_boolean(json_object_get(v, "origin")) &&
	     json_is_true(json_object_get(v, "origin")) == !!row->origin;
	ok = ok && json_is_boolean(json_object_get(v, "shape_differs")) &&
	     json_is_true(json_object_get(v, "shape_differs")) ==
	             (row->a && row->b && row->shape_differs);
	ok = ok &&
	     rowdoc_dist(json_object_get(v, "output_hash_distance"), row->output_hash_distance);
	ok = ok && rowdoc_dist(json_object_get(v, "input_hash_distance"), row->input_hash_distance);
	for (int i = 0; ok && i < MATCHER_N_STATS; i++) {
		json_t *d = json_object_get(sd, matcher_stat_names[i]);

		if (row->stat_diff[i] >= 0) {
			n_sd++;
			ok = d != NULL && rowdoc_dist(d, row->stat_diff[i]);
		} else {
			ok = d == NULL;
		}
	}
	ok = ok && json_object_size(sd) == n_sd;
	ok = ok && rowdoc_entry(json_object_get(v, "a"), row->a);
	ok = ok && rowdoc_entry(json_object_get(v, "b"), row->b);
	json_decref(v);
	return ok;
}

#endif
