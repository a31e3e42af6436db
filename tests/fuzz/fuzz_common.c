/* fuzz_common.c - the split plan, transcript writer and failure reporting
 * used by every fuzz target (see fuzz_common.h).  Harness code: it may
 * abort, the code under test may not. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small line limit chosen by bit 3 of the plan byte: long enough for most
 * generated lines, short enough that the fuzzer reaches line_too_long. */
#define FUZZ_SMALL_MAX_LINE 96

void fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
	fflush(stderr);
	abort();
}

int fuzz_split_init(struct fuzz_split *s, const uint8_t *data, size_t size, const uint8_t **payload,
                    size_t *n_payload)
{
	size_t n_sizes;

	if (size < 2)
		return -1;
	n_sizes = (size_t)(data[0] & 7u) + 1;
	if (size < 1 + n_sizes)
		return -1;
	s->sizes = data + 1;
	s->n_sizes = n_sizes;
	s->next = 0;
	s->max_line = (data[0] & 8u) ? FUZZ_SMALL_MAX_LINE : 0;
	s->option = (unsigned)(data[0] >> 4);
	*payload = data + 1 + n_sizes;
	*n_payload = size - 1 - n_sizes;
	return 0;
}

size_t fuzz_split_next(struct fuzz_split *s, size_t left)
{
	size_t want = s->sizes[s->next];

	s->next = (s->next + 1) % s->n_sizes;
	if (want == 0)
		want = 1;
	return want < left ? want : left;
}

static void put_ok(int rc)
{
	FUZZ_CHECK(rc == 0); /* harness OOM */
}

void fuzz_put_str(struct buf *t, const char *tag, const char *s)
{
	if (!s) {
		put_ok(buf_printf(t, "%s=<null>\n", tag));
		return;
	}
	/* length first: the value may hold newlines */
	put_ok(buf_printf(t, "%s[%zu]=", tag, strlen(s)));
	put_ok(buf_puts(t, s));
	put_ok(buf_putc(t, '\n'));
}

void fuzz_put_num(struct buf *t, const char *tag, unsigned long long v)
{
	put_ok(buf_printf(t, "%s=%llu\n", tag, v));
}

void fuzz_put_dbl(struct buf *t, const char *tag, double v)
{
	unsigned long long bits;

	memcpy(&bits, &v, sizeof bits);
	put_ok(buf_printf(t, "%s=%016llx\n", tag, bits));
}

void fuzz_same_transcript(const struct buf *a, const struct buf *b, const char *what)
{
	size_t i = 0, n = a->len < b->len ? a->len : b->len, from;

	if (a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0))
		return;
	while (i < n && a->data[i] == b->data[i])
		i++;
	from = i > 200 ? i - 200 : 0;
	fprintf(stderr,
	        "%s: transcripts differ at byte %zu (lengths %zu, %zu)\n"
	        "--- whole-buffer:\n%.*s\n--- chunked:\n%.*s\n",
	        what, i, a->len, b->len, (int)((a->len - from) > 400 ? 400 : a->len - from),
	        a->data ? a->data + from : "", (int)((b->len - from) > 400 ? 400 : b->len - from),
	        b->data ? b->data + from : "");
	fuzz_fail(__FILE__, __LINE__, what);
}

int fuzz_train_record(struct fuzz_train_run *r, const struct matcher_step_record *s,
                      int lines_increase)
{
	FUZZ_CHECK(s->kind == MATCHER_STEP_NEW && !s->validation && s->n_metrics >= 1);
	FUZZ_CHECK(r->n_rec == 0 ||
	           (s->step > r->last_step && (!lines_increase || s->line > r->last_line)));
	r->n_rec++;
	r->last_step = s->step;
	r->last_line = s->line;
	fuzz_put_num(&r->t, "R.step", (unsigned long long)s->step);
	fuzz_put_num(&r->t, "R.line", s->line);
	for (size_t k = 0; k < s->n_metrics; k++) {
		const struct matcher_metric_value *m = &s->metrics[k];
		FUZZ_CHECK(m->decimals >= 0 && *m->name);
		/* distinct names (small records: pairwise) */
		for (size_t j = 0; j < k && s->n_metrics <= 64; j++)
			FUZZ_CHECK(strcmp(s->metrics[j].name, m->name) != 0);
		fuzz_put_str(&r->t, "M.name", m->name);
		fuzz_put_str(&r->t, "M.text", m->text);
		fuzz_put_dbl(&r->t, "M.value", m->value);
	}
	r->n_calls++;
	return r->stop_after && r->n_calls >= r->stop_after;
}

static int train_parse(const struct fuzz_train_spec *sp, struct fuzz_train_run *r,
                       struct fuzz_split *plan, const uint8_t *data, size_t n)
{
	struct matcher_trainlog_callbacks cb = {r, sp->on_step, sp->on_warning};
	struct matcher_trainsrc *p = matcher_trainsrc_new(
	        sp->src, &cb, sp->rank, sp->use_max_line && plan ? plan->max_line : 0);
	struct matcher_trainlog_summary sum;
	size_t off = 0;
	int rc = 0;
	FUZZ_CHECK(p != NULL);
	while (off < n && rc == 0) {
		size_t len = plan->sizes ? fuzz_split_next(plan, n - off) : n;
		rc = matcher_trainsrc_feed(p, (const char *)data + off, len);
		off += len;
	}
	if (rc == 0)
		rc = matcher_trainsrc_finish(p, &sum);
	fuzz_put_num(&r->t, "rc", (unsigned long long)rc);
	if (rc == 0) {
		FUZZ_CHECK(sum.n_steps == r->n_rec && sum.n_steps > 0 && sum.n_validation == 0 &&
		           sum.n_ranks == 1);
		fuzz_put_num(&r->t, "S.lines", sum.n_lines);
		fuzz_put_num(&r->t, "S.copies", sum.n_copies);
		fuzz_put_num(&r->t, "S.warnings", sum.n_warnings);
		const char *mk, *mv;
		size_t nm = matcher_trainsrc_meta(p, 0, &mk, &mv);
		FUZZ_CHECK(nm <= sp->meta_max);
		for (size_t i = 0; i < nm; i++) {
			FUZZ_CHECK(matcher_trainsrc_meta(p, i, &mk, &mv) == nm);
			FUZZ_CHECK(strlen(mk) >= sp->key_min && strlen(mk) < sp->key_cap &&
			           strlen(mv) < sp->value_cap);
			fuzz_put_str(&r->t, "H.key", mk);
			fuzz_put_str(&r->t, "H.value", mv);
		}
	} else {
		const struct matcher_error *err = matcher_trainsrc_error(p);
		FUZZ_CHECK(rc == -1 && err && err->code);
		FUZZ_CHECK(memchr(err->message, 0, sizeof err->message) != NULL);
		FUZZ_CHECK(matcher_trainsrc_finish(p, NULL) == -1);
		fuzz_put_str(&r->t, "X.code", err->code);
		fuzz_put_num(&r->t, "X.line", err->line);
		fuzz_put_str(&r->t, "X.msg", err->message);
	}
	FUZZ_CHECK(matcher_trainsrc_feed(p, sp->poke, strlen(sp->poke)) == -1);
	matcher_trainsrc_free(p);
	return rc;
}

void fuzz_train_source(const struct fuzz_train_spec *sp, struct fuzz_split *plan,
                       const uint8_t *payload, size_t n)
{
	struct fuzz_split whole_plan = {0};
	struct fuzz_train_run *whole = calloc(1, sp->run_size), *chunked = calloc(1, sp->run_size);
	FUZZ_CHECK(whole && chunked && sp->run_size >= sizeof *whole);
	buf_init(&whole->t);
	buf_init(&chunked->t);
	whole->stop_after = chunked->stop_after = plan->option;
	whole_plan.max_line = plan->max_line;
	int rc_whole = train_parse(sp, whole, &whole_plan, payload, n);
	int rc_chunked = train_parse(sp, chunked, plan, payload, n);
	FUZZ_CHECK(rc_whole == rc_chunked);
	fuzz_same_transcript(&whole->t, &chunked->t, sp->name);
	buf_reset(&whole->t);
	buf_reset(&chunked->t);
	free(whole);
	free(chunked);
}
