-- 011_pg_scale_out.sql (PostgreSQL) - what several daemons without a shared
-- filesystem need (store/BACKENDS.md sections 3 and 5); the SQLite twin is
-- a no-op (raw logs are files there, and one daemon owns its deliveries).
--
-- raw_blobs / raw_chunks: raw logs, content-addressed by the sha256 hex of
-- the uncompressed bytes, stored as one gzip stream cut into chunks of at
-- most 1 MiB (store/pg/blobs.c writes and reads them chunk by chunk).
--   bytes         uncompressed size; zbytes: size of the gzip stream
--   n_chunks      chunks 0 .. n_chunks-1 (written before the row is final)
-- The chunk data is already compressed: STORAGE EXTERNAL keeps TOAST from
-- trying pglz on it again.  No large objects: they need lo_unlink (no
-- cascade) and complicate pg_dump.
CREATE TABLE raw_blobs (
	sha256       TEXT PRIMARY KEY,
	bytes        BIGINT NOT NULL,
	zbytes       BIGINT NOT NULL,
	n_chunks     BIGINT NOT NULL,
	stored_at_ms BIGINT NOT NULL
);
CREATE TABLE raw_chunks (
	sha256 TEXT NOT NULL REFERENCES raw_blobs(sha256) ON DELETE CASCADE,
	seq    BIGINT NOT NULL,
	data   BYTEA NOT NULL,
	PRIMARY KEY (sha256, seq)
);
ALTER TABLE raw_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- claimed_by: the daemon (owner name, as comparisons.lease_owner) holding
-- a delivery's claim until claimed_until; recording and releasing a
-- delivery are owner-checked (store/pg/deliveries.c).
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;

-- entries.log_id loses its foreign key: on PostgreSQL the per-row check
-- halved bulk ingest (COPY of the 30 MB log: 16 MB/s with it, 37 without;
-- tests/bench/pg_ingest.sh).  What it guaranteed is kept another way:
--   - on insert, the only writer (store/pg/load.c) locks the log row
--     (SELECT ... FOR KEY SHARE) before its COPY and refuses a missing
--     log, so no entry can point at a log deleted meanwhile;
--   - ON DELETE CASCADE becomes a statement-level trigger on logs: the
--     entries of every deleted log (directly or by the runs -> logs
--     cascade) go in the same statement, one set-based DELETE.
ALTER TABLE entries DROP CONSTRAINT entries_log_id_fkey;
CREATE FUNCTION parity_logs_delete_entries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM entries WHERE log_id IN (SELECT id FROM gone_logs);
	RETURN NULL;
END
$$;
CREATE TRIGGER logs_delete_entries AFTER DELETE ON logs
	REFERENCING OLD TABLE AS gone_logs
	FOR EACH STATEMENT EXECUTE FUNCTION parity_logs_delete_entries();
