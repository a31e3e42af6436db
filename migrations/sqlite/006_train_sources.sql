-- 006_train_sources.sql - training runs from TensorBoard event files and
-- golden loss files (issue 14).
--   logs.source        where a training log came from: 'stdout' (printed
--                      metric lines), 'tfevents' (events.out.tfevents.*),
--                      'lossfile' (golden `step value` file); activation
--                      logs keep 'stdout'
--   step_metrics.prec  how the value was recorded (matcher enum
--                      matcher_precision): 0 printed (decimals = its
--                      resolution), 1 decimal text of a golden file, 2
--                      float32, 3 float64 (value holds the binary value
--                      exactly, text its shortest round-trip decimal)
-- Existing rows are stdout logs with printed values: the defaults.

ALTER TABLE logs ADD COLUMN source TEXT NOT NULL DEFAULT 'stdout'
	CHECK (source IN ('stdout', 'tfevents', 'lossfile'));
ALTER TABLE step_metrics ADD COLUMN prec INTEGER NOT NULL DEFAULT 0
	CHECK (prec BETWEEN 0 AND 3);
