-- 004_raw_clock.sql - the span of time this database can speak for, used
-- to decide whether an unreferenced raw file (<data>/raw/<aa>/<sha256>) may
-- be deleted or must be quarantined (server/blobs.c has the rule).  Times
-- are integer milliseconds since the Unix epoch.
-- born_at_ms: when this database was created (0 = unknown: it held runs
-- before this migration).  stored_at_ms: the latest commit that stored or
-- re-used a raw file (raised in that commit, after the file's mtime was
-- set; NULL = no upload yet).  A raw file whose mtime lies outside
-- [born_at_ms, stored_at_ms] was not written through this database as it
-- is now: it belongs to a lost or a newer one.  Before this migration the
-- newest run stands in for the last upload (a raw file is written before
-- its run's row; created_at has whole seconds, hence the + 999).

CREATE TABLE raw_clock (
	id           INTEGER PRIMARY KEY CHECK (id = 1),
	born_at_ms   INTEGER NOT NULL,
	stored_at_ms INTEGER
);
INSERT INTO raw_clock(id, born_at_ms, stored_at_ms)
SELECT 1,
       CASE WHEN EXISTS (SELECT 1 FROM runs) THEN 0
            ELSE CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER) END,
       (SELECT CAST(strftime('%s', max(created_at)) AS INTEGER) * 1000 + 999 FROM runs);
