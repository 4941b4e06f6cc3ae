-- +goose Up
-- The signatures of state-changing requests already accepted, so that a captured signed
-- request cannot be sent again within its validity window (docs/security.md). sig_hash is
-- the hex SHA-256 of the signature's bytes; a row is useless once expires_at has passed
-- (the signature's timestamp is then too old to verify) and is deleted.
CREATE TABLE signature_replays (
    partner_id INTEGER     NOT NULL,
    sig_hash   TEXT        NOT NULL,
    expires_at DATETIME    NOT NULL,
    PRIMARY KEY (partner_id, sig_hash)
);
CREATE INDEX signature_replays_expires ON signature_replays (expires_at);

-- +goose Down
DROP TABLE signature_replays;
