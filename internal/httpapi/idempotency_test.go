package httpapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/httpapi"
	"github.com/tradewind/tradewind/internal/store/database"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestIdempotentReplayOverHTTP: the same body, its keys reordered and spaced otherwise,
// replays the booking with 200 and Idempotent-Replayed: true; another body with the
// key is 422 idempotency_key_reused; the test key's use of the key does not answer the
// live key.
func TestIdempotentReplayOverHTTP(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		body := fmt.Sprintf(`{"product_type":"hotel","hotel_id":%d,"room_id":%d,"check_in":%q,"check_out":%q,"rooms":1,"adults":1,"guest":{"name":"Ana Silva","email":"ana@example.com"}}`,
			apitest.HotelLisbon, apitest.RoomDouble, apitest.Day(1), apitest.Day(2))
		reordered := fmt.Sprintf(`{ "guest": {"email": "ana@example.com", "name": "Ana Silva"},
			"adults": 1, "rooms": 1, "check_out": %q, "check_in": %q, "room_id": %d, "hotel_id": %d, "product_type": "hotel" }`,
			apitest.Day(2), apitest.Day(1), apitest.RoomDouble, apitest.HotelLisbon)
		testRes := env.Book(p.TestKey, "K", body).Expect(t, 201, "")
		first := env.Book(p.LiveKey, "K", body).Expect(t, 201, "")
		if first.Header.Get(httpapi.HeaderIdempotentReplayed) != "" {
			t.Error("a new booking says it was replayed")
		}
		ref := first.Map(t)["reference"]
		if ref == testRes.Map(t)["reference"] || first.Map(t)["test"] != false {
			t.Fatalf("the live key got the test booking: %s", first.Raw)
		}
		again := env.Book(p.LiveKey, "K", reordered).Expect(t, 200, "")
		if again.Map(t)["reference"] != ref || again.Header.Get(httpapi.HeaderIdempotentReplayed) != "true" {
			t.Errorf("replay = %s, header %q", again.Raw, again.Header.Get(httpapi.HeaderIdempotentReplayed))
		}
		other := withGuest(hotelQuote(1, 2, 1, 2))
		env.Book(p.LiveKey, "K", other).Expect(t, 422, "idempotency_key_reused")
		env.Book(p.TestKey, "K", other).Expect(t, 422, "idempotency_key_reused")
		if used := creditOf(t, env, p.ID); used != 10005 {
			t.Errorf("credit used = %d, want one live booking's 10005", used)
		}
	})
}

// TestIdempotencyTwoServers: two servers on one PostgreSQL database, many requests at
// once with one key and two bodies: exactly one booking; the others replay it or are
// 422 idempotency_key_reused.
func TestIdempotencyTwoServers(t *testing.T) {
	t.Parallel()
	o := storetest.Openers()[1] // postgres
	dsn := o.DSN(t)
	var servers []*apitest.Env
	for range 2 {
		st, err := database.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		clock := apitest.NewClock(apitest.Start)
		logger := slog.New(slog.DiscardHandler)
		svc := booking.New(st, clock, logger)
		srv := httptest.NewServer(httpapi.NewServer(httpapi.Config{Store: st, Service: svc, Clock: clock, Logger: logger}))
		t.Cleanup(srv.Close)
		servers = append(servers, &apitest.Env{TB: t, DB: o.Name, Store: st, Service: svc, Clock: clock, Server: srv,
			URL: srv.URL + httpapi.Prefix})
	}
	servers[0].Import(apitest.Catalog())
	p := servers[0].NewPartner("acme", booking.PartnerParams{})
	bodies := []map[string]any{withGuest(hotelQuote(1, 3, 1, 1)), withGuest(hotelQuote(1, 3, 1, 2))}
	rs := hammer(24, func(i int) *apitest.Response {
		return servers[i%2].Book(p.LiveKey, "shared", bodies[(i/2)%2])
	})
	created := -1
	for i, r := range rs {
		if r.Status == 201 {
			if created >= 0 {
				t.Fatalf("two bookings created: %s and %s", rs[created].Raw, r.Raw)
			}
			created = i
		}
	}
	if created < 0 {
		t.Fatalf("no booking created: %v", statuses(rs))
	}
	ref := rs[created].Map(t)["reference"]
	for i, r := range rs {
		switch {
		case i == created:
		case (i/2)%2 == (created/2)%2:
			if r.Status != 200 || r.Map(t)["reference"] != ref || r.Header.Get(httpapi.HeaderIdempotentReplayed) != "true" {
				t.Errorf("same body answered %d %s", r.Status, r.Raw)
			}
		default:
			if r.Status != 422 || r.Code != "idempotency_key_reused" {
				t.Errorf("other body answered %d %s", r.Status, r.Raw)
			}
		}
	}
	var list []map[string]any
	servers[1].Get(p.LiveKey, "/bookings").Decode(t, &list)
	if len(list) != 1 {
		t.Errorf("bookings = %d, want 1", len(list))
	}
}
