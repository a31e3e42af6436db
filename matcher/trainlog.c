/* trainlog.c - the streaming push parser for training stdout logs.
 *
 * Fed arbitrary chunks; holds only the carried-over partial line, a few
 * reused scratch buffers and a step table (rank, series, step -> a 64-bit
 * fingerprint of the loss and grad_norm text: 16 bytes a step) used to tell
 * copies from restarts and to spot steps going backwards.  Lines are
 * scanned with memchr/memmem, never with regular expressions: 44 MB of log
 * must parse in well under half a second.
 *
 * Limits: only ESC '[' (CSI) sequences and their visible form U+241B '['
 * are stripped (other escapes pass through as text); at most
 * TRAIN_MAX_FIELDS name:value pairs per line are kept; an error block's
 * excerpt keeps its first TRAIN_ERR_LINES lines; ranks are 0..65535 (a
 * larger "[rankN]:" is left as text). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_num.h"
#include "trainlog.h"

#define TRAIN_MAX_FIELDS 32
#define TRAIN_ERR_LINES  5
#define TRAIN_EXCERPT    200
#define TRAIN_MAX_RANK   65536 /* "[rankN]:" with a larger N is not a prefix */

enum wcode { W_MALFORMED = 0, W_DUPLICATE, W_BACKWARDS, W_ERROR_LINE, W_TRUNCATED, W_N };
static const char *const wcode_names[W_N] = {"malformed_line", "duplicate_step", "step_backwards",
                                             "error_line", "truncated_line"};

/* The standard fields whose count a metric line must keep (a line with
 * fewer than the rank's previous one was cut while being written). */
enum {
	STD_LOSS = 1,
	STD_GRAD_NORM = 2,
	STD_MEMORY = 4,
	STD_TPS = 8,
	STD_TFLOPS = 16,
	STD_MFU = 32
};

struct stepent {
	long step;
	uint64_t fp;
	int key; /* rank * 2 + validation, +1 so 0 means empty */
};

/* Steps of one (rank, series) in ascending order: the common case of a
 * log whose steps only go up costs 16 bytes a step and a binary search on
 * repeats.  A new step below the last one (rare: a log out of order) goes
 * to the hash table instead, so nothing is ever moved. */
struct seqent {
	long step;
	uint64_t fp;
};

struct rankstate {
	int rank;
	int has_last;
	long last_step;        /* last training step seen (NEW or REPLACE) */
	int last_nstd;         /* standard fields of the last training line */
	struct seqent *seq[2]; /* [validation] */
	size_t n_seq[2], cap_seq[2];
};

/* One parsed field of the current line: offsets into p->vals. */
struct field {
	size_t name_off, text_off;
	double value;
	int decimals;
};

struct matcher_trainlog_parser {
	struct matcher_trainlog_callbacks cb;
	size_t max_line;
	struct buf line;  /* carried-over partial line */
	struct buf clean; /* current line without escapes */
	struct buf vals;  /* NUL-separated names and texts */
	struct field fields[TRAIN_MAX_FIELDS];
	struct matcher_metric_value mv[TRAIN_MAX_FIELDS];
	unsigned long lineno;
	int failed;
	struct matcher_error err;

	struct stepent *tab;
	size_t tab_cap, tab_n;
	struct rankstate *ranks;
	size_t n_ranks, cap_ranks;
	size_t *rank_idx; /* rank -> index in ranks + 1 (0 = unseen) */
	size_t cap_rank_idx;

	size_t wcount[W_N];
	size_t n_warnings;
	size_t n_steps, n_validation, n_copies;
	size_t n_records;

	int at_eof;                   /* the line being read is the last one, with no newline */
	unsigned long first_bad_line; /* first malformed/truncated metric line */
	char first_bad_why[160];

	int in_err; /* inside an error block */
	unsigned long err_line;
	int err_nlines;
	struct buf err_excerpt;
};

/* ---- small helpers ---------------------------------------------------- */

static void set_error(struct matcher_trainlog_parser *p, const char *code, unsigned long line,
                      const char *what)
{
	p->failed = 1;
	p->err.code = code;
	p->err.line = line;
	snprintf(p->err.message, sizeof p->err.message, "%s at line %lu", what, line);
}

static int is_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '/' || c == '.' || c == '-';
}

static int is_word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int is_blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	h ^= 0xff;
	h *= 1099511628211ull;
	return h;
}

/* Find `tok` (e.g. "step:") in s[0,n) at a word start; returns offset or -1. */
static long find_token(const char *s, size_t n, size_t from, const char *tok, size_t tlen)
{
	while (from + tlen <= n) {
		const char *hit = memmem(s + from, n - from, tok, tlen);
		if (!hit)
			return -1;
		size_t off = (size_t)(hit - s);
		if (off == 0 || !is_word_char((unsigned char)s[off - 1]))
			return (long)off;
		from = off + 1;
	}
	return -1;
}

/* Copy s[0,n) into b without CSI escape sequences and their visible
 * rendering (U+241B, E2 90 9B).  An unfinished sequence at the end of the
 * line (a truncated line) is dropped too. */
static int strip_escapes(struct buf *b, const char *s, size_t n)
{
	buf_clear(b);
	if (buf_reserve(b, n) < 0)
		return -1;
	char *out = b->data;
	size_t o = 0, i = 0;
	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t seq = 0;
		if (c == 0x1b)
			seq = 1;
		else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x90 &&
		         (unsigned char)s[i + 2] == 0x9b)
			seq = 3;
		if (!seq) {
			out[o++] = (char)c;
			i++;
			continue;
		}
		size_t j = i + seq;
		if (j < n && s[j] == '[') {
			j++;
			while (j < n && (unsigned char)s[j] >= 0x30 && (unsigned char)s[j] <= 0x3f)
				j++;
			while (j < n && (unsigned char)s[j] >= 0x20 && (unsigned char)s[j] <= 0x2f)
				j++;
			if (j < n && (unsigned char)s[j] >= 0x40 && (unsigned char)s[j] <= 0x7e)
				j++;
			i = j;
		} else if (j >= n && seq == 1) {
			i = j; /* lone ESC at end of a truncated line */
		} else {
			/* not a CSI: keep the bytes as text */
			memcpy(out + o, s + i, seq);
			o += seq;
			i += seq;
		}
	}
	out[o] = 0;
	b->len = o;
	return 0;
}

/* ---- warnings --------------------------------------------------------- */

static int emit_warning(struct matcher_trainlog_parser *p, enum wcode c, unsigned long line,
                        const char *message, const char *excerpt)
{
	p->n_warnings++;
	if (p->wcount[c]++ >= MATCHER_MAX_WARNINGS_PER_CODE || !p->cb.on_warning)
		return 0;
	struct matcher_warning w;
	w.code = wcode_names[c];
	w.line = line;
	w.message = message;
	w.excerpt = excerpt ? excerpt : "";
	if (p->cb.on_warning(p->cb.ctx, &w) != 0) {
		set_error(p, "callback", line, "parsing stopped by the consumer");
		return -1;
	}
	return 0;
}

/* Warn about the current (cleaned) line, with it as the excerpt. */
static int warn_line(struct matcher_trainlog_parser *p, enum wcode c, const char *line, size_t n,
                     const char *message)
{
	char ex[TRAIN_EXCERPT + 1];
	size_t k = n < TRAIN_EXCERPT ? n : TRAIN_EXCERPT;
	memcpy(ex, line, k);
	ex[k] = 0;
	return emit_warning(p, c, p->lineno, message, ex);
}

static int flush_err_block(struct matcher_trainlog_parser *p)
{
	if (!p->in_err)
		return 0;
	p->in_err = 0;
	/* the message names the block's first line (the excerpt has more) */
	const char *ex = p->err_excerpt.data ? p->err_excerpt.data : "";
	const char *nl = strchr(ex, '\n');
	int first = nl ? (int)(nl - ex) : (int)strlen(ex);
	char m[200];
	snprintf(m, sizeof m, "error output, the run probably crashed or failed: %.*s",
	         first > 120 ? 120 : first, ex);
	return emit_warning(p, W_ERROR_LINE, p->err_line, m, ex);
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* A glog error or fatal line at s[0,n): "E0519 19:52:14.553 ..." or, as
 * PyTorch's C++ logging prints it, "[E519 19:52:14.553 file.cpp:2198]"
 * (level E or F, 3-4 digit date, then hh:mm:ss). */
static int is_glog_error(const char *s, size_t n)
{
	size_t i = 0;
	if (i < n && s[i] == '[')
		i++;
	if (i >= n || (s[i] != 'E' && s[i] != 'F'))
		return 0;
	i++;
	size_t d = 0;
	while (i < n && is_digit((unsigned char)s[i]) && d < 5) {
		i++;
		d++;
	}
	if ((d != 3 && d != 4) || i + 9 > n || s[i] != ' ')
		return 0;
	const char *t = s + i + 1; /* hh:mm:ss */
	return is_digit((unsigned char)t[0]) && is_digit((unsigned char)t[1]) && t[2] == ':' &&
	       is_digit((unsigned char)t[3]) && is_digit((unsigned char)t[4]) && t[5] == ':' &&
	       is_digit((unsigned char)t[6]) && is_digit((unsigned char)t[7]);
}

/* torchelastic's failure summary: "exitcode  : -6 (pid: ...)". */
static int is_negative_exitcode(const char *s, size_t n)
{
	long off = find_token(s, n, 0, "exitcode", 8);
	if (off < 0)
		return 0;
	size_t i = (size_t)off + 8;
	while (i < n && is_blank((unsigned char)s[i]))
		i++;
	if (i >= n || s[i++] != ':')
		return 0;
	while (i < n && is_blank((unsigned char)s[i]))
		i++;
	return i + 1 < n && s[i] == '-' && is_digit((unsigned char)s[i + 1]);
}

/* Does this (prefix-stripped) non-metric line start or look like an error?
 * Python failures, and the native ones that print no Python traceback in
 * the rank's own stream (C++ exceptions, CUDA/NCCL errors, glog E/F
 * lines, signals). */
static int is_error_line(const char *s, size_t n)
{
	/* One pass over the line (chatter lines are most of a log: a memmem
	 * per signature would cost a scan each).  Each signature is found by
	 * an anchor byte (sig_by_byte: a bit per signature anchored there,
	 * `back` bytes into it; rare bytes where the first one is common) and
	 * then compared. */
	static const struct {
		const char *text;
		unsigned char len, back; /* back: bytes of text before the anchor */
	} sig[] = {
#define SIG(t, b) {t, sizeof t - 1, b}
	        SIG("Traceback (most recent call last):", 0),
	        SIG(" - ERROR - ", 3),
	        SIG("RuntimeError:", 0),
	        SIG("SIGKILL", 0),
	        SIG("terminate called after throwing", 3),
	        SIG("CUDA error:", 0),
	        SIG("NCCL error", 0),
	        SIG("Segmentation fault", 0),
	        SIG("core dumped", 8),
	        SIG("Fatal Python error", 0),
	        SIG("ChildFailedError", 0),
	        SIG("exitcode", 1), /* then blanks ':' blanks '-' digit */
#undef SIG
	};
	static const uint16_t sig_by_byte[256] = {
	        ['T'] = 1u << 0,           ['E'] = 1u << 1, ['R'] = 1u << 2,
	        ['S'] = 1u << 3 | 1u << 7, ['m'] = 1u << 4, ['C'] = 1u << 5 | 1u << 10,
	        ['N'] = 1u << 6,           ['p'] = 1u << 8, ['F'] = 1u << 9,
	        ['x'] = 1u << 11,
	};
	for (size_t at = 0; at < n; at++) {
		unsigned m = sig_by_byte[(unsigned char)s[at]];
		while (m) {
			int k = __builtin_ctz(m);
			m &= m - 1;
			if (at + 1 >= n || s[at + 1] != sig[k].text[sig[k].back + 1] ||
			    at < sig[k].back || at - sig[k].back + sig[k].len > n)
				continue;
			const char *x = s + at - sig[k].back;
			if (memcmp(x, sig[k].text, sig[k].len) != 0)
				continue;
			if (k != 11 || is_negative_exitcode(x, n - (size_t)(x - s)))
				return 1;
		}
	}
	size_t i = 0;
	while (i < n && is_blank((unsigned char)s[i]))
		i++;
	if (n - i >= 6 && !memcmp(s + i, "Killed", 6))
		return 1;
	if (is_glog_error(s + i, n - i))
		return 1;
	/* "Error:" at line start: a bare word such as ValueError: or
	 * torch.OutOfMemoryError: opening the line. */
	size_t j = i;
	while (j < n && (is_word_char((unsigned char)s[j]) || s[j] == '.'))
		j++;
	if (j < n && s[j] == ':' && j - i >= 5 && !memcmp(s + j - 5, "Error", 5))
		return 1;
	return 0;
}

static int err_block_line(struct matcher_trainlog_parser *p, const char *s, size_t n)
{
	if (!p->in_err) {
		if (!is_error_line(s, n))
			return 0;
		p->in_err = 1;
		p->err_line = p->lineno;
		p->err_nlines = 0;
		buf_clear(&p->err_excerpt);
	}
	if (p->err_nlines >= TRAIN_ERR_LINES)
		return 0;
	size_t k = n < TRAIN_EXCERPT ? n : TRAIN_EXCERPT;
	if ((p->err_nlines && buf_putc(&p->err_excerpt, '\n') < 0) ||
	    buf_append(&p->err_excerpt, s, k) < 0) {
		set_error(p, "oom", p->lineno, "out of memory");
		return -1;
	}
	p->err_nlines++;
	return 0;
}

/* ---- step table ------------------------------------------------------- */

static size_t hash_key(int key, long step)
{
	uint64_t h = (uint64_t)step * 0x9e3779b97f4a7c15ull ^ (uint64_t)key * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return (size_t)h;
}

static int tab_grow(struct matcher_trainlog_parser *p)
{
	size_t ncap = p->tab_cap ? p->tab_cap * 2 : 1024;
	struct stepent *nt = calloc(ncap, sizeof *nt);
	if (!nt)
		return -1;
	for (size_t i = 0; i < p->tab_cap; i++) {
		struct stepent *e = &p->tab[i];
		if (!e->key)
			continue;
		size_t h = hash_key(e->key, e->step) & (ncap - 1);
		while (nt[h].key)
			h = (h + 1) & (ncap - 1);
		nt[h] = *e;
	}
	free(p->tab);
	p->tab = nt;
	p->tab_cap = ncap;
	return 0;
}

/* Find or insert; *found says which.  NULL on OOM. */
static struct stepent *tab_lookup(struct matcher_trainlog_parser *p, int key, long step, int *found)
{
	if ((p->tab_n + 1) * 2 > p->tab_cap && tab_grow(p) < 0)
		return NULL;
	size_t h = hash_key(key, step) & (p->tab_cap - 1);
	while (p->tab[h].key) {
		if (p->tab[h].key == key && p->tab[h].step == step) {
			*found = 1;
			return &p->tab[h];
		}
		h = (h + 1) & (p->tab_cap - 1);
	}
	*found = 0;
	p->tab[h].key = key;
	p->tab[h].step = step;
	p->tab_n++;
	return &p->tab[h];
}

/* The state of `rank` (0 <= rank < TRAIN_MAX_RANK), created on first use.
 * A rank -> index table keeps this O(1) even for a log that names a new
 * rank on every line. */
static struct rankstate *rank_state(struct matcher_trainlog_parser *p, int rank)
{
	if ((size_t)rank >= p->cap_rank_idx) {
		size_t nc = p->cap_rank_idx ? p->cap_rank_idx : 64;
		while (nc <= (size_t)rank)
			nc *= 2;
		size_t *ni = realloc(p->rank_idx, nc * sizeof *ni);
		if (!ni)
			return NULL;
		memset(ni + p->cap_rank_idx, 0, (nc - p->cap_rank_idx) * sizeof *ni);
		p->rank_idx = ni;
		p->cap_rank_idx = nc;
	}
	if (p->rank_idx[rank])
		return &p->ranks[p->rank_idx[rank] - 1];
	if (p->n_ranks == p->cap_ranks) {
		size_t nc = p->cap_ranks ? p->cap_ranks * 2 : 8;
		struct rankstate *nr = realloc(p->ranks, nc * sizeof *nr);
		if (!nr)
			return NULL;
		p->ranks = nr;
		p->cap_ranks = nc;
	}
	struct rankstate *r = &p->ranks[p->n_ranks++];
	memset(r, 0, sizeof *r);
	r->rank = rank;
	p->rank_idx[rank] = p->n_ranks;
	return r;
}

/* The fingerprint slot of (rank, series, step); *found says whether the
 * step was seen before.  NULL on OOM. */
static uint64_t *step_slot(struct matcher_trainlog_parser *p, struct rankstate *rs, int validation,
                           long step, int *found)
{
	int v = validation ? 1 : 0;
	size_t n = rs->n_seq[v];
	struct seqent *q = rs->seq[v];
	if (!n || step > q[n - 1].step) {
		if (n == rs->cap_seq[v]) {
			size_t nc = n ? n * 2 : 8;
			struct seqent *nq = realloc(q, nc * sizeof *nq);
			if (!nq)
				return NULL;
			rs->seq[v] = q = nq;
			rs->cap_seq[v] = nc;
		}
		q[n].step = step;
		q[n].fp = 0;
		rs->n_seq[v]++;
		*found = 0;
		return &q[n].fp;
	}
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (q[mid].step < step)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && q[lo].step == step) {
		*found = 1;
		return &q[lo].fp;
	}
	struct stepent *e = tab_lookup(p, rs->rank * 2 + v + 1, step, found);
	return e ? &e->fp : NULL;
}

/* ---- metric lines ----------------------------------------------------- */

static int add_field(struct matcher_trainlog_parser *p, size_t *nf, const char *name,
                     size_t name_len, const char *text, size_t text_len, double value, int decimals)
{
	if (*nf >= TRAIN_MAX_FIELDS)
		return 0;
	for (size_t i = 0; i < *nf; i++) /* first occurrence wins */
		if (!strncmp(p->vals.data + p->fields[i].name_off, name, name_len) &&
		    p->vals.data[p->fields[i].name_off + name_len] == 0)
			return 0;
	struct field *f = &p->fields[*nf];
	f->name_off = p->vals.len;
	if (buf_append(&p->vals, name, name_len) < 0 || buf_putc(&p->vals, 0) < 0)
		return -1;
	f->text_off = p->vals.len;
	if (buf_append(&p->vals, text, text_len) < 0 || buf_putc(&p->vals, 0) < 0)
		return -1;
	f->value = value;
	f->decimals = decimals;
	(*nf)++;
	return 0;
}

/* The STD_ bit of a standard field name, 0 for any other. */
static int std_bit(const char *name, size_t len)
{
	switch (len) {
	case 3: return !memcmp(name, "tps", 3) ? STD_TPS : !memcmp(name, "mfu", 3) ? STD_MFU : 0;
	case 4: return !memcmp(name, "loss", 4) ? STD_LOSS : 0;
	case 6:
		return !memcmp(name, "memory", 6)   ? STD_MEMORY
		       : !memcmp(name, "tflops", 6) ? STD_TFLOPS
		                                    : 0;
	case 9: return !memcmp(name, "grad_norm", 9) ? STD_GRAD_NORM : 0;
	default: return 0;
	}
}

static int popcount6(int m)
{
	int c = 0;
	for (int k = 0; k < 6; k++)
		c += (m >> k) & 1;
	return c;
}

/* Parse "name: value" pairs from s[0,n) (which starts at the step token).
 * *std_out: STD_ bits of the standard field names present (whatever their
 * value).  Returns 0 ok, 1 malformed (message in *why), -1 OOM. */
static int parse_fields(struct matcher_trainlog_parser *p, const char *s, size_t n, long *step_out,
                        size_t *nf_out, int *std_out, const char **why)
{
	size_t i = 0, nf = 0;
	int have_step = 0, have_loss = 0;
	*std_out = 0;
	buf_clear(&p->vals);
	if (buf_reserve(&p->vals, 256) < 0)
		return -1;
	while (i < n) {
		while (i < n && is_blank((unsigned char)s[i]))
			i++;
		size_t ns = i;
		while (i < n && is_name_char((unsigned char)s[i]))
			i++;
		if (i >= n || s[i] != ':' || i == ns) {
			while (i < n && !is_blank((unsigned char)s[i]))
				i++;
			continue;
		}
		const char *name = s + ns;
		size_t name_len = i - ns;
		i++; /* ':' */
		while (i < n && is_blank((unsigned char)s[i]))
			i++;
		size_t vs = i;
		while (i < n && !is_blank((unsigned char)s[i]))
			i++;
		const char *v = s + vs;
		size_t vlen = i - vs;
		/* early 2024: "step: 1, current loss: 10.8, lr: [8e-05]" */
		if (vlen && v[vlen - 1] == ',')
			vlen--;
		if (vlen >= 2 && v[0] == '[' && v[vlen - 1] == ']') {
			v++;
			vlen -= 2;
		}
		double val;
		int dec;
		size_t used;

		if (name_len == 4 && !memcmp(name, "step", 4)) {
			if (have_step)
				continue;
			used = matcher_train_parse_num(v, vlen, &val, &dec);
			if (!vlen || used != vlen || dec != 0 || !isfinite(val) ||
			    memchr(v, '.', vlen) || memchr(v, 'e', vlen) || fabs(val) > 9.0e15) {
				*why = "unreadable step number";
				return 1;
			}
			*step_out = (long)val;
			have_step = 1;
			continue;
		}
		if (!have_step)
			continue; /* fields before step: belong to the chatter */
		*std_out |= std_bit(name, name_len);
		if (name_len == 6 && !memcmp(name, "memory", 6)) {
			used = matcher_train_parse_num(v, vlen, &val, &dec);
			if (!used)
				continue;
			if (add_field(p, &nf, "memory_gib", 10, v, used, val, dec) < 0)
				return -1;
			const char *paren = memchr(v + used, '(', vlen - used);
			if (paren) {
				size_t off = (size_t)(paren + 1 - v);
				size_t u2 =
				        matcher_train_parse_num(v + off, vlen - off, &val, &dec);
				if (u2 &&
				    add_field(p, &nf, "memory_pct", 10, v + off, u2, val, dec) < 0)
					return -1;
			}
			continue;
		}
		used = matcher_train_parse_num(v, vlen, &val, &dec);
		int is_core = (name_len == 4 && !memcmp(name, "loss", 4)) ||
		              (name_len == 9 && !memcmp(name, "grad_norm", 9));
		/* A unit suffix (GiB, %, s, ms) may follow the number. */
		int ok = used > 0;
		for (size_t k = used; ok && k < vlen; k++) {
			unsigned char c = (unsigned char)v[k];
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '%'))
				ok = 0;
		}
		if (ok && is_core && used != vlen)
			ok = 0;
		if (!ok) {
			if (is_core) {
				*why = name_len == 4 ? "unreadable loss value"
				                     : "unreadable grad_norm value";
				return 1;
			}
			continue; /* N/A or text: absent */
		}
		if (name_len == 4 && !memcmp(name, "loss", 4))
			have_loss = 1;
		if (add_field(p, &nf, name, name_len, v, used, val, dec) < 0)
			return -1;
	}
	if (!have_step) {
		*why = "unreadable step number";
		return 1;
	}
	if (!have_loss) {
		*why = "metric line without a loss value";
		return 1;
	}
	*nf_out = nf;
	return 0;
}

/* A metric line that is not used: malformed or truncated (the first one
 * is remembered for the message when no metric line is usable). */
static int bad_metric_line(struct matcher_trainlog_parser *p, enum wcode c, const char *line,
                           size_t n, const char *why)
{
	char m[160];
	snprintf(m, sizeof m, "%s metric line: %s", c == W_TRUNCATED ? "truncated" : "malformed",
	         why);
	if (!p->first_bad_line) {
		p->first_bad_line = p->lineno;
		snprintf(p->first_bad_why, sizeof p->first_bad_why, "%s", m);
	}
	return warn_line(p, c, line, n, m);
}

static int metric_line(struct matcher_trainlog_parser *p, int rank, int validation,
                       const char *line, size_t n, size_t step_off)
{
	long step = 0;
	size_t nf = 0;
	int std = 0;
	const char *why = NULL;
	int rc = parse_fields(p, line + step_off, n - step_off, &step, &nf, &std, &why);
	if (rc < 0) {
		set_error(p, "oom", p->lineno, "out of memory");
		return -1;
	}
	/* A run killed while writing: the last line without its newline, or
	 * fewer standard fields than the rank's previous line ("grad_norm:
	 * 31.5" cut from "31.5000" must never compare equal).  Not used. */
	if (p->at_eof)
		return bad_metric_line(p, W_TRUNCATED, line, n,
		                       "the last line of the file has no final newline (cut while "
		                       "being written); not used");
	if (rc > 0)
		return bad_metric_line(p, W_MALFORMED, line, n, why);
	struct rankstate *rs = rank_state(p, rank);
	if (!rs) {
		set_error(p, "oom", p->lineno, "out of memory");
		return -1;
	}
	if (!validation && popcount6(std) < rs->last_nstd) {
		char m[96];
		snprintf(m, sizeof m,
		         "%d of the standard fields where the previous line had %d; not used",
		         popcount6(std), rs->last_nstd);
		return bad_metric_line(p, W_TRUNCATED, line, n, m);
	}
	if (!validation)
		rs->last_nstd = popcount6(std);
	const char *loss_t = "", *gn_t = "";
	for (size_t i = 0; i < nf; i++) {
		struct matcher_metric_value *m = &p->mv[i];
		m->name = p->vals.data + p->fields[i].name_off;
		m->text = p->vals.data + p->fields[i].text_off;
		m->value = p->fields[i].value;
		m->decimals = p->fields[i].decimals;
		if (!strcmp(m->name, "loss"))
			loss_t = m->text;
		else if (!strcmp(m->name, "grad_norm"))
			gn_t = m->text;
	}
	uint64_t fp = fnv(fnv(1469598103934665603ull, loss_t), gn_t);
	int found = 0;
	uint64_t *e = step_slot(p, rs, validation, step, &found);
	if (!e) {
		set_error(p, "oom", p->lineno, "out of memory");
		return -1;
	}
	struct matcher_step_record r;
	r.rank = rank;
	r.step = step;
	r.validation = validation;
	r.line = p->lineno;
	r.metrics = p->mv;
	r.n_metrics = nf;
	if (!found) {
		*e = fp;
		r.kind = MATCHER_STEP_NEW;
		if (validation)
			p->n_validation++;
		else
			p->n_steps++;
	} else if (*e == fp) {
		r.kind = MATCHER_STEP_COPY;
		p->n_copies++;
	} else {
		*e = fp;
		r.kind = MATCHER_STEP_REPLACE;
	}
	if (!validation && r.kind != MATCHER_STEP_COPY) {
		if (rs->has_last && step < rs->last_step) {
			char m[128];
			snprintf(m, sizeof m,
			         "step %ld after step %ld (rank %d): steps go backwards", step,
			         rs->last_step, rank);
			if (warn_line(p, W_BACKWARDS, line, n, m) < 0)
				return -1;
		}
		rs->has_last = 1;
		rs->last_step = step;
	}
	if (r.kind == MATCHER_STEP_REPLACE) {
		char m[160];
		snprintf(m, sizeof m,
		         "%sstep %ld (rank %d) logged again with a different "
		         "loss/grad_norm; the later value is kept",
		         validation ? "validation " : "", step, rank);
		if (warn_line(p, W_DUPLICATE, line, n, m) < 0)
			return -1;
	}
	p->n_records++;
	if (p->cb.on_step && p->cb.on_step(p->cb.ctx, &r) != 0) {
		set_error(p, "callback", p->lineno, "parsing stopped by the consumer");
		return -1;
	}
	return 0;
}

/* Is the rest of the line (after the logging prefix) a truncated start of a
 * metric line: " - INFO - " followed by nothing or a prefix of "step:"? */
static int truncated_metric(const char *s, size_t n)
{
	while (n && is_blank((unsigned char)s[n - 1]))
		n--;
	if (n >= 9 && !memcmp(s + n - 9, " - INFO -", 9))
		return 1;
	for (size_t k = 1; k <= 4; k++) /* "s", "st", "ste", "step" */
		if (n >= 10 + k && !memcmp(s + n - k, "step", k) &&
		    !memcmp(s + n - k - 10, " - INFO - ", 10))
			return 1;
	return 0;
}

/* A metric line cut before its loss: "step:" opens the message (line
 * start or right after " - INFO - ") and only the step number and a start
 * of "loss:" / "current loss:" follow ("- INFO - step: 40  lo").  Other
 * lines with step: and no loss: are chatter ("warmup step: 2 of 200"). */
static int cut_before_loss(const char *s, size_t n, size_t off)
{
	size_t k = off;
	while (k && is_blank((unsigned char)s[k - 1]))
		k--;
	if (k && !(k >= 9 && !memcmp(s + k - 9, " - INFO -", 9)))
		return 0;
	size_t i = off + 5;
	while (i < n && is_blank((unsigned char)s[i]))
		i++;
	while (i < n && (is_digit((unsigned char)s[i]) || s[i] == ','))
		i++;
	while (i < n && is_blank((unsigned char)s[i]))
		i++;
	size_t rest = n - i;
	while (rest && is_blank((unsigned char)s[i + rest - 1]))
		rest--;
	return (rest < 5 && !memcmp(s + i, "loss:", rest)) ||
	       (rest < 13 && !memcmp(s + i, "current loss:", rest));
}

static int do_line(struct matcher_trainlog_parser *p, const char *s, size_t n)
{
	p->lineno++;
	if (p->lineno == 1 && n >= 3 && !memcmp(s, "\xEF\xBB\xBF", 3)) {
		s += 3;
		n -= 3;
	}
	if (n && s[n - 1] == '\r')
		n--;
	if (memchr(s, 0, n)) {
		set_error(p, "binary_data", p->lineno, "NUL byte (binary data, not a text log)");
		return -1;
	}
	if (memchr(s, 0x1b, n) || memchr(s, 0xe2, n)) {
		if (strip_escapes(&p->clean, s, n) < 0) {
			set_error(p, "oom", p->lineno, "out of memory");
			return -1;
		}
		s = p->clean.data;
		n = p->clean.len;
	}
	int rank = 0;
	if (n > 7 && !memcmp(s, "[rank", 5) && s[5] >= '0' && s[5] <= '9') {
		size_t i = 5;
		long r = 0;
		while (i < n && s[i] >= '0' && s[i] <= '9' && r < TRAIN_MAX_RANK)
			r = r * 10 + (s[i++] - '0');
		if (r < TRAIN_MAX_RANK && i + 1 < n && s[i] == ']' && s[i + 1] == ':') {
			rank = (int)r;
			s += i + 2;
			n -= i + 2;
		}
	}
	long off = find_token(s, n, 0, "step:", 5);
	if (off < 0) {
		if (truncated_metric(s, n)) {
			if (flush_err_block(p) < 0)
				return -1;
			return bad_metric_line(p, W_TRUNCATED, s, n, "cut before its step: field");
		}
		return err_block_line(p, s, n);
	}
	/* step: without loss: is a scheduler or profiler message (chatter),
	 * unless it is a metric line cut before its loss: */
	if (find_token(s, n, (size_t)off, "loss:", 5) < 0 && !p->at_eof) {
		if (!cut_before_loss(s, n, (size_t)off))
			return err_block_line(p, s, n);
		if (flush_err_block(p) < 0)
			return -1;
		return bad_metric_line(p, W_TRUNCATED, s, n, "cut before its loss: field");
	}
	/* "validate step:" is the validation series, never a training step. */
	int validation = 0;
	size_t k = (size_t)off;
	while (k && is_blank((unsigned char)s[k - 1]))
		k--;
	if (k >= 8 && !memcmp(s + k - 8, "validate", 8) &&
	    (k == 8 || !is_word_char((unsigned char)s[k - 9])))
		validation = 1;
	if (flush_err_block(p) < 0)
		return -1;
	return metric_line(p, rank, validation, s, n, (size_t)off);
}

/* ---- public API ------------------------------------------------------- */

struct matcher_trainlog_parser *
matcher_trainlog_parser_new(const struct matcher_trainlog_callbacks *cb, size_t max_line)
{
	struct matcher_trainlog_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (cb)
		p->cb = *cb;
	p->max_line = max_line ? max_line : MATCHER_MAX_LINE_DEFAULT;
	buf_init(&p->line);
	buf_init(&p->clean);
	buf_init(&p->vals);
	buf_init(&p->err_excerpt);
	return p;
}

static int too_long(struct matcher_trainlog_parser *p)
{
	char lim[32];
	snprintf(lim, sizeof lim, "%zu", p->max_line);
	p->failed = 1;
	p->err.code = "line_too_long";
	p->err.line = p->lineno + 1;
	snprintf(p->err.message, sizeof p->err.message,
	         "line %lu is longer than the limit of %s bytes", p->lineno + 1, lim);
	return -1;
}

int matcher_trainlog_feed(struct matcher_trainlog_parser *p, const char *data, size_t n)
{
	if (!p || p->failed)
		return -1;
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		if (!nl) {
			if (p->line.len + n > p->max_line)
				return too_long(p);
			if (buf_append(&p->line, data, n) < 0) {
				set_error(p, "oom", p->lineno + 1, "out of memory");
				return -1;
			}
			return 0;
		}
		size_t len = (size_t)(nl - data);
		int rc;
		if (p->line.len) {
			if (p->line.len + len > p->max_line)
				return too_long(p);
			if (buf_append(&p->line, data, len) < 0) {
				set_error(p, "oom", p->lineno + 1, "out of memory");
				return -1;
			}
			rc = do_line(p, p->line.data, p->line.len);
			buf_clear(&p->line);
		} else {
			if (len > p->max_line)
				return too_long(p);
			rc = do_line(p, data, len);
		}
		if (rc < 0 || p->failed)
			return -1;
		data = nl + 1;
		n -= len + 1;
	}
	return 0;
}

int matcher_trainlog_finish(struct matcher_trainlog_parser *p, struct matcher_trainlog_summary *out)
{
	if (!p || p->failed)
		return -1;
	if (p->line.len) { /* no final newline */
		p->at_eof = 1;
		int rc = do_line(p, p->line.data, p->line.len);
		buf_clear(&p->line);
		if (rc < 0 || p->failed)
			return -1;
	}
	if (flush_err_block(p) < 0)
		return -1;
	if (out) {
		out->n_steps = p->n_steps;
		out->n_validation = p->n_validation;
		out->n_copies = p->n_copies;
		out->n_lines = p->lineno;
		out->n_warnings = p->n_warnings;
		out->n_ranks = (int)p->n_ranks;
	}
	if (p->n_records == 0) {
		size_t nm = p->wcount[W_MALFORMED], nt = p->wcount[W_TRUNCATED], nbad = nm + nt;
		p->failed = 1;
		p->err.code = "not_training_log";
		p->err.line = p->first_bad_line;
		if (nbad)
			snprintf(p->err.message, sizeof p->err.message,
			         "no usable training metric line: all %zu metric line(s) are %s; "
			         "first at line %lu: %.120s",
			         nbad,
			         !nt   ? "malformed"
			         : !nm ? "truncated"
			               : "malformed or truncated",
			         p->first_bad_line, p->first_bad_why);
		else
			snprintf(p->err.message, sizeof p->err.message,
			         "no training metric line (step: ... loss: ...) in %lu lines: "
			         "not a training log",
			         p->lineno);
		return -1;
	}
	return 0;
}

const struct matcher_error *matcher_trainlog_error(const struct matcher_trainlog_parser *p)
{
	return p && p->failed ? &p->err : NULL;
}

void matcher_trainlog_parser_free(struct matcher_trainlog_parser *p)
{
	if (!p)
		return;
	buf_reset(&p->line);
	buf_reset(&p->clean);
	buf_reset(&p->vals);
	buf_reset(&p->err_excerpt);
	free(p->tab);
	for (size_t i = 0; i < p->n_ranks; i++) {
		free(p->ranks[i].seq[0]);
		free(p->ranks[i].seq[1]);
	}
	free(p->ranks);
	free(p->rank_idx);
	free(p);
}
