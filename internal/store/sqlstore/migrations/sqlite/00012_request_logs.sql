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

-- The request log (docs/request-logs.md): one row per partner API request whose key
-- resolved to a partner, written in batches off the request path and deleted after the
-- retention of its mode. Never a header but the user agent and the Idempotency-Key; the
-- bodies are their first 64 KB, with secret fields redacted, and *_size the full length.
CREATE TABLE request_logs (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id      BIGINT      NOT NULL,
    mode            TEXT        NOT NULL,
    at              DATETIME NOT NULL,
    method          TEXT        NOT NULL,
    path            TEXT        NOT NULL,
    query           TEXT        NOT NULL,
    route           TEXT        NOT NULL,
    status          INTEGER     NOT NULL,
    error_code      TEXT        NOT NULL,
    duration_us     BIGINT      NOT NULL,
    key_id          BIGINT      NOT NULL,
    key_prefix      TEXT        NOT NULL,
    client_addr     TEXT        NOT NULL,
    user_agent      TEXT        NOT NULL,
    request_id      TEXT        NOT NULL,
    idempotency_key TEXT        NOT NULL,
    console         INTEGER NOT NULL,
    request_body    BLOB       NOT NULL,
    request_size    BIGINT      NOT NULL,
    response_body   BLOB       NOT NULL,
    response_size   BIGINT      NOT NULL
);
-- The portal's list: a partner's entries of one mode, newest first.
CREATE INDEX request_logs_partner_at ON request_logs (partner_id, mode, at, id);
-- Lookup by X-Request-Id.
CREATE INDEX request_logs_request_id ON request_logs (partner_id, request_id);
-- The retention job: the oldest entries of a mode.
CREATE INDEX request_logs_mode_at ON request_logs (mode, at);

-- +goose Down
DROP TABLE request_logs;
DROP TABLE usage_counters;
