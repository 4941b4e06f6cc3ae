-- +goose Up
-- Booking filters of GET /bookings and the portal: one index per filter, each led by
-- the partner (partner_reference already has its unique index).
CREATE INDEX bookings_partner_status ON bookings(partner_id, status, id);
CREATE INDEX bookings_partner_product ON bookings(partner_id, product_type, id);
CREATE INDEX bookings_partner_test ON bookings(partner_id, test, id);
CREATE INDEX bookings_partner_created_at ON bookings(partner_id, created_at);
CREATE INDEX bookings_partner_service ON bookings(partner_id, start_date, end_date);

-- The event feed (GET /events). seq orders events in commit order: every SQLite
-- transaction holds the write lock, so the trigger's MAX + 1 is never taken twice and
-- never committed out of order. booking_reference and product_type are copied from
-- data for the feed's filters.
ALTER TABLE events ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN booking_reference TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN product_type TEXT NOT NULL DEFAULT '';
UPDATE events SET seq = rowid,
    booking_reference = COALESCE(json_extract(data, '$.reference'), ''),
    product_type = COALESCE(json_extract(data, '$.product_type'), '');
-- +goose StatementBegin
CREATE TRIGGER events_seq AFTER INSERT ON events WHEN NEW.seq = 0
BEGIN
    UPDATE events SET seq = (SELECT MAX(seq) FROM events) + 1 WHERE id = NEW.id;
END;
-- +goose StatementEnd
CREATE INDEX events_feed ON events(partner_id, seq);
CREATE INDEX events_seq ON events(seq);
CREATE INDEX events_booking_reference ON events(partner_id, booking_reference);

-- Paused subscriptions receive nothing until resumed (their deliveries wait);
-- failing_since is when the run of failed deliveries that paused it began.
ALTER TABLE webhook_subscriptions ADD COLUMN paused_at DATETIME;
ALTER TABLE webhook_subscriptions ADD COLUMN pause_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since DATETIME;
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(subscription_id, status);

-- +goose Down
DROP INDEX webhook_deliveries_subscription;
ALTER TABLE webhook_subscriptions DROP COLUMN failing_since;
ALTER TABLE webhook_subscriptions DROP COLUMN pause_reason;
ALTER TABLE webhook_subscriptions DROP COLUMN paused_at;
DROP INDEX events_booking_reference;
DROP INDEX events_seq;
DROP INDEX events_feed;
DROP TRIGGER events_seq;
ALTER TABLE events DROP COLUMN product_type;
ALTER TABLE events DROP COLUMN booking_reference;
ALTER TABLE events DROP COLUMN seq;
DROP INDEX bookings_partner_service;
DROP INDEX bookings_partner_created_at;
DROP INDEX bookings_partner_test;
DROP INDEX bookings_partner_product;
DROP INDEX bookings_partner_status;
