-- 013_artifact_sources.sql - the field's other artifacts (issue 27):
-- logs.source widened to the new formats.
--   'megatron'        Megatron-LM golden_values_*.json (training)
--   'nvdlfw_inspect'  NVIDIA DL Framework Inspect statistics log (training)
--   'mllog'           MLPerf MLLOG lines (training)
--   'msprobe'         Ascend msprobe dump.json (activation)
-- SQLite cannot change a CHECK in place: a new column with the wide CHECK
-- takes the values over and the old one is dropped (as 010 does for
-- webhooks.format).  The matcher's names: matcher/trainsrc.c's table.

ALTER TABLE logs ADD COLUMN source_new TEXT NOT NULL DEFAULT 'stdout'
	CHECK (source_new IN ('stdout', 'tfevents', 'lossfile', 'megatron', 'nvdlfw_inspect',
	                      'mllog', 'msprobe'));
UPDATE logs SET source_new = source;
ALTER TABLE logs DROP COLUMN source;
ALTER TABLE logs RENAME COLUMN source_new TO source;
