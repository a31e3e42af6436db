/* fuzz_upload.c - libFuzzer target for the upload intake (server/ingest/upload.c):
 * the code that turns the bytes of a POST /runs body into a parsed, checked
 * upload, driven directly (srv_upload_start, srv_upload_form_data,
 * srv_upload_feed, srv_upload_settle): no daemon, no socket, no database.
 * Multipart framing itself is libmicrohttpd's (a system library, not
 * instrumented); the harness stands in for its post processor and calls
 * the part callback exactly as it does (key, file name, data, offset).
 *
 * Input: a split plan (fuzz_common.h), then the body.  Option nibble:
 *   bit 0 (0x10): raw body instead of form parts;
 *   bit 1 (0x20): small upload limit (gzip output capped at 40 KiB);
 *   bit 2 (0x40): abort the upload before settling it (a refused request);
 *   bit 3 (0x80): settle twice.
 * Raw body: the first line holds the query-string fields,
 *   "name=..&meta=..&kind=..&rank=..&filename=.." (no %-decoding), the rest
 *   is the log.
 * Form parts: separated by "\n--XB\n"; each starts with a header line
 *   "key" or "key;filename" (an empty header gives a NULL key), then the
 *   part's bytes, handed over in the planned chunks with their offsets.
 *
 * Every input is run twice: in the planned chunks and whole.  Checks: the
 * outcome is success or a 400/413 with an {"error":{"code","message"}}
 * object; both runs agree on the outcome and on every log (rank, kind,
 * size, SHA-256, entries/steps), except when the gzip ratio guard (which
 * looks at the bytes received so far) answered 413; a settled upload has
 * 1..n logs of one kind with distinct ranks, each to be stored as a gzip
 * copy that inflates to its size and SHA-256 (or, a gzip upload, as a
 * temp file of exactly its size; the plain temp file of a compressed log
 * is gone once its parser's records spool), and the raw bytes add up to
 * the log bytes sent (a raw body's SHA-256 is checked against OpenSSL's);
 * after srv_upload_free the temp directory is empty again.
 *
 * Harness state (the temp directory and the struct srv holding the limits)
 * is created on the first call and kept for the process; the directory is
 * under $TMPDIR, else /dev/shm when there is one, else /tmp, empty between
 * inputs and removed at exit. */
#include <dirent.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "trainlog.h"
#include "ingest.h"

#define SEP     "\n--XB\n"
#define SEP_LEN 6

struct outcome {
	unsigned status; /* 0 = settled */
	struct buf t;    /* transcript: error code or every log */
	int ratio_413;   /* refused by the gzip guard: chunking may matter */
};

static struct srv *harness_srv;
static char harness_dir[4200]; /* the data directory: only tmp/ is used */

static void remove_tmp_dir(void)
{
	/* empty between inputs */
	rmdir(store_rawlog_dir(harness_srv->raw, STORE_RAWLOG_TMP));
	rmdir(harness_dir);
}

static struct srv *the_srv(void)
{
	struct srv *s = harness_srv;
	if (s)
		return s;
	s = calloc(1, sizeof *s);
	FUZZ_CHECK(s != NULL);
	/* each part is fsync'ed: on tmpfs that costs nothing, on a disk shared
	 * with other work it dominates the run time */
	const char *base = getenv("TMPDIR");
	struct stat st;
	if (!base || !*base)
		base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
	/* mkdtemp template: the last six characters become X's */
	snprintf(harness_dir, sizeof harness_dir, "%s/parity-fuzz-upload.______", base);
	memset(harness_dir + strlen(harness_dir) - 6, 'X', 6);
	FUZZ_CHECK(mkdtemp(harness_dir) != NULL);
	s->raw = srv_rawlog_new(harness_dir);
	FUZZ_CHECK(s->raw != NULL && mkdir(store_rawlog_dir(s->raw, STORE_RAWLOG_TMP), 0700) == 0);
	s->cfg.max_inflate_ratio = 100;
	harness_srv = s;
	atexit(remove_tmp_dir);
	return s;
}

static size_t tmp_files(const char *dir)
{
	DIR *d = opendir(dir);
	size_t n = 0;
	struct dirent *de;
	FUZZ_CHECK(d != NULL);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/* Find needle in [p, end); NULL when absent. */
static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *needle, size_t n)
{
	for (; p + n <= end; p++)
		if (!memcmp(p, needle, n))
			return p;
	return NULL;
}

static void sha256_hex(const uint8_t *data, size_t n, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	FUZZ_CHECK(EVP_Digest(data, n, md, &len, EVP_sha256(), NULL) == 1 && len == 32);
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Copy [p, p+n) to a NUL-terminated string. */
static char *dup_range(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	FUZZ_CHECK(s != NULL);
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

/* Raw mode: "k=v&k=v" fields on the first line. */
static void raw_fields(const uint8_t *line, size_t n, struct srv_upload_fields *f, char **store)
{
	const char **slot[] = {&f->name, &f->meta, &f->kind, &f->rank, &f->filename};
	static const char *const keys[] = {"name", "meta", "kind", "rank", "filename"};
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && line[j] != '&')
			j++;
		const uint8_t *eq = memchr(line + i, '=', j - i);
		if (eq) {
			size_t kn = (size_t)(eq - (line + i));
			for (size_t k = 0; k < 5; k++)
				if (kn == strlen(keys[k]) && !memcmp(line + i, keys[k], kn) &&
				    !store[k]) {
					store[k] = dup_range(eq + 1, (size_t)(line + j - eq - 1));
					*slot[k] = store[k];
				}
		}
		i = j + 1;
	}
}

static void record_error(struct outcome *o, unsigned status, json_t *err)
{
	FUZZ_CHECK(status == 400 || status == 413);
	json_t *e = json_object_get(err, "error");
	const char *code = json_string_value(json_object_get(e, "code"));
	FUZZ_CHECK(code != NULL && json_is_string(json_object_get(e, "message")));
	o->status = status;
	o->ratio_413 = status == 413;
	fuzz_put_num(&o->t, "status", status);
	fuzz_put_str(&o->t, "code", code);
}

/* 1 when the gzip file gz inflates to n bytes whose SHA-256 is sha_hex
 * (the raw file to be stored, compressed while the body streamed in). */
static int gz_holds(const char *gz, uint64_t n, const char *sha_hex)
{
	gzFile z = gzopen(gz, "rb");
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char buf[8192], d[EVP_MAX_MD_SIZE];
	unsigned d_len = 0;
	uint64_t total = 0;
	int ok = z && md && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1;
	int got = 0;
	while (ok && (got = gzread(z, buf, sizeof buf)) > 0) {
		total += (uint64_t)got;
		ok = EVP_DigestUpdate(md, buf, (size_t)got) == 1;
	}
	ok = ok && got == 0 && total == n && EVP_DigestFinal_ex(md, d, &d_len) == 1;
	char hex[65] = "";
	for (unsigned i = 0; ok && i < d_len && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	ok = ok && !strcmp(hex, sha_hex);
	if (z)
		gzclose(z);
	EVP_MD_CTX_free(md);
	return ok;
}

/* Checks on a settled upload; its logs go to the transcript. */
static void record_logs(struct outcome *o, struct upload *u, uint64_t log_bytes,
                        const char *raw_sha)
{
	size_t n = srv_upload_n_logs(u);
	uint64_t total = 0;
	struct srv_upload_log_info first;
	FUZZ_CHECK(n >= 1);
	FUZZ_CHECK(srv_upload_log_info(u, n, &first) < 0);
	FUZZ_CHECK(srv_upload_log_info(u, 0, &first) == 0);
	for (size_t i = 0; i < n; i++) {
		struct srv_upload_log_info li;
		struct stat st;
		FUZZ_CHECK(srv_upload_log_info(u, i, &li) == 0);
		FUZZ_CHECK(li.kind == first.kind && (li.kind == MATCHER_KIND_ACTIVATION ||
		                                     li.kind == MATCHER_KIND_TRAINING));
		FUZZ_CHECK(li.rank >= 0);
		for (size_t j = 0; j < i; j++) {
			struct srv_upload_log_info lj;
			FUZZ_CHECK(srv_upload_log_info(u, j, &lj) == 0 && lj.rank != li.rank);
		}
		FUZZ_CHECK(strlen(li.sha256) == 64 && strspn(li.sha256, "0123456789abcdef") == 64);
		/* the file to be stored: the gzip copy, else the bytes as sent */
		FUZZ_CHECK(li.gz_path != NULL || li.tmp_path != NULL);
		if (li.tmp_path)
			FUZZ_CHECK(stat(li.tmp_path, &st) == 0 &&
			           (uint64_t)st.st_size == li.raw_bytes);
		if (li.gz_path)
			FUZZ_CHECK(stat(li.gz_path, &st) == 0 &&
			           (uint64_t)st.st_size == li.gz_bytes &&
			           gz_holds(li.gz_path, li.raw_bytes, li.sha256));
		total += li.raw_bytes;
		fuzz_put_num(&o->t, "rank", (unsigned long long)li.rank);
		fuzz_put_num(&o->t, "kind", (unsigned long long)li.kind);
		fuzz_put_num(&o->t, "bytes", li.raw_bytes);
		fuzz_put_str(&o->t, "sha", li.sha256);
		fuzz_put_num(&o->t, "items", li.n_items);
	}
	FUZZ_CHECK(total == log_bytes);
	if (raw_sha) {
		FUZZ_CHECK(n == 1 && !strcmp(first.sha256, raw_sha));
	}
}

/* One run over the body; chunked when split is not NULL. */
static void run(struct outcome *o, const uint8_t *body, size_t n, struct fuzz_split *split)
{
	struct srv *s = the_srv();
	unsigned option = split->option, status = 0;
	json_t *err = NULL;
	struct upload *u = NULL;
	char *fields[5] = {NULL, NULL, NULL, NULL, NULL};
	uint64_t log_bytes = 0;
	char raw_sha[65], *want_sha = NULL;
	const uint8_t *end = body + n;

	s->cfg.max_line = split->max_line ? split->max_line : 1 << 20;
	s->cfg.max_upload = (option & 2) ? 4096 : 1 << 20;
	split->next = 0;
	memset(o, 0, sizeof *o);
	if (option & 1) {
		struct srv_upload_fields f = {NULL, NULL, NULL, NULL, NULL};
		const uint8_t *nl = memchr(body, '\n', n);
		const uint8_t *log = nl ? nl + 1 : end;
		raw_fields(body, (size_t)((nl ? nl : end) - body), &f, fields);
		u = srv_upload_start(s, NULL, 0, &f, &status, &err);
		if (!u)
			goto refused;
		log_bytes = (uint64_t)(end - log);
		sha256_hex(log, (size_t)(end - log), raw_sha);
		want_sha = raw_sha;
		for (const uint8_t *p = log; p < end;) {
			size_t c = split->n_sizes ? fuzz_split_next(split, (size_t)(end - p))
			                          : (size_t)(end - p);
			if (srv_upload_feed(u, (const char *)p, c, &status, &err) < 0)
				goto refused;
			p += c;
		}
	} else {
		u = srv_upload_start(s, NULL, 1, NULL, &status, &err);
		FUZZ_CHECK(u != NULL);
		for (const uint8_t *p = body; p <= end;) {
			const uint8_t *next = find(p, end, SEP, SEP_LEN);
			const uint8_t *stop = next ? next : end;
			const uint8_t *nl = memchr(p, '\n', (size_t)(stop - p));
			const uint8_t *data = nl ? nl + 1 : stop;
			const uint8_t *semi = memchr(p, ';', (size_t)((nl ? nl : stop) - p));
			const uint8_t *key_end = semi ? semi : (nl ? nl : stop);
			char *key = key_end > p ? dup_range(p, (size_t)(key_end - p)) : NULL;
			char *fname =
			        semi ? dup_range(semi + 1, (size_t)((nl ? nl : stop) - semi - 1))
			             : NULL;
			size_t len = (size_t)(stop - data);
			uint64_t off = 0;
			int rc = 0;
			if (key && !strcmp(key, "log"))
				log_bytes += len;
			do {
				size_t c = split->n_sizes ? fuzz_split_next(split, len - off) : len;
				rc = srv_upload_form_data(u, key, fname, (const char *)data + off,
				                          off, c);
				off += c;
			} while (rc == 0 && off < len);
			free(key);
			free(fname);
			if (rc < 0 || !next)
				break;
			p = next + SEP_LEN;
		}
	}
	if (option & 4)
		srv_upload_abort(u);
	if (srv_upload_settle(u, &status, &err) < 0)
		goto refused;
	FUZZ_CHECK(!(option & 4)); /* an aborted upload never settles */
	if (option & 8) {
		FUZZ_CHECK(srv_upload_settle(u, &status, &err) == 0);
	}
	record_logs(o, u, log_bytes, want_sha);
	goto done;
refused:
	if (option & 4 && !err) {
		/* aborted: the verdict is a generic refusal */
		status = 400;
		err = srv_error_json("aborted", 0, "aborted");
	}
	record_error(o, status, err);
	json_decref(err);
	err = NULL;
	if (u && (option & 8)) {
		FUZZ_CHECK(srv_upload_settle(u, &status, &err) < 0);
		json_decref(err);
	}
done:
	srv_upload_free(u);
	for (size_t k = 0; k < 5; k++)
		free(fields[k]);
	FUZZ_CHECK(tmp_files(store_rawlog_dir(s->raw, STORE_RAWLOG_TMP)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_split split, whole;
	const uint8_t *body;
	size_t n;
	struct outcome a, b;

	if (fuzz_split_init(&split, data, size, &body, &n) < 0)
		return 0;
	whole = split;
	whole.n_sizes = 0; /* every part (or the raw body) in one call */
	run(&a, body, n, &split);
	run(&b, body, n, &whole);
	if (!a.ratio_413 && !b.ratio_413)
		fuzz_same_transcript(&a.t, &b.t, "chunked vs whole upload");
	buf_reset(&a.t);
	buf_reset(&b.t);
	return 0;
}
