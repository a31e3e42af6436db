-- 006_train_sources.sql (PostgreSQL) - where a training log came from and
-- how each metric value was recorded; as migrations/sqlite/006_train_sources.sql.

ALTER TABLE logs ADD COLUMN source TEXT NOT NULL DEFAULT 'stdout'
	CHECK (source IN ('stdout', 'tfevents', 'lossfile'));
ALTER TABLE step_metrics ADD COLUMN prec BIGINT NOT NULL DEFAULT 0
	CHECK (prec BETWEEN 0 AND 3);
