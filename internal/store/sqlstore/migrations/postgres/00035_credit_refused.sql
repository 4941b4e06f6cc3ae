-- +goose Up
-- A group commit's credit draws travel with its COMMIT, in one round trip (sqlstore's
-- CreditDrawAll): a draw that does not fit must then fail its statement, so that the
-- COMMIT after it does not run and the group's bookings are not committed without
-- their credit. The draw calls this only when its UPDATE moved no row; the error's
-- code names the refusal (postgres.Dialect.IsCreditRefused).
-- +goose StatementBegin
CREATE FUNCTION credit_refused(partner BIGINT) RETURNS BIGINT LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the credit draws of partner % do not fit', partner USING ERRCODE = 'TW001';
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION credit_refused(BIGINT);
