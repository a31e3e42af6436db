/* replay_main.c - main() for the corpus replay executables: feeds every
 * file named on the command line, or found (non-recursively, sorted) in a
 * directory named there, through the target's LLVMFuzzerTestOneInput once.
 *
 * Built with the normal compiler and flags, without libFuzzer, so every
 * build's ctest re-runs the committed corpus and the saved regressions.
 * A missing directory is skipped (regressions/<target>/ exists only once
 * something was found); an unreadable file fails the run.  A failed check
 * aborts inside the target, after the file's name was printed. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	long len;
	int rc = -1;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		goto done;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto done;
	data = malloc(len ? (size_t)len : 1);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len)
		goto done;
	fprintf(stderr, "replay: %s (%ld bytes)\n", path, len);
	/* data is an exact-size block, so ASan sees reads past the end */
	LLVMFuzzerTestOneInput(data, (size_t)len);
	rc = 0;
done:
	if (rc < 0 && f)
		fprintf(stderr, "replay: %s: read failed\n", path);
	free(data);
	if (f)
		fclose(f);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file in dir; *n counts them.  0 or -1. */
static int replay_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n_names = 0, cap = 0, i;
	int rc = -1;

	if (!d) {
		if (errno == ENOENT) {
			fprintf(stderr, "replay: %s: absent, skipped\n", dir);
			return 0;
		}
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (n_names == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			char **nn = realloc(names, ncap * sizeof(*nn));

			if (!nn)
				goto done;
			names = nn;
			cap = ncap;
		}
		if (asprintf(&names[n_names], "%s/%s", dir, de->d_name) < 0)
			goto done;
		n_names++;
	}
	qsort(names, n_names, sizeof(*names), cmp_names);
	for (i = 0; i < n_names; i++) {
		struct stat st;

		if (stat(names[i], &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (replay_file(names[i]) < 0)
			goto done;
		(*n)++;
	}
	rc = 0;
done:
	for (i = 0; i < n_names; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(argv[i]) < 0)
				return 1;
			n++;
		} else if (replay_dir(argv[i], &n) < 0) {
			return 1;
		}
	}
	printf("replayed %zu inputs\n", n);
	return 0;
}
