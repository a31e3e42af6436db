/* cli_train.c - placeholder so the tree links while the training check is
 * being written; replaced by the real implementation. */
#include <stdio.h>

#include "cli.h"

int srv_cli_compare_training(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "parity: training comparison not built yet\n");
	return 2;
}
