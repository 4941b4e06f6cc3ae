package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestRetentionJobs: each retention job deletes what is past its retention by the
// injected clock, across as many batches as it takes, and nothing else.
func TestRetentionJobs(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		st := o.Open(t)
		ctx := context.Background()
		clock := apitest.NewClock(apitest.Start)
		deleted := map[string]int{}
		r := jobs.New(jobs.Config{Leases: st, Clock: clock})
		for _, j := range jobs.RetentionJobs(jobs.RetentionConfig{Store: st, Clock: clock, Retention: jobs.DefaultRetention, BatchSize: 2,
			Deleted: func(job string, n int) { deleted[job] += n }}) {
			if err := r.Register(j); err != nil {
				t.Fatal(err)
			}
		}
		want := []string{"retention.events", "retention.subscriptions", "retention.prebooks", "retention.idempotency", "retention.signing_secrets",
			"retention.signature_replays", "retention.request_logs_test", "retention.request_logs_live", "retention.usage_counters", "retention.changes"}
		if got := r.Jobs(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("jobs = %v, want %v", got, want)
		}

		// Five of each, one a day: on day 0..4.
		for i := range 5 {
			at := apitest.Start.AddDate(0, 0, i)
			if err := st.IdempotencyClaim(ctx, store.IdempotencyRecord{PartnerID: 1, Mode: tradewind.ModeTest, Key: fmt.Sprint("k", i), CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if err := st.PrebookCreate(ctx, &tradewind.Prebook{Token: fmt.Sprint("pbk_", i), PartnerID: 1, Mode: "test", Quote: []byte(`{}`),
				Currency: "EUR", ExpiresAt: at, CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if _, err := st.SignatureRecord(ctx, store.SignatureRecordParams{PartnerID: 1, Hash: fmt.Sprint("sig", i), ExpiresAt: at}); err != nil {
				t.Fatal(err)
			}
			if err := st.EventCreate(ctx, &tradewind.Event{ID: fmt.Sprint("evt_", i), PartnerID: 1, Type: tradewind.EventAvailabilityChanged,
				Data: []byte(`{}`), CreatedAt: at}); err != nil {
				t.Fatal(err)
			}
			if _, err := st.ItemPut(ctx, &store.Item{Kind: tradewind.ProductHotel, ID: int64(i + 1), CityKey: "x", Data: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			if err := st.InTx(ctx, func(q store.Querier) error { _, err := q.ChangeSequence(ctx, at, 10); return err }); err != nil {
				t.Fatal(err)
			}
		}
		count := func(table string) int {
			var n int
			if err := st.SQL().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Day 4 + 23 h: prebooks that expired on day 0..3 are gone; nothing else is old enough.
		clock.Set(apitest.Start.AddDate(0, 0, 5).Add(-time.Hour))
		r.RunDue(ctx)
		if count("signature_replays") != 0 { // expired on day 0..4, kept a minute after
			t.Fatalf("after 5 days: signature_replays %d, want 0", count("signature_replays"))
		}
		if count("changes") != 0 { // sequenced on day 0..4, kept an hour after
			t.Fatalf("after 5 days: changes %d, want 0", count("changes"))
		}
		if count("prebooks") != 1 || count("idempotency_keys") != 5 || count("events") != 5 {
			t.Fatalf("after 5 days: prebooks %d, idempotency %d, events %d; want 1, 5, 5", count("prebooks"), count("idempotency_keys"), count("events"))
		}
		// Day 9 + 1 h, past the interval: idempotency records of day 0..2 are 7 days old.
		clock.Set(apitest.Start.AddDate(0, 0, 9).Add(time.Hour))
		r.RunDue(ctx)
		if count("idempotency_keys") != 2 || count("events") != 5 {
			t.Fatalf("after 9 days: idempotency %d, events %d; want 2, 5", count("idempotency_keys"), count("events"))
		}
		// Day 34 + 1 h: events of day 0..4 are past 30 days.
		clock.Set(apitest.Start.AddDate(0, 0, 34).Add(time.Hour))
		r.RunDue(ctx)
		if count("events") != 0 || count("idempotency_keys") != 0 || count("prebooks") != 0 {
			t.Fatalf("after 34 days: events %d, idempotency %d, prebooks %d; want none", count("events"), count("idempotency_keys"), count("prebooks"))
		}
		if deleted["retention.events"] != 5 || deleted["retention.prebooks"] != 5 || deleted["retention.idempotency"] != 5 ||
			deleted["retention.signature_replays"] != 5 || deleted["retention.changes"] != 5 {
			t.Errorf("deleted = %v", deleted)
		}
	})
}
