-- +goose Up
-- The request log's own SQLite file (sqlite.RequestLogPath, docs/request-logs.md): the
-- entries that migrations 00012, 00017 and 00024 of the main file kept there, with the
-- same columns and indexes, so that the log's batches are written by a connection of
-- their own and never hold the writer that bookings and prebooks wait for. sqlite.Open
-- moves the entries a main file still holds into this file, ids kept.
--
-- One row per partner API request whose key resolved to a partner, written in batches
-- off the request path and deleted after the retention of its mode. Never a header but
-- the user agent and the Idempotency-Key; the bodies are their first 64 KB, with
-- secret fields redacted, and *_size the full length; body_encoding says how the
-- bodies are stored ('' as captured, 's2' an s2 block each). AUTOINCREMENT: an id is
-- never reused after retention deleted its entry, so a portal link never shows
-- another request.
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
    response_size   BIGINT      NOT NULL,
    body_encoding   TEXT NOT NULL DEFAULT ''
);
-- The portal's list (a partner's entries of one mode, newest first) and retention
-- (each partner's oldest entries of a mode).
CREATE INDEX request_logs_partner_at ON request_logs (partner_id, mode, at, id);
-- Lookup by X-Request-Id.
CREATE INDEX request_logs_request_id ON request_logs (partner_id, request_id);

-- +goose Down
DROP TABLE request_logs;
