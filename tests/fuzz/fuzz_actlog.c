/* fuzz_actlog.c - libFuzzer target for the activation-log push parser
 * (matcher/actlog.h).
 *
 * The input starts with a split plan (fuzz_common.h); the rest is the log.
 * The log is parsed twice, once fed whole and once cut into the chunks the
 * plan chooses, and the two transcripts of every callback (header,
 * entries with all fields, warnings) plus the outcome (summary or error)
 * must be byte-identical: the header promises the same result for any
 * chunking.  The option nibble makes a callback ask to stop after that
 * many calls, exercising the "callback" error path.  Entry invariants
 * (key present, order counting up, Shape never numeric) are checked on the
 * way, and the collecting wrapper matcher_actlog_parse_buffer must agree
 * with the push parser on outcome and entry count.  Every entry re-derived
 * from the collected log's compact records must be the entry the parser
 * handed over, byte for byte (texts, numbers, line, order), and
 * matcher_actlog_same_field must say "same" exactly when two neighbours'
 * texts are equal and not empty. */
#include <stdio.h>
#include <string.h>

#include "actlog.h"
#include "fuzz_common.h"
#include "trainlog.h"

struct run {
	struct buf t;        /* transcript */
	struct buf et;       /* the entries' part of it */
	unsigned stop_after; /* 0 = never stop */
	unsigned n_calls;
	size_t n_entries;
	unsigned long last_line;
};

static int count_call(struct run *r)
{
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int on_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct run *r = ctx;

	fuzz_put_num(&r->t, "H.total", (unsigned long long)h->total);
	fuzz_put_num(&r->t, "H.has_excluded", (unsigned long long)h->has_excluded);
	fuzz_put_str(&r->t, "H.excluded", h->excluded);
	return count_call(r);
}

/* Every part of entry e, to b. */
static void put_entry(struct buf *b, const struct matcher_entry *e)
{
	fuzz_put_str(b, "E.key", e->key);
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		fuzz_put_str(b, matcher_stat_names[i], e->stats[i]);
		if (e->stat_isnum & (1u << i)) {
			FUZZ_CHECK(e->stats[i] != NULL);
			fuzz_put_dbl(b, "num", e->stat_num[i]);
		}
	}
	fuzz_put_num(b, "isnum", e->stat_isnum);
	fuzz_put_str(b, "out", e->output_hash);
	fuzz_put_str(b, "in", e->input_hashes);
	fuzz_put_str(b, "prod", e->input_producers);
	fuzz_put_str(b, "loc", e->location);
	fuzz_put_str(b, "phase_text", e->phase_text);
	fuzz_put_num(b, "phase", e->phase);
	fuzz_put_num(b, "line", e->line);
	fuzz_put_num(b, "order", e->order);
}

static int on_entry(void *ctx, const struct matcher_entry *e)
{
	struct run *r = ctx;

	FUZZ_CHECK(e->key != NULL);
	FUZZ_CHECK(e->order == r->n_entries);
	FUZZ_CHECK(e->line >= 1 && e->line >= r->last_line);
	FUZZ_CHECK((e->stat_isnum & (1u << MATCHER_STAT_SHAPE)) == 0);
	FUZZ_CHECK((e->stat_isnum >> MATCHER_N_STATS) == 0);
	FUZZ_CHECK(e->phase == MATCHER_FORWARD || e->phase == MATCHER_BACKWARD);
	r->n_entries++;
	r->last_line = e->line;
	put_entry(&r->t, e);
	put_entry(&r->et, e);
	return count_call(r);
}

static int on_warning(void *ctx, const struct matcher_warning *w)
{
	struct run *r = ctx;

	FUZZ_CHECK(w->code != NULL);
	FUZZ_CHECK(w->message != NULL);
	fuzz_put_str(&r->t, "W.code", w->code);
	fuzz_put_num(&r->t, "W.line", w->line);
	fuzz_put_str(&r->t, "W.msg", w->message);
	fuzz_put_str(&r->t, "W.excerpt", w->excerpt);
	return count_call(r);
}

/* Parse payload with the given plan (NULL plan = one feed call); returns
 * the outcome (0 or -1) and leaves the transcript in r->t. */
static int parse(struct run *r, struct fuzz_split *plan, size_t max_line, const uint8_t *payload,
                 size_t n)
{
	struct matcher_actlog_callbacks cb = {r, on_header, on_entry, on_warning};
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(&cb, max_line);
	struct matcher_actlog_summary sum;
	size_t off = 0;
	int rc = 0;

	FUZZ_CHECK(p != NULL);
	if (!plan) {
		rc = matcher_actlog_feed(p, (const char *)payload, n);
	} else {
		while (off < n && rc == 0) {
			size_t len = fuzz_split_next(plan, n - off);

			rc = matcher_actlog_feed(p, (const char *)payload + off, len);
			off += len;
		}
	}
	if (rc == 0) {
		memset(&sum, 0xa5, sizeof sum);
		rc = matcher_actlog_finish(p, &sum);
	} else {
		/* after an error every further call fails too */
		FUZZ_CHECK(matcher_actlog_feed(p, "x\n", 2) == -1);
	}
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_entries == r->n_entries);
		FUZZ_CHECK(sum.header_total >= -1);
		fuzz_put_num(&r->t, "S.entries", sum.n_entries);
		fuzz_put_num(&r->t, "S.lines", sum.n_lines);
		fuzz_put_num(&r->t, "S.unrecognised", sum.n_unrecognised);
		fuzz_put_num(&r->t, "S.warnings", sum.n_warnings);
		fuzz_put_num(&r->t, "S.total", (unsigned long long)sum.header_total);
	} else {
		const struct matcher_error *err = matcher_actlog_error(p);

		FUZZ_CHECK(rc == -1);
		FUZZ_CHECK(err != NULL && err->code != NULL);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	matcher_actlog_parser_free(p);
	return rc;
}

/* The collected log's records give back the parser's entries (want: their
 * transcript), and same_field agrees with the texts of neighbours. */
static void check_records(const struct matcher_actlog *log, const struct buf *want)
{
	struct matcher_entry_view v, w;
	struct buf got = BUF_INIT;

	matcher_entry_view_init(&v);
	matcher_entry_view_init(&w);
	for (size_t i = 0; i < log->n_entries; i++) {
		const struct matcher_entry *e = matcher_actlog_entry(log, i, &v);

		FUZZ_CHECK(e != NULL);
		put_entry(&got, e);
		if (i + 1 == log->n_entries)
			continue;
		const struct matcher_entry *n = matcher_actlog_entry(log, i + 1, &w);

		FUZZ_CHECK(n != NULL);
		for (int f = 0; f < MATCHER_REC_N_FIELDS; f++) {
			const char *x = matcher_entry_field_text(e, f),
			           *y = matcher_entry_field_text(n, f);
			int same = x && y && *x && strcmp(x, y) == 0;

			FUZZ_CHECK(matcher_actlog_same_field(log, i, log, i + 1, f) == same);
		}
	}
	FUZZ_CHECK(got.len == want->len &&
	           (got.len == 0 || memcmp(got.data, want->data, got.len) == 0));
	buf_reset(&got);
	matcher_entry_view_free(&v);
	matcher_entry_view_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split plan;
	const uint8_t *payload;
	size_t n;
	struct run whole = {BUF_INIT, BUF_INIT, 0, 0, 0, 0},
	           chunked = {BUF_INIT, BUF_INIT, 0, 0, 0, 0};
	struct matcher_actlog *log = NULL;
	struct matcher_error err;
	int rc_whole, rc_chunked, rc_buf;
	enum matcher_kind kind;

	if (fuzz_split_init(&plan, data, size, &payload, &n) < 0)
		return 0;
	whole.stop_after = chunked.stop_after = plan.option;
	rc_whole = parse(&whole, NULL, plan.max_line, payload, n);
	rc_chunked = parse(&chunked, &plan, plan.max_line, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole.t, &chunked.t, "actlog whole vs chunked");

	/* the collector with default limits sees what an unstopped parse sees */
	memset(&err, 0, sizeof err);
	rc_buf = matcher_actlog_parse_buffer((const char *)payload, n, &log, &err);
	if (rc_buf == 0) {
		FUZZ_CHECK(log != NULL);
		FUZZ_CHECK(log->summary.n_entries == log->n_entries);
		struct matcher_entry_view v;

		matcher_entry_view_init(&v);
		for (size_t i = 0; i < log->n_entries; i++) {
			const struct matcher_entry *e = matcher_actlog_entry(log, i, &v);

			FUZZ_CHECK(e != NULL && e->key != NULL);
			FUZZ_CHECK(e->order == i);
		}
		matcher_entry_view_free(&v);
		for (size_t i = 0; i + 1 < log->n_excluded; i++)
			FUZZ_CHECK(strcmp(log->excluded[i], log->excluded[i + 1]) < 0);
	} else {
		FUZZ_CHECK(rc_buf == -1 && log == NULL && err.code != NULL);
	}
	if (plan.max_line == 0 && plan.option == 0) {
		FUZZ_CHECK(rc_buf == rc_whole);
		if (rc_buf == 0) {
			FUZZ_CHECK(log->n_entries == whole.n_entries);
			check_records(log, &whole.et);
		}
	}
	matcher_actlog_free(log);

	kind = matcher_detect_kind((const char *)payload, n < 65536 ? n : 65536);
	FUZZ_CHECK(matcher_kind_name(kind) != NULL);

	buf_reset(&whole.t);
	buf_reset(&chunked.t);
	buf_reset(&whole.et);
	buf_reset(&chunked.et);
	return 0;
}
