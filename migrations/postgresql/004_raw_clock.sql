-- 004_raw_clock.sql (PostgreSQL) - as migrations/sqlite/004_raw_clock.sql.
-- A PostgreSQL database starts empty at this version, so born_at_ms is
-- now and no upload happened yet (the SQLite migration's "runs before
-- this migration" case cannot arise).  When raw logs live in PostgreSQL
-- (BACKENDS.md) there are no raw files to judge and gc does not read
-- this table; it is kept so both backends have the same schema.

CREATE TABLE raw_clock (
	id           BIGINT PRIMARY KEY CHECK (id = 1),
	born_at_ms   BIGINT NOT NULL,
	stored_at_ms BIGINT
);
INSERT INTO raw_clock(id, born_at_ms, stored_at_ms)
VALUES (1, (extract(epoch FROM clock_timestamp()) * 1000)::BIGINT, NULL);
