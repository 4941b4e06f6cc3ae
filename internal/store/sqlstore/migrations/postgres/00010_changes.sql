-- +goose Up
-- The read model's change feed (internal/readmodel, docs/readmodel.md): every write to a
-- catalog item or to its inventory leaves a row naming the item and, for inventory, the
-- days written (NULL: the whole item). Servers reload only those. seq is given after
-- commit by one sequencer at a time (the change_sequence row, as event_sequence does for
-- the event feed), so a reader resuming after the last seq it saw misses nothing that
-- committed late; sequenced_at dates it for the retention job.
CREATE TABLE changes (
    id            BIGSERIAL PRIMARY KEY,
    kind          TEXT NOT NULL,
    item_id       BIGINT NOT NULL,
    day_from      TEXT,
    day_to        TEXT,
    seq           BIGINT,
    sequenced_at  TIMESTAMPTZ
);
CREATE UNIQUE INDEX changes_seq ON changes(seq);
CREATE INDEX changes_unsequenced ON changes(id) WHERE seq IS NULL;
CREATE INDEX changes_sequenced_at ON changes(sequenced_at) WHERE seq IS NOT NULL;
CREATE TABLE change_sequence (
    id    INTEGER PRIMARY KEY,
    last  BIGINT NOT NULL
);
INSERT INTO change_sequence (id, last) VALUES (1, 0);

-- Statement triggers over transition tables: one change row per item a statement
-- touched (an import's COPY of a batch, a claim's UPDATE), with the days it spans.
-- +goose StatementBegin
CREATE FUNCTION items_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, item_id) SELECT DISTINCT kind, id FROM changed_rows;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION inventory_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO changes (kind, item_id, day_from, day_to)
    SELECT CASE kind WHEN 'room' THEN 'hotel' WHEN 'activity' THEN 'activity' WHEN 'space' THEN 'rental' ELSE 'package' END,
        item_id, MIN(day), MAX(day)
    FROM changed_rows GROUP BY kind, item_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER items_changed_insert AFTER INSERT ON items
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION items_changed();
CREATE TRIGGER items_changed_update AFTER UPDATE ON items
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION items_changed();
CREATE TRIGGER items_changed_delete AFTER DELETE ON items
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION items_changed();
CREATE TRIGGER inventory_changed_insert AFTER INSERT ON inventory
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_changed();
CREATE TRIGGER inventory_changed_update AFTER UPDATE ON inventory
    REFERENCING NEW TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_changed();
CREATE TRIGGER inventory_changed_delete AFTER DELETE ON inventory
    REFERENCING OLD TABLE AS changed_rows FOR EACH STATEMENT EXECUTE FUNCTION inventory_changed();

-- +goose Down
DROP TRIGGER inventory_changed_delete ON inventory;
DROP TRIGGER inventory_changed_update ON inventory;
DROP TRIGGER inventory_changed_insert ON inventory;
DROP TRIGGER items_changed_delete ON items;
DROP TRIGGER items_changed_update ON items;
DROP TRIGGER items_changed_insert ON items;
DROP FUNCTION inventory_changed();
DROP FUNCTION items_changed();
DROP TABLE change_sequence;
DROP TABLE changes;
