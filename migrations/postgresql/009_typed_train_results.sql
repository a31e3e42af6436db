-- 009_typed_train_results.sql (PostgreSQL) - the result of a training
-- comparison as typed tables; as migrations/sqlite/009_typed_train_results.sql
-- (codes there).  NULL is NaN as on SQLite (the store writes it so,
-- although PostgreSQL could hold NaN); +-Infinity are stored as is.
-- Nothing to convert: a PostgreSQL database starts fresh.

CREATE TABLE train_results (
	comparison_id  BIGINT PRIMARY KEY REFERENCES comparisons(id) ON DELETE CASCADE,
	verdict        BIGINT NOT NULL,
	rank           BIGINT NOT NULL,
	policy_name    TEXT NOT NULL,
	policy_base    TEXT NOT NULL,
	min_steps      BIGINT NOT NULL,
	allow_warnings BIGINT NOT NULL,
	policy_rank    BIGINT,               -- NULL: rank 0 / lowest present
	n_common       BIGINT NOT NULL,
	n_only_a       BIGINT NOT NULL,      -- counts (the lists below are capped)
	n_only_b       BIGINT NOT NULL
);

-- The policy's thresholds in compared order.
CREATE TABLE train_result_thresholds (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	metric        TEXT NOT NULL,
	abs           DOUBLE PRECISION,
	rel           DOUBLE PRECISION,                   -- NULL: no rel threshold (has_rel 0)
	has_rel       BIGINT NOT NULL,
	if_logged     BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
);

CREATE TABLE train_result_reasons (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	seq           BIGINT NOT NULL,
	code          TEXT NOT NULL,
	message       TEXT NOT NULL,
	metric        TEXT,                   -- NULL: not about a metric
	side          BIGINT,                -- NULL: none
	step          BIGINT,
	max_abs       DOUBLE PRECISION,
	max_abs_text  TEXT,                   -- NULL: no max_abs
	threshold     DOUBLE PRECISION,
	has_threshold BIGINT NOT NULL,
	count         BIGINT,
	line          BIGINT,
	PRIMARY KEY (comparison_id, seq)
);

CREATE TABLE train_result_metrics (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	name          TEXT NOT NULL,
	th_abs        DOUBLE PRECISION,
	th_rel        DOUBLE PRECISION,
	th_has_rel    BIGINT NOT NULL,
	present_a     BIGINT NOT NULL,
	present_b     BIGINT NOT NULL,
	decimals      BIGINT,                -- NULL: no resolution
	resolution    DOUBLE PRECISION,
	below_resolution BIGINT NOT NULL,
	compared      BIGINT NOT NULL,
	max_abs       DOUBLE PRECISION,
	max_abs_text  TEXT NOT NULL,
	mean_abs      DOUBLE PRECISION,
	max_rel       DOUBLE PRECISION,
	mean_rel      DOUBLE PRECISION,
	max_abs_step  BIGINT,
	first_over    BIGINT,
	n_over        BIGINT NOT NULL,
	nan_a BIGINT NOT NULL, nan_b BIGINT NOT NULL,
	inf_a BIGINT NOT NULL, inf_b BIGINT NOT NULL,
	pass          BIGINT NOT NULL,
	not_logged    BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
);

CREATE TABLE train_result_notes (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	note          TEXT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
);

-- Training steps in one run only (the listed, capped part).
CREATE TABLE train_result_only_steps (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	side          BIGINT NOT NULL,
	idx           BIGINT NOT NULL,
	step          BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, side, idx)
);

CREATE TABLE train_result_warnings (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	side          BIGINT NOT NULL,
	idx           BIGINT NOT NULL,
	code          TEXT NOT NULL,
	line          BIGINT NOT NULL,
	message       TEXT NOT NULL,
	excerpt       TEXT NOT NULL,
	PRIMARY KEY (comparison_id, side, idx)
);
