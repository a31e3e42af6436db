-- 002_comparisons.sql - comparisons as jobs and their stored results.
-- A comparison is queued, claimed by a worker (running), and ends done
-- (verdict + result JSON) or failed (error).  Result rows are stored as
-- JSON text plus the columns pages filter on, so nothing is recomputed.
-- Runs cannot be deleted while a comparison references them (no cascade:
-- store_run_delete refuses with a clear message).

CREATE TABLE comparisons (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	name         TEXT NOT NULL DEFAULT '',
	kind         TEXT NOT NULL CHECK (kind IN ('activation', 'training')),
	baseline_id  INTEGER NOT NULL REFERENCES runs(id),
	candidate_id INTEGER NOT NULL REFERENCES runs(id),
	policy       TEXT,                    -- JSON object text or NULL
	overrides    TEXT,                    -- override file text or NULL
	status       TEXT NOT NULL DEFAULT 'queued'
	             CHECK (status IN ('queued', 'running', 'done', 'failed')),
	verdict      TEXT,
	result       TEXT,                    -- JSON text when done
	error        TEXT,                    -- why it failed
	created_at   TEXT NOT NULL,
	started_at   TEXT,
	finished_at  TEXT
);
CREATE INDEX comparisons_status ON comparisons(status, id);
CREATE INDEX comparisons_baseline ON comparisons(baseline_id);
CREATE INDEX comparisons_candidate ON comparisons(candidate_id);

-- One output row of an activation comparison (per rank, in output order).
CREATE TABLE comparison_rows (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	status        TEXT NOT NULL,          -- match, diff, a_only, b_only
	method        TEXT,                   -- override, exact, fuzzy, stats
	phase         TEXT NOT NULL,          -- forward, backward
	origin        INTEGER NOT NULL,       -- 1: this op starts a divergence
	a_key         TEXT,
	b_key         TEXT,
	max_distance  REAL,                   -- NULL when none / NaN
	row           TEXT NOT NULL,          -- the row as JSON
	PRIMARY KEY (comparison_id, rank, idx)
) WITHOUT ROWID;

-- One step of a training comparison's per-step table.
CREATE TABLE comparison_steps (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	step          INTEGER NOT NULL,
	row           TEXT NOT NULL,
	PRIMARY KEY (comparison_id, rank, step)
) WITHOUT ROWID;
