-- +goose Up
-- Inventory keyed by item first (docs/performance-history.md "invkey"): one B-tree per row.
-- The rowid table with PRIMARY KEY (kind, unit_id, day) and the index inventory_item
-- (kind, item_id, day) were three B-trees, each written for every imported row (a first
-- import's rows and its sorted build of inventory_item were most of its CPU). Keyed
-- (kind, item_id, unit_id, day) WITHOUT ROWID, a row is in the key's B-tree alone, an
-- item's rows (the read model's start, a re-import's diff) are one range of it, and a
-- claim names its item, unit and days.
--
-- What the old key also guaranteed, that a unit's day belongs to one item, is now
-- inventory_units: one row per unit, UNIQUE (kind, unit_id), written in the same
-- statement batch as the unit's inventory (InventoryInsert, InventoryPut), so that rows
-- of a unit under a second item fail as the old key's duplicate did. It also lists an
-- item's units (a read of some days of an item seeks each unit's days) and answers the
-- import's unit-owner check by unit id.
CREATE TABLE inventory_units (
    kind      TEXT NOT NULL,
    item_id   BIGINT NOT NULL,
    unit_id   BIGINT NOT NULL,
    PRIMARY KEY (kind, item_id, unit_id)
) WITHOUT ROWID;
INSERT INTO inventory_units (kind, item_id, unit_id)
    SELECT DISTINCT kind, item_id, unit_id FROM inventory;
-- Fails the migration if a stored unit already has rows of two items: the import's
-- owner check has always refused that; fix such rows by hand first.
CREATE UNIQUE INDEX inventory_units_unit ON inventory_units(kind, unit_id);

CREATE TABLE inventory_new (
    kind      TEXT NOT NULL,
    unit_id   BIGINT NOT NULL,
    item_id   BIGINT NOT NULL,
    day       TEXT NOT NULL,
    capacity  INTEGER NOT NULL,
    sold      INTEGER NOT NULL DEFAULT 0,
    price     BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (kind, item_id, unit_id, day),
    CHECK (sold >= 0)
) WITHOUT ROWID;
-- In the stored order, not sorted: the writer keeps temporary data in memory
-- (temp_store), where a sort of every row held about 60 bytes a row (244 MB at a tenth
-- of the issue's catalog, against 97 MB unsorted), and an import's rows are stored in
-- the new key's order within each kind already.
INSERT INTO inventory_new (kind, unit_id, item_id, day, capacity, sold, price)
    SELECT kind, unit_id, item_id, day, capacity, sold, price FROM inventory;
-- Dropping the table drops its index and 00010's triggers; they are made again below.
DROP TABLE inventory;
ALTER TABLE inventory_new RENAME TO inventory;
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
DROP TABLE inventory_units;
