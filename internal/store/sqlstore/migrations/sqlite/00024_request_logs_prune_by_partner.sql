-- +goose Up
-- Retention deletes each partner's expired entries through request_logs_partner_at
-- (partner_id, mode, at, id), so request_logs_mode_at served nothing else: one index
-- write fewer for every entry the request log writes (docs/request-logs.md).
DROP INDEX request_logs_mode_at;

-- +goose Down
CREATE INDEX request_logs_mode_at ON request_logs (mode, at);
