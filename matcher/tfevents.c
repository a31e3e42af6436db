/* tfevents.c - TensorBoard event-file push parser (see tfevents.h).
 *
 * The record framing is a small state machine over the fed bytes: a
 * 12-byte header, then the data, then its 4-byte CRC.  A record that lies
 * wholly inside one fed chunk is verified and decoded in place; otherwise
 * its bytes are gathered in a buffer of at most max_record bytes.  Records
 * above max_record are CRC-checked as they stream by and skipped (a graph
 * or an image, never a scalar).  Decoding is protobuf-c's, through the
 * generated code of matcher/proto/tfevents.proto.
 *
 * CRC32C: Debian packages no C library for it (only python3-crc32c), so
 * this file has a table-driven implementation of the documented
 * Castagnoli polynomial (reflected 0x82F63B78), four table lookups per
 * 4 bytes ("slicing by 4"); the constant tables are in crc32c_table.h. */
#include "tfevents.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c_table.h"
#include "tfevents.pb-c.h"

#define DT_FLOAT  1
#define DT_DOUBLE 2

#define SCRATCH_BYTES (64 * 1024)

enum state { ST_HEADER = 0, ST_DATA, ST_DATA_CRC, ST_DEAD };

struct tagval {
	char *tag; /* heap, owned */
	double value;
	int prec;
};

struct matcher_tfevents_parser {
	struct matcher_trainlog_callbacks cb;
	int rank;
	size_t max_record;

	enum state st;
	unsigned char hdr[12];
	size_t n_hdr;
	uint64_t rec_len;    /* data length of the current record */
	uint64_t rec_off;    /* byte offset of the current record */
	uint64_t rec_got;    /* data bytes seen */
	int rec_skip;        /* oversized: streamed, not buffered */
	uint32_t rec_crc;    /* running CRC of a skipped record */
	unsigned char *data; /* gathered record data */
	size_t cap_data;
	unsigned char dcrc[4];
	size_t n_dcrc;
	uint64_t off; /* bytes fed so far */

	/* the step being grouped */
	int has_group;
	long group_step;
	unsigned long group_record;
	uint64_t group_off; /* byte offset of the group's first record */
	struct tagval *vals;
	size_t n_vals;
	/* distinct steps seen, ascending */
	long *seen;
	size_t n_seen, cap_seen;

	/* protobuf-c allocations of one record: a bump area reset per record,
	 * malloc (listed in big[]) past its end */
	unsigned char scratch[SCRATCH_BYTES];
	size_t scratch_used;
	void **big;
	size_t n_big, cap_big;
	ProtobufCAllocator alloc;

	/* texts of recent values (a constant lr is formatted once) */
	struct {
		uint64_t bits;
		int prec; /* 0: empty slot */
		char text[32];
	} cache[64];

	struct matcher_tfevents_summary sum;
	size_t warn_count[3];
	struct matcher_error err;
};

/* ---- CRC32C --------------------------------------------------------------- */

static uint32_t crc_run(uint32_t crc, const unsigned char *p, size_t n)
{
	const uint32_t(*t)[256] = crc32c_table;
	crc = ~crc;
	while (n >= 4) {
		crc ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		       (uint32_t)p[3] << 24;
		crc = t[3][crc & 0xFF] ^ t[2][(crc >> 8) & 0xFF] ^ t[1][(crc >> 16) & 0xFF] ^
		      t[0][crc >> 24];
		p += 4;
		n -= 4;
	}
	while (n--)
		crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xFF];
	return ~crc;
}

uint32_t matcher_crc32c(uint32_t crc, const void *data, size_t n)
{
	return crc_run(crc, data, n);
}

uint32_t matcher_crc32c_mask(uint32_t crc)
{
	return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

static uint64_t le64(const unsigned char *b)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static uint32_t le32(const unsigned char *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

int matcher_tfevents_detect(const void *data, size_t n)
{
	const unsigned char *b = data;
	if (!data || n < 12)
		return 0;
	return matcher_crc32c_mask(matcher_crc32c(0, b, 8)) == le32(b + 8);
}

const char *matcher_tfevents_metric(const char *tag)
{
	return strcmp(tag, MATCHER_TFEVENTS_LOSS_TAG) == 0 ? "loss" : tag;
}

static int reads_back(const char *t, double v, int f32)
{
	return f32 ? strtof(t, NULL) == (float)v : strtod(t, NULL) == v;
}

static const double POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Shortest text of a finite non-zero float32 without printf: find the
 * fewest significant digits k (6..9) whose rounding m * 10^(e-k+1) reads
 * back as f, judged in doubles (10^p and m are exact, so m / 10^p is the
 * correctly rounded double of the decimal), then write the digits in the
 * style of %g / Python's repr.  The result is confirmed with strtof; 0
 * (caller falls back to printf) when that or the range check fails. */
static int fast_f32(float f, char *out, size_t cap)
{
	double ax = fabs((double)f);
	int e = (int)floor(log10(ax));
	long long m = 0;
	int k;
	for (k = 6; k <= 9; k++) {
		int p = k - 1 - e;
		if (p > 22 || p < -22)
			return 0;
		double mm = nearbyint(p >= 0 ? ax * POW10[p] : ax / POW10[-p]);
		if (mm >= POW10[k]) { /* rounding carried into a new digit */
			e++;
			k--;
			continue;
		}
		double back = p >= 0 ? mm / POW10[p] : mm * POW10[-p];
		if ((float)back == (float)ax) {
			m = (long long)mm;
			break;
		}
	}
	if (k > 9 || m <= 0)
		return 0;
	char dig[16];
	int nd = 0;
	for (long long r = m; r; r /= 10)
		nd++;
	for (long long r = m, i = nd - 1; i >= 0; i--, r /= 10)
		dig[i] = (char)('0' + r % 10);
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	char t[40];
	size_t o = 0;
	if (f < 0)
		t[o++] = '-';
	if (e >= -4 && e < 16) {
		if (e < 0) {
			t[o++] = '0';
			t[o++] = '.';
			for (int i = -1; i > e; i--)
				t[o++] = '0';
			memcpy(t + o, dig, (size_t)nd);
			o += (size_t)nd;
		} else {
			for (int i = 0; i <= e || i < nd; i++) {
				if (i == e + 1)
					t[o++] = '.';
				t[o++] = i < nd ? dig[i] : '0';
			}
		}
		t[o] = 0;
	} else {
		t[o++] = dig[0];
		if (nd > 1) {
			t[o++] = '.';
			memcpy(t + o, dig + 1, (size_t)nd - 1);
			o += (size_t)nd - 1;
		}
		int ae = e < 0 ? -e : e;
		t[o++] = 'e';
		t[o++] = e < 0 ? '-' : '+';
		t[o++] = (char)('0' + ae / 10);
		t[o++] = (char)('0' + ae % 10);
		t[o] = 0;
	}
	if (strtof(t, NULL) != f || strlen(t) >= cap)
		return 0;
	memcpy(out, t, strlen(t) + 1);
	return 1;
}

void matcher_format_binary(double v, int f32, char *out, size_t cap)
{
	if (!cap)
		return;
	if (isnan(v)) {
		snprintf(out, cap, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(out, cap, v < 0 ? "-inf" : "inf");
		return;
	}
	if (f32 && v != 0 && fast_f32((float)v, out, cap))
		return;
	/* Most values need the top two digit counts (8-9 for float32), so
	 * start one below the maximum: going down while the text still reads
	 * back, else up to the maximum (which always does). */
	int lo = f32 ? 6 : 15, hi = f32 ? 9 : 17, d = hi - 1;
	char tmp[40];
	snprintf(out, cap, "%.*g", d, v);
	if (!reads_back(out, v, f32)) {
		snprintf(out, cap, "%.*g", hi, v);
		return;
	}
	while (--d >= lo) {
		snprintf(tmp, sizeof tmp, "%.*g", d, v);
		if (!reads_back(tmp, v, f32))
			return;
		snprintf(out, cap, "%s", tmp);
	}
}

/* ---- per-record allocator ------------------------------------------------- */

static void *scratch_alloc(void *ctx, size_t n)
{
	struct matcher_tfevents_parser *p = ctx;
	size_t at = (p->scratch_used + 15) & ~(size_t)15;
	if (n <= SCRATCH_BYTES && at <= SCRATCH_BYTES - n) {
		p->scratch_used = at + n;
		return p->scratch + at;
	}
	if (p->n_big == p->cap_big) {
		size_t nc = p->cap_big ? p->cap_big * 2 : 16;
		void **nb = realloc(p->big, nc * sizeof *nb);
		if (!nb)
			return NULL;
		p->big = nb;
		p->cap_big = nc;
	}
	void *m = malloc(n ? n : 1);
	if (m)
		p->big[p->n_big++] = m;
	return m;
}

static void scratch_free(void *ctx, void *ptr)
{
	(void)ctx; /* everything goes at scratch_reset */
	(void)ptr;
}

static void scratch_reset(struct matcher_tfevents_parser *p)
{
	for (size_t i = 0; i < p->n_big; i++)
		free(p->big[i]);
	p->n_big = 0;
	p->scratch_used = 0;
}

/* ---- errors and warnings ---------------------------------------------------- */

static int fail(struct matcher_tfevents_parser *p, const char *code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int fail(struct matcher_tfevents_parser *p, const char *code, const char *fmt, ...)
{
	va_list ap;
	if (p->st == ST_DEAD)
		return -1;
	p->err.code = code;
	p->err.line = 0;
	va_start(ap, fmt);
	vsnprintf(p->err.message, sizeof p->err.message, fmt, ap);
	va_end(ap);
	p->st = ST_DEAD;
	return -1;
}

static int warn(struct matcher_tfevents_parser *p, int slot, const char *code, unsigned long record,
                const char *message)
{
	p->sum.n_warnings++;
	if (++p->warn_count[slot] > MATCHER_MAX_WARNINGS_PER_CODE || !p->cb.on_warning)
		return 0;
	struct matcher_warning w = {code, record, message, ""};
	if (p->cb.on_warning(p->cb.ctx, &w))
		return fail(p, "callback", "stopped by the caller at record %lu", record);
	return 0;
}

/* ---- grouping events into step records ------------------------------------- */

/* Position of step in the ascending seen list (insertion point). */
static size_t seen_find(const struct matcher_tfevents_parser *p, long step)
{
	size_t lo = 0, hi = p->n_seen;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->seen[mid] < step)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void group_clear(struct matcher_tfevents_parser *p)
{
	for (size_t i = 0; i < p->n_vals; i++)
		free(p->vals[i].tag);
	p->n_vals = 0;
	p->has_group = 0;
}

static int flush_group(struct matcher_tfevents_parser *p)
{
	if (!p->has_group)
		return 0;
	if (!p->n_vals) {
		p->has_group = 0;
		return 0;
	}
	enum matcher_step_kind kind = MATCHER_STEP_NEW;
	long step = p->group_step;
	size_t pos = seen_find(p, step);
	char msg[200];
	if (pos < p->n_seen && p->seen[pos] == step) {
		kind = MATCHER_STEP_REPLACE;
		snprintf(msg, sizeof msg,
		         "step %ld again at record %lu (byte offset %llu): its values replace the "
		         "earlier ones",
		         step, p->group_record, (unsigned long long)p->group_off);
		if (warn(p, 0, "duplicate_step", p->group_record, msg) < 0)
			return -1;
	} else {
		if (pos < p->n_seen) {
			snprintf(msg, sizeof msg, "step %ld at record %lu comes after step %ld",
			         step, p->group_record, p->seen[p->n_seen - 1]);
			if (warn(p, 1, "step_backwards", p->group_record, msg) < 0)
				return -1;
		}
		if (p->n_seen == p->cap_seen) {
			size_t nc = p->cap_seen ? p->cap_seen * 2 : 1024;
			long *ns = realloc(p->seen, nc * sizeof *ns);
			if (!ns)
				return fail(p, "oom", "out of memory");
			p->seen = ns;
			p->cap_seen = nc;
		}
		memmove(p->seen + pos + 1, p->seen + pos, (p->n_seen - pos) * sizeof *p->seen);
		p->seen[pos] = step;
		p->n_seen++;
		p->sum.n_steps++;
	}
	struct matcher_metric_value mv[MATCHER_TFEVENTS_MAX_TAGS];
	char texts[MATCHER_TFEVENTS_MAX_TAGS][32];
	for (size_t i = 0; i < p->n_vals; i++) {
		uint64_t bits;
		memcpy(&bits, &p->vals[i].value, 8);
		size_t slot = (size_t)((bits ^ bits >> 29) * 0x9E3779B97F4A7C15u >> 58);
		if (p->cache[slot].prec != p->vals[i].prec || p->cache[slot].bits != bits) {
			matcher_format_binary(p->vals[i].value,
			                      p->vals[i].prec == MATCHER_PREC_FLOAT32,
			                      p->cache[slot].text, sizeof p->cache[slot].text);
			p->cache[slot].bits = bits;
			p->cache[slot].prec = p->vals[i].prec;
		}
		memcpy(texts[i], p->cache[slot].text, sizeof texts[i]);
		mv[i].name = matcher_tfevents_metric(p->vals[i].tag);
		mv[i].text = texts[i];
		mv[i].value = p->vals[i].value;
		mv[i].decimals = 0;
		mv[i].prec = p->vals[i].prec;
	}
	struct matcher_step_record rec = {p->rank, step, 0, p->group_record, kind, mv, p->n_vals};
	int stop = p->cb.on_step ? p->cb.on_step(p->cb.ctx, &rec) : 0;
	group_clear(p);
	if (stop)
		return fail(p, "callback", "stopped by the caller at step %ld", step);
	return 0;
}

static int add_value(struct matcher_tfevents_parser *p, const char *tag, double v, int prec)
{
	for (size_t i = 0; i < p->n_vals; i++)
		if (!strcmp(p->vals[i].tag, tag)) {
			p->vals[i].value = v;
			p->vals[i].prec = prec;
			return 0;
		}
	if (p->n_vals == MATCHER_TFEVENTS_MAX_TAGS)
		return fail(p, "too_many_tags",
		            "record at byte offset %llu: more than %llu scalar tags in one step",
		            (unsigned long long)p->rec_off,
		            (unsigned long long)MATCHER_TFEVENTS_MAX_TAGS);
	char *t = strdup(tag);
	if (!t)
		return fail(p, "oom", "out of memory");
	p->vals[p->n_vals++] = (struct tagval){t, v, prec};
	return 0;
}

/* The scalar held by one summary value: 1 and *v, *prec; 0 when none. */
static int scalar_of(const ParityTf__SummaryValue *sv, double *v, int *prec)
{
	if (sv->value_case == PARITY_TF__SUMMARY_VALUE__VALUE_SIMPLE_VALUE) {
		*v = sv->simple_value;
		*prec = MATCHER_PREC_FLOAT32;
		return 1;
	}
	if (sv->value_case != PARITY_TF__SUMMARY_VALUE__VALUE_TENSOR || !sv->tensor)
		return 0;
	const ParityTf__TensorProto *t = sv->tensor;
	if (t->dtype == DT_FLOAT) {
		float f;
		if (t->n_float_val == 1 && t->tensor_content.len == 0)
			f = t->float_val[0];
		else if (t->n_float_val == 0 && t->tensor_content.len == 4)
			memcpy(&f, t->tensor_content.data, 4); /* little-endian hosts */
		else
			return 0;
		*v = f;
		*prec = MATCHER_PREC_FLOAT32;
		return 1;
	}
	if (t->dtype == DT_DOUBLE) {
		if (t->n_double_val == 1 && t->tensor_content.len == 0)
			*v = t->double_val[0];
		else if (t->n_double_val == 0 && t->tensor_content.len == 8)
			memcpy(v, t->tensor_content.data, 8);
		else
			return 0;
		*prec = MATCHER_PREC_FLOAT64;
		return 1;
	}
	return 0;
}

static int handle_record(struct matcher_tfevents_parser *p, const unsigned char *data, size_t n)
{
	p->sum.n_records++;
	scratch_reset(p);
	ParityTf__Event *ev = parity_tf__event__unpack(&p->alloc, n, data);
	if (!ev)
		return fail(p, "bad_event",
		            "record at byte offset %llu (%llu bytes) is not a TensorFlow Event "
		            "protocol buffer",
		            (unsigned long long)p->rec_off, (unsigned long long)n);
	int rc = 0;
	if (!ev->summary)
		goto done;
	p->sum.n_events++;
	if (p->sum.n_events == 1)
		p->sum.first_wall_time = ev->wall_time;
	p->sum.last_wall_time = ev->wall_time;
	long step = ev->step < (int64_t)-0x7fffffff  ? -0x7fffffffL
	            : ev->step > (int64_t)0x7fffffff ? 0x7fffffffL
	                                             : (long)ev->step;
	for (size_t i = 0; i < ev->summary->n_value; i++) {
		const ParityTf__SummaryValue *sv = ev->summary->value[i];
		double v;
		int prec;
		if (!scalar_of(sv, &v, &prec) || !sv->tag || !sv->tag[0]) {
			p->sum.n_skipped++;
			continue;
		}
		if (p->has_group && p->group_step != step && (rc = flush_group(p)) < 0)
			goto done;
		if (!p->has_group) {
			p->has_group = 1;
			p->group_step = step;
			p->group_record = (unsigned long)p->sum.n_records;
			p->group_off = p->rec_off;
		}
		if ((rc = add_value(p, sv->tag, v, prec)) < 0)
			goto done;
		p->sum.n_scalars++;
		p->sum.has_double |= prec == MATCHER_PREC_FLOAT64;
	}
done:
	scratch_reset(p); /* the whole Event lived in the scratch area */
	return rc;
}

/* ---- framing ------------------------------------------------------------------ */

#define RECORD_LEN_MAX (UINT64_C(1) << 50)

/* The header is complete in p->hdr (or at h): check it and set up the data. */
static int start_record(struct matcher_tfevents_parser *p, const unsigned char *h)
{
	if (matcher_crc32c_mask(crc_run(0, h, 8)) != le32(h + 8))
		return fail(
		        p, "bad_crc",
		        "record at byte offset %llu: the length CRC does not match (length field "
		        "%llu)",
		        (unsigned long long)p->rec_off, (unsigned long long)le64(h));
	/* The length is a uint64: one past any file's size (the daemon takes
	 * at most 2^50 bytes) is corruption, not a record to wait for; it
	 * would also overflow the "of N bytes" arithmetic of a cut record. */
	if (le64(h) > RECORD_LEN_MAX)
		return fail(p, "bad_length",
		            "record at byte offset %llu declares %llu data bytes, more than any "
		            "event file holds (at most 2^50): a corrupt file",
		            (unsigned long long)p->rec_off, (unsigned long long)le64(h));
	p->rec_len = le64(h);
	p->rec_got = 0;
	p->n_dcrc = 0;
	p->rec_skip = p->rec_len > p->max_record;
	p->rec_crc = 0;
	if (!p->rec_skip && p->rec_len > p->cap_data) {
		size_t nc = p->cap_data ? p->cap_data : 4096;
		while (nc < p->rec_len)
			nc *= 2;
		unsigned char *nd = realloc(p->data, nc);
		if (!nd)
			return fail(p, "oom", "out of memory at byte offset %llu",
			            (unsigned long long)p->rec_off);
		p->data = nd;
		p->cap_data = nc;
	}
	p->st = ST_DATA;
	return 0;
}

static int end_record(struct matcher_tfevents_parser *p, const unsigned char *data, uint32_t crc,
                      uint32_t want)
{
	if (matcher_crc32c_mask(crc) != want)
		return fail(
		        p, "bad_crc",
		        "record at byte offset %llu: the data CRC does not match (%llu data bytes)",
		        (unsigned long long)p->rec_off, (unsigned long long)p->rec_len);
	p->st = ST_HEADER;
	p->n_hdr = 0;
	if (p->rec_skip) {
		p->sum.n_records++;
		p->sum.n_skipped++;
		return 0;
	}
	return handle_record(p, data, (size_t)p->rec_len);
}

int matcher_tfevents_feed(struct matcher_tfevents_parser *p, const void *data, size_t n)
{
	const unsigned char *b = data;
	if (!p || p->st == ST_DEAD)
		return -1;
	p->sum.bytes += n;
	while (n) {
		if (p->st == ST_HEADER && p->n_hdr == 0 && n >= 12) {
			/* fast path: the whole record in this chunk, no copy */
			p->rec_off = p->off;
			uint64_t len = le64(b);
			if (len <= p->max_record && n - 12 >= len + 4) {
				if (start_record(p, b) < 0)
					return -1;
				uint32_t crc = crc_run(0, b + 12, (size_t)len);
				if (end_record(p, b + 12, crc, le32(b + 12 + len)) < 0)
					return -1;
				b += 16 + len;
				n -= 16 + len;
				p->off += 16 + len;
				continue;
			}
		}
		if (p->st == ST_HEADER) {
			if (p->n_hdr == 0)
				p->rec_off = p->off;
			size_t k = 12 - p->n_hdr < n ? 12 - p->n_hdr : n;
			memcpy(p->hdr + p->n_hdr, b, k);
			p->n_hdr += k;
			b += k, n -= k, p->off += k;
			if (p->n_hdr == 12 && start_record(p, p->hdr) < 0)
				return -1;
		} else if (p->st == ST_DATA) {
			uint64_t left = p->rec_len - p->rec_got;
			size_t k = left < n ? (size_t)left : n;
			if (p->rec_skip)
				p->rec_crc = crc_run(p->rec_crc, b, k);
			else if (k) /* an empty record has no buffer (NULL + 0 is UB) */
				memcpy(p->data + p->rec_got, b, k);
			p->rec_got += k;
			b += k, n -= k, p->off += k;
			if (p->rec_got == p->rec_len)
				p->st = ST_DATA_CRC;
		} else if (p->st == ST_DATA_CRC) {
			size_t k = 4 - p->n_dcrc < n ? 4 - p->n_dcrc : n;
			memcpy(p->dcrc + p->n_dcrc, b, k);
			p->n_dcrc += k;
			b += k, n -= k, p->off += k;
			if (p->n_dcrc == 4) {
				uint32_t crc = p->rec_skip
				                       ? p->rec_crc
				                       : crc_run(0, p->data, (size_t)p->rec_len);
				if (end_record(p, p->data, crc, le32(p->dcrc)) < 0)
					return -1;
			}
		} else {
			return -1;
		}
	}
	return 0;
}

int matcher_tfevents_finish(struct matcher_tfevents_parser *p, struct matcher_tfevents_summary *out)
{
	if (!p || p->st == ST_DEAD)
		return -1;
	if (p->st != ST_HEADER || p->n_hdr) {
		char msg[200];
		uint64_t have = p->off - p->rec_off;
		if (p->st == ST_HEADER)
			snprintf(msg, sizeof msg,
			         "the last record (byte offset %llu) is cut short: %llu of 12 "
			         "header "
			         "bytes; ignored (a writer that stopped mid-record)",
			         (unsigned long long)p->rec_off, (unsigned long long)have);
		else
			snprintf(msg, sizeof msg,
			         "the last record (byte offset %llu) is cut short: %llu of %llu "
			         "bytes; "
			         "ignored (a writer that stopped mid-record)",
			         (unsigned long long)p->rec_off, (unsigned long long)have,
			         (unsigned long long)(p->rec_len + 16));
		if (warn(p, 2, "truncated_record", (unsigned long)p->sum.n_records + 1, msg) < 0)
			return -1;
	}
	if (flush_group(p) < 0)
		return -1;
	if (!p->sum.n_scalars)
		return fail(p, "not_event_file",
		            "no scalar value in %llu records (%llu bytes): not a TensorBoard event "
		            "file with scalars",
		            (unsigned long long)p->sum.n_records, (unsigned long long)p->sum.bytes);
	if (out)
		*out = p->sum;
	p->st = ST_DEAD; /* finished: further feeds are refused */
	p->err.code = NULL;
	return 0;
}

const struct matcher_error *matcher_tfevents_error(const struct matcher_tfevents_parser *p)
{
	return p && p->st == ST_DEAD && p->err.code ? &p->err : NULL;
}

struct matcher_tfevents_parser *
matcher_tfevents_parser_new(const struct matcher_trainlog_callbacks *cb, int rank,
                            size_t max_record)
{
	struct matcher_tfevents_parser *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->vals = calloc(MATCHER_TFEVENTS_MAX_TAGS, sizeof *p->vals);
	if (!p->vals) {
		free(p);
		return NULL;
	}
	if (cb)
		p->cb = *cb;
	p->rank = rank;
	p->max_record = max_record ? max_record : MATCHER_TFEVENTS_MAX_RECORD;
	p->alloc.alloc = scratch_alloc;
	p->alloc.free = scratch_free;
	p->alloc.allocator_data = p;
	return p;
}

void matcher_tfevents_parser_free(struct matcher_tfevents_parser *p)
{
	if (!p)
		return;
	group_clear(p);
	scratch_reset(p);
	free(p->big);
	free(p->vals);
	free(p->seen);
	free(p->data);
	free(p);
}
