-- +goose Up
-- Usage counters (docs/request-logs.md): requests per partner, mode, UTC day, route and
-- outcome, added to in batches by every server (count = count + n), apart from the
-- request log entries so that they are never dropped. day is 'YYYY-MM-DD'; route and
-- error_code are '' when none.
CREATE TABLE usage_counters (
    partner_id INTEGER NOT NULL,
    mode       TEXT   NOT NULL,
    day        TEXT   NOT NULL,
    route      TEXT   NOT NULL,
    status     INTEGER NOT NULL,
    error_code TEXT   NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (partner_id, day, mode, route, status, error_code)
);
-- The retention job deletes by day alone.
CREATE INDEX usage_counters_day ON usage_counters (day);

-- +goose Down
DROP TABLE usage_counters;
