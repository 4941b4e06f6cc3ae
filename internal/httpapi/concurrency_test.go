package httpapi_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// hammer runs n requests at once and returns the responses by index.
func hammer(n int, fn func(i int) *apitest.Response) []*apitest.Response {
	out := make([]*apitest.Response, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return out
}

func statuses(rs []*apitest.Response) map[string]int {
	m := map[string]int{}
	for _, r := range rs {
		m[fmt.Sprintf("%d %s", r.Status, r.Code)]++
	}
	return m
}

// TestNoOversell books the last rooms of a small allotment from many requests at once.
func TestNoOversell(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		// The single room has an allotment of 2 per night; 24 overlapping stays compete.
		rs := hammer(24, func(i int) *apitest.Response {
			q := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelLisbon, "room_id": apitest.RoomSmall,
				"check_in": apitest.Day(10 + i%3), "check_out": apitest.Day(13), "rooms": 1, "adults": 1}
			return env.Book(p.LiveKey, fmt.Sprint("race-", i), withGuest(q))
		})
		got := statuses(rs)
		if got["201 "] != 2 || got["422 invalid_quote"] != 22 {
			t.Fatalf("outcomes = %v, want 2 created and 22 invalid_quote", got)
		}
		for d := 10; d <= 12; d++ {
			if sold := soldOf(t, env, apitest.RoomSmall, apitest.Day(d)); sold > 2 {
				t.Errorf("day %d sold %d of 2", d, sold)
			}
		}
		if sold := soldOf(t, env, apitest.RoomSmall, apitest.Day(12)); sold != 2 {
			t.Errorf("last night sold %d, want 2", sold)
		}
	})
}

// TestCreditNeverOverdrawn books many times at once against a credit line that fits a few.
func TestCreditNeverOverdrawn(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env := apitest.New(t, o)
		env.Import(apitest.Catalog())
		// Each booking is one Porto night at 90.00; the line holds five.
		p := env.NewPartner("tight", booking.PartnerParams{CreditLimit: ptr("450.00")})
		rs := hammer(20, func(i int) *apitest.Response {
			q := map[string]any{"product_type": "hotel", "hotel_id": apitest.HotelPorto, "room_id": apitest.RoomPorto,
				"check_in": apitest.Day(1 + i), "check_out": apitest.Day(2 + i), "rooms": 1, "adults": 1}
			return env.Book(p.LiveKey, fmt.Sprint("credit-", i), withGuest(q))
		})
		got := statuses(rs)
		if got["201 "] != 5 || got["402 insufficient_credit"] != 15 {
			t.Fatalf("outcomes = %v, want 5 created and 15 insufficient_credit", got)
		}
		if used := creditOf(t, env, p.ID); used != 45000 {
			t.Errorf("credit used = %d, want 45000", used)
		}
	})
}

// TestIdempotencyUnderConcurrency sends one Idempotency-Key many times at once.
func TestIdempotencyUnderConcurrency(t *testing.T) {
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		env, p := newHotelEnv(t, o)
		rs := hammer(20, func(i int) *apitest.Response {
			return env.Book(p.LiveKey, "one-key", withGuest(hotelQuote(1, 3, 1, 1)))
		})
		got := statuses(rs)
		if got["201 "] != 1 || got["200 "] != 19 {
			t.Fatalf("outcomes = %v, want one 201 and 19 replays", got)
		}
		refs := map[string]bool{}
		for _, r := range rs {
			refs[r.Map(t)["reference"].(string)] = true
		}
		if len(refs) != 1 {
			t.Errorf("references = %v, want exactly one", refs)
		}
		if used := creditOf(t, env, p.ID); used != 20010 {
			t.Errorf("credit used = %d, want one booking's 20010", used)
		}
		if sold := soldOf(t, env, apitest.RoomDouble, apitest.Day(1)); sold != 1 {
			t.Errorf("sold = %d, want 1", sold)
		}
		var list []map[string]any
		env.Get(p.LiveKey, "/bookings").Decode(t, &list)
		if len(list) != 1 {
			t.Errorf("bookings = %d, want 1", len(list))
		}
	})
}
