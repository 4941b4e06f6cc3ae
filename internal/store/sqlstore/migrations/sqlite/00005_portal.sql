-- +goose Up
-- The partner portal (shared/spec/portal.md). Partners that exist already were signed by
-- the operator and stay active; sign-ups from the portal start pending.
ALTER TABLE partners ADD COLUMN status TEXT NOT NULL DEFAULT 'active';
ALTER TABLE partners ADD COLUMN status_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE partners ADD COLUMN require_two_factor INTEGER NOT NULL DEFAULT 0;
CREATE INDEX partners_status ON partners(status);

-- Retention: kept while the user exists; removal deletes the row.
CREATE TABLE portal_users (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id     BIGINT NOT NULL REFERENCES partners(id),
    email          TEXT NOT NULL UNIQUE, -- lower-case
    name           TEXT NOT NULL,
    role           TEXT NOT NULL,
    password_hash  TEXT NOT NULL DEFAULT '', -- argon2id, PHC string; '' until a password is set
    time_zone      TEXT NOT NULL DEFAULT 'UTC',
    disabled       INTEGER NOT NULL DEFAULT 0,
    totp_secret    TEXT NOT NULL DEFAULT '',
    recovery_codes TEXT NOT NULL DEFAULT '[]', -- SHA-256 (hex) of the unused recovery codes, a JSON array
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);
CREATE INDEX portal_users_partner ON portal_users(partner_id);

-- Only the SHA-256 of a session token is stored. Retention: deleted when ended, and
-- expired rows (idle 2 h, absolute 7 d) are deleted at the next sign-in.
CREATE TABLE portal_sessions (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash    TEXT NOT NULL UNIQUE,
    user_id       BIGINT NOT NULL REFERENCES portal_users(id) ON DELETE CASCADE,
    client_addr   TEXT NOT NULL DEFAULT '',
    user_agent    TEXT NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL,
    last_seen_at  DATETIME NOT NULL,
    expires_at    DATETIME NOT NULL
);
CREATE INDEX portal_sessions_user ON portal_sessions(user_id);

-- One-time links: invitations and password resets (kind). Only the token's SHA-256 is
-- stored. Retention: used or expired rows (72 h) are deleted when a new one is made.
CREATE TABLE portal_invitations (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash  TEXT NOT NULL UNIQUE,
    kind        TEXT NOT NULL,
    partner_id  BIGINT NOT NULL REFERENCES partners(id),
    email       TEXT NOT NULL,
    role        TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    expires_at  DATETIME NOT NULL,
    used_at     DATETIME
);

-- Sign-in and sign-up attempts per account and per client address, shared by every
-- server on the database. Retention: a row is reset by its window's end.
CREATE TABLE portal_throttle (
    key       TEXT PRIMARY KEY,
    hits      INTEGER NOT NULL,
    first_at  DATETIME NOT NULL,
    last_at   DATETIME NOT NULL
);

-- Retention: one year.
CREATE TABLE portal_audit (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id   BIGINT NOT NULL,
    actor        TEXT NOT NULL,
    action       TEXT NOT NULL,
    detail       TEXT NOT NULL DEFAULT '',
    client_addr  TEXT NOT NULL DEFAULT '',
    created_at   DATETIME NOT NULL
);
CREATE INDEX portal_audit_partner ON portal_audit(partner_id, id);
CREATE INDEX bookings_partner_test ON bookings(partner_id, test, id);
-- A rolled webhook secret: until next_secret_from, deliveries are signed with secret
-- (X-Partner-Signature) and next_secret (X-Partner-Signature-Next); from then on with
-- next_secret alone.
ALTER TABLE webhook_subscriptions ADD COLUMN next_secret TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_subscriptions ADD COLUMN next_secret_from DATETIME;
-- A sample event sent from the portal's "Send test event" to one subscription.
ALTER TABLE events ADD COLUMN test_event INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE events DROP COLUMN test_event;
ALTER TABLE webhook_subscriptions DROP COLUMN next_secret_from;
ALTER TABLE webhook_subscriptions DROP COLUMN next_secret;
DROP INDEX bookings_partner_test;
DROP TABLE portal_audit;
DROP TABLE portal_throttle;
DROP TABLE portal_invitations;
DROP TABLE portal_sessions;
DROP TABLE portal_users;
DROP INDEX partners_status;
ALTER TABLE partners DROP COLUMN require_two_factor;
ALTER TABLE partners DROP COLUMN status_reason;
ALTER TABLE partners DROP COLUMN status;
