-- 012_baseline_sets.sql (PostgreSQL) - as migrations/sqlite/012_baseline_sets.sql
-- (comments there): baseline sets and noise-calibrated verdicts
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
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	run_id        BIGINT NOT NULL REFERENCES runs(id),
	PRIMARY KEY (comparison_id, idx)
);
CREATE INDEX comparison_set_members_run ON comparison_set_members(run_id);

CREATE TABLE noise_results (
	comparison_id BIGINT PRIMARY KEY REFERENCES comparisons(id) ON DELETE CASCADE,
	verdict       BIGINT NOT NULL,
	lane          BIGINT NOT NULL,
	rank          BIGINT NOT NULL,
	k             BIGINT NOT NULL,
	identical_to  BIGINT,                -- NULL: not identical (0-based member)
	t_quantile    DOUBLE PRECISION,
	n_steps       BIGINT NOT NULL,
	n_skipped     BIGINT NOT NULL,
	first_skipped BIGINT
);

CREATE TABLE noise_result_metrics (
	comparison_id   BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx             BIGINT NOT NULL,
	name            TEXT NOT NULL,
	not_logged      BIGINT NOT NULL,
	n               BIGINT NOT NULL,
	n_outside       BIGINT NOT NULL,
	allowed         BIGINT NOT NULL,
	p               DOUBLE PRECISION,
	bias            DOUBLE PRECISION,
	share_above     DOUBLE PRECISION,
	first_outside   BIGINT,              -- NULL: none
	max_ratio       DOUBLE PRECISION,
	max_ratio_step  BIGINT,              -- NULL: no max_ratio
	first_nonfinite BIGINT,              -- NULL: none
	n_change        BIGINT NOT NULL,
	n_change_outside BIGINT NOT NULL,
	allowed_change  BIGINT NOT NULL,
	first_change_outside BIGINT NOT NULL,
	t_extreme       DOUBLE PRECISION,
	extreme_step    BIGINT,              -- NULL: no extreme step
	extreme_change  BIGINT NOT NULL,
	prec            BIGINT NOT NULL,
	regression      BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
);

CREATE TABLE noise_result_steps (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	metric_idx    BIGINT NOT NULL,
	step          BIGINT NOT NULL,
	y             DOUBLE PRECISION,
	mean          DOUBLE PRECISION,
	sd            DOUBLE PRECISION,
	h             DOUBLE PRECISION,
	z             DOUBLE PRECISION,
	outside       BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, metric_idx, step)
);

CREATE TABLE baseline_members (
	baseline_id BIGINT NOT NULL REFERENCES baselines(id),
	idx         BIGINT NOT NULL,
	run_id      BIGINT NOT NULL REFERENCES runs(id),
	PRIMARY KEY (baseline_id, idx)
);
CREATE INDEX baseline_members_run ON baseline_members(run_id);

CREATE TABLE baseline_history_members (
	history_id BIGINT NOT NULL REFERENCES baseline_history(id),
	idx        BIGINT NOT NULL,
	run_id     BIGINT NOT NULL REFERENCES runs(id),
	PRIMARY KEY (history_id, idx)
);
CREATE INDEX baseline_history_members_run ON baseline_history_members(run_id);
