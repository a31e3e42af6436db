-- 005_typed_rows.sql - activation result rows as typed columns that point
-- at the two runs' entries instead of a JSON copy of both entries.  The
-- rows API joins entries to rebuild exactly the JSON it served before.
--
-- Codes (the matcher's enums, server/act_json.c names them):
--   status  0 match, 1 diff, 2 a_only, 3 b_only
--   method  0 override, 1 exact, 2 fuzzy, 3 stats; NULL for only-rows
--   phase   0 forward, 1 backward
-- Distances and per-stat relative differences are REAL, NULL when there
-- is none (the matcher's "< 0").  The profile's max distance is
-- max(out_dist, in_dist), computed on read.
-- a_entry_id / b_entry_id have no foreign key on purpose: a run (and so
-- its entries) cannot be deleted while a comparison references it
-- (store_run_delete refuses), and a foreign key would make every entry
-- deletion scan this table.
--
-- Old results are converted in place (nothing is recomputed): each old
-- row's JSON gives the codes, distances and diffs, and its entries are
-- found by (run, rank, file order) through the JSON's a.order / b.order.

CREATE TABLE comparison_rows_typed (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	a_entry_id    INTEGER,                -- entries.id; NULL for b_only
	b_entry_id    INTEGER,                -- entries.id; NULL for a_only
	status        INTEGER NOT NULL,
	method        INTEGER,
	phase         INTEGER NOT NULL,
	origin        INTEGER NOT NULL,       -- 1: this op starts a divergence
	shape_differs INTEGER NOT NULL,
	out_dist      REAL,                   -- output hash distance
	in_dist       REAL,                   -- input hash distance
	d_shape REAL, d_l1 REAL, d_l2 REAL, d_min REAL, d_max REAL, d_mean REAL,
	PRIMARY KEY (comparison_id, rank, idx)
) WITHOUT ROWID;

INSERT INTO comparison_rows_typed
SELECT r.comparison_id, r.rank, r.idx,
       CASE WHEN json_type(r.row, '$.a') = 'object' THEN
            (SELECT e.id FROM logs l JOIN entries e ON e.log_id = l.id
             WHERE l.run_id = c.baseline_id AND l.rank = r.rank
               AND e.ord = json_extract(r.row, '$.a.order')) END,
       CASE WHEN json_type(r.row, '$.b') = 'object' THEN
            (SELECT e.id FROM logs l JOIN entries e ON e.log_id = l.id
             WHERE l.run_id = c.candidate_id AND l.rank = r.rank
               AND e.ord = json_extract(r.row, '$.b.order')) END,
       CASE r.status WHEN 'match' THEN 0 WHEN 'diff' THEN 1 WHEN 'a_only' THEN 2 ELSE 3 END,
       CASE r.method WHEN 'override' THEN 0 WHEN 'exact' THEN 1 WHEN 'fuzzy' THEN 2
                     WHEN 'stats' THEN 3 END,
       CASE r.phase WHEN 'backward' THEN 1 ELSE 0 END,
       r.origin,
       coalesce(json_extract(r.row, '$.shape_differs'), 0),
       json_extract(r.row, '$.output_hash_distance'),
       json_extract(r.row, '$.input_hash_distance'),
       json_extract(r.row, '$.stat_diffs.Shape'),
       json_extract(r.row, '$.stat_diffs."L1 norm"'),
       json_extract(r.row, '$.stat_diffs."L2 norm"'),
       json_extract(r.row, '$.stat_diffs.Min'),
       json_extract(r.row, '$.stat_diffs.Max'),
       json_extract(r.row, '$.stat_diffs.Mean')
FROM comparison_rows r JOIN comparisons c ON c.id = r.comparison_id;

DROP TABLE comparison_rows;
ALTER TABLE comparison_rows_typed RENAME TO comparison_rows;

-- Training per-step rows: one typed cell per (step, metric) instead of a
-- JSON object per step.  comparison_steps keeps one row per step (a step
-- whose metrics are all validation series has no cells).
--   pos     the metric's place in the row (the check's metric order)
--   a, b    the printed values; NULL when NaN or when the side did not
--           print the metric (dec_a / dec_b NULL then)
--   dec_*   decimals printed (the text is the value with that many)
--   abs, rel  |a - b| and relative difference; NULL when NaN or a side is
--           absent; abs_text the exact decimal |a - b| (NULL: a side absent)
--   over    1 when the pair breaks its threshold
-- Old steps are converted from their JSON the same way ("NaN",
-- "Infinity", "-Infinity" strings become NULL / +-inf).

CREATE TABLE comparison_step_cells (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	step          INTEGER NOT NULL,
	pos           INTEGER NOT NULL,
	metric        TEXT NOT NULL,
	a REAL, b REAL,
	dec_a INTEGER, dec_b INTEGER,
	abs REAL, rel REAL,
	abs_text      TEXT,
	over          INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, rank, step, pos)
) WITHOUT ROWID;

INSERT INTO comparison_step_cells
SELECT s.comparison_id, s.rank, s.step,
       (SELECT count(*) FROM json_each(s.row) k WHERE k.key <> 'step' AND k.id < j.id),
       j.key,
       CASE json_type(j.value, '$.a') WHEN 'real' THEN json_extract(j.value, '$.a')
            WHEN 'integer' THEN json_extract(j.value, '$.a')
            WHEN 'text' THEN CASE json_extract(j.value, '$.a') WHEN 'Infinity' THEN 9e999
                                  WHEN '-Infinity' THEN -9e999 END END,
       CASE json_type(j.value, '$.b') WHEN 'real' THEN json_extract(j.value, '$.b')
            WHEN 'integer' THEN json_extract(j.value, '$.b')
            WHEN 'text' THEN CASE json_extract(j.value, '$.b') WHEN 'Infinity' THEN 9e999
                                  WHEN '-Infinity' THEN -9e999 END END,
       CASE WHEN json_type(j.value, '$.a_text') = 'text' THEN
            CASE WHEN instr(json_extract(j.value, '$.a_text'), '.') > 0
                 THEN length(json_extract(j.value, '$.a_text'))
                      - instr(json_extract(j.value, '$.a_text'), '.')
                 ELSE 0 END END,
       CASE WHEN json_type(j.value, '$.b_text') = 'text' THEN
            CASE WHEN instr(json_extract(j.value, '$.b_text'), '.') > 0
                 THEN length(json_extract(j.value, '$.b_text'))
                      - instr(json_extract(j.value, '$.b_text'), '.')
                 ELSE 0 END END,
       CASE json_type(j.value, '$.abs') WHEN 'real' THEN json_extract(j.value, '$.abs')
            WHEN 'integer' THEN json_extract(j.value, '$.abs')
            WHEN 'text' THEN CASE json_extract(j.value, '$.abs') WHEN 'Infinity' THEN 9e999
                                  WHEN '-Infinity' THEN -9e999 END END,
       CASE json_type(j.value, '$.rel') WHEN 'real' THEN json_extract(j.value, '$.rel')
            WHEN 'integer' THEN json_extract(j.value, '$.rel')
            WHEN 'text' THEN CASE json_extract(j.value, '$.rel') WHEN 'Infinity' THEN 9e999
                                  WHEN '-Infinity' THEN -9e999 END END,
       json_extract(j.value, '$.abs_exact'),
       coalesce(json_extract(j.value, '$.over'), 0)
FROM comparison_steps s, json_each(s.row) j
WHERE j.key <> 'step' AND json_type(j.value) = 'object';

CREATE TABLE comparison_steps_typed (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	step          INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, rank, step)
) WITHOUT ROWID;
INSERT INTO comparison_steps_typed SELECT comparison_id, rank, step FROM comparison_steps;
DROP TABLE comparison_steps;
ALTER TABLE comparison_steps_typed RENAME TO comparison_steps;
