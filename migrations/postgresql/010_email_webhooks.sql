-- 010_email_webhooks.sql - email subscriptions (issue 16), the PostgreSQL
-- twin of migrations/sqlite/010_email_webhooks.sql: format may be 'email'
-- (sent through --smtp-url to recipients, a JSON array of addresses).
-- PostgreSQL changes the CHECK in place (the column keeps its position;
-- SQLite's twin moves it last, which the schema test does not compare).

ALTER TABLE webhooks DROP CONSTRAINT webhooks_format_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_format_check
	CHECK (format IN ('generic', 'github-status', 'email'));
ALTER TABLE webhooks ADD COLUMN recipients TEXT; -- JSON array; NULL unless email
