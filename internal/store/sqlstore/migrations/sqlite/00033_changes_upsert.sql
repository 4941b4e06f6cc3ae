-- +goose Up
-- A claim's change rows cost one statement a day, not two (issue 12). The triggers of
-- 00030 looked up the last change row twice for every inventory row a statement
-- wrote: once to widen it, once to add a row when it did not already cover the day.
-- Each now inserts the day's change row or widens the unsequenced one of the same
-- unit in one upsert, found by a unique index of the unsequenced rows by unit. A unit
-- has at most one unsequenced change row; the sequencer places it, and the next change
-- of the unit adds a new one. A widened range may hold days not written (two claims of
-- one unit, far apart, before a poll): a poll reloads them too, which costs a read,
-- never a wrong answer, as in 00030. Rows of an item's record name no unit (NULL),
-- which a unique index never counts as equal: they are never widened.
-- 00030 may have left several unsequenced rows of one unit, which the index would
-- refuse: each unit's are merged into its last one first (the range of them all).
CREATE TEMP TABLE changes_merged AS
    SELECT unit_kind, item_id, unit_id, max(id) AS id, min(day_from) AS day_from, max(day_to) AS day_to
    FROM changes WHERE seq IS NULL AND unit_kind IS NOT NULL
    GROUP BY unit_kind, item_id, unit_id HAVING count(*) > 1;
UPDATE changes SET day_from = m.day_from, day_to = m.day_to FROM changes_merged m WHERE changes.id = m.id;
DELETE FROM changes WHERE id IN (SELECT c.id FROM changes c JOIN changes_merged m
    ON c.unit_kind = m.unit_kind AND c.item_id = m.item_id AND c.unit_id = m.unit_id
    WHERE c.seq IS NULL AND c.id < m.id);
DROP TABLE changes_merged;
CREATE UNIQUE INDEX changes_unit_unsequenced ON changes(unit_kind, item_id, unit_id) WHERE seq IS NULL;
DROP TRIGGER inventory_changed_update;
DROP TRIGGER inventory_changed_delete;
-- +goose StatementBegin
CREATE TRIGGER inventory_changed_update AFTER UPDATE ON inventory
BEGIN
    INSERT INTO changes (kind, item_id, unit_kind, unit_id, day_from, day_to)
    VALUES (CASE NEW.kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        NEW.item_id, NEW.kind, NEW.unit_id, NEW.day, NEW.day)
    ON CONFLICT (unit_kind, item_id, unit_id) WHERE seq IS NULL
    DO UPDATE SET day_from = min(day_from, excluded.day_from), day_to = max(day_to, excluded.day_to);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER inventory_changed_delete AFTER DELETE ON inventory
BEGIN
    INSERT INTO changes (kind, item_id, unit_kind, unit_id, day_from, day_to)
    VALUES (CASE OLD.kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        OLD.item_id, OLD.kind, OLD.unit_id, OLD.day, OLD.day)
    ON CONFLICT (unit_kind, item_id, unit_id) WHERE seq IS NULL
    DO UPDATE SET day_from = min(day_from, excluded.day_from), day_to = max(day_to, excluded.day_to);
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER inventory_changed_update;
DROP TRIGGER inventory_changed_delete;
DROP INDEX changes_unit_unsequenced;
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
