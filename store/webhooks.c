/* webhooks.c - webhooks, their delivery queue and the record of every
 * attempt.
 *
 * A delivery is a row that a sender claims with a lease (one UPDATE ...
 * RETURNING, so several sender threads, or later several daemons, cannot
 * take the same row), attempts, and then records the outcome together with
 * the attempt in one transaction.  A sender that dies mid-attempt leaves
 * only a lease, which expires (or is cleared at start-up), so the delivery
 * goes out again: at-least-once, as webhook receivers expect.
 *
 * Scheduling times are epoch milliseconds supplied by the caller (tests
 * drive the clock); display times are formatted by SQLite.  Statements
 * are prepared per call (see auth.c for why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Statement texts with per-backend fragments (STORE_SQL_D, stmt.h) */
#define Q_HOOK_INSERT(d)                                                                           \
	"INSERT INTO webhooks(url, secret, events, format, token, recipients, created_at) "        \
	"VALUES (?, ?, ?, ?, ?, ?, " NOW_##d ") RETURNING id"
/* the webhooks whose events (a JSON array of strings) hold ?: the quoted
 * name must match exactly */
#define EVENTS_LITE "json_each(webhooks.events) AS ev"
#define EVENTS_PG   "jsonb_array_elements_text(webhooks.events::jsonb) AS ev(value)"
#define Q_HOOKS_FOR_EVENT(d)                                                                       \
	"SELECT id, url, secret, format, token, recipients FROM webhooks WHERE EXISTS ("           \
	"SELECT 1 FROM " EVENTS_##d " WHERE ev.value = ?) ORDER BY id"
#define Q_DELIVERY_INSERT(d)                                                                       \
	"INSERT INTO webhook_deliveries(webhook_id, comparison_id, event, url, payload, "          \
	"next_attempt_at, created_at) VALUES (?, ?, ?, '', '', ?, " NOW_##d ") RETURNING id"
#define Q_DELIVERY_GIVE_UP(d)                                                                      \
	"UPDATE webhook_deliveries SET status = 'failed', last_error = ?, claimed_until = NULL, "  \
	"finished_at = " NOW_##d " WHERE id = ?"
#define Q_NEXT_DUE(d)                                                                              \
	"SELECT min(" MAX2_##d "(next_attempt_at, coalesce(claimed_until, 0))) "                   \
	                       "FROM webhook_deliveries WHERE status = 'pending'"
#define Q_DELIVERY_RECORD(d)                                                                       \
	"UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, " \
	"claimed_until = NULL, last_error = ?, finished_at = CASE WHEN ? = 'pending' THEN NULL "   \
	"ELSE " NOW_##d " END WHERE id = ?"
#define Q_ATTEMPT_INSERT(d)                                                                        \
	"INSERT INTO webhook_attempts(delivery_id, at, http_status, error, duration_ms) "          \
	"VALUES (?, " NOW_MS_##d ", ?, ?, ?)"
/* epoch milliseconds as RFC 3339 UTC text with milliseconds */
#define MS_TEXT_LITE(x) "strftime('%Y-%m-%dT%H:%M:%fZ', " x " / 1000.0, 'unixepoch')"
#define MS_TEXT_PG(x)                                                                              \
	"to_char(to_timestamp(" x                                                                  \
	" / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
#define Q_DELIVERIES_PAGE(d)                                                                       \
	"SELECT id, comparison_id, event, url, status, attempts, CASE WHEN status = 'pending' "    \
	"THEN " MS_TEXT_##d("next_attempt_at") " END, last_error, created_at, finished_at "        \
	                                       "FROM webhook_deliveries WHERE webhook_id = ? AND " \
	                                       "id < ? ORDER BY id DESC LIMIT ?"

#define prep store_prep

static char *col_dup(struct store_q *s, int col)
{
	if (store_q_col_isnull(s, col))
		return NULL;
	const char *t = store_q_col_text(s, col);
	return strdup(t ? t : "");
}

/* The strings of a stored JSON array text (event names, recipients; none
 * when NULL or not an array) into the arena as *out, *n.  0, or -1 on OOM. */
static int strings_split(struct arena *a, const char *text, const char ***out, size_t *n_out,
                         size_t *bytes)
{
	json_t *j = text ? json_loads(text, 0, NULL) : NULL;
	size_t i, n = json_is_array(j) ? json_array_size(j) : 0;
	json_t *v;
	int bad = 0;
	*n_out = 0;
	*out = arena_alloc(a, (n ? n : 1) * sizeof **out);
	bad |= !*out;
	json_array_foreach(j, i, v)
	{
		if (bad || !json_is_string(v))
			continue;
		const char *e = arena_strndup(a, json_string_value(v), json_string_length(v));
		bad |= !e;
		(*out)[(*n_out)++] = e;
		*bytes += json_string_length(v) + 3;
	}
	json_decref(j);
	return bad ? -1 : 0;
}

/* ---- webhooks ------------------------------------------------------------ */

int store_webhook_create(struct store *st, const char *url, const char *secret,
                         const char *events_json, const char *format, const char *token,
                         const char *recipients_json, int64_t *id)
{
	if (!url || !*url || !events_json || !format)
		return store_fail(st, STORE_INVALID, "url, events and format are required");
	if (strcmp(format, "generic") && strcmp(format, "github-status") && strcmp(format, "email"))
		return store_fail(st, STORE_INVALID,
		                  "format must be generic, github-status or email");
	if (!strcmp(format, "email") != (recipients_json != NULL))
		return store_fail(st, STORE_INVALID, "recipients are for (and required by) email");
	struct store_q *s = prep(st, STORE_SQL_D(Q_HOOK_INSERT));
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, url);
	store_q_bind_text(s, 2, secret ? secret : "");
	store_q_bind_text(s, 3, events_json);
	store_q_bind_text(s, 4, format);
	store_q_bind_text(s, 5, token);
	store_q_bind_text(s, 6, recipients_json);
	int64_t new_id;
	int rc = store_q_run_id(s, &new_id);
	if (rc != STORE_Q_ROW)
		return store_q_fail(st, rc, "creating the webhook");
	if (id)
		*id = new_id;
	return 0;
}

#define HOOK_PUBLIC_COLS                                                                           \
	"id, url, events, format, secret <> '', token IS NOT NULL, created_at, recipients"

/* Public view of a webhook row (HOOK_PUBLIC_COLS): never the secrets. */
static int hook_from_cols(struct store *st, struct arena *a, struct store_q *s,
                          struct store_webhook_public *h, size_t *bytes)
{
	int bad = 0;
	memset(h, 0, sizeof *h);
	h->id = store_q_col_i64(s, 0);
	h->url = store_q_col_dup(a, s, 1, bytes, &bad);
	bad |= strings_split(a, store_q_col_text(s, 2), &h->events, &h->n_events, bytes) < 0;
	snprintf(h->format, sizeof h->format, "%s", store_q_col_text(s, 3));
	h->has_secret = store_q_col_int(s, 4) != 0;
	h->has_token = store_q_col_int(s, 5) != 0;
	h->created_at = store_q_col_dup(a, s, 6, bytes, &bad);
	bad |= strings_split(a, store_q_col_text(s, 7), &h->to, &h->n_to, bytes) < 0;
	return bad ? store_fail(st, STORE_ERROR, "out of memory") : 0;
}

void store_webhook_view_free(struct store_webhook_view *v)
{
	if (!v)
		return;
	arena_reset(&v->arena);
	memset(v, 0, sizeof *v);
}

int store_webhook_get(struct store *st, int64_t id, struct store_webhook_view *out)
{
	size_t bytes = 0;
	memset(out, 0, sizeof *out);
	struct store_q *s = prep(st, "SELECT " HOOK_PUBLIC_COLS " FROM webhooks WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s);
	if (rc == STORE_Q_ROW)
		rc = hook_from_cols(st, &out->arena, s, &out->hook, &bytes);
	else if (rc == STORE_Q_DONE)
		rc = store_fail(st, STORE_NOT_FOUND, "webhook %lld not found", (long long)id);
	else
		rc = store_q_fail(st, rc, "reading the webhook");
	store_q_done(s);
	return rc;
}

void store_webhook_page_free(struct store_webhook_page *p)
{
	if (!p)
		return;
	free(p->hooks);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

static int hook_item(struct store *st, struct store_q *s, void *ctx, size_t *bytes)
{
	struct store_webhook_page *p = ctx;
	struct store_webhook_public *nv = realloc(p->hooks, (p->n_hooks + 1) * sizeof *nv);
	if (!nv)
		return store_fail(st, STORE_ERROR, "out of memory");
	p->hooks = nv;
	*bytes += 256;
	return hook_from_cols(st, &p->arena, s, &p->hooks[p->n_hooks++], bytes);
}

static void hook_drop(void *ctx)
{
	((struct store_webhook_page *)ctx)->n_hooks--;
}

int store_webhooks_list(struct store *st, int limit, const char *cursor,
                        struct store_webhook_page *out)
{
	memset(out, 0, sizeof *out);
	return store_q_list_after_id(
	        st, "SELECT " HOOK_PUBLIC_COLS " FROM webhooks WHERE id > ? ORDER BY id LIMIT ?",
	        cursor, 'h', limit, hook_item, hook_drop, out, "listing webhooks",
	        out->next_cursor);
}

int store_webhook_delete(struct store *st, int64_t id)
{
	struct store_q *s = prep(st, "DELETE FROM webhooks WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "deleting the webhook");
	if (changed == 0)
		return store_fail(st, STORE_NOT_FOUND, "webhook %lld not found", (long long)id);
	return 0;
}

void store_webhooks_free(struct store_webhook *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		free(v[i].url);
		free(v[i].secret);
		free(v[i].token);
		free(v[i].recipients);
	}
	free(v);
}

int store_webhooks_for_event(struct store *st, const char *event, struct store_webhook **out,
                             size_t *n)
{
	*out = NULL;
	*n = 0;
	/* events is a JSON array of strings: match the quoted name exactly */
	struct store_q *s = prep(st, STORE_SQL_D(Q_HOOKS_FOR_EVENT));
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, event);
	struct store_webhook *v = NULL;
	size_t len = 0, cap = 0;
	int rc, out_rc = 0;
	while ((rc = store_q_step(s)) == STORE_Q_ROW) {
		if (len == cap) {
			size_t nc = cap ? cap * 2 : 4;
			struct store_webhook *nv = realloc(v, nc * sizeof *nv);
			if (!nv) {
				out_rc = store_fail(st, STORE_ERROR, "out of memory");
				goto done;
			}
			v = nv;
			cap = nc;
		}
		struct store_webhook *h = &v[len++];
		memset(h, 0, sizeof *h);
		h->id = store_q_col_i64(s, 0);
		h->url = col_dup(s, 1);
		h->secret = col_dup(s, 2);
		const char *f = store_q_col_text(s, 3);
		snprintf(h->format, sizeof h->format, "%s", f ? f : "");
		h->token = col_dup(s, 4);
		h->recipients = col_dup(s, 5);
		if (!h->url || !h->secret) {
			out_rc = store_fail(st, STORE_ERROR, "out of memory");
			goto done;
		}
	}
	if (rc != STORE_Q_DONE)
		out_rc = store_q_fail(st, rc, "listing webhooks for an event");
done:
	store_q_done(s);
	if (out_rc < 0) {
		store_webhooks_free(v, len);
		return out_rc;
	}
	*out = v;
	*n = len;
	return 0;
}

/* ---- deliveries ----------------------------------------------------------- */

/* PostgreSQL with a daemon's owner name (store_set_job_owner): claims
 * go through store/pg/deliveries.c (SKIP LOCKED, claimed_by,
 * owner-checked record and release).  Without one (a single connection,
 * the tests) the SQL below serves both engines. */
static int pg_owned(const struct store *st)
{
	return st->backend == STORE_BACKEND_PG && st->owner[0];
}

int store_delivery_create(struct store *st, int64_t webhook_id, int64_t comparison_id,
                          const char *event, int64_t due_ms, int64_t *id)
{
	/* check first: on PostgreSQL a failed INSERT would abort the caller's
	 * transaction; the row stays locked against a delete until it ends */
	struct store_q *s =
	        prep(st, STORE_SQL("SELECT 1 FROM webhooks WHERE id = ?",
	                           "SELECT 1 FROM webhooks WHERE id = ? FOR KEY SHARE"));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, webhook_id);
	int found = store_q_step(s);
	store_q_done(s);
	if (found == STORE_Q_DONE)
		return store_fail(st, STORE_NOT_FOUND, "webhook %lld not found",
		                  (long long)webhook_id);
	if (found != STORE_Q_ROW)
		return store_q_fail(st, found, "queueing the delivery");
	s = prep(st, STORE_SQL_D(Q_DELIVERY_INSERT));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, webhook_id);
	store_q_bind_i64(s, 2, comparison_id);
	store_q_bind_text(s, 3, event);
	store_q_bind_i64(s, 4, due_ms);
	int64_t new_id;
	int rc = store_q_run_id(s, &new_id);
	if (rc != STORE_Q_ROW) {
		if (rc < 0 && store_q_fk_violation(st))
			return store_fail(st, STORE_NOT_FOUND, "webhook %lld not found",
			                  (long long)webhook_id);
		return store_q_fail(st, rc, "queueing the delivery");
	}
	/* other daemons' senders: woken when (if) this transaction commits */
	if (st->backend == STORE_BACKEND_PG &&
	    store_pg_notify(st->pg, STORE_PG_EV_DELIVERY, NULL) < 0) {
		store_pg_errcopy(st);
		return STORE_ERROR;
	}
	*id = new_id;
	return 0;
}

int store_delivery_set_body(struct store *st, int64_t id, const char *url, const char *payload)
{
	struct store_q *s =
	        prep(st, "UPDATE webhook_deliveries SET url = ?, payload = ? WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, url ? url : "");
	store_q_bind_text(s, 2, payload ? payload : "");
	store_q_bind_i64(s, 3, id);
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "storing the delivery body");
	if (changed == 0)
		return store_fail(st, STORE_NOT_FOUND, "delivery %lld not found", (long long)id);
	return 0;
}

int store_delivery_give_up(struct store *st, int64_t id, const char *error)
{
	struct store_q *s = prep(st, STORE_SQL_D(Q_DELIVERY_GIVE_UP));
	if (!s)
		return STORE_ERROR;
	store_q_bind_text(s, 1, error);
	store_q_bind_i64(s, 2, id);
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "failing the delivery");
	if (changed == 0)
		return store_fail(st, STORE_NOT_FOUND, "delivery %lld not found", (long long)id);
	return 0;
}

void store_delivery_free(struct store_delivery *d)
{
	if (!d)
		return;
	free(d->url);
	free(d->payload);
	free(d->secret);
	free(d->token);
	memset(d, 0, sizeof *d);
}

int store_delivery_claim(struct store *st, int64_t now_ms, int64_t lease_ms,
                         struct store_delivery *out)
{
	memset(out, 0, sizeof *out);
	int owned = 0, rc;
	struct store_q *s = NULL;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if (pg_owned(st)) {
		int64_t id = 0;
		if ((rc = store_pg_delivery_claim(st->pg, st->owner, lease_ms, &id)) < 0) {
			store_pg_errcopy(st);
			goto done;
		}
		s = prep(st, "SELECT id, webhook_id, comparison_id, event, url, payload, attempts "
		             "FROM webhook_deliveries WHERE id = ?");
		if (s)
			store_q_bind_i64(s, 1, id);
	} else {
		s = prep(st,
		         "UPDATE webhook_deliveries SET claimed_until = CAST(?1 AS BIGINT) + ?2 "
		         "WHERE id = ("
		         "SELECT id FROM webhook_deliveries WHERE status = 'pending' "
		         "AND next_attempt_at <= ?1 AND (claimed_until IS NULL OR claimed_until <= "
		         "?1) "
		         "ORDER BY next_attempt_at, id LIMIT 1) "
		         "RETURNING id, webhook_id, comparison_id, event, url, payload, attempts");
		if (s) {
			store_q_bind_i64(s, 1, now_ms);
			store_q_bind_i64(s, 2, lease_ms);
		}
	}
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	int src = store_q_step(s);
	if (src == STORE_Q_DONE) {
		rc = store_fail(st, STORE_NOT_FOUND, "no delivery is due");
		goto done;
	}
	if (src != STORE_Q_ROW) {
		rc = store_q_fail(st, src, "claiming a delivery");
		goto done;
	}
	out->id = store_q_col_i64(s, 0);
	out->webhook_id = store_q_col_i64(s, 1);
	out->comparison_id = store_q_col_i64(s, 2);
	const char *ev = store_q_col_text(s, 3);
	snprintf(out->event, sizeof out->event, "%s", ev ? ev : "");
	out->url = col_dup(s, 4);
	out->payload = col_dup(s, 5);
	out->attempts = store_q_col_int(s, 6);
	/* finish the RETURNING statement before the next one */
	while ((src = store_q_step(s)) == STORE_Q_ROW)
		;
	store_q_done(s);
	s = prep(st, "SELECT secret, format, token FROM webhooks WHERE id = ?");
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_i64(s, 1, out->webhook_id);
	src = store_q_step(s);
	if (src != STORE_Q_ROW) {
		/* the FK cascade makes this impossible short of corruption */
		rc = src == STORE_Q_DONE ? store_fail(st, STORE_ERROR,
		                                      "reading the delivery's webhook: not found")
		                         : store_q_fail(st, src, "reading the delivery's webhook");
		goto done;
	}
	out->secret = col_dup(s, 0);
	const char *f = store_q_col_text(s, 1);
	snprintf(out->format, sizeof out->format, "%s", f ? f : "");
	out->token = col_dup(s, 2);
	if (!out->url || !out->payload || !out->secret) {
		rc = store_fail(st, STORE_ERROR, "out of memory");
		goto done;
	}
	rc = 0;
done:
	store_q_done(s);
	rc = store_tx_end_owned(st, owned, rc);
	if (rc < 0)
		store_delivery_free(out);
	return rc;
}

int store_delivery_next_due(struct store *st, int64_t *due_ms)
{
	struct store_q *s = prep(st, STORE_SQL_D(Q_NEXT_DUE));
	if (!s)
		return STORE_ERROR;
	int rc = store_q_step(s), out = 0;
	if (rc != STORE_Q_ROW)
		out = store_q_fail(st, rc, "reading the delivery queue");
	else if (store_q_col_isnull(s, 0))
		out = store_fail(st, STORE_NOT_FOUND, "no delivery is pending");
	else
		*due_ms = store_q_col_i64(s, 0);
	store_q_done(s);
	return out;
}

int store_delivery_record(struct store *st, int64_t id, int http_status, const char *error,
                          int64_t duration_ms, const char *outcome, int64_t next_attempt_ms)
{
	if (!outcome || (strcmp(outcome, "pending") && strcmp(outcome, "delivered") &&
	                 strcmp(outcome, "failed")))
		return store_fail(st, STORE_INVALID,
		                  "outcome must be pending, delivered or failed");
	int owned = 0, rc;
	if ((rc = store_tx_auto(st, &owned)) < 0)
		return rc;
	if (pg_owned(st)) {
		/* the owner-checked update and its attempt row, in one transaction */
		rc = store_pg_delivery_record(st->pg, id, st->owner, http_status, error,
		                              duration_ms, outcome, next_attempt_ms);
		if (rc < 0)
			store_pg_errcopy(st);
		return store_tx_end_owned(st, owned, rc);
	}
	struct store_q *s = prep(st, STORE_SQL_D(Q_DELIVERY_RECORD));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_text(s, 1, outcome);
	store_q_bind_i64(s, 2, next_attempt_ms);
	store_q_bind_text(s, 3, error);
	store_q_bind_text(s, 4, outcome);
	store_q_bind_i64(s, 5, id);
	int64_t changed;
	int src = store_q_run_changes(s, &changed);
	if (src != STORE_Q_DONE) {
		rc = store_q_fail(st, src, "recording the delivery");
		goto done;
	}
	if (changed == 0) {
		rc = store_fail(st, STORE_NOT_FOUND, "delivery %lld not found (webhook deleted?)",
		                (long long)id);
		goto done;
	}
	s = prep(st, STORE_SQL_D(Q_ATTEMPT_INSERT));
	if (!s) {
		rc = STORE_ERROR;
		goto done;
	}
	store_q_bind_i64(s, 1, id);
	if (http_status > 0)
		store_q_bind_i64(s, 2, http_status);
	else
		store_q_bind_null(s, 2);
	store_q_bind_text(s, 3, error);
	store_q_bind_i64(s, 4, duration_ms < 0 ? 0 : duration_ms);
	src = store_q_step(s);
	store_q_done(s);
	if (src != STORE_Q_DONE)
		rc = store_q_fail(st, src, "recording the attempt");
done:
	return store_tx_end_owned(st, owned, rc);
}

int store_delivery_release(struct store *st, int64_t id)
{
	if (pg_owned(st)) {
		int rc = store_pg_delivery_release(st->pg, id, st->owner);
		if (rc < 0)
			store_pg_errcopy(st);
		return rc == STORE_NOT_FOUND ? 0 : rc; /* no longer ours: nothing to drop */
	}
	struct store_q *s = prep(st, "UPDATE webhook_deliveries SET claimed_until = NULL "
	                             "WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, id);
	int rc = store_q_step(s);
	store_q_done(s);
	return rc == STORE_Q_DONE ? 0 : store_q_fail(st, rc, "releasing the delivery");
}

int store_deliveries_release_all(struct store *st, int *n)
{
	if (pg_owned(st)) {
		/* other daemons' claims are live: only this daemon's own */
		int rc = store_pg_deliveries_release_owner(st->pg, st->owner, n);
		if (rc < 0)
			store_pg_errcopy(st);
		return rc;
	}
	struct store_q *s = prep(st, "UPDATE webhook_deliveries SET claimed_until = NULL "
	                             "WHERE status = 'pending' AND claimed_until IS NOT NULL");
	if (!s)
		return STORE_ERROR;
	int64_t changed;
	int rc = store_q_run_changes(s, &changed);
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "releasing deliveries");
	if (n)
		*n = changed;
	return 0;
}

/* Attempts of one delivery, oldest first, into d (arena a). */
static int attempts_read(struct store *st, struct arena *a, struct store_delivery_info *d,
                         size_t *bytes)
{
	struct store_q *s = prep(st, "SELECT at, http_status, error, duration_ms FROM "
	                             "webhook_attempts WHERE delivery_id = ? ORDER BY id");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, d->id);
	size_t cap = 0;
	int rc, bad = 0;
	while (!bad && (rc = store_q_step(s)) == STORE_Q_ROW) {
		struct store_attempt_info *nv =
		        store_arena_grow(a, d->attempt_log, d->n_attempt_log, &cap, sizeof *nv);
		if ((bad = !nv))
			break;
		d->attempt_log = nv;
		struct store_attempt_info *t = &d->attempt_log[d->n_attempt_log++];
		t->at = store_q_col_dup(a, s, 0, bytes, &bad);
		t->has_http_status = !store_q_col_isnull(s, 1);
		t->http_status = store_q_col_int(s, 1);
		t->error = store_q_col_dup(a, s, 2, bytes, &bad);
		t->duration_ms = store_q_col_i64(s, 3);
		*bytes += 128;
	}
	store_q_done(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	if (rc != STORE_Q_DONE)
		return store_q_fail(st, rc, "listing attempts");
	return 0;
}

void store_delivery_page_free(struct store_delivery_page *p)
{
	if (!p)
		return;
	free(p->deliveries);
	arena_reset(&p->arena);
	memset(p, 0, sizeof *p);
}

int store_deliveries_list(struct store *st, int64_t webhook_id, int limit, const char *cursor,
                          struct store_delivery_page *out)
{
	memset(out, 0, sizeof *out);
	int64_t before = INT64_MAX;
	int rc = store_cursor_parse(st, cursor, 'd', &before, 1);
	if (rc < 0)
		return rc;
	struct store_q *s = prep(st, "SELECT 1 FROM webhooks WHERE id = ?");
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, webhook_id);
	int src = store_q_step(s);
	store_q_done(s);
	if (src == STORE_Q_DONE)
		return store_fail(st, STORE_NOT_FOUND, "webhook %lld not found",
		                  (long long)webhook_id);
	if (src != STORE_Q_ROW)
		return store_q_fail(st, src, "reading the webhook");
	limit = store_clamp_limit(limit);
	s = prep(st, STORE_SQL_D(Q_DELIVERIES_PAGE));
	if (!s)
		return STORE_ERROR;
	store_q_bind_i64(s, 1, webhook_id);
	store_q_bind_i64(s, 2, before);
	store_q_bind_i64(s, 3, limit + 1);
	struct arena *a = &out->arena;
	size_t n = 0, cap = 0;
	int more = 0, bad = 0;
	rc = 0;
	while (!bad && (src = store_q_step(s)) == STORE_Q_ROW) {
		if (n == (size_t)limit) { /* one more row exists: the page ends here */
			more = 1;
			break;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct store_delivery_info *nv =
			        realloc(out->deliveries, ncap * sizeof *nv);
			if ((bad = !nv))
				break;
			out->deliveries = nv;
			cap = ncap;
		}
		struct store_delivery_info *d = &out->deliveries[n++];
		memset(d, 0, sizeof *d);
		d->id = store_q_col_i64(s, 0);
		d->webhook_id = webhook_id;
		d->comparison_id = store_q_col_i64(s, 1);
		d->event = store_q_col_dup(a, s, 2, NULL, &bad);
		d->url = store_q_col_dup(a, s, 3, NULL, &bad);
		d->status = store_q_col_dup(a, s, 4, NULL, &bad);
		d->attempts = store_q_col_int(s, 5);
		d->next_attempt_at = store_q_col_dup(a, s, 6, NULL, &bad);
		d->last_error = store_q_col_dup(a, s, 7, NULL, &bad);
		d->created_at = store_q_col_dup(a, s, 8, NULL, &bad);
		d->finished_at = store_q_col_dup(a, s, 9, NULL, &bad);
	}
	if (!bad && src != STORE_Q_DONE && src != STORE_Q_ROW)
		rc = store_q_fail(st, src, "listing deliveries");
	store_q_done(s);
	if (bad)
		return store_fail(st, STORE_ERROR, "out of memory");
	/* attempt logs after the page statement is finished; the page's byte
	 * budget counts the text, 256 a delivery and 128 an attempt */
	size_t bytes = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct store_delivery_info *d = &out->deliveries[i];
		size_t sz = 256 + 1;
		const char *texts[] = {d->event,           d->url,        d->status,
		                       d->next_attempt_at, d->last_error, d->created_at,
		                       d->finished_at};
		for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
			sz += texts[k] ? strlen(texts[k]) : 0;
		rc = attempts_read(st, a, d, &sz);
		if (rc == 0 && i > 0 && bytes + sz > STORE_PAGE_BYTES) {
			n = i;
			more = 1;
			break;
		}
		bytes += sz;
	}
	out->n_deliveries = n;
	if (rc == 0 && more && n > 0)
		store_cursor_text('d', &out->deliveries[n - 1].id, 1, out->next_cursor);
	return rc;
}
