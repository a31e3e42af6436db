-- 010_email_webhooks.sql - email subscriptions (issue 16): a webhook of
-- format 'email' is sent through the daemon's SMTP server (--smtp-url) to
-- the addresses in recipients (a JSON array of strings, validated by the
-- server: at most 20, no display names) instead of being POSTed; its url
-- holds "mailto:" and the addresses, for the delivery listing.  Email
-- deliveries use the same queue, claims and attempt records; their
-- payload is a small JSON document the sender builds the message from.
--
-- SQLite cannot change a CHECK constraint in place and rebuilding the
-- table would cascade-delete the deliveries (foreign keys stay on inside
-- the migration's transaction), so format is replaced column-wise: a new
-- column with the wider CHECK, copied, the old one dropped, renamed back.

ALTER TABLE webhooks ADD COLUMN format_new TEXT NOT NULL DEFAULT 'generic'
	CHECK (format_new IN ('generic', 'github-status', 'email'));
UPDATE webhooks SET format_new = format;
ALTER TABLE webhooks DROP COLUMN format;
ALTER TABLE webhooks RENAME COLUMN format_new TO format;
ALTER TABLE webhooks ADD COLUMN recipients TEXT; -- JSON array; NULL unless email
