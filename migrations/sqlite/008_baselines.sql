-- 008_baselines.sql - golden baselines, suites and their history (issue 16).
--   baselines          one row per name ("main/llama3-8b-fsdp"): the run
--                      that is the current good baseline for that name
--   baseline_history   every change of a baseline, oldest first: the run,
--                      when, the API token that made it (NULL = the daemon
--                      took open writes), the note, and the comparison
--                      whose pass promoted the run (NULL = set by hand)
--   comparisons.baseline_name  the baseline name a comparison was made
--                      against (resolved to baseline_id at creation)
--   comparisons.suite / .config  the suite (a change: PR number or
--                      commit) and config label (fsdp, tp, ...) it files into
--   comparisons.suite_size  how many configs its suite is to have (the
--                      largest given counts): suite.completed waits for them
-- Runs a baseline or its history names cannot be deleted (no cascade:
-- store_run_delete refuses, like for comparisons).

CREATE TABLE baselines (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL UNIQUE,
	run_id     INTEGER NOT NULL REFERENCES runs(id),
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);

CREATE TABLE baseline_history (
	id            INTEGER PRIMARY KEY AUTOINCREMENT,
	baseline_id   INTEGER NOT NULL REFERENCES baselines(id),
	run_id        INTEGER NOT NULL REFERENCES runs(id),
	set_at        TEXT NOT NULL,
	token_name    TEXT,
	note          TEXT NOT NULL DEFAULT '',
	comparison_id INTEGER
);
CREATE INDEX baseline_history_baseline ON baseline_history(baseline_id, id);
CREATE INDEX baseline_history_run ON baseline_history(run_id);
CREATE INDEX baselines_run ON baselines(run_id);

ALTER TABLE comparisons ADD COLUMN baseline_name TEXT;
ALTER TABLE comparisons ADD COLUMN suite TEXT;
ALTER TABLE comparisons ADD COLUMN config TEXT;
ALTER TABLE comparisons ADD COLUMN suite_size INTEGER; -- configs the suite expects, or NULL
CREATE INDEX comparisons_by_baseline_name ON comparisons(baseline_name, id)
	WHERE baseline_name IS NOT NULL;
CREATE INDEX comparisons_by_suite ON comparisons(suite, config, id) WHERE suite IS NOT NULL;
