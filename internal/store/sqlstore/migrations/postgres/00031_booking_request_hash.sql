-- +goose Up
-- A booking keeps the fingerprint of the request that created it (docs/api-decisions.md,
-- "Idempotency"). The contract remembers only created bookings, and the booking's own
-- unique key (partner_id, test, idempotency_key) refuses a second booking of a key, so
-- the separate record a booking wrote in idempotency_keys (a row and two index entries
-- in every booking's transaction) is no longer written. Bookings made before this
-- migration have an empty hash; their records in idempotency_keys answer until the
-- retention job deletes them.
ALTER TABLE bookings ADD COLUMN request_hash TEXT NOT NULL DEFAULT '';

-- +goose Down
-- The fingerprints go back into records of their keys, as the previous version reads
-- them (a record kept for a key keeps its own).
INSERT INTO idempotency_keys (partner_id, mode, key, request_hash, created_at)
SELECT partner_id, CASE WHEN test THEN 'test' ELSE 'live' END, idempotency_key, request_hash, created_at
FROM bookings WHERE request_hash <> '' AND idempotency_key IS NOT NULL
ON CONFLICT DO NOTHING;
ALTER TABLE bookings DROP COLUMN request_hash;
