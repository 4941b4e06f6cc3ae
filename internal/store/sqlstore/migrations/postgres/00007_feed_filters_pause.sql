-- +goose Up
-- Booking filters of GET /bookings and the portal: one index per filter, each led by
-- the partner (partner_reference already has its unique index).
CREATE INDEX bookings_partner_status ON bookings(partner_id, status, id);
CREATE INDEX bookings_partner_product ON bookings(partner_id, product_type, id);
CREATE INDEX bookings_partner_test ON bookings(partner_id, test, id);
CREATE INDEX bookings_partner_created_at ON bookings(partner_id, created_at);
CREATE INDEX bookings_partner_service ON bookings(partner_id, start_date, end_date);

-- The event feed (GET /events). seq orders events; txid is the writing transaction,
-- so that the feed shows an event only once every transaction that could still commit
-- an earlier one has ended (a cursor never skips an event committed late).
-- booking_reference and product_type are copied from data for the feed's filters.
ALTER TABLE events ADD COLUMN seq BIGSERIAL;
ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
ALTER TABLE events ADD COLUMN booking_reference TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN product_type TEXT NOT NULL DEFAULT '';
UPDATE events SET booking_reference = COALESCE(data::json->>'reference', ''),
    product_type = COALESCE(data::json->>'product_type', '');
CREATE INDEX events_feed ON events(partner_id, txid, seq);
CREATE INDEX events_booking_reference ON events(partner_id, booking_reference);

-- Paused subscriptions receive nothing until resumed (their deliveries wait);
-- failing_since is when the run of failed deliveries that paused it began.
ALTER TABLE webhook_subscriptions ADD COLUMN paused_at TIMESTAMPTZ;
ALTER TABLE webhook_subscriptions ADD COLUMN pause_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since TIMESTAMPTZ;
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(subscription_id, status);

-- +goose Down
DROP INDEX webhook_deliveries_subscription;
ALTER TABLE webhook_subscriptions DROP COLUMN failing_since;
ALTER TABLE webhook_subscriptions DROP COLUMN pause_reason;
ALTER TABLE webhook_subscriptions DROP COLUMN paused_at;
DROP INDEX events_booking_reference;
DROP INDEX events_feed;
ALTER TABLE events DROP COLUMN product_type;
ALTER TABLE events DROP COLUMN booking_reference;
ALTER TABLE events DROP COLUMN txid;
ALTER TABLE events DROP COLUMN seq;
DROP INDEX bookings_partner_service;
DROP INDEX bookings_partner_created_at;
DROP INDEX bookings_partner_test;
DROP INDEX bookings_partner_product;
DROP INDEX bookings_partner_status;
