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

// UnsequencedReads is how each sequencer reads the rows it has not sequenced yet
// (queue.go), as a SELECT of the first one, by the partial index it must read through.
func (s *DB) UnsequencedReads() map[string]string {
	return map[string]string{
		"changes_unsequenced": `SELECT id FROM ` + s.unsequencedChanges() + ` LIMIT 1`,
		"events_unsequenced":  `SELECT id FROM ` + s.unsequencedEvents() + ` LIMIT 1`,
	}
}

// EventFeedQuery is EventFeed's statement for p and its arguments, for a test of its plan.
func (s *DB) EventFeedQuery(p store.EventFeedParams) (string, []any) { return s.eventFeedQuery(p) }
