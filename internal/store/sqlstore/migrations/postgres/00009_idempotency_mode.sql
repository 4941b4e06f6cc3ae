-- +goose Up
-- An Idempotency-Key is scoped to the partner and the key's mode (decisions.md): a key a
-- test key used never answers a live request, nor the reverse. request_hash fingerprints
-- the request that used the key (booking.RequestHash), so that the same key with another
-- body is told apart (422 idempotency_key_reused). Existing records take the mode of the
-- booking they created and an empty hash, which matches any body: they answer their
-- booking as before, since the body they were made with is not known.
ALTER TABLE idempotency_keys ADD COLUMN mode TEXT NOT NULL DEFAULT 'live';
ALTER TABLE idempotency_keys ADD COLUMN request_hash TEXT NOT NULL DEFAULT '';
UPDATE idempotency_keys SET mode = 'test' WHERE EXISTS (SELECT 1 FROM bookings b
    WHERE b.partner_id = idempotency_keys.partner_id AND b.idempotency_key = idempotency_keys.key AND b.test);
ALTER TABLE idempotency_keys ALTER COLUMN mode DROP DEFAULT;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (partner_id, mode, key);
DROP INDEX bookings_idempotency_key;
CREATE UNIQUE INDEX bookings_idempotency_key ON bookings(partner_id, test, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- +goose Down
-- Back to one key per partner: where a key was used in both modes, the live use stays.
DROP INDEX bookings_idempotency_key;
UPDATE bookings SET idempotency_key = NULL WHERE test AND idempotency_key IS NOT NULL AND EXISTS (
    SELECT 1 FROM bookings l WHERE l.partner_id = bookings.partner_id AND l.idempotency_key = bookings.idempotency_key AND NOT l.test);
CREATE UNIQUE INDEX bookings_idempotency_key ON bookings(partner_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
DELETE FROM idempotency_keys WHERE mode = 'test' AND EXISTS (SELECT 1 FROM idempotency_keys l
    WHERE l.partner_id = idempotency_keys.partner_id AND l.key = idempotency_keys.key AND l.mode = 'live');
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (partner_id, key);
ALTER TABLE idempotency_keys DROP COLUMN request_hash;
ALTER TABLE idempotency_keys DROP COLUMN mode;
