/* load.c - bulk ingest of an activation log's entries on PostgreSQL:
 * COPY entries (...) FROM STDIN in text format, the same columns and
 * values store_entry_add writes on SQLite (store/entries.c), batched into
 * BATCH-byte CopyData messages.  One row per entry, no round trip per
 * row: the server checks the unique (log_id, ord) as rows arrive, and
 * reports the first failure when the COPY ends.  The log must exist: it
 * is checked and locked (FOR KEY SHARE) once, before the COPY, instead of
 * a foreign-key check per row (migrations/postgresql/011).  Text format escaping: backslash,
 * newline, carriage return and tab are written as \\ \n \r \t; NULL is \N.  Measured in
 * tests/bench/pg_ingest.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pg_int.h"

#define BATCH (256 * 1024)

struct store_pg_copy {
	struct store_pg *pg;
	char log_id[24];
	size_t fill;
	int failed; /* a send failed: the COPY is ended as failed */
	char buf[BATCH];
};

static int send_buf(struct store_pg_copy *c)
{
	if (c->fill == 0)
		return 0;
	if (PQputCopyData(c->pg->conn, c->buf, (int)c->fill) != 1) {
		c->failed = 1;
		return pg_fail(c->pg, STORE_ERROR, "sending entries: %s",
		               PQerrorMessage(c->pg->conn));
	}
	c->fill = 0;
	return 0;
}

/* Make room for n more bytes (a field longer than BATCH goes out in
 * pieces: put() sends as it fills). */
static int put(struct store_pg_copy *c, const char *s, size_t n)
{
	while (n > 0) {
		if (c->fill == BATCH && send_buf(c) < 0)
			return STORE_ERROR;
		size_t take = BATCH - c->fill < n ? BATCH - c->fill : n;
		memcpy(c->buf + c->fill, s, take);
		c->fill += take;
		s += take;
		n -= take;
	}
	return 0;
}

/* One text field, escaped, then sep (a tab, or the row's newline). */
static int field(struct store_pg_copy *c, const char *s, char sep)
{
	if (!s) {
		if (put(c, "\\N", 2) < 0)
			return STORE_ERROR;
	} else {
		const char *run = s;
		for (const char *p = s;; p++) {
			char e = *p == '\\'   ? '\\'
			         : *p == '\n' ? 'n'
			         : *p == '\r' ? 'r'
			         : *p == '\t' ? 't'
			                      : 0;
			if (!e && *p)
				continue;
			if (put(c, run, (size_t)(p - run)) < 0)
				return STORE_ERROR;
			if (!*p)
				break;
			char esc[2] = {'\\', e};
			if (put(c, esc, 2) < 0)
				return STORE_ERROR;
			run = p + 1;
		}
	}
	return put(c, &sep, 1);
}

static int num_field(struct store_pg_copy *c, long long v, char sep)
{
	char t[24];
	snprintf(t, sizeof t, "%lld", v);
	return field(c, t, sep);
}

int store_pg_entries_begin(struct store_pg *pg, int64_t log_id, struct store_pg_copy **out)
{
	*out = NULL;
	struct store_pg_copy *c = malloc(sizeof *c);
	if (!c)
		return pg_fail(pg, STORE_ERROR, "out of memory");
	c->pg = pg;
	c->fill = 0;
	c->failed = 0;
	pg_i64(c->log_id, log_id);
	/* entries.log_id has no foreign key on PostgreSQL (migration 011):
	 * check the log here, and lock it against deletion until commit */
	const char *params[] = {c->log_id};
	PGresult *res = NULL;
	int rc = pg_stmt_exec(pg, PG_SID_LOAD_LOG,
	                      "SELECT 1 FROM logs WHERE id = $1::bigint FOR KEY SHARE", 1, params,
	                      "locking the log", &res);
	if (rc == 0 && PQntuples(res) == 0)
		rc = pg_fail(pg, STORE_NOT_FOUND, "log %s not found", c->log_id);
	PQclear(res);
	if (rc < 0) {
		free(c);
		return rc;
	}
	res = PQexec(pg->conn, "COPY entries(log_id, ord, line, key, phase, shape, "
	                       "l1_text, l2_text, min_text, max_text, mean_text, "
	                       "stat_isnum, output_hash, input_hashes, input_producers, "
	                       "location) FROM STDIN");
	if (!res || PQresultStatus(res) != PGRES_COPY_IN) {
		free(c);
		return pg_resfail(pg, res, "starting the entry COPY");
	}
	PQclear(res);
	*out = c;
	return 0;
}

int store_pg_entries_add(struct store_pg_copy *c, const struct matcher_entry *e)
{
	if (c->failed)
		return STORE_ERROR;
	if (!e->key)
		return pg_fail(c->pg, STORE_INVALID, "entry without a key");
	unsigned isnum = 0;
	for (int i = MATCHER_STAT_L1; i < MATCHER_N_STATS; i++)
		if (e->stats[i] && (e->stat_isnum & (1u << i)))
			isnum |= 1u << i;
	int rc = field(c, c->log_id, '\t');
	rc |= num_field(c, (long long)e->order, '\t');
	rc |= num_field(c, (long long)e->line, '\t');
	rc |= field(c, e->key, '\t');
	rc |= field(c, e->phase == MATCHER_BACKWARD ? "1" : "0", '\t');
	for (int i = MATCHER_STAT_SHAPE; i < MATCHER_N_STATS; i++)
		rc |= field(c, e->stats[i], '\t');
	rc |= num_field(c, isnum, '\t');
	rc |= field(c, e->output_hash, '\t');
	rc |= field(c, e->input_hashes, '\t');
	rc |= field(c, e->input_producers, '\t');
	rc |= field(c, e->location, '\n');
	return rc ? STORE_ERROR : 0;
}

int store_pg_entries_end(struct store_pg_copy *c, int fail, int64_t *n_rows)
{
	struct store_pg *pg = c->pg;
	int rc = 0;
	if (!fail && !c->failed)
		rc = send_buf(c);
	const char *why = fail || c->failed ? "ingest aborted" : NULL;
	if (PQputCopyEnd(pg->conn, why) != 1 && rc == 0)
		rc = pg_fail(pg, STORE_ERROR, "ending the entry COPY: %s",
		             PQerrorMessage(pg->conn));
	free(c);
	PGresult *res;
	int64_t n = 0;
	while ((res = PQgetResult(pg->conn))) {
		if (PQresultStatus(res) == PGRES_COMMAND_OK) {
			n = atoll(PQcmdTuples(res));
			PQclear(res);
			continue;
		}
		if (rc != 0 || fail) {
			PQclear(res);
			continue;
		}
		rc = pg_resfail(pg, res, "storing entries");
	}
	if (n_rows)
		*n_rows = n;
	return rc;
}
