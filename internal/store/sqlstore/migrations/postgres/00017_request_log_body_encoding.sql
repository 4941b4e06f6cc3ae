-- +goose Up
-- How request_body and response_body are stored (docs/request-logs.md): '' as they
-- were captured (every row before this migration), 's2' each one an s2 block of the
-- redacted body. The writer compresses, the store decompresses on read.
ALTER TABLE request_logs ADD COLUMN body_encoding TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE request_logs DROP COLUMN body_encoding;
