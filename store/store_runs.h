/* store_runs.h - part of store.h, which includes it (include store.h,
 * never this file alone): runs, their logs, parsed entries, steps and
 * warnings: ingest, reads, the browser's run list and the jobs' replay
 * (store/runs.c, entries.c, steps.c, load.c, lists.c). */
#ifndef PARITY_STORE_RUNS_H
#define PARITY_STORE_RUNS_H

#ifndef PARITY_STORE_H
#error "include store.h"
#endif

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
/* Set what an upload learns only at its end on rows created before it
 * (server/ingest/stage.c inserts a log's entries while the log streams in,
 * under a placeholder rank and digest): the run's name (NULL = "") and
 * meta (NULL = none); a log's rank, raw size and digest.  STORE_NOT_FOUND
 * when the row does not exist; another error when the rank is taken. */
int store_run_set_fields(struct store *st, int64_t run_id, const char *name, const char *meta_json);
int store_log_set_identity(struct store *st, int64_t log_id, int rank, int64_t bytes,
                           const char *sha256_hex);
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
/* Bulk step ingest: store_step_add for the records of one log, in the
 * caller's transaction.  PostgreSQL: NEW records wait in a batch (up to
 * 2048 records, 8192 metric values or 4 MiB of text) that one statement stores
 * (store/arraylit.h; a statement per step and per metric took 30 s for
 * 20k steps of 16 metrics); a COPY or REPLACE record, a repeated key, a
 * full batch and the end send it first.  SQLite: store_step_add per
 * record.  While a bulk is open, run no other statement on st that reads
 * the log's steps: end it first.  On any error the caller ends it as
 * failed and rolls back. */
struct store_steps;
/* Start for log_id: 0 and *out, or a STORE_* code (STORE_NOT_FOUND when
 * the log does not exist, on PostgreSQL). */
int store_steps_begin(struct store *st, int64_t log_id, struct store_steps **out);
/* One record (its metrics are copied where kept). */
int store_steps_add(struct store_steps *b, const struct matcher_step_record *r);
/* Send what waits (unless fail) and free b (NULL: nothing); 0 or a
 * STORE_* code. */
int store_steps_end(struct store_steps *b, int fail);
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
 * store_rawlog_release).  Runs in its own transaction unless one is open. */
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
/* store_runs_list with a filter (f may be NULL; store_comparisons_find
 * takes the same).  Same paging and errors. */
int store_runs_find(struct store *st, const struct store_list_filter *f, int limit,
                    const char *cursor, struct store_run_page *out);

#endif
