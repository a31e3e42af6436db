/* web_int.h - helpers shared by the page renderers of web/ (not part of
 * the public interface): page pieces used by more than one page and the
 * typed reader of the runs' free-form meta.
 *
 * The typed rule of web/: pages, reports (HTML, PDF), CSVs and mail
 * pieces render structs (store.h views, matcher results, the view
 * structs of web.h); JSON is only written by the API serializers
 * (web/json_*.c) and read only by the adapters beside them (web/json_meta.c
 * for the stored meta, web/json_train.c for the request's policy). */
#ifndef PARITY_WEB_INT_H
#define PARITY_WEB_INT_H

#include "web.h"

#define WEB_ACT_LIMIT 200

/* The verdict banner of a typed result: class by verdict, every reason,
 * the policy line.  Training (reasons' text UTF-8-repaired) and
 * activation. */
int web_train_verdict_banner(struct buf *out, const struct store_train_result *res);
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
/* The runs line of a stored comparison (cmp NULL: a CLI report, no links)
 * with the names given (the runs' names, else the logs'; already
 * repaired), then its labels and the two runs' metadata table. */
int web_cmp_runs_line(struct buf *out, const struct store_comparison *cmp, const char *name_a,
                      const char *name_b, enum web_mode mode);
/* The baseline-vs-candidate metadata table (web/meta_table.c):
 * <table id="meta"> of the two runs' stored meta texts (NULL, not JSON or
 * not an object = none) flattened to dotted keys, rows that differ marked
 * class="differs"; nothing when both are empty.  web_cmp_runs_line
 * appends it after the runs line, so every comparison page and report
 * shows it. */
int web_meta_table(struct buf *out, const char *meta_a, const char *meta_b);
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
int web_meta_rows_build(const char *meta_a, const char *meta_b, struct web_meta_rows *out);
void web_meta_rows_free(struct web_meta_rows *m);
/* One run's meta (web/json_meta.c): its top-level keys in stored order,
 * each with its text (a string as is, anything else as compact JSON,
 * is_string telling which); nothing for a missing or non-object meta.
 * Owned by out until web_meta_free.  0, or -1 on OOM (out empty). */
struct web_meta_kv {
	const char *key, *text;
	int is_string;
};
struct web_meta {
	struct web_meta_kv *kv;
	size_t n;
};
int web_meta_read(const char *meta_json, struct web_meta *out);
void web_meta_free(struct web_meta *m);
/* The string value of key (NULL when absent or not a string). */
const char *web_meta_str(const struct web_meta *m, const char *key);
/* The issue 16 labels of a comparison (each NULL when absent):
 * <p id="labels"> "Golden baseline NAME · Suite S, config C", linked to
 * their pages in server mode; nothing when it has neither. */
int web_cmp_labels(struct buf *out, const char *baseline_name, const char *suite,
                   const char *config, enum web_mode mode);

#endif
