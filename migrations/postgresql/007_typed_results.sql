-- 007_typed_results.sql (PostgreSQL) - the summary of an activation
-- comparison as typed tables; as migrations/sqlite/007_typed_results.sql
-- (codes there).  The SQLite migration also converts stored JSON results;
-- a PostgreSQL database starts fresh, so there is nothing to convert.

CREATE TABLE act_results (
	comparison_id   BIGINT PRIMARY KEY REFERENCES comparisons(id) ON DELETE CASCADE,
	verdict         BIGINT NOT NULL,
	policy          BIGINT NOT NULL,
	policy_max_dist DOUBLE PRECISION                  -- tolerance only
);

CREATE TABLE act_result_policy_ops (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           BIGINT NOT NULL,
	op            TEXT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
);

CREATE TABLE act_result_ranks (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	verdict       BIGINT NOT NULL,
	name_a        TEXT NOT NULL,
	name_b        TEXT NOT NULL,
	n_rows        BIGINT NOT NULL,
	n_match BIGINT NOT NULL, n_diff BIGINT NOT NULL,
	n_a_only BIGINT NOT NULL, n_b_only BIGINT NOT NULL,
	m_override BIGINT NOT NULL, m_exact BIGINT NOT NULL,
	m_fuzzy BIGINT NOT NULL, m_stats BIGINT NOT NULL,
	f_match BIGINT NOT NULL, f_diff BIGINT NOT NULL,
	f_a_only BIGINT NOT NULL, f_b_only BIGINT NOT NULL,
	b_match BIGINT NOT NULL, b_diff BIGINT NOT NULL,
	b_a_only BIGINT NOT NULL, b_b_only BIGINT NOT NULL,
	origins       BIGINT NOT NULL,
	propagated    BIGINT NOT NULL,
	max_dist      DOUBLE PRECISION,
	max_row       BIGINT,
	tolerated     BIGINT NOT NULL,
	entries_a     BIGINT NOT NULL,
	entries_b     BIGINT NOT NULL,
	overrides_used BIGINT NOT NULL,
	first_forward  BIGINT,               -- row index
	first_backward BIGINT,
	PRIMARY KEY (comparison_id, rank)
);

-- Every reason in document order.  in_rank = 1: a rank's own check reason
-- (with details; rank names it); 0: a job-level one (rank NULL = none).
CREATE TABLE act_result_reasons (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	seq           BIGINT NOT NULL,
	rank          BIGINT,
	in_rank       BIGINT NOT NULL,
	code          TEXT NOT NULL,
	message       TEXT NOT NULL,
	count         BIGINT,
	tolerated     BIGINT,
	first_row     BIGINT,
	first_forward BIGINT,
	first_backward BIGINT,
	max_dist      DOUBLE PRECISION,
	PRIMARY KEY (comparison_id, seq)
);

CREATE TABLE act_result_excluded (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	side          BIGINT NOT NULL,
	idx           BIGINT NOT NULL,
	op            TEXT NOT NULL,
	PRIMARY KEY (comparison_id, rank, side, idx)
);

CREATE TABLE act_result_unused (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	idx           BIGINT NOT NULL,
	a_key         TEXT NOT NULL,
	b_key         TEXT NOT NULL,
	line          BIGINT NOT NULL,
	reason        TEXT NOT NULL,
	PRIMARY KEY (comparison_id, rank, idx)
);

CREATE TABLE act_result_warnings (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	source        BIGINT NOT NULL,
	idx           BIGINT NOT NULL,
	code          TEXT NOT NULL,
	line          BIGINT NOT NULL,
	message       TEXT NOT NULL,
	excerpt       TEXT,                   -- NULL: none
	PRIMARY KEY (comparison_id, rank, source, idx)
);
