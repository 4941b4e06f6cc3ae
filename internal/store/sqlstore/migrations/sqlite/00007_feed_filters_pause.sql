-- +goose Up
-- Booking filters of GET /bookings and the portal: one index per filter, each led by
-- the partner (partner_reference already has its unique index, mode has
-- bookings_partner_test of 00005).
CREATE INDEX bookings_partner_status ON bookings(partner_id, status, id);
CREATE INDEX bookings_partner_product ON bookings(partner_id, product_type, id);
CREATE INDEX bookings_partner_created_at ON bookings(partner_id, created_at);
CREATE INDEX bookings_partner_service ON bookings(partner_id, start_date, end_date);

-- The event feed (GET /events). seq is the feed's order, given to events only after
-- they committed, by one sequencer at a time (it locks the event_sequence row), so an
-- event can never appear before a position a reader has already passed. NULL: not yet
-- sequenced. booking_reference and product_type are copied from data for the filters.
ALTER TABLE events ADD COLUMN seq BIGINT;
ALTER TABLE events ADD COLUMN booking_reference TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN product_type TEXT NOT NULL DEFAULT '';
UPDATE events SET booking_reference = COALESCE(json_extract(data, '$.reference'), ''),
    product_type = COALESCE(json_extract(data, '$.product_type'), '');
CREATE UNIQUE INDEX events_seq ON events(seq);
CREATE INDEX events_feed ON events(partner_id, seq);
-- Unsequenced events are placed by created_at, then rowid (insertion order).
CREATE INDEX events_unsequenced ON events(created_at) WHERE seq IS NULL;
CREATE INDEX events_booking_reference ON events(partner_id, booking_reference);
CREATE TABLE event_sequence (
    id    INTEGER PRIMARY KEY,
    last  BIGINT NOT NULL
);
INSERT INTO event_sequence (id, last) VALUES (1, 0);

-- Paused subscriptions receive nothing until resumed (their deliveries wait);
-- failing_since is when the run of failed deliveries that paused it began.
ALTER TABLE webhook_subscriptions ADD COLUMN paused_at DATETIME;
ALTER TABLE webhook_subscriptions ADD COLUMN pause_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since DATETIME;
CREATE INDEX webhook_deliveries_subscription_status ON webhook_deliveries(subscription_id, status);

-- Sandbox scenarios (on_request; confirm_after=30): the change each test booking is due
-- for, written with the booking and carried out by a periodic job.
CREATE TABLE sandbox_timers (
    booking_id  BIGINT PRIMARY KEY REFERENCES bookings(id),
    action      TEXT NOT NULL,
    due_at      DATETIME NOT NULL
);
CREATE INDEX sandbox_timers_due ON sandbox_timers(due_at);

-- +goose Down
DROP TABLE sandbox_timers;
DROP INDEX webhook_deliveries_subscription_status;
ALTER TABLE webhook_subscriptions DROP COLUMN failing_since;
ALTER TABLE webhook_subscriptions DROP COLUMN pause_reason;
ALTER TABLE webhook_subscriptions DROP COLUMN paused_at;
DROP TABLE event_sequence;
DROP INDEX events_booking_reference;
DROP INDEX events_unsequenced;
DROP INDEX events_feed;
DROP INDEX events_seq;
ALTER TABLE events DROP COLUMN product_type;
ALTER TABLE events DROP COLUMN booking_reference;
ALTER TABLE events DROP COLUMN seq;
DROP INDEX bookings_partner_service;
DROP INDEX bookings_partner_created_at;
DROP INDEX bookings_partner_product;
DROP INDEX bookings_partner_status;
