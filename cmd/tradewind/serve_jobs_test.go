package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/metrics"
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

// TestPauseFailingJob: the periodic job pauses a subscription whose deliveries all failed
// for 3 days (injected clock), once; counts it in
// tradewind_webhook_subscriptions_auto_paused_total; and the partner's audit log has the
// pause by "system".
func TestPauseFailingJob(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Catalog())
		ctx := context.Background()
		p := env.NewPartner("acme", booking.PartnerParams{})
		env.Post(p.LiveKey, "/webhooks", map[string]any{"url": "https://dead.acme.example/tw", "event_types": []string{"booking.confirmed"}}).
			Expect(t, http.StatusCreated, "")
		book := func(idem string, in int) {
			t.Helper()
			env.Book(p.LiveKey, idem, map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomSmall,
				"check_in": apitest.Day(in), "check_out": apitest.Day(in + 1), "rooms": 1, "adults": 1, "guest": map[string]any{"name": "Ada Lovelace"}}).
				Expect(t, http.StatusCreated, "")
		}
		reg := prometheus.NewRegistry()
		job := pauseFailingJob(env.Service, metrics.New(reg))
		counted := func() float64 {
			t.Helper()
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range families {
				if f.GetName() == "tradewind_webhook_subscriptions_auto_paused_total" {
					return f.GetMetric()[0].GetCounter().GetValue()
				}
			}
			t.Fatal("no tradewind_webhook_subscriptions_auto_paused_total")
			return 0
		}
		book("job-1", 3)
		env.AttemptAll(t, nil, true)
		env.Clock.Advance(booking.FailingPauseAfter - time.Minute)
		book("job-2", 5)
		env.AttemptAll(t, nil, true)
		if err := job.Run(ctx); err != nil || counted() != 0 {
			t.Fatalf("before 3 days: %v, %v paused", err, counted())
		}
		env.Clock.Advance(2 * time.Minute)
		for range 2 { // the second run finds it paused already
			if err := job.Run(ctx); err != nil || counted() != 1 {
				t.Fatalf("after 3 days: %v, %v paused", err, counted())
			}
		}
		entries, err := env.Store.AuditList(ctx, p.ID, 0, 10)
		if err != nil || len(entries) != 1 || entries[0].Actor != "system" || entries[0].Action != "webhook.paused" {
			t.Fatalf("audit log = %+v, %v", entries, err)
		}
	})
}
