package sqlstore

import (
	"context"

	"github.com/tradewind/tradewind/internal/store"
)

// SampleAnswer is sampleAnswer for the external test package's benchmarks.
var SampleAnswer = sampleAnswer

// MigrateDownTo rolls the migrations after version back (their Down steps), for tests
// of a Down step; no command runs them.
func (s *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := s.migrations()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}

// SequencerStatement is one statement of the sequencers (queue.go) with sample
// arguments, and the partial index it must read through.
type SequencerStatement struct {
	Index, SQL string
	Args       []any
}

// SequencerStatements are the sequencers' reads of the rows not sequenced yet: each
// existence check and each sequencing UPDATE.
func (s *DB) SequencerStatements(now string) []SequencerStatement {
	return []SequencerStatement{
		{"changes_unsequenced", queuedSQL(s.unsequencedChanges()), nil},
		{"events_unsequenced", queuedSQL(s.unsequencedEvents()), nil},
		{"changes_unsequenced", s.changeSequenceSQL(), []any{0, 5000, now}},
		{"events_unsequenced", s.eventSequenceSQL(), []any{0, 5000}},
	}
}

// EventFeedQuery is EventFeed's statement for p and its arguments, for a test of its plan.
func (s *DB) EventFeedQuery(p store.EventFeedParams) (string, []any) { return s.eventFeedQuery(p) }

// EventsOfBookingSQL is EventListByBooking's statement.
const EventsOfBookingSQL = eventsOfBookingSQL
