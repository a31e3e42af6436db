/* fuzz_msprobe.c - libFuzzer target for the msprobe dump and stack readers
 * (matcher/msprobe.h).
 *
 * A split plan (fuzz_common.h) then the file.  The file goes through the
 * activation parser (which hands a `{` document to the dump parser) fed
 * whole and fed in the planned chunks: the transcripts of the header,
 * every entry field, and the outcome must be identical.  The option
 * nibble stops parsing from a callback after that many calls; the small
 * max_line flag sets a 200-byte dump limit (the too_large path).  The same
 * bytes are also read as a stack.json, whose locations the dump parser
 * then uses.  Invariants: entries in order 0, 1, ..., with a key; a
 * numeric stat's text reads back as its number; a success reports as
 * many entries as the header's total; errors carry a code and a
 * terminated message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "msprobe.h"

struct run {
	struct buf t;
	unsigned stop_after, n_calls;
	size_t n_entries;
	long total;
};

static int count_call(struct run *r)
{
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int on_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct run *r = ctx;
	FUZZ_CHECK(h->total >= 0 && !h->has_excluded && !h->excluded);
	r->total = h->total;
	fuzz_put_num(&r->t, "H.total", (unsigned long long)h->total);
	return count_call(r);
}

static int on_entry(void *ctx, const struct matcher_entry *e)
{
	struct run *r = ctx;
	FUZZ_CHECK(e->key && e->order == r->n_entries++);
	FUZZ_CHECK(!(e->stat_isnum & 1u)); /* never Shape */
	fuzz_put_str(&r->t, "E.key", e->key);
	fuzz_put_num(&r->t, "E.line", e->line);
	fuzz_put_num(&r->t, "E.phase", e->phase);
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		fuzz_put_str(&r->t, "E.stat", e->stats[i]);
		if (e->stat_isnum & (1u << i)) {
			double v;
			FUZZ_CHECK(e->stats[i] &&
			           matcher_parse_number(e->stats[i], strlen(e->stats[i]), &v));
			FUZZ_CHECK((v != v && e->stat_num[i] != e->stat_num[i]) ||
			           v == e->stat_num[i]);
		}
	}
	fuzz_put_str(&r->t, "E.out", e->output_hash);
	fuzz_put_str(&r->t, "E.in", e->input_hashes);
	fuzz_put_str(&r->t, "E.loc", e->location);
	return count_call(r);
}

static int parse(struct run *r, struct fuzz_split *plan, const struct matcher_msprobe_stack *st,
                 size_t max_bytes, const uint8_t *data, size_t n)
{
	struct matcher_actlog_callbacks cb = {r, on_header, on_entry, NULL};
	struct matcher_msprobe_parser *p = matcher_msprobe_parser_new(&cb, max_bytes, st);
	struct matcher_actlog_summary sum;
	size_t off = 0;
	int rc = 0;
	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_msprobe_feed(p, (const char *)data, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);
			rc = matcher_msprobe_feed(p, (const char *)data + off, len);
			off += len;
		}
	}
	if (rc == 0)
		rc = matcher_msprobe_finish(p, &sum);
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_entries == r->n_entries && (long)sum.n_entries == r->total);
		FUZZ_CHECK(sum.header_total == r->total);
	} else {
		const struct matcher_error *err = matcher_msprobe_error(p);
		FUZZ_CHECK(err && err->code);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	FUZZ_CHECK(matcher_msprobe_finish(p, NULL) == -1); /* one finish only */
	matcher_msprobe_parser_free(p);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	struct run whole, chunked;
	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	struct matcher_msprobe_stack *st = NULL;
	struct matcher_error err;
	if (matcher_msprobe_stack_parse((const char *)payload, n, 0, &st, &err) < 0) {
		FUZZ_CHECK(st == NULL && err.code);
		FUZZ_CHECK(memchr(err.message, 0, sizeof err.message) != NULL);
	}
	memset(&whole, 0, sizeof whole);
	memset(&chunked, 0, sizeof chunked);
	buf_init(&whole.t);
	buf_init(&chunked.t);
	whole.stop_after = chunked.stop_after = plan.option;
	size_t max_bytes = plan.max_line ? 200 : 0;
	int rc_whole = parse(&whole, NULL, st, max_bytes, payload, n);
	int rc_chunked = parse(&chunked, &plan, st, max_bytes, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole.t, &chunked.t, "msprobe whole vs chunked");
	(void)matcher_msprobe_detect((const char *)payload, n);
	matcher_msprobe_stack_free(st);
	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	return 0;
}
