-- 001_init.sql - runs, their per-rank logs and everything parsed from them.
-- Applied by store/db.c inside BEGIN IMMEDIATE ... PRAGMA user_version=1.
-- Children reference parents with ON DELETE CASCADE, so deleting a run
-- removes its logs, entries, steps, metrics and warnings in one statement.
-- Numbers that SQLite cannot hold (NaN) are NULL; the text column and the
-- stat_isnum bitmask keep what was printed.

CREATE TABLE schema_migrations (
	version    INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	applied_at TEXT NOT NULL
);

-- AUTOINCREMENT: ids appear in URLs, never reuse a deleted run's id.
CREATE TABLE runs (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL,
	kind       TEXT NOT NULL CHECK (kind IN ('activation', 'training')),
	meta       TEXT,                      -- JSON object text, NULL = none
	created_at TEXT NOT NULL              -- RFC 3339 UTC, seconds
);
CREATE INDEX runs_kind_id ON runs(kind, id);

CREATE TABLE logs (
	id           INTEGER PRIMARY KEY,
	run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	rank         INTEGER NOT NULL,
	filename     TEXT,
	bytes        INTEGER NOT NULL,
	sha256       TEXT NOT NULL,           -- hex digest of the raw upload
	n_items      INTEGER NOT NULL DEFAULT 0, -- entries or training steps
	n_validation INTEGER NOT NULL DEFAULT 0,
	n_lines      INTEGER NOT NULL DEFAULT 0,
	n_warnings   INTEGER NOT NULL DEFAULT 0, -- all, incl. unreported ones
	header_total INTEGER,                 -- NULL: no "Total captured" line
	excluded     TEXT,                    -- raw "Excluded ops" value or NULL
	UNIQUE (run_id, rank)
);
CREATE INDEX logs_sha256 ON logs(sha256);

-- One activation block.  ord = 0-based file order within the log.
CREATE TABLE entries (
	id              INTEGER PRIMARY KEY,
	log_id          INTEGER NOT NULL REFERENCES logs(id) ON DELETE CASCADE,
	ord             INTEGER NOT NULL,
	line            INTEGER NOT NULL,
	key             TEXT NOT NULL,
	module          TEXT,                 -- key before the last '/'
	op_index        INTEGER,              -- N of op_N_name
	op_name         TEXT,                 -- name of op_N_name
	phase           INTEGER NOT NULL,     -- 0 forward, 1 backward
	shape           TEXT,
	l1_text         TEXT, l1   REAL,
	l2_text         TEXT, l2   REAL,
	min_text        TEXT, min  REAL,
	max_text        TEXT, max  REAL,
	mean_text       TEXT, mean REAL,
	stat_isnum      INTEGER NOT NULL DEFAULT 0, -- bit i: stat i is a number
	output_hash     TEXT,
	input_hashes    TEXT,
	input_producers TEXT,
	location        TEXT
);
CREATE UNIQUE INDEX entries_log_ord ON entries(log_id, ord);

-- One training or validation step of one rank (the kept record).
CREATE TABLE steps (
	id         INTEGER PRIMARY KEY,
	log_id     INTEGER NOT NULL REFERENCES logs(id) ON DELETE CASCADE,
	rank       INTEGER NOT NULL,
	validation INTEGER NOT NULL,          -- 0 training, 1 validate step
	step       INTEGER NOT NULL,
	line       INTEGER NOT NULL,
	copies     INTEGER NOT NULL DEFAULT 0, -- identical records seen again
	UNIQUE (log_id, rank, validation, step)
);

-- Narrow metric table: every printed value as text and as number.
CREATE TABLE step_metrics (
	step_id  INTEGER NOT NULL REFERENCES steps(id) ON DELETE CASCADE,
	pos      INTEGER NOT NULL,            -- order on the printed line
	name     TEXT NOT NULL,
	text     TEXT NOT NULL,
	value    REAL,                        -- NULL when NaN
	decimals INTEGER NOT NULL,
	PRIMARY KEY (step_id, pos)
) WITHOUT ROWID;

CREATE TABLE warnings (
	id      INTEGER PRIMARY KEY,
	log_id  INTEGER NOT NULL REFERENCES logs(id) ON DELETE CASCADE,
	code    TEXT NOT NULL,
	line    INTEGER NOT NULL,             -- 0: whole file
	message TEXT NOT NULL,
	excerpt TEXT NOT NULL
);
CREATE INDEX warnings_log ON warnings(log_id, id);
