/* main.c - the `parity` binary: dispatch to a subcommand through one
 * table (name, function, one-line help, option table).  Every subcommand
 * lives in its own file and is declared in cli.h; its options are a
 * table of its own (options.h), which `parity help --markdown` turns into
 * the reference server/OPTIONS.md. */
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "buf.h"
#include "pdf.h"
#include "cli.h"
#include "serve.h"

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

/* The subcommands, in the order `parity --help` lists them.  opts: the
 * command's option table for the reference (server/OPTIONS.md). */
static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
	const struct srv_optcmd *opts;
} commands[] = {
        {"serve", srv_cli_serve, "run the HTTP daemon (uploads, comparisons, API, pages)",
         &srv_serve_cmd},
        {"compare", srv_cli_compare,
         "compare two logs offline: activation logs (op matcher) or training logs "
         "(loss/grad_norm threshold check)",
         &srv_compare_cmd},
        {"check", srv_cli_compare_training, "the training check alone (same options as compare)",
         &srv_check_cmd},
        {"submit", srv_cli_submit,
         "CI client: upload two runs to a daemon, compare them under a policy, wait for the "
         "verdict (exit 0 pass, 1 fail, 2 error, 3 server unreachable or request refused)",
         &srv_submit_cmd},
        {"export", srv_cli_export, "write a training run's loss as a golden loss file",
         &srv_export_cmd},
        {"token", srv_cli_token, "create, list and revoke API tokens", &srv_token_cmd},
        {"gc", srv_cli_gc, "delete old comparisons and runs and unreferenced raw files",
         &srv_gc_cmd},
        {"backup", srv_cli_backup, "consistent online copy of the database", &srv_backup_cmd},
        {"version", cmd_version, "print the version (`parity --version` too)", NULL},
        {"help", cmd_help,
         "this list; `parity help CMD` = `parity CMD --help`; `parity help --markdown` writes "
         "the options reference of every command (server/OPTIONS.md)",
         NULL},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *out)
{
	struct buf b = BUF_INIT;
	buf_puts(&b, "usage: parity <command> [options]\n"
	             "\n"
	             "parity tells whether two training runs that should agree numerically\n"
	             "really do, and if not, exactly where they diverge.\n"
	             "\n"
	             "commands:\n");
	for (size_t i = 0; i < N_COMMANDS; i++) {
		buf_printf(&b, "  %-9s ", commands[i].name);
		srv_options_wrap(&b, commands[i].help, 12);
		buf_putc(&b, '\n');
	}
	buf_puts(&b, "\nRun `parity <command> --help` for the options of a command.\n");
	if (b.data)
		fputs(b.data, out);
	buf_reset(&b);
}

#ifndef PARITY_VERSION
#define PARITY_VERSION "0.0.0" /* CMake defines it from project(VERSION) */
#endif
#ifndef PARITY_GIT_DESCRIBE
#define PARITY_GIT_DESCRIBE ""
#endif

/* `parity version` / `parity --version`: "parity X.Y.Z", and the source
 * tree's `git describe` at configure time when there was one. */
static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	if (PARITY_GIT_DESCRIBE[0])
		printf("parity %s (%s)\n", PARITY_VERSION, PARITY_GIT_DESCRIBE);
	else
		printf("parity %s\n", PARITY_VERSION);
	return fflush(stdout) == 0 ? 0 : 2;
}

/* `parity help [--markdown | CMD]`. */
static int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--markdown")) {
		struct buf b = BUF_INIT;
		int rc = buf_puts(&b,
		                  "# parity: options reference\n"
		                  "\n"
		                  "Generated from the option tables in the code by `parity help "
		                  "--markdown`;\n"
		                  "do not edit: the test integration.test_options_doc fails when "
		                  "this file\n"
		                  "and the binary disagree.  Every option is a flag, and where an "
		                  "environment\n"
		                  "variable is named, that variable too (a flag wins over the "
		                  "environment).\n\n"
		                  "| command | what it does |\n|---|---|\n");
		for (size_t i = 0; i < N_COMMANDS; i++)
			rc |= buf_printf(&b, "| `parity %s` | %s |\n", commands[i].name,
			                 commands[i].help);
		rc |= buf_putc(&b, '\n');
		for (size_t i = 0; i < N_COMMANDS; i++)
			if (commands[i].opts)
				rc |= srv_options_markdown(commands[i].opts, &b);
		if (rc == 0)
			fputs(b.data, stdout);
		buf_reset(&b);
		if (rc < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "parity help: cannot write the reference\n");
			return 2;
		}
		return 0;
	}
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(argv[1], commands[i].name) && commands[i].opts) {
			srv_options_usage(commands[i].opts, stdout);
			return 0;
		}
	fprintf(stderr, "parity help: unknown command '%s'\n", argv[1]);
	return 2;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version"))
		return cmd_version(argc - 1, argv + 1);
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "parity: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int rc = run(argc, argv);
	/* every subcommand returns here with its threads joined (none calls
	 * exit()), so the process-wide font caches of the PNG/PDF drawing can
	 * go; LeakSanitizer would report them otherwise */
	web_fonts_release();
	return rc;
}
