/* store.h - the one public header of the store: every SQLite access of
 * parity goes through these domain verbs (runs, logs, parsed entries and
 * steps, warnings, comparisons as jobs and their result rows).
 *
 * One struct store is one SQLite connection (WAL, synchronous=FULL,
 * foreign_keys=ON, busy_timeout 5000 ms) used by ONE thread at a time;
 * each thread opens its own.  The schema comes from migrations/sqlite/NNN_*.sql,
 * embedded in the binary and applied at open.  Statements are prepared
 * lazily once per connection and reset after each use.
 *
 * Conventions: functions return 0 (STORE_OK) or a negative STORE_* code and
 * fill out-params; store_errmsg() then holds a human sentence.  Reads
 * return plain structs, never JSON: a single item as a *_view and a list
 * as a *_page, each owning an arena that holds every string and array of
 * it (NUL-terminated text as stored; serializers repair invalid UTF-8)
 * until its *_free; out-structs are zeroed first and must be freed
 * whatever the result (a zeroed one frees as a no-op).  The API documents
 * of these structs are written by web/json_views.h, web/json_act.h and
 * web/json_train.h.  Free-form JSON stays stored text: run meta,
 * comparison policy (results are typed: migrations 007, 009).  The one read
 * that still builds JSON is store_ops_list (a new jansson reference).
 * Lists page by cursor: cursors are opaque strings valid for the list
 * type that produced them ("" or null = last page); limit <= 0 means 50,
 * values above 1000 are clamped to 1000.  A page also ends early once its
 * items would pass STORE_PAGE_BYTES (each list documents its size
 * estimate; a page always holds at least one item, however large);
 * next_cursor then continues after the last item given, so following
 * cursors still reaches every item.  No SQLite type or SQL text crosses
 * this header: another backend implements the same verbs.
 * Nothing here aborts on bad input or database failures. */
#ifndef PARITY_STORE_H
#define PARITY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "actcheck.h"
#include "actlog.h"
#include "buf.h"
#include "match.h"
#include "traincheck.h"
#include "trainlog.h"

struct store;

/* Byte budget of one list page: the estimated size of its items. */
#define STORE_PAGE_BYTES (1024 * 1024)

/* Error codes (suggested HTTP mapping in brackets). */
enum {
	STORE_OK = 0,
	STORE_ERROR = -1,       /* SQLite / OOM / internal [500] */
	STORE_NOT_FOUND = -2,   /* no such run / log / comparison [404] */
	STORE_DUPLICATE = -3,   /* UNIQUE violated, e.g. two logs for one rank [409] */
	STORE_BAD_CURSOR = -4,  /* cursor text not produced by this list [400] */
	STORE_BAD_REGEX = -5,   /* key regex does not compile; errmsg says why [400] */
	STORE_INVALID = -6,     /* bad argument: unknown kind/phase/status [400] */
	STORE_IN_USE = -7,      /* run referenced by a comparison [409] */
	STORE_TOO_NEW = -8,     /* database schema newer than this binary [start-up] */
	STORE_BUSY = -9,        /* locked longer than the busy timeout [503] */
	STORE_FULL = -10,       /* the disk is full (SQLITE_FULL) [507] */
	STORE_TOO_COSTLY = -11, /* key regex over a limit (length, size, steps,
	                         * time budget); errmsg says which [400] */
	STORE_CANCELLED = -12   /* the key filter's cancel callback said stop
	                         * (the client left) [no reply] */
};

/* ---- key filters (store/regex.c) ---------------------------------------- */

/* Limits of a key regex (the same on every backend). */
#define STORE_REGEX_MAX_LEN     1000   /* pattern bytes */
#define STORE_REGEX_MATCH_LIMIT 100000 /* backtracking steps per key */
#define STORE_REGEX_DEPTH_LIMIT 10000  /* backtracking depth per key */
#define STORE_REGEX_HEAP_KIB    4096   /* matcher heap per key */
#define STORE_REGEX_BUDGET_MS   1500   /* default time budget of one filtered read */

/* A filter on op keys for the list reads (store_ops_list,
 * store_comparison_rows_list).  The regex is PCRE2 syntax (Perl- and
 * JavaScript-like: \d, \w, (?i), lookarounds, backreferences), searched
 * anywhere in the key (anchor with ^ and $), UTF-8 with invalid bytes in
 * keys never matching a character; \uHHHH and \u{H..} as in JavaScript,
 * "$" only at the very end, [] never and [^] any character.  It is
 * compiled once per read.  Limits: STORE_REGEX_MAX_LEN bytes (longer:
 * STORE_TOO_COSTLY), a compiled-size and nesting limit (STORE_TOO_COSTLY),
 * STORE_REGEX_MATCH_LIMIT steps, STORE_REGEX_DEPTH_LIMIT backtracking
 * depth and STORE_REGEX_HEAP_KIB per key (the
 * first key over them stops the read: STORE_TOO_COSTLY), and a wall-clock
 * budget for the whole read (STORE_TOO_COSTLY when over).  A pattern that
 * does not compile is STORE_BAD_REGEX (errmsg: PCRE2's reason and offset).
 * Budget and cancel callback apply only when regex is set. */
struct store_key_filter {
	const char *regex; /* NULL or "" = every key */
	int icase;         /* non-zero: case-insensitive (like a leading (?i)); the daemon
	                    * sets it unless case=sensitive / icase=0 (srv_key_icase) */
	int budget_ms;     /* 0 = STORE_REGEX_BUDGET_MS, < 0 = no time limit */
	/* NULL, or polled about every 20 ms while the read runs (on the
	 * calling thread): non-zero stops it with STORE_CANCELLED. */
	int (*cancelled)(void *ctx);
	void *cancel_ctx;
};

/* ---- setup (store/db.c) ------------------------------------------------ */

/* target is a SQLite file path, or a postgresql:// (postgres://) URL
 * (store_is_pg_url): then the database must exist; the call connects and
 * applies pending PostgreSQL migrations under an advisory lock
 * (store_pg_migrate), so several daemons may start at once.
 * SQLite: open (creating if needed) the database file at db_path, set the
 * connection pragmas, apply pending embedded migrations (each in its own
 * BEGIN IMMEDIATE, re-checking user_version inside, so concurrent opens
 * from several threads/processes are safe) and register REGEXP (the key
 * filter matcher, only usable inside the key-filtered reads).
 * On success *out is a new handle (store_close).  On failure *out is NULL,
 * a sentence is written to err (errlen bytes, may be 0) and the code is
 * returned: STORE_TOO_NEW when the file's schema version is above the
 * highest embedded migration, STORE_BUSY, STORE_ERROR. */
int store_open(const char *target, struct store **out, char *err, size_t errlen);
/* store_open for a database that must already exist: a missing file is
 * an error (STORE_ERROR), never a new empty database.  The daemon's
 * connection pool uses it, so a database deleted under the running daemon
 * is not silently replaced by an empty one. */
int store_open_existing(const char *target, struct store **out, char *err, size_t errlen);
/* Finalize every cached statement and close.  NULL is a no-op.  A still
 * open transaction is rolled back. */
void store_close(struct store *st);
/* Last error sentence of this connection; borrowed, valid until the next
 * store call on st.  Never NULL. */
const char *store_errmsg(const struct store *st);
/* Schema version of the open database (PRAGMA user_version). */
int store_schema_version(struct store *st);
/* 1 when the file at the path this connection was opened with is no
 * longer the file it has open (deleted, renamed or replaced: its writes
 * would go to a file nobody will find), else 0.  One stat(); cheap. */
int store_file_replaced(struct store *st);
/* Whether this connection can write: takes the write lock without waiting
 * (BEGIN IMMEDIATE) and rolls back at once, writing nothing.  0 when it
 * can, or when another connection holds the lock (someone is writing);
 * STORE_ERROR with errmsg when the database is read-only or the lock
 * cannot be taken for another reason.  0 as well inside an open
 * transaction (the lock is held).  Cheap enough for a health check. */
int store_check_writable(struct store *st);

/* Explicit write transactions.  begin = BEGIN IMMEDIATE (takes the write
 * lock now, waiting up to the busy timeout: STORE_BUSY).  Functions that
 * write several rows open their own transaction only when none is open. */
int store_tx_begin(struct store *st);
/* store_tx_begin for a bulk ingest that only adds rows under parents it
 * creates itself in the same transaction (a run, its logs, their entries):
 * the per-row foreign-key checks are skipped (they cost ~8 % of an entry
 * insert and cannot fail there); store_tx_commit or store_tx_rollback turns
 * them back on.  Only for writes whose references all point at rows of
 * the same transaction (the write lock keeps anything else away). */
int store_tx_begin_bulk(struct store *st);
int store_tx_commit(struct store *st);
/* Always safe to call; 0 when nothing was open. */
int store_tx_rollback(struct store *st);

/* ---- ingest (store/runs.c, entries.c, steps.c) ------------------------- */

/* New run.  name may be "" (stored as is), kind "activation"|"training"
 * (else STORE_INVALID), meta_json NULL or the text of a JSON object (not
 * validated here: the server does).  created_at is the current UTC time. */
int store_run_create(struct store *st, const char *name, const char *kind, const char *meta_json,
                     int64_t *run_id);
/* New per-rank log of a run.  filename may be NULL; sha256_hex is the
 * 64-char hex digest of the raw upload.  STORE_DUPLICATE when the run has a
 * log for that rank already; STORE_NOT_FOUND when the run does not exist. */
int store_log_create(struct store *st, int64_t run_id, int rank, const char *filename,
                     int64_t bytes, const char *sha256_hex, int64_t *log_id);
/* Activation header: total -1 = no "Total captured activations" line;
 * excluded_text = the raw "Excluded ops dispatched" value, NULL if absent. */
int store_log_set_header(struct store *st, int64_t log_id, long header_total,
                         const char *excluded_text);
/* Counts from the parser summary: entries (activation) or distinct training
 * steps (training), validation steps, lines, warnings (incl. unreported). */
int store_log_set_counts(struct store *st, int64_t log_id, int64_t n_items, int64_t n_validation,
                         int64_t n_lines, int64_t n_warnings);
/* Record a training log's source (store/sources.c): "stdout" (the
 * default), "tfevents" or "lossfile" (matcher_source_name).  0,
 * STORE_NOT_FOUND, STORE_INVALID for another name, STORE_ERROR. */
int store_log_set_source(struct store *st, int64_t log_id, const char *source);
/* A log's source into out (cap >= 16): "stdout", "tfevents", "lossfile".
 * 0, STORE_NOT_FOUND, STORE_ERROR. */
int store_log_source(struct store *st, int64_t log_id, char *out, size_t cap);
/* Append one activation entry (copied).  The key is split into module
 * (before the last '/'), op counter N and op name (from "op_N_name" after
 * it) when it has that shape.  Stats are stored as text and as number
 * (number NULL unless the stat_isnum bit is set; NaN kept via the bit).
 * One prepared INSERT, no lookups: call inside a transaction for speed. */
int store_entry_add(struct store *st, int64_t log_id, const struct matcher_entry *e);
/* Apply one training record.  The stored rank is r->rank, or the log's
 * rank when r->rank is 0 (a per-rank file has no "[rankN]:" prefix).
 * NEW inserts the step and its metrics (name, text, number, decimals,
 * position); COPY increments that step's copies counter; REPLACE replaces
 * its line and metrics.  Never fails an upload over a record that does not
 * fit what is stored: COPY/REPLACE of an unknown step inserts it, NEW of a
 * known one replaces it.  Validation records are a separate series (flag
 * on the step).  STORE_NOT_FOUND when the log does not exist. */
int store_step_add(struct store *st, int64_t log_id, const struct matcher_step_record *r);
/* Append one warning (code, line, message, excerpt; all copied). */
int store_warning_add(struct store *st, int64_t log_id, const struct matcher_warning *w);

/* ---- reads: runs (store/runs.c) ---------------------------------------- */

/* A run read back, with its logs (and their warnings when read with
 * store_run_get).  Plain values; every string lives in the arena of the
 * view or page that holds the run and is NUL-terminated, stored bytes as
 * they are (serializers repair text that is not UTF-8 with U+FFFD). */
struct store_warning_view {
	const char *code;
	int64_t line;
	const char *message;
	const char *excerpt; /* "" when the parser gave none */
};
struct store_log_view {
	int64_t id;
	int rank;
	const char *filename; /* NULL when the upload named none */
	int64_t bytes;
	const char *sha256;   /* 64 hex digits */
	int64_t n_items;      /* entries (activation) or steps (training) */
	int64_t n_validation; /* validation steps (training) */
	const char *source;   /* training: "stdout" | "tfevents" | "lossfile" (issue 14) */
	int64_t n_lines;
	int64_t n_warnings;   /* every warning, listed or not */
	int has_header_total; /* activation: a "Total captured" line */
	int64_t header_total;
	/* activation: the "Excluded ops dispatched" names in file order;
	 * has_excluded 0 when the header had no such line ("(none)" gives
	 * has_excluded 1 and no names) */
	int has_excluded;
	const char **excluded;
	size_t n_excluded;
	/* store_run_get only (NULL and 0 in lists): the stored warnings */
	struct store_warning_view *warnings;
	size_t n_warnings_listed;
};
struct store_run {
	int64_t id;
	const char *name; /* "" when unnamed */
	char kind[16];    /* "activation" | "training" */
	/* free-form: the stored text of the meta JSON object, NULL when none
	 * (the one field kept as JSON; serializers parse it) */
	const char *meta_json;
	const char *created_at; /* "YYYY-MM-DDTHH:MM:SSZ" */
	int with_warnings;      /* 1 when logs[].warnings were read */
	struct store_log_view *logs;
	size_t n_logs;
};
/* One run (store_run_get): the run and everything it points to live in
 * arena until store_run_view_free. */
struct store_run_view {
	struct store_run run;
	struct arena arena;
};
/* Free a view's run and strings (a zeroed view is valid to free); it is
 * empty afterwards. */
void store_run_view_free(struct store_run_view *v);
/* The run with its logs and their warnings into *out (zeroed first; free
 * it with store_run_view_free whatever the result).  STORE_NOT_FOUND when
 * the run does not exist.  web/json_views.h serializes it as
 * GET /runs/{id}. */
int store_run_get(struct store *st, int64_t run_id, struct store_run_view *out);
/* 1 exists, 0 not, negative error. */
int store_run_exists(struct store *st, int64_t run_id);
/* kind ("activation"/"training") into kind_out (>= 16 bytes). */
int store_run_kind(struct store *st, int64_t run_id, char *kind_out, size_t cap);
/* A page of runs, newest first, with their logs (no warnings); everything
 * in the page's arena until store_run_page_free.  The byte budget
 * (STORE_PAGE_BYTES) counts the runs' text plus 256 bytes a run and 256
 * a log. */
struct store_run_page {
	struct store_run *runs;
	size_t n_runs;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_run_page_free(struct store_run_page *p);
/* Runs newest first into *out (zeroed first; free it whatever the
 * result).  kind NULL = any (else must be a valid kind: STORE_INVALID);
 * name NULL = any, else a case-sensitive SUBSTRING of the run name.
 * cursor NULL or "" = first page; a foreign/garbled cursor ->
 * STORE_BAD_CURSOR. */
int store_runs_list(struct store *st, const char *kind, const char *name, int limit,
                    const char *cursor, struct store_run_page *out);

/* One log of a run, for the logs listing of a job. */
struct store_log_ref {
	int64_t log_id;
	int rank;
	int64_t n_items; /* entries or steps */
	int64_t n_validation;
};
/* The logs of a run ordered by rank: *out malloc'd array (free()), *n its
 * length (may be 0).  STORE_NOT_FOUND when the run does not exist. */
int store_run_logs(struct store *st, int64_t run_id, struct store_log_ref **out, size_t *n);
/* Raw-download lookup.  Any out pointer may be NULL; sha256_out has room
 * for 65 bytes; filename_out (cap bytes) gets "" when none was given.
 * STORE_NOT_FOUND when the run or rank is missing. */
int store_log_find(struct store *st, int64_t run_id, int rank, int64_t *log_id, char sha256_out[65],
                   int64_t *bytes, char *filename_out, size_t filename_cap);
/* Delete a run and (FK cascade) its logs, entries, steps and warnings.
 * STORE_NOT_FOUND if missing; STORE_IN_USE if a comparison references it
 * (delete the comparison first).  On success, when unref_out is not NULL,
 * *unref_out is a malloc'd NULL-terminated array of the sha256 hex digests
 * that no log references any more (free with store_strv_free): the caller
 * releases those files AFTER the enclosing transaction committed, in a
 * transaction of its own that re-checks the references (the rule in
 * server/ingest/blobs.c).  Runs in its own transaction unless one is open. */
int store_run_delete(struct store *st, int64_t run_id, char ***unref_out);
void store_strv_free(char **v);
/* 1 when some log references this digest, 0 when none, negative error. */
int store_sha256_referenced(struct store *st, const char *sha256_hex);

/* ---- reads: entries and steps ------------------------------------------ */

/* A page of the parsed activation entries of a run in (rank, file order).
 * Each op is the stored entry as the parser gave it (key, line, order,
 * phase, stat texts with their numbers: stat_isnum bit i set when
 * stats[i] parsed as a number, NaN/inf included) plus the split of its
 * key "module/op_N_name" (module NULL when the key has no '/', op_index
 * -1 and op_name NULL when the tail is not op_N_name).  Strings live in
 * the page's arena until store_op_page_free.  The byte budget counts the
 * text plus 256 bytes an op.  web/json_views.h web_ops_page_json
 * serializes it as GET /runs/{id}/ops. */
struct store_op {
	int rank;
	struct matcher_entry e;
	const char *module;
	long op_index;
	const char *op_name;
};
struct store_op_page {
	struct store_op *ops;
	size_t n_ops;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_op_page_free(struct store_op_page *p);
/* rank -1 = all ranks; phase NULL/"forward"/"backward" (else
 * STORE_INVALID); keys NULL = all, else a key filter (struct
 * store_key_filter: STORE_BAD_REGEX, STORE_TOO_COSTLY, STORE_CANCELLED).
 * STORE_NOT_FOUND: no such run.  *out is zeroed first; free it whatever
 * the result. */
int store_ops_list(struct store *st, int64_t run_id, int rank, const char *phase,
                   const struct store_key_filter *keys, int limit, const char *cursor,
                   struct store_op_page *out);
/* A page of the stored training steps of a run: each step with its
 * metrics in logged order; strings in the page's arena until
 * store_run_step_page_free. */
struct store_step_metric {
	const char *name;
	const char *text; /* as printed, e.g. "2.5e-3", "nan" */
	int has_value;    /* 0 when the text is not a finite number */
	double value;
};
struct store_run_step {
	long step;
	int rank;
	int64_t line;   /* line of the kept record */
	int64_t copies; /* repeated prints of the step */
	struct store_step_metric *metrics;
	size_t n_metrics;
};
struct store_run_step_page {
	struct store_run_step *steps;
	size_t n_steps;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_run_step_page_free(struct store_run_step_page *p);
/* Training steps of one rank of a run in step order into *out (zeroed
 * first; free it whatever the result).  validation 0 = training steps,
 * 1 = validation.  The byte budget counts the text plus 128 bytes a step
 * and 64 a metric.  STORE_NOT_FOUND: no such run. */
int store_steps_list(struct store *st, int64_t run_id, int rank, int validation, int limit,
                     const char *cursor, struct store_run_step_page *out);

/* ---- replay for jobs (store/load.c) ------------------------------------ */

/* Rebuild the in-memory activation log of one log row: header, entries in
 * file order (line/order as parsed), warnings, summary counts.  *out is new
 * (matcher_actlog_free).  STORE_NOT_FOUND when the log does not exist. */
int store_actlog_load(struct store *st, int64_t log_id, struct matcher_actlog **out);
/* Replay the stored training records of a log, kind NEW, ordered by
 * (rank, validation, step); metric order as inserted; line = the kept
 * record's line; value NAN where NaN was printed.  The record and its
 * strings are valid during the callback only.  A non-zero callback return
 * stops the walk and is returned as is (use positive values to tell them
 * from STORE_* codes).  STORE_NOT_FOUND when the log is missing. */
int store_steps_foreach(struct store *st, int64_t log_id,
                        int (*cb)(void *ctx, const struct matcher_step_record *r), void *ctx);
/* Replay the stored warnings of a log in insertion order (same rules).
 * Known parser codes are passed as static strings; message/excerpt point
 * into the row. */
int store_warnings_foreach(struct store *st, int64_t log_id,
                           int (*cb)(void *ctx, const struct matcher_warning *w), void *ctx);

/* ---- retention (store/retention.c) -------------------------------------- */

/* Ids for `parity gc`: finished comparisons created before cutoff (an RFC
 * 3339 UTC text like "2026-11-01T00:00:00Z"), and runs created before it
 * that no other comparison references (queued/running/newer ones keep
 * their runs) and no golden baseline names, now or in its history.  Arrays malloc'd (free());
 * counts may be 0. */
int store_gc_candidates(struct store *st, const char *cutoff, int64_t **cmp_ids, size_t *n_cmp,
                        int64_t **run_ids, size_t *n_runs);
/* Sum of the raw upload sizes of a run's logs. */
int store_run_raw_bytes(struct store *st, int64_t run_id, int64_t *bytes);
/* The raw-file clock (migration 004, rule in server/ingest/blobs.c), in
 * milliseconds since the Unix epoch: *born_at_ms, when this database was
 * created (0 = unknown), and *stored_at_ms, the latest commit that stored
 * or re-used a raw file (-1 = none yet).  A database without the record
 * reads as born 0, stored -1. */
int store_raw_clock(struct store *st, int64_t *born_at_ms, int64_t *stored_at_ms);
/* Raise stored_at_ms to at least at_ms (never lowers it).  Call inside the
 * write transaction that references the raw file, after its mtime was
 * set. */
int store_raw_clock_stored(struct store *st, int64_t at_ms);
/* Consistent online copy of the whole database to dest_path (written as
 * dest_path.partial, then renamed), with SQLite's backup API: safe while
 * the daemon writes.  The copy is a standalone rollback-journal file. */
int store_backup(struct store *st, const char *dest_path);
/* PostgreSQL: store_backup refuses (STORE_INVALID) with this sentence
 * (`parity backup` prints it with the database URL). */
#define STORE_PG_BACKUP_HINT                                                                       \
	"use pg_dump: pg_dump -Fc 'postgresql://...' > parity.dump (restore with pg_restore "      \
	"into an empty database, then start parity: migrations bring it up to date)"
/* One gc at a time per database: 1 when this connection holds the gc lock
 * now (PostgreSQL: pg_try_advisory_lock(STORE_PG_GC_LOCK), kept until the
 * connection closes; SQLite: always 1, its write lock serializes), 0 when
 * another gc holds it, or a STORE_* code. */
#define STORE_PG_GC_LOCK 0x7061726974796763LL /* "paritygc" */
/* Transaction-scoped: a raw-log writer holds it shared from its
 * store_pg_blob_create to its COMMIT (the log row that references the
 * blob commits with it); the blob gc holds it exclusive around its
 * DELETE.  So the gc's DELETE starts after every such upload committed
 * (and sees its log), and an upload that found its blob already stored
 * cannot lose it to a gc running at the same time. */
#define STORE_PG_BLOB_GC_XLOCK 0x7061726974796762LL /* "paritygb" */
int store_gc_lock(struct store *st);
/* PostgreSQL: delete the raw logs (raw_blobs with their chunks) that no
 * log references any more; *n blobs and *bytes stored bytes freed (with
 * dry_run: only counted).  SQLite (raw files, server/ingest/blobs.c): 0, nothing
 * done. */
int store_raw_blobs_gc(struct store *st, int dry_run, int64_t *n, int64_t *bytes);

/* ---- metrics and shutdown (store/metrics.c) ------------------------------ */

/* Counts by label (a status or verdict), in the order the database gave
 * them; labels past STORE_METRIC_LABELS are dropped (the sets are small
 * and closed), a NULL label reads "none". */
#define STORE_METRIC_LABELS 16
struct store_counts {
	struct {
		char label[32];
		int64_t n;
	} v[STORE_METRIC_LABELS];
	size_t n;
};
/* Aggregates for GET /metrics; raw_bytes counts each distinct upload
 * once. */
struct store_metrics {
	struct store_counts comparisons; /* by status */
	struct store_counts verdicts;    /* finished ones, by verdict */
	struct store_counts deliveries;  /* webhook deliveries by status */
	int64_t raw_bytes;
	/* PostgreSQL: pg_database_size of the database; SQLite: -1 (the
	 * daemon adds up the database file and its WAL itself) */
	int64_t db_bytes;
};
int store_metrics(struct store *st, struct store_metrics *out);
/* Checkpoint and truncate the WAL (clean shutdown).  The checkpoint
 * verbs below are no-ops on PostgreSQL. */
int store_checkpoint(struct store *st);
/* Checkpoints off the committing thread.  By default a commit that leaves
 * the WAL at STORE_WAL_DUE_PAGES pages or more checkpoints it at once,
 * inside the commit (copying the WAL into the database and syncing it: on
 * a 30 MB upload ~50 ms of the request's time).  After this call this
 * connection's commits never checkpoint; due(ctx) is called instead (from
 * inside the commit: it must only signal) and another connection runs
 * store_checkpoint_passive. */
#define STORE_WAL_DUE_PAGES 1000
void store_defer_checkpoints(struct store *st, void (*due)(void *ctx), void *ctx);
/* Copy what the WAL holds into the database as far as no reader needs the
 * older pages, without waiting for any lock (never blocks writers); the
 * next writer restarts the WAL once all of it was copied.  0 or an error
 * code. */
int store_checkpoint_passive(struct store *st);
/* The divergence profile of one rank: every row that is not a match, in
 * row order, with only what the chart needs (max_distance -1 when none).
 * Strings valid during the callback; a non-zero return stops and is
 * returned. */
int store_comparison_profile_foreach(struct store *st, int64_t id, int rank,
                                     int (*cb)(void *ctx, int64_t idx, const char *status,
                                               const char *phase, double max_distance),
                                     void *ctx);

/* ---- comparisons as jobs (store/comparisons.c) ------------------------- */

/* Queue a comparison (status "queued", created_at now).  kind as for runs;
 * both runs must exist (STORE_NOT_FOUND) and be of that kind
 * (STORE_INVALID).  name may be NULL (""), policy_json NULL or JSON object
 * text, overrides_text NULL or the override file. */
int store_comparison_create(struct store *st, int64_t baseline_id, int64_t candidate_id,
                            const char *kind, const char *name, const char *policy_json,
                            const char *overrides_text, int64_t *id);
/* PostgreSQL, several daemons (store/BACKENDS.md section 5): this
 * connection's owner name (one per daemon process, "host:pid:random",
 * at most 127 bytes) and lease in ms for job claims and webhook delivery
 * claims; claims, heartbeats and finishes are owner-checked.  The
 * daemon's pool sets it on every connection it opens.  SQLite (one
 * process) ignores it. */
void store_set_job_owner(struct store *st, const char *owner, int64_t lease_ms);
/* Atomically mark the oldest queued comparison "running" (started_at now)
 * and return its id: 0, or STORE_NOT_FOUND when none is queued.  Safe
 * across connections/threads: one UPDATE ... RETURNING.  PostgreSQL: with
 * a lease for this connection's owner (store_set_job_owner; unset: one
 * name per process and 60 s); a running job whose lease expired is
 * claimable again. */
int store_comparison_claim(struct store *st, int64_t *id);
/* Start-up recovery: every "running" job back to "queued"; *n (may be NULL)
 * = how many.  (A job writes its rows in the transaction that finishes it,
 * so a requeued one has none; that write clears any first all the same.)
 * PostgreSQL: a no-op (*n = 0): the running jobs may be other daemons'
 * live ones, and an expired lease makes a job claimable again. */
int store_comparisons_requeue_running(struct store *st, int *n);

/* Give one claimed job back: "running" -> "queued" (started_at cleared),
 * so a worker tries it again later.  0 also when it is no longer running
 * (PostgreSQL: no longer this owner's); STORE_NOT_FOUND when it is gone. */
int store_comparison_requeue(struct store *st, int64_t id);

/* What a worker needs; strings malloc'd, free with
 * store_comparison_job_free (fields NULL when absent). */
struct store_comparison_job {
	int64_t id;
	char kind[16];
	char status[16];
	int64_t baseline_id;
	int64_t candidate_id;
	char *name;
	char *policy_json;
	char *overrides;
};
int store_comparison_job(struct store *st, int64_t id, struct store_comparison_job *out);
void store_comparison_job_free(struct store_comparison_job *job);
/* Current status ("queued"/"running"/"done"/"failed") into status_out
 * (>= 16 bytes); cheap, for long-polling.  STORE_NOT_FOUND. */
int store_comparison_status(struct store *st, int64_t id, char *status_out, size_t cap);

/* One activation result row to store: the matcher's row with its entries
 * named by file order (matcher_entry.order) in the rank's two logs. */
struct store_row_rec {
	int64_t a_ord; /* order of the baseline entry; -1 for b_only */
	int64_t b_ord; /* order of the candidate entry; -1 for a_only */
	enum matcher_status status;
	enum matcher_method method; /* MATCHER_METHOD_NONE for only-rows */
	enum matcher_phase phase;
	int origin;
	int shape_differs;
	double output_hash_distance;       /* < 0: none */
	double input_hash_distance;        /* < 0: none */
	double stat_diff[MATCHER_N_STATS]; /* < 0: none */
};
/* The record of a matcher row (entries must be set for its sides). */
void store_row_rec_from(struct store_row_rec *rec, const struct matcher_row *row);

/* The entry ids of a log by file order: (*ids)[ord] is the id of the
 * entry with that order, *n how many (orders run 0..n-1).  *ids is
 * malloc'd (free()).  A plain read: jobs call it before their write
 * transaction.  STORE_NOT_FOUND when the log does not exist. */
int store_log_entry_ids(struct store *st, int64_t log_id, int64_t **ids, size_t *n);

/* Store the rows of one rank (idx = position in recs) of an activation
 * comparison; ids_a (n_a) / ids_b (n_b) are store_log_entry_ids of the
 * rank's baseline / candidate logs, through which the rows reference the
 * entries (not copied).  One cached statement, one step per row: call
 * inside a transaction, and roll it back on an error.  STORE_DUPLICATE
 * for a (rank, idx) stored before, STORE_NOT_FOUND when the comparison is
 * missing, STORE_INVALID when an order is outside its log. */
int store_comparison_rows_add(struct store *st, int64_t comparison_id, int rank,
                              const int64_t *ids_a, size_t n_a, const int64_t *ids_b, size_t n_b,
                              const struct store_row_rec *recs, size_t n);
/* Store one per-step row of a training comparison: the step and its n
 * cells, metrics[k] naming cells[k] (the check's metric order, kept on
 * read).  Call inside a transaction.  STORE_DUPLICATE for a (rank, step)
 * stored before, STORE_NOT_FOUND when the comparison is missing. */
int store_comparison_step_add(struct store *st, int64_t comparison_id, int rank, long step,
                              const char *const *metrics,
                              const struct matcher_train_row_cell *cells, size_t n);
/* Delete every stored row and step of a comparison (before recomputing). */
int store_comparison_rows_clear(struct store *st, int64_t comparison_id);
/* End a job: status "done"|"failed" (STORE_INVALID otherwise), verdict
 * NULL or e.g. "pass"/"fail"/"error", result_json NULL or object text
 * (legacy; results go to store_act_result_put / store_train_result_put),
 * error NULL or a sentence; finished_at now.  STORE_NOT_FOUND.
 * PostgreSQL: a claimed job only by its lease's owner (this connection's
 * store_set_job_owner name); else STORE_NOT_FOUND "lease lost", nothing
 * written and the transaction still usable (roll the rows back).  It
 * wakes other daemons' waiters (parity_done) when its transaction
 * commits. */
int store_comparison_finish(struct store *st, int64_t id, const char *status, const char *verdict,
                            const char *result_json, const char *error);
/* ---- activation result summary (typed; migration 007) -------------------
 * What an activation comparison concludes, beside its rows: the verdict,
 * the policy it was judged by, every reason, and per rank the counts, the
 * first divergences, the excluded ops, the override report and the log
 * warnings.  Built from the matcher's result (web/json_act.h
 * web_act_build_rank, for the job and the CLI alike), stored by
 * store_act_result_put, read back by store_comparison_get; web/json_act.h
 * web_act_result_doc is its one JSON serializer.  Every string and array
 * lives in the arena of whoever built or read it (a comparison view, or
 * a struct web_act_build) and is valid until that arena is reset. */
struct store_act_ref {     /* a reference to one result row */
	int64_t row;       /* row index in its rank; -1: none (JSON null) */
	const char *a_key; /* NULL: no baseline side */
	const char *b_key; /* NULL: no candidate side */
	enum matcher_status status;
	enum matcher_phase phase;
	enum matcher_method method;
	int origin, shape_differs;
	double out_dist, in_dist; /* < 0: none */
};
struct store_act_reason {
	int rank;    /* -1: the reason names no rank */
	int in_rank; /* 1: a rank's own check reason (has details, listed in
	              * that rank's document too); 0: a job-level reason */
	const char *code, *message;
	int64_t count, tolerated;            /* details (in_rank only) */
	struct store_act_ref first;          /* details.first */
	struct store_act_ref first_phase[2]; /* "diff_rows": [phase] */
	double max_hash_distance;            /* "diff_rows": < 0 none */
};
struct store_act_warning {
	const char *code;
	int64_t line;
	const char *message;
	const char *excerpt; /* NULL: none */
};
struct store_act_unused {
	const char *a_key, *b_key;
	int64_t line;
	const char *reason;
};
enum { STORE_WARN_LOG_A, STORE_WARN_LOG_B, STORE_WARN_OVERRIDES, STORE_N_WARN };
struct store_act_rank {
	int rank; /* -1: a single pair of logs (the CLI's document: no "rank") */
	enum matcher_verdict verdict;
	const char *name_a, *name_b;
	size_t reasons_at, n_reasons; /* its reasons: result->reasons[at..] */
	/* summary */
	int64_t n_rows;
	int64_t n_status[MATCHER_N_STATUS];
	int64_t n_method[MATCHER_N_METHODS];
	int64_t n_phase_status[2][MATCHER_N_STATUS];
	int64_t n_origin, n_propagated;
	double max_hash_distance; /* < 0: none */
	int64_t max_hash_row;     /* -1: none */
	int64_t n_tolerated;
	int64_t n_entries[2];
	const char *const *excluded[2]; /* excluded ops per side */
	size_t n_excluded[2];
	int64_t overrides_used;
	const struct store_act_unused *unused;
	size_t n_unused;
	const struct store_act_warning *warnings[STORE_N_WARN];
	size_t n_warnings[STORE_N_WARN];
	struct store_act_ref first_divergence[2]; /* [phase] */
};
struct store_act_result {
	enum matcher_verdict verdict; /* the worst rank's, or error */
	struct matcher_act_policy policy;
	const struct store_act_reason *reasons; /* every reason, in order */
	size_t n_reasons;
	const struct store_act_rank *ranks; /* by rank */
	size_t n_ranks;
};
/* Store a finished activation comparison's result (inside the job's write
 * transaction; replaces a previous one).  0, STORE_NOT_FOUND, or error. */
int store_act_result_put(struct store *st, int64_t comparison_id, const struct store_act_result *r);

/* ---- training result (typed; migration 009) ------------------------------
 * What a training comparison concludes: verdict, the policy it was judged
 * by, every reason, per metric the statistics, notes, the steps only one
 * run has (listed part capped at WEB_TRAIN_MAX_LISTED_STEPS, counts
 * exact) and each side's log warnings.  Built from the matcher's result
 * (web/json_train.h web_train_result_view, for the job and the CLI
 * alike), stored by store_train_result_put, read back by
 * store_comparison_get; web/json_train.h web_train_result_doc is its one
 * JSON serializer.  Reasons and metrics reuse the matcher's structs
 * (code/side point at static or arena strings).  Every pointer lives in
 * the arena of whoever built or read it (a comparison view, or the
 * builder's arena) and is valid until that arena is reset. */
struct store_train_result {
	enum matcher_verdict verdict;
	struct matcher_train_policy policy;
	int rank;
	const struct matcher_train_reason *reasons;
	size_t n_reasons;
	const struct matcher_train_metric_result *metrics; /* policy order */
	size_t n_metrics;
	const char *const *notes;
	size_t n_notes;
	int64_t n_common;
	const long *only[2]; /* [0] baseline, [1] candidate: listed steps */
	size_t n_only_listed[2];
	int64_t n_only[2]; /* counts */
	const struct matcher_warning *warnings[2];
	size_t n_warnings[2];
};
/* Store a finished training comparison's result (inside the job's write
 * transaction; replaces a previous one).  0, or a STORE_* code. */
int store_train_result_put(struct store *st, int64_t comparison_id,
                           const struct store_train_result *r);

/* A comparison read back (metadata; its rows and steps have their own
 * pages).  Strings live in the arena of the view or page that holds it;
 * NULL where the column is empty. */
struct store_comparison {
	int64_t id;
	const char *name;    /* "" when unnamed */
	char kind[16];       /* "activation" | "training" */
	char status[16];     /* "queued" | "running" | "done" | "failed" */
	const char *verdict; /* NULL until done, e.g. "pass" / "fail" / "error" */
	int64_t baseline_id, candidate_id;
	/* the two runs without logs; NULL when a run is gone */
	const struct store_run *baseline, *candidate;
	/* free-form: the stored policy JSON text as the request gave it
	 * (NULL = none) */
	const char *policy_json;
	/* a stored result document text not converted to typed tables
	 * (store_comparison_get only; NULL in lists, while not done, and
	 * whenever train is set) */
	const char *result_json;
	/* the typed result of a done activation comparison (store_comparison_get
	 * only; NULL in lists, while not done, and for training) */
	const struct store_act_result *act;
	/* the typed result of a done training comparison (store_comparison_get
	 * only; NULL in lists, while not done, and for activation) */
	const struct store_train_result *train;
	const char *error; /* NULL or a sentence */
	const char *created_at, *started_at, *finished_at;
	/* the message of the result's first reason (store_comparisons_find
	 * only; NULL elsewhere and when there is none) */
	const char *first_reason;
	/* issue 16 labels, NULL when not given: the golden baseline name the
	 * baseline run was resolved from, the suite and its config label */
	const char *baseline_name, *suite, *config;
	int suite_size; /* configs its suite is to have, 0 = not said */
};
struct store_comparison_view {
	struct store_comparison cmp;
	struct arena arena;
};
/* Free a view (a zeroed view is valid to free); empty afterwards. */
void store_comparison_view_free(struct store_comparison_view *v);
/* The comparison with its runs and stored result into *out (zeroed first;
 * free it with store_comparison_view_free whatever the result).
 * STORE_NOT_FOUND when missing.  web/json_views.h serializes it as
 * GET /comparisons/{id}. */
int store_comparison_get(struct store *st, int64_t id, struct store_comparison_view *out);
/* A page of comparisons, newest first, without results; in the page's
 * arena until store_comparison_page_free.  The byte budget
 * (STORE_PAGE_BYTES) counts the text plus 512 bytes a comparison. */
struct store_comparison_page {
	struct store_comparison *cmps;
	size_t n_cmps;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_comparison_page_free(struct store_comparison_page *p);
int store_comparisons_list(struct store *st, int limit, const char *cursor,
                           struct store_comparison_page *out);
/* Filters of the browser's lists; every member NULL / 0 = any.  q: a
 * case-insensitive (ASCII) substring of a run's name or its meta "commit"
 * or "branch"; for comparisons also of the comparison's name and of
 * either run's.  kind "activation"/"training"; verdict and status
 * (comparisons) as stored; run_id: comparisons using that run as baseline
 * or candidate. */
struct store_list_filter {
	const char *q, *kind, *verdict, *status;
	int64_t run_id;
};
/* store_runs_list / store_comparisons_list with a filter (f may be NULL);
 * comparisons come with first_reason.  Same paging and errors. */
int store_runs_find(struct store *st, const struct store_list_filter *f, int limit,
                    const char *cursor, struct store_run_page *out);
int store_comparisons_find(struct store *st, const struct store_list_filter *f, int limit,
                           const char *cursor, struct store_comparison_page *out);
/* A page of activation result rows read back: each row is a matcher row
 * whose a / b point at the entries beside it (NULL for a missing side),
 * rebuilt from the runs' stored entries exactly as the matcher saw them,
 * so the row serializer of the CLI (web/json_act.h) serves it too.
 * Strings live in arena; everything is owned by the page until
 * store_row_page_free. */
struct store_act_row {
	int rank;
	int64_t idx;
	struct matcher_row row;
	struct matcher_entry a, b;
};
struct store_row_page {
	struct store_act_row *rows;
	size_t n_rows;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
/* Free a page's rows and strings; the page is empty afterwards (a zeroed
 * page is valid to free). */
void store_row_page_free(struct store_row_page *p);

/* Result rows in (rank, idx) order into *out (zeroed first; free it with
 * store_row_page_free whatever the result).  Filters: rank -1 = all;
 * status and method NULL = any, else one name or a comma-separated list
 * ("diff,a_only,b_only"; unknown names match nothing); phase
 * NULL/"forward"/"backward" (STORE_INVALID otherwise); origin -1 any, 0/1;
 * keys NULL = any, else a key filter (struct store_key_filter) matched
 * against the a key OR the b key (STORE_BAD_REGEX, STORE_TOO_COSTLY,
 * STORE_CANCELLED).  The page's byte budget
 * (STORE_PAGE_BYTES) counts the rows' text plus a fixed 512 bytes a row.
 * STORE_NOT_FOUND when the comparison does not exist. */
int store_comparison_rows_list(struct store *st, int64_t id, int rank, const char *status,
                               const char *method, const char *phase, int origin,
                               const struct store_key_filter *keys, int limit, const char *cursor,
                               struct store_row_page *out);
/* How many rows pass the filters of store_comparison_rows_list (same
 * arguments, no paging) into *matched.  With a key regex this is a full
 * scan of the rank's rows under the regex limits and time budget: when
 * the budget runs out, *matched is the rows counted so far (a lower
 * bound), *partial is 1 and the result is 0; a bad or per-key too costly
 * regex is STORE_BAD_REGEX / STORE_TOO_COSTLY as for the list.  Without
 * a regex it is one indexed range count. */
int store_comparison_rows_count(struct store *st, int64_t id, int rank, const char *status,
                                const char *method, const char *phase, int origin,
                                const struct store_key_filter *keys, int64_t *matched,
                                int *partial);
/* The row of rank (>= 0) that produced an input: the row whose side-A
 * (side_b 0) or side-B entry has the key (the input's producer, exact),
 * or else an output hash list holding hash (one item, as printed); the
 * nearest such row before before_idx (< 0: any).  *idx its index.
 * STORE_NOT_FOUND: no such row, or no such comparison; STORE_INVALID:
 * neither key nor hash given.  One scan of the rank's rows. */
int store_comparison_row_producer(struct store *st, int64_t id, int rank, int side_b,
                                  const char *key, const char *hash, int64_t before_idx,
                                  int64_t *idx);
/* A page of per-step rows of a training comparison read back: each row's
 * cells as matcher_train_row gave them when stored (a NaN value reads back
 * NaN), with their metric names.  Strings and cells live in the page until
 * store_step_page_free. */
struct store_step_row {
	int rank;
	long step;
	const char **metrics; /* n_cells names */
	struct matcher_train_row_cell *cells;
	size_t n_cells;
};
struct store_step_page {
	struct store_step_row *rows;
	size_t n_rows;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
/* Free a page (a zeroed page is valid to free); it is empty afterwards. */
void store_step_page_free(struct store_step_page *p);
/* Per-step rows of one rank (-1 all) in (rank, step) order into *out
 * (zeroed first; free it whatever the result).  The byte budget
 * (STORE_PAGE_BYTES) counts 256 bytes a cell.  STORE_NOT_FOUND when the
 * comparison does not exist. */
int store_comparison_steps_list(struct store *st, int64_t id, int rank, int limit,
                                const char *cursor, struct store_step_page *out);
/* Delete a comparison with its rows and steps.  STORE_NOT_FOUND. */
int store_comparison_delete(struct store *st, int64_t id);

/* Label a comparison (issue 16): baseline_name (the golden baseline its
 * baseline run was resolved from), suite and config, each NULL to leave
 * unset, and suite_size (how many configs the suite is to have; 0 = not
 * said).  Call in the transaction that created it.  STORE_NOT_FOUND. */
int store_comparison_set_labels(struct store *st, int64_t id, const char *baseline_name,
                                const char *suite, const char *config, int suite_size);

/* ---- golden baselines and suites (store/baselines.c, issue 16) ---------- */

/* Baseline names: 1-STORE_BASELINE_NAME_MAX bytes of [A-Za-z0-9._/-]
 * (slashes separate parts: "main/llama3-8b-fsdp"), no empty part, no part
 * starting with '.'.  Suite and config labels: 1-STORE_LABEL_MAX bytes of
 * [A-Za-z0-9._-] not starting with '.' (one URL segment). */
#define STORE_BASELINE_NAME_MAX 200
#define STORE_LABEL_MAX         100
/* 1 when name is a valid baseline name / label (above), else 0. */
int store_baseline_name_ok(const char *name);
int store_label_ok(const char *label);

/* Make run_id the current run of baseline name (creating the name) and
 * append the change to its history: token_name NULL = open (no token),
 * note NULL = "", comparison_id > 0 names the comparison whose pass
 * promoted it (0 = set by hand).  *history_id (may be NULL) gets the
 * history row.  One transaction (or the caller's).  STORE_INVALID for a
 * bad name or a note over 2000 bytes, STORE_NOT_FOUND when the run does
 * not exist. */
int store_baseline_set(struct store *st, const char *name, int64_t run_id, const char *token_name,
                       const char *note, int64_t comparison_id, int64_t *history_id);
/* Promote run_id to baseline name only if from_run is still its current
 * run (compare-and-swap, issue 23: a promotion earned against an older
 * run must not overwrite a newer one).  Checks and history as
 * store_baseline_set, comparison_id the comparison that passed.  0 when
 * promoted (*current = run_id); 1 when not, with nothing changed and
 * *current the name's current run (0: no such name); else STORE_INVALID,
 * STORE_NOT_FOUND (run_id does not exist) or an error.  One transaction
 * (or the caller's).  Two concurrent promotions from one run: exactly one
 * returns 0. */
int store_baseline_promote(struct store *st, const char *name, int64_t run_id, int64_t from_run,
                           const char *token_name, const char *note, int64_t comparison_id,
                           int64_t *current, int64_t *history_id);
/* The current run of baseline name into *run_id.  STORE_NOT_FOUND when
 * no baseline has that name. */
int store_baseline_current(struct store *st, const char *name, int64_t *run_id);
/* One change of a baseline. */
struct store_baseline_change {
	int64_t id;
	int64_t run_id;
	const char *set_at;
	const char *token_name; /* NULL: set without a token ("open") */
	const char *note;       /* "" when none */
	int64_t comparison_id;  /* the promoting comparison, 0 when set by hand */
};
struct store_baseline {
	int64_t id;
	const char *name;
	int64_t run_id;              /* the current run */
	const struct store_run *run; /* it, without logs (NULL when gone) */
	const char *created_at, *updated_at;
	int64_t n_changes; /* every change ever made */
	/* store_baseline_get only: the newest STORE_BASELINE_HISTORY_MAX
	 * changes, oldest first (NULL and 0 in lists) */
	struct store_baseline_change *history;
	size_t n_history;
};
#define STORE_BASELINE_HISTORY_MAX 1000
struct store_baseline_view {
	struct store_baseline b;
	struct arena arena;
};
void store_baseline_view_free(struct store_baseline_view *v);
/* Baseline name with its history into *out (zeroed first; free it
 * whatever the result).  STORE_NOT_FOUND. */
int store_baseline_get(struct store *st, const char *name, struct store_baseline_view *out);
/* A page of baselines in creation order (limit, cursor as for every
 * list; the byte budget counts the text plus 256 bytes a baseline). */
struct store_baseline_page {
	struct store_baseline *baselines;
	size_t n_baselines;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_baseline_page_free(struct store_baseline_page *p);
int store_baselines_list(struct store *st, int limit, const char *cursor,
                         struct store_baseline_page *out);
/* Comparisons made against baseline name (comparisons.baseline_name),
 * newest first, as store_comparisons_list pages them (the result text is
 * read too: the history page shows max |diff| per metric).  An unknown
 * name gives an empty page. */
int store_baseline_comparisons(struct store *st, const char *name, int limit, const char *cursor,
                               struct store_comparison_page *out);

/* A suite: the latest comparison of each config label (configs in name
 * order, at most STORE_SUITE_CONFIGS_MAX of them; comparisons without a
 * config count as config ""), and how many of the suite's comparisons are
 * still queued or running.  Strings in the view's arena. */
#define STORE_SUITE_CONFIGS_MAX 1000
#define STORE_SUITE_SIZE_MAX    STORE_SUITE_CONFIGS_MAX
struct store_suite_view {
	struct store_comparison *latest; /* one per config, with result text */
	size_t n_latest;
	int64_t n_comparisons; /* every comparison filed into the suite */
	int64_t n_pending;     /* queued or running among them */
	int64_t expected;      /* the largest suite_size given, 0 = none */
	int truncated;         /* more configs than STORE_SUITE_CONFIGS_MAX */
	struct arena arena;
};
void store_suite_view_free(struct store_suite_view *v);
/* Suite into *out (zeroed first; free it whatever the result).
 * STORE_NOT_FOUND when no comparison carries that suite label. */
int store_suite_get(struct store *st, const char *suite, struct store_suite_view *out);
/* The suite label of comparison id into out (cap bytes; "" when it has
 * none).  STORE_NOT_FOUND. */
int store_comparison_suite(struct store *st, int64_t id, char *out, size_t cap);
/* Queued or running comparisons of suite into *n (0 when unknown). */
int store_suite_pending(struct store *st, const char *suite, int64_t *n);

/* ---- API tokens (store/auth.c) ----------------------------------------- */

/* New token row.  name: 1-128 bytes, unique for ever (a revoked name is
 * not reused: STORE_DUPLICATE); sha256_hex: 64 lower-case hex digits of
 * the token text (STORE_INVALID otherwise).  The token itself is never
 * stored.  *id (may be NULL) gets the row id. */
int store_token_create(struct store *st, const char *name, const char *sha256_hex, int64_t *id);
/* Look a token up by its digest.  On 0: stored_hex (65 bytes) holds the
 * stored digest (for the caller's constant-time confirmation), name_out
 * (may be NULL) its name, *revoked (may be NULL) 1 when revoked.
 * STORE_NOT_FOUND when no token has that digest. */
int store_token_find(struct store *st, const char *sha256_hex, char stored_hex[65], char *name_out,
                     size_t name_cap, int *revoked);
/* The API tokens, oldest first, without their digests; strings in the
 * list's arena until store_token_list_free. */
struct store_token_info {
	int64_t id;
	const char *name;
	const char *created_at;
	const char *revoked_at; /* NULL while active */
};
struct store_token_list {
	struct store_token_info *tokens;
	size_t n_tokens;
	struct arena arena;
};
void store_token_list_free(struct store_token_list *l);
/* Every token into *out (zeroed first; free it whatever the result). */
int store_tokens_list(struct store *st, struct store_token_list *out);
/* Mark the named token revoked (idempotent).  STORE_NOT_FOUND. */
int store_token_revoke(struct store *st, const char *name);
/* Number of tokens not revoked. */
int store_tokens_active(struct store *st, int *n);

/* ---- webhooks and deliveries (store/webhooks.c) ------------------------- */

/* New webhook.  url non-empty (validated by the server; "mailto:..." for
 * email), secret NULL or "" = unsigned, events_json the text of a JSON
 * array of event names, format "generic"|"github-status"|"email"
 * (STORE_INVALID), token NULL or the bearer token sent with github-status
 * posts, recipients_json the text of a JSON array of addresses for email
 * (required there, NULL for the others: STORE_INVALID).  Secrets are
 * stored as given. */
int store_webhook_create(struct store *st, const char *url, const char *secret,
                         const char *events_json, const char *format, const char *token,
                         const char *recipients_json, int64_t *id);
/* The public view of a webhook, never its secret or token; strings in
 * the arena of the view or page that holds it. */
struct store_webhook_public {
	int64_t id;
	const char *url;
	const char **events; /* the subscribed event names */
	size_t n_events;
	char format[16]; /* "generic" | "github-status" | "email" */
	int has_secret, has_token;
	const char *created_at;
	const char **to; /* email recipients (n_to; 0 for the other formats) */
	size_t n_to;
};
struct store_webhook_view {
	struct store_webhook_public hook;
	struct arena arena;
};
void store_webhook_view_free(struct store_webhook_view *v);
/* One webhook into *out (zeroed first; free it whatever the result).
 * STORE_NOT_FOUND when missing. */
int store_webhook_get(struct store *st, int64_t id, struct store_webhook_view *out);
/* A page of webhooks, oldest first (a list like the others: limit,
 * cursor; the byte budget counts the text plus 256 bytes a webhook). */
struct store_webhook_page {
	struct store_webhook_public *hooks;
	size_t n_hooks;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_webhook_page_free(struct store_webhook_page *p);
int store_webhooks_list(struct store *st, int limit, const char *cursor,
                        struct store_webhook_page *out);
/* Delete a webhook with its deliveries and attempts.  STORE_NOT_FOUND. */
int store_webhook_delete(struct store *st, int64_t id);

/* A webhook with its secrets, for queueing deliveries (strings malloc'd). */
struct store_webhook {
	int64_t id;
	char *url;
	char *secret; /* "" when unsigned */
	char format[16];
	char *token;      /* NULL when none */
	char *recipients; /* email: JSON array text of addresses; else NULL */
};
/* Webhooks subscribed to event: *out malloc'd array of *n (may be 0);
 * free with store_webhooks_free. */
int store_webhooks_for_event(struct store *st, const char *event, struct store_webhook **out,
                             size_t *n);
void store_webhooks_free(struct store_webhook *v, size_t n);

/* Queue a delivery (status pending, due at due_ms epoch milliseconds) with
 * an empty url and body; set them with store_delivery_set_body in the same
 * transaction (the body quotes the delivery id).  STORE_NOT_FOUND when the
 * webhook is gone. */
int store_delivery_create(struct store *st, int64_t webhook_id, int64_t comparison_id,
                          const char *event, int64_t due_ms, int64_t *id);
int store_delivery_set_body(struct store *st, int64_t id, const char *url, const char *payload);
/* Mark a delivery failed without an attempt (it cannot be sent at all,
 * e.g. a github-status hook for a run without meta.commit). */
int store_delivery_give_up(struct store *st, int64_t id, const char *error);

/* A claimed delivery with what a sender needs (strings malloc'd; free with
 * store_delivery_free). */
struct store_delivery {
	int64_t id, webhook_id, comparison_id;
	int attempts; /* attempts made before this one */
	char event[64];
	char format[16];
	char *url;
	char *payload;
	char *secret; /* "" = unsigned */
	char *token;  /* NULL = none */
};
/* Claim the most overdue pending delivery (next_attempt_at <= now_ms, no
 * live lease) with a lease until now_ms + lease_ms.  0, or STORE_NOT_FOUND
 * when nothing is due.  Safe across threads and connections.
 * PostgreSQL with an owner name (store_set_job_owner, the daemon): the
 * claim is store_pg_delivery_claim's (server clock instead of now_ms,
 * SKIP LOCKED, claimed_by), and record / release below are owner-checked:
 * an owner whose claim was taken over writes nothing (STORE_NOT_FOUND;
 * release: 0). */
int store_delivery_claim(struct store *st, int64_t now_ms, int64_t lease_ms,
                         struct store_delivery *out);
void store_delivery_free(struct store_delivery *d);
/* Earliest time (epoch ms) a pending delivery may be claimed, counting
 * leases.  STORE_NOT_FOUND when nothing is pending. */
int store_delivery_next_due(struct store *st, int64_t *due_ms);
/* Record one attempt and its outcome in one transaction: http_status <= 0
 * = no response, error NULL on success, outcome "delivered" | "failed"
 * (final) | "pending" (retry at next_attempt_ms).  Clears the lease and
 * counts the attempt.  STORE_NOT_FOUND when the delivery was deleted with
 * its webhook meanwhile. */
int store_delivery_record(struct store *st, int64_t id, int http_status, const char *error,
                          int64_t duration_ms, const char *outcome, int64_t next_attempt_ms);
/* Drop the lease without counting an attempt (sender stopping). */
int store_delivery_release(struct store *st, int64_t id);
/* Start-up: drop every lease (a single daemon owns the file); *n may be
 * NULL.  PostgreSQL with an owner name: only that owner's claims (other
 * daemons' are live; a restarted daemon has a new name, its old claims
 * expire), which is what a clean shutdown calls. */
int store_deliveries_release_all(struct store *st, int *n);
/* Deliveries of a webhook read back, with their attempts; strings in the
 * page's arena until store_delivery_page_free (NULL where empty). */
struct store_attempt_info {
	const char *at;
	int has_http_status; /* 0: no response */
	int http_status;
	const char *error;
	int64_t duration_ms;
};
struct store_delivery_info {
	int64_t id, webhook_id, comparison_id;
	const char *event;
	const char *url;
	const char *status; /* "pending" | "delivered" | "failed" */
	int attempts;
	const char *next_attempt_at; /* RFC 3339 with ms while pending, else NULL */
	const char *last_error;
	const char *created_at, *finished_at;
	struct store_attempt_info *attempt_log; /* oldest first */
	size_t n_attempt_log;
};
struct store_delivery_page {
	struct store_delivery_info *deliveries;
	size_t n_deliveries;
	char next_cursor[64]; /* "" on the last page */
	struct arena arena;
};
void store_delivery_page_free(struct store_delivery_page *p);
/* Deliveries of a webhook, newest first, into *out (zeroed first; free it
 * whatever the result).  The byte budget counts the text plus 256 bytes
 * a delivery and 128 an attempt.  STORE_NOT_FOUND when the webhook does
 * not exist. */
int store_deliveries_list(struct store *st, int64_t webhook_id, int limit, const char *cursor,
                          struct store_delivery_page *out);

/* ---- PostgreSQL backend, in progress (store/pg/, issue 17) -------------
 * The foundation of the PostgreSQL store: a connection, its migrations
 * (migrations/postgresql/, applied under an advisory lock) and the job
 * queue with leases.  It is a handle of its own, struct store_pg; a
 * struct store on PostgreSQL holds one (store_pg_of), so every verb above
 * works on either backend (store/BACKENDS.md section 1).  No
 * libpq type crosses this header.  One struct store_pg is one libpq
 * connection used by ONE thread at a time.  Times of leases are the
 * database server's clock (clock_timestamp()), so daemons on several
 * machines agree on them whatever their own clocks say. */
struct store_pg;
/* The backend of st: 1 for PostgreSQL, else 0 (SQLite). */
int store_is_pg(const struct store *st);
/* The PostgreSQL connection of st for the store_pg_* calls below (the
 * same connection and transaction as st's verbs), or NULL on SQLite. */
struct store_pg *store_pg_of(struct store *st);
/* rc from a store_pg_* call on st's connection: when it failed (< 0), its
 * message becomes st's (store_errmsg).  Returns rc. */
int store_pg_error(struct store *st, int rc);

/* 1 when s names a PostgreSQL database ("postgresql://" or "postgres://"
 * URL), else 0 (a SQLite data directory / file). */
int store_is_pg_url(const char *s);

/* Connect to url (a libpq connection URI or key=value string) and check
 * the connection; applies no migration.  *out on success (free with
 * store_pg_close); on failure *out = NULL, err (errlen bytes) says why
 * (without the password) and the result is STORE_ERROR. */
int store_pg_open(const char *url, struct store_pg **out, char *err, size_t errlen);
void store_pg_close(struct store_pg *pg);
/* The last error of pg as a sentence (valid until the next call on pg). */
const char *store_pg_errmsg(const struct store_pg *pg);

/* Apply every embedded migrations/postgresql/NNN_*.sql above the
 * database's version, each in its own transaction recorded in
 * schema_migrations, all under pg_advisory_lock(STORE_PG_MIGRATE_LOCK)
 * so daemons starting at once apply each version exactly once (the
 * others wait, then find nothing to do).  *n_applied (may be NULL) = how
 * many this call applied.  STORE_TOO_NEW when the database has a version
 * above the newest embedded one; STORE_INVALID (nothing applied) when the
 * database is not UTF8 with the C/POSIX locale (collation and ctype): the
 * store's text order and lower() must be SQLite's; STORE_ERROR otherwise
 * (errmsg). */
#define STORE_PG_MIGRATE_LOCK 0x70617269747931LL /* "parity1" */
int store_pg_migrate(struct store_pg *pg, int *n_applied);
/* The highest version in schema_migrations into *version (0: none). */
int store_pg_schema_version(struct store_pg *pg, int *version);

/* Job queue with leases (store/pg/jobs.c).  A claim takes the oldest
 * comparison that is queued, or running with an expired lease (its daemon
 * died or stalled), with FOR UPDATE SKIP LOCKED: concurrent claimers never
 * get the same job and never wait on each other.  It sets status
 * "running", lease_owner = owner (the claiming worker's unique name, e.g.
 * "host:pid:worker") and lease_until_ms = now + lease_ms.  0 and *id, or
 * STORE_NOT_FOUND when nothing is claimable; STORE_INVALID for an empty
 * owner or lease_ms outside 1..86400000. */
int store_pg_job_claim(struct store_pg *pg, const char *owner, int64_t lease_ms, int64_t *id);
/* Extend owner's lease of running job id to now + lease_ms.  STORE_NOT_FOUND
 * when owner does not hold it any more (expired and re-claimed, finished,
 * or requeued): the worker must stop and write nothing.  A lease that
 * expired but was not yet re-claimed is renewed. */
int store_pg_job_heartbeat(struct store_pg *pg, int64_t id, const char *owner, int64_t lease_ms);
/* Extend every lease owner holds to now + lease_ms, in one statement: a
 * daemon that names itself once (host:pid:random) renews all its running
 * jobs from one thread every lease/3.  *n (may be NULL) = how many. */
int store_pg_jobs_heartbeat_all(struct store_pg *pg, const char *owner, int64_t lease_ms, int *n);
/* End owner's job: status "done" | "failed" (STORE_INVALID otherwise),
 * verdict and error NULL or text, finished_at now, lease cleared.
 * STORE_NOT_FOUND when owner does not hold the lease: a worker that lost
 * its lease cannot overwrite the result of the one that took over.
 * (In the merged store this runs inside the transaction that writes the
 * result rows, so rows and status commit together or not at all.) */
int store_pg_job_finish(struct store_pg *pg, int64_t id, const char *owner, const char *status,
                        const char *verdict, const char *error);
/* Give owner's running job back to the queue (status "queued", lease and
 * started_at cleared), e.g. on a clean shutdown.  STORE_NOT_FOUND when
 * owner does not hold it. */
int store_pg_job_release(struct store_pg *pg, int64_t id, const char *owner);

/* Transactions on a store_pg connection (store/pg/tx.c): BEGIN (READ
 * COMMITTED), COMMIT, ROLLBACK.  0 or a STORE_* code with errmsg; a
 * failed COMMIT has rolled back.  Rollback also ends a failed
 * transaction. */
int store_pg_tx_begin(struct store_pg *pg);
int store_pg_tx_commit(struct store_pg *pg);
int store_pg_tx_rollback(struct store_pg *pg);

/* Raw logs in the database (store/pg/blobs.c; migrations/postgresql/011):
 * a blob is named by the sha256 hex (64 lowercase hex digits) of its
 * uncompressed bytes, which the caller computed (the upload does), and
 * is stored as one gzip stream cut into chunks of STORE_PG_CHUNK bytes.
 * Writing streams: memory is one chunk plus zlib's state, whatever the
 * log's size.  Run the writer inside the caller's transaction
 * (store_pg_tx_begin): commit makes the blob visible whole, rollback
 * leaves nothing.  Idempotent: a second writer of the same sha256 finds
 * it (if the first is still in its transaction, it waits for that to
 * end: committed, it is "stored already"; rolled back, it writes). */
#define STORE_PG_CHUNK (1 << 20)
struct store_pg_blob_writer;
/* Start writing blob sha256.  0 and *w (then _write ... _finish, or
 * _abort), or 1 and *w = NULL when the blob is stored already (write
 * nothing).  STORE_INVALID for a name that is not 64 lowercase hex. */
int store_pg_blob_create(struct store_pg *pg, const char *sha256, struct store_pg_blob_writer **w);
/* Compress n bytes into the blob; full chunks are sent as they fill. */
int store_pg_blob_write(struct store_pg_blob_writer *w, const void *data, size_t n);
/* Flush the last chunk, record sizes and chunk count, free w (always).
 * *zbytes (may be NULL) = the stored (compressed) size. */
int store_pg_blob_finish(struct store_pg_blob_writer *w, int64_t *zbytes);
/* Free w after a failure; the caller rolls its transaction back. */
void store_pg_blob_abort(struct store_pg_blob_writer *w);
/* Instead of _write: n more bytes of the blob's stored form, compressed
 * by the caller (one gzip member of the whole content, as the upload's
 * compression thread writes it: server/ingest/gzpipe.c), cut into chunks as
 * they are.  Then end with store_pg_blob_finish_gz, giving the content's
 * size (the reader checks the inflated size against it). */
int store_pg_blob_write_gz(struct store_pg_blob_writer *w, const void *gz, size_t n);
int store_pg_blob_finish_gz(struct store_pg_blob_writer *w, int64_t bytes, int64_t *zbytes);
/* Chunk seq (0, 1, ...) of blob sha256 as stored (a piece of its gzip
 * stream; the chunks' sizes add up to the blob's zbytes): *data (malloc'd,
 * the caller frees) and *n.  STORE_NOT_FOUND when there is no such chunk.
 * One short statement per chunk: a reader that pauses between chunks
 * (an HTTP response) needs no connection meanwhile. */
int store_pg_blob_chunk(struct store_pg *pg, const char *sha256, int64_t seq, void **data,
                        size_t *n);
/* Stream blob sha256 back, byte-exact, to fn in pieces of at most 64 KiB
 * (one chunk row in memory at a time: single-row mode).  fn returning
 * non-zero stops the read with that value.  0 when all was delivered;
 * STORE_NOT_FOUND when no such blob; STORE_ERROR (errmsg) when a chunk is
 * missing or the stream is corrupt or its size differs from the row's. */
int store_pg_blob_read(struct store_pg *pg, const char *sha256,
                       int (*fn)(void *ctx, const void *data, size_t n), void *ctx);
/* Size of blob sha256: *bytes uncompressed, *zbytes stored (either may be
 * NULL).  STORE_NOT_FOUND when absent. */
int store_pg_blob_size(struct store_pg *pg, const char *sha256, int64_t *bytes, int64_t *zbytes);

/* Bulk entry ingest (store/pg/load.c): the entries of one activation log
 * sent with COPY entries FROM STDIN (text format, escaped here), the rows
 * store_entry_add writes on SQLite, in the caller's transaction.  Rows
 * are batched into 256 KiB messages; memory does not grow with the log.
 * On any error the COPY is ended as failed and the caller rolls back. */
struct store_pg_copy;
/* Start the COPY for log_id: the log row is locked (FOR KEY SHARE) until
 * the transaction ends, so it cannot be deleted under the ingest.  0 and
 * *c, STORE_NOT_FOUND when the log does not exist, or a STORE_* code. */
int store_pg_entries_begin(struct store_pg *pg, int64_t log_id, struct store_pg_copy **c);
/* Queue one entry (STORE_INVALID without a key; the log's text must be
 * UTF-8, as the database's encoding is). */
int store_pg_entries_add(struct store_pg_copy *c, const struct matcher_entry *e);
/* End the COPY and free c (always).  *n_rows (may be NULL) = rows the
 * server stored.  A constraint failure is reported here (STORE_DUPLICATE
 * for a repeated ord; STORE_INVALID for text that is not UTF-8).  fail != 0 ends it as failed
 * (nothing stored): the abort path. */
int store_pg_entries_end(struct store_pg_copy *c, int fail, int64_t *n_rows);

/* Wake-ups across daemons (store/pg/notify.c): LISTEN/NOTIFY, one channel
 * per event kind.  A notification is sent when (and only if) the
 * transaction that sent it commits; outside a transaction at once. */
enum store_pg_event {
	STORE_PG_EV_DONE = 0, /* a comparison finished: channel parity_done */
	STORE_PG_EV_QUEUED,   /* a comparison was queued: parity_queued */
	STORE_PG_EV_DELIVERY, /* a webhook delivery was queued: parity_delivery */
	STORE_PG_N_EVENTS
};
/* Send ev with payload (NULL = "", at most 7999 bytes; e.g. the id). */
int store_pg_notify(struct store_pg *pg, enum store_pg_event ev, const char *payload);
/* LISTEN on the channels of the events whose bit (1u << ev) is in mask.
 * Use a connection of its own for waiting (not one that runs jobs). */
int store_pg_listen(struct store_pg *pg, unsigned mask);
/* Wait up to timeout_ms (0: only collect what already arrived) for
 * notifications on a listening connection; fn (may be NULL) is called for
 * each with its event and payload.  The number of notifications (> 0),
 * 0 on timeout, or STORE_ERROR when the connection broke (reconnect,
 * LISTEN again and treat it as a wake-up of every kind: notifications
 * sent meanwhile are lost).  Interrupted by a signal, it keeps waiting
 * for the rest of the time. */
int store_pg_wait(struct store_pg *pg, int timeout_ms,
                  void (*fn)(void *ctx, enum store_pg_event ev, const char *payload), void *ctx);
/* The channel name of ev ("parity_done", ...); NULL when out of range. */
const char *store_pg_channel(enum store_pg_event ev);

/* Webhook delivery claims with a lease (store/pg/deliveries.c), the job
 * pattern of store_pg_job_* on webhook_deliveries: a claim takes the
 * pending delivery due first (next_attempt_at <= now, no live claim) with
 * FOR UPDATE SKIP LOCKED and sets claimed_by = owner, claimed_until = now
 * + lease_ms (server clock, epoch ms).  The lease must exceed the webhook
 * timeout plus a margin: a claim that expires mid-attempt can be taken
 * again, so delivery is at-least-once.  0 and *id, STORE_NOT_FOUND when
 * nothing is due, STORE_INVALID for an empty owner or a lease outside
 * 1..86400000 ms. */
int store_pg_delivery_claim(struct store_pg *pg, const char *owner, int64_t lease_ms, int64_t *id);
/* Extend every claim owner holds to now + lease_ms (the daemon's
 * heartbeat); *n (may be NULL) = how many. */
int store_pg_deliveries_heartbeat_all(struct store_pg *pg, const char *owner, int64_t lease_ms,
                                      int *n);
/* Extend owner's claim of delivery id to now + lease_ms. */
int store_pg_delivery_heartbeat(struct store_pg *pg, int64_t id, const char *owner,
                                int64_t lease_ms);
/* Record one attempt of owner's claimed delivery, as store_delivery_record
 * does on SQLite (outcome "pending" | "delivered" | "failed", the next
 * attempt time in epoch ms, a webhook_attempts row) and drop the claim.
 * STORE_NOT_FOUND when owner does not hold the claim (it expired and
 * another daemon took it): nothing is written. */
int store_pg_delivery_record(struct store_pg *pg, int64_t id, const char *owner, int http_status,
                             const char *error, int64_t duration_ms, const char *outcome,
                             int64_t next_attempt_ms);
/* Drop owner's claim of delivery id unchanged (STORE_NOT_FOUND if not
 * held). */
int store_pg_delivery_release(struct store_pg *pg, int64_t id, const char *owner);
/* Drop every claim owner holds (a daemon's clean shutdown); *n (may be
 * NULL) = how many. */
int store_pg_deliveries_release_owner(struct store_pg *pg, const char *owner, int *n);

#endif
