/* spool.c - the parser's records of one upload on disk (see ingest.h). */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingest.h"

#define SPOOL_FLUSH (256 * 1024)
#define NO_STRING   UINT32_MAX

enum { REC_HEADER = 1, REC_ENTRY, REC_STEP, REC_WARNING };

struct srv_spool {
	int fd;
	unsigned char *buf;
	size_t len, cap;
	size_t rec_start; /* offset of the record being built */
	uint64_t written; /* bytes in the file */
	/* srv_spool_on_flush */
	void (*flushed)(void *ctx, uint64_t bytes, int final);
	void *flushed_ctx;
};

struct srv_spool *srv_spool_new(int fd)
{
	struct srv_spool *sp = calloc(1, sizeof *sp);
	if (!sp)
		return NULL;
	sp->fd = fd;
	return sp;
}

void srv_spool_on_flush(struct srv_spool *sp, void (*flushed)(void *ctx, uint64_t bytes, int final),
                        void *ctx)
{
	sp->flushed = flushed;
	sp->flushed_ctx = ctx;
}

int srv_write_all(int fd, const void *data, size_t n)
{
	const unsigned char *p = data;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int reserve(struct srv_spool *sp, size_t n)
{
	if (sp->len + n <= sp->cap)
		return 0;
	size_t cap = sp->cap ? sp->cap : 64 * 1024;
	while (cap < sp->len + n)
		cap *= 2;
	unsigned char *b = realloc(sp->buf, cap);
	if (!b) {
		errno = ENOMEM;
		return -1;
	}
	sp->buf = b;
	sp->cap = cap;
	return 0;
}

static int put(struct srv_spool *sp, const void *p, size_t n)
{
	if (reserve(sp, n) < 0)
		return -1;
	memcpy(sp->buf + sp->len, p, n);
	sp->len += n;
	return 0;
}

static int put_u32(struct srv_spool *sp, uint32_t v)
{
	return put(sp, &v, sizeof v);
}

static int put_u64(struct srv_spool *sp, uint64_t v)
{
	return put(sp, &v, sizeof v);
}

static int put_str(struct srv_spool *sp, const char *s)
{
	if (!s)
		return put_u32(sp, NO_STRING);
	size_t n = strlen(s);
	if (n >= NO_STRING) {
		errno = EOVERFLOW;
		return -1;
	}
	return put_u32(sp, (uint32_t)n) < 0 ? -1 : put(sp, s, n + 1);
}

static int begin(struct srv_spool *sp, unsigned char type)
{
	sp->rec_start = sp->len;
	return put_u32(sp, 0) < 0 ? -1 : put(sp, &type, 1);
}

/* Fill in the record's length; write the buffer out once it is large. */
static int end(struct srv_spool *sp)
{
	size_t n = sp->len - sp->rec_start - sizeof(uint32_t);
	if (n >= NO_STRING) {
		errno = EOVERFLOW;
		return -1;
	}
	uint32_t v = (uint32_t)n;
	memcpy(sp->buf + sp->rec_start, &v, sizeof v);
	if (sp->len < SPOOL_FLUSH)
		return 0;
	if (srv_write_all(sp->fd, sp->buf, sp->len) < 0)
		return -1;
	sp->written += sp->len;
	sp->len = 0;
	if (sp->flushed)
		sp->flushed(sp->flushed_ctx, sp->written, 0);
	return 0;
}

int srv_spool_header(struct srv_spool *sp, const struct matcher_actlog_header *h)
{
	if (begin(sp, REC_HEADER) < 0 || put_u64(sp, (uint64_t)(int64_t)h->total) < 0 ||
	    put_u32(sp, (uint32_t)h->has_excluded) < 0 || put_str(sp, h->excluded) < 0)
		return -1;
	return end(sp);
}

int srv_spool_entry(struct srv_spool *sp, const struct matcher_entry *e)
{
	if (begin(sp, REC_ENTRY) < 0 || put_str(sp, e->key) < 0)
		return -1;
	for (int i = 0; i < MATCHER_N_STATS; i++)
		if (put_str(sp, e->stats[i]) < 0)
			return -1;
	if (put(sp, e->stat_num, sizeof e->stat_num) < 0 || put_u32(sp, e->stat_isnum) < 0 ||
	    put_str(sp, e->output_hash) < 0 || put_str(sp, e->input_hashes) < 0 ||
	    put_str(sp, e->input_producers) < 0 || put_str(sp, e->location) < 0 ||
	    put_u32(sp, (uint32_t)e->phase) < 0 || put_u64(sp, e->line) < 0 ||
	    put_u64(sp, e->order) < 0)
		return -1;
	return end(sp);
}

int srv_spool_step(struct srv_spool *sp, const struct matcher_step_record *r)
{
	if (begin(sp, REC_STEP) < 0 || put_u32(sp, (uint32_t)r->rank) < 0 ||
	    put_u64(sp, (uint64_t)(int64_t)r->step) < 0 ||
	    put_u32(sp, (uint32_t)r->validation) < 0 || put_u64(sp, r->line) < 0 ||
	    put_u32(sp, (uint32_t)r->kind) < 0 || put_u64(sp, r->n_metrics) < 0)
		return -1;
	for (size_t i = 0; i < r->n_metrics; i++) {
		const struct matcher_metric_value *m = &r->metrics[i];
		if (put_str(sp, m->name) < 0 || put_str(sp, m->text) < 0 ||
		    put(sp, &m->value, sizeof m->value) < 0 ||
		    /* decimals (< 2^24) and the precision share one word */
		    put_u32(sp, (uint32_t)m->decimals | (uint32_t)m->prec << 24) < 0)
			return -1;
	}
	return end(sp);
}

int srv_spool_warning(struct srv_spool *sp, const struct matcher_warning *w)
{
	if (begin(sp, REC_WARNING) < 0 || put_str(sp, w->code) < 0 || put_u64(sp, w->line) < 0 ||
	    put_str(sp, w->message) < 0 || put_str(sp, w->excerpt) < 0)
		return -1;
	return end(sp);
}

int srv_spool_finish(struct srv_spool *sp)
{
	int rc = 0;
	if (sp->len && srv_write_all(sp->fd, sp->buf, sp->len) < 0)
		rc = -1;
	sp->written += sp->len;
	sp->len = 0;
	int err = errno;
	if (close(sp->fd) < 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	sp->fd = -1;
	free(sp->buf);
	sp->buf = NULL;
	sp->cap = 0;
	if (rc == 0 && sp->flushed)
		sp->flushed(sp->flushed_ctx, sp->written, 1);
	errno = err;
	return rc;
}

void srv_spool_free(struct srv_spool *sp)
{
	if (!sp)
		return;
	if (sp->fd >= 0)
		close(sp->fd);
	free(sp->buf);
	free(sp);
}

/* ---- replay ---------------------------------------------------------------- */

/* A cursor over one record's payload. */
struct cur {
	unsigned char *p, *end;
	int bad;
};

static void get(struct cur *c, void *out, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, c->p, n);
	c->p += n;
}

static uint32_t get_u32(struct cur *c)
{
	uint32_t v;
	get(c, &v, sizeof v);
	return v;
}

static uint64_t get_u64(struct cur *c)
{
	uint64_t v;
	get(c, &v, sizeof v);
	return v;
}

/* A string of the record (NUL-terminated in place), or NULL. */
static const char *get_str(struct cur *c)
{
	uint32_t n = get_u32(c);
	if (c->bad || n == NO_STRING)
		return NULL;
	if ((size_t)(c->end - c->p) < (size_t)n + 1 || c->p[n] != 0) {
		c->bad = 1;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p += (size_t)n + 1;
	return s;
}

/* One record's payload to the callbacks.  0, -1 damaged, -2 callback. */
static int dispatch(struct cur *c, const struct matcher_actlog_callbacks *act,
                    const struct matcher_trainlog_callbacks *train,
                    struct matcher_metric_value **metrics, size_t *metrics_cap)
{
	unsigned char type;
	get(c, &type, 1);
	int cb = 0;
	if (type == REC_HEADER && act) {
		struct matcher_actlog_header h;
		h.total = (long)(int64_t)get_u64(c);
		h.has_excluded = (int)get_u32(c);
		h.excluded = get_str(c);
		if (c->bad)
			return -1;
		cb = act->on_header ? act->on_header(act->ctx, &h) : 0;
	} else if (type == REC_ENTRY && act) {
		struct matcher_entry e;
		memset(&e, 0, sizeof e);
		e.key = get_str(c);
		for (int i = 0; i < MATCHER_N_STATS; i++)
			e.stats[i] = get_str(c);
		get(c, e.stat_num, sizeof e.stat_num);
		e.stat_isnum = get_u32(c);
		e.output_hash = get_str(c);
		e.input_hashes = get_str(c);
		e.input_producers = get_str(c);
		e.location = get_str(c);
		e.phase = (enum matcher_phase)get_u32(c);
		e.line = (unsigned long)get_u64(c);
		e.order = (size_t)get_u64(c);
		if (c->bad || !e.key)
			return -1;
		cb = act->on_entry ? act->on_entry(act->ctx, &e) : 0;
	} else if (type == REC_STEP && train) {
		struct matcher_step_record r;
		memset(&r, 0, sizeof r);
		r.rank = (int)get_u32(c);
		r.step = (long)(int64_t)get_u64(c);
		r.validation = (int)get_u32(c);
		r.line = (unsigned long)get_u64(c);
		r.kind = (enum matcher_step_kind)get_u32(c);
		uint64_t n = get_u64(c);
		/* each metric takes at least 24 bytes of the record */
		if (c->bad || n > (uint64_t)(c->end - c->p) / 24)
			return -1;
		if (n > *metrics_cap) {
			struct matcher_metric_value *m = realloc(*metrics, n * sizeof *m);
			if (!m)
				return -1;
			*metrics = m;
			*metrics_cap = n;
		}
		for (size_t i = 0; i < n; i++) {
			struct matcher_metric_value *m = &(*metrics)[i];
			m->name = get_str(c);
			m->text = get_str(c);
			get(c, &m->value, sizeof m->value);
			uint32_t dp = get_u32(c);
			m->decimals = (int)(dp & 0xFFFFFFu);
			m->prec = (int)(dp >> 24);
		}
		if (c->bad)
			return -1;
		r.metrics = *metrics;
		r.n_metrics = (size_t)n;
		cb = train->on_step ? train->on_step(train->ctx, &r) : 0;
	} else if (type == REC_WARNING && (act || train)) {
		struct matcher_warning w;
		w.code = get_str(c);
		w.line = (unsigned long)get_u64(c);
		w.message = get_str(c);
		w.excerpt = get_str(c);
		if (c->bad || !w.code)
			return -1;
		int (*on_warning)(void *, const struct matcher_warning *) =
		        act ? act->on_warning : train->on_warning;
		cb = on_warning ? on_warning(act ? act->ctx : train->ctx, &w) : 0;
	} else {
		return -1;
	}
	return cb ? -2 : 0;
}

struct srv_spool_reader {
	int fd;
	unsigned char *buf;
	size_t cap, have, pos; /* buf[pos, have): read, not yet replayed */
	uint64_t read;         /* bytes of the file read into buf so far */
	struct matcher_metric_value *metrics;
	size_t metrics_cap;
};

struct srv_spool_reader *srv_spool_reader_open(const char *path)
{
	struct srv_spool_reader *rd = calloc(1, sizeof *rd);
	if (!rd)
		return NULL;
	rd->fd = -1;
	rd->cap = 256 * 1024;
	rd->buf = malloc(rd->cap);
	rd->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!rd->buf || rd->fd < 0) {
		srv_spool_reader_free(rd);
		return NULL;
	}
	return rd;
}

int srv_spool_reader_run(struct srv_spool_reader *rd, uint64_t avail,
                         const struct matcher_actlog_callbacks *act,
                         const struct matcher_trainlog_callbacks *train)
{
	for (;;) {
		/* the next record whole in buf[pos, have) */
		size_t need = sizeof(uint32_t);
		uint32_t len = 0;
		for (;;) {
			if (rd->have - rd->pos >= sizeof len) {
				memcpy(&len, rd->buf + rd->pos, sizeof len);
				if (len == 0)
					return -1; /* no type: damaged */
				need = sizeof len + (size_t)len;
			}
			if (rd->have - rd->pos >= need && need > sizeof len)
				break;
			if (rd->read >= avail)
				/* all that is there was replayed (a file ending
				 * inside a record: srv_spool_reader_done says) */
				return 0;
			if (rd->pos) {
				memmove(rd->buf, rd->buf + rd->pos, rd->have - rd->pos);
				rd->have -= rd->pos;
				rd->pos = 0;
			}
			if (need > rd->cap) {
				unsigned char *b = realloc(rd->buf, need);
				if (!b)
					return -1;
				rd->buf = b;
				rd->cap = need;
			}
			size_t want = rd->cap - rd->have;
			if (want > avail - rd->read)
				want = (size_t)(avail - rd->read);
			ssize_t n = read(rd->fd, rd->buf + rd->have, want);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -1;
			if (n == 0) {
				if (avail != UINT64_MAX)
					return -1; /* shorter than announced */
				avail = rd->read;
				continue;
			}
			rd->have += (size_t)n;
			rd->read += (uint64_t)n;
		}
		struct cur c = {rd->buf + rd->pos + sizeof len, rd->buf + rd->pos + need, 0};
		int d = dispatch(&c, act, train, &rd->metrics, &rd->metrics_cap);
		if (d < 0)
			return d;
		rd->pos += need;
	}
}

int srv_spool_reader_done(const struct srv_spool_reader *rd)
{
	return rd->have == rd->pos;
}

void srv_spool_reader_free(struct srv_spool_reader *rd)
{
	if (!rd)
		return;
	if (rd->fd >= 0)
		close(rd->fd);
	free(rd->buf);
	free(rd->metrics);
	free(rd);
}

int srv_spool_replay(const char *path, const struct matcher_actlog_callbacks *act,
                     const struct matcher_trainlog_callbacks *train)
{
	struct srv_spool_reader *rd = srv_spool_reader_open(path);
	if (!rd)
		return -1;
	int rc = srv_spool_reader_run(rd, UINT64_MAX, act, train);
	if (rc == 0 && !srv_spool_reader_done(rd))
		rc = -1; /* ends inside a record */
	srv_spool_reader_free(rd);
	return rc;
}
