/* cli_submit.c - `parity submit` (placeholder until the client lands). */
#include <stdio.h>

/* parity submit ...: argv[0] = "submit". */
int srv_cli_submit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "parity submit: not implemented yet\n");
	return 2;
}
