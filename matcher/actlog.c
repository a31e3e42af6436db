/* actlog.c - the activation-log push parser, the collected in-memory log
 * and the number parser shared with the training-log parser.
 *
 * The parser splits its input into lines with memchr and classifies each
 * line on its own; only the bytes of an unfinished line (bounded by
 * max_line) and the fields of the current block are held, in buffers that
 * are reused for the whole file, so memory does not grow with the input
 * (except for the set of keys seen, needed for duplicate detection:
 * 12-24 bytes a key, see struct key_slot).
 * Complete lines inside a chunk are parsed in place without copying.
 *
 * Decisions the spec leaves open (all chunking-independent):
 *  - Line length is counted without the LF but with a CR before it; NUL
 *    bytes are looked for in the first max_line bytes of a line.  A line
 *    holding a NUL there is "binary_data", a longer one "line_too_long".
 *  - Before the first block, lines other than the header lines are
 *    ignored silently (not counted as unrecognised).  After a '[' line
 *    without ']', every line up to the next blank line or '[' line is
 *    ignored silently.
 *  - Stat lines are recognised by their name at the start of the line
 *    (leading blanks skipped, indentation not required); a field given
 *    twice in one block keeps the last value.
 *  - For the other fields, the value is the text after the first
 *    occurrence of "Name:" on the line, trimmed (for the usual line,
 *    where the name starts it, that is the line without its prefix).
 *  - "Phase: backward" (any case) is BACKWARD, anything else FORWARD; a
 *    value other than forward/backward (any case) keeps its text
 *    (matcher_entry.phase_text) and warns unknown_phase.
 *  - not_activation_log: no header line ("Total captured activations:"
 *    or "Excluded ops dispatched:") and no block that looks like an op
 *    block (key containing "/op_", or at least one recognised field
 *    line).  Without the second condition every "[rank0]:" training log
 *    would parse as an activation log full of junk blocks.
 *  - no_header is reported at the first block's line; count_mismatch at
 *    finish with line 0.
 *  - feed after finish is a caller bug: -1 with error code "callback".
 *  - Numbers that miss the exact fast path go through strtod: the process
 *    must keep LC_NUMERIC "C". */
#include "actlog.h"
#include "strmap.h"
#include "msprobe.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const matcher_stat_names[MATCHER_N_STATS] = {
        "Shape", "L1 norm", "L2 norm", "Min", "Max", "Mean",
};

/* ---- small text helpers ----------------------------------------------- */

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *end)
{
	while (end > s && is_blank(end[-1]))
		end--;
	return end;
}

static int has_prefix(const char *s, size_t n, const char *pre, size_t pre_len)
{
	return n >= pre_len && memcmp(s, pre, pre_len) == 0;
}

#define LIT(s) (s), (sizeof(s) - 1)

/* ---- numbers ---------------------------------------------------------- */

/* Parse trimmed text s[0..n): sign, digits with optional fraction (at
 * least one digit), optional exponent with digits; or nan / inf /
 * infinity with an optional sign, any case.  1 and *out set, or 0.
 *
 * Most values ("6.571766e+02") take Clinger's fast path: when the decimal
 * mantissa is below 2^53 and the power of ten within 10^+-22, both are
 * exact doubles and one multiplication or division rounds correctly, so
 * the result is the one strtod gives.  Everything else goes to strtod on
 * a NUL-terminated copy. */
/* The powers of ten that are exact doubles. */
static const double pow10[23] = {
        1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

static int parse_trimmed(const char *s, size_t n, double *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < n && (s[i] == '+' || s[i] == '-')) {
		neg = s[i] == '-';
		i++;
	}
	size_t rest = n - i;
	if (rest == 3 && strncasecmp(s + i, "nan", 3) == 0) {
		*out = (double)NAN;
		return 1;
	}
	if ((rest == 3 && strncasecmp(s + i, "inf", 3) == 0) ||
	    (rest == 8 && strncasecmp(s + i, "infinity", 8) == 0)) {
		*out = neg ? -(double)INFINITY : (double)INFINITY;
		return 1;
	}
	uint64_t m = 0;
	int exact = 1; /* m holds every digit */
	long exp10 = 0;
	size_t digits = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (m < 100000000000000000ull)
			m = m * 10 + (uint64_t)(s[i] - '0');
		else
			exact = 0;
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (m < 100000000000000000ull) {
				m = m * 10 + (uint64_t)(s[i] - '0');
				exp10--;
			} else {
				exact = 0;
			}
		}
	}
	if (!digits)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		int eneg = 0;
		if (i < n && (s[i] == '+' || s[i] == '-')) {
			eneg = s[i] == '-';
			i++;
		}
		size_t edigits = 0;
		long e = 0;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
			if (e < 100000)
				e = e * 10 + (s[i] - '0');
		if (!edigits)
			return 0;
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return 0;
	if (exact && m < (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
		double v = (double)m;
		v = exp10 < 0 ? v / pow10[-exp10] : v * pow10[exp10];
		*out = neg ? -v : v;
		return 1;
	}
	char small[64];
	char *z = small;
	if (n >= sizeof small) {
		z = malloc(n + 1);
		if (!z)
			return 0;
	}
	memcpy(z, s, n);
	z[n] = 0;
	*out = strtod(z, NULL);
	if (z != small)
		free(z);
	return 1;
}

int matcher_parse_number(const char *s, size_t n, double *out)
{
	if (!s)
		return 0;
	const char *b = skip_blanks(s, s + n);
	const char *e = trim_end(b, s + n);
	return parse_trimmed(b, (size_t)(e - b), out);
}

/* ---- the parser ------------------------------------------------------- */

enum wcode {
	W_UNKNOWN,
	W_UNCLOSED,
	W_BADNUM,
	W_DUPKEY,
	W_COUNT,
	W_NOHEADER,
	W_PHASE,
	W_EMPTYKEY,
	W_N
};
static const char *const wcode_names[W_N] = {
        "unknown_line",   "unclosed_key", "bad_number",    "duplicate_key",
        "count_mismatch", "no_header",    "unknown_phase", "empty_key",
};

/* Non-stat fields, in the order the spec checks them. */
enum field { F_LOCATION, F_PHASE, F_OUTHASH, F_INHASH, F_INPROD, F_N };
static const struct {
	const char *name;
	size_t len;
} field_names[F_N] = {
        {LIT("Location")},     {LIT("Phase")},           {LIT("Output hash")},
        {LIT("Input hashes")}, {LIT("Input producers")},
};
static const size_t stat_name_len[MATCHER_N_STATS] = {5, 7, 7, 3, 3, 4};

#define NO_OFF ((size_t)-1)

/* One key seen so far (for duplicate_key).  Only a 64-bit hash is kept,
 * not the key: 12 bytes a key instead of the key's text (the hash in two
 * halves keeps the slot 4-byte aligned, so a table of 86k keys is 1.5 MB,
 * not 2).  Two different keys share a hash with probability ~n^2/2^65
 * (1e-8 at a million keys); the cost of that is one spurious
 * duplicate_key warning. */
struct key_slot {
	uint32_t hash_lo, hash_hi; /* 0 and 0 = empty slot */
	uint32_t line;             /* first line the key was seen on
	                              (UINT32_MAX: that or later) */
};

static uint64_t slot_hash(const struct key_slot *s)
{
	return (uint64_t)s->hash_hi << 32 | s->hash_lo;
}

enum state { ST_HEADER, ST_OUTSIDE, ST_BLOCK, ST_SKIP };

struct matcher_actlog_parser {
	struct matcher_actlog_callbacks cb;
	size_t max_line;
	int failed;
	int finished;
	struct matcher_error err;
	/* an msprobe dump.json (first byte `{`) goes to its own parser; the
	 * bytes before the deciding one (BOM, blanks) are held until then */
	int sniffed;
	struct buf held;
	struct matcher_msprobe_parser *dump;
	struct matcher_actlog_summary dump_sum;

	struct buf partial;    /* unfinished line carried across chunks */
	unsigned long line_no; /* lines completed so far */
	enum state state;

	/* header */
	long total;
	int seen_total_line;
	int has_excluded;
	struct buf excluded;
	int header_sent;

	/* current block: strings back to back in blk, NUL-separated */
	struct buf blk;
	size_t key_off;
	size_t stat_off[MATCHER_N_STATS];
	double stat_num[MATCHER_N_STATS];
	unsigned stat_isnum;
	size_t field_off[F_N];
	unsigned long blk_line;
	int blk_fields; /* recognised field lines in the block */
	int blk_op_key; /* key contains "/op_" */

	/* counters */
	size_t n_entries;
	size_t n_op_blocks;
	unsigned long n_unrecognised;
	size_t n_warnings;
	size_t n_wcode[W_N];

	/* duplicate detection */
	struct key_slot *slots;
	size_t n_slots; /* power of two, or 0 */
	size_t n_keys;
	/* the current block's key, not yet looked up (see key_check_later) */
	int key_pending;
	uint64_t key_pending_hash;
	unsigned long key_pending_line;
	char key_pending_excerpt[204];

	char msg[256];
	char excerpt[204];
};

int matcher_error_fail(struct matcher_error *e, int *dead, const char *code, unsigned long line,
                       const char *fmt, ...)
{
	va_list ap;
	if (*dead)
		return -1;
	*dead = 1;
	e->code = code;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	return -1;
}

static void set_error(struct matcher_actlog_parser *p, const char *code, unsigned long line,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void set_error(struct matcher_actlog_parser *p, const char *code, unsigned long line,
                      const char *fmt, ...)
{
	va_list ap;
	p->failed = 1;
	p->err.code = code;
	p->err.line = line;
	va_start(ap, fmt);
	vsnprintf(p->err.message, sizeof p->err.message, fmt, ap);
	va_end(ap);
}

static void set_oom(struct matcher_actlog_parser *p)
{
	set_error(p, "oom", p->line_no, "out of memory while parsing line %lu", p->line_no);
}

static int callback_failed(struct matcher_actlog_parser *p, const char *what)
{
	set_error(p, "callback", p->line_no, "%s callback stopped parsing at line %lu", what,
	          p->line_no);
	return -1;
}

/* Copy at most 200 bytes of the line into dst (204 bytes), not cutting a
 * UTF-8 sequence in half. */
static const char *cut_excerpt(char *dst, const char *s, size_t n)
{
	if (n > 200) {
		n = 200;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, s, n);
	dst[n] = 0;
	return dst;
}

static const char *make_excerpt(struct matcher_actlog_parser *p, const char *s, size_t n)
{
	return cut_excerpt(p->excerpt, s, n);
}

/* Report (or only count, past the cap) a warning.  The message is
 * formatted only when it is reported. */
static int warn(struct matcher_actlog_parser *p, enum wcode code, unsigned long line,
                const char *ex, size_t ex_len, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));

static int key_check_now(struct matcher_actlog_parser *p);

static int warn(struct matcher_actlog_parser *p, enum wcode code, unsigned long line,
                const char *ex, size_t ex_len, const char *fmt, ...)
{
	/* a block key's pending duplicate check warns first: it came first */
	if (p->key_pending && key_check_now(p) < 0)
		return -1;
	p->n_warnings++;
	if (p->n_wcode[code]++ >= MATCHER_MAX_WARNINGS_PER_CODE || !p->cb.on_warning)
		return 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
	struct matcher_warning w = {
	        .code = wcode_names[code],
	        .line = line,
	        .message = p->msg,
	        .excerpt = ex ? make_excerpt(p, ex, ex_len) : "",
	};
	if (p->cb.on_warning(p->cb.ctx, &w))
		return callback_failed(p, "warning");
	return 0;
}

struct matcher_actlog_parser *matcher_actlog_parser_new(const struct matcher_actlog_callbacks *cb,
                                                        size_t max_line)
{
	struct matcher_actlog_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->max_line = max_line ? max_line : MATCHER_MAX_LINE_DEFAULT;
	p->state = ST_HEADER;
	p->total = -1;
	buf_init(&p->partial);
	buf_init(&p->excluded);
	buf_init(&p->blk);
	return p;
}

void matcher_actlog_parser_free(struct matcher_actlog_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->partial);
	buf_reset(&p->excluded);
	buf_reset(&p->blk);
	free(p->slots);
	matcher_msprobe_parser_free(p->dump);
	buf_reset(&p->held);
	free(p);
}

const struct matcher_error *matcher_actlog_error(const struct matcher_actlog_parser *p)
{
	return &p->err;
}

/* The strmap hash (word at a time), forced non-zero (0 marks an empty
 * slot). */
static uint64_t key_hash(const char *s, size_t n)
{
	uint64_t h = matcher_strmap_hash(s, n);
	return h ? h : 1;
}

/* Largest table pre-sized from a header count (slots): 2^21 slots of 12
 * bytes = 24 MiB, enough for ~1.5M ops without growing. */
#define KEY_PRESIZE_MAX ((size_t)1 << 21)

/* Rehash into a table of ns slots (a power of two).  0 or -1 on OOM. */
static int key_rehash(struct matcher_actlog_parser *p, size_t ns)
{
	struct key_slot *s = matcher_zalloc(ns, sizeof *s);
	if (!s)
		return -1;
	for (size_t i = 0; i < p->n_slots; i++) {
		uint64_t h = slot_hash(&p->slots[i]);

		if (!h)
			continue;
		size_t j = (size_t)h & (ns - 1);
		while (slot_hash(&s[j]))
			j = (j + 1) & (ns - 1);
		s[j] = p->slots[i];
	}
	free(p->slots);
	p->slots = s;
	p->n_slots = ns;
	return 0;
}

/* Make room for n keys at load factor <= 3/4 (capped, see above). */
static int key_reserve(struct matcher_actlog_parser *p, size_t n)
{
	size_t ns = 1024;
	while (3 * ns < 4 * n && ns < KEY_PRESIZE_MAX)
		ns *= 2;
	return ns > p->n_slots ? key_rehash(p, ns) : 0;
}

/* Remember the key hash h; 0 when new, 1 when seen before (*first = its
 * line), -1 on OOM. */
static int key_seen(struct matcher_actlog_parser *p, uint64_t h, unsigned long line,
                    unsigned long *first)
{
	if (4 * (p->n_keys + 1) > 3 * p->n_slots &&
	    key_rehash(p, p->n_slots ? p->n_slots * 2 : 1024) < 0)
		return -1;
	size_t j = (size_t)h & (p->n_slots - 1);
	uint64_t at;

	while ((at = slot_hash(&p->slots[j])) != 0) {
		if (at == h) {
			*first = p->slots[j].line;
			return 1;
		}
		j = (j + 1) & (p->n_slots - 1);
	}
	p->slots[j] = (struct key_slot){(uint32_t)h, (uint32_t)(h >> 32),
	                                line < UINT32_MAX ? (uint32_t)line : UINT32_MAX};
	p->n_keys++;
	return 0;
}

/* The duplicate check of a block's key is made when the block ends (or
 * before any warning comes, so warnings keep their order): the slot it
 * probes, a cache miss in a table of a few MB, is prefetched at the key
 * line and has arrived by then.  The excerpt (the key line) is kept. */
static void key_check_later(struct matcher_actlog_parser *p, const char *k, size_t klen,
                            const char *s, size_t n, unsigned long line)
{
	p->key_pending = 1;
	p->key_pending_hash = key_hash(k, klen);
	p->key_pending_line = line;
	cut_excerpt(p->key_pending_excerpt, s, n);
	if (p->n_slots)
		__builtin_prefetch(&p->slots[(size_t)p->key_pending_hash & (p->n_slots - 1)]);
}

static int key_check_now(struct matcher_actlog_parser *p)
{
	unsigned long first = 0;
	int seen;

	p->key_pending = 0;
	seen = key_seen(p, p->key_pending_hash, p->key_pending_line, &first);
	if (seen < 0) {
		set_oom(p);
		return -1;
	}
	if (seen)
		return warn(p, W_DUPKEY, p->key_pending_line, p->key_pending_excerpt,
		            strlen(p->key_pending_excerpt),
		            "duplicate key (first seen at line %lu); both kept", first);
	return 0;
}

static int send_header(struct matcher_actlog_parser *p)
{
	if (p->header_sent)
		return 0;
	p->header_sent = 1;
	if (!p->cb.on_header)
		return 0;
	struct matcher_actlog_header h = {
	        .total = p->total,
	        .has_excluded = p->has_excluded,
	        .excluded = p->has_excluded ? (p->excluded.data ? p->excluded.data : "") : NULL,
	};
	if (p->cb.on_header(p->cb.ctx, &h))
		return callback_failed(p, "header");
	return 0;
}

/* Hand the current block (if any) to on_entry and go outside. */
static int end_block(struct matcher_actlog_parser *p)
{
	if (p->state != ST_BLOCK) {
		if (p->state == ST_SKIP)
			p->state = ST_OUTSIDE;
		return 0;
	}
	p->state = ST_OUTSIDE;
	if (p->key_pending && key_check_now(p) < 0)
		return -1;
	if (p->blk_op_key || p->blk_fields)
		p->n_op_blocks++;
	struct matcher_entry e;
	memset(&e, 0, sizeof e);
	const char *base = p->blk.data;
	e.key = base + p->key_off;
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		if (p->stat_off[i] == NO_OFF)
			continue;
		e.stats[i] = base + p->stat_off[i];
		e.stat_num[i] = p->stat_num[i];
	}
	e.stat_isnum = p->stat_isnum;
	const char **dst[F_N] = {&e.location, NULL, &e.output_hash, &e.input_hashes,
	                         &e.input_producers};
	for (int f = 0; f < F_N; f++) {
		if (p->field_off[f] == NO_OFF)
			continue;
		const char *v = base + p->field_off[f];
		if (f == F_PHASE) {
			e.phase =
			        strcasecmp(v, "backward") == 0 ? MATCHER_BACKWARD : MATCHER_FORWARD;
			e.phase_text = v;
		} else
			*dst[f] = v;
	}
	e.line = p->blk_line;
	e.order = p->n_entries++;
	if (p->cb.on_entry && p->cb.on_entry(p->cb.ctx, &e))
		return callback_failed(p, "entry");
	return 0;
}

/* Append a value to the block buffer; returns its offset or NO_OFF. */
static size_t blk_put(struct matcher_actlog_parser *p, const char *s, size_t n)
{
	size_t off = p->blk.len;
	if (buf_reserve(&p->blk, n + 1) < 0)
		return NO_OFF;
	memcpy(p->blk.data + off, s, n);
	p->blk.data[off + n] = 0;
	p->blk.len = off + n + 1;
	return off;
}

static int start_block(struct matcher_actlog_parser *p, const char *s, size_t n)
{
	if (end_block(p) < 0)
		return -1;
	unsigned long line = p->line_no;
	if (!p->header_sent) {
		if (send_header(p) < 0)
			return -1;
		if (!p->seen_total_line &&
		    warn(p, W_NOHEADER, line, NULL, 0,
		         "no \"Total captured activations\" header before the first block") < 0)
			return -1;
	}
	const char *close = n > 1 ? memrchr(s + 1, ']', n - 1) : NULL;
	if (!close) {
		p->state = ST_SKIP;
		return warn(p, W_UNCLOSED, line, s, n,
		            "block key without a closing ']': block ignored");
	}
	const char *k = s + 1;
	size_t klen = (size_t)(close - k);
	if (!klen && warn(p, W_EMPTYKEY, line, s, n, "empty block key \"[]\" (block kept)") < 0)
		return -1;
	buf_clear(&p->blk);
	p->key_off = blk_put(p, k, klen);
	if (p->key_off == NO_OFF) {
		set_oom(p);
		return -1;
	}
	for (int i = 0; i < MATCHER_N_STATS; i++) {
		p->stat_off[i] = NO_OFF;
		p->stat_num[i] = 0;
	}
	p->stat_isnum = 0;
	for (int f = 0; f < F_N; f++)
		p->field_off[f] = NO_OFF;
	p->blk_line = line;
	p->blk_fields = 0;
	p->blk_op_key = klen >= 4 && memmem(k, klen, "/op_", 4) != NULL;
	p->state = ST_BLOCK;
	key_check_later(p, k, klen, s, n, line);
	return 0;
}

/* Header region: the two header lines; anything else is ignored. */
static int header_line(struct matcher_actlog_parser *p, const char *t, const char *end)
{
	size_t m = (size_t)(end - t);
	if (has_prefix(t, m, LIT("Total captured activations:"))) {
		const char *v = skip_blanks(t + 27, end);
		size_t vlen = (size_t)(end - v);
		p->seen_total_line = 1;
		p->total = -1;
		long total = 0;
		size_t i = 0;
		for (; i < vlen && v[i] >= '0' && v[i] <= '9' && total < 1000000000000L; i++)
			total = total * 10 + (v[i] - '0');
		if (i == vlen && vlen > 0) {
			p->total = total;
			/* Size the duplicate-key set for the announced count now: a
			 * rehash would hold the old and the new table at once, the
			 * largest allocation of a big upload.  A lying header costs
			 * at most KEY_PRESIZE_MAX slots. */
			if (total > 0 && key_reserve(p, (size_t)total) < 0) {
				set_oom(p);
				return -1;
			}
		} else
			return warn(p, W_BADNUM, p->line_no, t, m,
			            "activation count in the header is not a number");
		return 0;
	}
	if (has_prefix(t, m, LIT("Excluded ops dispatched:"))) {
		const char *v = skip_blanks(t + 24, end);
		p->has_excluded = 1;
		buf_clear(&p->excluded);
		if (buf_append(&p->excluded, v, (size_t)(end - v)) < 0) {
			set_oom(p);
			return -1;
		}
	}
	return 0;
}

static int unknown_line(struct matcher_actlog_parser *p, const char *s, size_t n)
{
	p->n_unrecognised++;
	return warn(p, W_UNKNOWN, p->line_no, s, n, "unrecognised line ignored");
}

/* A line inside a block (t: first non-blank, end: trimmed end). */
static int field_line(struct matcher_actlog_parser *p, const char *s, size_t n, const char *t,
                      const char *end)
{
	size_t m = (size_t)(end - t);
	/* stat lines: the name starts the line */
	int stat = -1;
	switch (*t) {
	case 'S': stat = MATCHER_STAT_SHAPE; break;
	case 'L': stat = has_prefix(t, m, LIT("L1")) ? MATCHER_STAT_L1 : MATCHER_STAT_L2; break;
	case 'M':
		stat = m > 1 && t[1] == 'i'   ? MATCHER_STAT_MIN
		       : m > 1 && t[1] == 'a' ? MATCHER_STAT_MAX
		                              : MATCHER_STAT_MEAN;
		break;
	}
	if (stat >= 0) {
		size_t L = stat_name_len[stat];
		if (m > L && t[L] == ':' && memcmp(t, matcher_stat_names[stat], L) == 0) {
			const char *v = skip_blanks(t + L + 1, end);
			size_t vlen = (size_t)(end - v);
			size_t off = blk_put(p, v, vlen);
			if (off == NO_OFF) {
				set_oom(p);
				return -1;
			}
			p->stat_off[stat] = off;
			p->blk_fields++;
			if (stat == MATCHER_STAT_SHAPE)
				return 0;
			unsigned bit = 1u << stat;
			if (parse_trimmed(v, vlen, &p->stat_num[stat])) {
				p->stat_isnum |= bit;
				return 0;
			}
			p->stat_isnum &= ~bit;
			p->stat_num[stat] = 0;
			return warn(p, W_BADNUM, p->line_no, s, n,
			            "%s value is not a number (kept as text)",
			            matcher_stat_names[stat]);
		}
	}
	/* other fields: the name anywhere on the line, first field in spec
	 * order wins; one pass over the colons finds every candidate */
	const char *at[F_N] = {NULL, NULL, NULL, NULL, NULL};
	const char *c = t;
	while ((c = memchr(c, ':', (size_t)(end - c))) != NULL) {
		/* every field name ends in 'n', 'e', 'h' or 's' */
		char last = c > t ? c[-1] : 0;
		if (last != 'n' && last != 'e' && last != 'h' && last != 's') {
			c++;
			continue;
		}
		for (int f = 0; f < F_N; f++) {
			size_t L = field_names[f].len;
			/* the first letter first: most names are ruled out without
			 * a call */
			if (!at[f] && (size_t)(c - t) >= L && *(c - L) == field_names[f].name[0] &&
			    memcmp(c - L, field_names[f].name, L) == 0)
				at[f] = c + 1;
		}
		c++;
	}
	for (int f = 0; f < F_N; f++) {
		if (!at[f])
			continue;
		const char *v = skip_blanks(at[f], end);
		size_t off = blk_put(p, v, (size_t)(end - v));
		if (off == NO_OFF) {
			set_oom(p);
			return -1;
		}
		p->field_off[f] = off;
		p->blk_fields++;
		if (f == F_PHASE && strcasecmp(p->blk.data + off, "forward") != 0 &&
		    strcasecmp(p->blk.data + off, "backward") != 0)
			return warn(p, W_PHASE, p->line_no, s, n,
			            "Phase value is neither forward nor backward (text kept; "
			            "matched as forward)");
		return 0;
	}
	return unknown_line(p, s, n);
}

/* One complete line, without its LF. */
static int process_line(struct matcher_actlog_parser *p, const char *s, size_t n)
{
	p->line_no++;
	if (n && s[n - 1] == '\r')
		n--;
	if (p->line_no == 1 && has_prefix(s, n, LIT("\xEF\xBB\xBF"))) {
		s += 3;
		n -= 3;
	}
	const char *end = s + n;
	const char *t = skip_blanks(s, end);
	if (t == end)
		return end_block(p);
	if (*s == '[')
		return start_block(p, s, n);
	end = trim_end(t, end);
	switch (p->state) {
	case ST_HEADER: return header_line(p, t, end);
	case ST_SKIP: return 0;
	case ST_OUTSIDE: return unknown_line(p, s, n);
	case ST_BLOCK: return field_line(p, s, n, t, end);
	}
	return 0;
}

/* Check the next seg bytes of the current line (the line already holds
 * p->partial.len bytes); nul is the first NUL of the chunk or NULL. */
static int check_segment(struct matcher_actlog_parser *p, const char *seg, size_t n,
                         const char *nul)
{
	size_t before = p->partial.len;
	if (nul && nul >= seg && nul < seg + n && before + (size_t)(nul - seg) < p->max_line) {
		set_error(p, "binary_data", p->line_no + 1,
		          "NUL byte at line %lu: binary data, not a text log", p->line_no + 1);
		return -1;
	}
	if (n > p->max_line - before) {
		set_error(p, "line_too_long", p->line_no + 1, "line %lu is longer than %zu bytes",
		          p->line_no + 1, p->max_line);
		return -1;
	}
	return 0;
}

/* The dump parser's result: its error becomes this parser's. */
static int dump_result(struct matcher_actlog_parser *p, int rc)
{
	if (rc < 0) {
		p->err = *matcher_msprobe_error(p->dump);
		p->failed = 1;
	}
	return rc;
}

/* Blanks held before the format is decided at most (then: text). */
#define SNIFF_MAX 65536

/* The format of a log starting with s[0..n): 1 an msprobe dump (its first
 * byte after a UTF-8 BOM and blanks is `{`, within SNIFF_MAX bytes), 0
 * text, -1 not known yet (a BOM prefix and blanks only so far).  A function of
 * the bytes alone, so any chunking decides alike. */
static int sniff(const char *s, size_t n)
{
	static const char bom[] = "\xEF\xBB\xBF";
	size_t i = 0;
	while (i < 3 && i < n && s[i] == bom[i])
		i++;
	if (i < 3 && i == n)
		return -1; /* a BOM prefix so far */
	if (i < 3)
		i = 0;
	while (i < n && i < SNIFF_MAX &&
	       (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
		i++;
	if (i == SNIFF_MAX)
		return 0;
	if (i == n)
		return -1;
	return s[i] == '{';
}

/* Held bytes and this chunk until the format is known: 1 (*data, *n now
 * the held bytes to parse; p->dump set for a dump), 0 still undecided
 * (all held), -1 OOM. */
static int decide_format(struct matcher_actlog_parser *p, const char **data, size_t *n)
{
	if (buf_append(&p->held, *data, *n) < 0) {
		set_oom(p);
		return -1;
	}
	int f = sniff(p->held.data, p->held.len);
	if (f < 0)
		return 0;
	p->sniffed = 1;
	*data = p->held.data;
	*n = p->held.len;
	if (f == 1 && !(p->dump = matcher_msprobe_parser_new(&p->cb, 0, NULL))) {
		set_oom(p);
		return -1;
	}
	return 1;
}

static int feed_text(struct matcher_actlog_parser *p, const char *data, size_t n);

int matcher_actlog_feed(struct matcher_actlog_parser *p, const char *data, size_t n)
{
	if (p->failed)
		return -1;
	if (p->finished) {
		set_error(p, "callback", p->line_no, "feed after finish");
		return -1;
	}
	if (!n)
		return 0;
	int held = 0;
	if (!p->sniffed) {
		int rc = decide_format(p, &data, &n);
		if (rc <= 0)
			return rc;
		held = 1;
	}
	int rc = p->dump ? dump_result(p, matcher_msprobe_feed(p->dump, data, n))
	                 : feed_text(p, data, n);
	if (held)
		buf_reset(&p->held);
	return rc;
}

/* Lines of a text log (the numerics tracer's format). */
static int feed_text(struct matcher_actlog_parser *p, const char *data, size_t n)
{
	const char *end = data + n;
	const char *nul = memchr(data, 0, n);
	const char *cur = data;
	while (cur < end) {
		const char *nl = memchr(cur, '\n', (size_t)(end - cur));
		const char *seg_end = nl ? nl : end;
		size_t seg = (size_t)(seg_end - cur);
		if (check_segment(p, cur, seg, nul) < 0)
			return -1;
		if (!nl || p->partial.len) {
			if (buf_append(&p->partial, cur, seg) < 0) {
				set_oom(p);
				return -1;
			}
			if (!nl)
				break;
			int rc = process_line(p, p->partial.data, p->partial.len);
			buf_clear(&p->partial);
			if (rc < 0)
				return -1;
		} else if (process_line(p, cur, seg) < 0) {
			return -1;
		}
		cur = nl + 1;
	}
	return 0;
}

int matcher_actlog_finish(struct matcher_actlog_parser *p, struct matcher_actlog_summary *out)
{
	if (p->failed)
		return -1;
	if (!p->sniffed && p->held.len) {
		/* blanks only: the text parser's */
		p->sniffed = 1;
		int rc = feed_text(p, p->held.data, p->held.len);
		buf_reset(&p->held);
		if (rc < 0)
			return -1;
	}
	if (p->dump) {
		if (!p->finished) {
			p->finished = 1;
			if (dump_result(p, matcher_msprobe_finish(p->dump, &p->dump_sum)) < 0)
				return -1;
		}
		if (out)
			*out = p->dump_sum;
		return 0;
	}
	if (!p->finished) {
		p->finished = 1;
		if (p->partial.len) {
			int rc = process_line(p, p->partial.data, p->partial.len);
			buf_clear(&p->partial);
			if (rc < 0)
				return -1;
		}
		if (end_block(p) < 0)
			return -1;
		if (!p->seen_total_line && !p->has_excluded && p->n_op_blocks == 0) {
			set_error(p, "not_activation_log", 0,
			          "no activation header and no op block: not an activation log");
			return -1;
		}
		if (send_header(p) < 0)
			return -1;
		if (p->total >= 0 && (size_t)p->total != p->n_entries) {
			int fewer = (size_t)p->total > p->n_entries;
			if (warn(p, W_COUNT, 0, NULL, 0,
			         "header says %ld activations but the log has %zu blocks%s",
			         p->total, p->n_entries, fewer ? " (truncated)" : "") < 0)
				return -1;
		}
	}
	if (out) {
		out->n_entries = p->n_entries;
		out->n_lines = p->line_no;
		out->n_unrecognised = p->n_unrecognised;
		out->n_warnings = p->n_warnings;
		out->header_total = p->total;
	}
	return 0;
}

/* ---- the collected log ------------------------------------------------ */

static void strtab_init(struct matcher_strtab *t)
{
	memset(t, 0, sizeof(*t));
	matcher_idset_init(&t->map);
	matcher_idset_init(&t->map_op);
	arena_init(&t->text);
}

static void strtab_free(struct matcher_strtab *t)
{
	free(t->str);
	free(t->len);
	matcher_idset_reset(&t->map);
	matcher_idset_reset(&t->map_op);
	arena_reset(&t->text);
}

/* The id of s[0..n) in t (looked up in map, t->map or t->map_op),
 * interned on first sight.  0 or -1 (OOM / 2^32 ids). */
static int strtab_id_in(struct matcher_strtab *t, struct matcher_idset *map, const char *s,
                        size_t n, uint32_t *id)
{
	uint64_t h = matcher_strmap_hash(s, n);
	int64_t got;

	/* a sealed table has no maps: rebuild this one with every string (a
	 * string of the other kind in it is harmless: same text, same id) */
	if (t->n && !map->cap) {
		if (matcher_idset_reserve(map, t->n) < 0)
			return -1;
		for (size_t i = 0; i < t->n; i++)
			if (matcher_idset_add(map, matcher_strmap_hash(t->str[i], t->len[i]),
			                      (uint32_t)i) < 0)
				return -1;
	}
	got = matcher_idset_get(map, h, s, n, t->str, t->len);
	if (got >= 0) {
		*id = (uint32_t)got;
		return 0;
	}
	/* the other map may know the text already: one id per text */
	struct matcher_idset *other = map == &t->map ? &t->map_op : &t->map;

	if ((got = matcher_idset_get(other, h, s, n, t->str, t->len)) >= 0) {
		*id = (uint32_t)got;
		return matcher_idset_add(map, h, *id);
	}
	if (t->n >= MATCHER_REC_NONE - 1 || n >= MATCHER_REC_NONE)
		return -1;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 256;
		const char **ns = realloc(t->str, nc * sizeof(*ns));

		if (!ns)
			return -1;
		t->str = ns;
		uint32_t *nl = realloc(t->len, nc * sizeof(*nl));

		if (!nl)
			return -1;
		t->len = nl;
		t->cap = nc;
	}
	char *copy = arena_strndup(&t->text, s, n);

	if (!copy || matcher_idset_add(map, h, (uint32_t)t->n) < 0)
		return -1;
	t->str[t->n] = copy;
	t->len[t->n] = (uint32_t)n;
	*id = (uint32_t)t->n++;
	return 0;
}

/* Whether id h (or MATCHER_REC_NONE) is the text s[0..n). */
static int hint_is(const struct matcher_strtab *t, uint32_t h, const char *s, size_t n)
{
	return h != MATCHER_REC_NONE && t->len[h] == n && memcmp(t->str[h], s, n) == 0;
}

/* strtab_id_in, trying *hint (the id this field had last time) first. */
static int strtab_id_hint(struct matcher_strtab *t, struct matcher_idset *map, const char *s,
                          size_t n, uint32_t *hint, uint32_t *id)
{
	if (hint_is(t, *hint, s, n)) {
		*id = *hint;
		return 0;
	}
	if (strtab_id_in(t, map, s, n, id) < 0)
		return -1;
	*hint = *id;
	return 0;
}

/* Hint slots beyond the fields. */
enum {
	HINT_KEY_PRE = MATCHER_REC_N_FIELDS,
	HINT_KEY_OP,
	HINT_PROD_PRE,
	HINT_PROD_OP,
	HINT_PREV_PRE, /* the previous entry's key: the usual first producer */
	HINT_PREV_OP
};

struct matcher_actlog *matcher_actlog_new(void)
{
	struct matcher_actlog *log = calloc(1, sizeof *log);
	if (!log)
		return NULL;
	memset(log->hint, 0xFF, sizeof(log->hint));
	memset(log->recent_pre, 0xFF, sizeof(log->recent_pre));
	log->header_total = -1;
	log->summary.header_total = -1;
	strtab_init(&log->strs);
	arena_init(&log->arena);
	return log;
}

void matcher_actlog_free(struct matcher_actlog *log)
{
	if (!log)
		return;
	free(log->recs);
	free(log->orders);
	free(log->lists);
	strtab_free(&log->strs);
	free(log->warnings);
	free(log->excluded);
	arena_reset(&log->arena);
	free(log);
}

/* Shrink *items (cap items of size bytes) to n items (at least one). */
static void shrink(void **items, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (!n || n >= *cap || !(q = realloc(*items, n * size)))
		return;
	*items = q;
	*cap = n;
}

void matcher_actlog_seal(struct matcher_actlog *log)
{
	struct matcher_strtab *t = &log->strs;
	void *p;

	matcher_idset_reset(&t->map);
	matcher_idset_reset(&t->map_op);
	p = log->recs;
	shrink(&p, &log->cap_entries, log->n_entries, sizeof(*log->recs));
	log->recs = p;
	/* the orders follow the records' capacity (a failed shrink keeps the
	 * larger block, which is still large enough) */
	if (log->orders && (p = realloc(log->orders, log->cap_entries * sizeof(*log->orders))))
		log->orders = p;
	p = log->lists;
	shrink(&p, &log->cap_lists, log->n_lists, sizeof(*log->lists));
	log->lists = p;
	size_t cap = t->cap;

	p = t->str;
	shrink(&p, &cap, t->n, sizeof(*t->str));
	t->str = p;
	p = t->len;
	shrink(&p, &t->cap, t->n, sizeof(*t->len));
	t->len = p;
	if (cap != t->cap) /* one of the two shrank, the other did not: keep the smaller cap */
		t->cap = cap < t->cap ? cap : t->cap;
}

size_t matcher_actlog_bytes(const struct matcher_actlog *log)
{
	return log->cap_entries * (sizeof(*log->recs) + (log->orders ? sizeof(*log->orders) : 0)) +
	       log->cap_lists * sizeof(*log->lists) +
	       log->strs.cap * (sizeof(*log->strs.str) + sizeof(*log->strs.len)) +
	       (log->strs.map.cap + log->strs.map_op.cap) * sizeof(*log->strs.map.slots) +
	       log->strs.text.used;
}

/* Grow an array of `size`-byte items to hold one more; 0 or -1. */
static int grow(void **items, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	if (nc > ((size_t)-1) / size)
		return -1;
	void *q = realloc(*items, nc * size);
	if (!q)
		return -1;
	*items = q;
	*cap = nc;
	return 0;
}

/* ---- packed numbers: "[-]D.DDDDDDe[+-]DD" in 32 bits --------------------
 * bit 31 sign, bits 30..7 the seven mantissa digits as an integer (< 10^7
 * < 2^24), bits 6..0 the exponent + 64.  The text re-derived from a packed
 * value is the text it was packed from, byte for byte. */

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* 1 and *out set when s[0..n) has the packed form, else 0. */
static int pack_number(const char *s, size_t n, uint32_t *out)
{
	uint32_t neg = 0, m = 0;
	int e;

	if (n && s[0] == '-') {
		neg = 1;
		s++;
		n--;
	}
	if (n != 12 || !is_digit(s[0]) || s[1] != '.' || s[8] != 'e' ||
	    (s[9] != '+' && s[9] != '-') || !is_digit(s[10]) || !is_digit(s[11]))
		return 0;
	m = (uint32_t)(s[0] - '0');
	for (int i = 2; i < 8; i++) {
		if (!is_digit(s[i]))
			return 0;
		m = m * 10 + (uint32_t)(s[i] - '0');
	}
	e = (s[10] - '0') * 10 + (s[11] - '0');
	if (s[9] == '-') {
		if (e == 0) /* "e-00" would come back as "e+00" */
			return 0;
		e = -e;
	}
	if (e < -64 || e > 63)
		return 0;
	*out = neg << 31 | m << 7 | (uint32_t)(e + 64);
	return 1;
}

/* "00".."99": two digits a lookup (unpack_number runs for every packed
 * value of every row a report or document writes). */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

/* Write the text of packed value v to d (at most 13 bytes); its length. */
static size_t unpack_number(uint32_t v, char *d)
{
	size_t k = 0;
	uint32_t m = ((v >> 7) & 0xFFFFFFu) % 10000000u; /* < 10^7 as packed */
	uint32_t rest = m % 1000000u;
	int e = (int)(v & 0x7F) - 64;

	if (v >> 31)
		d[k++] = '-';
	d[k++] = (char)('0' + m / 1000000u);
	d[k++] = '.';
	memcpy(d + k, digit_pairs + 2 * (rest / 10000u), 2);
	memcpy(d + k + 2, digit_pairs + 2 * (rest / 100u % 100u), 2);
	memcpy(d + k + 4, digit_pairs + 2 * (rest % 100u), 2);
	k += 6;
	d[k++] = 'e';
	d[k++] = e < 0 ? '-' : '+';
	if (e < 0)
		e = -e;
	memcpy(d + k, digit_pairs + 2 * e, 2); /* e <= 64 */
	return k + 2;
}

/* The number a packed text reads as, when one multiplication or division
 * of exact doubles gives it (the fast path parse_trimmed takes, so the same
 * value); 0 otherwise (the caller parses the text). */
static int packed_value(uint32_t v, double *out)
{
	double m = (double)((v >> 7) & 0xFFFFFFu);
	int e = (int)(v & 0x7F) - 64 - 6;

	if (e < -22 || e > 22)
		return 0;
	m = e < 0 ? m / pow10[-e] : m * pow10[e];
	*out = v >> 31 ? -m : m;
	return 1;
}

/* ---- records --------------------------------------------------------- */

static int list_reserve(struct matcher_actlog *log, size_t n)
{
	if (log->n_lists + n <= log->cap_lists)
		return 0;
	size_t nc = log->cap_lists ? log->cap_lists : 1024;
	while (nc < log->n_lists + n)
		nc *= 2;
	if (nc >= MATCHER_REC_NONE)
		return -1;
	uint32_t *q = realloc(log->lists, nc * sizeof(*q));
	if (!q)
		return -1;
	log->lists = q;
	log->cap_lists = nc;
	return 0;
}

/* A hash list "v1, v2, ..." of packed numbers: one number packed into
 * *off (1), two or more into the list pool (2, *off its offset); 0 when
 * the text has another form (nothing kept), -1 on OOM. */
static int put_hash_list(struct matcher_actlog *log, const char *s, uint32_t *off)
{
	size_t n_items = 1, len = strlen(s);
	const char *p = s, *end = s + len;

	for (const char *c = s; *c; c++)
		n_items += *c == ',';
	if (n_items == 1)
		return pack_number(s, len, off);
	if (list_reserve(log, n_items + 1) < 0)
		return -1;
	size_t start = log->n_lists;
	uint32_t *dst = log->lists + start + 1;

	for (size_t i = 0; i < n_items; i++) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *item_end = comma ? comma : end;

		if (!pack_number(p, (size_t)(item_end - p), &dst[i]))
			return 0;
		if (comma) {
			if (comma + 1 >= end || comma[1] != ' ')
				return 0;
			p = comma + 2;
		}
	}
	log->lists[start] = (uint32_t)n_items;
	log->n_lists += n_items + 1;
	*off = (uint32_t)start;
	return 2;
}

/* Split a key after its last '/' and intern both parts (hint: the first
 * of the two hint slots to use). */
static int key_ids(struct matcher_actlog *log, const char *k, size_t n, int hint, uint32_t *pre,
                   uint32_t *op)
{
	const char *slash = n ? memrchr(k, '/', n) : NULL;
	size_t cut = slash ? (size_t)(slash - k) + 1 : 0;

	struct matcher_strtab *t = &log->strs;

	/* a producer is most often the previous op: its ids, without hashing */
	if (hint == HINT_PROD_PRE && hint_is(t, log->hint[HINT_PREV_PRE], k, cut) &&
	    hint_is(t, log->hint[HINT_PREV_OP], k + cut, n - cut)) {
		*pre = log->hint[HINT_PREV_PRE];
		*op = log->hint[HINT_PREV_OP];
		return 0;
	}
	/* a module's ops come in runs and modules recur within a layer: the
	 * prefix is most often one of the last few seen (no hashing, no cache
	 * miss in the big table) */
	uint64_t tail = 0;

	memcpy(&tail, k + (cut >= 8 ? cut - 8 : 0), cut >= 8 ? 8 : cut);
	uint32_t *slot = &log->recent_pre[((tail ^ cut) * 0x9E3779B97F4A7C15ull) >> 58];

	if (hint_is(t, *slot, k, cut)) {
		*pre = *slot;
		log->hint[hint] = *pre;
	} else {
		if (strtab_id_hint(t, &t->map, k, cut, &log->hint[hint], pre) < 0)
			return -1;
		*slot = *pre;
	}
	return strtab_id_hint(t, &t->map_op, k + cut, n - cut, &log->hint[hint + 1], op);
}

/* "k1;k2;..." as [count, pre1, op1, pre2, op2, ...] in the list pool. */
static int put_producers(struct matcher_actlog *log, const char *s, uint32_t *off)
{
	size_t n_items = 1;
	const char *p = s, *end = s + strlen(s);

	for (const char *c = s; *c; c++)
		n_items += *c == ';';
	if (n_items > (MATCHER_REC_NONE - 1) / 2 || list_reserve(log, 2 * n_items + 1) < 0)
		return -1;
	size_t start = log->n_lists;

	log->n_lists += 2 * n_items + 1;
	log->lists[start] = (uint32_t)n_items;
	for (size_t i = 0; i < n_items; i++) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *item_end = semi ? semi : end;
		uint32_t pre, op;

		/* interning may not grow the list pool: the slots are reserved */
		if (key_ids(log, p, (size_t)(item_end - p), HINT_PROD_PRE, &pre, &op) < 0)
			return -1;
		log->lists[start + 1 + 2 * i] = pre;
		log->lists[start + 2 + 2 * i] = op;
		p = item_end + 1;
	}
	*off = (uint32_t)start;
	return 0;
}

int matcher_actlog_add_entry(struct matcher_actlog *log, const struct matcher_entry *e)
{
	void *items = log->recs;
	struct matcher_rec r;
	const char *key = e->key ? e->key : "";

	if (e->line > UINT32_MAX || e->order > UINT32_MAX)
		return -1;
	size_t cap = log->cap_entries;

	if (grow(&items, &log->cap_entries, log->n_entries, sizeof *log->recs) < 0)
		return -1;
	log->recs = items;
	if (log->orders && cap != log->cap_entries) {
		void *q = realloc(log->orders, log->cap_entries * sizeof(*log->orders));

		if (!q) { /* the records keep the larger block; the orders' is the bound */
			log->cap_entries = cap;
			return -1;
		}
		log->orders = q;
	}
	if (!log->orders && e->order != log->n_entries) {
		/* the first order that is not its index: keep them all from now */
		log->orders = malloc(log->cap_entries * sizeof(*log->orders));
		if (!log->orders)
			return -1;
		for (size_t k = 0; k < log->n_entries; k++)
			log->orders[k] = (uint32_t)k;
	}
	if (log->orders)
		log->orders[log->n_entries] = (uint32_t)e->order;
	memset(&r, 0, sizeof(r));
	r.line = (uint32_t)e->line;
	if (e->phase == MATCHER_BACKWARD)
		r.flags |= MATCHER_REC_BACKWARD;
	log->hint[HINT_PREV_PRE] = log->hint[HINT_KEY_PRE];
	log->hint[HINT_PREV_OP] = log->hint[HINT_KEY_OP];
	if (key_ids(log, key, strlen(key), HINT_KEY_PRE, &r.key_pre, &r.key_op) < 0)
		return -1;
	for (int f = 0; f < MATCHER_REC_N_FIELDS; f++) {
		const char *text = matcher_entry_field_text(e, f);
		int rc = 0;

		r.field[f] = MATCHER_REC_NONE;
		if (!text)
			continue;
		if (f > MATCHER_STAT_SHAPE && f < MATCHER_N_STATS)
			rc = pack_number(text, strlen(text), &r.field[f]);
		else if (f == MATCHER_REC_OUTHASH || f == MATCHER_REC_INHASH)
			rc = put_hash_list(log, text, &r.field[f]);
		if (rc < 0)
			return -1;
		if (rc) {
			r.flags |= 1u << f | (rc == 2 ? MATCHER_REC_POOLED(f) : 0);
			continue;
		}
		/* Shape, Location and Phase take few values: the small table */
		int few = f == MATCHER_STAT_SHAPE || f == MATCHER_REC_LOCATION ||
		          f == MATCHER_REC_PHASE;

		if (strtab_id_hint(&log->strs, few ? &log->strs.map_op : &log->strs.map, text,
		                   strlen(text), &log->hint[f], &r.field[f]) < 0)
			return -1;
	}
	r.producers = MATCHER_REC_NONE;
	if (e->input_producers && put_producers(log, e->input_producers, &r.producers) < 0)
		return -1;
	log->recs[log->n_entries++] = r;
	return 0;
}

/* ---- re-deriving entries ----------------------------------------------- */

void matcher_entry_view_init(struct matcher_entry_view *v)
{
	memset(&v->e, 0, sizeof(v->e));
	buf_init(&v->text);
}

void matcher_entry_view_free(struct matcher_entry_view *v)
{
	buf_reset(&v->text);
}

static int put_id(const struct matcher_actlog *log, uint32_t id, struct buf *out)
{
	return buf_add(out, log->strs.str[id], log->strs.len[id]);
}

int matcher_actlog_key(const struct matcher_actlog *log, size_t i, struct buf *out)
{
	const struct matcher_rec *r = &log->recs[i];

	return put_id(log, r->key_pre, out) < 0 || put_id(log, r->key_op, out) < 0 ? -1 : 0;
}

int matcher_actlog_field(const struct matcher_actlog *log, size_t i, int f, struct buf *out)
{
	const struct matcher_rec *r = &log->recs[i];
	uint32_t v = r->field[f];
	char num[16];

	if (v == MATCHER_REC_NONE)
		return 1;
	if (!(r->flags & (1u << f)))
		return put_id(log, v, out);
	if (!(r->flags & MATCHER_REC_POOLED(f))) /* a stat, or a list of one */
		return buf_add(out, num, unpack_number(v, num));
	const uint32_t *items = log->lists + v + 1;

	for (uint32_t k = 0; k < log->lists[v]; k++) {
		if ((k && buf_add(out, ", ", 2) < 0) ||
		    buf_add(out, num, unpack_number(items[k], num)) < 0)
			return -1;
	}
	return 0;
}

int matcher_actlog_same_field(const struct matcher_actlog *a, size_t i,
                              const struct matcher_actlog *b, size_t j, int f)
{
	const struct matcher_rec *ra = &a->recs[i], *rb = &b->recs[j];
	uint32_t va = ra->field[f], vb = rb->field[f];
	uint32_t form = ra->flags & (1u << f | MATCHER_REC_POOLED(f));

	if (va == MATCHER_REC_NONE || vb == MATCHER_REC_NONE ||
	    form != (rb->flags & (1u << f | MATCHER_REC_POOLED(f))))
		return 0;
	if (!form) /* interned texts */
		return a->strs.len[va] && a->strs.len[va] == b->strs.len[vb] &&
		       memcmp(a->strs.str[va], b->strs.str[vb], a->strs.len[va]) == 0;
	if (!(form & MATCHER_REC_POOLED(f))) /* one packed number: never empty */
		return va == vb;
	/* packed lists: the count, then the items */
	return a->lists[va] == b->lists[vb] &&
	       memcmp(a->lists + va + 1, b->lists + vb + 1, a->lists[va] * sizeof(uint32_t)) == 0;
}

enum matcher_phase matcher_actlog_phase(const struct matcher_actlog *log, size_t i)
{
	return log->recs[i].flags & MATCHER_REC_BACKWARD ? MATCHER_BACKWARD : MATCHER_FORWARD;
}

const struct matcher_entry *matcher_actlog_entry(const struct matcher_actlog *log, size_t i,
                                                 struct matcher_entry_view *v)
{
	const struct matcher_rec *r = &log->recs[i];
	struct matcher_entry *e = &v->e;
	size_t off[MATCHER_REC_N_FIELDS + 2];
	struct buf *t = &v->text;
	int bad = 0;

	buf_clear(t);
	/* offsets first: the buffer may move while it grows */
	off[0] = 0;
	bad |= matcher_actlog_key(log, i, t) < 0;
	bad |= buf_add(t, "", 1) < 0;
	for (int f = 0; f < MATCHER_REC_N_FIELDS; f++) {
		off[1 + f] = t->len;
		int rc = matcher_actlog_field(log, i, f, t);

		if (rc == 1)
			off[1 + f] = (size_t)-1;
		else
			bad |= rc < 0 || buf_add(t, "", 1) < 0;
	}
	off[1 + MATCHER_REC_N_FIELDS] = (size_t)-1;
	if (r->producers != MATCHER_REC_NONE) {
		const uint32_t *items = log->lists + r->producers + 1;

		off[1 + MATCHER_REC_N_FIELDS] = t->len;
		for (uint32_t k = 0; k < log->lists[r->producers]; k++) {
			bad |= (k && buf_add(t, ";", 1) < 0) || put_id(log, items[2 * k], t) < 0 ||
			       put_id(log, items[2 * k + 1], t) < 0;
		}
		bad |= buf_add(t, "", 1) < 0;
	}
	if (bad)
		return NULL;
	const char *base = t->data;
#define AT(k) (off[k] == (size_t)-1 ? NULL : base + off[k])
	memset(e, 0, sizeof(*e));
	e->key = base;
	e->stat_isnum = 0;
	for (int s = 0; s < MATCHER_N_STATS; s++) {
		e->stats[s] = AT(1 + s);
		if (s != MATCHER_STAT_SHAPE && (r->flags & (1u << s)) &&
		    packed_value(r->field[s], &e->stat_num[s]))
			e->stat_isnum |= 1u << s;
		else if (s != MATCHER_STAT_SHAPE && e->stats[s] &&
		         matcher_parse_number(e->stats[s], strlen(e->stats[s]), &e->stat_num[s]))
			e->stat_isnum |= 1u << s;
		else
			e->stat_num[s] = 0;
	}
	e->output_hash = AT(1 + MATCHER_REC_OUTHASH);
	e->input_hashes = AT(1 + MATCHER_REC_INHASH);
	e->location = AT(1 + MATCHER_REC_LOCATION);
	e->phase_text = AT(1 + MATCHER_REC_PHASE);
	e->input_producers = AT(1 + MATCHER_REC_N_FIELDS);
#undef AT
	e->phase = matcher_actlog_phase(log, i);
	e->line = r->line;
	e->order = log->orders ? log->orders[i] : i;
	return e;
}

/* arena_strdup that fails only on OOM (NULL in -> NULL out). */
static int dup_str(struct arena *a, const char **dst, const char *src)
{
	if (!src) {
		*dst = NULL;
		return 0;
	}
	*dst = arena_strdup(a, src);
	return *dst ? 0 : -1;
}

int matcher_actlog_add_warning(struct matcher_actlog *log, const struct matcher_warning *w)
{
	void *items = log->warnings;
	if (grow(&items, &log->cap_warnings, log->n_warnings, sizeof *log->warnings) < 0)
		return -1;
	log->warnings = items;
	struct matcher_warning c = *w;
	if (dup_str(&log->arena, &c.message, w->message ? w->message : "") < 0 ||
	    dup_str(&log->arena, &c.excerpt, w->excerpt ? w->excerpt : "") < 0)
		return -1;
	log->warnings[log->n_warnings++] = c;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int matcher_actlog_set_header(struct matcher_actlog *log, const struct matcher_actlog_header *h)
{
	log->header_total = h->total;
	log->summary.header_total = h->total;
	log->has_excluded = h->has_excluded;
	free(log->excluded);
	log->excluded = NULL;
	log->n_excluded = 0;
	const char *text = h->excluded;
	if (!text)
		return 0;
	const char *end = text + strlen(text);
	const char *b = skip_blanks(text, end);
	if ((size_t)(trim_end(b, end) - b) == 6 && memcmp(b, "(none)", 6) == 0)
		return 0;
	size_t n = 1;
	for (const char *c = text; *c; c++)
		n += *c == ',';
	char **names = malloc(n * sizeof *names);
	if (!names)
		return -1;
	size_t k = 0;
	const char *s = text;
	while (s <= end) {
		const char *comma = memchr(s, ',', (size_t)(end - s));
		const char *e = comma ? comma : end;
		const char *nb = skip_blanks(s, e);
		const char *ne = trim_end(nb, e);
		if (ne > nb) {
			names[k] = arena_strndup(&log->arena, nb, (size_t)(ne - nb));
			if (!names[k]) {
				free(names);
				return -1;
			}
			k++;
		}
		s = e + 1;
	}
	qsort(names, k, sizeof *names, cmp_str);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || strcmp(names[u - 1], names[i]) != 0)
			names[u++] = names[i];
	log->excluded = names;
	log->n_excluded = u;
	return 0;
}

/* Records (and list slots, ~8 an op) reserved up front from the header's
 * count, at most this many: growing by realloc moves the arrays (mremap),
 * and each move flushes the TLBs of the process's other threads.  A lying
 * header costs address space, not memory (pages untouched stay free). */
#define PRESIZE_MAX_OPS ((size_t)1 << 21)

static int collect_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct matcher_actlog *log = ctx;

	if (h->total > 0 && !log->n_entries && !log->cap_entries) {
		size_t n = (size_t)h->total < PRESIZE_MAX_OPS ? (size_t)h->total : PRESIZE_MAX_OPS;
		void *recs = malloc(n * sizeof(*log->recs));

		if (recs) {
			log->recs = recs;
			log->cap_entries = n;
		}
		if (!log->n_lists && list_reserve(log, 8 * n) < 0)
			return -1;
	}
	return matcher_actlog_set_header(log, h);
}

static int collect_entry(void *ctx, const struct matcher_entry *e)
{
	return matcher_actlog_add_entry(ctx, e);
}

static int collect_warning(void *ctx, const struct matcher_warning *w)
{
	return matcher_actlog_add_warning(ctx, w);
}

struct matcher_actlog_callbacks matcher_actlog_collector(struct matcher_actlog *log)
{
	struct matcher_actlog_callbacks cb = {
	        .ctx = log,
	        .on_header = collect_header,
	        .on_entry = collect_entry,
	        .on_warning = collect_warning,
	};
	return cb;
}

int matcher_actlog_parse_buffer(const char *data, size_t n, struct matcher_actlog **out,
                                struct matcher_error *err)
{
	int rc = -1;
	struct matcher_actlog_parser *p = NULL;
	struct matcher_actlog *log = matcher_actlog_new();
	*out = NULL;
	if (!log)
		goto oom;
	struct matcher_actlog_callbacks cb = matcher_actlog_collector(log);
	p = matcher_actlog_parser_new(&cb, 0);
	if (!p)
		goto oom;
	if (matcher_actlog_feed(p, data, n) < 0 || matcher_actlog_finish(p, &log->summary) < 0) {
		if (err)
			*err = *matcher_actlog_error(p);
		goto done;
	}
	matcher_actlog_seal(log);
	*out = log;
	log = NULL;
	rc = 0;
	goto done;
oom:
	if (err) {
		memset(err, 0, sizeof *err);
		err->code = "oom";
		snprintf(err->message, sizeof err->message, "out of memory");
	}
done:
	matcher_actlog_parser_free(p);
	matcher_actlog_free(log);
	return rc;
}
