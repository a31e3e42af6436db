/* undo_008.h - SQL that takes migration 008 (golden baselines, suite
 * labels) back out, for the unit tests that rewind a database to an older
 * schema version and re-open it to test an earlier migration. */
#ifndef PARITY_TEST_UNDO_008_H
#define PARITY_TEST_UNDO_008_H

#define UNDO_008                                                                                   \
	"DROP INDEX comparisons_by_baseline_name; DROP INDEX comparisons_by_suite; "               \
	"ALTER TABLE comparisons DROP COLUMN baseline_name; ALTER TABLE comparisons DROP "         \
	"COLUMN suite; ALTER TABLE comparisons DROP COLUMN config; ALTER TABLE comparisons DROP "  \
	"COLUMN suite_size; DROP TABLE baseline_history; DROP TABLE baselines; "

#endif
