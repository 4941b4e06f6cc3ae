-- +goose Up
-- webhook_deliveries_subscription (subscription_id), of 00004, is the leading column of
-- webhook_deliveries_subscription_status (subscription_id, status), of 00007, which
-- serves every lookup the first one served; keeping both only slowed every write.
DROP INDEX webhook_deliveries_subscription;

-- +goose Down
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(subscription_id);
