package main

import (
	"context"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestServeRunsRetention: `serve` runs the retention jobs (an expired prebook and an
// old idempotency record disappear, a fresh one stays) and stops them on shutdown.
func TestServeRunsRetention(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	ctx := context.Background()
	st, err := database.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().UTC()
	for token, exp := range map[string]time.Time{"pbk_old": now.Add(-48 * time.Hour), "pbk_fresh": now.Add(time.Minute)} {
		if err := st.PrebookCreate(ctx, &tradewind.Prebook{Token: token, PartnerID: 1, Mode: "test", Quote: []byte(`{}`), Currency: "EUR",
			ExpiresAt: exp, CreatedAt: exp}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeLive, Key: "old", CreatedAt: now.Add(-8 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	count := func(query string) int {
		var n int
		if err := st.SQL().QueryRow(query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	retentionJobs := len(jobs.RetentionJobs(jobs.RetentionConfig{Retention: jobs.DefaultRetention}))
	s := startServe(t, dsn)
	waitUntil(t, "retention", func() bool {
		return count(`SELECT COUNT(*) FROM prebooks WHERE token = 'pbk_old'`) == 0 && count(`SELECT COUNT(*) FROM idempotency_keys`) == 0
	})
	if n := count(`SELECT COUNT(*) FROM prebooks WHERE token = 'pbk_fresh'`); n != 1 {
		t.Errorf("the fresh prebook was deleted")
	}
	waitUntil(t, "every retention job to run", func() bool {
		return count(`SELECT COUNT(*) FROM job_leases WHERE name LIKE 'retention.%' AND next_run_at > updated_at`) == retentionJobs
	})
	s.cancel()
	if err := <-s.done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	s.done <- nil
	if n := count(`SELECT COUNT(*) FROM job_leases WHERE locked_until IS NOT NULL`); n != 0 {
		t.Errorf("%d leases still held after shutdown", n)
	}
}
