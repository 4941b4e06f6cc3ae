-- +goose Up
-- A booking's references to its partner, and its ledger entry's to the partner and the
-- booking, are checked at COMMIT rather than at each insert. Checked at the insert, a
-- reference takes a KEY SHARE lock on the partner's row from inside the booking's
-- savepoint (a subtransaction of its group commit): every booking of every group
-- locked the same row under an id of its own, each lock a new multixact on the
-- partner's row, which the group's credit draw then updates. Checked at COMMIT, the
-- group's transaction holds the row already (its draw), and the checks find it so.
-- The references hold as before: a booking or entry naming no partner or booking
-- fails its transaction's COMMIT (docs/performance-history.md, "Night 5").
ALTER TABLE bookings ALTER CONSTRAINT bookings_partner_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE credit_ledger ALTER CONSTRAINT credit_ledger_partner_id_fkey DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE credit_ledger ALTER CONSTRAINT credit_ledger_booking_id_fkey DEFERRABLE INITIALLY DEFERRED;

-- +goose Down
ALTER TABLE bookings ALTER CONSTRAINT bookings_partner_id_fkey NOT DEFERRABLE;
ALTER TABLE credit_ledger ALTER CONSTRAINT credit_ledger_partner_id_fkey NOT DEFERRABLE;
ALTER TABLE credit_ledger ALTER CONSTRAINT credit_ledger_booking_id_fkey NOT DEFERRABLE;
