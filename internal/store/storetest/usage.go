package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tradewind/tradewind/internal/store"
)

// exerciseBookingDaily: BookingDaily sums the partner's bookings of one mode by UTC day
// of creation and currency, within the filter's creation range; cancelled ones count
// (they were booked), another partner's and the other mode's do not.
func exerciseBookingDaily(t *testing.T, s store.Store) {
	ctx := context.Background()
	p, q := newPartner(t, s, "acme"), newPartner(t, s, "globex")
	at := func(day, hour int) time.Time { return time.Date(2027, 1, day, hour, 30, 0, 0, time.UTC) }
	n := 0
	book := func(partnerID int64, created time.Time, test bool, price int64, currency string) {
		t.Helper()
		n++
		b := newBooking(p, "HTL-DAY"+string(rune('A'+n))+"AAAA", "", "")
		b.PartnerID, b.CreatedAt, b.UpdatedAt, b.Test, b.TotalPrice, b.Currency = partnerID, created, created, test, price, currency
		if err := s.BookingCreate(ctx, b); err != nil {
			t.Fatalf("BookingCreate: %v", err)
		}
	}
	book(p.ID, at(4, 0), true, 100, "EUR")
	book(p.ID, at(4, 23), true, 250, "EUR")
	book(p.ID, at(4, 12), true, 999, "GBP")
	// 23:30 UTC on the 5th is the 6th in UTC+2: the UTC day counts.
	book(p.ID, at(5, 23).In(time.FixedZone("UTC+2", 2*3600)), true, 70, "EUR")
	book(p.ID, at(5, 10), false, 5000, "EUR") // live
	book(q.ID, at(4, 10), true, 1, "EUR")     // another partner's
	book(p.ID, at(3, 10), true, 1, "EUR")     // before the range
	book(p.ID, at(7, 0), true, 1, "EUR")      // at its end (excluded)
	test := true
	got, err := s.BookingDaily(ctx, store.BookingFilter{PartnerID: p.ID, Test: &test, CreatedFrom: at(4, 0).Truncate(24 * time.Hour),
		CreatedBefore: time.Date(2027, 1, 7, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	day := func(d int) time.Time { return time.Date(2027, 1, d, 0, 0, 0, 0, time.UTC) }
	want := []store.BookingDay{
		{Day: day(4), Currency: "EUR", Count: 2, Value: 350},
		{Day: day(4), Currency: "GBP", Count: 1, Value: 999},
		{Day: day(5), Currency: "EUR", Count: 1, Value: 70},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("BookingDaily mismatch (-want +got):\n%s", d)
	}
	none, err := s.BookingDaily(ctx, store.BookingFilter{PartnerID: p.ID, Test: &test, CreatedFrom: day(10)})
	if err != nil || len(none) != 0 {
		t.Errorf("BookingDaily of days without bookings = %v, %v", none, err)
	}
}
