-- +goose Up
-- Inventory keyed by item first (docs/performance-history.md "invkey"), as on SQLite: one index
-- per row instead of two. A first import built the primary key (kind, unit_id, day) and
-- inventory_item (kind, item_id, day) after its COPY, two thirds of the server's CPU;
-- the key (kind, item_id, unit_id, day) serves both a claim (item, unit, days) and the
-- reads by item, so inventory_item goes.
--
-- What the old key also guaranteed, that a unit's day belongs to one item, is now
-- inventory_units: one row per unit, UNIQUE (kind, unit_id), written with the unit's
-- inventory (InventoryInsert, InventoryPut), so that rows of a unit under a second item
-- fail as the old key's duplicate did. It also lists an item's units and answers the
-- import's unit-owner check by unit id.
CREATE TABLE inventory_units (
    kind      TEXT NOT NULL,
    item_id   BIGINT NOT NULL,
    unit_id   BIGINT NOT NULL,
    PRIMARY KEY (kind, item_id, unit_id)
);
INSERT INTO inventory_units (kind, item_id, unit_id)
    SELECT DISTINCT kind, item_id, unit_id FROM inventory;
-- Fails the migration if a stored unit already has rows of two items: the import's
-- owner check has always refused that; fix such rows by hand first.
CREATE UNIQUE INDEX inventory_units_unit ON inventory_units(kind, unit_id);

ALTER TABLE inventory DROP CONSTRAINT inventory_pkey,
    ADD CONSTRAINT inventory_pkey PRIMARY KEY (kind, item_id, unit_id, day);
DROP INDEX inventory_item;

-- +goose Down
CREATE INDEX inventory_item ON inventory(kind, item_id, day);
ALTER TABLE inventory DROP CONSTRAINT inventory_pkey,
    ADD CONSTRAINT inventory_pkey PRIMARY KEY (kind, unit_id, day);
DROP TABLE inventory_units;
