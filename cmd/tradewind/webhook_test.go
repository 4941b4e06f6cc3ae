package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/client"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/store"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// catalogAndPartner imports the test catalog, creates the partner acme and returns
// `key issue --json` of a key of mode.
func catalogAndPartner(t *testing.T, dsn, mode string) map[string]any {
	t.Helper()
	if r := runTradewind(t, dsn, "", "catalog", "import", writeCatalog(t, apitest.Catalog())); r.err != nil {
		t.Fatal(r.err)
	}
	runTradewind(t, dsn, "", "partner", "create", "--name", "acme", "--credit-limit", "10000")
	var key map[string]any
	mustJSON(t, dsn, &key, "key", "issue", "--partner", "acme", "--mode", mode)
	return key
}

// TestServeDeliversWebhooks runs `tradewind serve` with a compressed retry schedule: a
// booking's event reaches the receiver after one failed attempt, the operator lists the
// delivery with its attempts and has it sent again.
func TestServeDeliversWebhooks(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			key := catalogAndPartner(t, dsn, "live")

			// The receiver refuses the first delivery. Its url is plain http on loopback,
			// which only --webhook-allow-private permits, so the subscription is written
			// to the database directly (the API accepts https only).
			const secret = "whsec_cli_test_secret"
			var mu sync.Mutex
			var requests int
			var ids []string
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if err := client.VerifyWebhook(secret, r.Header, body, 0, time.Now()); err != nil {
					t.Errorf("delivery: %v", err)
				}
				mu.Lock()
				defer mu.Unlock()
				if requests++; requests == 1 {
					http.Error(w, "not yet", http.StatusInternalServerError)
					return
				}
				ids = append(ids, r.Header.Get(client.HeaderEventID))
			}))
			t.Cleanup(rcv.Close)
			acked := func() []string {
				mu.Lock()
				defer mu.Unlock()
				return append([]string(nil), ids...)
			}
			st, err := database.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			p, err := st.PartnerGetByName(context.Background(), "acme")
			if err == nil {
				_, err = st.SubscriptionCreate(context.Background(), store.SubscriptionCreateParams{PartnerID: p.ID, URL: rcv.URL + "/h",
					EventTypes: []tradewind.EventType{tradewind.EventBookingConfirmed}, Secret: secret, CreatedAt: time.Now()})
			}
			st.Close()
			if err != nil {
				t.Fatal(err)
			}

			s := startServe(t, dsn, "--webhook-allow-private", "--webhook-retry-schedule", "200ms,200ms")
			body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"X"}}`,
				apitest.HotelLisbon, apitest.RoomDouble, dayFromNow(3), dayFromNow(4))
			req, _ := http.NewRequest(http.MethodPost, s.base+"/bookings", strings.NewReader(body))
			req.Header.Set("auth-api-key", key["key"].(string))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", "wh-1")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("book: %d", resp.StatusCode)
			}
			waitUntil(t, "the delivery", func() bool { return len(acked()) == 1 })
			eventID := acked()[0]

			var list []deliveryView
			waitUntil(t, "the attempt to be recorded", func() bool {
				mustJSON(t, dsn, &list, "webhook", "deliveries", "--partner", "acme")
				return len(list) == 1 && list[0].Status == "succeeded"
			})
			d := list[0]
			if d.EventID != eventID || d.EventType != "booking.confirmed" || d.Partner != "acme" || d.URL != rcv.URL+"/h" ||
				d.NextAttemptAt != nil || len(d.Attempts) != 2 || d.Attempts[0].StatusCode != 500 || d.Attempts[0].Error != "status 500" ||
				d.Attempts[0].Response != "not yet\n" || d.Attempts[1].StatusCode != 200 || d.Attempts[1].Error != "" {
				t.Fatalf("deliveries --json = %+v", d)
			}
			if r := runTradewind(t, dsn, "", "webhook", "deliveries", "--event", eventID); r.err != nil ||
				!strings.Contains(r.stdout, "succeeded") || !strings.Contains(r.stdout, "attempt 2") || !strings.Contains(r.stdout, "HTTP 500") {
				t.Errorf("deliveries (human): %v\n%s", r.err, r.stdout)
			}
			mustJSON(t, dsn, &list, "webhook", "deliveries", "--status", "failed")
			if len(list) != 0 {
				t.Errorf("failed deliveries: %+v", list)
			}

			// Redelivery: the server sends the event again, with the same id.
			var out map[string]any
			mustJSON(t, dsn, &out, "webhook", "redeliver", eventID)
			if out["deliveries"] != float64(1) || out["event_id"] != eventID {
				t.Errorf("redeliver --json = %v", out)
			}
			waitUntil(t, "the redelivery", func() bool { return len(acked()) == 2 })
			if got := acked(); got[1] != eventID {
				t.Errorf("redelivered event id %s, want %s", got[1], eventID)
			}
			waitUntil(t, "the redelivery to be recorded", func() bool {
				mustJSON(t, dsn, &list, "webhook", "deliveries", "--event", eventID, "--status", "succeeded")
				return len(list) == 2
			})

			if r := runTradewind(t, dsn, "", "webhook", "redeliver", "evt_unknown"); r.err == nil || !strings.Contains(r.err.Error(), `no event "evt_unknown"`) {
				t.Errorf("redeliver of an unknown event: %v", r.err)
			}
			if r := runTradewind(t, dsn, "", "webhook", "deliveries", "--partner", "nobody"); r.err == nil || !strings.Contains(r.err.Error(), "no partner") {
				t.Errorf("deliveries of an unknown partner: %v", r.err)
			}
			if r := runTradewind(t, dsn, "", "webhook", "deliveries", "--status", "lost"); r.err == nil {
				t.Error("deliveries --status lost succeeded")
			}
		})
	}
}

func TestServeRefusesBadRetrySchedule(t *testing.T) {
	t.Parallel()
	dsn := storetest.SQLiteDSN(t)
	r := runTradewind(t, dsn, "", "serve", "--addr", "127.0.0.1:0", "--webhook-retry-schedule", "1m,soon")
	if r.err == nil || !strings.Contains(r.err.Error(), `--webhook-retry-schedule: webhook schedule entry 2 "soon"`) {
		t.Fatalf("serve with a bad schedule: %v", r.err)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebhookPauseResume runs `tradewind webhook pause ID` and `resume ID`.
func TestWebhookPauseResume(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			runTradewind(t, dsn, "", "partner", "create", "--name", "acme", "--credit-limit", "10000")
			st, err := database.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			p, err := st.PartnerGetByName(context.Background(), "acme")
			var sub *store.Subscription
			if err == nil {
				sub, err = st.SubscriptionCreate(context.Background(), store.SubscriptionCreateParams{PartnerID: p.ID, URL: "https://acme.example/h",
					EventTypes: []tradewind.EventType{tradewind.EventBookingConfirmed}, Secret: "whsec_x", CreatedAt: time.Now()})
			}
			if err != nil {
				t.Fatal(err)
			}
			id := fmt.Sprint(sub.ID)
			var out map[string]any
			mustJSON(t, dsn, &out, "webhook", "pause", id)
			if out["paused"] != true {
				t.Errorf("pause --json = %v", out)
			}
			got, err := st.SubscriptionGetByID(context.Background(), sub.ID)
			st.Close()
			if err != nil || got.PausedAt.IsZero() || got.PauseReason != "operator" {
				t.Errorf("after pause: %+v %v", got, err)
			}
			if r := runTradewind(t, dsn, "", "webhook", "pause", id); r.err == nil || !strings.Contains(r.err.Error(), "already paused") {
				t.Errorf("second pause: %v", r.err)
			}
			if r := runTradewind(t, dsn, "", "webhook", "resume", id); r.err != nil || !strings.Contains(r.stdout, "resumed") {
				t.Errorf("resume: %v %s", r.err, r.stdout)
			}
			if r := runTradewind(t, dsn, "", "webhook", "resume", "999"); r.err == nil || !strings.Contains(r.err.Error(), "not found") {
				t.Errorf("resume of an unknown subscription: %v", r.err)
			}
		})
	}
}

// TestServeRunsScenarioTimers: `serve` runs the periodic job that carries out a sandbox
// scenario's timed change (on_request; confirm_after=1) on its own.
func TestServeRunsScenarioTimers(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			dsn := o.DSN(t)
			key := catalogAndPartner(t, dsn, "test")
			s := startServe(t, dsn)
			c := client.New(s.base, key["key"].(string))
			ctx := context.Background()
			b, err := c.Book(client.WithScenario(ctx, "on_request; confirm_after=1"), &client.BookRequest{Guest: client.Guest{Name: "X"},
				Quote: client.Quote{ProductType: client.ProductHotel, HotelID: apitest.HotelLisbon, RoomID: apitest.RoomDouble,
					CheckIn: dayFromNow(3), CheckOut: dayFromNow(4), Rooms: 1, Adults: 1}})
			if err != nil || b.Status != client.StatusOnRequest {
				t.Fatalf("book: %+v %v", b, err)
			}
			waitUntil(t, "the scenario's confirmation", func() bool {
				got, err := c.GetBooking(ctx, b.Reference)
				return err == nil && got.Status == client.StatusConfirmed
			})
		})
	}
}
