-- 005_typed_rows.sql (PostgreSQL) - activation result rows as typed
-- columns pointing at the two runs' entries, and training per-step cells;
-- as migrations/sqlite/005_typed_rows.sql (codes and meaning there).
-- The SQLite migration converts old JSON rows in place; a PostgreSQL
-- database starts fresh (no comparison can exist before this version is
-- applied at its first start), so here the old tables are simply replaced.

DROP TABLE comparison_rows;
CREATE TABLE comparison_rows (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	idx           BIGINT NOT NULL,
	a_entry_id    BIGINT,                 -- entries.id; NULL for b_only (no FK: see SQLite's)
	b_entry_id    BIGINT,
	status        BIGINT NOT NULL,
	method        BIGINT,
	phase         BIGINT NOT NULL,
	origin        BIGINT NOT NULL,
	shape_differs BIGINT NOT NULL,
	out_dist      DOUBLE PRECISION,
	in_dist       DOUBLE PRECISION,
	d_shape DOUBLE PRECISION, d_l1 DOUBLE PRECISION, d_l2 DOUBLE PRECISION,
	d_min DOUBLE PRECISION, d_max DOUBLE PRECISION, d_mean DOUBLE PRECISION,
	PRIMARY KEY (comparison_id, rank, idx)
);

CREATE TABLE comparison_step_cells (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	step          BIGINT NOT NULL,
	pos           BIGINT NOT NULL,
	metric        TEXT NOT NULL,
	a DOUBLE PRECISION, b DOUBLE PRECISION,
	dec_a BIGINT, dec_b BIGINT,
	abs DOUBLE PRECISION, rel DOUBLE PRECISION,
	abs_text      TEXT,
	over          BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, rank, step, pos)
);

DROP TABLE comparison_steps;
CREATE TABLE comparison_steps (
	comparison_id BIGINT NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          BIGINT NOT NULL,
	step          BIGINT NOT NULL,
	PRIMARY KEY (comparison_id, rank, step)
);
