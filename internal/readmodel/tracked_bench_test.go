package readmodel_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/tradewind/tradewind"
	"github.com/tradewind/tradewind/internal/apitest"
	"github.com/tradewind/tradewind/internal/booking"
)

// BenchmarkTrackedBookParallel books from 16 goroutines through the service over the
// read model, as serve does: every group commit's claims are reloaded into the model
// (Touched) before its bookings are answered, and the feed's poll reloads them again.
// One night in a hotel spread over the catalog's 60 days, a new Idempotency-Key each.
func BenchmarkTrackedBookParallel(b *testing.B) {
	p := benchPair(b)
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := int(n.Add(1))
			h := p.doc.Hotels[(i*7919)%len(p.doc.Hotels)]
			q := booking.QuoteRequest{ProductType: "hotel", HotelID: h.ID, RoomID: h.Rooms[i%len(h.Rooms)].ID,
				CheckIn: apitest.Day(1 + i%50), CheckOut: apitest.Day(2 + i%50), Rooms: 1, Adults: 1}
			_, _, err := p.fast.Book(ctx, p.caller, fmt.Sprint("bench-", i), &booking.BookRequest{QuoteRequest: q, Guest: &booking.Guest{Name: "Bench"}})
			if err != nil && tradewind.ErrorCode(err) != tradewind.ECodeInvalidQuote {
				b.Errorf("book: %v", err)
				return
			}
		}
	})
	// The feed's poll, which serve runs every PollInterval, reloads the same days.
	if err := p.model.Sync(ctx); err != nil {
		b.Fatal(err)
	}
}
