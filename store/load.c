/* load.c - replaying a stored log for comparison jobs: the activation log
 * rebuilt in memory exactly as the parser produced it (entries in file
 * order with their lines, header, warnings, counts), training records in
 * (rank, validation, step) order, and warnings through a callback.
 *
 * Strings handed to callbacks point into the current row or a scratch
 * buffer and are valid during the call only.  The big reads (entries,
 * steps, warnings) stream (store_q_stream): on PostgreSQL one row is in
 * memory at a time, and a callback must not run statements on st. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Fill the header of log from its logs row; STORE_NOT_FOUND if missing. */
static int load_header(struct store *st, int64_t log_id, struct matcher_actlog *log)
{
	struct store_q *q =
	        store_stmt(st, SID_LOAD_LOG,
	                   "SELECT header_total, excluded, n_items, n_lines, n_warnings "
	                   "FROM logs WHERE id = ?");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, log_id);
	int rc = store_q_step(q), ret = 0;
	if (rc == STORE_Q_ROW) {
		struct matcher_actlog_header h;
		h.total = store_q_col_isnull(q, 0) ? -1 : (long)store_q_col_i64(q, 0);
		h.excluded = store_q_col_text(q, 1);
		h.has_excluded = h.excluded != NULL;
		if (matcher_actlog_set_header(log, &h) < 0)
			ret = store_fail(st, STORE_ERROR, "out of memory");
		log->header_total = h.total;
		log->summary.header_total = h.total;
		log->summary.n_entries = (size_t)store_q_col_i64(q, 2);
		log->summary.n_lines = (unsigned long)store_q_col_i64(q, 3);
		log->summary.n_warnings = (size_t)store_q_col_i64(q, 4);
	} else if (rc == STORE_Q_DONE) {
		ret = store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	} else {
		ret = store_q_fail(st, rc, "reading the log");
	}
	store_q_done(q);
	return ret;
}

void store_entry_from_cols(struct store_q *q, int c, struct matcher_entry *e)
{
	memset(e, 0, sizeof *e);
	e->order = (size_t)store_q_col_i64(q, c);
	e->line = (unsigned long)store_q_col_i64(q, c + 1);
	e->key = store_q_col_text(q, c + 2);
	e->phase = store_q_col_int(q, c + 3) ? MATCHER_BACKWARD : MATCHER_FORWARD;
	e->stats[MATCHER_STAT_SHAPE] = store_q_col_text(q, c + 4);
	unsigned isnum = (unsigned)store_q_col_int(q, c + 15);
	for (int i = MATCHER_STAT_L1; i < MATCHER_N_STATS; i++) {
		int col = c + 5 + 2 * (i - MATCHER_STAT_L1);
		e->stats[i] = store_q_col_text(q, col);
		e->stat_num[i] = 0;
		/* the number from its text with the parser's own function
		 * (entries.c stores no REAL any more; the REAL column of rows
		 * stored before holds the same value) */
		if (e->stats[i] && (isnum & (1u << i)) &&
		    matcher_parse_number(e->stats[i], store_q_col_bytes(q, col), &e->stat_num[i]))
			e->stat_isnum |= 1u << i;
		else
			e->stat_num[i] = 0;
	}
	e->output_hash = store_q_col_text(q, c + 16);
	e->input_hashes = store_q_col_text(q, c + 17);
	e->input_producers = store_q_col_text(q, c + 18);
	e->location = store_q_col_text(q, c + 19);
}

static int load_entries(struct store *st, int64_t log_id, struct matcher_actlog *log)
{
	struct store_q *q =
	        store_stmt(st, SID_LOAD_ENTRIES,
	                   "SELECT " STORE_ENTRY_COLS("e") " FROM entries e "
	                                                   "WHERE e.log_id = ? ORDER BY e.ord");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, log_id);
	store_q_stream(q); /* every entry of the log: millions of rows */
	int rc, ret = 0;
	while ((rc = store_q_step(q)) == STORE_Q_ROW) {
		struct matcher_entry e;
		store_entry_from_cols(q, 0, &e);
		if (!e.key || matcher_actlog_add_entry(log, &e) < 0) {
			ret = store_fail(st, STORE_ERROR, "out of memory");
			break;
		}
	}
	if (ret == 0 && rc != STORE_Q_DONE)
		ret = store_q_fail(st, rc, "reading entries");
	store_q_done(q);
	return ret;
}

/* Warning codes the parsers emit: matcher_warning.code is documented as a
 * static string, so replayed warnings point at these when they match. */
static const char *const known_codes[] = {
        "unknown_line",   "unclosed_key",   "bad_number",     "duplicate_key",  "count_mismatch",
        "no_header",      "malformed_line", "duplicate_step", "step_backwards", "error_line",
        "truncated_line", "unknown_phase",  "empty_key",
};

static const char *static_code(const char *code)
{
	for (size_t i = 0; i < sizeof known_codes / sizeof known_codes[0]; i++)
		if (strcmp(code, known_codes[i]) == 0)
			return known_codes[i];
	return NULL;
}

static int add_warning_cb(void *ctx, const struct matcher_warning *w)
{
	struct matcher_actlog *log = ctx;
	struct matcher_warning copy = *w;
	/* the log keeps the code pointer: make it outlive the row */
	const char *sc = static_code(w->code);
	copy.code = sc ? sc : arena_strdup(&log->arena, w->code);
	if (!copy.code)
		return -1;
	return matcher_actlog_add_warning(log, &copy) < 0 ? -1 : 0;
}

int store_actlog_load(struct store *st, int64_t log_id, struct matcher_actlog **out)
{
	int rc;
	struct matcher_actlog *log = matcher_actlog_new();
	*out = NULL;
	if (!log)
		return store_fail(st, STORE_ERROR, "out of memory");
	if ((rc = load_header(st, log_id, log)) < 0)
		goto done;
	if ((rc = load_entries(st, log_id, log)) < 0)
		goto done;
	matcher_actlog_seal(log);
	rc = store_warnings_foreach(st, log_id, add_warning_cb, log);
	if (rc > 0 || rc == -1)
		rc = store_fail(st, STORE_ERROR, "out of memory");
	if (rc < 0)
		goto done;
	*out = log;
	log = NULL;
done:
	matcher_actlog_free(log);
	return rc;
}

/* Known codes are handed out as static strings, others point into the row
 * (valid during the callback, like message and excerpt). */
int store_warnings_foreach(struct store *st, int64_t log_id,
                           int (*cb)(void *ctx, const struct matcher_warning *w), void *ctx)
{
	struct store_q *q = store_stmt(st, SID_LOAD_WARNINGS,
	                               "SELECT code, line, message, excerpt FROM warnings "
	                               "WHERE log_id = ? ORDER BY id");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, log_id);
	store_q_stream(q);
	int rc, ret = 0;
	while ((rc = store_q_step(q)) == STORE_Q_ROW) {
		struct matcher_warning w;
		w.code = store_q_col_text(q, 0);
		if (w.code && static_code(w.code))
			w.code = static_code(w.code);
		w.line = (unsigned long)store_q_col_i64(q, 1);
		w.message = store_q_col_text(q, 2);
		w.excerpt = store_q_col_text(q, 3);
		if ((ret = cb(ctx, &w)) != 0)
			break;
	}
	if (ret == 0 && rc != STORE_Q_DONE)
		ret = store_q_fail(st, rc, "reading warnings");
	store_q_done(q);
	return ret;
}

/* ---- training replay ----------------------------------------------------- */

struct metric_slot {
	size_t name_off, text_off;
	double value;
	int decimals;
	int prec;
};

/* Hand the accumulated step to cb; strings live in text. */
static int flush_step(struct matcher_step_record *r, struct buf *text, struct metric_slot *slots,
                      size_t n, struct matcher_metric_value **mv, size_t *mv_cap,
                      int (*cb)(void *ctx, const struct matcher_step_record *r), void *ctx)
{
	if (n > *mv_cap) {
		struct matcher_metric_value *nv = realloc(*mv, n * sizeof *nv);
		if (!nv)
			return -1;
		*mv = nv;
		*mv_cap = n;
	}
	for (size_t i = 0; i < n; i++) {
		(*mv)[i].name = text->data + slots[i].name_off;
		(*mv)[i].text = text->data + slots[i].text_off;
		(*mv)[i].value = slots[i].value;
		(*mv)[i].decimals = slots[i].decimals;
		(*mv)[i].prec = slots[i].prec;
	}
	r->metrics = *mv;
	r->n_metrics = n;
	return cb(ctx, r);
}

int store_steps_foreach(struct store *st, int64_t log_id,
                        int (*cb)(void *ctx, const struct matcher_step_record *r), void *ctx)
{
	struct buf text = BUF_INIT;
	struct metric_slot *slots = NULL;
	struct matcher_metric_value *mv = NULL;
	size_t n_slots = 0, cap_slots = 0, mv_cap = 0;
	int64_t cur_id = -1;
	struct matcher_step_record r;
	int rc, ret = 0;
	memset(&r, 0, sizeof r);

	/* the log must exist (an empty log replays nothing) */
	struct store_q *q = store_stmt(st, SID_LOG_RANK, "SELECT rank FROM logs WHERE id = ?");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, log_id);
	rc = store_q_step(q);
	store_q_done(q);
	if (rc == STORE_Q_DONE)
		return store_fail(st, STORE_NOT_FOUND, "log %lld not found", (long long)log_id);
	if (rc != STORE_Q_ROW)
		return store_q_fail(st, rc, "reading the log");

	q = store_stmt(st, SID_LOAD_STEPS,
	               "SELECT s.id, s.rank, s.validation, s.step, s.line, m.name, m.text, "
	               "m.value, m.decimals, m.prec FROM steps s "
	               "LEFT JOIN step_metrics m ON m.step_id = s.id WHERE s.log_id = ? "
	               "ORDER BY s.rank, s.validation, s.step, m.pos");
	if (!q)
		return STORE_ERROR;
	store_q_bind_i64(q, 1, log_id);
	store_q_stream(q); /* every metric of the log */
	while ((rc = store_q_step(q)) == STORE_Q_ROW) {
		int64_t id = store_q_col_i64(q, 0);
		if (id != cur_id) {
			if (cur_id >= 0 && (ret = flush_step(&r, &text, slots, n_slots, &mv,
			                                     &mv_cap, cb, ctx)) != 0)
				goto done;
			cur_id = id;
			n_slots = 0;
			buf_clear(&text);
			r.rank = store_q_col_int(q, 1);
			r.validation = store_q_col_int(q, 2);
			r.step = (long)store_q_col_i64(q, 3);
			r.line = (unsigned long)store_q_col_i64(q, 4);
			r.kind = MATCHER_STEP_NEW;
		}
		if (store_q_col_isnull(q, 5))
			continue; /* a step without metrics */
		if (n_slots == cap_slots) {
			size_t ncap = cap_slots ? cap_slots * 2 : 16;
			struct metric_slot *ns = realloc(slots, ncap * sizeof *ns);
			if (!ns)
				goto oom;
			slots = ns;
			cap_slots = ncap;
		}
		struct metric_slot *m = &slots[n_slots++];
		m->name_off = text.len;
		if (buf_puts(&text, store_q_col_text(q, 5)) < 0 || buf_putc(&text, 0) < 0)
			goto oom;
		m->text_off = text.len;
		if (buf_puts(&text, store_q_col_text(q, 6)) < 0 || buf_putc(&text, 0) < 0)
			goto oom;
		m->value = store_q_col_isnull(q, 7) ? NAN : store_q_col_double(q, 7);
		m->decimals = store_q_col_int(q, 8);
		m->prec = store_q_col_int(q, 9);
	}
	if (rc != STORE_Q_DONE) {
		ret = store_q_fail(st, rc, "reading steps");
		goto done;
	}
	if (cur_id >= 0)
		ret = flush_step(&r, &text, slots, n_slots, &mv, &mv_cap, cb, ctx);
	goto done;
oom:
	ret = store_fail(st, STORE_ERROR, "out of memory");
done:
	store_q_done(q);
	buf_reset(&text);
	free(slots);
	free(mv);
	return ret;
}
