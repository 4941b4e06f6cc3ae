package jobs_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/jobs"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/storetest"
	"github.com/tradewind/tradewind/internal/webhook"
)

// TestSoakTablesStayBounded drives constant prebook, booking and cancellation load
// through the HTTP API (loopback only) while the clock advances twelve hours a round,
// for 42 simulated days, with every event delivered to a webhook receiver and the
// retention jobs running in the background. Once the longest retention (30 days) has
// passed, no table that grows with traffic grows any more: each stays within a few
// rounds' worth of rows of its size at that moment. Bounded: 84 rounds.
func TestSoakTablesStayBounded(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		t.Cleanup(rcv.Close)
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		t.Cleanup(func() { cancel(); wg.Wait() })
		start := func(run func(ctx context.Context)) {
			wg.Add(1)
			go func() { defer wg.Done(); run(ctx) }()
		}
		// The dispatcher delivers every event at once (to loopback, as only tests may).
		withDispatcher := func(cfg *httpapi.Config) {
			d, err := webhook.NewDispatcher(webhook.DispatcherConfig{Store: cfg.Store, Clock: cfg.Clock,
				Deliverer: webhook.NewDeliverer(true, 5*time.Second, nil), PollInterval: 50 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			cfg.Service.Store = webhook.NotifyOnEvent(cfg.Store, d.Nudge)
			start(d.Run)
		}
		env := apitest.New(t, o, withDispatcher)
		env.Import(apitest.Catalog())
		p := env.NewPartner("acme", booking.PartnerParams{})
		if _, err := env.Store.SubscriptionCreate(ctx, store.SubscriptionCreateParams{PartnerID: p.ID, URL: rcv.URL + "/hook",
			EventTypes: tradewind.AllEventTypes, Secret: "whsec_soak", CreatedAt: env.Clock.Now()}); err != nil {
			t.Fatal(err)
		}

		runner := jobs.New(jobs.Config{Leases: env.Store, Clock: env.Clock, Poll: 20 * time.Millisecond})
		for _, j := range jobs.RetentionJobs(jobs.RetentionConfig{Store: env.Store, Clock: env.Clock, Retention: jobs.DefaultRetention,
			Interval: time.Hour, BatchSize: 50}) {
			if err := runner.Register(j); err != nil {
				t.Fatal(err)
			}
		}
		start(runner.Run)

		tables := []string{"events", "webhook_deliveries", "webhook_attempts", "prebooks", "idempotency_keys"}
		count := func(table string) int {
			var n int
			if err := env.Store.SQL().QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		const step = 12 * time.Hour
		const rounds = 42 * 24 * time.Hour / step
		warm := apitest.Start.Add(31 * 24 * time.Hour) // past the longest retention, plus a day
		var atWarm, most map[string]int
		for i := range int(rounds) {
			day := env.Clock.Now().Format(tradewind.DateLayout)
			next := env.Clock.Now().AddDate(0, 0, 1).Format(tradewind.DateLayout)
			quote := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomDouble,
				"check_in": day, "check_out": next, "rooms": 1, "adults": 1}
			env.Post(p.LiveKey, "/bookings/prebook", quote).Expect(t, http.StatusOK, "")
			quote["guest"] = map[string]any{"name": "Soak Test"}
			var b struct{ Reference string }
			env.Book(p.LiveKey, fmt.Sprint("soak-", i), quote).Expect(t, http.StatusCreated, "").Decode(t, &b)
			env.Post(p.LiveKey, "/bookings/"+b.Reference+"/cancel", map[string]any{"reason": "soak"}).Expect(t, http.StatusOK, "")
			env.Clock.Advance(step)

			if env.Clock.Now().Before(warm) {
				continue
			}
			if atWarm == nil {
				// Let the jobs catch up with the first day past every retention.
				time.Sleep(200 * time.Millisecond)
				atWarm, most = map[string]int{}, map[string]int{}
				for _, tb := range tables {
					atWarm[tb] = count(tb)
				}
				continue
			}
			for _, tb := range tables {
				most[tb] = max(most[tb], count(tb))
			}
		}
		// A round writes two events, each with one delivery and one attempt, one
		// idempotency record and one prebook; a slow retention run may lag a few rounds.
		const slack = 5 * 2
		for _, tb := range tables {
			grow := slack
			if tb == "webhook_attempts" { // a delivery may be attempted twice (below)
				grow = 2 * slack
			}
			if most[tb] > atWarm[tb]+grow {
				t.Errorf("%s grew from %d rows to %d once retention ran", tb, atWarm[tb], most[tb])
			}
		}
		// And they are bounded by their retention: 30 days of events (60 rounds × 2),
		// 7 days of idempotency records (14 rounds), a day of prebooks (2 rounds).
		// A delivery may be attempted twice when the clock's jump expires its lease mid-send.
		for tb, bound := range map[string]int{"events": 120, "webhook_deliveries": 120, "webhook_attempts": 240,
			"idempotency_keys": 14, "prebooks": 2} {
			if most[tb] > bound+slack {
				t.Errorf("%s reached %d rows, past its retention's %d", tb, most[tb], bound)
			}
		}
		t.Logf("rows once retention ran: %v; most since: %v", atWarm, most)
	})
}
