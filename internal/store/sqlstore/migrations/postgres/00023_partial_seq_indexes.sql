-- +goose Up
-- Events and changes are written with seq NULL and numbered later by their sequencer.
-- Indexed in full, every insert added a NULL entry to events_seq, events_feed and
-- changes_seq, which numbering then deleted again: two index writes per row for
-- entries no query reads (every read of seq compares it, or asks seq IS NOT NULL;
-- the unsequenced rows have indexes of their own). Kept unique among numbered rows.
DROP INDEX events_seq;
CREATE UNIQUE INDEX events_seq ON events(seq) WHERE seq IS NOT NULL;
DROP INDEX events_feed;
CREATE INDEX events_feed ON events(partner_id, seq) WHERE seq IS NOT NULL;
DROP INDEX changes_seq;
CREATE UNIQUE INDEX changes_seq ON changes(seq) WHERE seq IS NOT NULL;

-- +goose Down
DROP INDEX changes_seq;
CREATE UNIQUE INDEX changes_seq ON changes(seq);
DROP INDEX events_feed;
CREATE INDEX events_feed ON events(partner_id, seq);
DROP INDEX events_seq;
CREATE UNIQUE INDEX events_seq ON events(seq);
