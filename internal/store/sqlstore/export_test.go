package sqlstore

import "context"

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
