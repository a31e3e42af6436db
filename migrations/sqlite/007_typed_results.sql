-- 007_typed_results.sql - the summary of an activation comparison (what
-- comparisons.result held as a JSON document) as typed tables; the API
-- document is rebuilt from them by web/json_act.c web_act_result_doc.
-- Training results stay in comparisons.result for now.
--
-- Codes (the matcher's enums):
--   verdict 0 pass, 1 fail, 2 error
--   policy  0 bitwise, 1 tolerance
--   status  0 match, 1 diff, 2 a_only, 3 b_only;  phase 0 forward, 1 backward
--   source  (act_result_warnings) 0 baseline log, 1 candidate log, 2 overrides
--   side    (act_result_excluded) 0 baseline, 1 candidate
-- Row references (first divergences, a reason's first rows) are row
-- indexes into comparison_rows_typed (comparison_id, rank, idx); NULL when
-- there is none.  Reals are NULL where the document has null.
--
-- Old results are converted here, in SQL (json_extract / json_each), once;
-- nothing is recomputed.  Converted comparisons get result = NULL.

CREATE TABLE act_results (
	comparison_id   INTEGER PRIMARY KEY REFERENCES comparisons(id) ON DELETE CASCADE,
	verdict         INTEGER NOT NULL,
	policy          INTEGER NOT NULL,
	policy_max_dist REAL                  -- tolerance only
);

CREATE TABLE act_result_policy_ops (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	idx           INTEGER NOT NULL,
	op            TEXT NOT NULL,
	PRIMARY KEY (comparison_id, idx)
) WITHOUT ROWID;

CREATE TABLE act_result_ranks (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	verdict       INTEGER NOT NULL,
	name_a        TEXT NOT NULL,
	name_b        TEXT NOT NULL,
	n_rows        INTEGER NOT NULL,
	n_match INTEGER NOT NULL, n_diff INTEGER NOT NULL,
	n_a_only INTEGER NOT NULL, n_b_only INTEGER NOT NULL,
	m_override INTEGER NOT NULL, m_exact INTEGER NOT NULL,
	m_fuzzy INTEGER NOT NULL, m_stats INTEGER NOT NULL,
	f_match INTEGER NOT NULL, f_diff INTEGER NOT NULL,
	f_a_only INTEGER NOT NULL, f_b_only INTEGER NOT NULL,
	b_match INTEGER NOT NULL, b_diff INTEGER NOT NULL,
	b_a_only INTEGER NOT NULL, b_b_only INTEGER NOT NULL,
	origins       INTEGER NOT NULL,
	propagated    INTEGER NOT NULL,
	max_dist      REAL,
	max_row       INTEGER,
	tolerated     INTEGER NOT NULL,
	entries_a     INTEGER NOT NULL,
	entries_b     INTEGER NOT NULL,
	overrides_used INTEGER NOT NULL,
	first_forward  INTEGER,               -- row index
	first_backward INTEGER,
	PRIMARY KEY (comparison_id, rank)
) WITHOUT ROWID;

-- Every reason in document order.  in_rank = 1: a rank's own check reason
-- (with details; rank names it); 0: a job-level one (rank NULL = none).
CREATE TABLE act_result_reasons (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	rank          INTEGER,
	in_rank       INTEGER NOT NULL,
	code          TEXT NOT NULL,
	message       TEXT NOT NULL,
	count         INTEGER,
	tolerated     INTEGER,
	first_row     INTEGER,
	first_forward INTEGER,
	first_backward INTEGER,
	max_dist      REAL,
	PRIMARY KEY (comparison_id, seq)
) WITHOUT ROWID;

CREATE TABLE act_result_excluded (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	side          INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	op            TEXT NOT NULL,
	PRIMARY KEY (comparison_id, rank, side, idx)
) WITHOUT ROWID;

CREATE TABLE act_result_unused (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	a_key         TEXT NOT NULL,
	b_key         TEXT NOT NULL,
	line          INTEGER NOT NULL,
	reason        TEXT NOT NULL,
	PRIMARY KEY (comparison_id, rank, idx)
) WITHOUT ROWID;

CREATE TABLE act_result_warnings (
	comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
	rank          INTEGER NOT NULL,
	source        INTEGER NOT NULL,
	idx           INTEGER NOT NULL,
	code          TEXT NOT NULL,
	line          INTEGER NOT NULL,
	message       TEXT NOT NULL,
	excerpt       TEXT,                   -- NULL: none
	PRIMARY KEY (comparison_id, rank, source, idx)
) WITHOUT ROWID;

-- ---- conversion of the stored documents ----------------------------------
CREATE TEMP TABLE old_act AS
SELECT id, result AS doc FROM comparisons
WHERE kind = 'activation' AND status = 'done' AND result IS NOT NULL AND json_valid(result)
  AND json_type(result, '$.ranks') = 'array';

INSERT INTO act_results
SELECT id,
       CASE json_extract(doc, '$.verdict') WHEN 'pass' THEN 0 WHEN 'fail' THEN 1 ELSE 2 END,
       CASE json_extract(doc, '$.policy.name') WHEN 'tolerance' THEN 1 ELSE 0 END,
       json_extract(doc, '$.policy.max_hash_distance')
FROM old_act;

INSERT INTO act_result_policy_ops
SELECT o.id, p.key, p.value FROM old_act o, json_each(o.doc, '$.policy.allow_only_ops') p;

INSERT INTO act_result_ranks
SELECT o.id, json_extract(r.value, '$.rank'),
       CASE json_extract(r.value, '$.verdict') WHEN 'pass' THEN 0 WHEN 'fail' THEN 1 ELSE 2 END,
       coalesce(json_extract(r.value, '$.names.a'), ''),
       coalesce(json_extract(r.value, '$.names.b'), ''),
       json_extract(r.value, '$.summary.rows'),
       json_extract(r.value, '$.summary.match'), json_extract(r.value, '$.summary.diff'),
       json_extract(r.value, '$.summary.a_only'), json_extract(r.value, '$.summary.b_only'),
       json_extract(r.value, '$.summary.methods.override'),
       json_extract(r.value, '$.summary.methods.exact'),
       json_extract(r.value, '$.summary.methods.fuzzy'),
       json_extract(r.value, '$.summary.methods.stats'),
       json_extract(r.value, '$.summary.phases.forward.match'),
       json_extract(r.value, '$.summary.phases.forward.diff'),
       json_extract(r.value, '$.summary.phases.forward.a_only'),
       json_extract(r.value, '$.summary.phases.forward.b_only'),
       json_extract(r.value, '$.summary.phases.backward.match'),
       json_extract(r.value, '$.summary.phases.backward.diff'),
       json_extract(r.value, '$.summary.phases.backward.a_only'),
       json_extract(r.value, '$.summary.phases.backward.b_only'),
       json_extract(r.value, '$.summary.origins'),
       json_extract(r.value, '$.summary.propagated'),
       json_extract(r.value, '$.summary.max_hash_distance'),
       json_extract(r.value, '$.summary.max_hash_row'),
       json_extract(r.value, '$.summary.tolerated'),
       json_extract(r.value, '$.summary.entries.a'),
       json_extract(r.value, '$.summary.entries.b'),
       json_extract(r.value, '$.overrides.used'),
       json_extract(r.value, '$.first_divergence.forward.row'),
       json_extract(r.value, '$.first_divergence.backward.row')
FROM old_act o, json_each(o.doc, '$.ranks') r;

INSERT INTO act_result_reasons
SELECT o.id, x.key, json_extract(x.value, '$.rank'),
       json_type(x.value, '$.details') IS 'object',
       json_extract(x.value, '$.code'), json_extract(x.value, '$.message'),
       json_extract(x.value, '$.details.count'), json_extract(x.value, '$.details.tolerated'),
       json_extract(x.value, '$.details.first.row'),
       json_extract(x.value, '$.details.first_forward.row'),
       json_extract(x.value, '$.details.first_backward.row'),
       json_extract(x.value, '$.details.max_hash_distance')
FROM old_act o, json_each(o.doc, '$.reasons') x;

INSERT INTO act_result_excluded
SELECT o.id, json_extract(r.value, '$.rank'), s.side, e.key, e.value
FROM old_act o, json_each(o.doc, '$.ranks') r,
     (SELECT 0 AS side, 'a' AS name UNION ALL SELECT 1, 'b') s,
     json_each(r.value, '$.excluded_ops.' || s.name) e;

INSERT INTO act_result_unused
SELECT o.id, json_extract(r.value, '$.rank'), u.key,
       json_extract(u.value, '$.a_key'), json_extract(u.value, '$.b_key'),
       json_extract(u.value, '$.line'), json_extract(u.value, '$.reason')
FROM old_act o, json_each(o.doc, '$.ranks') r, json_each(r.value, '$.overrides.unused') u;

INSERT INTO act_result_warnings
SELECT o.id, json_extract(r.value, '$.rank'), s.source, w.key,
       json_extract(w.value, '$.code'), json_extract(w.value, '$.line'),
       json_extract(w.value, '$.message'), json_extract(w.value, '$.excerpt')
FROM old_act o, json_each(o.doc, '$.ranks') r,
     (SELECT 0 AS source, '$.log_warnings.a' AS path UNION ALL
      SELECT 1, '$.log_warnings.b' UNION ALL SELECT 2, '$.overrides.warnings') s,
     json_each(r.value, s.path) w;

UPDATE comparisons SET result = NULL WHERE id IN (SELECT comparison_id FROM act_results);

DROP TABLE old_act;
