-- 012_baseline_sets.sql - baseline sets and noise-calibrated verdicts
-- (issue 26, matcher/spec/noise.md).
--   comparisons.lane          the lane of a done noise comparison
--                             ('identical', 'within_noise', 'regression');
--                             NULL for every other comparison (lists,
--                             suites and webhooks read it without the result)
--   comparison_set_members    a noise comparison's baseline set in order
--                             (member 1 = idx 0); comparisons.baseline_id is
--                             the first member, so every reader of one
--                             baseline run keeps working
--   noise_results             the result's head (codes: verdict 0 pass,
--                             1 fail, 2 error; lane 0 none, 1 identical,
--                             2 within_noise, 3 regression)
--   noise_result_metrics      per compared metric, the summary
--   noise_result_steps        per metric and compared step: y, mean, sd, h,
--                             z (NULL = NaN) and outside (bit 0 the value,
--                             bit 1 the change); one row per metric and
--                             step, only where the metric was compared
--   The reasons and notes of a noise result live in train_result_reasons /
--   train_result_notes (the same shape; store/DESIGN.md).
--   baseline_members          a baseline whose current entry is a set:
--                             its runs, oldest first (baselines.run_id is
--                             the newest); no rows for a single run
--   baseline_history_members  the set of a history entry that set one
--                             (baseline_history.run_id is its newest run)
-- Runs named here cannot be deleted (no cascade), like baselines.run_id.

ALTER TABLE comparisons ADD COLUMN lane TEXT;

CREATE TABLE comparison_set_members (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           INTEGER NOT NULL,
	run_id        INTEGER NOT NULL REFERENCES runs(id),
	PRIMARY KEY (comparison_id, idx)
) WITHOUT ROWID;
CREATE INDEX comparison_set_members_run ON comparison_set_members(run_id);

CREATE TABLE noise_results (
	comparison_id INTEGER PRIMARY KEY REFERENCES comparisons(id) ON DELETE CASCADE,
	verdict       INTEGER NOT NULL,
	lane          INTEGER NOT NULL,
	rank          INTEGER NOT NULL,
	k             INTEGER NOT NULL,
	identical_to  INTEGER,                -- NULL: not identical (0-based member)
	t_quantile    REAL,
	n_steps       INTEGER NOT NULL,
	n_skipped     INTEGER NOT NULL,
	first_skipped INTEGER
);

CREATE TABLE noise_result_metrics (
	comparison_id   INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx             INTEGER NOT NULL,
	name            TEXT NOT NULL,
	not_logged      INTEGER NOT NULL,
	n               INTEGER NOT NULL,
	n_outside       INTEGER NOT NULL,
	allowed         INTEGER NOT NULL,
	p               REAL,
	bias            REAL,
	share_above     REAL,
	first_outside   INTEGER,              -- NULL: none
	max_ratio       REAL,
	max_ratio_step  INTEGER,              -- NULL: no max_ratio
	first_nonfinite INTEGER,              -- NULL: none
	n_change        INTEGER NOT NULL,
	n_change_outside INTEGER NOT NULL,
	allowed_change  INTEGER NOT NULL,
	first_change_outside INTEGER NOT NULL,
	t_extreme       REAL,
	extreme_step    INTEGER,              -- NULL: no extreme step
	extreme_change  INTEGER NOT NULL,
	prec            INTEGER NOT NULL,
	regression      INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, idx)
) WITHOUT ROWID;

CREATE TABLE noise_result_steps (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	metric_idx    INTEGER NOT NULL,
	step          INTEGER NOT NULL,
	y             REAL,
	mean          REAL,
	sd            REAL,
	h             REAL,
	z             REAL,
	outside       INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, metric_idx, step)
) WITHOUT ROWID;

CREATE TABLE baseline_members (
	baseline_id INTEGER NOT NULL REFERENCES baselines(id),
	idx         INTEGER NOT NULL,
	run_id      INTEGER NOT NULL REFERENCES runs(id),
	PRIMARY KEY (baseline_id, idx)
) WITHOUT ROWID;
CREATE INDEX baseline_members_run ON baseline_members(run_id);

CREATE TABLE baseline_history_members (
	history_id INTEGER NOT NULL REFERENCES baseline_history(id),
	idx        INTEGER NOT NULL,
	run_id     INTEGER NOT NULL REFERENCES runs(id),
	PRIMARY KEY (history_id, idx)
) WITHOUT ROWID;
CREATE INDEX baseline_history_members_run ON baseline_history_members(run_id);
