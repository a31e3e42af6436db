/* pg.h - private to store/: the PostgreSQL engine's own calls (store/pg/),
 * under the backend-neutral verbs of store.h.  Nothing outside store/
 * includes this, except the unit tests that exercise the engine directly
 * (tests/unit/test_pg_*.c; tests/CMakeLists.txt gives them this
 * directory).  The server uses only store.h. */
#ifndef PARITY_STORE_PG_H
#define PARITY_STORE_PG_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* PostgreSQL: store_backup refuses (STORE_INVALID) with this sentence
 * (`parity backup` prints it with the database URL). */
#define STORE_PG_BACKUP_HINT                                                                       \
	"use pg_dump: pg_dump -Fc 'postgresql://...' > parity.dump (restore with pg_restore "      \
	"into an empty database, then start parity: migrations bring it up to date)"
/* One gc at a time per database: 1 when this connection holds the gc lock
 * now (PostgreSQL: pg_try_advisory_lock(STORE_PG_GC_LOCK), kept until the
 * connection closes; SQLite: always 1, its write lock serializes), 0 when
 * another gc holds it, or a STORE_* code. */
#define STORE_PG_GC_LOCK 0x7061726974796763LL /* "paritygc" */
/* Transaction-scoped: a raw-log writer holds it shared from its
 * store_pg_blob_create to its COMMIT (the log row that references the
 * blob commits with it); the blob gc holds it exclusive around its
 * DELETE.  So the gc's DELETE starts after every such upload committed
 * (and sees its log), and an upload that found its blob already stored
 * cannot lose it to a gc running at the same time. */
#define STORE_PG_BLOB_GC_XLOCK 0x7061726974796762LL /* "paritygb" */

/* ---- the PostgreSQL engine (store/pg/) ----------------------------------
 * A connection, its migrations (migrations/postgresql/, applied under an
 * advisory lock), the job queue with leases, raw logs, COPY and
 * LISTEN/NOTIFY.  A struct store on PostgreSQL holds one struct store_pg
 * (st->pg), and the verbs of store.h run on it.  No libpq type crosses
 * this header.  One struct store_pg is one libpq
 * connection used by ONE thread at a time.  Times of leases are the
 * database server's clock (clock_timestamp()), so daemons on several
 * machines agree on them whatever their own clocks say. */
struct store_pg;
/* The backend of st: 1 for PostgreSQL, else 0 (SQLite). */
int store_is_pg(const struct store *st);
/* The PostgreSQL connection of st for the store_pg_* calls below (the
 * same connection and transaction as st's verbs), or NULL on SQLite. */
struct store_pg *store_pg_of(struct store *st);
/* rc from a store_pg_* call on st's connection: when it failed (< 0), its
 * message becomes st's (store_errmsg).  Returns rc. */
int store_pg_error(struct store *st, int rc);

/* 1 when s names a PostgreSQL database ("postgresql://" or "postgres://"
 * URL), else 0 (a SQLite data directory / file). */
int store_is_pg_url(const char *s);

/* Connect to url (a libpq connection URI or key=value string) and check
 * the connection; applies no migration.  *out on success (free with
 * store_pg_close); on failure *out = NULL, err (errlen bytes) says why
 * (without the password) and the result is STORE_ERROR. */
int store_pg_open(const char *url, struct store_pg **out, char *err, size_t errlen);
void store_pg_close(struct store_pg *pg);
/* The last error of pg as a sentence (valid until the next call on pg). */
const char *store_pg_errmsg(const struct store_pg *pg);

/* Apply every embedded migrations/postgresql/NNN_*.sql above the
 * database's version, each in its own transaction recorded in
 * schema_migrations, all under pg_advisory_lock(STORE_PG_MIGRATE_LOCK)
 * so daemons starting at once apply each version exactly once (the
 * others wait, then find nothing to do).  *n_applied (may be NULL) = how
 * many this call applied.  STORE_TOO_NEW when the database has a version
 * above the newest embedded one; STORE_INVALID (nothing applied) when the
 * database is not UTF8 with the C/POSIX locale (collation and ctype): the
 * store's text order and lower() must be SQLite's; STORE_ERROR otherwise
 * (errmsg). */
#define STORE_PG_MIGRATE_LOCK 0x70617269747931LL /* "parity1" */
int store_pg_migrate(struct store_pg *pg, int *n_applied);
/* The highest version in schema_migrations into *version (0: none). */
int store_pg_schema_version(struct store_pg *pg, int *version);

/* Job queue with leases (store/pg/jobs.c).  A claim takes the oldest
 * comparison that is queued, or running with an expired lease (its daemon
 * died or stalled), with FOR UPDATE SKIP LOCKED: concurrent claimers never
 * get the same job and never wait on each other.  It sets status
 * "running", lease_owner = owner (the claiming worker's unique name, e.g.
 * "host:pid:worker") and lease_until_ms = now + lease_ms.  0 and *id, or
 * STORE_NOT_FOUND when nothing is claimable; STORE_INVALID for an empty
 * owner or lease_ms outside 1..86400000. */
int store_pg_job_claim(struct store_pg *pg, const char *owner, int64_t lease_ms, int64_t *id);
/* Extend owner's lease of running job id to now + lease_ms.  STORE_NOT_FOUND
 * when owner does not hold it any more (expired and re-claimed, finished,
 * or requeued): the worker must stop and write nothing.  A lease that
 * expired but was not yet re-claimed is renewed. */
int store_pg_job_heartbeat(struct store_pg *pg, int64_t id, const char *owner, int64_t lease_ms);
/* Extend every lease owner holds to now + lease_ms, in one statement: a
 * daemon that names itself once (host:pid:random) renews all its running
 * jobs from one thread every lease/3.  *n (may be NULL) = how many. */
int store_pg_jobs_heartbeat_all(struct store_pg *pg, const char *owner, int64_t lease_ms, int *n);
/* End owner's job: status "done" | "failed" (STORE_INVALID otherwise),
 * verdict and error NULL or text, finished_at now, lease cleared.
 * STORE_NOT_FOUND when owner does not hold the lease: a worker that lost
 * its lease cannot overwrite the result of the one that took over.
 * (In the merged store this runs inside the transaction that writes the
 * result rows, so rows and status commit together or not at all.) */
int store_pg_job_finish(struct store_pg *pg, int64_t id, const char *owner, const char *status,
                        const char *verdict, const char *error);
/* Give owner's running job back to the queue (status "queued", lease and
 * started_at cleared), e.g. on a clean shutdown.  STORE_NOT_FOUND when
 * owner does not hold it. */
int store_pg_job_release(struct store_pg *pg, int64_t id, const char *owner);

/* Transactions on a store_pg connection (store/pg/tx.c): BEGIN (READ
 * COMMITTED), COMMIT, ROLLBACK.  0 or a STORE_* code with errmsg; a
 * failed COMMIT has rolled back.  Rollback also ends a failed
 * transaction. */
int store_pg_tx_begin(struct store_pg *pg);
int store_pg_tx_commit(struct store_pg *pg);
int store_pg_tx_rollback(struct store_pg *pg);

/* Raw logs in the database (store/pg/blobs.c; migrations/postgresql/011):
 * a blob is named by the sha256 hex (64 lowercase hex digits) of its
 * uncompressed bytes, which the caller computed (the upload does), and
 * is stored as one gzip stream cut into chunks of STORE_PG_CHUNK bytes.
 * Writing streams: memory is one chunk plus zlib's state, whatever the
 * log's size.  Run the writer inside the caller's transaction
 * (store_pg_tx_begin): commit makes the blob visible whole, rollback
 * leaves nothing.  Idempotent: a second writer of the same sha256 finds
 * it (if the first is still in its transaction, it waits for that to
 * end: committed, it is "stored already"; rolled back, it writes). */
#define STORE_PG_CHUNK (1 << 20)
struct store_pg_blob_writer;
/* Start writing blob sha256.  0 and *w (then _write ... _finish, or
 * _abort), or 1 and *w = NULL when the blob is stored already (write
 * nothing).  STORE_INVALID for a name that is not 64 lowercase hex. */
int store_pg_blob_create(struct store_pg *pg, const char *sha256, struct store_pg_blob_writer **w);
/* Compress n bytes into the blob; full chunks are sent as they fill. */
int store_pg_blob_write(struct store_pg_blob_writer *w, const void *data, size_t n);
/* Flush the last chunk, record sizes and chunk count, free w (always).
 * *zbytes (may be NULL) = the stored (compressed) size. */
int store_pg_blob_finish(struct store_pg_blob_writer *w, int64_t *zbytes);
/* Free w after a failure; the caller rolls its transaction back. */
void store_pg_blob_abort(struct store_pg_blob_writer *w);
/* Instead of _write: n more bytes of the blob's stored form, compressed
 * by the caller (one gzip member of the whole content, as the upload's
 * compression thread writes it: server/ingest/gzpipe.c), cut into chunks as
 * they are.  Then end with store_pg_blob_finish_gz, giving the content's
 * size (the reader checks the inflated size against it). */
int store_pg_blob_write_gz(struct store_pg_blob_writer *w, const void *gz, size_t n);
int store_pg_blob_finish_gz(struct store_pg_blob_writer *w, int64_t bytes, int64_t *zbytes);
/* Chunk seq (0, 1, ...) of blob sha256 as stored (a piece of its gzip
 * stream; the chunks' sizes add up to the blob's zbytes): *data (malloc'd,
 * the caller frees) and *n.  STORE_NOT_FOUND when there is no such chunk.
 * One short statement per chunk: a reader that pauses between chunks
 * (an HTTP response) needs no connection meanwhile. */
int store_pg_blob_chunk(struct store_pg *pg, const char *sha256, int64_t seq, void **data,
                        size_t *n);
/* Stream blob sha256 back, byte-exact, to fn in pieces of at most 64 KiB
 * (one chunk row in memory at a time: single-row mode).  fn returning
 * non-zero stops the read with that value.  0 when all was delivered;
 * STORE_NOT_FOUND when no such blob; STORE_ERROR (errmsg) when a chunk is
 * missing or the stream is corrupt or its size differs from the row's. */
int store_pg_blob_read(struct store_pg *pg, const char *sha256,
                       int (*fn)(void *ctx, const void *data, size_t n), void *ctx);
/* Size of blob sha256: *bytes uncompressed, *zbytes stored (either may be
 * NULL).  STORE_NOT_FOUND when absent. */
int store_pg_blob_size(struct store_pg *pg, const char *sha256, int64_t *bytes, int64_t *zbytes);

/* Bulk entry ingest (store/pg/load.c): the entries of one activation log
 * sent with COPY entries FROM STDIN (text format, escaped here), the rows
 * store_entry_add writes on SQLite, in the caller's transaction.  Rows
 * are batched into 256 KiB messages; memory does not grow with the log.
 * On any error the COPY is ended as failed and the caller rolls back. */
struct store_pg_copy;
/* Start the COPY for log_id: the log row is locked (FOR KEY SHARE) until
 * the transaction ends, so it cannot be deleted under the ingest.  0 and
 * *c, STORE_NOT_FOUND when the log does not exist, or a STORE_* code. */
int store_pg_entries_begin(struct store_pg *pg, int64_t log_id, struct store_pg_copy **c);
/* Queue one entry (STORE_INVALID without a key; the log's text must be
 * UTF-8, as the database's encoding is). */
int store_pg_entries_add(struct store_pg_copy *c, const struct matcher_entry *e);
/* End the COPY and free c (always).  *n_rows (may be NULL) = rows the
 * server stored.  A constraint failure is reported here (STORE_DUPLICATE
 * for a repeated ord; STORE_INVALID for text that is not UTF-8).  fail != 0 ends it as failed
 * (nothing stored): the abort path. */
int store_pg_entries_end(struct store_pg_copy *c, int fail, int64_t *n_rows);

/* Wake-ups across daemons (store/pg/notify.c): LISTEN/NOTIFY, one channel
 * per event kind.  A notification is sent when (and only if) the
 * transaction that sent it commits; outside a transaction at once. */
enum store_pg_event {
	STORE_PG_EV_DONE = STORE_EV_DONE,         /* channel parity_done */
	STORE_PG_EV_QUEUED = STORE_EV_QUEUED,     /* parity_queued */
	STORE_PG_EV_DELIVERY = STORE_EV_DELIVERY, /* parity_delivery */
	STORE_PG_N_EVENTS = STORE_N_EVENTS
};
/* Send ev with payload (NULL = "", at most 7999 bytes; e.g. the id). */
int store_pg_notify(struct store_pg *pg, enum store_pg_event ev, const char *payload);
/* LISTEN on the channels of the events whose bit (1u << ev) is in mask.
 * Use a connection of its own for waiting (not one that runs jobs). */
int store_pg_listen(struct store_pg *pg, unsigned mask);
/* Wait up to timeout_ms (0: only collect what already arrived) for
 * notifications on a listening connection; fn (may be NULL) is called for
 * each with its event and payload.  The number of notifications (> 0),
 * 0 on timeout, or STORE_ERROR when the connection broke (reconnect,
 * LISTEN again and treat it as a wake-up of every kind: notifications
 * sent meanwhile are lost).  Interrupted by a signal, it keeps waiting
 * for the rest of the time. */
int store_pg_wait(struct store_pg *pg, int timeout_ms,
                  void (*fn)(void *ctx, enum store_pg_event ev, const char *payload), void *ctx);
/* The channel name of ev ("parity_done", ...); NULL when out of range. */
const char *store_pg_channel(enum store_pg_event ev);

/* Webhook delivery claims with a lease (store/pg/deliveries.c), the job
 * pattern of store_pg_job_* on webhook_deliveries: a claim takes the
 * pending delivery due first (next_attempt_at <= now, no live claim) with
 * FOR UPDATE SKIP LOCKED and sets claimed_by = owner, claimed_until = now
 * + lease_ms (server clock, epoch ms).  The lease must exceed the webhook
 * timeout plus a margin: a claim that expires mid-attempt can be taken
 * again, so delivery is at-least-once.  0 and *id, STORE_NOT_FOUND when
 * nothing is due, STORE_INVALID for an empty owner or a lease outside
 * 1..86400000 ms. */
int store_pg_delivery_claim(struct store_pg *pg, const char *owner, int64_t lease_ms, int64_t *id);
/* Extend every claim owner holds to now + lease_ms (the daemon's
 * heartbeat); *n (may be NULL) = how many. */
int store_pg_deliveries_heartbeat_all(struct store_pg *pg, const char *owner, int64_t lease_ms,
                                      int *n);
/* Extend owner's claim of delivery id to now + lease_ms. */
int store_pg_delivery_heartbeat(struct store_pg *pg, int64_t id, const char *owner,
                                int64_t lease_ms);
/* Record one attempt of owner's claimed delivery, as store_delivery_record
 * does on SQLite (outcome "pending" | "delivered" | "failed", the next
 * attempt time in epoch ms, a webhook_attempts row) and drop the claim.
 * STORE_NOT_FOUND when owner does not hold the claim (it expired and
 * another daemon took it): nothing is written. */
int store_pg_delivery_record(struct store_pg *pg, int64_t id, const char *owner, int http_status,
                             const char *error, int64_t duration_ms, const char *outcome,
                             int64_t next_attempt_ms);
/* Drop owner's claim of delivery id unchanged (STORE_NOT_FOUND if not
 * held). */
int store_pg_delivery_release(struct store_pg *pg, int64_t id, const char *owner);
/* Drop every claim owner holds (a daemon's clean shutdown); *n (may be
 * NULL) = how many. */
int store_pg_deliveries_release_owner(struct store_pg *pg, const char *owner, int *n);

#endif
