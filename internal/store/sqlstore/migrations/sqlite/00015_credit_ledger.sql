-- +goose Up
-- The credit ledger: every draw on and release of a partner's live credit line, written
-- by booking.Service in the transaction that moves the credit (booking.moveCredit), with
-- the credit used after it. Retention: kept for ever, like the bookings it belongs to
-- (a financial record; docs/portal.md).
CREATE TABLE credit_ledger (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    partner_id     BIGINT NOT NULL REFERENCES partners(id),
    booking_id     BIGINT NOT NULL REFERENCES bookings(id),
    reference      TEXT NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('draw', 'release')),
    amount         BIGINT NOT NULL CHECK (amount > 0), -- minor units, positive for both kinds
    currency       TEXT NOT NULL,
    balance_after  BIGINT NOT NULL, -- the partner's credit used after this entry
    created_at     DATETIME NOT NULL
);
-- The Credit page's keyset paging, newest first.
CREATE INDEX credit_ledger_partner ON credit_ledger(partner_id, id);
-- A booking draws once and is released at most once.
CREATE UNIQUE INDEX credit_ledger_booking_kind ON credit_ledger(booking_id, kind);

-- Backfill from the bookings made before the table: a draw when each live booking was
-- made, a release when it was cancelled, in time order with the running credit used, so
-- that the ledger adds up to the credit each partner uses.
INSERT INTO credit_ledger (partner_id, booking_id, reference, kind, amount, currency, balance_after, created_at)
SELECT partner_id, booking_id, reference, kind, amount, currency,
    SUM(delta) OVER (PARTITION BY partner_id ORDER BY at, booking_id, kind ROWS UNBOUNDED PRECEDING), at
FROM (
    SELECT partner_id, id AS booking_id, reference, 'draw' AS kind, credit_drawn AS amount, credit_drawn AS delta,
        currency, created_at AS at
    FROM bookings WHERE credit_drawn > 0
    UNION ALL
    SELECT partner_id, id, reference, 'release', credit_drawn, -credit_drawn, currency, COALESCE(cancelled_at, updated_at)
    FROM bookings WHERE credit_drawn > 0 AND status = 'cancelled'
) entries
ORDER BY at, booking_id, kind;

-- The last TOTP time step a user's code was accepted for: a code works once (twofactor.go).
ALTER TABLE portal_users ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE portal_users DROP COLUMN totp_last_step;
DROP TABLE credit_ledger;
