-- +goose Up
-- An inventory INSERT no longer leaves change rows: inventory rows are inserted only by
-- the catalog import, which writes their item in the same transaction, and the items
-- trigger's change row (the whole item) covers them, as on SQLite (00010). The trigger
-- held every row a COPY loaded in a transition table and grouped it again, a third of a
-- first import's time. Updates and deletes of inventory (claims, releases, an import's
-- changed days) still leave their day ranges.
DROP TRIGGER inventory_changed_insert ON inventory;

-- +goose Down
CREATE TRIGGER inventory_changed_insert AFTER INSERT ON inventory
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_changed();
