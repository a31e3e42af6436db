-- 009_typed_train_results.sql - the result of a training comparison (what
-- comparisons.result held as a JSON document) as typed tables; the API
-- document is rebuilt from them by web/json_train.c web_train_result_doc.
--
-- Codes: verdict 0 pass, 1 fail, 2 error; side 0 baseline, 1 candidate.
-- Reals: NULL is NaN (SQLite cannot store NaN); +-Inf are stored as is.
-- Old results are converted here, in SQL (json_extract / json_each), once;
-- nothing is recomputed.  Converted comparisons get result = NULL.

CREATE TABLE train_results (
	comparison_id  INTEGER PRIMARY KEY REFERENCES comparisons(id) ON DELETE CASCADE,
	verdict        INTEGER NOT NULL,
	rank           INTEGER NOT NULL,
	policy_name    TEXT NOT NULL,
	policy_base    TEXT NOT NULL,
	min_steps      INTEGER NOT NULL,
	allow_warnings INTEGER NOT NULL,
	policy_rank    INTEGER,               -- NULL: rank 0 / lowest present
	n_common       INTEGER NOT NULL,
	n_only_a       INTEGER NOT NULL,      -- counts (the lists below are capped)
	n_only_b       INTEGER NOT NULL
);

-- The policy's thresholds in compared order.
CREATE TABLE train_result_thresholds (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           INTEGER NOT NULL,
	metric        TEXT NOT NULL,
	abs           REAL,
	rel           REAL,                   -- NULL: no rel threshold (has_rel 0)
	has_rel       INTEGER NOT NULL,
	if_logged     INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, idx)
) WITHOUT ROWID;

CREATE TABLE train_result_reasons (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	code          TEXT NOT NULL,
	message       TEXT NOT NULL,
	metric        TEXT,                   -- NULL: not about a metric
	side          INTEGER,                -- NULL: none
	step          INTEGER,
	max_abs       REAL,
	max_abs_text  TEXT,                   -- NULL: no max_abs
	threshold     REAL,
	has_threshold INTEGER NOT NULL,
	count         INTEGER,
	line          INTEGER,
	PRIMARY KEY (comparison_id, seq)
) WITHOUT ROWID;

CREATE TABLE train_result_metrics (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           INTEGER NOT NULL,
	name          TEXT NOT NULL,
	th_abs        REAL,
	th_rel        REAL,
	th_has_rel    INTEGER NOT NULL,
	present_a     INTEGER NOT NULL,
	present_b     INTEGER NOT NULL,
	decimals      INTEGER,                -- NULL: no resolution
	resolution    REAL,
	below_resolution INTEGER NOT NULL,
	compared      INTEGER NOT NULL,
	max_abs       REAL,
	max_abs_text  TEXT NOT NULL,
	mean_abs      REAL,
	max_rel       REAL,
	mean_rel      REAL,
	max_abs_step  INTEGER,
	first_over    INTEGER,
	n_over        INTEGER NOT NULL,
	nan_a INTEGER NOT NULL, nan_b INTEGER NOT NULL,
	inf_a INTEGER NOT NULL, inf_b INTEGER NOT NULL,
	pass          INTEGER NOT NULL,
	not_logged    INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, idx)
) WITHOUT ROWID;

CREATE TABLE train_result_notes (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           INTEGER NOT NULL,
	note          TEXT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
) WITHOUT ROWID;

-- Training steps in one run only (the listed, capped part).
CREATE TABLE train_result_only_steps (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	side          INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	step          INTEGER NOT NULL,
	PRIMARY KEY (comparison_id, side, idx)
) WITHOUT ROWID;

CREATE TABLE train_result_warnings (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	side          INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	code          TEXT NOT NULL,
	line          INTEGER NOT NULL,
	message       TEXT NOT NULL,
	excerpt       TEXT NOT NULL,
	PRIMARY KEY (comparison_id, side, idx)
) WITHOUT ROWID;

-- ---- conversion of the stored documents ----------------------------------
CREATE TEMP TABLE old_train AS
SELECT id, result AS doc FROM comparisons
WHERE kind = 'training' AND status = 'done' AND result IS NOT NULL AND json_valid(result)
  AND json_type(result, '$.metrics') = 'object' AND json_type(result, '$.policy') = 'object';


INSERT INTO train_results
SELECT id,
       CASE json_extract(doc, '$.verdict') WHEN 'pass' THEN 0 WHEN 'fail' THEN 1 ELSE 2 END,
       json_extract(doc, '$.rank'),
       json_extract(doc, '$.policy.name'), json_extract(doc, '$.policy.base'),
       json_extract(doc, '$.policy.min_steps'), json_extract(doc, '$.policy.allow_warnings'),
       json_extract(doc, '$.policy.rank'),
       json_extract(doc, '$.steps.common'),
       json_extract(doc, '$.steps.only_baseline_count'),
       json_extract(doc, '$.steps.only_candidate_count')
FROM old_train;

INSERT INTO train_result_thresholds
SELECT o.id, row_number() OVER (PARTITION BY o.id ORDER BY t.id) - 1, t.key,
       CASE json_extract(t.value, '$.abs') WHEN 'Inf' THEN 9e999 WHEN '-Inf' THEN -9e999
            WHEN 'NaN' THEN NULL ELSE json_extract(t.value, '$.abs') END,
       CASE json_extract(t.value, '$.rel') WHEN 'Inf' THEN 9e999 WHEN '-Inf' THEN -9e999
            WHEN 'NaN' THEN NULL ELSE json_extract(t.value, '$.rel') END,
       json_type(t.value, '$.rel') IS NOT 'null',
       EXISTS (SELECT 1 FROM json_each(o.doc, '$.policy.if_logged') i WHERE i.value = t.key)
FROM old_train o, json_each(o.doc, '$.policy.thresholds') t;

INSERT INTO train_result_reasons
SELECT o.id, x.key, json_extract(x.value, '$.code'), json_extract(x.value, '$.message'),
       json_extract(x.value, '$.metric'),
       CASE json_extract(x.value, '$.side') WHEN 'baseline' THEN 0 WHEN 'candidate' THEN 1 END,
       json_extract(x.value, '$.step'),
       CASE json_extract(x.value, '$.max_abs') WHEN 'Inf' THEN 9e999 WHEN 'NaN' THEN 9e999
            ELSE json_extract(x.value, '$.max_abs') END,
       json_extract(x.value, '$.max_abs_exact'),
       CASE json_extract(x.value, '$.threshold') WHEN 'Inf' THEN 9e999 WHEN '-Inf' THEN -9e999
            WHEN 'NaN' THEN NULL ELSE json_extract(x.value, '$.threshold') END,
       json_type(x.value, '$.threshold') IS NOT NULL,
       json_extract(x.value, '$.count'), json_extract(x.value, '$.line')
FROM old_train o, json_each(o.doc, '$.reasons') x;

INSERT INTO train_result_metrics
SELECT o.id, row_number() OVER (PARTITION BY o.id ORDER BY m.id) - 1, m.key,
       CASE json_extract(m.value, '$.threshold.abs') WHEN 'Inf' THEN 9e999
            WHEN '-Inf' THEN -9e999 WHEN 'NaN' THEN NULL
            ELSE json_extract(m.value, '$.threshold.abs') END,
       CASE json_extract(m.value, '$.threshold.rel') WHEN 'Inf' THEN 9e999
            WHEN '-Inf' THEN -9e999 WHEN 'NaN' THEN NULL
            ELSE json_extract(m.value, '$.threshold.rel') END,
       json_type(m.value, '$.threshold.rel') IS NOT 'null',
       json_extract(m.value, '$.present[0]'), json_extract(m.value, '$.present[1]'),
       json_extract(m.value, '$.decimals'),
       CASE json_extract(m.value, '$.resolution') WHEN 'Inf' THEN 9e999 WHEN 'NaN' THEN NULL
            ELSE json_extract(m.value, '$.resolution') END,
       json_extract(m.value, '$.below_resolution'),
       json_extract(m.value, '$.compared'),
       CASE json_extract(m.value, '$.max_abs') WHEN 'Inf' THEN 9e999 WHEN 'NaN' THEN 9e999
            ELSE json_extract(m.value, '$.max_abs') END,
       json_extract(m.value, '$.max_abs_exact'),
       CASE json_extract(m.value, '$.mean_abs') WHEN 'Inf' THEN 9e999 WHEN '-Inf' THEN -9e999
            WHEN 'NaN' THEN NULL ELSE json_extract(m.value, '$.mean_abs') END,
       CASE json_extract(m.value, '$.max_rel') WHEN 'Inf' THEN 9e999 WHEN '-Inf' THEN -9e999
            WHEN 'NaN' THEN NULL ELSE json_extract(m.value, '$.max_rel') END,
       CASE json_extract(m.value, '$.mean_rel') WHEN 'Inf' THEN 9e999 WHEN '-Inf' THEN -9e999
            WHEN 'NaN' THEN NULL ELSE json_extract(m.value, '$.mean_rel') END,
       json_extract(m.value, '$.max_abs_step'), json_extract(m.value, '$.first_over'),
       json_extract(m.value, '$.over'),
       json_extract(m.value, '$.nan[0]'), json_extract(m.value, '$.nan[1]'),
       json_extract(m.value, '$.inf[0]'), json_extract(m.value, '$.inf[1]'),
       coalesce(json_extract(m.value, '$.pass'), 0), json_extract(m.value, '$.not_logged')
FROM old_train o, json_each(o.doc, '$.metrics') m;

INSERT INTO train_result_notes
SELECT o.id, n.key, n.value FROM old_train o, json_each(o.doc, '$.notes') n;

INSERT INTO train_result_only_steps
SELECT o.id, s.side, e.key, e.value
FROM old_train o,
     (SELECT 0 AS side, '$.steps.only_baseline' AS path UNION ALL
      SELECT 1, '$.steps.only_candidate') s,
     json_each(o.doc, s.path) e;

INSERT INTO train_result_warnings
SELECT o.id, s.side, w.key, json_extract(w.value, '$.code'), json_extract(w.value, '$.line'),
       json_extract(w.value, '$.message'), coalesce(json_extract(w.value, '$.excerpt'), '')
FROM old_train o,
     (SELECT 0 AS side, '$.warnings.baseline' AS path UNION ALL
      SELECT 1, '$.warnings.candidate') s,
     json_each(o.doc, s.path) w;

UPDATE comparisons SET result = NULL WHERE id IN (SELECT comparison_id FROM train_results);

DROP TABLE old_train;
