-- +goose Up
-- A delivery claim counts each partner's deliveries leased now, to hold a partner to its
-- share of the dispatchers' slots (DeliveryClaimParams.PerPartner). Only the deliveries
-- being sent hold a locked_until: recording an attempt clears it. This index holds them
-- alone, so that the count reads the few in flight, not every pending delivery, and a
-- delivery's insert (locked_until NULL, with its booking) writes nothing to it.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries(locked_until) WHERE locked_until IS NOT NULL;

-- +goose Down
DROP INDEX webhook_deliveries_leased;
