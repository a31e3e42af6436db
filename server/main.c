/* main.c - the `parity` binary: dispatch to a subcommand.  Every
 * subcommand lives in its own file and is declared in cli.h. */
#include <stdio.h>
#include <string.h>

#include "pdf.h"
#include "cli.h"
#include "serve.h"

static void usage(FILE *out)
{
	fputs("usage: parity <command> [options]\n"
	      "\n"
	      "parity tells whether two training runs that should agree numerically\n"
	      "really do, and if not, exactly where they diverge.\n"
	      "\n"
	      "commands:\n"
	      "  serve     run the HTTP daemon (uploads, comparisons, API, pages)\n"
	      "  compare   compare two logs offline: activation logs (op matcher) or\n"
	      "            training logs (loss/grad_norm threshold check)\n"
	      "  check     the training check alone (same options as compare)\n"
	      "  submit    CI client: upload two runs to a daemon, compare them under a\n"
	      "            policy, wait for the verdict (exit 0 pass, 1 fail, 2 error,\n"
	      "            3 server unreachable or request refused)\n"
	      "  export    write a training run's loss as a golden loss file\n"
	      "  token     create, list and revoke API tokens\n"
	      "  gc        delete old comparisons and runs and unreferenced raw files\n"
	      "  backup    consistent online copy of the database\n"
	      "\n"
	      "Run `parity <command> --help` for the options of a command.\n",
	      out);
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "serve"))
		return srv_cli_serve(argc - 1, argv + 1);
	if (!strcmp(cmd, "compare"))
		return srv_cli_compare(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return srv_cli_compare_training(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return srv_cli_export(argc - 1, argv + 1);
	if (!strcmp(cmd, "gc"))
		return srv_cli_gc(argc - 1, argv + 1);
	if (!strcmp(cmd, "backup"))
		return srv_cli_backup(argc - 1, argv + 1);
	if (!strcmp(cmd, "token"))
		return srv_cli_token(argc - 1, argv + 1);
	if (!strcmp(cmd, "submit"))
		return srv_cli_submit(argc - 1, argv + 1);
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
