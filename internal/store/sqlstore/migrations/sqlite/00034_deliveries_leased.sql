-- +goose Up
-- A delivery claim holds each partner to its share of the dispatchers' slots
-- (DeliveryClaimParams.PerPartner).
--
-- It counts each partner's deliveries leased now. Only the deliveries being sent hold a
-- locked_until (recording an attempt clears it), and this index holds them alone: the
-- count reads the few in flight, not every pending delivery, and a delivery's insert
-- (locked_until NULL, with its booking) writes nothing to it.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(locked_until) WHERE locked_until IS NOT NULL;
-- It takes each subscription's first due deliveries, in order: (subscription_id, status)
-- of 00007 gains next_attempt_at, and serves every lookup it served.
CREATE INDEX webhook_deliveries_subscription_due ON webhook_deliveries(subscription_id, status, next_attempt_at);
DROP INDEX webhook_deliveries_subscription_status;

-- +goose Down
CREATE INDEX webhook_deliveries_subscription_status ON webhook_deliveries(subscription_id, status);
DROP INDEX webhook_deliveries_subscription_due;
DROP INDEX webhook_deliveries_leased;
