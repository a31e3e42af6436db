/* web_int.h - helpers shared by the page renderers of web/ (not part of
 * the public interface): borrowed JSON lookups with defaults and a few
 * page pieces used by more than one page. */
#ifndef PARITY_WEB_INT_H
#define PARITY_WEB_INT_H

#include <jansson.h>

#include "web.h"

#define WEB_ACT_LIMIT 200

/* o[k] as a string (NULL when missing or not a string); borrowed. */
static inline const char *wj_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* o[k] as an integer, or dflt. */
static inline long long wj_int(json_t *o, const char *k, long long dflt)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

/* A JSON number, or the train_json strings "Infinity"/"-Infinity"/"NaN";
 * null/missing gives NaN and sets *missing (may be NULL). */
double wj_num(json_t *v, int *missing);

/* Verdict banner for a comparison result: class by verdict, reasons list,
 * policy line.  Both kinds. */
int web_verdict_banner(struct buf *out, json_t *cmp, json_t *result);
/* The same from a typed activation result (its verdict, reasons and
 * policy). */
int web_act_verdict_banner(struct buf *out, const struct store_act_result *res);

/* One side of the "baseline vs candidate" line: linked = the run exists
 * (server mode links it), name NULL when unknown. */
struct web_run_ref {
	long long id;
	const char *name;
	int linked;
};
/* The "baseline vs candidate" line with links (server mode), and
 * " · finished <finished_at>" when it is not NULL. */
int web_runs_line_of(struct buf *out, const struct web_run_ref *a, const struct web_run_ref *b,
                     const char *finished_at, enum web_mode mode);
/* The same from a comparison document (its runs, else the result's names). */
int web_runs_line(struct buf *out, json_t *cmp, enum web_mode mode);
/* The baseline-vs-candidate metadata table (web/meta_table.c):
 * <table id="meta"> of the two meta objects (borrowed; NULL or not an
 * object = none) flattened to dotted keys, rows that differ marked
 * class="differs"; nothing when both are empty.  web_runs_line appends it
 * after the runs line, so every comparison page and report shows it. */
int web_meta_table(struct buf *out, json_t *meta_a, json_t *meta_b);
/* The same merged key list typed: one row per key of either side in key
 * order (a / b NULL where that side lacks the key; differs set when the
 * values differ or a side lacks it), n_diff such rows, dropped keys past
 * WEB_META_KEYS a side.  Strings owned by out until web_meta_rows_free.
 * 0, or -1 on OOM (out then empty). */
#define WEB_META_KEYS 200
struct web_meta_row {
	const char *key, *a, *b;
	int differs;
};
struct web_meta_rows {
	struct web_meta_row *rows;
	size_t n, n_diff, dropped;
	void *priv;
};
int web_meta_rows_build(json_t *meta_a, json_t *meta_b, struct web_meta_rows *out);
void web_meta_rows_free(struct web_meta_rows *m);
/* The issue 16 labels of a comparison (each NULL when absent):
 * <p id="labels"> "Golden baseline NAME · Suite S, config C", linked to
 * their pages in server mode; nothing when it has neither. */
int web_cmp_labels(struct buf *out, const char *baseline_name, const char *suite,
                   const char *config, enum web_mode mode);

#endif
