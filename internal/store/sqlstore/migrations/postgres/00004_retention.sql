-- +goose Up
-- job_leases: one row per periodic job (internal/jobs). Whoever holds an unexpired lease
-- runs the job; next_run_at is when any server may run it again.
CREATE TABLE job_leases (
    name          TEXT PRIMARY KEY,
    owner         TEXT NOT NULL DEFAULT '',
    locked_until  TIMESTAMPTZ,
    next_run_at   TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);
-- Retention deletes by age, oldest first, in batches: each needs its age index.
CREATE INDEX events_created ON events(created_at);
CREATE INDEX prebooks_expires ON prebooks(expires_at);
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries(subscription_id);
CREATE INDEX webhook_subscriptions_deleted ON webhook_subscriptions(deleted_at) WHERE deleted_at IS NOT NULL;

-- +goose Down
DROP INDEX webhook_subscriptions_deleted;
DROP INDEX webhook_deliveries_subscription;
DROP INDEX idempotency_keys_created;
DROP INDEX prebooks_expires;
DROP INDEX events_created;
DROP TABLE job_leases;
