-- +goose Up
-- The fingerprint of the inventory the last catalog import wrote for the item, so that
-- a re-import reads the stored inventory only of items whose fingerprint changed.
-- Empty: unknown (items stored before this column), which makes the next import compare.
ALTER TABLE items ADD COLUMN inventory_hash TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE items DROP COLUMN inventory_hash;
