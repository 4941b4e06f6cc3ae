-- +goose Up
-- The read model's change feed (internal/readmodel, docs/readmodel.md): every write to a
-- catalog item or to its inventory leaves a row naming the item and, for inventory, the
-- days written (NULL: the whole item). Servers reload only those. seq is given after
-- commit by one sequencer at a time (the change_sequence row, as event_sequence does for
-- the event feed), so a reader resuming after the last seq it saw misses nothing that
-- committed late; sequenced_at dates it for the retention job.
CREATE TABLE changes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT NOT NULL,
    item_id       BIGINT NOT NULL,
    day_from      TEXT,
    day_to        TEXT,
    seq           BIGINT,
    sequenced_at  DATETIME
);
CREATE UNIQUE INDEX changes_seq ON changes(seq);
CREATE INDEX changes_unsequenced ON changes(id) WHERE seq IS NULL;
CREATE INDEX changes_sequenced_at ON changes(sequenced_at) WHERE seq IS NOT NULL;
CREATE TABLE change_sequence (
    id    INTEGER PRIMARY KEY,
    last  BIGINT NOT NULL
);
INSERT INTO change_sequence (id, last) VALUES (1, 0);

-- +goose StatementBegin
CREATE TRIGGER items_changed_insert AFTER INSERT ON items
BEGIN
    INSERT INTO changes (kind, item_id) VALUES (NEW.kind, NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER items_changed_update AFTER UPDATE ON items
BEGIN
    INSERT INTO changes (kind, item_id) VALUES (NEW.kind, NEW.id);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER items_changed_delete AFTER DELETE ON items
BEGIN
    INSERT INTO changes (kind, item_id) VALUES (OLD.kind, OLD.id);
END;
-- +goose StatementEnd
-- SQLite has only row triggers: inventory rows are inserted only by the catalog import,
-- which writes their item in the same transaction (the items trigger covers them), so no
-- INSERT trigger adds a change row per imported day.
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
DROP TRIGGER inventory_changed_delete;
DROP TRIGGER inventory_changed_update;
DROP TRIGGER items_changed_delete;
DROP TRIGGER items_changed_update;
DROP TRIGGER items_changed_insert;
DROP TABLE change_sequence;
DROP TABLE changes;
