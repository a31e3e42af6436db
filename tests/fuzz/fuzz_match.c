/* fuzz_match.c - libFuzzer target for the matcher (matcher/match.h
 * matcher_match) fed by the real parsers.
 *
 * Input: log A, a separator line "=====", log B, and optionally another
 * "=====" line followed by an override file:
 *     <A text>\n=====\n<B text>[\n=====\n<overrides>]
 * Both logs go through matcher_actlog_parse_buffer (inputs it refuses are
 * skipped).  The result must then hold, for any input:
 *  - every A entry in exactly one row and every B entry in exactly one
 *    row; rows in A's file order, then the unclaimed B entries in B order;
 *  - statuses consistent with the sides present; paired rows carry a
 *    method, only-rows none; the pairing obeys its method's key (override
 *    pair listed, exact keys equal after the root strip, fuzzy keys equal,
 *    stats rows of the same op type);
 *  - no left-over A entry and left-over B entry share an exact or fuzzy
 *    key (the passes would have paired them);
 *  - distances and per-stat differences in [0, 1] or "none" (< 0);
 *    comparing a paired row the other way round gives the same verdict;
 *  - the summary counts agree with the rows; used + unused overrides =
 *    override items; a second run gives the same rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "match.h"

#define SEP     "\n=====\n"
#define SEP_LEN (sizeof(SEP) - 1)
/* Bound on the quadratic left-over check (pairs compared). */
#define MAX_LEFTOVER_PAIRS 40000

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

static const uint8_t *find_sep(const uint8_t *p, size_t n)
{
	return memmem(p, n, SEP, SEP_LEN);
}

static int same_root_key(const char *a, const char *b)
{
	size_t ra = matcher_key_root_len(a, strlen(a));
	size_t rb = matcher_key_root_len(b, strlen(b));

	return strcmp(a + ra, b + rb) == 0;
}

/* Compare two keys through a key function (fuzzy key, op type). */
static int same_key_by(int (*fn)(const char *, size_t, struct buf *), const char *a, const char *b,
                       struct buf *ta, struct buf *tb)
{
	FUZZ_CHECK(fn(a, strlen(a), ta) == 0);
	FUZZ_CHECK(fn(b, strlen(b), tb) == 0);
	return ta->len == tb->len && (ta->len == 0 || memcmp(ta->data, tb->data, ta->len) == 0);
}

static void check_unit_or_none(double d)
{
	FUZZ_CHECK(!isnan(d));
	FUZZ_CHECK(d < 0 || d <= 1.0);
}

static void check_override_pair(const struct matcher_overrides *ov, const struct matcher_row *row)
{
	FUZZ_CHECK(ov != NULL);
	for (size_t k = 0; k < ov->n_items; k++) {
		if (strcmp(ov->items[k].a_key, row->a->key) == 0) {
			FUZZ_CHECK(strcmp(ov->items[k].b_key, row->b->key) == 0);
			return;
		}
	}
	FUZZ_CHECK(!"override row without an override item");
}

static void check_rows(const struct matcher_actlog *a, const struct matcher_actlog *b,
                       const struct matcher_overrides *ov, const struct matcher_match_result *r)
{
	size_t na = a->n_entries, nb = b->n_entries, i, next_b = 0;
	struct matcher_match_summary s;
	unsigned char *b_seen = calloc(nb ? nb : 1, 1);
	struct buf ta = BUF_INIT, tb = BUF_INIT;
	struct matcher_row_view v, w;

	matcher_row_view_init(&v);
	matcher_row_view_init(&w);
	FUZZ_CHECK(b_seen != NULL);
	FUZZ_CHECK(r->n_rows >= na && r->n_rows <= na + nb);
	memset(&s, 0, sizeof s);
	s.first_divergence[0] = s.first_divergence[1] = MATCHER_NO_ROW;
	for (i = 0; i < r->n_rows; i++) {
		const struct matcher_row *row = matcher_result_row(r, i, &v);
		const struct matcher_row_rec *q = &r->recs[i];
		size_t bi = 0;
		int ph;

		FUZZ_CHECK(row != NULL);
		if (i < na)
			FUZZ_CHECK(q->a == i && row->a != NULL);
		else
			FUZZ_CHECK(q->a == MATCHER_REC_NONE && row->a == NULL);
		if (row->b) {
			FUZZ_CHECK(q->b < nb);
			bi = q->b;
			FUZZ_CHECK(!b_seen[bi]);
			b_seen[bi] = 1;
		}
		if (i >= na) {
			/* B-only tail in B order */
			FUZZ_CHECK(row->b != NULL && bi >= next_b);
			next_b = bi + 1;
		}
		FUZZ_CHECK(row->a || row->b);
		if (row->a && row->b) {
			struct matcher_row swapped = *row;

			FUZZ_CHECK(row->status == MATCHER_MATCH || row->status == MATCHER_DIFF);
			FUZZ_CHECK(row->method < MATCHER_N_METHODS);
			FUZZ_CHECK(row->phase == row->a->phase);
			check_unit_or_none(row->output_hash_distance);
			check_unit_or_none(row->input_hash_distance);
			for (int k = 0; k < MATCHER_N_STATS; k++)
				check_unit_or_none(row->stat_diff[k]);
			if (row->status == MATCHER_MATCH)
				FUZZ_CHECK(!row->origin && !row->shape_differs);
			switch (row->method) {
			case MATCHER_METHOD_OVERRIDE: check_override_pair(ov, row); break;
			case MATCHER_METHOD_EXACT:
				FUZZ_CHECK(same_root_key(row->a->key, row->b->key));
				break;
			case MATCHER_METHOD_FUZZY:
				FUZZ_CHECK(same_key_by(matcher_key_fuzzy, row->a->key, row->b->key,
				                       &ta, &tb));
				break;
			default:
				FUZZ_CHECK(same_key_by(matcher_key_op_type, row->a->key,
				                       row->b->key, &ta, &tb));
				FUZZ_CHECK(strcmp(or_empty(row->a->stats[MATCHER_STAT_SHAPE]),
				                  or_empty(row->b->stats[MATCHER_STAT_SHAPE])) ==
				           0);
				FUZZ_CHECK(strcmp(or_empty(matcher_entry_output_hash(row->a)),
				                  or_empty(matcher_entry_output_hash(row->b))) ==
				           0);
				break;
			}
			/* the verdict does not depend on which side is A */
			swapped.a = row->b;
			swapped.b = row->a;
			matcher_row_compare(&swapped);
			FUZZ_CHECK(swapped.status == row->status);
			FUZZ_CHECK(swapped.origin == row->origin);
			FUZZ_CHECK(swapped.shape_differs == row->shape_differs);
			for (int k = 0; k < MATCHER_N_STATS; k++)
				FUZZ_CHECK(swapped.stat_diff[k] == row->stat_diff[k]);
		} else {
			FUZZ_CHECK(row->method == MATCHER_METHOD_NONE);
			FUZZ_CHECK(row->status == (row->a ? MATCHER_A_ONLY : MATCHER_B_ONLY));
			FUZZ_CHECK(row->phase == (row->a ? row->a->phase : row->b->phase));
			FUZZ_CHECK(row->output_hash_distance < 0 && row->input_hash_distance < 0);
		}
		ph = row->phase == MATCHER_BACKWARD;
		s.n_status[row->status]++;
		s.n_phase_status[ph][row->status]++;
		if (row->method < MATCHER_N_METHODS)
			s.n_method[row->method]++;
		if (row->status == MATCHER_DIFF) {
			s.n_origin += row->origin != 0;
			s.n_propagated += row->origin == 0;
			if (s.first_divergence[ph] == MATCHER_NO_ROW)
				s.first_divergence[ph] = i;
		}
	}
	for (i = 0; i < nb; i++)
		FUZZ_CHECK(b_seen[i]);

	FUZZ_CHECK(r->summary.n_rows == r->n_rows);
	FUZZ_CHECK(memcmp(s.n_status, r->summary.n_status, sizeof s.n_status) == 0);
	FUZZ_CHECK(memcmp(s.n_method, r->summary.n_method, sizeof s.n_method) == 0);
	FUZZ_CHECK(memcmp(s.n_phase_status, r->summary.n_phase_status, sizeof s.n_phase_status) ==
	           0);
	FUZZ_CHECK(s.n_origin == r->summary.n_origin);
	FUZZ_CHECK(s.n_propagated == r->summary.n_propagated);
	FUZZ_CHECK(s.first_divergence[0] == r->summary.first_divergence[0]);
	FUZZ_CHECK(s.first_divergence[1] == r->summary.first_divergence[1]);
	if (r->summary.max_hash_row == MATCHER_NO_ROW) {
		FUZZ_CHECK(r->summary.max_hash_distance < 0);
	} else {
		const struct matcher_row *m;

		FUZZ_CHECK(r->summary.max_hash_row < r->n_rows);
		m = matcher_result_row(r, r->summary.max_hash_row, &v);
		FUZZ_CHECK(m != NULL);
		FUZZ_CHECK(m->a && m->b);
		FUZZ_CHECK(r->summary.max_hash_distance ==
		           fmax(m->output_hash_distance, m->input_hash_distance));
	}
	FUZZ_CHECK(r->n_overrides_used + r->n_unused == (ov ? ov->n_items : 0));

	/* Left-overs: an A-only and a B-only entry with equal exact or fuzzy
	 * keys would have been paired by pass 1 or 2. */
	if (s.n_status[MATCHER_A_ONLY] * s.n_status[MATCHER_B_ONLY] <= MAX_LEFTOVER_PAIRS) {
		for (i = 0; i < na; i++) {
			if (r->recs[i].b != MATCHER_REC_NONE)
				continue;
			for (size_t j = na; j < r->n_rows; j++) {
				const struct matcher_row *ri = matcher_result_row(r, i, &v);
				const struct matcher_row *rj = matcher_result_row(r, j, &w);

				FUZZ_CHECK(ri && rj);
				const char *ka = ri->a->key, *kb = rj->b->key;

				FUZZ_CHECK(!same_root_key(ka, kb));
				FUZZ_CHECK(!same_key_by(matcher_key_fuzzy, ka, kb, &ta, &tb));
			}
		}
	}
	buf_reset(&ta);
	buf_reset(&tb);
	matcher_row_view_free(&v);
	matcher_row_view_free(&w);
	free(b_seen);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sep1, *sep2 = NULL, *b_start;
	size_t b_len;
	struct matcher_actlog *a = NULL, *b = NULL;
	struct matcher_overrides *ov = NULL;
	struct matcher_match_result *r = NULL, *again = NULL;
	struct matcher_error err;

	sep1 = find_sep(data, size);
	if (!sep1)
		return 0;
	b_start = sep1 + SEP_LEN;
	b_len = size - (size_t)(b_start - data);
	sep2 = find_sep(b_start, b_len);
	if (sep2) {
		const uint8_t *ov_start = sep2 + SEP_LEN;

		FUZZ_CHECK(matcher_overrides_parse((const char *)ov_start,
		                                   size - (size_t)(ov_start - data), &ov) == 0);
		b_len = (size_t)(sep2 - b_start);
	}
	if (matcher_actlog_parse_buffer((const char *)data, (size_t)(sep1 - data), &a, &err) < 0 ||
	    matcher_actlog_parse_buffer((const char *)b_start, b_len, &b, &err) < 0)
		goto done;
	FUZZ_CHECK(matcher_match(a, b, ov, &r) == 0 && r != NULL);
	check_rows(a, b, ov, r);
	FUZZ_CHECK(matcher_match(a, b, ov, &again) == 0 && again != NULL);
	FUZZ_CHECK(again->n_rows == r->n_rows && again->n_unused == r->n_unused);
	for (size_t i = 0; i < r->n_rows; i++) {
		FUZZ_CHECK(again->recs[i].a == r->recs[i].a && again->recs[i].b == r->recs[i].b);
		FUZZ_CHECK(again->recs[i].status == r->recs[i].status);
		FUZZ_CHECK(again->recs[i].method == r->recs[i].method);
	}
done:
	matcher_match_result_free(again);
	matcher_match_result_free(r);
	matcher_actlog_free(a);
	matcher_actlog_free(b);
	matcher_overrides_free(ov);
	return 0;
}
