-- +goose Up
-- Inventory becomes a WITHOUT ROWID table: its rows live in the B-tree of the primary
-- key (kind, unit_id, day) itself, rather than in a rowid table plus a copy of the key
-- in a separate index. A catalog import writes one B-tree per row instead of two (the
-- by-item index is built after a first import's load), the file holds each row once,
-- and a lookup by key reads one B-tree. Nothing refers to inventory's rowid.
CREATE TABLE inventory_new (
    kind      TEXT NOT NULL,
    unit_id   BIGINT NOT NULL,
    item_id   BIGINT NOT NULL,
    day       TEXT NOT NULL,
    capacity  INTEGER NOT NULL,
    sold      INTEGER NOT NULL DEFAULT 0,
    price     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, unit_id, day),
    CHECK (sold >= 0)
) WITHOUT ROWID;
INSERT INTO inventory_new (kind, unit_id, item_id, day, capacity, sold, price)
    SELECT kind, unit_id, item_id, day, capacity, sold, price FROM inventory ORDER BY kind, unit_id, day;
DROP TABLE inventory;
ALTER TABLE inventory_new RENAME TO inventory;
CREATE INDEX inventory_item ON inventory(kind, item_id, day);
-- The change triggers of 00010, dropped with the old table.
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

-- +goose Down
CREATE TABLE inventory_old (
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
INSERT INTO inventory_old (kind, unit_id, item_id, day, capacity, sold, price)
    SELECT kind, unit_id, item_id, day, capacity, sold, price FROM inventory;
DROP TABLE inventory;
ALTER TABLE inventory_old RENAME TO inventory;
CREATE INDEX inventory_item ON inventory(kind, item_id, day);
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
