/* ingest_both.h - parse an activation log file and store its entries on
 * either backend, the way an upload does: SQLite through store_entry_add
 * in one store_tx_begin_bulk transaction (store/entries.c), PostgreSQL
 * through COPY (store/pg/load.c) in one transaction.  The file is read in
 * 1 MiB pieces and fed to the streaming parser; nothing holds the log.
 * Used by test_pg_load.c (same rows on both) and tests/bench/pg_ingest_bench.c
 * (throughput).  Header-only. */
#ifndef PARITY_TEST_INGEST_BOTH_H
#define PARITY_TEST_INGEST_BOTH_H

#include <stdio.h>
#include <stdlib.h>

#include "actlog.h"
#include "pg.h"
#include "store.h"

struct ingest_sink {
	struct store *st;        /* SQLite, or */
	struct store_pg_copy *c; /* PostgreSQL */
	int64_t log_id;
	int rc;
};

static int ingest_on_entry(void *ctx, const struct matcher_entry *e)
{
	struct ingest_sink *k = ctx;
	k->rc = k->st ? store_entry_add(k->st, k->log_id, e) : store_pg_entries_add(k->c, e);
	return k->rc;
}

/* Parse path into the sink; 0, or -1 (printed). *n_entries = parsed. */
static int ingest_parse(const char *path, struct ingest_sink *k, size_t *n_entries)
{
	struct matcher_actlog_callbacks cb = {.ctx = k, .on_entry = ingest_on_entry};
	struct matcher_actlog_parser *p = matcher_actlog_parser_new(&cb, 0);
	FILE *f = fopen(path, "rb");
	static char piece[1 << 20];
	int rc = p && f ? 0 : -1;
	size_t n;
	while (rc == 0 && (n = fread(piece, 1, sizeof piece, f)) > 0)
		rc = matcher_actlog_feed(p, piece, n);
	struct matcher_actlog_summary sum = {0};
	if (rc == 0)
		rc = matcher_actlog_finish(p, &sum);
	if (rc != 0)
		fprintf(stderr, "ingest %s: %s (store rc %d)\n", path,
		        p ? matcher_actlog_error(p)->message : "out of memory", k->rc);
	*n_entries = sum.n_entries;
	if (f)
		fclose(f);
	matcher_actlog_parser_free(p);
	return rc;
}

/* Into a new run ("bench", one log) of the SQLite store st. */
static int ingest_sqlite(struct store *st, const char *path, size_t *n_entries)
{
	int64_t run = 0;
	struct ingest_sink k = {.st = st};
	int rc = store_tx_begin_bulk(st);
	if (rc == 0)
		rc = store_run_create(st, "bench", "activation", NULL, &run);
	if (rc == 0)
		rc = store_log_create(
		        st, run, 0, "a.log", 0,
		        "0000000000000000000000000000000000000000000000000000000000000000",
		        &k.log_id);
	if (rc == 0)
		rc = ingest_parse(path, &k, n_entries);
	if (rc == 0)
		rc = store_tx_commit(st);
	if (rc != 0) {
		fprintf(stderr, "sqlite ingest: %s\n", store_errmsg(st));
		store_tx_rollback(st);
	}
	return rc;
}

/* Into log log_id (which exists) of the PostgreSQL database of pg. */
static int ingest_pg(struct store_pg *pg, int64_t log_id, const char *path, size_t *n_entries)
{
	struct ingest_sink k = {.log_id = log_id};
	int rc = store_pg_tx_begin(pg);
	if (rc == 0)
		rc = store_pg_entries_begin(pg, log_id, &k.c);
	if (rc == 0) {
		int prc = ingest_parse(path, &k, n_entries);
		rc = store_pg_entries_end(k.c, prc != 0, NULL);
		if (rc == 0)
			rc = prc;
	}
	if (rc == 0)
		rc = store_pg_tx_commit(pg);
	if (rc != 0) {
		fprintf(stderr, "pg ingest: %s\n", store_pg_errmsg(pg));
		store_pg_tx_rollback(pg);
	}
	return rc;
}

#endif
