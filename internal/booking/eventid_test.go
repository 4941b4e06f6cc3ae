package booking_test

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestNewEventIDOrdersByTime: an event id is "evt_" and 24 base62 characters; ids of
// later times sort after earlier ones (byte order, as the databases compare them), and
// ids of one instant differ.
func TestNewEventIDOrdersByTime(t *testing.T) {
	shape := regexp.MustCompile(`^evt_[A-Za-z0-9]{24}$`)
	t0 := time.Date(2026, 11, 23, 17, 0, 0, 0, time.UTC)
	prev := ""
	seen := map[string]bool{}
	for i, at := range []time.Time{{}, t0, t0, t0.Add(time.Microsecond), t0.Add(61 * time.Microsecond),
		t0.Add(62 * time.Microsecond), t0.Add(time.Hour), t0.AddDate(300, 0, 0)} {
		id := booking.NewEventID(at)
		if !shape.MatchString(id) {
			t.Fatalf("id %q: not evt_ and 24 base62 characters", id)
		}
		if seen[id] {
			t.Fatalf("id %q made twice", id)
		}
		seen[id] = true
		if i > 0 && at.After(time.Time{}) && id[:13] < prev[:13] {
			t.Fatalf("id %q of %v sorts before %q", id, at, prev)
		}
		prev = id
	}
}

// TestPrebookTokenOrdersByTime: a prebook token is "pbk_" and 24 base62 characters, and
// tokens of later prebooks sort after earlier ones, so that the prebooks' token index
// takes each new one at its right edge rather than on a random page (on SQLite
// 18 % more prebooks at the issue's size, docs/performance-history.md, "Second
// afternoon"). Each token is stored and books, and tokens made at one instant differ.
func TestPrebookTokenOrdersByTime(t *testing.T) {
	shape := regexp.MustCompile(`^pbk_[A-Za-z0-9]{24}$`)
	apitest.ForEachDB(t, func(t *testing.T, o storetest.Opener) {
		ctx := context.Background()
		clock := apitest.NewClock(apitest.Start)
		svc, c := liveService(t, o, clock, apitest.Catalog(), "100000")
		q := booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon, RoomID: apitest.RoomSmall,
			CheckIn: apitest.Day(3), CheckOut: apitest.Day(4), Rooms: 1, Adults: 1}
		var tokens []string
		for _, step := range []time.Duration{0, 0, time.Microsecond, 61 * time.Microsecond, time.Second, time.Minute} {
			clock.Advance(step)
			pb, err := svc.Prebook(ctx, c, &q)
			if err != nil {
				t.Fatal(err)
			}
			if !shape.MatchString(pb.PrebookToken) {
				t.Fatalf("token %q: not pbk_ and 24 base62 characters", pb.PrebookToken)
			}
			if n := len(tokens); n > 0 && pb.PrebookToken <= tokens[n-1] && step > 0 {
				t.Fatalf("token %q, made %v later, sorts before %q", pb.PrebookToken, step, tokens[n-1])
			}
			if slices.Contains(tokens, pb.PrebookToken) {
				t.Fatalf("token %q made twice", pb.PrebookToken)
			}
			tokens = append(tokens, pb.PrebookToken)
		}
		v, _, err := svc.Book(ctx, c, "k1", &booking.BookRequest{PrebookToken: tokens[len(tokens)-1], Guest: &booking.Guest{Name: "G"}})
		if err != nil || v.Status != tradewind.StatusConfirmed {
			t.Fatalf("book with the last token: %+v %v", v, err)
		}
	})
}
