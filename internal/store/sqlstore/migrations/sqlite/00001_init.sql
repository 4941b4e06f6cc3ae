-- +goose Up
CREATE TABLE partners (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    name                 TEXT NOT NULL UNIQUE,
    pricing_mode         TEXT NOT NULL,
    markup_bp            BIGINT NOT NULL DEFAULT 0,
    currency             TEXT NOT NULL,
    credit_limit         BIGINT NOT NULL DEFAULT 0,
    credit_used          BIGINT NOT NULL DEFAULT 0,
    blocked              INTEGER NOT NULL DEFAULT 0,
    rate_limit           INTEGER NOT NULL,
    allow_ips            TEXT NOT NULL DEFAULT '[]',
    require_mtls         INTEGER NOT NULL DEFAULT 0,
    cert_fingerprints    TEXT NOT NULL DEFAULT '[]',
    require_signature    INTEGER NOT NULL DEFAULT 0,
    signing_secret       TEXT NOT NULL DEFAULT '',
    prev_signing_secret  TEXT NOT NULL DEFAULT '',
    prev_secret_until    DATETIME,
    created_at           DATETIME NOT NULL,
    CHECK (credit_used >= 0)
);

CREATE TABLE api_keys (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id  BIGINT NOT NULL REFERENCES partners(id),
    prefix      TEXT NOT NULL,
    hash        TEXT NOT NULL UNIQUE,
    mode        TEXT NOT NULL,
    scopes      TEXT NOT NULL,
    products    TEXT NOT NULL,
    expires_at  DATETIME,
    revoked_at  DATETIME,
    created_at  DATETIME NOT NULL
);
CREATE INDEX api_keys_partner ON api_keys(partner_id);

CREATE TABLE items (
    kind        TEXT NOT NULL,
    id          BIGINT NOT NULL,
    city_key    TEXT NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (kind, id)
);
CREATE INDEX items_city ON items(kind, city_key);

CREATE TABLE inventory (
    kind      TEXT NOT NULL,
    unit_id   BIGINT NOT NULL,
    item_id   BIGINT NOT NULL,
    day       TEXT NOT NULL,
    capacity  INTEGER NOT NULL,
    sold      INTEGER NOT NULL DEFAULT 0,
    price     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, unit_id, day),
    CHECK (sold >= 0)
);
CREATE INDEX inventory_item ON inventory(kind, item_id, day);

CREATE TABLE bookings (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    reference          TEXT NOT NULL UNIQUE,
    partner_id         BIGINT NOT NULL REFERENCES partners(id),
    key_id             BIGINT NOT NULL,
    product_type       TEXT NOT NULL,
    status             TEXT NOT NULL,
    test               INTEGER NOT NULL,
    pricing_mode       TEXT NOT NULL,
    total_price        BIGINT NOT NULL,
    currency           TEXT NOT NULL,
    credit_drawn       BIGINT NOT NULL DEFAULT 0,
    partner_reference  TEXT,
    idempotency_key    TEXT,
    item_id            BIGINT NOT NULL,
    unit_kind          TEXT NOT NULL DEFAULT '',
    unit_id            BIGINT NOT NULL DEFAULT 0,
    start_date         TEXT NOT NULL,
    end_date           TEXT NOT NULL,
    quantity           INTEGER NOT NULL DEFAULT 0,
    quote              TEXT NOT NULL,
    guest              TEXT NOT NULL,
    details            TEXT NOT NULL,
    cancel_reason      TEXT NOT NULL DEFAULT '',
    cancelled_at       DATETIME,
    created_at         DATETIME NOT NULL,
    updated_at         DATETIME NOT NULL
);
CREATE UNIQUE INDEX bookings_partner_reference ON bookings(partner_id, partner_reference) WHERE partner_reference IS NOT NULL;
CREATE UNIQUE INDEX bookings_idempotency_key ON bookings(partner_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX bookings_partner_created ON bookings(partner_id, id DESC);

CREATE TABLE idempotency_keys (
    partner_id  BIGINT NOT NULL,
    key         TEXT NOT NULL,
    created_at  DATETIME NOT NULL,
    PRIMARY KEY (partner_id, key)
);

CREATE TABLE prebooks (
    token        TEXT PRIMARY KEY,
    partner_id   BIGINT NOT NULL,
    mode         TEXT NOT NULL,
    quote        TEXT NOT NULL,
    total_price  BIGINT NOT NULL,
    currency     TEXT NOT NULL,
    expires_at   DATETIME NOT NULL,
    booking_id   BIGINT,
    created_at   DATETIME NOT NULL
);

CREATE TABLE webhook_subscriptions (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id   BIGINT NOT NULL REFERENCES partners(id),
    url          TEXT NOT NULL,
    event_types  TEXT NOT NULL,
    secret       TEXT NOT NULL,
    active       INTEGER NOT NULL DEFAULT 1,
    created_at   DATETIME NOT NULL,
    deleted_at   DATETIME
);
CREATE INDEX webhook_subscriptions_partner ON webhook_subscriptions(partner_id);

CREATE TABLE events (
    id          TEXT PRIMARY KEY,
    partner_id  BIGINT NOT NULL,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  DATETIME NOT NULL
);
CREATE INDEX events_partner ON events(partner_id, created_at);

CREATE TABLE webhook_deliveries (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id         TEXT NOT NULL REFERENCES events(id),
    subscription_id  BIGINT NOT NULL REFERENCES webhook_subscriptions(id),
    status           TEXT NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  DATETIME NOT NULL,
    locked_until     DATETIME,
    last_error       TEXT NOT NULL DEFAULT '',
    created_at       DATETIME NOT NULL,
    updated_at       DATETIME NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries(event_id);

CREATE TABLE webhook_attempts (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id       BIGINT NOT NULL REFERENCES webhook_deliveries(id),
    attempted_at      DATETIME NOT NULL,
    status_code       INTEGER NOT NULL DEFAULT 0,
    error             TEXT NOT NULL DEFAULT '',
    duration_ms       BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_deliveries;
DROP TABLE events;
DROP TABLE webhook_subscriptions;
DROP TABLE prebooks;
DROP TABLE idempotency_keys;
DROP TABLE bookings;
DROP TABLE inventory;
DROP TABLE items;
DROP TABLE api_keys;
DROP TABLE partners;
