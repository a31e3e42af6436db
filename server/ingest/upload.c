/* upload.c - streaming log uploads (see ingest.h for the design).
 *
 * Data path of one log:  body bytes -> SHA-256 + temp file (the original
 * bytes) -> gzip inflater when the first bytes are the gzip magic ->
 * decoded text -> parser(s) -> their records into a spool file (ingest.h).
 * Until the kind is known (the `kind` field, or detection on the first
 * 64 KiB) decoded text is held in a small head buffer; when detection
 * cannot tell, both parsers run and the one that accepts the log wins.
 *
 * Stored compressed.  A log that is not gzip already is also deflated as
 * it arrives (RAW_GZ_LEVEL, on a helper thread beside hashing and parsing:
 * ingest.h) into a second temp file: that one becomes the
 * raw file <sha256>.gz (store_rawlog.h), and the plain temp file is only scratch
 * (never fsync'ed).  A gzip upload is stored as it came, under <sha256>.
 * Compressing while the body streams keeps it off the write lock: the
 * commit renames a finished file, as before.
 *
 * Where the time goes (a 30 MB activation log, this project's 2-core
 * machine, CPU per upload): on the request's thread ~0.09 s while the body
 * streams (receive, multipart, SHA-256, parse, spool), on the compression
 * thread ~0.12 s, and ~0.14 s for the insert into SQLite.  The insert used
 * to run in the commit, after the last byte; the insert stage (stage.c)
 * now runs it on a third thread while the body streams, reading the spool
 * as it grows, so an upload takes about the longer of the streaming stages
 * plus the durable commit (~30 ms) instead of their sum; the stage lets go
 * whenever another writer wants the lock, and the commit then inserts as
 * before.  The insert is a bulk transaction (store_tx_begin_bulk: no
 * per-row foreign-key checks), and the commit never checkpoints the WAL:
 * the daemon's checkpointer thread does (dbpool.c), which took ~50 ms off
 * each upload.
 *
 * Parsed once.  Once one kind is decided, that parser's records go to the
 * spool, the plain scratch copy of a compressed log is deleted, and the
 * commit's transaction replays the records instead of reading and parsing
 * the log again.  Only when detection cannot tell (both parsers run to the
 * end) does the commit read the plain temp file back through the same
 * decoder and parser with inserting callbacks, as it always did. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "crypto_lib.h"
#include "actlog.h"
#include "msprobe.h"
#include "store.h"
#include "trainlog.h"
#include "trainsrc.h"
#include "http.h"
#include "ingest.h"

#define HEAD_BYTES (64 * 1024)
/* zlib level of stored raw files.  On a 30 MB activation log (this
 * project's 2-core machine): level 1 deflates at ~125 MB/s to 15.3 % of
 * the log, level 6 at ~46 MB/s to 11.2 %.  Level 1: the upload path must
 * keep up with 60 MB/s ingest, and the database dwarfs the difference. */
#define RAW_GZ_LEVEL 1
#define FIELD_MAX    (1024 * 1024)
#define MAX_LOGS     1024
/* The insert stage (stage.c) is for bodies that arrive fast and end soon
 * (it gives way after 3 s in any case, wasting what it inserted): at least
 * STAGE_MIN_RATE bytes a second so far, and a Content-Length of at most
 * STAGE_MAX_BODY that, at the rate so far, arrives within STAGE_MAX_MS. */
#define STAGE_MIN_RATE (16u << 20)
#define STAGE_MAX_BODY (192ull << 20)
#define STAGE_MAX_MS   2000

/* ---- gzip inflater ------------------------------------------------------ */

typedef int (*sink_fn)(void *ctx, const char *data, size_t n);

struct inflater {
	int state; /* 0 undecided, 1 plain, 2 gzip */
	unsigned char magic[2];
	size_t n_magic;
	int ended; /* last gzip member ended (Z_STREAM_END) */
	z_stream zs;
	int zs_live;
	uint64_t in_bytes, out_bytes;
	uint64_t max_out, ratio;
	char err[160];
	unsigned err_status;
};

static void inflater_init(struct inflater *f, uint64_t max_out, uint64_t ratio)
{
	memset(f, 0, sizeof *f);
	f->max_out = max_out;
	f->ratio = ratio;
}

static void inflater_reset(struct inflater *f)
{
	if (f->zs_live)
		inflateEnd(&f->zs);
	f->zs_live = 0;
}

static int inflate_chunk(struct inflater *f, const unsigned char *in, size_t n, sink_fn sink,
                         void *ctx)
{
	unsigned char out[65536];
	f->zs.next_in = (unsigned char *)in;
	f->zs.avail_in = (uInt)n;
	while (f->zs.avail_in > 0) {
		if (f->ended) {
			/* another gzip member follows (multi-member files) */
			if (inflateReset(&f->zs) != Z_OK)
				goto corrupt;
			f->ended = 0;
		}
		f->zs.next_out = out;
		f->zs.avail_out = sizeof out;
		int zr = inflate(&f->zs, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			goto corrupt;
		size_t got = sizeof out - f->zs.avail_out;
		f->out_bytes += got;
		if (f->out_bytes > f->max_out ||
		    (f->out_bytes > (1u << 20) && f->out_bytes > f->ratio * f->in_bytes)) {
			snprintf(f->err, sizeof f->err,
			         "gzip data inflates beyond the limit (%llu bytes, ratio %llu)",
			         (unsigned long long)f->max_out, (unsigned long long)f->ratio);
			f->err_status = 413;
			return -1;
		}
		if (got && sink(ctx, (const char *)out, got) < 0)
			return -1;
		if (zr == Z_STREAM_END)
			f->ended = 1;
		else if (zr == Z_BUF_ERROR && got == 0)
			break;
	}
	/* drain pending output when input is exhausted */
	for (;;) {
		if (f->ended)
			break;
		f->zs.next_out = out;
		f->zs.avail_out = sizeof out;
		int zr = inflate(&f->zs, Z_NO_FLUSH);
		size_t got = sizeof out - f->zs.avail_out;
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			goto corrupt;
		f->out_bytes += got;
		if (got && sink(ctx, (const char *)out, got) < 0)
			return -1;
		if (zr == Z_STREAM_END)
			f->ended = 1;
		if (got == 0)
			break;
	}
	return 0;
corrupt:
	snprintf(f->err, sizeof f->err, "corrupt gzip data: %s",
	         f->zs.msg ? f->zs.msg : "inflate failed");
	f->err_status = 400;
	return -1;
}

/* Feed original bytes; decoded bytes go to sink.  -1: f->err set (or the
 * sink failed and said why itself: err empty). */
static int inflater_feed(struct inflater *f, const char *data, size_t n, sink_fn sink, void *ctx)
{
	f->in_bytes += n;
	if (f->state == 0) {
		while (n && f->n_magic < 2) {
			f->magic[f->n_magic++] = (unsigned char)*data++;
			n--;
		}
		if (f->n_magic < 2)
			return 0;
		if (f->magic[0] == 0x1f && f->magic[1] == 0x8b) {
			f->state = 2;
			memset(&f->zs, 0, sizeof f->zs);
			if (inflateInit2(&f->zs, 16 + MAX_WBITS) != Z_OK) {
				snprintf(f->err, sizeof f->err, "cannot start gzip decoder");
				f->err_status = 500;
				return -1;
			}
			f->zs_live = 1;
			if (inflate_chunk(f, f->magic, 2, sink, ctx) < 0)
				return -1;
		} else {
			f->state = 1;
			if (sink(ctx, (const char *)f->magic, 2) < 0)
				return -1;
		}
	}
	if (!n)
		return 0;
	if (f->state == 1)
		return sink(ctx, data, n);
	return inflate_chunk(f, (const unsigned char *)data, n, sink, ctx);
}

/* End of the original bytes. */
static int inflater_finish(struct inflater *f, sink_fn sink, void *ctx)
{
	if (f->state == 0 && f->n_magic == 1) {
		f->state = 1;
		return sink(ctx, (const char *)f->magic, 1);
	}
	if (f->state == 2 && !f->ended) {
		snprintf(f->err, sizeof f->err, "truncated gzip data (no end of stream)");
		f->err_status = 400;
		return -1;
	}
	return 0;
}

/* ---- one log of the upload --------------------------------------------- */

struct part {
	char filename[256];  /* client's name, display only */
	char tmp_path[4300]; /* the original bytes */
	int fd;
	/* the original bytes gzip-compressed (not for gzip uploads): the file
	 * stored, written by a helper thread (gz); gz_state 0 not started,
	 * 1 compressing, 2 finished */
	char gz_path[4300];
	int gz_fd;
	int gz_state;
	struct srv_gzpipe *gz;
	uint64_t gz_bytes;
	EVP_MD_CTX *sha;
	char sha_hex[65];
	uint64_t raw_bytes;
	int rank; /* -1 until resolved */
	struct inflater inf;
	/* parsing */
	struct buf head; /* decoded text until the kind is decided */
	int decided;
	struct matcher_actlog_parser *ap;
	struct matcher_trainsrc *tp; /* stdout, event file or loss file */
	enum matcher_source source;  /* of a training log (detected) */
	int ap_dead, tp_dead;        /* that parser refused the log */
	struct matcher_error ap_err, tp_err;
	enum matcher_kind kind;     /* after finish */
	enum matcher_kind detected; /* detection on the head (kind messages) */
	int ap_ok, tp_ok;           /* after finish: that parser accepted it */
	int saw_newline;            /* the decoded text has a line break (`curl -d` strips them) */
	struct upload *u;           /* the owner: spool callbacks report to it */
	/* the parser's records (one kind decided), replayed by the commit */
	char spool_path[4300];
	struct srv_spool *spool;
	enum matcher_kind spool_kind; /* the kind decided when the spool began */
	uint64_t spooled;             /* bytes in the spool file (a record boundary) */
	int spool_final;              /* the spool file is complete */
	size_t index;                 /* in the upload's parts */
	struct matcher_actlog_summary act_sum;
	struct matcher_trainlog_summary train_sum;
	int committed_blob; /* blob created by this upload (undo on failure) */
	int msprobe;        /* an msprobe dump.json (source msprobe) */
	size_t ms_index;    /* its index among the upload's dumps (stack parts) */
};

/* What a raw body said it was (its Content-Type): a body that is no log
 * is told the fix that fits how it was sent. */
enum body_type { BODY_OTHER, BODY_FORM, BODY_JSON };

struct upload {
	struct srv *srv;
	struct srv_req *req;
	struct MHD_PostProcessor *pp;
	int multipart;
	int aborted;
	int saw_field;
	struct part **parts;
	size_t n_parts;
	struct part *cur;       /* multipart part being received */
	enum matcher_kind want; /* from `kind`; UNKNOWN = auto */
	int want_set;
	struct buf name, meta, kind_text;
	/* golden loss files' header lines (`# config: ...`): run meta the
	 * request's own meta does not set (srv_upload_settle merges them) */
	json_t *file_meta;
	int ranks[MAX_LOGS];
	size_t n_ranks;
	struct buf cur_field; /* small field being received */
	char cur_key[32];
	enum body_type body_type; /* a raw body's Content-Type, for the not-a-log hint */
	int settled;              /* srv_upload_settle: 1 passed, -1 failed, 0 not yet */
	int refused;              /* an error was handed out (feed, settle or commit) */
	/* `stack` / `construct` parts beside msprobe dumps (msprobe_side.c) */
	struct srv_msprobe_side *ms;
	/* first error from inside the post-processor iterator */
	unsigned err_status;
	json_t *err;
	/* the insert stage (stage.c), started at the first spool flush */
	struct srv_stage *stage;
	int stage_tried;
};

static void set_err(struct upload *u, unsigned status, json_t *err);
static json_t *meta_too_large(void);

/* A golden loss file's header lines into u->file_meta (the first file
 * that has a key wins).  0, or -1 (OOM, error set). */
static int keep_file_meta(struct upload *u, const struct matcher_trainsrc *tp)
{
	const char *k, *v;
	size_t n = matcher_trainsrc_meta(tp, 0, &k, &v);
	if (!n)
		return 0;
	if (!u->file_meta && !(u->file_meta = json_object()))
		goto oom;
	for (size_t i = 0; i < n; i++) {
		matcher_trainsrc_meta(tp, i, &k, &v);
		if (json_object_get(u->file_meta, k))
			continue;
		struct buf t = BUF_INIT;
		if (buf_append_utf8(&t, v, strlen(v)) < 0 ||
		    json_object_set_new(u->file_meta, k, json_string(t.data ? t.data : "")) < 0) {
			buf_reset(&t);
			goto oom;
		}
		buf_reset(&t);
	}
	return 0;
oom:
	set_err(u, 500, srv_error_json("internal", 0, "out of memory"));
	return -1;
}

/* The run's meta: the request's, plus each golden-file header key it does
 * not set (`# ngpu: 8` gives "ngpu": "8").  0, or -1 (error set). */
static int merge_file_meta(struct upload *u)
{
	if (!u->file_meta || !json_object_size(u->file_meta))
		return 0;
	json_t *m = u->meta.len ? json_loadb(u->meta.data, u->meta.len, 0, NULL) : json_object();
	const char *k;
	json_t *v;
	int rc = -1;
	if (!m || !json_is_object(m))
		goto done;
	json_object_foreach(u->file_meta, k, v)
	{
		if (!json_object_get(m, k) && json_object_set(m, k, v) < 0)
			goto done;
	}
	char *text = json_dumps(m, JSON_COMPACT | JSON_ENSURE_ASCII);
	if (!text)
		goto done;
	buf_clear(&u->meta);
	rc = buf_puts(&u->meta, text) < 0 ? -1 : 0;
	free(text);
	if (rc == 0 && u->meta.len > SRV_META_MAX) {
		set_err(u, 400, meta_too_large());
		json_decref(m);
		return -1;
	}
done:
	json_decref(m);
	if (rc < 0)
		set_err(u, 500, srv_error_json("internal", 0, "out of memory"));
	return rc;
}

static void set_err(struct upload *u, unsigned status, json_t *err)
{
	if (u->err) {
		json_decref(err);
		return;
	}
	u->err_status = status;
	u->err = err;
}

static void part_free(struct part *p)
{
	if (!p)
		return;
	if (p->fd >= 0)
		close(p->fd);
	if (p->tmp_path[0])
		unlink(p->tmp_path);
	srv_gzpipe_abort(p->gz); /* before its fd closes */
	p->gz = NULL;
	if (p->gz_fd >= 0)
		close(p->gz_fd);
	if (p->gz_path[0])
		unlink(p->gz_path);
	srv_spool_free(p->spool);
	if (p->spool_path[0])
		unlink(p->spool_path);
	EVP_MD_CTX_free(p->sha);
	inflater_reset(&p->inf);
	buf_reset(&p->head);
	matcher_actlog_parser_free(p->ap);
	matcher_trainsrc_free(p->tp);
	free(p);
}

int srv_rank_from_filename(const char *name)
{
	if (!name)
		return -1;
	const char *base = strrchr(name, '/');
	base = base ? base + 1 : name;
	const char *p = strstr(base, "rank_");
	if (!p)
		p = strstr(base, "rank");
	while (p) {
		/* rank_3, rank3, and DL Framework Inspect's globalrank-3 */
		const char *d = p + (p[4] == '_' || p[4] == '-' ? 5 : 4);
		if (*d >= '0' && *d <= '9') {
			long v = strtol(d, NULL, 10);
			return v > INT_MAX ? -1 : (int)v;
		}
		p = strstr(p + 1, "rank");
	}
	return -1;
}

/* A new temp file under <data>/tmp (path into path[cap]): its fd, or -1
 * with the upload's error set (path emptied). */
static int temp_file(struct upload *u, char *path, size_t cap)
{
	/* mkostemp template: the last six characters become X's */
	snprintf(path, cap, "%s/upload-______", store_rawlog_dir(u->srv->raw, STORE_RAWLOG_TMP));
	memset(path + strlen(path) - 6, 'X', 6);
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		return fd;
	int err = errno;
	path[0] = 0;
	if (err == EMFILE || err == ENFILE)
		/* out of file descriptors (many connections at once): not
		 * the disk, and it passes */
		set_err(u, 503,
		        srv_error_json("busy", 0,
		                       "the server has too many open files; retry later"));
	else
		set_err(u, err == ENOSPC || err == EDQUOT ? 507 : 500,
		        srv_error_json("storage", 0, "cannot create a temporary file: %s",
		                       strerror(err)));
	return -1;
}

static struct part *part_new(struct upload *u, const char *filename)
{
	if (u->n_parts >= MAX_LOGS) {
		set_err(u, 400,
		        srv_error_json("too_many_logs", 0, "at most %d logs per run", MAX_LOGS));
		return NULL;
	}
	struct part *p = calloc(1, sizeof *p);
	if (!p)
		goto oom;
	p->fd = -1;
	p->gz_fd = -1;
	p->rank = -1;
	p->u = u;
	if (filename) {
		/* keep a printable, path-free copy for display */
		const char *base = strrchr(filename, '/');
		base = base ? base + 1 : filename;
		size_t j = 0;
		for (size_t i = 0; base[i] && j + 1 < sizeof p->filename; i++) {
			unsigned char c = (unsigned char)base[i];
			p->filename[j++] =
			        (c < 0x20 || c == 0x7f || c == '"' || c == '\\') ? '_' : (char)c;
		}
		p->filename[j] = 0;
	}
	p->fd = temp_file(u, p->tmp_path, sizeof p->tmp_path);
	if (p->fd < 0) {
		part_free(p);
		return NULL;
	}
	p->sha = EVP_MD_CTX_new();
	if (!p->sha || EVP_DigestInit_ex(p->sha, EVP_sha256(), NULL) != 1)
		goto oom_part;
	const struct srv_config *cfg = &u->srv->cfg;
	uint64_t max_out = cfg->max_upload > UINT64_MAX / 10 ? UINT64_MAX : cfg->max_upload * 10;
	inflater_init(&p->inf, max_out, cfg->max_inflate_ratio);
	struct part **np = realloc(u->parts, (u->n_parts + 1) * sizeof *np);
	if (!np)
		goto oom_part;
	u->parts = np;
	p->index = u->n_parts;
	u->parts[u->n_parts++] = p;
	return p;
oom_part:
	part_free(p);
oom:
	set_err(u, 503, srv_error_json("out_of_memory", 0, "out of memory"));
	return NULL;
}

/* A spool write failed (errno): the upload's error, and stop the parser. */
static int spool_failed(struct part *p)
{
	int err = errno;
	if (err == ENOMEM)
		set_err(p->u, 503, srv_error_json("out_of_memory", 0, "out of memory"));
	else
		set_err(p->u, err == ENOSPC || err == EDQUOT ? 507 : 500,
		        srv_error_json("storage", 0, "cannot store the upload: %s", strerror(err)));
	return -1;
}

static int spool_header(void *ctx, const struct matcher_actlog_header *h)
{
	struct part *p = ctx;
	return srv_spool_header(p->spool, h) < 0 ? spool_failed(p) : 0;
}

static int spool_entry(void *ctx, const struct matcher_entry *e)
{
	struct part *p = ctx;
	return srv_spool_entry(p->spool, e) < 0 ? spool_failed(p) : 0;
}

static int spool_step(void *ctx, const struct matcher_step_record *r)
{
	struct part *p = ctx;
	return srv_spool_step(p->spool, r) < 0 ? spool_failed(p) : 0;
}

static int spool_warning(void *ctx, const struct matcher_warning *w)
{
	struct part *p = ctx;
	return srv_spool_warning(p->spool, w) < 0 ? spool_failed(p) : 0;
}

/* Log p to the insert stage, if one runs: its records are the stage's
 * when they are an activation log's. */
static void stage_log(struct upload *u, const struct part *p)
{
	if (!u->stage)
		return;
	/* (not an msprobe dump: its stack part, which places its entries,
	 * may come after it) */
	int mine = p->spool_path[0] && p->spool_kind == MATCHER_KIND_ACTIVATION && !p->msprobe;
	srv_stage_log(u->stage, p->index, mine ? p->spool_path : NULL, p->filename);
}

/* The first spool flush of an upload (a log past ~256 KiB of records):
 * start the insert stage when it can help, SQLite (one local writer)
 * with the first log an activation log, and tell it the logs so far. */
static void stage_try(struct upload *u)
{
	u->stage_tried = 1;
	const struct part *p0 = u->parts[0];
	struct srv_req *r = u->req;
	if (!r || !p0->spool_path[0] || p0->spool_kind != MATCHER_KIND_ACTIVATION || p0->msprobe ||
	    !store_target_has(u->srv->db.path, STORE_TRAIT_LOCAL_FILE))
		return;
	const char *cl = srv_header(r, MHD_HTTP_HEADER_CONTENT_LENGTH);
	char *end;
	unsigned long long body = cl ? strtoull(cl, &end, 10) : 0;
	int64_t took_us = srv_now_ms() * 1000 - r->start_us;
	uint64_t rate = took_us > 0 ? r->body_bytes * 1000000 / (uint64_t)took_us : UINT64_MAX;
	if (!cl || *end || body > STAGE_MAX_BODY || rate < STAGE_MIN_RATE ||
	    body / (rate / 1000) > STAGE_MAX_MS)
		return;
	u->stage = srv_stage_start(u->srv, MAX_LOGS);
	for (size_t i = 0; u->stage && i < u->n_parts; i++) {
		const struct part *p = u->parts[i];
		stage_log(u, p);
		srv_stage_spooled(u->stage, i, p->spooled, p->spool_final);
	}
}

/* srv_spool_on_flush's hook: the stage reads what is in the file. */
static void spooled(void *ctx, uint64_t bytes, int final)
{
	struct part *p = ctx;
	struct upload *u = p->u;
	p->spooled = bytes;
	p->spool_final = final;
	if (!u->stage && !u->stage_tried && !final)
		stage_try(u);
	if (u->stage)
		srv_stage_spooled(u->stage, p->index, bytes, final);
}

/* The kind is known: spool the records from here on.  The plain temp file
 * of a log that is being compressed is no longer needed (the commit reads
 * the spool): it goes first, so a request still holds at most two temp
 * fds.  0, or -1 with the error set. */
static int spool_start(struct upload *u, struct part *p)
{
	if (p->inf.state == 1) {
		close(p->fd);
		p->fd = -1;
		unlink(p->tmp_path);
		p->tmp_path[0] = 0;
	}
	int fd = temp_file(u, p->spool_path, sizeof p->spool_path);
	if (fd < 0)
		return -1;
	p->spool = srv_spool_new(fd);
	if (!p->spool) {
		close(fd);
		set_err(u, 503, srv_error_json("out_of_memory", 0, "out of memory"));
		return -1;
	}
	srv_spool_on_flush(p->spool, spooled, p);
	stage_log(u, p);
	return 0;
}

/* Start the parser(s) for a part whose kind is now decided (UNKNOWN: both,
 * and nothing spools).  0, or -1 with the error set. */
static int part_start_parsers(struct upload *u, struct part *p, enum matcher_kind k)
{
	size_t max_line = u->srv->cfg.max_line;
	static const struct matcher_actlog_callbacks no_act = {0};
	static const struct matcher_trainlog_callbacks no_train = {0};
	const struct matcher_actlog_callbacks spool_act = {p, spool_header, spool_entry,
	                                                   spool_warning};
	const struct matcher_trainlog_callbacks spool_train = {p, spool_step, spool_warning};
	p->spool_kind = k;
	if (k != MATCHER_KIND_UNKNOWN && spool_start(u, p) < 0)
		return -1;
	if (k != MATCHER_KIND_TRAINING) {
		p->ap = matcher_actlog_parser_new(p->spool ? &spool_act : &no_act, max_line);
		if (!p->ap)
			return -1;
	} else {
		p->ap_dead = 1;
	}
	if (k != MATCHER_KIND_ACTIVATION) {
		p->source = matcher_detect_source(p->head.data, p->head.len);
		p->tp = matcher_trainsrc_new(p->source, p->spool ? &spool_train : &no_train, 0,
		                             max_line);
		if (!p->tp)
			return -1;
	} else {
		p->tp_dead = 1;
	}
	p->decided = 1;
	return 0;
}

/* Did log p come as `curl -d @file` sends it: a urlencoded form body
 * with its line breaks stripped? */
static int stripped_form(const struct upload *u, const struct part *p)
{
	return u->body_type == BODY_FORM && !p->saw_newline;
}

#define FORM_HINT                                                                                  \
	"the body came as a urlencoded form without line breaks (`curl -d` strips them): "         \
	"send the file as multipart: curl -F log=@rank_0.log http://HOST/runs (or unchanged: "     \
	"curl --data-binary @rank_0.log http://HOST/runs)"

/* The fix named by a refusal of a body that is not a log (400
 * unrecognised_log, empty_log): how to send a log, for how this one came.
 * A static string. */
static const char *send_a_log_hint(const struct upload *u, const struct part *p)
{
	if (stripped_form(u, p))
		return FORM_HINT;
	if (u->body_type == BODY_JSON)
		return "a JSON document is not a log: send the log file as multipart: "
		       "curl -F log=@rank_0.log http://HOST/runs";
	return "send a log file (a numerics tracer log, training stdout, a TensorBoard "
	       "event file or a golden loss file) as multipart: "
	       "curl -F log=@rank_0.log http://HOST/runs";
}

/* A parser's refusal of log p as the upload's error: the log's label,
 * the line, the parser's reason, and the fix when it came as `curl -d`
 * sends it (one line: any parser refuses that). */
static json_t *parse_error_json(const struct upload *u, const struct part *p,
                                const struct matcher_error *e)
{
	const char *code = e->code ? e->code : "invalid_log";
	const char *what = p->filename[0] ? p->filename : "log";
	const char *sep = stripped_form(u, p) ? "; " : "", *hint = *sep ? FORM_HINT : "";
	if (e->line)
		return srv_error_json(code, e->line, "%s: line %lu: %s%s%s", what, e->line,
		                      e->message, sep, hint);
	return srv_error_json(code, 0, "%s: %s%s%s", what, e->message, sep, hint);
}

/* Decoded text -> the running parser(s).  Fatal errors on the only live
 * parser end the upload; with two live parsers the survivor continues. */
static int parse_text(struct upload *u, struct part *p, const char *data, size_t n)
{
	if (p->ap && !p->ap_dead && matcher_actlog_feed(p->ap, data, n) < 0) {
		p->ap_dead = 1;
		p->ap_err = *matcher_actlog_error(p->ap);
	}
	if (p->tp && !p->tp_dead && matcher_trainsrc_feed(p->tp, data, n) < 0) {
		p->tp_dead = 1;
		p->tp_err = *matcher_trainsrc_error(p->tp);
	}
	if (p->ap_dead && p->tp_dead) {
		/* report the error of the parser the user meant (or the activation one) */
		const struct matcher_error *e = p->ap ? &p->ap_err : &p->tp_err;
		if (p->ap && p->tp && strcmp(p->ap_err.code, "binary_data") != 0 &&
		    strcmp(p->ap_err.code, "line_too_long") != 0)
			e = &p->tp_err;
		set_err(u, 400, parse_error_json(u, p, e));
		return -1;
	}
	return 0;
}

static int decide_kind(struct upload *u, struct part *p)
{
	p->detected = matcher_detect_kind(p->head.data, p->head.len);
	p->msprobe = matcher_msprobe_detect(p->head.data, p->head.len);
	enum matcher_kind k = u->want_set ? u->want : p->detected;
	if (part_start_parsers(u, p, k) < 0) {
		set_err(u, 503, srv_error_json("out_of_memory", 0, "out of memory"));
		return -1; /* (the first error stays: a spool's) */
	}
	int rc = parse_text(u, p, p->head.data ? p->head.data : "", p->head.len);
	buf_reset(&p->head);
	return rc;
}

struct sink_ctx {
	struct upload *u;
	struct part *p;
};

static int decoded_sink(void *ctx, const char *data, size_t n)
{
	struct sink_ctx *sc = ctx;
	struct part *p = sc->p;
	if (!p->saw_newline && memchr(data, '\n', n))
		p->saw_newline = 1;
	if (p->decided)
		return parse_text(sc->u, p, data, n);
	size_t room = HEAD_BYTES - p->head.len;
	size_t take = n < room ? n : room;
	if (buf_append(&p->head, data, take) < 0) {
		set_err(sc->u, 503, srv_error_json("out_of_memory", 0, "out of memory"));
		return -1;
	}
	if (p->head.len < HEAD_BYTES)
		return 0;
	if (decide_kind(sc->u, p) < 0)
		return -1;
	return take < n ? parse_text(sc->u, p, data + take, n - take) : 0;
}

/* Write all n bytes to fd; 0, or -1 with the upload's error set. */
static int write_all(struct upload *u, int fd, const void *data, size_t n)
{
	if (srv_write_all(fd, data, n) == 0)
		return 0;
	unsigned status = (errno == ENOSPC || errno == EDQUOT) ? 507 : 500;
	set_err(u, status,
	        srv_error_json("storage", 0, "cannot store the upload: %s", strerror(errno)));
	return -1;
}

/* A failed compression (errno): the upload's error. */
static int gz_failed(struct upload *u)
{
	int err = errno;
	if (err == ENOMEM || err == EAGAIN)
		set_err(u, 503, srv_error_json("busy", 0, "cannot start compressing; retry later"));
	else
		set_err(u, err == ENOSPC || err == EDQUOT ? 507 : 500,
		        srv_error_json("storage", 0, "cannot store the upload: %s", strerror(err)));
	return -1;
}

/* Original bytes into the compressed temp file (file and helper thread
 * created on first use); finish = 1 ends the gzip member and waits for it.
 * 0, or -1 with the error set. */
static int gz_feed(struct upload *u, struct part *p, const void *data, size_t n, int finish)
{
	if (p->gz_state == 0) {
		p->gz_fd = temp_file(u, p->gz_path, sizeof p->gz_path);
		if (p->gz_fd < 0)
			return -1;
		p->gz = srv_gzpipe_start(p->gz_fd, RAW_GZ_LEVEL);
		if (!p->gz)
			return gz_failed(u);
		p->gz_state = 1;
	}
	if (n && srv_gzpipe_write(p->gz, data, n) < 0)
		return gz_failed(u);
	if (finish) {
		struct srv_gzpipe *g = p->gz;
		p->gz = NULL;
		p->gz_state = 2;
		if (srv_gzpipe_finish(g, &p->gz_bytes) < 0)
			return gz_failed(u);
	}
	return 0;
}

static int part_feed(struct upload *u, struct part *p, const char *data, size_t n)
{
	if (!n)
		return 0;
	p->raw_bytes += n;
	if (EVP_DigestUpdate(p->sha, data, n) != 1) {
		set_err(u, 500, srv_error_json("internal", 0, "hashing failed"));
		return -1;
	}
	if (p->fd >= 0 && write_all(u, p->fd, data, n) < 0)
		return -1;
	int undecided = p->inf.state == 0;
	size_t magic_before = p->inf.n_magic;
	struct sink_ctx sc = {u, p};
	if (inflater_feed(&p->inf, data, n, decoded_sink, &sc) < 0) {
		if (p->inf.err[0])
			set_err(u, p->inf.err_status,
			        srv_error_json(p->inf.err_status == 413 ? "too_large" : "bad_gzip",
			                       0, "%s", p->inf.err));
		return -1;
	}
	if (p->inf.state != 1)
		return 0; /* gzip already (stored as it came), or undecided */
	if (!undecided)
		return gz_feed(u, p, data, n, 0);
	/* decided by this chunk: the two magic bytes, then the rest of it */
	size_t used = 2 - magic_before;
	if (gz_feed(u, p, p->inf.magic, 2, 0) < 0)
		return -1;
	return gz_feed(u, p, data + used, n - used, 0);
}

/* 400 kind_mismatch: the declared kind and what the log p is. */
static void kind_contradicts(struct upload *u, const struct part *p)
{
	enum matcher_kind is = p->detected != MATCHER_KIND_UNKNOWN ? p->detected : p->kind;
	set_err(u, 400,
	        srv_error_json("kind_mismatch", 0, "kind is declared %s but %s is a%s %s log",
	                       matcher_kind_name(u->want), p->filename[0] ? p->filename : "the log",
	                       is == MATCHER_KIND_ACTIVATION ? "n" : "", matcher_kind_name(is)));
}

/* A log that parsed but holds nothing to compare (no activation op, no
 * training step or validation record): 0, or -1 with 400 empty_log set.
 * Decided only at the end of the log, so the refusal drops the temp and
 * spool files as any parse error does (part_free); nothing is stored. */
static int refuse_empty(struct upload *u, const struct part *p, const char *label)
{
	if (p->kind == MATCHER_KIND_ACTIVATION
	            ? p->act_sum.n_entries > 0
	            : p->train_sum.n_steps + p->train_sum.n_validation > 0)
		return 0;
	set_err(u, 400,
	        srv_error_json("empty_log", 0,
	                       "%s holds no activation op and no training step: nothing to "
	                       "compare; %s",
	                       label, send_a_log_hint(u, p)));
	return -1;
}

/* All bytes of a part arrived: flush decoder and parsers, settle kind. */
static int part_end(struct upload *u, struct part *p)
{
	struct sink_ctx sc = {u, p};
	int undecided = p->inf.state == 0;
	if (inflater_finish(&p->inf, decoded_sink, &sc) < 0) {
		if (p->inf.err[0])
			set_err(u, p->inf.err_status,
			        srv_error_json("bad_gzip", 0, "%s", p->inf.err));
		return -1;
	}
	if (!p->decided && decide_kind(u, p) < 0)
		return -1;
	if (p->ap && !p->ap_dead && matcher_actlog_finish(p->ap, &p->act_sum) < 0) {
		p->ap_dead = 1;
		p->ap_err = *matcher_actlog_error(p->ap);
	}
	if (p->tp && !p->tp_dead && matcher_trainsrc_finish(p->tp, &p->train_sum) < 0) {
		p->tp_dead = 1;
		p->tp_err = *matcher_trainsrc_error(p->tp);
	}
	if (p->tp && !p->tp_dead && keep_file_meta(u, p->tp) < 0)
		return -1;
	if (!p->spool)
		stage_log(u, p); /* not spooled: the stage stops before it */
	const char *label = p->filename[0] ? p->filename : "log";
	p->ap_ok = p->ap && !p->ap_dead;
	p->tp_ok = p->tp && !p->tp_dead;
	if (u->want_set && (u->want == MATCHER_KIND_ACTIVATION ? !p->ap_ok : !p->tp_ok) &&
	    p->detected != MATCHER_KIND_UNKNOWN && p->detected != u->want)
		return kind_contradicts(u, p), -1;
	if (!p->ap_dead && (u->want_set ? u->want == MATCHER_KIND_ACTIVATION : 1))
		p->kind = MATCHER_KIND_ACTIVATION;
	else if (!p->tp_dead && (u->want_set ? u->want == MATCHER_KIND_TRAINING : 1))
		p->kind = MATCHER_KIND_TRAINING;
	else if (u->want_set && u->want == MATCHER_KIND_ACTIVATION && p->ap)
		return set_err(u, 400, parse_error_json(u, p, &p->ap_err)), -1;
	else if (u->want_set && u->want == MATCHER_KIND_TRAINING && p->tp)
		return set_err(u, 400, parse_error_json(u, p, &p->tp_err)), -1;
	else if (u->want_set)
		return set_err(u, 400,
		               srv_error_json("wrong_kind", 0, "%s is not a%s log", label,
		                              u->want == MATCHER_KIND_TRAINING ? " training"
		                                                               : "n activation")),
		       -1;
	else if (p->tp && p->detected == MATCHER_KIND_TRAINING)
		/* it looked like a training log: say why it is not a usable one
		 * ("all 3 metric lines are malformed; first at line 4") */
		return set_err(u, 400, parse_error_json(u, p, &p->tp_err)), -1;
	else if (p->ap && p->detected == MATCHER_KIND_ACTIVATION)
		/* it looked like an activation log (an msprobe dump refused at
		 * its end): say why */
		return set_err(u, 400, parse_error_json(u, p, &p->ap_err)), -1;
	else {
		set_err(u, 400,
		        srv_error_json("unrecognised_log", 0,
		                       "%s is neither an activation log nor a training log; %s",
		                       label, send_a_log_hint(u, p)));
		return -1;
	}
	/* both parsers ran (no kind decided): an activation parse without a
	 * single op loses to a training parse with steps */
	if (p->kind == MATCHER_KIND_ACTIVATION && !p->act_sum.n_entries && !u->want_set &&
	    p->tp_ok && p->train_sum.n_steps + p->train_sum.n_validation > 0)
		p->kind = MATCHER_KIND_TRAINING;
	if (refuse_empty(u, p, label) < 0)
		return -1;
	/* The streaming pass is over: free its parsers (their duplicate-key
	 * sets are the biggest allocation of an upload) before the commit
	 * parses the file again. */
	matcher_actlog_parser_free(p->ap);
	matcher_trainsrc_free(p->tp);
	p->ap = NULL;
	p->tp = NULL;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned md_len = 0;
	EVP_DigestFinal_ex(p->sha, md, &md_len);
	for (unsigned i = 0; i < md_len && i < 32; i++)
		snprintf(p->sha_hex + 2 * i, 3, "%02x", md[i]);
	/* End the compressed copy (a log of 0 or 1 bytes was decided only by
	 * inflater_finish: it gets its bytes here) */
	if (p->inf.state != 2) {
		const void *rest = p->inf.magic;
		size_t n_rest = p->inf.state == 1 && undecided ? p->inf.n_magic : 0;
		if (gz_feed(u, p, rest, n_rest, 1) < 0)
			return -1;
	}
	/* Make the file to be stored durable now and give the fds back: a
	 * request holds at most two temp fds at a time however many logs it
	 * carries (the commit reopens the plain file to read it back).  The
	 * plain copy of a compressed log is scratch: no fsync. */
	int stored_fd = p->gz_fd >= 0 ? p->gz_fd : p->fd;
	/* unless the raw logs are not files (PostgreSQL): then the commit
	 * copies it into the database, and it is scratch too */
	int rc = store_target_has(u->srv->db.path, STORE_TRAIT_LOCAL_FILE) ? fsync(stored_fd) : 0;
	int err = errno;
	if (p->fd >= 0 && close(p->fd) < 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	p->fd = -1;
	if (p->spool && srv_spool_finish(p->spool) < 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	if (p->gz_fd >= 0 && close(p->gz_fd) < 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	p->gz_fd = -1;
	if (rc < 0) {
		set_err(u, 507,
		        srv_error_json("storage", 0, "cannot store the upload: %s", strerror(err)));
		return -1;
	}
	return 0;
}

/* ---- multipart ------------------------------------------------------------ */

static int field_append(struct upload *u, struct buf *b, const char *key, const char *data,
                        size_t size)
{
	if (b->len + size > FIELD_MAX) {
		set_err(u, 413,
		        srv_error_json("too_large", 0, "field '%s' over %d bytes", key, FIELD_MAX));
		return -1;
	}
	if (buf_append(b, data, size) < 0) {
		set_err(u, 503, srv_error_json("out_of_memory", 0, "out of memory"));
		return -1;
	}
	return 0;
}

static json_t *meta_too_large(void)
{
	return srv_error_json("bad_meta", 0, "meta must be a JSON object of at most %d bytes",
	                      SRV_META_MAX);
}

/* A kind declared after some logs ended (field order never matters):
 * each of them becomes that kind when its parser accepted it, else the
 * declared kind contradicts the content.  0, or -1 with the error set. */
static int apply_late_kind(struct upload *u)
{
	for (size_t i = 0; i < u->n_parts; i++) {
		struct part *p = u->parts[i];
		if (p == u->cur || p->kind == u->want)
			continue;
		if (u->want == MATCHER_KIND_ACTIVATION ? p->ap_ok : p->tp_ok) {
			p->kind = u->want; /* both parsers ran: nothing was spooled */
			continue;
		}
		kind_contradicts(u, p);
		return -1;
	}
	return 0;
}

/* A finished small field (name, kind, rank, meta). */
static int field_done(struct upload *u)
{
	if (!u->cur_key[0])
		return 0;
	const char *key = u->cur_key;
	const char *val = u->cur_field.data ? u->cur_field.data : "";
	int rc = 0;
	if (memchr(val, 0, u->cur_field.len)) {
		set_err(u, 400,
		        srv_error_json("bad_field", 0, "field '%s' contains a NUL byte", key));
		rc = -1;
	} else if (!strcmp(key, "name")) {
		buf_clear(&u->name);
		rc = field_append(u, &u->name, key, val, u->cur_field.len);
	} else if (!strcmp(key, "meta")) {
		buf_clear(&u->meta);
		rc = field_append(u, &u->meta, key, val, u->cur_field.len);
		if (rc == 0 && u->meta.len > SRV_META_MAX) {
			set_err(u, 400, meta_too_large());
			rc = -1;
		}
	} else if (!strcmp(key, "kind")) {
		if (!strcmp(val, "activation"))
			u->want = MATCHER_KIND_ACTIVATION, u->want_set = 1;
		else if (!strcmp(val, "training"))
			u->want = MATCHER_KIND_TRAINING, u->want_set = 1;
		else if (strcmp(val, "auto") && *val) {
			set_err(u, 400,
			        srv_error_json("bad_field", 0,
			                       "kind must be activation, training or auto"));
			rc = -1;
		}
		if (rc == 0 && u->want_set && apply_late_kind(u) < 0)
			rc = -1;
	} else if (!strcmp(key, "rank")) {
		char *end;
		long v = strtol(val, &end, 10);
		if (!*val || *end || v < 0 || v > 1000000) {
			set_err(u, 400,
			        srv_error_json("bad_field", 0,
			                       "rank must be a non-negative integer"));
			rc = -1;
		} else if (u->n_ranks < MAX_LOGS) {
			u->ranks[u->n_ranks++] = (int)v;
		}
	}
	u->cur_key[0] = 0;
	buf_clear(&u->cur_field);
	return rc;
}

/* A piece of a `stack` / `construct` part beside msprobe dumps: ends the
 * log part or small field before it, as any field does.  0 or -1. */
static int msprobe_side_part(struct upload *u, const char *key, const char *data, uint64_t off,
                             size_t size)
{
	unsigned status;
	json_t *err;
	if ((u->cur_key[0] && field_done(u) < 0) || (u->cur && part_end(u, u->cur) < 0))
		return -1;
	u->cur = NULL;
	if (srv_msprobe_side_field(&u->ms, key, data, off, size, &status, &err) < 0)
		return set_err(u, status, err), -1;
	return 0;
}

int srv_upload_form_data(struct upload *u, const char *key, const char *filename, const char *data,
                         uint64_t off, size_t size)
{
	if (u->aborted || u->err || u->settled)
		return -1;
	u->saw_field = 1;
	if (!key)
		return 0;
	if (!strcmp(key, "log")) {
		if (u->cur_key[0] && field_done(u) < 0)
			return -1;
		/* a browser form's file input with no file chosen: no log */
		if (off == 0 && size == 0 && filename && !filename[0])
			return 0;
		int new_part = off == 0 && (!u->cur || u->cur->raw_bytes > 0 ||
		                            (filename && strcmp(filename, u->cur->filename)));
		if (new_part) {
			if (u->cur && part_end(u, u->cur) < 0)
				return -1;
			u->cur = part_new(u, filename);
			if (!u->cur)
				return -1;
		}
		if (!u->cur) {
			/* data of a part whose start (offset 0) was never seen */
			set_err(u, 400,
			        srv_error_json("bad_multipart", 0, "log part without a start"));
			return -1;
		}
		return part_feed(u, u->cur, data, size) < 0 ? -1 : 0;
	}
	if (!strcmp(key, "stack") || !strcmp(key, "construct"))
		return msprobe_side_part(u, key, data, off, size);
	static const char *const small[] = {"name", "kind", "rank", "meta"};
	int known = 0;
	for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
		known |= !strcmp(key, small[i]);
	if (!known) {
		set_err(u, 400,
		        srv_error_json(
		                "unknown_field", 0,
		                "unknown form field '%.40s' (expected log, name, kind, rank, meta, "
		                "stack, construct)",
		                key));
		return -1;
	}
	if (u->cur) {
		if (part_end(u, u->cur) < 0)
			return -1;
		u->cur = NULL;
	}
	if (off == 0 && (strcmp(u->cur_key, key) != 0 || u->cur_field.len > 0)) {
		if (field_done(u) < 0)
			return -1;
		snprintf(u->cur_key, sizeof u->cur_key, "%s", key);
	}
	return field_append(u, &u->cur_field, key, data, size) < 0 ? -1 : 0;
}

static enum MHD_Result post_iter(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *filename, const char *content_type,
                                 const char *transfer_encoding, const char *data, uint64_t off,
                                 size_t size)
{
	(void)kind;
	(void)content_type;
	(void)transfer_encoding;
	return srv_upload_form_data(cls, key, filename, data, off, size) < 0 ? MHD_NO : MHD_YES;
}

/* ---- public ------------------------------------------------------------- */

struct upload *srv_upload_start(struct srv *s, struct srv_req *r, int multipart,
                                const struct srv_upload_fields *f, unsigned *status, json_t **err)
{
	struct upload *u = calloc(1, sizeof *u);
	if (!u) {
		*status = 503;
		*err = srv_error_json("out_of_memory", 0, "out of memory");
		return NULL;
	}
	u->srv = s;
	u->req = r;
	if (multipart) {
		u->multipart = 1;
		return u;
	}
	/* raw body: the fields come with the request (its query string) */
	if (f && f->name)
		buf_puts(&u->name, f->name);
	if (f && f->meta)
		buf_puts(&u->meta, f->meta);
	const char *const small[][2] = {{"kind", f ? f->kind : NULL}, {"rank", f ? f->rank : NULL}};
	for (size_t i = 0; i < 2; i++) {
		if (!small[i][1])
			continue;
		snprintf(u->cur_key, sizeof u->cur_key, "%s", small[i][0]);
		buf_clear(&u->cur_field);
		buf_puts(&u->cur_field, small[i][1]);
		if (field_done(u) < 0)
			goto refused;
	}
	buf_reset(&u->cur_field);
	u->cur = part_new(u, f ? f->filename : NULL);
	if (!u->cur)
		goto refused;
	return u;
refused:
	*status = u->err_status;
	*err = u->err;
	u->err = NULL;
	srv_upload_free(u);
	return NULL;
}

struct upload *srv_upload_new(struct srv_req *r, unsigned *status, json_t **err)
{
	const char *ct = srv_header(r, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (ct && !strncasecmp(ct, "multipart/form-data", 19)) {
		const char *b = strstr(ct, "boundary=");
		/* libmicrohttpd 0.9.75 takes everything after boundary= as the
		 * boundary; a parameter after it would silently lose all data. */
		if (!b || strchr(b, ';')) {
			*status = 400;
			*err = srv_error_json(
			        "bad_multipart", 0,
			        "multipart Content-Type needs boundary= as its last parameter");
			return NULL;
		}
		struct upload *u = srv_upload_start(r->srv, r, 1, NULL, status, err);
		if (!u)
			return NULL;
		u->pp = MHD_create_post_processor(r->conn, 65536, post_iter, u);
		if (!u->pp) {
			*status = 400;
			*err = srv_error_json("bad_multipart", 0, "cannot read the multipart body");
			srv_upload_free(u);
			return NULL;
		}
		return u;
	}
	struct srv_upload_fields f = {
	        srv_query(r, "name"), srv_query(r, "meta"),     srv_query(r, "kind"),
	        srv_query(r, "rank"), srv_query(r, "filename"),
	};
	struct upload *u = srv_upload_start(r->srv, r, 0, &f, status, err);
	if (u && ct && !strncasecmp(ct, "application/x-www-form-urlencoded", 33))
		u->body_type = BODY_FORM;
	else if (u && ct && !strncasecmp(ct, "application/json", 16))
		u->body_type = BODY_JSON;
	return u;
}

static int take_err(struct upload *u, unsigned *status, json_t **err)
{
	u->refused = 1; /* the request is answered with this: never settles */
	if (!u->err) {
		u->err_status = 400;
		u->err = srv_error_json("bad_upload", 0, "the upload could not be read");
	}
	*status = u->err_status;
	*err = u->err;
	u->err = NULL;
	return -1;
}

int srv_upload_feed(struct upload *u, const char *data, size_t n, unsigned *status, json_t **err)
{
	if (u->aborted)
		return 0;
	if (u->multipart) {
		if (!u->pp || MHD_post_process(u->pp, data, n) != MHD_YES || u->err)
			return take_err(u, status, err);
		return 0;
	}
	if (part_feed(u, u->cur, data, n) < 0)
		return take_err(u, status, err);
	return 0;
}

void srv_upload_abort(struct upload *u)
{
	if (!u || u->aborted)
		return;
	u->aborted = 1;
	srv_stage_free(u->stage); /* rolls back what it holds */
	u->stage = NULL;
	for (size_t i = 0; i < u->n_parts; i++) {
		struct part *p = u->parts[i];
		if (p->fd >= 0)
			close(p->fd);
		p->fd = -1;
		if (p->tmp_path[0])
			unlink(p->tmp_path);
		p->tmp_path[0] = 0;
		srv_gzpipe_abort(p->gz); /* before its fd closes */
		p->gz = NULL;
		if (p->gz_fd >= 0)
			close(p->gz_fd);
		p->gz_fd = -1;
		if (p->gz_path[0])
			unlink(p->gz_path);
		p->gz_path[0] = 0;
		srv_spool_free(p->spool);
		p->spool = NULL;
		if (p->spool_path[0])
			unlink(p->spool_path);
		p->spool_path[0] = 0;
	}
}

size_t srv_upload_n_logs(const struct upload *u)
{
	return u->n_parts;
}

int srv_upload_log_info(const struct upload *u, size_t i, struct srv_upload_log_info *out)
{
	if (i >= u->n_parts)
		return -1;
	const struct part *p = u->parts[i];
	memset(out, 0, sizeof *out);
	out->rank = p->rank;
	out->kind = p->kind;
	out->raw_bytes = p->raw_bytes;
	memcpy(out->sha256, p->sha_hex, sizeof out->sha256);
	out->tmp_path = p->tmp_path[0] ? p->tmp_path : NULL;
	out->gz_path = p->gz_path[0] ? p->gz_path : NULL;
	out->gz_bytes = p->gz_bytes;
	out->n_items = p->kind == MATCHER_KIND_ACTIVATION ? (uint64_t)p->act_sum.n_entries
	               : p->kind == MATCHER_KIND_TRAINING ? (uint64_t)p->train_sum.n_steps
	                                                  : 0;
	return 0;
}

void srv_upload_free(struct upload *u)
{
	if (!u)
		return;
	if (u->pp)
		MHD_destroy_post_processor(u->pp);
	srv_stage_free(u->stage);
	for (size_t i = 0; i < u->n_parts; i++)
		part_free(u->parts[i]);
	free(u->parts);
	buf_reset(&u->name);
	buf_reset(&u->meta);
	json_decref(u->file_meta);
	buf_reset(&u->kind_text);
	buf_reset(&u->cur_field);
	json_decref(u->err);
	srv_msprobe_side_free(u->ms);
	free(u);
}

/* ---- commit: re-read each temp file into the store ------------------------ */

/* A part's counts from its parser's summary. */
static int set_counts(struct store *db, const struct part *p, int64_t log_id)
{
	if (p->kind == MATCHER_KIND_ACTIVATION)
		return store_log_set_counts(db, log_id, (int64_t)p->act_sum.n_entries, 0,
		                            (int64_t)p->act_sum.n_lines,
		                            (int64_t)p->act_sum.n_warnings);
	return store_log_set_counts(
	        db, log_id, (int64_t)p->train_sum.n_steps, (int64_t)p->train_sum.n_validation,
	        (int64_t)p->train_sum.n_lines, (int64_t)p->train_sum.n_warnings);
}

/* The locations of part p when it is an msprobe dump sent with a stack. */
static const struct matcher_msprobe_stack *part_stack(const struct upload *u, const struct part *p)
{
	return p->msprobe ? srv_msprobe_side_stack(u->ms, p->ms_index) : NULL;
}

/* Insert a part's spooled records.  0, or <0 (a store code when a store
 * call failed). */
static int replay_part(struct upload *u, struct part *p, int64_t log_id)
{
	struct srv_inserter in;
	srv_inserter_init(&in, u->req->db, log_id);
	in.stack = part_stack(u, p);
	int rc;
	if (p->kind == MATCHER_KIND_ACTIVATION) {
		struct matcher_actlog_callbacks cb = srv_inserter_act(&in);
		rc = srv_spool_replay(p->spool_path, &cb, NULL);
	} else {
		struct matcher_trainlog_callbacks cb = srv_inserter_train(&in);
		rc = srv_spool_replay(p->spool_path, NULL, &cb);
	}
	if (rc == 0 && (in.rc = srv_inserter_end(&in, 0)) < 0)
		rc = -2;
	srv_inserter_end(&in, 1); /* after a failure: nothing of it stays */
	if (rc == -2 && in.rc < 0)
		return in.rc;
	if (rc < 0) {
		srv_log("upload: the spooled records in %s cannot be read back", p->spool_path);
		return -1;
	}
	return set_counts(in.db, p, log_id);
}

/* The re-parse of a log whose kind was decided only at its end: decoded
 * text into the parser, whose callbacks insert. */
struct reparse {
	struct matcher_actlog_parser *ap;
	struct matcher_trainsrc *tp;
};

static int reparse_text(void *ctx, const char *data, size_t n)
{
	struct reparse *rp = ctx;
	if (rp->ap)
		return matcher_actlog_feed(rp->ap, data, n);
	return matcher_trainsrc_feed(rp->tp, data, n);
}

/* Parse the stored temp file again with inserting callbacks (a log whose
 * kind was decided only at its end: nothing was spooled). */
static int insert_part(struct upload *u, struct part *p, int64_t log_id)
{
	if (p->spool_path[0]) /* parsed while streaming: replay the records */
		return replay_part(u, p, log_id);
	struct srv_inserter in;
	srv_inserter_init(&in, u->req->db, log_id);
	in.stack = part_stack(u, p);
	struct reparse rp = {NULL, NULL};
	size_t max_line = u->srv->cfg.max_line;
	int rc = -1;
	if (p->kind == MATCHER_KIND_ACTIVATION) {
		struct matcher_actlog_callbacks cb = srv_inserter_act(&in);
		rp.ap = matcher_actlog_parser_new(&cb, max_line);
	} else {
		struct matcher_trainlog_callbacks cb = srv_inserter_train(&in);
		rp.tp = matcher_trainsrc_new(p->source, &cb, 0, max_line);
	}
	if (!rp.ap && !rp.tp)
		return -1;
	struct inflater inf;
	char *chunk = NULL;
	inflater_init(&inf, UINT64_MAX, UINT64_MAX);
	int fd = open(p->tmp_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto done;
	chunk = malloc(1 << 20);
	if (!chunk)
		goto done;
	for (;;) {
		ssize_t n = read(fd, chunk, 1 << 20);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto done;
		if (n == 0)
			break;
		if (inflater_feed(&inf, chunk, (size_t)n, reparse_text, &rp) < 0)
			goto done;
	}
	if (inflater_finish(&inf, reparse_text, &rp) < 0)
		goto done;
	if (rp.ap) {
		struct matcher_actlog_summary s;
		if (matcher_actlog_finish(rp.ap, &s) < 0 || (in.rc = srv_inserter_end(&in, 0)) < 0)
			goto done;
		rc = store_log_set_counts(in.db, log_id, (int64_t)s.n_entries, 0,
		                          (int64_t)s.n_lines, (int64_t)s.n_warnings);
	} else {
		struct matcher_trainlog_summary s;
		if (matcher_trainsrc_finish(rp.tp, &s) < 0)
			goto done;
		rc = store_log_set_counts(in.db, log_id, (int64_t)s.n_steps,
		                          (int64_t)s.n_validation, (int64_t)s.n_lines,
		                          (int64_t)s.n_warnings);
	}
done:
	srv_inserter_end(&in, 1); /* after a failure: nothing of it stays */
	if (fd >= 0)
		close(fd);
	free(chunk);
	inflater_reset(&inf);
	matcher_actlog_parser_free(rp.ap);
	matcher_trainsrc_free(rp.tp);
	/* a failing store callback stopped the parser: report its code */
	if (rc == -1 && in.rc < 0)
		rc = in.rc;
	return rc;
}

/* After a failed commit: the raw files this upload renamed in go again,
 * unless another upload took a reference meanwhile (checked under the
 * write lock by store_rawlog_release). */
static void release_own_blobs(struct upload *u)
{
	char **shas = calloc(u->n_parts + 1, sizeof *shas);
	size_t n = 0;
	if (!shas) {
		srv_log("upload: out of memory: unreferenced raw files left for the next sweep");
		return;
	}
	for (size_t i = 0; i < u->n_parts; i++)
		if (u->parts[i]->committed_blob) {
			shas[n++] = u->parts[i]->sha_hex;
			u->parts[i]->committed_blob = 0;
		}
	if (n)
		store_rawlog_release(u->srv->raw, u->req->db, shas, 1, NULL);
	free(shas);
}

int srv_upload_settle(struct upload *u, unsigned *status, json_t **err)
{
	if (u->settled)
		return u->settled > 0 ? 0 : take_err(u, status, err);
	u->settled = -1; /* until everything below passed */
	if (u->err || u->aborted || u->refused)
		return take_err(u, status, err);
	if (u->multipart) {
		if ((u->pp && MHD_post_process(u->pp, "", 0) != MHD_YES) || u->err)
			return take_err(u, status, err);
		/* the body must end with its closing boundary */
		json_t *unclosed = srv_multipart_end(u->pp);
		u->pp = NULL;
		if (unclosed) {
			set_err(u, 400, unclosed);
			return take_err(u, status, err);
		}
		if (u->cur_key[0] && field_done(u) < 0)
			return take_err(u, status, err);
		if (!u->saw_field) {
			set_err(u, 400,
			        srv_error_json(
			                "bad_multipart", 0,
			                "no form field could be read from the multipart body"));
			return take_err(u, status, err);
		}
	}
	if (u->cur) {
		if (part_end(u, u->cur) < 0)
			return take_err(u, status, err);
		u->cur = NULL;
	}
	if (u->n_parts == 0) {
		set_err(u, 400,
		        srv_error_json(
		                "no_log", 0,
		                "no log in the request (multipart field `log`, or a raw body)"));
		return take_err(u, status, err);
	}
	/* one kind per run */
	for (size_t i = 1; i < u->n_parts; i++)
		if (u->parts[i]->kind != u->parts[0]->kind) {
			set_err(u, 400,
			        srv_error_json("mixed_kinds", 0,
			                       "all logs of a run must be of one kind"));
			return take_err(u, status, err);
		}
	/* ranks: explicit fields positionally, else from the file name, else 0 */
	if (u->n_ranks && u->n_ranks != u->n_parts) {
		set_err(u, 400,
		        srv_error_json("bad_field", 0,
		                       "%zu rank fields for %zu logs: give one per log or none",
		                       u->n_ranks, u->n_parts));
		return take_err(u, status, err);
	}
	size_t n_dumps = 0;
	for (size_t i = 0; i < u->n_parts; i++)
		if (u->parts[i]->msprobe)
			u->parts[i]->ms_index = n_dumps++;
	if (srv_msprobe_side_settle(u->ms, n_dumps, &u->err_status, &u->err) < 0)
		return take_err(u, status, err);
	for (size_t i = 0; i < u->n_parts; i++) {
		struct part *p = u->parts[i];
		p->rank = u->n_ranks ? u->ranks[i] : srv_rank_from_filename(p->filename);
		/* event files (events.out.tfevents.*), Megatron golden values
		 * (one file per run, no rank in it) and msprobe dumps (dump.json)
		 * rank by file order */
		if (p->rank < 0)
			p->rank = (p->kind == MATCHER_KIND_TRAINING &&
			           (p->source == MATCHER_SOURCE_TFEVENTS ||
			            p->source == MATCHER_SOURCE_MEGATRON)) ||
			                          p->msprobe
			                  ? (int)i
			                  : 0;
		for (size_t j = 0; j < i; j++)
			if (u->parts[j]->rank == p->rank) {
				set_err(u, 400,
				        srv_error_json("duplicate_rank", 0,
				                       "two logs for rank %d in one run", p->rank));
				return take_err(u, status, err);
			}
	}
	char why[160];
	if (u->meta.len && srv_meta_from_lines(&u->meta, why, sizeof why) < 0) {
		set_err(u, 400, srv_error_json("bad_meta", 0, "%s", why));
		return take_err(u, status, err);
	}
	const char *meta = u->meta.len ? u->meta.data : NULL;
	if (u->meta.len > SRV_META_MAX) {
		set_err(u, 400, meta_too_large());
		return take_err(u, status, err);
	}
	if (meta) {
		json_error_t jerr;
		json_t *m = json_loadb(meta, u->meta.len, JSON_REJECT_DUPLICATES, &jerr);
		int ok = m && json_is_object(m), deep = ok && !srv_json_depth_ok(m);
		json_decref(m);
		if (!ok) {
			set_err(u, 400,
			        srv_error_json("bad_meta", 0, "meta must be a JSON object (%s)",
			                       m ? "not an object" : jerr.text));
			return take_err(u, status, err);
		}
		if (deep) {
			set_err(u, 400,
			        srv_error_json(
			                "bad_meta", 0,
			                "meta nests objects and arrays deeper than %d levels",
			                SRV_JSON_DEPTH_MAX));
			return take_err(u, status, err);
		}
	}
	if (merge_file_meta(u) < 0)
		return take_err(u, status, err);
	if (!srv_name_ok(u->name.data, u->name.len)) {
		set_err(u, 400,
		        srv_error_json("bad_field", 0, "name must be text of at most %d bytes",
		                       SRV_NAME_MAX));
		return take_err(u, status, err);
	}
	u->settled = 1;
	return 0;
}

int srv_upload_commit(struct upload *u, int64_t *run_id, unsigned *status, json_t **err)
{
	struct srv *s = u->srv;
	int in_tx = 0;
	if (srv_upload_settle(u, status, err) < 0)
		return -1;
	if (!u->req) {
		set_err(u, 500, srv_error_json("internal", 0, "upload not tied to a request"));
		return take_err(u, status, err);
	}
	const char *meta = u->meta.len ? u->meta.data : NULL;
	const char *name = u->name.len ? u->name.data : NULL;
	if (!name && u->parts[0]->filename[0])
		name = u->parts[0]->filename;
	/* every part was fsync'ed and closed when it ended (part_end) */

	/* the insert stage's transaction, when it kept up: the run and its
	 * first n_staged logs are in it already, with placeholders */
	const int64_t *staged = NULL;
	size_t n_staged = 0;
	struct store *stage_db = NULL;
	if (u->stage && !u->req->db) {
		if (srv_stage_finish(u->stage, &stage_db, run_id, &staged, &n_staged) == 0)
			u->req->db = stage_db;
		else
			atomic_fetch_add(&s->metrics.ingest_stage_fallbacks, 1);
	}

	int busy = 0;
	if (!u->req->db && !(u->req->db = srv_db_acquire_wait(s, SRV_DB_WAIT_MS, &busy))) {
		if (busy)
			u->req->retry_after_s = 1;
		set_err(u, 503,
		        busy ? srv_error_json("busy", 0,
		                              "all database connections are in use; retry shortly")
		             : srv_error_json("database", 0, "database unavailable"));
		return take_err(u, status, err);
	}
	struct store *db = u->req->db;
	int src;
	/* bulk: the run, its logs and their rows are all created here, so the
	 * per-row foreign-key checks are skipped (store_tx_begin_bulk) */
	if (stage_db) {
		in_tx = 1;
		if ((src = store_run_set_fields(db, *run_id, name, meta)) < 0)
			goto db_error;
	} else {
		if ((src = store_tx_begin_bulk(db)) < 0)
			goto db_error;
		in_tx = 1;
		const char *kind = matcher_kind_name(u->parts[0]->kind);
		if ((src = store_run_create(db, name ? name : "", kind, meta, run_id)) < 0)
			goto db_error;
	}
	for (size_t i = 0; i < u->n_parts; i++) {
		struct part *p = u->parts[i];
		int64_t log_id;
		if (i < n_staged) {
			/* inserted while it streamed: its identity and counts now */
			log_id = staged[i];
			if ((src = store_log_set_identity(db, log_id, p->rank,
			                                  (int64_t)p->raw_bytes, p->sha_hex)) < 0 ||
			    (src = set_counts(db, p, log_id)) < 0)
				goto db_error;
			continue;
		}
		if ((src = store_log_create(db, *run_id, p->rank,
		                            p->filename[0] ? p->filename : NULL,
		                            (int64_t)p->raw_bytes, p->sha_hex, &log_id)) < 0)
			goto db_error;
		if ((src = insert_part(u, p, log_id)) < 0)
			goto db_error;
		if (p->kind == MATCHER_KIND_TRAINING && p->source != MATCHER_SOURCE_STDOUT &&
		    (src = store_log_set_source(db, log_id, matcher_source_name(p->source))) < 0)
			goto db_error;
		if (p->kind == MATCHER_KIND_ACTIVATION && p->msprobe &&
		    (src = store_log_set_source(db, log_id,
		                                matcher_source_name(MATCHER_SOURCE_MSPROBE))) < 0)
			goto db_error;
	}
	/* the raw logs, under the same write transaction (store_rawlog.h):
	 * SQLite files first, then the commit, all under the write lock; a
	 * crash in between leaves an unreferenced blob (swept at start-up),
	 * never a run without its raw log.  PostgreSQL: rows of the
	 * transaction; a rollback leaves no blob. */
	for (size_t i = 0; i < u->n_parts; i++) {
		struct part *p = u->parts[i];
		int created = 0, gz = p->gz_path[0] != 0;
		/* the compressed copy, or a gzip upload as it came */
		char *stored = gz ? p->gz_path : p->tmp_path;
		src = store_rawlog_put_file(s->raw, db, p->sha_hex, stored, gz,
		                            (int64_t)p->raw_bytes, &created);
		if (created) {
			stored[0] = 0; /* moved */
			p->committed_blob = 1;
		}
		if (src == STORE_IO) {
			set_err(u, 507, srv_error_json("storage", 0, "cannot store the raw log"));
			goto undo;
		}
		if (src < 0)
			goto db_error;
		stored[0] = 0; /* moved, or removed as a duplicate */
	}
	if ((src = store_tx_commit(db)) < 0)
		goto db_error;
	if (stage_db)
		atomic_fetch_add(&s->metrics.ingest_staged, 1);
	return 0;

db_error:
	srv_log("upload: database error: %s", store_errmsg(db));
	if (src == STORE_FULL)
		set_err(u, 507,
		        srv_error_json("storage", 0, "the disk is full: the run was not stored"));
	else if (src == STORE_BUSY)
		set_err(u, 503, srv_error_json("busy", 0, "the database is busy, try again"));

	else
		set_err(u, 500, srv_error_json("database", 0, "could not store the run"));
undo:
	if (in_tx)
		store_tx_rollback(db);
	release_own_blobs(u);
	return take_err(u, status, err);
}

/* ---- the body sink of POST /runs (routes.c puts it in the route) ---------- */

static void *sink_open(struct srv_req *r, unsigned *status, json_t **err)
{
	return srv_upload_new(r, status, err);
}

static int sink_feed(void *u, const char *data, size_t n, unsigned *status, json_t **err)
{
	return srv_upload_feed(u, data, n, status, err);
}

static void sink_abort(void *u)
{
	srv_upload_abort(u);
}

static void sink_free(void *u)
{
	srv_upload_free(u);
}

const struct srv_body_sink srv_upload_sink = {sink_open, sink_feed, sink_abort, sink_free};
