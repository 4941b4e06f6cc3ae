package booking_test

import (
	"context"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
	"github.com/tradewind/tradewind/internal/store/storetest"
)

// TestConfirmOnlyPendingOrOnRequest: the operator confirms a pending or on_request
// booking once; confirming it again, or a cancelled one, answers not_confirmable
// (not not_cancellable, which would tell the operator something untrue).
func TestConfirmOnlyPendingOrOnRequest(t *testing.T) {
	for _, o := range storetest.Openers() {
		t.Run(o.Name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			svc, c := liveService(t, o, apitest.NewClock(apitest.Start), apitest.Catalog(), "10000")
			book := func(key string) *booking.BookingView {
				t.Helper()
				quote := booking.QuoteRequest{ProductType: "hotel", HotelID: apitest.HotelLisbon, RoomID: apitest.RoomSmall,
					CheckIn: apitest.Day(3), CheckOut: apitest.Day(4), Rooms: 1, Adults: 1}
				v, _, err := svc.Book(ctx, c, key, &booking.BookRequest{QuoteRequest: quote, Guest: &booking.Guest{Name: "X"}})
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			confirmed := book("a")
			if confirmed.Status != tradewind.StatusConfirmed {
				if b, err := svc.Confirm(ctx, confirmed.Reference); err != nil || b.Status != tradewind.StatusConfirmed {
					t.Fatalf("first confirm of a %s booking: %v", confirmed.Status, err)
				}
			}
			cancelled := book("b")
			if _, err := svc.Cancel(ctx, c, cancelled.Reference, ""); err != nil {
				t.Fatal(err)
			}
			for _, ref := range []string{confirmed.Reference, cancelled.Reference} {
				_, err := svc.Confirm(ctx, ref)
				if code := tradewind.ErrorCode(err); code != tradewind.ECodeNotConfirmable {
					t.Errorf("confirm %s: %v (code %s), want %s", ref, err, code, tradewind.ECodeNotConfirmable)
				}
			}
		})
	}
}
