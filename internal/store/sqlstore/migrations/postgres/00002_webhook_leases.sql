-- +goose Up
-- claim_token proves a dispatcher's lease on a delivery when it records the attempt;
-- response_snippet keeps the start of the receiver's answer for the operator.
ALTER TABLE webhook_deliveries ADD COLUMN claim_token TEXT NOT NULL DEFAULT '';
ALTER TABLE webhook_attempts ADD COLUMN response_snippet TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE webhook_attempts DROP COLUMN response_snippet;
ALTER TABLE webhook_deliveries DROP COLUMN claim_token;
