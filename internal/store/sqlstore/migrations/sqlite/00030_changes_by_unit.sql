-- +goose Up
-- A change row of inventory names its unit (unit_kind, unit_id), and a statement's
-- consecutive rows of one unit make one change row (docs/readmodel.md, "The change
-- feed"). Before, SQLite's row triggers wrote one change row per day written, naming
-- only the item: a claim of three nights left three rows, each inserted, indexed and
-- sequenced on the one writer, and every server's poll reloaded all of the item's
-- units for them. Rows written before this migration name no unit (NULL), and a
-- change of a whole item still names none.
ALTER TABLE changes ADD COLUMN unit_kind TEXT;
ALTER TABLE changes ADD COLUMN unit_id BIGINT;
DROP TRIGGER inventory_changed_update;
DROP TRIGGER inventory_changed_delete;
-- Each trigger widens the last change row when it is still unsequenced and names the
-- same unit (one writer at a time: the last row is this transaction's, or a committed
-- one no poll has placed yet, which then tells the wider range), and otherwise adds a
-- row. The widened range may hold days not written (two claims of one unit, far
-- apart): a poll reloads them too, which costs a read, never a wrong answer.
-- +goose StatementBegin
CREATE TRIGGER inventory_changed_update AFTER UPDATE ON inventory
BEGIN
    UPDATE changes SET day_from = min(day_from, NEW.day), day_to = max(day_to, NEW.day)
    WHERE id = (SELECT max(id) FROM changes) AND seq IS NULL
        AND unit_kind = NEW.kind AND item_id = NEW.item_id AND unit_id = NEW.unit_id;
    INSERT INTO changes (kind, item_id, unit_kind, unit_id, day_from, day_to)
    SELECT CASE NEW.kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        NEW.item_id, NEW.kind, NEW.unit_id, NEW.day, NEW.day
    WHERE NOT EXISTS (SELECT 1 FROM changes WHERE id = (SELECT max(id) FROM changes) AND seq IS NULL
        AND unit_kind = NEW.kind AND item_id = NEW.item_id AND unit_id = NEW.unit_id
        AND day_from <= NEW.day AND day_to >= NEW.day);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER inventory_changed_delete AFTER DELETE ON inventory
BEGIN
    UPDATE changes SET day_from = min(day_from, OLD.day), day_to = max(day_to, OLD.day)
    WHERE id = (SELECT max(id) FROM changes) AND seq IS NULL
        AND unit_kind = OLD.kind AND item_id = OLD.item_id AND unit_id = OLD.unit_id;
    INSERT INTO changes (kind, item_id, unit_kind, unit_id, day_from, day_to)
    SELECT CASE OLD.kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        OLD.item_id, OLD.kind, OLD.unit_id, OLD.day, OLD.day
    WHERE NOT EXISTS (SELECT 1 FROM changes WHERE id = (SELECT max(id) FROM changes) AND seq IS NULL
        AND unit_kind = OLD.kind AND item_id = OLD.item_id AND unit_id = OLD.unit_id
        AND day_from <= OLD.day AND day_to >= OLD.day);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER inventory_changed_update;
DROP TRIGGER inventory_changed_delete;
-- +goose StatementBegin
CREATE TRIGGER inventory_changed_update AFTER UPDATE ON inventory
BEGIN
    INSERT INTO changes (kind, item_id, day_from, day_to) VALUES (
        CASE NEW.kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        NEW.item_id, NEW.day, NEW.day);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER inventory_changed_delete AFTER DELETE ON inventory
BEGIN
    INSERT INTO changes (kind, item_id, day_from, day_to) VALUES (
        CASE OLD.kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        OLD.item_id, OLD.day, OLD.day);
END;
-- +goose StatementEnd
ALTER TABLE changes DROP COLUMN unit_id;
ALTER TABLE changes DROP COLUMN unit_kind;
