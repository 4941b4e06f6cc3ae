-- +goose Up
-- Only retention read prebooks_expires (PrebookPrune), once every 10 minutes, while every
-- prebook paid its write (about a tenth of a prebook's CPU in the service on SQLite,
-- docs/performance.md "prebookfast6"). Retention now scans the table in the order rows
-- were written, the expired ones mostly first, and keeps its exact condition.
-- PostgreSQL keeps its index: not measured there, and its scans would also read the
-- rows earlier batches deleted until they are vacuumed.
DROP INDEX prebooks_expires;

-- +goose Down
CREATE INDEX prebooks_expires ON prebooks(expires_at);
