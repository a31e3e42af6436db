/* cli.h - the subcommands of the `parity` binary.  Each takes the argv
 * tail starting at the subcommand name (argv[0] = "compare", ...) and
 * returns the process exit status.  main.c only dispatches. */
#ifndef PARITY_CLI_H
#define PARITY_CLI_H

#include <jansson.h>
#include <stddef.h>

#include "actlog.h"
#include "base.h"

/* The option table of each subcommand (options.h), for its --help and
 * the reference `parity help --markdown` writes (server/OPTIONS.md). */
extern const struct srv_optcmd srv_compare_cmd, srv_check_cmd, srv_submit_cmd, srv_export_cmd,
        srv_token_cmd, srv_gc_cmd, srv_backup_cmd;

/* --data DIR / --db URL of the commands that open the store directly
 * (gc, backup, token): two rows of a table over struct T whose
 * const char * fields data and db receive them. */
#define SRV_CLI_STORE_OPTIONS(T)                                                                   \
	{.name = "data",                                                                           \
	 .env = "PARITY_DATA",                                                                     \
	 .type = SRV_OPT_STRING,                                                                   \
	 .offset = offsetof(T, data),                                                              \
	 .def = "./parity-data",                                                                   \
	 .metavar = "DIR",                                                                         \
	 .help = "the daemon's data directory."},                                                  \
	{                                                                                          \
		.name = "db", .env = "PARITY_DB", .type = SRV_OPT_STRING, .flags = SRV_OPT_SECRET, \
		.offset = offsetof(T, db), .metavar = "URL",                                       \
		.help = "a postgresql:// database instead of --data."                              \
	}

/* parity compare A B: offline comparison (server/cli/cli_compare.c).  Detects
 * the kind of both logs; activation logs are matched here, training logs
 * are handed to srv_cli_compare_training with the same argv.
 * Exit 0 pass, 1 fail, 2 error. */
int srv_cli_compare(int argc, char **argv);

/* parity compare for two training logs (server/cli/cli_train.c); also reached
 * as `parity check`.  Exit 0 pass, 1 fail, 2 error. */
int srv_cli_compare_training(int argc, char **argv);

/* Stream one training log (stdout, event file or golden loss file) into a
 * new run keeping pol's metrics (cli_train.c); chunk: a 1 MiB scratch
 * buffer.  A DL Framework Inspect statistics log keeps every series, its
 * rank from a globalrank-N path, and sets *stats (when not NULL) to 1.
 * 0, or -1 with *err set (code "io" for a read failure). */
struct matcher_trainrun;
struct matcher_train_policy;
struct matcher_error;
int srv_cli_train_load(const char *path, const struct matcher_train_policy *pol,
                       struct matcher_trainrun **out, struct matcher_error *err, char *chunk,
                       int *stats);
/* Print doc (stolen; NULL = OOM) on stdout as the CLI's JSON: indented,
 * ASCII, 15 digits.  0, or -1. */
int srv_cli_print_json(json_t *doc);
/* `parity compare M1 ... MK CAND` (cli_noise.c): the candidate (the last
 * path) against the baseline set of the others under the noise policy
 * pol; format text|json|csv.  Exit 0 pass (identical or within_noise), 1
 * fail (regression), 2 error. */
int srv_cli_compare_noise(const char *cmd, const char *const *paths, size_t n,
                          const struct matcher_train_policy *pol, const char *format,
                          const char *out);

/* The offline commands' exit status of a verdict: 0 pass, 1 fail, 2
 * error (cli_error.c). */
int srv_cli_verdict_exit(int verdict);

/* Write b to stdout and clear it once it holds 64 KiB (all: whatever it
 * holds): the streamed CSV outputs (cli_error.c). */
struct buf;
void srv_cli_spill(struct buf *b, int all);

/* The offline commands' error path (server/cli/cli_error.c): srv_cli_fail
 * prints to stderr (printf format, "parity ...: what\n") and keeps the
 * text; srv_cli_last_error returns it (or a generic sentence).  With
 * --format json (srv_cli_wants_json scans argv) a command that cannot
 * produce its result still prints exactly one JSON document on stdout,
 * srv_cli_json_error: {"kind": kind|null, "verdict": "error", "reasons":
 * [{"code", "message", "side"?}]}.  0, or -1 on OOM / write error. */
void srv_cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *srv_cli_last_error(void);
int srv_cli_wants_json(int argc, char **argv);
int srv_cli_json_error(const char *kind, const char *code, const char *side, const char *message);

/* parity token create|list|revoke (server/cli/cli_token.c). */
int srv_cli_token(int argc, char **argv);

/* parity submit: the CI client (server/cli/cli_submit.c).  Exit 0 pass, 1 fail,
 * 2 error, 3 server unreachable or request refused. */
int srv_cli_submit(int argc, char **argv);

/* The outcome of `parity submit` for CI systems (server/cli/cli_ci.c). */
struct srv_cli_ci {
	json_t *comparison;   /* the finished comparison (GET /comparisons/ID), borrowed;
	                       * NULL when none was made */
	const char *page_url; /* its page, or "" */
	int exit_code;        /* the command's: 0 pass, 1 fail, 2 error, 3 server */
	const char *error;    /* why there is no verdict (exit code 2 or 3) */
};
/* --junit FILE: JUnit XML (testsuites > testsuite > testcase): one
 * testcase per metric (training) or rank (activation), a <failure> with
 * the reasons of each failing one, an <error> testcase when the command
 * ended in an error, the comparison URL and runs as properties.  Every
 * value is escaped for XML (control characters dropped).  0, or -1
 * (printed) when FILE cannot be written. */
int srv_cli_ci_junit(const struct srv_cli_ci *ci, const char *path);
/* --markdown FILE ("-" = stdout): a summary for a PR comment or a step
 * summary: verdict, runs, link, one table row per metric or rank with the
 * failing ones marked.  Cells are escaped (| and HTML).  0, or -1. */
int srv_cli_ci_markdown(const struct srv_cli_ci *ci, const char *path);

/* parity gc / parity backup (server/cli/cli_admin.c). */
/* `parity export RUN --format losses` (cli_export.c): a golden loss file
 * from a log file or a daemon's run. */
int srv_cli_export(int argc, char **argv);
/* Is path a readable golden loss file (regular file, parses as one)?  0,
 * or -1 with "<who>: ..." printed (the line of a bad line). */
int srv_cli_golden_file_ok(const char *path, const char *who);

/* The meta object of `parity submit --meta-file F --meta k=v ...`
 * (cli_submit.c): F's JSON object (at most SRV_CLI_META_MAX bytes; NULL =
 * start empty), then each k=v as a string where the dots of k nest
 * objects ("env.torch=2.3" sets {"env":{"torch":"2.3"}}), overriding.  A
 * new reference, or NULL with the reason printed under prog's name. */
#define SRV_CLI_META_MAX (64 * 1024)
json_t *srv_cli_meta_build(const char *meta_file, const char *const *kv, size_t n_kv,
                           const char *prog);
/* The event files of a TensorBoard folder, in rank order: its
 * events.out.tfevents.* files by name, else for each rank_N folder (by N)
 * the last of its event files by name.  push(ctx, path) for each; 0, or
 * -1 (message printed, or push failed). */
int srv_cli_tfevents_dir(const char *dir, void *ctx, int (*push)(void *ctx, const char *path));
/* msprobe dump trees (cli_msprobe.c).  A `rankR` folder of dir holding a
 * dump.json: R and *path (malloc'ed "dir/rankR/dump.json"), else -1. */
int srv_cli_msprobe_rank_dir(const char *dir, const char *name, char **path);
/* The file `name` beside a file named dump.json (malloc'ed path), or NULL
 * when path is no dump.json or there is no such file. */
char *srv_cli_msprobe_beside(const char *path, const char *name);
/* A step folder's dumps (rankR/dump.json), in rank order: push(ctx,
 * path) for each.  0 (none found: nothing pushed), or -1. */
int srv_cli_msprobe_step_files(const char *dir, void *ctx,
                               int (*push)(void *ctx, const char *path));
/* Is name a `stepN` folder name? */
int srv_cli_msprobe_is_step_dir(const char *name);
/* The stack.json beside a file named dump.json, parsed: 0 and *out (NULL
 * when there is none), or -1 with "<who>: ..." printed. */
struct matcher_msprobe_stack;
int srv_cli_msprobe_stack_beside(const char *path, const char *who,
                                 struct matcher_msprobe_stack **out);
/* Activation callbacks that give each entry its location from stack
 * (inner unchanged when stack is NULL); w must outlive the parse. */
struct srv_cli_msprobe_cb {
	struct matcher_actlog_callbacks inner;
	const struct matcher_msprobe_stack *stack;
};
struct matcher_actlog_callbacks srv_cli_msprobe_wrap(struct srv_cli_msprobe_cb *w);
int srv_cli_gc(int argc, char **argv);
int srv_cli_backup(int argc, char **argv);

#endif
