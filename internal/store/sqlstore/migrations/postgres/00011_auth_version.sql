-- +goose Up
-- Servers keep API keys and partners in memory and read auth_version every ~200 ms: a
-- change made by any process (the operator's CLI, another server, the portal) bumps it
-- in the writing transaction, visible exactly when that commits, and a server that sees
-- it move drops its cache. Changes that do not decide who may call or how are left out,
-- or the cache would be dropped by every booking (partners.credit_used) and every batch
-- of last-used times (api_keys.last_used_at); any other column, present or future, counts.
CREATE TABLE auth_version (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    version  BIGINT NOT NULL
);
INSERT INTO auth_version (id, version) VALUES (1, 0);

-- When each key last authenticated a request, recorded in memory and written in batches.
ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMPTZ;

-- +goose StatementBegin
CREATE FUNCTION auth_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE auth_version SET version = version + 1 WHERE id = 1;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER partners_auth_insert_delete AFTER INSERT OR DELETE ON partners
    FOR EACH STATEMENT EXECUTE FUNCTION auth_version_bump();
CREATE TRIGGER partners_auth_update AFTER UPDATE ON partners FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'credit_used') IS DISTINCT FROM (to_jsonb(NEW) - 'credit_used'))
    EXECUTE FUNCTION auth_version_bump();
CREATE TRIGGER api_keys_auth_insert_delete AFTER INSERT OR DELETE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION auth_version_bump();
CREATE TRIGGER api_keys_auth_update AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
    EXECUTE FUNCTION auth_version_bump();

-- +goose Down
DROP TRIGGER api_keys_auth_update ON api_keys;
DROP TRIGGER api_keys_auth_insert_delete ON api_keys;
DROP TRIGGER partners_auth_update ON partners;
DROP TRIGGER partners_auth_insert_delete ON partners;
DROP FUNCTION auth_version_bump();
ALTER TABLE api_keys DROP COLUMN last_used_at;
DROP TABLE auth_version;
