-- 003_auth_webhooks.sql - API tokens, webhooks and their deliveries.
-- Tokens: only the SHA-256 (hex) of the token text is kept; the token is
-- shown once by `parity token create`.  Revoking sets revoked_at; the row
-- stays so a name is never reused for a different secret.
-- Webhooks: the secret (HMAC key) and the github-status bearer token are
-- stored as given, because the daemon must use them to sign / send; they
-- are never returned by the API.  Protect the data directory accordingly.
-- Deliveries are a durable queue: a row is written in the same transaction
-- that finishes the comparison, and stays 'pending' until it is delivered
-- or gives up ('failed'), so a restart loses nothing.  comparison_id has no
-- foreign key: the payload is stored, so deleting a comparison does not
-- cancel the notification about it.  Times used for scheduling are integer
-- milliseconds since the Unix epoch (UTC); display times are RFC 3339 text.

CREATE TABLE api_tokens (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	name       TEXT NOT NULL UNIQUE,
	sha256     TEXT NOT NULL UNIQUE,          -- hex digest of the token text
	created_at TEXT NOT NULL,
	revoked_at TEXT                           -- NULL = active
);

CREATE TABLE webhooks (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	url        TEXT NOT NULL,                 -- may hold {sha} (github-status)
	secret     TEXT NOT NULL DEFAULT '',      -- HMAC key; '' = unsigned
	events     TEXT NOT NULL,                 -- JSON array of event names
	format     TEXT NOT NULL CHECK (format IN ('generic', 'github-status')),
	token      TEXT,                          -- github-status bearer token
	created_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
	id              INTEGER PRIMARY KEY AUTOINCREMENT,
	webhook_id      INTEGER NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
	comparison_id   INTEGER NOT NULL,
	event           TEXT NOT NULL,
	url             TEXT NOT NULL,            -- target after {sha} substitution
	payload         TEXT NOT NULL,            -- the exact body that is signed
	status          TEXT NOT NULL DEFAULT 'pending'
	                CHECK (status IN ('pending', 'delivered', 'failed')),
	attempts        INTEGER NOT NULL DEFAULT 0,
	next_attempt_at INTEGER NOT NULL,         -- epoch ms
	claimed_until   INTEGER,                  -- epoch ms lease of a sender
	last_error      TEXT,
	created_at      TEXT NOT NULL,
	finished_at     TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries(webhook_id, id);

CREATE TABLE webhook_attempts (
	id          INTEGER PRIMARY KEY,
	delivery_id INTEGER NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
	at          TEXT NOT NULL,                -- RFC 3339 UTC with milliseconds
	http_status INTEGER,                      -- NULL: no HTTP response
	error       TEXT,                         -- NULL on a 2xx
	duration_ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, id);
