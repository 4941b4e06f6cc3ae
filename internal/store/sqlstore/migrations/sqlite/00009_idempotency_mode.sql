-- +goose Up
-- An Idempotency-Key is scoped to the partner and the key's mode (decisions.md): a key a
-- test key used never answers a live request, nor the reverse. request_hash fingerprints
-- the request that used the key (booking.RequestHash), so that the same key with another
-- body is told apart (422 idempotency_key_reused). Existing records take the mode of the
-- booking they created and an empty hash, which matches any body: they answer their
-- booking as before, since the body they were made with is not known.
-- SQLite cannot change a primary key in place: the table is rebuilt.
CREATE TABLE idempotency_keys_new (
    partner_id    BIGINT NOT NULL,
    mode          TEXT NOT NULL,
    key           TEXT NOT NULL,
    request_hash  TEXT NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL,
    PRIMARY KEY (partner_id, mode, key)
);
INSERT INTO idempotency_keys_new (partner_id, mode, key, request_hash, created_at)
    SELECT i.partner_id, CASE WHEN EXISTS (SELECT 1 FROM bookings b WHERE b.partner_id = i.partner_id
        AND b.idempotency_key = i.key AND b.test) THEN 'test' ELSE 'live' END, i.key, '', i.created_at
    FROM idempotency_keys i;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_new RENAME TO idempotency_keys;
-- The retention job's age index (migration 00004) went with the old table.
CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys(created_at);
DROP INDEX bookings_idempotency_key;
CREATE UNIQUE INDEX bookings_idempotency_key ON bookings(partner_id, test, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- +goose Down
-- Back to one key per partner: where a key was used in both modes, the live use stays.
DROP INDEX bookings_idempotency_key;
UPDATE bookings SET idempotency_key = NULL WHERE test AND idempotency_key IS NOT NULL AND EXISTS (
    SELECT 1 FROM bookings l WHERE l.partner_id = bookings.partner_id AND l.idempotency_key = bookings.idempotency_key AND NOT l.test);
CREATE UNIQUE INDEX bookings_idempotency_key ON bookings(partner_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE TABLE idempotency_keys_old (
    partner_id  BIGINT NOT NULL,
    key         TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (partner_id, key)
);
INSERT OR IGNORE INTO idempotency_keys_old (partner_id, key, created_at)
    SELECT partner_id, key, created_at FROM idempotency_keys ORDER BY mode = 'test';
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_old RENAME TO idempotency_keys;
CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys(created_at);
