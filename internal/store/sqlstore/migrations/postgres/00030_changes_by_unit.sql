-- +goose Up
-- A change row of an inventory update or delete names its unit (unit_kind, unit_id):
-- one row per unit a statement wrote, with the days it spans (docs/readmodel.md, "The
-- change feed"), so that every server's poll reloads that unit's days, not all of the
-- item's units'. Rows written before this migration, and changes of a whole item, name
-- no unit (NULL).
ALTER TABLE changes ADD COLUMN unit_kind TEXT;
ALTER TABLE changes ADD COLUMN unit_id BIGINT;
-- +goose StatementBegin
CREATE FUNCTION inventory_units_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, item_id, unit_kind, unit_id, day_from, day_to)
    SELECT CASE kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        item_id, kind, unit_id, MIN(day), MAX(day)
    FROM changed_rows GROUP BY kind, item_id, unit_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
DROP TRIGGER inventory_changed_update ON inventory;
DROP TRIGGER inventory_changed_delete ON inventory;
CREATE TRIGGER inventory_changed_update AFTER UPDATE ON inventory
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_units_changed();
CREATE TRIGGER inventory_changed_delete AFTER DELETE ON inventory
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_units_changed();

-- +goose Down
DROP TRIGGER inventory_changed_update ON inventory;
DROP TRIGGER inventory_changed_delete ON inventory;
CREATE TRIGGER inventory_changed_update AFTER UPDATE ON inventory
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_changed();
CREATE TRIGGER inventory_changed_delete AFTER DELETE ON inventory
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_changed();
DROP FUNCTION inventory_units_changed();
ALTER TABLE changes DROP COLUMN unit_id;
ALTER TABLE changes DROP COLUMN unit_kind;
