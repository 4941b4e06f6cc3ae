package postgres_test

import (
	"context"
	"sync"
	"testing"

	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestPoolKeepsItsConnections: a burst that uses every connection of the pool leaves
// them all open for the next one. With fewer idle than open, each burst closed the
// surplus as it came back and opened it again (a new backend and TLS handshake for a
// request), which halved the PostgreSQL get-booking benchmark.
func TestPoolKeepsItsConnections(t *testing.T) {
	db := storetest.OpenPostgres(t).SQL()
	n := db.Stats().MaxOpenConnections
	if n <= 0 {
		t.Fatalf("the pool's connections are unbounded (%d)", n)
	}
	burst := func() {
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if _, err := db.ExecContext(context.Background(), `SELECT pg_sleep(0.05)`); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	burst()
	burst()
	if s := db.Stats(); s.MaxIdleClosed != 0 || s.OpenConnections != n {
		t.Errorf("after two bursts of %d: %d connections closed as surplus idle ones, %d open; want 0 and %d",
			n, s.MaxIdleClosed, s.OpenConnections, n)
	}
}
