/* test_compare_random.c - randomized check of the matcher on generated
 * pairs: for every gen_actlog.py scenario (and --legacy) and several seeds,
 * every A entry and every B entry appears in exactly one row, no B entry is
 * paired twice, and the pairing (with its method) equals a naive quadratic
 * transcription of matching.md's passes, every paired row compares as
 * matcher_row_compare does on its re-derived entries; the direct row JSON writer
 * equals jansson's output on every generated row.  Needs python3 and tests/tools;
 * logs are written to a mkdtemp directory that is removed afterwards. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "actview.h"
#include "json_act.h"
#include "actcheck.h"
#include "actlog.h"
#include "check.h"
#include "match.h"
#include "rowdoc.h"

static struct matcher_actlog *load(const char *path)
{
	size_t n = 0;
	char *text = check_slurp(path, &n);
	struct matcher_actlog *log = NULL;
	struct matcher_error err;

	if (text && matcher_actlog_parse_buffer(text, n, &log, &err) < 0)
		fprintf(stderr, "%s: %s\n", path, err.message);
	free(text);
	return log;
}

/* Key of entry e for pass p (1 exact, 2 fuzzy, 3 stats), malloc'd. */
static char *naive_key(const struct matcher_entry *e, int p)
{
	struct buf b = BUF_INIT, op = BUF_INIT;
	size_t n = strlen(e->key);
	const char *shape = e->stats[MATCHER_STAT_SHAPE] ? e->stats[MATCHER_STAT_SHAPE] : "";
	const char *hash = e->output_hash              ? e->output_hash
	                   : e->stats[MATCHER_STAT_L1] ? e->stats[MATCHER_STAT_L1]
	                                               : "";

	if (p == 1) {
		buf_puts(&b, e->key + matcher_key_root_len(e->key, n));
	} else if (p == 2) {
		matcher_key_fuzzy(e->key, n, &b);
	} else {
		matcher_key_op_type(e->key, n, &op);
		buf_printf(&b, "%s\x1f%s\x1f%s", op.data, shape, hash);
		buf_reset(&op);
	}
	return buf_take(&b);
}

/* The row writer's document of every row holds exactly that row's values
 * (tests/unit/rowdoc.h). */
static void check_row_json(const char *label, const struct matcher_match_result *r)
{
	struct buf b = BUF_INIT;
	size_t i, n_bad = 0;

	for (i = 0; i < r->n_rows; i++) {
		buf_clear(&b);
		if (web_act_row_append(&b, ROW(r, i)) < 0 ||
		    !rowdoc_check(b.data, b.len, ROW(r, i), 0))
			n_bad++;
	}
	if (n_bad)
		fprintf(stderr, "%s: %zu rows whose JSON differs\n", label, n_bad);
	CHECK_INT(n_bad, 0);
	buf_reset(&b);
}

static void check_pair(const char *label, const struct matcher_actlog *a,
                       const struct matcher_actlog *b, const struct matcher_match_result *r)
{
	size_t na = a->n_entries, nb = b->n_entries, i, j;
	int *seen_a = calloc(na + 1, sizeof(int)), *seen_b = calloc(nb + 1, sizeof(int));
	size_t *want = malloc((na + 1) * sizeof(size_t));
	int *want_m = malloc((na + 1) * sizeof(int)), *claimed = calloc(nb + 1, sizeof(int));
	char **ka = calloc(na + 1, sizeof(char *)), **kb = calloc(nb + 1, sizeof(char *));
	size_t bad_rows = 0, bad_pairs = 0, paired = 0;
	int p;

	/* exactly one row per entry */
	for (i = 0; i < r->n_rows; i++) {
		const struct matcher_row_rec *row = &r->recs[i];
		int has_a = row->a != MATCHER_REC_NONE, has_b = row->b != MATCHER_REC_NONE;

		if (has_a)
			seen_a[row->a]++;
		if (has_b)
			seen_b[row->b]++;
		if (has_a && has_b)
			paired++;
		if ((has_a && has_b) != (row->method != MATCHER_METHOD_NONE))
			bad_rows++;
	}
	for (i = 0; i < na; i++)
		bad_rows += seen_a[i] != 1;
	for (j = 0; j < nb; j++)
		bad_rows += seen_b[j] != 1;
	CHECK_INT(bad_rows, 0);
	CHECK_INT(r->n_rows, na + nb - paired);

	/* the naive transcription: per pass, each unpaired A (file order) takes
	 * the first unclaimed B (file order) with an equal key */
	for (i = 0; i < na; i++)
		want[i] = MATCHER_NO_ROW;
	for (p = 1; p <= 3; p++) {
		for (i = 0; i < na; i++)
			ka[i] = naive_key(ENTRY(a, i), p);
		for (j = 0; j < nb; j++)
			kb[j] = naive_key(ENTRY(b, j), p);
		for (i = 0; i < na; i++) {
			if (want[i] != MATCHER_NO_ROW)
				continue;
			for (j = 0; j < nb; j++) {
				if (!claimed[j] && strcmp(ka[i], kb[j]) == 0) {
					claimed[j] = 1;
					want[i] = j;
					want_m[i] = p;
					break;
				}
			}
		}
		for (i = 0; i < na; i++)
			free(ka[i]);
		for (j = 0; j < nb; j++)
			free(kb[j]);
	}
	/* rows 0..na-1 are A's entries in order */
	for (i = 0; i < na && i < r->n_rows; i++) {
		const struct matcher_row_rec *row = &r->recs[i];
		size_t got = row->b != MATCHER_REC_NONE ? (size_t)row->b : MATCHER_NO_ROW;

		if (row->a != i || got != want[i] ||
		    (got != MATCHER_NO_ROW && (int)row->method != want_m[i])) {
			if (bad_pairs++ < 3)
				fprintf(stderr, "%s: row %zu (%s) differs from the naive pairing\n",
				        label, i, ENTRY(a, i)->key);
		}
	}
	/* a paired row's comparison (made on the records) is what
	 * matcher_row_compare says on the re-derived entries */
	for (i = 0; i < r->n_rows; i++) {
		const struct matcher_row_rec *row = &r->recs[i];
		struct matcher_row cmp;

		if (row->a == MATCHER_REC_NONE || row->b == MATCHER_REC_NONE)
			continue;
		memset(&cmp, 0, sizeof cmp);
		cmp.a = ENTRY(a, row->a);
		cmp.b = ENTRY(b, row->b);
		matcher_row_compare(&cmp);
		if (row->status != cmp.status || row->origin != cmp.origin ||
		    row->shape_differs != cmp.shape_differs ||
		    row->output_hash_distance != cmp.output_hash_distance ||
		    row->input_hash_distance != cmp.input_hash_distance) {
			if (bad_pairs++ < 3)
				fprintf(stderr, "%s: row %zu compares unlike its entries\n", label,
				        i);
		}
	}
	/* the B-only tail is in B order */
	for (i = na + 1; i < r->n_rows; i++) {
		if (r->recs[i].b <= r->recs[i - 1].b)
			bad_pairs++;
	}
	CHECK_INT(bad_pairs, 0);
	free(seen_a);
	free(seen_b);
	free(want);
	free(want_m);
	free(claimed);
	free(ka);
	free(kb);
}

int main(void)
{
	static const char *const scenarios[] = {"identical",    "ulp",     "diverge",
	                                        "eager-traced", "missing", "dtype"};
	char dir[] = "/tmp/parity-random-______";
	char tools[4096], cmd[16384], pa[4200], pb[4200];
	size_t s;
	int seed, legacy, ran = 0;

	check_testfile("tools/gen_actlog.py", tools, sizeof(tools));
	if (access(tools, R_OK) != 0 || !CHECK_MKDTEMP(dir)) {
		fprintf(stderr, "generator %s not available\n", tools);
		CHECK(0);
		return check_report();
	}
	snprintf(pa, sizeof(pa), "%s/a.log", dir);
	snprintf(pb, sizeof(pb), "%s/b.log", dir);
	for (legacy = 0; legacy <= 1; legacy++) {
		for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
			for (seed = 1; seed <= 3; seed++) {
				struct matcher_actlog *a, *b;
				struct matcher_match_result *r = NULL;
				struct matcher_act_verdict v;
				char label[128];

				snprintf(cmd, sizeof(cmd),
				         "python3 '%s' --layers %d --seed %d --scenario %s%s "
				         "--out-a '%s' --out-b '%s'",
				         tools, 1 + seed, seed * 7 + (int)s, scenarios[s],
				         legacy ? " --legacy" : "", pa, pb);
				snprintf(label, sizeof(label), "%s%s seed %d", scenarios[s],
				         legacy ? " legacy" : "", seed);
				CHECK(system(cmd) == 0);
				a = load(pa);
				b = load(pb);
				CHECK(a && b);
				if (a && b && matcher_match(a, b, NULL, &r) == 0) {
					check_pair(label, a, b, r);
					check_row_json(label, r);
					matcher_act_check(r, NULL, &v);
					if (strcmp(scenarios[s], "identical") == 0) {
						CHECK_INT(v.verdict, MATCHER_VERDICT_PASS);
						CHECK_INT(r->summary.n_method[MATCHER_METHOD_EXACT],
						          a->n_entries);
					} else if (strcmp(scenarios[s], "ulp") != 0) {
						CHECK_INT(v.verdict, MATCHER_VERDICT_FAIL);
					}
					ran++;
				} else {
					CHECK(0);
				}
				matcher_match_result_free(r);
				matcher_actlog_free(a);
				matcher_actlog_free(b);
			}
		}
	}
	printf("%d generated pairs checked\n", ran);
	unlink(pa);
	unlink(pb);
	rmdir(dir);
	return check_report();
}
