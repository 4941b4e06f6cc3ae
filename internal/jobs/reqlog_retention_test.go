package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestRequestLogRetention: the request log jobs delete exactly the entries past their
// mode's retention (test 7 days, live 30 by default), in batches, the usage job the
// counters of days past 400 days, and the rollup job folds hours older than 48 hours
// into their day.
func TestRequestLogRetention(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		st := o.Open(t)
		ctx := context.Background()
		clock := apitest.NewClock(apitest.Start)
		r := jobs.New(jobs.Config{Leases: st, Clock: clock})
		for _, j := range jobs.RetentionJobs(jobs.RetentionConfig{Store: st, Clock: clock, BatchSize: 3,
			Retention: jobs.Retention{RequestLogsTest: 7 * 24 * time.Hour, RequestLogsLive: 30 * 24 * time.Hour, UsageCounters: 400 * 24 * time.Hour}}) {
			if err := r.Register(j); err != nil {
				t.Fatal(err)
			}
		}
		// One entry of each mode every 12 hours over 40 days, and a counter a day.
		var entries []*store.RequestLogEntry
		var usage []tradewind.UsageRow
		for h := 0; h < 40*24; h += 12 {
			at := apitest.Start.Add(time.Duration(h) * time.Hour)
			for _, m := range []tradewind.Mode{tradewind.ModeTest, tradewind.ModeLive} {
				entries = append(entries, &store.RequestLogEntry{PartnerID: 1, Mode: m, At: at, Method: "GET", Path: "/p", Status: 200})
			}
		}
		for d := range 40 {
			usage = append(usage, tradewind.UsageRow{PartnerID: 1, Mode: tradewind.ModeLive, Hour: apitest.Start.AddDate(-1, 0, d).Truncate(24 * time.Hour), Route: "GET /p", Status: 200, Count: 1})
		}
		if err := st.RequestLogInsert(ctx, entries); err != nil {
			t.Fatal(err)
		}
		now := apitest.Start.AddDate(0, 0, 40)
		// Hourly counters: one of 72 hours ago is rolled into its day, one of an hour ago
		// stays apart.
		hourly := func(at time.Time, n int64) tradewind.UsageRow {
			return tradewind.UsageRow{PartnerID: 1, Mode: tradewind.ModeLive, Hour: at, Route: "GET /p", Status: 200, Count: n}
		}
		usage = append(usage, hourly(now.Add(-72*time.Hour), 2), hourly(now.Add(-time.Hour), 3))
		if err := st.UsageAdd(ctx, usage); err != nil {
			t.Fatal(err)
		}
		clock.Set(now)
		r.RunDue(ctx)
		left := map[tradewind.Mode][]time.Time{}
		rows, err := st.RequestLogSQL().Query(`SELECT mode, at FROM request_logs`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var m tradewind.Mode
			var at time.Time
			if err := rows.Scan(&m, &at); err != nil {
				t.Fatal(err)
			}
			left[m] = append(left[m], at)
		}
		rows.Close()
		for _, m := range []tradewind.Mode{tradewind.ModeTest, tradewind.ModeLive} {
			keep := map[tradewind.Mode]time.Duration{tradewind.ModeTest: 7 * 24 * time.Hour, tradewind.ModeLive: 30 * 24 * time.Hour}[m]
			want := 0
			for _, e := range entries {
				if e.Mode == m && !e.At.Before(now.Add(-keep)) {
					want++
				}
			}
			if len(left[m]) != want {
				t.Errorf("%s entries left: %d, want %d", m, len(left[m]), want)
			}
			for _, at := range left[m] {
				if at.Before(now.Add(-keep)) {
					t.Errorf("a %s entry of %v outlived its retention", m, at)
				}
			}
		}
		// Usage: the counters of a year ago − 35 days onwards are within 400 days (they
		// all lie in the 100 days listed).
		got, err := st.UsageList(ctx, 1, now.AddDate(0, 0, -410), now.AddDate(0, 0, -310))
		if err != nil {
			t.Fatal(err)
		}
		cut := now.AddDate(0, 0, -400)
		for _, u := range got {
			if u.Hour.Before(cut.Truncate(24 * time.Hour)) {
				t.Errorf("usage of %v outlived 400 days (cut %v)", u.Hour, cut)
			}
		}
		if want := 40 - int(cut.Sub(apitest.Start.AddDate(-1, 0, 0)).Hours()/24); len(got) != want {
			t.Errorf("%d usage days left, want %d", len(got), want)
		}
		recent, err := st.UsageList(ctx, 1, now.AddDate(0, 0, -4), now)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]tradewind.UsageRow{hourly(now.Add(-72*time.Hour).Truncate(24*time.Hour), 2),
			hourly(now.Add(-time.Hour).Truncate(time.Hour), 3)}, recent); d != "" {
			t.Errorf("recent usage after the rollup (-want +got):\n%s", d)
		}
	})
}
