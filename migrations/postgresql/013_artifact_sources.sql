-- 013_artifact_sources.sql - the field's other artifacts (issue 27):
-- logs.source widened to the new formats (see migrations/sqlite/013_artifact_sources.sql).
--   'megatron'        Megatron-LM golden_values_*.json (training)
--   'nvdlfw_inspect'  NVIDIA DL Framework Inspect statistics log (training)
--   'mllog'           MLPerf MLLOG lines (training)
--   'msprobe'         Ascend msprobe dump.json (activation)

ALTER TABLE logs DROP CONSTRAINT logs_source_check;
ALTER TABLE logs ADD CONSTRAINT logs_source_check
	CHECK (source IN ('stdout', 'tfevents', 'lossfile', 'megatron', 'nvdlfw_inspect', 'mllog',
	                  'msprobe'));
