/* options.h - one table per command: the option engine of the `parity`
 * binary (room: base; libc and matcher/buf.h only).
 *
 * A command describes each option once (struct srv_option: long name,
 * optional short name, environment variable, type, bounds, default, help
 * text, group) and the engine drives everything from that table: the
 * defaults, the environment, argv, validation with one error wording,
 * the `--help` text and the Markdown reference (server/OPTIONS.md).
 * Values land in the caller's struct at each option's offset.
 *
 * Order of precedence: default < environment < flag (a later flag wins
 * over an earlier one; repeatable options append).  Limits: at most 64
 * options per table; no abbreviated long names; short options take their
 * value as "-oVALUE" or "-o VALUE", they do not combine ("-ab"). */
#ifndef PARITY_OPTIONS_H
#define PARITY_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "buf.h"

enum srv_opt_type {
	SRV_OPT_BOOL,     /* int field; a flag sets 1; values 1/0, true/false, yes/no */
	SRV_OPT_INT,      /* integer field, size 8 or else 4 bytes (signed or not), decimal */
	SRV_OPT_SIZE,     /* bytes: "1024", "64K", "512M", "2G", "1T" (binary units), bounds */
	SRV_OPT_DURATION, /* integer in the field's unit (seconds; SRV_OPT_MS: milliseconds);
	                   * a plain number is in that unit, or ms/s/m/h/d suffixed */
	SRV_OPT_DOUBLE,   /* double field, finite, >= min, and <= max when max > min */
	SRV_OPT_STRING,   /* char[size] (copied) or, size 0, a const char * (borrowed) */
	SRV_OPT_ENUM,     /* a STRING that must be one of choices */
	SRV_OPT_LIST,     /* repeatable: a struct srv_optlist, each value appended */
	SRV_OPT_CUSTOM,   /* nothing stored by the engine: check() parses and stores */
};

/* flags of an option */
#define SRV_OPT_MS       0x1u /* DURATION field counts milliseconds */
#define SRV_OPT_GREEDY   0x2u /* LIST: "--x v1 v2 ..." takes values up to the next "--" */
#define SRV_OPT_ENV_ONLY 0x4u /* no flag: environment variable only (secrets) */
#define SRV_OPT_SECRET   0x8u /* never echo the value in an error message */
#define SRV_OPT_COMMON                                                                             \
	0x10u /* listed by the short `--help`; when a table marks                                  \
	       * any option so, `--help` lists only those and                                      \
	       * `--help-all` every option */

/* The values of a repeatable option, in order: borrowed from argv (the
 * array is the engine's, freed by srv_options_free). */
struct srv_optlist {
	const char **v;
	size_t n, cap;
};

struct srv_option {
	const char *name; /* long name without "--"; NULL ends the table */
	char short_name;  /* 'o' for -o, or 0 */
	const char *env;  /* PARITY_* variable, or NULL */
	enum srv_opt_type type;
	unsigned flags;
	size_t offset;              /* of the field in the caller's struct */
	size_t size;                /* of the field (STRING: its capacity; 0 = const char *) */
	long long min, max;         /* bounds of INT/SIZE/DURATION (in the field's unit), DOUBLE */
	const char *def;            /* default, as a value would be written; NULL = zero/empty */
	const char *metavar;        /* "N", "BYTES", "FILE"; NULL for BOOL */
	const char *help;           /* one sentence or more, wrapped by the engine */
	const char *group;          /* heading in --help / the reference; NULL = the previous one */
	const char *const *choices; /* ENUM: NULL-terminated */
	/* Called after the engine stored val (CUSTOM: instead of storing):
	 * validate, derive, or parse a value of its own shape.  0, or -1 with
	 * the reason in err (without the option's name; empty = "invalid
	 * value"). */
	int (*check)(void *dst, const char *val, char *err, size_t errlen);
};

/* A command: its usage, a paragraph, its table, a closing paragraph. */
struct srv_optcmd {
	const char *name;     /* "serve", "gc", "token" */
	const char *synopsis; /* "usage: parity serve [options]\n" (may be several lines) */
	const char *about;    /* paragraph(s) after the synopsis, or NULL */
	const struct srv_option *opts;
	const char *epilog; /* after the options, or NULL */
};

/* Where an option's value came from. */
enum srv_opt_source { SRV_OPT_FROM_DEFAULT, SRV_OPT_FROM_ENV, SRV_OPT_FROM_FLAG };

/* The result of one parse: operands (borrowed from argv, in order), the
 * source of each option, the error text.  `skip` and `operands_only`
 * are input: a sibling command's table whose options are accepted and
 * ignored, and a mode that only finds the operands (so those of an argv
 * shared by two commands can be found before knowing the command). */
struct srv_optres {
	const struct srv_option *skip;
	int operands_only;     /* input: only find the operands (values not applied, no
	                        * validation, unknown options skipped as flags) */
	const char **operands; /* heap array (srv_options_free) */
	size_t n_operands;
	unsigned char source[64]; /* enum srv_opt_source per option, by table index */
	int help_all;             /* the SRV_OPTS_HELP came from --help-all */
	char err[512];            /* "parity serve: --workers: must be ..." (no newline) */
};

#define SRV_OPTS_HELP 1

/* Fill dst from the table: defaults, then each option's environment
 * variable (when set and not empty), then argv (argv[0] is the command
 * name, not parsed).  "--" ends the options; "-" is an operand.  -h,
 * --help or --help-all (res->help_all set) anywhere before "--" returns
 * SRV_OPTS_HELP at once (the defaults are in place).  Returns 0, SRV_OPTS_HELP, or -1 with res->err
 * set (nothing printed).  Allocates res->operands and LIST arrays: call srv_options_free whatever
 * the result.  Not thread-safe (getenv). */
int srv_options_parse(const struct srv_optcmd *cmd, void *dst, int argc, char **argv,
                      struct srv_optres *res);

/* Free what srv_options_parse allocated in dst (LIST arrays) and res. */
void srv_options_free(const struct srv_optcmd *cmd, void *dst, struct srv_optres *res);

/* The source of option `name` after a parse (SRV_OPT_FROM_DEFAULT when
 * the name is not in the table). */
enum srv_opt_source srv_options_source(const struct srv_optcmd *cmd, const struct srv_optres *res,
                                       const char *name);

/* The `--help` text of cmd, appended to out: with all = 0 and a table
 * that marks options SRV_OPT_COMMON, only those (and a line naming
 * `--help-all`); else every option.  0 or -1 (out of memory). */
int srv_options_help(const struct srv_optcmd *cmd, int all, struct buf *out);

/* Append text word-wrapped to 79 columns, continuation lines indented to
 * col; the cursor is taken to be at col already.  0 or -1. */
int srv_options_wrap(struct buf *out, const char *text, size_t col);

/* srv_options_help (the short form) written to f. */
void srv_options_usage(const struct srv_optcmd *cmd, FILE *f);

/* srv_options_help written to f: every option when res says --help-all
 * (res may be NULL: the short form). */
void srv_options_usage_res(const struct srv_optcmd *cmd, const struct srv_optres *res, FILE *f);

/* The Markdown reference of cmd (a "## parity NAME" section), appended to
 * out.  0 or -1 (out of memory). */
int srv_options_markdown(const struct srv_optcmd *cmd, struct buf *out);

/* Parse a byte size: "1024", "64K", "512M", "2G", "1T" (binary units; an
 * optional "i" and "B" after the letter).  0 or -1. */
int srv_options_parse_bytes(const char *s, unsigned long long *out);

#endif
