-- +goose Up
-- Servers keep API keys and partners in memory and read auth_version every ~200 ms: a
-- change made by any process (the operator's CLI, another server, the portal) bumps it
-- in the writing transaction, and a server that sees it move drops its cache. Changes
-- that do not decide who may call or how are left out, or the cache would be dropped by
-- every booking (partners.credit_used) and every batch of last-used times
-- (api_keys.last_used_at). SQLite triggers name the columns that count: a new column of
-- partners or api_keys that decides a request must be added here.
CREATE TABLE auth_version (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    version  BIGINT NOT NULL
);
INSERT INTO auth_version (id, version) VALUES (1, 0);

-- When each key last authenticated a request, recorded in memory and written in batches.
ALTER TABLE api_keys ADD COLUMN last_used_at DATETIME;

-- +goose StatementBegin
CREATE TRIGGER partners_auth_insert AFTER INSERT ON partners
BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER partners_auth_delete AFTER DELETE ON partners
BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER partners_auth_update AFTER UPDATE OF name, pricing_mode, markup_bp, currency, credit_limit,
    blocked, rate_limit, allow_ips, require_mtls, cert_fingerprints, require_signature, signing_secret,
    prev_signing_secret, prev_secret_until, status, status_reason, require_two_factor ON partners
BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER api_keys_auth_insert AFTER INSERT ON api_keys
BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER api_keys_auth_delete AFTER DELETE ON api_keys
BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER api_keys_auth_update AFTER UPDATE OF partner_id, prefix, hash, mode, scopes, products,
    expires_at, revoked_at ON api_keys
BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER api_keys_auth_update;
DROP TRIGGER api_keys_auth_delete;
DROP TRIGGER api_keys_auth_insert;
DROP TRIGGER partners_auth_update;
DROP TRIGGER partners_auth_delete;
DROP TRIGGER partners_auth_insert;
ALTER TABLE api_keys DROP COLUMN last_used_at;
DROP TABLE auth_version;
