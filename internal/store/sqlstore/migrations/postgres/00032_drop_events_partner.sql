-- +goose Up
-- events_partner (partner_id, created_at) served only the portal's events of one
-- booking, which matched the data's text among all of the partner's events; they are
-- read by events_booking_reference now. One index fewer to write with every event, and
-- every booking writes one.
DROP INDEX IF EXISTS events_partner;

-- +goose Down
CREATE INDEX events_partner ON events(partner_id, created_at);
